"""nonzero/flatnonzero/argwhere with a static size and a traced fill_value (JAX allows
it: jit(jnp.nonzero, static_argnames='size')(x, size=5, fill_value=len(x)))."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _padded(found, size, fill):
    return np.concatenate([found[:size], np.full(max(size - len(found), 0), fill)])


@pytest.mark.parametrize("size", [0, 2, 3, 6])
def test_traced_fill_value_against_numpy(size):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, (3, 4)) * rng.integers(1, 9, (3, 4))
    fill = 11
    got = tjit.jit(lambda a, f: jnp.nonzero(a, size=size, fill_value=f))(x, fill)
    for g, want in zip(got, np.nonzero(x)):
        np.testing.assert_array_equal(np.asarray(g), _padded(want, size, fill))
    flat = tjit.jit(lambda a, f: jnp.flatnonzero(a, size=size, fill_value=f))(x, fill)
    np.testing.assert_array_equal(np.asarray(flat), _padded(np.flatnonzero(x), size, fill))
    # a tuple of fills, one traced, one a Python int
    got = tjit.jit(lambda a, f: jnp.nonzero(a, size=size, fill_value=(f, -1)))(x, fill)
    for g, want, fv in zip(got, np.nonzero(x), (fill, -1)):
        np.testing.assert_array_equal(np.asarray(g), _padded(want, size, fv))
    # a concrete array under a traced fill (the fill alone is traced)
    got = tjit.jit(lambda f: jnp.nonzero(jnp.asarray(x), size=size, fill_value=f))(fill)
    for g, want in zip(got, np.nonzero(x)):
        np.testing.assert_array_equal(np.asarray(g), _padded(want, size, fill))


def test_traced_fill_value_must_be_an_integer_scalar():
    with pytest.raises(TypeError, match="fill_value must be an integer scalar"):
        tjit.jit(lambda a, f: jnp.nonzero(a, size=3, fill_value=f))(jnp.ones(4), 1.5)


@pytest.mark.parametrize("shape, idx", [((0,), [0, 1]), ((0, 3), [0]), ((2, 0), [0, 1, 1]),
                                        ((3, 2), []), ((4, 2), [3, 0, 3])])
def test_compiled_row_scatter_with_empty_sides_against_numpy(shape, idx):
    # size=0 above reached a compiled row scatter into an empty operand, which raised
    out = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    i = np.array(idx, np.int32)
    upd = np.ones((len(idx),) + shape[1:], np.float32)
    want = out.copy()
    keep = i < shape[0]
    np.add.at(want, i[keep], upd[keep])
    got = tjit.jit(lambda o, j, u: o.at[j].add(u, mode="drop"))(out, i, upd)
    np.testing.assert_array_equal(np.asarray(got), want)
