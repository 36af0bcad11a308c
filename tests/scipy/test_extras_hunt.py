"""Regression tests for what benchmarks/diff_scipy_extras.py found in tjit.scipy's extras
(stats.mode/rankdata, optimize.minimize, ...): values against SciPy float64, dtypes
against JAX's documented choices, eager and under jit."""

import numpy as np
import pytest
import scipy.stats

import tjit
import tjit.numpy as jnp
from tjit.scipy import stats


def both(f):
    """f eagerly and under jit."""
    return [f, tjit.jit(f)]


MODE_INPUTS = [
    (np.array([2.0, np.nan, 2.0, np.nan, np.nan, 1.0]), 0),   # NaN is the mode
    (np.array([[1.0, np.nan, np.nan], [2.0, 2.0, np.nan]]), 1),
    (np.array([np.nan, 3.0, np.nan, 3.0]), 0),  # a tie: the number before NaN
    (np.array([[np.nan, np.nan], [np.nan, 1.0]]), 0),
    (np.array([3, 1, 3, 1, 2]), 0),  # ints: the smallest among ties
]


@pytest.mark.parametrize("x,axis", MODE_INPUTS)
def test_mode_counts_nans_as_one_value(x, axis):
    # NaNs were distinct values: mode([2, nan, 2, nan, nan, 1]) gave (2, 2), SciPy (nan, 3)
    want = scipy.stats.mode(x, axis=axis)
    for f in both(lambda v: stats.mode(v, axis=axis)):
        m, c = f(x)
        np.testing.assert_array_equal(np.asarray(m), want.mode)
        np.testing.assert_array_equal(np.asarray(c), want.count)


@pytest.mark.parametrize("shape,axis", [((2, 3), None), ((2, 3, 4), None), ((2, 3), 1),
                                        ((2, 3, 4), -2), ((5,), None)])
def test_mode_keepdims_keeps_every_axis(shape, axis):
    # axis=None with keepdims gave shape (1,) for any input; SciPy and JAX keep ndim ones
    x = np.random.default_rng(0).integers(0, 3, shape).astype(float)
    want = scipy.stats.mode(x, axis=axis, keepdims=True)
    m, c = stats.mode(x, axis=axis, keepdims=True)
    assert m.shape == want.mode.shape and c.shape == want.count.shape
    np.testing.assert_array_equal(np.asarray(m), want.mode)
    np.testing.assert_array_equal(np.asarray(c), want.count)


def test_mode_of_empty_axis_is_nan_with_count_zero():
    # raised ValueError; SciPy and JAX give NaN and a count 0 (a float, as both)
    m, c = stats.mode(np.zeros((0, 3)), axis=0)
    np.testing.assert_array_equal(np.asarray(m), np.full(3, np.nan))
    np.testing.assert_array_equal(np.asarray(c), np.zeros(3))
    assert m.dtype == c.dtype == jnp.zeros(0, float).dtype


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
@pytest.mark.parametrize("data", [np.array([3.0, 1.0, 1.0, 2.0, 3.0, 3.0]),
                                  np.array([3, 1, 1, 2, 3, 3]),
                                  np.array([[3.0, np.nan, 1.0], [2.0, 2.0, 0.0]])])
def test_rankdata_is_default_float_for_every_method(method, data):
    # 'average' was float32 under x64 and int ranks stayed int32 (JAX: the default
    # float dtype for every method); values against SciPy
    axis = 1 if data.ndim == 2 else None
    want = scipy.stats.rankdata(data, method, axis=axis)
    for f in both(lambda v: stats.rankdata(v, method, axis=axis)):
        got = f(data)
        assert got.dtype == jnp.zeros(0, float).dtype
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("shape,axis", [((2, 0), 1), ((0, 3), 0), ((0, 3), 1)])
def test_rankdata_of_empty_axis(shape, axis):
    # reshape(-1, 0) raised 'cannot infer -1'
    x = np.zeros(shape)
    got = stats.rankdata(x, axis=axis)
    assert got.shape == shape


GEMM_SCALINGS = [lambda a, b, s: (a * s) @ b, lambda a, b, s: a @ (b * s),
                 lambda a, b, s: (a @ b) * s, lambda a, b, s: (a @ b) / s,
                 lambda a, b, s: (a * s) @ b[:, 0], lambda a, b, s: s * (a @ b[:, 0])]


@pytest.mark.parametrize("form", range(len(GEMM_SCALINGS)))
@pytest.mark.parametrize("s", [np.array([[2.5]]), np.array([-3.0]), np.array([[[0.0]]]),
                               np.array([np.inf])])
