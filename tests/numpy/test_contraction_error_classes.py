"""Exception classes of shape misfits, as JAX 0.10.2 raises them (recorded with JAX,
which CI does not install, so the classes are written out here):

  TypeError:  jnp.dot, jnp.matmul, ``@``, jnp.vdot, jnp.inner, jnp.tensordot and
              lax.dot_general contraction/batch/dimension-number misfits, all
              "dot_general requires ..."
  ValueError: matmul batch dims that do not broadcast, jnp.einsum label sizes,
              jnp.vecdot, lax.dot of non-simple shapes

tjit's contraction misfits are ContractionShapeError, both a TypeError (JAX code's
``except TypeError``) and a ShapeError/ValueError (tjit code's ``except ValueError``).
"""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.errors import ContractionShapeError, ShapeError

A = np.ones((3, 4), np.float32)
B = np.ones((5, 2), np.float32)

# (name, call, shapes the message must name); JAX raises TypeError for each
TYPE_ERROR_CASES = [
    ("dot", lambda: jnp.dot(A, B), ("(3, 4)", "(5, 2)")),
    ("matmul", lambda: jnp.matmul(A, B), ("(3, 4)", "(5, 2)")),
    ("matmul", lambda: jnp.asarray(A) @ jnp.asarray(B), ("(3, 4)", "(5, 2)")),
    ("matmul", lambda: jnp.asarray(A) @ B, ("(3, 4)", "(5, 2)")),
    ("matmul", lambda: A @ jnp.asarray(B), ("(3, 4)", "(5, 2)")),
    ("vdot", lambda: jnp.vdot(np.ones(3), np.ones(4)), ("(3,)", "(4,)")),
    ("inner", lambda: jnp.inner(A, B), ("(3, 4)", "(5, 2)")),
    ("tensordot", lambda: jnp.tensordot(A, B, axes=1), ("(3, 4)", "(5, 2)")),
    ("dot_general", lambda: lax.dot_general(A, B, (((1,), (0,)), ((), ()))),
     ("(3, 4)", "(5, 2)")),
    ("dot_general", lambda: lax.dot_general(np.ones((2, 3)), np.ones((3, 3)),
                                            (((1,), (1,)), ((0,), (0,)))),
     ("(2, 3)", "(3, 3)")),  # batch sizes 2 vs 3
    ("dot_general", lambda: lax.dot_general(A, B, (((0, 1), (0,)), ((), ()))),
     ("(3, 4)", "(5, 2)")),  # two lhs contracting dims, one rhs
]


@pytest.mark.parametrize("name,call,shapes", TYPE_ERROR_CASES)
def test_contraction_misfit_is_type_error_and_value_error(name, call, shapes):
    with pytest.raises(TypeError) as info:
        call()
    e = info.value
    assert isinstance(e, ContractionShapeError)
    assert isinstance(e, ShapeError) and isinstance(e, ValueError)
    assert name in str(e)
    for s in shapes:
        assert s in str(e)


def test_except_value_error_still_catches():
    with pytest.raises(ValueError, match=r"dot: contracting dims.*\(3, 4\).*\(5, 2\)"):
        jnp.dot(A, B)


def test_jax_value_error_cases_stay_value_errors_not_type_errors():
    # JAX raises ValueError for these; a TypeError here would be caught by JAX code's
    # ``except TypeError`` where JAX's is not
    cases = [
        lambda: jnp.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5))),
        lambda: jnp.einsum("ij,jk->ik", A, B),
        lambda: jnp.vecdot(np.ones(3), np.ones(4)),
    ]
    for call in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert not isinstance(info.value, TypeError), str(info.value)


def test_matmul_operator_under_jit_keeps_message():
    # a TypeError inside ``@`` must not become NotImplemented (Python's generic
    # "unsupported operand type(s)" would replace the message naming the shapes)
    f = jax.jit(lambda x, y: x @ y)
    with pytest.raises(TypeError, match=r"matmul: contracting dims.*\(3, 4\).*\(5, 2\)"):
        f(A, B)
    with pytest.raises(TypeError, match=r"matmul: contracting dims.*\(3, 4\).*\(5, 2\)"):
        jax.jit(lambda y: jnp.asarray(A) @ y)(B)


def test_rmatmul_against_unknown_array_like_keeps_message():
    # NumPy's ndarray @ tjit array goes through tjit's __rmatmul__ (or __array_ufunc__);
    # either way the shapes' message, not Python's operand-type error
    with pytest.raises(TypeError, match=r"\(3, 4\).*\(5, 2\)"):
        A @ jnp.asarray(B)


@pytest.mark.parametrize("op,name", [(lambda a, b: a == b, "equal"),
                                     (lambda a, b: a != b, "not_equal"),
                                     (lambda a, b: a < b, "less")])
@pytest.mark.parametrize("jitted", [False, True])
def test_comparison_shape_misfit_raises_not_false(op, name, jitted):
    # a comparison returns NotImplemented for a TypeError: a shape misfit must not take
    # that path (``==`` would answer False silently)
    x, y = jnp.ones(3), jnp.ones(4)
    f = jax.jit(op) if jitted else op
    with pytest.raises(ValueError) as info:
        f(x, y)
    msg = str(info.value)
    assert name in msg and "(3,)" in msg and "(4,)" in msg, msg


def test_comparison_with_foreign_type_still_defers():
    # unchanged: a type jnp refuses still makes ``==`` Python's answer (False)
    assert (jnp.ones(3) == "x") is False
