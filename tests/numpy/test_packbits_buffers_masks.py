"""jax.numpy names a NumPy notebook reaches for that tjit lacked: packbits/unpackbits
(against NumPy over shapes, axes, bit orders and counts; under jit and vmap against the
eager result and a Python loop), frombuffer/fromstring, fromfile/fromiter refused as
JAX refuses them, mask_indices and iterable."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape,axis", [((13,), None), ((3, 10), 1), ((9, 2), 0),
                                        ((2, 3, 8), -1), ((2, 5, 3), None), ((0,), None)])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_matches_numpy(shape, axis, bitorder):
    for a in (RNG.integers(-2, 3, shape).astype(np.int32), RNG.random(shape) < 0.5):
        got = jnp.packbits(a, axis=axis, bitorder=bitorder)
        want = np.packbits(a, axis=axis, bitorder=bitorder)
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("shape,axis", [((3,), None), ((2, 3), 1), ((2, 3), 0), ((2, 2, 2), None)])
@pytest.mark.parametrize("count", [None, 5, -3, 30, 0])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_unpackbits_matches_numpy(shape, axis, count, bitorder):
    a = RNG.integers(0, 256, shape).astype(np.uint8)
    got = jnp.unpackbits(a, axis=axis, count=count, bitorder=bitorder)
    want = np.unpackbits(a, axis=axis, count=count, bitorder=bitorder)
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_pack_unpack_under_jit_and_vmap():
    bits = (RNG.random((4, 12)) < 0.5)
    packed = tjit.jit(lambda b: jnp.packbits(b, axis=1))(bits)
    np.testing.assert_array_equal(np.asarray(packed), np.packbits(bits, axis=1))
    rows = tjit.vmap(jnp.packbits)(bits)
    np.testing.assert_array_equal(np.asarray(rows), np.stack([np.packbits(r) for r in bits]))
    back = tjit.jit(lambda p: jnp.unpackbits(p, axis=1, count=12))(packed)
    np.testing.assert_array_equal(np.asarray(back), bits.astype(np.uint8))


def test_packbits_errors_name_the_dtype_and_fix():
    with pytest.raises(TypeError, match="packbits: expected an integer or bool array, got float32"):
        jnp.packbits(jnp.ones(3))
    with pytest.raises(TypeError, match=r"unpackbits: expected a uint8 array, got int32.*astype"):
        jnp.unpackbits(jnp.ones(3, jnp.int32))
    with pytest.raises(ValueError, match="bitorder must be 'big' or 'little'"):
        jnp.packbits(jnp.ones(3, jnp.int32), bitorder="middle")


def test_frombuffer_and_fromstring_match_numpy():
    raw = np.array([1.5, -2.0, 3.25], np.float32).tobytes()
    for kw in ({}, {"count": 2}, {"offset": 4}):
        got = jnp.frombuffer(raw, dtype=jnp.float32, **kw)
        np.testing.assert_array_equal(np.asarray(got), np.frombuffer(raw, np.float32, **kw))
    got = jnp.frombuffer(b"\x01\x02\xff", dtype=jnp.uint8)
    assert got.dtype == np.uint8 and got.tolist() == [1, 2, 255]
    got = jnp.fromstring("1.5, 2, -3", sep=",")
    assert got.dtype == jnp.float32            # float means the default float, as in JAX
    np.testing.assert_array_equal(np.asarray(got), [1.5, 2.0, -3.0])
    assert jnp.fromstring("4 5 6", dtype=jnp.int32, sep=" ").tolist() == [4, 5, 6]


@pytest.mark.parametrize("name", ["fromfile", "fromiter"])
def test_fromfile_and_fromiter_are_refused_as_in_jax(name):
    with pytest.raises(NotImplementedError, match=rf"jnp.asarray\(numpy.{name}\(...\)\)"):
        getattr(jnp, name)(iter([1.0]), float)


@pytest.mark.parametrize("fn,k", [("triu", 0), ("triu", 1), ("tril", -1), ("tril", 2)])
def test_mask_indices_matches_numpy(fn, k):
    got = jnp.mask_indices(4, getattr(jnp, fn), k)
    want = np.mask_indices(4, getattr(np, fn), k)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    sized = jnp.mask_indices(4, getattr(jnp, fn), k, size=3)
    np.testing.assert_array_equal(np.asarray(sized[0]), want[0][:3])


def test_iterable_matches_numpy():
    for v in (jnp.ones(2), jnp.float32(1.0), [1], 3.0, "ab"):
        assert jnp.iterable(v) == np.iterable(np.asarray(v) if hasattr(v, "dtype") else v)
