"""Differential hunt: every public function of tjit.random against jax.random 0.10.2 and
against the distribution's definition.

For each case the same key, shape, dtype and parameters go to both libraries:

* parity: ``bits`` (identical values), ``ulps`` (allclose, rtol 1e-5), ``values`` (both
  valid, other values: a different sampler for the same distribution), ``error`` (one
  raised, the other did not), ``shape/dtype`` (result metadata differs);
* distribution: a Kolmogorov-Smirnov test against scipy.stats (continuous) or a
  chi-square test against the pmf (discrete) on a large tjit sample, with JAX's
  p-value beside it as a control (p < 1e-4 flags the case);
* transformations: jit == eager (allclose) and vmap over keys == a Python loop;
* gradients: where JAX defines them, against an independent reference.

    /work/jaxvenv/bin/python benchmarks/diff_random.py [--n 20000] [--only parity]

Needs jax and an importable tjit in one process; prints one table per section and the
counts at the end.
"""

import argparse
import warnings
from collections import Counter

import jax
import jax.random as jr
import numpy as np
import scipy.special as sp
import scipy.stats as ss

import tjit
import tjit.random as tr

warnings.simplefilter("ignore")
SHAPE = (1000,)
COV = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]])
LOGITS = np.log(np.arange(1, 13.0).reshape(3, 4))
P5 = np.array([0.1, 0.2, 0.3, 0.2, 0.2])


