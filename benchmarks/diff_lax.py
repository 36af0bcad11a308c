"""Differential hunt: the ``tjit.lax`` surface a JAX user calls directly (gather/scatter
with general dimension numbers, dynamic slices, sort/top_k, reduce, arg reductions,
scans, bit ops, rounding, casts, dot_general, structural ops, special functions) run
eagerly, under ``jit`` and ``jit(backend="interpreter")``, against JAX (a second opinion)
and NumPy float64 definitions; vmap against a Python loop and gradients against central
differences in float64 (``--x64``). A comparison tool, not a test (CI has no JAX).

    python benchmarks/diff_lax.py [--cases N] [--seed S] [--x64] [--only AREA,...]
        [--no-jax]

Prints one line per disagreement (area, case, tjit mode, the two results) and a table
of areas x cases x disagreements.

Known differences kept on purpose (tjit follows the documented semantics):
  - lax.top_k ranks -0.0 equal to 0.0 (ties by index) and every NaN above +inf, as
    lax.sort does (JAX's sort canonicalizes zeros and NaNs the same way); JAX's top_k
    (XLA's TopK, a total order on the bits) puts 0.0 above -0.0 and -NaN last. The hunt
    feeds top_k canonical zeros and NaNs.
  - dynamic_slice/dynamic_update_slice with an unsigned start >= 2**31 (uint8 >= 128 in
    places), and gather 'fill' with int64/uint64 indices beyond int64: tjit clamps or
    fills by the index's value (StableHLO's definition); JAX first casts the index to a
    signed type, so 2**32 - 1 reads the first window and 2**63 reads index 0. The hunt
    checks dynamic slices against the clamp by definition.
  - lax.reduce with an init value that is not the computation's identity: StableHLO
    leaves how often the init value enters implementation-defined; tjit applies it once
    per output element, JAX/XLA not at all over size-1 or empty reduced dims.
  - lax.reduce/cummax/cummin accept a Python float init (weak, also under x64) or bool
    operands that JAX rejects; argmax/argmin take complex operands (NumPy's lexicographic
    order); lax functions take negative axes (rev, reduce, argmax, cumsum, concatenate,
    broadcasted_iota, dot_general) that JAX rejects, counted from the end as NumPy does.
  - digamma at -0.0/+0.0 is +inf/-inf (SciPy's limits); JAX gives NaN.
  - the gradient of lax.pad with respect to the padding value alone: JAX raises a
    TypeError (its transpose sums a symbolic zero); tjit's agrees with central
    differences (checked under --x64).
  - scatter with empty index vectors (every window at the origin): tjit combines all the
    windows (NumPy's sum/product over them); JAX 0.10.2 on the CPU applies only the last.
  - the gradient of reduce_precision is the tangent rounded alike (JAX's rule), not the
    zero of a finite difference of a step function.
"""

import argparse
import collections
import sys
import traceback
import warnings

import numpy as np

warnings.filterwarnings("ignore")

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


class Lib:
    """The modules one side of the comparison runs a case with."""

    def __init__(self, name, jax, jnp, lax):
        self.name, self.jax, self.jnp, self.lax = name, jax, jnp, lax


def _libs(x64, with_jax):
    import tjit
    import tjit.numpy as tjnp
    from tjit import lax as tlax
    tjit.config.update("jax_enable_x64", x64)
    t = Lib("tjit", tjit, tjnp, tlax)
    if not with_jax:
        return None, t
    try:
        import jax
        import jax.numpy as jjnp
        from jax import lax as jlax
    except ImportError:
        return None, t
    jax.config.update("jax_enable_x64", x64)
    jax.config.update("jax_platforms", "cpu")
    return Lib("jax", jax, jjnp, jlax), t


# -- running and comparing -----------------------------------------------------------------
def _run(lib, fn, args, mode):
    """``fn(lib, *args)`` in ``mode`` ('eager', 'jit', 'interp', 'vmap', 'loop');
    (value, None) or (None, error)."""
    try:
        if mode == "eager":
            out = fn(lib, *[lib.jnp.asarray(a) for a in args])
        elif mode == "jit":
            out = lib.jax.jit(lambda *a: fn(lib, *a))(*args)
        elif mode == "interp":
            out = lib.jax.jit(lambda *a: fn(lib, *a), backend="interpreter")(*args)
        elif mode == "vmap":
            out = lib.jax.jit(lib.jax.vmap(lambda *a: fn(lib, *a)))(*args)
        else:  # 'loop': the vmap reference, one call per batch row, stacked
            rows = [fn(lib, *[lib.jnp.asarray(a[i]) for a in args])
                    for i in range(len(args[0]))]
            out = lib.jax.tree_util.tree_map(lambda *r: np.stack([np.asarray(x) for x in r]),
                                             *rows)
        return lib.jax.tree_util.tree_map(np.asarray, out), None
    except Exception as e:  # noqa: BLE001 (a raise is a result to compare)
        return None, e


def _leaves(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def _same(a, b, tol, check_dtype=True):
    la, lb = _leaves(a), _leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or (check_dtype and x.dtype != y.dtype):
            return False
        if x.dtype.kind in "fcV" or y.dtype.kind in "fc":
            x, y = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), \
                y.astype(np.complex128 if y.dtype.kind == "c" else np.float64)
            if tol:
                if not np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True):
                    return False
            elif not np.array_equal(x, y, equal_nan=True):
                return False
            # signed zeros count where exact
            if not tol and x.dtype.kind == "f" and not np.array_equal(np.signbit(x),
                                                                      np.signbit(y)):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _short(v):
    if isinstance(v, Exception):
        return f"{type(v).__name__}: {str(v)[:200]}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    v = np.asarray(v)
    return f"{v.dtype}{list(v.shape)} {np.array2string(v.ravel()[:12], threshold=12)}"


def _where(want, got):
    for w, g in zip(_leaves(want), _leaves(got)):
        w, g = np.asarray(w), np.asarray(g)
        if w.shape != g.shape:
            return f"shapes differ {w.shape} vs {g.shape}"
        if w.dtype != g.dtype:
            return f"dtypes differ: {w.dtype} vs {g.dtype}"
        with np.errstate(all="ignore"):
            bad = np.argwhere(~((w == g) | (w != w) & (g != g)))[:4]
        if len(bad):
            return "; ".join(f"at {tuple(p)} ref={w[tuple(p)]!r} tjit={g[tuple(p)]!r}"
                             for p in bad)
    return ""


