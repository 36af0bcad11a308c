"""The function returned by ``linearize`` checks its tangents against the primals, as
``jvp`` does and as JAX's linearize does.

It used to take any tangent the linear jaxpr's operations would accept: a scalar tangent
for an f32[3] primal broadcast silently (``linearize(jnp.sin, x)[1](1.0)`` returned
``cos(x)``, a number for a tangent that does not exist), and a wrongly shaped or typed
one failed deep inside with a message about ``mul``.

Oracles: NumPy float64 derivatives (cos), a Python loop over the batch for vmap.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

X = np.float32([0.5, -1.0, 2.0])


@pytest.mark.parametrize("tangent, error", [
    (np.float32(1.0), ValueError),               # scalar: used to broadcast silently
    (1.0, ValueError),                           # Python scalar, the same
    (np.ones((1, 3), np.float32), ValueError),   # extra axis
    (np.ones(2, np.float32), ValueError),
    (X.astype(np.float16), TypeError),
])
def test_linearized_function_refuses_tangents_unlike_the_primals(tangent, error):
    f_jvp = tjit.linearize(jnp.sin, X)[1]
    with pytest.raises(error, match=r"linearize .*argument 0"):
        f_jvp(tangent)


def test_linearized_function_of_two_arguments_checks_each():
    f_jvp = tjit.linearize(lambda a, b: a * b, X, np.float32(2.0))[1]
    with pytest.raises(ValueError, match="argument 1"):
        f_jvp(X, X)  # the second primal is a scalar
    got = f_jvp(X, np.float32(0.5))
    np.testing.assert_allclose(np.asarray(got), X * 2.0 + X * 0.5, rtol=1e-6)


def test_matching_tangents_and_vmap_over_them_agree_with_numpy():
    f_jvp = tjit.linearize(jnp.sin, X)[1]
    t = np.float32([1.0, 2.0, -3.0])
    np.testing.assert_allclose(np.asarray(f_jvp(t)), np.cos(X.astype(np.float64)) * t,
                               rtol=1e-6)
    ts = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = np.stack([np.cos(X.astype(np.float64)) * row for row in ts])
    np.testing.assert_allclose(np.asarray(tjit.vmap(f_jvp)(ts)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.jit(f_jvp)(t)), np.cos(X) * t, rtol=1e-6)
