"""C's fmod (``rem`` on floats), exact and branch-free, so kernels around it vectorize.

LLVM's ``frem`` becomes a libm ``fmod``/``fmodf`` call per element (~20 ns, no SIMD).
fmod's result is always representable, so it can be computed exactly with IEEE ops:

* work on ``a = |x|`` and ``b = |y|``; the result is ``a mod b`` with x's sign (so a zero
  result keeps x's sign: fmod(-4, 2) = -0);
* a *step* replaces ``r`` by ``r - q * b'`` where ``b' = b * 2^s`` (a multiple of b, so
  ``r mod b`` is unchanged), ``s = max(E - K, 0)`` for the exponent difference ``E`` of
  r and b, and ``q = rint(r * (1/b) * 2^-s)``: the quotient is below 2^(K+1), so its
  estimate is off by less than 1/2 and ``|r - q b'| < b'``; that difference is a
  multiple of b's ulp smaller than b', so the fma computes it exactly. r may go
  negative; each step removes K bits of exponent difference;
* after the last step (s = 0) ``r`` lies in (-b, b); a negative r gets b added (exact).

float32 runs the steps in double (every float32 is a normal double, so the 2^s scalings
are exponent-field adds): 6 steps cover the largest exponent difference (2^127 mod
2^-149). float64 takes 43 (``_reduce_f64``: two phases keep every scaled value normal
where y is tiny). The steps' schedule comes from the operands' exponents alone
(``_steps``). The special cases are selects: NaN for x = +-inf, y = 0 or a NaN operand,
x itself where |x| < |y| (y = +-inf included).

Measured (bench_op_costs.py, 1M elements, one thread, loaded 2-vCPU AVX-512 box): float32
1.0 ms (libm fmodf: ~23), float64 11 ms (libm fmod: 24); float64 is bound by the
latency of its 43-step chain.
"""

from llvmlite import ir

I64 = ir.IntType(64)
DOUBLE = ir.DoubleType()
#: quotient bits per step: the double estimate r * 2^-s / b of a quotient below 2^(K+1)
#: errs by < 2^(K+1-52) = 1/2, so q = rint(estimate) leaves |r - q b'| < b'
_K = 50
#: float32 exponent differences reach 127 + 149 = 276 = 5 * 50 + 26: 5 scaled steps and
#: one with s = 0
_F32_STEPS = 6
#: float64 (below): exponent differences up to 1024 + 954 = 1978 in phase A (40 steps),
#: 120 in phase B (3 steps)
_F64_STEPS_A, _F64_STEPS_B = 40, 3


def emit_fmod(b, x, y):
    """C's ``fmod(x, y)`` of two float or double values, bit-exact."""
    if isinstance(x.type, ir.FloatType):
        xd, yd = b.fpext(x, DOUBLE), b.fpext(y, DOUBLE)
        r = _steps(b, fcall(b, "fabs", xd), fcall(b, "fabs", yd), _F32_STEPS)
        r = b.fptrunc(r, x.type)
    else:
        r = _reduce_f64(b, fcall(b, "fabs", x), fcall(b, "fabs", y))
    return _special_cases(b, x, y, fcall(b, "copysign", r, x))


def fcall(b, base, *args):
    """Call the float intrinsic ``llvm.<base>.f32/f64`` (declared once per module)."""
    ty = args[0].type
    name = f"llvm.{base}.{'f32' if isinstance(ty, ir.FloatType) else 'f64'}"
    fn = b.module.globals.get(name)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(ty, [ty] * len(args)), name=name)
    return b.call(fn, list(args))


def _exponent_field(b, v):
    return b.and_(b.lshr(b.bitcast(v, I64), ir.Constant(I64, 52)), ir.Constant(I64, 0x7FF))


