"""Complex arithmetic at the ends of the exponent range and at infinite/zero bases, found
by benchmarks/diff_complex.py: division, reciprocal, sign and power, eagerly, under jit,
under the reference interpreter and under vmap, against references that do not share
tjit's arithmetic (exact rational quotients, float64 angles, the limits of |x|**y)."""

from fractions import Fraction

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.primitives import complex_scaled

INF = np.inf
MODES = ["eager", "jit", "interp", "vmap"]
DTYPES = [np.complex64, np.complex128]


@pytest.fixture(autouse=True)
def _x64():
    with tjit.enable_x64(True):
        yield


def _run(mode, f, *args):
    if mode == "eager":
        return np.asarray(f(*(jnp.asarray(a) for a in args)))
    if mode == "jit":
        return np.asarray(tjit.jit(f)(*args))
    if mode == "interp":
        return np.asarray(tjit.jit(f, backend="interpreter")(*args))
    return np.asarray(tjit.vmap(f)(*args))


def _complex(re, im, dtype):
    z = np.zeros(np.broadcast(re, im).shape, dtype)
    z.real, z.imag = re, im
    return z


def _exact_quotient(a, c):
    """a / c from exact rationals, rounded once to float64 (inf past the range)."""
    ar, ai, cr, ci = (Fraction(v) for v in (a.real, a.imag, c.real, c.imag))
    den = cr * cr + ci * ci
    return complex(*(_to_float(f) for f in ((ar * cr + ai * ci) / den,
                                             (ai * cr - ar * ci) / den)))


def _rounded(want, dtype):
    """float64 references rounded to ``dtype`` (past complex64's range: inf), as complex128."""
    with np.errstate(over="ignore"):
        return np.asarray(want).astype(dtype).astype(np.complex128)


def _exact_inverse_power(v, k):
    """1 / v**k from exact rationals, rounded once to float64."""
    vr, vi = Fraction(v.real), Fraction(v.imag)
    n2 = vr * vr + vi * vi
    qr, qi = vr / n2, -vi / n2  # 1 / v
    pr, pi = Fraction(1), Fraction(0)
    for _ in range(k):
        pr, pi = pr * qr - pi * qi, pr * qi + pi * qr
    return complex(*(_to_float(f) for f in (pr, pi)))


def _to_float(f):
    try:
        return float(f)
    except OverflowError:
        return INF if f > 0 else -INF


