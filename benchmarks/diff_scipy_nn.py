"""Differential hunt: tjit.nn and tjit.scipy against SciPy/NumPy (float64) and JAX.

Each case draws random arguments (plus edge values: 0, +-inf, NaN, tails, huge and tiny
magnitudes, out-of-support points) for one public function, evaluates it with tjit eager
and under ``jit``, with SciPy/NumPy in float64 (the reference) and with JAX, and flags

- a NaN/inf pattern that differs from both the reference and JAX,
- an error versus the reference that is both above a tolerance (a multiple of the dtype's
  eps) and more than ``RATIO`` times JAX's error on the same inputs,
- jit differing from eager beyond a few eps,
- gradients (float64 only) differing from central differences and from ``jax.grad``.

Run with the JAX virtualenv so that tjit, jax and scipy are importable in one process; the
dtype is float32 unless ``--x64`` (which enables 64-bit types in both libraries):

    /work/jaxvenv/bin/python benchmarks/diff_scipy_nn.py --seed 0 --reps 20
    JAX_ENABLE_X64=1 /work/jaxvenv/bin/python benchmarks/diff_scipy_nn.py --x64
"""

import argparse
import faulthandler
import os
import signal
import sys
import traceback

import numpy as np

X64 = "--x64" in sys.argv
if X64:
    os.environ["JAX_ENABLE_X64"] = "1"
    os.environ["TJIT_ENABLE_X64"] = "1"

import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402
import scipy.special as ss  # noqa: E402
import scipy.stats as sst  # noqa: E402
import scipy.linalg as sla  # noqa: E402
import scipy.signal as ssig  # noqa: E402
import scipy.ndimage as snd  # noqa: E402
import jax.scipy.optimize  # noqa: E402,F401

import tjit  # noqa: E402
import tjit.numpy as tjnp  # noqa: E402

jax.config.update("jax_enable_x64", X64)
tjit.config.update("jax_enable_x64", X64)

DT = np.float64 if X64 else np.float32
EPS = float(np.finfo(DT).eps)
F32_EPS = float(np.finfo(np.float32).eps)
RATIO = 10.0
FUNCS = set()
# JAX 0.10.2's exp1/expi/expn loop forever on some inputs (its while_loop series): these are
# compared with SciPy only
NO_JAX = {"exp1", "expi", "expn"}


def lib_get(lib, dotted):
    obj = lib
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


# -- argument generators -----------------------------------------------------------------------
EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-30, 1e-8, 1e-3, 10.0, 30.0, 100.0, 1e4,
                 1e10, -1e-8, -0.5, -2.5, -10.0, -30.0, -100.0, np.inf, -np.inf, np.nan])