class Tally:
    def __init__(self):
        self.cases = collections.Counter()
        self.bad = collections.Counter()
        self.seen = collections.Counter()
        self.raised = collections.Counter()

    def _report(self, area, desc, mode, want, got):
        self.bad[area] += 1
        key = (area, desc.split("|")[0], mode)
        self.seen[key] += 1
        if self.seen[key] <= SHOW:
            print(f"[{area}] {desc} ({mode})\n   ref : {_short(want)}\n   tjit: {_short(got)}",
                  flush=True)
            if not isinstance(want, Exception) and not isinstance(got, Exception):
                print("   " + _where(want, got), flush=True)
            if VERBOSE and isinstance(got, Exception):
                traceback.print_exception(got)

    def check(self, area, desc, fn, args, modes=("eager", "jit", "interp"), tol=0.0,
              ref=None, jax_mode="jit", vmap=True, check_dtype=True):
        """tjit's ``fn`` in ``modes`` against ``ref`` (a NumPy result) when given, else
        JAX's ``fn``; with ``vmap``, tjit's vmap over a batch of 3 against its loop."""
        jlib, tlib = LIBS
        if ref is not None:
            want, werr = ref, None
        elif jlib is not None:
            want, werr = _run(jlib, fn, args, jax_mode)
        else:
            want, werr = _run(tlib, fn, args, "interp")
            modes = tuple(m for m in modes if m != "interp")
        for mode in modes:
            self.cases[area] += 1
            got, gerr = _run(tlib, fn, args, mode)
            if werr is not None and gerr is not None:
                self.raised[area] += 1
                continue
            if werr is None and gerr is None and _same(want, got, tol, check_dtype):
                continue
            self._report(area, desc, mode, werr or want, gerr or got)
        if vmap and werr is None:
            self.check_vmap(area, desc, fn, args, tol)

    def check_vmap(self, area, desc, fn, args, tol):
        """vmap over 3 rows (the args and two reshuffles of their values: index arrays
        stay in their range) against a Python loop: once with every arg batched on axis
        0, once with a random subset batched on random axes (the rest unbatched)."""
        rng = np.random.default_rng(len(desc))
        tl = LIBS[1]
        for variant in ("all", "mixed"):
            if variant == "mixed" and not args:
                continue
            axes, batched = [], []
            for a in args:
                a = np.asarray(a)
                ax = 0 if variant == "all" else [None, 0, -1][int(rng.integers(0, 3))]
                if ax is None:
                    axes.append(None)
                    batched.append(a)
                    continue
                rows = [a, rng.permutation(a.ravel()).reshape(a.shape), a[::-1] if a.ndim
                        else a]
                axes.append(ax if ax == 0 else a.ndim)
                batched.append(np.stack(rows, axis=axes[-1]))
            if all(ax is None for ax in axes):
                axes[0] = 0
                batched[0] = np.stack([np.asarray(args[0])] * 3)
            try:
                rows = [fn(tl, *[tl.jnp.asarray(a if ax is None else np.take(a, b, axis=ax))
                                 for a, ax in zip(batched, axes)]) for b in range(3)]
                want = tl.jax.tree_util.tree_map(
                    lambda *r: np.stack([np.asarray(x) for x in r]), *rows)
            except Exception:  # noqa: BLE001 (no reference)
                continue
            self.cases[area + ".vmap"] += 1
            try:
                got = tl.jax.jit(tl.jax.vmap(lambda *a: fn(tl, *a), in_axes=tuple(axes)))(
                    *batched)
                got, gerr = tl.jax.tree_util.tree_map(np.asarray, got), None
            except Exception as e:  # noqa: BLE001
                got, gerr = None, e
            if gerr is None and _same(want, got, tol):
                continue
            self._report(area + ".vmap", f"{desc} in_axes={axes}", "vmap", want, gerr or got)

    def check_grad(self, area, desc, fn, args, argnums=(0,), tol=1e-4, eps=None, fd=True,
                   vs_jax=True):
        """grad of ``sum(fn(*args) * w)`` against JAX's grad, and (x64) against central
        differences in float64."""
        jlib, tlib = LIBS
        rng = np.random.default_rng(len(desc))
        out = np.asarray(_run(tlib, fn, args, "eager")[0])
        w = rng.standard_normal(out.shape).astype(out.dtype)

        def loss(L, *a):
            def s(*d):
                full = list(a)
                for n, v in zip(argnums, d):
                    full[n] = v
                return L.jnp.sum(fn(L, *full) * w)
            return L.jax.grad(s, argnums=tuple(range(len(argnums))))(*[a[n] for n in argnums])
        if jlib is not None and vs_jax:
            self.check(area + ".grad", desc, loss, args, modes=("eager", "jit"), tol=tol,
                       vmap=False)
        if not fd or not X64 or any(np.asarray(args[n]).dtype != np.float64 for n in argnums):
            return
        self.cases[area + ".fd"] += 1
        got, gerr = _run(tlib, loss, args, "jit")
        if gerr is not None:
            self._report(area + ".fd", desc, "jit", "finite differences", gerr)
            return
        fd = []
        for n in argnums:
            a0 = np.asarray(args[n], np.float64)
            g = np.zeros_like(a0)
            for i in np.ndindex(a0.shape):
                h = eps or 1e-6 * max(1.0, abs(a0[i]))
                vals = []
                for sgn in (1, -1):
                    a = list(args)
                    b = a0.copy()
                    b[i] += sgn * h
                    a[n] = b
                    vals.append(float(np.sum(np.asarray(_run(tlib, fn, a, "eager")[0]) * w)))
                g[i] = (vals[0] - vals[1]) / (2 * h)
            fd.append(g)
        if not _same(fd, got, tol):
            self._report(area + ".fd", desc, "jit", fd, got)


def _rand_shape(rng, rank, lo=1, hi=5):
    return tuple(int(s) for s in rng.integers(lo, hi, size=rank))


def _f32(rng, shape, scale=3.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# -- gather / scatter ----------------------------------------------------------------------
def _rand_gather(rng):
    """A random lax.gather with batching dims, collapsed dims and offset dims placed
    anywhere in the output: (operand, indices, dnums kwargs, slice_sizes)."""
    rank = int(rng.integers(1, 5))
    shape = _rand_shape(rng, rank, 1, 5)
    dims = [int(d) for d in rng.permutation(rank)]
    nbatch = int(rng.integers(0, min(2, rank - 1) + 1)) if rank > 1 else 0
    op_batch = sorted(dims[:nbatch])
    rest = dims[nbatch:]
    k = int(rng.integers(0, len(rest) + 1))
    index_map = rest[:k]
    collapsed = sorted(d for d in index_map if rng.random() < 0.6)
    slice_sizes = []
    for d in range(rank):
        if d in op_batch or d in collapsed:
            slice_sizes.append(1)
        else:
            slice_sizes.append(int(rng.integers(0, shape[d] + 1)))
    # index batch dims: free ones plus one per operand batching dim, in random order
    nfree = int(rng.integers(0, 3))
    ib_rank = nfree + nbatch
    ib_positions = [int(p) for p in rng.permutation(ib_rank)]
    start_batch = ib_positions[:nbatch]
    bshape = [int(rng.integers(1, 4)) for _ in range(ib_rank)]
    for od, p in zip(op_batch, start_batch):
        bshape[p] = shape[od]
    idx = np.stack([rng.integers(-2, shape[d] + 3, size=bshape) for d in index_map], -1) \
        if k else np.zeros(bshape + [0], np.int64)
    idt = ["int32", "int8", "uint8", "int16", "int64"][int(rng.integers(0, 5))]
    if idt == "uint8":
        idx = np.abs(idx)
    idx = idx.astype(idt)
    n_offset = sum(1 for d in range(rank) if d not in collapsed and d not in op_batch)
    out_rank = ib_rank + n_offset
    offset_dims = sorted(int(d) for d in rng.permutation(out_rank)[:n_offset])
    x = _f32(rng, shape)
    dn = dict(offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
              start_index_map=tuple(index_map), operand_batching_dims=tuple(op_batch),
              start_indices_batching_dims=tuple(start_batch))
    return x, idx, dn, tuple(slice_sizes)


def hunt_gather_scatter(t, rng, n):
    for _ in range(n):
        x, idx, dn, ss = _rand_gather(rng)
        mode = ["clip", "fill", "promise_in_bounds", None][int(rng.integers(0, 4))]
        flags = dict(unique_indices=bool(rng.random() < 0.3),
                     indices_are_sorted=bool(rng.random() < 0.3))
        fill = None if mode != "fill" or rng.random() < 0.5 else -5.0
        d = f"x{list(x.shape)} idx{idx.dtype}{list(idx.shape)}{idx.ravel().tolist()[:6]} " \
            f"{dn} ss={ss} mode={mode} fill={fill} {flags}"
        inb = mode in ("promise_in_bounds", None)
        if inb:  # out of bounds is implementation-defined there: keep indices in bounds
            idx = _clip_in_bounds(idx, x.shape, dn["start_index_map"], ss)

        def g(L, x, i):
            return L.lax.gather(x, i, L.lax.GatherDimensionNumbers(**dn), ss, mode=mode,
                                fill_value=fill, **flags)
        t.check("gather", "gather|" + d, g, (x, idx))
        if x.size and mode != "fill" and not flags["unique_indices"]:
            t.check_grad("gather", "gather|" + d, g, (x.astype(_FT), idx))
        jl = LIBS[0] or LIBS[1]
        try:
            y = np.asarray(g(jl, jl.jnp.asarray(x), jl.jnp.asarray(idx)))
        except Exception:  # noqa: BLE001
            continue
        upd = _f32(rng, y.shape)
        sdn = dict(update_window_dims=dn["offset_dims"],
                   inserted_window_dims=dn["collapsed_slice_dims"],
                   scatter_dims_to_operand_dims=dn["start_index_map"],
                   operand_batching_dims=dn["operand_batching_dims"],
                   scatter_indices_batching_dims=dn["start_indices_batching_dims"])
        smode = ["clip", "drop", None, "fill", "promise_in_bounds"][int(rng.integers(0, 5))]
        sidx = idx if smode != "promise_in_bounds" else _clip_in_bounds(
            idx, x.shape, dn["start_index_map"], ss)
        for name in ("scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
                     "scatter_max", "scatter"):
            if name == "scatter" and not _windows_unique(sidx, x.shape, sdn, ss, smode):
                continue  # (overlapping windows: any one of the values)

            def s(L, x, i, u, name=name):
                return getattr(L.lax, name)(x, i, u, L.lax.ScatterDimensionNumbers(**sdn),
                                            mode=smode, **flags)
            if not dn["start_index_map"] and not dn["operand_batching_dims"] and \
                    np.prod(idx.shape[:-1]) > 1:
                continue  # (all windows at the origin: JAX keeps the last; see docstring)
            t.check("scatter", f"{name}|{d} smode={smode}", s, (x, sidx, upd), tol=1e-5)
            if name in ("scatter_add", "scatter_sub", "scatter") and x.size:
                t.check_grad("scatter", f"{name}|{d} smode={smode}", s,
                             (x.astype(_FT), sidx, upd.astype(_FT)), argnums=(0, 2))


def _clip_in_bounds(idx, shape, index_map, ss):
    idx = idx.astype(np.int64)
    for j, d in enumerate(index_map):
        idx[..., j] = np.clip(idx[..., j], 0, shape[d] - ss[d])
    return idx.astype(np.int32)


def _windows_unique(idx, shape, sdn, ss, mode):
    """Whether no operand element is written by two windows (scatter-set is then
    deterministic). Conservative: every window's clamped start set must be distinct and
    windows must not overlap."""
    idx = np.asarray(idx).astype(np.int64)
    if idx.size == 0 or mode == "drop" or mode is None or mode == "fill":
        # in-bounds windows only count; treat any out-of-bounds as possibly dropped
        pass
    nb = idx.shape[:-1]
    covered = np.zeros(shape, np.int64)
    bdims = sdn["scatter_indices_batching_dims"]
    obdims = sdn["operand_batching_dims"]
    for pos in np.ndindex(nb):
        start = [0] * len(shape)
        for j, d in enumerate(sdn["scatter_dims_to_operand_dims"]):
            start[d] = int(idx[pos + (j,)])
        for od, bd in zip(obdims, bdims):
            start[od] = pos[bd]
        inb = all(0 <= start[d] <= shape[d] - ss[d] for d in range(len(shape)))
        if mode in ("clip", "promise_in_bounds"):
            start = [min(max(s, 0), shape[d] - ss[d]) for d, s in enumerate(start)]
        elif not inb:
            continue
        sl = tuple(slice(s, s + ss[d]) for d, s in enumerate(start))
        covered[sl] += 1
    return bool((covered <= 1).all())


def hunt_dynamic(t, rng, n):
    for _ in range(n):
        shape = _rand_shape(rng, int(rng.integers(1, 4)), 0, 5)
        x = _f32(rng, shape)
        sizes = [int(rng.integers(0, s + 1)) for s in shape]
        idt = ["int8", "int32", "uint8", "int64", "uint32", "int16"][int(rng.integers(0, 6))]
        starts = [np.array(int(rng.integers(-s - 4, s + 5)), np.int64) for s in shape]
        starts = [np.abs(s).astype(idt) if idt[0] == "u" else s.astype(idt) for s in starts]
        if idt in ("uint32", "int32", "uint8", "int8") + (("int64",) if X64 else ()) and \
                rng.random() < 0.3:  # (without x64 an int64 argument becomes int32)
            # the type's extremes (JAX wraps uint32 >= 2**31 to negative: the reference is
            # the clamp by definition then)
            info = np.iinfo(idt)
            k = int(rng.integers(0, len(shape)))
            starts[k] = np.array(rng.choice([info.min, info.max, info.max // 2 + 1,
                                             min(2 ** 32, info.max)]), idt)
        ann = bool(rng.random() < 0.3)
        kw = {"allow_negative_indices": False} if ann else {}
        d = f"x{list(shape)} starts={[int(s) for s in starts]}({idt}) sizes={sizes} {kw}"
        ks = [_window_start(int(s), n_, z, idt[0] == "i" and not ann)
              for s, n_, z in zip(starts, shape, sizes)]
        window = tuple(slice(k, k + z) for k, z in zip(ks, sizes))
        t.check("dynamic", "dynamic_slice|" + d,
                lambda L, x, *s: L.lax.dynamic_slice(x, s, sizes, **kw), (x,) + tuple(starts),
                ref=x[window])
        u = _f32(rng, sizes)
        xu = x.copy()
        xu[window] = u
        t.check("dynamic", "dynamic_update_slice|" + d,
                lambda L, x, u, *s: L.lax.dynamic_update_slice(x, u, s, **kw),
                (x, u) + tuple(starts), ref=xu)
        ax = int(rng.integers(0, len(shape)))
        keep = bool(rng.random() < 0.5)
        if shape[ax]:
            t.check("dynamic", "dynamic_index_in_dim|" + d + f" ax={ax} keep={keep}",
                    lambda L, x, s: L.lax.dynamic_index_in_dim(x, s, ax, keepdims=keep),
                    (x, starts[ax]))
            ui = _f32(rng, shape[:ax] + (1,) + shape[ax + 1:])
            t.check("dynamic", "dynamic_update_index_in_dim|" + d + f" ax={ax}",
                    lambda L, x, u, s: L.lax.dynamic_update_index_in_dim(x, u, s, ax),
                    (x, ui, starts[ax]))
        t.check("dynamic", "dynamic_slice_in_dim|" + d + f" ax={ax}",
                lambda L, x, s: L.lax.dynamic_slice_in_dim(x, s, sizes[ax], ax),
                (x, starts[ax]))
        if x.size and all(sizes):
            t.check_grad("dynamic", "dynamic_slice|" + d,
                         lambda L, x, *s: L.lax.dynamic_slice(x, s, sizes),
                         (x.astype(_FT),) + tuple(starts))
            t.check_grad("dynamic", "dynamic_update_slice|" + d,
                         lambda L, x, u, *s: L.lax.dynamic_update_slice(x, u, s),
                         (x.astype(_FT), u.astype(_FT)) + tuple(starts), argnums=(0, 1))


def _window_start(start, n, size, negative_from_end):
    """lax.dynamic_slice's start by definition: negatives count from the end (signed
    types, allow_negative_indices), then clamped into [0, n - size]."""
    if negative_from_end and start < 0:
        start += n
    return min(max(start, 0), n - size)


# -- sort / top_k / reductions -------------------------------------------------------------
def _special_floats(rng, shape, dtype=np.float32):
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5],
                    np.float64)
    v = np.where(rng.random(shape) < 0.5, rng.choice(pool, size=shape),
                 np.round(rng.standard_normal(shape) * 2))
    return v.astype(dtype)


