"""Derivative accuracy hunt: float32/float64 grad, jvp and grad-of-grad against mpmath.

diff_grad.py compares derivatives with float64 finite differences, which cannot see an
autodiff formula that cancels catastrophically (tanh' = (1 - t)(1 + t) once t rounds to 1;
asinh' = rsqrt(x*x + 1) once x*x overflows). This hunt evaluates, for every elementwise
function of tjit.numpy, tjit.scipy.special and tjit.nn (and each operand of the binary ones),
grad, jvp and grad(grad) at points where such formulas break down -- 0, tiny and subnormal
|x|, near 1, large |x| up to the overflow edge, and each function's own zeros and poles --
and compares them in ulps of the true derivative in the working dtype (an absolute floor
of the dtype's smallest normal, so a slope that underflows is not flagged).

The reference (Reference below) is never a difference of our own function:
- the first derivative is a closed form in mpmath (cos for sin, psi(1, x) for digamma, ...)
  where one exists, else mpmath.diff of the mpmath function;
- the second derivative is mpmath.diff of that closed form;
- mpmath.diff uses a step h = 2**-b * min(|x|, 1) at a working precision that also covers
  |log2 x| (so x +- h is exact at 1e300 and h is far below x at 5e-324);
- every reference is computed at two precisions (b = 3.3 * dps for dps 40 and 80, and
  again at 160 / 320 when they differ) and used only when two consecutive ones agree to
  1e-25; otherwise (or when mpmath fails or takes > 4 s) the point is counted as "no ref".
Points on a kink (selu at 0) have no derivative and are left to the conventions check in
tests/test_grad_accuracy.py.

A derivative is flagged when it is more than --ulps (default 64; 256 for grad of grad) off
while the function's own value there is within --value-ulps (default 64) ulps (a bad value
is value accuracy's hunt, counted apart). JAX's derivative on the same point is shown beside
it and the summary says where JAX is worse or better.

    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py                  # both dtypes
    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py --only tanh,sp.spence -v
    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py --dtype float64 --kinds grad
"""

import argparse
import os
import signal
import sys
import warnings

import numpy as np
import mpmath as mp

os.environ["JAX_ENABLE_X64"] = "1"
os.environ["TJIT_ENABLE_X64"] = "1"

try:  # JAX is the second opinion, optional
    import jax
    import jax.numpy as jjnp
    import jax.scipy.special  # noqa: F401
    import jax.nn  # noqa: F401
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - run without the JAX virtualenv
    jax = None

import tjit  # noqa: E402
import tjit.numpy as tjnp  # noqa: E402
import tjit.scipy.special  # noqa: E402,F401
import tjit.nn  # noqa: E402,F401

tjit.config.update("jax_enable_x64", True)

KINDS = ("grad", "jvp", "grad2")


# -- mpmath functions and closed-form first derivatives ---------------------------------------
def _ndtr(x):
    return mp.ncdf(x)


def _expit(x):
    return 1 / (1 + mp.exp(-x))


def _expit_slope(x):
    e = mp.exp(-abs(x))
    return e / (1 + e) ** 2


def _log1pexp(x):
    return mp.log1p(mp.exp(x))


def _gelu_tanh(x):
    return x / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x ** 3)))


_SELU_A = mp.mpf("1.6732632423543772848170429916717")
_SELU_S = mp.mpf("1.0507009873554804934193349852946")


def _piecewise(pos, neg):
    """f = pos on x > 0, neg on x < 0; no derivative at a kink x = 0 (None)."""
    def f(x):
        return pos(x) if x > 0 else neg(x)
    return f


def _kink_at_0(d):
    return lambda x: None if x == 0 else d(x)


def _i1(x):
    return mp.besseli(1, x)


def _i1_slope(x):
    return mp.mpf(1) / 2 if x == 0 else mp.besseli(0, x) - mp.besseli(1, x) / x


def _sinc_slope(x):
    if x == 0:
        return mp.mpf(0)
    t = mp.pi * x
    return (t * mp.cos(t) - mp.sin(t)) / (mp.pi * x * x)


def _spence_slope(x):
    if x == 1:
        return mp.mpf(-1)
    return mp.log(x) / (1 - x) if x > 0 else None


def _sq(f):
    return lambda x: f(x) ** 2


