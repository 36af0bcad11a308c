"""jnp functions on the narrow dtypes against NumPy's float64 result of the widened values.

benchmarks/diff_narrow_dtypes.py sweeps every jnp function JAX accepts on float8_*,
float4_e2m1fn, int4/uint4, bfloat16 and float16 and compares tjit with JAX; where they
differed, the float64 value decided. These tests pin the cases where JAX is the one that is
wrong (so a port of JAX's lowering would regress them) and, as a class, every function of
the sweep's families against the float64 reference rounded to the result dtype.
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

FLOAT_VALUES = np.array([-2.0, -1.5, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan, 6.0, 0.25])
INT_VALUES = np.array([-8, -3, -1, 0, 1, 2, 7, 5, 3, -2])
NARROW_FLOATS = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "bfloat16", "float16"]
NARROW_INTS = ["int4", "uint4"]


def _values(dt):
    v = INT_VALUES if "int" in dt else FLOAT_VALUES
    return (np.abs(v) if dt == "uint4" else v).astype(dt)


def _expect(np_fn, args, out_dtype, wide=np.float64):
    with np.errstate(all="ignore"):
        return np.asarray(np_fn(*[np.asarray(a).astype(wide) for a in args])
                          ).astype(out_dtype)


def _assert_close(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    g, w = got.astype(np.float64), want.astype(np.float64)
    tol = (2 * float(ml_dtypes.finfo(got.dtype).eps)
           if got.dtype.kind == "f" or "float" in str(got.dtype) else 0.0)
    ok = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= tol * np.abs(w))
    assert ok.all(), f"got {g[~ok]} want {w[~ok]}"


# (name, number of array arguments) over the sweep's families: arithmetic, transcendental,
# comparison, reductions, scans, sorting and the polynomial/convolution products
FLOAT_FUNCS = [("add", 2), ("multiply", 2), ("divide", 2), ("power", 2), ("arctan2", 2),
               ("hypot", 2), ("logaddexp", 2), ("fmax", 2), ("fmod", 2), ("exp", 1),
               ("expm1", 1), ("log1p", 1), ("sqrt", 1), ("cbrt", 1), ("sinh", 1),
               ("tanh", 1), ("arcsinh", 1), ("deg2rad", 1), ("rint", 1), ("trunc", 1),
               ("sort", 1), ("cumsum", 1), ("nanmax", 1), ("nanargmax", 1),
               ("nanargmin", 1), ("nansum", 1), ("convolve", 2), ("polymul", 2),
               ("diff", 1), ("outer", 2)]
INT_FUNCS = [("add", 2), ("multiply", 2), ("floor_divide", 2), ("remainder", 2),
             ("right_shift", 2), ("left_shift", 2), ("bitwise_xor", 2), ("abs", 1),
             ("sort", 1), ("argsort", 1), ("take", 2), ("cumsum", 1), ("convolve", 2),
             ("sin", 1), ("sqrt", 1)]


@pytest.mark.parametrize("dt", NARROW_FLOATS)
@pytest.mark.parametrize("name,nargs", FLOAT_FUNCS)
def test_float_functions_match_float64(dt, name, nargs):
    args = [_values(dt)] * nargs
    got = getattr(jnp, name)(*[jnp.asarray(a) for a in args])
    want = _expect(getattr(np, name), args, np.asarray(got).dtype)
    if name in ("fmod", "power", "arctan2", "divide") and dt == "float4_e2m1fn":
        # float4_e2m1fn has no NaN or inf: NumPy's NaN becomes ml_dtypes' cast of NaN
        want = np.where(np.isnan(want.astype(np.float32)), np.asarray(got), want)
    _assert_close(got, want)


@pytest.mark.parametrize("dt", NARROW_INTS)
@pytest.mark.parametrize("name,nargs", INT_FUNCS)
def test_int_functions_match_int64(dt, name, nargs):
    args = [_values(dt)] * nargs
    if name in ("floor_divide", "remainder"):
        # integer division by zero: NumPy gives 0, XLA (and jnp, following JAX) -1
        args[1] = np.where(args[1] == 0, 3, args[1]).astype(dt)
    got = getattr(jnp, name)(*[jnp.asarray(a) for a in args])
    out = np.asarray(got).dtype
    if name in ("right_shift", "left_shift"):
        # NumPy's shift by >= the width is C's undefined case; jnp (like lax) gives 0 for
        # a logical shift and the sign for an arithmetic one: shift the widened int8
        bits = 4
        a = np.asarray(args[0]).astype(np.int64)
        s = np.asarray(args[1]).astype(np.int64)
        big = (s < 0) | (s >= bits)
        if name == "left_shift":
            w = np.where(big, 0, a << np.clip(s, 0, bits - 1))
        else:
            w = np.where(big, np.where(a < 0, -1, 0), a >> np.clip(s, 0, bits - 1))
        want = w.astype(out)
    elif name == "take":
        want = np.take(np.asarray(args[0]).astype(np.int64),
                       np.asarray(args[1]).astype(np.int64)).astype(out)
    else:
        want = _expect(getattr(np, name), args, out, wide=np.int64)
    _assert_close(got, want)


@pytest.mark.parametrize("dt", ["float8_e4m3fn", "bfloat16", "int4"])
def test_jit_matches_eager_reference(dt):
    """The same functions under jit: the compiled narrow paths (float32 compute, one
    rounding) agree with the float64 reference too."""
    x = _values(dt)
    funcs = (["convolve", "cumsum", "sort"] if "int" in dt
             else ["convolve", "nanargmax", "nanargmin", "expm1", "hypot", "cumsum"])
    for name in funcs:
        nargs = 2 if name in ("convolve", "hypot") else 1
        got = tjit.jit(getattr(jnp, name))(*[x] * nargs)
        _assert_close(got, _expect(getattr(np, name), [x] * nargs, np.asarray(got).dtype))


def test_unsigned_shift_past_width_is_zero():
    """uint4 8 >> 8 is 0 (a logical shift past the width); JAX 0.10.2 gives 15."""
    x = jnp.asarray(np.array([8, 15, 1], dtype="uint4"))
    s = jnp.asarray(np.array([8, 4, 0], dtype="uint4"))
    np.testing.assert_array_equal(np.asarray(jnp.right_shift(x, s)).astype(int), [0, 0, 1])
    np.testing.assert_array_equal(np.asarray(tjit.jit(jnp.right_shift)(x, s)).astype(int),
                                  [0, 0, 1])


def test_take_negative_int4_indices_wrap_in_range():
    """take with negative int4 indices counts from the end without overflowing int4
    (-1 + 10 is 9, not int4's wrapped -7); JAX 0.10.2 reads element 0."""
    x = np.array([-8, -3, -1, 0, 1, 2, 7, 5, 3, -2], dtype="int4")
    i = np.array([-1, -3, -8], dtype="int4")
    np.testing.assert_array_equal(np.asarray(jnp.take(x, i)).astype(int),
                                  x.astype(int)[[9, 7, 2]])


@pytest.mark.parametrize("dt", ["int4", "uint4", "int2", "uint2"])
def test_mulhi_of_sub_byte_ints_is_the_high_bits_of_the_exact_product(dt):
    """lax.mulhi of a 4-bit (2-bit) int is the upper 4 (2) bits of the 8-bit (4-bit)
    product; it took the storage byte's width (int4 -3 * -3 gave 6, not 0)."""
    info = ml_dtypes.iinfo(dt)
    vals = np.arange(int(info.min), int(info.max) + 1)
    a, b = np.meshgrid(vals, vals)
    a, b = a.ravel(), b.ravel()
    want = (a * b) >> info.bits          # Python-int product, arithmetic shift
    x, y = a.astype(dt), b.astype(dt)
    for fn in (tjit.lax.mulhi, tjit.jit(tjit.lax.mulhi)):
        np.testing.assert_array_equal(np.asarray(fn(x, y)).astype(np.int64), want)


@pytest.mark.parametrize("dt,vals,e,m,want", [
    # expected values produced by jax.lax.reduce_precision (JAX 0.10.2, XLA CPU)
    ("float4_e2m1fn", [0.5, 1.5, 3.0, 6.0, -4.0, 0.0, 1.0, 2.0], 2, 0,
     [0, 2, 2, 6, -6, 0, 1, 2]),
    ("float4_e2m1fn", [0.5, 1.5, 3.0, 6.0, -4.0, 0.0, 1.0, 2.0], 2, 1,
     [0, 1.5, 3, 6, -6, 0, 1, 2]),
    ("float8_e4m3fn", [0.3, 1.7, 300.0, -448.0, 0.01], 4, 1, [0.25, 2, np.nan, np.nan, 0]),
    ("float8_e4m3fn", [0.3, 1.7, 300.0, -448.0, 0.01], 3, 2,
     [0.3125, 1.75, np.nan, np.nan, 0]),
])
def test_reduce_precision_of_sub_ieee_floats(dt, vals, e, m, want):
    """reduce_precision of float4/float8 values: it rounded their bits as if laid out
    like IEEE formats of 8 bits (every float4 value became 0; float8_e4m3fn 300 -> 256
    and -448 -> 0 where the 4-exponent-bit format overflows to inf, which e4m3fn holds
    as NaN)."""
    x = np.array(vals).astype(dt)
    for fn in (tjit.lax.reduce_precision, tjit.jit(tjit.lax.reduce_precision,
                                                  static_argnums=(1, 2))):
        got = np.asarray(fn(x, e, m))
        assert got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(got.astype(np.float64), np.array(want, np.float64))
