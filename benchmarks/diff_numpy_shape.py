"""Differential hunt: array creation and manipulation (``jnp.reshape`` ... ``jnp.fromiter``).

Each case is one function ``f(m, *arrays)`` written once against a NumPy-like module ``m``;
the non-array parameters (axes, shapes, modes) are drawn at random and closed over, so
under ``jit`` they are static. Checks per case: tjit eager against NumPy (values, shape and
dtype), ``jit`` against eager, ``vmap`` over the first array against a Python loop of NumPy
calls; JAX 0.10.2 as a second opinion (a tjit-vs-NumPy disagreement where JAX agrees with
tjit is listed as "jax-agrees": a documented JAX difference such as out-of-bounds ``take``
filling with NaN, or float32/int32 defaults).

Run: ``/work/jaxvenv/bin/python benchmarks/diff_numpy_shape.py [all | area,area...] [N]
[--seed S]`` (N: random draws per area, default 40; S: the seed, default 0). Prints a
table of areas x checks (cases / disagreements) and the first failing cases of each.
"""

import collections
import sys
import traceback
import warnings

import numpy as np

import tjit
from tjit import numpy as tnp

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

warnings.filterwarnings("ignore")
RESULTS = collections.Counter()  # (area, check, ok) -> count
FAILS = collections.defaultdict(list)
RNG = np.random.default_rng(int(sys.argv[sys.argv.index("--seed") + 1])
                            if "--seed" in sys.argv else 0)
DTYPES = (np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.complex128)


def record(area, check, ok, info):
    RESULTS[area, check, ok] += 1
    if (not ok or check == "raises-as-jax") and len(FAILS[area, check]) < 8:
        FAILS[area, check].append(info)


def leaves(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in leaves(v)]
    return [np.asarray(x)]


def same(a, b, dtypes=False):
    """Equal shapes and values (NaN == NaN); with ``dtypes`` the dtypes too."""
    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if x.shape != y.shape or (dtypes and x.dtype != y.dtype):
            return False
        # float32 results of the same formula (arange, linspace) may differ by an ulp
        low = [d for d in (x.dtype, y.dtype) if d in (np.float32, np.complex64, np.float16)]
        tol = 1e-6 if low else 1e-12
        x, y = x.astype(np.complex128), y.astype(np.complex128)
        with np.errstate(invalid="ignore"):
            scale = np.maximum(1.0, np.abs(y))
            ok = (np.abs(x - y) <= tol * scale) | (np.isnan(x) & np.isnan(y)) | (x == y)
        if not np.all(ok):
            return False
    return True


def short(x):
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(short(v) for v in x) + ")"
    a = np.asarray(x)
    return f"{np.array2string(a, precision=5, threshold=12, max_line_width=200)}:{a.dtype}{a.shape}"


