"""Defects found by the differential hunt benchmarks/diff_fft_poly.py (jnp.fft, polynomials,
quantiles and NumPy's numerical functions), each checked against NumPy in float64."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def test_poly_of_no_roots_is_the_scalar_one():
    # NumPy (and JAX) return the empty product as a 0-d 1.0, not a length-1 polynomial
    want = np.poly(np.zeros((0,)))
    for got in (jnp.poly(jnp.zeros((0,))), tjit.jit(jnp.poly)(jnp.zeros((0,)))):
        assert np.shape(got) == np.shape(want) == ()
        np.testing.assert_array_equal(np.asarray(got), want)


_VIRTUAL_INDEX_METHODS = ("averaged_inverted_cdf", "closest_observation",
                          "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                          "normal_unbiased")


@pytest.mark.parametrize("method", _VIRTUAL_INDEX_METHODS)
def test_quantile_methods_beyond_jax_match_numpy(method, x64):
    # NumPy's other seven methods (JAX raises for them): every slice length 1..6 and q on
    # a fine grid (ties of the virtual index included: float64, as the discrete methods
    # jump there), eager and under jit
    rng = np.random.default_rng(3)
    q = np.linspace(0, 1, 41)
    for n in range(1, 7):
        a = rng.standard_normal((3, n))
        want = np.quantile(a, q, axis=1, method=method)
        for fn in (jnp.quantile, tjit.jit(jnp.quantile, static_argnames=("axis", "method"))):
            got = np.asarray(fn(a, q, axis=1, method=method))
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    x = rng.standard_normal(9).astype(np.float32)
    pct = jnp.percentile(x, 30.0, method=method)
    assert pct.dtype == np.float32
    np.testing.assert_allclose(pct, np.percentile(x, 30.0, method=method), rtol=1e-6)


@pytest.mark.parametrize("method", _VIRTUAL_INDEX_METHODS)
def test_nanquantile_methods_count_the_non_nan_values_per_slice(method):
    a = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    a[0, 1] = a[1, :4] = a[3, :] = np.nan  # 5, 2, 6 and 0 values
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 1.0], np.float32)
    want = np.nanquantile(a.astype(np.float64), q.astype(np.float64), axis=1, method=method)
    got = tjit.jit(lambda a: jnp.nanquantile(a, q, axis=1, method=method))(a)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ("hazen", "averaged_inverted_cdf"))
def test_quantile_method_gradient_matches_finite_differences(method, x64):
    a = np.random.default_rng(5).standard_normal(7)
    q = np.array([0.2, 0.5, 0.9])
    w = np.array([1.0, -2.0, 0.5])
    got = np.asarray(tjit.grad(lambda a: (jnp.quantile(a, q, method=method) * w).sum())(a))
    eps = 1e-6
    fd = np.array([((np.quantile(a + eps * e, q, method=method)
                     - np.quantile(a - eps * e, q, method=method)) * w).sum() / (2 * eps)
                   for e in np.eye(7)])
    np.testing.assert_allclose(got, fd, atol=1e-6)


def test_polymul_by_an_empty_polynomial_is_the_zero_polynomial_of_the_others_length():
    b = np.array([1.0, 2.0, 3.0], np.float32)
    want = np.polymul(np.zeros(0), b)  # [0, 0, 0]: NumPy's (and JAX's) empty = [0]
    for got in (jnp.polymul(np.zeros(0, np.float32), b), jnp.polymul(b, np.zeros(0, np.float32))):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("period", (5, 6, 360))
@pytest.mark.parametrize("discont", (None, 2, 4.5))
def test_unwrap_of_integers_with_an_integer_period_is_integer_as_numpy(period, discont):
    # NumPy keeps integers and rounds half a period down (5 -> 2): float arithmetic gave
    # other values (and a float dtype)
    p = np.random.default_rng(6).integers(-400, 400, (3, 9)).astype(np.int32)
    want = np.unwrap(p, discont=discont, period=period, axis=1)
    for fn in (jnp.unwrap, tjit.jit(jnp.unwrap, static_argnames=("discont", "period", "axis"))):
        got = fn(p, discont=discont, period=period, axis=1)
        assert got.dtype == want.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), want)


def test_unwrap_of_fewer_than_two_values_is_the_input():
    for p in (np.zeros(0, np.float32), np.zeros((2, 0), np.float32), np.ones(1, np.float32)):
        np.testing.assert_array_equal(np.asarray(jnp.unwrap(p)), np.unwrap(p))
        np.testing.assert_array_equal(np.asarray(tjit.jit(jnp.unwrap)(p)), np.unwrap(p))


@pytest.mark.parametrize("kw", ({"ddof": 6}, {"ddof": 9}, {"ddof": 8, "aweights": np.ones(6)},
                                {"ddof": 3, "fweights": np.array([1, 0, 0, 0, 0, 1])}))
def test_cov_without_degrees_of_freedom_divides_by_zero_as_numpy(kw):
    # N - ddof <= 0: NumPy divides by 0 (inf); a negative count gave finite, wrongly signed
    # variances
    x = np.random.default_rng(7).standard_normal((2, 6))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.cov(x, **kw)
    for fn in (jnp.cov, tjit.jit(lambda x: jnp.cov(x, **kw))):
        got = fn(x.astype(np.float32), **kw) if fn is jnp.cov else fn(x.astype(np.float32))
        np.testing.assert_array_equal(np.isinf(np.asarray(got)), np.isinf(want))
        np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(want))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        assert np.isnan(np.cov(np.zeros((2, 0)))).all()
    assert np.isnan(np.asarray(jnp.cov(np.zeros((2, 0), np.float32)))).all()


@pytest.mark.parametrize("name", ("fweights", "aweights"))
def test_cov_rejects_negative_weights_as_numpy(name):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=f"jnp.cov: {name} cannot be negative"):
        jnp.cov(x, **{name: np.array([1, -1, 2])})


def test_histogram_of_no_data_under_jit_has_numpys_unit_range():
    want_counts, want_edges = np.histogram(np.zeros(0), 3)
    for fn in (jnp.histogram, tjit.jit(jnp.histogram, static_argnames="bins")):
        counts, edges = fn(np.zeros(0, np.float32), bins=3)
        np.testing.assert_array_equal(np.asarray(counts), want_counts)
        np.testing.assert_allclose(np.asarray(edges), want_edges, rtol=1e-6)


@pytest.mark.parametrize("bins", ("auto", "fd", "doane", "scott", "stone", "rice", "sturges",
                                  "sqrt"))
def test_histogram_bin_estimators_match_numpy_on_concrete_data(bins):
    a = np.random.default_rng(8).standard_normal(50).astype(np.float32)
    want_counts, want_edges = np.histogram(a, bins)
    counts, edges = jnp.histogram(a, bins)
    np.testing.assert_array_equal(np.asarray(counts), want_counts)
    np.testing.assert_allclose(np.asarray(edges), want_edges, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.histogram_bin_edges(a, bins, range=(-1, 2))),
                               np.histogram_bin_edges(a, bins, range=(-1, 2)), rtol=1e-6)


def test_histogram_bin_estimator_under_jit_says_why_it_cannot():
    with pytest.raises(TypeError, match=r"bins='fd' makes the number of bins depend on the "
                                        r"data.*pass an integer number of bins"):
        tjit.jit(lambda a: jnp.histogram(a, "fd"))(np.ones(4, np.float32))


def test_digitize_returns_int32_as_jax_under_x64(x64):
    x, bins = np.array([-1.0, 0.5, 3.0]), np.array([0.0, 1.0, 2.0])
    for b in (bins, bins[::-1].copy(), np.zeros(0)):
        got = jnp.digitize(x, b)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), np.digitize(x, b))


def test_trapezoid_over_no_samples_is_zero_as_numpy():
    for y, x in ((np.zeros(0, np.float32), None), (np.zeros((2, 0), np.float32), None),
                 (np.zeros(0, np.float32), np.zeros(0, np.float32))):
        want = np.trapezoid(y, x)
        for fn in (jnp.trapezoid, tjit.jit(jnp.trapezoid)):
            np.testing.assert_array_equal(np.asarray(fn(y, x)), want)


@pytest.mark.parametrize("name", ("fftn", "ifftn", "rfftn", "irfftn", "fft2", "irfft2"))
@pytest.mark.parametrize("s", ((-1, 3), (6, -1), (-1, -1)))
def test_fft_lengths_of_minus_one_take_the_axis_length_as_numpy(name, s):
    x = np.random.default_rng(9).standard_normal((4, 5))
    if not name.startswith("rfft"):
        x = x + 1j * np.random.default_rng(10).standard_normal((4, 5))
    want = getattr(np.fft, name)(x, s=s, axes=(0, 1))
    got = getattr(jnp.fft, name)(x.astype(np.complex64 if x.dtype.kind == "c" else np.float32),
                                 s=s, axes=(0, 1))
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axes", ((1, 1), (0, 1, 0), (-1, 1)))
def test_fftshift_rolls_a_repeated_axis_once_per_mention(axes):
    x = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    for name in ("fftshift", "ifftshift"):
        np.testing.assert_array_equal(np.asarray(getattr(jnp.fft, name)(x, axes=axes)),
                                      getattr(np.fft, name)(x, axes=axes))


def test_histogramdd_of_a_1d_sample_is_one_dimensional_as_numpy():
    s = np.random.default_rng(11).standard_normal(30).astype(np.float32)
    want, want_edges = np.histogramdd(s, bins=4)
    got, edges = jnp.histogramdd(s, bins=4)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert len(edges) == 1
    np.testing.assert_allclose(np.asarray(edges[0]), want_edges[0], rtol=1e-6)
