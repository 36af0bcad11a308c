"""Differential hunt: eager vs jit vs the reference interpreter, values and gradients.

Eager calls run each primitive's reference implementation (NumPy/SciPy on the CPU), jit
runs tjit's own LLVM kernels, and ``eval_jaxpr_reference`` runs the traced jaxpr through
the reference implementations equation by equation (so it differs from eager where a
public function takes an eager-only shortcut). The three should agree to the ulp bounds of
tjit/lower/llvm/mathlib.py's table; a pair further apart is flagged, with a float64
SciPy/NumPy value of the same name (or tjit's own float64 jit, marked ``f64-tjit``) to say
which side is wrong.

Functions are discovered by introspection: every public callable of tjit.numpy, tjit.lax,
tjit.scipy.special, tjit.nn and the methods (logpdf, cdf, ...) of tjit.scipy.stats's
distributions; each is tried with 1, 2 then 3 real array arguments from the kits below
(tails and specials included) and kept at the first arity it accepts with a floating
result of the input's shape. Gradients: ``vmap(grad(f))`` eager vs under jit, for the
one-argument functions.

    .venv/bin/python benchmarks/diff_eager_jit.py                 # all, float32 + float64
    .venv/bin/python benchmarks/diff_eager_jit.py --only tanh,erfc --verbose
"""

import argparse
import inspect
import os
import sys
import warnings

os.environ["TJIT_ENABLE_X64"] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import scipy.special as ss  # noqa: E402
import scipy.stats as sst  # noqa: E402

import tjit  # noqa: E402
import tjit.scipy.stats as tst  # noqa: E402
from tjit.tracing.jaxpr import eval_jaxpr_reference  # noqa: E402

from tests.test_eager_jit_agree import public_callables  # noqa: E402

tjit.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")

# mathlib's float32 / float64 bounds (ulps); anything else gets DEFAULT_BOUND.
BOUND_TABLE = {
    "exp": (1.02, 1), "exp2": (1, 1), "expm1": (1.6, 2), "log": (1, 1), "log1p": (1.5, 1.5),
    "tanh": (5.5, 3), "logistic": (2, 2.5), "sigmoid": (2, 2.5), "expit": (2, 2.5),
    "sin": (1.6, 2), "cos": (1.6, 2), "tan": (3.6, 3.5), "erf": (1, 2), "pow": (1, 2),
    "power": (1, 2), "atan2": (2.5, 3), "arctan2": (2.5, 3), "cbrt": (1, 1),
    "atan": (2.5, 2.5), "arctan": (2.5, 2.5), "asin": (3, 3), "arcsin": (3, 3),
    "acos": (3.5, 3.5), "arccos": (3.5, 3.5), "sinh": (3, 3), "cosh": (3, 3),
    "asinh": (2.5, 2.5), "arcsinh": (2.5, 2.5), "acosh": (3, 3), "arccosh": (3, 3),
    "atanh": (2.5, 2.5), "arctanh": (2.5, 2.5),
}
DEFAULT_BOUND = (4.0, 8.0)

SPECIALS = [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 0.1, -0.1, 0.5, -0.5, 0.99, -0.99, 1.0,
            -1.0, 1.5, -1.5, 2.5, -2.5, 5.970329, -5.970329, 10.0, -10.0, 30.0, -30.0,
            88.0, -88.0, 700.0, -700.0, 1e30, -1e30, np.inf, -np.inf, np.nan]
SECOND = [0.5, 2.0, 7.25, -1.5]
THIRD = [0.75, 3.0]
SKIP = {
    # not pointwise real maps, random, or take non-array operands
    "asarray", "array", "zeros_like", "ones_like", "empty_like", "full_like", "copy",
    "save", "load", "savez", "fromfunction", "vectorize", "frompyfunc", "iterable",
    "printoptions", "set_printoptions", "dtype", "finfo", "iinfo", "issubdtype",
    "stop_gradient", "optimization_barrier", "device_put", "block_until_ready",
    "nextafter", "reduce_precision", "rng_uniform", "rng_bit_generator",
}


def candidates():
    """(label, fn, stats-name) for every public callable of the hunted namespaces."""
    out = [(f"{prefix}.{name}", obj) for prefix, name, obj in public_callables(SKIP)]
    for dist in sorted(dir(tst)):
        mod = getattr(tst, dist)
        if not inspect.ismodule(mod):
            continue
        for meth in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf",
                     "pmf", "logpmf"):
            if hasattr(mod, meth):
                out.append((f"stats.{dist}.{meth}", getattr(mod, meth)))
    return out


def kit(arity, dtype):
    xs = np.array(SPECIALS, dtype)
    if arity == 1:
        return [xs]
    grids = np.meshgrid(*([xs, np.array(SECOND, dtype), np.array(THIRD, dtype)][:arity]),
                        indexing="ij")
    return [g.ravel() for g in grids]


def reference_interp(fn, args):
    closed = tjit.make_jaxpr(fn)(*args)
    out = eval_jaxpr_reference(closed.jaxpr, closed.consts, list(args))[0]
    return np.asarray(out)


def run_all(fn, args):
    eager = np.asarray(fn(*args))
    jitted = np.asarray(tjit.jit(fn)(*args))
    ref = reference_interp(fn, args)
    return eager, jitted, ref


