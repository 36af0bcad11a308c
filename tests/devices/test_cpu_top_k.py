"""``lax.top_k`` along the last axis runs on the CPU as a compiled selection per row
(``devices/cpu_top_k.py``, ``lower/llvm/top_k.py``). Checked against a stable NumPy
argsort in float64 (top_k's order: largest first, ties to the lower index, NaN above
+inf, -0.0 equal to +0.0) and the reference interpreter, index for index and bit for bit,
with ties, NaNs, signed zeros, rows shorter than a block, int, unsigned, bool and float
dtypes."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.devices import cpu_top_k
from tjit.lower.llvm import top_k


@pytest.fixture
def compiled_steps(monkeypatch):
    made = []
    real = cpu_top_k.top_k_step

    def spy(runner, s):
        run = real(runner, s)
        if run is not None:
            made.append(s.name)
        return run
    monkeypatch.setattr(cpu_top_k, "top_k_step", spy)
    return made


def _reference(x, k):
    """top_k by a stable sort of float64 keys (NaN largest, -0.0 == +0.0)."""
    key = x.astype(np.float64) + 0.0
    if x.dtype.kind == "f":
        key = np.where(np.isnan(key), np.inf, key)
        # NaN above +inf: order by (is_nan, value) with a stable lexsort, descending
        order = np.lexsort((-key, -np.isnan(x).astype(np.int8)), axis=-1) if x.ndim == 1 \
            else np.stack([np.lexsort((-r, -np.isnan(xr).astype(np.int8)))
                           for r, xr in zip(key.reshape(-1, x.shape[-1]),
                                            x.reshape(-1, x.shape[-1]))]).reshape(x.shape)
    else:
        order = np.argsort(-key, axis=-1, kind="stable")
    idx = order[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def _data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = np.round(rng.standard_normal(shape), 1)      # many ties
        x[rng.random(shape) < 0.05] = np.nan
        x[rng.random(shape) < 0.05] = np.inf
        zeros = rng.random(shape) < 0.1
        x[zeros] = np.where(rng.random(shape) < 0.5, -0.0, 0.0)[zeros]
        return x.astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.3
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -5), min(info.max, 5), shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64,
                                   np.bool_])
@pytest.mark.parametrize("shape,k", [((6, 300), 5), ((2, 3, 40), 40), ((4, 7), 3),
                                     ((3, 1024), 1), ((5, 33), 16),
                                     ((2, 20000), 5)])   # (past top_k.KEPT_BLOCKS blocks)
def test_top_k_matches_a_stable_sort(compiled_steps, x64, dtype, shape, k):
    rng = np.random.default_rng(sum(shape) + k)
    x = _data(rng, shape, dtype)
    prog = lambda x: lax.top_k(x, k)
    vals, idx = (np.asarray(a) for a in tjit.jit(prog)(x))
    want_vals, want_idx = _reference(x, k)
    np.testing.assert_array_equal(idx, want_idx)
    assert vals.dtype == x.dtype
    np.testing.assert_array_equal(vals.view(np.uint8), want_vals.view(np.uint8))
    ivals, iidx = (np.asarray(a) for a in tjit.jit(prog, backend="interpreter")(x))
    np.testing.assert_array_equal(idx, iidx)
    np.testing.assert_array_equal(vals.view(np.uint8), ivals.view(np.uint8))
    assert compiled_steps == ["top_k"]


def test_only_indices_used_and_many_rows(compiled_steps):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((700, 256)).astype(np.float32)     # split across threads
    got = np.asarray(tjit.jit(lambda x: lax.top_k(x, 8)[1])(x))
    np.testing.assert_array_equal(got, _reference(x, 8)[1])
    assert compiled_steps == ["top_k"]


def test_k_zero_large_k_and_other_dtypes_keep_numpy(compiled_steps):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    vals, idx = tjit.jit(lambda x: lax.top_k(x, 0))(x)
    assert np.asarray(vals).shape == (3, 0) and np.asarray(idx).shape == (3, 0)
    h = np.asarray(tjit.jit(lambda x: lax.top_k(x, 2)[1])(x.astype(np.float16)))
    np.testing.assert_array_equal(h, [[3, 2]] * 3)
    big = np.random.default_rng(9).standard_normal((2, top_k.MAX_K + 10)).astype(np.float32)
    idx = np.asarray(tjit.jit(lambda x: lax.top_k(x, top_k.MAX_K + 1)[1])(big))
    np.testing.assert_array_equal(idx, _reference(big, top_k.MAX_K + 1)[1])
    assert compiled_steps == []
    assert not top_k.supported(np.float16)
    with pytest.raises(ValueError, match="float16"):
        top_k.function_ir(np.float16)


def test_symbolic_sizes(compiled_steps):
    rng = np.random.default_rng(8)
    f = tjit.jit(lambda x: lax.top_k(x, 4), polymorphic_shapes=["(b, n)"])
    for shape in ((3, 50), (5, 700), (2, 4)):
        x = rng.standard_normal(shape).astype(np.float32)
        vals, idx = (np.asarray(a) for a in f(x))
        want_vals, want_idx = _reference(x, 4)
        np.testing.assert_array_equal(idx, want_idx)
        np.testing.assert_array_equal(vals, want_vals)
    assert compiled_steps
