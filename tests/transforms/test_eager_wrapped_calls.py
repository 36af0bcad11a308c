"""Wrappers called outside any transformation, as JAX runs them.

``checkpoint`` (and ``custom_gradient``, whose function calls ``vjp``) run the function
on tjit arrays, as jit does: ``checkpoint(lambda a: a / 3)(np.ones(2))`` is float32, not
a float64 ndarray. ``custom_jvp`` and ``custom_vjp`` call the function on the arguments
as given, as JAX's do (checked against JAX 0.10.2): a Python scalar stays one
(``f(1.0)`` of ``x ** 2`` is the Python float 1.0), NumPy arrays get canonical dtypes
(float64 -> float32, int64 -> int32 without 64-bit types) but stay NumPy arrays.

Oracles: values from NumPy in float64; dtype and weak type from ``jit`` of the same
function (a traced path), or for custom_jvp/custom_vjp the function's result on the
inputs cast to 32 bits by hand.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _body(a, b):
    return a * 2.5 / 3 + b, jnp.sum(a) * b


def _wrap_checkpoint(f):
    return tjit.checkpoint(f)


def _wrap_checkpoint_policy(f):
    return tjit.checkpoint(f, policy=tjit.checkpoint_policies.dots_saveable)


def _wrap_custom_jvp(f):
    g = tjit.custom_jvp(f)
    g.defjvp(lambda p, t: (g(*p), tjit.jvp(f, p, t)[1]))
    return g


def _wrap_custom_jvp_nondiff(f):
    g = tjit.custom_jvp(f, nondiff_argnums=(1,))
    g.defjvp(lambda b, p, t: (g(p[0], b), tjit.jvp(lambda a: f(a, b), p, t)[1]))
    return g


def _wrap_custom_vjp(f):
    g = tjit.custom_vjp(f)
    g.defvjp(lambda *a: tjit.vjp(f, *a), lambda vjp_fn, ct: vjp_fn(ct))
    return g


def _wrap_custom_gradient(f):
    return tjit.custom_gradient(lambda *a: tjit.vjp(f, *a))


WRAPPERS = [_wrap_checkpoint, _wrap_checkpoint_policy, _wrap_custom_jvp,
            _wrap_custom_jvp_nondiff, _wrap_custom_vjp, _wrap_custom_gradient]

INPUTS = {
    "float64 arrays": (np.array([1.0, -2.0, 0.5]), np.array([0.25, 3.0, -1.0])),
    "int64 arrays": (np.array([1, -2, 7]), np.array([3, 0, -1])),
    "Python floats": (3.0, -0.5),
    "Python ints": (3, 2),
    "NumPy float64 scalars": (np.float64(1.5), np.float64(-2.0)),
    "float32 and Python float": (np.array([1.0, 2.0], np.float32), 0.5),
}


AS_GIVEN = {_wrap_custom_jvp, _wrap_custom_jvp_nondiff, _wrap_custom_vjp}


def _to_32_bits(x):
    """JAX's canonical dtypes for a NumPy leaf without 64-bit types."""
    if isinstance(x, (np.ndarray, np.generic)):
        return x.astype({np.dtype(np.float64): np.float32,
                         np.dtype(np.int64): np.int32}.get(x.dtype, x.dtype))
    return x


@pytest.mark.parametrize("wrap", WRAPPERS, ids=lambda w: w.__name__[6:])
@pytest.mark.parametrize("kind", list(INPUTS))
def test_eager_call_matches_jax_and_numpy(wrap, kind):
    a, b = INPUTS[kind]
    got = wrap(_body)(a, b)
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    want_values = (a64 * 2.5 / 3 + b64, np.sum(a64) * b64)
    if wrap in AS_GIVEN:
        want_types = _body(_to_32_bits(a), _to_32_bits(b))
    else:
        want_types = tjit.jit(_body)(a, b)
    for g, t, v in zip(got, want_types, want_values):
        assert type(g) is type(t), f"{kind}: got a {type(g).__name__}, not {type(t).__name__}"
        assert np.asarray(g).dtype == np.asarray(t).dtype, kind
        assert getattr(g, "weak_type", None) == getattr(t, "weak_type", None), kind
        np.testing.assert_allclose(np.asarray(g, np.float64), v, rtol=1e-6)


def test_eager_custom_jvp_keeps_python_scalars():
    """JAX 0.10.2: custom_jvp f(x) = x ** 2 at 1.0 and 3 gives the Python 1.0 and 9."""
    f = tjit.custom_jvp(lambda x: x ** 2)
    f.defjvp(lambda p, t: (f(p[0]), 2 * p[0] * t[0]))
    assert type(f(1.0)) is float and f(1.0) == 1.0
    assert type(f(3)) is int and f(3) == 9
    out = f(np.ones(2))   # a float32 NumPy array, as JAX's
    assert type(out) is np.ndarray and out.dtype == np.float32
    assert float(tjit.grad(f)(3.0)) == 6.0   # differentiated, arrays again


def test_eager_checkpoint_keeps_static_arguments_python_values():
    # a static argument stays the Python object it was (here it picks a branch)
    f = tjit.checkpoint(lambda x, mode: x * 2 if mode == "double" else x,
                        static_argnums=(1,))
    out = f(np.array([1.0, 2.0]), "double")
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), [2.0, 4.0])


def test_eager_custom_jvp_nondiff_callable_stays_callable():
    g = tjit.custom_jvp(lambda fn, x: fn(x) * 2.0, nondiff_argnums=(0,))
    g.defjvp(lambda fn, p, t: (g(fn, p[0]), t[0] * 2.0))
    out = g(jnp.sin, np.array([0.5, 1.0]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin([0.5, 1.0]), rtol=1e-6)
