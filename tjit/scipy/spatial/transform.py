"""``tjit.scipy.spatial.transform``: 3-D rotations (``Rotation``) and their spherical
linear interpolation (``Slerp``), as ``jax.scipy.spatial.transform``.

A ``Rotation`` holds unit quaternions ``quat`` (scalar last, shape (4,) for one rotation
or (N, 4)); it is a NamedTuple, hence a pytree that passes through ``jit`` and ``vmap``.
Every conversion works on the quaternions' last axis, batched, with the rotation axes
of Euler sequences static (Python ints), so nothing is traced that sets a shape.
"""

import itertools
import re
import typing

import numpy as np

from tjit import numpy as jnp
from tjit.tracing.core import concrete_value, is_concrete

_AXIS = {"x": 0, "y": 1, "z": 2}


def _concrete(x):
    """``x`` as a NumPy array when it is concrete (SciPy's input checks then apply), else
    None (a traced value cannot be checked; it computes as JAX does)."""
    return np.asarray(concrete_value(x)) if is_concrete(x) else None


def _norm(v):
    return jnp.sqrt(jnp.sum(v * v, axis=-1))


def _at_least_float32(x):
    """``x`` in a float dtype of at least float32's precision (as JAX's Rotation)."""
    return x.astype(jnp.promote_types(x.dtype, jnp.float32))


def _normalize(quat):
    return quat / _norm(quat)[..., None]


def _compose(p, q):
    """The quaternion product ``p q`` (apply q, then p), batched over leading axes."""
    pv, pw, qv, qw = p[..., :3], p[..., 3:], q[..., :3], q[..., 3:]
    vec = pw * qv + qw * pv + jnp.cross(pv, qv)
    return jnp.concatenate([vec, pw * qw - jnp.sum(pv * qv, axis=-1, keepdims=True)], -1)


def _as_matrix(q):
    x, y, z, w = (q[..., i] for i in range(4))
    rows = [[x * x - y * y - z * z + w * w, 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), -x * x + y * y - z * z + w * w, 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), -x * x - y * y + z * z + w * w]]
    return jnp.stack([jnp.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
    """Markley's method (SciPy's): of the four ways to read the quaternion off the
    matrix, the one whose pivot (a diagonal entry or the trace) is largest."""
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    decision = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m[..., i, i]
        q[j] = m[..., j, i] + m[..., i, j]
        q[k] = m[..., k, i] + m[..., i, k]
        q[3] = m[..., k, j] - m[..., j, k]
        candidates.append(jnp.stack(q, axis=-1))
    candidates.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                                 m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1))
    choice = jnp.argmax(decision, axis=-1)
    quat = jnp.take_along_axis(jnp.stack(candidates, axis=-2), choice[..., None, None],
                               axis=-2)[..., 0, :]
    return _normalize(quat)


def _canonical(q):
    """The sign of each quaternion with w > 0, or (w = 0) its first nonzero of x, y, z > 0."""
    neg, zero = q < 0, q == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0])
            | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return jnp.where(flip[..., None], -q, q)


def _as_rotvec(q, degrees):
    # the canonical sign (as SciPy): angle in [0, pi], and a half turn's axis picked as
    # as_quat(canonical=True) picks it
    q = _canonical(q)
    angle = 2 * jnp.arctan2(_norm(q[..., :3]), q[..., 3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880  # angle / sin(angle / 2) near 0
    large = angle / jnp.sin(jnp.where(angle <= 1e-3, 1.0, angle) / 2)
    scale = jnp.where(angle <= 1e-3, small, large)
    out = scale[..., None] * q[..., :3]
    return jnp.rad2deg(out) if degrees else out


def _from_rotvec(rotvec, degrees):
    rotvec = jnp.deg2rad(rotvec) if degrees else rotvec
    angle = _norm(rotvec)
    a2 = angle * angle
    small = 0.5 - a2 / 48 + a2 * a2 / 3840  # sin(angle / 2) / angle near 0
    large = jnp.sin(angle / 2) / jnp.where(angle <= 1e-3, 1.0, angle)
    scale = jnp.where(angle <= 1e-3, small, large)
    return jnp.concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], -1)


