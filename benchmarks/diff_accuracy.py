"""Value accuracy of tjit's special functions, stats tails and cancellation-prone jnp
functions against mpmath at 40 digits, in ulps of the result dtype.

Each case is evaluated eager and under ``jit``, in float32 and float64, over log-spaced
arguments that reach the tails (tiny x, near 1, up to the overflow limits). The reference
is mpmath at the exact binary value of the (rounded) input. A row is flagged when tjit's
worst error exceeds ~8 ulp (float64) / ~4 ulp (float32) while SciPy (float64) is accurate
at that point, or when jit and eager disagree by more than those bounds; SciPy's and (when
importable) JAX's error at tjit's worst point say who shares the problem.

    /work/jaxvenv/bin/python benchmarks/diff_accuracy.py            # with JAX
    .venv/bin/python benchmarks/diff_accuracy.py --only erf,ndtr    # some cases
    ... --verbose    # every flagged point, not just the worst

JAX's expi/exp1 are evaluated one point at a time (``jax_pointwise``): on a float32 array
of the small negative points (|x| from 1e-20 to 1e-4) JAX's expi ran for minutes (4
points: 24 s, 30 points: not done in 10 minutes), though each point alone takes
milliseconds; mpmath and tjit finish these cases in seconds.
"""

import argparse
import math
import os

os.environ["TJIT_ENABLE_X64"] = "1"
os.environ["JAX_ENABLE_X64"] = "1"

import mpmath as mp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as ss  # noqa: E402
import scipy.stats as sst  # noqa: E402

import tjit  # noqa: E402
import tjit.numpy as tnp  # noqa: E402
import tjit.nn as tnn  # noqa: E402
import tjit.scipy.special as tsp  # noqa: E402
import tjit.scipy.stats as tst  # noqa: E402

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.numpy as jjnp
    import jax.nn as jnn
    import jax.scipy.special as jsp
    import jax.scipy.stats as jst
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

mp.mp.dps = 40
BOUND = {np.float32: 4.0, np.float64: 8.0}


# -- argument grids ---------------------------------------------------------------------------
def logspace(lo, hi, n=24, signs=(1,)):
    """n log-spaced magnitudes in [10**lo, 10**hi] with each sign."""
    mags = np.logspace(lo, hi, n)
    return np.concatenate([s * mags for s in signs])


def near(c, lo=-15, hi=-1, n=12, sides=(-1, 1)):
    """c +- 10**k for log-spaced k (points near 1, near a pole, near a root)."""
    d = np.logspace(lo, hi, n)
    return np.concatenate([c + s * d for s in sides])


def lin(a, b, n=24):
    return np.linspace(a, b, n)


def grid(*parts):
    return np.unique(np.concatenate(parts))


def limit(dtype, kind):
    """overflow-limit helpers: log of the largest finite value, sqrt of it."""
    big = np.finfo(dtype).max
    return {"logmax": math.log(big), "max": float(big)}[kind]


# -- the cases ------------------------------------------------------------------------------
class Case:
    """name; tjit function; mpmath reference (of mpf args); SciPy / JAX functions (or None);
    args(dtype) -> tuple of 1-D arrays (broadcast together); jax_pointwise: call JAX on
    one point at a time (see the module docstring)."""

    def __init__(self, name, tjit_fn, ref, args, scipy_fn=None, jax_fn=None,
                 jax_pointwise=False):
        self.name, self.tjit_fn, self.ref, self.args = name, tjit_fn, ref, args
        self.scipy_fn, self.jax_fn = scipy_fn, jax_fn
        self.jax_pointwise = jax_pointwise


def _x(points):
    """args for a one-argument function whose points do not depend on the dtype."""
    return lambda dt: (points(dt) if callable(points) else points,)


def _pairs(xs, ys):
    """every (x, y) of two grids, as two flat arrays."""
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    return X.ravel(), Y.ravel()


def mp_log_ndtr(x):
    return mp.log(mp.ncdf(x))


def mp_log_sf_norm(x):
    return mp.log(mp.ncdf(-x))


def _mp_t_cdf(x, df):
    # I_{df/(df+x^2)}(df/2, 1/2) / 2 for x < 0
    x, df = mp.mpf(x), mp.mpf(df)
    tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + x * x), regularized=True) / 2
    return tail if x < 0 else 1 - tail


