"""jnp.bitwise_count and jnp.spacing against NumPy (all int/float widths, edge values),
eager and jit, vmap; errors."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                np.uint32, np.int64, np.uint64])
def test_bitwise_count_matches_numpy(dt, x64, rng):
    if dt == np.bool_:
        x = np.array([True, False, True])
    else:
        info = np.iinfo(dt)
        x = np.concatenate([np.array([0, 1, 2, info.max, info.min, info.min + 1, info.max - 1], dt),
            rng.integers(info.min, info.max, 20, dtype=dt, endpoint=True)])
    want = np.bitwise_count(x)
    for f in (jnp.bitwise_count, tjit.jit(jnp.bitwise_count)):
        got = f(x)
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tjit.vmap(jnp.bitwise_count)(x), want)


def test_bitwise_count_rejects_floats():
    with pytest.raises(TypeError, match="bitwise_count: takes integer or bool arrays, got "
                                        "dtype float32"):
        jnp.bitwise_count(jnp.ones(2))


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_spacing_matches_numpy(dt, x64, rng):
    fi = np.finfo(dt)
    edges = [0., -0., 1., -1., np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
             fi.smallest_subnormal, -fi.smallest_subnormal, 2.0, -2.0, 1e-3, -1e-3]
    x = np.concatenate([np.array(edges, dt), (rng.normal(size=30) * 100).astype(dt)])
    with np.errstate(all="ignore"):
        want = np.spacing(x)
    for f in (jnp.spacing, tjit.jit(jnp.spacing)):
        got = f(x)
        assert got.dtype == dt
        np.testing.assert_array_equal(np.asarray(got), want)  # bit-exact, NaNs included
        assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want))


def test_spacing_promotes_ints_and_rejects_complex():
    np.testing.assert_array_equal(jnp.spacing(jnp.array([3, -3])),
                                  np.spacing(np.float32([3, -3])))
    with pytest.raises(TypeError, match="spacing: not defined for complex"):
        jnp.spacing(jnp.ones(2, jnp.complex64))
