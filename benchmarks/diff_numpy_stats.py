"""Differential hunt: jnp statistics, sorting, set operations, searching, histograms and
nan-functions against NumPy (float64 reference) and, when importable, JAX (a second opinion).

Each case draws random inputs (fixed seeds): sizes 0..~50, 0-d arrays, float32/float64/
int32/int64/bool/complex, NaN/inf/±0, ties and duplicates, axes that are negative, tuples or
None, keepdims. A case runs tjit eager, under ``jit`` and (where marked) under ``vmap``
(compared with a Python loop). Eager is compared with NumPy on the same inputs and on the
inputs widened to float64; a difference is *kept* (not counted) when JAX gives tjit's answer:
tjit follows JAX deliberately there (NaN order in descending sorts, -0.0 before 0.0, ...).
Options that only JAX has (``size=``, ``fill_value=``, ``length=``) are compared with JAX.

    /work/jaxvenv/bin/python benchmarks/diff_numpy_stats.py --reps 2          # with JAX
    .venv/bin/python benchmarks/diff_numpy_stats.py --reps 2                  # NumPy only
    ... --areas sort,quantile --verbose     # print every disagreement
    ... --x32 --reps 4 --seed 7             # x64 off (tjit's default): float32/int32 results

With ``--x32`` both libraries run with x64 off: float64 inputs become float32 and int64
become int32 (JAX's canonical types). The reference is then NumPy on those same types, or
NumPy float64 judged with float32 tolerances (either one agreeing is enough).
"""

import argparse
import os
import sys
import traceback

X64 = "--x32" not in sys.argv
os.environ["TJIT_ENABLE_X64"] = "1" if X64 else "0"
os.environ["JAX_ENABLE_X64"] = "1" if X64 else "0"

import warnings  # noqa: E402

import numpy as np  # noqa: E402

import tjit  # noqa: E402
import tjit.numpy as tnp  # noqa: E402

tjit.config.update("jax_enable_x64", X64)
warnings.filterwarnings("ignore")  # NumPy warns on all-NaN slices and ddof >= n: cases we draw
try:
    import jax
    import jax.numpy as jnp_jax
    jax.config.update("jax_enable_x64", X64)
except ImportError:
    jax = jnp_jax = None

FLOAT_DTYPES = (np.float32, np.float64)
ALL_DTYPES = (np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex128)
METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest")


class Case:
    """One call: ``fun(m, *arrays)`` with ``m`` a numpy-like module (numpy, tjit.numpy or
    jax.numpy). ``ref='jax'`` compares with JAX only (an option NumPy lacks); ``check`` replaces
    equality (e.g. the partition property); ``jit``/``vmap`` say which paths to run."""

    def __init__(self, area, label, fun, arrays, *, ref="numpy", check=None, jit=True,
                 vmap=False, ref_fun=None):
        self.area, self.label, self.fun, self.arrays = area, label, fun, arrays
        self.ref, self.check, self.jit, self.vmap = ref, check, jit, vmap
        self.ref_fun = ref_fun or fun


# -- comparison -------------------------------------------------------------------------------
def leaves(x):
    if isinstance(x, (tuple, list)):
        return [v for item in x for v in leaves(item)]
    if hasattr(x, "_fields"):  # a NamedTuple result (unique_all, ...)
        return [v for item in tuple(x) for v in leaves(item)]
    return [np.asarray(x)]


def narrow(values):
    return not X64 or any(v.dtype in (np.float32, np.complex64) for v in values)


def mismatch(got, ref, tol=None):
    """None when ``got`` equals ``ref`` (NaN == NaN, relative tolerance), else why not."""
    got, ref = leaves(got), leaves(ref)
    if len(got) != len(ref):
        return f"{len(got)} outputs vs {len(ref)}"
    if tol is None:
        tol = 2e-5 if narrow(got) or narrow(ref) else 1e-9
        if any(v.dtype == np.float16 for v in got + ref):
            tol = 3e-2  # float16 steps: tjit accumulates them in float32, NumPy in float16
    for i, (g, r) in enumerate(zip(got, ref)):
        if g.shape != r.shape:
            return f"output {i}: shape {g.shape} vs {r.shape}"
        if g.size == 0:
            continue
        gc, rc = g.astype(np.complex128), r.astype(np.complex128)
        gn, rn = np.isnan(gc), np.isnan(rc)
        if not np.array_equal(gn, rn):
            return f"output {i}: NaN at {np.argwhere(gn != rn)[:3].tolist()}: {g} vs {r}"
        ok = ~rn
        inf = np.isinf(rc) & ok
        if not np.array_equal(gc[inf], rc[inf]):
            return f"output {i}: inf differs: {g} vs {r}"
        ok &= ~inf
        err = np.abs(gc[ok] - rc[ok]) / np.maximum(1.0, np.abs(rc[ok]))
        if err.size and err.max() > tol:
            return f"output {i}: err {err.max():.2e}: {_short(g)} vs {_short(r)}"
    return None


def _short(x):
    s = np.array2string(np.asarray(x), precision=6, threshold=12)
    return s if len(s) < 300 else s[:300] + "..."


def widen(x):
    x = np.asarray(x)
    if x.dtype == np.float32 or x.dtype == np.float16:
        return x.astype(np.float64)
    if x.dtype == np.complex64:
        return x.astype(np.complex128)
    return x


def canonical(x):
    """``x`` as x64-off tjit and JAX hold it: 64-bit types narrowed to 32 bits."""
    x = np.asarray(x) if not isinstance(x, (int, float, bool, complex, str)) else x
    if X64 or not isinstance(x, np.ndarray):
        return x
    narrowed = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32,
                np.dtype(np.uint64): np.uint32, np.dtype(np.complex128): np.complex64}
    return x.astype(narrowed[x.dtype]) if x.dtype in narrowed else x


def run(thunk):
    try:
        return thunk(), None
    except Exception as e:  # noqa: BLE001 - an error is a result to compare
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def agree(case, got, ref):
    if case.check is not None:
        return case.check(case.arrays, got, ref)
    return mismatch(got, ref)


