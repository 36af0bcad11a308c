"""tjit.scipy.optimize.minimize (BFGS) against scipy.optimize.minimize(method="BFGS"):
the same optimum, under jit; the result's fields; errors."""

import numpy as np
import pytest
import scipy.optimize as so

import tjit
import tjit.numpy as jnp
from tjit.scipy.optimize import OptimizeResults, line_search, minimize


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rosen_np(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


def _logistic_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = (X @ np.array([1.5, -2.0, 0.5]) + 0.3 + rng.standard_normal(60) > 0).astype(float)
    return X, y


def logistic_loss(w, X, y, lam):
    z = X @ w[:-1] + w[-1]
    return jnp.mean(jnp.logaddexp(0.0, z) - y * z) + lam * jnp.sum(w ** 2)


def logistic_loss_np(w, X, y, lam):
    z = X @ w[:-1] + w[-1]
    return float(np.mean(np.logaddexp(0.0, z) - y * z) + lam * np.sum(w ** 2))


def logistic_grad_np(w, X, y, lam):
    r = (1 / (1 + np.exp(-(X @ w[:-1] + w[-1]))) - y) / len(y)
    return np.append(X.T @ r, r.sum()) + 2 * lam * w


def test_rosenbrock_matches_scipy_under_jit(x64):
    x0 = np.array([-1.2, 1.0, -0.5, 0.8])
    got = tjit.jit(lambda x: minimize(rosen, x, method="BFGS"))(jnp.asarray(x0))
    want = so.minimize(so.rosen, x0, jac=so.rosen_der, method="BFGS")
    assert isinstance(got, OptimizeResults)
    assert bool(got.success) and int(got.status) == 0
    assert want.success
    np.testing.assert_allclose(np.asarray(got.x), want.x, atol=2e-5)
    np.testing.assert_allclose(np.asarray(got.x), np.ones(4), atol=2e-5)
    assert float(got.fun) < 1e-10
    assert np.max(np.abs(np.asarray(got.jac))) < 1e-5  # gtol's default, inf-norm
    # jac is the gradient at x, not a leftover of the line search
    np.testing.assert_allclose(np.asarray(got.jac), so.approx_fprime(
        np.asarray(got.x), rosen_np, 1e-8), atol=1e-5)
    assert 0 < int(got.nit) < 200 and int(got.nfev) >= int(got.nit)
    assert int(got.njev) == int(got.nfev)
    assert got.hess_inv.shape == (4, 4)


def test_logistic_regression_matches_scipy(x64):
    X, y = _logistic_data()
    w0 = np.zeros(4)
    f = tjit.jit(lambda w, X, y: minimize(logistic_loss, w, (X, y, 0.01), method="BFGS",
                                          tol=1e-9))
    got = f(jnp.asarray(w0), jnp.asarray(X), jnp.asarray(y))
    want = so.minimize(logistic_loss_np, w0, (X, y, 0.01), jac=logistic_grad_np, method="BFGS",
                       tol=1e-9)
    assert bool(got.success) and want.success
    np.testing.assert_allclose(np.asarray(got.x), want.x, atol=1e-6)
    np.testing.assert_allclose(float(got.fun), want.fun, rtol=1e-10)
    # BFGS's inverse-Hessian estimate at the optimum approaches the true inverse Hessian
    hess = np.asarray(tjit.hessian(lambda w: logistic_loss(w, X, y, 0.01))(got.x))
    np.testing.assert_allclose(np.asarray(got.hess_inv) @ hess, np.eye(4), atol=0.1)


def test_float32_logistic_regression():
    X, y = _logistic_data()
    got = tjit.jit(lambda w: minimize(logistic_loss, w, (X.astype(np.float32),
                                                         y.astype(np.float32), 0.01),
                                      method="BFGS", options={"gtol": 1e-4}))(
        jnp.zeros(4, jnp.float32))
    want = so.minimize(logistic_loss_np, np.zeros(4), (X, y, 0.01), jac=logistic_grad_np,
                       method="BFGS", tol=1e-9)
    assert got.x.dtype == np.float32 and bool(got.success)
    np.testing.assert_allclose(np.asarray(got.x), want.x, atol=1e-3)


def test_maxiter_status_and_converged_start(x64):
    r = minimize(rosen, jnp.asarray([-1.2, 1.0]), method="bfgs", options={"maxiter": 3})
    assert int(r.nit) == 3 and int(r.status) == 1 and not bool(r.success)
    # already at the minimum: no iteration
    r = minimize(rosen, jnp.ones(3), method="BFGS")
    assert int(r.nit) == 0 and bool(r.success) and int(r.nfev) == 1


def test_line_search_strong_wolfe(x64):
    x = jnp.asarray([-1.2, 1.0])
    g = tjit.grad(rosen)(x)
    res = line_search(rosen, x, -g)
    a = float(res.a_k)
    f0, d0 = float(rosen(x)), -float(jnp.dot(g, g))
    x1 = np.asarray(x) - a * np.asarray(g)
    assert not bool(res.failed) and a > 0
    assert rosen_np(x1) <= f0 + 1e-4 * a * d0  # sufficient decrease
    g1 = so.approx_fprime(x1, rosen_np, 1e-8)
    assert abs(float(g1 @ -np.asarray(g))) <= 0.9 * abs(d0) + 1e-4  # strong curvature


def test_errors():
    with pytest.raises(ValueError, match="method must be 'BFGS'"):
        minimize(rosen, jnp.ones(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match="args must be a tuple"):
        minimize(rosen, jnp.ones(2), 3.0, method="BFGS")
    with pytest.raises(tjit.ShapeError, match=r"x0 must be 1-D, got shape \(2, 2\)"):
        minimize(rosen, jnp.ones((2, 2)), method="BFGS")
    with pytest.raises(TypeError, match=r"unknown BFGS options \['disp'\]"):
        minimize(rosen, jnp.ones(2), method="BFGS", options={"disp": True})
