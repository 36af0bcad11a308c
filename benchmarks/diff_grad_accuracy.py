"""Derivative accuracy hunt: float32/float64 grads near special points against mpmath.

diff_grad.py compares derivatives with float64 finite differences, which cannot see an
autodiff formula that cancels catastrophically (grad of sin(t)/t near 0 subtracts two values
near 1/t; grad of log(1 + exp(x)) for large x divides two overflowing numbers). This hunt
evaluates grad of every elementwise function of tjit.numpy, tjit.scipy.special and tjit.nn at
points where such formulas break down -- 0, +-1e-3 .. 1e-30, subnormals, near 1, large |x|
(1e3 .. 1e30), near overflow thresholds -- and compares with an mpmath central difference at
150 digits, step 1e-40 relative (1e-70 at 0), at the float's exact value, in ulps of the true
derivative in the working dtype (an absolute floor of the dtype's tiny where it is ~0).

A grad is flagged when it is more than --ulps (default 1e3) ulps off while the function's own
value there is within --value-ulps (default 64) ulps (a bad value is value-accuracy's hunt).
JAX's grad on the same point is shown beside it, so a row says whether JAX shares it.

    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py
    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py --only softplus,sp.expit -v
    /work/jaxvenv/bin/python benchmarks/diff_grad_accuracy.py --dtype float64
"""

import argparse
import os
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
mp.mp.dps = 150  # a 1e-70 step at 0 must still resolve f' ~ 1e-22 beside f ~ 50


def _real(f):
    """mpmath function restricted to real results (a complex or failed result is off-domain)."""
    def g(*a):
        try:
            y = f(*a)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        if isinstance(y, mp.mpc):
            return None if abs(y.imag) > 0 else y.real
        return y
    return g


def _log1pexp(x):
    return mp.log1p(mp.exp(x))


def _ndtr(x):
    return mp.ncdf(x)


def _gelu_tanh(x):
    return x / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x ** 3)))


def _selu(x):
    alpha, scale = mp.mpf("1.6732632423543772848170429916717"), mp.mpf(
        "1.0507009873554804934193349852946")
    return scale * (x if x > 0 else alpha * mp.expm1(x))


def _entr(x):
    return -x * mp.log(x) if x > 0 else (mp.mpf(0) if x == 0 else None)


def _i1e(x):
    return mp.besseli(1, x) * mp.exp(-abs(x))


