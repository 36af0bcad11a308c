"""jvp, transpose and batching rules of gather and the scatters, against independent
oracles: float64 central finite differences (check_grads) and Python loops over the
batch (check_vmap). Configurations are the ones jnp indexing produces (x[idx],
x[:, idx], x[idx1, idx2], x.at[idx].op, take_along_axis) plus windows, permuted index
maps and operand/indices batching dims; every mode; duplicate indices for scatters."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import indexing as ix
from tests.transforms.check import check_grads, check_vmap

GDN, SDN = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


# -- configurations: (operand shape, indices, gather dimension numbers, slice sizes) --------
def _idx(*rows):
    return np.asarray(rows, np.int32)


GATHERS = {
    # x[idx]: rows (duplicates included)
    "rows": ((5, 4), _idx([3], [0], [3], [1]), GDN((1,), (0,), (0,)), (1, 4)),
    # x[:, idx]
    "cols": ((3, 5), _idx([4], [1], [1]), GDN((0,), (1,), (1,)), (3, 1)),
    # x[idx1, idx2]: points
    "points": ((4, 5), _idx([1, 2], [3, 0], [1, 2]), GDN((), (0, 1), (0, 1)), (1, 1)),
    # x[2]: one index vector, no batch dims
    "scalar": ((5, 4), _idx(2), GDN((0,), (0,), (0,)), (1, 4)),
    # windows (a batch of dynamic slices) with a permuted index map
    "windows": ((6, 5), _idx([1, 2], [0, 3], [2, 0]), GDN((1, 2), (), (1, 0)), (3, 2)),
    # take_along_axis(x, idx, axis=1): operand/indices batching dims
    "along": ((3, 5), np.array([[[4], [0], [0], [2]], [[1], [1], [3], [3]],
                                [[0], [2], [4], [4]]], np.int32),
              GDN((), (1,), (1,), (0,), (0,)), (1, 1)),
}


def _gather(name, mode="promise_in_bounds"):
    _, _, dn, sizes = GATHERS[name]
    fill = 0.5 if mode == "fill" else None
    return lambda x, i: lax.gather(x, i, dn, sizes, mode=mode, fill_value=fill)


def _scatter_dn(dn):
    return SDN(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
               dn.operand_batching_dims, dn.start_indices_batching_dims)


def _updates_shape(name):
    shape, idx, dn, sizes = GATHERS[name]
    return np.shape(_gather(name)(np.zeros(shape), idx))


SCATTERS = {"set": lax.scatter, "add": lax.scatter_add, "sub": lax.scatter_sub,
            "mul": lax.scatter_mul, "min": lax.scatter_min, "max": lax.scatter_max}


def _scatter(op, name, mode=None, **kw):
    dn = _scatter_dn(GATHERS[name][2])
    return lambda x, i, y: SCATTERS[op](x, i, y, dn, mode=mode, **kw)


def _data(name, seed=0):
    rng = np.random.default_rng(seed)
    shape, idx, _, _ = GATHERS[name]
    return rng.standard_normal(shape), idx, rng.standard_normal(_updates_shape(name))


# -- gather ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GATHERS))
@pytest.mark.parametrize("mode", ["promise_in_bounds", "clip", "fill"])
def test_gather_grads(name, mode):
    x, idx, _ = _data(name)
    f = _gather(name, mode)
    check_grads(lambda x: f(x, idx), (x,), order=2 if mode == "clip" else 1)


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
def test_gather_out_of_bounds_grads(mode):
    x = np.random.default_rng(1).standard_normal((5, 4))
    idx = _idx([7], [-3], [2], [4])  # clamped, or filled with a constant (zero tangent)
    f = _gather("rows", mode)
    check_grads(lambda x: f(x, idx), (x,))
    t = tjit.jvp(lambda x: f(x, idx), (x,), (np.ones_like(x),))[1]
    assert np.all(np.isfinite(np.asarray(t)))
    if mode == "fill":  # filled rows do not move
        np.testing.assert_array_equal(np.asarray(t)[:2], 0)
    g = tjit.grad(lambda x: jnp.sum(f(x, idx)))(x)
    want = np.zeros_like(x)
    for r in ([2, 4] if mode == "fill" else [4, 0, 2, 4]):
        want[r] += 1
    np.testing.assert_allclose(np.asarray(g), want)


GATHER_AXES = [(0, None), (None, 0), (0, 0), (1, None), (None, 1), (2, 1)]


@pytest.mark.parametrize("name", sorted(GATHERS))
@pytest.mark.parametrize("axes", GATHER_AXES, ids=str)
def test_gather_vmap(name, axes):
    x, idx, _ = _data(name)
    rng = np.random.default_rng(2)
    hi = min(GATHERS[name][0][d] - GATHERS[name][3][d] for d in GATHERS[name][2].start_index_map)
    args = []
    for a, ax in zip((x, idx), axes):
        if ax is None:
            args.append(a)
            continue
        if ax > np.ndim(a):
            pytest.skip("axis out of range for this operand")
        stack = [a if a.dtype.kind == "f" and k == 0 else
                 (rng.standard_normal(a.shape) if a.dtype.kind == "f" else
                  rng.integers(0, hi + 1, a.shape).astype(np.int32)) for k in range(3)]
        if a.dtype.kind != "f" and GATHERS[name][2].operand_batching_dims:
            stack = [np.clip(s, 0, GATHERS[name][0][1] - 1) for s in stack]
        args.append(np.stack(stack, axis=ax))
    for mode in ("clip", "fill"):
        check_vmap(_gather(name, mode), args, in_axes=axes)


def test_gather_nested_vmap_and_jit():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 4))
    idx = rng.integers(0, 5, (3, 2, 1)).astype(np.int32)
    f = _gather("rows")
    inner = tjit.vmap(f, in_axes=(0, 0))
    got = tjit.jit(tjit.vmap(inner, in_axes=(0, None)))(x, idx)
    want = np.stack([np.stack([x[a, b][idx[b, :, 0]] for b in range(3)]) for a in range(2)])
    np.testing.assert_allclose(np.asarray(got), want)


def test_gather_transpose_is_scatter_add_into_zeros():
    x = np.random.default_rng(4).standard_normal((5, 4))
    idx = GATHERS["rows"][1]
    jaxpr = tjit.make_jaxpr(tjit.grad(lambda x: jnp.sum(_gather("rows")(x, idx) ** 2)))(x)
    prims = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "gather" in prims and "scatter-add" in prims
    g = tjit.jit(tjit.grad(lambda x: jnp.sum(_gather("rows")(x, idx) ** 2)))(x)
    want = np.zeros_like(x)
    np.add.at(want, idx[:, 0], 2 * x[idx[:, 0]])
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


# -- scatters ----------------------------------------------------------------------------------
SCATTER_CASES = [(op, name) for op in SCATTERS for name in ("rows", "cols", "points",
                                                             "windows", "along", "scalar")]


@pytest.mark.parametrize("op,name", SCATTER_CASES)
def test_scatter_grads(op, name):
    x, idx, y = _data(name, seed=5)
    f = _scatter(op, name)
    check_grads(lambda x, y: f(x, idx, y), (x, y), order=2 if op in ("add", "mul") and
                name == "rows" else 1)


@pytest.mark.parametrize("op", sorted(SCATTERS))
@pytest.mark.parametrize("mode", ["clip", "drop", "promise_in_bounds"])
def test_scatter_modes_and_duplicates(op, mode):
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((6, 4))
    idx = _idx([3], [1], [3], [3], [9] if mode != "promise_in_bounds" else [0], [-2])
    if mode == "promise_in_bounds":
        idx = _idx([3], [1], [3], [3], [0], [2])
    f = _scatter(op, "rows", mode)
    check_grads(lambda x, y: f(x, idx, y), (x, y))


def test_scatter_unique_indices_paths():
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    idx = _idx([4], [0], [2])
    for op in ("set", "mul"):
        f = _scatter(op, "rows", unique_indices=True)
        check_grads(lambda x, y: f(x, idx, y), (x, y))


def test_scatter_set_duplicates_last_update_wins():
    x, y = np.arange(4.0), np.array([10.0, 20.0, 30.0])
    f = lambda x, y: x.at[np.array([1, 1, 3])].set(y)
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(x), jnp.asarray(y))), [0, 20, 2, 30])
    ct = np.array([1.0, 2.0, 3.0, 4.0])
    gx, gy = tjit.vjp(f, jnp.asarray(x), jnp.asarray(y))[1](jnp.asarray(ct))
    np.testing.assert_allclose(np.asarray(gx), [1, 0, 3, 0])
    np.testing.assert_allclose(np.asarray(gy), [0, 2, 4])


def test_scatter_max_ties_split_the_derivative():
    # x[0] == y[0] == y[1] tie three ways; x[1] is untouched; y[2] loses at x[2].
    x, y = np.array([1.0, 5.0, 2.0]), np.array([1.0, 1.0, 0.0])
    f = lambda x, y: x.at[np.array([0, 0, 2])].max(y)
    gx, gy = tjit.grad(lambda x, y: jnp.sum(f(x, y)), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(np.asarray(gx), [1 / 3, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), [1 / 3, 1 / 3, 0], rtol=1e-6)
    gx, gy = tjit.grad(lambda x, y: jnp.sum(x.at[np.array([0, 2])].min(y)),
                       argnums=(0, 1))(x, np.array([3.0, 2.0]))
    np.testing.assert_allclose(np.asarray(gx), [1, 1, 0.5], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), [0, 0.5], rtol=1e-6)


def test_scatter_mul_with_zero_updates_and_duplicates():
    x = np.array([3.0, 2.0, 4.0, 5.0])
    y = np.array([0.0, 2.0, 0.0, 0.0, 7.0])  # place 0: one zero; place 2: two zeros
    idx = np.array([0, 0, 2, 2, 3])
    f = lambda x, y: x.at[idx].mul(y)
    check_grads(f, (x, y))
    # second order is exact away from exact zeros (see _scatter_mul_jvp)
    check_grads(f, (x, y + np.array([0.5, 0, -0.75, 1.25, 0])), order=2)
    gx, gy = tjit.grad(lambda x, y: jnp.sum(f(x, y)), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(np.asarray(gx), [0, 1, 0, 7], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), [6, 0, 0, 0, 5], rtol=1e-6)


SCATTER_AXES = [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, None),
                (0, None, 0), (None, 0, 0), (0, 0, 0), (1, 1, 1), (None, 1, 2)]


def _batched(a, ax, rng, hi):
    if ax is None:
        return a
    if ax > np.ndim(a):
        pytest.skip("axis out of range for this operand")
    if a.dtype.kind == "f":
        stack = [a] + [rng.standard_normal(a.shape) for _ in range(2)]
    else:  # duplicates are likely with 3 batch members over few places
        stack = [a] + [rng.integers(0, hi + 1, a.shape).astype(np.int32) for _ in range(2)]
    return np.stack(stack, axis=ax)


@pytest.mark.parametrize("op", sorted(SCATTERS))
@pytest.mark.parametrize("name", ["rows", "windows", "along"])
@pytest.mark.parametrize("axes", SCATTER_AXES, ids=str)
def test_scatter_vmap(op, name, axes):
    rng = np.random.default_rng(8)
    x, idx, y = _data(name, seed=9)
    shape, _, dn, sizes = GATHERS[name]
    hi = min(shape[d] - sizes[d] for d in dn.start_index_map)
    if dn.operand_batching_dims:
        hi = min(hi, shape[0] - 1)
    args = [_batched(a, ax, rng, hi) for a, ax in zip((x, idx, y), axes)]
    check_vmap(_scatter(op, name), args, in_axes=axes)


def test_scatter_vmap_of_grad_and_grad_of_vmap():
    rng = np.random.default_rng(10)
    x, y = rng.standard_normal((3, 5, 4)), rng.standard_normal((3, 2, 4))
    idx = _idx([[1], [1]], [[0], [4]], [[2], [3]])

    def loss(x, i, y):
        return jnp.sum(jnp.sin(x.at[i[:, 0]].set(y)) ** 2)
    got = tjit.vmap(tjit.grad(loss, argnums=(0, 2)))(x, idx, y)
    for b in range(3):
        want = tjit.grad(loss, argnums=(0, 2))(x[b], idx[b], y[b])
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g)[b], np.asarray(w), rtol=1e-6, atol=1e-6)
    batched_loss = lambda x, y: jnp.sum(tjit.vmap(loss)(x, idx, y))
    check_grads(batched_loss, (x, y))


# -- jnp programs ---------------------------------------------------------------------------------
JNP_PROGRAMS = {
    "take": lambda x: jnp.take(x, np.array([2, 0, 2]), axis=1),
    "take_flat": lambda x: jnp.take(x, np.array([5, 0, 5, 11])),
    "x[idx]": lambda x: x[np.array([1, 1, 0])],
    "x[:, idx]": lambda x: x[:, np.array([3, 1, 3])],
    "x[idx1, idx2]": lambda x: x[np.array([1, 2, 1]), np.array([0, 3, 0])],
    "x[-1, 1:3]": lambda x: x[-1, 1:3],
    "x[bool]": lambda x: x[np.array([True, False, True])],
    "take_along_axis": lambda x: jnp.take_along_axis(
        x, np.array([[0, 0], [3, 1], [2, 2]]), axis=1),
    "at.get(fill)": lambda x: x.at[np.array([0, 5])].get(mode="fill", fill_value=0.0),
    "at.set": lambda x: x.at[np.array([1, 1])].set(jnp.sin(x[0:2])),
    "at.add": lambda x: x.at[np.array([1, 1, 2])].add(x[np.array([0, 0, 0])] ** 2),
    "at.add scalar": lambda x: x.at[1, 2].add(x[0, 0] * 3.0),
    "at.set scalar": lambda x: x.at[1, 2].set(jnp.cos(x[1, 2])),
    "at.mul": lambda x: x.at[:, np.array([0, 0])].mul(x[:, 1:3]),
    "at.max": lambda x: x.at[np.array([2, 0])].max(x[np.array([1, 1])] + 0.5),
}


@pytest.mark.parametrize("name", sorted(JNP_PROGRAMS))
def test_jnp_indexing_grads(name):
    x = np.random.default_rng(11).standard_normal((3, 4))
    check_grads(JNP_PROGRAMS[name], (x,))


def test_per_example_embedding_gradients():
    """vmap(grad) of an embedding-lookup loss equals a loop of grads."""
    rng = np.random.default_rng(12)
    table = rng.standard_normal((6, 3)).astype(np.float32)
    tokens = rng.integers(0, 6, (5, 4)).astype(np.int32)  # duplicates within examples
    targets = rng.standard_normal((5, 3)).astype(np.float32)

    def loss(table, tok, tgt):
        return jnp.sum((jnp.mean(table[tok], axis=0) - tgt) ** 2)
    got = tjit.jit(tjit.vmap(tjit.grad(loss), in_axes=(None, 0, 0)))(table, tokens, targets)
    for b in range(5):
        emb = table[tokens[b]].mean(0)
        want = np.zeros_like(table)
        np.add.at(want, tokens[b], np.broadcast_to(2 * (emb - targets[b]) / 4, (4, 3)))
        np.testing.assert_allclose(np.asarray(got)[b], want, rtol=1e-5, atol=1e-6)


def test_symbolic_shapes_one_jaxpr():
    """grad and vmap trace once for a family of sizes, into one flat jaxpr."""
    idx = np.array([1, 1, 0])

    def loss(x, y):
        return jnp.sum(jnp.sin(x.at[idx].set(y)[idx]) ** 2)
    jaxpr = tjit.make_jaxpr(tjit.grad(loss, argnums=(0, 1)),
                            polymorphic_shapes=["(b, 4)", None])(np.ones((5, 4), np.float32),
                                                                 np.ones((3, 4), np.float32))
    assert "b" in str(jaxpr.jaxpr.invars[0].aval.shape)
    assert all(not any(hasattr(v, "jaxpr") for v in e.params.values())
               for e in jaxpr.jaxpr.eqns)
    got = tjit.jit(tjit.grad(loss, argnums=(0, 1)), polymorphic_shapes=["(b, 4)", None])
    for b in (3, 6):
        x, y = np.ones((b, 4), np.float32) * 0.5, np.ones((3, 4), np.float32)
        gx, gy = got(x, y)
        wx, wy = tjit.grad(loss, argnums=(0, 1))(x, y)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(wx), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(gy), np.asarray(wy), rtol=1e-6)
    vm = tjit.make_jaxpr(tjit.vmap(lambda x, i: x[i]),
                         polymorphic_shapes=["(b, 5, 4)", "(b, 2)"])(
        np.ones((3, 5, 4)), np.ones((3, 2), np.int32))
    assert [e.primitive.name for e in vm.jaxpr.eqns].count("gather") == 1


def test_rules_are_complete():
    for p in (ix.gather_p, ix.scatter_p, ix.scatter_add_p, ix.scatter_sub_p, ix.scatter_mul_p,
              ix.scatter_min_p, ix.scatter_max_p):
        assert p.jvp is not None and p.batch is not None, p
    for p in (ix.gather_p, ix.scatter_p, ix.scatter_add_p, ix.scatter_sub_p, ix.scatter_mul_p):
        assert p.transpose is not None, p


def _undefined(a):
    from tjit.primitives.rules import UndefinedPrimal
    from tjit.tracing.avals import ShapedArray
    return UndefinedPrimal(ShapedArray(np.shape(a), np.asarray(a).dtype))


def test_transpose_errors():
    x, idx, y = np.ones((5, 4)), GATHERS["rows"][1], np.ones((4, 4))
    params = dict(dimension_numbers=_scatter_dn(GATHERS["rows"][2]),
                  mode=lax.GatherScatterMode.FILL_OR_DROP)
    with pytest.raises(NotImplementedError, match="scatter-mul.*unique_indices=True"):
        ix.scatter_mul_p.transpose(jnp.ones((5, 4)), x, idx, _undefined(y), **params)
    with pytest.raises(ValueError, match="not linear in operand and updates together"):
        ix.scatter_mul_p.transpose(jnp.ones((5, 4)), _undefined(x), idx, _undefined(y),
                                   **params)