def check_case(case):
    """A list of (kind, detail, kept) for one case; ``kept`` marks JAX-shared differences."""
    problems = []
    args = case.arrays
    eager, eager_err = run(lambda: case.fun(tnp, *args))
    jx, jx_err = ((None, "no jax") if jnp_jax is None
                  else run(lambda: case.fun(jnp_jax, *args)))
    if case.ref == "jax":
        if jnp_jax is None:
            return []
        ref, ref_err = jx, jx_err
        refs = [jx]
    else:
        ref, ref_err = run(lambda: case.ref_fun(np, *[canonical(a) for a in args]))
        wide, _ = run(lambda: case.ref_fun(np, *[widen(a) for a in args]))
        refs = [r for r in (wide, ref) if r is not None]
    if ref_err is not None:
        if eager_err is None:  # kept where JAX answers too, or JAX is the one raising
            # (size=0 set operations: JAX reduces an empty array)
            kept = jx_err is None or case.ref == "jax"
            problems.append(("answers where the reference raises", ref_err, kept))
        return problems
    if eager_err is not None:
        problems.append(("raises where the reference answers", eager_err, jx_err is not None))
        return problems
    whys = [agree(case, eager, r) for r in refs]
    if all(w is not None for w in whys):
        kept = jx_err is None and case.ref != "jax" and agree(case, eager, jx) is None
        problems.append(("eager vs " + case.ref, whys[0], kept))
    if jx_err is None and case.ref != "jax":
        tj_types = [str(v.dtype) for v in leaves(eager)]
        jx_types = [str(v.dtype) for v in leaves(jx)]
        np_types = [str(v.dtype) for v in leaves(ref)]
        if tj_types != jx_types:  # kept where tjit's dtype is NumPy's
            problems.append(("dtype differs from JAX", f"{tj_types} vs {jx_types}",
                             tj_types == np_types))
    if case.jit:
        problems += check_jit(case, eager)
    if case.vmap:
        problems += check_vmap(case)
    return problems


def check_jit(case, eager):
    args = case.arrays
    got, e = run(lambda: tjit.jit(lambda *a: case.fun(tnp, *a))(*args))
    if e is not None:
        if jax is None:
            return [("jit raises", e, False)]
        _, je = run(lambda: jax.jit(lambda *a: case.fun(jnp_jax, *a))(*args))
        return [("jit raises", e, je is not None)]
    why = agree(case, got, eager) if case.check else mismatch(got, eager)
    return [("jit vs eager", why, False)] if why else []


def check_vmap(case):
    a0, rest = np.asarray(case.arrays[0]), case.arrays[1:]
    rng = np.random.default_rng(a0.size)
    flat = a0.ravel()
    batch = np.stack([a0, rng.permutation(flat).reshape(a0.shape), flat[::-1].reshape(a0.shape)])
    got, e = run(lambda: tjit.vmap(lambda a: case.fun(tnp, a, *rest))(batch))
    if e is not None:
        return [("vmap raises", e, False)]
    loop = [case.fun(tnp, b, *rest) for b in batch]
    want = [np.stack(parts) for parts in zip(*[leaves(v) for v in loop])]
    if case.check is not None:
        outs = [[g[i] for g in leaves(got)] for i in range(len(batch))]
        whys = [agree(Case(case.area, "", case.fun, (b,) + tuple(rest), check=case.check),
                      out[0] if len(out) == 1 else out, loop[i])
                for i, (b, out) in enumerate(zip(batch, outs))]
        why = next((w for w in whys if w), None)
    else:
        why = mismatch(leaves(got), want)
    return [("vmap vs loop", why, False)] if why else []


# -- inputs -----------------------------------------------------------------------------------
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5])


def rand(rng, shape, dtype=np.float64, special=0.2, ties=0.3):
    """Random values of ``dtype``: ties (values from a small set) and, for floats, a
    fraction ``special`` of NaN/inf/±0."""
    shape = tuple(shape)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        hi = 4 if rng.random() < ties else 50
        return rng.integers(-hi, hi, shape).astype(dtype)
    x = rng.standard_normal(shape) * 3
    if rng.random() < ties:
        x = np.round(x)
    if special and x.size:
        mask = rng.random(shape) < special
        x = np.where(mask, rng.choice(SPECIALS, shape), x)
    if dtype.kind == "c":
        y = rng.standard_normal(shape)
        if rng.random() < ties:
            y = np.round(y)
        x = x + 1j * y
    return np.asarray(x, dtype)


def rand_shape(rng, max_ndim=3, max_size=50, allow_empty=True):
    ndim = int(rng.integers(0, max_ndim + 1))
    lo = 0 if allow_empty and rng.random() < 0.15 else 1
    shape = []
    for _ in range(ndim):
        shape.append(int(rng.integers(lo, 6)))
    if ndim == 1 and rng.random() < 0.5:
        shape[0] = int(rng.integers(lo, max_size + 1))
    return tuple(shape)


def rand_axis(rng, ndim, tuples=True, none=True):
    choices = []
    if none:
        choices.append(None)
    choices += list(range(-ndim, ndim))
    if tuples and ndim >= 2:
        choices.append((0, ndim - 1))
        choices.append((-1, 0) if ndim > 2 else (0, -1))
    return choices[int(rng.integers(len(choices)))]


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def shape_dtype_label(x):
    return f"{np.asarray(x).dtype}{np.shape(x)}"