def gen(rng, kind, n):
    """n values of a family: 'real' (wide range, both signs), 'pos', 'unit' ((0, 1)),
    'int' (small non-negative ints), 'sym1' ((-1, 1)), with a few edge values mixed in."""
    if kind == "real":
        v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 2, n)
    elif kind == "pos":
        v = 10.0 ** rng.uniform(-4, 3, n)
    elif kind == "pos_small":
        v = 10.0 ** rng.uniform(-3, 1.5, n)
    elif kind == "unit":
        v = rng.uniform(0, 1, n)
        v[: n // 4] = 10.0 ** rng.uniform(-20, -1, n // 4)
        v[n // 4: n // 2] = 1 - 10.0 ** rng.uniform(-7, -1, n // 2 - n // 4)
    elif kind == "sym1":
        v = rng.uniform(-1, 1, n)
        v[: n // 4] = np.sign(rng.standard_normal(n // 4)) * (1 - 10.0 ** rng.uniform(-7, -1, n // 4))
    elif kind == "int":
        v = rng.integers(0, 12, n).astype(float)
    elif kind == "mod":
        v = rng.uniform(-8, 8, n)
    else:
        raise ValueError(kind)
    k = max(1, n // 6)
    idx = rng.choice(n, k, replace=False)
    v[idx] = rng.choice(EDGE, k)
    return v


# -- comparison ------------------------------------------------------------------------------
def rel_err(y, ref):
    y = np.asarray(y, np.float64)
    ref = np.asarray(ref, np.float64)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(ref), 1e-300)
        e = np.abs(y - ref) / scale
        both_inf = np.isinf(y) & np.isinf(ref) & (np.sign(y) == np.sign(ref))
        both_nan = np.isnan(y) & np.isnan(ref)
        e = np.where(both_inf | both_nan, 0.0, e)
        e = np.where(np.isnan(e), np.inf, e)
    return e


class Report:
    def __init__(self):
        self.cases = 0
        self.bad = {}
        self.missing = set()

    def flag(self, name, msg):
        self.bad.setdefault(name, []).append(msg)


def _fmt(a):
    return np.array2string(np.asarray(a), precision=8, threshold=6)


def compare(rep, name, args, y, y_jit, ref, y_jax, tol_eps=64.0, abs_tol=None):
    """Elementwise compare tjit (eager and jit) with the float64 reference and JAX."""
    rep.cases += 1
    y, ref, y_jax = (np.asarray(v, np.float64) for v in (y, ref, y_jax))
    if y.shape != ref.shape:
        rep.flag(name, f"shape {y.shape} vs reference {ref.shape}")
        return
    e_t = rel_err(y, ref)
    e_j = rel_err(y_jax, ref) if y_jax.shape == ref.shape else np.full(ref.shape, np.inf)
    tol = tol_eps * EPS
    if abs_tol is not None:
        with np.errstate(all="ignore"):
            e_t = np.where(np.abs(y - ref) <= abs_tol, 0.0, e_t)
            e_j = np.where(np.abs(y_jax - ref) <= abs_tol, 0.0, e_j)
    # same value as JAX (within tol) counts as JAX's semantics
    agree_jax = rel_err(y, y_jax) <= tol if y_jax.shape == ref.shape else np.zeros(ref.shape, bool)
    bad = (e_t > tol) & (e_t > RATIO * e_j) & ~agree_jax
    if bad.any():
        i = np.flatnonzero(bad.ravel())[:4]
        ins = [np.broadcast_to(np.asarray(a), ref.shape).ravel()[i] if np.ndim(a) <= ref.ndim
               and np.broadcast_shapes(np.shape(a), ref.shape) == ref.shape else "..."
               for a in args]
        rep.flag(name, f"{bad.sum()}/{bad.size} bad; inputs {[_fmt(a) for a in ins]} "
                       f"tjit {_fmt(y.ravel()[i])} ref {_fmt(ref.ravel()[i])} "
                       f"jax {_fmt(y_jax.ravel()[i])}")
    if y_jit is not None:
        y_jit = np.asarray(y_jit, np.float64)
        ej = rel_err(y_jit, y)
        bad = ej > max(tol, 1e3 * EPS)
        if abs_tol is not None:
            bad &= np.abs(y_jit - y) > abs_tol
        if bad.any():
            i = np.flatnonzero(bad.ravel())[:4]
            rep.flag(name + "[jit]", f"{bad.sum()} jit vs eager: jit {_fmt(y_jit.ravel()[i])} "
                                     f"eager {_fmt(y.ravel()[i])} ref {_fmt(ref.ravel()[i])}")


def run_elementwise(rep, rng, name, tj, jx, ref, kinds, n=64, tol_eps=64.0, abs_tol=None,
                    do_jit=True):
    args64 = [gen(rng, k, n) for k in kinds]
    args = [a.astype(DT) for a in args64]
    # the reference sees the inputs rounded to the tested dtype
    with np.errstate(all="ignore"):
        r = np.asarray(ref(*[a.astype(np.float64) for a in args]), np.float64)
    try:
        y = np.asarray(tj(*[tjnp.asarray(a) for a in args]))
    except Exception as e:  # noqa: BLE001
        rep.cases += 1
        rep.flag(name, f"raised {type(e).__name__}: {str(e)[:200]}")
        return
    y_jit = np.asarray(tjit.jit(tj)(*[tjnp.asarray(a) for a in args])) if do_jit else None
    try:
        if jx is None:
            raise ValueError("no JAX comparison")
        yj = np.asarray(jx(*[jjnp.asarray(a) for a in args]))
    except Exception:  # noqa: BLE001
        yj = np.full(r.shape, np.nan)
    compare(rep, name, args, y, y_jit, r, yj, tol_eps, abs_tol)


# -- scipy.special -------------------------------------------------------------------------------
def _sp(name):
    return (lambda *a, _n=name: lib_get(tjit, "scipy.special." + _n)(*a),
            lambda *a, _n=name: lib_get(jax, "scipy.special." + _n)(*a))


SPECIAL = [  # name, scipy reference, argument kinds, tolerance in eps
    ("gammaln", ss.gammaln, ["real"], 256),
    ("digamma", ss.digamma, ["real"], 256),
    ("gamma", ss.gamma, ["real"], 256),
    ("gammasgn", ss.gammasgn, ["real"], 4),
    ("erf", ss.erf, ["real"], 16),
    ("erfc", ss.erfc, ["real"], 64),
    ("erfinv", ss.erfinv, ["sym1"], 64),
    ("ndtr", ss.ndtr, ["real"], 64),
    ("ndtri", ss.ndtri, ["unit"], 64),
    ("log_ndtr", ss.log_ndtr, ["real"], 64),
    ("expit", ss.expit, ["real"], 16),
    ("logit", ss.logit, ["unit"], 16),
    ("i0", ss.i0, ["real"], 64),
    ("i0e", ss.i0e, ["real"], 64),
    ("i1", ss.i1, ["real"], 64),
    ("i1e", ss.i1e, ["real"], 64),
    ("entr", ss.entr, ["real"], 16),
    ("exp1", ss.exp1, ["real"], 256),
    ("expi", ss.expi, ["real"], 256),
    ("spence", ss.spence, ["real"], 256),
    ("dawsn", ss.dawsn, ["real"], 64),
    ("erfcx", ss.erfcx, ["real"], 64),
    ("factorial", ss.factorial, ["real"], 256),
    ("loggamma", lambda x: np.where(x > 0, ss.gammaln(x), np.nan), ["real"], 256),
    ("xlogy", ss.xlogy, ["real", "real"], 16),
    ("xlog1py", ss.xlog1py, ["real", "real"], 16),
    ("rel_entr", ss.rel_entr, ["real", "real"], 16),
    ("kl_div", ss.kl_div, ["real", "real"], 64),
    ("gammainc", ss.gammainc, ["pos", "pos"], 1024),
    ("gammaincc", ss.gammaincc, ["pos", "pos"], 1024),
    ("gammainc_small", ss.gammainc, ["pos_small", "pos_small"], 256),
    ("gammaincc_small", ss.gammaincc, ["pos_small", "pos_small"], 256),
    ("betainc", ss.betainc, ["pos_small", "pos_small", "unit"], 1024),
    ("betaln", ss.betaln, ["pos", "pos"], 256),
    ("beta", ss.beta, ["real", "real"], 256),
    ("zeta", ss.zeta, ["pos_small", "pos_small"], 256),
    ("zeta1", ss.zeta, ["real"], 256),
    ("polygamma", ss.polygamma, ["int", "pos_small"], 1024),
    ("poch", ss.poch, ["real", "int"], 1024),
    # comb is exp of a difference of gammalns: |gammaln(N)| * eps of absolute error
    ("comb", ss.comb, ["int", "int"], 1e5),
    ("expn", ss.expn, ["int", "pos_small"], 1024),
    ("multigammaln2", lambda a: np.where(a > 0.5, ss.multigammaln(np.maximum(a, 0.6), 2) if np.ndim(a) else 0, np.nan),
     ["pos_small"], 256),
    ("boxcox", ss.boxcox, ["pos", "real"], 256),
    ("boxcox1p", ss.boxcox1p, ["pos", "real"], 256),
]


def special_cases(rep, rng, reps):
    for name, ref, kinds, tol in SPECIAL:
        if FUNCS and name not in FUNCS:
            continue
        fn = {"gammainc_small": "gammainc", "gammaincc_small": "gammaincc", "zeta1": "zeta",
              "multigammaln2": "multigammaln"}.get(name, name)
        tj, jx = _sp(fn)
        if name == "zeta1":
            jx = lambda x: jax.scipy.special.zeta(x, jjnp.ones_like(x))  # noqa: E731
            ref = lambda x: ss.zeta(x)  # noqa: E731
            tj = lambda x: tjit.scipy.special.zeta(x)  # noqa: E731
        if name == "multigammaln2":
            tj = lambda a: tjit.scipy.special.multigammaln(a, 2)  # noqa: E731
            jx = lambda a: jax.scipy.special.multigammaln(a, 2)  # noqa: E731
            ref = np.vectorize(lambda a: ss.multigammaln(a, 2) if a > 0.5 else np.nan)
        if name == "expn":
            ref = lambda n, x: ss.expn(n.astype(int), x)  # noqa: E731
        if name == "comb":
            tj = lambda n, k: tjit.scipy.special.comb(n, k)  # noqa: E731
            jx = lambda n, k: jax.scipy.special.comb(n, k)  # noqa: E731
        if fn in NO_JAX:
            jx = None
        for i in range(reps):
            # jit once per function: compiling per case costs more than the cases
            run_elementwise(rep, rng, "special." + name, tj, jx, ref, kinds, tol_eps=tol,
                            do_jit=i == 0)
        print("  done", name, file=sys.stderr, flush=True)
    # logsumexp with b / return_sign / where
    for _ in range(reps):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        a = (rng.standard_normal(shape) * 30).astype(DT)
        a[rng.random(shape) < 0.1] = -np.inf
        b = rng.standard_normal(shape).astype(DT)
        b[rng.random(shape) < 0.2] = 0
        axis = [None, 0, 1, -1][rng.integers(4)]
        for lib, name in ((tjit, "tjit"), (jax, "jax")):
            pass
        with np.errstate(all="ignore"):
            s = np.sum(b.astype(float) * np.exp(a.astype(float)), axis=axis)
            r_abs = np.log(np.abs(s))
            r_sign = np.sign(s)
        y, sg = tjit.nn.logsumexp(tjnp.asarray(a), axis=axis, b=tjnp.asarray(b), return_sign=True)
        yj, sgj = jax.nn.logsumexp(jjnp.asarray(a), axis=axis, b=jjnp.asarray(b), return_sign=True)
        compare(rep, "nn.logsumexp(b,return_sign)", [a, b], y, None, r_abs, yj, 64)
        compare(rep, "nn.logsumexp.sign", [a, b], sg, None, r_sign, sgj, 1)
        w = rng.random(shape) < 0.7
        with np.errstate(all="ignore"):
            r = np.log(np.sum(np.where(w, np.exp(a.astype(float)), 0), axis=axis))
        y = tjit.nn.logsumexp(tjnp.asarray(a), axis=axis, where=tjnp.asarray(w))
        yj = jax.nn.logsumexp(jjnp.asarray(a), axis=axis, where=jjnp.asarray(w))
        compare(rep, "nn.logsumexp(where)", [a], y, None, r, yj, 64)


# -- nn ----------------------------------------------------------------------------------------
def _np_sigmoid(x):
    return ss.expit(x)


NN_ELEMENTWISE = [
    ("relu", lambda x: np.maximum(x, 0)),
    ("relu6", lambda x: np.minimum(np.maximum(x, 0), 6)),
    ("sigmoid", ss.expit),
    ("softplus", lambda x: np.logaddexp(x, 0)),
    ("log_sigmoid", lambda x: -np.logaddexp(-x, 0)),
    ("silu", lambda x: x * ss.expit(x)),
    ("mish", lambda x: x * np.tanh(np.logaddexp(x, 0))),
    ("soft_sign", lambda x: x / (np.abs(x) + 1)),
    # the limit 0 at -inf (JAX's formula takes -inf + inf = NaN)
    ("squareplus", lambda x: np.where(x == -np.inf, 0.0, (x + np.sqrt(x * x + 4)) / 2)),
    ("elu", lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    ("selu", lambda x: 1.0507009873554804934193349852946 * np.where(
        x > 0, x, 1.6732632423543772848170429916717 * np.expm1(np.minimum(x, 0)))),
    ("celu", lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0))),
    ("leaky_relu", lambda x: np.where(x >= 0, x, 0.01 * x)),
    ("hard_tanh", lambda x: np.clip(x, -1, 1)),
    ("hard_sigmoid", lambda x: np.clip(x + 3, 0, 6) / 6),
    ("hard_silu", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("sparse_plus", lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ("sparse_sigmoid", lambda x: 0.5 * np.clip(x + 1, 0, 2)),
    ("gelu", lambda x: x / 2 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("gelu_exact", lambda x: x / 2 * ss.erfc(-x / np.sqrt(2))),
    ("log1mexp", lambda x: np.log(-np.expm1(-x))),
]


def nn_cases(rep, rng, reps):
    for name, ref in NN_ELEMENTWISE:
        if name == "gelu_exact":
            tj = lambda x: tjit.nn.gelu(x, approximate=False)  # noqa: E731
            jx = lambda x: jax.nn.gelu(x, approximate=False)  # noqa: E731
        else:
            tj, jx = getattr(tjit.nn, name), getattr(jax.nn, name)
        for i in range(reps):
            run_elementwise(rep, rng, "nn." + name, tj, jx, ref,
                            ["pos" if name == "log1mexp" else "real"], tol_eps=32,
                            abs_tol=EPS * 4, do_jit=i == 0)
    for _ in range(reps):
        shape = tuple(int(s) for s in rng.integers(1, 5, rng.integers(1, 4)))
        x = (rng.standard_normal(shape) * 10).astype(DT)
        ax = int(rng.integers(-len(shape), len(shape)))
        axis = [ax, None, tuple(range(len(shape)))][rng.integers(3)]
        w = rng.random(shape) < 0.75
        x64 = x.astype(float)
        for masked in (False, True):
            kw_t = dict(axis=axis, where=tjnp.asarray(w)) if masked else dict(axis=axis)
            kw_j = dict(axis=axis, where=jjnp.asarray(w)) if masked else dict(axis=axis)
            xm = np.where(w, x64, -np.inf) if masked else x64
            with np.errstate(all="ignore"):
                m = np.max(xm, axis=axis, keepdims=True)
                m = np.where(np.isfinite(m), m, 0)
                e = np.exp(xm - m)
                sm = e / e.sum(axis=axis, keepdims=True)
                lsm = xm - m - np.log(e.sum(axis=axis, keepdims=True))
            if masked:
                sm = np.where(w, sm, 0)
                lsm = np.where(w, lsm, -np.inf)
            tag = "(where)" if masked else ""
            compare(rep, "nn.softmax" + tag, [x], tjit.nn.softmax(tjnp.asarray(x), **kw_t),
                    None, sm, jax.nn.softmax(jjnp.asarray(x), **kw_j), 32, abs_tol=EPS)
            compare(rep, "nn.log_softmax" + tag, [x], tjit.nn.log_softmax(tjnp.asarray(x), **kw_t),
                    None, lsm, jax.nn.log_softmax(jjnp.asarray(x), **kw_j), 32, abs_tol=8 * EPS)
        # standardize
        eps_ = 1e-5
        ax2 = axis if axis is not None else None
        mean = x64.mean(axis=ax2, keepdims=True)
        var = ((x64 - mean) ** 2).mean(axis=ax2, keepdims=True)
        r = (x64 - mean) / np.sqrt(var + eps_)
        compare(rep, "nn.standardize", [x], tjit.nn.standardize(tjnp.asarray(x), axis=axis),
                None, r, jax.nn.standardize(jjnp.asarray(x), axis=axis), 256, abs_tol=1e3 * EPS)
        wm = w.copy()
        with np.errstate(all="ignore"):
            cnt = wm.sum(axis=ax2, keepdims=True)
            mean = np.where(wm, x64, 0).sum(axis=ax2, keepdims=True) / cnt
            var = np.where(wm, (x64 - mean) ** 2, 0).sum(axis=ax2, keepdims=True) / cnt
            r = (x64 - mean) / np.sqrt(var + eps_)
        compare(rep, "nn.standardize(where)", [x],
                tjit.nn.standardize(tjnp.asarray(x), axis=axis, where=tjnp.asarray(wm)), None, r,
                jax.nn.standardize(jjnp.asarray(x), axis=axis, where=jjnp.asarray(wm)), 256,
                abs_tol=1e3 * EPS)
        # glu
        if shape[-1] % 2 == 0:
            h = shape[-1] // 2
            r = x64[..., :h] * ss.expit(x64[..., h:])
            compare(rep, "nn.glu", [x], tjit.nn.glu(tjnp.asarray(x)), None, r,
                    jax.nn.glu(jjnp.asarray(x)), 32, abs_tol=EPS)
        # one_hot
        ids = rng.integers(-3, 8, shape)
        nc = int(rng.integers(1, 7))
        oa = int(rng.integers(-len(shape) - 1, len(shape) + 1))
        for dt in (None, np.int32, np.bool_, np.float32):
            y = tjit.nn.one_hot(tjnp.asarray(ids), nc, dtype=dt, axis=oa)
            yj = jax.nn.one_hot(jjnp.asarray(ids), nc, dtype=dt, axis=oa)
            rep.cases += 1
            if np.asarray(y).dtype != np.asarray(yj).dtype or not np.array_equal(np.asarray(y), np.asarray(yj)):
                rep.flag("nn.one_hot", f"ids {shape} nc {nc} axis {oa} dtype {dt}: "
                         f"{np.asarray(y).dtype} vs {np.asarray(yj).dtype}")
        # float ids
        fids = rng.uniform(-2, 6, shape).astype(DT)
        y, yj = tjit.nn.one_hot(tjnp.asarray(fids), nc), jax.nn.one_hot(jjnp.asarray(fids), nc)
        rep.cases += 1
        if not np.array_equal(np.asarray(y), np.asarray(yj)):
            rep.flag("nn.one_hot(float ids)", f"{_fmt(fids)} nc {nc}")
    attention_cases(rep, rng, reps)


def _np_attention(q, k, v, bias, mask, causal, scale, window, qlen=None, kvlen=None):
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    g = N // K
    k = np.repeat(k, g, axis=2)
    v = np.repeat(v, g, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) * (scale if scale is not None else 1 / np.sqrt(H))
    if bias is not None:
        logits = logits + bias
    ok = np.ones(logits.shape, bool)
    if mask is not None:
        ok &= mask
    ti = np.arange(T)[:, None]
    si = np.arange(S)[None, :]
    if causal:
        ok &= si <= ti
    if window is not None:
        lo, hi = window
        ok &= (si >= ti - lo) & (si <= ti + hi)
    if qlen is not None:
        ok &= (np.arange(T)[None, None, :, None] < qlen[:, None, None, None])
    if kvlen is not None:
        ok &= (np.arange(S)[None, None, None, :] < kvlen[:, None, None, None])
    logits = np.where(ok, logits, -np.inf)
    with np.errstate(all="ignore"):
        m = logits.max(-1, keepdims=True)
        e = np.exp(logits - np.where(np.isfinite(m), m, 0))
        p = e / e.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


def attention_cases(rep, rng, reps):
    for _ in range(reps):
        B, T, S, H = (int(s) for s in rng.integers(1, 5, 4))
        K = int(rng.integers(1, 3))
        N = K * int(rng.integers(1, 3))
        q = rng.standard_normal((B, T, N, H)).astype(DT)
        k = rng.standard_normal((B, S, K, H)).astype(DT)
        v = rng.standard_normal((B, S, K, H)).astype(DT)
        bias = rng.standard_normal((B, N, T, S)).astype(DT) if rng.random() < 0.5 else None
        mask = rng.random((B, N, T, S)) < 0.8 if rng.random() < 0.4 else None
        causal = bool(rng.random() < 0.4) and T == S
        scale = float(rng.uniform(0.1, 2)) if rng.random() < 0.4 else None
        window = (int(rng.integers(0, 3)), int(rng.integers(0, 3))) if rng.random() < 0.3 else None
        if mask is not None:
            mask[..., 0] = True  # keep every row with one live key
            if causal or window is not None:
                mask[...] = True
        kw = dict(bias=bias, mask=mask, is_causal=causal, scale=scale, local_window_size=window)
        r = _np_attention(q.astype(float), k.astype(float), v.astype(float),
                          None if bias is None else bias.astype(float), mask, causal, scale,
                          window)
        try:
            y = tjit.nn.dot_product_attention(q, k, v, **kw)
        except Exception as e:  # noqa: BLE001
            rep.cases += 1
            rep.flag("nn.dot_product_attention", f"raised {type(e).__name__}: {str(e)[:200]}")
            continue
        yj = jax.nn.dot_product_attention(q, k, v, **kw)
        # (the softmax runs in float32 whatever the dtype, as JAX's)
        compare(rep, "nn.dot_product_attention", [], y, None, r, yj, 256, abs_tol=64 * F32_EPS)
        # sequence lengths
        if rng.random() < 0.5:
            ql = rng.integers(1, T + 1, B).astype(np.int32)
            kl = rng.integers(1, S + 1, B).astype(np.int32)
            kw2 = dict(kw, query_seq_lengths=ql, key_value_seq_lengths=kl, is_causal=False,
                       local_window_size=None, mask=None)
            r = _np_attention(q.astype(float), k.astype(float), v.astype(float),
                              None if bias is None else bias.astype(float), None, False, scale,
                              None, ql, kl)
            y = tjit.nn.dot_product_attention(q, k, v, **kw2)
            yj = jax.nn.dot_product_attention(q, k, v, **kw2)
            compare(rep, "nn.dot_product_attention(seq_lengths)", [], y, None, r, yj, 256,
                    abs_tol=64 * F32_EPS)


# -- scipy.stats --------------------------------------------------------------------------------
STATS = {  # distribution: (x kind, shape-parameter kinds, has loc, has scale)
    "norm": ("real", [], True, True), "cauchy": ("real", [], True, True),
    "logistic": ("real", [], True, True), "laplace": ("real", [], True, True),
    "expon": ("real", [], True, True), "uniform": ("real", [], True, True),
    "gamma": ("real", ["pos_small"], True, True), "chi2": ("real", ["pos_small"], True, True),
    "beta": ("real", ["pos_small", "pos_small"], True, True),
    "t": ("real", ["pos_small"], True, True), "vonmises": ("mod", ["pos_small"], False, False),
    "truncnorm": ("real", ["real", "real"], True, True),
    "poisson": ("int", ["pos_small"], True, False), "bernoulli": ("int", ["unit"], True, False),
    "binom": ("int", ["int", "unit"], True, False),
}
STATS_FNS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "logpmf", "pmf"]


def stats_cases(rep, rng, reps):
    for dist, (xk, pks, has_loc, has_scale) in STATS.items():
        if FUNCS and dist not in FUNCS:
            continue
        tmod, jmod, smod = (getattr(tjit.scipy.stats, dist), getattr(jax.scipy.stats, dist),
                            getattr(sst, dist))
        for fn in STATS_FNS:
            if not hasattr(tmod, fn):
                continue
            kinds = ["unit" if fn in ("ppf", "isf") else xk] + pks
            loc_ok = has_loc and not (dist == "bernoulli" and fn in ("cdf", "ppf"))
            nloc = int(loc_ok) + int(has_scale)
            kinds += ["real", "pos"][:nloc] if has_scale else ["real"][:nloc]

            def ref(x, *ps, _fn=fn, _n=len(pks), _smod=smod):
                kw = {}
                rest = list(ps[_n:])
                if has_loc and rest:
                    kw["loc"] = np.round(rest.pop(0)) if xk == "int" else rest.pop(0)
                if has_scale:
                    kw["scale"] = rest.pop(0)
                shape = list(ps[:_n])
                if dist == "binom":
                    shape[0] = np.where(shape[0] == np.round(shape[0]), shape[0], np.nan)
                if dist == "vonmises":  # JAX's vonmises: no loc/scale, kappa > 0
                    pass
                if dist == "truncnorm":
                    lo = np.minimum(shape[0], shape[1])
                    shape = [lo, np.maximum(shape[0], shape[1])]
                out = getattr(_smod, _fn)(x, *shape, **kw)
                return _past_scipy(dist, _fn, out, x, shape, kw)

            def call(mod, *a, _fn=fn, _n=len(pks)):
                a = list(a)
                if dist == "truncnorm":
                    lo = mod_min(mod)(a[1], a[2])
                    a[1], a[2] = lo, mod_max(mod)(a[1], a[2])
                if has_loc and xk == "int" and len(a) > 1 + _n:
                    a[1 + _n] = mod_round(mod)(a[1 + _n])
                return getattr(mod, _fn)(*a)

            tj = lambda *a, _c=call: _c(tmod, *a)  # noqa: E731
            jx = lambda *a, _c=call: _c(jmod, *a)  # noqa: E731
            for i in range(reps):
                run_elementwise(rep, rng, f"stats.{dist}.{fn}", tj, jx, ref, kinds, n=48,
                                tol_eps=1024, abs_tol=1e-300 if X64 else 1e-37,
                                do_jit=i == 0)
        print("  done", dist, file=sys.stderr, flush=True)


def _log_gamma_tail(fn, a, z):
    """log P(a, z) (``logcdf``) or log Q(a, z) (``logsf``) in 30-digit mpmath."""
    import mpmath
    with mpmath.workdps(30):
        lo, hi = (0, z) if fn == "logcdf" else (z, mpmath.inf)
        v = mpmath.gammainc(a, lo, hi, regularized=True)
        return float(mpmath.log(v)) if v > 0 else -np.inf


def _log_beta_tail(fn, a, b, y):
    """log I_y(a, b) (``logcdf``) or log(1 - I_y(a, b)) (``logsf``) in 30-digit mpmath."""
    import mpmath
    with mpmath.workdps(30):
        lo, hi = (0, y) if fn == "logcdf" else (y, 1)
        try:
            v = mpmath.betainc(a, b, lo, hi, regularized=True)
        except mpmath.libmp.NoConvergence:  # (keep SciPy's -inf)
            return -np.inf
        return float(mpmath.log(v)) if v > 0 else -np.inf


def _past_scipy(dist, fn, out, x, shape, kw):
    """The reference where SciPy float64 stops short of the function:
    - gamma/chi2/beta logcdf/logsf: SciPy takes the log of a tail that underflowed float64
      (-inf); tjit sums such tails in logs (stats/_log_igamma.py, beta.logcdf's series), so
      those elements come from mpmath.
    - poisson logpmf/pmf at k - loc = inf: SciPy's k log mu - log k! is inf - inf = NaN; tjit
      gives the limit (-inf, pmf 0), decided in s21 (tests/test_regressions_s21.py)."""
    out = np.array(out, np.float64)
    loc, scale = kw.get("loc", 0.0), kw.get("scale", 1.0)
    with np.errstate(all="ignore"):
        y = (x - loc) / scale
    if dist in ("gamma", "chi2") and fn in ("logcdf", "logsf"):
        a, z = (shape[0], y) if dist == "gamma" else (shape[0] / 2, y / 2)
        a, z, sc = np.broadcast_arrays(a, z, scale)
        redo = np.isneginf(out) & (a > 0) & np.isfinite(a) & (z > 0) & np.isfinite(z) & (sc > 0)
        for i in zip(*np.nonzero(redo)):
            out[i] = _log_gamma_tail(fn, float(a[i]), float(z[i]))
    if dist == "beta" and fn in ("logcdf", "logsf"):
        a, b, y, sc = np.broadcast_arrays(shape[0], shape[1], y, scale)
        redo = (np.isneginf(out) & (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b)
                & (y > 0) & (y < 1) & (sc > 0))
        for i in zip(*np.nonzero(redo)):
            out[i] = _log_beta_tail(fn, float(a[i]), float(b[i]), float(y[i]))
    if dist == "poisson" and fn in ("logpmf", "pmf"):
        mu = np.broadcast_to(shape[0], out.shape)
        limit = (y == np.inf) & np.isfinite(mu) & (mu >= 0)
        out[limit] = -np.inf if fn == "logpmf" else 0.0
    return out


def mod_min(mod):
    return tjnp.minimum if mod.__name__.startswith("tjit") else jjnp.minimum


def mod_max(mod):
    return tjnp.maximum if mod.__name__.startswith("tjit") else jjnp.maximum


def mod_round(mod):
    return tjnp.round if mod.__name__.startswith("tjit") else jjnp.round


# -- linalg, signal, ndimage, integrate, optimize -------------------------------------------------
def _rand_mat(rng, n, kind):
    a = rng.standard_normal((n, n))
    if kind == "spd":
        return a @ a.T + n * np.eye(n)
    if kind == "sym":
        return (a + a.T) / 2
    if kind == "tri":
        return np.tril(a) + 3 * np.eye(n)
    return a


def _cmp(rep, name, y, ref, yj, tol_eps=1e4, abs_tol=None):
    if callable(yj):  # JAX's call, which may refuse what SciPy accepts
        try:
            yj = yj()
        except Exception:  # noqa: BLE001
            yj = np.full(np.shape(ref), np.nan)
    compare(rep, name, [], y, None, ref, yj, tol_eps,
            abs_tol=abs_tol if abs_tol is not None else 1e3 * EPS * np.max(np.abs(ref), initial=1.0))


def linalg_cases(rep, rng, reps):
    tl, jl = tjit.scipy.linalg, jax.scipy.linalg
    for _ in range(reps):
        n = int(rng.integers(1, 6))
        a = _rand_mat(rng, n, "gen").astype(DT)
        a64 = a.astype(float)
        spd = _rand_mat(rng, n, "spd").astype(DT)
        tri = _rand_mat(rng, n, "tri").astype(DT)
        b = rng.standard_normal((n, int(rng.integers(1, 3)))).astype(DT)
        sc = (rng.standard_normal((n, n)) * 0.5).astype(DT)
        _cmp(rep, "linalg.expm", tl.expm(sc), sla.expm(sc.astype(float)), jl.expm(sc))
        for lower in (False, True):
            for trans in (0, 1, 2, "T"):
                for unit in (False, True):
                    t = tri if lower else tri.T.copy()
                    r = sla.solve_triangular(t.astype(float), b.astype(float), trans=trans,
                                             lower=lower, unit_diagonal=unit)
                    kw = dict(trans=trans, lower=lower, unit_diagonal=unit)
                    _cmp(rep, "linalg.solve_triangular", tl.solve_triangular(t, b, **kw), r,
                         jl.solve_triangular(t, b, **kw))
        for lower in (False, True):
            c = tl.cho_factor(spd, lower=lower)
            r = sla.cho_solve(sla.cho_factor(spd.astype(float), lower=lower), b.astype(float))
            _cmp(rep, "linalg.cho_solve", tl.cho_solve(c, b), r, jl.cho_solve(jl.cho_factor(spd, lower=lower), b))
            _cmp(rep, "linalg.cholesky", tl.cholesky(spd, lower=lower),
                 sla.cholesky(spd.astype(float), lower=lower), jl.cholesky(spd, lower=lower))
        lu_piv = tl.lu_factor(a)
        for trans in (0, 1, 2):
            r = sla.lu_solve(sla.lu_factor(a64), b.astype(float), trans=trans)
            _cmp(rep, "linalg.lu_solve", tl.lu_solve(lu_piv, b, trans=trans), r,
                 jl.lu_solve(jl.lu_factor(a), b, trans=trans), tol_eps=1e5)
        p_, l_, u_ = tl.lu(a)
        rp, rl, ru = sla.lu(a64)
        _cmp(rep, "linalg.lu(P)", p_, rp, jl.lu(a)[0])
        _cmp(rep, "linalg.lu(reconstruct)", np.asarray(p_) @ np.asarray(l_) @ np.asarray(u_), a64, a)
        pl, u2 = tl.lu(a, permute_l=True)
        _cmp(rep, "linalg.lu(permute_l)", np.asarray(pl) @ np.asarray(u2), a64, a)
        m = int(rng.integers(1, 6))
        rect = rng.standard_normal((m, n)).astype(DT)
        for mode in ("full", "r", "economic"):
            out = tl.qr(rect, mode=mode)
            ref = sla.qr(rect.astype(float), mode=mode)
            q_r = out if mode != "r" else (out[0] if isinstance(out, tuple) else out)
            rr = ref if mode != "r" else ref[0]
            if mode == "r":
                _cmp(rep, "linalg.qr(r)|R|", np.abs(q_r), np.abs(rr), np.abs(rr))
            else:
                _cmp(rep, f"linalg.qr({mode})", np.asarray(out[0]) @ np.asarray(out[1]),
                     rect.astype(float), rect)
                rep.cases += 1
                if np.shape(out[0]) != np.shape(ref[0]) or np.shape(out[1]) != np.shape(ref[1]):
                    rep.flag(f"linalg.qr({mode})", f"shapes {np.shape(out[0])} {np.shape(out[1])} vs "
                             f"{np.shape(ref[0])} {np.shape(ref[1])}")
        s_ = tl.svd(rect, compute_uv=False)
        _cmp(rep, "linalg.svd(s)", s_, sla.svd(rect.astype(float), compute_uv=False), jl.svd(rect, compute_uv=False))
        for fm in (True, False):
            u, sv, vh = tl.svd(rect, full_matrices=fm)
            k = min(m, n)
            _cmp(rep, "linalg.svd(uv)", (np.asarray(u)[:, :k] * np.asarray(sv)) @ np.asarray(vh)[:k],
                 rect.astype(float), rect)
        sym = _rand_mat(rng, n, "sym").astype(DT)
        for lower in (True, False):
            w = tl.eigh(sym, lower=lower, eigvals_only=True)
            _cmp(rep, "linalg.eigh(w)", w, sla.eigh(sym.astype(float), eigvals_only=True),
                 jl.eigh(sym, lower=lower, eigvals_only=True))
        w, v = tl.eigh(sym)
        _cmp(rep, "linalg.eigh(v)", np.asarray(v) @ np.diag(np.asarray(w)) @ np.asarray(v).T,
             sym.astype(float), sym)
        _cmp(rep, "linalg.sqrtm", tl.sqrtm(spd), sla.sqrtm(spd.astype(float)).real, jl.sqrtm(spd).real if hasattr(jl, "sqrtm") else np.nan)
        _cmp(rep, "linalg.inv", tl.inv(spd), sla.inv(spd.astype(float)), jl.inv(spd))
        _cmp(rep, "linalg.det", tl.det(a), sla.det(a64), jl.det(a))
        for assume_lower in (False, True):
            _cmp(rep, "linalg.solve", tl.solve(spd, b, lower=assume_lower, assume_a="pos") if False else tl.solve(a, b),
                 sla.solve(a64, b.astype(float)), jl.solve(a, b), tol_eps=1e5)
        parts = [rng.standard_normal(tuple(int(d) for d in rng.integers(0, 3, 2))).astype(DT) for _ in range(3)]
        _cmp(rep, "linalg.block_diag", tl.block_diag(*parts), sla.block_diag(*[p_.astype(float) for p_ in parts]),
             jl.block_diag(*parts))
        c = rng.standard_normal(n).astype(DT)
        r_ = rng.standard_normal(int(rng.integers(1, 5))).astype(DT)
        _cmp(rep, "linalg.toeplitz", tl.toeplitz(c, r_), sla.toeplitz(c, r_), jl.toeplitz(c, r_))
        _cmp(rep, "linalg.toeplitz(c)", tl.toeplitz(c), sla.toeplitz(c), jl.toeplitz(c))
    print("  done linalg", file=sys.stderr, flush=True)


def signal_cases(rep, rng, reps):
    ts_, js_ = tjit.scipy.signal, jax.scipy.signal
    for _ in range(reps):
        nd = int(rng.integers(1, 3))
        x = rng.standard_normal(tuple(int(d) for d in rng.integers(1, 8, nd))).astype(DT)
        k = rng.standard_normal(tuple(int(d) for d in rng.integers(1, 6, nd))).astype(DT)
        for mode in ("full", "same", "valid"):
            if mode == "valid" and not (all(a >= b for a, b in zip(x.shape, k.shape)) or
                                        all(a <= b for a, b in zip(x.shape, k.shape))):
                continue
            for method in ("direct", "fft", "auto"):
                r = ssig.convolve(x.astype(float), k.astype(float), mode=mode, method="direct")
                _cmp(rep, f"signal.convolve({method})", ts_.convolve(x, k, mode=mode, method=method),
                     r, lambda: js_.convolve(x, k, mode=mode, method=method))
                r = ssig.correlate(x.astype(float), k.astype(float), mode=mode, method="direct")
                _cmp(rep, f"signal.correlate({method})", ts_.correlate(x, k, mode=mode, method=method),
                     r, lambda: js_.correlate(x, k, mode=mode, method=method))
            r = ssig.fftconvolve(x.astype(float), k.astype(float), mode=mode)
            _cmp(rep, "signal.fftconvolve", ts_.fftconvolve(x, k, mode=mode), r, lambda: js_.fftconvolve(x, k, mode=mode))
            if nd == 2:
                r = ssig.convolve2d(x.astype(float), k.astype(float), mode=mode)
                _cmp(rep, "signal.convolve2d", ts_.convolve2d(x, k, mode=mode), r, lambda: js_.convolve2d(x, k, mode=mode))
                r = ssig.correlate2d(x.astype(float), k.astype(float), mode=mode)
                _cmp(rep, "signal.correlate2d", ts_.correlate2d(x, k, mode=mode), r, lambda: js_.correlate2d(x, k, mode=mode))
        for name in ("detrend", "stft", "istft", "welch", "csd"):
            if not hasattr(ts_, name) and hasattr(js_, name):
                rep.missing.add("signal." + name)
    print("  done signal", file=sys.stderr, flush=True)


def misc_cases(rep, rng, reps):
    tnd, jnd = tjit.scipy.ndimage, jax.scipy.ndimage
    for _ in range(reps):
        shape = tuple(int(d) for d in rng.integers(1, 6, rng.integers(1, 3)))
        img = rng.standard_normal(shape).astype(DT)
        coords = [rng.uniform(-3, d + 2, 7).astype(DT) for d in shape]
        coords[0][:2] = [0.5, -0.5]  # halves: rounding conventions
        for order in (0, 1):
            for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
                r = snd.map_coordinates(img.astype(float), np.stack(coords).astype(float), order=order,
                                        mode=mode, cval=1.5)
                if mode == "wrap" and order == 1:
                    r = np.full(r.shape, np.nan)  # SciPy's wrap differs from JAX's grid-wrap
                y = tnd.map_coordinates(img, coords, order=order, mode=mode, cval=1.5)
                yj = jnd.map_coordinates(img, coords, order=order, mode=mode, cval=1.5)
                compare(rep, f"ndimage.map_coordinates({order},{mode})", [], y, None,
                        np.asarray(yj, float) if np.isnan(r).all() else r, yj, 1e3, abs_tol=1e3 * EPS)
        # integrate.trapezoid
        y = rng.standard_normal(shape).astype(DT)
        xs = np.sort(rng.standard_normal(shape[-1])).astype(DT)
        import scipy.integrate as sint
        _cmp(rep, "integrate.trapezoid", tjit.scipy.integrate.trapezoid(y, xs),
             sint.trapezoid(y.astype(float), xs.astype(float)), jax.scipy.integrate.trapezoid(y, xs))
        _cmp(rep, "integrate.trapezoid(dx)", tjit.scipy.integrate.trapezoid(y, dx=0.3, axis=0),
             sint.trapezoid(y.astype(float), dx=0.3, axis=0), jax.scipy.integrate.trapezoid(y, dx=0.3, axis=0))
    # optimize.minimize BFGS on shifted quadratics and Rosenbrock
    for _ in range(reps):
        n = int(rng.integers(1, 5))
        c = rng.standard_normal(n)
        A = _rand_mat(rng, n, "spd")
        x0 = rng.standard_normal(n).astype(DT)
        xstar = np.linalg.solve(A, c)

        def f_t(x, _np=tjnp):
            return 0.5 * x @ (_np.asarray(A, DT) @ x) - _np.asarray(c, DT) @ x

        def f_j(x, _np=jjnp):
            return 0.5 * x @ (_np.asarray(A, DT) @ x) - _np.asarray(c, DT) @ x
        res = tjit.scipy.optimize.minimize(f_t, tjnp.asarray(x0), method="BFGS")
        resj = jax.scipy.optimize.minimize(f_j, jjnp.asarray(x0), method="BFGS")
        compare(rep, "optimize.minimize(BFGS).x", [], res.x, None, xstar, resj.x, 1e4,
                abs_tol=1e-3 if DT == np.float32 else 1e-6)
        rep.cases += 1
        if bool(res.success) != bool(resj.success) and not bool(res.success):
            rep.flag("optimize.minimize(BFGS).success", f"tjit {res.success} status {res.status} jax {resj.success}")
    print("  done misc", file=sys.stderr, flush=True)


def init_cases(rep, rng, reps):
    """nn.initializers: shape and dtype as JAX's, sample variance within 5% of JAX's
    sample variance on the same shape (different streams: a statistical comparison)."""
    ti, ji = tjit.nn.initializers, jax.nn.initializers
    names = ["glorot_uniform", "glorot_normal", "lecun_uniform", "lecun_normal", "he_uniform",
             "he_normal"]
    for i in range(reps):
        shape = (int(rng.integers(3, 9)), int(rng.integers(3, 9)), int(rng.integers(40, 90)),
                 int(rng.integers(40, 90)))
        kw = [dict(), dict(in_axis=0, out_axis=1), dict(in_axis=(0, 1), out_axis=-1),
              dict(batch_axis=0)][i % 4]
        for name in names:
            y = getattr(ti, name)(**kw)(tjit.random.key(i), shape)
            yj = getattr(ji, name)(**kw)(jax.random.key(i), shape)
            rep.cases += 1
            vt, vj = float(np.var(np.asarray(y, float))), float(np.var(np.asarray(yj, float)))
            if y.shape != yj.shape or y.dtype != yj.dtype or abs(vt / vj - 1) > 0.05:
                rep.flag("initializers." + name, f"{shape} {kw}: {y.shape} {y.dtype} var {vt:.4g}"
                         f" vs jax {yj.shape} {yj.dtype} var {vj:.4g}")
        for mode in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
            for dist in ("truncated_normal", "normal", "uniform"):
                y = ti.variance_scaling(1.7, mode, dist, **kw)(tjit.random.key(i), shape)
                yj = ji.variance_scaling(1.7, mode, dist, **kw)(jax.random.key(i), shape)
                rep.cases += 1
                vt, vj = float(np.var(np.asarray(y, float))), float(np.var(np.asarray(yj, float)))
                if abs(vt / vj - 1) > 0.05:
                    rep.flag("initializers.variance_scaling", f"{mode} {dist} {shape} {kw}: var "
                             f"{vt:.4g} vs jax {vj:.4g}")
        o = np.asarray(ti.orthogonal(scale=1.3)(tjit.random.key(i), (5, 3)), float)
        rep.cases += 1
        if not np.allclose(o.T @ o, 1.69 * np.eye(3), atol=1e-4):
            rep.flag("initializers.orthogonal", f"q^T q = {_fmt(o.T @ o)}")
    print("  done init", file=sys.stderr, flush=True)


# -- gradients (float64) and vmap ----------------------------------------------------------------
def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


GRADS = [  # name, tjit f, jax f, x generator (float64 inputs; scalar-valued f)
    ("gammaln", lambda m: lambda x: m.scipy.special.gammaln(x).sum(), lambda r: r.uniform(0.1, 20, 5)),
    ("digamma", lambda m: lambda x: m.scipy.special.digamma(x).sum(), lambda r: r.uniform(0.1, 20, 5)),
    ("betainc(x)", lambda m: lambda x: m.scipy.special.betainc(2.5, 0.7, x).sum(), lambda r: r.uniform(0.05, 0.95, 5)),
    ("gammainc(a)", lambda m: lambda a: m.scipy.special.gammainc(a, 1.7).sum(), lambda r: r.uniform(0.3, 5, 5)),
    ("gammaincc(x)", lambda m: lambda x: m.scipy.special.gammaincc(2.3, x).sum(), lambda r: r.uniform(0.1, 5, 5)),
    ("log_ndtr", lambda m: lambda x: m.scipy.special.log_ndtr(x).sum(), lambda r: r.uniform(-30, 5, 5)),
    ("ndtri", lambda m: lambda x: m.scipy.special.ndtri(x).sum(), lambda r: r.uniform(0.01, 0.99, 5)),
    ("erfinv", lambda m: lambda x: m.scipy.special.erfinv(x).sum(), lambda r: r.uniform(-0.9, 0.9, 5)),
    ("i0e", lambda m: lambda x: m.scipy.special.i0e(x).sum(), lambda r: r.uniform(-5, 5, 5)),
    ("i1", lambda m: lambda x: m.scipy.special.i1(x).sum(), lambda r: r.uniform(-5, 5, 5)),
    ("zeta(q)", lambda m: lambda q: m.scipy.special.zeta(3.0, q).sum(), lambda r: r.uniform(0.5, 5, 5)),
    ("xlogy", lambda m: lambda x: m.scipy.special.xlogy(x, x + 2).sum(), lambda r: r.uniform(0.1, 3, 5)),
    ("entr", lambda m: lambda x: m.scipy.special.entr(x).sum(), lambda r: r.uniform(0.1, 3, 5)),
    ("kl_div", lambda m: lambda x: m.scipy.special.kl_div(x, x[::-1] + 0.5).sum(), lambda r: r.uniform(0.1, 3, 5)),
    ("expi", lambda m: lambda x: m.scipy.special.expi(x).sum(), lambda r: r.uniform(0.1, 5, 5)),
    ("exp1", lambda m: lambda x: m.scipy.special.exp1(x).sum(), lambda r: r.uniform(0.1, 5, 5)),
    ("spence", lambda m: lambda x: m.scipy.special.spence(x).sum(), lambda r: r.uniform(0.1, 5, 5)),
    ("logsumexp(b)", lambda m: lambda x: m.nn.logsumexp(x[:3], b=x[3:] ** 2 + 0.1), lambda r: r.standard_normal(6)),
    ("logsumexp(b,sign)", lambda m: lambda x: m.nn.logsumexp(x[:3], b=x[3:], return_sign=True)[0], lambda r: r.standard_normal(6)),
    ("softmax(where)", lambda m: lambda x: (m.nn.softmax(x, where=m.numpy.array([True, False, True, True, False])) * m.numpy.arange(5.0)).sum(), lambda r: r.standard_normal(5)),
    ("log_softmax(where)", lambda m: lambda x: (m.nn.log_softmax(x, where=m.numpy.array([True, False, True, True, True]), ) * m.numpy.array([1., 0, 2, 3, 4])).sum(), lambda r: r.standard_normal(5)),
    ("standardize", lambda m: lambda x: (m.nn.standardize(x) * m.numpy.arange(5.0)).sum(), lambda r: r.standard_normal(5)),
    ("gelu(exact)", lambda m: lambda x: m.nn.gelu(x, approximate=False).sum(), lambda r: r.standard_normal(5)),
    ("mish", lambda m: lambda x: m.nn.mish(x).sum(), lambda r: r.standard_normal(5) * 5),
    ("glu", lambda m: lambda x: m.nn.glu(x).sum(), lambda r: r.standard_normal(6)),
    ("celu", lambda m: lambda x: m.nn.celu(x, 0.7).sum(), lambda r: r.standard_normal(5)),
    ("squareplus", lambda m: lambda x: m.nn.squareplus(x).sum(), lambda r: r.standard_normal(5)),
    ("log1mexp", lambda m: lambda x: m.nn.log1mexp(x).sum(), lambda r: r.uniform(0.1, 3, 5)),
    ("expm", lambda m: lambda x: (m.scipy.linalg.expm(x.reshape(3, 3)) * m.numpy.arange(9.).reshape(3, 3)).sum(), lambda r: r.standard_normal(9) * 0.7),
    ("eigh", lambda m: lambda x: (m.scipy.linalg.eigh(x.reshape(3, 3) + x.reshape(3, 3).T, eigvals_only=True) * m.numpy.arange(1., 4.)).sum(), lambda r: r.standard_normal(9)),
    ("svd", lambda m: lambda x: (m.scipy.linalg.svd(x.reshape(3, 2), compute_uv=False) * m.numpy.arange(1., 3.)).sum(), lambda r: r.standard_normal(6)),
    ("solve_triangular", lambda m: lambda x: m.scipy.linalg.solve_triangular(x[:9].reshape(3, 3) + 4 * m.numpy.eye(3), x[9:], lower=True, trans=1).sum(), lambda r: r.standard_normal(12)),
    ("cho_solve", lambda m: lambda x: m.scipy.linalg.cho_solve(m.scipy.linalg.cho_factor(x[:9].reshape(3, 3) @ x[:9].reshape(3, 3).T + 3 * m.numpy.eye(3)), x[9:]).sum(), lambda r: r.standard_normal(12)),
    ("sqrtm", lambda m: lambda x: m.scipy.linalg.sqrtm(x.reshape(2, 2) @ x.reshape(2, 2).T + 2 * m.numpy.eye(2)).real.sum(), lambda r: r.standard_normal(4)),
    ("norm.logcdf", lambda m: lambda x: m.scipy.stats.norm.logcdf(x, 0.3, 1.7).sum(), lambda r: r.standard_normal(5) * 10),
    ("t.logpdf", lambda m: lambda x: m.scipy.stats.t.logpdf(x, 3.5, 0.1, 2.0).sum(), lambda r: r.standard_normal(5) * 3),
    ("beta.cdf", lambda m: lambda x: m.scipy.stats.beta.cdf(x, 2.0, 3.0).sum(), lambda r: r.uniform(0.05, 0.95, 5)),
    ("truncnorm.logpdf", lambda m: lambda x: m.scipy.stats.truncnorm.logpdf(x, -1.0, 2.0).sum(), lambda r: r.uniform(-0.9, 1.9, 5)),
    ("gamma.logcdf", lambda m: lambda x: m.scipy.stats.gamma.logcdf(x, 2.5).sum(), lambda r: r.uniform(0.1, 8, 5)),
    ("convolve", lambda m: lambda x: (m.scipy.signal.convolve(x[:5], x[5:], mode="same") ** 2).sum(), lambda r: r.standard_normal(8)),
    ("fftconvolve", lambda m: lambda x: (m.scipy.signal.fftconvolve(x[:5], x[5:]) ** 2).sum(), lambda r: r.standard_normal(8)),
    ("map_coordinates", lambda m: lambda x: m.scipy.ndimage.map_coordinates(m.numpy.arange(12.).reshape(3, 4) ** 2, [x[:3], x[3:]], order=1, mode="nearest").sum(), lambda r: r.uniform(0.1, 1.9, 6)),
    ("trapezoid", lambda m: lambda x: m.scipy.integrate.trapezoid(x[:4] ** 2, x[4:]), lambda r: r.standard_normal(8)),
]


def grad_cases(rep, rng, reps):
    if not X64:
        return
    for name, mk, gen_x in GRADS:
        ft, fj = mk(tjit), mk(jax)
        for i in range(reps):
            x = gen_x(rng)
            rep.cases += 1
            try:
                g = np.asarray(tjit.grad(ft)(tjnp.asarray(x)))
                gjit = np.asarray(tjit.jit(tjit.grad(ft))(tjnp.asarray(x))) if i == 0 else g
            except Exception as e:  # noqa: BLE001
                rep.flag("grad." + name, f"raised {type(e).__name__}: {str(e)[:200]}")
                break
            try:
                gj = np.asarray(jax.grad(fj)(jjnp.asarray(x)))
            except Exception:  # noqa: BLE001
                gj = np.full(x.shape, np.nan)
            f64 = lambda v: float(np.asarray(ft(tjnp.asarray(v))))  # noqa: E731
            fd = _fd(f64, x)
            fd2 = _fd(f64, x, 1e-4)
            scale = max(1.0, np.max(np.abs(fd)))
            if np.max(np.abs(fd - fd2)) > 1e-4 * scale:
                continue  # finite differences unreliable here (kink or stiff)
            err = np.max(np.abs(g - fd)) / scale
            errj = np.max(np.abs(gj - fd)) / scale if np.all(np.isfinite(gj)) else np.inf
            if err > 1e-5 and err > RATIO * errj:
                rep.flag("grad." + name, f"x {_fmt(x)} grad {_fmt(g)} fd {_fmt(fd)} jax {_fmt(gj)}")
            if np.max(np.abs(gjit - g)) > 1e-9 * scale:
                rep.flag("grad[jit]." + name, f"jit {_fmt(gjit)} eager {_fmt(g)}")
            # vmap of the per-row function vs a Python loop
            if i == 0:
                xs = np.stack([gen_x(rng) for _ in range(3)])
                try:
                    vm = np.asarray(tjit.vmap(ft)(tjnp.asarray(xs)))
                    loop = np.array([float(np.asarray(ft(tjnp.asarray(r_)))) for r_ in xs])
                    rep.cases += 1
                    if not np.allclose(vm, loop, rtol=1e-10, atol=1e-12, equal_nan=True):
                        rep.flag("vmap." + name, f"vmap {_fmt(vm)} loop {_fmt(loop)}")
                except Exception as e:  # noqa: BLE001
                    rep.flag("vmap." + name, f"raised {type(e).__name__}: {str(e)[:200]}")
    print("  done grads", file=sys.stderr, flush=True)


def main():
    faulthandler.register(signal.SIGUSR1)  # kill -USR1 <pid> prints where a slow case is
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--only", default="")
    p.add_argument("--x64", action="store_true")
    p.add_argument("--funcs", default="", help="comma-separated scipy.special names")
    args = p.parse_args()
    FUNCS.update(f for f in args.funcs.split(",") if f)
    rng = np.random.default_rng(args.seed)
    rep = Report()
    groups = {"special": special_cases, "nn": nn_cases, "stats": stats_cases,
              "linalg": linalg_cases, "signal": signal_cases, "misc": misc_cases,
              "grad": grad_cases, "init": init_cases}
    for gname, fn in groups.items():
        if args.only and gname not in args.only.split(","):
            continue
        try:
            fn(rep, rng, args.reps)
        except Exception:  # noqa: BLE001
            rep.flag(gname, "crashed: " + traceback.format_exc()[-1500:])
    print(f"dtype {DT.__name__}: {rep.cases} cases, {len(rep.bad)} functions with disagreements")
    if rep.missing:
        print("in jax.scipy but not in tjit.scipy:", sorted(rep.missing))
    for name, msgs in sorted(rep.bad.items()):
        print(f"== {name}: {len(msgs)}")
        for m in msgs[:3]:
            print("   ", m)


if __name__ == "__main__":
    main()