def _cases(S):
    """name -> f(random_module, key) over the public API (same call text for both)."""
    return {
        "uniform": lambda r, k: r.uniform(k, S),
        "uniform(-3,5)": lambda r, k: r.uniform(k, S, minval=-3.0, maxval=5.0),
        "bits u32": lambda r, k: r.bits(k, S),
        "bits u8": lambda r, k: r.bits(k, S, dtype="uint8"),
        "bits u16": lambda r, k: r.bits(k, S, dtype="uint16"),
        "randint": lambda r, k: r.randint(k, S, -5, 17),
        "randint i8 full": lambda r, k: r.randint(k, S, -128, 127, dtype="int8"),
        "randint u8 0..256": lambda r, k: r.randint(k, S, 0, 256, dtype="uint8"),
        "randint u8 clip": lambda r, k: r.randint(k, S, 250, 300, dtype="uint8"),
        "randint min>=max": lambda r, k: r.randint(k, S, 7, 5),
        "randint i32 full": lambda r, k: r.randint(k, S, -2 ** 31, 2 ** 31 - 1),
        "split": lambda r, k: r.key_data(r.split(k, 5)),
        "split (2,3)": lambda r, k: r.key_data(r.split(k, (2, 3))),
        "fold_in": lambda r, k: r.key_data(r.fold_in(k, 123456)),
        "permutation n": lambda r, k: r.permutation(k, 50),
        "permutation axis=1": lambda r, k: r.permutation(k, np.arange(60).reshape(6, 10), 1),
        "permutation indep": lambda r, k: r.permutation(
            k, np.arange(60).reshape(6, 10), axis=1, independent=True),
        "choice": lambda r, k: r.choice(k, 10, (20,)),
        "choice no-replace": lambda r, k: r.choice(k, 10, (5,), replace=False),
        "choice p": lambda r, k: r.choice(k, 5, (20,), p=P5),
        "choice no-replace p": lambda r, k: r.choice(k, 5, (3,), replace=False, p=P5),
        "choice axis=2": lambda r, k: r.choice(k, np.arange(24).reshape(2, 3, 4), (2, 2),
                                               axis=2),
        "normal": lambda r, k: r.normal(k, S),
        "normal c64": lambda r, k: r.normal(k, (10,), dtype="complex64"),
        "truncated_normal": lambda r, k: r.truncated_normal(k, -1.0, 2.0, S),
        "truncated_normal tail": lambda r, k: r.truncated_normal(k, 3.0, 8.0, S),
        "bernoulli": lambda r, k: r.bernoulli(k, 0.3, S),
        "bernoulli high": lambda r, k: r.bernoulli(k, 0.3, S, mode="high"),
        "categorical": lambda r, k: r.categorical(k, np.log(P5), shape=(20,)),
        "categorical axis=0": lambda r, k: r.categorical(k, LOGITS, axis=0, shape=(5, 4)),
        "categorical no-replace": lambda r, k: r.categorical(k, LOGITS, shape=(2, 3),
                                                             replace=False),
        "exponential": lambda r, k: r.exponential(k, S),
        "laplace": lambda r, k: r.laplace(k, S),
        "logistic": lambda r, k: r.logistic(k, S),
        "cauchy": lambda r, k: r.cauchy(k, S),
        "gumbel": lambda r, k: r.gumbel(k, S),
        "gumbel high": lambda r, k: r.gumbel(k, S, mode="high"),
        "rademacher": lambda r, k: r.rademacher(k, S),
        "maxwell": lambda r, k: r.maxwell(k, S),
        "double_sided_maxwell": lambda r, k: r.double_sided_maxwell(k, 1.0, 2.0, S),
        "pareto": lambda r, k: r.pareto(k, 3.0, S),
        "weibull_min": lambda r, k: r.weibull_min(k, 2.0, 1.5, S),
        "lognormal": lambda r, k: r.lognormal(k, 0.5, S),
        "rayleigh": lambda r, k: r.rayleigh(k, 2.0, S),
        "wald": lambda r, k: r.wald(k, 1.5, S),
        "geometric": lambda r, k: r.geometric(k, 0.3, S),
        "triangular": lambda r, k: r.triangular(k, 0.0, 1.0, 3.0, S),
        "orthogonal": lambda r, k: r.orthogonal(k, 4),
        "orthogonal n<m": lambda r, k: r.orthogonal(k, 3, m=5),
        "mvn cholesky": lambda r, k: r.multivariate_normal(k, np.zeros(3), COV, (4,)),
        "mvn eigh": lambda r, k: r.multivariate_normal(k, np.zeros(3), COV, (4,),
                                                       method="eigh"),
        "mvn svd": lambda r, k: r.multivariate_normal(k, np.zeros(3), COV, (4,),
                                                      method="svd"),
        "gamma": lambda r, k: r.gamma(k, 2.5, S),
        "loggamma": lambda r, k: r.loggamma(k, 0.5, S),
        "beta": lambda r, k: r.beta(k, 2.0, 3.0, S),
        "dirichlet": lambda r, k: r.dirichlet(k, np.array([1.0, 2.0, 3.0]), (5,)),
        "poisson": lambda r, k: r.poisson(k, 3.0, S),
        "binomial": lambda r, k: r.binomial(k, 20, 0.3, S),
        "multinomial": lambda r, k: r.multinomial(k, 10.0, np.array([0.2, 0.3, 0.5]),
                                                  shape=(4, 3)),
        "t": lambda r, k: r.t(k, 3.0, S),
        "chisquare": lambda r, k: r.chisquare(k, 3.0, S),
        "f": lambda r, k: r.f(k, 3.0, 7.0, S),
        "generalized_normal": lambda r, k: r.generalized_normal(k, 1.5, S),
        "ball": lambda r, k: r.ball(k, 3, shape=(4,)),
    }


def _run(f, r, k):
    try:
        return np.asarray(f(r, k))
    except Exception as e:  # noqa: BLE001 (the error is the result)
        return e


def _compare(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        if isinstance(a, Exception) and isinstance(b, Exception):
            return "both raise", ""
        return "error", f"jax: {a!r:.70}" if isinstance(a, Exception) else f"tjit: {b!r:.70}"
    if a.shape != b.shape or a.dtype != b.dtype:
        return "shape/dtype", f"jax {a.dtype}{a.shape} tjit {b.dtype}{b.shape}"
    if np.array_equal(a, b, equal_nan=True):
        return "bits", ""
    if a.dtype.kind in "fcV" or str(a.dtype) == "bfloat16":
        a64, b64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), \
            b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
        if np.allclose(a64, b64, rtol=1e-5, atol=1e-6, equal_nan=True):
            rel = np.max(np.abs(a64 - b64) / np.maximum(np.abs(a64), 1e-30))
            return "ulps", f"max rel {rel:.1e}"
    return "values", f"{np.mean(a != b):.0%} of entries differ"


