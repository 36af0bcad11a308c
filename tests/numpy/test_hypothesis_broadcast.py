"""Property test: random expression trees of ``tjit.numpy`` elementwise ops over
random mutually broadcastable shapes agree with NumPy (evaluated in float64, compared
at float32 tolerance), eagerly and under ``jit``; the result has NumPy's broadcast shape
and tjit's float32 dtype. Deterministic (the "ci" hypothesis profile is derandomized)."""

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import BroadcastableShapes, mutually_broadcastable_shapes

import tjit
import tjit.numpy as jnp

NUM_INPUTS = 3

# Continuous ops only (a comparison of two computed values could flip between float32
# and float64): comparisons appear only on leaves, turned to 0.0/1.0 by `* 1.0`.
UNARY = {
    "tanh": lambda ns, x: ns.tanh(x),
    "exp_clip": lambda ns, x: ns.exp(ns.minimum(ns.maximum(x, -3.0), 3.0)),
    "abs": lambda ns, x: ns.abs(x),
    "negative": lambda ns, x: ns.negative(x),
    "square": lambda ns, x: ns.square(x),
    "sin": lambda ns, x: ns.sin(x),
    "log1p_abs": lambda ns, x: ns.log1p(ns.abs(x)),
    "sqrt_1p": lambda ns, x: ns.sqrt(ns.add(ns.square(x), 1)),
}
BINARY = {
    "add": lambda ns, x, y: ns.add(x, y),
    "subtract": lambda ns, x, y: ns.subtract(x, y),
    "multiply": lambda ns, x, y: ns.multiply(x, y),
    "maximum": lambda ns, x, y: ns.maximum(x, y),
    "minimum": lambda ns, x, y: ns.minimum(x, y),
    "hypot": lambda ns, x, y: ns.hypot(x, y),
    "logaddexp": lambda ns, x, y: ns.logaddexp(x, y),
    "divide_1p": lambda ns, x, y: ns.true_divide(x, ns.add(ns.square(y), 1)),
}
COMPARE = {
    "greater": lambda ns, x, y: ns.greater(x, y),
    "less_equal": lambda ns, x, y: ns.less_equal(x, y),
    "equal": lambda ns, x, y: ns.equal(x, y),
    "not_equal": lambda ns, x, y: ns.not_equal(x, y),
}
CONSTANTS = [0.5, -1.5, 2.0, 3, 0]  # Python scalars: weakly typed in tjit

_input = st.tuples(st.just("x"), st.integers(0, NUM_INPUTS - 1))
_const = st.tuples(st.just("c"), st.sampled_from(CONSTANTS))
_compare = st.tuples(st.just("cmp"), st.sampled_from(sorted(COMPARE)),
                     st.one_of(_input, _const), _input)
_leaf = st.one_of(_input, _input, _const, _compare)


def _extend(children):
    return st.one_of(
        st.tuples(st.just("u"), st.sampled_from(sorted(UNARY)), children),
        st.tuples(st.just("b"), st.sampled_from(sorted(BINARY)), children, children))


trees = st.recursive(_leaf, _extend, max_leaves=8)


def _uses_input(tree):
    return tree[0] == "x" or any(isinstance(t, tuple) and _uses_input(t) for t in tree[1:])


def evaluate(tree, xs, ns, sizes=None):
    """Evaluate ``tree`` with namespace ``ns`` (numpy or tjit.numpy); appends the
    magnitude of every intermediate to ``sizes`` (the tolerance scales with it)."""
    kind = tree[0]
    if kind == "x":
        return xs[tree[1]]
    if kind == "c":
        return tree[1]
    if kind == "cmp":
        out = ns.multiply(COMPARE[tree[1]](ns, evaluate(tree[2], xs, ns),
                                           evaluate(tree[3], xs, ns)), 1.0)
    elif kind == "u":
        out = UNARY[tree[1]](ns, evaluate(tree[2], xs, ns, sizes))
    else:
        out = BINARY[tree[1]](ns, evaluate(tree[2], xs, ns, sizes),
                              evaluate(tree[3], xs, ns, sizes))
    if sizes is not None and np.size(out):
        sizes.append(float(np.max(np.abs(out))))
    return out


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    # Round to quarter steps sometimes, so equal values (for ==, max, ...) occur.
    return [np.where(rng.random(s) < 0.3, np.round(rng.standard_normal(s) * 4) / 4,
                     rng.standard_normal(s)).astype(np.float32) for s in shapes]


@given(shapes=mutually_broadcastable_shapes(num_shapes=NUM_INPUTS, min_dims=0, max_dims=3,
                                            max_side=4),
       tree=trees, seed=st.integers(0, 2**31 - 1))
@example(shapes=BroadcastableShapes(input_shapes=((0, 3), (1, 3), ()), result_shape=(0, 3)),
    tree=("b", "add", ("u", "tanh", ("x", 0)), ("b", "multiply", ("x", 1), ("x", 2))), seed=0)
def test_random_expressions_match_numpy(shapes, tree, seed):
    assume(_uses_input(tree))
    xs = _inputs(shapes.input_shapes, seed)
    sizes = [1.0]
    want = np.asarray(evaluate(tree, [x.astype(np.float64) for x in xs], np, sizes))
    atol = 2e-6 * max(sizes)  # float32 rounding of the largest intermediate
    eager = evaluate(tree, [jnp.asarray(x) for x in xs], jnp)
    jitted = tjit.jit(lambda *a: evaluate(tree, a, jnp))(*xs)
    for got in (eager, jitted):
        assert isinstance(got, jnp.ndarray)
        assert got.shape == want.shape, (tree, shapes)
        assert got.dtype == np.float32, (tree, got.dtype)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=atol,
                                   err_msg=str(tree))


@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       name=st.sampled_from(sorted(COMPARE)), seed=st.integers(0, 2**31 - 1))
def test_random_comparisons_broadcast_exactly(shapes, name, seed):
    x, y = _inputs(shapes.input_shapes, seed)
    want = COMPARE[name](np, x, y)
    for got in (COMPARE[name](jnp, jnp.asarray(x), jnp.asarray(y)),
                tjit.jit(lambda a, b: COMPARE[name](jnp, a, b))(x, y)):
        assert got.dtype == np.bool_ and got.shape == shapes.result_shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_incompatible_shapes_are_rejected():
    with pytest.raises(ValueError, match=r"add.*\(2, 3\).*\(4,\)"):
        jnp.add(np.ones((2, 3), np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"maximum.*\(2, 3\).*\(4,\)"):
        tjit.jit(jnp.maximum)(np.ones((2, 3), np.float32), np.ones(4, np.float32))
