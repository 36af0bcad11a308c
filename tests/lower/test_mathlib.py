"""Accuracy and IEEE behaviour of mathlib's inline math functions.

Each function is compiled into a small loop kernel ``void f(T *x, [T *y,] T *out, i64 n)``
(own JIT helper below: host CPU and features, opt level 3; no dependency on target.py)
and called through ctypes. float32 results are compared, in ulps of the float32 result,
with float64 references (NumPy / SciPy) over ~1e6 points per function: logarithmically
spaced magnitudes of both signs, random bit patterns, dense points where the function
works, and special values. float64 results are compared with 80-bit long double
references (NumPy on x86; skipped where long double is just double) and mpmath for erf.
The bounds are mathlib's documented ones (exhaustive float32 scans were run offline).
sin/cos/tan are checked over the whole finite range, including the inputs of each exponent
that lie closest to a multiple of pi/2 (found from continued fractions of 2^k * 2/pi, with
2/pi from mpmath), against float64 NumPy (float32) and mpmath (float64).
"""

import ctypes
import functools
import re

import numpy as np
import pytest

llvm = pytest.importorskip("llvmlite.binding")
from llvmlite import ir

from tjit.lower.llvm import mathlib

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
LD = np.longdouble
HAVE_LD = np.finfo(LD).nmant >= 63

#: documented max ulp (mathlib's docstring table): name -> (float32, float64)
BOUNDS = {"exp": (1.02, 1), "exp2": (1, 1), "expm1": (1.6, 2), "log": (1, 1),
          "log1p": (1.5, 1.5), "tanh": (5.5, 3), "logistic": (2, 2.5), "sin": (1.6, 2),
          "cos": (1.6, 2), "tan": (3.6, 3.5), "erf": (1, 2), "pow": (1, 2), "atan2": (2.5, 3),
          "cbrt": (1, 1), "atan": (2.5, 2.5), "asin": (3, 3), "acos": (3.5, 3.5),
          "sinh": (3, 3), "cosh": (3, 3), "asinh": (2.5, 2.5), "acosh": (3, 3),
          "atanh": (2.5, 2.5)}


# ----------------------------------------------------------------------------------------
# A tiny JIT: one loop kernel per (function, dtype).

@functools.cache
def _target_machine():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, jit=True)


def _kernel_ir(name, dt):
    """LLVM IR of ``void kern(T *in0, [T *in1,] T *out, i64 n)`` applying ``name``."""
    ty = ir.DoubleType() if dt == F64 else ir.FloatType()
    nin = 2 if name in ("pow", "atan2") else 1
    i64 = ir.IntType(64)
    mod = ir.Module(name=f"math_{name}")
    mod.triple = llvm.get_process_triple()
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [ty.as_pointer()] * (nin + 1) + [i64]),
                     name="kern")
    for a in fn.args[:-1]:
        a.add_attribute("noalias")
    n = fn.args[-1]
    entry, body, done = fn.append_basic_block("entry"), fn.append_basic_block("body"), \
        fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), body, done)
    b.position_at_end(body)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    xs = [b.load(b.gep(p, [i], inbounds=True)) for p in fn.args[:nin]]
    b.store(mathlib.emit_math(b, name, xs, ty), b.gep(fn.args[nin], [i], inbounds=True))
    nxt = b.add(i, ir.Constant(i64, 1), flags=["nuw", "nsw"])
    i.add_incoming(nxt, body)
    b.cbranch(b.icmp_signed("<", nxt, n), body, done)
    b.position_at_end(done)
    b.ret_void()
    return str(mod)


class _Compiled:
    def __init__(self, name, dt):
        tm = _target_machine()
        mod = llvm.parse_assembly(_kernel_ir(name, dt))
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self.asm = tm.emit_assembly(mod)
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        nin = 2 if name in ("pow", "atan2") else 1
        self.fn = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * (nin + 1)), ctypes.c_int64)(
            self.engine.get_function_address("kern"))
        self.dt = dt

    def __call__(self, *xs):
        xs = [np.ascontiguousarray(x, self.dt) for x in np.broadcast_arrays(*xs)]
        out = np.empty_like(xs[0])
        self.fn(*[x.ctypes.data for x in xs], out.ctypes.data, out.size)
        return out