def attempt(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (a raising path is a result here)
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


class Case:
    """``f(m, *args)``; ``vmap``: batch over args[0] too; ``jit``: also under jit;
    ``dtypes``: compare result dtypes with NumPy (off where JAX's defaults differ)."""

    def __init__(self, area, name, f, args, vmap=True, jit=True, dtypes=True):
        self.area, self.name, self.f, self.args = area, name, f, args
        self.vmap, self.jit, self.dtypes = vmap, jit, dtypes

    def run(self, m, *args):
        out = m(*args) if callable(m) else self.f(m, *args)
        if isinstance(out, (tuple, list)):
            return [np.asarray(v) if not isinstance(v, (tuple, list)) else
                    [np.asarray(u) for u in v] for v in out]
        return np.asarray(out)


def check_case(c):
    args = [np.asarray(a) for a in c.args]
    ref, ref_err = attempt(lambda: c.run(np, *args))
    jref, jerr = (attempt(lambda: c.run(jnp, *args)) if jax else (None, "no jax"))
    out, err = attempt(lambda: c.run(tnp, *args))
    if ref_err is not None:  # NumPy refuses: tjit should too, unless JAX accepts it
        ok = err is not None or (jerr is None and same(out, jref))
        record(c.area, "eager", ok, f"{c.name}: NumPy raises {ref_err}; tjit gives {short(out)}")
        return
    if err is not None:
        ok = jerr is not None
        record(c.area, "raises-as-jax" if ok else "eager", ok,
               f"{c.name}: tjit raises {err} (JAX: {jerr or short(jref)}; NumPy {short(ref)})")
        return
    ok = same(out, ref)
    jax_agrees = not ok and jerr is None and same(out, jref)
    if jax_agrees:
        record(c.area, "jax-agrees", False, f"{c.name}: tjit {short(out)} NumPy {short(ref)}")
    else:
        record(c.area, "eager", ok, f"{c.name}: tjit {short(out)} NumPy {short(ref)} "
               f"JAX {short(jref) if jerr is None else jerr}")
    if ok and c.dtypes:
        tdt, ndt = [v.dtype for v in leaves(out)], [v.dtype for v in leaves(ref)]
        jdt = [v.dtype for v in leaves(jref)] if jerr is None else None
        if tdt != ndt and tdt == jdt:
            record(c.area, "dtype-jax-agrees", False, f"{c.name}: tjit {tdt} NumPy {ndt}")
        else:
            record(c.area, "dtype", tdt == ndt, f"{c.name}: tjit {tdt} NumPy {ndt} JAX {jdt}")
    if c.jit:
        got, err = attempt(lambda: c.run(tjit.jit(lambda *a: c.f(tnp, *a)), *args))
        if err is not None:
            jax_ok = jax and attempt(lambda: jax.jit(lambda *a: c.f(jnp, *a))(*args))[1] is None
            record(c.area, "jit", not jax_ok, f"{c.name}: tjit jit raises {err}")
        else:
            record(c.area, "jit", same(got, out, True),
                   f"{c.name}: jit {short(got)} eager {short(out)}")
    if c.vmap and args and args[0].ndim >= 0 and args[0].size:
        # a kept JAX difference is JAX's under vmap too: then the loop runs JAX's calls
        check_vmap(c, args, jnp if jax_agrees else np)


def check_vmap(c, args, loop_module=np):
    """vmap over args[0] (three slices) vs a Python loop of NumPy (or JAX) calls."""
    x = args[0]
    batch = [x, x[::-1].reshape(x.shape) if x.ndim else x, (x * 2).astype(x.dtype)
             if x.dtype != np.bool_ else ~x]
    refs, err = attempt(lambda: [c.run(loop_module, b, *args[1:]) for b in batch])
    if err is not None:
        return
    stacked = np.stack(batch)
    in_axes = (0,) + (None,) * (len(args) - 1)
    got, err = attempt(lambda: tjit.vmap(lambda *a: c.f(tnp, *a), in_axes=in_axes)(
        stacked, *args[1:]))
    if err is not None:
        jax_ok = jax and attempt(lambda: jax.vmap(lambda *a: c.f(jnp, *a), in_axes=in_axes)(
            stacked, *args[1:]))[1] is None
        record(c.area, "vmap", not jax_ok, f"{c.name}: vmap raises {err}")
        return
    gl, per = leaves(got), [leaves(r) for r in refs]
    ok = len(gl) == len(per[0]) and all(
        same(np.asarray(g), np.stack([p[j] for p in per])) for j, g in enumerate(gl))
    record(c.area, "vmap", ok, f"{c.name}: vmap {short(gl)} loop {short([p[0] for p in per])}")


# ----------------------------------------------------------------------------- inputs

def rand_shape(rank=None, lo=0, hi=4):
    rank = RNG.integers(0, 5) if rank is None else rank
    return tuple(int(RNG.integers(lo, hi + 1)) for _ in range(rank))


def rand_array(shape=None, dtype=None):
    shape = rand_shape() if shape is None else shape
    dtype = DTYPES[RNG.integers(len(DTYPES))] if dtype is None else dtype
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype.kind == "c":
        return (RNG.integers(-5, 6, shape) + 1j * RNG.integers(-5, 6, shape)).astype(dtype)
    if dtype.kind == "u":
        return RNG.integers(0, 10, shape).astype(dtype)
    if dtype.kind == "i":
        return RNG.integers(-9, 10, shape).astype(dtype)
    return (RNG.integers(-20, 21, shape) / 4).astype(dtype)


def pick(*xs):
    return xs[RNG.integers(len(xs))]


def rand_axis(ndim, allow_none=False):
    if allow_none and RNG.random() < 0.2:
        return None
    return int(RNG.integers(-ndim, ndim)) if ndim else 0


def rand_axes(ndim, k=None):
    k = int(RNG.integers(0, ndim + 1)) if k is None else k
    ax = RNG.permutation(ndim)[:k]
    return tuple(int(a) - (ndim if RNG.random() < 0.5 else 0) for a in ax)


# ----------------------------------------------------------------------------- areas

def area_reshape(n):
    for _ in range(n):
        x = rand_array()
        order = pick("C", "F")
        sh = list(x.shape)
        RNG.shuffle(sh)
        new = list(sh)
        if new and RNG.random() < 0.5:
            new[RNG.integers(len(new))] = -1
        if x.size and RNG.random() < 0.3:
            new = [-1]
        new = tuple(new)
        yield Case("reshape", f"reshape({x.shape}->{new},{order})",
                   lambda m, a, new=new, o=order: m.reshape(a, new, order=o), [x])
        yield Case("reshape", f"ravel({x.shape},{order})",
                   lambda m, a, o=order: m.ravel(a, order=o), [x])
        yield Case("reshape", f"flatten({x.shape},{order})",
                   lambda m, a, o=order: m.asarray(a).flatten(order=o) if m is not np
                   else a.flatten(order=o), [x])
        yield Case("reshape", f"x.reshape({x.shape}, *{new})",
                   lambda m, a, new=new: m.asarray(a).reshape(*new) if m is not np
                   else a.reshape(*new), [x])


def area_transpose(n):
    for _ in range(n):
        x = rand_array()
        nd = x.ndim
        perm = tuple(int(p) - (nd if RNG.random() < 0.3 else 0) for p in RNG.permutation(nd))
        yield Case("transpose", f"transpose({x.shape},{perm})",
                   lambda m, a, p=perm: m.transpose(a, p), [x])
        yield Case("transpose", f"transpose({x.shape})", lambda m, a: m.transpose(a), [x])
        yield Case("transpose", f"permute_dims({x.shape},{perm})",
                   lambda m, a, p=perm: m.permute_dims(a, p), [x])
        if nd:
            k = int(RNG.integers(1, nd + 1))
            src, dst = rand_axes(nd, k), rand_axes(nd, k)
            if RNG.random() < 0.4:
                src, dst = src[0], dst[0]
            yield Case("transpose", f"moveaxis({x.shape},{src},{dst})",
                       lambda m, a, s=src, d=dst: m.moveaxis(a, s, d), [x])
            a1, a2 = rand_axis(nd), rand_axis(nd)
            yield Case("transpose", f"swapaxes({x.shape},{a1},{a2})",
                       lambda m, a, a1=a1, a2=a2: m.swapaxes(a, a1, a2), [x])
            start = int(RNG.integers(-nd, nd + 1))
            yield Case("transpose", f"rollaxis({x.shape},{a1},{start})",
                       lambda m, a, a1=a1, s=start: m.rollaxis(a, a1, s), [x])
            yield Case("transpose", f"x.T({x.shape})", lambda m, a: m.asarray(a).T, [x])
            if nd >= 2:
                yield Case("transpose", f"matrix_transpose({x.shape})",
                           lambda m, a: m.matrix_transpose(a), [x])


def area_dims(n):
    for _ in range(n):
        x = rand_array()
        nd = x.ndim
        k = int(RNG.integers(1, 3))
        out_nd = nd + k
        ax = tuple(int(a) - (out_nd if RNG.random() < 0.5 else 0)
                   for a in RNG.permutation(out_nd)[:k])
        ax = ax[0] if k == 1 and RNG.random() < 0.5 else ax
        yield Case("dims", f"expand_dims({x.shape},{ax})",
                   lambda m, a, ax=ax: m.expand_dims(a, ax), [x])
        ones = [i for i, s in enumerate(x.shape) if s == 1]
        sq = None
        if ones and RNG.random() < 0.7:
            sel = [o for o in ones if RNG.random() < 0.6] or ones[:1]
            sq = tuple(o - (nd if RNG.random() < 0.5 else 0) for o in sel)
            sq = sq[0] if len(sq) == 1 and RNG.random() < 0.5 else sq
        yield Case("dims", f"squeeze({x.shape},{sq})",
                   lambda m, a, sq=sq: m.squeeze(a, sq), [x])
        for fn in ("atleast_1d", "atleast_2d", "atleast_3d"):
            y = rand_array(rand_shape(int(RNG.integers(0, 4))))
            yield Case("dims", f"{fn}({x.shape},{y.shape})",
                       lambda m, a, b, fn=fn: getattr(m, fn)(a, b), [x, y])
            yield Case("dims", f"{fn}({x.shape})",
                       lambda m, a, fn=fn: getattr(m, fn)(a), [x])


def area_broadcast(n):
    for _ in range(n):
        x = rand_array(rand_shape(hi=3))
        target = list(rand_shape(int(RNG.integers(0, 3)), hi=3)) + [
            s if (s != 1 or RNG.random() < 0.5) else int(RNG.integers(0, 4)) for s in x.shape]
        target = tuple(target)
        yield Case("broadcast", f"broadcast_to({x.shape},{target})",
                   lambda m, a, t=target: m.broadcast_to(a, t), [x])
        y = rand_array(tuple(s if RNG.random() < 0.6 else 1 for s in x.shape[RNG.integers(
            0, x.ndim + 1):]))
        z = rand_array(())
        yield Case("broadcast", f"broadcast_arrays({x.shape},{y.shape},())",
                   lambda m, a, b, c: m.broadcast_arrays(a, b, c), [x, y, z])
        yield Case("broadcast", f"broadcast_shapes({x.shape},{y.shape},{target})",
                   lambda m, a, b, t=target: m.asarray(m.broadcast_shapes(a.shape, b.shape, t)),
                   [x, y], vmap=False, jit=False, dtypes=False)


PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
             "reflect", "symmetric", "wrap", "empty")


