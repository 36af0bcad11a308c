"""dot_general / jnp.dot / matmul with a ``preferred_element_type`` that drops the kind of
the product (float -> int, bool or narrower float; complex -> real), as JAX: the product
is computed in the operands' dtype and converted (truncated toward zero, saturated, NaN
-> 0); operands of different dtypes are first converted to the preferred type. References:
NumPy in float64 and NumPy's own conversions, the interpreter for jit, a loop for vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

RNG = np.random.default_rng(0)
A = (RNG.standard_normal((3, 4)) * 5).astype(np.float32)
B = (RNG.standard_normal((4, 2)) * 5).astype(np.float32)
NOB = ((), ())


def _convert(x, dtype):
    """float -> int as XLA: truncate, saturate, NaN -> 0 (NumPy float64, then clip)."""
    x = np.asarray(x, np.float64)
    info = np.iinfo(dtype)
    return np.clip(np.trunc(np.nan_to_num(x, nan=0.0)), info.min, info.max).astype(dtype)


def _product32(a, b):
    # the float32 product (what is converted), from float64 (exact for these sizes)
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.int16])
@pytest.mark.parametrize("fn", ["dot", "matmul", "dot_general", "einsum", "tensordot"])
def test_float_product_converted_to_integer(fn, dtype):
    call = {
        "dot": lambda a, b: jnp.dot(a, b, preferred_element_type=dtype),
        "matmul": lambda a, b: jnp.matmul(a, b, preferred_element_type=dtype),
        "dot_general": lambda a, b: lax.dot_general(a, b, (((1,), (0,)), NOB),
                                                    preferred_element_type=dtype),
        "einsum": lambda a, b: jnp.einsum("ij,jk->ik", a, b, preferred_element_type=dtype),
        "tensordot": lambda a, b: jnp.tensordot(a, b, 1, preferred_element_type=dtype),
    }[fn]
    got = call(A, B)
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.asarray(got), _convert(_product32(A, B), dtype))
    np.testing.assert_array_equal(np.asarray(tjit.jit(call)(A, B)), np.asarray(got))


def test_saturation_nan_bool_and_outer_product():
    a = np.array([[3e9, 1.0], [np.nan, 1.0], [-3e9, 0.5], [-0.7, 0.0]], np.float32)
    b = np.array([[1.0], [1.0]], np.float32)
    for f in (lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32),
              tjit.jit(lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32))):
        np.testing.assert_array_equal(np.asarray(f(a, b))[:, 0],
                                      [2147483647, 0, -2147483648, 0])
    got = jnp.dot(a[3:], b, preferred_element_type=jnp.bool_)  # nonzero -> True
    assert got.dtype == jnp.bool_ and np.asarray(got).tolist() == [[True]]
    # no contracting dim (an outer product) converts the same way
    x, y = np.array([2.5, -1.5], np.float32), np.array([1.9, 3.0], np.float32)
    got = lax.dot_general(x, y, (((), ()), NOB), preferred_element_type=jnp.int32)
    np.testing.assert_array_equal(np.asarray(got), _convert(np.outer(x, y).astype(np.float32),
                                                            np.int32))


def test_narrower_float_and_complex_to_real():
    got = jnp.matmul(A, B, preferred_element_type=jnp.float16)
    assert got.dtype == jnp.float16
    np.testing.assert_array_equal(np.asarray(got), _product32(A, B).astype(np.float16))
    ca = A + 1j * A[::-1]
    got = lax.dot(ca.astype(np.complex64), B, preferred_element_type=jnp.float32)
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(got), (ca @ B.astype(np.float64)).real, rtol=1e-5,
                               atol=1e-4)


def test_mixed_operands_are_converted_to_the_preferred_type():
    # JAX (CPU/GPU) converts both operands to the preferred type: 1.7 -> 1 before multiplying
    ib = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32)
    want = _convert(A, np.int32).astype(np.int64) @ ib
    for got in (jnp.matmul(A, ib, preferred_element_type=jnp.int32),
                jnp.dot(A, ib, preferred_element_type=jnp.int32),
                lax.dot_general(A, ib, (((1,), (0,)), NOB), preferred_element_type=jnp.int32)):
        assert got.dtype == jnp.int32
        np.testing.assert_array_equal(np.asarray(got), want)
    # without one they meet in float32
    np.testing.assert_allclose(np.asarray(jnp.matmul(A, ib)), A.astype(np.float64) @ ib,
                               rtol=1e-5)


def test_narrowing_an_integer_product_is_an_error():
    i = jnp.ones(3, jnp.int32)
    with pytest.raises(TypeError, match="int16 must not be narrower than the int32"):
        lax.dot(i, i, preferred_element_type=jnp.int16)
    with pytest.raises(TypeError, match="bool must not be narrower"):
        jnp.dot(i, i, preferred_element_type=jnp.bool_)
    with pytest.raises(TypeError, match="int8 must not be narrower than the int32"):
        jnp.dot(i, jnp.ones(3, jnp.int8), preferred_element_type=jnp.int8)


def test_transformations():
    f = lambda a: jnp.dot(a, B, preferred_element_type=jnp.int32)  # noqa: E731
    # vmap against a loop
    np.testing.assert_array_equal(np.asarray(tjit.vmap(f)(A[:, None, :]))[:, 0],
                                  np.stack([np.asarray(f(r[None]))[0] for r in A]))
    # the integer result is piecewise constant: zero gradient through it, float0 tangent
    g = tjit.grad(lambda a: f(a).astype(jnp.float32).sum())(A)
    np.testing.assert_array_equal(np.asarray(g), np.zeros_like(A))
    out, t = tjit.jvp(f, (A,), (np.ones_like(A),))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(f(A)))
    assert t.dtype == tjit.dtypes.float0
    # complex -> real: the derivative of Re(a @ b) in a real direction
    ca = (A + 1j * A[::-1]).astype(np.complex64)
    h = lambda s: lax.dot(ca * s, B, preferred_element_type=jnp.float32).sum()  # noqa: E731
    assert float(tjit.grad(h)(np.float32(1.0))) == pytest.approx(
        float((ca @ B.astype(np.float64)).real.sum()), rel=1e-5)