# name: (tjit/jax accessor on a Kit, mpmath reference); the names follow diff_grad.py's tables
UNARY = {
    "sin": (lambda K: K.np.sin, mp.sin), "cos": (lambda K: K.np.cos, mp.cos),
    "tan": (lambda K: K.np.tan, mp.tan), "arcsin": (lambda K: K.np.arcsin, mp.asin),
    "arccos": (lambda K: K.np.arccos, mp.acos), "arctan": (lambda K: K.np.arctan, mp.atan),
    "sinh": (lambda K: K.np.sinh, mp.sinh), "cosh": (lambda K: K.np.cosh, mp.cosh),
    "tanh": (lambda K: K.np.tanh, mp.tanh), "arcsinh": (lambda K: K.np.arcsinh, mp.asinh),
    "arccosh": (lambda K: K.np.arccosh, mp.acosh),
    "arctanh": (lambda K: K.np.arctanh, mp.atanh),
    "exp": (lambda K: K.np.exp, mp.exp), "exp2": (lambda K: K.np.exp2, lambda x: 2 ** x),
    "expm1": (lambda K: K.np.expm1, mp.expm1), "log": (lambda K: K.np.log, mp.log),
    "log2": (lambda K: K.np.log2, lambda x: mp.log(x, 2)),
    "log10": (lambda K: K.np.log10, mp.log10), "log1p": (lambda K: K.np.log1p, mp.log1p),
    "sqrt": (lambda K: K.np.sqrt, mp.sqrt), "cbrt": (lambda K: K.np.cbrt, mp.cbrt),
    "square": (lambda K: K.np.square, lambda x: x * x),
    "reciprocal": (lambda K: K.np.reciprocal, lambda x: 1 / x),
    "sinc": (lambda K: K.np.sinc, lambda x: mp.sincpi(x)),
    "i0": (lambda K: K.np.i0, lambda x: mp.besseli(0, x)),
    "sp.gammaln": (lambda K: K.sp.gammaln, lambda x: mp.log(abs(mp.gamma(x)))),
    "sp.digamma": (lambda K: K.sp.digamma, mp.digamma),
    "sp.gamma": (lambda K: K.sp.gamma, mp.gamma), "sp.erf": (lambda K: K.sp.erf, mp.erf),
    "sp.erfc": (lambda K: K.sp.erfc, mp.erfc),
    "sp.erfinv": (lambda K: K.sp.erfinv, mp.erfinv),
    "sp.expit": (lambda K: K.sp.expit, lambda x: 1 / (1 + mp.exp(-x))),
    "sp.logit": (lambda K: K.sp.logit, lambda x: mp.log(x / (1 - x))),
    "sp.log_ndtr": (lambda K: K.sp.log_ndtr, lambda x: mp.log(_ndtr(x))),
    "sp.ndtr": (lambda K: K.sp.ndtr, _ndtr),
    "sp.ndtri": (lambda K: K.sp.ndtri, lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1)),
    "sp.i0e": (lambda K: K.sp.i0e, lambda x: mp.besseli(0, x) * mp.exp(-abs(x))),
    "sp.i1e": (lambda K: K.sp.i1e, _i1e),
    "sp.i0": (lambda K: K.sp.i0, lambda x: mp.besseli(0, x)),
    "sp.i1": (lambda K: K.sp.i1, lambda x: mp.besseli(1, x)),
    "sp.entr": (lambda K: K.sp.entr, _entr),
    "sp.spence": (lambda K: K.sp.spence, lambda x: mp.polylog(2, 1 - x) if x >= 0 else None),
    "sp.expi": (lambda K: K.sp.expi, mp.ei),
    "sp.exp1": (lambda K: K.sp.exp1, lambda x: mp.e1(x) if x > 0 else None),
    "sp.erfcx": (lambda K: K.sp.erfcx, lambda x: mp.exp(x * x) * mp.erfc(x)),
    "sp.dawsn": (lambda K: K.sp.dawsn,
                 lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x)),
    "sp.loggamma": (lambda K: K.sp.loggamma, lambda x: mp.loggamma(x) if x > 0 else None),
    "nn.sigmoid": (lambda K: K.nn.sigmoid, lambda x: 1 / (1 + mp.exp(-x))),
    "nn.log_sigmoid": (lambda K: K.nn.log_sigmoid, lambda x: -_log1pexp(-x)),
    "nn.softplus": (lambda K: K.nn.softplus, _log1pexp),
    "nn.soft_sign": (lambda K: K.nn.soft_sign, lambda x: x / (1 + abs(x))),
    "nn.silu": (lambda K: K.nn.silu, lambda x: x / (1 + mp.exp(-x))),
    "nn.elu": (lambda K: K.nn.elu, lambda x: x if x > 0 else mp.expm1(x)),
    "nn.celu": (lambda K: K.nn.celu, lambda x: x if x > 0 else mp.expm1(x)),
    "nn.selu": (lambda K: K.nn.selu, _selu),
    "nn.mish": (lambda K: K.nn.mish, lambda x: x * mp.tanh(_log1pexp(x))),
    "nn.squareplus": (lambda K: K.nn.squareplus, lambda x: (x + mp.sqrt(x * x + 4)) / 2),
    "nn.gelu_exact": (lambda K: (lambda x: K.nn.gelu(x, approximate=False)),
                      lambda x: x * _ndtr(x)),
    "nn.gelu_approx": (lambda K: (lambda x: K.nn.gelu(x, approximate=True)), _gelu_tanh),
    "nn.tanh": (lambda K: K.nn.tanh, mp.tanh),
}

# binary: (accessor, mpmath reference, which operand takes the points (the slope is in it),
#          values of the other operand)
BINARY = {
    "power_x": (lambda K: K.np.power, lambda x, y: x ** y, 0, (0.5, 2.0, 3.0, -1.5)),
    "power_y": (lambda K: K.np.power, lambda x, y: x ** y, 1, (0.5, 2.0, 1e-3)),
    "arctan2_y": (lambda K: K.np.arctan2, mp.atan2, 0, (1.0, -1.0, 1e-20)),
    "arctan2_x": (lambda K: K.np.arctan2, mp.atan2, 1, (1.0, -1.0, 1e-20)),
    "hypot": (lambda K: K.np.hypot, lambda x, y: mp.sqrt(x * x + y * y), 0, (1.0, 1e-20, 1e20)),
    "logaddexp": (lambda K: K.np.logaddexp, lambda x, y: mp.log(mp.exp(x) + mp.exp(y)), 0,
                  (0.0, 50.0, -50.0)),
    "logaddexp2": (lambda K: K.np.logaddexp2, lambda x, y: mp.log(2 ** x + 2 ** y, 2), 0,
                   (0.0, 50.0, -50.0)),
    "divide_y": (lambda K: K.np.divide, lambda x, y: x / y, 1, (1.0, 1e-20)),
    "sp.xlogy_y": (lambda K: K.sp.xlogy, lambda x, y: x * mp.log(y), 1, (1.0, 1e-20)),
    "sp.xlog1py_y": (lambda K: K.sp.xlog1py, lambda x, y: x * mp.log1p(y), 1, (1.0, 1e-20)),
}


class Kit:
    def __init__(self, lib, np_mod):
        self.np, self.sp, self.nn = np_mod, lib.scipy.special, lib.nn


TJ = Kit(tjit, tjnp)
JX = Kit(jax, jjnp) if jax is not None else None


def special_points(dtype):
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
    return np.unique(np.array(pts, dtype=dtype))


