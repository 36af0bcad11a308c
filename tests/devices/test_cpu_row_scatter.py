"""Scatters of whole rows (segment sums, embedding gradients, ``x.at[ids].add(v)``) run on
the CPU as a compiled loop over the ids (``devices/cpu_scatter.py``,
``lower/llvm/scatter_rows.py``). Checked against a Python loop applying the updates one
by one (bit for bit: every element gets its updates in id order), the reference
interpreter and NumPy float64, with duplicate, out-of-range (clip / fill / drop, as JAX
documents for scatters) and no ids, int and float dtypes."""

import zlib

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, ops
from tjit.devices import cpu_scatter
from tjit.lax import ScatterDimensionNumbers as SDN
from tjit.lower.llvm import scatter_rows

_ROW_DN = SDN(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
_COMBINES = {"scatter": None, "scatter_add": np.add, "scatter_sub": np.subtract,
             "scatter_mul": np.multiply, "scatter_min": np.fmin, "scatter_max": np.fmax}


@pytest.fixture
def compiled_steps(monkeypatch):
    """The library steps the CPU runner replaced by the compiled row scatter (a list that
    grows as programs are prepared)."""
    made = []
    real = cpu_scatter.row_scatter_step

    def spy(runner, s):
        run = real(runner, s)
        if run is not None:
            made.append(s.name)
        return run
    monkeypatch.setattr(cpu_scatter, "row_scatter_step", spy)
    return made


def _ieee(combine):
    """min/max as tjit's (NaN propagates, -0.0 below +0.0) for the reference loop."""
    if combine is np.fmin or combine is np.fmax:
        lo = combine is np.fmin

        def f(a, b):
            r = np.where(a < b, a, b) if lo else np.where(a > b, a, b)
            if a.dtype.kind == "f":
                zeros = (a == 0) & (b == 0)
                sign = (np.signbit(a) | np.signbit(b)) if lo else (np.signbit(a) & np.signbit(b))
                r = np.where(zeros, np.where(sign, -a.dtype.type(0), a.dtype.type(0)), r)
                r = np.where(np.isnan(a) | np.isnan(b), np.nan, r)
            return r.astype(a.dtype)
        return f
    return combine


def _loop(x, ids, vals, combine, clip):
    """The scatter as a Python loop over the ids, in order (lax semantics: no wrapping of
    negative ids)."""
    out = x.copy()
    combine = _ieee(combine)
    with np.errstate(all="ignore"):
        for r, v in zip(ids.reshape(-1).tolist(), vals.reshape(len(ids.reshape(-1)), *x.shape[1:])):
            if clip:
                r = min(max(r, 0), x.shape[0] - 1)
            elif not 0 <= r < x.shape[0]:
                continue
            out[r] = v if combine is None else combine(out[r], v)
    return out


def _values(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":   # magnitudes 1e-3..1e7: another order gives other bits
        v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 8, shape)
        v.flat[:4] = [np.nan, 0.0, -0.0, np.inf][:v.size][:4] if v.size >= 4 else v.flat[:4]
        return v.astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)


def _ids(rng, n, n_rows, dtype):
    ids = rng.integers(0, n_rows, n)
    ids[: n // 2] = 3 % n_rows                    # one row many times
    if n >= 4:
        ids[1], ids[2] = n_rows, n_rows + 7        # past the end
        if np.dtype(dtype).kind == "i":
            ids[3] = -1                            # before the start
    rng.shuffle(ids)
    out = ids.astype(dtype)
    if np.dtype(dtype) == np.uint64 and n >= 1:
        out[0] = np.iinfo(np.uint64).max          # huge: out of range, not -1
    return out


@pytest.mark.parametrize("name", list(_COMBINES))
@pytest.mark.parametrize("dtype,ids_dtype", [(np.float32, np.int32), (np.float64, np.int64),
                                             (np.int32, np.uint64), (np.uint8, np.int8)])
@pytest.mark.parametrize("mode", ["clip", "fill", "drop"])
def test_lax_row_scatter_matches_a_sequential_loop(compiled_steps, x64, name, dtype,
                                                   ids_dtype, mode):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{mode}".encode()))  # (not hash(): per process)
    x = _values(rng, (9, 5), dtype)
    ids = _ids(rng, 60, 9, ids_dtype)
    vals = _values(rng, (60, 5), dtype)
    if name == "scatter_mul" and np.dtype(dtype).kind == "f":
        vals = (1 + 0.01 * rng.standard_normal((60, 5))).astype(dtype)
    f = getattr(lax, name)
    prog = lambda a, i, v: f(a, i[:, None], v, _ROW_DN, mode=mode)
    with np.errstate(all="ignore"):
        got = np.asarray(tjit.jit(prog)(x, ids, vals))
        interp = np.asarray(tjit.jit(prog, backend="interpreter")(x, ids, vals))
    want = _loop(x, ids, vals, _COMBINES[name], mode == "clip")
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, interp)
    assert compiled_steps == [name.replace("_", "-")]


