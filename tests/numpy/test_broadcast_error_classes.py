"""Exception classes of shapes that do not broadcast, as JAX 0.10.2 raises them (recorded
with JAX, which CI does not install, so the classes are written out here):

  TypeError:  every binary operator (``+ - * / // % ** & | ^ << >> == != < <= > >=``),
              jnp's elementwise binary functions (add ... nextafter, logaddexp, isclose,
              ldexp, divmod), jnp.clip, and lax's n-ary primitives (lax.add, lax.max,
              lax.select): "add got incompatible shapes for broadcasting: (3,), (4,)."
  ValueError: jnp.broadcast_shapes, broadcast_arrays, broadcast_to, where, select and
              matmul's batch dims (they broadcast explicitly)

tjit's elementwise misfits are BroadcastShapeError, both a TypeError (JAX code's
``except TypeError``) and a ShapeError/ValueError (tjit code's ``except ValueError``).
JAX raises ValueError for jnp.gcd, lcm, copysign and heaviside (its own broadcast
first); tjit's, elementwise functions, raise the class that is both. A comparison
raises too: ``a == b`` with such shapes is an error in JAX, never False, while
``a == "x"`` and ``a == object()`` are False. Each case runs eagerly (twice: the
eager lanes keep plans per signature), under jit and under vmap.
"""

import operator
import re

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.errors import BroadcastShapeError, ShapeError

F3, F4 = np.ones(3, np.float32), np.ones(4, np.float32)
I3, I4 = np.ones(3, np.int32), np.ones(4, np.int32)

OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift,
}
INTEGER_ONLY = {"&", "|", "^", "<<", ">>"}

