"""``tjit.lax`` semantics found by the differential hunt (benchmarks/diff_lax.py), each
against an independent reference (NumPy, a Python loop) or JAX's documented signature."""

import numpy as np
import pytest

import tjit
from tjit import lax


@pytest.mark.parametrize("use_jit", [False, True])
@pytest.mark.parametrize("is_stable", [True, False])
def test_top_k_accepts_is_stable(use_jit, is_stable):
    # JAX's top_k takes is_stable (tie order unspecified when False); tjit raised
    # TypeError on the keyword
    x = np.array([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, -1.0, 5.0]], np.float32)

    def f(a):
        return lax.top_k(a, 2, is_stable=is_stable)
    vals, idx = (tjit.jit(f) if use_jit else f)(x)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :2]
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(x, order, -1))
    if is_stable:
        np.testing.assert_array_equal(np.asarray(idx), order)


def _clamped_window(n, size, start, signed):
    """The window start of lax.dynamic_slice by its definition: negatives count from the
    end (signed types), then clamped into [0, n - size]."""
    start = int(start)
    if signed and start < 0:
        start += n
    return min(max(start, 0), n - size)


_WIDE_STARTS = [np.uint32(2**32 - 1), np.uint32(2**31), np.uint32(2**31 + 5), np.int32(-2**31)]
_WIDE_STARTS_X64 = [np.int64(-2**63), np.int64(2**32), np.int64(2**32 + 1), np.int64(-2**32 + 3),
                    np.uint64(2**63 + 2)]


def _check_traced_starts(starts):
    x = np.arange(10, dtype=np.float32)
    for s in starts:
        k = _clamped_window(10, 3, s, np.dtype(s.dtype).kind == "i")
        want_slice = x[k:k + 3]
        want_update = x.copy()
        want_update[k:k + 3] = -1
        k1 = _clamped_window(10, 1, s, np.dtype(s.dtype).kind == "i")
        for backend in (None, "interpreter"):
            ds = tjit.jit(lambda a, i: lax.dynamic_slice(a, (i,), (3,)), backend=backend)
            np.testing.assert_array_equal(np.asarray(ds(x, s)), want_slice, err_msg=str(s))
            di = tjit.jit(lambda a, i: lax.dynamic_index_in_dim(a, i, 0, False),
                          backend=backend)
            np.testing.assert_array_equal(np.asarray(di(x, s)), x[k1], err_msg=str(s))
            du = tjit.jit(lambda a, i: lax.dynamic_update_slice(
                a, np.full((3,), -1, np.float32), (i,)), backend=backend)
            np.testing.assert_array_equal(np.asarray(du(x, s)), want_update, err_msg=str(s))


def test_dynamic_slice_traced_start_past_int32():
    # a traced uint32 start >= 2**31 was cast to int32 before clamping: it wrapped
    # negative and the window came from the front instead of the back
    _check_traced_starts(_WIDE_STARTS)


def test_dynamic_slice_traced_int64_start(x64):
    # int64 starts were narrowed to int32 before clamping (2**32 read as 0, -2**63 + 10
    # as 10)
    _check_traced_starts(_WIDE_STARTS + _WIDE_STARTS_X64)


@pytest.mark.parametrize("dtype,values", [
    (np.uint32, [2**32 - 1, 2**31, 4]), (np.uint8, [255, 7, 0]),
    (np.int32, [-2**31, -1, 2**31 - 1])])
def test_vmap_dynamic_slice_wide_unsigned_starts(dtype, values):
    # vmap stacks per-example starts into one int32 array for a gather/scatter: uint32
    # starts >= 2**31 wrapped negative there
    x = np.arange(30, dtype=np.float32).reshape(3, 10)
    starts = np.array(values, dtype)
    signed = np.dtype(dtype).kind == "i"
    ks = [_clamped_window(10, 3, v, signed) for v in values]
    want = np.stack([x[b, k:k + 3] for b, k in enumerate(ks)])
    want_u = x.copy()
    for b, k in enumerate(ks):
        want_u[b, k:k + 3] = -1
    ds = tjit.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (3,)))
    du = tjit.vmap(lambda r, i: lax.dynamic_update_slice(r, np.full((3,), -1, np.float32),
                                                          (i,)))
    for f, w in ((ds, want), (du, want_u)):
        np.testing.assert_array_equal(np.asarray(f(x, starts)), w)
        np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, starts)), w)


@pytest.mark.parametrize("use_jit", [False, True])
def test_numpy_indexing_with_uint32_indices_past_int32(use_jit):
    # traced/Array uint32 indices were cast to int32 before use: 2**32 - 1 wrapped to -1
    # and 2**31 to -2**31, so clip mode read element 0 instead of the last one, and a
    # plain x[i] (which clamps, as JAX's) too
    import tjit.numpy as jnp
    x = np.arange(10, dtype=np.float32)
    i = np.array([2**32 - 1, 2**31, 3], np.uint32)
    want = x[np.minimum(i.astype(np.int64), 9)]

    def run(f):
        return np.asarray((tjit.jit(f) if use_jit else f)(jnp.asarray(x), jnp.asarray(i)))
    np.testing.assert_array_equal(run(lambda a, k: jnp.take(a, k, mode="clip")), want)
    np.testing.assert_array_equal(run(lambda a, k: a.at[k].get(mode="clip")), want)
    np.testing.assert_array_equal(run(lambda a, k: a[k]), want)
    np.testing.assert_array_equal(run(lambda a, k: a.at[k].get(mode="fill", fill_value=-1)),
                                  np.where(i < 10, want, -1))
    added = x.copy()
    np.add.at(added, np.minimum(i.astype(np.int64), 9), 100)
    np.testing.assert_array_equal(run(lambda a, k: a.at[k].add(100.0, mode="clip")), added)
    dropped = x.copy()
    dropped[3] += 100
    np.testing.assert_array_equal(run(lambda a, k: a.at[k].add(100.0)), dropped)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint8, np.int8])