def rand_widths(nd):
    form = pick("int", "pair", "per-axis", "per-axis-pair")
    if form == "int":
        return int(RNG.integers(0, 4))
    if form == "pair":
        return (int(RNG.integers(0, 4)), int(RNG.integers(0, 4)))
    if form == "per-axis":
        return tuple((int(RNG.integers(0, 4)),) for _ in range(nd))
    return tuple((int(RNG.integers(0, 5)), int(RNG.integers(0, 5))) for _ in range(nd))


def _pad_cb(vector, iaxis_pad_width, iaxis, kwargs):
    # JAX's callable form returns the padded vector (NumPy's writes in place; both return).
    lo, hi = iaxis_pad_width
    vector = vector.at[:lo].set(kwargs.get("v", 7)) if hasattr(vector, "at") else vector
    if not hasattr(vector, "at"):
        vector[:lo] = kwargs.get("v", 7)
        if hi:
            vector[-hi:] = -iaxis
        return vector
    return vector.at[vector.shape[0] - hi:].set(-iaxis) if hi else vector


def area_pad(n):
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(0, 4)), lo=1 if RNG.random() < 0.7 else 0))
        if x.dtype == np.uint8:
            x = x.astype(np.int64)
        mode = pick(*PAD_MODES)
        pw = rand_widths(x.ndim)
        kw = {}
        if mode == "constant" and RNG.random() < 0.7:
            kw["constant_values"] = pick(3, (1, 2), tuple((int(RNG.integers(-3, 3)),
                                                          int(RNG.integers(-3, 3)))
                                                         for _ in range(x.ndim)) or 5)
        if mode in ("maximum", "mean", "median", "minimum") and RNG.random() < 0.6:
            kw["stat_length"] = pick(1, 2, (1, 3), tuple((int(RNG.integers(1, 4)),
                                                         int(RNG.integers(1, 4)))
                                                        for _ in range(x.ndim)) or 2)
        if mode in ("reflect", "symmetric") and RNG.random() < 0.5:
            kw["reflect_type"] = "odd"
        if mode == "linear_ramp" and RNG.random() < 0.7:
            kw["end_values"] = pick(2, (-1, 4), tuple((int(RNG.integers(-3, 3)),
                                                       int(RNG.integers(-3, 3)))
                                                      for _ in range(x.ndim)) or 1)
        if mode == "empty":  # unspecified values: compare only the shape
            yield Case("pad", f"pad({x.shape},{pw},empty)",
                       lambda m, a, pw=pw: m.asarray(m.pad(a, pw, "empty").shape), [x],
                       vmap=False, dtypes=False)
            continue
        yield Case("pad", f"pad({x.shape}:{x.dtype},{pw},{mode},{kw})",
                   lambda m, a, pw=pw, mode=mode, kw=kw: m.pad(a, pw, mode, **kw), [x])
        if RNG.random() < 0.2 and x.ndim:
            yield Case("pad", f"pad({x.shape},{pw},callable)",
                       lambda m, a, pw=pw: m.pad(a, pw, _pad_cb, v=5), [x], vmap=False)


def area_tile_repeat(n):
    for _ in range(n):
        x = rand_array(rand_shape(hi=3))
        reps = pick(int(RNG.integers(0, 3)), rand_shape(int(RNG.integers(0, 5)), hi=2))
        yield Case("tile_repeat", f"tile({x.shape},{reps})",
                   lambda m, a, r=reps: m.tile(a, r), [x])
        ax = rand_axis(x.ndim, allow_none=True) if x.ndim else None
        length = x.size if ax is None else x.shape[ax]
        rep = pick(int(RNG.integers(0, 4)), RNG.integers(0, 4, length), [2])
        kw = {}
        total = int(np.sum(np.broadcast_to(rep, (length,))))
        if not np.isscalar(rep) and RNG.random() < 0.4:
            kw["total_repeat_length"] = total
        yield Case("tile_repeat", f"repeat({x.shape},{rep},{ax},{kw})",
                   lambda m, a, r=rep, ax=ax, kw=kw: m.repeat(
                       a, r, axis=ax, **(kw if m is not np else {})), [x])
        if not np.isscalar(rep) and len(np.atleast_1d(rep)) == length:
            # repeats as a traced array needs total_repeat_length under jit
            yield Case("tile_repeat", f"repeat({x.shape},array {rep},{ax},trl={total})",
                       lambda m, a, r, ax=ax, t=total: m.repeat(
                           a, r, axis=ax, **({"total_repeat_length": t} if m is not np else {})),
                       [x, np.asarray(rep)])


def area_split(n):
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(1, 4)), hi=6))
        ax = rand_axis(x.ndim)
        length = x.shape[ax]
        if RNG.random() < 0.5:
            idx = sorted(int(v) for v in RNG.integers(-2, length + 3, int(RNG.integers(0, 4))))
            if RNG.random() < 0.3:
                idx = idx[::-1]
        else:
            divs = [d for d in range(1, 7) if length % d == 0] if length else [1, 2, 3]
            idx = int(pick(*divs))
        yield Case("split", f"split({x.shape},{idx},{ax})",
                   lambda m, a, i=idx, ax=ax: m.split(a, i, axis=ax), [x])
        sec = pick(int(RNG.integers(1, 6)), idx)
        yield Case("split", f"array_split({x.shape},{sec},{ax})",
                   lambda m, a, s=sec, ax=ax: m.array_split(a, s, axis=ax), [x])
        for fn, need in (("hsplit", 1), ("vsplit", 2), ("dsplit", 3)):
            if x.ndim >= need:
                sax = 1 if (fn == "hsplit" and x.ndim > 1) else (0 if fn != "dsplit" else 2)
                ln = x.shape[sax]
                s = pick(*[d for d in range(1, 5) if ln % d == 0]) if ln else 1
                s = pick(s, [1, 3])
                yield Case("split", f"{fn}({x.shape},{s})",
                           lambda m, a, fn=fn, s=s: getattr(m, fn)(a, s), [x])
        if x.ndim >= 1 and RNG.random() < 0.3:
            y = rand_array((0,) + x.shape[1:], x.dtype)
            yield Case("split", f"unstack({x.shape},{ax})",
                       lambda m, a, ax=ax: m.unstack(a, axis=ax) if m is not np else
                       tuple(np.moveaxis(a, ax, 0)), [x])
            del y