# name: (accessor on a Kit, mpmath f, closed-form f' or None (then mpmath.diff of f))
UNARY = {
    "sin": (lambda K: K.np.sin, mp.sin, mp.cos),
    "cos": (lambda K: K.np.cos, mp.cos, lambda x: -mp.sin(x)),
    "tan": (lambda K: K.np.tan, mp.tan, _sq(mp.sec)),
    "arcsin": (lambda K: K.np.arcsin, mp.asin, lambda x: 1 / mp.sqrt(1 - x * x)),
    "arccos": (lambda K: K.np.arccos, mp.acos, lambda x: -1 / mp.sqrt(1 - x * x)),
    "arctan": (lambda K: K.np.arctan, mp.atan, lambda x: 1 / (1 + x * x)),
    "sinh": (lambda K: K.np.sinh, mp.sinh, mp.cosh),
    "cosh": (lambda K: K.np.cosh, mp.cosh, mp.sinh),
    "tanh": (lambda K: K.np.tanh, mp.tanh, _sq(mp.sech)),
    "arcsinh": (lambda K: K.np.arcsinh, mp.asinh, lambda x: 1 / mp.sqrt(x * x + 1)),
    "arccosh": (lambda K: K.np.arccosh, mp.acosh, lambda x: 1 / mp.sqrt(x * x - 1)),
    "arctanh": (lambda K: K.np.arctanh, mp.atanh, lambda x: 1 / (1 - x * x)),
    "exp": (lambda K: K.np.exp, mp.exp, mp.exp),
    "exp2": (lambda K: K.np.exp2, lambda x: 2 ** x, lambda x: mp.ln2 * 2 ** x),
    "expm1": (lambda K: K.np.expm1, mp.expm1, mp.exp),
    "log": (lambda K: K.np.log, mp.log, lambda x: 1 / x),
    "log2": (lambda K: K.np.log2, lambda x: mp.log(x, 2), lambda x: 1 / (x * mp.ln2)),
    "log10": (lambda K: K.np.log10, mp.log10, lambda x: 1 / (x * mp.ln10)),
    "log1p": (lambda K: K.np.log1p, mp.log1p, lambda x: 1 / (1 + x)),
    "sqrt": (lambda K: K.np.sqrt, mp.sqrt, lambda x: 1 / (2 * mp.sqrt(x))),
    "cbrt": (lambda K: K.np.cbrt, mp.cbrt, lambda x: 1 / (3 * mp.cbrt(x) ** 2)),
    "square": (lambda K: K.np.square, lambda x: x * x, lambda x: 2 * x),
    "reciprocal": (lambda K: K.np.reciprocal, lambda x: 1 / x, lambda x: -1 / (x * x)),
    "sinc": (lambda K: K.np.sinc, mp.sincpi, _sinc_slope),
    "i0": (lambda K: K.np.i0, lambda x: mp.besseli(0, x), _i1),
    "sp.gammaln": (lambda K: K.sp.gammaln, lambda x: mp.log(abs(mp.gamma(x))), mp.digamma),
    "sp.digamma": (lambda K: K.sp.digamma, mp.digamma, lambda x: mp.psi(1, x)),
    "sp.gamma": (lambda K: K.sp.gamma, mp.gamma, lambda x: mp.gamma(x) * mp.digamma(x)),
    "sp.erf": (lambda K: K.sp.erf, mp.erf, lambda x: 2 / mp.sqrt(mp.pi) * mp.exp(-x * x)),
    "sp.erfc": (lambda K: K.sp.erfc, mp.erfc, lambda x: -2 / mp.sqrt(mp.pi) * mp.exp(-x * x)),
    "sp.erfinv": (lambda K: K.sp.erfinv, mp.erfinv,
                  lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(mp.erfinv(x) ** 2)),
    "sp.expit": (lambda K: K.sp.expit, _expit, _expit_slope),
    "sp.logit": (lambda K: K.sp.logit, lambda x: mp.log(x / (1 - x)),
                 lambda x: 1 / (x * (1 - x))),
    "sp.log_ndtr": (lambda K: K.sp.log_ndtr, lambda x: mp.log(_ndtr(x)),
                    lambda x: mp.npdf(x) / _ndtr(x)),
    "sp.ndtr": (lambda K: K.sp.ndtr, _ndtr, mp.npdf),
    "sp.ndtri": (lambda K: K.sp.ndtri, lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1),
                 lambda p: 1 / mp.npdf(mp.sqrt(2) * mp.erfinv(2 * p - 1))),
    "sp.i0e": (lambda K: K.sp.i0e, lambda x: mp.besseli(0, x) * mp.exp(-abs(x)),
               lambda x: (mp.besseli(1, x) - mp.sign(x) * mp.besseli(0, x)) * mp.exp(-abs(x))),
    "sp.i1e": (lambda K: K.sp.i1e, lambda x: _i1(x) * mp.exp(-abs(x)),
               lambda x: (_i1_slope(x) - mp.sign(x) * _i1(x)) * mp.exp(-abs(x))),
    "sp.i0": (lambda K: K.sp.i0, lambda x: mp.besseli(0, x), _i1),
    "sp.i1": (lambda K: K.sp.i1, _i1, _i1_slope),
    "sp.entr": (lambda K: K.sp.entr, lambda x: -x * mp.log(x) if x > 0 else None,
                lambda x: -mp.log(x) - 1 if x > 0 else None),
    "sp.spence": (lambda K: K.sp.spence, lambda x: mp.polylog(2, 1 - x) if x >= 0 else None,
                  _spence_slope),
    "sp.expi": (lambda K: K.sp.expi, mp.ei, lambda x: mp.exp(x) / x),
    "sp.exp1": (lambda K: K.sp.exp1, lambda x: mp.e1(x) if x > 0 else None,
                lambda x: -mp.exp(-x) / x if x > 0 else None),
    "sp.erfcx": (lambda K: K.sp.erfcx, lambda x: mp.exp(x * x) * mp.erfc(x),
                 lambda x: 2 * x * mp.exp(x * x) * mp.erfc(x) - 2 / mp.sqrt(mp.pi)),
    "sp.dawsn": (lambda K: K.sp.dawsn,
                 lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x),
                 lambda x: 1 - x * mp.sqrt(mp.pi) * mp.exp(-x * x) * mp.erfi(x)),
    "sp.loggamma": (lambda K: K.sp.loggamma, lambda x: mp.loggamma(x) if x > 0 else None,
                    lambda x: mp.digamma(x) if x > 0 else None),
    "nn.sigmoid": (lambda K: K.nn.sigmoid, _expit, _expit_slope),
    "nn.log_sigmoid": (lambda K: K.nn.log_sigmoid, lambda x: -_log1pexp(-x),
                       lambda x: _expit(-x)),
    "nn.softplus": (lambda K: K.nn.softplus, _log1pexp, _expit),
    "nn.soft_sign": (lambda K: K.nn.soft_sign, lambda x: x / (1 + abs(x)),
                     lambda x: 1 / (1 + abs(x)) ** 2),
    "nn.silu": (lambda K: K.nn.silu, lambda x: x * _expit(x),
                lambda x: _expit(x) + x * _expit(x) * _expit(-x)),
    "nn.elu": (lambda K: K.nn.elu, _piecewise(lambda x: x, mp.expm1),
               _piecewise(lambda x: mp.mpf(1), mp.exp)),
    "nn.celu": (lambda K: K.nn.celu, _piecewise(lambda x: x, mp.expm1),
                _piecewise(lambda x: mp.mpf(1), mp.exp)),
    "nn.selu": (lambda K: K.nn.selu, _piecewise(lambda x: _SELU_S * x,
                                                lambda x: _SELU_S * _SELU_A * mp.expm1(x)),
                _kink_at_0(_piecewise(lambda x: _SELU_S, lambda x: _SELU_S * _SELU_A * mp.exp(x)))),
    "nn.mish": (lambda K: K.nn.mish, lambda x: x * mp.tanh(_log1pexp(x)), None),
    "nn.squareplus": (lambda K: K.nn.squareplus, lambda x: (x + mp.sqrt(x * x + 4)) / 2,
                      lambda x: (1 + x / mp.sqrt(x * x + 4)) / 2),
    "nn.gelu_exact": (lambda K: (lambda x: K.nn.gelu(x, approximate=False)),
                      lambda x: x * _ndtr(x), lambda x: _ndtr(x) + x * mp.npdf(x)),
    "nn.gelu_approx": (lambda K: (lambda x: K.nn.gelu(x, approximate=True)), _gelu_tanh, None),
    "nn.tanh": (lambda K: K.nn.tanh, mp.tanh, _sq(mp.sech)),
}