@functools.cache
def compiled(name, dt):
    return _Compiled(name, np.dtype(dt))


# ----------------------------------------------------------------------------------------
# References and ulp distances.

def ulp_error(got, ref, dt):
    """|got - ref| in ulps of the correctly rounded result (ref is more precise than dt).
    Infinite/NaN agreement counts as 0; a NaN or inf where ref is finite counts as inf."""
    with np.errstate(all="ignore"):
        return _ulp_error(got, ref, dt)


def _ulp_error(got, ref, dt):
    fi = np.finfo(dt)
    ref = np.asarray(ref)
    wide = LD if ref.dtype == LD else np.float64
    ref_r = ref.astype(dt)
    got_w, ref_w = got.astype(wide), ref.astype(wide)
    _, e = np.frexp(np.abs(ref_w))
    ulp = np.ldexp(wide(1), np.maximum(e - 1 - fi.nmant, fi.minexp - fi.nmant).astype(np.int32))
    err = np.abs(got_w - ref_w) / ulp
    same_special = (np.isnan(got) & np.isnan(ref_r)) | (np.isinf(got) & (got == ref_r))
    err = np.where(same_special, 0, err)
    # a result of inf/NaN where the reference is finite (or vice versa) is an error
    bad = (np.isnan(got) != np.isnan(ref_r)) | (np.isinf(got) & (got != ref_r))
    return np.where(bad, np.inf, err).astype(np.float64)


def sweep32(n_log=300_000, n_bits=300_000, lo=-45, hi=38.6, seed=0):
    """float32 test points: log-spaced magnitudes of both signs, random bit patterns
    (covering denormals, inf and NaN) and special values."""
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(lo, hi, n_log)
    bits = rng.integers(0, 2 ** 32, n_bits, dtype=np.uint64).astype(np.uint32).view(F32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0,
                        np.finfo(F32).max, np.finfo(F32).tiny, np.finfo(F32).smallest_subnormal],
                       F32)
    with np.errstate(over="ignore"):
        return np.concatenate([mag.astype(F32), (-mag).astype(F32), bits, special, -special])


def sweep64(n=100_000, seed=0):
    """float64 test points: log-spaced magnitudes of both signs, random bit patterns."""
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(-320, 308.25, n)
    bits = rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(F64)
    return np.concatenate([mag, -mag, bits])


