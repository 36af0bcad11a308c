"""Batched gathers (batch dims shared by operand and indices, one gathered axis:
``take_along_axis``, a vmapped ``x[i]``) are ``take``s with ``("s", j, d)`` dims, so they
are indexed loads inside fused kernels, not library calls. Values against NumPy (index
normalization, clip and fill modes spelled out) and the reference interpreter."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def kinds(f, *args):
    return [k for k, _ in tjit.jit(f).lower(*args).compile().fusion_summary()]


def same_as_interpreter(f, *args):
    got = np.asarray(tjit.jit(f)(*args))
    want = np.asarray(tjit.jit(f, backend="interpreter")(*args))
    np.testing.assert_array_equal(got, want)
    return got


def along_axis_reference(x, idx, axis, mode):
    """NumPy take_along_axis with jnp's index rules: negative indices count from the end;
    what is still out of range is clamped ("clip") or NaN / the dtype's fill ("fill")."""
    n = x.shape[axis]
    norm = np.where(idx < 0, idx + n, idx)
    got = np.take_along_axis(x, np.clip(norm, 0, n - 1), axis)
    if mode == "clip":
        return got
    inb = (norm >= 0) & (norm < n)
    return np.where(inb, got, np.nan)


@pytest.mark.parametrize("mode", [None, "fill", "clip"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_take_along_axis_is_fused_and_matches_numpy(mode, axis):
    rng = np.random.RandomState(11)
    x = rng.randn(4, 5, 6).astype(np.float32)
    shape = [4, 5, 6]
    shape[axis] = 7
    n = x.shape[axis]
    idx = rng.randint(-n - 3, n + 3, size=shape).astype(np.int32)   # negative and beyond
    f = lambda x, i: jnp.take_along_axis(x, i, axis=axis, mode=mode) * 2.0 + 1.0  # noqa
    assert kinds(f, x, idx) == ["kernel"]
    got = same_as_interpreter(f, x, idx)
    want = along_axis_reference(x.astype(np.float64), idx, axis, mode or "fill") * 2 + 1
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_promise_in_bounds_and_integer_operands():
    rng = np.random.RandomState(12)
    x = rng.randint(-1000, 1000, size=(5, 8)).astype(np.int32)
    idx = rng.randint(-8, 8, size=(5, 3)).astype(np.int32)
    f = lambda x, i: jnp.take_along_axis(x, i, axis=1, mode="promise_in_bounds") + 1  # noqa
    assert kinds(f, x, idx) == ["kernel"]
    got = same_as_interpreter(f, x, idx)
    np.testing.assert_array_equal(got, np.take_along_axis(x, np.where(idx < 0, idx + 8, idx),
                                                          1) + 1)
    # fill mode of an integer operand: out-of-range points get the dtype's fill value
    big = rng.randint(0, 12, size=(5, 3)).astype(np.int32)
    g = lambda x, i: jnp.take_along_axis(x, i, axis=1, mode="fill")  # noqa: E731
    got = same_as_interpreter(g, x, big)
    inb = big < 8
    np.testing.assert_array_equal(got[inb], np.take_along_axis(x, np.clip(big, 0, 7), 1)[inb])
    assert (got[~inb] == np.iinfo(np.int32).min).all() and (~inb).any()


def test_sorted_top_k_gather_is_one_kernel_after_the_sort():
    rng = np.random.RandomState(13)
    x = rng.randn(6, 9).astype(np.float32)
    f = lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1)[:, :4], axis=1) * 2 + 1  # noqa
    # the sort's operand (values, iota), the sort, then one kernel: slice, gather, * 2 + 1
    assert kinds(f, x) == ["kernel", "library", "kernel"]
    got = same_as_interpreter(f, x)
    np.testing.assert_allclose(got, np.sort(x.astype(np.float64), axis=1)[:, :4] * 2 + 1,
                               rtol=1e-6)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 0), (0, 1)])