# Each function's own zeros, poles, branch points and switch points (mpmath values; the
# float points nearest to them, and their neighbours, are added to the sweep).
NEAR = {
    "tan": [mp.pi / 2, -mp.pi / 2, mp.pi, 3 * mp.pi / 2],
    "sin": [mp.pi, 2 * mp.pi], "cos": [mp.pi / 2, 3 * mp.pi / 2],
    "arccosh": [1], "arctanh": [1, -1], "arcsin": [1, -1], "arccos": [1, -1],
    "log": [1], "log2": [1], "log10": [1], "log1p": [-1],
    "sinc": [1, 2, -1, mp.mpf("1.4303")],
    "sp.gammaln": [1, 2, -1, -2, mp.mpf("-2.4570247"), mp.mpf("1.4616321449683622")],
    "sp.digamma": [mp.mpf("1.4616321449683622"), -1, -2, -10, mp.mpf("-0.50408300826445541")],
    "sp.gamma": [-1, -2, mp.mpf("1.4616321449683622"), 171.5],
    "sp.erfinv": [1, -1], "sp.logit": [mp.mpf(1) / 2, 1], "sp.ndtri": [mp.mpf(1) / 2, 1],
    "sp.spence": [1, 2, mp.mpf(1) / 2], "sp.expi": [mp.mpf("0.37250741078136663")],
    "sp.loggamma": [1, 2], "sp.entr": [1, mp.e ** -1], "nn.squareplus": [],
}