def test_ravel_multi_index_extreme_coordinates(mode, dtype):
    # uint32 coordinates >= 2**31 were cast to int32 first: clip mode gave 0 for
    # 2**32 - 1 (NumPy/JAX: the last row), wrap mode the remainder of a wrapped value
    import tjit.numpy as jnp
    i = np.array([np.iinfo(dtype).max, np.iinfo(dtype).min, 3, 2**31 if dtype == np.uint32
                  else 7], dtype)
    w = i.astype(np.int64)
    coords = (w % 3, w % 5) if mode == "wrap" else (np.clip(w, 0, 2), np.clip(w, 0, 4))
    want = np.ravel_multi_index(coords, (3, 5))
    np.testing.assert_array_equal(np.asarray(jnp.ravel_multi_index((i, i), (3, 5), mode=mode)),
                                  want)
    np.testing.assert_array_equal(np.asarray(tjit.jit(
        lambda k: jnp.ravel_multi_index((k, k), (3, 5), mode=mode))(i)), want)


def test_unravel_index_clips_uint32_past_int32():
    # JAX's documented clip of out-of-range flat indices; 2**31 wrapped to -2**31 (then
    # clipped to index 0) before the fix
    import tjit.numpy as jnp
    i = np.array([2**32 - 1, 2**31, 3], np.uint32)
    want = np.unravel_index(np.minimum(i.astype(np.int64), 9), (2, 5))
    for f in (jnp.unravel_index, tjit.jit(jnp.unravel_index, static_argnums=1)):
        got = f(i, (2, 5))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)


def test_broadcast_in_dim_takes_unsorted_dimensions():
    # StableHLO/JAX: operand dim i goes to output dim broadcast_dimensions[i], in any
    # order (a transpose folded into the broadcast); tjit raised ShapeError
    y = np.arange(6.0, dtype=np.float32).reshape(2, 3, 1)
    want = np.broadcast_to(np.transpose(y, (1, 2, 0))[:, None], (3, 5, 4, 2))

    def f(a):
        return lax.broadcast_in_dim(a, (3, 5, 4, 2), (3, 0, 2))
    np.testing.assert_array_equal(np.asarray(f(y)), want)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(y)), want)
    np.testing.assert_array_equal(np.asarray(tjit.vmap(f)(np.stack([y, -y]))),
                                  np.stack([want, -want]))
    w = np.random.default_rng(0).standard_normal((3, 5, 4, 2))
    grad = tjit.grad(lambda a: (f(a) * w).sum())(y.astype(np.float64))
    np.testing.assert_allclose(np.asarray(grad),
                               np.transpose(w.sum((1, 2)), (1, 0))[:, :, None], rtol=1e-6)
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(lax.broadcast_in_dim(x, (4, 3), (1, 0))), x.T)
    with pytest.raises(Exception, match="broadcast_in_dim"):
        lax.broadcast_in_dim(x, (4, 3), (1, 1))


def test_jax_argument_names_and_mul_out_dtype():
    # JAX's keyword names (operand=, x1=/x2=) and lax.mul's out_dtype; calls that port
    # from JAX raised TypeError
    np.testing.assert_array_equal(
        np.asarray(lax.convert_element_type(operand=np.float32(-2.7), new_dtype=np.int32)), -2)
    np.testing.assert_array_equal(
        np.asarray(lax.bitcast_convert_type(operand=np.float32(1.0), new_dtype=np.int32)),
        np.float32(1.0).view(np.int32))
    np.testing.assert_array_equal(
        np.asarray(lax.nextafter(x1=np.float32(1.0), x2=np.float32(2.0))),
        np.nextafter(np.float32(1.0), np.float32(2.0)))
    a = np.array([100, -100, 127], np.int8)
    b = np.array([3, 3, 127], np.int8)
    for f in (lax.mul, tjit.jit(lambda x, y: lax.mul(x, y, out_dtype=np.int32))):
        got = f(a, b, out_dtype=np.int32) if f is lax.mul else f(a, b)
        assert np.asarray(got).dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), a.astype(np.int32) * b)
    # lax.mul keeps its identity: lax.reduce(..., lax.mul, ...) still is a product
    np.testing.assert_allclose(np.asarray(lax.reduce(np.arange(1.0, 5.0, dtype=np.float32),
                                                     np.float32(1), lax.mul, (0,))), 24.0)


@pytest.mark.parametrize("use_jit", [False, True])
def test_scatter_with_empty_index_vectors_combines_every_window(use_jit):
    # every window starts at the origin: all six combine (JAX 0.10.2 on the CPU keeps the
    # last window only; StableHLO's scatter applies each update)
    x = np.array([1.0, 2.0], np.float32)
    idx = np.zeros((2, 3, 0), np.int8)
    u = np.random.default_rng(0).standard_normal((2, 1, 3)).astype(np.float32)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                     scatter_dims_to_operand_dims=())
    run = tjit.jit(lambda *a: lax.scatter_add(*a, dn)) if use_jit else \
        (lambda *a: lax.scatter_add(*a, dn))
    want = x.copy()
    want[0] += u.astype(np.float64).sum()
    np.testing.assert_allclose(np.asarray(run(x, idx, u)), want, rtol=1e-6)