def _logistic(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _erf_ref(x):
    """erf: SciPy in float64 for float32 checks; mpmath (per point) for float64."""
    import scipy.special
    if x.dtype != LD:
        return scipy.special.erf(x)
    import mpmath
    with mpmath.workprec(100):
        return np.array([LD(str(mpmath.erf(mpmath.mpf(float(v))))) if np.isfinite(v)
                         else LD(np.sign(v)) if np.isinf(v) else LD(np.nan) for v in x], LD)


#: references evaluated in the (wider) dtype of their argument
REFS = {"exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
        "tanh": np.tanh, "logistic": _logistic, "sin": np.sin, "cos": np.cos, "tan": np.tan,
        "erf": _erf_ref, "cbrt": np.cbrt, "pow": np.power, "atan2": np.arctan2,
        "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
        "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
UNARY = sorted(set(REFS) - {"pow", "atan2"})


def _extra_points(name, dt, rng):
    """Dense points where each function does its interesting work."""
    lo, hi = {"exp": (-110, 90), "exp2": (-155, 130), "expm1": (-20, 90), "log": (0, 4),
              "log1p": (-1, 3), "tanh": (-10, 10), "logistic": (-110, 40),
              "erf": (-5, 5), "cbrt": (-10, 10), "sinh": (-90, 90), "cosh": (-90, 90),
              "acosh": (1, 5)}.get(name, (-10, 10))
    if dt == F64:
        lo, hi = {"exp": (-750, 710), "exp2": (-1080, 1030), "expm1": (-40, 710),
                  "logistic": (-750, 40), "tanh": (-20, 20), "erf": (-7, 7),
                  "sinh": (-711, 711), "cosh": (-711, 711)}.get(name, (lo, hi))
    n = 200_000 if dt == F32 else 50_000
    pts = [rng.uniform(lo, hi, n), rng.uniform(-1, 1, n // 4)]
    if name in ("sin", "cos", "tan"):   # log-uniform over all exponents
        top = np.finfo(dt).maxexp
        pts.append(2.0 ** rng.uniform(-1, top, n) * rng.choice([-1.0, 1.0], n))
    if name in ("asin", "acos", "atanh", "acosh"):  # near the domain's edges: 1 -+ 2^-k
        near = 2.0 ** -rng.uniform(1, np.finfo(dt).nmant + 1, n)
        pts += [1 + near] if name == "acosh" else [1 - near, near - 1]
    return np.concatenate(pts).astype(dt)


def _check(name, dt, x, got, ref, bound):
    err = ulp_error(got, ref, dt)
    i = int(np.argmax(err))
    assert err[i] <= bound, (f"{name} {dt.name}: {err[i]:.3f} ulp > {bound} at x={x[i]!r}: "
                             f"got {got[i]!r}, want {ref[i]!r}")
    return err[i]


@pytest.mark.parametrize("name", UNARY)
def test_unary_float32_sweep(name):
    rng = np.random.default_rng(1)
    x = np.concatenate([sweep32(), _extra_points(name, F32, rng)])
    got = compiled(name, F32)(x)
    with np.errstate(all="ignore"):
        ref = REFS[name](x.astype(np.float64))
    _check(name, F32, x, got, ref, BOUNDS[name][0])


@pytest.mark.skipif(not HAVE_LD, reason="needs 80-bit long double references")
@pytest.mark.parametrize("name", UNARY)
def test_unary_float64_sweep(name):
    rng = np.random.default_rng(2)
    if name == "erf":       # mpmath reference: fewer points
        x = np.concatenate([rng.uniform(-7, 7, 3000), 10.0 ** rng.uniform(-310, 2, 1000),
                            [0.0, -0.0, np.inf, -np.inf, np.nan, 0.6, -0.6, 6.0]])
    else:
        x = np.concatenate([sweep64(), _extra_points(name, F64, rng)])
    got = compiled(name, F64)(x)
    with np.errstate(all="ignore"):
        ref = REFS[name](x.astype(LD))
    _check(name, F64, x, got, ref, BOUNDS[name][1])


# ----------------------------------------------------------------------------------------
# sin/cos/tan over the whole range: inputs closest to multiples of pi/2.

@functools.cache
def _two_over_pi_mpmath(nbits):
    """floor(2/pi * 2^nbits), from mpmath (independent of mathlib's own computation)."""
    import mpmath
    with mpmath.workprec(nbits + 64):
        return int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** nbits))


def _hard_mantissas(e, p, nbits=1300):
    """The 2 mantissas M in [2^(p-1), 2^p) for which x = M * 2^(e-p+1) comes closest to a
    multiple of pi/2, searched among combinations of the continued-fraction denominators
    q of alpha = frac(2^(e-p+1) * 2/pi) (the best approximations): M = k q + b, b in {0,
    +-q', +-q''} (q', q'': the two previous denominators), k at both ends of the range.
    This finds float64's known worst case 6381956970095103 * 2^797 and, for every float32
    exponent, the input that a brute-force scan finds."""
    sh = e - p + 1
    g = _two_over_pi_mpmath(nbits)
    num, den = (g << sh, 1 << nbits) if sh >= 0 else (g, 1 << (nbits - sh))
    num %= den
    lo, hi = 1 << (p - 1), 1 << p
    qs, a_num, a_den = [0, 1], num, den
    while qs[-1] < hi and a_num:
        a = a_den // a_num
        a_num, a_den = a_den - a * a_num, a_num
        qs.append(a * qs[-1] + qs[-2])
    cands = set()
    for i in range(2, len(qs)):
        q = qs[i]
        for base in {0, qs[i - 1], -qs[i - 1], qs[i - 2], -qs[i - 2]}:
            k0, k1 = max(0, -(-(lo - base) // q)), (hi - 1 - base) // q
            ks = set(range(k0, min(k0 + 3, k1 + 1))) | set(range(max(k1 - 2, k0), k1 + 1))
            cands.update(base + k * q for k in ks)
    cands = [m for m in cands if lo <= m < hi]
    return sorted(cands, key=lambda m: min(m * num % den, -m * num % den))[:2]


@functools.cache
def trig_hard_cases(dt):
    """Per exponent >= 0, the inputs closest to a multiple of pi/2, their neighbours and
    the known worst cases (|x - k pi/2| = 2^-29.2 at 0x1.f37c8ap+95 for float32, 2^-60.9
    at 6381956970095103 * 2^797 for float64), both signs."""
    p = np.finfo(dt).nmant + 1
    xs = [m * 2.0 ** (e - p + 1) for e in range(np.finfo(dt).maxexp)
          for m in _hard_mantissas(e, p)]
    xs += [float.fromhex("0x1.f37c8ap+95"), float.fromhex("0x1.47d0fep+34"),
           6381956970095103 * 2.0 ** 797, 6411027962775774 * 2.0 ** -47]
    x = np.array([v for v in xs if v <= float(np.finfo(dt).max)], dt)
    x = np.concatenate([x, np.nextafter(x, dt.type(0)), np.nextafter(x, dt.type(np.inf))])
    return np.concatenate([x, -x])


def _mpmath_ref(name, x):
    """name(x) for float64 x as long double, from mpmath (right for any argument)."""
    import mpmath
    fn = getattr(mpmath, name)
    with mpmath.workprec(128):
        return np.array([LD(mpmath.nstr(fn(mpmath.mpf(float(v))), 25)) for v in x], LD)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_near_multiples_of_pi_over_2(name, dt):
    if dt == F64 and not HAVE_LD:
        pytest.skip("needs 80-bit long double references")
    x = trig_hard_cases(dt)
    got = compiled(name, dt)(x)
    ref = REFS[name](x.astype(np.float64)) if dt == F32 else _mpmath_ref(name, x)
    _check(name, dt, x, got, ref, BOUNDS[name][dt == F64])


def test_hard_case_search_finds_worst_cases():
    """The continued-fraction search finds the worst cases of the whole range by itself:
    float64's from the literature (Muller, Elementary Functions), float32's from a
    brute-force scan of all float32 inputs; so the tests above exercise the worst case
    of every exponent."""
    assert _hard_mantissas(797 + 52, 53)[0] == 6381956970095103
    assert _hard_mantissas(95, 24)[0] == 16367173          # 0x1.f37c8ap+95
    assert _hard_mantissas(34, 24)[0] == 10741887          # 0x1.47d0fep+34


def test_two_over_pi_bits():
    """mathlib computes the bits of 2/pi itself (integer Machin formula): they match
    mpmath's, and the tables hold the right windows."""
    assert mathlib.two_over_pi_bits(1200) == _two_over_pi_mpmath(1200)
    g = _two_over_pi_mpmath(600)
    for first, width in ((-6, 32), (1, 32), (37, 64), (300, 64)):
        words = mathlib._pio2_words(first, 2, width)
        for k, w in enumerate(words):
            i = first + k * width                 # bit number of the word's top bit
            want = (g >> (600 - i - width + 1)) & ((1 << width) - 1)
            assert w % (1 << width) == want, (first, width, k)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_trig_large_arguments_consistent(dt):
    """Odd/even symmetry holds exactly, |sin|, |cos| <= 1 and sin^2 + cos^2 = 1 for large
    arguments on both sides of the Payne-Hanek threshold."""
    rng = np.random.default_rng(4)
    thr = 2.0 ** (18 if dt == F32 else 36)
    x = np.concatenate([thr * rng.uniform(0.5, 2, 20_000),
                        2.0 ** rng.uniform(0, np.finfo(dt).maxexp, 20_000),
                        [thr, np.nextafter(thr, np.inf), np.finfo(dt).max]]).astype(dt)
    s, c = compiled("sin", dt)(x), compiled("cos", dt)(x)
    assert np.array_equal(compiled("sin", dt)(-x), -s)
    assert np.array_equal(compiled("cos", dt)(-x), c)
    assert np.array_equal(compiled("tan", dt)(-x), -compiled("tan", dt)(x))
    assert np.all(np.abs(s) <= 1) and np.all(np.abs(c) <= 1)
    eps = np.finfo(dt).eps
    assert np.max(np.abs(s.astype(np.float64) ** 2 + c.astype(np.float64) ** 2 - 1)) < 4 * eps


def _pow_points(dt, rng, n):
    big = 38 if dt == F32 else 300
    x = 10.0 ** rng.uniform(-big - 6 * (dt == F32), big, n)
    # exponents that keep x**y mostly inside the range (incl. overflow/underflow edges)
    limit = 105.0 if dt == F32 else 750.0
    y = rng.uniform(-limit, limit, n) / np.log(x)
    xs = [x, rng.uniform(0, 3, n), -rng.uniform(0, 4, n), rng.uniform(0, 3, n)]
    ys = [y, rng.uniform(-30, 30, n), rng.integers(-60, 60, n).astype(float),
          10.0 ** rng.uniform(-8, 3, n)]
    return np.concatenate(xs).astype(dt), np.concatenate(ys).astype(dt)


def _atan2_points(dt, rng, n):
    big = 38 if dt == F32 else 300
    sgn = lambda: rng.choice([-1.0, 1.0], n)
    y = np.concatenate([10.0 ** rng.uniform(-big - 6, big, n) * sgn(), rng.standard_normal(n)])
    x = np.concatenate([10.0 ** rng.uniform(-big - 6, big, n) * sgn(), rng.standard_normal(n)])
    return y.astype(dt), x.astype(dt)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["pow", "atan2"])
def test_binary_sweep(name, dt):
    if dt == F64 and not HAVE_LD:
        pytest.skip("needs 80-bit long double references")
    rng = np.random.default_rng(3)
    a, b = (_pow_points if name == "pow" else _atan2_points)(dt, rng, 250_000 if dt == F32
                                                              else 60_000)
    got = compiled(name, dt)(a, b)
    wide = np.float64 if dt == F32 else LD
    with np.errstate(all="ignore"):
        ref = REFS[name](a.astype(wide), b.astype(wide))
    _check(name, dt, np.stack([a, b], 1), got, ref, BOUNDS[name][dt == F64])


# ----------------------------------------------------------------------------------------
# IEEE special values.

INF, NAN = np.inf, np.nan
PI, PI2 = np.pi, np.pi / 2
#: name -> [(x, expected)] for both dtypes; expected compared exactly (sign of zero too)
SPECIALS = {
    "exp": [(INF, INF), (-INF, 0.0), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (1e30, INF),
            (-1e30, 0.0), (800.0, INF), (-800.0, 0.0)],
    "exp2": [(INF, INF), (-INF, 0.0), (NAN, NAN), (0.0, 1.0), (10.0, 1024.0), (-3.0, 0.125),
             (1e30, INF), (-1e30, 0.0), (2000.0, INF), (-2000.0, 0.0)],
    "expm1": [(INF, INF), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e30, INF),
              (-1e30, -1.0), (800.0, INF), (-100.0, -1.0)],
    "log": [(0.0, -INF), (-0.0, -INF), (-1.0, NAN), (-INF, NAN), (INF, INF), (NAN, NAN),
            (1.0, 0.0), (-1e-30, NAN)],
    "log1p": [(-1.0, -INF), (-2.0, NAN), (-INF, NAN), (INF, INF), (NAN, NAN), (0.0, 0.0),
              (-0.0, -0.0)],
    "tanh": [(INF, 1.0), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (30.0, 1.0),
             (-30.0, -1.0), (1e30, 1.0), (1e-20, 1e-20), (-1e-20, -1e-20)],
    "logistic": [(INF, 1.0), (-INF, 0.0), (NAN, NAN), (0.0, 0.5), (-0.0, 0.5), (-1e30, 0.0),
                 (1e30, 1.0), (-800.0, 0.0), (40.0, 1.0)],
    "sin": [(INF, NAN), (-INF, NAN), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-20, 1e-20)],
    "cos": [(INF, NAN), (-INF, NAN), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (1e-20, 1.0)],
    "tan": [(INF, NAN), (-INF, NAN), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-20, 1e-20)],
    "erf": [(INF, 1.0), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (10.0, 1.0),
            (-10.0, -1.0), (1e30, 1.0)],
    "cbrt": [(INF, INF), (-INF, -INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (8.0, 2.0),
             (-27.0, -3.0), (0.125, 0.5), (1e-300, 1e-100)],
    "atan": [(INF, PI2), (-INF, -PI2), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-30, 1e-30),
             (1e300, PI2)],
    "asin": [(1.0, PI2), (-1.0, -PI2), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-30, 1e-30),
             (1.5, NAN), (-1.5, NAN), (INF, NAN), (-INF, NAN)],
    "acos": [(1.0, 0.0), (-1.0, PI), (NAN, NAN), (0.0, PI2), (-0.0, PI2), (1.5, NAN),
             (-1.5, NAN), (INF, NAN), (-INF, NAN)],
    "sinh": [(INF, INF), (-INF, -INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-30, 1e-30),
             (-1e-30, -1e-30), (1e30, INF), (-1e30, -INF), (1e300, INF)],
    "cosh": [(INF, INF), (-INF, INF), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (1e-30, 1.0),
             (1e30, INF), (-1e30, INF), (1e300, INF)],
    "asinh": [(INF, INF), (-INF, -INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-30, 1e-30),
              (-1e-30, -1e-30)],
    "acosh": [(INF, INF), (-INF, NAN), (NAN, NAN), (1.0, 0.0), (0.5, NAN), (0.0, NAN),
              (-0.0, NAN), (-1.0, NAN), (-3.0, NAN), (-1e30, NAN)],
    "atanh": [(1.0, INF), (-1.0, -INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1e-30, 1e-30),
              (1.5, NAN), (-1.5, NAN), (INF, NAN), (-INF, NAN)],
}


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want, got.dtype)
    return (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(SPECIALS))