# Functions whose first / second derivative jumps at 0 (no reference there; JAX's one-sided
# conventions are tests/test_grad_accuracy.py's)
KINK_AT_0 = {"sp.i0e": ("grad", "jvp", "grad2"), "nn.selu": ("grad", "jvp", "grad2"),
             "sp.i1e": ("grad2",), "nn.elu": ("grad2",), "nn.celu": ("grad2",),
             "nn.soft_sign": ("grad2",)}

# binary: (accessor, mpmath f(x, y), closed-form partial in the swept operand, which operand
#          is swept, values of the other operand)
BINARY = {
    "power_x": (lambda K: K.np.power, lambda x, y: x ** y,
                lambda x, y: y * x ** (y - 1) if x > 0 else None, 0, (0.5, 2.0, 3.0, -1.5)),
    "power_y": (lambda K: K.np.power, lambda x, y: x ** y,
                lambda x, y: x ** y * mp.log(x) if x > 0 else None, 1, (0.5, 2.0, 1e-3)),
    "arctan2_y": (lambda K: K.np.arctan2, mp.atan2, lambda y, x: x / (x * x + y * y), 0,
                  (1.0, -1.0, 1e-20)),
    "arctan2_x": (lambda K: K.np.arctan2, mp.atan2, lambda y, x: -y / (x * x + y * y), 1,
                  (1.0, -1.0, 1e-20)),
    "hypot": (lambda K: K.np.hypot, lambda x, y: mp.hypot(x, y),
              lambda x, y: x / mp.hypot(x, y), 0, (1.0, 1e-20, 1e20)),
    "logaddexp": (lambda K: K.np.logaddexp, lambda x, y: mp.log(mp.exp(x) + mp.exp(y)),
                  lambda x, y: _expit(x - y), 0, (0.0, 50.0, -50.0)),
    "logaddexp2": (lambda K: K.np.logaddexp2, lambda x, y: mp.log(2 ** x + 2 ** y, 2),
                   lambda x, y: _expit((x - y) * mp.ln2), 0, (0.0, 50.0, -50.0)),
    "divide_y": (lambda K: K.np.divide, lambda x, y: x / y, lambda x, y: -x / (y * y), 1,
                 (1.0, 1e-20)),
    "sp.xlogy_y": (lambda K: K.sp.xlogy, lambda x, y: x * mp.log(y),
                   lambda x, y: x / y if y > 0 else None, 1, (1.0, 1e-20)),
    "sp.xlog1py_y": (lambda K: K.sp.xlog1py, lambda x, y: x * mp.log1p(y),
                     lambda x, y: x / (1 + y) if y > -1 else None, 1, (1.0, 1e-20)),
}