def area_concat(n):
    for _ in range(n):
        base = rand_shape(int(RNG.integers(0, 4)), hi=3)
        k = int(RNG.integers(1, 4))
        dts = [pick(np.float64, np.int32, np.bool_, np.complex128, np.float32) for _ in range(k)]
        nd = len(base)
        ax = rand_axis(nd) if nd else 0
        xs = []
        for d in dts:
            s = list(base)
            if nd:
                s[ax] = int(RNG.integers(0, 4))
            xs.append(rand_array(tuple(s), d))
        names = f"{[x.shape for x in xs]}:{[x.dtype.name for x in xs]}"
        if nd:
            yield Case("concat", f"concatenate({names},{ax})",
                       lambda m, *a, ax=ax: m.concatenate(a, axis=ax), xs)
            yield Case("concat", f"concatenate({names},None)",
                       lambda m, *a: m.concatenate(a, axis=None), xs)
        same_shape = [rand_array(base, d) for d in dts]
        names = f"{base}x{k}:{[d.__name__ for d in dts]}"
        sax = int(RNG.integers(-nd - 1, nd + 1))
        for fn in ("stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"):
            if fn == "stack":
                g = (lambda m, *a, ax=sax: m.stack(a, axis=ax))
            elif fn == "row_stack":
                # NumPy 2 deprecates row_stack and JAX 0.10 dropped it: vstack is the reference
                g = (lambda m, *a: m.row_stack(a) if m is tnp else m.vstack(a))
            else:
                g = (lambda m, *a, fn=fn: getattr(m, fn)(a))
            yield Case("concat", f"{fn}({names}{',' + str(sax) if fn == 'stack' else ''})",
                       g, same_shape)
        if k >= 2 and nd <= 2:
            a, b, c = (rand_array((2, 2)), rand_array((2, 3)), rand_array((1, 5)))
            yield Case("concat", "block([[2x2, 2x3], [1x5]])",
                       lambda m, a, b, c: m.block([[a, b], [c]]), [a, b, c])
            d1, d2 = rand_array((3,)), rand_array((2,))
            yield Case("concat", "block([1d, 1d, scalar])",
                       lambda m, a, b: m.block([a, b, 4]), [d1, d2], dtypes=False)
            e = rand_array((2, 1, 2))
            yield Case("concat", "block([[[e, e]], [[e, e]]])",
                       lambda m, e: m.block([[[e, e]], [[e, e]]]), [e])


def area_insert_delete(n):
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(0, 4)), hi=5))
        ax = rand_axis(x.ndim, allow_none=True) if x.ndim else None
        length = x.size if ax is None else x.shape[ax]
        v = rand_array(pick((), (1,), (2,)), pick(np.float64, np.int32, np.bool_))
        yield Case("insert_delete", f"append({x.shape},{v.shape},{ax})",
                   lambda m, a, b, ax=ax: m.append(a, b, axis=ax), [x, v]
                   if ax is None else [x, rand_array(tuple(
                       s if i != ax % x.ndim else 2 for i, s in enumerate(x.shape)))])
        obj = pick(int(RNG.integers(-length, length + 1)) if length else 0,
                   sorted(RNG.integers(-length, length + 1, 2).tolist()) if length else [0],
                   slice(1, None, 2), [0, 0])
        yield Case("insert_delete", f"insert({x.shape},{obj},{v.tolist()},{ax})",
                   lambda m, a, b, o=obj, ax=ax: m.insert(a, o, b, axis=ax), [x, v])
        dobj = pick(int(RNG.integers(-length, length)) if length else 0,
                    RNG.integers(-length, length, 2).tolist() if length else [],
                    slice(None, None, 2), slice(-1, 0, -2),
                    (RNG.random(length) < 0.5).tolist())
        yield Case("insert_delete", f"delete({x.shape},{dobj},{ax})",
                   lambda m, a, o=dobj, ax=ax: m.delete(a, o, axis=ax), [x])
        new = rand_shape(int(RNG.integers(0, 3)), hi=5)
        yield Case("insert_delete", f"resize({x.shape},{new})",
                   lambda m, a, s=new: m.resize(a, s), [x])
        t = np.concatenate([np.zeros(int(RNG.integers(0, 3))), rand_array((int(
            RNG.integers(0, 4)),), np.float64), np.zeros(int(RNG.integers(0, 3)))])
        trim = pick("fb", "f", "b", "F", "B")
        yield Case("insert_delete", f"trim_zeros({t.tolist()},{trim})",
                   lambda m, a, tr=trim: m.trim_zeros(a, tr), [t], vmap=False, jit=False)


def area_roll_flip(n):
    for _ in range(n):
        x = rand_array()
        nd = x.ndim
        form = pick("none", "int", "tuple") if nd else "none"
        if form == "none":
            sh, ax = int(RNG.integers(-7, 8)), None
        elif form == "int":
            sh, ax = int(RNG.integers(-7, 8)), rand_axis(nd)
        else:
            k = int(RNG.integers(1, 3))
            ax = tuple(rand_axis(nd) for _ in range(k))
            sh = pick(tuple(int(v) for v in RNG.integers(-7, 8, k)), int(RNG.integers(-7, 8)))
        yield Case("roll_flip", f"roll({x.shape},{sh},{ax})",
                   lambda m, a, s=sh, ax=ax: m.roll(a, s, ax), [x])
        if nd >= 2:
            k = int(RNG.integers(-5, 6))
            axes = tuple(int(v) - (nd if RNG.random() < 0.5 else 0)
                         for v in RNG.permutation(nd)[:2])
            yield Case("roll_flip", f"rot90({x.shape},{k},{axes})",
                       lambda m, a, k=k, axes=axes: m.rot90(a, k, axes), [x])
            yield Case("roll_flip", f"fliplr({x.shape})", lambda m, a: m.fliplr(a), [x])
        if nd >= 1:
            yield Case("roll_flip", f"flipud({x.shape})", lambda m, a: m.flipud(a), [x])
        fax = pick(None, rand_axis(nd) if nd else None, rand_axes(nd))
        yield Case("roll_flip", f"flip({x.shape},{fax})", lambda m, a, ax=fax: m.flip(a, ax),
                   [x])


