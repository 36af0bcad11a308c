"""Differential hunt: NumPy-style indexing, ``.at[]`` updates, gather/scatter modes and
integer/cast semantics of tjit (eager, ``jit``, ``jit(backend="interpreter")``) against
JAX on random programs. Needs an environment with both jax and tjit (a comparison
tool, not a test: CI has no JAX).

    python benchmarks/diff_indexing_ints.py [--cases N] [--seed S] [--x64] [--only CAT]

Prints one line per disagreement (category, case, tjit mode, the two results) and a
count per category.

Known differences left on purpose (tjit is right by NumPy and finite differences):
jnp.power with an integer array exponent >= 64 (JAX uses the exponent's low 6 bits),
gradients of out-of-bounds reads (JAX's promise_in_bounds transpose drops them; JAX
documents them as incorrect), scatter_mul gradients with repeated indices (JAX raises),
a take of a size-0 array with axis=None (JAX returns shape (0,)), compress/extract with
size past the axis (JAX raises; tjit pads with fill_value), bool .at[].add/multiply and
jnp.sign of bools (JAX raises).
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


def _libs(x64):
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
    import tjit
    import tjit.numpy as tjnp
    from tjit import lax as tlax
    jax.config.update("jax_enable_x64", x64)
    jax.config.update("jax_platforms", "cpu")
    tjit.config.update("jax_enable_x64", x64)
    return Lib("jax", jax, jjnp, jlax), Lib("tjit", tjit, tjnp, tlax)


# -- comparing ----------------------------------------------------------------------------------
def _run(lib, fn, args, mode):
    """``fn(lib, *args)`` in ``mode``: 'eager', 'jit' or 'interp'; (value, None) or
    (None, error)."""
    try:
        if mode == "eager":
            out = fn(lib, *[lib.jnp.asarray(a) for a in args])
        elif mode == "jit":
            out = lib.jax.jit(lambda *a: fn(lib, *a))(*args)
        else:
            out = lib.jax.jit(lambda *a: fn(lib, *a), backend="interpreter")(*args)
        return lib.jax.tree_util.tree_map(np.asarray, out), None
    except Exception as e:  # noqa: BLE001 (a raise is a result to compare)
        return None, e


def _same(a, b, tol):
    la, lb = (a if isinstance(a, (tuple, list)) else [a]), (b if isinstance(b, (tuple, list))
                                                         else [b])
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.dtype.kind in "fc" and tol:
            if not np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True):
                return False
        elif not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True


def _short(v):
    if isinstance(v, Exception):
        return f"{type(v).__name__}: {str(v)[:150]}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    v = np.asarray(v)
    return f"{v.dtype}{list(v.shape)} {np.array2string(v.ravel()[:12], threshold=12)}"


def _where(want, got, args):
    """The first positions where two same-shaped results differ, with the inputs there."""
    w, g = (want[0], got[0]) if isinstance(want, (tuple, list)) else (want, got)
    w, g = np.asarray(w), np.asarray(g)
    if w.shape != g.shape:
        return "shapes differ"
    if w.dtype != g.dtype:
        return f"dtypes differ: {w.dtype} vs {g.dtype}"
    bad = np.argwhere(~((w == g) | (w != w) & (g != g)))[:6]
    out = []
    for p in bad:
        p = tuple(p)
        ins = [np.asarray(a)[p] for a in args if np.shape(a) == w.shape]
        out.append(f"at {p} in={ins} jax={w[p]} tjit={g[p]}")
    return "; ".join(out)


class Tally:
    def __init__(self):
        self.cases = collections.Counter()
        self.bad = collections.Counter()
        self.seen = collections.Counter()
        self.raised = collections.Counter()  # both sides raised

    def check(self, cat, desc, fn, args, modes=("eager", "jit", "interp"), tol=0.0,
              jax_mode="jit", both_raise_ok=True):
        jlib, tlib = LIBS
        want, werr = _run(jlib, fn, args, jax_mode)
        for mode in modes:
            self.cases[cat] += 1
            got, gerr = _run(tlib, fn, args, mode)
            if werr is not None and gerr is not None and both_raise_ok:
                self.raised[cat] += 1
                continue
            if werr is None and gerr is None and _same(want, got, tol):
                continue
            self.bad[cat] += 1
            key = (cat, desc.split("|")[0], mode)
            self.seen[key] += 1
            if self.seen[key] <= SHOW:
                print(f"[{cat}] {desc} ({mode})\n   jax : {_short(werr or want)}\n"
                      f"   tjit: {_short(gerr or got)}", flush=True)
                if werr is None and gerr is None:
                    print("   " + _where(want, got, args), flush=True)
                if VERBOSE and gerr is not None:
                    traceback.print_exception(gerr)


# -- random index expressions ------------------------------------------------------------------
def _rand_shape(rng, rank):
    return tuple(int(rng.choice([0, 1, 2, 3, 4, 5], p=[.04, .16, .2, .25, .15, .2]))
                 for _ in range(rank))


def _rand_int_array(rng, n, shape, dtype):
    lo, hi = -n - 3, n + 3
    if np.dtype(dtype).kind == "u":
        lo = 0
    info = np.iinfo(dtype)
    v = rng.integers(max(lo, info.min), min(hi, info.max) + 1, size=shape)
    return v.astype(dtype)


def _rand_index(rng, shape, allow_bool):
    """A random NumPy index tuple for an array of ``shape`` (ints, slices, None, ...,
    integer arrays, boolean masks)."""
    entries, axis, ell = [], 0, False
    adv_shape = tuple(int(s) for s in rng.integers(1, 4, size=rng.integers(0, 3)))
    while axis < len(shape):
        if rng.random() < 0.25 and len(entries) > 0 and axis >= len(shape) - 1:
            break
        n = shape[axis]
        r = rng.random()
        if r < 0.08:
            entries.append(None)
            continue
        if r < 0.14 and not ell:
            entries.append(Ellipsis)
            ell = True
            axis = len(shape) - int(rng.integers(0, len(shape) - axis + 1))
            continue
        if r < 0.34:
            entries.append(int(rng.integers(-n - 2, n + 3)))
        elif r < 0.62:
            bound = lambda: None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))
            step = [None, 1, 2, 3, -1, -2][int(rng.integers(0, 6))]
            entries.append(slice(bound(), bound(), step))
        elif r < 0.9 or not allow_bool:
            dt = INT_DTYPES[int(rng.integers(0, len(INT_DTYPES)))]
            shp = adv_shape[int(rng.integers(0, len(adv_shape) + 1)):]
            entries.append(_rand_int_array(rng, n, shp, dt))
        else:
            k = int(rng.integers(1, min(2, len(shape) - axis) + 1))
            entries.append(rng.random(shape[axis:axis + k]) < 0.5)
            axis += k
            continue
        axis += 1
    return tuple(entries)


def _idx_str(idx):
    def one(e):
        if isinstance(e, np.ndarray):
            return f"{e.dtype}{list(e.shape)}{e.ravel().tolist()[:8]}"
        if isinstance(e, slice):
            return f"{'' if e.start is None else e.start}:{'' if e.stop is None else e.stop}" \
                   f"{'' if e.step is None else ':' + str(e.step)}"
        return repr(e) if e is not Ellipsis else "..."
    return "[" + ", ".join(one(e) for e in idx) + "]"


def _has_bool(idx):
    return any(isinstance(e, np.ndarray) and e.dtype == np.bool_ for e in idx)


def _to_lib(lib, idx):
    """Index arrays as the library's arrays (closed over: concrete under jit)."""
    return tuple(lib.jnp.asarray(e) if isinstance(e, np.ndarray) else e for e in idx)