class Kit:
    def __init__(self, lib, np_mod):
        self.lib, self.np, self.sp, self.nn = lib, np_mod, lib.scipy.special, lib.nn


TJ = Kit(tjit, tjnp)
JX = Kit(jax, jjnp) if jax is not None else None


# -- points ------------------------------------------------------------------------------------
def special_points(dtype, near=()):
    """Points where derivative formulas cancel or overflow, exactly representable in dtype."""
    fi = np.finfo(dtype)
    tiny_exp = [-3, -5, -8, -12, -16, -20, -25, -30] + ([-45, -100, -300] if fi.bits == 64 else [])
    mags = [10.0 ** e for e in tiny_exp]
    mags += [float(fi.tiny) / 4, float(fi.smallest_subnormal) * 3]          # subnormals
    mags += [1e3, 1e5, 1e8, 1e12, 1e20, 1e30] + ([1e100, 1e300] if fi.bits == 64 else [])
    mags += [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 60.0]
    over = np.log(float(fi.max))                                           # exp overflow edge
    mags += [over - 1, over - 0.01, over + 0.5, -np.log(float(fi.tiny)) + 2]
    near1 = [1 - 2.0 ** -k for k in (10, 20, 23)] + [1 + 2.0 ** -k for k in (10, 20, 22)]
    near1 += [1 - 1e-3, 1 - 1e-6]
    pts = [0.0] + mags + [-m for m in mags] + near1 + [-p for p in near1]
    for c in near:  # the nearest float and 3 neighbours each side, plus +-1e-3 relative
        f = dtype.type(float(c))
        for k in range(3):
            pts += [f, np.nextafter(f, dtype.type(np.inf)), np.nextafter(f, -dtype.type(np.inf))]
            f = np.nextafter(f, dtype.type(np.inf))
        pts += [float(c) * (1 + 1e-3), float(c) * (1 - 1e-3)]
    with np.errstate(over="ignore"):
        arr = np.array(pts, dtype=dtype)
    return np.unique(arr[np.isfinite(arr)])


# -- the reference -----------------------------------------------------------------------------
class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def _span_bits(x):
    return abs(int(mp.mag(x))) if x else 0


def _nderiv(g, x, n, bits):
    """n-th derivative of g at x by mpmath.diff: step 2**-bits * min(|x|, 1), at a precision
    that holds x +- h exactly and leaves 2**-bits of g's digits after the differencing."""
    span = _span_bits(x)
    h = mp.ldexp(min(abs(x), 1) if x else mp.mpf(1), -bits)
    with mp.workprec(3 * bits + 2 * span):
        return mp.diff(g, x, n, h=h)


def _real(v):
    if v is None:
        return None
    if isinstance(v, mp.mpc):
        return None if v.imag != 0 else v.real
    return v


def _attempt(fn, *a):
    try:
        return _real(fn(*a))
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, mp.libmp.NoConvergence):
        return None


def _agree(a, b):
    if a is None or b is None:
        return False
    if mp.isinf(a) or mp.isinf(b):
        return a == b
    if a == 0 or b == 0:
        return a == b or abs(a - b) < mp.mpf(10) ** -400
    return abs(a - b) <= abs(b) * mp.mpf(10) ** -25


def stable(compute, seconds=4.0):
    """compute(dps) at dps 40, 80, 160, 320 until two consecutive results agree (three when
    they are 0: I1 - I0 at 1e100 is 0 at 40 and 80 digits alike); None if they never do,
    mpmath fails, or a level takes longer than `seconds`."""
    prev, zeros = None, 0
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for dps in (40, 80, 160, 320):
            signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                with mp.workdps(dps):
                    cur = compute(dps)
            except _Slow:
                return None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            zeros = zeros + 1 if cur == 0 else 0
            if cur is not None and _agree(cur, prev) and (cur != 0 or zeros >= 3):
                return +cur
            prev = cur
        return None
    finally:
        signal.signal(signal.SIGALRM, old)