def area_take(n):
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(1, 4)), lo=1, hi=4))
        nd = x.ndim
        ax = rand_axis(nd, allow_none=True)
        length = x.size if ax is None else x.shape[ax]
        inbounds = RNG.random() < 0.6
        span = (-length, length) if inbounds else (-2 * length - 1, 2 * length + 2)
        idx = RNG.integers(*span, rand_shape(int(RNG.integers(0, 3)), hi=3))
        for mode in ("clip", "wrap") if not inbounds else (None, "clip", "wrap"):
            kw = {} if mode is None else {"mode": mode}
            yield Case("take", f"take({x.shape},{idx.tolist()},{ax},{mode})",
                       lambda m, a, i, ax=ax, kw=kw: m.take(a, i, axis=ax, **kw), [x, idx])
        if not inbounds:  # JAX's default: 'fill' (NaN / min int / True) for out-of-bounds
            yield Case("take", f"take({x.shape},{idx.tolist()},{ax}) default",
                       lambda m, a, i, ax=ax: m.take(a, i, axis=ax), [x, idx])
        # take_along_axis
        tax = rand_axis(nd) if RNG.random() < 0.85 else None
        if tax is None:
            ishape = (int(RNG.integers(0, 5)),)
            tlen = x.size
        else:
            ishape = tuple(s if (i != tax % nd and RNG.random() < 0.7) else
                           (int(RNG.integers(0, 4)) if i == tax % nd else 1)
                           for i, s in enumerate(x.shape))
            tlen = x.shape[tax]
        tidx = RNG.integers(-tlen, tlen, ishape)
        yield Case("take", f"take_along_axis({x.shape},{tidx.shape},{tax})",
                   lambda m, a, i, ax=tax: m.take_along_axis(a, i, axis=ax), [x, tidx])
        # put (JAX: inplace=False returns the result) / put_along_axis
        pidx = RNG.integers(-x.size, x.size, int(RNG.integers(1, 4)))
        vals = rand_array((int(RNG.integers(1, 3)),), x.dtype)
        for mode in ("clip", "wrap"):
            big = pidx * 3
            yield Case("take", f"put({x.shape},{big.tolist()},{vals.tolist()},{mode})",
                       lambda m, a, i, v, mode=mode: _put(m, a, i, v, mode), [x, big, vals])
        if len(set((pidx % x.size).tolist())) == len(pidx):
            yield Case("take", f"put({x.shape},{pidx.tolist()},{vals.tolist()})",
                       lambda m, a, i, v: _put(m, a, i, v, None), [x, pidx, vals])
        pa = rand_axis(nd)
        pshape = tuple(s if i != pa % nd else 1 for i, s in enumerate(x.shape))
        pi = RNG.integers(-x.shape[pa], x.shape[pa], pshape)
        pv = rand_array(pshape, x.dtype)
        yield Case("take", f"put_along_axis({x.shape},{pi.shape},{pa})",
                   lambda m, a, i, v, ax=pa: _put_along(m, a, i, v, ax), [x, pi, pv])
        # choose / compress
        nch = int(RNG.integers(1, 4))
        choices = [rand_array(x.shape[int(RNG.integers(0, nd + 1)):], x.dtype)
                   for _ in range(nch)]
        cmode = pick("raise", "clip", "wrap")
        sel = RNG.integers(0, nch, x.shape) if cmode == "raise" else RNG.integers(
            -nch - 2, nch + 3, x.shape)
        yield Case("take", f"choose({x.shape},{nch} choices,{cmode})",
                   lambda m, s, *c, mode=cmode: m.choose(s, c, mode=mode), [sel] + choices)
        cond = RNG.random(int(RNG.integers(0, length + 2))) < 0.5
        yield Case("take", f"compress({cond.tolist()},{x.shape},{ax})",
                   lambda m, a, c=cond, ax=ax: m.compress(c, a, axis=ax), [x])


def _put(m, a, i, v, mode):
    kw = {} if mode is None else {"mode": mode}
    if m is np:
        a = a.copy()
        np.put(a, i, v, **kw)
        return a
    return m.put(a, i, v, inplace=False, **kw)


def _put_along(m, a, i, v, ax):
    if m is np:
        a = a.copy()
        np.put_along_axis(a, i, v, ax)
        return a
    return m.put_along_axis(a, i, v, ax, inplace=False)