def hunt_sort(t, rng, n):
    for _ in range(n):
        shape = _rand_shape(rng, int(rng.integers(1, 4)), 0, 6)
        nops = int(rng.integers(1, 4))
        dts = [["float32", "int32", "uint8", "bool", "int8", "float16"][
            int(rng.integers(0, 6))] for _ in range(nops)]
        ops = []
        for dt in dts:
            if dt in ("float32", "float16"):
                ops.append(_special_floats(rng, shape, dt))
            elif dt == "bool":
                ops.append(rng.random(shape) < 0.5)
            else:
                ops.append(rng.integers(0, 4, size=shape).astype(dt))
        dim = int(rng.integers(-len(shape), len(shape)))
        nk = int(rng.integers(1, nops + 1))
        stable = bool(rng.random() < 0.7)
        d = f"{[f'{o.dtype}{list(o.shape)}' for o in ops]} dim={dim} num_keys={nk} " \
            f"stable={stable}"

        def f(L, *o):
            return L.lax.sort(tuple(o), dimension=dim, is_stable=stable, num_keys=nk)
        if stable:
            t.check("sort", "sort|" + d, f, tuple(ops))
        else:
            # unstable: only the keys are defined (values may come in any tie order)
            t.check("sort", "sort_unstable|" + d, lambda L, *o: f(L, *o)[:nk], tuple(ops))
        t.check("sort", "sort1|" + d,
                lambda L, o: L.lax.sort(o, dimension=dim, is_stable=stable), (ops[0],))
        if nops >= 2:
            t.check("sort", "sort_key_val|" + d,
                    lambda L, k, v: L.lax.sort_key_val(k, v, dimension=dim), tuple(ops[:2]))
        if shape and shape[-1] >= 0:
            x = ops[0] if ops[0].dtype != bool else ops[0].astype(np.int32)
            if x.dtype.kind == "f":  # -0.0 and -NaN: see the module docstring
                x = np.where(x == 0, 0, np.where(np.isnan(x), np.nan, x)).astype(x.dtype)
            for k in sorted({0, min(1, shape[-1]), shape[-1]}):
                t.check("top_k", f"top_k|{x.dtype}{list(x.shape)} k={k}",
                        lambda L, a, k=k: L.lax.top_k(a, k), (x,))
            tax = int(rng.integers(-len(shape), len(shape)))
            t.check("top_k", f"top_k_axis|{x.dtype}{list(x.shape)} axis={tax}",
                    lambda L, a: L.lax.top_k(a, min(2, shape[tax]), axis=tax), (x,))
        if ops[0].dtype.kind == "f" and np.isfinite(ops[0]).all() and ops[0].size:
            t.check_grad("sort", "sort|" + d, lambda L, a: L.lax.sort(a, dimension=dim),
                         (np.unique(rng.standard_normal(ops[0].size)).reshape(shape)
                          .astype(_FT) if True else None,))


