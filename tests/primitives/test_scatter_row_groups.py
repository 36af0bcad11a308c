"""Row scatters that repeat a row many times (k-means' segment sums, an embedding gradient
over text with a padding id) fold each row's updates with ``ufunc.reduceat``: the bits of
a Python loop applying the updates one by one, eager, compiled and under grad."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, ops
from tjit.lax import ScatterDimensionNumbers as SDN
from tjit.primitives import indexing as ix

_ROW_DN = SDN(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))


def _loop(x, rows, vals, combine):
    out = x.copy()
    with np.errstate(all="ignore"):     # int8 sums wrap, as the scatter's do
        for r, v in zip(rows, vals):
            if 0 <= r < x.shape[0]:
                out[r] = combine(out[r], v)
    return out


def _order_sensitive(rng, shape, dtype):
    """Magnitudes from 1e-3 to 1e7 (1e3 in float16): a float sum in another order gives
    other bits."""
    v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4 if dtype == np.float16 else 8,
                                                          shape)
    return v.astype(dtype)


@pytest.mark.parametrize("name,combine", [("scatter_add", np.add),
                                          ("scatter_sub", np.subtract),
                                          ("scatter_mul", np.multiply)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_heavily_repeated_rows_match_a_sequential_loop(name, combine, dtype):
    rng = np.random.default_rng(0)
    n_up = 300
    rows = rng.integers(0, 9, n_up)
    rows[rng.random(n_up) < 0.5] = 4                   # one row ~150 times
    rows[:3] = [-1, 9, 50]                              # dropped (fill mode)
    x = _order_sensitive(rng, (9, 5), dtype) if dtype != np.int8 else \
        rng.integers(-100, 100, (9, 5)).astype(dtype)
    if name == "scatter_mul":   # stay finite: factors near 1 (or -1, 0, 1 for ints)
        vals = (1 + 0.01 * rng.standard_normal((n_up, 5))).astype(dtype) \
            if dtype != np.int8 else rng.integers(-1, 2, (n_up, 5)).astype(dtype)
    else:
        vals = _order_sensitive(rng, (n_up, 5), dtype) if dtype != np.int8 else \
            rng.integers(-100, 100, (n_up, 5)).astype(dtype)   # int8 sums wrap
    assert np.bincount(rows[3:]).max() > ix.ROW_SCATTER_MAX_ROUNDS
    want = _loop(x, rows, vals, combine)
    f = getattr(lax, name)
    with np.errstate(all="ignore"):
        eager = f(x, rows[:, None], vals, _ROW_DN, mode="fill")
        compiled = tjit.jit(lambda a, i, v: f(a, i, v, _ROW_DN, mode="fill"))(
            x, rows[:, None], vals)
    np.testing.assert_array_equal(np.asarray(eager), want)
    np.testing.assert_array_equal(np.asarray(compiled), want)


def test_embedding_grad_with_a_padding_id_and_segment_sum():
    rng = np.random.default_rng(1)
    table = rng.standard_normal((100, 16)).astype(np.float32)
    ids = rng.integers(0, 100, 2000)
    ids[rng.random(2000) < 0.4] = 0                     # padding: ~800 times
    g = _order_sensitive(rng, (2000, 16), np.float32)
    want = _loop(np.zeros_like(table), ids, g, np.add)
    grad = tjit.jit(tjit.grad(lambda t, i, c: jnp.sum(t[i] * c)))(table, ids, g)
    np.testing.assert_array_equal(np.asarray(grad), want)
    seg = tjit.jit(lambda c, i: ops.segment_sum(c, i, num_segments=100))(g, ids)
    np.testing.assert_array_equal(np.asarray(seg), want)
    ref = tjit.jit(lambda c, i: ops.segment_sum(c, i, num_segments=100),
                   backend="interpreter")(g, ids)
    np.testing.assert_array_equal(np.asarray(ref), want)


def test_rows_of_many_different_repeat_counts_and_bool_rows():
    """Counts from 9 to 300 (several power-of-two classes, padded chains) and bool rows
    (add is or, mul is and)."""
    rng = np.random.default_rng(2)
    rows = np.concatenate([np.full(c, r) for r, c in enumerate([9, 15, 16, 17, 40, 300, 1])])
    rows = rng.permutation(rows)
    x = _order_sensitive(rng, (8, 3), np.float32)
    x[0] = -0.0                                     # -0.0 + -0.0 ... stays -0.0
    vals = _order_sensitive(rng, (len(rows), 3), np.float32)
    vals[rows == 0] = -0.0
    got = lax.scatter_add(x, rows[:, None], vals, _ROW_DN)
    want = _loop(x, rows, vals, np.add)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(want))
    xb = rng.random((8, 3)) < 0.5
    vb = rng.random((len(rows), 3)) < 0.1
    for name, combine in (("scatter_add", np.add), ("scatter_mul", np.multiply)):
        got = getattr(lax, name)(xb, rows[:, None], vb, _ROW_DN)
        np.testing.assert_array_equal(np.asarray(got), _loop(xb, rows, vb, combine))