# -- cases: sorting and searching ---------------------------------------------------------------
def sort_cases(rng):
    for _ in range(14):
        dtype = pick(rng, ALL_DTYPES)
        x = rand(rng, rand_shape(rng), dtype)
        axis = rand_axis(rng, x.ndim, tuples=False, none=True) if x.ndim else pick(rng, (None,))
        lab = f"{shape_dtype_label(x)} axis={axis}"
        yield Case("sort", "sort " + lab, lambda m, a, ax=axis: m.sort(a, axis=ax), (x,),
                   vmap=x.ndim > 0 and axis is not None)
        yield Case("sort", "argsort stable " + lab,
                   lambda m, a, ax=axis: m.argsort(a, axis=ax, kind="stable"), (x,),
                   vmap=x.ndim > 0 and axis is not None)
        kind = pick(rng, ("quicksort", "mergesort", "heapsort", "stable"))
        yield Case("sort", f"sort kind={kind} " + lab,
                   lambda m, a, ax=axis, k=kind: m.sort(a, axis=ax, kind=k), (x,))
        if x.ndim:
            yield Case("sort", "sort descending " + lab,
                       lambda m, a, ax=axis: m.sort(a, axis=ax, descending=True), (x,),
                       ref_fun=lambda m, a, ax=axis: _np_sort_desc(a, ax))
            yield Case("sort", "argsort descending stable " + lab,
                       lambda m, a, ax=axis: m.argsort(a, axis=ax, descending=True,
                                                       stable=True), (x,),
                       ref_fun=lambda m, a, ax=axis: _np_argsort_desc(a, ax))
    for _ in range(5):  # lexsort: several key rows
        n = int(rng.integers(0, 20))
        k = int(rng.integers(1, 4))
        keys = [rand(rng, (n,), pick(rng, (np.int32, np.float64, np.bool_)), ties=1.0)
                for _ in range(k)]
        yield Case("sort", f"lexsort {k} keys n={n} {[str(v.dtype) for v in keys]}",
                   lambda m, *ks: m.lexsort(ks), tuple(keys))
        keys2 = rand(rng, (k, 3, n), np.int64, ties=1.0)
        yield Case("sort", f"lexsort 2-d keys {keys2.shape} axis=-1",
                   lambda m, ks: m.lexsort(ks, axis=-1), (keys2,))
    for _ in range(10):  # partition property
        dtype = pick(rng, (np.float32, np.float64, np.int32, np.int64, np.bool_))
        shape = rand_shape(rng, max_ndim=2, allow_empty=False)
        if not shape:
            shape = (int(rng.integers(1, 20)),)
        x = rand(rng, shape, dtype)
        axis = int(rng.integers(-x.ndim, x.ndim))
        n = x.shape[axis]
        kth = int(rng.integers(-n, n))
        lab = f"{shape_dtype_label(x)} kth={kth} axis={axis}"
        yield Case("sort", "partition " + lab, lambda m, a, k=kth, ax=axis:
                   m.partition(a, k, axis=ax), (x,),
                   check=lambda arrs, got, ref, k=kth, ax=axis:
                   partition_property(arrs[0], np.asarray(got), k, ax), vmap=True)
        yield Case("sort", "argpartition " + lab, lambda m, a, k=kth, ax=axis:
                   m.argpartition(a, k, axis=ax), (x,),
                   check=lambda arrs, got, ref, k=kth, ax=axis:
                   argpartition_property(arrs[0], np.asarray(got), k, ax), vmap=True)
    for _ in range(12):  # searchsorted
        dtype = pick(rng, (np.float32, np.float64, np.int32, np.int64))
        n = int(rng.integers(0, 30))
        a = np.sort(rand(rng, (n,), dtype, ties=0.6))
        v = rand(rng, rand_shape(rng, max_ndim=2), dtype, ties=0.6)
        if rng.random() < 0.5 and n:
            v = np.asarray(np.concatenate([v.ravel(), a[rng.integers(0, n, 4)]]), dtype)
        side = pick(rng, ("left", "right"))
        for method in ("scan", "scan_unrolled", "sort", "compare_all"):
            yield Case("search", f"searchsorted {side} {method} a={shape_dtype_label(a)} "
                       f"v={shape_dtype_label(v)}",
                       lambda m, a, v, s=side, me=method: _searchsorted(m, a, v, s, me),
                       (a, v), vmap=v.ndim > 0)
        perm = rng.permutation(n)
        un = a[perm]
        sorter = np.argsort(un, kind="stable")
        yield Case("search", f"searchsorted sorter {side} a={shape_dtype_label(a)}",
                   lambda m, a, v, s, sd=side: m.searchsorted(a, v, side=sd, sorter=s),
                   (un, v, sorter))
    for _ in range(6):  # digitize
        bins = np.sort(rand(rng, (int(rng.integers(0, 8)),), np.float64, special=0.1))
        if rng.random() < 0.5:
            bins = bins[::-1]
        x = rand(rng, rand_shape(rng, max_ndim=2), pick(rng, (np.float64, np.int64)))
        right = bool(rng.random() < 0.5)
        yield Case("search", f"digitize right={right} x={shape_dtype_label(x)} "
                   f"bins={bins.tolist()}", lambda m, x, b, r=right: m.digitize(x, b, right=r),
                   (x, bins), vmap=x.ndim > 0)


def _searchsorted(m, a, v, side, method):
    if m is np:
        return np.searchsorted(a, v, side=side)
    return m.searchsorted(a, v, side=side, method=method)


def _np_sort_desc(a, axis):
    return np.flip(np.sort(np.flip(a, axis), axis=axis, kind="stable"), axis)


def _np_argsort_desc(a, axis):
    """Stable descending argsort: equal keys keep their order, NaN first (JAX's rule)."""
    if axis is None:
        a, axis = a.ravel(), 0
    n = a.shape[axis]
    rev = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


def _sorted_equal(x, y):
    x, y = np.sort(x.ravel()), np.sort(y.ravel())
    return x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")


def partition_property(x, got, kth, axis):
    x = canonical(x)  # the values tjit partitioned (float32 with x64 off)
    if got.shape != x.shape:
        return f"shape {got.shape} vs {x.shape}"
    s = np.sort(x, axis=axis)
    n = x.shape[axis]
    k = kth % n
    g, s = np.moveaxis(got, axis, -1), np.moveaxis(s, axis, -1)
    for i in np.ndindex(g.shape[:-1]):
        gi, si = g[i], s[i]
        if not (_sorted_equal(gi[:k], si[:k]) and _sorted_equal(gi[k:k + 1], si[k:k + 1])
                and _sorted_equal(gi[k + 1:], si[k + 1:])):
            return f"row {i}: {gi} is not partitioned at {k} (sorted {si})"
    return None


def argpartition_property(x, got, kth, axis):
    x = canonical(x)
    if got.shape != x.shape:
        return f"shape {got.shape} vs {x.shape}"
    perm = np.sort(np.moveaxis(got, axis, -1), axis=-1)
    if not (perm == np.arange(x.shape[axis])).all():
        return f"indices are not a permutation: {got}"
    return partition_property(x, np.take_along_axis(x, got, axis), kth, axis)