def parity(S=SHAPE, dtypes=("float16", "bfloat16", "float32")):
    rows = []
    kj, kt = jr.key(42), tr.key(42)
    for name, f in _cases(S).items():
        rows.append((name, *_compare(_run(f, jr, kj), _run(f, tr, kt))))
    # float dtypes other than the default
    for dt in dtypes[:-1]:
        for name in ("uniform", "normal", "exponential", "laplace", "logistic", "cauchy",
                     "gumbel", "maxwell"):
            def f(r, k, name=name, dt=dt):
                return getattr(r, name)(k, S, dtype=dt)
            rows.append((f"{name} {dt}", *_compare(_run(f, jr, kj), _run(f, tr, kt))))
    return rows


def parity_x64(S=SHAPE):
    jax.config.update("jax_enable_x64", True)
    tjit.config.update("enable_x64", True)
    try:
        rows = []
        kj, kt = jr.key(42), tr.key(42)
        for name in ("uniform", "normal", "exponential", "gumbel", "randint", "bits u32",
                     "permutation n", "choice p", "categorical", "bernoulli", "geometric",
                     "truncated_normal", "gamma", "poisson"):
            f = _cases(S)[name]
            rows.append((name + " x64", *_compare(_run(f, jr, kj), _run(f, tr, kt))))
        f = lambda r, k: r.bits(k, S, dtype="uint64")
        rows.append(("bits u64 x64", *_compare(_run(f, jr, kj), _run(f, tr, kt))))
        f = lambda r, k: r.randint(k, S, -2 ** 62, 2 ** 62)
        rows.append(("randint i64 x64", *_compare(_run(f, jr, kj), _run(f, tr, kt))))
        return rows
    finally:
        jax.config.update("jax_enable_x64", False)
        tjit.config.update("enable_x64", False)


# -- distributions -------------------------------------------------------------------------
def _ks(x, cdf):
    return ss.kstest(np.asarray(x, np.float64).ravel(), cdf).pvalue


TINY32 = float(np.finfo(np.float32).tiny)


def _ks_censored(x, cdf, tiny=TINY32):
    """KS of ``cdf(x)`` against U(0, 1) where values below ``tiny`` (underflowed to 0 or
    subnormal, so inexact) count as uniform draws in [0, cdf(tiny)] (a fixed seed)."""
    x = np.asarray(x, np.float64).ravel()
    u = cdf(x)
    low = x < tiny
    u[low] = np.random.default_rng(0).uniform(0, cdf(tiny), low.sum())
    return ss.kstest(u, "uniform").pvalue


def _chi2(x, pmf, support):
    x = np.asarray(x).ravel()
    obs = np.array([(x == s).sum() for s in support], float)
    outside = x.size - obs.sum()
    exp = pmf(np.asarray(support)) * x.size
    keep = exp > 5
    o = np.append(obs[keep], obs[~keep].sum() + outside)
    e = np.append(exp[keep], max(exp[~keep].sum(), 1e-9))
    if outside and e[-1] < 1e-6:
        return 0.0  # values outside the support
    return ss.chisquare(o, e * o.sum() / e.sum()).pvalue


