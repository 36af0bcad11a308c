"""tjit.numpy.fft and lax.fft: values against NumPy's pocketfft in float64, gradients
(jvp and vjp of all four transform kinds) against finite differences, vmap against a
Python loop, jit against eager and the reference interpreter."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tests.transforms.check import check_grads, check_vmap

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6, 5))
Z = X + 1j * RNG.standard_normal((4, 6, 5))

# (name, input, kwargs): every function, with s/n/axes/norm variations
CASES = [
    ("fft", Z, {}), ("fft", X, {"n": 8}), ("fft", Z, {"n": 3, "axis": 1}),
    ("ifft", Z, {"axis": 0}), ("ifft", Z, {"n": 7}),
    ("rfft", X, {}), ("rfft", X, {"n": 9, "axis": 1}), ("rfft", X, {"n": 4, "axis": 0}),
    ("irfft", Z, {}), ("irfft", Z, {"n": 9}), ("irfft", Z, {"n": 4, "axis": 1}),
    ("fft2", Z, {}), ("fft2", X, {"s": (5, 7), "axes": (0, 2)}),
    ("ifft2", Z, {"axes": (2, 0)}),
    ("rfft2", X, {}), ("irfft2", Z, {"s": (6, 7)}),
    ("fftn", Z, {}), ("fftn", X, {"s": (3, 8), "axes": (1, 2)}), ("fftn", Z, {"axes": (1,)}),
    ("ifftn", Z, {"s": (2, 4, 6), "axes": (0, 1, 2)}),
    ("rfftn", X, {}), ("rfftn", X, {"axes": (0, 1)}), ("rfftn", X, {"s": (7, 6), "axes": (1, 2)}),
    ("irfftn", Z, {}), ("irfftn", Z, {"s": (4, 6, 9), "axes": (0, 1, 2)}), ("irfftn", Z, {"axes": (2, 0)}),
    ("hfft", Z, {}), ("hfft", Z, {"n": 7, "axis": 0}),
    ("ihfft", X, {}), ("ihfft", X, {"n": 9, "axis": 1}),
]


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("name,arg,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_match_numpy(x64, name, arg, kw, norm):
    got = getattr(jnp.fft, name)(arg, norm=norm, **kw)
    want = getattr(np.fft, name)(arg, norm=norm, **kw)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-10)


def test_float32_dtypes_and_accuracy():
    x = X.astype(np.float32)
    assert jnp.fft.fft(x).dtype == jnp.complex64
    assert jnp.fft.irfft(jnp.fft.rfft(x)).dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(jnp.fft.rfftn(x)), np.fft.rfftn(X), rtol=1e-4,
                               atol=1e-4)
    assert jnp.fft.fft(np.arange(4)).dtype == jnp.complex64  # ints go through float


@pytest.mark.parametrize("n,d", [(1, 1.0), (8, 0.1), (9, 2.0)])
def test_frequencies_and_shifts(x64, n, d):
    np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(n, d)), np.fft.fftfreq(n, d))
    np.testing.assert_allclose(np.asarray(jnp.fft.rfftfreq(n, d)), np.fft.rfftfreq(n, d))
    a = np.arange(n * 3.0).reshape(3, n)
    for axes in (None, 1, (0,), (0, 1)):
        np.testing.assert_array_equal(np.asarray(jnp.fft.fftshift(a, axes)),
                                      np.fft.fftshift(a, axes))
        np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(a, axes)),
                                      np.fft.ifftshift(a, axes))


def test_fftfreq_default_dtype_and_traced_spacing():
    assert jnp.fft.fftfreq(4).dtype == jnp.float32
    got = tjit.jit(lambda d: jnp.fft.rfftfreq(6, d))(jnp.float32(0.5))
    np.testing.assert_allclose(np.asarray(got), np.fft.rfftfreq(6, 0.5), rtol=1e-6)


# Gradients: real-in, real-out compositions covering each kind and its transpose (the
# complex transposes follow JAX's pairing Re(ct * t)).
def _parts(c):
    return jnp.stack([jnp.real(c), jnp.imag(c)])


GRAD_FNS = {
    "fft": lambda a, b: _parts(jnp.fft.fft(a + 1j * b, axis=0)),
    "ifft2": lambda a, b: _parts(jnp.fft.ifft2(a + 1j * b, s=(3, 6))),
    "rfft": lambda a, b: _parts(jnp.fft.rfft(a * b, n=7)),
    "rfftn_even": lambda a, b: _parts(jnp.fft.rfftn(a - b)),
    "irfft": lambda a, b: jnp.fft.irfft(a + 1j * b, n=5),
    "irfftn_even": lambda a, b: jnp.fft.irfftn(a + 1j * b, norm="ortho"),
    "hfft": lambda a, b: jnp.fft.hfft(a + 1j * b, axis=0),
    "ihfft": lambda a, b: _parts(jnp.fft.ihfft(a + b, norm="forward")),
    "power": lambda a, b: jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2 * b[:, :3]),
}


@pytest.mark.parametrize("name", sorted(GRAD_FNS))
def test_grads_against_finite_differences(name):
    a, b = RNG.standard_normal((2, 4, 4))
    check_grads(GRAD_FNS[name], (a, b), order=1, eps=1e-6, rtol=1e-5, atol=1e-5)


def test_second_order_grad():
    f = lambda a, b: jnp.sum(jnp.real(jnp.fft.fft(a * b + 1j * a)) ** 2)  # noqa: E731
    a, b = RNG.standard_normal((2, 6))
    check_grads(f, (a, b), order=2, eps=1e-5, rtol=1e-4, atol=1e-4)


def test_grad_of_real_loss_matches_closed_form(x64):
    """d/dx sum |rfft(x)|^2 w = 2 * irfft-like weighting: checked through Parseval on a
    full FFT (sum |fft(x)|^2 = n sum x^2 -> gradient 2 n x)."""
    x = RNG.standard_normal(8)
    g = tjit.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * 8 * x, rtol=1e-12)


@pytest.mark.parametrize("name,fn", [
    ("fft", lambda z: jnp.fft.fft(z)),
    ("rfft2", lambda z: jnp.fft.rfft2(jnp.real(z))),
    ("irfft", lambda z: jnp.fft.irfft(z, n=6, axis=0)),
    ("fftshift", lambda z: jnp.fft.fftshift(z)),
])
@pytest.mark.parametrize("axis", [0, 1])
def test_vmap_matches_loop(name, fn, axis):
    z = (X + 1j * X[::-1]).astype(np.complex64)
    check_vmap(fn, (z,), in_axes=axis, rtol=1e-5, atol=1e-5)


def test_jit_matches_eager_and_interpreter():
    def f(x):
        y = jnp.fft.rfft(x, axis=1)
        return jnp.fft.irfft(y * jnp.conj(y), n=x.shape[1], axis=1) + jnp.sin(x)
    x = X.astype(np.float32)
    eager = np.asarray(f(x))
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), eager, rtol=1e-5, atol=1e-5)
    interp = tjit.jit(f, backend="interpreter")(x)
    np.testing.assert_allclose(np.asarray(interp), eager, rtol=1e-5, atol=1e-5)
    g = tjit.jit(tjit.grad(lambda x: jnp.sum(f(x) ** 2)))(x)
    np.testing.assert_allclose(np.asarray(g),
                               np.asarray(tjit.grad(lambda x: jnp.sum(f(x) ** 2))(x)),
                               rtol=1e-4, atol=1e-4)


def test_lax_fft_kinds_and_names(x64):
    np.testing.assert_allclose(np.asarray(lax.fft(Z, "fft", (6, 5))), np.fft.fftn(Z, axes=(1, 2)))
    np.testing.assert_allclose(np.asarray(lax.fft(Z, lax.FftType.IFFT, 5)),
                               np.fft.ifft(Z))
    np.testing.assert_allclose(np.asarray(lax.fft(X, "RFFT", [5])), np.fft.rfft(X))
    np.testing.assert_allclose(np.asarray(lax.fft(Z[..., :3], lax.FftType.IRFFT, (6, 5))),
                               np.fft.irfftn(Z[..., :3], s=(6, 5), axes=(1, 2)))


def test_bad_input_errors():
    with pytest.raises(TypeError, match="RFFT needs a float32 or float64"):
        lax.fft(Z.astype(np.complex64), "rfft", (5,))
    with pytest.raises(TypeError, match="FFT needs a complex64 or complex128"):
        lax.fft(X.astype(np.float32), "fft", (5,))
    with pytest.raises(tjit.ShapeError, match="trailing dims"):
        lax.fft(Z.astype(np.complex64), "fft", (4,))
    with pytest.raises(ValueError, match="fft_type must be"):
        lax.fft(Z, "dct", (5,))
    with pytest.raises(TypeError, match="input must be real"):
        jnp.fft.rfft(Z)
    with pytest.raises(ValueError, match="norm must be one of"):
        jnp.fft.fft(X, norm="both")
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.fft.fft(X, axis=3)
    with pytest.raises(ValueError, match="same length"):
        jnp.fft.fftn(X, s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="invalid number of data points"):
        jnp.fft.irfft(np.ones(1))
