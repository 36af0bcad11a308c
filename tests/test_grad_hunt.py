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


# -- implicit solves: higher derivatives in the matrix -------------------------------------------
_RNG = np.random.default_rng(11)
_A = _RNG.standard_normal((3, 3)) + 3 * np.eye(3)
_SPD = _A @ _A.T
_B, _W = _RNG.standard_normal(3), _RNG.standard_normal(3)


def _loss(solver):
    return lambda a, b: jnp.sum(jnp.sin(solver(a, b)) * _W)


SOLVERS = {
    "symmetric": (lambda a, b: tjit.lax.custom_linear_solve(
        lambda v: a @ v, b, lambda mv, r: jnp.linalg.solve(a, r), symmetric=True), _SPD),
    "transpose_solve": (lambda a, b: tjit.lax.custom_linear_solve(
        lambda v: a @ v, b, lambda mv, r: jnp.linalg.solve(a, r),
        transpose_solve=lambda vm, r: jnp.linalg.solve(a.T, r)), _A),
    "has_aux": (lambda a, b: tjit.lax.custom_linear_solve(
        lambda v: a @ v, b, lambda mv, r: (jnp.linalg.solve(a, r), jnp.sum(r)),
        transpose_solve=lambda vm, r: (jnp.linalg.solve(a.T, r), jnp.sum(r)),
        has_aux=True)[0], _A),
    "cg": (lambda a, b: tjit.scipy.sparse.linalg.cg(a, b, tol=1e-13, atol=0.0)[0], _SPD),
    "bicgstab": (lambda a, b: tjit.scipy.sparse.linalg.bicgstab(a, b, tol=1e-13, atol=0.0)[0],
                 _A),
}
MODES = {"fwd_rev": (tjit.jacfwd, tjit.jacrev), "rev_rev": (tjit.jacrev, tjit.jacrev),
         "fwd_fwd": (tjit.jacfwd, tjit.jacfwd), "rev_fwd": (tjit.jacrev, tjit.jacfwd)}


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_custom_linear_solve_second_derivatives_in_the_matrix(solver, mode):
    """The tangent solve's own derivative in the matrix (d(A^-1) = -A^-1 dA A^-1) was lost:
    hessian in the matrix a matvec closes over was off by O(1) (0.07 for cg). Reference:
    the same loss through jnp.linalg.solve (LU rules), itself checked against FD."""
    solve, a = SOLVERS[solver]
    outer, inner = MODES[mode]
    got = outer(inner(_loss(solve), argnums=(0, 1)), argnums=(0, 1))(a, _B)
    if solver in ("symmetric", "cg"):
        # symmetric=True transposes with the solve itself, which is A^-T only while A is
        # symmetric: off symmetric matrices the first derivative is that convention's (as
        # JAX's), so the reference is central differences of the inner derivative
        first = inner(_loss(solve), argnums=(0, 1))
        for j, x in enumerate((a, _B)):
            for idx in np.ndindex(*x.shape):
                e = np.zeros(x.shape)
                e[idx] = 1e-6
                args_p, args_m = [a, _B], [a, _B]
                args_p[j], args_m[j] = x + e, x - e
                fp, fm = first(*args_p), first(*args_m)
                for i in range(2):
                    fd = (np.asarray(fp[i]) - np.asarray(fm[i])) / 2e-6
                    np.testing.assert_allclose(np.asarray(got[i][j])[(Ellipsis,) + idx], fd,
                                               rtol=1e-5, atol=1e-7)
        return
    want = outer(inner(_loss(jnp.linalg.solve), argnums=(0, 1)), argnums=(0, 1))(a, _B)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(np.asarray(got[i][j]), np.asarray(want[i][j]),
                                       rtol=1e-8, atol=1e-10)


def test_solve_reference_hessian_matches_finite_differences():
    g = lambda a: np.asarray(tjit.grad(_loss(jnp.linalg.solve))(a, _B))  # noqa: E731
    h = np.asarray(tjit.hessian(_loss(jnp.linalg.solve))(_A, _B))
    for idx in np.ndindex(3, 3):
        e = np.zeros((3, 3))
        e[idx] = 1e-6
        np.testing.assert_allclose(h[(Ellipsis,) + idx], (g(_A + e) - g(_A - e)) / 2e-6,
                                   rtol=1e-5, atol=1e-7)


def test_custom_linear_solve_third_derivative_in_the_matrix():
    def third(solver):
        f = _loss(solver)
        g2 = lambda a: jnp.sum(tjit.grad(lambda a: jnp.sum(tjit.grad(f)(a, _B)))(a))  # noqa
        return np.asarray(tjit.grad(g2)(_A))
    np.testing.assert_allclose(third(SOLVERS["transpose_solve"][0]), third(jnp.linalg.solve),
                               rtol=1e-8, atol=1e-10)


def test_gmres_forward_over_forward_with_integer_residuals():
    """gmres closes over integers (sizes): a linear_call's jvp instantiated their zero
    tangents as int32 and jvp rejected them (TypeError) under jacfwd(jacfwd)."""
    f = _loss(lambda a, b: tjit.scipy.sparse.linalg.gmres(a, b, tol=1e-13, atol=0.0)[0])
    got = tjit.jacfwd(tjit.jacfwd(f))(_A, _B)
    want = tjit.jacfwd(tjit.jacfwd(_loss(jnp.linalg.solve)))(_A, _B)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-8, atol=1e-10)


def test_custom_jvp_rule_whose_tangent_calls_a_custom_jvp_function_under_grad():
    """A rule's tangent output computed by another custom_jvp function lands in the linear
    part under grad; it was not transposable (NotImplementedError); JAX inlines it."""
    @tjit.custom_jvp
    def double(x):
        return 2.0 * x

    double.defjvp(lambda p, t: (double(p[0]), double(t[0])))

    @tjit.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), double(t[0]) * jnp.cos(p[0])))
    x = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(np.asarray(tjit.grad(lambda x: jnp.sum(f(x)))(x)),
                               2 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tjit.jacrev(f)(x)), np.diag(2 * np.cos(x)),
                               rtol=1e-12)
    np.testing.assert_allclose(float(tjit.hessian(f)(1.0)), -2 * np.sin(1.0), rtol=1e-12)


def _sinc_slope(x):
    """d/dx sin(pi x) / (pi x) by mpmath at 40 digits (0 at x = 0)."""
    import mpmath
    with mpmath.workdps(40):
        if x == 0:
            return 0.0
        return float(mpmath.diff(lambda y: mpmath.sin(mpmath.pi * y) / (mpmath.pi * y),
                                 mpmath.mpf(float(x))))


@pytest.mark.parametrize("dt, rtol", [(np.float32, 2e-6), (np.float64, 1e-12)])
def test_sinc_slope_near_zero_does_not_cancel(x64, dt, rtol):
    # grad of sin(t)/t subtracts two values near 1/t: float32 grad at 1e-9 gave -50.27
    # (the slope is -3.3e-9), at 1e-4 -7.7e-4 (true -3.3e-4); JAX has the same defect
    xs = np.array([1e-30, 1e-9, -1e-6, 1e-4, 3e-3, 0.0159, 0.016, 0.05, 0.1, 0.159, 0.16,
                   0.3, 0.7, -1.3], dt)
    want = np.array([_sinc_slope(x) for x in xs])
    got = np.array([float(tjit.grad(jnp.sinc)(x)) for x in xs])
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-30)
    vals = np.asarray(tjit.jit(jnp.sinc)(xs))
    assert vals.dtype == dt
    np.testing.assert_allclose(vals, np.sinc(xs.astype(np.float64)), rtol=4 * np.finfo(dt).eps)
