"""jvp, transpose and batching rules of the reduction primitives (reduce_*, argmax/argmin,
cumulative ops, sort).

Oracles: float64 central finite differences (``check_grads``), a Python loop over the
batch (``check_vmap``), and NumPy formulas written independently of the rules (products
of the other elements, ties shared equally, ...) where finite differences cannot decide.
"""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import reductions as rd
from tjit.primitives import rules
from tjit.tracing.avals import ShapedArray
from tests.transforms.check import check_grads, check_vmap


def arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def with_zeros(shape, where, seed=0):
    x = arr(shape, seed)
    for w in where:
        x[w] = 0.0
    return x


X = arr((3, 4, 2))
AXES = [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)]
REDUCERS = {"sum": lax.reduce_sum, "max": lax.reduce_max, "min": lax.reduce_min,
            "prod": lax.reduce_prod}


# -- reductions -----------------------------------------------------------------------------
@pytest.mark.parametrize("op,axes", list(itertools.product(REDUCERS, AXES)))
def test_reduction_grads(op, axes):
    check_grads(lambda x: REDUCERS[op](x, axes), (X,))


@pytest.mark.parametrize("prim", [rd.reduce_sum_p, rd.reduce_max_p, rd.reduce_prod_p])
def test_reduction_of_scalar_and_no_axes(prim):
    check_grads(lambda x: prim.bind(x, axes=()), (arr(()),))
    check_grads(lambda x: prim.bind(x, axes=()), (arr((2, 3)),))


@pytest.mark.parametrize("op", ["sum", "max", "prod"])
def test_reduction_second_order(op):
    check_grads(lambda x: REDUCERS[op](jnp.sin(x) * x, (0, 2)), (X,), order=2)


def _prod_of_others(x, axis):
    """NumPy oracle: d prod(x, axis) / d x_i = product of the other elements (a loop)."""
    out = np.empty_like(x, dtype=np.float64)
    moved = np.moveaxis(x.astype(np.float64), axis, -1)
    res = np.moveaxis(out, axis, -1)
    for idx in np.ndindex(moved.shape):
        row = moved[idx[:-1]]
        res[idx] = np.prod(np.delete(row, idx[-1]))
    return out


@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 1), (2, 1)], [(1, 0), (1, 3)],
                                   [(0, 0), (0, 1), (0, 2)]])
def test_reduce_prod_with_zeros(zeros):
    x = with_zeros((3, 4), zeros)
    for axis in (0, 1):
        (g,) = tjit.vjp(lambda x: lax.reduce_prod(x, (axis,)), jnp.asarray(x))[1](
            jnp.ones(x.shape[1 - axis], jnp.float32))
        np.testing.assert_allclose(np.asarray(g), _prod_of_others(x, axis), rtol=1e-5,
                                   atol=1e-6)
        check_grads(lambda x: lax.reduce_prod(x, (axis,)), (x,))
    check_grads(lambda x: lax.reduce_prod(x, (0, 1)), (x,))


@pytest.mark.parametrize("zeros", [[], [0], [1, 3]])
def test_reduce_prod_hessian_with_zeros(x64, zeros):
    x = np.array([1.3, 2., -1.5, 3., 0.5])
    x[zeros] = 0.0
    hess = np.asarray(tjit.hessian(lambda x: lax.reduce_prod(x, (0,)))(jnp.asarray(x)))
    want = np.array([[0.0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(5)]
                     for i in range(5)])
    np.testing.assert_allclose(hess, want, rtol=1e-12, atol=1e-12)
    check_grads(lambda x: lax.reduce_prod(x, (1,)), (with_zeros((2, 4), [(0, 2)]),), order=2)


@pytest.mark.parametrize("prim,pick", [(rd.reduce_max_p, np.max), (rd.reduce_min_p, np.min)])
def test_max_min_ties_share_the_tangent(prim, pick):
    x = np.array([[1., 3., 3., 0.], [2., 2., 2., 2.], [5., -1., 4., 5.]], np.float32)
    t = arr((3, 4), 1)
    _, tan = tjit.jvp(lambda x: prim.bind(x, axes=(1,)), (jnp.asarray(x),), (jnp.asarray(t),))
    hit = x == pick(x, axis=1, keepdims=True)
    want = (t * hit).sum(1) / hit.sum(1)
    np.testing.assert_allclose(np.asarray(tan), want, rtol=1e-6)
    # the vjp spreads the cotangent the same way (the transposed rule)
    (g,) = tjit.vjp(lambda x: prim.bind(x, axes=(1,)), jnp.asarray(x))[1](jnp.ones(3))
    np.testing.assert_allclose(np.asarray(g), hit / hit.sum(1, keepdims=True), rtol=1e-6)