def test_special_values(name, dt):
    cases = [(x, w) for x, w in SPECIALS[name] if dt == F64 or abs(x) < 1e38 or np.isinf(x)]
    if dt == F32:   # 1e-300 is not a float32
        cases = [(x, w) for x, w in cases if x == 0 or abs(x) > 1e-38 or np.isnan(x)]
    x = np.array([c[0] for c in cases], dt)
    got = compiled(name, dt)(x)
    want = np.array([c[1] for c in cases], dt)
    ok = _same(got, want)
    assert ok.all(), [(float(a), float(g), float(w)) for a, g, w in zip(x[~ok], got[~ok],
                                                                         want[~ok])]


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_saturation_is_exact(dt):
    # float32 tanh (clamped at 9) and erf give exactly +-1 beyond and never exceed 1
    x = np.linspace(-40, 40, 400_001).astype(dt)
    for name, edge in (("tanh", 9.0 if dt == F32 else 19.1), ("erf", 3.95 if dt == F32 else 6)):
        got = compiled(name, dt)(x)
        assert np.all(np.abs(got) <= 1), name
        far = np.abs(x) >= edge
        assert np.all(got[far] == np.sign(x[far])), name
    lg = compiled("logistic", dt)(x)
    assert np.all((lg >= 0) & (lg <= 1))


