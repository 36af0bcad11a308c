"""Differential sweep of every jnp function that JAX accepts on the narrow dtypes
(float8_e4m3fn, float8_e5m2, float4_e2m1fn, int4, uint4, bfloat16, float16): each is
called with one array, with that array twice (``f/2``) and with it and its reverse
(``f/3``: distinct operands), eager and under jit, in tjit and in JAX,
and each disagreement is judged against NumPy's float64 result of the widened values
rounded to the result dtype. A tool, not a test.

    /work/jaxvenv/bin/python benchmarks/diff_narrow_dtypes.py [--dtype D] [--only f,g] [-v]

A line per disagreement: ``TJIT`` where tjit is further from the float64 value than JAX
(a tjit defect to fix), ``JAX`` where JAX is further, ``BOTH`` where the two differ and
neither is nearer, ``NOREF`` where NumPy has no such function (read by hand), ``ERR``
where one side raises. Values agree within 2 ulps of the result dtype (exact for ints;
NaNs of either sign are equal).

What it reported last (JAX 0.10.2, about 3,700 jnp cases over the seven dtypes), read by hand; no
tjit defect among them:
* JAX wrong by the float64 value: convolve/polymul of float8/bfloat16/float16 all NaN;
  nanargmax/nanargmin of float8 return the NaN's index; uint4 right_shift is arithmetic
  (8 >> 8 = 15, 8 >> 2 = 14); int4 take wraps -1 + 10 in int4 (reads element 0);
  vander of float8_e5m2/float4 differs; logspace/exp2 of bfloat16 are further off.
* ``TJIT`` tags that are not defects: gradient with int coordinates (tjit is NumPy's
  float32 formula, 1.0000005, JAX 0.99999994); searchsorted/digitize/histogram of unsorted
  bins (undefined); int1 (JAX's jnp.int1 fails inside XLA).
* ``--lax`` (bfloat16, float8_e4m3fn, int4, uint4): lax.mulhi of int4/uint4 was tjit's
  defect (it split the storage byte, int4 -3 * -3 -> 6; fixed, JAX's all-zero answer is
  wrong too); JAX is wrong in population_count of int4 (counts the sign-extended byte),
  igamma/igammac of float8 (P(0.5, 0.5) = 0.6827 -> 0.6875, JAX 0.625) and
  cumlogsumexp of float8 (all NaN).
* ``ERR`` lines are tjit's eager checks of bad arguments JAX takes silently (unsorted bins,
  percentiles outside [0, 100], negative repeats, a zero in geomspace).
"""

import argparse
import warnings

import numpy as np
import ml_dtypes  # noqa: F401  (registers the narrow dtypes with NumPy)

import jax
import jax.numpy as jjnp
import tjit
import tjit.numpy as tjnp

DTYPES = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4", "bfloat16",
          "float16"]
#: not array functions, or ones whose results are not arrays of the operands' values
SKIP = {"load", "save", "savez", "fromfile", "fromstring", "frombuffer", "fromfunction",
        "fromiter", "vectorize", "frompyfunc", "piecewise", "select", "einsum", "einsum_path",
        "array_repr", "array_str", "printoptions", "set_printoptions", "get_printoptions",
        "iterable", "from_dlpack", "ndim", "shape", "size", "result_type", "promote_types",
        "can_cast", "issubdtype", "isdtype", "dtype", "finfo", "iinfo", "pad", "empty",
        "empty_like", "astype", "bool", "bool_", "array", "asarray", "copy"}
FLOAT_VALUES = np.array([-2.0, -1.5, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan, 6.0, 0.25])
INT_VALUES = np.array([-8, -3, -1, 0, 1, 2, 7, 5, 3, -2])


def _values(dt):
    v = INT_VALUES if "int" in dt else FLOAT_VALUES
    if dt == "uint4":
        v = np.abs(v)
    if dt in ("bfloat16", "float16"):
        v = np.concatenate([v, [65504.0 if dt == "float16" else 1e30, 3.3e-5, -7.25]])
    return np.asarray(v).astype(dt)


def _as_f64(a):
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype.kind not in "bc" else a.astype(np.complex128)


def _ulps(dtype):
    """Agreement allowed in the result dtype: 2 ulps for inexact results (libm-grade
    float32 transcendentals differ by that), exact for the rest."""
    if dtype.kind in "fcV" and dtype.kind != "V" or str(dtype).startswith(("float", "bfloat")):
        return 2 * float(ml_dtypes.finfo(dtype).eps) if dtype.kind != "c" else \
            2 * float(np.finfo(dtype).eps)
    return 0.0


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    fa, fb = _as_f64(a), _as_f64(b)
    tol = _ulps(a.dtype)
    with np.errstate(invalid="ignore"):
        close = (fa == fb) | (np.abs(fa - fb) <= tol * np.maximum(np.abs(fa), np.abs(fb)))
    return bool((close | (np.isnan(fa) & np.isnan(fb))).all())


