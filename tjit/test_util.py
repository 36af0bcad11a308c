"""``tjit.test_util.check_grads`` (``jax.test_util``): automatic derivatives checked
against central finite differences along one random direction (seeded), up to ``order``.

Forward mode compares ``jvp(f)`` with ``(f(x + eps t) - f(x - eps t)) / (2 eps)``;
reverse mode checks that the vjp is that jvp's transpose: ``<t, vjp(c)> == <jvp(t), c>``.
Tolerances default per dtype as JAX's (float32: 2e-3, float64: 1e-5, ...).
"""

import functools

import numpy as np

from tjit.tracing.tree_util import tree_leaves, tree_map
from tjit.transforms.ad import jvp, vjp

EPS = 1e-4
_DEFAULT_TOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
                np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 1e-3,
                np.dtype(np.complex128): 1e-5}


def _dtype(x):
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.asarray(x).dtype


def _tol(tol, dtype):
    if tol is None or isinstance(tol, dict):
        table = dict(_DEFAULT_TOL, **(tol or {}))
        return table.get(np.dtype(dtype), 1e-1)  # bfloat16 and others: JAX's 1e-1
    return tol


def _check_close(xs, ys, atol, rtol, err_msg):
    def close(x, y):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{err_msg}: shapes {x.shape} and {y.shape} differ"
        dt = max(_dtype(x), _dtype(y), key=lambda d: _tol(None, d))  # the looser one
        # scaled by the size, as JAX's check_close does
        np.testing.assert_allclose(x.astype(np.complex128), y.astype(np.complex128),
                                   atol=_tol(atol, dt) * x.size, rtol=_tol(rtol, dt) * y.size,
                                   err_msg=err_msg)
    tree_map(close, xs, ys)


def _rand_like(rng, x):
    dt = _dtype(x)
    r = rng.randn(*np.shape(x))
    if np.issubdtype(dt, np.complexfloating):
        r = r + 1j * rng.randn(*np.shape(x))
    r = np.asarray(r, dt)
    return r.item() if isinstance(x, (bool, int, float, complex)) else r


def _axpy(a, xs, ys):
    return tree_map(lambda x, y: np.asarray(x) + a * np.asarray(y), xs, ys)


def numerical_jvp(f, primals, tangents, eps=EPS):
    """Central difference of ``f`` at ``primals`` along ``tangents``."""
    pos, neg = f(*_axpy(eps, primals, tangents)), f(*_axpy(-eps, primals, tangents))
    return tree_map(lambda p, n: (np.asarray(p) - np.asarray(n)) * (0.5 / eps), pos, neg)


def _inner(xs, ys):
    return sum(np.real(np.vdot(np.asarray(x).ravel(), np.asarray(y).ravel()))
               for x, y in zip(tree_leaves(xs), tree_leaves(ys)))


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_jvp(args, tangents)`` (e.g. ``partial(jvp, f)``) against finite differences."""
    tangent = tree_map(functools.partial(_rand_like, np.random.RandomState(0)), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    _check_close(t_out, numerical_jvp(f, args, tangent, eps), atol, rtol,
                 f"{err_msg} tangent".strip())


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_vjp(*args)`` (e.g. ``partial(vjp, f)``): the pullback of a random cotangent,
    projected on a random tangent, against the finite-difference jvp projected on it."""
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, pullback = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    tangent = tree_map(rand, args)
    tangent_out = numerical_jvp(f, args, tangent, eps)
    cotangent = tree_map(rand, v_out)
    conj = functools.partial(tree_map, lambda x: np.conj(np.asarray(x)))
    cotangent_in = conj(pullback(conj(cotangent)))
    _check_close(_inner(tangent, cotangent_in), _inner(tangent_out, cotangent), atol, rtol,
                 f"{err_msg} cotangent projection".strip())


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check ``f``'s derivatives at ``args`` up to ``order`` against finite differences.

    Args:
      f: the function, called as ``f(*args)``.
      args: tuple of argument values.
      order: derivatives up to this order are checked (jvp of jvp, vjp of vjp, ...).
      modes: ``"fwd"`` and/or ``"rev"``.
      atol, rtol: tolerances (a number, or a dict by dtype); default per dtype.
      eps: the finite-difference step (default 1e-4).

    Raises:
      AssertionError: when a derivative does not match.
    """
    args, eps = tuple(args), eps or EPS

    def check(f, args, order, msg=""):
        if "fwd" in modes:
            fwd = f"JVP of {msg}" if msg else "JVP"
            check_jvp(f, functools.partial(jvp, f), args, atol, rtol, eps, fwd)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, fwd)
        if "rev" in modes:
            rev = f"VJP of {msg}" if msg else "VJP"
            check_vjp(f, functools.partial(vjp, f), args, atol, rtol, eps, rev)
            if order > 1:
                def f_vjp(*a):
                    out, pullback = vjp(f, *a)
                    return pullback(out)
                check(f_vjp, args, order - 1, rev)
    check(f, args, order)


__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
