"""The composition matrix: every pair (both orders) and a fixed set of triples of jit,
grad, vmap, jvp, vjp and checkpoint, on functions that use broadcasting, reductions,
dot, indexing and control flow.

Each transformation maps a function R^n -> R^m to another function R^n -> R^m, so they
compose freely. Its oracle is independent of tjit's transformations: central finite
differences in float64 for grad / jvp / vjp, a Python loop for vmap, identity for jit
and checkpoint; oracles compose the same way the transformations do.
"""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

N = 3
W_OUT = np.array([0.7, -1.3, 0.4])     # output weights: scalarizes for grad / vjp
V_DIR = np.array([0.3, 0.9, -0.5])     # tangent direction for jvp
SCALES = np.array([1.0, -0.5, 2.0])    # vmap batch: x * s_i
EPS = 1e-3


def _fd(g, x, direction):
    return (np.asarray(g(x + EPS * direction), np.float64)
            - np.asarray(g(x - EPS * direction), np.float64)) / (2 * EPS)


# -- the transformations and their oracles ------------------------------------------------
def t_jit(f):
    return tjit.jit(f)


def t_checkpoint(f):
    return tjit.checkpoint(f)


def t_grad(f):
    return tjit.grad(lambda x: jnp.sum(f(x) * W_OUT))


def t_vjp(f):
    def g(x):
        out, vjp_fn = tjit.vjp(f, x)
        return vjp_fn(jnp.asarray(W_OUT, out.dtype))[0]
    return g


def t_jvp(f):
    return lambda x: tjit.jvp(f, (x,), (jnp.asarray(V_DIR, x.dtype),))[1]


def t_vmap(f):
    def g(x):
        xs = x[None, :] * jnp.asarray(SCALES, x.dtype)[:, None]
        return jnp.sum(tjit.vmap(f)(xs), axis=0)
    return g


def o_identity(f):
    return f


def o_grad(f):
    def g(x):
        h = lambda y: np.sum(np.asarray(f(y), np.float64) * W_OUT)  # noqa: E731
        return np.array([_fd(h, x, e) for e in np.eye(N)])
    return g


def o_jvp(f):
    return lambda x: _fd(f, x, V_DIR)


def o_vmap(f):
    return lambda x: np.sum([np.asarray(f(x * s), np.float64) for s in SCALES], axis=0)


TRANSFORMS = {
    "jit": (t_jit, o_identity),
    "checkpoint": (t_checkpoint, o_identity),
    "grad": (t_grad, o_grad),
    "vjp": (t_vjp, o_grad),
    "jvp": (t_jvp, o_jvp),
    "vmap": (t_vmap, o_vmap),
}


# -- functions R^3 -> R^3 ---------------------------------------------------------------------
M = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.9]])


def f_broadcast(x):
    return jnp.tanh(x[:, None] * x[None, :] + 0.5).sum(axis=1) * jnp.sin(x)


def f_reduce_dot(x):
    h = jnp.dot(jnp.asarray(M, x.dtype), x) + jnp.mean(x * x)
    return jnp.logaddexp(h, 0.0) * jnp.max(jnp.cos(x))


def f_index(x):
    y = x.at[1].add(x[0] * x[2])
    return jnp.exp(y[jnp.asarray([2, 0, 1])] * 0.5) + y[::-1] * x[:1]


def f_cond(x):
    return lax.cond(jnp.sum(x) > 100.0, lambda v: v * 0.0, lambda v: jnp.sin(v) * v + 1.0, x)


def f_scan(x):
    def step(c, xi):
        c = jnp.tanh(c * 0.9 + xi)
        return c, c * xi
    c, ys = lax.scan(step, x[0], x)
    return ys + c


FUNCTIONS = {"broadcast": f_broadcast, "reduce_dot": f_reduce_dot, "index": f_index,
             "cond": f_cond, "scan": f_scan}

X0 = np.array([0.3, -0.7, 0.5])


def _run(names, fname):
    f = FUNCTIONS[fname]
    t, o = f, lambda y: np.asarray(f(jnp.asarray(y)), np.float64)
    for name in reversed(names):  # names[0] is outermost
        t = TRANSFORMS[name][0](t)
        o = TRANSFORMS[name][1](o)
    with _x64():
        got = np.asarray(t(jnp.asarray(X0)))
        want = np.asarray(o(X0))
    tol = 1e-5 if sum(n in ("grad", "vjp", "jvp", "vmap") for n in names if
                      n != "vmap") <= 1 else 5e-4
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol,
                               err_msg=f"{' . '.join(names)} of {fname}")


class _x64:
    def __enter__(self):
        self.old = tjit.config.enable_x64
        tjit.config.update("enable_x64", True)

    def __exit__(self, *exc):
        tjit.config.update("enable_x64", self.old)


PAIRS = [p for p in itertools.product(TRANSFORMS, repeat=2)]
_rng = np.random.default_rng(0)
_all_triples = list(itertools.product(TRANSFORMS, repeat=3))
TRIPLES = [_all_triples[i] for i in sorted(_rng.choice(len(_all_triples), 40, replace=False))]


@pytest.mark.parametrize("fname", sorted(FUNCTIONS))
@pytest.mark.parametrize("names", [(n,) for n in TRANSFORMS], ids="-".join)
def test_single(names, fname):
    _run(names, fname)


@pytest.mark.parametrize("fname", sorted(FUNCTIONS))
@pytest.mark.parametrize("names", PAIRS, ids="-".join)
def test_pairs(names, fname):
    _run(names, fname)


@pytest.mark.parametrize("fname", ["broadcast", "index", "scan"])
@pytest.mark.parametrize("names", TRIPLES, ids="-".join)
def test_triples(names, fname):
    _run(names, fname)
