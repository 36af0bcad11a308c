"""Statistics, rounding and interpolation against independent references where the
differential hunt (benchmarks/diff_numpy_stats.py) found tjit wrong:

- jnp.round with negative decimals scaled by an inexact 10**d (float32 round(-16500, -3)
  was -15999.999), and overflowed for scales past the dtype (round(1e300, 10) was inf,
  round(1.5, 309) raised OverflowError);
- quantile/percentile interpolated between an infinite and another value to NaN
  (quantile([-inf, -inf, 1, inf], 0.2) was NaN, the limit is -inf);
- interp gave NaN next to an infinite fp (interp(2, [0, 2, 4], [0, inf, 20]) is inf),
  complex fp with an infinite part gained a NaN imaginary part, left/right with a period
  raised (NumPy and JAX ignore them), and JAX's left/right='extrapolate' was refused;
- cov/corrcoef of no variables (m of shape (0, n)) raised IndexError;
- (x64 off, mixed dtypes) cov/corrcoef of one observation row with rowvar=False ((1, n):
  n variables, NumPy 2 and JAX transpose every 2-D input) gave one variable, shape ();
- digitize took sorted bins ending in NaN (np.sort's order) for decreasing ones
  (digitize(True, [-1, .., 3, nan]) was 4, NumPy 5), and with right=True put a NaN x
  after the NaN bins (searchsorted side='left' puts it before them).
"""

import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

PATHS = {"eager": lambda f: f, "jit": tjit.jit}


# -- round ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("decimals", [-1, -2, -3, -4])
def test_round_negative_decimals_float32_is_a_multiple(path, decimals):
    # integers and halves: the float64 reference rounds them exactly (10**-d divides)
    k = np.arange(-30000, 30000, 7)
    x = (k + 0.5 * (k % 2)).astype(np.float32)
    got = np.asarray(PATHS[path](lambda v: jnp.round(v, decimals))(x))
    want = np.round(x.astype(np.float64), decimals).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert (np.remainder(got.astype(np.float64), 10.0 ** -decimals) == 0).all()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("value,decimals", [(1e300, 10), (1e300, 300), (-1.5, 309),
                                            (1e-310, 400), (123.456, 320), (3.0, -400),
                                            (-3.0, -400), (1e300, -400), (2.0 ** 60, 3)])
def test_round_float64_scale_past_the_range(path, value, decimals, x64):
    # Python's round of a float is correctly rounded: an independent reference
    got = PATHS[path](lambda v: jnp.round(v, decimals))(np.float64(value))
    want = round(value, decimals)
    assert float(got) == want and math.copysign(1, float(got)) == math.copysign(1, want)


@pytest.mark.parametrize("path", PATHS)
def test_round_float32_scale_past_the_range(path):
    x = np.array([1.5, -2.25, 3e38, 1e30, 0.0, np.nan, np.inf, -np.inf], np.float32)
    got = np.asarray(PATHS[path](lambda v: jnp.round(v, 39))(x))
    np.testing.assert_array_equal(got, x)  # each already whole at 10**-39
    got = np.asarray(PATHS[path](lambda v: jnp.round(v, 10))(x))
    np.testing.assert_array_equal(got[2:4], x[2:4])  # x * 1e10 overflows; x is its answer
    got = np.asarray(PATHS[path](lambda v: jnp.round(v, -39))(x))
    np.testing.assert_array_equal(got, [0, -0.0, 0, 0, 0, np.nan, np.inf, -np.inf])
    assert np.signbit(got[1])


# -- quantiles with infinities ------------------------------------------------------------------
METHODS = ("linear", "midpoint", "hazen", "weibull", "median_unbiased", "normal_unbiased",
           "interpolated_inverted_cdf", "averaged_inverted_cdf", "lower", "higher", "nearest",
           "closest_observation", "inverted_cdf")


def _limit_reference(x, q, method, big=1e300):
    """NumPy's quantile of ``x`` with each infinity replaced by a huge finite value of its
    sign, mapped back to inf: the limit that the infinite data stands for."""
    r = np.quantile(np.where(np.isinf(x), np.sign(x) * big, x), q, method=method)
    return np.where(np.abs(r) > big * 1e-6, np.sign(r) * np.inf, r)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("sign", [1, -1])