def test_exp_overflow_and_gradual_underflow():
    f = compiled("exp", F32)
    assert f(np.float32([89.0, 100.0, 88.8]))[0] == np.inf
    assert np.all(np.isinf(f(np.float32([89.0, 100.0, 88.8]))))
    # the float32 overflow threshold: largest x with a finite result
    t = np.float32(88.72283)
    assert np.isfinite(f(np.float32([t]))[0]) and np.isinf(f(np.float32([np.nextafter(t, 100)]))[0])
    # denormal results are rounded, not flushed
    x = np.float32([-88.0, -95.0, -100.0, -103.0, -103.9, -104.0, -120.0])
    ref = np.exp(x.astype(np.float64))
    got = f(x)
    assert got[2] > 0 and got[-1] == 0
    assert ulp_error(got, ref, F32).max() <= 1
    g = compiled("exp", F64)
    x64 = np.array([709.78, 709.79, -745.0, -745.2, -740.0])
    got = g(x64)
    assert np.isfinite(got[0]) and np.isinf(got[1]) and got[2] > 0 and got[3] == 0
    if HAVE_LD:
        assert ulp_error(got, np.exp(x64.astype(LD)), F64).max() <= 1


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_tiny_arguments_stay_accurate(dt):
    x = np.array([1e-10, -1e-10, 1e-30, -3e-8, 2e-20], dt)
    wide = LD if (dt == F64 and HAVE_LD) else np.float64
    for name in ("expm1", "log1p", "sin", "tan", "tanh", "erf"):
        got = compiled(name, dt)(x)
        assert ulp_error(got, REFS[name](x.astype(wide)), dt).max() <= BOUNDS[name][dt == F64], name
    assert abs(compiled("expm1", dt)(np.array([1e-10], dt))[0] / dt.type(1e-10) - 1) < 1e-6