def area_tri(n):
    for _ in range(n):
        x = rand_array(rand_shape(pick(1, 2, 2, 3), hi=5))
        k = int(RNG.integers(-4, 5))
        if x.ndim == 1:
            yield Case("tri", f"diag({x.shape},{k})", lambda m, a, k=k: m.diag(a, k), [x])
            yield Case("tri", f"diagflat({x.shape},{k})", lambda m, a, k=k: m.diagflat(a, k),
                       [x])
        if x.ndim == 2:
            yield Case("tri", f"diag({x.shape},{k})", lambda m, a, k=k: m.diag(a, k), [x])
            yield Case("tri", f"diagflat({x.shape},{k})", lambda m, a, k=k: m.diagflat(a, k),
                       [x])
        if x.ndim >= 2:
            a1, a2 = (int(v) - (x.ndim if RNG.random() < 0.5 else 0)
                      for v in RNG.permutation(x.ndim)[:2])
            yield Case("tri", f"diagonal({x.shape},{k},{a1},{a2})",
                       lambda m, a, k=k, a1=a1, a2=a2: m.diagonal(a, k, a1, a2), [x])
            yield Case("tri", f"trace({x.shape},{k},{a1},{a2})",
                       lambda m, a, k=k, a1=a1, a2=a2: m.trace(a, k, a1, a2), [x])
            yield Case("tri", f"tril({x.shape},{k})", lambda m, a, k=k: m.tril(a, k), [x])
            yield Case("tri", f"triu({x.shape},{k})", lambda m, a, k=k: m.triu(a, k), [x])
            if x.ndim == 2:
                wrap = bool(RNG.random() < 0.5)
                val = pick(9, [1, 2])
                yield Case("tri", f"fill_diagonal({x.shape},{val},wrap={wrap})",
                           lambda m, a, w=wrap, v=val: _fill_diag(m, a, v, w), [x])
        N, M = int(RNG.integers(0, 6)), pick(None, int(RNG.integers(0, 6)))
        dt = pick(None, np.int32, np.bool_, np.float32)
        yield Case("tri", f"tri({N},{M},{k},{dt})",
                   lambda m, N=N, M=M, k=k, dt=dt: m.tri(N, M, k, dtype=dt), [], vmap=False,
                   dtypes=dt is not None)
        yield Case("tri", f"eye({N},{M},{k},{dt})",
                   lambda m, N=N, M=M, k=k, dt=dt: m.eye(N, M, k, dtype=dt), [], vmap=False,
                   dtypes=dt is not None)
        yield Case("tri", f"identity({N},{dt})",
                   lambda m, N=N, dt=dt: m.identity(N, dtype=dt), [], vmap=False,
                   dtypes=dt is not None)
        nd = int(RNG.integers(1, 4))
        yield Case("tri", f"diag_indices({N},{nd})",
                   lambda m, N=N, nd=nd: m.diag_indices(N, nd), [], vmap=False, dtypes=False)
        yield Case("tri", f"tril_indices({N},{k},{M})",
                   lambda m, N=N, k=k, M=M: m.tril_indices(N, k, M), [], vmap=False,
                   dtypes=False)
        yield Case("tri", f"triu_indices({N},{k},{M})",
                   lambda m, N=N, k=k, M=M: m.triu_indices(N, k, M), [], vmap=False,
                   dtypes=False)
        sq = rand_array((int(RNG.integers(0, 5)), int(RNG.integers(0, 5))))
        yield Case("tri", f"tril_indices_from({sq.shape},{k})",
                   lambda m, a, k=k: m.tril_indices_from(a, k), [sq], vmap=False, jit=False,
                   dtypes=False)
        yield Case("tri", f"triu_indices_from({sq.shape},{k})",
                   lambda m, a, k=k: m.triu_indices_from(a, k), [sq], vmap=False, jit=False,
                   dtypes=False)
        if sq.shape[0] == sq.shape[1]:
            yield Case("tri", f"diag_indices_from({sq.shape})",
                       lambda m, a: m.diag_indices_from(a), [sq], vmap=False, jit=False,
                       dtypes=False)


def _fill_diag(m, a, v, wrap):
    if m is np:
        a = a.copy()
        np.fill_diagonal(a, v, wrap=wrap)
        return a
    return m.fill_diagonal(a, v, wrap=wrap, inplace=False)


def area_grids(n):
    for _ in range(n):
        k = int(RNG.integers(1, 4))
        xs = [rand_array((int(RNG.integers(0, 4)),), pick(np.float64, np.int32, np.bool_))
              for _ in range(k)]
        ind = pick("xy", "ij")
        sparse = bool(RNG.random() < 0.4)
        yield Case("grids", f"meshgrid({[x.shape for x in xs]},{ind},sparse={sparse})",
                   lambda m, *a, ind=ind, sp=sparse: m.meshgrid(*a, indexing=ind, sparse=sp),
                   xs)
        yield Case("grids", f"ix_({[x.shape for x in xs]})", lambda m, *a: m.ix_(*a),
                   [x.astype(np.int64) if x.dtype != np.bool_ else x for x in xs], vmap=False,
                   jit=False)
        dims = rand_shape(int(RNG.integers(0, 4)), hi=3)
        dt = pick(int, np.int32, np.float32)
        yield Case("grids", f"indices({dims},{dt},sparse={sparse})",
                   lambda m, d=dims, dt=dt, sp=sparse: m.indices(d, dtype=dt, sparse=sp), [],
                   vmap=False, dtypes=dt is not int)
        steps = (None, int(RNG.integers(1, 3)), -1, complex(0, int(RNG.integers(0, 6))))
        sl = tuple(slice(*[pick(None, int(RNG.integers(-3, 5))) for _ in range(2)],
                         pick(*steps)) for _ in range(int(RNG.integers(1, 3))))
        sl = tuple(slice(s.start if s.start is not None else 0, s.stop if s.stop is not None
                         else 3, s.step) for s in sl)
        if RNG.random() < 0.2:
            sl = (slice(0.5, 2.5, 0.5),)
        yield Case("grids", f"mgrid[{sl}]", lambda m, sl=sl: m.mgrid[sl], [], vmap=False,
                   dtypes=False)
        yield Case("grids", f"ogrid[{sl}]", lambda m, sl=sl: m.ogrid[sl], [], vmap=False,
                   dtypes=False)
        yield Case("grids", f"r_[{sl[0]}, 7]", lambda m, sl=sl: m.r_[sl[0], 7], [], vmap=False,
                   dtypes=False)
        shape = rand_shape(int(RNG.integers(1, 4)), lo=1, hi=4)
        size = int(np.prod(shape))
        flat = RNG.integers(0, size, int(RNG.integers(0, 4)))
        order = pick("C", "F")
        # JAX's unravel_index has no order argument: 'F' is checked against NumPy only
        yield Case("grids", f"unravel_index({flat.tolist()},{shape},{order})",
                   lambda m, i, s=shape, o=order: m.unravel_index(i, s, order=o) if o == "F"
                   else m.unravel_index(i, s), [flat], dtypes=False)
        multi = tuple(RNG.integers(-1, s + 2, 3) for s in shape)
        rmode = pick("raise", "clip", "wrap", ("clip", "wrap") if len(shape) == 2 else "wrap")
        if rmode == "raise":
            multi = tuple(RNG.integers(0, s, 3) for s in shape)
        yield Case("grids", f"ravel_multi_index({[v.tolist() for v in multi]},{shape},{rmode},"
                   f"{order})", lambda m, *i, s=shape, md=rmode, o=order:
                   m.ravel_multi_index(i, s, mode=md, order=o), list(multi), dtypes=False)


