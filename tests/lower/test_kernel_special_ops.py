"""erfc, lgamma, digamma, nextafter, population_count (and clz through it) as fused
kernel ops.

mathlib_special's functions alone (LLVM, both precisions): float32 over ~1.4M points
(random bit patterns, every exponent, dense ranges, negative halves, the neighbourhoods
of the poles) against SciPy in float64; float64 over ~10k points per function against
mpmath at 40 digits (SciPy's float64 erfc is itself 500 ulp off near x = 25); the
docstring's bounds are asserted, and near the zeros of lgamma and digamma on the
negative axis the absolute error. Special values (+-0, +-inf, NaN, poles, subnormals,
huge x) bit for bit against the reference semantics (kernel_semantics: the primitives'
impls: SciPy's values at the poles). Through the public API: each op is one kernel with
no library step, jit agrees with eager, and the two benchmark programs (a Poisson
log-likelihood with lgamma, a norm.logcdf-style erfc chain) fuse. The C family runs
the special ops in tests/lower/kernel_corpus.py's ``special_*`` cases.
"""


import mpmath
import numpy as np
import pytest
import scipy.special as sc

import tjit
import tjit.numpy as jnp
from tests.lower.test_mathlib import HAVE_LD, LD, compiled, sweep32, ulp_error
from tjit import lax
from tjit.lower.llvm import mathlib, mathlib_special
from tjit.xla_like import kernel_ir as K
from tjit.xla_like import kernel_semantics

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
SPECIAL = ("erfc", "lgamma", "digamma")
#: mathlib_special's docstring table: name -> (float32, float64) max ulp
BOUNDS = {"erfc": (3, 3.5), "lgamma": (1, 3), "digamma": (1, 3)}
#: float64, x < 0: max error in ulps of the reflection's larger term (the table's notes)
NEGATIVE_BOUNDS = {"lgamma": 5, "digamma": 6}


@pytest.fixture(autouse=True)
def x64():
    with tjit.enable_x64(True):
        yield


# ----------------------------------------------------------------------------------------
# References.

def _pole(x):
    return x <= 0 and x == int(x)


def _mp_value(op, x):
    """op(x) by mpmath at 40 digits, with the kernels' values at poles and infinities."""
    if np.isnan(x):
        return float("nan")
    if np.isinf(x):
        return {"erfc": 0.0 if x > 0 else 2.0, "lgamma": float(x),
                "digamma": float("inf") if x > 0 else float("nan")}[op]
    v = mpmath.mpf(float(x))
    if op == "erfc":       # (beyond +-40 the value rounds to 0 / 2 in any precision)
        return mpmath.erfc(v) if abs(x) < 40 else float(x < 0) * 2
    if op == "lgamma":
        return float("inf") if _pole(x) else mpmath.log(abs(mpmath.gamma(v)))
    if x == 0:
        return float("-inf") if np.copysign(1, x) > 0 else float("inf")
    return float("nan") if _pole(x) else mpmath.digamma(v)


def mp_reference(op, x, wide=False):
    """mpmath's op over the array x: rounded to x's dtype, or (``wide``) as long double
    (float64 inputs: the reference an ulp distance is measured against)."""
    with mpmath.workdps(40):
        vals = [_mp_value(op, xi) for xi in np.asarray(x).ravel().tolist()]
    if wide:
        return np.array([LD(mpmath.nstr(v, 30)) if isinstance(v, mpmath.mpf) else LD(v)
                         for v in vals], LD).reshape(np.shape(x))
    with np.errstate(over="ignore"):
        return np.array([float(v) for v in vals], np.float64).astype(np.asarray(x).dtype)


def _scipy64(op, x):
    """The reference semantics in float64 (the primitive impls: SciPy)."""
    with np.errstate(all="ignore"):
        return kernel_semantics.op_impls()[op](x.astype(np.float64), dtype=F64)


def _points32(op, rng):
    """float32 points: the common sweep plus dense ranges, negative halves and the
    neighbourhoods of the poles."""
    extra = [rng.uniform(-30, 30, 200_000), rng.uniform(-3, 3, 100_000),
             np.arange(-60, 60) + 0.5, np.arange(-60, 1)[:, None] + np.float32(1e-3) *
             rng.uniform(-1, 1, (61, 50))]
    if op == "erfc":
        extra.append(rng.uniform(-4, 11, 200_000))
    with np.errstate(all="ignore"):
        return np.concatenate([sweep32()] + [np.ravel(e) for e in extra]).astype(F32)