def test_denormal_inputs():
    tiny = np.float32([1e-45, 3e-42, 1e-40, 1.1e-38])
    ref = np.log(tiny.astype(np.float64))
    assert ulp_error(compiled("log", F32)(tiny), ref, F32).max() <= 1
    assert ulp_error(compiled("cbrt", F32)(tiny), np.cbrt(tiny.astype(np.float64)), F32).max() <= 1
    t64 = np.array([5e-324, 1e-310, 2e-308])
    assert np.all(np.isfinite(compiled("log", F64)(t64)))
    if HAVE_LD:
        assert ulp_error(compiled("cbrt", F64)(t64), np.cbrt(t64.astype(LD)), F64).max() <= 1


_EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, INF, -INF, NAN,
         1e-30, -1e-30, 1e30, -1e30, 0.3, 7.0, -7.0]


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["pow", "atan2"])
def test_binary_special_values(name, dt):
    """All pairs of edge values against C's pow/atan2 (NumPy float64): zeros, infinities,
    NaN, +-1, negative bases with integer/non-integer exponents."""
    a, b = np.meshgrid(np.array(_EDGE, dt), np.array(_EDGE, dt), indexing="ij")
    a, b = a.ravel(), b.ravel()
    got = compiled(name, dt)(a, b)
    with np.errstate(all="ignore"):
        want = REFS[name](a.astype(np.float64), b.astype(np.float64)).astype(dt)
    exact = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1)
    ok = _same(got, want) | (~exact & (ulp_error(got, want, dt) <= 1))
    assert ok.all(), [(float(x), float(y), float(g), float(w))
                      for x, y, g, w in zip(a[~ok], b[~ok], got[~ok], want[~ok])]
    if name == "pow":   # negative base: odd integer exponent negative, else NaN if finite
        assert compiled("pow", dt)(dt.type(-2), dt.type(3))[0] == -8
        assert np.isnan(compiled("pow", dt)(dt.type(-2), dt.type(0.5))[0])
        assert compiled("pow", dt)(dt.type(NAN), dt.type(0))[0] == 1
        assert compiled("pow", dt)(dt.type(0), dt.type(-1))[0] == np.inf


