"""sort's fast NumPy paths (primitives/sort_fast.py) give the stable sort's bits: checked
against NumPy's stable argsort of the same keys (-0.0 equal to 0.0, NaNs last, ties in
index order), for value sorts and sorts with payloads (argsort), over dtypes, axes, ties,
signed zeros and NaNs."""

import zlib

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.primitives import sort_fast
from tjit.primitives.reductions import sort_p

DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int8, np.uint8, np.uint16,
          np.uint32, np.int64, np.bool_]


def _sample(rng, dtype, shape, special):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -5), min(info.max, 5)   # few values: many ties
        x = rng.integers(lo, hi + 1, shape).astype(dtype)
        if special:
            x.flat[::7] = info.min
            x.flat[3::11] = info.max
        return x
    x = rng.integers(-3, 4, shape).astype(dtype) * dtype(0.5)
    if special:
        x.flat[::5] = -0.0
        x.flat[1::9] = np.nan
        x.flat[2::13] = -np.nan
        x.flat[4::17] = np.inf
        x.flat[6::19] = -np.inf
    return x


def _stable(key, operands, axis):
    perm = np.argsort(key, axis=axis, kind="stable")
    return [np.take_along_axis(o, perm, axis=axis) for o in operands]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("shape,axis", [((40,), 0), ((6, 33), 1), ((33, 6), 0),
                                        ((3, 17, 4), 1), ((0, 5), 1)])
def test_bits_of_the_stable_sort(dtype, special, shape, axis):
    # (crc32, not hash(): str hashes change with each process's PYTHONHASHSEED)
    rng = np.random.default_rng(zlib.crc32(repr((np.dtype(dtype).str, special, shape)).encode()))
    x = _sample(rng, dtype, shape, special)
    iota = np.broadcast_to(np.arange(shape[axis]).reshape(
        (-1,) + (1,) * (len(shape) - 1 - axis)), shape).astype(np.int32)
    payload = rng.standard_normal(shape)
    for operands in ([x], [x, iota], [x, iota, payload]):
        got = sort_p.impl(np, *operands, dimension=axis, is_stable=True, num_keys=1)
        want = _stable(x, operands, axis)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            # bit for bit: signed zeros and NaN signs where the stable sort puts them
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


def test_which_path_each_case_takes():
    x = np.array([2.0, -1.0, 2.0], np.float32)
    assert sort_fast.sort_one_key(np, [x], 0) is not None
    assert sort_fast.sort_one_key(np, [x, x], 0) is not None       # packed key
    few = np.array([2.0, -0.0, 0.0])                                # float64, -0.0
    np.testing.assert_array_equal(                                  # few: stably outright
        sort_fast.sort_one_key(np, [few], 0)[0].view(np.uint64),
        np.array([-0.0, 0.0, 2.0]).view(np.uint64))
    wide = np.tile(few, sort_fast.STABLE_MAX)
    assert sort_fast.sort_one_key(np, [wide], 0) is None
    assert sort_fast.sort_one_key(np, [few, few], 0) is None        # 64-bit key + payload


def test_jnp_sort_and_argsort_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 200)).astype(np.float32)
    x[:, ::3] = np.round(x[:, ::3])                      # ties
    np.testing.assert_array_equal(jnp.sort(x, axis=1), np.sort(x, axis=1))
    np.testing.assert_array_equal(tjit.jit(lambda a: jnp.argsort(a, axis=0))(x),
                                  np.argsort(x, axis=0, kind="stable"))
    np.testing.assert_array_equal(jnp.argsort(x, axis=1, descending=True),
                                  np.argsort(-x, axis=1, kind="stable"))
