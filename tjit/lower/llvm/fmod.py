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
2^-149). The special cases are selects: NaN for x = +-inf, y = 0 or a NaN operand, x
itself where |x| < |y| (y = +-inf included).
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


def emit_fmod(b, x, y):
    """C's ``fmod(x, y)`` of two float or double values, bit-exact."""
    if isinstance(x.type, ir.FloatType):
        xd, yd = b.fpext(x, DOUBLE), b.fpext(y, DOUBLE)
        r = _reduce_normal(b, fcall(b, "fabs", xd), fcall(b, "fabs", yd), _F32_STEPS)
        r = b.fptrunc(r, x.type)
    else:
        raise NotImplementedError("emit_fmod: float64 is emitted as frem")
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


def _reduce_normal(b, a, m, steps):
    """``a mod m`` for doubles a >= m > 0 whose every scaling ``m * 2^s`` (s up to the
    exponent difference) and ``(1/m) * 2^-s`` stays a normal double."""
    em = _exponent_field(b, m)
    m_bits = b.bitcast(m, I64)
    inv_bits = b.bitcast(b.fdiv(ir.Constant(DOUBLE, 1.0), m), I64)
    zero, k = ir.Constant(I64, 0), ir.Constant(I64, _K)
    r = a
    for _ in range(steps):
        e = b.sub(b.sub(_exponent_field(b, r), em), k)
        s = b.shl(b.select(b.icmp_signed(">", e, zero), e, zero), ir.Constant(I64, 52))
        m_s = b.bitcast(b.add(m_bits, s), DOUBLE)          # m * 2^s
        inv_s = b.bitcast(b.sub(inv_bits, s), DOUBLE)      # (1/m) * 2^-s
        q = fcall(b, "rint", b.fmul(r, inv_s))
        r = fcall(b, "fma", b.fneg(q), m_s, r)
    return b.select(b.fcmp_ordered("<", r, ir.Constant(DOUBLE, 0.0)), b.fadd(r, m), r)


def _special_cases(b, x, y, r):
    ty = x.type
    ax, ay = fcall(b, "fabs", x), fcall(b, "fabs", y)
    r = b.select(b.fcmp_ordered("<", ax, ay), x, r)
    # NaN operands pass through (x + y); inf mod y and x mod 0 are a fresh NaN
    invalid = b.or_(b.fcmp_unordered(">=", ax, ir.Constant(ty, float("inf"))),
                    b.fcmp_unordered("==", ay, ir.Constant(ty, 0.0)))
    nan = b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), ir.Constant(ty, float("nan")))
    return b.select(invalid, nan, r)