def test_max_of_empty_axis_has_zero_tangent():
    x = jnp.zeros((0, 3), jnp.float32)
    out, t = tjit.jvp(lambda x: lax.reduce_max(x, (0,)), (x,), (jnp.zeros((0, 3)),))
    assert np.all(np.asarray(out) == -np.inf)
    np.testing.assert_array_equal(np.asarray(t), np.zeros(3))


@pytest.mark.parametrize("prim", [rd.reduce_and_p, rd.reduce_or_p, rd.reduce_xor_p,
                                  rd.argmax_p, rd.argmin_p])
def test_integer_valued_ops_are_marked(prim):
    assert prim.not_differentiable
    assert prim.jvp is not None and prim.batch is not None


def test_argmax_has_zero_derivative_but_indexing_by_it_does_not():
    x = arr((3, 5))

    def f(x):
        i = jnp.argmax(x, axis=1)
        return jnp.take_along_axis(x, i[:, None], axis=1)[:, 0] + i.astype(x.dtype)
    check_grads(f, (x,))
    t = tjit.jvp(lambda x: lax.argmin(x, 0, np.int32), (jnp.asarray(x),),
                 (jnp.ones((3, 5)),))[1]
    assert t.dtype == tjit.dtypes.float0 and t.shape == (5,)  # an index: JAX's float0


# -- batching of reductions -----------------------------------------------------------------
BATCH_AXES = [(0,), (1,), (0, 1), ()]


@pytest.mark.parametrize("name,in_axis,axes",
                         list(itertools.product(["sum", "max", "min", "prod"], [0, 1, 2],
                                                BATCH_AXES)))
def test_reduction_vmap(name, in_axis, axes):
    prim = {"sum": rd.reduce_sum_p, "max": rd.reduce_max_p, "min": rd.reduce_min_p,
            "prod": rd.reduce_prod_p}[name]
    check_vmap(lambda x: prim.bind(x, axes=axes), (X,), in_axis)


@pytest.mark.parametrize("prim", [rd.reduce_and_p, rd.reduce_or_p, rd.reduce_xor_p])
@pytest.mark.parametrize("in_axis", [0, 2])
def test_bitwise_reduction_vmap(prim, in_axis):
    x = np.random.default_rng(3).integers(0, 16, (3, 4, 2)).astype(np.int32)
    check_vmap(lambda x: prim.bind(x, axes=(1,)), (x,), in_axis)
    check_vmap(lambda x: prim.bind(x, axes=(0, 1)), (x > 7,), in_axis)


@pytest.mark.parametrize("prim", [rd.argmax_p, rd.argmin_p])
@pytest.mark.parametrize("in_axis,axis", [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)])
def test_argmax_vmap(prim, in_axis, axis):
    check_vmap(lambda x: prim.bind(x, axes=(axis,), index_dtype=np.dtype(np.int32)), (X,),
               in_axis)


