"""float8/float6/float4 and int4/int2/int1 as LLVM kernel dtypes (lower/llvm/narrow.py).

References: ml_dtypes' own casts (``astype``) for every byte and for float32 values,
the eager path (tjit's reference implementations) and the reference interpreter
(``jit(backend="interpreter")``) for ops and fused programs. Outputs of a narrow type
are compared byte for byte (NaN codes included).
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.xla_like import hlo
from tjit.xla_like.target import CPU, CUDA, HLS, opencl_target

FLOATS = sorted((d for d in hlo.NARROW_KERNEL_DTYPES if d.name.startswith("float")),
                key=lambda d: d.name)
INTS = sorted((d for d in hlo.NARROW_KERNEL_DTYPES if "int" in d.name), key=lambda d: d.name)
F32 = np.dtype(np.float32)
EVERY_BYTE = np.arange(256, dtype=np.uint8)


def _bytes(a):
    return np.asarray(a).view(np.uint8)


def _same(got, want, any_nan=False):
    """Equal values: bytes for narrow and float types (NaN codes too), values for others.
    ``any_nan``: a NaN matches any NaN (the sign of an arithmetic op's NaN result is
    unspecified, IEEE 754 6.3: ml_dtypes' 0 + -NaN is +NaN where float32's is -NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if any_nan and got.dtype in FLOATS:
        nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
        got, want = np.where(nan, want, got), want
    if got.dtype.itemsize == 1 or got.dtype.kind == "f":
        bad = np.flatnonzero(got.reshape(-1).view(np.uint8 if got.dtype.itemsize == 1
                                                  else np.uint32)
                             != want.reshape(-1).view(np.uint8 if got.dtype.itemsize == 1
                                                      else np.uint32))
    else:
        bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
    assert not bad.size, (f"{bad.size} of {got.size} differ, first at {bad[0]}: "
                          f"got {got.reshape(-1)[bad[0]]!r}, want {want.reshape(-1)[bad[0]]!r}")


def _canonical(dt):
    """Every value of ``dt`` once, as ml_dtypes writes it (the bytes its casts make)."""
    return EVERY_BYTE.view(dt).astype(np.float32 if dt in FLOATS else np.int32).astype(dt)


def _kernel_text(f, *args):
    return f.lower(*args).compile().as_text()


def test_narrow_ops_run_in_kernels():
    """A quantize/dequantize step is LLVM kernels with float8 loads and stores, no host
    step; the C targets keep the narrow types out of their kernels (host steps)."""
    dt = np.dtype(ml_dtypes.float8_e4m3fn)
    f = tjit.jit(lambda v: jnp.sum((v * 2.0).astype(dt).astype(jnp.float32) / 2.0))
    text = _kernel_text(f, jnp.ones(1 << 20, jnp.float32))
    assert "float8_e4m3fn = convert" in text and "library" not in text, text
    # the split reduction's reshape sinks through the quantize step: no float8 buffer
    assert "out float8" not in text, text
    for target in (CUDA, HLS, opencl_target()):
        assert not hlo.NARROW_KERNEL_DTYPES & target.kernel_dtypes, target.name
    assert hlo.NARROW_KERNEL_DTYPES <= CPU.kernel_dtypes


@pytest.mark.parametrize("dt", FLOATS + INTS, ids=lambda d: d.name)
def test_every_byte_loads_and_stores(dt):
    """Each of the 256 bytes: decoded by a kernel as ml_dtypes decodes it, and every
    value stored back as ml_dtypes stores it (the select is a load and a store)."""
    wide = np.float32 if dt in FLOATS else np.int32
    x = EVERY_BYTE.view(dt)
    _same(tjit.jit(lambda v: v.astype(wide))(x), x.astype(wide))
    _same(tjit.jit(lambda v: v.astype(wide).astype(dt))(x), x.astype(wide).astype(dt))
    c = _canonical(dt)
    pick = (np.arange(256) % 3 == 0)
    _same(tjit.jit(lambda p, a, b: lax.select(p, a, b))(pick, c, c[::-1].copy()),
          np.where(pick, c, c[::-1]))


# (byte copies do not depend on the format: those with NaN payloads, one without NaN,
# the exponent-only one, float4 and two ints)
_LAYOUT_TYPES = [np.dtype(getattr(ml_dtypes, n)) for n in (
    "float8_e5m2", "float8_e4m3", "float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn", "int4",
    "uint2")]


@pytest.mark.parametrize("dt", _LAYOUT_TYPES, ids=lambda d: d.name)
def test_layout_ops_copy_bytes(dt, rng):
    """Kernels that only move narrow values (transpose, reshape, reverse, slices,
    broadcasts, concatenate, pad, where) copy every byte as it is, as the eager NumPy
    copies: float8_e5m2's six NaN codes and int4 bytes with stray high bits included."""
    raw = rng.permutation(np.tile(EVERY_BYTE, 10)).reshape(40, 64).view(dt)
    pad_value = np.asarray(1, np.float32 if dt in FLOATS else np.int32).astype(dt)
    _check_ops({
        "transpose": lambda a: a.T,
        "reshape_rev": lambda a: a.reshape(64, 40)[::-1],
        "squeeze": lambda a: jnp.expand_dims(a, 0)[0, 1:30:3],
        "broadcast": lambda a: jnp.broadcast_to(a[:1], (40, 64)),
        "concatenate": lambda a: jnp.concatenate([a, a[:, :7]], axis=1),
        "pad": lambda a: lax.pad(a, jnp.asarray(pad_value), ((1, 2, 0), (0, 1, 1))),
        "where": lambda a: jnp.where(jnp.arange(64) % 2 == 0, a, a[::-1]),
    }, raw)


def _float32_probes(dt, rng):
    """float32 values that exercise ``dt``'s rounding: every value of the type, the
    midpoints between neighbours (ties) and one float32 ulp either side, past the largest
    value, subnormals, +-0, +-inf, NaNs with payloads, and random bit patterns."""
    with np.errstate(all="ignore"):   # (float32 overflows past float8_e8m0fnu's max)
        return _probes(dt, rng)


def _probes(dt, rng):
    values = np.unique(EVERY_BYTE.view(dt).astype(np.float64))
    values = values[np.isfinite(values)]
    mids = (values[1:] + values[:-1]) / 2          # exact in float64, and in float32
    finfo = ml_dtypes.finfo(dt)
    edges = np.array([float(finfo.max) * k for k in (1.0, 1.0625, 1.125, 1.5, 2.0, 1e4)]
                     + [float(finfo.smallest_subnormal) * k for k in (0.25, 0.5, 0.75, 1.5)])
    base = np.concatenate([values, mids, edges, -edges]).astype(np.float32)
    near = [base, np.nextafter(base, np.float32(np.inf)),
            np.nextafter(base, np.float32(-np.inf))]
    special = np.array([0.0, -0.0, np.inf, -np.inf], np.float32)
    nan_bits = np.array([0x7FC00000, 0x7F800001, 0xFFC00000, 0xFF800001, 0x7FFFFFFF,
                         0xFFFFFFFF], np.uint32).view(np.float32)
    random_bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate(near + [special, nan_bits, random_bits.view(np.float32),
                                  rng.standard_normal(5000).astype(np.float32)
                                  * np.float32(finfo.max) / 4])


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_float32_rounds_as_ml_dtypes(dt, rng):
    x = _float32_probes(dt, rng)
    with np.errstate(all="ignore"):
        want = x.astype(dt)
    _same(tjit.jit(lambda v: v.astype(dt))(x), want)


def test_float64_rounds_as_eager(x64, rng):
    """float64 -> float8 rounds once (as the eager path), float6/float4 through float32
    (as ml_dtypes' cast): 1 + 2**-4 + 2**-40 is float8_e4m3fn 1.125, float4 1.0."""
    for dt in FLOATS:
        with np.errstate(all="ignore"):   # (NaN and inf casts of the references)
            x = np.concatenate([_float32_probes(dt, rng).astype(np.float64),
                                np.float64([1 + 2**-4 + 2**-40, -(1 + 2**-4 + 2**-40)]),
                                rng.standard_normal(2000) * float(ml_dtypes.finfo(dt).max)])
            want = jnp.asarray(x).astype(dt)
        _same(tjit.jit(lambda v: v.astype(dt))(x), want)


# The primitives kernels compute on narrow types (hlo.NARROW_KERNEL_PRIMITIVES), by
# primitive name, each tested on every value (pair) of every type it applies to below.
_FLOAT_BINARY = {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply,
                 "div": lambda a, b: lax.div(a, b), "rem": lax.rem, "max": lax.max,
                 "min": lax.min, "atan2": lax.atan2}
_COMPARE = {"eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt,
            "ge": lax.ge}
_FLOAT_UNARY = {name: getattr(lax, name) for name in (
    "neg", "abs", "sqrt", "exp", "exp2", "expm1", "tanh", "sin", "cos", "tan", "atan",
    "sinh", "cosh", "asinh", "erf", "erfc", "cbrt", "floor", "ceil", "is_finite")}
_INT_BINARY = {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "max": lax.max,
               "min": lax.min, "and": lax.bitwise_and, "or": lax.bitwise_or,
               "xor": lax.bitwise_xor}
_INT_UNARY = {"neg": lax.neg, "abs": lax.abs, "not": lax.bitwise_not}
_ELSEWHERE = {"convert_element_type": "test_converts_as_eager",
              "select_n": "test_every_byte_loads_and_stores",
              **dict.fromkeys(("broadcast_in_dim", "reshape", "transpose", "squeeze",
                               "expand_dims", "rev", "slice", "concatenate", "pad"),
                              "test_layout_ops_copy_bytes")}


def test_every_kernel_primitive_is_tested():
    """A primitive added to the narrow kernels' list must join the exhaustive tests."""
    tested = {*_FLOAT_BINARY, *_COMPARE, *_FLOAT_UNARY, *_INT_BINARY, *_INT_UNARY,
              *_ELSEWHERE}
    assert tested == hlo.NARROW_KERNEL_PRIMITIVES


def _pairs(dt):
    c = _canonical(dt)
    return np.repeat(c, 256), np.tile(c, 256)


def _check_ops(fs, *args, any_nan=()):
    """Each function of the dict ``fs`` under jit (one program: one compile) against
    eager and the reference interpreter; ``any_nan``: names whose NaN signs are free."""
    def all_of(*a):
        return {name: f(*a) for name, f in fs.items()}
    assert "library" not in _kernel_text(tjit.jit(all_of), *args)   # (all in kernels)
    want = all_of(*(jnp.asarray(a) for a in args))
    got, ref = tjit.jit(all_of)(*args), tjit.jit(all_of, backend="interpreter")(*args)
    for name in fs:
        _same(got[name], want[name], name in any_nan)
        _same(ref[name], want[name])


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_float_ops_on_every_pair(dt):
    """Each op on all 65536 pairs (all 256 values for unary ops), round once per op;
    unary ops in both compile profiles (256 points: scalar code calling the linked math
    library; 64 copies: vectorized, mathlib inlined)."""
    x, y = _pairs(dt)
    _check_ops({**_FLOAT_BINARY, **_COMPARE}, x, y, any_nan=_FLOAT_BINARY)
    _check_ops(_FLOAT_UNARY, _canonical(dt), any_nan=_FLOAT_UNARY)
    _check_ops(_FLOAT_UNARY, np.tile(_canonical(dt), 64), any_nan=_FLOAT_UNARY)


@pytest.mark.parametrize("dt", INTS, ids=lambda d: d.name)
def test_int_ops_wrap_as_eager(dt):
    """int4...: results wrap modulo 2**bits as the eager path's (7 + 1 is -8 in int4)."""
    x, y = _pairs(dt)
    _check_ops({**_INT_BINARY, **_COMPARE}, x, y)
    _check_ops(_INT_UNARY, _canonical(dt))
    if dt.name == "int4":
        _same(tjit.jit(jnp.add)(np.array([7], dt), np.array([1], dt)), np.array([-8], dt))


_TARGETS = (np.int8, np.uint8, np.int32, np.bool_, np.float32)


@pytest.mark.parametrize("dt", FLOATS + INTS, ids=lambda d: d.name)
def test_converts_as_eager(dt, rng):
    """Every value of ``dt`` to each kernel dtype and to every other narrow type, and
    int8/int32/bool/float32 values to ``dt`` (saturating from floats, wrapping from ints)."""
    c = _canonical(dt)
    _check_ops({np.dtype(to).name: (lambda v, to=to: v.astype(to))
                for to in (*_TARGETS, *FLOATS, *INTS)}, c)
    sources = [np.arange(-128, 128, dtype=np.int8), rng.integers(-2**31, 2**31, 4000,
                                                                 dtype=np.int64).astype(np.int32),
               np.array([True, False]), _float32_probes(FLOATS[0], rng)[:3000]]
    for s in sources:
        _check_ops({"to": lambda v: v.astype(dt)}, s)


def test_fused_programs_match_interpreter_and_eager(rng):
    """Quantize -> dequantize -> reduce, a scaled mix of two float8s and an int4 affine
    step, fused, against the interpreter and eager (float sums within float32 rounding)."""
    x = (rng.standard_normal((64, 300)) * 8).astype(np.float32)
    w = rng.standard_normal((64, 300)).astype(np.float32)
    e4, e5 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
    i4 = np.dtype(ml_dtypes.int4)

    def qdq(v):
        scale = 448.0 / jnp.max(jnp.abs(v))
        q = (v * scale).astype(e4)
        return jnp.sum(q.astype(jnp.float32) / scale, axis=1), q

    def mix(a, b):
        a8, b8 = a.astype(e4), b.astype(e5)
        s = (a8 * a8 + jnp.asarray(2.0, e4)).astype(jnp.float32) - b8.astype(jnp.float32)
        return jnp.where(a8 > b8.astype(e4), s, -s).astype(e5)

    def affine(a):
        q = jnp.clip(jnp.round(a), -8, 7).astype(i4)
        return (q * jnp.asarray(3, i4) + jnp.asarray(5, i4)).astype(jnp.int32)

    for f, args in ((qdq, (x,)), (mix, (x, w)), (affine, (x,))):
        want = f(*(jnp.asarray(a) for a in args))
        for got in (tjit.jit(f)(*args), tjit.jit(f, backend="interpreter")(*args)):
            for g, e in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
                if np.asarray(e).dtype == F32:   # (sums: float32 rounding of 300 terms)
                    np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6,
                                               atol=1e-6 * np.abs(x).sum(axis=1).max())
                else:
                    _same(g, e, any_nan=True)