def _range_operands(dtype, n=96, seed=0):
    """Pairs whose exponents span the whole range, subnormals included, so that the
    denominator (or the numerator) is tiny or huge and the quotient still finite."""
    rng = np.random.default_rng(seed)
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    lo, hi = fi.minexp - fi.nmant + 2, fi.maxexp - 1  # smallest subnormal .. top
    ex_y = rng.integers(lo, hi, n)
    ex_x = np.clip(ex_y + rng.integers(-20, 20, n), lo, hi)  # quotients near 1e+-6

    def parts(ex):
        return np.ldexp(rng.uniform(0.5, 1, (2, n)) * rng.choice([-1, 1], (2, n)), ex)

    xr, xi = parts(ex_x)
    yr, yi = parts(ex_y)
    # one part much smaller (or zero) in some elements: Smith's ratio is tiny there
    yi[::4] = yi[::4] * 2.0 ** -30
    xi[1::5] = 0.0
    return _complex(xr, xi, dtype), _complex(yr, yi, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_division_across_the_exponent_range(dtype, mode):
    # NumPy's complex division multiplies by 1 / (d + c*r): it overflowed for denominators
    # below 1/max (1 / 1e-310j was nan - inf j) and lost digits above 2**(emax - 2)
    x, y = _range_operands(dtype)
    got = _run(mode, lambda a, b: a / b, x, y)
    assert got.dtype == dtype
    want = _rounded([_exact_quotient(complex(a), complex(c)) for a, c in zip(x, y)], dtype)
    eps = np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    err = np.abs(got.astype(np.complex128) - want) / np.abs(want)
    assert np.all(np.isfinite(got)), got[~np.isfinite(got)]
    assert np.max(err) < 8 * eps, (x[np.argmax(err)], y[np.argmax(err)], np.max(err) / eps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_quotients_at_the_edges(dtype, mode):
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    top, sub = float(fi.max), float(fi.smallest_subnormal)
    x = _complex(np.array([top, 1.0, 3 * sub, sub * 8, 1.0]),
                 np.array([top, 0.0, 4 * sub, sub * 8, 0.0]), dtype)
    y = _complex(np.array([1.0, 0.0, 4 * sub, sub * 8, top]),
                 np.array([1.0, 8 * sub, 3 * sub, sub * 8, top]), dtype)
    got = _run(mode, lambda a, b: a / b, x, y)
    want = np.array([_exact_quotient(complex(a), complex(c)) for a, c in zip(x, y)])
    # (max + max j) / (1 + 1j) = max; 1 / (8 sub j) = -1/(8 sub) j (finite in float64,
    # inf in float32); z / z = 1 for subnormal z; 1 / (max + max j) is tiny, not 0 or nan
    np.testing.assert_allclose(got.astype(np.complex128), _rounded(want, dtype),
                               rtol=8 * fi.eps, atol=0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_reciprocal_and_negative_powers_of_tiny_numbers(dtype, mode):
    # each part on its own: 1 / (1e-310j) is 0 - inf j (its real part was nan), and
    # 1 / (a + a j)**2 for a = 2**514 is -2**-1029 j (a**2 overflowed: 0)
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    sub = float(fi.smallest_subnormal)
    big = 2.0 ** ((fi.maxexp + 4) // 2)  # big**2 overflows, 1 / big**2 is finite
    z = _complex(np.array([0.0, 4 * sub, 2.0 ** (fi.minexp - 2), 1.0, 3 * sub, 8 * sub, big]),
                 np.array([2.0 ** (fi.minexp - 1), 4 * sub, 2.0 ** (fi.minexp - 2), 2.0,
                           4 * sub, 0.0, big]), dtype)
    z[0] = complex(0, 8 * sub)
    for f, k in ((jnp.reciprocal, 1), (lambda v: v ** -1, 1), (lambda v: v ** -2, 2)):
        g = _run(mode, f, z).astype(np.complex128)
        want = _rounded([_exact_inverse_power(complex(v), k) for v in z], dtype)
        # past the range, x**-2 is an infinity as C99 counts them (some part infinite:
        # squaring 0 - inf j makes 0 * inf); 1/x still has each part right
        big = np.isinf(want) if k > 1 else np.zeros(want.shape, bool)
        assert np.isinf(g[big]).all(), (k, z, g)
        for gp, wp in ((g.real[~big], want.real[~big]), (g.imag[~big], want.imag[~big])):
            finite = np.isfinite(wp)
            assert not np.isnan(gp[finite]).any(), (k, z, g)
            np.testing.assert_allclose(gp[finite], wp[finite], rtol=8 * fi.eps, atol=0)
            assert (gp[~finite] == wp[~finite]).all(), (k, z, g, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_reciprocal_zero_signs(dtype, mode):
    # JAX 0.10.2's reciprocal and z ** -1 (both dtypes, eager and jit): 1 + 0j over z.
    # NumPy's reciprocal, conj(z) / |z|**2, differs in three of these (0.5 - 0j for
    # 2 + 0j, 0 + 0.5j for -2j, -0 - 0.5j for -0 + 2j); JAX's are followed
    z = np.array([2 + 0j, complex(2, -0.0), complex(-2, 0.0), 2j, complex(0.0, -2),
                  complex(-0.0, 2)], dtype)
    want = [complex(0.5, 0.0), complex(0.5, 0.0), complex(-0.5, -0.0), complex(0.0, -0.5),
            complex(-0.0, 0.5), complex(0.0, -0.5)]
    for f in (jnp.reciprocal, lambda v: v ** -1):
        got = _run(mode, f, z)
        for g, w in zip(got, want):
            assert g == w and np.signbit(g.real) == np.signbit(w.real) and \
                np.signbit(g.imag) == np.signbit(w.imag), (got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_sign_has_magnitude_one_at_every_scale(dtype, mode):
    # sign(z) = z / |z|: |z| rounded to a subnormal made complex64 sign(1e-45 + 1e-45j)
    # 1 + 1j; the reference is the float64 angle (atan2 of the parts: scale-free)
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    rng = np.random.default_rng(3)
    ex = rng.integers(fi.minexp - fi.nmant + 1, fi.maxexp - 1, 64)
    z = _complex(np.ldexp(rng.uniform(-1, 1, 64), ex), np.ldexp(rng.uniform(-1, 1, 64), ex),
                 dtype)
    z[:3] = _complex(np.array([1, 3, 1]) * float(fi.smallest_subnormal),
                     np.array([1, 4, 0]) * float(fi.smallest_subnormal), dtype)
    got = _run(mode, jnp.sign, z).astype(np.complex128)
    theta = np.angle(z.astype(np.complex128))
    want = np.cos(theta) + 1j * np.sin(theta)
    np.testing.assert_allclose(got, want, atol=4 * fi.eps, rtol=0)
    assert _run(mode, jnp.sign, np.zeros(2, dtype)).tolist() == [0, 0]



def _sign_reference(z):
    theta = np.angle(z.astype(np.complex128))
    want = np.cos(theta) + 1j * np.sin(theta)
    return np.where(z == 0, 0, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_sign_at_the_top_of_the_range(dtype, mode):
    # |z| overflowed for parts near max: sign(1.7e308 + 1.7e308j) was 0 + 1j (z / inf)
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    top = float(fi.max)
    z = _complex(np.array([top, top, -top / 2, top, 2.0 ** (fi.maxexp - 2), 1.0]),
                 np.array([top, -top / 3, top, 0.0, 2.0 ** (fi.maxexp - 2), top]), dtype)
    got = _run(mode, jnp.sign, z).astype(np.complex128)
    np.testing.assert_allclose(got, _sign_reference(z), atol=4 * fi.eps, rtol=0)


def _layouts(a):
    """``a`` (1-D, even length) as NumPy lays arrays out: C and Fortran 2-D, a strided
    view, and one element at a time as 0-d arrays."""
    m = a.reshape(2, -1)
    wide = np.zeros((2, 2 * m.shape[1]), a.dtype)
    wide[:, ::2] = m
    return {"c": m, "f": np.asfortranarray(m), "strided": wide[:, ::2]}


def _tiled(size, *arrays):
    """``arrays`` as they are ("small") or repeated past complex_scaled.SMALL elements
    ("large"), where the screens reduce over the parts instead of testing elementwise."""
    if size == "small":
        return arrays
    reps = complex_scaled.SMALL // len(arrays[0]) + 1
    return tuple(np.tile(a, reps) for a in arrays)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", ["small", "large"])
def test_division_screens_every_layout(dtype, size):
    """The common case is screened elementwise on few elements and by reductions over the
    parts' flat view on many: strided and Fortran operands, a scalar denominator, NaN
    among the operands, finite quotients whose sum overflows, a huge denominator among
    ordinary quotients and denominators between sqrt(max) and the huge ones must each
    reach the elements that need redoing, and leave the others NumPy's."""
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    eps, top = fi.eps, float(fi.max)
    x, y = _range_operands(dtype, n=48, seed=5)
    # quotients near max/2 (their sum overflows) and a denominator of 2**(emax/2 + 2)
    x[:2] = _complex(np.full(2, top / 2), np.zeros(2), dtype)
    y[:2] = 1.0
    y[3] = _complex(2.0 ** (fi.maxexp // 2 + 2), 1.0, dtype)
    # a huge denominator whose NumPy quotient is finite and wrong (0: d + c*r overflows)
    huge = _complex(top * 0.9, top * 0.7, dtype)
    x[4], y[4] = _complex(top / 4, top / 8, dtype), huge
    want = _rounded([_exact_quotient(complex(a), complex(c)) for a, c in zip(x, y)], dtype)
    want_huge = _rounded([_exact_quotient(complex(a), complex(huge)) for a in x], dtype)

    def check(got, want):
        got = np.asarray(got).astype(np.complex128)
        np.testing.assert_allclose(got, want, rtol=8 * eps, atol=0)

    # ordinary operands (quotients near 1) with one that only the screen of the
    # quotients (a tiny denominator: NumPy's is inf) or of the denominators (the huge one)
    # can find
    rng = np.random.default_rng(6)
    xo, yo = (_complex(*rng.standard_normal((2, 46)), dtype) for _ in range(2))
    sub = float(fi.smallest_subnormal)
    odd = {"tiny": (_complex(sub, 2 * sub, dtype), _complex(3 * sub, 4 * sub, dtype)),
           "huge": (x[4], huge)}
    operands = [(x, y, want)]
    for a, c in odd.values():
        xs, ys = xo.copy(), yo.copy()
        xs[9], ys[9] = a, c
        operands.append((xs, ys, _rounded([_exact_quotient(complex(u), complex(v))
                                           for u, v in zip(xs, ys)], dtype)))
    for xs, ys, ws in (_tiled(size, *ops) for ops in operands):
        for xl, yl, wl in zip(*(_layouts(v).values() for v in (xs, ys, ws))):
            check(jnp.asarray(xl) / jnp.asarray(yl), wl)
            check(tjit.jit(lambda a, b: a / b)(xl, yl), wl)
    x, y, want, want_huge = _tiled(size, x, y, want, want_huge)
    with_nan = x.copy()
    with_nan[5] = complex(np.nan, 0)
    got = np.asarray(jnp.asarray(with_nan) / jnp.asarray(y)).astype(np.complex128)
    assert np.isnan(got[5])
    check(np.delete(got, 5), np.delete(want, 5))
    # one huge denominator for every numerator (NumPy's 1 / (d + c*r) underflows to 0)
    check(jnp.asarray(x) / jnp.asarray(huge), want_huge)
    check(jnp.asarray(x[7]) / jnp.asarray(y[7]), want[7])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", ["small", "large"])
def test_sign_screens_every_layout(dtype, size):
    """sign's screen reduces over the parts' magnitudes: zeros (common, and fine) must not
    hide a tiny element, nor an infinity or NaN a tiny or huge one."""
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    sub, top = float(fi.smallest_subnormal), float(fi.max)
    z = _complex(np.array([0.0, 3 * sub, 1.0, 0.0, top, -2.0, 0.0, sub]),
                 np.array([0.0, 4 * sub, 2.0, 0.0, top, 0.0, 0.0, -sub]), dtype)
    z, = _tiled(size, z)
    want = _sign_reference(z)
    for zl, wl in zip(_layouts(z).values(), _layouts(want).values()):
        got = np.asarray(jnp.sign(jnp.asarray(zl))).astype(np.complex128)
        np.testing.assert_allclose(got, wl, atol=4 * fi.eps, rtol=0)
    for bad in (complex(np.inf, 1.0), complex(np.nan, 0.0)):
        zb = z.copy()
        zb[3] = bad
        got = np.asarray(jnp.sign(jnp.asarray(zb))).astype(np.complex128)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(got[3], np.sign(zb[3:4]).astype(np.complex128)[0])
        np.testing.assert_allclose(np.delete(got, 3), np.delete(want, 3), atol=4 * fi.eps,
                                   rtol=0)
    for v in z[:8]:
        got = np.asarray(jnp.sign(jnp.asarray(np.asarray(v)))).astype(np.complex128)
        np.testing.assert_allclose(got, _sign_reference(np.asarray(v)), atol=4 * fi.eps)


_BASES = [complex(INF, 0), complex(-INF, 0), complex(0, INF), complex(0, -INF),
          complex(INF, INF), complex(INF, 1.0), complex(-INF, 1.0), 0j, complex(-0.0, 0.0),
          complex(0.0, -0.0), complex(-0.0, -0.0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["eager", "jit", "interp"])
@pytest.mark.parametrize("y", [0.5, 2.5, -0.5, -1.0, -2.0, 3.0])
def test_power_of_infinite_and_zero_bases(dtype, mode, y):
    # |x ** y| = |x| ** y: an infinity or a zero, never NaN (NumPy multiplied (y + 0j) *
    # log(x) as complex numbers: (inf + 0j) ** 0.5 was inf + nan j, ** -1.0 nan + nan j)
    x = np.array(_BASES, dtype)
    got = _run(mode, lambda b: jnp.power(b, y), x)
    assert got.dtype == dtype
    assert not np.isnan(got).any(), got
    infinite = np.isinf(np.abs(x)) == (y > 0)
    assert np.isinf(got[infinite]).all(), got
    assert (got[~infinite] == 0).all(), got
    # a positive real base stays real: (inf + 0j) ** y is inf + 0j or 0
    assert got[0].imag == 0


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_power_intermediate_overflow_complex64(mode):
    # complex64 (1e30j) ** -2.0 multiplied out overflowed to nan; right: -1e-60 -> -0
    x = np.array([1e30j, 3e19 + 0j, 1e-30j], np.complex64)
    got = _run(mode, lambda b: jnp.power(b, -2.0), x)
    want = _rounded(1 / (x.astype(np.complex128) * x.astype(np.complex128)), np.complex64)
    assert not np.isnan(got).any(), got
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-5,
                               atol=float(np.finfo(np.float32).smallest_subnormal))
    assert np.isinf(got[~np.isfinite(want)]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_sinc_of_tiny_complex(dtype):
    # sin(pi z) / (pi z) divided two subnormals: complex64 sinc(1e-45j) was inf + nan j
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    z = _complex(np.array([0.0, 1.0]) * float(fi.smallest_subnormal),
                 np.array([1.0, 1.0]) * float(fi.smallest_subnormal), dtype)
    for mode in ("eager", "jit"):
        np.testing.assert_allclose(_run(mode, jnp.sinc, z), [1, 1], rtol=fi.eps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["eager", "jit", "vmap"])
def test_reciprocals_inside_other_functions(dtype, mode):
    # logistic and rsqrt divided with NumPy's complex "/", not div_p's: logistic(-1000 + 1j)
    # = 1 / (1 + e**1000 e**-1j) was nan + nan j (right 0, as JAX), rsqrt(inf + inf j) nan
    from tjit import lax
    z = np.array([complex(-1000, 1), complex(-800, 3), complex(1000, 1), 0.5 + 0.25j], dtype)
    got = _run(mode, lax.logistic, z).astype(np.complex128)
    w = z.astype(np.complex128)[3]
    assert np.abs(got[:2]).max() == 0 and got[2] == 1, got
    np.testing.assert_allclose(got[3], 1 / (1 + np.exp(-w)), rtol=8 * np.finfo(dtype).eps)
    z = np.array([complex(INF, INF), complex(INF, 1.0), complex(1.0, INF), 4 + 0j], dtype)
    got = _run(mode, lax.rsqrt, z)
    assert (got[:3] == 0).all() and got[3] == 0.5, got


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.filterwarnings("error::RuntimeWarning")    # (the screen itself is quiet)
def test_quick_division_screen_implies_the_exact_one(dtype):
    """On few elements the division's screen first asks whether the sums of squared
    magnitudes of the quotients and of the denominators are finite (two vdots). It may
    pass only where the exact tests pass (every quotient part finite, no denominator part
    above the plain range), whatever the exponents, zeros, infinities and NaNs; and it
    passes on ordinary operands, so that the common case takes it."""
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    _, hi = complex_scaled._plain_range(fi.dtype)
    rng = np.random.default_rng(11)
    specials = np.array([0.0, -0.0, INF, -INF, np.nan, float(fi.max), float(fi.tiny),
                         float(fi.smallest_subnormal)])
    passed = 0
    for trial in range(400):
        n = int(rng.integers(1, 9))
        ex = rng.integers(fi.minexp - fi.nmant, fi.maxexp, (4, n))
        v = np.ldexp(rng.uniform(-1, 1, (4, n)), ex)
        if trial % 2:   # some parts special
            pick = rng.random((4, n)) < 0.2
            v[pick] = rng.choice(specials, pick.sum())
        x, y = _complex(v[0], v[1], dtype), _complex(v[2], v[3], dtype)
        with np.errstate(all="ignore"):
            q = x / y
            exact = complex_scaled._all_finite(np, q) and complex_scaled._no_part_above(np, y, hi)
        if complex_scaled._squares_finite(np, q, y):
            passed += 1
            assert exact, (x, y, q)
    assert passed > 10     # (the random exponents do give passing cases)
    xo, yo = (_complex(*rng.standard_normal((2, 16)), dtype) for _ in range(2))
    assert complex_scaled._squares_finite(np, xo / yo, yo)
    assert complex_scaled._squares_finite(np, (xo / yo[0])[:, None], yo[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_quick_sign_screen_implies_the_exact_one(dtype):
    """sign's screen on few elements first tests the sum of squared magnitudes and the
    parts' smallest exponent: it may pass only where the exact screen (every part 0 or
    in [lo, hi]) does, at every exponent, with zeros, subnormals, infinities and NaN;
    and it passes ordinary values with zeros among them."""
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    lo, hi, lo_bits = complex_scaled._sign_range(fi.dtype)
    rng = np.random.default_rng(12)
    specials = np.array([0.0, -0.0, INF, -INF, np.nan, float(fi.max), float(fi.tiny),
                         float(fi.smallest_subnormal), float(lo), float(lo) / 2, float(hi)])
    passed = 0
    for trial in range(400):
        n = int(rng.integers(1, 9))
        v = np.ldexp(rng.uniform(-1, 1, (2, n)),
                     rng.integers(fi.minexp - fi.nmant, fi.maxexp, (2, n)))
        if trial % 2:
            pick = rng.random((2, n)) < 0.3
            v[pick] = rng.choice(specials, pick.sum())
        z = _complex(v[0], v[1], dtype)
        flat = z.view(fi.dtype)
        with np.errstate(all="ignore"):
            exact = complex_scaled._parts_zero_or_in(np.abs(flat), hi, lo_bits)
        if complex_scaled._parts_quick_in(np, z, flat):
            passed += 1
            assert exact, z
    assert passed > 10
    z = _complex(*rng.standard_normal((2, 16)), dtype)
    z[::5] = 0
    assert complex_scaled._parts_quick_in(np, z, z.view(fi.dtype))