def _mp_t_logpdf(x, df):
    return (mp.loggamma((df + 1) / 2) - mp.loggamma(df / 2) - mp.log(df * mp.pi) / 2
            - (df + 1) / 2 * mp.log1p(x * x / df))


def _mp_beta_logcdf(x, a, b):
    """log I_x(a, b); near 1 as log1p of the upper tail at 400 digits (at 40, I_0.9(2, 50)
    is exactly 1, its log 0, where the true value is -4.6e-49: mpmath forms the tail as a
    difference)."""
    lower = mp.betainc(a, b, 0, x, regularized=True)
    if lower < 0.5:
        return mp.log(lower)
    with mp.workdps(400):
        return +mp.log1p(-mp.betainc(a, b, x, 1, regularized=True))


def _mp_binom_cdf(k, n, p):
    k = mp.floor(k)
    if k < 0:
        return mp.mpf(0)
    if k >= n:
        return mp.mpf(1)
    return mp.betainc(n - k, k + 1, 0, 1 - p, regularized=True)


def _mp_poisson_cdf(k, mu):
    k = mp.floor(k)
    if k < 0:
        return mp.mpf(0)
    return mp.gammainc(k + 1, mu, mp.inf, regularized=True)


def build_cases():
    f32max = np.finfo(np.float32).max
    C = []

    def add(*a, **k):
        C.append(Case(*a, **k))

    wide = lambda dt: logspace(-30 if dt == np.float32 else -300,  # noqa: E731
                               np.log10(np.finfo(dt).max) - 0.1, 40, (-1, 1))
    # -- gamma family
    add("gammaln", tsp.gammaln, mp.loggamma,
        _x(lambda dt: grid(logspace(-30, 30, 30), near(1.0), near(2.0), -lin(0.1, 50.3, 17),
                           [np.finfo(dt).max / 1e3])),
        ss.gammaln, jax and jsp.gammaln)
    # gamma and what is built on it: exp(gammaln) amplified gammaln's rounding ~1000-fold
    add("gamma", tsp.gamma, mp.gamma,
        _x(lambda dt: grid(lin(0.01, 171.5 if dt == np.float64 else 35.0, 60),
                           -lin(0.05, 170.95 if dt == np.float64 else 38.9, 40),
                           logspace(-30, 0, 8), near(2.0, -15, -1, 4))),
        ss.gamma, jax and jsp.gamma)
    add("factorial", tsp.factorial, mp.factorial,
        _x(lambda dt: lin(0, 170 if dt == np.float64 else 34, 35)),
        ss.factorial, jax and jsp.factorial)
    add("poch", tsp.poch, mp.rf,
        lambda dt: _pairs(grid(logspace(-3, 2.3, 10), -lin(0.3, 30.3, 4)),
                          grid(logspace(-3, 2.3, 8), -lin(0.4, 20.4, 3))),
        ss.poch, jax and jsp.poch)
    add("comb", tsp.comb, lambda n, k: mp.binomial(n, k) if 0 <= k <= n else mp.mpf(0),
        lambda dt: _pairs(np.array([5.0, 20, 50, 100, 170, 1000, 1e5]),
                          np.array([0.0, 1, 3, 7, 20, 45, 85, 500])),
        ss.comb, jax and getattr(jsp, "comb", None))
    add("digamma", tsp.digamma, mp.digamma,
        _x(grid(logspace(-20, 20, 30), near(1.4616321449683622, -12, -2),
                -lin(0.1, 30.3, 15))), ss.digamma, jax and jsp.digamma)
    add("polygamma1", lambda x: tsp.polygamma(1, x), lambda x: mp.polygamma(1, x),
        _x(grid(logspace(-10, 10, 30), -lin(0.1, 10.3, 9))),
        lambda x: ss.polygamma(1, x), jax and (lambda x: jsp.polygamma(1, x)))
    add("polygamma3", lambda x: tsp.polygamma(3, x), lambda x: mp.polygamma(3, x),
        _x(logspace(-5, 5, 30)),
        lambda x: ss.polygamma(3, x), jax and (lambda x: jsp.polygamma(3, x)))
    add("betaln", tsp.betaln, lambda a, b: mp.log(mp.beta(a, b)),
        lambda dt: _pairs(logspace(-8, 8, 12), logspace(-8, 8, 12)),
        ss.betaln, jax and jsp.betaln)
    add("gammainc", tsp.gammainc, lambda a, x: mp.gammainc(a, 0, x, regularized=True),
        lambda dt: _pairs(logspace(-3, 3, 8), logspace(-4, 3.5, 10)),
        ss.gammainc, jax and jsp.gammainc)
    add("gammaincc", tsp.gammaincc, lambda a, x: mp.gammainc(a, x, mp.inf, regularized=True),
        lambda dt: _pairs(logspace(-3, 3, 8), logspace(-4, 3.5, 10)),
        ss.gammaincc, jax and jsp.gammaincc)
    add("betainc", tsp.betainc, lambda a, b, x: mp.betainc(a, b, 0, x, regularized=True),
        lambda dt: tuple(np.stack(np.meshgrid(logspace(-2, 2.5, 5), logspace(-2, 2.5, 5),
                                              grid(logspace(-6, -0.5, 5), 1 - logspace(-6, -1, 4)),
                                              indexing="ij")).reshape(3, -1)),
        ss.betainc, jax and jsp.betainc)
    add("zeta", lambda x: tsp.zeta(x, 1.0), lambda x: mp.zeta(x),
        _x(grid(near(1.0, -10, 0.5, 12, (1,)), logspace(0.4, 2.5, 12))),
        lambda x: ss.zeta(x, 1.0), jax and (lambda x: jsp.zeta(x, 1.0)))
    add("zeta_q", tsp.zeta, lambda x, q: mp.zeta(x, q),
        lambda dt: _pairs(grid([1.5, 2.0, 3.0, 10.0, 30.0]), logspace(-3, 4, 8)),
        ss.zeta, jax and jsp.zeta)
    # -- error function and the normal distribution
    add("erf", tsp.erf, mp.erf, _x(lambda dt: grid(wide(dt)[np.abs(wide(dt)) < 30],
                                                     lin(-6, 6, 49))),
        ss.erf, jax and jsp.erf)
    add("erfc", tsp.erfc, mp.erfc, _x(grid(logspace(-20, 1.45, 30, (-1, 1)), lin(-6, 27, 34))),
        ss.erfc, jax and jsp.erfc)
    add("erfinv", tsp.erfinv, mp.erfinv,
        _x(grid(logspace(-20, -0.01, 30, (-1, 1)), near(1.0, -15, -1, 15, (-1,)),
                near(-1.0, -15, -1, 15, (1,)))),
        ss.erfinv, jax and jsp.erfinv)
    add("erfcx", getattr(tsp, "erfcx", None), lambda x: mp.exp(x * x) * mp.erfc(x),
        _x(grid(logspace(-10, 10, 30), -logspace(-10, 1.4, 15))),
        ss.erfcx, jax and getattr(jsp, "erfcx", None))
    add("ndtr", tsp.ndtr, mp.ncdf, _x(grid(lin(-38, 9, 95), -logspace(0, 1.58, 25), logspace(-20, 0, 10, (-1, 1)))),
        # (the non-round points matter: at a half-integer x, (x / sqrt 2)**2 rounds back
        # to x**2 / 2, hiding the ~x**2 ulp an erfc that squares its argument loses)
        ss.ndtr, jax and jsp.ndtr)
    add("ndtri", tsp.ndtri, lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1),
        _x(grid(logspace(-300, -0.31, 40), near(0.5, -12, -1, 10), 1 - logspace(-16, -1, 15))),
        ss.ndtri, jax and jsp.ndtri)
    add("log_ndtr", tsp.log_ndtr, mp_log_ndtr,
        _x(grid(-logspace(0, 7, 40), lin(-45, 10, 56), logspace(-10, 0, 8))),
        ss.log_ndtr, jax and jsp.log_ndtr)
    # -- logistic family
    add("expit", tsp.expit, lambda x: 1 / (1 + mp.exp(-x)),
        _x(grid(logspace(-20, 2.9, 40, (-1, 1)))), ss.expit, jax and jsp.expit)
    add("logit", tsp.logit, lambda p: mp.log(p / (1 - p)),
        _x(grid(logspace(-300, -0.31, 40), near(0.5, -12, -1, 10), 1 - logspace(-16, -1, 15))),
        ss.logit, jax and jsp.logit)
    add("softplus", tnn.softplus, lambda x: mp.log1p(mp.exp(x)),
        _x(grid(logspace(-20, 2.9, 40, (-1, 1)))),
        lambda x: np.logaddexp(0, x), jax and jnn.softplus)
    add("gelu_tanh", tnn.gelu,
        # 1 / (1 + exp(-2u)) == (1 + tanh(u)) / 2 without its cancellation at 40 digits
        lambda x: x / (1 + mp.exp(-2 * mp.sqrt(2 / mp.pi) * (x + mp.mpf(0.044715) * x ** 3))),
        _x(grid(logspace(-20, 1.5, 30, (-1, 1)))), None, jax and jnn.gelu)
    add("gelu_exact", lambda x: tnn.gelu(x, approximate=False),
        lambda x: x * mp.ncdf(x), _x(grid(logspace(-20, 1.5, 30, (-1, 1)))),
        lambda x: x * ss.ndtr(x), jax and (lambda x: jnn.gelu(x, approximate=False)))
    # -- x log y and entropies
    add("xlogy", tsp.xlogy, lambda x, y: x * mp.log(y),
        lambda dt: _pairs(logspace(-30, 30, 7), grid(logspace(-30, 30, 9), near(1.0, -12, -1, 6))),
        ss.xlogy, jax and jsp.xlogy)
    add("xlog1py", tsp.xlog1py, lambda x, y: x * mp.log1p(y),
        lambda dt: _pairs(logspace(-30, 30, 7), grid(logspace(-30, 30, 9, (-1, 1))[:-9],
                                                     logspace(-30, 30, 9), -1 + logspace(-12, -1, 5))),
        ss.xlog1py, jax and jsp.xlog1py)
    add("entr", tsp.entr, lambda x: -x * mp.log(x), _x(grid(logspace(-300, 300, 40), near(1.0))),
        ss.entr, jax and jsp.entr)
    add("rel_entr", tsp.rel_entr, lambda p, q: p * mp.log(p / q),
        lambda dt: _pairs(logspace(-20, 5, 8), grid(logspace(-20, 5, 8), near(1.0, -12, -2, 4))),
        ss.rel_entr, jax and jsp.rel_entr)
    add("kl_div", tsp.kl_div, lambda p, q: p * mp.log(p / q) - p + q,
        lambda dt: _pairs(logspace(-20, 5, 8), grid(logspace(-20, 5, 8), near(1.0, -12, -2, 4))),
        ss.kl_div, jax and jsp.kl_div)
    # -- Bessel
    add("i0", tsp.i0, mp.besseli.__get__(0) if False else (lambda x: mp.besseli(0, x)),
        _x(lambda dt: grid(logspace(-20, np.log10(limit(dt, "logmax") + 1), 30, (-1, 1)))),
        ss.i0, jax and jsp.i0)
    add("i0e", tsp.i0e, lambda x: mp.exp(-abs(x)) * mp.besseli(0, x),
        _x(grid(logspace(-20, 20, 30, (-1, 1)))), ss.i0e, jax and jsp.i0e)
    add("i1", tsp.i1, lambda x: mp.besseli(1, x),
        _x(lambda dt: grid(logspace(-20, np.log10(limit(dt, "logmax") + 1), 30, (-1, 1)))),
        ss.i1, jax and jsp.i1)
    add("i1e", tsp.i1e, lambda x: mp.exp(-abs(x)) * mp.besseli(1, x),
        _x(grid(logspace(-20, 20, 30, (-1, 1)))), ss.i1e, jax and jsp.i1e)
    # -- integrals
    add("spence", getattr(tsp, "spence", None), lambda x: mp.polylog(2, 1 - x),
        _x(grid(logspace(-20, 20, 30), near(1.0, -12, -1, 8))), ss.spence,
        jax and getattr(jsp, "spence", None))
    add("expi", getattr(tsp, "expi", None), mp.ei,
        _x(lambda dt: grid(logspace(-20, np.log10(limit(dt, "logmax")), 30, (-1, 1)),
                           near(0.37250741078136663, -12, -2, 8))),
        ss.expi, jax and getattr(jsp, "expi", None), jax_pointwise=True)
    add("exp1", getattr(tsp, "exp1", None), mp.e1,
        _x(lambda dt: grid(logspace(-20, np.log10(limit(dt, "logmax")), 30))),
        ss.exp1, jax and getattr(jsp, "exp1", None), jax_pointwise=True)
    # -- jnp with known cancellation
    # (sinpi: exactly 0 at the integers, where sin(mp.pi * x) leaves ~1e-40)
    add("sinc", tnp.sinc, lambda x: mp.sinpi(x) / (mp.pi * x) if x else mp.mpf(1),
        _x(grid(logspace(-20, 5, 30, (-1, 1)), near(1.0, -12, -2, 6), near(3.0, -12, -2, 6))),
        np.sinc, jax and jjnp.sinc)
    add("log1p", tnp.log1p, mp.log1p,
        _x(lambda dt: grid(logspace(-300 if dt == np.float64 else -40, np.log10(np.finfo(dt).max) - 0.1, 40),
                           -logspace(-20, -0.01, 20), -1 + logspace(-15, -1, 10))),
        np.log1p, jax and jjnp.log1p)
    add("expm1", tnp.expm1, mp.expm1,
        _x(lambda dt: grid(logspace(-300 if dt == np.float64 else -40, np.log10(limit(dt, "logmax")) - 0.001, 40, (-1, 1)),
                           -logspace(1, 2.9, 10))),
        np.expm1, jax and jjnp.expm1)
    add("logaddexp", tnp.logaddexp, lambda a, b: mp.log(mp.exp(a) + mp.exp(b)),
        lambda dt: _pairs(grid(logspace(-10, 3, 8, (-1, 1))), grid(logspace(-10, 3, 8, (-1, 1)))),
        np.logaddexp, jax and jjnp.logaddexp)
    add("logaddexp2", tnp.logaddexp2, lambda a, b: mp.log(2 ** a + 2 ** b, 2),
        lambda dt: _pairs(grid(logspace(-10, 3, 8, (-1, 1))), grid(logspace(-10, 3, 8, (-1, 1)))),
        np.logaddexp2, jax and jjnp.logaddexp2)
    add("hypot", tnp.hypot, lambda a, b: mp.sqrt(a * a + b * b),
        lambda dt: _pairs(wide(dt)[::3], wide(dt)[::3]), np.hypot, jax and jjnp.hypot)
    add("arctanh", tnp.arctanh, mp.atanh,
        _x(grid(logspace(-30, -0.01, 20, (-1, 1)), near(1.0, -16, -1, 15, (-1,)),
                near(-1.0, -16, -1, 15, (1,)))), np.arctanh, jax and jjnp.arctanh)
    add("arccosh", tnp.arccosh, mp.acosh,
        _x(lambda dt: grid(near(1.0, -16, -1, 15, (1,)), logspace(0.1, np.log10(np.finfo(dt).max), 20))),
        np.arccosh, jax and jjnp.arccosh)
    add("arcsinh", tnp.arcsinh, mp.asinh, _x(lambda dt: grid(wide(dt))), np.arcsinh,
        jax and jjnp.arcsinh)
    add("logsumexp_b", lambda x, b: tsp.logsumexp(tnp.stack([x, tnp.zeros_like(x)], -1),
                                                 b=tnp.stack([b, -tnp.ones_like(b)], -1), axis=-1),
        lambda x, b: mp.log(b * mp.exp(x) - 1),
        lambda dt: _pairs(grid(logspace(-12, 2.5, 12)), np.array([1.0, 2.0, 0.5, 1e3])),
        lambda x, b: ss.logsumexp(np.stack([x, np.zeros_like(x)], -1),
                                  b=np.stack([b, -np.ones_like(b)], -1), axis=-1),
        jax and (lambda x, b: jsp.logsumexp(jjnp.stack([x, jjnp.zeros_like(x)], -1),
                                           b=jjnp.stack([b, -jjnp.ones_like(b)], -1), axis=-1)))
    add("log_softmax", lambda x: tnn.log_softmax(tnp.stack([x, tnp.zeros_like(x)], -1))[..., 1],
        lambda x: -mp.log1p(mp.exp(x)), _x(grid(logspace(-20, 2.9, 30, (-1, 1)))),
        lambda x: ss.log_softmax(np.stack([x, np.zeros_like(x)], -1), axis=-1)[..., 1],
        jax and (lambda x: jnn.log_softmax(jjnp.stack([x, jjnp.zeros_like(x)], -1))[..., 1]))
    # -- stats in their tails
    add("norm.logcdf", tst.norm.logcdf, mp_log_ndtr, _x(grid(-logspace(0, 7, 30), lin(-40, 10, 26))),
        sst.norm.logcdf, jax and jst.norm.logcdf)
    add("norm.logsf", tst.norm.logsf, mp_log_sf_norm, _x(grid(logspace(0, 7, 30), lin(-10, 40, 26))),
        sst.norm.logsf, jax and jst.norm.logsf)
    add("norm.logpdf", tst.norm.logpdf, lambda x: -x * x / 2 - mp.log(2 * mp.pi) / 2,
        _x(grid(logspace(-10, 150, 30, (-1, 1)))), sst.norm.logpdf, jax and jst.norm.logpdf)
    add("t.logpdf", tst.t.logpdf, _mp_t_logpdf,
        lambda dt: _pairs(logspace(-3, 8, 10, (-1, 1)), np.array([0.5, 1.0, 3.0, 30.0, 1e4, 1e8])),
        sst.t.logpdf, jax and jst.t.logpdf)
    add("t.logcdf", getattr(tst.t, "logcdf", None), lambda x, df: mp.log(_mp_t_cdf(x, df)),
        lambda dt: _pairs(-logspace(-1, 6, 10), np.array([0.5, 1.0, 3.0, 30.0])),
        sst.t.logcdf, jax and getattr(jst.t, "logcdf", None))
    add("gamma.logpdf", tst.gamma.logpdf,
        lambda x, a: (a - 1) * mp.log(x) - x - mp.loggamma(a),
        lambda dt: _pairs(logspace(-20, 3, 10), np.array([0.1, 1.0, 3.5, 100.0, 1e5])),
        sst.gamma.logpdf, jax and jst.gamma.logpdf)
    add("gamma.logcdf", tst.gamma.logcdf,
        lambda x, a: mp.log(mp.gammainc(a, 0, x, regularized=True)),
        lambda dt: _pairs(logspace(-20, 2.5, 10), np.array([0.1, 1.0, 3.5, 100.0])),
        sst.gamma.logcdf, jax and jst.gamma.logcdf)
    add("gamma.logsf", tst.gamma.logsf,
        lambda x, a: mp.log(mp.gammainc(a, x, mp.inf, regularized=True)),
        lambda dt: _pairs(logspace(-5, 2.5, 10), np.array([0.1, 1.0, 3.5, 100.0])),
        sst.gamma.logsf, jax and jst.gamma.logsf)
    add("beta.logpdf", tst.beta.logpdf,
        lambda x, a, b: (a - 1) * mp.log(x) + (b - 1) * mp.log1p(-x) - mp.log(mp.beta(a, b)),
        lambda dt: tuple(np.stack(np.meshgrid(grid(logspace(-20, -0.5, 6), 1 - logspace(-12, -1, 4)),
                                              np.array([0.5, 2.0, 50.0]), np.array([0.5, 3.0, 1e3]),
                                              indexing="ij")).reshape(3, -1)),
        sst.beta.logpdf, jax and jst.beta.logpdf)
    add("beta.logcdf", tst.beta.logcdf, _mp_beta_logcdf,
        lambda dt: tuple(np.stack(np.meshgrid(grid(logspace(-12, -0.5, 6), 1 - logspace(-10, -1, 4)),
                                              np.array([0.5, 2.0, 50.0]), np.array([0.5, 3.0, 50.0]),
                                              indexing="ij")).reshape(3, -1)),
        sst.beta.logcdf, jax and jst.beta.logcdf)
    add("poisson.logpmf", tst.poisson.logpmf,
        lambda k, mu: k * mp.log(mu) - mu - mp.loggamma(k + 1),
        lambda dt: _pairs(np.array([0.0, 1, 5, 30, 300, 3e4, 1e6]), logspace(-5, 6, 9)),
        sst.poisson.logpmf, jax and jst.poisson.logpmf)
    add("poisson.logcdf", getattr(tst.poisson, "logcdf", None),
        lambda k, mu: mp.log(_mp_poisson_cdf(k, mu)),
        lambda dt: _pairs(np.array([0.0, 1, 5, 30, 300]), logspace(-3, 3, 9)),
        sst.poisson.logcdf, jax and getattr(jst.poisson, "logcdf", None))
    add("binom.logpmf", tst.binom.logpmf,
        lambda k, n, p: mp.log(mp.binomial(n, k)) + k * mp.log(p) + (n - k) * mp.log1p(-p),
        lambda dt: tuple(np.stack(np.meshgrid(np.array([0.0, 1, 7, 50]), np.array([50.0, 1e4]),
                                              grid(logspace(-12, -0.5, 4), 1 - logspace(-12, -1, 3)),
                                              indexing="ij")).reshape(3, -1)),
        sst.binom.logpmf, jax and jst.binom.logpmf)
    add("binom.logcdf", getattr(tst.binom, "logcdf", None),
        lambda k, n, p: mp.log(_mp_binom_cdf(k, n, p)),
        lambda dt: tuple(np.stack(np.meshgrid(np.array([0.0, 1, 7, 30]), np.array([50.0, 1e3]),
                                              grid(logspace(-8, -0.5, 4), 1 - logspace(-8, -1, 3)),
                                              indexing="ij")).reshape(3, -1)),
        sst.binom.logcdf, jax and getattr(jst.binom, "logcdf", None))
    return [c for c in C if c.tjit_fn is not None]