def hunt_getitem(t, rng, n_cases):
    for _ in range(n_cases):
        shape = _rand_shape(rng, int(rng.integers(1, 5)))
        x = (rng.standard_normal(shape) * 10).astype(np.float32)
        idx = _rand_index(rng, shape, allow_bool=True)
        desc = f"getitem|x{list(shape)}{_idx_str(idx)}"
        bool_ = _has_bool(idx)
        t.check("getitem", desc, lambda L, x: x[_to_lib(L, idx)], (x,),
                modes=("eager",) if bool_ else ("eager", "jit", "interp"),
                jax_mode="eager" if bool_ else "jit")
        # numpy-array indices as given (not converted)
        if not bool_:
            t.check("getitem_np", desc, lambda L, x: x[idx], (x,), modes=("eager", "jit"))
        # traced index arrays
        arrs = [i for i, e in enumerate(idx) if isinstance(e, np.ndarray) and e.dtype != bool]
        if arrs and not bool_:
            def f(L, x, *ks):
                ii = list(idx)
                for p, k in zip(arrs, ks):
                    ii[p] = k
                return x[tuple(ii)]
            t.check("getitem_traced", desc, f, (x,) + tuple(idx[p] for p in arrs))


def _rand_update_index(rng, shape):
    while True:
        idx = _rand_index(rng, shape, allow_bool=False)
        if idx:
            return idx


