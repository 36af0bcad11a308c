"""The IR: printer format, type checker, interpreters, closures and literals."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.jaxpr import (
    JaxprTypeError, check_jaxpr, eval_jaxpr, eval_jaxpr_reference, specialize)
from tjit.tracing.shapes import symbol


def test_print_single_equation_one_line():
    j = tjit.make_jaxpr(jnp.tanh)(jnp.zeros((3,)))
    assert str(j) == "{ lambda ; a:f32[3]. let b:f32[3] = tanh a in (b,) }"


def test_print_multiline_with_params_and_literals():
    j = tjit.make_jaxpr(lambda x: lax.transpose(jnp.sin(x) * 2.0, (1, 0)))(
        jnp.zeros((2, 3)))
    assert str(j) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[2,3] = sin a\n"
        "    c:f32[2,3] = mul b 2.0:f32[]\n"
        "    d:f32[3,2] = transpose[permutation=(1, 0)] c\n"
        "  in (d,) }")


def test_print_symbolic_dims():
    j = tjit.make_jaxpr(jnp.tanh, polymorphic_shapes=["(b, 784)"])(jnp.zeros((5, 784)))
    assert str(j) == "{ lambda ; a:f32[b,784]. let b:f32[b,784] = tanh a in (b,) }"


def test_closure_becomes_constvar():
    w = jnp.asarray(np.arange(3.0, dtype=np.float32))
    j = tjit.make_jaxpr(lambda x: x * w)(jnp.ones(3) if hasattr(jnp, "ones")
                                         else jnp.asarray(np.ones(3, np.float32)))
    assert str(j).startswith("{ lambda a:f32[3]; b:f32[3]. let")
    assert len(j.consts) == 1 and np.array_equal(np.asarray(j.consts[0]), np.arange(3.0))


def test_many_variables_named_past_z():
    def f(x):
        for _ in range(30):
            x = jnp.sin(x)
        return x
    text = str(tjit.make_jaxpr(f)(jnp.asarray(1.0)))
    assert " ba:f32[] = sin z" in text and "in (be,) }" in text


def test_check_jaxpr_catches_bad_types():
    j = tjit.make_jaxpr(lambda x: jnp.sin(x) + 1.0)(jnp.asarray(np.ones(3, np.float32)))
    check_jaxpr(j)
    from tjit.tracing.avals import ShapedArray
    bad = j.jaxpr.eqns[0].outvars[0]
    bad.aval = ShapedArray((4,), np.float32)
    with pytest.raises(JaxprTypeError, match="sin"):
        check_jaxpr(j)


def test_check_jaxpr_catches_unbound_variable():
    j1 = tjit.make_jaxpr(lambda x: jnp.sin(x))(jnp.asarray(1.0))
    j2 = tjit.make_jaxpr(lambda x: jnp.cos(x))(jnp.asarray(1.0))
    j2.jaxpr.eqns[0].invars[0] = j1.jaxpr.eqns[0].outvars[0]
    with pytest.raises(JaxprTypeError, match="before definition"):
        check_jaxpr(j2)


def test_two_interpreters_agree_with_numpy():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    j = tjit.make_jaxpr(lambda x: jnp.exp(jnp.tanh(x)) - x * x)(jnp.asarray(x))
    ref = np.exp(np.tanh(x)) - x * x
    np.testing.assert_allclose(eval_jaxpr_reference(j.jaxpr, j.consts, [x])[0], ref,
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(eval_jaxpr(j.jaxpr, j.consts, jnp.asarray(x))[0]),
                               ref, rtol=1e-6)


def test_eval_jaxpr_is_traceable():
    j = tjit.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(jnp.asarray(1.0))
    j2 = tjit.make_jaxpr(lambda x: eval_jaxpr(j.jaxpr, j.consts, x)[0])(jnp.asarray(1.0))
    assert [e.primitive.name for e in j2.eqns] == ["sin", "mul"]


def test_specialize_substitutes_symbols():
    j = tjit.make_jaxpr(lambda x: lax.reshape(x, (-1,)),
                        polymorphic_shapes=["(b, 4)"])(jnp.asarray(np.ones((2, 4))))
    assert j.out_avals[0].str_short() == "f32[4*b]"
    s = specialize(j, {symbol("b"): 3})
    assert s.out_avals[0].shape == (12,)
    check_jaxpr(s)


def test_weak_type_printed_and_tracked():
    j = tjit.make_jaxpr(lambda: jnp.asarray(1.0) * 2.0)()
    assert j.out_avals[0].weak_type
