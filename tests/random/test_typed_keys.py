"""Typed PRNG key arrays (``random.key``): shapes, dtype, repr, the same values as raw
keys, and keys through jit, vmap, scan, cond and grad (references: the raw-key path,
values produced by JAX 0.10.2, Python loops)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, random

# jax.random.key_data(jax.random.split(jax.random.key(0), 3)), JAX 0.10.2
JAX_SPLIT_0_3 = np.array([[1797259609, 2579123966], [928981903, 3453687069],
                          [4146024105, 2718843009]], np.uint32)


def data(k):
    return np.asarray(random.key_data(k))


def test_key_shape_dtype_repr():
    k = random.key(0)
    assert k.shape == () and k.ndim == 0 and k.size == 1
    assert str(k.dtype) == "key<fry>" and k.dtype == random.key(1).dtype
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    ks = random.split(k, 3)
    assert ks.shape == (3,) and len(ks) == 3
    assert repr(ks).startswith("Array((3,), dtype=key<fry>) overlaying:\n[[1797259609")
    assert random.key_impl(k) == "threefry2x32"


def test_key_dtype_is_prng_key():
    k = random.key(0)
    for issub in (jnp.issubdtype, tjit.dtypes.issubdtype):
        assert issub(k.dtype, tjit.dtypes.prng_key)
        assert issub(k.dtype, tjit.dtypes.extended)
        assert issub(k.dtype, k.dtype)
        assert not issub(k.dtype, np.integer)
        assert not issub(np.uint32, tjit.dtypes.prng_key)
        assert not issub(random.PRNGKey(0).dtype, tjit.dtypes.prng_key)
        assert not issub(np.uint32, k.dtype)
    assert random.key_dtype() == k.dtype == random.key_dtype("threefry2x32")
    assert str(random.key_dtype()) == "key<fry>"
    with pytest.raises(ValueError, match="key_dtype: only impl='threefry2x32'"):
        random.key_dtype("rbg")


def test_key_data_and_split_match_raw_path_and_jax():
    for seed in (0, 42, 2 ** 40 + 7, -3):
        np.testing.assert_array_equal(data(random.key(seed)),
                                      np.asarray(random.PRNGKey(seed)))
    ks = random.split(random.key(0), 3)
    np.testing.assert_array_equal(data(ks), JAX_SPLIT_0_3)
    assert random.split(random.key(5), (2, 3)).shape == (2, 3)
    np.testing.assert_array_equal(data(random.split(random.key(5), (2, 3))),
                                  np.asarray(random.split(random.PRNGKey(5), (2, 3))))
    np.testing.assert_array_equal(data(random.fold_in(random.key(5), 17)),
                                  np.asarray(random.fold_in(random.PRNGKey(5), 17)))
    assert random.fold_in(random.key(5), 17).shape == ()
    assert isinstance(random.split(random.PRNGKey(0)), tjit.Array)  # raw stays raw


def test_wrap_key_data_round_trip():
    raw = random.split(random.PRNGKey(3), (2, 2))
    ks = random.wrap_key_data(raw)
    assert ks.shape == (2, 2) and str(ks.dtype) == "key<fry>"
    np.testing.assert_array_equal(data(ks), np.asarray(raw))
    np.testing.assert_array_equal(data(random.PRNGKey(3)), np.asarray(random.PRNGKey(3)))
    np.testing.assert_array_equal(data(random.clone(ks)), np.asarray(raw))


@pytest.mark.parametrize("sample", [
    lambda k: random.normal(k, (5,)),
    lambda k: random.uniform(k, (2, 3), minval=-1.0, maxval=2.0),
    lambda k: random.randint(k, (4,), 0, 10),
    lambda k: random.bernoulli(k, 0.3, (6,)),
    lambda k: random.bits(k, (3,)),
    lambda k: random.gamma(k, 2.0, (4,)),
    lambda k: random.permutation(k, 7),
    lambda k: random.choice(k, 5, (3,), p=jnp.array([.1, .2, .3, .2, .2])),
    lambda k: random.categorical(k, jnp.zeros((2, 4))),
    lambda k: random.poisson(k, 3.0, (4,)),
    lambda k: random.multinomial(k, 10, jnp.array([.2, .3, .5])),
], ids=["normal", "uniform", "randint", "bernoulli", "bits", "gamma", "permutation",
        "choice", "categorical", "poisson", "multinomial"])
def test_samplers_equal_raw_path(sample):
    np.testing.assert_array_equal(np.asarray(sample(random.key(11))),
                                  np.asarray(sample(random.PRNGKey(11))))


def test_jit_creates_takes_and_returns_keys():
    k = tjit.jit(random.key)(7)
    assert k.shape == () and str(k.dtype) == "key<fry>"
    np.testing.assert_array_equal(data(k), np.asarray(random.PRNGKey(7)))
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda s: random.key_data(random.key(s)))(7)),
                                  np.asarray(random.PRNGKey(7)))
    f = tjit.jit(lambda k: (random.split(k, 4), random.normal(k, (3,))))
    ks, x = f(random.key(1))
    assert ks.shape == (4,)
    np.testing.assert_array_equal(data(ks), data(random.split(random.key(1), 4)))
    np.testing.assert_array_equal(np.asarray(x), np.asarray(random.normal(random.key(1), (3,))))


def test_vmap_over_key_array_matches_loop():
    ks = random.split(random.key(2), 4)
    out = tjit.vmap(lambda k: random.normal(k, (3,)))(ks)
    ref = np.stack([np.asarray(random.normal(ks[i], (3,))) for i in range(4)])
    np.testing.assert_array_equal(np.asarray(out), ref)
    new = tjit.vmap(lambda k: random.fold_in(k, 3))(ks)
    assert new.shape == (4,) and str(new.dtype) == "key<fry>"
    np.testing.assert_array_equal(data(new), np.stack([data(random.fold_in(k, 3)) for k in ks]))
    pairs = tjit.vmap(random.split)(ks)
    assert pairs.shape == (4, 2)


def test_scan_carries_key_like_a_loop():
    def body(k, _):
        k, sub = random.split(k)
        return k, random.uniform(sub)
    k_out, xs = lax.scan(body, random.key(9), None, length=5)
    k, ref = random.key(9), []
    for _ in range(5):
        k, sub = random.split(k)
        ref.append(np.asarray(random.uniform(sub)))
    np.testing.assert_array_equal(np.asarray(xs), np.array(ref))
    np.testing.assert_array_equal(data(k_out), data(k))
    assert k_out.shape == ()
    # scanning over a key array
    ks = random.split(random.key(4), 3)
    _, ys = lax.scan(lambda c, k: (c, random.normal(k)), 0.0, ks)
    np.testing.assert_array_equal(np.asarray(ys), np.array([np.asarray(random.normal(k))
                                                            for k in ks]))


def test_cond_and_grad_with_keys():
    k = random.key(3)
    for pred in (True, False):
        out = tjit.jit(lambda p, k: lax.cond(p, lambda k: random.fold_in(k, 1),
                                             lambda k: random.split(k)[0], k))(pred, k)
        ref = random.fold_in(k, 1) if pred else random.split(k)[0]
        np.testing.assert_array_equal(data(out), data(ref))
    g = tjit.grad(lambda x, k: jnp.sum(x * random.normal(k, (3,))))(jnp.ones(3), k)
    np.testing.assert_array_equal(np.asarray(g), np.asarray(random.normal(k, (3,))))


def test_indexing_reshape_join():
    ks = random.split(random.key(0), 6)
    d = data(ks)
    np.testing.assert_array_equal(data(ks[2]), d[2])
    np.testing.assert_array_equal(data(ks[1:4]), d[1:4])
    np.testing.assert_array_equal(data(ks[jnp.array([5, 0])]), d[[5, 0]])
    m = ks.reshape(2, 3)
    assert m.shape == (2, 3) and m[..., 1].shape == (2,) and m.T.shape == (3, 2)
    np.testing.assert_array_equal(data(m[..., 1]), d.reshape(2, 3, 2)[:, 1])
    np.testing.assert_array_equal(data(m.T), d.reshape(2, 3, 2).transpose(1, 0, 2))
    assert m[:, None].shape == (2, 1, 3)
    c = jnp.concatenate([ks, ks[:2]])
    np.testing.assert_array_equal(data(c), np.concatenate([d, d[:2]]))
    s = jnp.stack([ks[0], ks[1]])
    np.testing.assert_array_equal(data(s), d[:2])
    assert [k.shape for k in ks[:2]] == [(), ()]
    np.testing.assert_array_equal(np.asarray(ks == ks[0]), [True] + [False] * 5)
    np.testing.assert_array_equal(np.asarray(ks != ks[0]), [False] + [True] * 5)


def test_errors():
    k = random.key(0)
    ks = random.split(k, 3)
    with pytest.raises(TypeError, match="key_data"):
        k + 1
    with pytest.raises(TypeError, match="key arrays"):
        _ = k < random.key(1)
    with pytest.raises(TypeError, match="key_data"):
        np.asarray(k)
    with pytest.raises(TypeError):
        jnp.add(k, 1)
    with pytest.raises(ValueError, match=r"normal accepts a single key.*\(3,\)"):
        random.normal(ks)
    with pytest.raises(TypeError, match="uint32 array of shape"):
        random.wrap_key_data(jnp.zeros((3,), jnp.float32))
    with pytest.raises(TypeError, match="already a typed key array"):
        random.wrap_key_data(k)
    with pytest.raises(IndexError, match="too many indices"):
        k[0]
    with pytest.raises(TypeError, match="cannot mix key arrays"):
        jnp.concatenate([ks, random.key_data(ks)])
    with pytest.raises(TypeError, match="len"):
        len(k)


def test_vmap_of_key_and_while_loop_carry():
    ks = tjit.vmap(random.key)(jnp.arange(3))
    assert ks.shape == (3,) and str(ks.dtype) == "key<fry>"
    np.testing.assert_array_equal(data(ks), np.stack([np.asarray(random.PRNGKey(i))
                                                      for i in range(3)]))
    _, k = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, random.split(c[1])[0]),
                          (0, random.key(1)))
    ref = random.key(1)
    for _ in range(3):
        ref = random.split(ref)[0]
    np.testing.assert_array_equal(data(k), data(ref))


@pytest.mark.parametrize("ax", [0, 1, -1, -2])
def test_vmap_negative_axes_count_the_keys_own_dims(ax):
    """A key array's data has a hidden trailing dim of 2 words: a negative in_axes or
    out_axes counts from the end of the key's shape (as JAX), checked against a loop."""
    keys = random.split(random.key(7), 6).reshape(2, 3)
    data = np.asarray(random.key_data(keys))                    # (2, 3, 2)
    got = np.asarray(tjit.vmap(random.key_data, in_axes=ax)(keys))
    pos = ax % 2
    want = np.stack([np.take(data, i, axis=pos) for i in range(keys.shape[pos])])
    np.testing.assert_array_equal(got, want)
    # a mapped (3,)-key output placed at out_axes=ax of a rank-2 key array
    out = tjit.vmap(lambda k: random.split(k, 3), out_axes=ax)(keys[0])
    per = [np.asarray(random.key_data(random.split(keys[0, i], 3))) for i in range(3)]
    np.testing.assert_array_equal(np.asarray(random.key_data(out)),
                                  np.stack(per, axis=ax % 2))


def test_vmap_axis_out_of_bounds_for_a_key_array_raises():
    keys = random.split(random.key(7), 6).reshape(2, 3)
    with pytest.raises(ValueError, match=r"axis -3 in in_axes is out of bounds for a key"):
        tjit.vmap(random.key_data, in_axes=-3)(keys)
    with pytest.raises(ValueError, match=r"axis -3 in out_axes is out of bounds"):
        tjit.vmap(lambda k: random.split(k, 3), out_axes=-3)(keys[0])