UPDATES = ["set", "add", "mul", "min", "max", "get", "apply", "subtract"]
MODES = [None, "clip", "drop", "fill", "promise_in_bounds"]


def hunt_at(t, rng, n_cases):
    for _ in range(n_cases):
        shape = _rand_shape(rng, int(rng.integers(1, 4)))
        dt = ["float32", "int32", "int8", "uint8", "bool", "float16"][int(rng.integers(0, 6))]
        x = (rng.standard_normal(shape) * 5).astype(dt)
        idx = _rand_update_index(rng, shape)
        op = UPDATES[int(rng.integers(0, len(UPDATES)))]
        mode = MODES[int(rng.integers(0, len(MODES)))]
        if mode == "promise_in_bounds":
            continue  # (out of bounds is undefined there)
        if dt == "bool" and op in ("add", "mul", "subtract"):
            continue  # (JAX raises; tjit computes NumPy's logical or / and)
        kw = {} if mode is None else {"mode": mode}
        if op == "get" and mode == "fill" and rng.random() < 0.5:
            kw["fill_value"] = -7
        try:
            out_shape = np.empty(shape)[tuple(
                np.clip(e, 0, 0) if isinstance(e, np.ndarray) else
                (0 if isinstance(e, int) else e) for e in idx)].shape
        except Exception:  # noqa: BLE001
            continue
        vshape = out_shape[int(rng.integers(0, len(out_shape) + 1)):]
        v = (rng.standard_normal(vshape) * 5).astype(dt if rng.random() < 0.7 else "float32")
        if op == "set":
            # repeated indices give any one of the values: use a broadcast scalar then
            flat = [e for e in idx if isinstance(e, np.ndarray)]
            if flat and any(e.size > 1 for e in flat):
                v = v.reshape(-1)[:1].reshape(()) if v.size else v
        desc = f"at.{op}|{kw} x{dt}{list(shape)}{_idx_str(idx)} v{v.dtype}{list(v.shape)}"

        def f(L, x, v, op=op, idx=idx, kw=kw):
            ref = x.at[_to_lib(L, idx)]
            if op == "get":
                return ref.get(**kw)
            if op == "apply":
                return ref.apply(lambda a: a * 2 + 1 if a.dtype != bool else ~a, **kw)
            return getattr(ref, op if op != "mul" else "multiply")(v, **kw)
        t.check("at", desc, f, (x, v), tol=1e-3 if dt == "float16" else 1e-6)