# -- cases: unique and set operations -------------------------------------------------------------
def unique_cases(rng):
    for _ in range(14):
        dtype = pick(rng, ALL_DTYPES)
        x = rand(rng, rand_shape(rng), dtype, ties=0.8)
        flags = dict(return_index=bool(rng.random() < 0.5),
                     return_inverse=bool(rng.random() < 0.5),
                     return_counts=bool(rng.random() < 0.5))
        axis = None if x.ndim == 0 or rng.random() < 0.5 else int(rng.integers(-x.ndim, x.ndim))
        equal_nan = bool(rng.random() < 0.7)
        lab = f"{shape_dtype_label(x)} axis={axis} equal_nan={equal_nan} {flags}"
        yield Case("unique", "unique " + lab, lambda m, a, ax=axis, e=equal_nan, f=flags:
                   m.unique(a, axis=ax, equal_nan=e, **f), (x,), jit=False)
        if axis is not None:
            continue
        for fname in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
            yield Case("unique", f"{fname} {shape_dtype_label(x)}",
                       lambda m, a, fn=fname: getattr(m, fn)(a), (x,), jit=False,
                       ref_fun=lambda m, a, fn=fname: _np_unique_x(fn, a))
        if dtype == np.complex128:  # sized results are compared with JAX, which sorts
            continue  # every complex NaN as one value; tjit sorts their parts, as NumPy
        nuniq = np.unique(x, equal_nan=equal_nan).size
        size = int(max(0, nuniq + rng.integers(-2, 3)))
        fill = pick(rng, (None, 7))
        yield Case("unique", f"unique size={size} fill_value={fill} " + lab,
                   lambda m, a, s=size, fv=fill, e=equal_nan, f=flags:
                   m.unique(a, equal_nan=e, size=s, fill_value=fv, **f), (x,), ref="jax",
                   vmap=x.ndim > 0)
        for fname in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
            yield Case("unique", f"{fname} size={size} {shape_dtype_label(x)}",
                       lambda m, a, fn=fname, s=size: getattr(m, fn)(a, size=s),
                       (x,), ref="jax")
    for _ in range(10):
        dtype = pick(rng, (np.float64, np.int64, np.int32, np.float32, np.bool_))
        a = rand(rng, rand_shape(rng, max_ndim=2), dtype, ties=0.8)
        b = rand(rng, rand_shape(rng, max_ndim=2), dtype, ties=0.8)
        ua, ub = np.unique(a), np.unique(b)
        lab = f"{shape_dtype_label(a)},{shape_dtype_label(b)}"
        for fname in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
            yield Case("sets", f"{fname} {lab}", lambda m, a, b, fn=fname: getattr(m, fn)(a, b),
                       (a, b), jit=False)
            if fname != "union1d":
                yield Case("sets", f"{fname} assume_unique {lab}",
                           lambda m, a, b, fn=fname: getattr(m, fn)(a, b, assume_unique=True),
                           (rng.permutation(ua), rng.permutation(ub)), jit=False)
            size = int(rng.integers(0, 8))
            yield Case("sets", f"{fname} size={size} {lab}",
                       lambda m, a, b, fn=fname, s=size: getattr(m, fn)(a, b, size=s), (a, b),
                       ref="jax")
        yield Case("sets", f"intersect1d return_indices {lab}",
                   lambda m, a, b: m.intersect1d(a, b, return_indices=True), (a, b), jit=False)
        yield Case("sets", f"intersect1d return_indices assume_unique {lab}",
                   lambda m, a, b: m.intersect1d(a, b, assume_unique=True,
                                                 return_indices=True),
                   (rng.permutation(ua), rng.permutation(ub)), jit=False)
        for invert in (False, True):
            yield Case("sets", f"isin invert={invert} {lab}",
                       lambda m, a, b, i=invert: m.isin(a, b, invert=i), (a, b), vmap=a.ndim > 0)
            yield Case("sets", f"isin assume_unique invert={invert} {lab}",
                       lambda m, a, b, i=invert: m.isin(a, b, invert=i, assume_unique=True),
                       (ua, ub))


def _np_unique_x(fname, a):
    """NumPy 2.3+ may return unique_* values unsorted; the reference sorts them (JAX does)."""
    res = np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                    equal_nan=False)
    values, index, inverse, counts = res
    inverse = inverse.reshape(np.shape(a))
    return {"unique_values": values, "unique_counts": (values, counts),
            "unique_inverse": (values, inverse),
            "unique_all": (values, index, inverse, counts)}[fname]


def reduces_nothing(x, axis):
    """Whether a reduction of ``x`` over ``axis`` (None, an int or a tuple) sees an empty slice."""
    axes = range(x.ndim) if axis is None else np.atleast_1d(axis)
    return any(x.shape[i] == 0 for i in axes)


def quantile_name_for_reference(fname, x, axis):
    """tjit's quantile/percentile of an empty slice is NaN, as NumPy's median and nan*
    quantiles are (a documented choice in numpy/_reductions.py: NumPy's quantile raises
    IndexError, JAX 0.10 an internal gather error); the reference is then the nan* name."""
    plain = fname in ("quantile", "percentile")
    return "nan" + fname if plain and reduces_nothing(x, axis) else fname


def limit_of_infinities(fun, x):
    """``fun(x)`` as the limit of its infinite entries: NumPy interpolates between -inf and
    1 as -inf + inf*t = NaN; the limit is -inf. Each infinity becomes a huge finite value of
    its sign (twice, with the negative ones 1000 times smaller the second time: a result
    between -inf and inf then differs, and is NaN); huge results map back to infinities."""
    x = np.asarray(x)
    if x.dtype.kind != "f" or not np.isinf(x).any():
        return fun(x)
    big = 1e300

    def limit(neg):
        r = np.asarray(fun(np.where(np.isposinf(x), big, np.where(np.isneginf(x), -neg, x))))
        return np.where(np.abs(r) > 1e290, np.sign(r) * np.inf, r)

    r1, r2 = limit(big), limit(big * 1e-3)
    return np.where((r1 == r2) | (np.isnan(r1) & np.isnan(r2)), r1, np.nan).astype(x.dtype)


# -- cases: quantiles, means, variances --------------------------------------------------------
def quantile_cases(rng):
    for _ in range(10):
        dtype = pick(rng, (np.float32, np.float64, np.int64, np.int32, np.bool_))
        x = rand(rng, rand_shape(rng), dtype, special=pick(rng, (0.0, 0.0, 0.15)))
        axis = rand_axis(rng, x.ndim) if x.ndim else None
        keep = bool(rng.random() < 0.3)
        lab = f"{shape_dtype_label(x)} axis={axis} keepdims={keep}"
        yield Case("quantile", "median " + lab,
                   lambda m, a, ax=axis, k=keep: m.median(a, axis=ax, keepdims=k), (x,),
                   vmap=x.ndim > 0)
        yield Case("quantile", "nanmedian " + lab,
                   lambda m, a, ax=axis, k=keep: m.nanmedian(a, axis=ax, keepdims=k), (x,),
                   vmap=x.ndim > 0)
        q = pick(rng, (0.5, 0.0, 1.0, 0.37, np.array([0.1, 0.9, 0.5]), np.array(0.25)))
        for method in METHODS:
            if x.dtype == np.bool_ and method not in ("linear", "lower", "higher", "nearest",
                                                      "midpoint", "inverted_cdf",
                                                      "closest_observation"):
                continue  # NumPy subtracts booleans there (TypeError); tjit and JAX answer
            for fname in ("quantile", "nanquantile", "percentile", "nanpercentile"):
                qq = q * 100 if "percentile" in fname else q
                yield Case("quantile", f"{fname} q={qq} method={method} " + lab,
                           lambda m, a, fn=fname, qq=qq, me=method, ax=axis, k=keep:
                           getattr(m, fn)(a, qq, axis=ax, method=me, keepdims=k), (x,),
                           vmap=x.ndim > 0 and method == "linear",
                           ref_fun=lambda m, a, fn=fname, qq=qq, me=method, ax=axis, k=keep:
                           limit_of_infinities(lambda v: getattr(
                               np, quantile_name_for_reference(fn, v, ax))(
                               v, qq, axis=ax, method=me, keepdims=k), a))
    for _ in range(4):  # weights: NumPy supports them with method="inverted_cdf" only
        x = rand(rng, (int(rng.integers(1, 12)),), np.float64, special=0.0)
        w = rng.integers(0, 4, x.shape).astype(np.float64)
        if not w.any():
            w[0] = 1
        for fname in ("quantile", "nanquantile"):
            q = pick(rng, (0.5, 0.0, 1.0, np.array([0.2, 0.7])))
            yield Case("quantile", f"{fname} weights q={q} {x.shape}",
                       lambda m, a, ww, fn=fname, q=q:
                       getattr(m, fn)(a, q, method="inverted_cdf", weights=ww), (x, w))
    for _ in range(8):
        dtype = pick(rng, (np.float32, np.float64, np.int64, np.complex128, np.bool_))
        x = rand(rng, rand_shape(rng), dtype, special=pick(rng, (0.0, 0.1)))
        axis = rand_axis(rng, x.ndim) if x.ndim else None
        keep = bool(rng.random() < 0.3)
        lab = f"{shape_dtype_label(x)} axis={axis} keepdims={keep}"
        for ddof in (0, 1, 2):
            for fname in ("var", "std", "nanvar", "nanstd"):
                yield Case("moments", f"{fname} ddof={ddof} " + lab,
                           lambda m, a, fn=fname, d=ddof, ax=axis, k=keep:
                           getattr(m, fn)(a, axis=ax, ddof=d, keepdims=k), (x,),
                           vmap=x.ndim > 0)
        yield Case("moments", "var correction=1.5 " + lab,
                   lambda m, a, ax=axis: m.var(a, axis=ax, correction=1.5), (x,))
        where = rng.random(x.shape) < 0.7
        for fname in ("var", "std", "mean", "nanmean", "nanvar"):
            yield Case("moments", f"{fname} where= " + lab,
                       lambda m, a, w, fn=fname, ax=axis, k=keep:
                       getattr(m, fn)(a, axis=ax, where=w, keepdims=k), (x, where))
        if x.ndim and not np.iscomplexobj(x):
            ax1 = int(rng.integers(-x.ndim, x.ndim))
            w = rng.random(x.shape[ax1]) * 2
            w1 = rng.random(x.shape) * 2
            for returned in (False, True):
                yield Case("moments", f"average weights 1-d axis={ax1} returned={returned} "
                           + lab, lambda m, a, ww, ax=ax1, r=returned:
                           m.average(a, axis=ax, weights=ww, returned=r), (x, w))
                yield Case("moments", f"average weights full axis={axis} returned={returned} "
                           + lab, lambda m, a, ww, ax=axis, r=returned, k=keep:
                           m.average(a, axis=ax, weights=ww, returned=r, keepdims=k), (x, w1))
            yield Case("moments", f"average axis={axis} " + lab,
                       lambda m, a, ax=axis: m.average(a, axis=ax), (x,))


