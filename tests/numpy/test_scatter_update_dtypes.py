"""x.at[idx].<op>(values) where the values' dtype differs from x's, against NumPy.

The class of defect this guards: an indexed update that casts the values to x's dtype
before the arithmetic. JAX (jax/_src/ops/scatter.py) promotes x and the values, applies
the op in the promoted dtype and casts the result back, as NumPy's ``x[idx] += y`` does:
int8 7 .at[0].add(-0.25) is int8(6.75) = 6, and int16 11 .at[0].mul(bfloat16 -3.75) is
-41; the cast-first path gave 7 and -33. Elements that no index touches must keep their
values even where x's dtype does not fit the promoted one (int32 16777217 beside an
update in float32; JAX itself loses them there). Each (x dtype, values dtype, op) runs
with a repeated index, eagerly and under jit, against NumPy's ``ufunc.at`` in the
promoted dtype (the promotion table, jnp.result_type, is tested on its own).
"""

import itertools

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

BF16 = np.dtype(ml_dtypes.bfloat16)
IDX = np.array([0, 2, 0])   # x[1] and x[3] untouched; x[0] updated twice
#: a value of each x dtype that a narrower promoted dtype cannot hold (kept untouched)
UNFIT = {"int8": -128, "uint8": 255, "int16": 2049, "uint16": 2049, "int32": 16777217,
         "uint32": 16777217, "float16": 2049.0, "float32": 1.0000001, "bfloat16": 3.0,
         "bool": True}
X_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "float16", "bfloat16",
            "float32"]
VALUES = {"f16": np.array([-0.25, 1.75, 0.5], np.float16),
          "bf16": np.array([-0.25, 1.75, 0.5], BF16),
          "f32": np.array([-0.25, 1.75, 0.5], np.float32),
          "i8": np.array([-1, 2, 1], np.int8), "u8": np.array([3, 2, 1], np.uint8),
          "i32": np.array([-1, 2, 1], np.int32),
          "c64": np.array([-0.25 + 1j, 1.75, 0.5 - 2j], np.complex64),
          "py_float": -0.25, "py_int": 2, "py_complex": 1.5 + 0.5j}
OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
       "min": np.minimum, "max": np.maximum}


def _x(dt):
    base = [1, 0, 3, 0] if dt == "bool" else [7, 0, 3, 0]
    x = np.array(base, BF16 if dt == "bfloat16" else dt)
    x[1] = x[3] = UNFIT[dt]
    return x


def _numpy_update(x, y, op, promoted):
    """x.at[IDX].op(y): NumPy's ufunc.at in the promoted dtype, cast back to x's dtype;
    untouched elements are x's own."""
    with np.errstate(over="ignore"):  # an untouched int32 16777217 in float16 is inf
        xp = x.astype(promoted)
    OPS[op].at(xp, IDX, np.broadcast_to(np.asarray(y).astype(promoted), IDX.shape))
    if xp.dtype.kind == "c":
        xp = xp.real   # the cast of complex to real keeps the real part
    out = x.copy()
    out[IDX] = xp[IDX].astype(x.dtype)
    return out


def _case_list():
    out = []
    for xd, yk, op in itertools.product(X_DTYPES, VALUES, list(OPS) + ["divide", "power"]):
        if op in ("min", "max") and "c" in yk:
            continue  # complex order is not NumPy's minimum
        if xd == "bool" and op in ("subtract", "divide", "power"):
            continue  # refused for bool (NumPy refuses bool subtract)
        out.append((xd, yk, op))
    return out


@pytest.mark.parametrize("xd,yk,op", _case_list())
def test_update_computes_in_the_promoted_dtype(xd, yk, op):
    x, y = _x(xd), VALUES[yk]
    if op == "power" and yk in ("i8", "i32"):
        y = np.abs(y)  # an integer to a negative integer power is undefined (JAX's docs)
    promoted = np.dtype(jnp.result_type(jnp.asarray(x), y))
    if promoted.kind == "b" and op in ("add", "multiply"):
        pytest.skip("bool add/multiply are or/and; covered by the same-dtype tests")
    if op in ("divide", "power"):   # x op (ones.at[IDX].multiply(y)), as JAX defines them
        ones = _numpy_update(np.ones(x.shape, x.dtype), y, "multiply", promoted)
        with np.errstate(divide="ignore"):  # 1 * -0.25 * 0.5 cast to int is 0: x / 0
            if op == "divide":
                want = x.astype(np.float64) / ones.astype(np.float64)
            elif x.dtype.kind in "iu":
                want = np.power(x, ones)  # integer powers wrap, as in JAX
            else:
                want = np.power(x.astype(np.float64), ones.astype(np.float64))
    else:
        want = _numpy_update(x, y, op, promoted)

    def f(a):
        return getattr(a.at[IDX], op)(y)

    for got in (f(jnp.asarray(x)), tjit.jit(f)(jnp.asarray(x))):
        if op not in ("divide", "power"):
            assert got.dtype == x.dtype
        np.testing.assert_allclose(np.asarray(got).astype(np.float64),
                                   want.astype(np.float64), rtol=1e-2 if xd == "bfloat16"
                                   else 1e-3 if "16" in xd else 1e-6)


@pytest.mark.parametrize("op", list(OPS))
def test_weak_x_keeps_its_dtype_and_weak_type(op):
    """A weakly typed x (a Python scalar) keeps float32 and its weak type (as JAX), even
    when the update runs in float16."""
    x = jnp.asarray(2.0)
    out = getattr(x.at[()], op)(np.float16(0.5))
    assert out.dtype == np.float32 and out.weak_type
    assert float(out) == float(OPS[op](np.float16(2.0), np.float16(0.5)))
