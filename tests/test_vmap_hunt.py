"""Regressions from benchmarks/diff_vmap.py (vmap of the public API against a Python loop).

Both bugs below are of one kind: a batching rule that folds the mapped axis into another
dim or count assumed at least one example, so vmap over an empty batch raised.

An empty batch (vmap over zero examples) of a gather whose operand and indices are both
batched made the batching rule ask for a slice of one row along a dim of size 0:
vmap(lambda x: x[jnp.argmax(x)])(zeros((0, 4))) raised "gather: slice size 1 for dim 0 must
be in [0, 0]" (JAX: an empty (0,) result). Every path that builds such a gather is checked
here, eager and under jit, at batch sizes 0, 1 and 3 against a loop over the rows.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _loop(f, args, n):
    """The reference: f row by row on NumPy rows, stacked (empty batch: f's output shape on
    one example, from eval_shape, with a leading 0)."""
    if n == 0:
        one = tjit.eval_shape(f, *[jnp.zeros(a.shape[1:], a.dtype) for a in args])
        return np.zeros((0,) + one.shape, one.dtype)
    return np.stack([np.asarray(f(*[jnp.asarray(a[b]) for a in args])) for b in range(n)])


rng = np.random.default_rng(0)
N = 3
GATHERS = {  # operand and indices both batched
    "x[argmax(x)]": (lambda x, s: x[jnp.argmax(x)] * x, (4,)),
    "take(x, argsort(x))": (lambda x, s: jnp.take(x, jnp.argsort(x)) ** 2, (5,)),
    "x[lexsort]": (lambda x, s: x[jnp.lexsort((x,))], (4,)),
    "take_along_axis": (lambda x, s: jnp.take_along_axis(x, jnp.argsort(x), 0), (4,)),
    "at[i].get(fill)": (lambda x, s: x.at[s + 3].get(mode="fill", fill_value=-1.0), (4,)),
    "dynamic_slice": (lambda x, s: lax.dynamic_slice(x, (s,), (2,)), (4,)),
    "dynamic_slice_2d": (lambda x, s: lax.dynamic_slice(x, (s, 0), (2, 2)), (3, 3)),
    "dynamic_index_in_dim": (lambda x, s: lax.dynamic_index_in_dim(x, s, 0, False), (4,)),
    "linalg.solve": (lambda x, s: jnp.linalg.solve(x + 3 * jnp.eye(3), x[0]), (3, 3)),
    "dynamic_update_slice": (lambda x, s: lax.dynamic_update_slice(x, x[:2] * 2, (s,)), (4,)),
    "at[i].set": (lambda x, s: x.at[s].set(7.0), (4,)),
}


@pytest.mark.parametrize("n", [0, 1, N])
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", sorted(GATHERS))
def test_batched_operand_and_index_any_batch_size(name, jit, n):
    f, shape = GATHERS[name]
    x = rng.standard_normal((n,) + shape).astype(np.float32)
    s = rng.integers(0, 3, n).astype(np.int32)
    g = tjit.vmap(f)
    got = np.asarray((tjit.jit(g) if jit else g)(x, s))
    want = _loop(f, (x, s), n)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_empty_batch_on_a_middle_axis():
    """in_axes=1 over zero examples: the batch moves to the front before the gather."""
    x = np.zeros((4, 0))
    got = tjit.vmap(lambda r: r[jnp.argmax(r)], in_axes=1)(x)
    assert got.shape == (0,)
    got = tjit.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (2,)), in_axes=(1, 0),
                    out_axes=1)(x, np.zeros(0, np.int32))
    assert got.shape == (2, 0)


CONVS = {  # name: (f, lhs shape, rhs shape)
    "2d": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"), (1, 2, 4, 3),
           (2, 2, 2, 2)),
    "feature_groups": (lambda x, w: lax.conv_general_dilated(
        x, w, (1,), "VALID", feature_group_count=2), (1, 4, 5), (2, 2, 2)),
    "batch_groups": (lambda x, w: lax.conv_general_dilated(
        x, w, (1,), "VALID", batch_group_count=2), (2, 1, 4), (2, 1, 2)),
    "nhwc_dilated": (lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), "VALID", rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")),
        (1, 5, 5, 2), (2, 2, 2, 1)),
    "transpose": (lambda x, w: lax.conv_transpose(x, w, (2,), "SAME",
                                                  dimension_numbers=("NCH", "OIH", "NCH")),
                  (1, 1, 3), (1, 1, 2)),
}


@pytest.mark.parametrize("n", [0, 1, N])
@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0), (-1, 1)])
@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv_any_batch_size(name, axes, n):
    """An empty batch folded into conv's batch or feature dims made a group count of 0
    ('feature_group_count and batch_group_count must be positive ints, got 0 and 1', or a
    ZeroDivisionError for grouped and transposed convs); JAX returns an empty batch."""
    f, ls, rs = CONVS[name]
    x = rng.standard_normal(((n,) if axes[0] is not None else ()) + ls).astype(np.float32)
    w = rng.standard_normal(((n,) if axes[1] is not None else ()) + rs).astype(np.float32)
    if axes[0] is not None:
        x = np.moveaxis(x, 0, axes[0])
    if axes[1] is not None:
        w = np.moveaxis(w, 0, axes[1])
    got = np.asarray(tjit.vmap(f, in_axes=axes)(x, w))
    rows = [x if axes[0] is None else np.moveaxis(x, axes[0], 0),
            w if axes[1] is None else np.moveaxis(w, axes[1], 0)]
    if n == 0:
        one = tjit.eval_shape(f, jnp.zeros(ls, np.float32), jnp.zeros(rs, np.float32))
        want = np.zeros((0,) + one.shape, one.dtype)
    else:
        want = np.stack([np.asarray(f(*[r if a is None else r[b] for r, a in zip(rows, axes)]))
                         for b in range(n)])
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


M0, V0, I0 = np.zeros((0, 3, 3), np.float32), np.zeros((0, 4), np.float32), np.zeros(0, np.int32)
EMPTY = {  # function of one example, its batched arguments (zero rows each)
    "eigh": (lambda a: jnp.linalg.eigh(a)[0], (M0,)), "svd": (jnp.linalg.svd, (M0,)),
    "qr": (jnp.linalg.qr, (M0,)), "det": (jnp.linalg.det, (M0,)),
    "lstsq": (lambda a: jnp.linalg.lstsq(a, a[0])[0], (M0,)), "inv": (jnp.linalg.inv, (M0,)),
    "fft": (jnp.fft.fft, (V0,)), "sort": (jnp.sort, (V0,)), "argsort": (jnp.argsort, (V0,)),
    "top_k": (lambda a: lax.top_k(a, 2), (V0,)),
    "while": (lambda n: lax.while_loop(lambda c: c < n, lambda c: c + 1, 0), (I0,)),
    "cond": (lambda a: lax.cond(a[0] > 0, jnp.sin, jnp.cos, a), (V0,)),
    "switch": (lambda i, a: lax.switch(i, [jnp.sin, jnp.cos], a), (I0, V0)),
    "scan": (lambda a: lax.scan(lambda c, t: (c + t, c), 0.0, a), (V0,)),
    "grad_sort": (tjit.grad(lambda a: jnp.sum(jnp.sort(a) ** 2)), (V0,)),
    "scatter_add": (lambda a, u: jnp.zeros(4).at[jnp.argmax(a)].add(u), (V0, I0)),
    "segment_max": (lambda a: tjit.ops.segment_max(a, np.array([0, 0, 1, 1]), 2), (V0,)),
    "convolve": (lambda a: jnp.convolve(a, a), (V0,)),
    "reduce_window": (lambda a: lax.reduce_window(a, 0.0, lax.add, (2,), (1,), "VALID"),
                      (V0,)),
    "searchsorted": (jnp.searchsorted, (V0, V0)), "one_hot": (lambda i: tjit.nn.one_hot(i, 3),
                                                             (I0,)),
    "matmul": (jnp.matmul, (M0, M0)), "map": (lambda a: lax.map(jnp.sin, a), (V0,)),
    "dynamic_update_slice": (lambda a, i: lax.dynamic_update_slice(jnp.pad(a, 1), a[:2], (i,)),
                             (V0, I0)),
    "normal": (lambda k: tjit.random.normal(k, (2,)),
               (np.zeros((0, 2), np.uint32),)),
}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", sorted(EMPTY))
def test_empty_batch_gives_empty_results(name, jit):
    """vmap over zero examples: every output is (0,) + the per-example shape, no error."""
    f, args = EMPTY[name]
    one = tjit.eval_shape(f, *[jnp.zeros(a.shape[1:], a.dtype) for a in args])
    g = tjit.vmap(f)
    got = (tjit.jit(g) if jit else g)(*args)
    got, one = tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(one)
    assert [(t.shape, t.dtype) for t in got] == [((0,) + o.shape, o.dtype) for o in one]