# -- measuring ------------------------------------------------------------------------------
def reference(ref, args, dtype):
    """mpmath's value at each point (exact inputs), as a Python list of mpf (or None)."""
    out = []
    for point in zip(*[a.tolist() for a in args]):
        try:
            v = ref(*[mp.mpf(p) for p in point])
            out.append(mp.re(v) if isinstance(v, mp.mpc) and abs(mp.im(v)) <= 1e-30 * abs(v) else v)
        except (ValueError, ZeroDivisionError, OverflowError):
            out.append(None)
    return out


def ulp_errors(got, true, dtype):
    """|got - true| in ulps of true in dtype (spacing at true's magnitude, the subnormal
    spacing below); inf where got is NaN/inf but true is finite in dtype, 0 where both
    round to the same infinity/zero and true overflows."""
    got = np.asarray(got, np.float64)
    finfo = np.finfo(dtype)
    err = np.zeros(got.shape)
    for i, t in enumerate(true):
        g = got.flat[i]
        if t is None or isinstance(t, mp.mpc) or mp.isnan(t):
            err.flat[i] = np.nan  # no real reference here
            continue
        if mp.isinf(t) or abs(t) > finfo.max:
            err.flat[i] = 0.0 if (np.isinf(g) and (g > 0) == (t > 0)) or \
                abs(g) >= finfo.max * (1 - finfo.eps) else np.inf
            continue
        if not np.isfinite(g):
            err.flat[i] = np.inf
            continue
        t_round = dtype(float(t))
        spacing = float(np.spacing(np.abs(t_round))) if t_round != 0 else float(finfo.smallest_subnormal)
        # spacing of the binade of |t| (np.spacing at a power of two is the upper one)
        err.flat[i] = float(abs(mp.mpf(float(g)) - t)) / max(spacing, float(finfo.smallest_subnormal))
    return err