def test_quantile_next_to_infinities_is_the_limit(method, sign, x64):
    rng = np.random.default_rng(3)
    q = np.linspace(0, 1, 21)
    for n in (2, 3, 5, 8):
        x = rng.standard_normal(n)
        x[rng.choice(n, size=int(rng.integers(1, n)), replace=False)] = sign * np.inf
        want = _limit_reference(x, q, method)
        np.testing.assert_allclose(jnp.quantile(x, q, method=method), want, rtol=1e-13)
        np.testing.assert_allclose(tjit.jit(lambda v: jnp.percentile(
            v, q * 100, method=method))(x), want, rtol=1e-13)  # (q * 100 / 100 != q)
        xn = np.concatenate([x, [np.nan]])
        np.testing.assert_allclose(jnp.nanquantile(xn, q, method=method), want, rtol=1e-13)


def test_quantile_between_minus_and_plus_infinity_is_nan(x64):
    x = np.array([-np.inf, np.inf])
    np.testing.assert_array_equal(jnp.quantile(x, np.array([0.0, 0.3, 0.5, 1.0])),
                                  [-np.inf, np.nan, np.nan, np.inf])


# -- interp ----------------------------------------------------------------------------------------
INF_TABLES = [([0.0, 2, 4], [0.0, np.inf, 20]), ([0.0, 2, 4], [np.inf, np.inf, 20]),
              ([0.0, 2, 4], [-np.inf, 0, np.inf]), ([0.0, 1, 2, 3], [1.0, -np.inf, -np.inf, 5]),
              ([0.0, 2, 4], [0.0, np.nan, 20])]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("xp,fp", INF_TABLES)
def test_interp_with_infinite_fp_is_numpys(path, xp, fp, x64):
    x = np.array([-1.0, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, np.nan])
    xp, fp = np.array(xp), np.array(fp)
    got = PATHS[path](jnp.interp)(x, xp, fp)
    np.testing.assert_array_equal(got, np.interp(x, xp, fp))
    with np.errstate(invalid="ignore"):  # (1j * inf has a NaN real part)
        fc = fp + 1j * fp[::-1]  # complex: each part interpolated apart, as NumPy
    np.testing.assert_array_equal(PATHS[path](jnp.interp)(x, xp, fc), np.interp(x, xp, fc))


@pytest.mark.parametrize("path", PATHS)
def test_interp_period_ignores_left_and_right(path, x64):
    # NumPy and JAX document left/right as ignored with a period; tjit raised ValueError
    x, xp, fp = np.array([-1.0, 0.5, 3, 7.5]), np.array([0.0, 1, 2]), np.array([0.0, 2, 3])
    got = PATHS[path](lambda *a: jnp.interp(*a, left=1.0, right=-2.0, period=2.5))(x, xp, fp)
    np.testing.assert_allclose(got, np.interp(x, xp, fp, period=2.5), rtol=1e-14)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("left,right", [("extrapolate", None), (None, "extrapolate"),
                                        ("extrapolate", "extrapolate"), (-5.0, "extrapolate")])
def test_interp_extrapolate_extends_the_end_segments(path, left, right, x64):
    # JAX's left/right='extrapolate' (tjit took the string for a dtype): the lines
    # through the first two and the last two points, computed here by hand
    x, xp, fp = np.array([-1.0, 0.5, 3, 7.5]), np.array([0.0, 1, 2]), np.array([0.0, 2, 3])
    want = np.interp(x, xp, fp, left=left if left != "extrapolate" else None,
                     right=right if right != "extrapolate" else None)
    if left == "extrapolate":
        want[0] = fp[0] + (x[0] - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0])
    if right == "extrapolate":
        want[2:] = fp[2] + (x[2:] - xp[2]) * (fp[2] - fp[1]) / (xp[2] - xp[1])
    got = PATHS[path](lambda *a: jnp.interp(*a, left=left, right=right))(x, xp, fp)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    fc = fp + 1j * fp[::-1]  # complex: each part as the real case
    got = PATHS[path](lambda *a: jnp.interp(*a, left=left, right=right))(x, xp, fc)
    re = jnp.interp(x, xp, fp, left=left, right=right)
    im = jnp.interp(x, xp, fp[::-1], left=0.0 if left == -5.0 else left, right=right)
    np.testing.assert_allclose(got, np.asarray(re) + 1j * np.asarray(im), rtol=1e-14)