def hunt_routines(t, rng, n_cases):
    for _ in range(n_cases):
        shape = _rand_shape(rng, int(rng.integers(1, 4)))
        x = (rng.standard_normal(shape) * 5).astype(np.float32)
        nd = len(shape)
        axis = int(rng.integers(-nd, nd))
        n = shape[axis]
        idt = INT_DTYPES[int(rng.integers(0, len(INT_DTYPES)))]
        k = _rand_int_array(rng, max(n, 1), tuple(int(s) for s in rng.integers(0, 4, size=int(
            rng.integers(0, 3)))), idt)
        mode = [None, "clip", "fill", "wrap"][int(rng.integers(0, 4))]  # ('raise': JAX
        # raises NotImplementedError, tjit too except for an empty result)
        kw = {} if mode is None else {"mode": mode}
        d = f"x{list(shape)} axis={axis} k={_idx_str((k,))} {kw}"
        t.check("take", "take|" + d, lambda L, x, k: L.jnp.take(x, k, axis=axis, **kw),
                (x, k))
        t.check("take_flat", "take_flat|" + d, lambda L, x, k: L.jnp.take(x, k, **kw), (x, k))
        # take_along_axis: indices of x's rank
        ishape = tuple(s if rng.random() < 0.7 else 1 for s in shape)
        ishape = ishape[:axis % nd] + (int(rng.integers(0, 4)),) + ishape[axis % nd + 1:]
        ka = _rand_int_array(rng, max(n, 1), ishape, idt)
        tkw = {} if mode in (None, "wrap", "raise") else {"mode": mode}
        d = f"x{list(shape)} axis={axis} k={_idx_str((ka,))} {tkw}"
        t.check("take_along_axis", "take_along_axis|" + d,
                lambda L, x, k: L.jnp.take_along_axis(x, k, axis=axis, **tkw), (x, ka))
        # put_along_axis (JAX: inplace=False); unique per-row positions
        if n:
            perm = np.argsort(rng.random(shape), axis=axis % nd)
            kp = np.take(perm, np.arange(min(n, 2)), axis=axis % nd).astype(idt)
            vals = rng.standard_normal(kp.shape).astype(np.float32)
            t.check("put_along_axis", f"put_along_axis|x{list(shape)} axis={axis}",
                    lambda L, x, k, v: L.jnp.put_along_axis(x, k, v, axis=axis,
                                                            inplace=False), (x, kp, vals))
        # put
        if x.size:
            kp = _rand_int_array(rng, x.size, (int(rng.integers(0, 4)),), idt)
            kp = np.unique(kp) if mode not in ("clip", "wrap") else kp[:1]
            vals = rng.standard_normal(kp.shape).astype(np.float32)
            pmode = mode if mode in ("clip", "wrap") else None
            t.check("put", f"put|x{list(shape)} k={kp.tolist()} mode={pmode}",
                    lambda L, x, k, v: L.jnp.put(x, k, v, mode=pmode, inplace=False),
                    (x, kp, vals), modes=("eager", "jit", "interp"))
        # compress / extract / choose / select / place
        cond = rng.random(shape[axis % nd]) < 0.5
        t.check("compress", f"compress|x{list(shape)} axis={axis}",
                lambda L, x: L.jnp.compress(cond, x, axis=axis), (x,), modes=("eager",),
                jax_mode="eager")
        # (a size past the axis: JAX raises ValueError, tjit pads with fill_value)
        size = int(rng.integers(0, shape[axis % nd] + 1))
        t.check("compress_size", f"compress_size|x{list(shape)} axis={axis}",
                lambda L, x, c: L.jnp.compress(c, x, axis=axis, size=size, fill_value=-1),
                (x, cond))
        m = rng.random(shape) < 0.5
        size = int(rng.integers(0, x.size + 1))
        t.check("extract", f"extract|x{list(shape)}",
                lambda L, x, m: L.jnp.extract(m, x, size=size, fill_value=9), (x, m))
        nch = int(rng.integers(1, 4))
        ch = (rng.standard_normal((nch,) + shape) * 3).astype(np.float32)
        a = rng.integers(-nch - 1, nch + 2, size=shape).astype(idt if idt[0] == "i" else
                                                                "int32")
        cmode = ["clip", "wrap"][int(rng.integers(0, 2))]
        t.check("choose", f"choose|{list(shape)} n={nch} mode={cmode}",
                lambda L, a, ch: L.jnp.choose(a, list(ch), mode=cmode), (a, ch))
        if nch > 1:
            conds = [rng.random(shape) < 0.4 for _ in range(nch)]
            t.check("select", f"select|{list(shape)}",
                    lambda L, c, ch: L.jnp.select(list(c), list(ch), default=-3.0),
                    (np.array(conds), ch))


