"""Differential check of tjit against JAX on the narrow dtypes (float8_*, float6_*,
float4_e2m1fn, int4/uint4/int2/uint2): random operands through elementwise ops, casts,
reductions and dots, eager and under jit, in one process. A tool, not a test.

Run with the JAX environment (tjit is installed there too)::

    /work/jaxvenv/bin/python benchmarks/diff_small_dtypes.py [--seed N] [--n 64] [-v]

It prints one line per disagreement (op, dtype, how many elements differ and the first
few values of each side) and a summary. Values are compared bit for bit (NaNs of either
sign are equal); an error on one side only is a disagreement too, errors on both are not.
Disagreements that are choices rather than defects (tjit sums and products of narrow
floats in float32 and rounds once; XLA accumulates in the narrow type) are listed
under KNOWN so that they print apart.

What it reported last (JAX 0.10.2, seed 0, --n 32), each checked by hand against the
float64 value rounded by ml_dtypes; none is a tjit defect:
* float8_e3m4 sqrt(3.875) and 8.5 ** 0.59375: JAX rounds twice (1.96850 -> 2.0, 3.56322
  -> 3.5); the nearest values are 1.9375 and 3.625, which tjit gives.
* float4_e2m1fn +-6.0 (its max) to int4/int8/int32/uint: JAX saturates as if infinite
  (7, 127, 2**31 - 1); tjit gives 6 and -6.
* float8_e8m0fnu: products below 2**-127 are NaN in XLA and 2**-127 in ml_dtypes (tjit
  follows ml_dtypes); JAX's max/min/argmax of finite e8m0 values are NaN (NaN identity).
* float4_e2m1fn has no NaN: what sqrt(-x), log(-x) or 0/0 become there differs in the sign
  of zero only.
* int2 sort: JAX returns the values unsorted; its argsort and every uint2 and float6
  program abort inside XLA (reported as CRASH, one child each).
* int4/uint4/int2/uint2 sum and prod: JAX raises ValueError (np.iinfo of a 'V' dtype);
  tjit promotes to the default int, as JAX's code intends.
Also compared by hand: jax.nn.softmax/log_softmax of float8_e4m3fn are all NaN in JAX
(finite in tjit), and jnp.nanmax of float8_e4m3fn agrees after tjit's fix.
"""

import argparse
import subprocess
import sys

import numpy as np

import jax
import jax.numpy as jjnp
import tjit
import tjit.numpy as tjnp

FLOATS = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
          "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"]
INTS = ["int4", "uint4", "int2", "uint2"]

UNARY = ["negative", "abs", "sign", "floor", "ceil", "round", "sqrt", "exp", "log", "tanh",
         "sin", "square", "reciprocal", "isnan", "isinf", "isfinite"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "equal",
          "greater_equal", "power", "arctan2"]
INT_UNARY = ["negative", "abs", "sign", "square", "invert"]
INT_BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "less", "equal",
              "bitwise_and", "bitwise_or", "bitwise_xor", "floor_divide", "remainder"]
REDUCTIONS = ["sum", "max", "min", "prod", "mean", "argmax", "cumsum", "sort", "argsort"]
CAST_TARGETS = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4", "int8",
                "uint8", "int32", "bfloat16", "float16", "bool"]
#: ops where tjit deliberately computes in float32 and rounds once (XLA rounds per step)
KNOWN = {"sum", "prod", "mean", "cumsum"}


def _values(rng, dt, n):
    """Random values of ``dt``: every bit pattern for floats (so NaN, inf, subnormals and
    the extremes all appear), every representable value for the ints."""
    if dt in INTS:
        info = jjnp.iinfo(dt)
        return rng.integers(int(info.min), int(info.max) + 1, n).astype(dt)
    bits = jjnp.finfo(dt).bits
    return rng.integers(0, 2 ** bits, n, dtype=np.uint8).view(dt)