def evaluate(fn, args, dtype, jit):
    xs = [tnp.asarray(a.astype(dtype)) for a in args]
    f = tjit.jit(fn) if jit else fn
    try:
        return np.asarray(f(*xs), np.float64), None
    except Exception as e:  # a failure is a finding, not a crash of the survey
        return None, f"{type(e).__name__}: {str(e)[:80]}"


def evaluate_other(fn, args, dtype, jax_module=False, pointwise=False):
    if fn is None:
        return None
    if pointwise:
        f = jax.jit(fn)
        out = [evaluate_other(f, [a[i:i + 1] for a in args], dtype, jax_module)
               for i in range(args[0].size)]
        return None if any(o is None for o in out) else np.concatenate(out)
    try:
        xs = [jjnp.asarray(a.astype(dtype)) if jax_module else a.astype(dtype) for a in args]
        with np.errstate(all="ignore"):
            return np.asarray(fn(*xs), np.float64)
    except Exception:
        return None


def run_case(case, dtype, verbose):
    args = [np.asarray(a, np.float64) for a in case.args(dtype)]
    args = np.broadcast_arrays(*args)
    args = [a.astype(dtype).astype(np.float64).ravel() for a in args]  # exact inputs
    keep = np.ones(args[0].shape, bool)
    for a in args:
        keep &= np.isfinite(a)
    args = [a[keep] for a in args]
    true = reference(case.ref, args, dtype)
    rows = {}
    for jit in (False, True):
        got, failure = evaluate(case.tjit_fn, args, dtype, jit)
        rows[jit] = (got, failure, None if got is None else ulp_errors(got, true, dtype))
    sp = evaluate_other(case.scipy_fn, args, np.float64)
    sp_err = None if sp is None else ulp_errors(sp, true, np.float64)
    jx = evaluate_other(case.jax_fn, args, dtype, jax_module=True,
                        pointwise=case.jax_pointwise) if jax else None
    jx_err = None if jx is None else ulp_errors(jx, true, dtype)
    bound = BOUND[dtype]
    findings = []
    for jit in (False, True):
        got, failure, err = rows[jit]
        mode = "jit" if jit else "eager"
        if failure:
            findings.append(f"  {mode}: raised {failure}")
            continue
        e = np.where(np.isnan(err), -1, err)
        worst = int(np.argmax(e))
        bad = e > bound
        if sp_err is not None:
            bad &= ~(np.nan_to_num(sp_err, nan=0) > 8)  # SciPy inaccurate too: not ours alone
        line = (f"  {mode:5s} max {e[worst]:9.3g} ulp at {tuple(float(a[worst]) for a in args)}"
                f" got {got[worst]:.17g} true {mp.nstr(true[worst], 17) if true[worst] is not None else None}")
        if sp_err is not None:
            line += f" | scipy {sp_err[worst]:.3g} ulp(f64)"
        if jx_err is not None:
            line += f" | jax {jx_err[worst]:.3g} ulp"
        line += f"   [{int(bad.sum())}/{bad.size} flagged]"
        findings.append(line)
        if verbose:
            for i in np.flatnonzero(bad)[:20]:
                findings.append(f"      {tuple(float(a[i]) for a in args)}: got {got[i]:.17g} "
                                f"true {mp.nstr(true[i], 17)} err {e[i]:.3g}"
                                + (f" scipy {sp_err[i]:.3g}" if sp_err is not None else "")
                                + (f" jax {jx_err[i]:.3g}" if jx_err is not None else ""))
    ge, je = rows[False][0], rows[True][0]
    if ge is not None and je is not None:
        same = (ge == je) | (np.isnan(ge) & np.isnan(je))
        with np.errstate(all="ignore"):
            tiny = np.finfo(dtype).tiny
            diff = np.where(same, 0, np.abs(ge - je) / np.maximum(np.spacing(np.abs(ge).astype(dtype)).astype(np.float64), tiny))
        diff = np.nan_to_num(diff, nan=np.inf)
        if diff.max() > 2 * bound:
            i = int(np.argmax(diff))
            findings.append(f"  jit vs eager differ {diff[i]:.3g} ulp at {tuple(float(a[i]) for a in args)}:"
                            f" eager {ge[i]:.17g} jit {je[i]:.17g}")
    return findings


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="comma-separated case names")
    p.add_argument("--dtype", default="float32,float64")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    only = set(filter(None, a.only.split(",")))
    for case in build_cases():
        if only and case.name not in only:
            continue
        for dt in a.dtype.split(","):
            dtype = getattr(np, dt)
            print(f"{case.name} [{dt}]", flush=True)
            with np.errstate(all="ignore"):
                for line in run_case(case, dtype, a.verbose):
                    print(line, flush=True)


if __name__ == "__main__":
    main()