# -- cases: nan-reductions, cumulative, counting -----------------------------------------------
def nan_cases(rng):
    for _ in range(10):
        dtype = pick(rng, (np.float32, np.float64, np.complex128, np.int64, np.bool_))
        x = rand(rng, rand_shape(rng), dtype, special=0.0)
        if x.dtype.kind in "fc" and x.size:
            x = np.where(rng.random(x.shape) < 0.35, np.nan, x).astype(x.dtype)
            if x.ndim >= 2:  # an all-NaN slice
                x[0] = np.nan
        axis = rand_axis(rng, x.ndim) if x.ndim else None
        keep = bool(rng.random() < 0.3)
        lab = f"{shape_dtype_label(x)} axis={axis} keepdims={keep}"
        for fname in ("nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd",
                      "sum", "prod", "min", "max", "mean", "ptp", "count_nonzero"):
            if fname in ("ptp", "nanmin", "nanmax", "min", "max") and dtype == np.complex128:
                continue
            yield Case("nan", f"{fname} " + lab,
                       lambda m, a, fn=fname, ax=axis, k=keep:
                       getattr(m, fn)(a, axis=ax, keepdims=k), (x,), vmap=x.ndim > 0)
        ax1 = None if not x.ndim or rng.random() < 0.3 else int(rng.integers(-x.ndim, x.ndim))
        for fname in ("nanargmin", "nanargmax", "argmin", "argmax"):
            if dtype == np.complex128:
                continue
            yield Case("nan", f"{fname} {shape_dtype_label(x)} axis={ax1}",
                       lambda m, a, fn=fname, ax=ax1: getattr(m, fn)(a, axis=ax), (x,))
        for fname in ("nancumsum", "nancumprod", "cumsum", "cumprod"):
            yield Case("cumulative", f"{fname} {shape_dtype_label(x)} axis={ax1}",
                       lambda m, a, fn=fname, ax=ax1: getattr(m, fn)(a, axis=ax), (x,),
                       vmap=x.ndim > 0)
        if x.ndim:
            axc = int(rng.integers(-x.ndim, x.ndim)) if x.ndim > 1 else pick(rng, (None, 0))
            for fname in ("cumulative_sum", "cumulative_prod"):
                for inc in (False, True):
                    yield Case("cumulative", f"{fname} include_initial={inc} "
                               f"{shape_dtype_label(x)} axis={axc}",
                               lambda m, a, fn=fname, ax=axc, i=inc:
                               getattr(m, fn)(a, axis=ax, include_initial=i), (x,))
        yield Case("cumulative", f"cumsum dtype=float32 {shape_dtype_label(x)}",
                   lambda m, a: m.cumsum(a, dtype=np.float32 if a.dtype.kind != "c"
                                         else np.complex64), (x,))
        for fname in ("argwhere", "flatnonzero", "nonzero"):
            yield Case("count", f"{fname} {shape_dtype_label(x)}",
                       lambda m, a, fn=fname: getattr(m, fn)(a), (x,), jit=False)
            size = int(rng.integers(0, 8))
            yield Case("count", f"{fname} size={size} fill_value=-2 {shape_dtype_label(x)}",
                       lambda m, a, fn=fname, s=size: getattr(m, fn)(a, size=s, fill_value=-2),
                       (x,), ref="jax", vmap=x.ndim > 0)
        yield Case("count", f"where(cond) {shape_dtype_label(x)}", lambda m, a: m.where(a), (x,),
                   jit=False)
        yield Case("count", f"count_nonzero axis={axis} {shape_dtype_label(x)}",
                   lambda m, a, ax=axis: m.count_nonzero(a, axis=ax), (x,))