def _points64(op, rng, n=1200):
    """float64 points: every exponent of both signs, dense ranges, negative halves, the
    poles' and zeros' neighbourhoods, denormals of both signs."""
    mag = 2.0 ** rng.uniform(-1074, 1023.9, n)
    pts = [mag, -mag, rng.uniform(-30, 30, n), rng.uniform(-3, 3, n),
           np.arange(-40, 41) + 0.5, np.arange(-40, 1) + rng.uniform(-1e-6, 1e-6, 41),
           1 + rng.uniform(-1e-3, 1e-3, n // 8), 2 + rng.uniform(-1e-3, 1e-3, n // 8),
           1.4616321449683622 + rng.uniform(-1e-3, 1e-3, n // 8),
           [-5e-324, -1e-310, -2e-308, 5e-324, 1e-310, 2e-308, 2.0 ** 52 + 1,
            -(2.0 ** 52) + 0.5, -(2.0 ** 51) - 0.5]]
    if op == "erfc":
        pts.append(rng.uniform(-6, 27.5, n))
    return np.concatenate(pts)


# ----------------------------------------------------------------------------------------
# The LLVM functions alone.

@pytest.mark.parametrize("op", SPECIAL)
def test_float32_sweep_within_bound(op):
    rng = np.random.default_rng(1)
    x = _points32(op, rng)
    got = compiled(op, F32)(x)
    err = ulp_error(got, _scipy64(op, x), F32)
    i = int(np.argmax(err))
    assert err[i] <= BOUNDS[op][0], (op, x[i], got[i], err[i])


@pytest.mark.skipif(not HAVE_LD, reason="needs 80-bit long double references")
@pytest.mark.parametrize("op", SPECIAL)
def test_float64_sweep_within_bound(op):
    """Against mpmath: ulps of the result; on the negative axis (the reflection formula
    f(x) = f(1 - x) - g(x)) in ulps of the larger of |f(x)| and |f(1 - x)|, which bounds
    the error near the zeros there too."""
    rng = np.random.default_rng(2)
    x = _points64(op, rng)
    ref = mp_reference(op, x, wide=True)
    got = compiled(op, F64)(x)
    err = ulp_error(got, ref, F64)
    if op != "erfc":
        neg = x < 0
        term = np.abs(mp_reference(op, 1 - x[neg], wide=True))
        with np.errstate(all="ignore"):
            scale = np.maximum(np.abs(ref[neg]), term).astype(F64)
            scaled = np.abs(got[neg] - ref[neg]).astype(F64) / np.spacing(scale)
            rounded = ref[neg].astype(F64)
        same = (got[neg] == rounded) | (np.isnan(got[neg]) & np.isnan(rounded))
        scaled = np.where(same, 0.0, np.where(np.isfinite(rounded), scaled, np.inf))
        j = int(np.argmax(scaled))
        assert scaled[j] <= NEGATIVE_BOUNDS[op], (op, x[neg][j], got[neg][j], ref[neg][j])
        err[neg] = 0
    i = int(np.argmax(err))
    assert err[i] <= BOUNDS[op][1], (op, x[i], got[i], ref[i], err[i])


def test_docstring_table_matches_bounds():
    rows = {}
    for line in mathlib_special.__doc__.splitlines():
        words = line.split()
        if len(words) >= 5 and words[0] in SPECIAL:
            rows[words[0]] = (float(words[1]), float(words[3]))
    assert rows == {k: (float(a), float(b)) for k, (a, b) in BOUNDS.items()}


def _edges(dt):
    fi = np.finfo(dt)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, -1.0, -2.0, -3.0, -100.0, 0.5,
         -0.5, -1.5, -2.5, -10.5, 1e-3, float(fi.tiny), float(fi.smallest_subnormal),
         -float(fi.smallest_subnormal), -float(fi.tiny), float(fi.max), -float(fi.max),
         float(fi.max) / 4, 2.0 ** (fi.nmant + 1), -(2.0 ** fi.nmant) - 0.5, 30.0, -30.0,
         10.0, 9.99, 8.0, 7.99, 6.0, 0.6, -0.6, 1.5, 2.5, 0.75]
    return np.array(v).astype(dt)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", SPECIAL)
def test_special_values_are_the_reference_semantics(op, dt):
    """NaN where the reference gives NaN (poles of digamma), the infinities (poles of
    lgamma, overflow), exact zeros (erfc's underflow) and the exact values 0 and 1
    (lgamma(1), lgamma(2), erfc(0)), with their signs."""
    x = _edges(dt)
    got = compiled(op, dt)(x)
    with np.errstate(over="ignore"):
        want = _scipy64(op, x).astype(dt)
    exact = ~np.isfinite(want) | (want == 0) | (want == 1)
    assert (np.isnan(got) == np.isnan(want)).all(), (op, x[np.isnan(got) != np.isnan(want)])
    assert (got[exact & ~np.isnan(want)] == want[exact & ~np.isnan(want)]).all()
    assert (np.signbit(got[exact]) == np.signbit(want[exact])).all()
    nan_in = np.isnan(x)        # the operand's NaN itself, payload kept
    assert (got[nan_in].view(f"u{dt.itemsize}") == x[nan_in].view(f"u{dt.itemsize}")).all()


def test_poles_and_infinities():
    for dt in (F32, F64):
        lg, dg = compiled("lgamma", dt), compiled("digamma", dt)
        poles = np.array([0.0, -0.0, -1.0, -2.0, -7.0, -1e6], dt)
        assert (lg(poles) == np.inf).all() and np.isnan(dg(poles[2:])).all()
        assert list(dg(poles[:2])) == [-np.inf, np.inf]
        assert list(lg(np.array([np.inf, -np.inf], dt))) == [np.inf, -np.inf]
        assert list(dg(np.array([np.inf], dt))) == [np.inf]
        assert np.isnan(dg(np.array([-np.inf], dt))).all()
        assert list(compiled("erfc", dt)(np.array([np.inf, -np.inf, 0.0], dt))) == [0, 2, 1]
    tiny = np.array([5e-324, 1e-310, -1e-310])
    assert compiled("digamma", F64)(tiny)[0] == -np.inf


def test_lgamma_of_denormals_is_minus_log_abs(x64):
    """Below 2**-1022 lgamma(x) = -log|x| to within rounding (the gamma_E * x term is
    < 2**-1000). SciPy gives inf below 1/DBL_MAX (it goes through 1/x) and XLA flushes
    denormals to a pole; the kernel and the eager path both give the true value."""
    tiny = np.array([5e-324, 1e-310, 1.1125369292536007e-308, -5e-324, -1e-310, -2e-308])
    want = np.array([float(mpmath.log(abs(mpmath.gamma(mpmath.mpf(float(v))))))
                     for v in tiny])
    np.testing.assert_allclose(compiled("lgamma", F64)(tiny), want, rtol=1e-15)
    assert np.asarray(jnp.asarray(tiny)).dtype == np.float64     # x64 is on
    for got in (lax.lgamma(jnp.asarray(tiny)), tjit.jit(lax.lgamma)(jnp.asarray(tiny))):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)