def reference(f, d1, x):
    """(f(x), f'(x), f''(x)) at the float x, each an mpf or None (see the module doc)."""
    x = mp.mpf(float(x))
    val = stable(lambda dps: _attempt(f, x))
    if val is None:
        return None, None, None

    def first(dps):
        if d1 is not None:
            return _attempt(d1, x)
        return _attempt(lambda t: _nderiv(f, t, 1, int(3.3 * dps)), x)

    def second(dps):
        if d1 is not None:
            g = d1
            if _attempt(g, x) is None:
                return None
            return _attempt(lambda t: _nderiv(g, t, 1, int(3.3 * dps)), x)
        return _attempt(lambda t: _nderiv(f, t, 2, int(3.3 * dps)), x)
    return val, stable(first), stable(second)


def ulps(got, true, dtype):
    """|got - true| in ulps of true in dtype; an error below the dtype's tiny is < 1 ulp."""
    if true is None:
        return np.nan
    fmax = float(np.finfo(dtype).max)
    if mp.isinf(true) or abs(true) > fmax:
        return 0.0 if np.isinf(got) and np.sign(got) == mp.sign(true) else np.inf
    if not np.isfinite(got):
        return np.inf
    true_f = float(true)
    ulp = max(np.spacing(abs(np.asarray(true_f, dtype))), np.finfo(dtype).tiny)
    return float(abs(mp.mpf(float(got)) - true) / mp.mpf(float(ulp)))


# -- the derivatives under test ----------------------------------------------------------------
# JAX 0.10's expi over the whole point set (vmap-style: every branch's loop for every lane)
# runs for hours; one point at a time it takes seconds
JAX_ONE_POINT_AT_A_TIME = {"sp.expi", "sp.exp1"}


def derivatives_pointwise(K, fn, xs, dtype, kinds, jit=False):
    """derivatives() one point at a time, concatenated."""
    parts = [derivatives(K, fn, xs[i:i + 1], dtype, kinds, jit) for i in range(len(xs))]
    out = {}
    for kind in kinds:
        got = [p[0][kind] for p in parts]
        bad = [g for g in got if isinstance(g, str)]
        out[kind] = bad[0] if bad else np.concatenate(got)
    return out, np.concatenate([p[1] for p in parts])


def derivatives(K, fn, xs, dtype, kinds, jit=False):
    """{kind: float64 array} of the elementwise derivatives of fn at xs, and fn's values."""
    lib = K.lib
    wrap = lib.jit if jit else (lambda h: h)
    x = lib.numpy.asarray(xs, dtype=dtype)

    def d1(v):
        return lib.grad(lambda u: lib.numpy.sum(fn(u)))(v)
    out = {}
    for kind in kinds:
        try:
            if kind == "grad":
                r = wrap(d1)(x)
            elif kind == "jvp":
                r = wrap(lambda v: lib.jvp(fn, (v,), (lib.numpy.ones_like(v),))[1])(x)
            else:
                r = wrap(lib.grad(lambda v: lib.numpy.sum(d1(v))))(x)
            out[kind] = np.asarray(r, np.float64)
        except Exception as e:  # a failing derivative is a finding too
            out[kind] = f"{type(e).__name__}: {e}"[:160]
    return out, np.asarray(wrap(fn)(x), np.float64)


def _bind(get, other, wrt, lib, dtype):
    fn = get(TJ if lib is tjit else JX)
    if other is None:
        return fn
    o = dtype.type(other)
    return (lambda v: fn(v, o)) if wrt == 0 else (lambda v: fn(o, v))


