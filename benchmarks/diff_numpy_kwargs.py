"""Differential hunt: the keyword arguments of jnp reductions, cumulatives, ufunc methods,
sorting, set operations, searching, rounding/clipping, differences, padding and products,
against NumPy (float64 reference) and, when importable, JAX (a second opinion on dtypes and
on options NumPy lacks).

The harness (``Case``, comparison, eager/jit/vmap paths, kept-when-JAX-agrees) is
diff_numpy_stats.py's; this file draws the calls: random ``axis`` (int, negative, tuple,
None), ``keepdims``, ``dtype=``, ``where=``, ``initial=``, ``ddof``/``correction``, 0-size
axes, size-1 and 0-d inputs, integer/bool/float16/complex data.

    /work/jaxvenv/bin/python benchmarks/diff_numpy_kwargs.py --reps 2          # with JAX
    ... --areas reduce,ufunc --verbose     # print every disagreement
    ... --x32 --reps 2                     # x64 off (tjit's default)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import diff_numpy_stats as base  # noqa: E402  (sets x64 from --x32 before tjit loads)
from diff_numpy_stats import Case, pick, rand, rand_axis, rand_shape  # noqa: E402

DATA_DTYPES = (np.float64, np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_,
               np.complex128)


def label(x):
    return base.shape_dtype_label(x)


def _kw(**kw):
    return {k: v for k, v in kw.items() if v is not None}


# -- reductions ---------------------------------------------------------------------------------
# name -> the optional keywords it takes (besides axis/keepdims)
REDUCTIONS = {
    "sum": ("dtype", "where", "initial"), "prod": ("dtype", "where", "initial"),
    "mean": ("dtype", "where"), "var": ("dtype", "where", "ddof"),
    "std": ("dtype", "where", "ddof"), "min": ("where", "initial"),
    "max": ("where", "initial"), "ptp": (), "all": ("where",), "any": ("where",),
    "argmin": (), "argmax": (), "nansum": ("dtype", "where", "initial"),
    "nanprod": ("dtype", "where", "initial"), "nanmean": ("dtype", "where"),
    "nanvar": ("dtype", "where", "ddof"), "nanstd": ("dtype", "where", "ddof"),
    "nanmin": ("where", "initial"), "nanmax": ("where", "initial"),
    "nanargmin": (), "nanargmax": (), "median": (), "nanmedian": (),
    "count_nonzero": (),
}
NO_TUPLE_AXIS = ("argmin", "argmax", "nanargmin", "nanargmax")
NO_BOOL = ("ptp",)  # NumPy subtracts booleans (TypeError)
ORDERED = ("min", "max", "ptp", "argmin", "argmax", "nanmin", "nanmax", "nanargmin",
           "nanargmax", "median", "nanmedian")


def reduce_cases(rng):
    for _ in range(40):
        dtype = pick(rng, DATA_DTYPES)
        x = rand(rng, rand_shape(rng), dtype, special=0.1)
        for fname, opts in REDUCTIONS.items():
            if dtype == np.bool_ and fname in NO_BOOL:
                continue
            if dtype == np.complex128 and fname in ORDERED:
                continue
            if dtype == np.float16 and fname in ("median", "nanmedian"):
                continue  # NumPy's float16 median rounds its midpoint in float16
            axis = rand_axis(rng, x.ndim, tuples=fname not in NO_TUPLE_AXIS) if x.ndim else None
            kw = {"axis": axis}
            if rng.random() < 0.5 and fname != "count_nonzero":
                kw["keepdims"] = True
            if "where" in opts and rng.random() < 0.4:
                kw["where"] = rng.random(x.shape[-1:] if x.ndim and rng.random() < 0.5
                                         else x.shape) < 0.7
            if "initial" in opts and (rng.random() < 0.4 or
                                      (fname in ("min", "max", "nanmin", "nanmax")
                                       and "where" in kw)):
                kw["initial"] = pick(rng, (0, 2, -3.5)) if dtype != np.bool_ else 1
                if np.dtype(dtype).kind in "iub":
                    kw["initial"] = int(kw["initial"])
            if "dtype" in opts and rng.random() < 0.35:
                kw["dtype"] = pick(rng, (np.float64, np.float32, np.int64, np.complex128,
                                         np.bool_)) \
                    if dtype == np.complex128 or fname in ("sum", "prod", "nansum", "nanprod") \
                    else pick(rng, (np.float64, np.float32))
                if np.dtype(dtype).kind == "c" and np.dtype(kw["dtype"]).kind != "c":
                    kw["dtype"] = np.complex128
            if "ddof" in opts and rng.random() < 0.5:
                kw[pick(rng, ("ddof", "correction"))] = pick(rng, (0, 1, 2, 0.5))
            if fname in ("min", "max", "nanmin", "nanmax", "argmin", "argmax",
                         "nanargmin", "nanargmax") and x.size == 0 and "initial" not in kw:
                continue  # NumPy raises on an empty reduction without an identity
            lab = f"{fname} {label(x)} " + " ".join(
                f"{k}={v if k != 'where' else np.shape(v)}" for k, v in kw.items())
            yield Case("reduce", lab, lambda m, a, fn=fname, kw=kw: _reduce(m, fn, a, kw),
                       (x,))


def _reduce(m, fname, a, kw):
    kw = dict(kw)
    if m is np and "correction" in kw and fname.startswith("nan"):
        kw["ddof"] = kw.pop("correction")  # NumPy's nanvar/nanstd only spell it ddof
    if "where" in kw:
        kw["where"] = np.broadcast_to(kw["where"], np.shape(a)) if m is np else kw["where"]
    return getattr(m, fname)(a, **kw)


# -- cumulatives --------------------------------------------------------------------------------
def cumulative_cases(rng):
    for _ in range(25):
        dtype = pick(rng, DATA_DTYPES)
        x = rand(rng, rand_shape(rng), dtype, special=0.1)
        for fname in ("cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum",
                      "cumulative_prod"):
            kw = {}
            if fname.startswith("cumulative"):
                if x.ndim > 1 or rng.random() < 0.5:
                    if x.ndim == 0:
                        continue  # NumPy and JAX both refuse 0-d input
                    kw["axis"] = int(rng.integers(-x.ndim, x.ndim))
                if rng.random() < 0.5:
                    kw["include_initial"] = True
            elif x.ndim:
                kw["axis"] = pick(rng, (None,) + tuple(range(-x.ndim, x.ndim)))
            if rng.random() < 0.35:
                kw["dtype"] = pick(rng, (np.float64, np.int64, np.float32, np.complex128,
                                         np.bool_))
                if np.dtype(dtype).kind == "c" and np.dtype(kw["dtype"]).kind != "c":
                    kw["dtype"] = np.complex128
            if dtype == np.float16 and fname.endswith("prod"):
                continue  # float16 products over ~50 values overflow at random spots
            lab = f"{fname} {label(x)} {kw}"
            yield Case("cumulative", lab, lambda m, a, fn=fname, kw=kw: getattr(m, fn)(a, **kw),
                       (x,), vmap=x.ndim > 0 and kw.get("axis") is not None)


# -- ufunc methods ------------------------------------------------------------------------------
UFUNCS = ("add", "multiply", "maximum", "minimum", "subtract", "logaddexp", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor")


def _ufunc_ok(name, dtype):
    kind = np.dtype(dtype).kind
    if name.startswith("bitwise"):
        return kind in "iub"
    if name == "logaddexp":
        return kind == "f"
    if name == "subtract":
        return kind != "b"
    return True


def ufunc_cases(rng):
    for _ in range(25):
        dtype = pick(rng, (np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_,
                           np.complex128))
        name = pick(rng, [u for u in UFUNCS if _ufunc_ok(u, dtype)])
        x = rand(rng, rand_shape(rng, max_ndim=3), dtype, special=0.0)
        if x.ndim == 0:
            x = x.reshape(1)
        axis = pick(rng, (None, 0, ()) + tuple(range(-x.ndim, x.ndim)) +
                    (((0, -1),) if x.ndim >= 2 else ()))
        kw = {"axis": axis}
        if rng.random() < 0.4:
            kw["keepdims"] = True
        if rng.random() < 0.3 and name in ("add", "multiply", "maximum", "minimum",
                                           "logical_and", "logical_or"):
            kw["where"] = rng.random(x.shape) < 0.7
            if name in ("maximum", "minimum"):
                kw["initial"] = 0
        if rng.random() < 0.3 and name in ("add", "multiply", "maximum", "minimum",
                                           "bitwise_or", "bitwise_and", "logical_or"):
            kw["initial"] = True if dtype == np.bool_ else 1
        if name in ("maximum", "minimum", "subtract", "logaddexp") and x.size == 0 and \
                "initial" not in kw:
            kw["initial"] = 0 if name != "subtract" else None
            if kw["initial"] is None:
                continue
        if name == "subtract" and isinstance(axis, tuple):
            continue
        if rng.random() < 0.25 and name in ("add", "multiply"):
            kw["dtype"] = pick(rng, (np.float64, np.int64, np.float32, np.bool_))
            if np.dtype(dtype).kind == "c":
                kw["dtype"] = np.complex128
        lab = f"{name}.reduce {label(x)} {_show(kw)}"
        yield Case("ufunc", lab, lambda m, a, n=name, kw=kw: getattr(m, n).reduce(a, **kw),
                   (x,))
        ax = int(rng.integers(-x.ndim, x.ndim))
        kwa = {"axis": ax}
        if rng.random() < 0.3 and name in ("add", "multiply"):
            kwa["dtype"] = pick(rng, (np.float64, np.int64))
            if np.dtype(dtype).kind == "c":
                kwa["dtype"] = np.complex128
        yield Case("ufunc", f"{name}.accumulate {label(x)} {_show(kwa)}",
                   lambda m, a, n=name, kw=kwa: getattr(m, n).accumulate(a, **kw), (x,))
        y = rand(rng, rand_shape(rng, max_ndim=2), pick(rng, (dtype, np.float64, np.int32)),
                 special=0.0)
        if _ufunc_ok(name, y.dtype):
            yield Case("ufunc", f"{name}.outer {label(x)} {label(y)}",
                       lambda m, a, b, n=name: getattr(m, n).outer(a, b), (x, y))
        if x.shape[0]:
            k = int(rng.integers(1, 6))
            idx = rng.integers(0, x.shape[0], k)
            if rng.random() < 0.3:
                idx = np.sort(idx)
            if name not in ("maximum", "minimum") and rng.random() < 0.5:
                idx = idx.copy()
                idx[0] = -1  # negative indices wrap
            vals = rand(rng, (k,) + x.shape[1:], dtype, special=0.0)
            yield Case("ufunc", f"{name}.at {label(x)} idx={idx.tolist()}",
                       lambda m, a, i, v, n=name: _at(m, n, a, i, v), (x, idx, vals))
            ri = np.sort(rng.integers(0, x.shape[0], int(rng.integers(1, 5))))
            if rng.random() < 0.4 and len(ri) > 1:
                ri = ri[::-1].copy()  # decreasing index pairs: NumPy takes a[i] alone
            ra = int(rng.integers(-x.ndim, x.ndim))
            ri = np.minimum(ri, x.shape[ra] - 1) if x.shape[ra] else None
            if ri is not None and name not in ("subtract",):
                yield Case("ufunc", f"{name}.reduceat {label(x)} idx={ri.tolist()} axis={ra}",
                           lambda m, a, i, n=name, ax=ra: getattr(m, n).reduceat(
                               a, i, axis=ax), (x, ri))  # traced indices under jit


def _show(kw):
    return {k: (np.shape(v) if k == "where" else v) for k, v in kw.items()}


def _at(m, name, a, idx, vals):
    if m is np:
        a = a.copy()
        getattr(np, name).at(a, idx, vals)
        return a
    return getattr(m, name).at(a, idx, vals, inplace=False)


# -- ufunc dtype= / casting ---------------------------------------------------------------------
def ufunc_dtype_cases(rng):
    binary = ("add", "subtract", "multiply", "true_divide", "floor_divide", "power", "maximum",
              "arctan2", "hypot", "remainder", "fmod", "copysign", "nextafter")
    unary = ("negative", "sqrt", "exp", "sin", "abs", "square", "reciprocal", "floor", "rint",
             "sign", "log1p", "positive")
    for _ in range(20):
        dtype = pick(rng, (np.float32, np.int32, np.int64, np.bool_, np.uint8, np.float16))
        x = rand(rng, rand_shape(rng, max_ndim=2), dtype, special=0.0)
        y = rand(rng, x.shape, pick(rng, (np.float32, np.int32, np.int64, dtype)), special=0.0)
        if np.dtype(y.dtype).kind in "iu":
            y = np.where(y == 0, 1, y).astype(y.dtype)
        out_dt = pick(rng, (np.float64, np.float32, np.complex128))
        name = pick(rng, binary)
        if name == "power" and np.dtype(y.dtype).kind in "iu":
            y = np.abs(y) % 4
        lab = f"{name} {label(x)} {label(y)} dtype={np.dtype(out_dt).name}"
        if name in ("arctan2", "hypot", "copysign", "nextafter", "remainder", "fmod",
                    "floor_divide", "maximum") and out_dt == np.complex128:
            continue
        yield Case("ufunc_dtype", lab, lambda m, a, b, n=name, d=out_dt:
                   getattr(m, n)(a, b, dtype=d), (x, y))
        name = pick(rng, unary)
        if name in ("floor", "rint", "sign") and out_dt == np.complex128:
            continue
        if name == "reciprocal" and np.dtype(dtype).kind in "iub":
            continue  # NumPy's integer reciprocal is integer division; dtype= casts first
        yield Case("ufunc_dtype", f"{name} {label(x)} dtype={np.dtype(out_dt).name}",
                   lambda m, a, n=name, d=out_dt: getattr(m, n)(a, dtype=d), (x,))


# -- sorting and uniqueness ---------------------------------------------------------------------
SIGNED_ZEROS = np.array([0.0, -0.0, np.nan, 1.0, -1.0, -0.0, np.nan, 0.0, -np.inf, np.inf])


def sort_cases(rng):
    for _ in range(12):
        dtype = pick(rng, (np.float64, np.float32, np.float16, np.int32, np.bool_,
                           np.complex128, np.uint8))
        shape = rand_shape(rng, max_ndim=2)
        x = rand(rng, shape, dtype, special=0.3, ties=0.8)
        if np.dtype(dtype).kind == "f" and x.size and rng.random() < 0.5:
            x = rng.choice(SIGNED_ZEROS, x.shape).astype(dtype)
        if x.ndim == 0:
            x = x.reshape(1)
        axis = pick(rng, (None, -1, 0))
        stable = pick(rng, (None, True))
        lab = f"{label(x)} axis={axis} stable={stable}"
        yield Case("sort", "argsort " + lab,
                   lambda m, a, ax=axis, s=stable: _argsort(m, a, ax, s), (x,), jit=True)
        yield Case("sort", "sort signbits " + lab,
                   lambda m, a, ax=axis: _signbits(m, m.sort(a, axis=ax)), (x,),
                   ref_fun=lambda m, a, ax=axis: _signbits(m, np.sort(a, axis=ax, kind="stable")))
        if x.ndim and np.dtype(dtype).kind != "c":
            kth = int(rng.integers(-x.shape[-1], x.shape[-1])) if x.shape[-1] else None
            if kth is not None:
                yield Case("sort", f"partition kth={kth} " + lab,
                           lambda m, a, k=kth: m.partition(a, k, axis=-1), (x,),
                           check=lambda arrs, got, ref, k=kth:
                           base.partition_property(arrs[0], np.asarray(got), k, -1))
        keys = [rand(rng, (int(rng.integers(0, 12)),), np.float64, special=0.3, ties=1.0)]
        keys.append(rand(rng, keys[0].shape, np.int32, ties=1.0))
        yield Case("sort", f"lexsort nan keys n={keys[0].size}",
                   lambda m, a, b: m.lexsort((a, b)), tuple(keys))


def _argsort(m, a, axis, stable):
    if m is np:
        return np.argsort(a, axis=axis, kind="stable")
    return m.argsort(a, axis=axis, **_kw(stable=stable))


def _signbits(m, x):
    """Sorted values and their sign bits: -0.0 and 0.0 compare equal but sort in order."""
    kind = np.dtype(x.dtype).kind
    return (x, m.signbit(m.real(x)) if kind in "fc" else x)


def unique_cases(rng):
    for _ in range(12):
        dtype = pick(rng, (np.float64, np.float32, np.int32, np.bool_, np.complex128))
        x = rand(rng, rand_shape(rng, max_ndim=2), dtype, special=0.3, ties=1.0)
        axis = pick(rng, (None, None) + tuple(range(-x.ndim, x.ndim)))
        flags = {k: bool(rng.random() < 0.5) for k in ("return_index", "return_inverse",
                                                       "return_counts")}
        equal_nan = bool(rng.random() < 0.7)
        kw = dict(flags, axis=axis, equal_nan=equal_nan)
        if axis is not None and x.ndim and x.shape[axis] == 0:
            continue
        yield Case("unique", f"unique {label(x)} {kw}",
                   lambda m, a, kw=kw: m.unique(a, **kw), (x,), jit=False)
        if axis is None and x.size:
            size = int(rng.integers(1, x.size + 3))
            fill = pick(rng, (None, -7))
            kws = dict(flags, size=size, equal_nan=equal_nan, **_kw(fill_value=fill))
            yield Case("unique", f"unique size {label(x)} {kws}",
                       lambda m, a, kw=kws: m.unique(a, **kw), (x,), ref="jax")
        if axis is not None and x.ndim == 2 and x.shape[axis]:
            fill = rand(rng, (x.shape[1 - axis % 2],), x.dtype, special=0.0)
            size = x.shape[axis] + 1
            yield Case("unique", f"unique size axis={axis} row fill {label(x)}",
                       lambda m, a, f=fill, ax=axis, s=size: m.unique(a, axis=ax, size=s,
                                                                      fill_value=f),
                       (x,), ref="jax")


# -- searching and histograms -------------------------------------------------------------------
def search_cases(rng):
    for _ in range(10):
        n = int(rng.integers(0, 15))
        a = rand(rng, (n,), pick(rng, (np.float64, np.int32, np.float32)), special=0.2,
                 ties=0.8)
        sorter = np.argsort(a, kind="stable")
        v = rand(rng, rand_shape(rng, max_ndim=2), np.float64, special=0.2, ties=0.8)
        side = pick(rng, ("left", "right"))
        yield Case("search", f"searchsorted sorter nan a={label(a)} v={label(v)} {side}",
                   lambda m, a, v, s, sd=side: m.searchsorted(a, v, side=sd, sorter=s),
                   (a, v, sorter))
        x = rand(rng, (int(rng.integers(0, 20)),), np.float64, special=0.0)
        y = rand(rng, x.shape, np.float64, special=0.0)
        bins = pick(rng, (3, (2, 4), [np.linspace(-3, 3, 4), 3]))
        rng_ = pick(rng, (None, [[-2, 2], [-1, 3]]))
        density = bool(rng.random() < 0.4)
        w = rng.random(x.shape) if rng.random() < 0.4 else None
        yield Case("search", f"histogram2d n={x.size} bins={bins} range={rng_} "
                   f"density={density} w={w is not None}",
                   lambda m, a, b, bb=bins, r=rng_, d=density, ww=w:
                   m.histogram2d(a, b, bins=bb, range=r, density=d, weights=ww), (x, y))
        hb = pick(rng, (4, np.array([-2.0, 0.0, 0.5, 3.0]), "auto", "sturges"))
        hr = pick(rng, (None, (-1.0, 1.0)))
        if isinstance(hb, str) and x.size == 0:
            continue
        yield Case("search", f"histogram n={x.size} bins={hb} range={hr}",
                   lambda m, a, bb=hb, r=hr: m.histogram(a, bins=bb, range=r), (x,),
                   jit=not isinstance(hb, str))
        xi = rng.integers(0, 8, int(rng.integers(0, 12)))
        ml = pick(rng, (0, 3, 10))
        yield Case("search", f"bincount n={xi.size} minlength={ml}",
                   lambda m, a, l=ml: m.bincount(a, minlength=l), (xi,), jit=False)


# -- rounding, clipping, differences, interpolation ---------------------------------------------
def elementwise_cases(rng):
    for _ in range(14):
        dtype = pick(rng, (np.float64, np.float32, np.float16, np.int32, np.int64, np.uint8,
                           np.complex128, np.int8))
        x = rand(rng, rand_shape(rng), dtype, special=0.1)
        if np.dtype(dtype).kind in "iu" and np.dtype(dtype).itemsize >= 4:
            x = (x.astype(np.int64) * pick(rng, (1, 37, 1234))).astype(dtype)
        dec = pick(rng, (-3, -2, -1, 0, 1, 3))
        yield Case("round", f"round {label(x)} decimals={dec}",
                   lambda m, a, d=dec: m.round(a, d), (x,), ref_fun=lambda m, a, d=dec:
                   np.round(a, d))
        if np.dtype(dtype).kind != "c":
            lo, hi = pick(rng, ((None, 1), (-1, None), (0.5, -0.5), (-2, 2),
                                (np.full(x.shape[-1:], -1.0), None)))
            yield Case("clip", f"clip {label(x)} min={lo} max={hi}",
                       lambda m, a, l=lo, h=hi: _clip(m, a, l, h), (x,))
    for _ in range(8):
        a = rand(rng, (int(rng.integers(1, 8)), 3), pick(rng, (np.float64, np.int32,
                                                                np.complex128)), special=0.0)
        b = rand(rng, a.shape[:1] + (pick(rng, (2, 3)),), pick(rng, (np.float64, np.int64)),
                 special=0.0)
        ax = pick(rng, (-1, None))
        yield Case("products", f"cross {label(a)} {label(b)} axis={ax}",
                   lambda m, p, q, ax=ax: m.cross(p, q, **_kw(axis=ax)), (a, b))
        c = rand(rng, rand_shape(rng, max_ndim=2, max_size=6), pick(rng, (np.bool_, np.int32,
                                                                          np.float32)))
        yield Case("products", f"outer {label(a)} {label(c)}",
                   lambda m, p, q: m.outer(p, q), (a, c))
        yield Case("products", f"kron {label(a)} {label(c)}",
                   lambda m, p, q: m.kron(p, q), (a, c))
        yield Case("products", f"inner {label(a)} {label(b)}",
                   lambda m, p, q: m.inner(p, q), (a, b[:, :1] * np.ones(3)))
    for _ in range(6):
        n = int(rng.integers(1, 10))
        y = rand(rng, (n, int(rng.integers(1, 4))), pick(rng, (np.float64, np.int32, np.bool_)),
                 special=0.0)
        xs = np.cumsum(rng.random(n))
        axis = pick(rng, (0, -1))
        yield Case("diff", f"trapezoid {label(y)} x axis={axis}",
                   lambda m, a, x, ax=axis: m.trapezoid(a, x if ax == 0 else None, axis=ax),
                   (y, xs))
        yield Case("diff", f"diff bool prepend {label(y)}",
                   lambda m, a: m.diff(a, axis=0, prepend=a[:1]), (y,))


def _clip(m, a, lo, hi):
    if m is np:
        return np.clip(a, lo, hi)
    return m.clip(a, min=lo, max=hi)


# -- padding ------------------------------------------------------------------------------------
PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
             "reflect", "symmetric", "wrap", "empty")


def pad_cases(rng):
    for _ in range(60):
        dtype = pick(rng, (np.float64, np.float32, np.int32, np.uint8, np.bool_, np.complex128))
        shape = rand_shape(rng, max_ndim=3, max_size=7, allow_empty=False)
        x = rand(rng, shape, dtype, special=0.0)
        mode = pick(rng, PAD_MODES)
        if mode in ("mean", "median", "maximum", "minimum", "linear_ramp") and \
                dtype == np.bool_:
            continue
        if mode in ("maximum", "minimum") and dtype == np.complex128:
            continue
        big = mode in ("wrap", "symmetric", "reflect", "constant", "edge", "linear_ramp")
        hi = 9 if big else 4
        width = pick(rng, (int(rng.integers(0, hi)),
                           (int(rng.integers(0, hi)), int(rng.integers(0, hi))),
                           [(int(rng.integers(0, hi)), int(rng.integers(0, hi)))
                            for _ in range(x.ndim)]))
        kw = {}
        if mode in ("maximum", "mean", "median", "minimum") and rng.random() < 0.6:
            kw["stat_length"] = pick(rng, (1, 2, (1, 3), None, 0))
        if mode in ("reflect", "symmetric") and rng.random() < 0.5:
            kw["reflect_type"] = "odd"
        if mode == "constant" and rng.random() < 0.6:
            kw["constant_values"] = pick(rng, (3, (1, 2), -1.5))
        if mode == "linear_ramp" and rng.random() < 0.6:
            kw["end_values"] = pick(rng, (5, (-1, 2)))
        if mode == "empty":
            continue  # values unspecified
        if dtype == np.uint8 and (kw.get("constant_values", 0) in (-1.5,) or
                                  kw.get("reflect_type") == "odd" or
                                  kw.get("end_values") == (-1, 2)):
            continue  # NumPy wraps negative values into uint8 differently from JAX
        lab = f"pad {label(x)} {mode} width={width} {kw}"
        yield Case("pad", lab, lambda m, a, w=width, mo=mode, kw=kw: m.pad(a, w, mode=mo, **kw),
                   (x,), vmap=x.ndim > 0 and not isinstance(width, list))


AREAS = {"reduce": reduce_cases, "cumulative": cumulative_cases, "ufunc": ufunc_cases,
         "ufunc_dtype": ufunc_dtype_cases, "sort": sort_cases, "unique": unique_cases,
         "search": search_cases, "elementwise": elementwise_cases, "pad": pad_cases}


if __name__ == "__main__":
    base.AREAS.clear()
    base.AREAS.update(AREAS)
    sys.exit(base.main())
