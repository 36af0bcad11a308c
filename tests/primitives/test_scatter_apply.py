"""``lax.scatter_apply`` against a NumPy loop that applies the function once per index
(duplicates again), in every mode, eager, jit and the reference interpreter, and vmap
against a Python loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_vmap
from tjit import lax

POINTS = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
ROWS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))


def np_apply_points(x, idx, func, mode):
    out = x.astype(np.float64).copy()
    for i in idx[:, 0]:
        if mode == "clip":
            i = min(max(i, 0), len(x) - 1)
        elif not 0 <= i < len(x):
            continue
        out[i] = func(out[i])
    return out


@pytest.mark.parametrize("mode", [None, "clip", "drop", "fill"])
@pytest.mark.parametrize("how", ["eager", "jit", "interpreter"])
def test_points_with_duplicates_and_out_of_bounds(mode, how):
    x = np.linspace(-1, 1, 10).astype(np.float32)
    idx = np.array([[1], [3], [3], [12], [-2], [3]], np.int32)

    def f(x):
        return lax.scatter_apply(x, idx, lambda v: v * 2 + 1, POINTS, update_shape=(6,),
                                 mode=mode)
    g = {"eager": f, "jit": tjit.jit(f), "interpreter": tjit.jit(f, backend="interpreter")}
    got = g[how](jnp.asarray(x))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np_apply_points(x, idx, lambda v: v * 2 + 1,
                                                                mode or "drop"), rtol=1e-6)


def test_windows_and_unique_indices():
    y = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = lax.scatter_apply(y, np.array([[0], [2], [0]], np.int32), jnp.exp2, ROWS,
                            update_shape=(3, 4))
    want = y.astype(np.float64).copy()
    want[0] = 2 ** (2 ** want[0])
    want[2] = 2 ** want[2]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    neg = tjit.jit(lambda y: lax.scatter_apply(y, np.array([[2]], np.int32), jnp.negative,
                                               ROWS, update_shape=(1, 4),
                                               unique_indices=True))(y)
    np.testing.assert_array_equal(np.asarray(neg), np.concatenate([y[:2], -y[2:]]))


def test_integer_operand_and_vmap():
    x = np.arange(8, dtype=np.int32)
    idx = np.array([[0], [5], [5]], np.int32)
    got = lax.scatter_apply(x, idx, lambda v: v * 3, POINTS, update_shape=(3,))
    np.testing.assert_array_equal(np.asarray(got), [0, 1, 2, 3, 4, 45, 6, 7])
    xs = jnp.asarray(np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32))
    check_vmap(lambda x: lax.scatter_apply(x, idx, jnp.sin, POINTS, update_shape=(3,)),
               (xs,))
    ids = jnp.asarray(np.array([[[1]], [[7]], [[1]]], np.int32))
    check_vmap(lambda x, i: lax.scatter_apply(x, i, jnp.cos, POINTS, update_shape=(1,)),
               (xs, ids))


def test_a_func_that_changes_the_dtype_is_refused():
    with pytest.raises(TypeError, match="scatter_apply: func must map a float32 value"):
        lax.scatter_apply(jnp.ones(4), np.array([[1]], np.int32), lambda v: v > 0, POINTS,
                          update_shape=(1,))