def check(name, dtype, kinds, jit=False):
    """Rows (name, other, x, kind, got, true, err, value_err, jax_got, jax_err) of one function."""
    if name in UNARY:
        get, f_mp, d_mp = UNARY[name]
        plans = [(None, 0)]
    else:
        get, f_mp, d_mp, wrt, fixed = BINARY[name]
        plans = [(o, wrt) for o in fixed]
    rows, errors = [], []
    xs = special_points(dtype, NEAR.get(name, ()))
    for other, wrt in plans:
        res = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for K in (TJ, JX):
                if K is None:
                    continue
                fn = _bind(get, other, wrt, K.lib, dtype)
                try:
                    one = K is JX and name in JAX_ONE_POINT_AT_A_TIME
                    res[K is TJ] = (derivatives_pointwise if one else derivatives)(
                        K, fn, xs, dtype, kinds, jit)
                except Exception as e:  # the value itself failed
                    errors.append((name, other, "value", K is TJ, f"{type(e).__name__}: {e}"[:160]))
        if True not in res:
            continue
        (dt, v_t), dj = res[True], res.get(False, ({}, None))[0]
        for kind in kinds:
            for lib_is_tj, d in ((True, dt), (False, dj)):
                if isinstance(d.get(kind), str):
                    errors.append((name, other, kind, lib_is_tj, d[kind]))
        for i, x in enumerate(xs):
            if other is None:
                f, d1 = f_mp, d_mp
            elif wrt == 0:
                f, d1 = (lambda t: f_mp(t, mp.mpf(other))), (lambda t: d_mp(t, mp.mpf(other)))
            else:
                f, d1 = (lambda t: f_mp(mp.mpf(other), t)), (lambda t: d_mp(mp.mpf(other), t))
            val, r1, r2 = reference(f, d1, x)
            if val is None:
                continue
            e_val = ulps(v_t[i], val, dtype)
            for kind, true in (("grad", r1), ("jvp", r1), ("grad2", r2)):
                if kind not in kinds or isinstance(dt.get(kind), str):
                    continue
                if x == 0 and kind in KINK_AT_0.get(name, ()):
                    continue
                got = dt[kind][i]
                jg = dj.get(kind) if not isinstance(dj.get(kind), str) else None
                rows.append((name, other, x, kind, got, true, ulps(got, true, dtype), e_val,
                             None if jg is None else jg[i],
                             np.nan if jg is None else ulps(jg[i], true, dtype)))
    return rows, errors


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtype", default="float32,float64")
    p.add_argument("--only", default="")
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--ulps", type=float, default=64)
    p.add_argument("--ulps2", type=float, default=256, help="the bound for grad of grad")
    p.add_argument("--value-ulps", type=float, default=64)
    p.add_argument("--jit", action="store_true", help="derivatives under jit (default eager)")
    p.add_argument("-v", action="store_true")
    a = p.parse_args()
    kinds = [k for k in a.kinds.split(",") if k]
    names = [n for n in list(UNARY) + list(BINARY) if not a.only or n in a.only.split(",")]
    for dtype in [np.dtype(d) for d in a.dtype.split(",")]:
        bad, checked, noref, badval, jax_worse, jax_better = {}, {}, 0, 0, 0, 0
        flagged = set()
        for name in names:
            rows, errors = check(name, dtype, kinds, a.jit)
            for nm, other, kind, is_tj, msg in errors:
                print(f"ERROR {nm} other={other} {kind} ({'tjit' if is_tj else 'jax'}): {msg}")
            for nm, other, x, kind, got, true, err, e_val, jg, e_j in rows:
                if true is None:
                    noref += 1
                    continue
                checked[kind] = checked.get(kind, 0) + 1
                bound = a.ulps2 if kind == "grad2" else a.ulps
                if e_val > a.value_ulps:
                    badval += 1
                    continue
                flag = err > bound
                jax_bad = e_j > bound
                if flag:
                    bad[kind] = bad.get(kind, 0) + 1
                    flagged.add(nm)
                    jax_better += not jax_bad
                else:
                    jax_worse += jax_bad
                if flag or a.v:
                    shared = "" if jg is None else ("JAX too" if jax_bad else "JAX ok")
                    o = "" if other is None else f" other={other:g}"
                    print(f"{'BAD ' if flag else '    '}{kind:5} {nm}{o} x={x:.9g}: tjit "
                          f"{got:.9g} true {float(true):.9g} ({err:.3g} ulp; value {e_val:.3g}"
                          f" ulp) jax {jg!s:.12} ({e_j:.3g} ulp) {shared}")
                elif jax_bad and not flag:
                    o = "" if other is None else f" other={other:g}"
                    print(f"JAXBAD {kind:5} {nm}{o} x={x:.9g}: tjit {got:.9g} ({err:.3g} ulp) "
                          f"jax {jg!s:.12} ({e_j:.3g} ulp) true {float(true):.9g}")
        print(f"{dtype}: {len(names)} functions; checked {checked}; bad {bad} in "
              f"{sorted(flagged)}; {noref} without a reference; {badval} skipped for a bad value;"
              f" JAX worse at {jax_worse} points tjit gets right, better at {jax_better}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