def test_vmapped_row_gather_matches_a_python_loop(in_axes):
    rng = np.random.RandomState(14)
    x = rng.randn(5, 7).astype(np.float32)
    idx = rng.randint(-7, 7, size=(5, 4)).astype(np.int32)
    xs = x if in_axes[0] == 0 else x.T.copy()
    ids = idx if in_axes[1] == 0 else idx.T.copy()
    row = lambda r, j: r[j] * 3.0 - r[j]  # noqa: E731
    f = tjit.vmap(row, in_axes=in_axes)
    # (an operand batched along axis 1 is moved to axis 0 by a transpose, which the
    # gather reads through: no transposed copy)
    assert kinds(f, xs, ids) == ["kernel"]
    got = same_as_interpreter(f, xs, ids)
    rows = [np.take(xs, b, axis=in_axes[0]) for b in range(5)]
    js = [np.take(ids, b, axis=in_axes[1]) for b in range(5)]
    want = np.stack([r[j].astype(np.float64) * 2 for r, j in zip(rows, js)])
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_batched_gather_with_whole_offset_dims():
    """lax.gather with a batch dim, the gathered axis and a whole trailing dim."""
    rng = np.random.RandomState(15)
    x = rng.randn(3, 6, 4).astype(np.float32)
    idx = rng.randint(-2, 8, size=(3, 5, 1)).astype(np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(1,),
                                    start_index_map=(1,), operand_batching_dims=(0,),
                                    start_indices_batching_dims=(0,))
    for mode in ("clip", "fill"):
        f = lambda x, i, mode=mode: lax.gather(x, i, dn, (1, 1, 4), mode=mode) + 0.5  # noqa
        assert kinds(f, x, idx) == ["kernel"]
        got = same_as_interpreter(f, x, idx)
        j = idx[..., 0]
        want = x[np.arange(3)[:, None], np.clip(j, 0, 5)] + 0.5
        if mode == "fill":    # a slice starting out of range is all fill (NaN)
            want = np.where(((j >= 0) & (j < 6))[..., None], want, np.nan)
        np.testing.assert_array_equal(got, want)


def test_gradient_is_the_scatter_add():
    rng = np.random.RandomState(16)
    x = rng.randn(4, 6).astype(np.float32)
    w = rng.randn(4, 5).astype(np.float32)
    idx = rng.randint(-6, 6, size=(4, 5)).astype(np.int32)   # repeats within rows
    f = lambda x: jnp.sum(jnp.take_along_axis(x, idx, axis=1) * w)  # noqa: E731
    got = np.asarray(tjit.jit(tjit.grad(f))(x))
    want = np.zeros((4, 6))
    np.add.at(want, (np.arange(4)[:, None], np.where(idx < 0, idx + 6, idx)), w)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, np.asarray(tjit.jit(tjit.grad(f), backend="interpreter")(x)),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", [None, "fill", "clip"])
def test_rows_by_arange_and_multi_index_gathers_fuse(mode):
    """x[arange(n)[:, None], idx] and x[i, j] gather along adjacent axes merged into one:
    no library step; each index clamped on its own axis (clip), or the point filled
    when any index is out of range (fill)."""
    rng = np.random.RandomState(17)
    x = rng.randn(5, 7, 3).astype(np.float32)
    idx = rng.randint(-9, 9, size=(5, 4)).astype(np.int32)
    rows = rng.randint(-7, 7, size=(4, 2)).astype(np.int8)
    f = lambda x, i: x.at[jnp.arange(5)[:, None], i].get(mode=mode) * 2 + 1  # noqa: E731
    g = lambda x, r, i: x.at[r[:, :1], i[:4, :2]].get(mode=mode) - 1  # noqa: E731
    for fn, args, want_rows, want_cols in (
            (f, (x, idx), np.arange(5)[:, None] + 0 * idx, idx),
            (g, (x, rows, idx), np.broadcast_to(rows[:, :1], (4, 2)), idx[:4, :2])):
        assert "library" not in kinds(fn, *args)
        got = same_as_interpreter(fn, *args)
        r = np.where(want_rows < 0, want_rows + 5, want_rows)
        c = np.where(want_cols < 0, want_cols + 7, want_cols)
        want = x[np.clip(r, 0, 4), np.clip(c, 0, 6)].astype(np.float64)
        if mode == "fill":    # (indexing's default, as JAX's, clamps)
            inb = (r >= 0) & (r < 5) & (c >= 0) & (c < 7)
            want = np.where(inb[..., None], want, np.nan)
        want = want * 2 + 1 if fn is f else want - 1
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gathers_of_a_transposed_argument_read_it_in_place(mode):
    rng = np.random.RandomState(18)
    x = rng.randn(3, 6, 4).astype(np.float32)
    idx = rng.randint(-2, 9, size=(5, 3)).astype(np.int32)
    cols = rng.randint(0, 8, size=(8,)).astype(np.int32)   # (take's clip: no wrap)
    xt = np.transpose(x, (2, 1, 0)).astype(np.float64)         # (4, 6, 3)
    f = lambda x, i: jnp.take_along_axis(  # noqa: E731
        jnp.transpose(x, (2, 1, 0)), i[None], axis=1, mode=mode) + 1
    g = lambda x, c: jnp.take(jnp.transpose(x, (2, 1, 0)), c, axis=1, mode=mode) * 3  # noqa
    for fn, args, want in (
            (f, (x, idx), along_axis_reference(xt, np.broadcast_to(idx[None], (4, 5, 3)),
                                               1, mode) + 1),
            (g, (x, cols), 3 * along_axis_reference(
                xt, np.broadcast_to(cols[None, :, None], (4, 8, 3)), 1, mode))):
        assert kinds(fn, *args) == ["kernel"]
        np.testing.assert_allclose(same_as_interpreter(fn, *args), want, rtol=1e-6)
