"""tjit.scipy.spatial.transform (Rotation, Slerp) against scipy.spatial.transform in
float64: every conversion both ways, Euler sequences (intrinsic, extrinsic, symmetric,
gimbal lock), composition, apply, mean and Slerp; under jit and grad; bad arguments."""

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SR
from scipy.spatial.transform import Slerp as SS

import tjit
from tjit.scipy.spatial.transform import Rotation, Slerp
from tests.transforms.check import check_grads

RNG = np.random.default_rng(11)
Q = RNG.standard_normal((6, 4))
V = RNG.standard_normal((6, 3))


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-10)


def test_conversions(x64):
    r, ref = Rotation.from_quat(Q), SR.from_quat(Q)
    _close(r.as_matrix(), ref.as_matrix())
    _close(r.as_rotvec(), ref.as_rotvec())
    _close(r.as_rotvec(degrees=True), ref.as_rotvec(degrees=True))
    _close(r.as_mrp(), ref.as_mrp())
    _close(r.as_quat(canonical=True), ref.as_quat(canonical=True))
    _close(r.as_quat(scalar_first=True)[:, 0], r.as_quat()[:, 3])
    _close(r.magnitude(), ref.magnitude())
    _close(Rotation.from_matrix(ref.as_matrix()).as_matrix(), ref.as_matrix())
    _close(Rotation.from_rotvec(ref.as_rotvec()).as_matrix(), ref.as_matrix())
    _close(Rotation.from_rotvec(ref.as_rotvec(True), degrees=True).as_matrix(),
           ref.as_matrix())
    _close(Rotation.from_mrp(ref.as_mrp()).as_matrix(), ref.as_matrix())
    _close(Rotation.from_quat(Q[:, [3, 0, 1, 2]], scalar_first=True).as_matrix(),
           ref.as_matrix())
    small = np.array([1e-5, -2e-5, 3e-6])  # the small-angle series of rotvec
    _close(Rotation.from_rotvec(small).as_quat(), SR.from_rotvec(small).as_quat())
    _close(Rotation.from_rotvec(small).as_rotvec(), small)
    _close(Rotation.identity().as_matrix(), np.eye(3))
    _close(Rotation.identity(3).as_matrix(), np.broadcast_to(np.eye(3), (3, 3, 3)))


@pytest.mark.parametrize("seq", ["xyz", "ZYX", "xzx", "YXY", "zy", "X"])
def test_euler(x64, seq):
    ang = RNG.uniform(-3, 3, (5, len(seq)))
    _close(Rotation.from_euler(seq, ang).as_matrix(), SR.from_euler(seq, ang).as_matrix())
    _close(Rotation.from_euler(seq, np.rad2deg(ang), degrees=True).as_matrix(),
           SR.from_euler(seq, ang).as_matrix())
    if len(seq) == 3:
        r, ref = Rotation.from_quat(Q), SR.from_quat(Q)
        _close(r.as_euler(seq), ref.as_euler(seq))
        _close(r.as_euler(seq, degrees=True), ref.as_euler(seq, degrees=True))
        lock = np.array([[0.3, 0.0, 0.2], [0.3, np.pi / 2, 0.2], [0.1, np.pi, -0.4]])
        if seq[0].lower() != seq[2].lower():  # Tait-Bryan: lock at +-pi/2
            lock[:, 1] -= np.pi / 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy's gimbal-lock warning
            want = SR.from_euler(seq, lock).as_euler(seq)
        _close(Rotation.from_euler(seq, lock).as_euler(seq), want)
    _close(Rotation.from_euler("x", 0.3).as_matrix(), SR.from_euler("x", 0.3).as_matrix())


def test_compose_apply_mean_slerp(x64):
    r, ref = Rotation.from_quat(Q), SR.from_quat(Q)
    _close(r.apply(V), ref.apply(V))
    _close(r.apply(V, inverse=True), ref.apply(V, inverse=True))
    _close(r[0].apply(V), ref[0].apply(V))
    _close(r.apply(V[0]), ref.apply(V[0]))
    _close((r * r.inv()[::-1]).as_matrix(), (ref * ref.inv()[::-1]).as_matrix())
    _close(Rotation.concatenate([r[:2], r[4]]).as_matrix(),
           SR.concatenate([ref[:2], ref[4]]).as_matrix())
    assert len(r) == 6 and not r.single and r[1].single
    _close(r.mean().as_matrix(), ref.mean().as_matrix())
    w = RNG.uniform(0, 1, 6)
    _close(r.mean(w).as_matrix(), ref.mean(w).as_matrix())
    times = np.array([0, 1, 2.5, 3, 4, 7.0])
    at = np.array([0, 0.5, 1, 2, 3.3, 6.9, 7])
    _close(Slerp.init(times, r)(at).as_matrix(), SS(times, ref)(at).as_matrix())
    _close(Slerp.init(times, r)(2.0).as_matrix(), SS(times, ref)(2.0).as_matrix())


def test_jit_grad_random():
    r = Rotation.from_quat(Q)
    np.testing.assert_allclose(tjit.jit(lambda r, v: r.apply(v))(r, V), r.apply(V),
                               rtol=1e-5, atol=1e-6)
    s = Slerp.init(np.arange(6.0), r)
    np.testing.assert_allclose(tjit.jit(lambda s, t: s(t).as_quat())(s, np.array([0.5, 4.2])),
                               s(np.array([0.5, 4.2])).as_quat(), rtol=1e-5, atol=1e-6)
    check_grads(lambda q: Rotation.from_quat(q).apply(V), (Q,))
    check_grads(lambda a: Rotation.from_euler("xyz", a).as_matrix(), (V,))
    check_grads(lambda v: Rotation.from_rotvec(v).as_rotvec(), (V,))
    rand = Rotation.random(tjit.random.PRNGKey(0), 1000)
    np.testing.assert_allclose(np.linalg.norm(rand.quat, axis=-1), 1.0, rtol=1e-5)
    # uniform over SO(3): the mean rotation matrix is 0 (within sampling noise)
    assert np.abs(np.mean(rand.as_matrix(), axis=0)).max() < 0.1


@pytest.mark.parametrize("call,match", [
    (lambda: Rotation.from_euler("xyzx", np.zeros(4)), "axis sequence of 1 or 2 or 3"),
    (lambda: Rotation.from_euler("xYz", np.zeros(3)), "not mixed"),
    (lambda: Rotation.from_euler("xxz", np.zeros(3)), "consecutive axes must differ"),
    (lambda: Rotation.from_euler("xy", np.zeros(3)), "from_euler: angles of shape"),
    (lambda: Rotation.from_quat(np.zeros(3)), r"from_quat: expected shape \(4,\)"),
    (lambda: Rotation.from_matrix(np.eye(4)), r"from_matrix: expected shape \(3, 3\)"),
    (lambda: Rotation.from_quat(Q).as_euler("xy"), "axis sequence of 3"),
    (lambda: Rotation.from_quat(Q).apply(np.zeros(4)), r"apply: expected shape \(3,\)"),
    (lambda: Rotation.from_quat(Q).mean(np.ones(3)), r"mean: weights must have shape \(6,\)"),
    (lambda: Slerp.init(np.arange(3.0), Rotation.from_quat(Q)), "one entry per rotation"),
    (lambda: Slerp.init(np.arange(2.0), Rotation.from_quat(Q[0])), "at least 2"),
])
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
    with pytest.raises(TypeError, match="single rotation is not subscriptable"):
        Rotation.from_quat(Q[0])[0]