def area_creation(n):
    for _ in range(n):
        start = pick(0, int(RNG.integers(-5, 5)), float(RNG.integers(-20, 20)) / 4, 1 + 2j)
        stop = pick(int(RNG.integers(-5, 10)), float(RNG.integers(-20, 40)) / 4)
        num = int(RNG.integers(0, 8))
        ep = bool(RNG.random() < 0.6)
        dt = pick(None, None, np.int32, np.int64, np.float32)
        if isinstance(start, complex) and dt is not None and np.dtype(dt).kind != "c":
            dt = None
        yield Case("creation", f"linspace({start},{stop},{num},endpoint={ep},dtype={dt})",
                   lambda m, a=start, b=stop, n=num, e=ep, d=dt: m.linspace(
                       a, b, n, endpoint=e, dtype=d), [], vmap=False)
        yield Case("creation", f"linspace({start},{stop},{num},retstep)",
                   lambda m, a=start, b=stop, n=num, e=ep: m.linspace(
                       a, b, n, endpoint=e, retstep=True), [], vmap=False)
        vs, ve = rand_array((2,), np.float64), rand_array((3, 1), np.float64)
        ax = int(RNG.integers(-3, 3))
        yield Case("creation", f"linspace(array(2),array(3,1),{num},axis={ax})",
                   lambda m, a, b, n=num, ax=ax, e=ep: m.linspace(a, b, n, endpoint=e, axis=ax),
                   [vs, ve])
        base = pick(10.0, 2.0, 0.5)
        if not isinstance(start, complex):
            yield Case("creation", f"logspace({start},{stop},{num},{ep},base={base},{dt})",
                       lambda m, a=start, b=stop, n=num, e=ep, bs=base, d=dt: m.logspace(
                           a, b, n, endpoint=e, base=bs, dtype=d), [], vmap=False)
            g0, g1 = pick(1, 2.0, -3.0, 0.5), pick(1000, 8.0, -0.5, 16)
            if (g0 < 0) == (g1 < 0):
                yield Case("creation", f"geomspace({g0},{g1},{num},{ep},{dt})",
                           lambda m, a=g0, b=g1, n=num, e=ep, d=dt: m.geomspace(
                               a, b, n, endpoint=e, dtype=d), [], vmap=False)
        # arange
        a0 = pick(int(RNG.integers(-5, 5)), float(RNG.integers(-20, 20)) / 4)
        a1 = pick(int(RNG.integers(-8, 9)), float(RNG.integers(-30, 30)) / 4)
        st = pick(1, -1, 2, -3, 0.5, -0.25, 0.1, 0.3)
        adt = pick(None, None, np.float32, np.int32)
        yield Case("creation", f"arange({a0},{a1},{st},{adt})",
                   lambda m, a=a0, b=a1, s=st, d=adt: m.arange(a, b, s, dtype=d), [],
                   vmap=False)
        yield Case("creation", f"arange({a1})", lambda m, b=a1: m.arange(b), [], vmap=False)
        # *_like
        x = rand_array()
        for fn in ("zeros_like", "ones_like", "empty_like"):
            shape = pick(None, rand_shape(int(RNG.integers(0, 3))), 3)
            d = pick(None, np.int8, np.complex64, bool)
            kw = {k: v for k, v in (("shape", shape), ("dtype", d)) if v is not None}
            f = ((lambda m, a, fn=fn, kw=kw: getattr(m, fn)(a, **kw)) if fn != "empty_like"
                 else (lambda m, a, kw=kw: m.asarray(m.empty_like(a, **kw).shape)))
            yield Case("creation", f"{fn}({x.shape}:{x.dtype},{kw})", f, [x],
                       dtypes=fn != "empty_like")
        fv = pick(2, -1.5, True, 3 + 1j)
        shape = pick(None, rand_shape(int(RNG.integers(0, 3))))
        yield Case("creation", f"full_like({x.shape}:{x.dtype},{fv},shape={shape})",
                   lambda m, a, v=fv, s=shape: m.full_like(a, v, shape=s), [x])
        fs = rand_shape(int(RNG.integers(0, 3)))
        yield Case("creation", f"full({fs},{fv})", lambda m, s=fs, v=fv: m.full(s, v), [],
                   vmap=False)
        yield Case("creation", f"full({fs},array{x.shape[-1:]})",
                   lambda m, a, s=fs: m.full(s + a.shape[-1:], a[..., 0, None][..., :1]
                                             if a.ndim else a),
                   [x], vmap=False)
        yield Case("creation", f"copy({x.shape})", lambda m, a: m.copy(a), [x])
        cp = pick(True, None)
        order = pick("C", "F", "K", "A")
        yield Case("creation", f"asarray({x.shape},copy={cp},order={order})",
                   lambda m, a, c=cp, o=order: m.asarray(a, copy=c, order=o), [x])
        yield Case("creation", f"array({x.shape},ndmin=3,order={order})",
                   lambda m, a, o=order: m.array(a, ndmin=3, order=o), [x])
        nested = pick([[1, 2.5], [True, 3]], [1, 2, 3j], [[[1]], [[False]]], [1, np.float32(2)],
                      [np.int8(1), 2], [[1, 2], np.array([3, 4])], 3.5, [], [[], []],
                      [True, False], [np.uint8(250), 7])
        yield Case("creation", f"array({nested!r})", lambda m, v=nested: m.array(v), [],
                   vmap=False, dtypes=False)
        yield Case("creation", f"array({nested!r},dtype=float32)",
                   lambda m, v=nested: m.array(v, dtype=np.float32)
                   if not np.iscomplexobj(np.array(v)) else m.array(v, dtype=np.complex64), [],
                   vmap=False)