def _error(a, ref):
    """Largest distance of ``a`` from the float64 reference, NaN-aware."""
    fa, fr = _as_f64(a), _as_f64(ref)
    if fa.shape != fr.shape:
        return np.inf
    na, nr = np.isnan(fa), np.isnan(fr)
    if (na != nr).any():
        return np.inf
    with np.errstate(invalid="ignore"):
        d = np.where(na, 0.0, np.abs(fa - fr))
        d = np.where(np.isinf(fa) & (fa == fr), 0.0, d)
    return float(np.nan_to_num(d, nan=np.inf).max(initial=0.0))


def _leaves(r):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(r)]


def _reference(name, args, dtypes):
    """NumPy's float64 result of the widened operands, cast to JAX's result dtypes."""
    f = getattr(np, name, None)
    if f is None:
        return None
    try:
        with np.errstate(all="ignore"):
            out = _leaves(f(*[_as_f64(a) for a in args]))
        return [np.asarray(o).astype(d) if o.shape or True else o for o, d in zip(out, dtypes)]
    except Exception:
        return None


def sweep(dt, only, verbose, jmod=jjnp, tmod=tjnp):
    names = [n for n in dir(jmod) if callable(getattr(jmod, n)) and hasattr(tmod, n)
             and not n[0].isupper() and not n.startswith("_") and n not in SKIP]
    if only:
        names = [n for n in names if n in only]
    v = _values(dt)
    lines, cases = [], 0
    for n in names:
        for nargs in (1, 2, 3):
            # 3: two arguments, the second reversed (distinct operands for binary ops)
            args = [v] * nargs if nargs < 3 else [v, v[::-1].copy()]
            for mode in ("eager", "jit"):
                try:
                    jf = getattr(jmod, n)
                    want = _leaves((jax.jit(jf) if mode == "jit" else jf)(
                        *[jjnp.asarray(a) for a in args]))
                    if not want or not all(hasattr(w, "dtype") for w in want):
                        continue
                except Exception:
                    continue   # JAX refuses: no reference
                ref = _reference(n, args, [w.dtype for w in want])
                cases += 1
                fn = getattr(tmod, n)
                try:
                    if mode == "jit":
                        got = _leaves(tjit.jit(fn)(*args))
                    else:
                        got = _leaves(fn(*[tjnp.asarray(a) for a in args]))
                except Exception as e:
                    lines.append(f"ERR   {dt:<14} {mode:<5} {n}/{nargs}: "
                                 f"{type(e).__name__}: {str(e)[:100]}")
                    continue
                if len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want)):
                    if verbose:
                        print(f"ok    {dt:<14} {mode:<5} {n}/{nargs}")
                    continue
                if len(got) != len(want) or any(g.dtype != w.dtype or g.shape != w.shape
                                                 for g, w in zip(got, want)):
                    lines.append(f"TJIT  {dt:<14} {mode:<5} {n}/{nargs}: dtype/shape "
                                 f"{[(g.dtype, g.shape) for g in got]} vs JAX "
                                 f"{[(w.dtype, w.shape) for w in want]}")
                    continue
                i = next(k for k, (g, w) in enumerate(zip(got, want)) if not _same(g, w))
                g, w = got[i], want[i]
                show = f"tjit {_as_f64(g).ravel()[:8]} jax {_as_f64(w).ravel()[:8]}"
                if ref is None or ref[i].shape != g.shape:
                    lines.append(f"NOREF {dt:<14} {mode:<5} {n}/{nargs}: {show}")
                    continue
                eg, ew = _error(g, ref[i]), _error(w, ref[i])
                tag = "TJIT " if eg > ew else "JAX  " if ew > eg else "BOTH "
                lines.append(f"{tag} {dt:<14} {mode:<5} {n}/{nargs}: {show} "
                             f"f64 {_as_f64(ref[i]).ravel()[:8]}")
    return lines, cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", action="append")
    ap.add_argument("--only", help="comma-separated function names")
    ap.add_argument("--lax", action="store_true", help="sweep jax.lax against tjit.lax")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    mods = (jax.lax, tjit.lax) if args.lax else (jjnp, tjnp)
    warnings.simplefilter("ignore")
    only = set(args.only.split(",")) if args.only else None
    counts = {}
    total = 0
    for dt in args.dtype or DTYPES:
        lines, cases = sweep(dt, only, args.verbose, *mods)
        total += cases
        for line in lines:
            print(line)
            counts[line[:5].strip()] = counts.get(line[:5].strip(), 0) + 1
    print(f"{total} cases; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
