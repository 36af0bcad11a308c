"""Follow-ups of today's hunts, each against NumPy (or JAX where the two differ):
symbolic-dim bounds of jnp.arange, lexsort of a 1-D ``keys``, round of booleans,
bincount of boolean weights, and sequences of axes that are not tuples or lists."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ShapeError


# -- arange(1, x.shape[0] + 1) under polymorphic shapes -----------------------------------
# (it raised "TypeError: Cannot convert expression to float"; JAX accepts int dim bounds)
@pytest.mark.parametrize("start,stop,step", [
    (1, "b + 1", None), (0, "b", 2), (0, "b", 3), ("b", 0, -1), ("b", "2 * b", None),
    (2, "b", None), (-3, "b", 5), ("b", 3, -2), ("b", None, None)])
def test_arange_with_symbolic_bounds_matches_numpy(start, stop, step):
    def at(v, n):
        return eval(v, {"b": n}) if isinstance(v, str) else v

    def f(x):
        args = [at(start, x.shape[0])] + ([] if stop is None else [at(stop, x.shape[0])])
        return jnp.arange(*args, step=step)

    g = tjit.jit(f, polymorphic_shapes=["(b,)"])
    for n in (1, 2, 3, 4, 7):
        args = [at(start, n)] + ([] if stop is None else [at(stop, n)])
        want = np.arange(*args, step=step)
        got = g(np.zeros(n, np.float32))
        assert got.shape == want.shape, (n, got.shape, want.shape)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.int32


def test_arange_with_symbolic_bounds_keeps_the_dtype_and_refuses_floats():
    g = tjit.jit(lambda x: jnp.arange(1, x.shape[0] + 1, dtype=jnp.float32),
                 polymorphic_shapes=["(b,)"])
    got = g(np.zeros(5, np.float32))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.arange(1, 6, dtype=np.float32))
    with pytest.raises(TypeError, match="arange.*integer"):
        tjit.jit(lambda x: jnp.arange(0.5, x.shape[0]),
                 polymorphic_shapes=["(b,)"])(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="arange: step must not be zero"):
        tjit.jit(lambda x: jnp.arange(0, x.shape[0], 0),
                 polymorphic_shapes=["(b,)"])(np.zeros(3, np.float32))


# -- lexsort of a 1-D keys: k keys of rank 0 (NumPy's and JAX's 0) -------------------------
def test_lexsort_of_one_dimensional_keys_is_numpys_zero():
    for keys in (np.array([3, 1, 2]), [1.5, 0.5], np.array([7])):
        got = jnp.lexsort(jnp.asarray(keys))
        assert got.shape == () and int(got) == np.lexsort(keys) == 0
        assert int(jnp.lexsort(jnp.asarray(keys), axis=0)) == np.lexsort(keys, axis=0)
    assert int(tjit.jit(jnp.lexsort)(np.array([2.0, 1.0]))) == 0
    with pytest.raises(np.exceptions.AxisError, match="lexsort"):
        jnp.lexsort(np.array([3, 1]), axis=1)


# -- round of booleans: JAX refuses them (NumPy gives float16) ----------------------------
@pytest.mark.parametrize("fn", [jnp.round, jnp.around, jnp.round_, lambda a: a.round()])
def test_round_of_booleans_raises_like_jax(fn):
    with pytest.raises(ValueError, match="round: a boolean array"):
        fn(jnp.array([True, False]))
    np.testing.assert_array_equal(fn(jnp.array([1, 25])), [1, 25])


# -- bincount with boolean weights: JAX's TypeError (NumPy sums them as float64) ----------
def test_bincount_of_boolean_weights_raises_like_jax():
    with pytest.raises(TypeError, match="bincount: boolean weights"):
        jnp.bincount(jnp.array([0, 1, 1]), weights=jnp.array([True, True, False]))
    w = np.array([True, True, False])
    np.testing.assert_array_equal(
        jnp.bincount(jnp.array([0, 1, 1]), weights=jnp.asarray(w).astype(jnp.float32)),
        np.bincount([0, 1, 1], weights=w.astype(np.float64)))


# -- any sequence of axes (NumPy's normalize_axis_tuple reads iterables) ------------------
AXIS_CASES = [
    ("moveaxis", lambda m, a, ax: m.moveaxis(a, ax, range(1, 1 + len(ax)))),
    ("expand_dims", lambda m, a, ax: m.expand_dims(a, ax)),
    ("squeeze", lambda m, a, ax: m.squeeze(m.expand_dims(a, ax), ax)),
    ("sum", lambda m, a, ax: m.sum(a, ax)),
    ("max", lambda m, a, ax: m.max(a, ax)),
    ("flip", lambda m, a, ax: m.flip(a, ax)),
    ("roll", lambda m, a, ax: m.roll(a, 1, ax)),
    ("transpose", lambda m, a, ax: m.transpose(a, list(ax) + [i for i in range(3)
                                                             if i not in ax])),
]


@pytest.mark.parametrize("name,fn", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
@pytest.mark.parametrize("axes", [range(1), range(0, 2), (np.int64(1),), [np.int32(0)],
                                  np.array([0, 2])], ids=["range1", "range2", "npint-tuple",
                                                          "npint-list", "ndarray"])
def test_sequences_of_axes_match_numpy(name, fn, axes):
    a = np.arange(24.0).reshape(2, 3, 4)
    want = fn(np, a, tuple(int(i) for i in axes))  # (NumPy's expand_dims, flip, roll read
    # tuples and lists only; JAX's read any sequence)
    got = fn(jnp, jnp.asarray(a), axes)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_a_non_integer_axis_still_names_the_function():
    with pytest.raises(TypeError, match="sum: axis must be an integer"):
        jnp.sum(jnp.ones((2, 3)), axis="a")
    with pytest.raises(TypeError, match="expand_dims: axis must be an integer"):
        jnp.expand_dims(jnp.ones(3), 1.0)


# -- a ragged list surfaced NumPy's "inhomogeneous shape" (or named asarray) --------------
RAGGED = [[0.1], [0.2, 0.3]]
_KEY = tjit.random.PRNGKey(0)
RAGGED_CASES = [
    ("jnp.quantile", lambda: jnp.quantile(jnp.ones(3), RAGGED)),
    ("jnp.percentile", lambda: jnp.percentile(jnp.ones(3), RAGGED)),
    ("uniform", lambda: tjit.random.uniform(_KEY, (2,), minval=RAGGED)),
    ("randint", lambda: tjit.random.randint(_KEY, (2,), [[1], [2, 3]], 5)),
    ("bernoulli", lambda: tjit.random.bernoulli(_KEY, RAGGED)),
    ("choice", lambda: tjit.random.choice(_KEY, 3, p=RAGGED)),
    ("beta", lambda: tjit.random.beta(_KEY, RAGGED, 1.0)),
    ("gamma", lambda: tjit.random.gamma(_KEY, RAGGED)),
    ("poisson", lambda: tjit.random.poisson(_KEY, RAGGED)),
    ("geometric", lambda: tjit.random.geometric(_KEY, RAGGED)),
    ("truncated_normal", lambda: tjit.random.truncated_normal(_KEY, RAGGED, 1.0)),
    ("asarray", lambda: jnp.asarray(RAGGED)),
]


@pytest.mark.parametrize("name,call", RAGGED_CASES, ids=[c[0] for c in RAGGED_CASES])
def test_a_ragged_list_is_refused_naming_the_function(name, call):
    with pytest.raises(TypeError, match=rf"^{name}: the .*ragged.*same length"):
        call()


# -- shape misfits JAX raises as TypeError are TypeErrors too (and still ValueErrors) ------
_A, _B = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
TYPE_ERROR_SHAPES = [
    ("concatenate", lambda: jnp.concatenate([_A, _B])),
    ("concatenate-via-hstack", lambda: jnp.hstack([np.ones((2, 3)), np.ones((3, 3))])),
    ("lax.concatenate", lambda: tjit.lax.concatenate([jnp.asarray(_A), jnp.asarray(_B)], 0)),
    ("reshape", lambda: jnp.reshape(_A, (4,))),
    ("reshape -1", lambda: jnp.reshape(_A, (4, -1))),
    ("lax.reshape", lambda: tjit.lax.reshape(jnp.asarray(_A), (4,))),
    ("transpose", lambda: jnp.transpose(_A, (0,))),
    ("lax.transpose", lambda: tjit.lax.transpose(jnp.asarray(_A), (0,))),
    ("svd rank", lambda: jnp.linalg.svd(np.ones(3))),
    ("qr rank", lambda: jnp.linalg.qr(np.ones(3))),
    ("cholesky square", lambda: jnp.linalg.cholesky(_A)),
    ("tensordot axes", lambda: jnp.tensordot(_A, np.ones(6), 2)),
    ("histogram2d", lambda: jnp.histogram2d(np.ones(5), np.ones(7))),
    ("polyfit", lambda: jnp.polyfit(np.ones(5), np.ones(7), 1)),
]


@pytest.mark.parametrize("name,call", TYPE_ERROR_SHAPES, ids=[c[0] for c in TYPE_ERROR_SHAPES])
def test_shape_misfits_that_jax_types_are_type_and_value_errors(name, call):
    with pytest.raises(TypeError) as info:
        call()
    assert isinstance(info.value, ShapeError)  # (a ValueError, NumPy's class)
    assert name.split()[0].split(".")[-1].split("-")[0] in str(info.value)
    with pytest.raises(TypeError):  # the same under jit (raised while tracing)
        tjit.jit(lambda: call())()


@pytest.mark.parametrize("call", [lambda: jnp.tril_indices(-2), lambda: jnp.triu_indices(3, m=-1),
                                  lambda: jnp.diag_indices(-2)])
def test_negative_index_counts_are_type_and_value_errors(call):
    with pytest.raises(TypeError, match="must be non-negative") as info:
        call()
    assert isinstance(info.value, ValueError)