def hunt_reduce(t, rng, n):
    for _ in range(n):
        shape = _rand_shape(rng, int(rng.integers(1, 4)), 0, 5)
        nd = len(shape)
        dims = tuple(sorted(int(d) for d in rng.permutation(nd)[:int(rng.integers(0, nd + 1))]))
        x = _f32(rng, shape)
        xi = rng.integers(-5, 6, size=shape).astype(np.int32)
        d = f"x{list(shape)} dims={dims}"
        t.check("reduce", "reduce_add|" + d,
                lambda L, a: L.lax.reduce(a, np.float32(0), L.lax.add, dims), (x,), tol=1e-5)
        t.check("reduce", "reduce_lambda_max|" + d,
                lambda L, a: L.lax.reduce(a, np.float32(-np.inf), lambda p, q: L.lax.max(p, q),
                                          dims),
                (x,))
        t.check("reduce", "reduce_mul_int|" + d,
                lambda L, a: L.lax.reduce(a, np.int32(1), L.lax.mul, dims), (xi,))
        t.check("reduce", "reduce_and|" + d,
                lambda L, a: L.lax.reduce(a > 0, True, L.lax.bitwise_and, dims), (x,))
        if dims and all(shape[k] > 1 for k in dims):  # (else implementation-defined)
            t.check("reduce", "reduce_init7|" + d,
                    lambda L, a: L.lax.reduce(a, np.float32(7), L.lax.add, dims), (x,),
                    tol=1e-5)

        # two operands: argmax-style (value, index) pairs
        def argmax_pair(L, a):
            idx = L.lax.broadcasted_iota(np.int32, a.shape, dims[0] if dims else 0)

            def comb(p, q):
                (pv, pi), (qv, qi) = p, q
                take_p = (pv > qv) | ((pv == qv) & (pi < qi))
                return L.lax.select(take_p, pv, qv), L.lax.select(take_p, pi, qi)
            return L.lax.reduce((a, idx), (np.float32(-np.inf), np.int32(-1)), comb, dims)
        t.check("reduce", "reduce_pair|" + d, argmax_pair, (x,))
        if x.size:
            t.check_grad("reduce", "reduce_add|" + d,
                         lambda L, a: L.lax.reduce(a, 0.0, L.lax.add, dims), (x.astype(_FT),))
        if nd:
            ax = int(rng.integers(0, nd))
            xs = _special_floats(rng, shape)
            for idt in ("int32", "int8", "uint8", "int16"):
                for name in ("argmax", "argmin"):
                    if shape[ax]:
                        t.check("argminmax", f"{name}|x{list(shape)} ax={ax} {idt}",
                                lambda L, a, name=name, idt=idt: getattr(L.lax, name)(
                                    a, ax, getattr(L.jnp, idt)), (xs,))
            for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
                rev = bool(rng.random() < 0.5)
                for a in (x, xi, xs) if name != "cumlogsumexp" else (x, xs):
                    t.check("cumulative", f"{name}|{a.dtype}{list(shape)} ax={ax} rev={rev}",
                            lambda L, a, name=name, rev=rev: getattr(L.lax, name)(
                                a, axis=ax, reverse=rev), (a,), tol=1e-5)
                if x.size:
                    t.check_grad("cumulative", f"{name}|{list(shape)} ax={ax} rev={rev}",
                                 lambda L, a, name=name, rev=rev: getattr(L.lax, name)(
                                     a, axis=ax, reverse=rev), (x.astype(_FT) * 0.3,),
                                 tol=1e-3)
            rev = bool(rng.random() < 0.5)
            t.check("assoc_scan", f"assoc_scan_add|{list(shape)} ax={ax} rev={rev}",
                    lambda L, a: L.lax.associative_scan(L.lax.add, a, reverse=rev, axis=ax),
                    (x,), tol=1e-5)

            def affine(L, a, b):  # non-commutative: (a1,b1)∘(a2,b2) = (a1 a2, a2 b1 + b2)
                return L.lax.associative_scan(
                    lambda p, q: (p[0] * q[0], q[0] * p[1] + q[1]), (a, b), reverse=rev,
                    axis=ax)
            t.check("assoc_scan", f"assoc_scan_affine|{list(shape)} ax={ax} rev={rev}",
                    affine, (x * 0.3, _f32(rng, shape)), tol=1e-4)
            ab = (x * 0.3, _f32(rng, shape))
            t.check("assoc_scan", f"assoc_scan_affine_np|{list(shape)} ax={ax} rev={rev}",
                    affine, ab, tol=1e-4, ref=_affine_ref(*ab, ax, rev), vmap=False)


def _affine_ref(a, b, ax, rev):
    """The affine-map scan by a sequential loop in float64."""
    a, b = np.moveaxis(a.astype(np.float64), ax, 0), np.moveaxis(b.astype(np.float64), ax, 0)
    order = range(len(a) - 1, -1, -1) if rev else range(len(a))
    ra, rb = np.empty_like(a), np.empty_like(b)
    pa = pb = None
    for i in order:
        if pa is None:
            pa, pb = a[i], b[i]
        elif rev:  # the reversed scan combines (later, earlier): fn(acc, x) on the flip
            pa, pb = pa * a[i], a[i] * pb + b[i]
        else:
            pa, pb = pa * a[i], a[i] * pb + b[i]
        ra[i], rb[i] = pa, pb
    return (np.moveaxis(ra, 0, ax).astype(np.float32), np.moveaxis(rb, 0, ax).astype(np.float32))


# -- bit ops, rounding, casts --------------------------------------------------------------
def _edge_ints(dt):
    info = np.iinfo(dt)
    vals = [0, 1, -1, 2, -2, 3, 7, -7, info.min, info.max, info.min + 1, info.max - 1,
            info.bits, info.bits - 1, info.bits + 1, 2 * info.bits, 100, -100, 5, -8]
    return np.array(sorted({v for v in vals if info.min <= v <= info.max}), dt)


def _np_shift(a, s, kind):
    """NumPy float-free definitions of lax's shifts (StableHLO: a shift amount outside
    [0, bits) gives 0 for left/logical, the sign fill for arithmetic)."""
    bits = a.dtype.itemsize * 8
    ut = np.dtype(f"uint{bits}")
    au = a.view(ut) if a.dtype.kind == "i" else a
    out = []
    for x, xs, k in zip(a.ravel().tolist(), au.ravel().tolist(), s.ravel().tolist()):
        if kind == "left":
            r = 0 if not 0 <= k < bits else (int(xs) << k) & ((1 << bits) - 1)
        elif kind == "logical":
            r = 0 if not 0 <= k < bits else int(xs) >> k
        else:
            sign = int(x) < 0
            if not 0 <= k < bits:
                r = (1 << bits) - 1 if sign else 0
            else:
                r = (int(x) >> k) & ((1 << bits) - 1)
        out.append(r)
    return np.array(out, np.uint64 if bits == 64 else np.int64).astype(ut).view(a.dtype) \
        .reshape(a.shape)


def hunt_bits(t, rng):
    dts = [d for d in INT_DTYPES if X64 or d not in ("int64", "uint64")]
    for dt in dts:
        e = _edge_ints(dt)
        a, b = np.repeat(e, len(e)), np.tile(e, len(e))
        for name, kind in (("shift_left", "left"), ("shift_right_logical", "logical"),
                           ("shift_right_arithmetic", "arith")):
            # (an arithmetic shift of an unsigned type: JAX's answer is the reference)
            ref = None if dt.startswith("u") and kind == "arith" else _np_shift(a, b, kind)
            t.check("bits", f"{name}|{dt}", lambda L, x, y, name=name: getattr(L.lax, name)(
                x, y), (a, b), ref=ref)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            np_name = name
            t.check("bits", f"{name}|{dt}", lambda L, x, y, name=name: getattr(
                L.lax, name)(x, y), (a, b), ref=getattr(np, np_name)(a, b))
        t.check("bits", f"bitwise_not|{dt}", lambda L, x: L.lax.bitwise_not(x), (e,),
                ref=np.invert(e))
        t.check("bits", f"population_count|{dt}", lambda L, x: L.lax.population_count(x),
                (e,), ref=np.bitwise_count(e.view(f"uint{e.dtype.itemsize * 8}")).astype(dt))
        bits = e.dtype.itemsize * 8
        clz = np.array([bits - int(v).bit_length() for v in
                        e.view(f"uint{bits}").astype(object)], dt)
        t.check("bits", f"clz|{dt}", lambda L, x: L.lax.clz(x), (e,), ref=clz)
        # rem / div: C semantics (truncation), sign of the dividend
        nz = b != 0
        if dt.startswith("i"):
            ok = nz & ~((a == np.iinfo(dt).min) & (b == -1))
        else:
            ok = nz
        aa, bb = a[ok], b[ok]
        q = np.array([_trunc_div(int(p), int(r)) for p, r in zip(aa, bb)], object)
        t.check("rem_div", f"div|{dt}", lambda L, x, y: L.lax.div(x, y), (aa, bb),
                ref=q.astype(dt))
        t.check("rem_div", f"rem|{dt}", lambda L, x, y: L.lax.rem(x, y), (aa, bb),
                ref=np.array([int(p) - int(r) * int(s) for p, r, s in zip(aa, bb, q)],
                             object).astype(dt))
        t.check("rem_div", f"div_by_zero|{dt}", lambda L, x, y: L.lax.div(x, y),
                (a[~nz], b[~nz]))
        t.check("rem_div", f"rem_by_zero|{dt}", lambda L, x, y: L.lax.rem(x, y),
                (a[~nz], b[~nz]))
        t.check("bits", f"sign|{dt}", lambda L, x: L.lax.sign(x), (e,), ref=np.sign(e))
        for p in (0, 1, 2, 3, 5, -1):
            if p < 0:
                continue
            t.check("pow", f"integer_pow|{dt} p={p}", lambda L, x, p=p: L.lax.integer_pow(
                x, p), (e,), ref=np.array([int(v) ** p for v in e], object).astype(
                    object).__mod__(1 << bits).astype(np.uint64 if bits == 64 else np.int64)
                .astype(f"uint{bits}").view(dt))
        t.check("clamp", f"clamp|{dt}", lambda L, lo, x, hi: L.lax.clamp(lo, x, hi),
                (np.array(2, dt), e, np.array(7, dt)), ref=np.clip(e, 2, 7).astype(dt))
    # floats: rem/div sign semantics, nextafter, round, reduce_precision, atan2...
    fx = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, np.inf, 1.0, np.nan, 7.0, -7.0, 1e30],
                  np.float32)
    fy = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, np.inf, 1.0, 0.0, 0.0, 3.0],
                  np.float32)
    t.check("rem_div", "rem|float32", lambda L, x, y: L.lax.rem(x, y), (fx, fy),
            ref=np.fmod(fx, fy))
    t.check("rem_div", "div|float32", lambda L, x, y: L.lax.div(x, y), (fx, fy),
            ref=(fx / fy).astype(np.float32))