def test_nested_vmap_of_reductions():
    def f(x):
        return lax.reduce_max(x, (0,)) + lax.reduce_sum(x, (0,)) * lax.reduce_prod(x, (0,))
    got = tjit.vmap(tjit.vmap(f, in_axes=1), in_axes=2)(X)
    want = np.stack([np.stack([np.asarray(f(jnp.asarray(X[:, j, k]))) for j in range(4)])
                     for k in range(2)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


# -- cumulative ops ---------------------------------------------------------------------------
CUMULATIVE = {"cumsum": lax.cumsum, "cumprod": lax.cumprod, "cummax": lax.cummax,
              "cummin": lax.cummin}


@pytest.mark.parametrize("op,axis,reverse",
                         list(itertools.product(CUMULATIVE, [0, 1, 2], [False, True])))
def test_cumulative_grads(op, axis, reverse):
    check_grads(lambda x: CUMULATIVE[op](x, axis, reverse), (X,))


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cummax"])
def test_cumulative_second_order(op):
    check_grads(lambda x: CUMULATIVE[op](jnp.sin(x), 1, op == "cummax"), (X,), order=2)


def _cumprod_jacobian(x):
    """NumPy oracle: J[k, j] = d y_k / d x_j = prod_{i <= k, i != j} x_i for j <= k."""
    n = len(x)
    jac = np.zeros((n, n))
    for k in range(n):
        for j in range(k + 1):
            jac[k, j] = np.prod([x[i] for i in range(k + 1) if i != j])
    return jac


@pytest.mark.parametrize("zeros", [[], [2], [1, 4], [0, 2, 3]])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_with_zeros(zeros, reverse):
    x = with_zeros((6,), zeros, seed=4)
    t = arr((6,), 5)
    jac = _cumprod_jacobian(x[::-1].astype(np.float64))[::-1, ::-1] if reverse else \
        _cumprod_jacobian(x.astype(np.float64))
    _, tan = tjit.jvp(lambda x: lax.cumprod(x, 0, reverse), (jnp.asarray(x),),
                      (jnp.asarray(t),))
    np.testing.assert_allclose(np.asarray(tan), jac @ t, rtol=1e-5, atol=1e-6)
    ct = arr((6,), 6)
    (g,) = tjit.vjp(lambda x: lax.cumprod(x, 0, reverse), jnp.asarray(x))[1](jnp.asarray(ct))
    np.testing.assert_allclose(np.asarray(g), jac.T @ ct, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_cummax_tangent_comes_from_the_running_max(reverse):
    # no ties (JAX splits a tie's tangent: tests/transforms/test_cumulative_extreme_ties.py)
    x = np.array([1., 3., 2., 4., 5., 0., 6.], np.float32)
    t = np.arange(1, 8, dtype=np.float32) * 10
    _, tan = tjit.jvp(lambda x: lax.cummax(x, 0, reverse), (jnp.asarray(x),),
                      (jnp.asarray(t),))
    # source = the position (in scan order) where x equals the running max
    src = []
    order = range(6, -1, -1) if reverse else range(7)
    best, last = -np.inf, None
    for k in order:
        if x[k] >= best:
            best, last = x[k], k
        src.append(last)
    src = src[::-1] if reverse else src
    np.testing.assert_array_equal(np.asarray(tan), t[src])
    _, tan = tjit.jvp(lambda x: lax.cummin(-x, 0, reverse), (jnp.asarray(x),),
                      (jnp.asarray(t),))
    np.testing.assert_array_equal(np.asarray(tan), -t[src])


@pytest.mark.parametrize("op,in_axis,axis,reverse",
                         [(op, b, a, r) for op in CUMULATIVE for b, a, r in
                          [(0, 0, False), (0, 1, True), (1, 0, True), (2, 1, False),
                           (1, 1, False)]])
def test_cumulative_vmap(op, in_axis, axis, reverse):
    check_vmap(lambda x: CUMULATIVE[op](x, axis, reverse), (X,), in_axis)


# -- sort ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dimension", [0, 1, 2])
def test_sort_grads(dimension):
    check_grads(lambda x: lax.sort(x, dimension), (X,))


def test_sort_multi_operand_grads():
    keys = np.array([[3, 1, 2, 1, 3], [0, 0, 1, 1, 0]], np.int32)
    check_grads(lambda a, b: lax.sort((keys, a, b), 1, num_keys=1)[1:],
                (arr((2, 5)), arr((2, 5), 1)))
    check_grads(lambda a, b: lax.sort((a, b), 0, num_keys=2), (arr((4, 3)), arr((4, 3), 1)))
    check_grads(lambda a, b: lax.sort_key_val(a, b * b, 1), (arr((4, 3)), arr((4, 3), 1)))


def test_sort_second_order():
    check_grads(lambda x, y: lax.sort((jnp.sin(x), x * y), 1, num_keys=1),
                (arr((3, 4)), arr((3, 4), 1)), order=2)


def test_sort_vjp_unpermutes_the_cotangent():
    x = np.array([3., 1., 2., 0.], np.float32)
    ct = np.array([10., 20., 30., 40.], np.float32)
    (g,) = tjit.vjp(lambda x: lax.sort(x * 2.0), jnp.asarray(x))[1](jnp.asarray(ct))
    # sorted order is [x3, x1, x2, x0]
    np.testing.assert_array_equal(np.asarray(g), 2 * np.array([40., 20., 30., 10.]))


def test_sort_transpose_wrt_keys_is_an_error():
    k = rules.UndefinedPrimal(ShapedArray((3,), np.dtype(np.float32)))
    with pytest.raises(ValueError, match="sort: cannot transpose with respect to the sort"):
        rd.sort_p.transpose([jnp.ones(3)], k, dimension=0, is_stable=True, num_keys=1)


KEYS = np.round(X * 2)  # rounded: ties in the key
SORT_VMAP = [  # (keys, values, in_axes, dimension); per-example shapes agree
    (KEYS, arr((3, 4, 2), 1), (0, 0), 0),
    (KEYS, arr((3, 4, 2), 1), (0, 0), 1),
    (KEYS, arr((3, 2), 1), (1, None), 1),
    (KEYS[:, :, 0], arr((3, 4, 2), 1), (None, 2), 0),
    (KEYS, arr((3, 2, 4), 1), (2, 1), 1),
]


@pytest.mark.parametrize("k,v,in_axes,dimension", SORT_VMAP)
def test_sort_vmap(k, v, in_axes, dimension):
    check_vmap(lambda k, v: lax.sort((k, v), dimension, num_keys=1), (k, v), in_axes)
    check_vmap(lambda k: lax.sort(k, dimension), (k,), in_axes[0] if in_axes[0] is not None
               else 1)


def test_sort_vmap_mixed_batching():
    k, v = arr((4, 5)), arr((3, 4, 5), 1)
    check_vmap(lambda k, v: lax.sort((k, v), 1, num_keys=1), (k, v), (None, 0))
    check_vmap(lambda k, v: lax.sort((k, v), 0, num_keys=2), (v, arr((3, 4), 2)), (2, None))


# -- jnp-level programs ---------------------------------------------------------------------
JNP_PROGRAMS = [
    ("sum", lambda x: jnp.sum(x * x, axis=1)),
    ("max", lambda x: jnp.max(x, axis=0) * jnp.max(x)),
    ("min_keepdims", lambda x: x - jnp.min(x, axis=1, keepdims=True)),
    ("mean", lambda x: jnp.mean(jnp.sin(x), axis=0)),
    ("var", lambda x: jnp.var(x, axis=1)),
    ("prod", lambda x: jnp.prod(x, axis=1)),
    ("cumsum", lambda x: jnp.cumsum(x, axis=1) * x),
    ("cumprod", lambda x: jnp.cumprod(x, axis=0)),
    ("sort", lambda x: jnp.sort(x, axis=1)[:, -1:] * jnp.sort(x, axis=0)[:1]),
    ("logsumexp_like", lambda x: jnp.log(jnp.sum(jnp.exp(x - jnp.max(x))))),
    ("softmax_like", lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True)),
]


@pytest.mark.parametrize("name,f", JNP_PROGRAMS, ids=[c[0] for c in JNP_PROGRAMS])
def test_jnp_programs(name, f):
    check_grads(f, (arr((4, 5)),))
    check_vmap(f, (arr((4, 5, 3)),), 2)


def test_jit_grad_is_one_jaxpr_and_symbolic():
    def f(x):
        return (jnp.sum(lax.cumsum(x, 0, True) * x) + jnp.sum(jnp.max(x, axis=1))
                + jnp.sum(lax.reduce_prod(x, (0,))) + jnp.sum(lax.sort(x, 0)[-1])
                + jnp.sum(lax.cumprod(x, 1)) + jnp.sum(lax.cummax(x, 0)))
    x = arr((5, 3))
    want = tjit.grad(f)(x)
    jaxpr = tjit.make_jaxpr(tjit.grad(f))(x)
    names = {e.primitive.name for e in jaxpr.jaxpr.eqns}
    assert {"cumsum", "sort", "reduce_max", "max"} <= names  # max: cummax's tie split
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(f))(x)), np.asarray(want),
                               rtol=1e-5)
    poly = tjit.jit(tjit.grad(f), polymorphic_shapes=["(b, 3)"])
    np.testing.assert_allclose(np.asarray(poly(x)), np.asarray(want), rtol=1e-5)
    x7 = arr((7, 3), 1)
    np.testing.assert_allclose(np.asarray(poly(x7)), np.asarray(tjit.grad(f)(x7)), rtol=1e-5)