def hunt_dynamic(t, rng, n_cases):
    for _ in range(n_cases):
        shape = _rand_shape(rng, int(rng.integers(1, 4)))
        x = (rng.standard_normal(shape) * 5).astype(np.float32)
        sizes = [int(rng.integers(0, s + 1)) for s in shape]
        idt = ["int8", "int32", "uint8", "int64", "uint32"][int(rng.integers(0, 5))]
        starts = [_rand_int_array(rng, s + 3, (), idt) for s in shape]
        d = f"x{list(shape)} starts={[int(s) for s in starts]}({idt}) sizes={sizes}"
        t.check("dynamic_slice", "dynamic_slice|" + d,
                lambda L, x, *s: L.lax.dynamic_slice(x, s, sizes), (x,) + tuple(starts))
        u = rng.standard_normal(sizes).astype(np.float32)
        t.check("dynamic_update_slice", "dynamic_update_slice|" + d,
                lambda L, x, u, *s: L.lax.dynamic_update_slice(x, u, s), (x, u) +
                tuple(starts))
        t.check("dynamic_slice_static", "dynamic_slice_static|" + d,
                lambda L, x: L.lax.dynamic_slice(x, [int(s) for s in starts], sizes), (x,))
        ax = int(rng.integers(0, len(shape)))
        t.check("dynamic_index_in_dim", "dynamic_index_in_dim|" + d,
                lambda L, x, s: L.lax.dynamic_index_in_dim(x, s, ax, keepdims=False),
                (x, starts[ax]))


def _rand_gather(rng):
    """A random lax.gather: operand, indices, dnums kwargs, slice_sizes."""
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    nbatch = int(rng.integers(0, 2)) if rank > 1 else 0
    dims = list(rng.permutation(rank))
    op_batch = sorted(int(d) for d in dims[:nbatch])
    rest = [d for d in dims[nbatch:]]
    k = int(rng.integers(1, len(rest) + 1)) if rest else 0
    index_map = [int(d) for d in rest[:k]]
    collapsed = sorted(int(d) for d in index_map if rng.random() < 0.6)
    slice_sizes = []
    for d in range(rank):
        if d in op_batch or d in collapsed:
            slice_sizes.append(1)
        else:
            slice_sizes.append(int(rng.integers(0 if d not in index_map else 1,
                                                shape[d] + 1)))
    bshape = [int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3)))]
    if op_batch:
        bshape = bshape or [shape[op_batch[0]]]
        bshape[0] = shape[op_batch[0]]
    ishape = bshape + [k]
    start_batch = [0] if op_batch else []
    idx = np.stack([rng.integers(-2, shape[d] + 3, size=bshape) for d in index_map],
                   -1) if k else np.zeros(bshape + [0], np.int64)
    idx = idx.astype(np.int32)
    out_rank = len(bshape) + sum(1 for d in range(rank) if d not in collapsed and
                                 d not in op_batch)
    batch_out = len(bshape)
    offset_dims = list(range(batch_out, out_rank))
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    dn = dict(offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
              start_index_map=tuple(index_map), operand_batching_dims=tuple(op_batch),
              start_indices_batching_dims=tuple(start_batch))
    return x, idx, dn, tuple(slice_sizes), ishape