def _float_sources(rng, n):
    """float32 values for casts: normal spread, overflow, ties, specials."""
    base = np.concatenate([rng.standard_normal(n) * 10.0 ** rng.integers(-9, 6, n),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 1e6, -1e6, 0.5, 1.5, 2.5]])
    return base.astype(np.float32)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "U" or b.dtype.kind == "U":
        return bool(a == b), f"tjit {a} jax {b}"
    if a.shape != b.shape or a.dtype != b.dtype:
        return False, f"shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    ok = (fa == fb) | (np.isnan(fa) & np.isnan(fb))
    if a.dtype.itemsize == b.dtype.itemsize and a.dtype.kind == "V":
        # bit equality as well (signed zeros), NaNs aside
        u = np.dtype(f"u{a.dtype.itemsize}")
        ok &= (a.view(u) == b.view(u)) | np.isnan(fa)
    if ok.all():
        return True, ""
    bad = np.flatnonzero(~ok)
    return False, (f"{bad.size}/{ok.size} differ; first at {bad[:4].tolist()}: "
                   f"tjit {fa.ravel()[bad[:4]].tolist()} jax {fb.ravel()[bad[:4]].tolist()}")


class Diff:
    def __init__(self, verbose):
        self.verbose, self.cases, self.bad, self.known = verbose, 0, [], []

    def check(self, name, dt, tj_fn, jx_fn):
        self.cases += 1
        try:
            want = np.asarray(jx_fn())
        except Exception as e:  # JAX refuses (XLA lacks the type, no promotion path...)
            want = e
        try:
            got = np.asarray(tj_fn())
        except Exception as e:
            got = e
        if isinstance(want, Exception) or isinstance(got, Exception):
            if isinstance(want, Exception) and isinstance(got, Exception):
                return
            if isinstance(want, Exception) and "PrimitiveType" in str(want):
                return  # XLA's CPU backend cannot run this dtype (float6 types): no reference
            msg = (f"tjit raised {type(got).__name__}: {str(got)[:120]}"
                   if isinstance(got, Exception) else
                   f"JAX raised {type(want).__name__}: {str(want)[:120]}")
            ok = False
        else:
            ok, msg = _same(got, want)
        if not ok:
            entry = f"{name:<28} {dt:<20} {msg}"
            (self.known if name.split("[")[0].split(":")[-1] in KNOWN else self.bad).append(entry)
        elif self.verbose:
            print(f"ok  {name:<28} {dt}")