def test_jit_gemm_with_a_size_one_array_factor(form, s):
    # the folded gemm alpha was float(value): a (1, 1) or (1,) factor raised
    # "only 0-dimensional arrays can be converted to Python scalars" under jit (found by
    # scipy.linalg.polar of a 1x1 matrix)
    a = np.arange(6.0).reshape(2, 3) - 2.0
    b = np.array([[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]])  # a @ b exact, no zeros
    f = GEMM_SCALINGS[form]
    with np.errstate(all="ignore"):
        want = f(a, b, s)
    got = tjit.jit(f)(a, b, s)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-5)


def test_polar_of_1x1_under_jit():
    from tjit.scipy import linalg
    a = np.array([[-2.0]])
    u, p = tjit.jit(linalg.polar)(a)
    np.testing.assert_allclose(np.asarray(u), [[-1.0]])
    np.testing.assert_allclose(np.asarray(p), [[2.0]])


def test_minimize_counters_are_the_default_int():
    # nit, nfev, njev and status were int32 under x64 (JAX: the default int, int64)
    from tjit.scipy import optimize

    def bowl(x):
        return jnp.sum(jnp.array([1.0, 3.0, 5.0]) * (x - 1.0) ** 2)

    for f in both(lambda x0: optimize.minimize(bowl, x0, method="BFGS")):
        r = f(jnp.zeros(3))
        for field in (r.nit, r.nfev, r.njev, r.status):
            assert field.dtype == jnp.zeros(0, int).dtype
        assert bool(r.success) and int(r.status) == 0
        np.testing.assert_allclose(np.asarray(r.x), np.ones(3), atol=1e-3)


def test_minimize_counters_are_int64_under_x64(x64):
    from tjit.scipy import optimize
    r = optimize.minimize(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2, float),
                          method="BFGS")
    assert r.nit.dtype == r.nfev.dtype == r.status.dtype == np.int64
    np.testing.assert_allclose(np.asarray(r.x), [2.0, 2.0])


LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def quadratic_problem():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((5, 5))
    q = m @ m.T + 5 * np.eye(5)
    b = rng.standard_normal(5)
    return q, b


@pytest.mark.parametrize("maxcor", [1, 3, 10])
def test_lbfgs_minimizes_a_quadratic(maxcor, x64):
    # the method raised "method must be 'BFGS'" (JAX has it); the minimum is Q^-1 b
    # (float64: in float32 f's decrease meets ftol first, status 4, as JAX's)
    from tjit.scipy import optimize
    q, b = quadratic_problem()
    for f in both(lambda x0: optimize.minimize(
            lambda x: x @ jnp.asarray(q, x.dtype) @ x / 2 - jnp.asarray(b, x.dtype) @ x, x0,
            method=LBFGS, options={"maxcor": maxcor, "gtol": 1e-4})):
        r = f(jnp.zeros(5))
        np.testing.assert_allclose(np.asarray(r.x), np.linalg.solve(q, b), atol=1e-3)
        assert bool(r.success) and int(r.status) == 0 and r.hess_inv is None
        assert int(r.nit) >= 1 and int(r.nfev) >= int(r.nit)


def test_lbfgs_limits_and_their_status():
    # JAX's codes: 1 maxiter, 2 maxfun, 4 f decreased less than ftol
    from tjit.scipy import optimize
    q, b = quadratic_problem()

    def fun(x):
        return x @ jnp.asarray(q, x.dtype) @ x / 2 - jnp.asarray(b, x.dtype) @ x
    for options, status in (({"maxiter": 1}, 1), ({"maxfun": 1}, 2), ({"ftol": 1e3}, 4)):
        r = optimize.minimize(fun, jnp.zeros(5), method=LBFGS, options=options)
        assert int(r.status) == status and not bool(r.success), options
    with pytest.raises(TypeError, match=r"unknown .* options \['line_search_maxiter'\]"):
        optimize.minimize(fun, jnp.zeros(5), method=LBFGS,
                          options={"line_search_maxiter": 3})


def test_lbfgs_complex_variables():
    # a real function of complex z: the descent direction is -conj(grad) (JAX's gradient
    # convention); the minimum of |z - c|^2 + 2 |z - d|^2 is (c + 2 d) / 3
    from tjit.scipy import optimize
    c = np.array([2 - 1j, 0.5j, -1.0 + 0j])
    d = np.array([1j, 1.0 + 0j, 2 - 2j])

    def fun(z):
        return jnp.sum(jnp.abs(z - c) ** 2) + 2 * jnp.sum(jnp.abs(z - d) ** 2)
    r = optimize.minimize(fun, jnp.zeros(3, complex), method=LBFGS)
    np.testing.assert_allclose(np.asarray(r.x), (c + 2 * d) / 3, atol=1e-4)