def test_emit_math_knows_the_special_functions():
    assert set(mathlib_special.UNARY) <= mathlib.MATH_FUNCTIONS
    assert {mathlib._ELSEWHERE[n] for n in mathlib_special.UNARY} == {"mathlib_special"}
    assert set(mathlib_special.UNARY) <= K.TRANSCENDENTAL_OPS
    assert all(mathlib.arity(n) == 1 for n in SPECIAL)


# ----------------------------------------------------------------------------------------
# nextafter and population_count: exact ops.

def _nextafter_points(dt):
    fi = np.finfo(dt)
    e = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(fi.max),
                  -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal),
                  -float(fi.smallest_subnormal), 2.5, -3.75], dt)
    return np.repeat(e, e.size), np.tile(e, e.size)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_nextafter_is_c_nextafter_bit_for_bit(dt):
    x, y = _nextafter_points(dt)
    rng = np.random.default_rng(4)
    bits = np.dtype(f"u{dt.itemsize}")
    r = rng.integers(0, np.iinfo(bits).max, 4000, dtype=bits, endpoint=True).view(dt)
    x, y = np.concatenate([x, r[:2000]]), np.concatenate([y, r[2000:]])
    f = tjit.jit(lax.nextafter)
    c = f.lower(x, y).compile()
    assert [k for k, _ in c.fusion_summary()] == ["kernel"]
    got = np.asarray(f(x, y))
    with np.errstate(all="ignore"):
        want = np.nextafter(x, y)
    ok = (got.view(bits) == want.view(bits)) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), (x[~ok], y[~ok], got[~ok], want[~ok])


INTS = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                              "uint32", "uint64")]


def _int_points(dt):
    info = np.iinfo(dt)
    rng = np.random.default_rng(6)
    v = [0, 1, 2, 3, info.max, info.min, info.max - 1, info.min + 1]
    r = rng.integers(info.min, info.max, 300, dtype=dt, endpoint=True)
    return np.concatenate([np.array(v, dt), r])


