"""cumsum / cumprod / cummax / cummin run on the CPU as a compiled scan
(``devices/cpu_cumulative.py``, ``lower/llvm/cumulative.py``): along the last axis, a
leading axis and the middle of three, forwards and reversed, checked bit for bit against
the reference interpreter (NumPy's ``ufunc.accumulate``) and against NumPy float64, with
NaN, signed zeros, empty axes, int, unsigned, bool and float dtypes."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.devices import cpu_cumulative
from tjit.lower.llvm import cumulative

_PRIMS = {"cumsum": (lax.cumsum, np.add), "cumprod": (lax.cumprod, np.multiply),
          "cummax": (lax.cummax, np.fmax), "cummin": (lax.cummin, np.fmin)}


@pytest.fixture
def compiled_steps(monkeypatch):
    made = []
    real = cpu_cumulative.cumulative_step

    def spy(runner, s):
        run = real(runner, s)
        if run is not None:
            made.append(s.name)
        return run
    monkeypatch.setattr(cpu_cumulative, "cumulative_step", spy)
    return made


def _data(rng, shape, dtype, name):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        x = rng.standard_normal(shape) * (0.3 if name == "cumprod" else 1e3)
        if name == "cumprod":
            x += 1.0
        flat = x.reshape(-1)
        flat[::17], flat[::19] = 0.0, -0.0
        flat[::53] = np.nan
        return x.astype(dtype)
    return rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype)


@pytest.mark.parametrize("name,dtype", [(n, d) for n in _PRIMS for d in (
    np.float32, np.float64, np.int32, np.uint8, np.bool_)
    if n in ("cummax", "cummin") or d != np.bool_])   # (lax.cumsum/cumprod take numbers)
@pytest.mark.parametrize("shape,axis", [((7, 300), 1), ((600, 3), 0), ((3, 5, 700), 1),
                                        ((4, 0), 1), ((0, 3), 0)])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_numpy_accumulate(compiled_steps, x64, name, dtype, shape, axis,
                                       reverse):
    rng = np.random.default_rng(sum(shape) + axis)
    x = _data(rng, shape, dtype, name)
    f, ufunc = _PRIMS[name]
    prog = lambda x: f(x, axis=axis, reverse=reverse)
    with np.errstate(all="ignore"):
        got = np.asarray(tjit.jit(prog)(x))
        interp = np.asarray(tjit.jit(prog, backend="interpreter")(x))
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8),
                                  np.ascontiguousarray(interp).view(np.uint8))
    if np.dtype(dtype).kind == "f":     # against float64 (NaN propagates in max/min)
        x64_ = np.flip(x, axis) if reverse else x
        ref = ufunc.accumulate(x64_.astype(np.float64), axis=axis)
        if name in ("cummax", "cummin"):
            ref = np.where(np.logical_or.accumulate(np.isnan(x64_), axis=axis), np.nan, ref)
        ref = np.flip(ref, axis) if reverse else ref
        np.testing.assert_allclose(got, ref, rtol=2e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-2 if name == "cumsum" else 0)
    assert compiled_steps == [name]


def test_jnp_cumsum_rows_bit_for_bit(compiled_steps):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((300, 1024)) * 10.0 ** rng.integers(-3, 6, (300, 1024))
         ).astype(np.float32)       # magnitudes that make any other order show
    got = np.asarray(tjit.jit(lambda x: tjit.numpy.cumsum(x, axis=1))(x))
    np.testing.assert_array_equal(got, np.cumsum(x, axis=1))
    assert compiled_steps == ["cumsum"]


def test_forms_without_a_compiled_scan():
    assert not cumulative.supported("add", np.bool_)
    assert not cumulative.supported("add", np.float16)
    assert cumulative.supported("max", np.bool_)
    with pytest.raises(ValueError, match="float16"):
        cumulative.function_ir("add", np.float16, "rows")


def test_symbolic_sizes(compiled_steps):
    rng = np.random.default_rng(6)
    f = tjit.jit(lambda x: lax.cumsum(x, axis=1) * 2, polymorphic_shapes=["(b, n)"])
    for shape in ((3, 50), (5, 700), (2, 1)):
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(f(x)), np.cumsum(x, axis=1) * 2)
    assert compiled_steps
