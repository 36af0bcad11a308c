"""tjit.scipy.fft (type-2 DCT and its inverse) against scipy.fft in float64: both norms,
n / s padding and truncation, axis / axes, odd and even sizes, complex input, round trips;
jit against the reference interpreter, gradients against finite differences, vmap
against a Python loop, and the errors JAX raises."""

import numpy as np
import pytest
import scipy.fft as sf

import tjit
from tests.transforms.check import check_grads, check_vmap
from tjit.scipy import fft as F

NORMS = [None, "backward", "ortho"]


def _x(shape, seed=0, cplx=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if cplx else x


def _close(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape,axis", [((1,), -1), ((7,), 0), ((8,), -1), ((5, 6), 0),
                                        ((5, 6), 1), ((3, 4, 5), -2)])
@pytest.mark.parametrize("n", [None, 1, 3, 9])
def test_one_d_against_scipy(x64, name, norm, shape, axis, n):
    x = _x(shape)
    want = getattr(sf, name)(x, type=2, n=n, axis=axis, norm=norm)
    _close(getattr(F, name)(x, n=n, axis=axis, norm=norm), want)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape,s,axes", [
    ((5, 6), None, None), ((4, 7), (3, 9), None), ((3, 4, 5), None, None),
    ((3, 4, 5), (6,), None), ((3, 4, 5), None, (0, 2)), ((3, 4, 5), (2, 7), (-1, 0)),
    ((3, 4, 5), 4, (1,)), ((2, 3, 4, 5), None, None)])
def test_n_d_against_scipy(x64, name, norm, shape, s, axes):
    x = _x(shape, seed=1)
    want = getattr(sf, name)(x, type=2, s=s, axes=axes, norm=norm)
    _close(getattr(F, name)(x, s=s, axes=axes, norm=norm), want)


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_complex_input_is_transformed_part_by_part(x64, name):
    x = _x((4, 5), seed=2, cplx=True)
    got = getattr(F, name)(x, norm="ortho")
    assert np.iscomplexobj(np.asarray(got))
    _close(got, getattr(sf, name)(x, type=2, norm="ortho"))


@pytest.mark.parametrize("norm", NORMS)
def test_round_trips(x64, norm):
    x = _x((5, 6), seed=3)
    _close(F.idct(F.dct(x, norm=norm), norm=norm), x)
    _close(F.idctn(F.dctn(x, norm=norm), norm=norm), x)


def test_default_dtypes():
    """float32 stays float32 and integers promote to the default float, as in JAX."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for name in ("dct", "idct", "dctn", "idctn"):
        got = getattr(F, name)(x)
        assert got.dtype == np.float32, name
        np.testing.assert_allclose(np.asarray(got), getattr(sf, name)(x.astype(np.float64)),
                                   rtol=1e-5, atol=1e-5, err_msg=name)
        assert getattr(F, name)(np.arange(4)).dtype == np.float32


@pytest.mark.parametrize("name,kw", [("dct", {"n": 7, "axis": 0}),
                                     ("idct", {"norm": "ortho"}),
                                     ("dctn", {"s": (3, 5)}), ("idctn", {"axes": (0,)})])
def test_jit_matches_the_interpreter(x64, name, kw):
    x = _x((6, 4), seed=4)
    f = lambda v: getattr(F, name)(v, **kw)
    want = tjit.jit(f, backend="interpreter")(x)
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), np.asarray(want),
                               rtol=1e-12, atol=1e-12)
    _close(want, getattr(sf, name)(x, type=2, **kw))


@pytest.mark.parametrize("name,kw", [("dct", {}), ("idct", {"norm": "ortho", "n": 6}),
                                     ("dctn", {"norm": "ortho"}), ("idctn", {"s": (2, 4)})])
def test_gradients_against_finite_differences(name, kw):
    x = _x((3, 5), seed=5)
    check_grads(lambda v: getattr(F, name)(v, **kw), (x,), order=1)


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_vmap_against_a_loop(name):
    x = _x((4, 3, 5), seed=6).astype(np.float32)
    check_vmap(lambda v: getattr(F, name)(v, norm="ortho"), (x,), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_errors_name_the_fix(name):
    f = getattr(F, name)
    x = np.ones((3, 4))
    with pytest.raises(NotImplementedError, match=rf"scipy.fft.{name}: only DCT type 2.*type=2"):
        f(x, type=3)
    with pytest.raises(ValueError, match=rf"scipy.fft.{name}: norm='forward'.*'ortho'"):
        f(x, norm="forward")
    with pytest.raises(TypeError, match=rf"scipy.fft.{name}"):
        f([1.0, 2.0])
    if name in ("dct", "idct"):
        with pytest.raises(ValueError, match="at least 1, got n=0"):
            f(x, n=0)
        with pytest.raises(Exception, match="out of bounds"):
            f(x, axis=2)
    else:
        with pytest.raises(ValueError, match="at most x.ndim"):
            f(x, s=(2, 2, 2))
        with pytest.raises(ValueError, match="same length"):
            f(x, s=(2, 2), axes=(0,))