def test_interp_bad_string_is_named():
    with pytest.raises(ValueError, match="only string value of left is 'extrapolate'"):
        jnp.interp(jnp.ones(2), jnp.arange(2.0), jnp.arange(2.0), left="linear")


def test_interp_gradient_at_a_node_is_the_right_slope(x64):
    xp, fp = jnp.array([0.0, 1, 2]), jnp.array([0.0, 3, 4])
    assert float(tjit.grad(lambda v: jnp.interp(v, xp, fp))(1.0)) == 1.0
    assert float(tjit.grad(lambda v: jnp.interp(v, xp, fp))(0.5)) == 3.0


# -- cov of no variables --------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"rowvar": False}, {"bias": True},
                                {"fweights": np.array([1, 2, 1]),
                                 "aweights": np.array([0.5, 1.0, 2.0])}])
def test_cov_of_no_variables_is_empty(kw, x64):
    m = np.zeros((0, 3)) if kw.get("rowvar", True) else np.zeros((3, 0))
    got = jnp.cov(m, **kw)
    assert got.shape == np.cov(m, **kw).shape == (0, 0)
    assert jnp.corrcoef(m, rowvar=kw.get("rowvar", True)).shape == (0, 0)
    assert tjit.jit(lambda v: jnp.cov(v, **kw))(m).shape == (0, 0)


def test_cov_weights_unchanged(x64):
    m = np.array([[1.0, 2, 4, 7], [0, 3, 3, -1]])
    fw, aw = np.array([1, 2, 1, 3]), np.array([0.5, 1.0, 2.0, 0.25])
    for kw in ({"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw, "ddof": 2},
               {"aweights": aw, "bias": True}):
        np.testing.assert_allclose(jnp.cov(m, **kw), np.cov(m, **kw), rtol=1e-12)


# -- cov/corrcoef of one row with rowvar=False --------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("shape", [(1, 5), (1, 1), (3, 1), (2, 4)])
def test_cov_rowvar_false_transposes_every_2d_input(path, shape):
    rng = np.random.default_rng(19)
    m = rng.standard_normal(shape).astype(np.float32)
    m64 = m.astype(np.float64)
    got = np.asarray(PATHS[path](lambda v: jnp.cov(v, rowvar=False, bias=True))(m))
    want = np.cov(m64, rowvar=False, bias=True)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got = np.asarray(PATHS[path](lambda v: jnp.corrcoef(v, rowvar=False))(m))
    with np.errstate(all="ignore"):
        want = np.corrcoef(m64, rowvar=False)
    assert got.shape == want.shape


# -- digitize with NaN in the bins ---------------------------------------------------------------
BINS_WITH_NAN = [[-1.0, 0.2, 1.0, 1.1, 3.0, np.nan], [0.0, 0.0, 1.0, np.nan, np.nan],
                 [np.nan, 3.0, 2.0, 1.0], [np.nan, np.nan, 3.0, 2.0], [np.nan, np.nan],
                 [np.nan], [2.0, 2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [5.0]]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", BINS_WITH_NAN, ids=str)
@pytest.mark.parametrize("xdtype", [np.float32, np.int32, np.bool_])
def test_digitize_bins_with_nan_follow_numpy(path, right, bins, xdtype):
    x = np.array([-2.0, 0.0, 1.0, 1.5, 2.0, 4.0, np.nan])
    x = x if xdtype == np.float32 else np.nan_to_num(x)
    x = x.astype(xdtype)
    b = np.array(bins, np.float32)
    got = np.asarray(PATHS[path](lambda v, bb: jnp.digitize(v, bb, right=right))(x, b))
    want = np.digitize(x.astype(np.float64), b.astype(np.float64), right=right)
    np.testing.assert_array_equal(got, want)


# -- interp with one node ------------------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fp", [[1.5], [-1 - 0.25j]], ids=str)
def test_interp_one_node_nan_x_is_the_node_value(path, fp):
    x = np.array([np.nan, 3.0, 2.0, 1.0])
    xp, fp = np.array([2.0]), np.array(fp)
    for kw in ({}, {"left": -1.0, "right": 5.0}):
        got = np.asarray(PATHS[path](lambda v: jnp.interp(v, xp, fp, **kw))(x))
        np.testing.assert_allclose(got, np.interp(x, xp, fp, **kw), rtol=1e-6)
