"""Collectives over a vmapped axis (the semantics oracle) against NumPy, under jit too;
nested vmaps with two names; the unbound-axis error."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.parallel.cases import CASES, SHAPE, N
from tjit import lax


def _inputs(seed=0):
    return np.random.default_rng(seed).standard_normal((N,) + SHAPE).astype(np.float32)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_vmap_matches_numpy(case):
    X = _inputs()
    got = tjit.vmap(case.fn, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), case.ref(X.astype(np.float64)),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_jit_of_vmap_matches_numpy(case):
    X = _inputs(1)
    got = tjit.jit(tjit.vmap(case.fn, axis_name="i"))(X)
    np.testing.assert_allclose(np.asarray(got), case.ref(X.astype(np.float64)),
                               rtol=1e-5, atol=1e-5)


def test_jit_inside_vmap():
    X = _inputs(2)
    got = tjit.vmap(tjit.jit(lambda x: lax.psum(x, "i") * x), axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), X.sum(0) * X, rtol=1e-5, atol=1e-5)


def test_unmapped_value_and_python_scalars():
    X = _inputs(3)
    # a value that does not vary along the axis: psum is size * x, pmax is x
    got = tjit.vmap(lambda x, c: lax.psum(c, "i") + lax.pmax(c, "i"), in_axes=(0, None),
                    axis_name="i")(X, np.float32(2.0))
    np.testing.assert_allclose(np.asarray(got), np.full(N, 2.0 * N + 2.0))
    assert tjit.vmap(lambda x: lax.psum(1, "i"), axis_name="i")(X).tolist() == [N] * N
    assert tjit.vmap(lambda x: lax.axis_size("i") + 0 * x[0, 0], axis_name="i")(X)[0] == N
    b = tjit.vmap(lambda x: lax.psum(x > 0, "i"), axis_name="i")(X)
    assert b.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(b)[0], (X > 0).sum(0))


def test_nested_vmaps_two_names():
    X = np.random.default_rng(4).standard_normal((3, 2, 5)).astype(np.float32)

    def f(x):
        return (lax.psum(x, ("i", "j")), lax.psum(x, "i"), lax.psum(x, "j"),
                lax.axis_index(("i", "j")), lax.axis_index("j"), lax.pmax(x, ("j", "i")))

    outs = tjit.vmap(tjit.vmap(f, axis_name="j"), axis_name="i")(X)
    both, over_i, over_j, index, j_index, top = (np.asarray(o) for o in outs)
    np.testing.assert_allclose(both, np.broadcast_to(X.sum((0, 1)), X.shape), rtol=1e-5)
    np.testing.assert_allclose(over_i, np.broadcast_to(X.sum(0), X.shape), rtol=1e-5)
    np.testing.assert_allclose(over_j, np.broadcast_to(X.sum(1, keepdims=True), X.shape),
                               rtol=1e-5)
    np.testing.assert_array_equal(index, np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(j_index, np.broadcast_to(np.arange(2), (3, 2)))
    np.testing.assert_allclose(top, np.broadcast_to(X.max((0, 1)), X.shape))


def test_collective_inside_inner_vmap_over_outer_name():
    X = np.random.default_rng(5).standard_normal((3, 4, 2)).astype(np.float32)
    # all_gather over the outer axis of a value batched by the inner vmap
    got = tjit.vmap(tjit.vmap(lambda x: lax.all_gather(x, "i", axis=1)), axis_name="i")(X)
    want = np.broadcast_to(np.moveaxis(X, 0, 2)[None], (3, 4, 2, 3))
    np.testing.assert_allclose(np.asarray(got), want)


def test_unbound_axis_name_errors():
    X = _inputs(6)
    with pytest.raises(NameError, match="unbound axis name: j"):
        tjit.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(jnp.ones(3), "i")
    with pytest.raises(NameError, match="unbound axis name: i"):
        tjit.jit(lambda x: lax.all_gather(x, "i"))(X)
    with pytest.raises(NameError, match="unbound axis name: k"):
        tjit.vmap(lambda x: lax.axis_index("k"))(X)


def test_bad_shapes_are_clear_errors():
    X = _inputs(7)
    with pytest.raises(tjit.ShapeError, match="psum_scatter.*must equal the size 4"):
        tjit.vmap(lambda x: lax.psum_scatter(x[:3], "i"), axis_name="i")(X)
    with pytest.raises(tjit.ShapeError, match="all_to_all.*multiple of the size 4"):
        tjit.vmap(lambda x: lax.all_to_all(x[:, :3], "i", 1, 0, tiled=True),
                  axis_name="i")(X)
    with pytest.raises(ValueError, match="ppermute.*outside the axis"):
        tjit.vmap(lambda x: lax.ppermute(x, "i", [(0, 7)]), axis_name="i")(X)
    with pytest.raises(ValueError, match="ppermute.*twice"):
        tjit.vmap(lambda x: lax.ppermute(x, "i", [(0, 1), (2, 1)]), axis_name="i")(X)


def test_collectives_inside_control_flow_bodies():
    X = np.arange(4.0, dtype=np.float32)
    loop = tjit.vmap(lambda x: lax.fori_loop(0, 2, lambda i, c: c + lax.psum(x, "i"), 0.0),
                     axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(loop), np.full(4, 2 * X.sum()))
    branch = tjit.vmap(lambda x: lax.cond(x > 1, lambda v: lax.psum(v, "i"), lambda v: v, x),
                       axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(branch), np.where(X > 1, X.sum(), X))
    # a loop whose carry does not depend on the mapped input still runs over the axis
    carry = tjit.vmap(lambda x: x + lax.fori_loop(0, 2, lambda i, c: c + lax.psum(c, "i"),
                                                  1.0), axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(carry), X + 25.0)
    index = tjit.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c + lax.axis_index("i"), 0),
                      axis_name="i")(X)
    np.testing.assert_array_equal(np.asarray(index), 3 * np.arange(4))


def test_gather_and_scatter_over_two_names():
    X = np.random.default_rng(9).standard_normal((3, 2, 6, 2)).astype(np.float32)
    flat = X.reshape(6, 6, 2)              # member (i, j) is row i * 2 + j

    def nested(f):
        return np.asarray(tjit.vmap(tjit.vmap(f, axis_name="j"), axis_name="i")(X))

    gathered = nested(lambda x: lax.all_gather(x, ("i", "j"), axis=1))
    np.testing.assert_allclose(gathered, np.broadcast_to(np.moveaxis(flat, 0, 1),
                                                         (3, 2, 6, 6, 2)))
    tiled = nested(lambda x: lax.all_gather(x, ("i", "j"), tiled=True))
    np.testing.assert_allclose(tiled, np.broadcast_to(flat.reshape(36, 2), (3, 2, 36, 2)))
    scattered = nested(lambda x: lax.psum_scatter(x, ("i", "j")))
    np.testing.assert_allclose(scattered.reshape(6, 2), flat.sum(0), rtol=1e-5, atol=1e-5)
    blocks = nested(lambda x: lax.psum_scatter(x[:, :1], ("j", "i"), scatter_dimension=0,
                                               tiled=True))
    # ("j", "i"): j is major, so member (i, j) gets row j * 3 + i of the sum
    total = flat[:, :, :1].sum(0)
    np.testing.assert_allclose(blocks[:, :, 0, 0], total[:, 0].reshape(2, 3).T,
                               rtol=1e-5, atol=1e-5)


def test_gather_over_pmap_and_vmap_names():
    from tjit.devices.backend import cpu_device_count
    X = np.random.default_rng(10).standard_normal((2, 3, 4)).astype(np.float32)
    f = tjit.vmap(lambda x: lax.all_gather(x, ("i", "j")), axis_name="j")
    with cpu_device_count(2):
        got = tjit.pmap(f, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), np.broadcast_to(X.reshape(6, 4), (2, 3, 6, 4)))
