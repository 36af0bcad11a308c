"""tjit.scipy.signal against scipy.signal in float64 (real and complex, every mode and
shape relation); gradients against finite differences; vmap against a Python loop."""

import numpy as np
import pytest
import scipy.signal as ss

import tjit
from tjit.scipy import signal as S
from tests.transforms.check import check_grads, check_vmap

SHAPES = [((7,), (3,)), ((3,), (7,)), ((6,), (4,)), ((1,), (1,)), ((5, 6), (2, 3)),
          ((2, 3), (5, 6)), ((4, 5), (4, 5)), ((5, 4), (3, 4)), ((3, 4, 5), (2, 2, 3))]


def _pair(sa, sb, cplx, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    if cplx:
        a, b = a + 1j * rng.standard_normal(sa), b - 1j * rng.standard_normal(sb)
    return a, b


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("cplx", [False, True])
def test_against_scipy(x64, sa, sb, mode, cplx):
    a, b = _pair(sa, sb, cplx)
    names = ["convolve", "correlate", "fftconvolve"]
    names += ["convolve2d", "correlate2d"] if len(sa) == 2 else []
    for name in names:
        want = getattr(ss, name)(a, b, mode=mode)
        got = np.asarray(getattr(S, name)(a, b, mode=mode))
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("method", ["auto", "direct", "fft"])
def test_methods_dtypes_and_jit(method):
    a, b = np.arange(6), np.array([1, -2, 3])
    got = S.convolve(a, b, method=method)
    assert got.dtype == np.float32  # JAX: integers convolve to the default float
    np.testing.assert_allclose(np.asarray(got), ss.convolve(a, b, method="direct"),
                               rtol=1e-5, atol=1e-5)
    for name in ("convolve", "correlate"):  # bool inputs too
        t = np.array([True, False, True])
        got = getattr(S, name)(t, t[:2])
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got),
                                      getattr(ss, name)(t.astype(int), t[:2].astype(int)))
    got2 = S.convolve2d(np.ones((2, 3), np.int32), np.ones((2, 2), np.int32))
    assert got2.dtype == np.float32
    x, k = _pair((20, 9), (3, 4), False)
    f = tjit.jit(lambda x, k: S.correlate2d(x, k, mode="same"))
    np.testing.assert_allclose(np.asarray(f(x.astype(np.float32), k.astype(np.float32))),
                               ss.correlate2d(x, k, mode="same"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name,mode", [("convolve", "full"), ("correlate", "same"),
                                       ("convolve2d", "valid"), ("correlate2d", "full"),
                                       ("fftconvolve", "same")])
def test_grads(name, mode):
    a, b = _pair((5, 4), (2, 3), False, 1)
    check_grads(lambda x, y: getattr(S, name)(x, y, mode=mode), (a, b), rtol=1e-6, atol=1e-6)


def test_vmap():
    a, b = _pair((3, 8), (3, 3), False, 2)
    check_vmap(lambda x, y: S.convolve(x, y, mode="same"), (a, b))
    check_vmap(lambda x: S.correlate(x, b[0]), (a,))


def test_errors():
    with pytest.raises(ValueError, match=r"correlate: mode must be"):
        S.correlate(np.ones(3), np.ones(2), mode="circular")
    with pytest.raises(ValueError, match=r"convolve: in1 \(3,\) and in2 \(2, 2\)"):
        S.convolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"at least as large.*\(2, 5\) and \(3, 2\)"):
        S.convolve(np.ones((2, 5)), np.ones((3, 2)), mode="valid")
    with pytest.raises(NotImplementedError, match="boundary='fill'"):
        S.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match="convolve2d: inputs must be 2-D"):
        S.convolve2d(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="equal sizes \\(or size 1\\) along axis 1"):
        S.fftconvolve(np.ones((3, 3)), np.ones((2, 2)), axes=0)


@pytest.mark.parametrize("sa,sb,axes", [((4, 7), (4, 3), 1), ((4, 7), (1, 3), (-1,)),
                                        ((3, 5, 6), (3, 2, 2), (2, 1)),
                                        ((2, 6, 5), (1, 3, 5), [1])])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_fftconvolve_axes_against_scipy(x64, sa, sb, axes, mode):
    a, b = _pair(sa, sb, False, 3)
    want = ss.fftconvolve(a, b, mode=mode, axes=axes)
    got = S.fftconvolve(a, b, mode=mode, axes=axes)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_fftconvolve_is_fft_based_and_matches_direct():
    """The jaxpr holds fft equations; values equal the direct method up to rounding; int
    inputs give floats (as JAX)."""
    a, b = _pair((40,), (9,), False, 4)
    jaxpr = str(tjit.make_jaxpr(lambda x, y: S.fftconvolve(x, y))(a, b))
    assert "fft[" in jaxpr or "fft " in jaxpr
    np.testing.assert_allclose(np.asarray(S.fftconvolve(a, b, "same")),
                               np.asarray(S.convolve(a, b, "same", method="direct")),
                               rtol=1e-4, atol=1e-4)
    assert S.fftconvolve(np.arange(5), np.arange(3)).dtype == np.float32
    got = S.convolve(np.arange(5), np.arange(3), method="fft")
    assert got.dtype == S.convolve(np.arange(5), np.arange(3)).dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.convolve(np.arange(5), np.arange(3)),
                               rtol=1e-5, atol=1e-5)
