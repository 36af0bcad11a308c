"""lax.clz and lax.cumlogsumexp (compositions of primitives): values against Python
ints / NumPy float64, jit and vmap, gradients against finite differences, errors."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64]


def _clz_ref(x):
    nbits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"uint{nbits}"))
    return np.array([nbits - int(v).bit_length() for v in unsigned.ravel()],
                    x.dtype).reshape(x.shape)


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_clz_all_widths(dt, x64, rng):
    info = np.iinfo(dt)
    edges = np.array([0, 1, 2, 3, info.max, info.min, info.max // 2 + 1], dt)
    powers = np.array([1 << k for k in range(info.bits - (info.min < 0))], dt)
    x = np.concatenate([edges, powers, rng.integers(info.min, info.max, 20, dtype=dt,
                                                    endpoint=True)])
    want = _clz_ref(x)
    for f in (lax.clz, tjit.jit(lax.clz)):
        got = f(x)
        assert got.dtype == dt
        np.testing.assert_array_equal(got, want)
    batched = tjit.vmap(lax.clz)(x.reshape(-1, 1))
    np.testing.assert_array_equal(np.asarray(batched).ravel(), want)


def test_clz_rejects_floats_and_bools():
    with pytest.raises(TypeError, match="clz: takes integer arrays, got dtype float32"):
        lax.clz(jnp.ones(2))
    with pytest.raises(TypeError, match="clz: takes integer arrays, got dtype bool"):
        lax.clz(jnp.array([True]))


def _cls_ref(x, axis, reverse):
    x = np.moveaxis(np.asarray(x, np.float64), axis, -1)
    if reverse:
        x = x[..., ::-1]
    with np.errstate(invalid="ignore"):
        out = np.logaddexp.accumulate(x, axis=-1)
    if reverse:
        out = out[..., ::-1]
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("shape,axis", [((1,), 0), ((7,), 0), ((3, 5), 1), ((4, 6), 0),
                                        ((2, 9, 3), 1), ((0, 3), 0), ((2, 17), -1)])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumlogsumexp_values(shape, axis, reverse, rng):
    x = (rng.normal(size=shape) * 30).astype(np.float32)
    want = _cls_ref(x, axis, reverse)
    f = lambda v: lax.cumlogsumexp(v, axis, reverse)
    for g in (f, tjit.jit(f)):
        got = g(x)
        assert got.dtype == np.float32 and got.shape == shape
        np.testing.assert_allclose(got, want, rtol=3e-6, atol=1e-6)


def test_cumlogsumexp_special_values():
    inf, nan = np.inf, np.nan
    # no early underflow (exp(-1000) is 0 in float32), infinities kept, NaNs propagate
    x = np.array([-1000., -1000., -inf, 0., inf, 3., nan, 1.], np.float32)
    want = np.float32([-1000., -1000 + np.log(2), -1000 + np.log(2), 0., inf, inf, nan,
                       nan])
    for f in (lax.cumlogsumexp, tjit.jit(lax.cumlogsumexp)):
        np.testing.assert_array_equal(f(x), want)
        np.testing.assert_array_equal(f(np.float32([-inf, -inf])), [-inf, -inf])
    h = lax.cumlogsumexp(np.float16([60000., 60000.]))  # exp overflows float16
    assert h.dtype == np.float16
    np.testing.assert_allclose(np.asarray(h, np.float64), [60000., 60000 + np.log(2)],
                               rtol=1e-3)


def test_cumlogsumexp_vmap_and_grad(x64, rng):
    x = rng.normal(size=(3, 6))
    w = rng.normal(size=(3, 6))
    f = lambda v: lax.cumlogsumexp(v, 1, True)
    np.testing.assert_allclose(tjit.vmap(f)(x[:, None, :])[:, 0, :], _cls_ref(x, 1, True),
                               rtol=1e-12)
    np.testing.assert_allclose(tjit.vmap(lambda v: lax.cumlogsumexp(v), 1, 1)(x),
                               _cls_ref(x, 0, False), rtol=1e-12)

    def loss(v):
        return jnp.sum(f(v) * w)
    g = tjit.grad(loss)(x)
    h = 1e-6
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        fd[idx] = (np.sum(_cls_ref(x + e, 1, True) * w)
                   - np.sum(_cls_ref(x - e, 1, True) * w)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tjit.jit(tjit.grad(loss))(x), fd, rtol=1e-6, atol=1e-8)
    # ties: each tied element gets half
    np.testing.assert_allclose(tjit.grad(lambda v: lax.cumlogsumexp(v)[1])(np.zeros(2)),
                               [0.5, 0.5])


def test_cumlogsumexp_errors():
    with pytest.raises(TypeError, match="cumlogsumexp: takes real floating arrays, got "
                                        "dtype int32"):
        lax.cumlogsumexp(jnp.arange(3))
    with pytest.raises(TypeError, match="complex64"):
        lax.cumlogsumexp(jnp.ones(3, jnp.complex64))
    with pytest.raises(tjit.ShapeError, match=r"cumlogsumexp: needs an operand of rank >= 1"):
        lax.cumlogsumexp(jnp.float32(1))
    with pytest.raises(Exception, match="cumlogsumexp"):
        lax.cumlogsumexp(jnp.ones(3), axis=2)