@pytest.mark.parametrize("dt", INTS, ids=lambda d: d.name)
def test_population_count_and_clz_fuse_and_match_a_bit_loop(dt):
    x = _int_points(dt)
    bits = 8 * dt.itemsize
    pattern = [int(v) & ((1 << bits) - 1) for v in x.tolist()]
    want_pop = np.array([bin(p).count("1") for p in pattern]).astype(dt)
    want_clz = np.array([bits - p.bit_length() for p in pattern]).astype(dt)

    def f(v):
        return lax.population_count(v), lax.clz(v)

    c = tjit.jit(f).lower(x).compile()
    assert [k for k, _ in c.fusion_summary()] == ["kernel"]
    pop, clz = tjit.jit(f)(x)
    np.testing.assert_array_equal(np.asarray(pop), want_pop)
    np.testing.assert_array_equal(np.asarray(clz), want_clz)
    assert np.asarray(pop).dtype == dt and np.asarray(clz).dtype == dt


# ----------------------------------------------------------------------------------------
# Through the public API.

def _api_inputs(dt):
    rng = np.random.default_rng(7)
    with np.errstate(over="ignore"):
        return np.concatenate([rng.uniform(-20, 20, 3000), rng.uniform(0, 5, 1000),
                               10.0 ** rng.uniform(-30, 30, 500), _edges(dt)]).astype(dt)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", SPECIAL)
def test_jit_is_one_kernel_and_agrees_with_eager(op, dt):
    fn = getattr(lax, op)
    x = _api_inputs(dt)
    c = tjit.jit(fn).lower(x).compile()
    assert [k for k, _ in c.fusion_summary()] == ["kernel"]
    assert {n.op for k in c.kernels() for n in K.all_nodes(k) if isinstance(n, K.Op)} == {op}
    got = np.asarray(tjit.jit(fn)(x))
    eager = np.asarray(fn(x))
    # specials exactly as eager; values within the bound of SciPy away from the
    # negative zeros (eager is SciPy: itself some ulp off in float64)
    same_nan = np.isnan(got) == np.isnan(eager)
    exact = np.isinf(eager) | (eager == 0)
    assert same_nan.all() and (got[exact] == eager[exact]).all()
    far = (x > 0) | (np.abs(eager) > 1) | (op == "erfc")
    if dt == F32:
        assert ulp_error(got[far], eager[far].astype(np.float64), F32).max() <= BOUNDS[op][0]
    else:
        np.testing.assert_allclose(got[far], eager[far], rtol=1e-12 if op != "erfc" else
                                   1e-9, atol=0)    # (SciPy's erfc tail)


def test_poisson_log_likelihood_fuses_into_one_kernel():
    import tjit.scipy.special as tsp
    rng = np.random.default_rng(8)
    lam = rng.uniform(0.1, 30, 5000)
    k = np.floor(lam * 1.7)

    def ll(lam):
        return jnp.sum(k * jnp.log(lam) - lam - tsp.gammaln(k + 1))

    c = tjit.jit(ll).lower(lam).compile()
    assert [kd for kd, _ in c.fusion_summary()] == ["kernel"]
    want = np.sum(k * np.log(lam) - lam - sc.gammaln(k + 1))
    np.testing.assert_allclose(float(tjit.jit(ll)(lam)), want, rtol=1e-13)
    # its gradient (digamma's derivative rule is not used: d/dlam only) and the
    # gradient with respect to the counts (digamma) fuse as well
    g = tjit.jit(tjit.grad(lambda kk: jnp.sum(tsp.gammaln(kk + 1))))
    assert all(kd == "kernel" for kd, _ in g.lower(k).compile().fusion_summary())
    np.testing.assert_allclose(np.asarray(g(k)), sc.digamma(k + 1), rtol=1e-13)


def test_logcdf_erfc_chain_fuses_into_one_kernel():
    import tjit.scipy.special as tsp
    x = np.linspace(-35, 6, 4001)

    def logcdf(v):
        return jnp.log(0.5 * tsp.erfc(-v * 0.7071067811865476))

    c = tjit.jit(logcdf).lower(x).compile()
    assert [kd for kd, _ in c.fusion_summary()] == ["kernel"]
    got = np.asarray(tjit.jit(logcdf)(x))
    want = mp_reference("erfc", -x * 0.7071067811865476, wide=True)
    want = np.log(0.5 * want.astype(np.float64))
    # the tail (x = -35: erfc ~ 1e-268) keeps full accuracy: no exp(-x^2) rounding loss
    # (atol: log(0.5 * erfc) near 0 cancels in the log, whatever erfc's accuracy)
    np.testing.assert_allclose(got, want, rtol=2e-15, atol=3e-16)