# ----------------------------------------------------------------------------------------
# Code shape, documentation and errors.

def test_docstring_table_matches_bounds():
    """mathlib's accuracy table states the bounds these tests assert."""
    rows = {}
    for line in mathlib.__doc__.splitlines():
        words = line.replace(",", " ").split()
        names = []
        while len(names) < len(words) and words[len(names)] in mathlib.MATH_FUNCTIONS:
            names.append(words[len(names)])
        if names and len(words) > len(names) + 3 and line.startswith("    "):
            nums = words[len(names):len(names) + 4]
            for n in names:
                rows[n] = (float(nums[0]), float(nums[2]))
    assert rows == {k: (float(a), float(b)) for k, (a, b) in BOUNDS.items()}


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(mathlib.MATH_FUNCTIONS))
def test_ir_is_straight_line(name, dt):
    """No branches and no calls except LLVM intrinsics that have vector forms."""
    ty = ir.DoubleType() if dt == F64 else ir.FloatType()
    mod = ir.Module()
    nin = 2 if name in ("pow", "atan2") else 1
    fn = ir.Function(mod, ir.FunctionType(ty, [ty] * nin), name="f")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(mathlib.emit_math(b, name, list(fn.args), ty))
    text = str(fn)
    assert len(fn.blocks) == 1 and " br " not in text and "switch" not in text
    called = {line.split("@")[1].split("(")[0].strip('"')
              for line in text.splitlines() if "call " in line}
    assert called <= {f"llvm.{f}.{t}" for f in ("fma", "fabs", "floor", "copysign", "sqrt")
                      for t in ("f32", "f64")}, called