def _dist_cases(N):
    c = {}  # name -> (sampler f(r, k), test(x) -> p-value)
    for a in (0.01, 0.3, 1.0, 2.5, 50.0, 1e4):
        c[f"gamma a={a}"] = (lambda r, k, a=a: r.gamma(k, a, (N,)),
                             lambda x, a=a: _ks_censored(x, ss.gamma(a).cdf))
    for a in (1e-4, 0.01, 0.5, 5.0):
        c[f"loggamma a={a}"] = (lambda r, k, a=a: r.loggamma(k, a, (N,)),
                                lambda x, a=a: _ks(x, ss.loggamma(a).cdf))
    for a, b in ((0.5, 0.5), (2.0, 3.0), (1e3, 2e3)):
        c[f"beta {a},{b}"] = (lambda r, k, a=a, b=b: r.beta(k, a, b, (N,)),
                              lambda x, a=a, b=b: _ks(x, ss.beta(a, b).cdf))
    c["dirichlet[0] (.1,.2,.3)"] = (
        lambda r, k: r.dirichlet(k, np.array([0.1, 0.2, 0.3]), (N,))[:, 0],
        lambda x: _ks_censored(x, ss.beta(0.1, 0.5).cdf))
    for df in (0.5, 3.0, 100.0):
        c[f"t df={df}"] = (lambda r, k, d=df: r.t(k, d, (N,)), lambda x, d=df: _ks(x, ss.t(d).cdf))
        c[f"chisquare df={df}"] = (lambda r, k, d=df: r.chisquare(k, d, (N,)),
                                   lambda x, d=df: _ks(x, ss.chi2(d).cdf))
    c["f 3,7"] = (lambda r, k: r.f(k, 3.0, 7.0, (N,)), lambda x: _ks(x, ss.f(3, 7).cdf))
    for p in (0.5, 1.0, 2.0, 8.0):
        c[f"generalized_normal p={p}"] = (lambda r, k, p=p: r.generalized_normal(k, p, (N,)),
                                          lambda x, p=p: _ks(x, ss.gennorm(p).cdf))
    simple = {"normal": ss.norm, "exponential": ss.expon, "laplace": ss.laplace,
              "logistic": ss.logistic, "cauchy": ss.cauchy, "gumbel": ss.gumbel_r,
              "maxwell": ss.maxwell, "uniform": ss.uniform}
    for name, dist in simple.items():
        c[name] = (lambda r, k, n=name: getattr(r, n)(k, (N,)), lambda x, d=dist: _ks(x, d.cdf))
    c["normal float64"] = (lambda r, k: r.normal(k, (N,), dtype="float64"),
                           lambda x: _ks(x, ss.norm.cdf))
    c["gumbel high"] = (lambda r, k: r.gumbel(k, (N,), mode="high"),
                        lambda x: _ks(x, ss.gumbel_r.cdf))
    c["truncated_normal -1,2"] = (lambda r, k: r.truncated_normal(k, -1.0, 2.0, (N,)),
                                  lambda x: _ks(x, ss.truncnorm(-1, 2).cdf))
    for lo, hi in ((3.0, 8.0), (5.0, 6.0), (10.0, 12.0), (-12.0, -10.0)):
        c[f"truncated_normal {lo},{hi}"] = (
            lambda r, k, lo=lo, hi=hi: r.truncated_normal(k, lo, hi, (N,)),
            lambda x, lo=lo, hi=hi: _ks(x, ss.truncnorm(lo, hi).cdf))
    c["pareto 3"] = (lambda r, k: r.pareto(k, 3.0, (N,)), lambda x: _ks(x, ss.pareto(3).cdf))
    c["weibull_min"] = (lambda r, k: r.weibull_min(k, 2.0, 1.5, (N,)),
                        lambda x: _ks(x, ss.weibull_min(1.5, scale=2).cdf))
    c["lognormal .5"] = (lambda r, k: r.lognormal(k, 0.5, (N,)),
                         lambda x: _ks(x, ss.lognorm(0.5).cdf))
    c["rayleigh 2"] = (lambda r, k: r.rayleigh(k, 2.0, (N,)),
                       lambda x: _ks(x, ss.rayleigh(scale=2).cdf))
    c["wald 1.5"] = (lambda r, k: r.wald(k, 1.5, (N,)), lambda x: _ks(x, ss.invgauss(1.5).cdf))
    c["triangular"] = (lambda r, k: r.triangular(k, 0.0, 1.0, 3.0, (N,)),
                       lambda x: _ks(x, ss.triang(1 / 3, loc=0, scale=3).cdf))
    c["double_sided_maxwell |x|"] = (
        lambda r, k: r.double_sided_maxwell(k, 0.0, 2.0, (N,)),
        lambda x: _ks(np.abs(x), ss.maxwell(scale=2).cdf))
    c["ball d=3 radius**3"] = (lambda r, k: r.ball(k, 3, shape=(N,)),
                               lambda x: _ks(np.linalg.norm(x, axis=-1) ** 3, ss.uniform.cdf))
    c["mvn cholesky (whitened)"] = (
        lambda r, k: r.multivariate_normal(k, np.zeros(3), COV, (N,)),
        lambda x: _ks(x @ np.linalg.inv(np.linalg.cholesky(COV)).T, ss.norm.cdf))
    for lam in (0.0, 1e-3, 3.0, 9.99, 10.0, 25.0, 1000.0):
        hi = int(lam + 10 * np.sqrt(lam) + 20)
        c[f"poisson {lam}"] = (lambda r, k, lam=lam: r.poisson(k, lam, (N,)),
                               lambda x, lam=lam, hi=hi: _chi2(x, ss.poisson(lam).pmf,
                                                               np.arange(hi)))
    for n, p in ((1, 0.5), (10, 0.0), (10, 1.0), (10, 0.3), (30, 0.9), (100, 0.3),
                 (1000, 0.5), (1e4, 1e-4)):
        c[f"binomial {n},{p}"] = (lambda r, k, n=n, p=p: r.binomial(k, n, p, (N,)),
                                  lambda x, n=n, p=p: _chi2(x, ss.binom(n, p).pmf,
                                                            np.arange(int(n) + 1)))
    for p in (0.01, 0.3, 1.0):
        c[f"geometric {p}"] = (lambda r, k, p=p: r.geometric(k, p, (N,)),
                               lambda x, p=p: _chi2(x, ss.geom(p).pmf, np.arange(1, 3000)))
    for p in (0.0, 1.0, 0.3, 1e-9):
        for mode in ("low", "high"):
            c[f"bernoulli {p} {mode}"] = (
                lambda r, k, p=p, m=mode: r.bernoulli(k, p, (N,), mode=m).astype(int),
                lambda x, p=p: _chi2(x, ss.bernoulli(p).pmf, [0, 1]))
    lg = np.array([0.0, -np.inf, 1.0, -np.inf, 2.0])
    pr = np.exp(lg) / np.exp(lg).sum()
    c["categorical -inf logits"] = (lambda r, k: r.categorical(k, lg, shape=(N,)),
                                    lambda x: _chi2(x, lambda s: pr[s], range(5)))
    c["choice p"] = (lambda r, k: r.choice(k, 5, (N,), p=pr),
                     lambda x: _chi2(x, lambda s: pr[s], range(5)))
    c["choice p unnormalized"] = (lambda r, k: r.choice(k, 5, (N,), p=pr * 3),
                                  lambda x: _chi2(x, lambda s: pr[s], range(5)))
    for lo, hi, dt in ((-128, 128, "int8"), (-200, 200, "int8"), (0, 256, "uint8"),
                       (250, 256, "uint8"), (-5, 3, "uint8"), (0, 3, "int32")):
        info = np.iinfo(dt)
        sup = np.arange(max(lo, info.min), min(hi, info.max + 1))
        c[f"randint {lo},{hi} {dt}"] = (
            lambda r, k, lo=lo, hi=hi, dt=dt: r.randint(k, (N,), lo, hi, dtype=dt),
            lambda x, n=sup.size, sup=sup: _chi2(x, lambda s: np.ones(len(s)) / n, sup))
    return c


