"""Regressions from the derivative hunt (benchmarks/diff_grad.py): derivatives of public
functions against central finite differences in float64, and the float32 path of every
custom JVP rule (a float64 constant in a rule promoted float32 tangents, which the
custom_jvp dtype check then rejected)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as sp
import tjit.nn as nn


def _fd_grad(f, x, h=1e-6):
    """Central differences of a scalar function of a float64 vector."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (float(f(x + e)) - float(f(x - e))) / (2 * h)
    return g


def _pos(rng, n=4):
    return rng.uniform(0.4, 3.0, n)


# functions whose derivative is (or calls) a custom JVP rule, with a point generator
CUSTOM_RULE_FUNCS = {
    "erfcx": (sp.erfcx, lambda r: r.uniform(-2.0, 12.0, 4)),  # 12: the asymptotic branch
    "dawsn": (sp.dawsn, lambda r: r.uniform(-4.0, 4.0, 4)),
    "exp1": (sp.exp1, _pos),
    "expi": (sp.expi, _pos),
    "expn": (lambda x: sp.expn(2, x), _pos),
    "sici_si": (lambda x: sp.sici(x)[0], _pos),
    "sici_ci": (lambda x: sp.sici(x)[1], _pos),
    "log_ndtr": (sp.log_ndtr, lambda r: r.uniform(-6.0, 4.0, 4)),
    "xlogy": (lambda x: sp.xlogy(x, x + 1.0), _pos),
    "xlog1py": (lambda x: sp.xlog1py(x, x), _pos),
    "entr": (sp.entr, _pos),
    "poch": (lambda x: sp.poch(x, 1.5), _pos),
    "logaddexp": (lambda x: jnp.logaddexp(x, 2.0 * x), lambda r: r.standard_normal(4)),
    "logaddexp2": (lambda x: jnp.logaddexp2(x, 2.0 * x), lambda r: r.standard_normal(4)),
    "hypot": (lambda x: jnp.hypot(x, x + 1.0), lambda r: r.standard_normal(4)),
    "sinc": (jnp.sinc, lambda r: r.uniform(-2.0, 2.0, 4)),
    "ldexp": (lambda x: jnp.ldexp(x, 3), lambda r: r.standard_normal(4)),
    "frexp_mantissa": (lambda x: jnp.frexp(x)[0], lambda r: r.uniform(0.3, 7.0, 4)),
    "det": (lambda x: jnp.linalg.det(x.reshape(2, 2) + 2 * jnp.eye(2, dtype=x.dtype)),
            lambda r: r.standard_normal(4)),
    "expm": (lambda x: tjit.scipy.linalg.expm(x.reshape(2, 2)).ravel(),
             lambda r: r.standard_normal(4)),
    "relu": (nn.relu, lambda r: r.standard_normal(4)),
    "relu6": (nn.relu6, lambda r: r.uniform(-2.0, 8.0, 4)),
    "softplus": (nn.softplus, lambda r: r.standard_normal(4)),
    "softmax": (nn.softmax, lambda r: r.standard_normal(4)),
    "log_softmax": (nn.log_softmax, lambda r: r.standard_normal(4)),
}


@pytest.fixture(scope="module", autouse=True)
def _x64():
    with tjit.enable_x64(True):
        yield


@pytest.mark.parametrize("name", sorted(CUSTOM_RULE_FUNCS))
def test_custom_rule_float32_tangents_stay_float32(name):
    """jacrev of a float32 input is float32 and near the float64 Jacobian; the float64
    Jacobian matches central differences (so the float32 comparison has a true reference)."""
    f, draw = CUSTOM_RULE_FUNCS[name]
    x = draw(np.random.default_rng(7))
    flat = lambda v: jnp.ravel(f(v))  # noqa: E731
    j64 = np.asarray(tjit.jacrev(flat)(x))
    w = np.random.default_rng(8).standard_normal(j64.shape[0])
    fd = _fd_grad(lambda v: np.dot(w, np.asarray(flat(v))), x)
    np.testing.assert_allclose(w @ j64, fd, rtol=1e-5, atol=1e-6)
    j32 = tjit.jacrev(flat)(x.astype(np.float32))
    assert j32.dtype == np.float32, (name, j32.dtype)
    np.testing.assert_allclose(np.asarray(j32), j64, rtol=2e-3, atol=2e-4)
    _, t32 = tjit.jvp(flat, (x.astype(np.float32),), (np.ones(x.size, np.float32),))
    assert t32.dtype == np.float32, (name, t32.dtype)