@pytest.mark.skipif("+avx" not in llvm.get_host_cpu_features().flatten().split(","),
                    reason="host has no AVX (only xmm vectors)")
@pytest.mark.parametrize("name,dt", [("exp", F32), ("log", F32), ("tanh", F32), ("sin", F32),
                                     ("pow", F32), ("sin", F64), ("tan", F64)])
def test_loop_is_vectorized(name, dt):
    asm = compiled(name, dt).asm
    assert "ymm" in asm or "zmm" in asm
    # packed (not scalar) fma on vector registers: the loop body itself is vectorized
    assert re.search(r"vfn?m(add|sub)\w*p[sd]\s+[^\n]*[yz]mm", asm), name


def test_emit_math_errors():
    assert mathlib.MATH_FUNCTIONS == {"exp", "exp2", "expm1", "log", "log1p", "tanh",
                                      "logistic", "sin", "cos", "tan", "erf", "pow",
                                      "atan2", "cbrt", "atan", "asin", "acos", "sinh",
                                      "cosh", "asinh", "acosh", "atanh", "erfc",
                                      "lgamma", "digamma"}
    mod = ir.Module()
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [ir.FloatType(), ir.DoubleType()]),
                     name="f")
    b = ir.IRBuilder(fn.append_basic_block())
    x, y = fn.args
    with pytest.raises(ValueError, match="unknown math function 'sqrtx'"):
        mathlib.emit_math(b, "sqrtx", [x], ir.FloatType())
    with pytest.raises(ValueError, match=r"emit_math\('pow'\) takes 2 argument"):
        mathlib.emit_math(b, "pow", [x], ir.FloatType())
    with pytest.raises(TypeError, match="does not match"):
        mathlib.emit_math(b, "exp", [y], ir.FloatType())
    with pytest.raises(TypeError, match="not supported"):
        mathlib.emit_math(b, "exp", [x], ir.IntType(32))