def distributions(N):
    rows = []
    kj, kt = jr.key(7), tr.key(7)
    for name, (f, test) in _dist_cases(N).items():
        pj = test(_run(f, jr, kj))
        pt_ = test(_run(f, tr, kt))
        rows.append((name, "WRONG" if pt_ < 1e-4 else "ok", f"tjit p={pt_:.3g}  jax p={pj:.3g}"))
    return rows


# -- transformations and gradients ------------------------------------------------------------
def transforms():
    rows = []
    small = _cases((5,))
    keys = tr.split(tr.key(5), 3)
    for name, f in small.items():
        def g(k, f=f):
            return f(tr, k)
        try:
            eager = np.asarray(g(keys[0]))
            jitted = np.asarray(tjit.jit(g)(keys[0]))
            batched = np.asarray(tjit.vmap(g)(keys))
            loop = np.stack([np.asarray(g(k)) for k in keys])
            ok_j = np.allclose(jitted.astype(float), eager.astype(float), rtol=2e-5, atol=1e-6,
                               equal_nan=True) if eager.dtype.kind != "c" else \
                np.allclose(jitted, eager, rtol=2e-5, atol=1e-6)
            ok_v = np.allclose(batched.astype(complex), loop.astype(complex), rtol=2e-5,
                               atol=1e-6, equal_nan=True)
            rows.append((name, "ok" if ok_j and ok_v else "WRONG",
                         f"jit==eager {ok_j}, vmap==loop {ok_v}"))
        except Exception as e:  # noqa: BLE001
            rows.append((name, "error", f"{e!r:.90}"))
    return rows