def hunt_lax_gather_scatter(t, rng, n_cases):
    for _ in range(n_cases):
        x, idx, dn, ss, ishape = _rand_gather(rng)
        mode = ["clip", "fill", "promise_in_bounds", None][int(rng.integers(0, 4))]
        if mode == "promise_in_bounds":
            mode = "clip"
        d = f"x{list(x.shape)} idx{list(idx.shape)}{idx.ravel().tolist()[:6]} {dn} ss={ss} " \
            f"mode={mode}"

        def g(L, x, i):
            return L.lax.gather(x, i, L.lax.GatherDimensionNumbers(**dn), ss, mode=mode)
        t.check("lax.gather", "lax.gather|" + d, g, (x, idx))
        # the matching scatter (updates of the gather's shape)
        try:
            y = np.asarray(g(LIBS[0], x, idx))
        except Exception:  # noqa: BLE001
            continue
        upd = (rng.standard_normal(y.shape) * 3).astype(np.float32)
        sdn = dict(update_window_dims=dn["offset_dims"],
                   inserted_window_dims=dn["collapsed_slice_dims"],
                   scatter_dims_to_operand_dims=dn["start_index_map"],
                   operand_batching_dims=dn["operand_batching_dims"],
                   scatter_indices_batching_dims=dn["start_indices_batching_dims"])
        smode = ["clip", "drop", None, "fill"][int(rng.integers(0, 4))]
        for name in ("scatter_add", "scatter_mul", "scatter_min", "scatter_max", "scatter"):
            if name == "scatter":
                continue  # (repeated windows: any one of the values)

            def s(L, x, i, u, name=name):
                return getattr(L.lax, name)(x, i, u, L.lax.ScatterDimensionNumbers(**sdn),
                                            mode=smode)
            t.check("lax." + name, f"lax.{name}|{d} smode={smode}", s, (x, idx, upd),
                    tol=1e-5)


# -- integer and cast semantics -----------------------------------------------------------------
def _edge_ints(dt):
    info = np.iinfo(dt)
    vals = [0, 1, -1, 2, -2, 3, -3, 7, -7, info.min, info.max, info.min + 1, info.max - 1,
            info.bits, info.bits - 1, info.bits + 1, 100, -100]
    return np.array([v for v in vals if info.min <= v <= info.max], dt)


def hunt_ints(t, rng, x64):
    dts = [d for d in INT_DTYPES if x64 or d not in ("int64", "uint64")]
    for dt in dts:
        e = _edge_ints(dt)
        a = np.repeat(e, len(e))
        b = np.tile(e, len(e))
        for name in ("floor_divide", "remainder", "fmod", "divmod", "left_shift",
                     "right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "power",
                     "true_divide", "add", "subtract", "multiply", "minimum", "gcd", "lcm"):
            if name == "power":
                bb = np.abs(b.astype(np.int64)).clip(0, 70).astype(dt)
            else:
                bb = b
            aa = a
            if name in ("gcd", "lcm"):  # (JAX's gcd loops forever on the dtype's minimum)
                keep = (a != np.iinfo(dt).min) & (b != np.iinfo(dt).min)
                aa, bb = a[keep], bb[keep]
            t.check("int." + name, f"int.{name}|{dt}",
                    lambda L, a, b, name=name: getattr(L.jnp, name)(a, b), (aa, bb))
            # python-scalar second operand
        for s in (0, -1, 3, 100):
            for name in ("floor_divide", "remainder", "left_shift", "right_shift"):
                if s < 0 and dt.startswith("u"):
                    continue
                t.check("int.scalar." + name, f"int.scalar.{name}|{dt} s={s}",
                        lambda L, a, name=name, s=s: getattr(L.jnp, name)(a, s), (e,))
        for name in ("abs", "negative", "invert", "sign", "square", "absolute", "bitwise_count",
                     "positive"):
            t.check("int." + name, f"int.{name}|{dt}",
                    lambda L, a, name=name: getattr(L.jnp, name)(a), (e,))
        for name in ("shift_left", "shift_right_logical", "shift_right_arithmetic", "rem",
                     "div", "max", "pow"):
            if name == "pow":
                continue
            t.check("lax." + name, f"lax.{name}|{dt}",
                    lambda L, a, b, name=name: getattr(L.lax, name)(a, b), (a, b))
        for p in (0, 1, 2, 3, 5, 7, 31, 63):
            t.check("integer_pow", f"integer_pow|{dt} p={p}",
                    lambda L, a, p=p: L.lax.integer_pow(a, p), (e,))
            t.check("jnp.power_scalar", f"jnp.power_scalar|{dt} p={p}",
                    lambda L, a, p=p: L.jnp.power(a, p), (e,))
        for to in ("float32", "float16", "bfloat16", "bool", "int8", "uint8", "int32",
                   "uint32") + (("float64", "int64", "uint64") if x64 else ()):
            t.check("int.astype", f"int.astype|{dt}->{to}",
                    lambda L, a, to=to: a.astype(to), (e,))
            t.check("int.convert", f"int.convert|{dt}->{to}",
                    lambda L, a, to=to: L.lax.convert_element_type(a, getattr(L.jnp, to)),
                    (e,))
    # bool bitwise
    bt = np.array([True, False, True, False])
    bf = np.array([True, True, False, False])
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                 "add", "multiply", "subtract", "floor_divide", "remainder", "maximum"):
        t.check("bool." + name, f"bool.{name}",
                lambda L, a, b, name=name: getattr(L.jnp, name)(a, b), (bt, bf))
    for name in ("invert", "bitwise_not", "negative", "abs", "sign", "bitwise_count"):
        t.check("bool." + name, f"bool.{name}",
                lambda L, a, name=name: getattr(L.jnp, name)(a), (bt,))