@pytest.mark.parametrize("mode", ["clip", "drop"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_segment_sum_into_zeros_against_float64(compiled_steps, mode, dtype):
    rng = np.random.default_rng(1)
    n_seg, data = 7, _values(rng, (200, 3, 4), dtype)
    if dtype == np.float32:
        data = rng.standard_normal((200, 3, 4)).astype(dtype)
    ids = rng.integers(-2, n_seg + 2, 200).astype(np.int32)
    prog = lambda d, i: ops.segment_sum(d, i, num_segments=n_seg, mode=mode)
    got = np.asarray(tjit.jit(prog)(data, ids))
    want = np.zeros((n_seg, 3, 4))
    kept = np.clip(ids, 0, n_seg - 1) if mode == "clip" else ids
    ok = (kept >= 0) & (kept < n_seg)
    np.add.at(want, kept[ok], data[ok].astype(np.float64))
    if dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, np.asarray(tjit.jit(prog, backend="interpreter")(
        data, ids)))
    assert compiled_steps == ["scatter-add into zeros"]


def test_embedding_gradient_with_repeated_ids(compiled_steps):
    rng = np.random.default_rng(2)
    table = rng.standard_normal((50, 8)).astype(np.float32)
    ids = rng.integers(0, 50, 300).astype(np.int32)
    ids[:100] = 5
    g = rng.standard_normal((300, 8)).astype(np.float32)
    grad = tjit.jit(tjit.grad(lambda t, i, g: jnp.sum(t[i] * g)))
    got = np.asarray(grad(table, ids, g))
    want = np.zeros((50, 8))
    np.add.at(want, ids, g.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got, _loop(np.zeros_like(table), ids, g, np.add, False))
    assert compiled_steps == ["scatter-add into zeros"]


def test_at_add_wraps_negative_ids_then_drops_or_clips(compiled_steps):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    ids = np.array([0, -1, 5, 6, -7, 2, 2, -6, 100], np.int32)
    v = rng.standard_normal((9, 4)).astype(np.float32)
    def at_add(mode):
        return lambda x, i, v: x.at[i].add(v, mode=mode)
    for mode in ("drop", "clip"):
        got = np.asarray(tjit.jit(at_add(mode))(x, ids, v))
        wrapped = np.where(ids < 0, ids + 6, ids)        # NumPy's negative indices
        np.testing.assert_array_equal(got, _loop(x, wrapped, v, np.add, mode == "clip"))
    assert len(compiled_steps) == 2


def test_no_ids_and_batched_ids(compiled_steps):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    empty = tjit.jit(lambda x, i, v: lax.scatter_add(x, i, v, _ROW_DN))(
        x, np.zeros((0, 1), np.int32), np.zeros((0, 3), np.float32))
    np.testing.assert_array_equal(np.asarray(empty), x)
    # ids with two batch dims: (2, 4, 1) -> updates (2, 4, 3)
    dn = SDN(update_window_dims=(2,), inserted_window_dims=(0,),
             scatter_dims_to_operand_dims=(0,))
    ids = np.array([[[1], [1], [4], [9]], [[0], [1], [-3], [4]]], np.int32)
    v = rng.standard_normal((2, 4, 3)).astype(np.float32)
    got = np.asarray(tjit.jit(lambda x, i, v: lax.scatter_add(x, i, v, dn, mode="fill"))(
        x, ids, v))
    np.testing.assert_array_equal(got, _loop(x, ids, v, np.add, False))
    assert len(compiled_steps) == 2


def test_symbolic_sizes(compiled_steps):
    rng = np.random.default_rng(5)
    f = tjit.jit(lambda d, i: ops.segment_sum(d, i, num_segments=4),
                 polymorphic_shapes=["(n, 3)", "(n,)"])
    for n in (10, 33):
        d = rng.standard_normal((n, 3)).astype(np.float32)
        i = rng.integers(0, 4, n).astype(np.int32)
        np.testing.assert_array_equal(np.asarray(f(d, i)),
                                      _loop(np.zeros((4, 3), np.float32), i, d, np.add, False))
    assert compiled_steps


def test_forms_without_a_compiled_loop_keep_numpy():
    assert not scatter_rows.supported("subtract", np.bool_, np.int32)
    assert not scatter_rows.supported("add", np.float16, np.int32)
    assert scatter_rows.supported("add", np.bool_, np.int32)
    with pytest.raises(ValueError, match="float16"):
        scatter_rows.function_ir("add", np.float16, np.int32, "clip")