def _dx_dalpha(alpha, x):
    u = sp.gammainc(alpha, np.asarray(x, np.float64))
    h = 1e-5 * alpha
    return (sp.gammaincinv(alpha + h, u) - sp.gammaincinv(alpha - h, u)) / (2 * h)


def gradients():
    rows = []
    k = tr.key(3)
    for a in (0.05, 0.3, 2.5, 300.0):
        f = lambda a: tr.gamma(k, a, (64,))
        x = np.asarray(f(a))
        got = np.asarray(tjit.jacrev(f)(a))
        err = np.max(np.abs(got - _dx_dalpha(a, x)) / np.abs(_dx_dalpha(a, x)))
        rows.append((f"gamma d/dalpha a={a}", "ok" if err < 1e-3 else "WRONG",
                     f"max rel err vs d gammaincinv {err:.1e}"))
    # per-sample closed forms
    for name, f, at, want in [
        ("uniform d/dmaxval", lambda m: tr.uniform(k, (64,), minval=-1.0, maxval=m), 3.0,
         lambda x, m: (x + 1) / (m + 1)),
        ("lognormal d/dsigma", lambda s: tr.lognormal(k, s, (64,)), 0.5,
         lambda x, s: x * np.log(x) / s),
        ("pareto d/db", lambda b: tr.pareto(k, b, (64,)), 3.0,
         lambda x, b: -x * np.log(x) / b),
    ]:
        x = np.asarray(f(at), np.float64)
        got = np.asarray(tjit.jacrev(f)(at))
        err = np.max(np.abs(got - want(x, at)) / np.abs(want(x, at)))
        rows.append((name, "ok" if err < 1e-4 else "WRONG", f"max rel err {err:.1e}"))
    # unbiasedness: mean of per-sample gradients vs d E[x]; tolerance ~4 standard errors
    n = 200_000
    for name, f, at, want, tol in [
        ("beta mean d/da", lambda a: tr.beta(k, a, 2.0, (n,)).mean(), 0.7, 2 / 2.7 ** 2,
         0.005),
        ("chisquare mean d/ddf", lambda d: tr.chisquare(k, d, (n,)).mean(), 3.0, 1.0, 0.01),
        ("truncated_normal mean d/dupper", lambda u: tr.truncated_normal(
            k, -1.0, u, (n,)).mean(), 1.0, None, 0.005),
    ]:
        got = float(tjit.grad(f)(at))
        if want is None:  # d/du of the truncated normal mean, exactly
            h = 1e-4
            want = (ss.truncnorm(-1, at + h).mean() - ss.truncnorm(-1, at - h).mean()) / (2 * h)
        rows.append((name, "ok" if abs(got - want) < tol else "WRONG",
                     f"{got:.4f} vs {want:.4f}"))
    return rows


def _print(title, rows):
    print(f"\n== {title} ==")
    for name, status, note in rows:
        print(f"  {name:34s} {status:12s} {note}")
    return Counter(status for _, status, _ in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="sample size of the tests")
    ap.add_argument("--only", choices=["parity", "dist", "transforms", "grads"])
    args = ap.parse_args()
    totals = {}
    if args.only in (None, "parity"):
        totals["parity"] = _print("values vs jax.random (same key)", parity())
        totals["parity x64"] = _print("values vs jax.random under x64", parity_x64())
    if args.only in (None, "dist"):
        totals["dist"] = _print(f"distribution tests (N={args.n})", distributions(args.n))
    if args.only in (None, "transforms"):
        totals["transforms"] = _print("jit and vmap over keys", transforms())
    if args.only in (None, "grads"):
        totals["grads"] = _print("gradients", gradients())
    print("\n== counts ==")
    for k, v in totals.items():
        print(f"  {k:12s} " + ", ".join(f"{s}: {n}" for s, n in sorted(v.items())))


if __name__ == "__main__":
    main()