def true_derivative(f_mp, x, args=None, wrt=0):
    """d/dx f at the float x (exactly), by mpmath central differences with a relative step."""
    xs = [mp.mpf(float(a)) for a in (args if args is not None else (x,))]
    f0 = f_mp(*xs)
    if f0 is None or not mp.isfinite(f0):
        return None, None
    h = abs(xs[wrt]) * mp.mpf(10) ** -40 if xs[wrt] else mp.mpf(10) ** -70

    def fa(t):
        ys = list(xs)
        ys[wrt] = t
        return f_mp(*ys)

    lo, hi = fa(xs[wrt] - h), fa(xs[wrt] + h)
    if lo is None or hi is None:
        return f0, None                               # at a domain edge: no two-sided slope
    return f0, (hi - lo) / (2 * h)               # O(h^2) error: ~1e-80 relative


def ulps(got, true, dtype):
    """|got - true| in ulps of true in dtype; an error below the dtype's tiny is < 1 ulp."""
    if true is None:
        return np.nan
    true_f = float(true)
    if not np.isfinite(got):
        return np.inf if abs(true_f) < float(np.finfo(dtype).max) else 0.0
    if abs(true_f) > float(np.finfo(dtype).max):
        return 0.0 if np.isinf(got) and np.sign(got) == np.sign(true_f) else np.inf
    ulp = max(np.spacing(abs(np.asarray(true_f, dtype))), np.finfo(dtype).tiny)
    return float(abs(mp.mpf(float(got)) - true) / mp.mpf(float(ulp)))


def grads(K, fn, xs, dtype, other=None, wrt=0):
    """Elementwise grads and values of fn at xs (other: the fixed second operand, if any)."""
    lib = tjit if K is TJ else jax
    x = lib.numpy.asarray(xs, dtype=dtype)
    if other is None:
        g = lib.grad(lambda v: lib.numpy.sum(fn(v)))(x)
        return np.asarray(g, np.float64), np.asarray(fn(x), np.float64)
    o = lib.numpy.full(x.shape, other, dtype=dtype)
    if wrt == 0:
        g = lib.grad(lambda v: lib.numpy.sum(fn(v, o)))(x)
        val = fn(x, o)
    else:
        g = lib.grad(lambda v: lib.numpy.sum(fn(o, v)))(x)
        val = fn(o, x)
    return np.asarray(g, np.float64), np.asarray(val, np.float64)


def check(name, dtype, args):
    rows = []
    if name in UNARY:
        get, f_mp = UNARY[name]
        plans = [(None, 0)]
    else:
        get, f_mp, wrt, fixed = BINARY[name]
        plans = [(o, wrt) for o in fixed]
    f_mp = _real(f_mp)
    xs = special_points(dtype)
    for other, wrt in plans:
        fns = [(K, get(K)) for K in (TJ, JX) if K is not None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = {}
            for K, fn in fns:
                try:
                    res[K is TJ] = grads(K, fn, xs, dtype, other, wrt)
                except Exception as e:  # a failing grad is a finding too
                    rows.append((name, other, None, f"{type(e).__name__}: {e}"[:120]))
                    res[K is TJ] = None
        if res.get(True) is None:
            continue
        g_t, v_t = res[True]
        g_j = res.get(False, (None, None))[0] if res.get(False) is not None else None
        for i, x in enumerate(xs):
            a = None if other is None else ((x, other) if wrt == 0 else (other, x))
            f0, d = true_derivative(f_mp, x, a, wrt)
            if d is None:
                continue
            e_val = ulps(v_t[i], f0, dtype)
            e_t = ulps(g_t[i], d, dtype)
            e_j = ulps(g_j[i], d, dtype) if g_j is not None else np.nan
            rows.append((name, other, x, (g_t[i], float(d), e_t, e_val,
                                          None if g_j is None else g_j[i], e_j)))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtype", default="float32")
    p.add_argument("--only", default="")
    p.add_argument("--ulps", type=float, default=1e3)
    p.add_argument("--value-ulps", type=float, default=64)
    p.add_argument("-v", action="store_true")
    a = p.parse_args()
    dtype = np.dtype(a.dtype)
    names = [n for n in list(UNARY) + list(BINARY) if not a.only or n in a.only.split(",")]
    bad, checked = 0, 0
    for name in names:
        for nm, other, x, info in check(name, dtype, a):
            if x is None:
                print(f"ERROR {nm} other={other}: {info}")
                continue
            checked += 1
            g, d, e_t, e_val, gj, e_j = info
            flag = e_t > a.ulps and e_val <= a.value_ulps
            if flag:
                bad += 1
            if flag or a.v:
                shared = "" if gj is None else ("JAX too" if e_j > a.ulps else "JAX ok")
                o = "" if other is None else f" other={other:g}"
                print(f"{'BAD ' if flag else '    '}{nm}{o} x={x:.9g}: tjit {g:.9g} true {d:.9g}"
                      f" ({e_t:.3g} ulp; value {e_val:.3g} ulp) jax {gj!s:.12} ({e_j:.3g} ulp)"
                      f" {shared}")
    print(f"{len(names)} functions, {checked} points, {bad} bad grads ({dtype})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