def _reduce_f64(b, a, m):
    """``a mod m`` for doubles a >= m > 0 (any finite ones, denormals included)."""
    # Phase A reduces a modulo m_a = m * 2^120 (a multiple of m) where m is tiny, so
    # that m_a, 1/m_a and the scaled r of the steps are normal; phase B scales r and m up
    # by 2^800 (exact: r is a multiple of m's ulp, smaller than m_a) and finishes. Both
    # factors are 1 where m >= 2^-900.
    tiny = b.icmp_unsigned("<", _exponent_field(b, m), ir.Constant(I64, 1023 - 900))
    m_a = b.fmul(m, b.select(tiny, ir.Constant(DOUBLE, 2.0 ** 120), ir.Constant(DOUBLE, 1.0)))
    r = _steps(b, a, m_a, _F64_STEPS_A, signed_result=True)
    # |r| < m_a here: phase B's exponent difference is at most 120
    up = b.select(tiny, ir.Constant(DOUBLE, 2.0 ** 800), ir.Constant(DOUBLE, 1.0))
    r = _steps(b, b.fmul(r, up), b.fmul(m, up), _F64_STEPS_B)
    return b.fmul(r, b.select(tiny, ir.Constant(DOUBLE, 2.0 ** -800), ir.Constant(DOUBLE, 1.0)))


def _steps(b, a, m, steps, signed_result=False):
    """Reduce finite ``a`` modulo ``m`` (normal, 2^-954 <= m) in ``steps`` steps of K
    bits; r in (-m, m) after them, in [0, m) unless ``signed_result``.

    The schedule ``s_i = max(E - K i, 0)`` depends on a's and m's exponents only, so
    the chain from one step to the next is three float ops (latency is what bounds this
    loop): ``q = fma(r, w_i, C) - C`` is r * w_i rounded to an integer (C = 1.5 * 2^52;
    |r w_i| < 2^51), ``r = fma(q, -m * 2^s_i, r)``, with ``w_i = (1/m) * 2^-s_i`` (an
    exponent-field subtraction: w_i ~ 1/b' is normal wherever s_i > 0, as b' = m 2^s_i
    <= 2^975 there). Every r is a multiple of ulp(m) * 2^s_i (s_i never grows), so the
    fma's result, smaller than m 2^s_i, is exact."""
    sched = b.shl(b.sub(_exponent_field(b, a), _exponent_field(b, m)), ir.Constant(I64, 52))
    neg_m_bits = b.bitcast(b.fneg(m), I64)
    inv_bits = b.bitcast(b.fdiv(ir.Constant(DOUBLE, 1.0), m), I64)
    round_c = ir.Constant(DOUBLE, 1.5 * 2.0 ** 52)
    zero, r = ir.Constant(I64, 0), a
    for i in range(1, steps + 1):
        e = b.sub(sched, ir.Constant(I64, (_K * i) << 52))
        s = b.select(b.icmp_signed(">", e, zero), e, zero)       # s_i << 52
        w = b.bitcast(b.sub(inv_bits, s), DOUBLE)
        q = b.fsub(fcall(b, "fma", r, w, round_c), round_c)
        r = fcall(b, "fma", q, b.bitcast(b.add(neg_m_bits, s), DOUBLE), r)  # r - q m 2^s_i
    if signed_result:
        return r
    return b.select(b.fcmp_ordered("<", r, ir.Constant(DOUBLE, 0.0)), b.fadd(r, m), r)


def _special_cases(b, x, y, r):
    ty = x.type
    ax, ay = fcall(b, "fabs", x), fcall(b, "fabs", y)
    r = b.select(b.fcmp_ordered("<", ax, ay), x, r)
    # NaN operands pass through (x + y); inf mod y and x mod 0 are a fresh NaN
    invalid = b.or_(b.fcmp_unordered(">=", ax, ir.Constant(ty, float("inf"))),
                    b.fcmp_unordered("==", ay, ir.Constant(ty, 0.0)))
    # the fresh NaN is the x86 default one (sign set), as libm's fmod (and NumPy) give:
    # a narrow type without NaN converts it by its bits (float4_e2m1fn: +0, not -0)
    ity = ir.IntType(32 if isinstance(ty, ir.FloatType) else 64)
    default_nan = b.bitcast(ir.Constant(ity, 0xFFC00000 if ity.width == 32 else 0xFFF8 << 48), ty)
    nan = b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), default_nan)
    return b.select(invalid, nan, r)
