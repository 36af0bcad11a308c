"""Every user-facing error of the core: text names the value, the place and the fix."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _arr(*shape, dtype=np.float32):
    return jnp.asarray(np.ones(shape, dtype))


def test_python_if_on_traced_value():
    def relu_if(x):
        if x > 0:
            return x
        return 0.0 * x
    with pytest.raises(tjit.errors.TracerBoolConversionError) as e:
        tjit.jit(relu_if)(_arr())
    msg = str(e.value)
    assert "'gt'" in msg and "'x'" in msg and "relu_if" in msg
    assert "if x > 0:" in msg and "test_errors.py" in msg
    assert "lax.cond" in msg and "static_argnums" in msg


def test_python_while_on_traced_value():
    def loop(x):
        while x < 10:
            x = x * 2
        return x
    with pytest.raises(tjit.ConcretizationTypeError, match="while_loop"):
        tjit.jit(loop)(_arr())


@pytest.mark.parametrize("conv,cls", [(int, tjit.errors.TracerIntegerConversionError),
                                      (float, tjit.ConcretizationTypeError),
                                      (bool, tjit.errors.TracerBoolConversionError)])
def test_concrete_conversions(conv, cls):
    def f(n):
        return conv(n)
    with pytest.raises(cls, match=r"traced argument 'n'.*\n.*test_errors.py"):
        tjit.jit(f)(jnp.asarray(3))


def test_index_on_traced_value_suggests_static():
    def f(n):
        return list(range(n))
    with pytest.raises(tjit.errors.TracerIntegerConversionError, match="static_argnums"):
        tjit.jit(f)(jnp.asarray(3))


def test_static_argnums_is_the_fix():
    f = tjit.jit(lambda x, n: x * n if n > 1 else x, static_argnums=1)
    assert float(f(_arr(), 3)) == 3.0


def test_numpy_conversion_of_tracer():
    with pytest.raises(tjit.ConcretizationTypeError, match="tjit.numpy functions"):
        tjit.jit(lambda x: np.sin(x))(_arr(3))


def test_escaped_tracer():
    leaked = []

    def f(x):
        leaked.append(x)
        return x
    tjit.jit(f)(_arr(2))
    with pytest.raises(tjit.UnexpectedTracerError, match="jit of f.*escaped"):
        leaked[0] + 1.0
    with pytest.raises(tjit.UnexpectedTracerError):
        tjit.jit(lambda y: y + leaked[0])(_arr(2))


def test_shape_mismatch_names_primitive_and_shapes():
    with pytest.raises(tjit.ShapeError, match=r"add.*\(3,\).*\(4,\)"):
        tjit.jit(lambda x, y: x + y)(_arr(3), _arr(4))
    with pytest.raises(tjit.ShapeError, match=r"add: operand shapes must be equal.*\(3,\), \(4,\)"):
        lax.add(_arr(3), _arr(4))
    with pytest.raises(tjit.ShapeError, match=r"add: operand shapes must be equal"):
        tjit.jit(lax.add)(_arr(3), _arr(4))


def test_dtype_mismatch_in_lax():
    with pytest.raises(TypeError, match="add: operand dtypes must be equal.*float32.*int32"):
        lax.add(_arr(3), _arr(3, dtype=np.int32))


def test_float_op_on_ints_in_lax():
    with pytest.raises(TypeError, match="exp: operand must have a floating-point"):
        lax.exp(_arr(3, dtype=np.int32))


def test_wrong_argument_types():
    with pytest.raises(TypeError, match="argument of type str is not a valid array"):
        tjit.jit(lambda x: x)("hello")
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments, got list"):
        jnp.add([1, 2], 1)
    with pytest.raises(TypeError, match="unsupported input"):
        jnp.asarray(np.array(["a"]))


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="not supported by tjit"):
        lax.convert_element_type(_arr(2), np.dtype("datetime64[s]"))


def test_unhashable_static_argument():
    f = tjit.jit(lambda x, cfg: x, static_argnums=1)
    with pytest.raises(ValueError, match="static argument 'cfg' must be hashable.*tuple"):
        f(_arr(2), [1, 2])


def test_immutable_setitem():
    x = _arr(3)
    with pytest.raises(TypeError, match=r"x.at\[idx\].set"):
        x[0] = 1.0


def test_int_overflow_python_scalar():
    with pytest.raises(OverflowError, match="too large"):
        jnp.asarray(np.ones(2, np.int32)) + 2**40


def test_polymorphic_inconclusive_broadcast():
    with pytest.raises(tjit.InconclusiveDimensionError, match="b.*c|c.*b"):
        tjit.make_jaxpr(lambda x, y: x + y, polymorphic_shapes=["(b,)", "(c,)"])(
            _arr(3), _arr(3))


def test_polymorphic_call_with_wrong_shape():
    f = tjit.jit(lambda x: x * 2.0, polymorphic_shapes=["(b, 2*b)"])
    assert f(_arr(2, 4)).shape == (2, 4)
    with pytest.raises(tjit.ShapeError, match="2\\*b"):
        f(_arr(2, 5))
