"""Special matrices of ``jax.scipy.linalg``: hankel, circulant, leslie, companion, fiedler,
fiedler_companion, convolution_matrix (built from data, batched over leading dims) and
hilbert, invhilbert, pascal, invpascal, helmert, hadamard, dft (built from a static size).

Matrices built from data gather their entries with index tables computed in NumPy, so
they trace under jit and differentiate through the gather. Fixed matrices are computed
exactly in NumPy (integers and float64) and returned as constants in the default dtype;
JAX approximates pascal/invpascal/invhilbert through lgamma, SciPy's exact values are
the reference here.
"""

import math

import numpy as np

from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError, static_index
from tjit.tracing.shapes import shape_str


def _vector(fname, x):
    check_arraylike(f"scipy.linalg.{fname}", x)
    return jnp.atleast_1d(jnp.asarray(x))


def _gather(vals, idx):
    """``vals[..., idx]`` for a NumPy index table ``idx`` (any shape)."""
    flat = jnp.take(vals, jnp.asarray(idx.ravel().astype(np.int32)), axis=-1)
    return flat.reshape(vals.shape[:-1] + idx.shape)


def _broadcast_pair(c, r):
    batch = jnp.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    dtype = jnp.result_type(c, r)
    return (jnp.broadcast_to(c.astype(dtype), batch + c.shape[-1:]),
            jnp.broadcast_to(r.astype(dtype), batch + r.shape[-1:]))


def hankel(c, r=None):
    """Hankel matrix ``H[i, j] = v[i + j]`` with ``v = concatenate([c, r[1:]])``.

    Args:
      c: first column (..., m).
      r: last row (..., n) (``r[0]`` is ignored); default zeros like c.

    Returns:
      (..., m, n).
    """
    c = _vector("hankel", c)
    r = jnp.zeros_like(c) if r is None else _vector("hankel", r)
    c, r = _broadcast_pair(c, r)
    m, n = c.shape[-1], r.shape[-1]
    if m == 0 or n == 0:
        return jnp.zeros(c.shape[:-1] + (m, n), c.dtype)
    v = jnp.concatenate([c, r[..., 1:]], axis=-1)
    return _gather(v, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """Circulant matrix ``A[i, j] = c[(i - j) % n]`` of first column c (..., n)."""
    c = _vector("circulant", c)
    n = c.shape[-1]
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1))


def leslie(f, s):
    """Leslie matrix: first row f (..., n), n >= 2, and s (..., n - 1) on the subdiagonal."""
    f, s = _vector("leslie", f), _vector("leslie", s)
    if f.shape[-1] < 2 or s.shape[-1] != f.shape[-1] - 1:
        raise ShapeError(f"scipy.linalg.leslie: f {shape_str(f.shape)} and s "
                         f"{shape_str(s.shape)} must be (..., n) and (..., n - 1), n >= 2")
    f, s = _broadcast_pair(f, s)
    n = f.shape[-1]
    zero = jnp.zeros(f.shape[:-1] + (1,), f.dtype)
    vals = jnp.concatenate([f, s, zero], axis=-1)  # f at 0..n-1, s at n..2n-2, 0 at 2n-1
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    idx = np.where(i == 0, j, np.where(i == j + 1, n + j, 2 * n - 1))
    return _gather(vals, idx)