def _elementary(axis, angle):
    """The quaternion of a rotation by ``angle`` about basis axis ``axis`` (static)."""
    parts = [jnp.zeros_like(angle)] * 3 + [jnp.cos(angle / 2)]
    parts[axis] = jnp.sin(angle / 2)
    return jnp.stack(parts, axis=-1)


def _check_seq(seq, lengths):
    if not isinstance(seq, str) or len(seq) not in lengths:
        raise ValueError(f"Rotation: expected an axis sequence of {' or '.join(map(str, lengths))} "
                         f"characters, got {seq!r}")
    intrinsic = re.fullmatch(r"[XYZ]+", seq) is not None
    if not intrinsic and re.fullmatch(r"[xyz]+", seq) is None:
        raise ValueError(f"Rotation: expected axes from 'xyz' (extrinsic) or 'XYZ' "
                         f"(intrinsic), not mixed, got {seq!r}")
    if any(a == b for a, b in itertools.pairwise(seq)):
        raise ValueError(f"Rotation: consecutive axes must differ, got {seq!r}")
    return [_AXIS[c] for c in seq.lower()], intrinsic


def _euler_from_quat(q, axes, extrinsic, degrees):
    """SciPy's quaternion-to-Euler algorithm (Bernardes & Viollet 2022): the middle
    angle from the quaternion's components permuted to the sequence, the outer two from
    half-sum and half-difference angles; at gimbal lock the third angle is 0."""
    i, j, k = axes if extrinsic else axes[::-1]
    first, third = (0, 2) if extrinsic else (2, 0)
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    w = q[..., 3]
    if symmetric:
        a, b, c, d = w, q[..., i], q[..., j], q[..., k] * sign
    else:
        a, b = w - q[..., j], q[..., i] + q[..., k] * sign
        c, d = q[..., j] + w, q[..., k] * sign - q[..., i]
    middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    eps = 1e-7
    at_zero = jnp.abs(middle) <= eps
    degenerate = at_zero | (jnp.abs(middle - np.pi) <= eps)
    lock_angle = jnp.where(at_zero, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    angles = [None, middle, None]
    angles[first] = jnp.where(degenerate, lock_angle if first == 0 else 0.0,
                              half_sum - half_diff)
    angles[third] = jnp.where(degenerate, lock_angle if third == 0 else 0.0,
                              half_sum + half_diff)
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = jnp.stack(angles, axis=-1)
    # into [-pi, pi] as SciPy (pi itself stays pi; a modulo would give -pi)
    out = jnp.where(out > np.pi, out - 2 * np.pi, jnp.where(out < -np.pi, out + 2 * np.pi, out))
    return jnp.rad2deg(out) if degrees else out


class Rotation(typing.NamedTuple):
    """Rotations in 3 dimensions as unit quaternions (``scipy.spatial.transform.Rotation``).

    Build one with the ``from_*`` class methods (not the constructor, which takes the
    quaternions as they are)."""

    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        """One Rotation holding all of ``rotations`` in order."""
        return cls(jnp.concatenate([jnp.atleast_2d(r.quat) for r in rotations]))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        """From Euler angles about ``seq`` ('xyz'-style extrinsic, 'XYZ'-style intrinsic;
        1 to 3 axes); ``angles`` of shape (len(seq),) or (N, len(seq)), or a scalar for
        one axis."""
        axes, intrinsic = _check_seq(seq, (1, 2, 3))
        angles = jnp.asarray(angles)
        angles = _at_least_float32(angles)
        if len(axes) == 1 and angles.ndim == 0:
            angles = angles[None]
        if angles.ndim not in (1, 2) or angles.shape[-1] != len(axes):
            raise ValueError(f"Rotation.from_euler: angles of shape {angles.shape} do not "
                             f"fit the sequence {seq!r}: expected ({len(axes)},) or "
                             f"(N, {len(axes)})")
        angles = jnp.deg2rad(angles) if degrees else angles
        quat = _elementary(axes[0], angles[..., 0])
        for n, ax in enumerate(axes[1:], 1):
            step = _elementary(ax, angles[..., n])
            quat = _compose(quat, step) if intrinsic else _compose(step, quat)
        return cls(quat)

    @classmethod
    def from_matrix(cls, matrix):
        """From rotation matrices, shape (3, 3) or (N, 3, 3)."""
        m = jnp.asarray(matrix)
        if m.shape[-2:] != (3, 3) or m.ndim not in (2, 3):
            raise ValueError(f"Rotation.from_matrix: expected shape (3, 3) or (N, 3, 3), "
                             f"got {m.shape}")
        value = _concrete(m)
        if value is not None and np.any(np.linalg.det(value) <= 0):
            raise ValueError("Rotation.from_matrix: non-positive determinant (a left-handed "
                             "or null coordinate frame) in the rotation matrices; pass "
                             "proper rotations (det > 0)")
        return cls(_from_matrix(_at_least_float32(m)))

    @classmethod
    def from_mrp(cls, mrp):
        """From Modified Rodrigues Parameters, shape (3,) or (N, 3)."""
        p = _vectors("from_mrp", mrp)
        sq1 = jnp.sum(p * p, axis=-1, keepdims=True) + 1
        return cls(jnp.concatenate([2 * p, 2 - sq1], axis=-1) / sq1)

    @classmethod
    def from_quat(cls, quat, *, scalar_first=False):
        """From quaternions (normalized here), shape (4,) or (N, 4), scalar last unless
        ``scalar_first``."""
        q = jnp.asarray(quat)
        if q.shape[-1:] != (4,) or q.ndim not in (1, 2):
            raise ValueError(f"Rotation.from_quat: expected shape (4,) or (N, 4), got "
                             f"{q.shape}")
        q = _at_least_float32(q)
        value = _concrete(q)
        if value is not None and np.any(np.linalg.norm(value, axis=-1) == 0):
            raise ValueError("Rotation.from_quat: found zero norm quaternions in quat; a "
                             "rotation needs a nonzero quaternion")
        if scalar_first:
            q = jnp.roll(q, -1, axis=-1)
        return cls(_normalize(q))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        """From rotation vectors (axis times angle), shape (3,) or (N, 3)."""
        return cls(_from_rotvec(_vectors("from_rotvec", rotvec), degrees))

    @classmethod
    def identity(cls, num=None, dtype=float):
        """The identity rotation (``num`` None), or ``num`` of them."""
        quat = jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype)
        return cls(quat if num is None else jnp.tile(quat, (num, 1)))

    @classmethod
    def random(cls, random_key, num=None):
        """Rotations uniform over SO(3) (normalized Gaussian quaternions), drawn with the
        PRNG key ``random_key``."""
        from tjit import random
        shape = (4,) if num is None else (num, 4)
        return cls(_normalize(random.normal(random_key, shape)))

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Rotation: a single rotation is not subscriptable")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Rotation: a single rotation has no len()")
        return self.quat.shape[0]

    def __mul__(self, other):
        """The composition: ``(p * q).apply(v) == p.apply(q.apply(v))``."""
        if not isinstance(other, Rotation):
            return NotImplemented
        return Rotation(_normalize(_compose(self.quat, other.quat)))

    def apply(self, vectors, inverse=False):
        """Rotate ``vectors`` (shape (3,) or (N, 3)); ``inverse`` rotates back."""
        v = _vectors("apply", vectors)
        m = self.as_matrix()
        m = jnp.where(inverse, jnp.swapaxes(m, -1, -2), m)
        return jnp.matmul(m, v[..., None])[..., 0]

    def as_euler(self, seq, degrees=False):
        """Euler angles about the 3 axes of ``seq`` (shape (3,) or (N, 3)); at gimbal
        lock the third angle is set to 0 (SciPy warns there; a traced value cannot)."""
        axes, intrinsic = _check_seq(seq, (3,))
        return _euler_from_quat(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self):
        """Rotation matrices, shape (3, 3) or (N, 3, 3)."""
        return _as_matrix(self.quat)

    def as_mrp(self):
        """Modified Rodrigues Parameters (the shorter of the two), shape (3,) or (N, 3)."""
        sign = jnp.where(self.quat[..., 3:] < 0, -1.0, 1.0)
        return sign * self.quat[..., :3] / (1 + sign * self.quat[..., 3:])

    def as_rotvec(self, degrees=False):
        """Rotation vectors (angle in [0, pi] times the unit axis)."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical=False, scalar_first=False):
        """Quaternions, scalar last unless ``scalar_first``; ``canonical`` picks the sign
        with w > 0 (or the first nonzero of w, x, y, z positive)."""
        q = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(q, 1, axis=-1) if scalar_first else q

    def inv(self):
        """The inverse rotations."""
        return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self):
        """The rotation angles, in [0, pi]."""
        return 2 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation: the dominant eigenvector of
        ``sum w q q^T`` (Markley et al. 2007, as SciPy)."""
        if self.single:
            return self
        n = self.quat.shape[0]
        w = jnp.ones(n, self.quat.dtype) if weights is None else jnp.asarray(
            weights, self.quat.dtype)
        if w.shape != (n,):
            raise ValueError(f"Rotation.mean: weights must have shape ({n},) (one per "
                             f"rotation), got {w.shape}")
        k = jnp.matmul(self.quat.T * w, self.quat)
        return Rotation(jnp.linalg.eigh(k)[1][:, -1])

    @property
    def single(self):
        """Whether this is one rotation (quat of shape (4,)) rather than a stack."""
        return self.quat.ndim == 1