def _trunc_div(p, r):
    q = abs(p) // abs(r)
    return q if (p >= 0) == (r >= 0) else -q


def hunt_float_ops(t, rng):
    fdts = ["float32", "float16"] + (["float64"] if X64 else [])
    for fd in fdts:
        v = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0, 0.0, np.inf, -np.inf,
                      np.nan, 3.7, -3.7, 1e7 + 0.5, 4097.5, 8388609.0], np.float64).astype(fd)
        for m, name in ((0, "AWAY"), (1, "EVEN")):
            v64 = v.astype(np.float64)  # exact: float64 holds |v| + 0.5 of these dtypes
            ref = np.copysign(np.floor(np.abs(v64) + 0.5), v64) if m == 0 else np.round(v64)
            ref = ref.astype(fd)
            t.check("round", f"round_{name}|{fd}", lambda L, x, m=m: L.lax.round(x, m), (v,),
                    ref=ref)
        # nextafter
        a = np.array([0.0, -0.0, 1.0, 1.0, np.inf, -np.inf, np.nan, 1.0, 0.0, -1.0, 3.0,
                      np.finfo(fd).max, np.finfo(fd).tiny], fd)
        b = np.array([1.0, -1.0, 2.0, 0.0, 0.0, 0.0, 1.0, np.nan, -0.0, -1.0, np.inf,
                      np.inf, 0.0], fd)
        t.check("nextafter", f"nextafter|{fd}", lambda L, x, y: L.lax.nextafter(x, y),
                (a, b), ref=np.nextafter(a, b))
        # reduce_precision: JAX is the reference (XLA flushes subnormals only where the
        # exponent narrows)
        w = np.concatenate([rng.standard_normal(20) * 10.0 ** rng.integers(-8, 8, 20),
                            [np.inf, -np.inf, np.nan, 0.0, -0.0, 65504, 65520, 1e-8, 6e-5,
                             3.4e38, 1e-40]]).astype(fd)
        for eb, mb in ((5, 10), (8, 7), (8, 23), (4, 3), (5, 2), (11, 52), (2, 1), (8, 0)):
            t.check("reduce_precision", f"reduce_precision|{fd} e={eb} m={mb}",
                    lambda L, x, eb=eb, mb=mb: L.lax.reduce_precision(x, eb, mb), (w,))
        for name, f in (("atan2", np.arctan2),):
            ya = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, 3.0,
                           np.nan, 1.0], fd)
            xa = np.array([0.0, 0.0, -0.0, -0.0, -np.inf, -np.inf, np.inf, np.inf, -np.inf,
                           -4.0, 1.0, np.nan], fd)
            t.check("special", f"{name}|{fd}", lambda L, y, x: L.lax.atan2(y, x), (ya, xa),
                    ref=f(ya.astype(np.float64), xa.astype(np.float64)).astype(fd),
                    tol=1e-3 if fd == "float16" else 1e-6)
        c = np.array([-27.0, -8.0, -0.0, 0.0, 1e-30, 8.0, 1e30, np.inf, -np.inf, np.nan,
                      3.0], fd)
        t.check("special", f"cbrt|{fd}", lambda L, x: L.lax.cbrt(x), (c,),
                ref=np.cbrt(c.astype(np.float64)).astype(fd), tol=1e-3 if fd == "float16"
                else 1e-6)
        lg = np.array([-100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 100.0, np.inf, -np.inf, np.nan],
                      fd)
        t.check("special", f"logistic|{fd}", lambda L, x: L.lax.logistic(x), (lg,),
                ref=(1 / (1 + np.exp(-lg.astype(np.float64)))).astype(fd),
                tol=1e-3 if fd == "float16" else 1e-6)
        t.check("special", f"is_finite|{fd}", lambda L, x: L.lax.is_finite(x), (lg,),
                ref=np.isfinite(lg))
        ei = np.array([-1.0, -0.999, -0.5, 0.0, -0.0, 0.3, 0.9, 0.999999, 1.0, 1.1, np.nan],
                      fd)
        import scipy.special as sp
        t.check("special", f"erf_inv|{fd}", lambda L, x: L.lax.erf_inv(x), (ei,),
                ref=sp.erfinv(ei.astype(np.float64)).astype(fd), tol=2e-3 if fd == "float16"
                else 2e-5)
        t.check("sign", f"sign|{fd}", lambda L, x: L.lax.sign(x), (c,), ref=np.sign(c))
        # pow with integer exponents (float base)
        base = np.array([2.0, -2.0, 0.0, -0.0, 0.5, -1.0, np.inf, -np.inf, np.nan, 3.0], fd)
        for p in (0, 1, 2, 3, -1, -2, -3, 7):
            t.check("pow", f"integer_pow|{fd} p={p}", lambda L, x, p=p: L.lax.integer_pow(x, p),
                    (base,), ref=np.power(base.astype(np.float64), p).astype(fd),
                    tol=1e-3 if fd == "float16" else 1e-6)
            ip = np.full(base.shape, p, np.int32)
            t.check("pow", f"pow_int_array|{fd} p={p}", lambda L, x, y: L.lax.pow(x, y),
                    (base, ip), ref=np.power(base.astype(np.float64), p).astype(fd),
                    tol=1e-3 if fd == "float16" else 1e-6)
        # convert_element_type: float -> int saturation, NaN, bool
        cv = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.7, -1.7, 300.0, -300.0,
                       3e9, -3e9, 1e20, -1e20], np.float64).astype(fd)
        for to in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "bool") + (
                ("int64", "uint64") if X64 else ()):
            t.check("convert", f"convert|{fd}->{to}", lambda L, x, to=to:
                    L.lax.convert_element_type(x, np.dtype(to)), (cv,),
                    ref=_saturating_cast(cv, to))
        # clamp: argument order (min, x, max) and broadcasting of scalar bounds
        xc = _f32(rng, (3, 4)).astype(fd)
        lo, hi = _f32(rng, (3, 4)).astype(fd) - 1, _f32(rng, (3, 4)).astype(fd) + 1
        t.check("clamp", f"clamp_arrays|{fd}", lambda L, lo, x, hi: L.lax.clamp(lo, x, hi),
                (lo, xc, hi), ref=np.minimum(np.maximum(xc, lo), hi))
        t.check("clamp", f"clamp_scalar|{fd}", lambda L, x: L.lax.clamp(-1.0, x, 1.0), (xc,),
                ref=np.clip(xc, -1, 1))
        t.check("clamp", f"clamp_nan|{fd}", lambda L, x: L.lax.clamp(np.array(-1.0, fd), x,
                                                                        np.array(1.0, fd)),
                (np.array([np.nan, 2.0, -2.0, 0.0], fd),))
        t.check("clamp", f"clamp_lo_gt_hi|{fd}", lambda L, x: L.lax.clamp(np.array(2.0, fd), x,
                                                                             np.array(1.0, fd)),
                (np.array([0.0, 1.5, 3.0], fd),))
    # bitcast_convert_type: same width and shape-changing
    u = (rng.integers(0, 2 ** 31, size=(3, 4)) * 2 + 1).astype(np.uint32)
    for to in ("float32", "int32", "uint16", "int8", "uint8", "float16", "bfloat16") + (
            ("float64", "uint64", "int64") if X64 else ()):
        for src in (u, u.view(np.float32), u.view(np.int32)):
            t.check("bitcast", f"bitcast|{src.dtype}{list(src.shape)}->{to}",
                    lambda L, x, to=to: L.lax.bitcast_convert_type(x, getattr(L.jnp, to)),
                    (src,), ref=_bitcast_ref(src, to))
    small = rng.integers(0, 2 ** 15, size=(3, 4, 2)).astype(np.uint16)
    for to in ("uint32", "float32", "int32"):
        t.check("bitcast", f"bitcast_narrow_to_wide|uint16[3,4,2]->{to}",
                lambda L, x, to=to: L.lax.bitcast_convert_type(x, getattr(L.jnp, to)),
                (small,), ref=_bitcast_ref(small, to))
    # select_n
    for nc in (1, 2, 3, 4):
        cases = [_f32(rng, (5,)) for _ in range(nc)]
        if nc <= 2:
            which = rng.random(5) < 0.5
        else:
            which = rng.integers(0, nc, 5).astype(np.int32)
        t.check("select_n", f"select_n|n={nc} {which.dtype}",
                lambda L, w, *c: L.lax.select_n(w, *c), (which,) + tuple(cases),
                ref=np.choose(which.astype(int), cases) if nc > 1 else cases[0])
        t.check("select_n", f"select_n_scalar_pred|n={nc}",
                lambda L, *c: L.lax.select_n(np.int32(nc - 1) if nc > 2 else True, *c),
                tuple(cases), ref=cases[-1], vmap=False)
    # integer_pow grads, special grads
    xs = np.array([0.3, 1.2, 2.5, 4.0], _FT)
    for p in (2, 3, -1, -2, 0, 1):
        t.check_grad("pow", f"integer_pow|p={p}", lambda L, x, p=p: L.lax.integer_pow(x, p),
                     (xs,))
    aa = np.array([0.5, 1.5, 3.0, 7.0], _FT)
    for name in ("igamma", "igammac"):
        t.check_grad("special", f"{name}|x", lambda L, a, x, name=name: getattr(L.lax, name)(
            a, x), (aa, xs), argnums=(1,))
        t.check_grad("special", f"{name}|a", lambda L, a, x, name=name: getattr(L.lax, name)(
            a, x), (aa, xs), argnums=(0,), tol=1e-3)
        t.check("special", f"{name}|value", lambda L, a, x, name=name: getattr(L.lax, name)(
            a, x), (aa.astype(np.float32), xs.astype(np.float32)), tol=1e-5,
            ref=getattr(sp, {"igamma": "gammainc", "igammac": "gammaincc"}[name])(
                aa, xs).astype(np.float32))
    for name in ("lgamma", "digamma", "erf_inv", "logistic", "cbrt"):
        arg = xs if name != "erf_inv" else xs / 5
        t.check_grad("special", name, lambda L, x, name=name: getattr(L.lax, name)(x), (arg,))
    t.check_grad("special", "atan2", lambda L, y, x: L.lax.atan2(y, x), (xs, xs[::-1] - 2),
                 argnums=(0, 1))
    t.check("special", "lgamma_digamma|value", lambda L, x: (L.lax.lgamma(x), L.lax.digamma(x)),
            (np.array([-2.5, -1.0, 0.0, 0.5, 1.0, 10.0, 1e10, -0.0], np.float32),),
            ref=(sp.gammaln(np.array([-2.5, -1.0, 0.0, 0.5, 1.0, 10.0, 1e10, -0.0]))
                 .astype(np.float32),
                 sp.digamma(np.array([-2.5, -1.0, 0.0, 0.5, 1.0, 10.0, 1e10, -0.0]))
                 .astype(np.float32)), tol=1e-5)
    # unsigned sign and is_finite of ints are covered above