# -- cases: histograms and counting --------------------------------------------------------------
def histogram_cases(rng):
    for _ in range(10):
        dtype = pick(rng, (np.float64, np.float32, np.int64))
        n = int(rng.integers(0, 40))
        x = rand(rng, (n,), dtype, special=0.0)
        if dtype == np.float64 and rng.random() < 0.3 and n:  # gridded data on bin edges
            x = np.linspace(0, 1, n)
        rng_ = pick(rng, (None, (0.0, 1.0), (-3.0, 3.0), (2, 2)))
        bins = pick(rng, (1, 3, 10, "auto", "fd", "doane", "scott", "stone", "rice",
                          "sturges", "sqrt", np.array([-2.0, 0.0, 0.5, 3.0])))
        density = pick(rng, (None, False, True))
        w = rng.random(n) if rng.random() < 0.4 else None
        lab = f"{shape_dtype_label(x)} bins={bins} range={rng_} density={density} " \
              f"weights={w is not None}"
        args = (x,) if w is None else (x, w)
        yield Case("histogram", "histogram " + lab,
                   lambda m, a, ww=None, b=bins, r=rng_, d=density:
                   m.histogram(a, bins=b, range=r, weights=ww, density=d), args)
        yield Case("histogram", "histogram_bin_edges " + lab,
                   lambda m, a, ww=None, b=bins, r=rng_:
                   m.histogram_bin_edges(a, bins=b, range=r, weights=ww), args,
                   jit=not isinstance(bins, str))
    for _ in range(6):
        n = int(rng.integers(0, 30))
        x, y = rand(rng, (n,), special=0.0), rand(rng, (n,), special=0.0)
        bins = pick(rng, (3, (2, 4), np.array([-2.0, 0.0, 1.0, 4.0]), [3, np.array([0., 1.])]))
        rng_ = pick(rng, (None, [(-1.0, 1.0), (-2.0, 2.0)]))
        density = pick(rng, (None, True))
        w = rng.random(n) if rng.random() < 0.4 else None
        args = (x, y) if w is None else (x, y, w)
        lab = f"n={n} bins={bins} range={rng_} density={density} weights={w is not None}"
        yield Case("histogram", "histogram2d " + lab,
                   lambda m, a, b, ww=None, bb=bins, r=rng_, d=density:
                   m.histogram2d(a, b, bins=bb, range=r, weights=ww, density=d), args)
        s = rand(rng, (n, 3), special=0.0)
        bins3 = pick(rng, (2, (2, 3, 1), [np.array([-1., 0., 1.]), 2, 3]))
        yield Case("histogram", f"histogramdd n={n} bins={bins3} density={density}",
                   lambda m, a, bb=bins3, d=density: m.histogramdd(a, bins=bb, density=d), (s,))
    for _ in range(8):
        n = int(rng.integers(0, 30))
        x = rng.integers(0, int(rng.integers(1, 12)), n).astype(pick(rng, (np.int32, np.int64)))
        minlength = int(rng.integers(0, 15))
        w = rand(rng, (n,), pick(rng, (np.float64, np.int64, np.float32)), special=0.0)
        yield Case("count", f"bincount minlength={minlength} {shape_dtype_label(x)}",
                   lambda m, a, ml=minlength: m.bincount(a, minlength=ml), (x,), jit=False)
        yield Case("count", f"bincount weights {shape_dtype_label(w)} {shape_dtype_label(x)}",
                   lambda m, a, ww, ml=minlength: m.bincount(a, ww, minlength=ml), (x, w),
                   jit=False)
        length = int(rng.integers(0, 15))
        yield Case("count", f"bincount length={length} {shape_dtype_label(x)}",
                   lambda m, a, ww, ln=length: m.bincount(a, ww, length=ln), (x, w), ref="jax",
                   vmap=n > 0)


# -- cases: covariance, convolutions, interpolation, differences ----------------------------------
def misc_cases(rng):
    for _ in range(8):
        dtype = pick(rng, (np.float64, np.float32, np.int64, np.complex128))
        nv, nobs = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        rowvar = bool(rng.random() < 0.5)
        shape = pick(rng, ((nv, nobs), (nobs,)))
        if not rowvar and len(shape) == 2:
            shape = shape[::-1]
        x = rand(rng, shape, dtype, special=0.0)
        bias = bool(rng.random() < 0.3)
        ddof = pick(rng, (None, 0, 2))
        fw = rng.integers(0, 4, nobs) if rng.random() < 0.4 else None
        aw = rng.random(nobs) if rng.random() < 0.4 else None
        y = rand(rng, shape, np.float64, special=0.0) if rng.random() < 0.3 else None
        lab = f"{shape_dtype_label(x)} rowvar={rowvar} bias={bias} ddof={ddof} " \
              f"fweights={fw is not None} aweights={aw is not None} y={y is not None}"
        yield Case("cov", "cov " + lab,
                   lambda m, a, yy=y, rv=rowvar, b=bias, d=ddof, f=fw, w=aw:
                   m.cov(a, yy, rowvar=rv, bias=b, ddof=d, fweights=f, aweights=w), (x,))
        yield Case("cov", "corrcoef " + lab,
                   lambda m, a, yy=y, rv=rowvar: m.corrcoef(a, yy, rowvar=rv), (x,))
    for _ in range(8):
        dtype = pick(rng, (np.float64, np.float32, np.int64, np.complex128))
        a = rand(rng, (int(rng.integers(1, 12)),), dtype, special=0.0)
        v = rand(rng, (int(rng.integers(1, 12)),), dtype, special=0.0)
        for fname in ("convolve", "correlate"):
            for mode in ("full", "same", "valid"):
                yield Case("conv", f"{fname} {mode} {shape_dtype_label(a)}*{v.shape}",
                           lambda m, a, v, fn=fname, mo=mode: getattr(m, fn)(a, v, mode=mo),
                           (a, v), vmap=True)
    for _ in range(8):
        n = int(rng.integers(1, 10))
        xp = np.sort(rng.random(n) * 10)
        if rng.random() < 0.3 and n > 2:
            xp[1] = xp[0]  # a repeated abscissa
        fp = rand(rng, (n,), pick(rng, (np.float64, np.complex128, np.int64)),
                  special=pick(rng, (0.0, 0.0, 0.3)))
        x = np.concatenate([rng.random(int(rng.integers(0, 8))) * 14 - 2, xp[:2],
                            [np.nan] if rng.random() < 0.3 else []])
        left, right = pick(rng, ((None, None), (-1.0, 5.0), (np.nan, None)))
        period = pick(rng, (None, None, 3.0))
        lab = f"n={n} fp={fp.dtype} left={left} right={right} period={period}"
        yield Case("interp", "interp " + lab,
                   lambda m, x, xp, fp, lf=left, rt=right, p=period:
                   m.interp(x, xp, fp, left=lf, right=rt, period=p), (x, xp, fp), vmap=True)
    for _ in range(10):
        dtype = pick(rng, (np.float64, np.float32, np.int64, np.bool_, np.complex128))
        x = rand(rng, rand_shape(rng, allow_empty=True), dtype, special=0.1)
        if x.ndim == 0:
            x = x.reshape(1)
        axis = int(rng.integers(-x.ndim, x.ndim))
        n = int(rng.integers(0, 4))
        pre = pick(rng, (None, 1.5, np.ones(1)))
        app = pick(rng, (None, -2))
        lab = f"{shape_dtype_label(x)} n={n} axis={axis} prepend={pre} append={app}"
        yield Case("diff", "diff " + lab,
                   lambda m, a, nn=n, ax=axis, p=pre, ap=app:
                   m.diff(a, n=nn, axis=ax, **_opt(prepend=p, append=ap)), (x,),
                   vmap=True)
        tb, te = pick(rng, (None, 3, np.array([1, 2]))), pick(rng, (None, -1))
        yield Case("diff", f"ediff1d to_begin={tb} to_end={te} {shape_dtype_label(x)}",
                   lambda m, a, b=tb, e=te: m.ediff1d(a, to_end=e, to_begin=b), (x,))
        if dtype != np.bool_:
            edge = pick(rng, (1, 2))
            spacing = pick(rng, ((), (0.5,), "coords"))
            ax = pick(rng, (None, axis))
            if spacing == "coords":
                n_ax = x.shape[ax if ax is not None else 0]
                spacing = (np.cumsum(rng.random(n_ax) + 0.1),) if ax is not None \
                    or x.ndim == 1 else ()
            lab2 = f"{shape_dtype_label(x)} edge_order={edge} axis={ax} spacing={spacing}"
            yield Case("diff", "gradient " + lab2,
                       lambda m, a, e=edge, ax=ax, sp=spacing:
                       m.gradient(a, *sp, axis=ax, edge_order=e), (x,))
            xs = np.cumsum(rng.random(x.shape[axis]))
            yield Case("diff", f"trapezoid x= {shape_dtype_label(x)} axis={axis}",
                       lambda m, a, xs, ax=axis: m.trapezoid(a, xs, axis=ax), (x, xs))
            yield Case("diff", f"trapezoid dx=0.3 {shape_dtype_label(x)} axis={axis}",
                       lambda m, a, ax=axis: m.trapezoid(a, dx=0.3, axis=ax), (x,),
                       vmap=True)