def probe(fn, dtype):
    """First arity 1..3 at which fn maps the kit to a floating array of its shape."""
    for arity in (1, 2, 3):
        args = kit(arity, dtype)
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(fn(*args))
        except Exception:
            continue
        if out.shape == args[0].shape and out.dtype == dtype:
            return arity, args
    return None, None


def ulps(a, b, dtype):
    """|a - b| in ulps of dtype at the larger magnitude; NaN/inf mismatches are inf."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan
    scale = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(dtype)).astype(np.float64)
    scale = np.maximum(scale, np.finfo(dtype).smallest_subnormal)
    with np.errstate(all="ignore"):
        d = np.abs(a - b) / scale
    d = np.where(np.isnan(d), np.inf, d)
    return np.where(same, 0.0, d)


def truth_for(label, args):
    """A float64 value of the same function from SciPy/NumPy, or None."""
    parts = label.split(".")
    a64 = [np.asarray(a, np.float64) for a in args]
    try:
        with np.errstate(all="ignore"):
            if parts[0] == "stats":
                return np.asarray(getattr(getattr(sst, parts[1]), parts[2])(*a64), np.float64)
            name = parts[1]
            if parts[0] in ("special",) and hasattr(ss, name):
                return np.asarray(getattr(ss, name)(*a64), np.float64)
            if parts[0] in ("jnp", "lax") and hasattr(np, name):
                return np.asarray(getattr(np, name)(*a64), np.float64)
    except Exception:
        return None
    return None


def bound(label, dtype):
    b = BOUND_TABLE.get(label.split(".")[-1], DEFAULT_BOUND)
    return b[0] if dtype == np.float32 else b[1]


def judge(label, fn, args, dtype, outs, names, verbose, rows, what="value"):
    thr = bound(label, dtype) + 1.0
    true = truth_for(label, args) if what == "value" else None
    true_src = "scipy" if true is not None else "f64-tjit"
    if true is None and dtype == np.float32:
        try:
            a64 = [a.astype(np.float64) for a in args]
            true = np.asarray(tjit.jit(fn)(*a64), np.float64)
        except Exception:
            true = None
    flagged = []
    for i in range(len(outs)):
        for j in range(i + 1, len(outs)):
            d = ulps(outs[i], outs[j], dtype)
            k = int(np.argmax(d))
            if d[k] > thr:
                flagged.append((names[i], names[j], k, d[k]))
    for ni, nj, k, dk in flagged:
        point = tuple(float(a[k]) for a in args)
        vals = {n: outs[names.index(n)][k] for n in names}
        wrong = "?"
        if true is not None and np.isfinite(true[k]):
            errs = {n: float(ulps(np.array([vals[n]]), np.array([true[k]]).astype(dtype)
                                  if dtype == np.float64 else np.array([true[k]]), dtype)[0])
                    for n in (ni, nj)}
            wrong = max(errs, key=errs.get)
        rows.append((label, what, np.dtype(dtype).name, ni, nj, point, vals[ni], vals[nj],
                     None if true is None else true[k], true_src, wrong, dk))
        if verbose:
            print(rows[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="")
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--no-grad", action="store_true")
    p.add_argument("--verbose", action="store_true")
    opts = p.parse_args()
    only = set(opts.only.split(",")) if opts.only else None
    rows = []
    counts = {"tried": 0, "compared": 0, "grad_compared": 0, "errors": 0}
    for label, fn in candidates():
        if only and label.split(".")[-1] not in only and label not in only:
            continue
        for dtype in [np.dtype(d).type for d in opts.dtypes.split(",")]:
            counts["tried"] += 1
            arity, args = probe(fn, dtype)
            if arity is None:
                continue
            try:
                with np.errstate(all="ignore"):
                    outs = run_all(fn, args)
            except Exception as e:
                counts["errors"] += 1
                if opts.verbose:
                    print("ERROR", label, np.dtype(dtype).name, type(e).__name__, str(e)[:120])
                continue
            if any(o.shape != args[0].shape for o in outs):
                counts["errors"] += 1
                print("SHAPE", label, np.dtype(dtype).name, [o.shape for o in outs])
                continue
            counts["compared"] += 1
            judge(label, fn, args, dtype, outs, ["eager", "jit", "ref"], opts.verbose, rows)
            if arity != 1 or opts.no_grad:
                continue
            g = tjit.vmap(tjit.grad(lambda x, fn=fn: fn(x)))
            try:
                with np.errstate(all="ignore"):
                    ge = np.asarray(g(args[0]))
                    gj = np.asarray(tjit.jit(g)(args[0]))
            except Exception:
                continue
            if ge.shape != gj.shape or ge.shape != args[0].shape:
                continue
            counts["grad_compared"] += 1
            judge(label, g, args, dtype, (ge, gj), ["eager", "jit"], opts.verbose, rows,
                  what="grad")
    print(f"\n{counts}")
    print(f"{len(rows)} flagged pairs (> mathlib bound + 1 ulp)")
    print(f"{'call':30s} {'what':5s} {'dtype':8s} pair        point                    "
          "a / b / true  -> wrong side, ulps")
    for r in rows:
        label, what, dt, ni, nj, point, va, vb, t, src, wrong, dk = r
        print(f"{label:30s} {what:5s} {dt:8s} {ni}/{nj} {point!s:24s} "
              f"{va!r} / {vb!r} / {t!r} ({src}) -> {wrong}, {dk:.3g}")


if __name__ == "__main__":
    main()