def _saturating_cast(v, to):
    """float -> int as XLA converts: truncate toward zero, saturate, NaN -> 0."""
    if to == "bool":
        return v != 0
    info = np.iinfo(to)
    out = [0 if np.isnan(x) else info.max if x == np.inf else info.min if x == -np.inf else
           min(max(int(x), info.min), info.max) for x in v.astype(np.float64).tolist()]
    return np.array(out, dtype=to)


def _bitcast_ref(x, to):
    to = np.dtype(to) if to != "bfloat16" else __import__("ml_dtypes").bfloat16
    to = np.dtype(to)
    a = np.ascontiguousarray(x)
    if to.itemsize == a.dtype.itemsize:
        return a.view(to)
    if to.itemsize < a.dtype.itemsize:
        return a.view(to).reshape(a.shape + (a.dtype.itemsize // to.itemsize,))
    if a.shape[-1] != to.itemsize // a.dtype.itemsize:
        return None  # invalid: JAX's error is the reference
    return a.view(to).reshape(a.shape[:-1])


# -- dot_general ---------------------------------------------------------------------------
def hunt_dot(t, rng, n):
    for _ in range(n):
        nb, nc = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        nfl, nfr = int(rng.integers(0, 3)), int(rng.integers(0, 2))
        bsz = _rand_shape(rng, nb, 1, 4)
        csz = _rand_shape(rng, nc, 1, 4)
        lrank, rrank = nb + nc + nfl, nb + nc + nfr
        lperm, rperm = [int(p) for p in rng.permutation(lrank)], \
            [int(p) for p in rng.permutation(rrank)]
        lshape, rshape = [0] * lrank, [0] * rrank
        lb, lc = lperm[:nb], lperm[nb:nb + nc]
        rb, rc = rperm[:nb], rperm[nb:nb + nc]
        for i in range(nb):
            lshape[lb[i]] = rshape[rb[i]] = bsz[i]
        for i in range(nc):
            lshape[lc[i]] = rshape[rc[i]] = csz[i]
        for p in lperm[nb + nc:]:
            lshape[p] = int(rng.integers(1, 4))
        for p in rperm[nb + nc:]:
            rshape[p] = int(rng.integers(1, 4))
        dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
        kind = ["f32", "int8", "int8->int32", "f16->f32", "i32", "bf16"][int(rng.integers(0, 6))]
        if kind.startswith("int8") or kind == "i32":
            dt = "int8" if kind.startswith("int8") else "int32"
            lx = rng.integers(-128 if dt == "int8" else -50, 128 if dt == "int8" else 50,
                              size=lshape).astype(dt)
            rx = rng.integers(-128 if dt == "int8" else -50, 128 if dt == "int8" else 50,
                              size=rshape).astype(dt)
        elif kind == "f16->f32":
            lx, rx = _f32(rng, lshape).astype(np.float16), _f32(rng, rshape).astype(np.float16)
        elif kind == "bf16":
            import ml_dtypes
            lx, rx = _f32(rng, lshape).astype(ml_dtypes.bfloat16), \
                _f32(rng, rshape).astype(ml_dtypes.bfloat16)
        else:
            lx, rx = _f32(rng, lshape), _f32(rng, rshape)
        pet = {"int8->int32": np.int32, "f16->f32": np.float32}.get(kind)
        d = f"{kind} l{lshape} r{rshape} dn={dn}"
        ref = _dot_ref(lx, rx, dn, pet)
        tol = 0 if kind in ("int8->int32", "i32") else (2e-2 if kind in ("bf16",) else
                                                           1e-2 if "16" in kind else 1e-5)
        t.check("dot_general", "dot_general|" + d,
                lambda L, a, b: L.lax.dot_general(a, b, dn, preferred_element_type=pet),
                (lx, rx), tol=tol)
        t.check("dot_general", "dot_general_vs_np|" + d,
                lambda L, a, b: L.lax.dot_general(a, b, dn, preferred_element_type=pet),
                (lx, rx), tol=tol, ref=ref, vmap=False)
        if kind == "f32":
            t.check_grad("dot_general", "dot_general|" + d,
                         lambda L, a, b: L.lax.dot_general(a, b, dn),
                         (lx.astype(_FT), rx.astype(_FT)), argnums=(0, 1))


def _dot_ref(a, b, dn, pet):
    (lc, rc), (lb, rb) = dn
    letters = "abcdefghijklmnopqrstuvwxyz"
    ls, rs = [None] * a.ndim, [None] * b.ndim
    it = iter(letters)
    for x, y in zip(lb, rb):
        ls[x] = rs[y] = next(it)
    for x, y in zip(lc, rc):
        ls[x] = rs[y] = next(it)
    for i in range(a.ndim):
        ls[i] = ls[i] or next(it)
    for i in range(b.ndim):
        rs[i] = rs[i] or next(it)
    out = [ls[x] for x in lb] + [c for i, c in enumerate(ls) if i not in lb and i not in lc] \
        + [c for i, c in enumerate(rs) if i not in rb and i not in rc]
    kind = a.dtype.kind
    acc = np.float64 if kind == "f" or a.dtype.kind == "V" else np.int64
    res = np.einsum(f"{''.join(ls)},{''.join(rs)}->{''.join(out)}", a.astype(acc),
                    b.astype(acc))
    outdt = pet or a.dtype
    if np.dtype(outdt).kind in "iu":  # int64 -> narrower ints wraps, as the hardware
        res = np.asarray(res).astype(np.int64)
    return np.asarray(res).astype(outdt)


# -- structural ----------------------------------------------------------------------------
def hunt_structural(t, rng, n):
    for _ in range(n):
        shape = _rand_shape(rng, int(rng.integers(1, 4)), 0, 5)
        nd = len(shape)
        x = _f32(rng, shape)
        cfg = [(int(rng.integers(-3, 4)), int(rng.integers(-3, 4)), int(rng.integers(0, 3)))
               for _ in shape]
        d = f"x{list(shape)} pad={cfg}"
        ref = _pad_ref(x, -1.5, cfg)
        t.check("pad", "pad|" + d, lambda L, a: L.lax.pad(a, np.float32(-1.5), cfg), (x,),
                ref=ref)
        if ref is not None and x.size and np.asarray(ref).size:
            t.check_grad("pad", "pad|" + d, lambda L, a: L.lax.pad(a, 0.0, cfg),
                         (x.astype(_FT),))
            t.check_grad("pad", "pad_value|" + d, lambda L, a, v: L.lax.pad(a, v, cfg),
                         (x.astype(_FT), np.asarray(0.5, _FT)), argnums=(1,),
                         vs_jax=False)  # (JAX raises: see the docstring)
        dims = tuple(sorted(int(i) for i in rng.permutation(nd)[:int(rng.integers(0, nd + 1))]))
        t.check("rev", f"rev|x{list(shape)} dims={dims}", lambda L, a: L.lax.rev(a, dims),
                (x,), ref=np.flip(x, dims) if dims else x)
        perm = tuple(int(p) for p in rng.permutation(nd))
        t.check("transpose", f"transpose|x{list(shape)} perm={perm}",
                lambda L, a: L.lax.transpose(a, perm), (x,), ref=np.transpose(x, perm))
        # reshape with dimensions: transpose first, then row-major reshape
        new = [int(np.prod(shape))] if rng.random() < 0.5 else list(reversed(shape))
        t.check("reshape", f"reshape|x{list(shape)} new={new} dims={perm}",
                lambda L, a: L.lax.reshape(a, new, dimensions=perm), (x,),
                ref=np.transpose(x, perm).reshape(new))
        # broadcast_in_dim: operand dims to increasing out dims, size-1 dims stretched
        out_rank = nd + int(rng.integers(0, 3))
        bdims = tuple(sorted(int(i) for i in rng.permutation(out_rank)[:nd]))
        oshape = [int(rng.integers(1, 4)) for _ in range(out_rank)]
        xs = x
        for i, od in enumerate(bdims):
            oshape[od] = shape[i] if shape[i] != 1 or rng.random() < 0.5 else oshape[od]
        t.check("broadcast_in_dim", f"broadcast_in_dim|x{list(shape)} -> {oshape} {bdims}",
                lambda L, a: L.lax.broadcast_in_dim(a, oshape, bdims), (xs,),
                ref=np.broadcast_to(np.expand_dims(xs, tuple(i for i in range(out_rank)
                                                             if i not in bdims)), oshape))
        if x.size:
            t.check_grad("broadcast_in_dim", f"broadcast_in_dim|x{list(shape)} -> {oshape}",
                         lambda L, a: L.lax.broadcast_in_dim(a, oshape, bdims),
                         (x.astype(_FT),))
        ones = tuple(i for i, s in enumerate(shape) if s == 1)
        sq = tuple(i - nd if rng.random() < 0.3 else i for i in ones)
        t.check("squeeze", f"squeeze|x{list(shape)} dims={sq}",
                lambda L, a: L.lax.squeeze(a, sq), (x,), ref=np.squeeze(x, ones) if ones
                else x)
        ed = tuple(sorted({int(rng.integers(-nd - 2, nd + 2)) for _ in range(2)}))
        t.check("expand_dims", f"expand_dims|x{list(shape)} dims={ed}",
                lambda L, a: L.lax.expand_dims(a, ed), (x,))
        ax = int(rng.integers(0, nd))
        others = [_f32(rng, shape[:ax] + (int(rng.integers(0, 3)),) + shape[ax + 1:])
                  for _ in range(int(rng.integers(0, 3)))]
        t.check("concatenate", f"concatenate|x{list(shape)} +{len(others)} ax={ax}",
                lambda L, *a: L.lax.concatenate(list(a), ax), (x,) + tuple(others),
                ref=np.concatenate([x] + others, ax))
        for dt in ("int32", "float32", "uint8", "int8", "float16", "bool"):
            if dt == "bool":
                continue
            sz = int(rng.integers(0, 300))
            t.check("iota", f"iota|{dt} {sz}", lambda L, dt=dt, sz=sz: L.lax.iota(
                getattr(L.jnp, dt), sz), (), ref=np.arange(sz).astype(dt), vmap=False)
            if nd:
                t.check("iota", f"broadcasted_iota|{dt} {list(shape)} {ax}",
                        lambda L, dt=dt: L.lax.broadcasted_iota(getattr(L.jnp, dt), shape, ax),
                        (), vmap=False,
                        ref=np.broadcast_to(np.arange(shape[ax]).reshape(
                            [-1 if i == ax else 1 for i in range(nd)]), shape).astype(dt))
        for fv, fdt, fsh in ((3, None, None), (2.7, "int32", None), (-1, "uint8", None),
                             (1.5, None, (2, 3)), (True, None, None), (0.5, "bfloat16", ())):
            t.check("full_like", f"full_like|{fv} {fdt} {fsh}",
                    lambda L, a, fv=fv, fdt=fdt, fsh=fsh: L.lax.full_like(
                        a, fv, None if fdt is None else getattr(L.jnp, fdt), fsh), (x,),
                    vmap=False)
            t.check("full_like", f"full_like_int|{fv} {fdt} {fsh}",
                    lambda L, a, fv=fv, fdt=fdt, fsh=fsh: L.lax.full_like(
                        a, fv, None if fdt is None else getattr(L.jnp, fdt), fsh),
                    (x.astype(np.int8),), vmap=False)


def _pad_ref(x, v, cfg):
    """lax.pad by definition: interior first, then edge padding (negative = crop)."""
    out = x
    for ax, (lo, hi, it) in enumerate(cfg):
        n = out.shape[ax]
        sz = n + max(n - 1, 0) * it
        shp = list(out.shape)
        shp[ax] = sz
        y = np.full(shp, v, x.dtype)
        idx = [slice(None)] * out.ndim
        idx[ax] = slice(0, sz, it + 1)
        y[tuple(idx)] = out
        total = lo + sz + hi
        if total < 0:
            return None  # invalid: both should raise
        shp[ax] = sz + max(lo, 0) + max(hi, 0)
        z = np.full(shp, v, x.dtype)
        idx[ax] = slice(max(lo, 0), max(lo, 0) + sz)
        z[tuple(idx)] = y
        idx[ax] = slice(max(-lo, 0), z.shape[ax] - max(-hi, 0))
        out = z[tuple(idx)]
    return out


def _typed(L, sc, a):
    """A Python scalar for tjit (weakly typed), the array's dtype for JAX (its lax
    functions take no mixed dtypes)."""
    return sc if L.name == "tjit" else np.asarray(sc, a.dtype)


# -- odd corners: dtypes and gradients the random hunts rarely reach -----------------------
def hunt_extra(t, rng):
    import ml_dtypes
    e8 = _edge_ints("int8")
    for dt in ("int8", "uint8", "int32", "uint32", "bool"):
        x = (rng.integers(0, 2, size=(3, 5)) if dt == "bool" else
             rng.integers(-100 if dt[0] == "i" else 0, 100, size=(3, 5))).astype(dt)
        for name in ("cumsum", "cumprod", "cummax", "cummin"):
            if dt == "bool" and name in ("cummax", "cummin"):
                continue  # (JAX refuses bools; tjit's logical or/and: see the docstring)
            for rev in (False, True):
                t.check("extra.cum", f"{name}|{dt} rev={rev}", lambda L, a, name=name,
                        rev=rev: getattr(L.lax, name)(a, axis=1, reverse=rev), (x,))
        for name in ("argmax", "argmin"):
            t.check("extra.arg", f"{name}|{dt}", lambda L, a, name=name: getattr(L.lax, name)(
                a, 1, L.jnp.int32), (x,))
        if dt != "bool":
            t.check("extra.sort", f"sort_edges|{dt}", lambda L, a: L.lax.sort(a), (
                _edge_ints(dt),))
            t.check("extra.top_k", f"top_k_edges|{dt}", lambda L, a: L.lax.top_k(a, 4), (
                _edge_ints(dt),))
    # Python-scalar second operands (weakly typed: they take the array's dtype)
    for dt in ("int8", "uint8", "int32", "uint32"):
        e = _edge_ints(dt)
        for name in ("shift_left", "shift_right_logical", "shift_right_arithmetic", "rem",
                     "div", "max", "min", "add", "mul", "bitwise_and"):
            for sc in (0, 1, 3, 7, 8, 9, 31, 32, 33):
                if sc == 0 and name in ("rem", "div"):
                    continue
                t.check("extra.scalar", f"{name}|{dt} s={sc}", lambda L, a, name=name, sc=sc:
                        getattr(L.lax, name)(a, _typed(L, sc, a)), (e,), vmap=False)
    fe = np.array([0.5, -2.0, 3.0, 0.0, np.inf, np.nan], np.float32)
    for sc in (2, 3, -1, 0.5, 2.0):
        t.check("extra.scalar", f"pow|float32 s={sc}", lambda L, a, sc=sc: L.lax.pow(
            a, sc if L.name == "tjit" or isinstance(sc, int) else np.float32(sc)),
                (fe,), vmap=False, tol=1e-6)
        t.check("extra.scalar", f"atan2|float32 s={sc}", lambda L, a, sc=sc:
                L.lax.atan2(a, _typed(L, sc, a)), (fe,), vmap=False, tol=1e-6)
        t.check("extra.scalar", f"nextafter|float32 s={sc}", lambda L, a, sc=sc:
                L.lax.nextafter(a, _typed(L, sc, a)), (fe,), vmap=False)
    # integer_pow with negative exponents on ints (JAX raises), pow with int base
    for p in (-1, -2):
        t.check("extra.pow", f"integer_pow_neg_int|p={p}", lambda L, a, p=p:
                L.lax.integer_pow(a, p), (e8,))
    for dt in ("int32", "float32"):
        base = np.array([2, -3, 0, 1, -1, 5], dt)
        ex = np.array([3, 2, 0, 7, 5, 2], np.int32)
        t.check("extra.pow", f"pow_int_exp|{dt}", lambda L, a, b: L.lax.pow(a, b), (base, ex))
    # complex sort (lexicographic), complex -> real conversion
    c = (rng.integers(-2, 3, 8) + 1j * rng.integers(-2, 3, 8)).astype(np.complex64)
    c[0] = complex(np.nan, 1)
    t.check("extra.sort", "sort_complex", lambda L, a: L.lax.sort(a), (c,))
    t.check("extra.convert", "complex->float32", lambda L, a: L.lax.convert_element_type(
        a, np.float32), (c,))
    t.check("extra.convert", "complex->int32", lambda L, a: L.lax.convert_element_type(
        a, np.int32), (c,))
    # int -> float rounding (round to nearest even), uint32 range, bool
    big = np.array([2 ** 24 + 1, 2 ** 24 + 3, 2 ** 31 - 1, -2 ** 31, 2 ** 25 + 3], np.int32)
    ub = np.array([2 ** 32 - 1, 2 ** 31, 2 ** 31 + 129, 3], np.uint32)
    for to in ("float32", "float16", "bfloat16", "bool", "int8", "uint8"):
        tdt = ml_dtypes.bfloat16 if to == "bfloat16" else np.dtype(to)
        for a in (big, ub):
            t.check("extra.convert", f"int_to|{a.dtype}->{to}",
                    lambda L, a, tdt=tdt: L.lax.convert_element_type(a, tdt), (a,))
    bf = np.array([1.0, 3.0, 1e30, np.nan, 65504.0, 65520.0, 1e-8, -0.0], np.float32)
    for to in ("float16", "bfloat16"):
        tdt = ml_dtypes.bfloat16 if to == "bfloat16" else np.dtype(to)
        t.check("extra.convert", f"f32_to|{to}", lambda L, a, tdt=tdt:
                L.lax.convert_element_type(a, tdt), (bf,))
        t.check("extra.round", f"round|{to}", lambda L, a: L.lax.round(a, 1),
                (np.array([0.5, 1.5, 2.5, -2.5, 3.3], np.float32).astype(tdt),))
        t.check("extra.nextafter", f"nextafter|{to}", lambda L, a, b: L.lax.nextafter(a, b),
                (bf.astype(tdt), np.full(bf.shape, 2.0, np.float32).astype(tdt)))
    # gradients on hard inputs: cumprod with zeros, cummax ties, top_k, sort multi-operand,
    # logistic/erf_inv extremes, lgamma/digamma at negatives, igamma in a
    xz = np.array([[1.5, 0.0, 2.0, -1.0, 0.0, 3.0], [0.5, 2.0, 0.0, 1.0, 1.0, -2.0]], _FT)
    for rev in (False, True):
        t.check_grad("extra.grad", f"cumprod_zeros|rev={rev}", lambda L, a, rev=rev:
                     L.lax.cumprod(a, axis=1, reverse=rev), (xz,))
        t.check_grad("extra.grad", f"cumlogsumexp|rev={rev}", lambda L, a, rev=rev:
                     L.lax.cumlogsumexp(a, axis=1, reverse=rev), (xz * 30,))
    xd = np.array([[0.3, 1.7, -0.4, 2.2, 0.9], [1.1, -2.0, 0.25, 0.7, 3.0]], _FT)
    t.check_grad("extra.grad", "cummax", lambda L, a: L.lax.cummax(a, axis=1), (xd,))
    t.check_grad("extra.grad", "top_k", lambda L, a: L.lax.top_k(a, 3)[0], (xd,))
    t.check_grad("extra.grad", "sort_multi", lambda L, k, v: L.lax.sort(
        (k, v), num_keys=1)[1], (xd, xd[::-1].copy()), argnums=(1,))
    t.check_grad("extra.grad", "sort_multi_keys", lambda L, k, v: L.lax.sort(
        (k, v), num_keys=1)[0] * L.lax.sort((k, v), num_keys=1)[1], (xd, xd * 2),
        argnums=(0, 1))
    t.check_grad("extra.grad", "logistic_ext", lambda L, a: L.lax.logistic(a),
                 (np.array([-40.0, -10.0, 0.0, 10.0, 40.0], _FT),))
    t.check_grad("extra.grad", "erf_inv_edge", lambda L, a: L.lax.erf_inv(a),
                 (np.array([-0.99, -0.5, 0.0, 0.9, 0.999], _FT),), tol=1e-3)
    t.check_grad("extra.grad", "lgamma_neg", lambda L, a: L.lax.lgamma(a),
                 (np.array([-2.5, -0.5, 0.1, 3.5, 30.0], _FT),))
    t.check_grad("extra.grad", "digamma_neg", lambda L, a: L.lax.digamma(a),
                 (np.array([-2.5, -0.5, 0.1, 3.5, 30.0], _FT),), tol=1e-3)
    t.check_grad("extra.grad", "igamma_a_large", lambda L, a, x: L.lax.igamma(a, x),
                 (np.array([20.0, 50.0, 0.1, 2.0], _FT), np.array([18.0, 60.0, 0.05, 9.0], _FT)),
                 argnums=(0, 1), tol=1e-3)
    t.check_grad("extra.grad", "igammac_a_large", lambda L, a, x: L.lax.igammac(a, x),
                 (np.array([20.0, 50.0, 0.1, 2.0], _FT), np.array([18.0, 60.0, 0.05, 9.0], _FT)),
                 argnums=(0, 1), tol=1e-3)
    t.check_grad("extra.grad", "atan2_axes", lambda L, y, x: L.lax.atan2(y, x),
                 (np.array([1.0, -1.0, 1e-3, 2.0], _FT), np.array([-1.0, -1.0, -5.0, 0.0], _FT)),
                 argnums=(0, 1))
    t.check_grad("extra.grad", "cbrt_neg", lambda L, a: L.lax.cbrt(a),
                 (np.array([-8.0, -0.1, 0.3, 27.0], _FT),))
    t.check_grad("extra.grad", "pow_int_exp", lambda L, a: L.lax.pow(
        a, L.jnp.asarray(np.array([3, 2, -1, 0], np.int32))),
        (np.array([-2.0, 1.5, 0.7, 3.0], _FT),))
    t.check_grad("extra.grad", "clamp", lambda L, lo, a, hi: L.lax.clamp(lo, a, hi),
                 (np.array([0.0, 0.0, 1.0], _FT), np.array([-1.0, 0.5, 2.0], _FT),
                  np.array([1.0, 1.0, 1.5], _FT)), argnums=(0, 1, 2))
    t.check_grad("extra.grad", "rem", lambda L, a, b: L.lax.rem(a, b),
                 (np.array([5.3, -5.3, 7.1], _FT), np.array([2.0, 2.0, -3.0], _FT)),
                 argnums=(0, 1))
    t.check_grad("extra.grad", "reduce_precision", lambda L, a: L.lax.reduce_precision(
        a, 8, 7), (np.array([1.3, -2.7], _FT),), fd=False)  # (a step function)
    t.check_grad("extra.grad", "round", lambda L, a: L.lax.round(a) * a,
                 (np.array([1.3, -2.7], _FT),))


SHOW = 3
VERBOSE = False
LIBS = None
X64 = False
_FT = np.float32


def main():
    global LIBS, SHOW, VERBOSE, X64, _FT
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--x64", action="store_true")
    p.add_argument("--no-jax", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--show", type=int, default=3)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    SHOW, VERBOSE, X64 = a.show, a.verbose, a.x64
    _FT = np.float64 if X64 else np.float32
    LIBS = _libs(a.x64, not a.no_jax)
    rng = np.random.default_rng(a.seed)
    t = Tally()
    hunts = {"gather": lambda: hunt_gather_scatter(t, rng, a.cases),
             "dynamic": lambda: hunt_dynamic(t, rng, a.cases // 2),
             "sort": lambda: hunt_sort(t, rng, a.cases // 2),
             "reduce": lambda: hunt_reduce(t, rng, a.cases // 3),
             "bits": lambda: hunt_bits(t, rng),
             "float": lambda: hunt_float_ops(t, rng),
             "dot": lambda: hunt_dot(t, rng, a.cases // 2),
             "structural": lambda: hunt_structural(t, rng, a.cases // 3),
             "extra": lambda: hunt_extra(t, rng)}
    for name, h in hunts.items():
        if a.only and name not in a.only.split(","):
            continue
        h()
    print(f"\narea{'':26s} cases  disagreements  both-raised   (reference: "
          f"{'JAX ' + LIBS[0].jax.__version__ if LIBS[0] else 'interpreter'} / NumPy)")
    for cat in sorted(t.cases):
        print(f"{cat:30s} {t.cases[cat]:6d} {t.bad[cat]:6d} {t.raised[cat]:6d}")
    print(f"{'TOTAL':30s} {sum(t.cases.values()):6d} {sum(t.bad.values()):6d} "
          f"{sum(t.raised.values()):6d}")


if __name__ == "__main__":
    sys.exit(main())