def _opt(**kw):
    return {k: v for k, v in kw.items() if v is not None}


# -- cases: selection, rounding, clipping -------------------------------------------------------
def select_cases(rng):
    for _ in range(8):
        dtype = pick(rng, (np.float64, np.float32, np.int64, np.int32, np.complex128))
        x = rand(rng, rand_shape(rng), dtype, special=0.1)
        cond = rng.random(x.shape) < 0.5
        lab = shape_dtype_label(x)
        yield Case("select", "extract " + lab, lambda m, c, a: m.extract(c, a), (cond, x),
                   jit=False)
        yield Case("select", "extract size=3 " + lab,
                   lambda m, c, a: m.extract(c, a, size=3, fill_value=0), (cond, x), ref="jax")
        vals = rand(rng, (int(rng.integers(1, 4)),), dtype, special=0.0)
        yield Case("select", "place " + lab, _place, (x, cond, vals))
        if x.ndim:
            ax = int(rng.integers(-x.ndim, x.ndim))
            c1 = rng.random(x.shape[ax]) < 0.5
            yield Case("select", f"compress axis={ax} " + lab,
                       lambda m, c, a, ax=ax: m.compress(c, a, axis=ax), (c1, x), jit=False)
        yield Case("select", "compress axis=None " + lab,
                   lambda m, c, a: m.compress(c, a), (cond.ravel()[:3], x), jit=False)
        c2 = rng.random(x.shape) < 0.3
        default = pick(rng, (0, -1.5))
        yield Case("select", "select " + lab,
                   lambda m, c1, c2, a, d=default: m.select([c1, c2], [a, a * 2], default=d),
                   (cond, c2, x), vmap=False)
        if dtype in FLOAT_DTYPES:
            yield Case("select", "piecewise " + lab,
                       lambda m, a: m.piecewise(a, [a < 0, a > 1], [lambda v: -v, 3.0,
                                                                   lambda v: v * 2]), (x,),
                       vmap=x.ndim > 0)
        for decimals in (0, 1, 3, -1, -2):
            yield Case("round", f"round decimals={decimals} " + lab,
                       lambda m, a, d=decimals: m.round(a, decimals=d), (x * 37.3
                                                                         if dtype != np.int32
                                                                         else x,))
        if dtype in FLOAT_DTYPES:  # whole numbers and halves to tens..thousands; scales
            # past the dtype's range (x itself is the answer; NumPy says inf or NaN)
            whole = np.round(x * 7919).astype(dtype) + dtype(0.5) * (np.abs(x) < 1)
            for decimals in (-1, -2, -3):
                yield Case("round", f"round whole decimals={decimals} " + lab,
                           lambda m, a, d=decimals: m.round(a, decimals=d), (whole,))
            for decimals in (39, 310, -400):
                yield Case("round", f"round decimals={decimals} " + lab,
                           lambda m, a, d=decimals: m.round(a, decimals=d), (x,),
                           ref_fun=lambda m, a, d=decimals: _python_round(a, d))
        yield Case("round", "around halves " + lab, lambda m, a: m.around(a, 1),
                   (np.array([0.25, 0.35, -0.45, 2.5, 1.05, 0.125], dtype)
                    if dtype in FLOAT_DTYPES else x,))
        if dtype != np.complex128:
            lo, hi = pick(rng, ((None, 1), (-1, None), (2, -2), (-1.5, 1.5),
                                (np.zeros(x.shape[-1:]) if x.ndim else 0, None)))
            yield Case("clip", f"clip min={lo} max={hi} " + lab,
                       lambda m, a, lo=lo, hi=hi: m.clip(a, lo, hi), (x,), vmap=x.ndim > 0)


def _python_round(a, decimals):
    """Python's float round is correctly rounded (an independent reference)."""
    a = np.asarray(a)
    out = np.array([round(float(v), decimals) if np.isfinite(v) else v for v in a.ravel()])
    return out.reshape(a.shape).astype(a.dtype)


def _place(m, a, mask, vals):
    if m is np:
        out = np.array(a)
        np.place(out, mask, vals)
        return out
    return m.place(a, mask, vals, inplace=False)