FUNCTIONS = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
    "mod", "fmod", "power", "float_power", "maximum", "minimum", "fmax", "fmin", "arctan2",
    "hypot", "nextafter", "logaddexp", "logaddexp2", "copysign", "heaviside", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "isclose", "divmod", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm", "ldexp",
]
INTEGER_FUNCTIONS = {"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                     "right_shift", "gcd", "lcm"}


def _operands(name):
    if name in INTEGER_ONLY or name in INTEGER_FUNCTIONS:
        return I3, I4
    if name == "ldexp":
        return F3, I4
    return F3, F4


#: (label, f(x, y), x, y): JAX raises TypeError for each
TYPE_ERROR_CASES = (
    [(f"x {op} y", fn, *_operands(op)) for op, fn in OPERATORS.items()]
    + [(f"jnp.{n}", getattr(jnp, n), *_operands(n)) for n in FUNCTIONS]
    + [("jnp.clip(x, y)", lambda x, y: jnp.clip(x, y, None), F3, F4),
       ("jnp.clip(x, max=y)", lambda x, y: jnp.clip(x, 0.0, y), F3, F4),
       ("lax.add", lax.add, F3, F4),
       ("lax.max", lax.max, F3, F4),
       ("lax.select", lambda x, y: lax.select(x > 0, x, y), F3, F4)]
)

#: JAX raises ValueError (not TypeError) for each
VALUE_ERROR_CASES = [
    ("jnp.where", lambda x, y: jnp.where(x > 0, x, y), F3, F4),
    ("jnp.where (condition)", lambda x, y: jnp.where(jnp.ones(5) > 0, x, x), F3, F4),
    ("jnp.select", lambda x, y: jnp.select([x > 0], [y]), F3, F4),
    ("jnp.broadcast_arrays", lambda x, y: jnp.broadcast_arrays(x, y)[0], F3, F4),
    ("jnp.broadcast_to", lambda x, y: jnp.broadcast_to(x, (4,)), F3, F4),
]

MODES = ["eager", "jit", "vmap"]


def _call(mode, f, x, y):
    x, y = jnp.asarray(x), jnp.asarray(y)
    if mode == "eager":
        return f(x, y)
    if mode == "jit":
        return jax.jit(f)(x, y)
    return jax.vmap(f)(jnp.stack([x, x]), jnp.stack([y, y]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label,f,x,y", TYPE_ERROR_CASES, ids=[c[0] for c in TYPE_ERROR_CASES])
def test_misfit_is_type_error_and_value_error(label, f, x, y, mode):
    for _ in range(2 if mode == "eager" else 1):  # eagerly: no plan, then a kept one
        with pytest.raises(TypeError) as info:
            _call(mode, f, x, y)
        e = info.value
        assert isinstance(e, BroadcastShapeError), (label, type(e))
        assert isinstance(e, ShapeError) and isinstance(e, ValueError)
        msg = str(e)
        # the shapes (vmap adds its batch dim of 2) and the fix are named
        assert re.search(r"\b3,?\)", msg) and re.search(r"\b4,?\)", msg), msg
        assert "reshape or expand_dims" in msg or "broadcast_in_dim" in msg, msg


@pytest.mark.parametrize("op", list(OPERATORS))
def test_misfit_message_names_the_operation(op):
    x, y = (jnp.asarray(v) for v in _operands(op))
    with pytest.raises(TypeError) as info:
        OPERATORS[op](x, y)
    names = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide",
             "//": "floor_divide", "%": "remainder", "**": "power", "==": "equal",
             "!=": "not_equal", "<": "less", "<=": "less_equal", ">": "greater",
             ">=": "greater_equal", "&": "bitwise_and", "|": "bitwise_or",
             "^": "bitwise_xor", "<<": "left_shift", ">>": "right_shift"}
    assert str(info.value).startswith(f"{names[op]}: shapes (3,), (4,) cannot be broadcast")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label,f,x,y", VALUE_ERROR_CASES,
                         ids=[c[0] for c in VALUE_ERROR_CASES])
def test_explicit_broadcast_misfit_stays_value_error(label, f, x, y, mode):
    with pytest.raises(ValueError) as info:
        _call(mode, f, x, y)
    assert isinstance(info.value, ShapeError)
    assert not isinstance(info.value, TypeError), (label, type(info.value))


def test_broadcast_shapes_stays_value_error():
    with pytest.raises(ShapeError) as info:
        jnp.broadcast_shapes((3,), (4,))
    assert not isinstance(info.value, TypeError)


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
@pytest.mark.parametrize("other", ["jnp", "numpy"])
def test_comparison_with_misfit_raises_not_false(op, other):
    """A comparison turns an operand type it refuses into NotImplemented (Python's ==
    then says False); a shape misfit is no such refusal, with either side a NumPy array."""
    a, b = jnp.ones(3), (jnp.ones(4) if other == "jnp" else np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"\(3,\).*\(4,\)"):
        OPERATORS[op](a, b)
    with pytest.raises(TypeError, match=r"\(3,\), \(4,\)|\(4,\), \(3,\)"):
        OPERATORS[op](b, a)  # (a NumPy array on the left: Python reflects to the Array's)


def test_comparison_after_a_kept_plan_still_raises():
    a, b = jnp.ones((2, 3)), jnp.ones(3)
    for _ in range(2):
        assert bool(jnp.all(a == b))  # (2, 3) == (3,) broadcasts; its plan is kept
    with pytest.raises(TypeError):
        a == jnp.ones(2)  # noqa: B015 - the comparison is what raises


@pytest.mark.parametrize("mode", MODES)
def test_comparison_with_unrelated_objects_is_false(mode):
    """As in JAX: ``a == "x"`` and ``a == object()`` are False (elementwise under a
    transformation: JAX's jit gives a 0-d False, tjit the same), ``!=`` True."""
    def f(x, _):
        return jnp.stack([jnp.asarray(x == "x"), jnp.asarray(x == object()),
                          jnp.asarray(x != "x")])
    got = np.asarray(_call(mode, f, F3, F3))
    expected = np.array([False, False, True])
    assert (got.reshape(-1, 3) == expected).all()


def test_unrelated_object_in_arithmetic_is_type_error():
    with pytest.raises(TypeError, match="unsupported operand"):
        jnp.ones(3) + "x"