def companion(a):
    """Companion matrix (..., n-1, n-1) of polynomial coefficients a (..., n), n >= 2:
    first row ``-a[1:] / a[0]``, ones on the subdiagonal."""
    (a,) = promote_dtypes_inexact(_vector("companion", a))
    if a.shape[-1] < 2:
        raise ShapeError(f"scipy.linalg.companion: a must have at least 2 coefficients "
                         f"along its last axis, got shape {shape_str(a.shape)}")
    m = a.shape[-1] - 1
    row = -a[..., 1:] / a[..., :1]
    vals = jnp.concatenate([row, jnp.zeros(a.shape[:-1] + (1,), a.dtype),
                            jnp.ones(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    i, j = np.arange(m)[:, None], np.arange(m)[None, :]
    return _gather(vals, np.where(i == 0, j, np.where(i == j + 1, m + 1, m)))


def fiedler(a):
    """Symmetric Fiedler matrix ``F[i, j] = |a[i] - a[j]|`` of a (..., n)."""
    a = _vector("fiedler", a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler companion matrix (..., n-1, n-1) of polynomial coefficients a (..., n):
    pentadiagonal, with the polynomial's roots as eigenvalues (as SciPy's)."""
    (a,) = promote_dtypes_inexact(_vector("fiedler_companion", a))
    if a.shape[-1] == 0:
        raise ShapeError("scipy.linalg.fiedler_companion: a must have at least one "
                         f"coefficient along its last axis, got shape {shape_str(a.shape)}")
    n = a.shape[-1] - 1
    a = a / a[..., :1]
    if n <= 1:
        return -a[..., 1:, None][..., :n, :n]
    # vals: -a[1..n] at 0..n-1, then 1 at n, 0 at n+1 (SciPy's layout of the bands).
    vals = jnp.concatenate([-a[..., 1:], jnp.ones(a.shape[:-1] + (1,), a.dtype),
                            jnp.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    idx = np.full((n, n), n + 1)
    idx[0, 0], idx[1, 0] = 0, n
    for i in range(0, n, 2):
        if i + 1 < n:
            idx[i, i + 1] = i + 1      # -a[i+2]
        if i + 2 < n:
            idx[i, i + 2] = n          # 1
        if i >= 2:
            idx[i, i - 1] = i          # -a[i+1]
    for i in range(3, n, 2):
        idx[i, i - 2] = n              # 1
    return _gather(vals, idx)


def convolution_matrix(a, n, mode="full"):
    """Matrix A (..., k, n) with ``A @ v == jnp.convolve(a, v, mode)``.

    Args:
      a: (..., m), m >= 1.
      n: columns, a positive int.
      mode: 'full' (k = m + n - 1), 'same' (k = max(m, n)) or 'valid'
        (k = max(m, n) - min(m, n) + 1).
    """
    n = static_index(n, "n", "convolution_matrix")
    if n <= 0:
        raise ValueError(f"scipy.linalg.convolution_matrix: n must be a positive int, got {n}")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"scipy.linalg.convolution_matrix: mode must be 'full', 'same' or "
                         f"'valid', got {mode!r}")
    check_arraylike("scipy.linalg.convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0 or a.shape[-1] < 1:
        raise ShapeError(f"scipy.linalg.convolution_matrix: a must be (..., m) with m >= 1, "
                         f"got shape {shape_str(a.shape)}")
    m = a.shape[-1]
    if mode == "full":
        start, k = 0, m + n - 1
    elif mode == "same":
        k = max(m, n)
        start = (min(n, m) - 1) // 2
    else:
        start, k = min(n, m) - 1, max(m, n) - min(m, n) + 1
    # full row r, column j holds a[r - j] (0 outside a); other modes keep rows start..
    vals = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    d = np.arange(start, start + k)[:, None] - np.arange(n)[None, :]
    return _gather(vals, np.where((d >= 0) & (d < m), d, m))


# -- matrices of a static size ----------------------------------------------------------
def _size(fname, n):
    n = static_index(n, "n", fname)
    if n < 0:
        raise ValueError(f"scipy.linalg.{fname}: n must be a non-negative int, got {n}")
    return n


def _const(x, dtype=None):
    return jnp.asarray(np.asarray(x, np.float64),
                       dtype=dtype or dtypes.default_float())


def hilbert(n):
    """Hilbert matrix ``H[i, j] = 1 / (i + j + 1)`` of shape (n, n)."""
    i = np.arange(_size("hilbert", n))
    return _const(1.0 / (i[:, None] + i[None, :] + 1))


def invhilbert(n):
    """Inverse of the Hilbert matrix of order n (SciPy's exact integers, in floats)."""
    n = _size("invhilbert", n)
    out = np.empty((n, n), np.float64)
    c = math.comb
    for i in range(n):
        for j in range(n):
            out[i, j] = float((-1) ** (i + j) * (i + j + 1) * c(n + i, n - j - 1)
                              * c(n + j, n - i - 1) * c(i + j, i) ** 2)
    return _const(out)


def _pascal_lower(n):
    return np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], dtype=object)


def _pascal_kind(fname, kind):
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"scipy.linalg.{fname}: kind must be 'symmetric', 'lower' or "
                         f"'upper', got {kind!r}")
    return kind


def pascal(n, kind=None):
    """Pascal matrix of order n: 'symmetric' (default, ``comb(i + j, i)``), 'lower' or
    'upper' (``comb(i, j)`` and its transpose)."""
    kind = _pascal_kind("pascal", kind)
    low = _pascal_lower(_size("pascal", n))
    out = {"lower": low, "upper": low.T, "symmetric": low.dot(low.T)}[kind]
    return _const(out.astype(np.float64))


def invpascal(n, kind=None):
    """Inverse of the Pascal matrix of order n (kind as :func:`pascal`)."""
    kind = _pascal_kind("invpascal", kind)
    n = _size("invpascal", n)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    low = _pascal_lower(n) * np.where((i - j) % 2 == 0, 1, -1).astype(object)
    out = {"lower": low, "upper": low.T, "symmetric": low.T.dot(low)}[kind]
    return _const(out.astype(np.float64))


def helmert(n, full=False):
    """Helmert matrix: (n - 1, n) orthonormal contrasts, with a first row of
    ``1 / sqrt(n)`` when ``full`` ((n, n), orthogonal)."""
    n = static_index(n, "n", "helmert")
    if n < 1:
        raise ValueError(f"scipy.linalg.helmert: n must be a positive int, got {n}")
    k = np.arange(1, n)[:, None].astype(np.float64)
    j = np.arange(n)[None, :]
    h = np.where(j < k, 1.0, np.where(j == k, -k, 0.0)) / np.sqrt(k * (k + 1))
    if full:
        h = np.concatenate([np.full((1, n), 1 / np.sqrt(n)), h], axis=0)
    return _const(h)


def hadamard(n, dtype=int):
    """Sylvester's Hadamard matrix of order n (a power of 2), ``H H^T = n I``."""
    n = static_index(n, "n", "hadamard")
    if n < 1 or n & (n - 1):
        raise ValueError(f"scipy.linalg.hadamard: n must be a positive power of 2, got {n}")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return jnp.asarray(h, dtype=dtype)


def dft(n, scale=None, *, dtype=None):
    """Discrete Fourier transform matrix ``W[i, j] = exp(-2 pi i j / n)`` (n, n).

    Args:
      scale: None, 'sqrtn' (divide by sqrt(n), unitary) or 'n' (divide by n).
      dtype: a complex dtype (default: the default complex dtype).
    """
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scipy.linalg.dft: scale must be None, 'sqrtn' or 'n', got "
                         f"{scale!r}")
    dtype = dtypes.default_complex() if dtype is None else np.dtype(dtype)
    if not dtypes.is_complex(dtype):
        raise ValueError(f"scipy.linalg.dft: dtype must be complex, got {dtype}")
    n = _size("dft", n)
    i = np.arange(n)
    w = np.exp(-2j * np.pi * ((i[:, None] * i[None, :]) % max(n, 1)) / max(n, 1))
    w = w / {None: 1, "sqrtn": np.sqrt(n), "n": n}[scale]
    return jnp.asarray(w, dtype=dtype)
