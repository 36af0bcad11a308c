"""tjit.ensure_compile_time_eval: concrete ops run at trace time (their values steer
Python), traced ops stay staged; results checked against NumPy and finite
differences."""
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _f(x, seen):
    with tjit.ensure_compile_time_eval():
        n = jnp.arange(4).sum()                       # concrete: 6
        seen.append((type(n).__name__, int(n)))
        k = lax.fori_loop(0, 3, lambda i, c: c * 2, jnp.float32(1))   # concrete: 8
        y = x * n + jnp.cos(x) * k                    # traced operand: staged
    if int(n) > 5:                                    # Python branch on the value
        y = y + 1
    return y


def _ref(x):
    return x * 6 + np.cos(x) * 8 + 1


@pytest.mark.parametrize("how", ["eager", "jit", "grad", "vmap", "jit_of_vmap"])
def test_concrete_values_inside_and_traced_values_staged(how):
    seen = []
    x = np.float32(0.7)
    xs = np.linspace(-1, 1, 4).astype(np.float32)
    if how == "eager":
        np.testing.assert_allclose(_f(x, seen), _ref(np.float64(x)), rtol=1e-6)
    elif how == "jit":
        f = tjit.jit(lambda x: _f(x, seen))
        np.testing.assert_allclose(f(x), _ref(np.float64(x)), rtol=1e-6)
        np.testing.assert_allclose(f(np.float32(-2)), _ref(-2.0), rtol=1e-6)
    elif how == "grad":
        g = tjit.grad(lambda x: _f(x, seen))(x)
        h = 1e-6
        fd = (_ref(np.float64(x) + h) - _ref(np.float64(x) - h)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-5)
    else:
        f = tjit.vmap(lambda x: _f(x, seen))
        out = tjit.jit(f)(xs) if how == "jit_of_vmap" else f(xs)
        np.testing.assert_allclose(out, [_ref(float(v)) for v in xs], rtol=1e-5)
    assert seen and all(s == ("Array", 6) for s in seen)


def test_without_the_context_the_value_is_traced():
    with pytest.raises(tjit.ConcretizationTypeError):
        tjit.jit(lambda x: x * int(jnp.arange(4).sum()))(1.0)