def hunt_float_casts(t, rng, x64):
    fdts = ["float32", "float16", "bfloat16"] + (["float64"] if x64 else [])
    tos = ["int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"] + (
        ["int64", "uint64"] if x64 else [])
    for fd in fdts:
        vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 127.9, 128.0,
                -129.0, 255.5, 256.0, 32767.0, 32768.0, -32769.0, 65535.0, 65536.0,
                2.0**31, -2.0**31, -2.0**31 - 256, 2.0**32, 2.0**63, -2.0**63, 2.0**64,
                1e30, -1e30, -1.0, -3.7]
        import ml_dtypes  # noqa: F401 (bfloat16 for NumPy)
        x = np.array(vals, np.float64).astype(fd if fd != "bfloat16" else ml_dtypes.bfloat16)
        for to in tos:
            t.check("float.astype", f"float.astype|{fd}->{to}",
                    lambda L, a, to=to: a.astype(to), (x,))
            t.check("float.convert", f"float.convert|{fd}->{to}",
                    lambda L, a, to=to: L.lax.convert_element_type(a, getattr(L.jnp, to)),
                    (x,))
        for name in ("floor_divide", "remainder", "fmod", "divmod"):
            a = np.array([1.0, -1.0, 0.0, np.inf, -np.inf, np.nan, 5.0, -5.0, 7.5], fd
                         if fd != "bfloat16" else np.float32)
            b = np.array([0.0, 0.0, 0.0, 2.0, 0.0, 1.0, -0.0, np.inf, -np.inf],
                         a.dtype)
            t.check("float." + name, f"float.{name}|{a.dtype}",
                    lambda L, a, b, name=name: getattr(L.jnp, name)(a, b), (a, b), tol=1e-6)
    # large ints to float
    big = np.array([2**24 + 1, 2**24 + 3, 2**31 - 1, -2**31, 16777217, 2**25 + 3], np.int32)
    for to in ("float32", "float16", "bfloat16"):
        t.check("int2float", f"int2float|int32->{to}", lambda L, a, to=to: a.astype(to),
                (big,))
    if x64:
        b64 = np.array([2**53 + 1, 2**63 - 1, -2**63, 2**62 + 2**9 + 1], np.int64)
        u64 = np.array([2**64 - 1, 2**63, 2**53 + 1, 0], np.uint64)
        for to in ("float32", "float64", "int32", "uint32", "int64", "uint64", "bool"):
            t.check("int64.astype", f"int64.astype|->{to}", lambda L, a, to=to: a.astype(to),
                    (b64,))
            t.check("uint64.astype", f"uint64.astype|->{to}",
                    lambda L, a, to=to: a.astype(to), (u64,))