def _vectors(fname, v):
    v = jnp.asarray(v)
    if v.shape[-1:] != (3,) or v.ndim not in (1, 2):
        raise ValueError(f"Rotation.{fname}: expected shape (3,) or (N, 3), got {v.shape}")
    return _at_least_float32(v)


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of rotations (``scipy.spatial.transform.Slerp``):
    build with ``Slerp.init(times, rotations)``, call with times in
    ``[times[0], times[-1]]``. Times must increase strictly; both are checked when
    concrete (traced times outside the range extrapolate the end segments)."""

    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        """Key rotations ``rotations`` (at least 2) at increasing ``times``."""
        if not isinstance(rotations, Rotation):
            raise TypeError(f"Slerp.init: rotations must be a Rotation, got "
                            f"{type(rotations).__name__}")
        if rotations.single or len(rotations) < 2:
            raise ValueError("Slerp.init: rotations must hold at least 2 rotations")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.shape != (len(rotations),):
            raise ValueError(f"Slerp.init: times must be 1-D with one entry per rotation "
                             f"({len(rotations)}), got shape {times.shape}")
        value = _concrete(times)
        if value is not None and np.any(np.diff(value) <= 0):
            raise ValueError(f"Slerp.init: times must be in strictly increasing order, got "
                             f"{value}")
        start = Rotation(rotations.quat[:-1])
        steps = (start.inv() * Rotation(rotations.quat[1:])).as_rotvec()
        return cls(times, jnp.diff(times), start, steps)

    def __call__(self, times):
        """The interpolated rotations at ``times`` (scalar: a single rotation)."""
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError(f"Slerp: times must be at most 1-D, got shape {t.shape}")
        single = t.ndim == 0
        t = jnp.atleast_1d(t)
        value, key_times = _concrete(t), _concrete(self.times)
        if value is not None and key_times is not None and (
                np.any(value < key_times[0]) or np.any(value > key_times[-1])):
            raise ValueError(f"Slerp: interpolation times must be within the range "
                             f"[{key_times[0]}, {key_times[-1]}], both inclusive")
        # traced times outside the range extrapolate the first or last segment
        ind = jnp.clip(jnp.searchsorted(self.times, t) - 1, 0, self.times.shape[0] - 2)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return out[0] if single else out


__all__ = ["Rotation", "Slerp"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