# -- cases: mixed dtypes (int arrays searched with floats, int weights, bool statistics) --------
def mixed_cases(rng):
    for _ in range(8):  # an int (or bool) array searched/digitized with float values
        a_dtype = pick(rng, (np.int32, np.int64, np.bool_, np.uint8))
        a = np.sort(rand(rng, (int(rng.integers(0, 12)),), a_dtype, ties=0.6))
        if a_dtype == np.uint8:
            a = np.sort(np.abs(a.astype(np.int64))).astype(np.uint8)
        v = rand(rng, rand_shape(rng, max_ndim=2), pick(rng, (np.float32, np.float64)),
                 special=0.2) * pick(rng, (1.0, 0.5, 1e9))
        if rng.random() < 0.5 and a.size:  # halves around the stored integers
            v = np.concatenate([np.ravel(v), a.astype(np.float64) + 0.5,
                                a.astype(np.float64) - 0.5]).astype(v.dtype)
        side = pick(rng, ("left", "right"))
        lab = f"a={shape_dtype_label(a)} v={shape_dtype_label(v)}"
        for method in ("scan", "sort", "compare_all"):
            yield Case("mixed", f"searchsorted {side} {method} " + lab,
                       lambda m, a, v, s=side, me=method: _searchsorted(m, a, v, s, me),
                       (a, v), vmap=v.ndim > 0)
        yield Case("mixed", f"searchsorted float a, int v {side} " + lab,
                   lambda m, v, a, s=side: m.searchsorted(m.sort(m.ravel(v)), a, side=s),
                   (v, a))
        right = bool(rng.random() < 0.5)
        yield Case("mixed", f"digitize int x float bins right={right} " + lab,
                   lambda m, a, v, r=right: m.digitize(a, np.sort(np.ravel(v)), right=r),
                   (a, v))
        yield Case("mixed", f"digitize float x int bins right={right} " + lab,
                   lambda m, a, v, r=right: m.digitize(v, a, right=r), (a, v),
                   vmap=False)
        yield Case("mixed", "isin int in float " + lab, lambda m, a, v: m.isin(a, v), (a, v))
        yield Case("mixed", "isin float in int " + lab, lambda m, a, v: m.isin(v, a), (a, v))
        yield Case("mixed", "intersect1d " + lab, lambda m, a, v: m.intersect1d(a, v), (a, v),
                   jit=False)
        yield Case("mixed", "union1d " + lab, lambda m, a, v: m.union1d(a, v), (a, v),
                   jit=False)
        yield Case("mixed", "setdiff1d " + lab, lambda m, a, v: m.setdiff1d(v, a), (a, v),
                   jit=False)
    for _ in range(8):  # integer weights and integer data
        dtype = pick(rng, (np.float32, np.float64, np.int32, np.int64, np.bool_))
        x = rand(rng, (int(rng.integers(1, 12)), int(rng.integers(1, 4))), dtype, special=0.0)
        w = rng.integers(0, 5, x.shape[0]).astype(pick(rng, (np.int32, np.int64, np.bool_)))
        if not w.any():
            w[0] = 1
        lab = f"x={shape_dtype_label(x)} w={shape_dtype_label(w)}"
        for returned in (False, True):
            yield Case("mixed", f"average int weights returned={returned} " + lab,
                       lambda m, a, ww, r=returned: m.average(a, axis=0, weights=ww, returned=r),
                       (x, w))
        xi = rng.integers(0, 6, x.shape[0]).astype(pick(rng, (np.int32, np.int64, np.uint8)))
        yield Case("mixed", "bincount int weights " + lab,
                   lambda m, a, ww: m.bincount(a, ww), (xi, w), jit=False)
        yield Case("mixed", "histogram int weights " + lab,
                   lambda m, a, ww: m.histogram(a[:, 0], bins=4, weights=ww), (x, w))
        yield Case("mixed", "histogram int weights density " + lab,
                   lambda m, a, ww: m.histogram(a[:, 0], bins=3, weights=ww, density=True),
                   (x, w))
        yield Case("mixed", "cov fweights int " + lab,
                   lambda m, a, ww: m.cov(a, rowvar=False, fweights=ww), (x, w))
        yield Case("mixed", "cov aweights int " + lab,
                   lambda m, a, ww: m.cov(a, rowvar=False, aweights=ww), (x, w))
        yield Case("mixed", "quantile int weights " + lab,
                   lambda m, a, ww: m.quantile(a[:, 0], 0.4, method="inverted_cdf",
                                               weights=ww), (x, w))
    for _ in range(6):  # booleans (and small ints) as data for statistics
        dtype = pick(rng, (np.bool_, np.bool_, np.uint8, np.int8, np.int16))
        x = rand(rng, rand_shape(rng), dtype)
        axis = rand_axis(rng, x.ndim) if x.ndim else None
        lab = f"{shape_dtype_label(x)} axis={axis}"
        for fname in ("mean", "var", "std", "nanmean", "nanvar", "nanstd", "sum", "prod",
                      "median", "nanmedian", "ptp", "cumsum", "cumprod", "average"):
            if fname in ("cumsum", "cumprod") and isinstance(axis, tuple):
                continue
            if fname == "ptp" and dtype == np.bool_:
                continue  # NumPy subtracts booleans (TypeError)
            yield Case("mixed", f"{fname} " + lab,
                       lambda m, a, fn=fname, ax=axis: getattr(m, fn)(a, axis=ax), (x,),
                       vmap=x.ndim > 0 and not isinstance(axis, tuple) and axis is not None)
        for q in (0.3, 0.5):
            for method in ("linear", "lower", "nearest", "midpoint", "higher"):
                yield Case("mixed", f"quantile q={q} {method} " + lab,
                           lambda m, a, q=q, me=method, ax=axis: m.quantile(a, q, axis=ax,
                                                                           method=me), (x,))
        if x.ndim:
            yield Case("mixed", "histogram " + lab,
                       lambda m, a: m.histogram(a.astype(m.float32), bins=3), (x,))
            yield Case("mixed", "corrcoef " + lab,
                       lambda m, a: m.corrcoef(a.reshape(a.shape[0], -1), rowvar=False), (x,))


AREAS = {"sort": sort_cases, "unique": unique_cases, "quantile": quantile_cases,
         "nan": nan_cases, "histogram": histogram_cases, "misc": misc_cases,
         "select": select_cases, "mixed": mixed_cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--areas", default=",".join(AREAS))
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--kept", action="store_true", help="print kept differences too")
    parser.add_argument("--x32", action="store_true", help="x64 off in tjit and JAX")
    args = parser.parse_args()
    print(f"x64 {'on' if X64 else 'off'}; tjit vs NumPy {np.__version__}" + (f", JAX {jax.__version__}" if jax else
                                                ", JAX not installed"))
    table = {}
    for area in args.areas.split(","):
        cases = bad = kept = 0
        for rep in range(args.reps):
            rng = np.random.default_rng([args.seed, rep, len(area)])
            for case in AREAS[area](rng):
                cases += 1
                try:
                    problems = check_case(case)
                except Exception:  # noqa: BLE001 - a crash of the harness is reported
                    problems = [("harness", traceback.format_exc(limit=3), False)]
                real = [p for p in problems if not p[2]]
                bad += bool(real)
                kept += bool(problems) and not real
                for kind, detail, is_kept in problems:
                    if args.verbose and (not is_kept or args.kept):
                        tag = " (kept: JAX agrees with tjit)" if is_kept else ""
                        print(f"  [{case.area}] {case.label}: {kind}: {detail}{tag}")
        table[area] = (cases, bad, kept)
    print(f"{'area':<12}{'cases':>7}{'disagree':>10}{'kept':>6}")
    for area, (cases, bad, kept) in table.items():
        print(f"{area:<12}{cases:>7}{bad:>10}{kept:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