def run(seed, n, verbose, names):
    d = Diff(verbose)
    for dt in names:
        if dt == "promotion":
            _promotions(d)
            continue
        rng = np.random.default_rng([seed, (FLOATS + INTS).index(dt)])
        is_int = dt in INTS
        x, y = _values(rng, dt, n), _values(rng, dt, n)
        # casts into dt from float32 and out of dt to float32
        src = _float_sources(rng, n) if not is_int else rng.integers(-20, 20, n).astype(np.int32)
        d.check("astype(from f32/i32)", dt, lambda: tjnp.asarray(src).astype(dt),
                lambda: jjnp.asarray(src).astype(dt))
        d.check("astype(to f32)", dt, lambda: tjnp.asarray(x).astype(tjnp.float32),
                lambda: jjnp.asarray(x).astype(jjnp.float32))
        for other in CAST_TARGETS:
            if other != dt:
                d.check(f"astype(to {other})", dt, lambda: tjnp.asarray(x).astype(other),
                        lambda: jjnp.asarray(x).astype(other))
                d.check(f"jit:astype(to {other})", dt,
                        lambda: tjit.jit(lambda a: a.astype(other))(x),
                        lambda: jax.jit(lambda a: a.astype(other))(x))
        for mode in ("eager", "jit"):
            tjw = (lambda f: f) if mode == "eager" else tjit.jit
            jxw = (lambda f: f) if mode == "eager" else jax.jit
            for op in (INT_UNARY if is_int else UNARY):
                d.check(f"{mode}:{op}", dt, lambda: tjw(getattr(tjnp, op))(tjnp.asarray(x)),
                        lambda: jxw(getattr(jjnp, op))(jjnp.asarray(x)))
            for op in (INT_BINARY if is_int else BINARY):
                d.check(f"{mode}:{op}", dt,
                        lambda: tjw(getattr(tjnp, op))(tjnp.asarray(x), tjnp.asarray(y)),
                        lambda: jxw(getattr(jjnp, op))(jjnp.asarray(x), jjnp.asarray(y)))
            scalar = 1 if is_int else 0.5
            d.check(f"{mode}:x*scalar", dt, lambda: tjw(lambda a: a * scalar)(tjnp.asarray(x)),
                    lambda: jxw(lambda a: a * scalar)(jjnp.asarray(x)))
            d.check(f"{mode}:scalar-x", dt, lambda: tjw(lambda a: 1 - a)(tjnp.asarray(x)),
                    lambda: jxw(lambda a: 1 - a)(jjnp.asarray(x)))
            d.check(f"{mode}:where", dt,
                    lambda: tjw(lambda a, b: tjnp.where(a > b, a, b))(x, y),
                    lambda: jxw(lambda a, b: jjnp.where(a > b, a, b))(x, y))
            d.check(f"{mode}:clip", dt, lambda: tjw(lambda a: tjnp.clip(a, 0, 1))(x),
                    lambda: jxw(lambda a: jjnp.clip(a, 0, 1))(x))
            finite = x[np.isfinite(x.astype(np.float32))] if not is_int else x
            for op in REDUCTIONS:
                d.check(f"{mode}:{op}", dt,
                        lambda: tjw(getattr(tjnp, op))(tjnp.asarray(finite)),
                        lambda: jxw(getattr(jjnp, op))(jjnp.asarray(finite)))
        a, b = _values(rng, dt, 12).reshape(3, 4), _values(rng, dt, 20).reshape(4, 5)
        if not is_int:
            a = np.where(np.isfinite(a.astype(np.float32)), a, a.dtype.type(1))
            b = np.where(np.isfinite(b.astype(np.float32)), b, b.dtype.type(1))
        d.check("dot(pref=f32)", dt,
                lambda: tjnp.dot(tjnp.asarray(a), tjnp.asarray(b),
                                 preferred_element_type=tjnp.float32),
                lambda: jjnp.dot(jjnp.asarray(a), jjnp.asarray(b),
                                 preferred_element_type=jjnp.float32))
        d.check("matmul", dt, lambda: tjnp.matmul(tjnp.asarray(a), tjnp.asarray(b)),
                lambda: jjnp.matmul(jjnp.asarray(a), jjnp.asarray(b)))
        d.check("jit:einsum(pref=f32)", dt,
                lambda: tjit.jit(lambda p, q: tjnp.einsum(
                    "ij,jk->ik", p, q, preferred_element_type=tjnp.float32))(a, b),
                lambda: jax.jit(lambda p, q: jjnp.einsum(
                    "ij,jk->ik", p, q, preferred_element_type=jjnp.float32))(a, b))
    return d


def _promotions(d):
    """Every pair of the narrow types and the common ones through promote_types."""
    names = FLOATS + INTS + ["bfloat16", "float16", "float32", "int8", "uint8", "int32", "bool"]
    for p in names:
        for q in names:
            d.check(f"promote_types({q})", p,
                    lambda: np.array(str(tjnp.promote_types(getattr(tjnp, p), getattr(tjnp, q)))),
                    lambda: np.array(str(jjnp.promote_types(getattr(jjnp, p), getattr(jjnp, q)))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--dtype", help="one dtype (or 'promotion') in this process; without "
                                    "it each runs in a child, so an XLA abort loses one")
    args = ap.parse_args(argv)
    if args.dtype:
        d = run(args.seed, args.n, args.verbose, [args.dtype])
        for line in d.bad:
            print("DIFF ", line)
        for line in d.known:
            print("known", line)
        print(f"#cases {d.cases} {len(d.bad)} {len(d.known)}")
        return 0
    totals, status = [0, 0, 0], 0
    for name in FLOATS + INTS + ["promotion"]:
        cmd = [sys.executable, __file__, "--dtype", name, "--seed", str(args.seed),
               "--n", str(args.n)] + (["-v"] if args.verbose else [])
        res = subprocess.run(cmd, capture_output=True, text=True)
        for line in res.stdout.splitlines():
            if line.startswith("#cases"):
                totals = [t + int(v) for t, v in zip(totals, line.split()[1:])]
            else:
                print(line)
        if res.returncode:   # an abort inside XLA (JAX's side) or tjit's
            print(f"CRASH {name:<20} the child exited with {res.returncode}: "
                  f"{res.stderr.strip().splitlines()[-1:] if res.stderr.strip() else ''}")
            status = 1
    print(f"{totals[0]} cases: {totals[1]} disagreements, {totals[2]} known "
          f"(float32 accumulation)")
    return 1 if totals[1] or status else 0


if __name__ == "__main__":
    sys.exit(main())
