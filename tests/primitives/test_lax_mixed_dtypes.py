"""``lax.pow`` with an integer exponent array and ``lax.dot_general`` with operands of
different dtypes, as JAX documents them: values against NumPy in float64, derivatives
against finite differences, compiled against the reference interpreter, vmap against a
Python loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tests.transforms.check import check_grads, check_vmap

BASE = np.array([1.5, 2.0, 3.0, -0.5, 0.7], np.float32)
EXPONENT = np.array([2, 3, -1, 3, 0], np.int32)


@pytest.mark.parametrize("mode", ["eager", "jit", "interpreter"])
def test_pow_integer_exponent_array(mode):
    f = {"eager": lax.pow, "jit": tjit.jit(lax.pow),
         "interpreter": tjit.jit(lax.pow, backend="interpreter")}[mode]
    got = f(jnp.asarray(BASE), jnp.asarray(EXPONENT))
    assert got.dtype == np.float32  # the base's dtype, as JAX's pow dtype rule
    want = BASE.astype(np.float64) ** EXPONENT.astype(np.float64)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_pow_integer_exponent_derivative():
    want = EXPONENT * BASE.astype(np.float64) ** (EXPONENT - 1.0)
    g = tjit.grad(lambda b: lax.pow(b, jnp.asarray(EXPONENT)).sum())
    for fn in (g, tjit.jit(g)):
        np.testing.assert_allclose(np.asarray(fn(jnp.asarray(BASE))), want, rtol=1e-5)
    check_grads(lambda b: lax.pow(b, jnp.asarray(EXPONENT)), (BASE,))


def test_pow_integer_exponent_vmap():
    b = np.random.default_rng(0).uniform(0.5, 2.0, (3, 5)).astype(np.float32)
    e = np.random.default_rng(1).integers(-3, 4, (3, 5)).astype(np.int32)
    check_vmap(lax.pow, (jnp.asarray(b), jnp.asarray(e)))
    check_vmap(lax.pow, (jnp.asarray(b), jnp.asarray(e[0])), in_axes=(0, None))


def test_pow_refuses_what_jax_refuses():
    with pytest.raises(TypeError, match="pow: the base must have a float or complex dtype"):
        lax.pow(jnp.asarray([2, 3]), jnp.asarray([1, 2]))
    with pytest.raises(TypeError, match="pow"):  # two inexact dtypes must match
        lax.pow(jnp.asarray([2.0], jnp.float32), jnp.asarray([2.0], jnp.float16))


DN = (((1,), (0,)), ((), ()))
# (lhs dtype, rhs dtype, preferred_element_type, result dtype by JAX's rule)
MIXED = [
    ("int8", "int8", "int32", "int32"),
    ("bfloat16", "bfloat16", "float32", "float32"),
    ("float16", "float32", None, "float32"),
    ("float32", "float16", None, "float32"),
    ("int8", "float32", None, "float32"),
    ("uint8", "int8", None, "int8"),
    ("int8", "int16", "int32", "int32"),
    ("bfloat16", "float16", None, "bfloat16"),  # bfloat16's wider exponent wins
    ("float16", "float32", "float32", "float32"),
]


def _operand(dt, shape, seed):
    vals = np.random.default_rng(seed).integers(-4, 5, shape)
    if dt.startswith("u"):
        vals = np.abs(vals)
    return jnp.asarray(vals.astype(np.float32)).astype(dt)


@pytest.mark.parametrize("ldt,rdt,pref,want_dt", MIXED)
def test_dot_general_mixed_dtypes(ldt, rdt, pref, want_dt):
    a, b = _operand(ldt, (3, 4), 0), _operand(rdt, (4, 2), 1)
    f = lambda a, b: lax.dot_general(a, b, DN, preferred_element_type=pref)
    want = np.asarray(a.astype("float32"), np.float64) @ np.asarray(b.astype("float32"),
                                                                     np.float64)
    eager = f(a, b)
    compiled = tjit.jit(f)(a, b)
    interp = tjit.jit(f, backend="interpreter")(a, b)
    for got in (eager, compiled, interp):
        assert got.dtype == np.dtype(jnp.dtype(want_dt)), (got.dtype, want_dt)
        np.testing.assert_array_equal(np.asarray(got).astype(np.float64), want)
    np.testing.assert_array_equal(np.asarray(compiled), np.asarray(interp))


def test_numpy_contractions_with_preferred_element_type():
    a, b = _operand("int8", (3, 4), 0), _operand("int8", (4, 2), 1)
    want = np.asarray(a, np.int64) @ np.asarray(b, np.int64)
    for f in (lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.int32),
              lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32),
              lambda a, b: jnp.einsum("ij,jk->ik", a, b, preferred_element_type=jnp.int32)):
        for g in (f, tjit.jit(f)):
            got = g(a, b)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(np.asarray(got), want)


def test_dot_general_mixed_dtypes_gradient_and_vmap():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float16)
    b = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    ga, gb = tjit.grad(lambda a, b: lax.dot_general(a, b, DN).sum(), argnums=(0, 1))(
        jnp.asarray(a), jnp.asarray(b))
    assert ga.dtype == np.float16 and gb.dtype == np.float32  # each operand's own dtype
    np.testing.assert_allclose(np.asarray(ga, np.float64),
                               np.broadcast_to(b.astype(np.float64).sum(1), (3, 4)),
                               rtol=1e-3)
    np.testing.assert_allclose(np.asarray(gb), np.broadcast_to(
        a.astype(np.float64).sum(0)[:, None], (4, 2)), rtol=1e-5)
    batch = np.random.default_rng(2).standard_normal((2, 4, 2)).astype(np.float32)
    check_vmap(lambda bb: lax.dot_general(jnp.asarray(a), bb, DN), (jnp.asarray(batch),),
               rtol=1e-5, atol=1e-5)


def test_bfloat16_products_in_float32_compiled_equal_the_interpreter():
    rng = np.random.default_rng(3)
    a = jnp.asarray(rng.standard_normal((2, 3, 4)).astype(np.float32)).astype(jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal((2, 4, 5)).astype(np.float32)).astype(jnp.bfloat16)
    want = np.einsum("bij,bjk->bik", np.asarray(a, np.float64), np.asarray(b, np.float64))
    for f in (lambda a, b: jnp.einsum("bij,bjk->bik", a, b, preferred_element_type=jnp.float32),
              lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32),
              lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))),
                                           preferred_element_type=jnp.float32)):
        compiled = tjit.jit(f)(a, b)
        interp = tjit.jit(f, backend="interpreter")(a, b)
        assert compiled.dtype == np.float32 and interp.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(compiled), np.asarray(interp))
        np.testing.assert_allclose(np.asarray(compiled), want, rtol=1e-5, atol=1e-5)
    # the cotangents come back in the operands' bfloat16
    g = tjit.grad(lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32).sum(),
                  argnums=(0, 1))(a, b)
    assert [x.dtype for x in g] == [jnp.bfloat16, jnp.bfloat16]
