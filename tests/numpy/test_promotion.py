"""Dtype promotion: JAX's documented promotion table (docs/type_promotion.rst of
jax-ml/jax, transcribed below without bfloat16, which tjit does not have) checked through
``jnp.promote_types``, ``jnp.result_type`` and the result of ``jnp.add`` on arrays and
Python scalars, eagerly and under jit, with x64 on and off; weak types; the x64 switch;
and the dtype objects of ``tjit.numpy``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

# Rows and columns in this order; entries are the join on JAX's lattice.
# i*, f*, c*: Python int/float/complex or weakly typed values.
NAMES = "b1 u1 u2 u4 u8 i1 i2 i4 i8 f2 f4 f8 c8 c16 i* f* c*".split()
JAX_TABLE = """
b1   b1  u1  u2  u4  u8  i1  i2  i4  i8  f2  f4  f8  c8  c16 i*  f*  c*
u1   u1  u1  u2  u4  u8  i2  i2  i4  i8  f2  f4  f8  c8  c16 u1  f*  c*
u2   u2  u2  u2  u4  u8  i4  i4  i4  i8  f2  f4  f8  c8  c16 u2  f*  c*
u4   u4  u4  u4  u4  u8  i8  i8  i8  i8  f2  f4  f8  c8  c16 u4  f*  c*
u8   u8  u8  u8  u8  u8  f*  f*  f*  f*  f2  f4  f8  c8  c16 u8  f*  c*
i1   i1  i2  i4  i8  f*  i1  i2  i4  i8  f2  f4  f8  c8  c16 i1  f*  c*
i2   i2  i2  i4  i8  f*  i2  i2  i4  i8  f2  f4  f8  c8  c16 i2  f*  c*
i4   i4  i4  i4  i8  f*  i4  i4  i4  i8  f2  f4  f8  c8  c16 i4  f*  c*
i8   i8  i8  i8  i8  f*  i8  i8  i8  i8  f2  f4  f8  c8  c16 i8  f*  c*
f2   f2  f2  f2  f2  f2  f2  f2  f2  f2  f2  f4  f8  c8  c16 f2  f2  c8
f4   f4  f4  f4  f4  f4  f4  f4  f4  f4  f4  f4  f8  c8  c16 f4  f4  c8
f8   f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  c16 c16 f8  f8  c16
c8   c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c16 c8  c16 c8  c8  c8
c16  c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
i*   i*  u1  u2  u4  u8  i1  i2  i4  i8  f2  f4  f8  c8  c16 i*  f*  c*
f*   f*  f*  f*  f*  f*  f*  f*  f*  f*  f2  f4  f8  c8  c16 f*  f*  c*
c*   c*  c*  c*  c*  c*  c*  c*  c*  c*  c8  c8  c16 c8  c16 c*  c*  c*
"""
TABLE = {}
for _line in JAX_TABLE.strip().splitlines():
    _row, *_cells = _line.split()
    TABLE.update({(_row, col): cell for col, cell in zip(NAMES, _cells)})

DTYPE = {"b1": np.bool_, "u1": np.uint8, "u2": np.uint16, "u4": np.uint32, "u8": np.uint64,
         "i1": np.int8, "i2": np.int16, "i4": np.int32, "i8": np.int64, "f2": np.float16,
         "f4": np.float32, "f8": np.float64, "c8": np.complex64, "c16": np.complex128}
PY_TYPE = {"i*": int, "f*": float, "c*": complex}
PY_VALUE = {"i*": 1, "f*": 1.0, "c*": 1j}
X32 = {"u8": "u4", "i8": "i4", "f8": "f4", "c16": "c8"}  # what x64=off narrows to
WEAK_DEFAULT = {True: {"i*": np.int64, "f*": np.float64, "c*": np.complex128},
                False: {"i*": np.int32, "f*": np.float32, "c*": np.complex64}}
PAIRS = [(a, b) for a in NAMES for b in NAMES]


def test_table_is_symmetric():
    assert all(TABLE[a, b] == TABLE[b, a] for a, b in PAIRS)


def _spec(name):
    return PY_TYPE.get(name) or DTYPE[name]


@pytest.mark.parametrize("a,b", PAIRS)
def test_promote_types(a, b):
    """jnp.promote_types is the table's join; Python types are weak (not 64-bit), and
    the result is not canonicalized (as in JAX)."""
    want = TABLE[a, b]
    want = np.dtype(PY_TYPE[want]) if want in PY_TYPE else np.dtype(DTYPE[want])
    assert jnp.promote_types(_spec(a), _spec(b)) == want


def _operand(name, x64):
    """An operand of table type ``name``: a Python scalar for the weak types, else an
    array of that dtype (narrowed to 32 bits when x64 is off, as JAX does)."""
    if name in PY_VALUE:
        return PY_VALUE[name]
    return np.ones(3, DTYPE[name if x64 else X32.get(name, name)])


def _expected(a, b, x64):
    if not x64:  # inputs are canonicalized first, then the join, then canonicalized
        a, b = X32.get(a, a), X32.get(b, b)
    want = TABLE[a, b]
    if want in PY_TYPE:
        return np.dtype(WEAK_DEFAULT[x64][want]), True
    want = want if x64 else X32.get(want, want)
    return np.dtype(DTYPE[want]), False


def _check_add(a, b, x64):
    x, y = _operand(a, x64), _operand(b, x64)
    want_dt, want_weak = _expected(a, b, x64)
    assert jnp.result_type(x, y) == want_dt
    for out in (jnp.add(x, y), tjit.jit(jnp.add)(x, y), jnp.add(jnp.asarray(x), y)):
        assert (out.dtype, out.weak_type) == (want_dt, want_weak), (a, b)


@pytest.mark.parametrize("a,b", PAIRS)
def test_add_result_type_x32(a, b):
    _check_add(a, b, False)


@pytest.mark.parametrize("a,b", PAIRS)
def test_add_result_type_x64(a, b, x64):
    _check_add(a, b, True)


def test_weak_arrays_promote_like_python_scalars():
    w = jnp.asarray(2.0)
    assert w.weak_type and w.dtype == np.float32
    x16 = jnp.asarray(np.ones(3, np.float16))
    assert (x16 + w).dtype == np.float16
    wi = jnp.asarray(3)
    assert wi.weak_type and (jnp.asarray(np.ones(2, np.int8)) * wi).dtype == np.int8
    assert (wi + w).weak_type and (wi + w).dtype == np.float32
    assert not jnp.asarray(2.0, dtype=np.float32).weak_type  # explicit dtype: strong


def test_python_scalars_keep_the_array_dtype():
    x_f16 = jnp.asarray(np.ones(3, np.float16))
    x_i8 = jnp.asarray(np.ones(3, np.int8))
    x_i32 = jnp.asarray(np.ones(3, np.int32))
    x_u8 = jnp.asarray(np.ones(3, np.uint8))
    assert (x_f16 * 2.0).dtype == np.float16 and not (x_f16 * 2.0).weak_type
    assert (x_i8 + 1).dtype == np.int8
    assert (2 * x_i8).dtype == np.int8
    r = x_i32 + 1.5  # int + Python float: the weak float default
    assert r.dtype == np.float32 and r.weak_type
    assert (x_f16 + 1j).dtype == np.complex64 and not (x_f16 + 1j).weak_type
    b = jnp.asarray(np.ones(3, bool)) + 1
    assert b.dtype == np.int32 and b.weak_type
    assert (x_u8 + 255).dtype == np.uint8
    with pytest.raises(OverflowError, match="Python int 300 too large to convert to uint8"):
        x_u8 + 300
    with pytest.raises(OverflowError, match="Python int -1 too large to convert to uint8"):
        x_u8 + (-1)
    # NumPy scalars and arrays are not weak
    assert (x_i8 * np.int32(2)).dtype == np.int32
    assert (jnp.int16(1) + np.array(1)).dtype == np.int32    # int64, narrowed
    assert (x_f16 + np.float64(1.0)).dtype == np.float32      # float64, narrowed
    # comparisons give bool, weak when both promoted operands are (JAX 0.10: i8 < 1.5
    # compares two weak float32s; i8 < 1 an int8 array and a strong int8);
    # inexact-only functions promote ints to float
    assert (x_i8 < 1.5).weak_type and (x_i8 < 1.5).dtype == np.bool_
    assert not (x_i8 < 1).weak_type
    assert jnp.true_divide(x_i8, x_i8).dtype == np.float32
    assert jnp.true_divide(x_f16, 2).dtype == np.float16
    assert jnp.exp(1.0).weak_type and jnp.exp(1.0).dtype == np.float32
    assert jnp.exp(x_i8).dtype == np.float32 and not jnp.exp(x_i8).weak_type


def test_weak_types_under_jit():
    f = tjit.jit(lambda x, s: x * s + 1)
    x16 = np.ones(3, np.float16)
    assert f(x16, 2.0).dtype == np.float16
    assert f(np.ones(3, np.int8), 3).dtype == np.int8
    out = f(2.0, 3.0)
    assert out.dtype == np.float32 and out.weak_type
    jaxpr = tjit.make_jaxpr(lambda x: x * 2.0)(np.ones(2, np.float16))
    assert jaxpr.out_avals[0].dtype == np.float16


def test_x64_switch_defaults():
    assert not tjit.config.enable_x64
    assert jnp.asarray(1.0).dtype == np.float32
    assert jnp.asarray(1).dtype == np.int32
    assert jnp.asarray(np.ones(2)).dtype == np.float32            # NumPy float64 narrows
    assert jnp.asarray(np.ones(2, np.int64)).dtype == np.int32
    assert jnp.asarray(np.ones(2, np.complex128)).dtype == np.complex64
    assert jnp.result_type(float) == np.float32
    assert jnp.float64(1.5).dtype == np.float32
    assert jnp.add(np.ones(2), np.ones(2, np.float32)).dtype == np.float32


def test_x64_switch_enabled(x64):
    assert tjit.config.enable_x64
    assert jnp.asarray(1.0).dtype == np.float64
    assert jnp.asarray(1).dtype == np.int64
    assert jnp.asarray([1.0, 2.0]).dtype == np.float64
    assert jnp.asarray(np.ones(2)).dtype == np.float64
    assert jnp.result_type(float) == np.float64
    assert jnp.float64(1.5).dtype == np.float64
    x32 = jnp.asarray(np.ones(3, np.float32))
    assert (x32 + 1.0).dtype == np.float32                         # still weak
    assert (x32 + np.float64(1.0)).dtype == np.float64


def test_x64_switch_retraces_jit():
    f = tjit.jit(lambda x: x + 1.0)
    x = np.ones(2)
    assert f(x).dtype == np.float32
    old = tjit.config.enable_x64
    tjit.config.update("jax_enable_x64", True)  # JAX's spelling works too
    try:
        assert f(x).dtype == np.float64
    finally:
        tjit.config.update("enable_x64", old)
    assert f(x).dtype == np.float32


def test_all_weak_promotion_uses_default_types():
    w_int, w_float = jnp.asarray(1), jnp.asarray(1.0)
    out = jnp.add(w_int, w_float)
    assert out.weak_type and out.dtype == np.float32
    out = jnp.multiply(1j, w_int)
    assert out.weak_type and out.dtype == np.complex64


# -- dtype objects and helpers ---------------------------------------------------------------
def test_result_type_accepts_dtype_likes():
    assert jnp.result_type(jnp.float16, int) == np.float16
    assert jnp.result_type("int8", "uint8") == np.int16
    assert jnp.result_type(np.uint16, np.dtype("int32")) == np.int32
    assert jnp.result_type(jnp.arange(3) if hasattr(jnp, "arange") else
                           jnp.asarray(np.arange(3, dtype=np.int32)),
                           jnp.asarray(np.zeros(3, np.float32))) == np.float32
    assert jnp.result_type(1.0, jnp.float16(2)) == np.float16
    assert jnp.result_type("float64") == np.float32      # canonicalized
    assert jnp.promote_types("float16", float) == np.float16
    assert jnp.promote_types(jnp.int32, jnp.float32) == np.float32
    with pytest.raises(ValueError, match="at least one array or dtype"):
        jnp.result_type()


def test_bfloat16_promotes_and_other_dtypes_are_unsupported():
    # bfloat16 (ml_dtypes', as JAX's) joins float16 only at float32, as in JAX's lattice
    assert jnp.promote_types("bfloat16", np.float32) == np.float32
    assert jnp.promote_types(jnp.bfloat16, jnp.float16) == np.float32
    assert jnp.promote_types(jnp.bfloat16, float) == jnp.bfloat16
    with pytest.raises(TypeError, match="dtype float128 is not supported by tjit"):
        jnp.promote_types(np.longdouble, np.float32) if np.dtype(np.longdouble).itemsize \
            == 16 else jnp.promote_types("float128", np.float32)


def test_scalar_type_objects():
    x = jnp.float32(3)
    assert isinstance(x, jnp.ndarray) and x.dtype == np.float32 and not x.weak_type
    assert np.dtype(jnp.float32) == np.float32 and jnp.float32.dtype == np.float32
    assert jnp.float32 == np.float32 and jnp.float32 == "float32"
    assert jnp.float64 != None  # noqa: E711  (np.dtype(None) is float64)
    assert jnp.bool is jnp.bool_ and jnp.bool_(1).dtype == np.bool_
    assert jnp.int8(-128).dtype == np.int8
    with pytest.raises(OverflowError, match="Python int 128 too large to convert to int8"):
        jnp.int8(128)
    assert jnp.uint8(np.float32(300.7)).dtype == np.uint8
    assert jnp.int32(np.arange(3)).dtype == np.int32
    assert jnp.issubdtype(jnp.float32, jnp.floating)
    assert not jnp.issubdtype(jnp.int32, jnp.inexact)
    assert jnp.isdtype(jnp.float32, "real floating")
    assert jnp.isdtype(jnp.int8, ("integral", jnp.float32))
    assert jnp.iinfo(jnp.int8).max == 127 and jnp.finfo(jnp.float16).bits == 16
    assert jnp.iinfo(jnp.asarray(np.ones(2, np.uint8))).max == 255
    assert jnp.can_cast(jnp.int8, jnp.int32) and not jnp.can_cast(jnp.float32, jnp.int32)
    assert len({jnp.float32, jnp.float32}) == 1


def test_astype():
    x = jnp.asarray(np.float32([np.nan, -np.inf, np.inf, -2.7, 2.7, 1e10]))
    for f in (jnp.astype, tjit.jit(jnp.astype, static_argnums=1)):
        np.testing.assert_array_equal(np.asarray(f(x, jnp.int32)),
                                      [0, -2**31, 2**31 - 1, -2, 2, 2**31 - 1])
        np.testing.assert_array_equal(np.asarray(f(x, jnp.uint8)), [0, 0, 255, 0, 2, 255])
        np.testing.assert_array_equal(np.asarray(f(x, bool)), [True] * 6)
    assert jnp.astype(x, np.float64).dtype == np.float32          # canonicalized
    z = jnp.asarray(np.complex64([1 + 2j]))
    assert jnp.astype(z, jnp.float32).dtype == np.float32
    assert float(jnp.astype(z, jnp.float32)[0]) == 1.0
    assert x.astype(jnp.float16).dtype == np.float16
    with pytest.raises(TypeError, match="astype: 'nonsense' is not a valid dtype"):
        jnp.astype(x, "nonsense")
