"""Regressions found by rerunning the differential hunts (benchmarks/diff_*.py) with new
seeds in session 21. Each case compares against an independent reference (mpmath at
high precision, NumPy float64)."""

import warnings

import mpmath
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

# Complex functions whose value stays moderate where the argument is huge: no
# intermediate (|z|**2, hypot, 1 + z) may overflow on the way (diff_dtypes.py found
# complex64 log1p(3e38 + 3e38j) = inf + 0.785j, true 89.01 + 0.785j).
_MODERATE_FOR_HUGE_Z = {
    "log": mpmath.log, "log1p": lambda z: mpmath.log(1 + z), "log2": lambda z: mpmath.log(z, 2),
    "log10": mpmath.log10, "sqrt": mpmath.sqrt, "arctan": mpmath.atan,
    "arcsinh": mpmath.asinh, "arccosh": mpmath.acosh, "arctanh": mpmath.atanh,
    "arcsin": mpmath.asin, "arccos": mpmath.acos,
}


def _huge_arguments(dtype):
    top = float(np.finfo(dtype).max)
    parts = [top, 0.75 * top, 0.5 * top, 2.0 ** (np.finfo(dtype).maxexp // 2), 1.5, 1e-3]
    # no zero imaginary parts: mpmath cannot tell the sides of a branch cut apart there
    return np.array([complex(sa * a, sb * b) for a in parts for b in parts
                     for sa in (1, -1) for sb in (1, -1) if max(a, b) > 1e3], dtype)


@pytest.mark.parametrize("name", sorted(_MODERATE_FOR_HUGE_Z))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_functions_of_huge_arguments_do_not_overflow(name, dtype, request):
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    z = _huge_arguments(dtype)
    f = getattr(jnp, name)
    rtol = 4 * np.finfo(dtype).eps
    mpmath.mp.prec = 120
    want = np.array([complex(_MODERATE_FOR_HUGE_Z[name](mpmath.mpc(complex(v)))) for v in z])
    for mode, g in (("eager", f), ("jit", tjit.jit(f))):
        got = np.asarray(g(z)).astype(np.complex128)
        err = np.abs(got - want) / np.abs(want)
        bad = np.flatnonzero(~(err <= rtol))
        assert not bad.size, (f"{mode} {name}({z[bad[0]]}) = {got[bad[0]]}, mpmath "
                              f"{want[bad[0]]} ({bad.size} of {z.size} off)")


# The edges of the discrete log-pmfs' domains (signed zeros, k = inf, p or mu at the ends)
# against SciPy float64: poisson/binom.logpmf in the saddle-point form gave NaN at
# mu = -0 or p = -0 (k log(k / -0)) and at k = inf (inf - inf), SciPy and JAX -inf.
def _discrete_edge_cases():
    ks = [0.0, 1.0, 2.0, 9.0, 2.5, -1.0, np.inf]
    for k in ks:
        for mu in [0.0, -0.0, 1e-30, 0.5, 9.0, 1e4]:
            yield "poisson", (k, mu)
        for n, p in [(10.0, 0.0), (10.0, -0.0), (10.0, 1.0), (10.0, 0.3), (1e4, -0.0),
                     (9.0, 1e-30), (2.0, 0.5), (0.0, 0.5)]:
            yield "binom", (k, n, p)


@pytest.mark.parametrize("method", ["logpmf", "pmf"])
def test_discrete_logpmf_domain_edges_match_scipy(method):
    import scipy.stats
    from tjit.scipy import stats
    cases = list(_discrete_edge_cases())
    for dist in ("poisson", "binom"):
        args = np.array([a for d, a in cases if d == dist]).T
        with np.errstate(all="ignore"):
            want = getattr(getattr(scipy.stats, dist), method)(*args).astype(np.float32)
        # k = inf: the limit, pmf 0 (SciPy's k log mu - log k! is inf - inf = NaN for mu > 1)
        want = np.where(np.isinf(args[0]), 0.0 if method == "pmf" else -np.inf, want)
        got = np.asarray(getattr(getattr(stats, dist), method)(*args.astype(np.float32)),
                         np.float64)
        close = np.isclose(got, want, rtol=1e-5, atol=0, equal_nan=True) | (got == want)
        bad = np.flatnonzero(~close)
        assert not bad.size, [(f"{dist}.{method}{tuple(args[:, i])}", got[i], want[i])
                              for i in bad[:4]]


# NumPy's bin estimators see the caller's data: integer data gets bins at least 1 wide
# and the estimate uses the data's own precision. jnp.histogram ran them on a float copy
# (diff_numpy_stats.py: histogram(int64 [1, 1, 1, 2, 100], 'doane', range=(-3, 3)) had
# 28 bins, NumPy 6). Every estimator, on integer and float data, with and without range.
_ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


@pytest.mark.parametrize("bins", _ESTIMATORS)
def test_histogram_estimators_use_the_callers_data(bins):
    rng = np.random.default_rng(2112)
    datasets = [np.array([1, 1, 1, 2, 100], np.int64), rng.integers(-4, 5, 40).astype(np.int32),
                rng.integers(0, 3, 25).astype(np.uint8), rng.normal(size=33).astype(np.float32),
                np.array([True, False, True, True])]
    for x in datasets:
        for range_ in (None, (-3.0, 3.0)):
            label = f"histogram({x.dtype}{x.shape}, {bins!r}, range={range_})"
            with warnings.catch_warnings():  # NumPy: bool converted, 'stone' suboptimal
                warnings.simplefilter("ignore")
                want_counts, want_edges = np.histogram(x, bins, range_)
                got_counts, got_edges = jnp.histogram(x, bins, range_)
                got_only_edges = jnp.histogram_bin_edges(x, bins, range_)
            for got in (got_edges, got_only_edges):
                assert got.shape == want_edges.shape, (label, got.shape, want_edges.shape)
                np.testing.assert_allclose(np.asarray(got), want_edges, rtol=1e-6, atol=1e-6,
                                           err_msg=label)
            np.testing.assert_array_equal(np.asarray(got_counts), want_counts, err_msg=label)
