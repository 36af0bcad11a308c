"""Wrappers called outside any transformation (checkpoint, custom_jvp, custom_vjp,
custom_gradient) run the function on tjit arrays, as jit does: the wrapper changes how a
function is differentiated, never its value, dtype or weak type.

They used to hand the caller's raw arguments to the function, so NumPy (not tjit) did
the arithmetic: ``checkpoint(lambda a: a / 3)(np.ones(2))`` gave a float64 ndarray and
``checkpoint(lambda a: a * 2.5)(3.0)`` a Python float, where jit gives float32.

Oracles: values from NumPy in float64; dtype and weak type from ``jit`` of the same
function (a traced path; with 64-bit types off, float64/int64 inputs become 32-bit).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array


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


@pytest.mark.parametrize("wrap", WRAPPERS, ids=lambda w: w.__name__[6:])
@pytest.mark.parametrize("kind", list(INPUTS))
def test_eager_call_matches_jit_and_numpy(wrap, kind):
    a, b = INPUTS[kind]
    got = wrap(_body)(a, b)
    want_types = tjit.jit(_body)(a, b)
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    want_values = (a64 * 2.5 / 3 + b64, np.sum(a64) * b64)
    for g, t, v in zip(got, want_types, want_values):
        assert isinstance(g, Array), f"{kind}: got a {type(g).__name__}, not a tjit Array"
        assert (g.dtype, g.weak_type, g.shape) == (t.dtype, t.weak_type, t.shape), kind
        np.testing.assert_allclose(np.asarray(g, np.float64), v, rtol=1e-6)


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