# -- transformations ----------------------------------------------------------------------------
def hunt_vmap_grad(t, rng, n_cases):
    for _ in range(n_cases):
        shape = _rand_shape(rng, int(rng.integers(1, 4)))
        shape = tuple(max(s, 1) for s in shape)
        x = rng.standard_normal((3,) + shape).astype(np.float32)
        n = shape[0]
        k = rng.integers(-n - 2, n + 2, size=(3, int(rng.integers(1, 5)))).astype(np.int32)
        op = ["get", "add", "set", "mul", "min", "max"][int(rng.integers(0, 6))]
        mode = [None, "clip", "drop", "fill"][int(rng.integers(0, 4))]
        kw = {} if mode is None else {"mode": mode}
        v = rng.standard_normal((3, k.shape[1]) + shape[1:]).astype(np.float32)

        def f(L, x, k, v, op=op, kw=kw):
            ref = x.at[k]
            if op == "get":
                return ref.get(**kw)
            if op == "set":
                return ref.set(v[:1] * 0 + 1.5, **kw)
            return getattr(ref, op if op != "mul" else "multiply")(v, **kw)

        d = f"x{list(x.shape)} k={k.tolist()} {op} {kw}"
        t.check("vmap_at", "vmap_at|" + d,
                lambda L, x, k, v: L.jax.vmap(lambda a, b, c: f(L, a, b, c))(x, k, v),
                (x, k, v), tol=1e-5)
        # gradient wrt x and v (sum of squares of the result with weights)
        jn = LIBS[0].jnp
        w = rng.standard_normal(np.asarray(f(LIBS[0], jn.asarray(x[0]), jn.asarray(k[0]),
                                             jn.asarray(v[0]))).shape).astype(
            np.float32)

        def loss(L, x, k, v, w):
            return L.jax.grad(lambda a, c: L.jnp.sum(f(L, a, k, c) * w) if op == "get" else
                              L.jnp.sum(f(L, a, k, c) ** 2 * w), argnums=(0, 1))(x, v)
        if op not in ("min", "max"):  # (ties: JAX splits or picks; compared separately)
            t.check("grad_at", "grad_at|" + d, loss, (x[0], k[0], v[0], w), tol=1e-4)
        # gradient of getitem with repeated indices
        idx = _rand_index(rng, shape, allow_bool=False)
        wi = np.asarray(x[0][tuple(np.clip(e, 0, 0) if isinstance(e, np.ndarray) else e
                                   for e in idx)]) if False else None  # noqa
        t.check("grad_getitem", f"grad_getitem|x{list(shape)}{_idx_str(idx)}",
                lambda L, x: L.jax.grad(lambda a: L.jnp.sum(a[_to_lib(L, idx)] ** 2))(x),
                (x[0],), tol=1e-5)
        t.check("vmap_getitem", f"vmap_getitem|x{list(shape)}{_idx_str(idx)}",
                lambda L, x: L.jax.vmap(lambda a: a[_to_lib(L, idx)])(x), (x,))


SHOW = 3
VERBOSE = False
LIBS = None


def main():
    global LIBS, SHOW, VERBOSE
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--x64", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--show", type=int, default=3)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    SHOW, VERBOSE = a.show, a.verbose
    LIBS = _libs(a.x64)
    rng = np.random.default_rng(a.seed)
    t = Tally()
    hunts = {"getitem": lambda: hunt_getitem(t, rng, a.cases),
             "at": lambda: hunt_at(t, rng, a.cases),
             "routines": lambda: hunt_routines(t, rng, a.cases // 3),
             "dynamic": lambda: hunt_dynamic(t, rng, a.cases // 3),
             "lax": lambda: hunt_lax_gather_scatter(t, rng, a.cases // 3),
             "ints": lambda: hunt_ints(t, rng, a.x64),
             "casts": lambda: hunt_float_casts(t, rng, a.x64),
             "vmap_grad": lambda: hunt_vmap_grad(t, rng, a.cases // 3)}
    for name, h in hunts.items():
        if a.only and name not in a.only.split(","):
            continue
        h()
    print("\ncategory                      cases  disagreements  both-raised")
    for cat in sorted(t.cases):
        print(f"{cat:28s} {t.cases[cat]:6d} {t.bad[cat]:6d} {t.raised[cat]:6d}")
    print(f"{'TOTAL':28s} {sum(t.cases.values()):6d} {sum(t.bad.values()):6d} "
          f"{sum(t.raised.values()):6d}")


if __name__ == "__main__":
    sys.exit(main())
