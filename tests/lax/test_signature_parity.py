"""jax.lax keyword parameters with JAX's meaning: ``out_sharding=``/``sharding=`` (checked
against the result; one device places nothing), ``dot(dimension_numbers=)`` and
``conv_transpose(use_consistent_padding=)``. References are NumPy in float64."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

_RNG = np.random.default_rng(0)
_A = _RNG.normal(size=(2, 3)).astype(np.float32)
_B = _RNG.normal(size=(3, 4)).astype(np.float32)
_DN = lax.RaggedDotDimensionNumbers((((1,), (2,)), ((), ())), [0], [0])

# name -> (call taking the sharding keyword, NumPy float64 reference)
CALLS = {
    "full": (lambda **k: lax.full((2, 3), 1.5, jnp.float32, **k), np.full((2, 3), 1.5)),
    "full_like": (lambda **k: lax.full_like(_A, 2, **k), np.full((2, 3), 2.0)),
    "broadcast": (lambda **k: lax.broadcast(_A[0], (2,), **k), np.stack([_A[0]] * 2)),
    "broadcast_in_dim": (lambda **k: lax.broadcast_in_dim(_A[:, 0], (2, 3), (0,), **k),
                         np.repeat(_A[:, :1], 3, 1)),
    "broadcasted_iota": (lambda **k: lax.broadcasted_iota(jnp.int32, (2, 3), 1, **k),
                         np.tile(np.arange(3), (2, 1))),
    "reshape": (lambda **k: lax.reshape(_A, (3, 2), **k), _A.reshape(3, 2)),
    "reduce_sum": (lambda **k: lax.reduce_sum(_A, (0,), **k)[None], _A.sum(0)[None]),
    "reduce": (lambda **k: lax.reduce(_A, 0.0, lax.add, (1,), **k), _A.sum(1)),
    "dot": (lambda **k: lax.dot(_A, _B, **k), _A.astype(np.float64) @ _B),
    "dot_general": (lambda **k: lax.dot_general(_A, _B, (((1,), (0,)), ((), ())), **k),
                    _A.astype(np.float64) @ _B),
    "conv_general_dilated": (
        lambda **k: lax.conv_general_dilated(_A[None], _B.T[:, :, None][:2, :2], (1,),
                                             "VALID", **k)[0],
        np.einsum("cl,oc->ol", _A, _B.T[:2, :2])),
    "ragged_dot": (lambda **k: lax.ragged_dot(_A.T, np.stack([_B[:2], _B[:2]]) * 1.0,
                                               np.array([1, 2]), **k),
                   _A.T.astype(np.float64) @ _B[:2]),
    "ragged_dot_general": (lambda **k: lax.ragged_dot_general(
        _A.T, np.stack([_B[:2].T, _B[:2].T]), np.array([2, 1]), _DN, **k),
        _A.T.astype(np.float64) @ _B[:2]),
}


def _keyword(name):
    return "sharding" if name in ("full", "full_like") else "out_sharding"


def _good_shardings():
    mesh = tjit.make_mesh((1,), ("x",))
    return (SingleDeviceSharding(tjit.devices()[0]), NamedSharding(mesh, P("x")))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_sharding_keyword_keeps_values(name):
    call, want = CALLS[name]
    kw = _keyword(name)
    np.testing.assert_allclose(call(), want, rtol=1e-5, atol=1e-6)
    for s in _good_shardings():
        np.testing.assert_allclose(call(**{kw: s}), want, rtol=1e-5, atol=1e-6)
    jitted = tjit.jit(lambda: call(**{kw: _good_shardings()[1]}))()
    np.testing.assert_allclose(jitted, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_sharding_keyword_is_checked(name):
    call, _ = CALLS[name]
    kw = _keyword(name)
    mesh = tjit.make_mesh((1,), ("x",))
    with pytest.raises(TypeError, match=rf"lax.{name}\({kw}=...\): expected a sharding"):
        call(**{kw: "tpu"})
    with pytest.raises(ValueError, match=rf"lax.{name}\({kw}=...\).*entries"):
        call(**{kw: NamedSharding(mesh, P("x", None, None, None))})


def test_dot_dimension_numbers_is_dot_general():
    x = _RNG.normal(size=(5, 2, 3))
    y = _RNG.normal(size=(5, 3, 4))
    got = lax.dot(x.astype(np.float32), y.astype(np.float32),
                  dimension_numbers=(((2,), (1,)), ((0,), (0,))))
    np.testing.assert_allclose(got, np.einsum("bij,bjk->bik", x, y), rtol=1e-5, atol=1e-5)


def _conv_transpose_reference(x, w, s, pad):
    """PyTorch's ConvTranspose1d (the gradient of the forward conv with padding ``pad``
    and stride ``s``): out[j] += w[k] @ x[i] for j = i*s + k - pad_lo."""
    length, k_size = x.shape[1], w.shape[0]
    n = (length - 1) * s - pad[0] - pad[1] + k_size
    out = np.zeros((1, n, w.shape[1]))
    for i in range(length):
        for k in range(k_size):
            j = i * s + k - pad[0]
            if 0 <= j < n:
                out[0, j] += w[k].astype(np.float64) @ x[0, i]
    return out


@pytest.mark.parametrize("stride,pad", [(1, (1, 1)), (2, (1, 0)), (2, (0, 2)), (3, (2, 1))])
def test_conv_transpose_use_consistent_padding(stride, pad):
    x = _RNG.normal(size=(1, 5, 2)).astype(np.float32)   # NHC: the forward conv's outputs
    w = _RNG.normal(size=(3, 4, 2)).astype(np.float32)   # HIO of the forward conv
    got = lax.conv_transpose(x, w, (stride,), [pad], transpose_kernel=True,
                             use_consistent_padding=True)
    np.testing.assert_allclose(got, _conv_transpose_reference(x, w, stride, pad),
                               rtol=1e-5, atol=1e-5)
    # without it, pairs pad the transposed conv itself (JAX's default): other sizes
    old = lax.conv_transpose(x, w, (stride,), [pad], transpose_kernel=True)
    assert old.shape[1] == (5 - 1) * stride + 1 + sum(pad) - 3 + 1


ACCURACY_FNS = ("exp", "exp2", "expm1", "log", "log1p", "sqrt", "rsqrt", "cbrt", "tanh",
                "logistic", "sin", "cos", "tan")


@pytest.mark.parametrize("name", ACCURACY_FNS)
def test_accuracy_accepted_values_unchanged(name):
    # as XLA's CPU backend (JAX's there): one implementation serves every request
    x = np.linspace(0.1, 1.4, 7).astype(np.float32)
    f = getattr(lax, name)
    ref = {"exp2": np.exp2, "rsqrt": lambda v: 1 / np.sqrt(v),
           "logistic": lambda v: 1 / (1 + np.exp(-v))}.get(name, getattr(np, name, None))
    want = ref(x.astype(np.float64))
    for acc in (None, lax.AccuracyMode.HIGHEST, lax.AccuracyMode.DEFAULT,
                lax.Tolerance(atol=1e-6, rtol=1e-6), lax.Tolerance(ulps=2)):
        np.testing.assert_allclose(f(x, accuracy=acc), want, rtol=2e-6)
    g = tjit.grad(lambda v: f(v, accuracy=lax.AccuracyMode.HIGHEST))(np.float32(0.7))
    eps = 1e-6
    np.testing.assert_allclose(g, (ref(0.7 + eps) - ref(0.7 - eps)) / (2 * eps), rtol=1e-4)


def test_accuracy_errors():
    with pytest.raises(NotImplementedError, match="Accuracy 'high' not supported by lax.exp"):
        lax.exp(1.0, accuracy="high")
    with pytest.raises(ValueError, match="non-negative"):
        lax.Tolerance(atol=-1.0)
    with pytest.raises(ValueError, match="At least one"):
        lax.Tolerance()


def test_all_gather_to():
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    got = tjit.vmap(lambda v: lax.all_gather(v, "i", to="varying"), axis_name="i")(x)
    np.testing.assert_array_equal(got, np.stack([x] * 3))   # every member gets all rows
    with pytest.raises(ValueError, match="unexpected `to` value"):
        tjit.vmap(lambda v: lax.all_gather(v, "i", to="everywhere"), axis_name="i")(x)
    with pytest.raises(NotImplementedError, match="to='invarying'"):
        tjit.vmap(lambda v: lax.all_gather(v, "i", to="invarying"), axis_name="i")(x)


def test_eig_eigh_implementation():
    from tjit.lax import linalg as L
    a = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 1.0]])
    for impl in (None, L.EighImplementation.QR):
        _, w = L.eigh(a.astype(np.float32), implementation=impl)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-5, atol=1e-6)
    w = L.eig(a.astype(np.float32), implementation=L.EigImplementation.LAPACK,
              compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]
    np.testing.assert_allclose(np.sort(w.real), np.linalg.eigvalsh(a), rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="JACOBI is not supported"):
        L.eigh(a, implementation=L.EighImplementation.JACOBI)
    with pytest.raises(ValueError, match="only the lapack implementation"):
        L.eig(a, implementation=L.EigImplementation.CUSOLVER)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs=True"):
        L.eig(a, enable_eigvec_derivs=True)


def test_svd_algorithm():
    from tjit.lax import linalg as L
    a = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0]], np.float32)
    want = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    for alg in (None, L.SvdAlgorithm.DEFAULT, L.SvdAlgorithm.QR,
                L.SvdAlgorithm.DIVIDE_AND_CONQUER):
        u, s, vh = L.svd(a, full_matrices=False, algorithm=alg)
        np.testing.assert_allclose(s, want, rtol=1e-5)
        np.testing.assert_allclose((u * s) @ vh, a, rtol=1e-5, atol=1e-5)
    with pytest.raises(NotImplementedError, match="algorithm=SvdAlgorithm.JACOBI"):
        L.svd(a, algorithm=L.SvdAlgorithm.JACOBI)
    with pytest.raises(TypeError, match="algorithm must be a lax.linalg.SvdAlgorithm"):
        L.svd(a, algorithm="qr")