def area_apply(n):
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(1, 4)), lo=1, hi=4), np.float64)
        ax = rand_axis(x.ndim)
        fn = pick("sum", "cumsum", "outer", "scalar_sq")
        f1d = {"sum": lambda m: (lambda v: m.sum(v)),
               "cumsum": lambda m: (lambda v: m.cumsum(v)),
               "outer": lambda m: (lambda v: m.outer(v, v[:2])),
               "scalar_sq": lambda m: (lambda v: v[0] * v[-1])}[fn]
        yield Case("apply", f"apply_along_axis({fn},{ax},{x.shape})",
                   lambda m, a, ax=ax, f1d=f1d: m.apply_along_axis(f1d(m), ax, a), [x])
        axes = rand_axes(x.ndim, int(RNG.integers(1, x.ndim + 1)))
        yield Case("apply", f"apply_over_axes(sum,{x.shape},{list(axes)})",
                   lambda m, a, axes=axes: m.apply_over_axes(m.sum, a, list(axes)), [x])
        # vectorize
        y = rand_array(x.shape[-1:], np.float64)
        yield Case("apply", f"vectorize(signature='(n),(n)->()')({x.shape},{y.shape})",
                   lambda m, a, b: m.vectorize(lambda u, v: (u * v).sum(),
                                               signature="(n),(n)->()")(a, b), [x, y])
        yield Case("apply", f"vectorize(signature='(n)->(n),()')({x.shape})",
                   lambda m, a: m.vectorize(lambda u: (u[::-1], u.max()),
                                            signature="(n)->(n),()")(a), [x])
        yield Case("apply", f"vectorize(excluded={{1}})({x.shape})",
                   lambda m, a: m.vectorize(lambda u, p: u ** p + 1, excluded={1})(a, 2), [x])
        yield Case("apply", f"vectorize(excluded={{'p'}})({x.shape})",
                   lambda m, a: m.vectorize(lambda u, p=1: u * p, excluded={"p"})(a, p=3),
                   [x])
        yield Case("apply", f"vectorize(scalar)({x.shape})",
                   lambda m, a, b: m.vectorize(lambda u, v: u - v)(a, b), [x, y])
        # fromfunction / frombuffer / fromiter / fromstring
        shape = rand_shape(int(RNG.integers(1, 4)), hi=4)
        dt = pick(float, int, np.float32)
        yield Case("apply", f"fromfunction(i*10+j..,{shape},{dt})",
                   lambda m, s=shape, dt=dt: m.fromfunction(
                       lambda *i: sum(v * 10 ** k for k, v in enumerate(i)), s, dtype=dt), [],
                   vmap=False, dtypes=dt is not int)
        bdt = pick(np.float64, np.int32, np.uint8, np.int16, np.complex64)
        raw = rand_array((int(RNG.integers(0, 6)),), bdt)
        cnt = pick(-1, int(RNG.integers(0, max(raw.size, 1))))
        off = pick(0, raw.itemsize)
        buf = raw.tobytes()
        yield Case("apply", f"frombuffer({raw.tolist()},{bdt.__name__},{cnt},{off})",
                   lambda m, b=buf, d=bdt, c=cnt, o=off: m.frombuffer(b, dtype=d, count=c,
                                                                      offset=o), [],
                   vmap=False)
        it = [int(v) for v in RNG.integers(-5, 5, int(RNG.integers(0, 6)))]
        icnt = pick(-1, len(it))
        yield Case("apply", f"fromiter({it},{icnt})",
                   lambda m, it=it, c=icnt: m.fromiter(iter(it), dtype=np.float32, count=c), [],
                   vmap=False)
        sep = pick(" ", ",", ", ")
        s = sep.join(str(v) for v in it)
        yield Case("apply", f"fromstring({s!r},sep={sep!r})",
                   lambda m, s=s, sp=sep: m.fromstring(s, dtype=np.int64, sep=sp), [],
                   vmap=False)


def _jax_kw(m, **kw):
    """Keywords only JAX-style modules take (NumPy has no such argument)."""
    return {} if m is np else kw


def area_traced_args(n):
    """Arguments JAX accepts as traced values under jit (positions, shifts, fill values,
    ramp ends): each is an array operand here, so the jit check traces it."""
    for _ in range(n):
        x = rand_array(rand_shape(int(RNG.integers(1, 4)), lo=1, hi=4), pick(np.float64,
                                                                              np.int32))
        ax = rand_axis(x.ndim)
        ln = x.shape[ax]
        i = np.int64(RNG.integers(-ln, ln + 1))
        yield Case("traced_args", f"insert({x.shape},traced {i},{ax})",
                   lambda m, a, i, ax=ax: m.insert(a, i, 7, axis=ax), [x, i], vmap=False)
        idx = np.sort(RNG.permutation(ln)[:int(RNG.integers(0, ln + 1))])
        yield Case("traced_args", f"insert({x.shape},traced {idx.tolist()},{ax})",
                   lambda m, a, i, ax=ax: m.insert(a, i, -3, axis=ax), [x, idx], vmap=False)
        yield Case("traced_args", f"delete({x.shape},traced unique {idx.tolist()},{ax})",
                   lambda m, a, i, ax=ax: m.delete(
                       a, i, axis=ax, **_jax_kw(m, assume_unique_indices=True)), [x, idx],
                   vmap=False)
        sh = np.int64(RNG.integers(-7, 8))
        yield Case("traced_args", f"roll({x.shape},traced {sh},{ax})",
                   lambda m, a, s, ax=ax: m.roll(a, s, ax), [x, sh])
        c = rand_array((), x.dtype)
        yield Case("traced_args", f"pad({x.shape},1,constant_values=traced)",
                   lambda m, a, c: m.pad(a, 1, constant_values=c), [x, c])
        yield Case("traced_args", f"full_like({x.shape},traced)",
                   lambda m, a, c: m.full_like(a, c), [x, c])
        if x.ndim == 2:
            yield Case("traced_args", f"fill_diagonal({x.shape},traced)",
                       lambda m, a, c: _fill_diag(m, a, c, False), [x, c])
        st, sp = rand_array((), np.float64), rand_array((2,), np.float64)
        yield Case("traced_args", "linspace(traced, traced(2), 5)",
                   lambda m, a, b: m.linspace(a, b, 5), [st, sp])
        rep = RNG.integers(0, 3, ln)
        yield Case("traced_args", f"repeat({x.shape},traced {rep.tolist()},{ax})",
                   lambda m, a, r, ax=ax, t=int(rep.sum()): m.repeat(
                       a, r, axis=ax, **_jax_kw(m, total_repeat_length=t)), [x, rep])
        flat = RNG.integers(0, x.size, 3)
        yield Case("traced_args", f"unravel_index(traced {flat.tolist()},{x.shape})",
                   lambda m, i, s=x.shape: m.unravel_index(i, s), [flat], dtypes=False)


AREAS = {name[5:]: fn for name, fn in globals().items() if name.startswith("area_")}


def main():
    argv = sys.argv[1:]
    if "--seed" in argv:
        del argv[argv.index("--seed"):argv.index("--seed") + 2]
    n = int(argv.pop()) if argv and argv[-1].isdigit() else 40
    only = argv[0].split(",") if argv and argv[0] != "all" else list(AREAS)
    ncases = 0
    for area in only:
        for c in AREAS[area](n):
            ncases += 1
            try:
                check_case(c)
            except Exception:  # noqa: BLE001  (a bug in the harness must not stop the hunt)
                record(c.area, "harness", False, f"{c.name}: {traceback.format_exc(limit=3)}")
    print(f"{ncases} cases; JAX {jax.__version__ if jax else 'absent'}; x64 on")
    checks = ("eager", "raises-as-jax", "dtype", "jit", "vmap", "jax-agrees",
              "dtype-jax-agrees", "harness")
    areas = sorted({a for a, _, _ in RESULTS})
    print(f"{'area':14}" + "".join(f"{c:>17}" for c in checks))
    for a in areas:
        row = []
        for c in checks:
            n_ok, n_bad = RESULTS[a, c, True], RESULTS[a, c, False]
            row.append(f"{n_ok + n_bad:>9}/{n_bad:<7}" if n_ok + n_bad else f"{'-':>17}")
        print(f"{a:14}" + "".join(row))
    print("(cells: cases / disagreements)")
    for (a, c), infos in sorted(FAILS.items()):
        print(f"\n== {a} / {c}")
        for i in infos:
            print("  ", i[:600])


if __name__ == "__main__":
    main()