@pytest.mark.parametrize("op", SPECIAL)
def test_broadcast_special_values_are_stored_not_recomputed_per_row(op):
    """f(v) broadcast along 3 rows: exp is recomputed per row (cheaper than storing it),
    the special functions (target.py's measured costs, 9-100x exp's) are stored once;
    with exp's cost they were computed 3 times (lgamma: 11.3 -> 4.9 ms at 3 x 1M)."""
    v = np.linspace(0.5, 30, 256).astype(np.float32)
    m = np.linspace(-1, 1, 3 * 256).reshape(3, 256).astype(np.float32)
    fn = getattr(lax, op)
    plans = {}
    for name, g in (("exp", lax.exp), (op, fn)):
        f = tjit.jit(lambda v, m, g=g: m * g(v)[None, :])
        plans[name] = [kd for kd, _ in f.lower(v, m).compile().fusion_summary()]
        np.testing.assert_allclose(np.asarray(f(v, m)), m * np.asarray(g(v))[None, :],
                                   rtol=1e-6)
    assert plans == {"exp": ["kernel"], op: ["kernel", "kernel"]}


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_small_kernels_call_the_linked_functions_with_the_same_bits(dt):
    """<= 1024 points: the scalar profile calls mathlink's compiled functions instead of
    inlining them; the bits must not change."""
    x = _api_inputs(dt)
    for op in SPECIAL:
        fn = tjit.jit(getattr(lax, op))
        big = np.asarray(fn(x))
        for part in np.array_split(np.arange(x.size), x.size // 1000 + 1):
            small = np.asarray(fn(x[part]))
            np.testing.assert_array_equal(small.view(f"u{dt.itemsize}"),
                                          big[part].view(f"u{dt.itemsize}"), err_msg=op)


def test_kernel_cache_key_covers_every_code_generator_module():
    """The disk cache's key hashes the code generator's sources: every module of
    tjit.lower.llvm loaded by a compile must be among them (mathlib_special was not: a
    kernel cached before a change to it kept its old bits in later processes)."""
    import sys

    from tjit.devices import kernel_cache
    tjit.jit(lambda v: lax.lgamma(v) + lax.erfc(v))(np.linspace(0.5, 3, 7))
    loaded = {m.__file__ for name, m in list(sys.modules.items())
              if name.startswith("tjit.lower.llvm.") and getattr(m, "__file__", None)}
    assert loaded and loaded <= {str(p) for p in kernel_cache.codegen_sources()}


def _chain(v, special, next_after):
    return (special.erfc(v) + special.gammaln(v + 3) * special.digamma(v - 0.5)
            + next_after(v, 0.0 * v))


@pytest.mark.parametrize("backend", ["hls", "opencl"])
def test_c_family_backends_run_them_fused(backend):
    """The C renderer's spellings (hls::lgamma, OpenCL's erfc, its own digamma helper,
    nextafter, the popcount builtins) compile and run: C simulation for HLS, PoCL for
    OpenCL (skipped where either is missing). CUDA: NVRTC checks every kernel of the
    session (tests/lower/c/nvrtc_check.py)."""
    import tjit.scipy.special as tsp
    from tjit.devices import hls_compile
    if backend == "hls" and hls_compile.unavailable_reason() is not None:
        pytest.skip(str(hls_compile.unavailable_reason()))
    x = np.linspace(-2.9, 6, 301)
    want = _chain(x, sc, np.nextafter)
    for dt, tol in ((np.float32, 2e-5), (np.float64, 1e-12)):
        xd = x.astype(dt)
        f = tjit.jit(lambda v: _chain(v, tsp, jnp.nextafter), backend=backend)
        assert [k for k, _ in f.lower(xd).compile().fusion_summary()] == ["kernel"]
        np.testing.assert_allclose(np.asarray(f(xd)), want, rtol=tol, atol=tol)
    i = np.array([0, 1, -1, 255, -128, 2 ** 31 - 1], np.int64)
    g = tjit.jit(lambda v: (lax.population_count(v), lax.clz(v)), backend=backend)
    pop, clz = g(i)
    np.testing.assert_array_equal(np.asarray(pop), [0, 1, 64, 8, 57, 31])
    np.testing.assert_array_equal(np.asarray(clz), [64, 63, 0, 56, 0, 33])
