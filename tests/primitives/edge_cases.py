"""Edge-value cases for every primitive (used by test_edge_values.py).

``CASES[name](dt)`` gives the :class:`Case` list of primitive ``name`` on operand dtype
``dt`` (empty where the dtype does not apply). ``EXEMPT`` names primitives without
cases and says why. Binary ops run on every pair of edge values; reductions on rows of
pairs and on longer rows mixing +-0, NaN and ties.
"""

import functools
from typing import NamedTuple

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives.base import REGISTRY as REGISTRY_PRIMS
from tjit.primitives.fma import fma_p
from tjit.tracing.avals import ShapedArray

F16, F32, F64 = (np.dtype(d) for d in ("float16", "float32", "float64"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")
INTS = [np.dtype(f"int{b}") for b in (8, 16, 32, 64)]
UINTS = [np.dtype(f"uint{b}") for b in (8, 16, 32, 64)]
BOOL = np.dtype("bool")
FLOATS = [F16, F32, F64]
COMPLEX = [C64, C128]
ALL = FLOATS + INTS + UINTS + [BOOL]


class Case(NamedTuple):
    prim: str
    name: str
    fn: object
    args: tuple
    static: tuple = ()


#: ulp bounds of inexact primitives (jit vs eager); everything else is bit-exact (rsqrt
#: too: both sides compute 1 / sqrt(x), each correctly rounded). mathlib's documented
#: bounds plus one for NumPy's own rounding (observed on these values: <= 2); the rest run
#: as NumPy library calls today (observed: 0) and get 4 should they be compiled.
ULPS = {**dict.fromkeys(["exp", "exp2", "log", "cbrt", "erf"], 3),
        **dict.fromkeys(["expm1", "log1p", "logistic", "sin", "cos", "pow", "atan2"], 4),
        **dict.fromkeys(["tanh", "tan"], 7),
        **dict.fromkeys(["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                         "erfc", "erf_inv", "lgamma", "digamma"], 4),
        "rewrite rounding": 0}

#: functions with zeros inside their domain (lgamma at 1 and 2 and between the negative
#: poles, digamma at 1.4616... and between the poles): near a zero the relative error of
#: either side is unbounded (SciPy's gammaln(1 - 2**-53) is 2.2e-16, the true value and the
#: kernel's 6.4e-17), so their ulps are counted at the scale max(|eager|, 1).
UNIT_SCALE = {"lgamma", "digamma"}

#: "rounding" rewrites (exp(log x) -> x, ...) are exact where NumPy's composition carries
#: |log x| ulps of error or rounds to inf/0 at the ends of the range (xla_like/simplify.py):
#: only NaN-ness and signs must agree.
LOOSE = {"rewrite rounding"}

#: float dot products may be contracted to FMAs (one rounding of a*b + c, as XLA and BLAS
#: do): where a product underflows, fma(a, b, +0) keeps the product's sign and a
#: separate multiply-add gives +0, so zeros compare without their sign.
ZERO_SIGN_FREE = {"dot_general"}


# ----------------------------------------------------------------------------------------
# Edge values.

def _nan_with(sign, payload, dt):
    bits = np.array(np.nan, dt).view(f"u{dt.itemsize}")
    v = bits | np.array(payload, bits.dtype)
    if sign:
        v = v | (np.array(1, bits.dtype) << np.array(8 * dt.itemsize - 1, bits.dtype))
    return v.view(dt)


@functools.cache
def edge(dt):
    """1-d array of edge values of dtype ``dt``."""
    dt = np.dtype(dt)
    if dt == BOOL:
        return np.array([False, True])
    if dt.kind == "c":  # every (re, im) of a few edge values
        fi = np.finfo(dt)
        part = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, fi.max, fi.tiny,
                         fi.smallest_subnormal, 0.5, -2.5], fi.dtype)
        out = np.empty(part.size ** 2, dt)
        out.real, out.imag = np.repeat(part, part.size), np.tile(part, part.size)
        return out
    if dt.kind in "iu":
        bits, info = 8 * dt.itemsize, np.iinfo(dt)
        vals = [0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 127, -128, 255, 256, bits - 1,
                bits, bits + 1, info.min, info.min + 1, info.max, info.max - 1,
                info.max // 2 + 1, -(1 << 31), (1 << 31) - 1]
        return np.array([v % (1 << bits) for v in vals], np.uint64).astype(dt)
    fi = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -7.0, 0.49999997,
            100.0, -1e10, 1e10, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
            fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny / 2, fi.eps, 1 - fi.epsneg,
            2.0 ** 24 + 2, 2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64,
            127.5, -128.5, 255.5, -129.0, 65535.5, 4294967295.0, 1e-30, 0.7, -0.3, 40.0]
    with np.errstate(all="ignore"):
        v = np.array(vals, np.float64).astype(dt)
    return np.concatenate([v, [_nan_with(1, 0, dt), _nan_with(0, 5, dt)]])


@functools.cache
def pairs(dt):
    """Every pair of edge values: (x, y), each 1-d."""
    e = edge(dt)
    return np.repeat(e, e.size), np.tile(e, e.size)


@functools.cache
def rows(dt):
    """2-d rows for reductions: every pair, plus long rows of zeros of both signs, ties and
    NaN in several positions (vectorized loops see them in different lanes)."""
    x, y = pairs(dt)
    pair_rows = np.stack([x, y], 1)
    e = edge(dt)
    n = 64
    if dt.kind == "f":
        z, nz = dt.type(0), -dt.type(0)
        long = [np.full(n, z), np.full(n, nz), np.r_[[z] * 32, [nz] * 32],
                np.r_[[nz] * 32, [z] * 32], np.r_[[nz] * 63, [z]], np.r_[[z] * 63, [nz]],
                np.r_[[1] * 40, [np.nan], [2] * 23], np.r_[[np.nan], [-np.inf] * 63],
                np.r_[[-np.inf] * 63, [np.nan]], np.resize(e, n)]
    else:
        long = [np.resize(e, n), np.resize(e[::-1], n), np.full(n, e[-1])]
    return pair_rows, np.stack([np.asarray(r, dt) for r in long])


# ----------------------------------------------------------------------------------------
# Case builders.

def _kinds(spec):
    return {"float": FLOATS + COMPLEX, "real": FLOATS, "int": INTS + UINTS,
            "number": FLOATS + INTS + UINTS + COMPLEX, "intbool": INTS + UINTS + [BOOL],
            "any": ALL + COMPLEX}[spec]


def accepts(prim, dt, nargs):
    """Whether primitive ``prim`` takes ``nargs`` operands of dtype ``dt`` (its own
    abstract evaluation decides, so a new dtype rule needs no edit here)."""
    try:
        REGISTRY_PRIMS[prim].abstract_eval(*[ShapedArray((1,), dt)] * nargs)
    except TypeError:
        return False
    return True


def unary(prim, fn):
    return lambda dt: [Case(prim, prim, fn, (edge(dt),))] if accepts(prim, dt, 1) else []


def binary(prim, fn):
    return lambda dt: [Case(prim, prim, fn, pairs(dt))] if accepts(prim, dt, 2) else []


def _reductions(prim, fn, kinds):
    def build(dt):
        if dt not in _kinds(kinds):
            return []
        short, long = rows(dt)
        out = [Case(prim, f"{prim} pairs", lambda x: fn(x, 1), (short,)),
               Case(prim, f"{prim} rows", lambda x: fn(x, 1), (long,)),
               Case(prim, f"{prim} cols", lambda x: fn(x, 0), (long,)),
               Case(prim, f"{prim} all", lambda x: fn(x, None), (edge(dt),))]
        if not prim.startswith("cum"):
            out += [Case(prim, f"{prim} all, big {k}", lambda x: fn(x, None), (b,))
                    for k, b in enumerate(big(dt))]
        return out
    return build


@functools.cache
def big(dt):
    """1-d arrays long enough for the compiler to split a full reduction into row partials
    (xla_like/simplify.py, SPLIT_REDUCE_MIN), so partial results meet in a second pass:
    floats -0.0 with one +0.0 (and +0.0 with one -0.0) near the end, each with a NaN
    variant; integers the edge values tiled (sums wrap)."""
    n = 1 << 15
    if dt.kind != "f":
        return (np.resize(edge(dt), n),)
    z = dt.type(0)
    a, b = np.full(n, -z), np.full(n, z)
    a[n - 5], b[n - 5] = z, -z
    c = np.resize(edge(dt), n)
    c[: n // 2] = 1  # finite values first, NaN late: the partials of the first rows are not NaN
    return a, b, c


def _reduce(red):
    return lambda x, ax: red(x, tuple(range(x.ndim)) if ax is None else (ax,))


def _arg(red):
    return lambda x, ax: red(x.reshape(-1) if ax is None else x, 0 if ax is None else ax,
                             np.int32)


def _cum(red):
    return lambda x, ax: red(x.reshape(-1) if ax is None else x, axis=0 if ax is None else ax)


def _bits64(y):
    """``y``'s bits zero-extended to uint64: results of every dtype then share one kernel
    (test_edge_values bundles same-dtype outputs); bool is 0/1."""
    if y.dtype != BOOL:  # (x.view: lax.bitcast_convert_type refuses complex, as JAX's)
        y = jnp.asarray(y).view(np.dtype(f"uint{8 * y.dtype.itemsize}"))
    return lax.convert_element_type(y, np.uint64)


def _convert(dt):
    return [Case("convert_element_type", f"convert to {t} (bits)",
                 lambda x, t=t: _bits64(lax.convert_element_type(x, t)), (edge(dt),))
            for t in ALL]


def _bitcast(dt):
    same = [t for t in ALL if t.itemsize == dt.itemsize and t != BOOL and dt != BOOL]
    # the primitive on complex numbers through x.view: lax.bitcast_convert_type refuses
    # complex to another dtype (JAX's rule), jnp's view takes it (as JAX's)
    cast = (lambda x, t: jnp.asarray(x).view(t)) if dt.kind == "c" else lax.bitcast_convert_type
    return [Case("bitcast_convert_type", f"bitcast to {t}",
                 lambda x, t=t: cast(x, t), (edge(dt),)) for t in same]


def _integer_pow(dt):
    if dt not in FLOATS + INTS + UINTS:
        return []
    # float: 1, 2, 3, -1 multiply in the dtype, the others in float64 (float32) or
    # switch to (1/x)**n near the range ends (float64 negative powers)
    ys = (0, 1, 2, 3, 5) + ((-1, -2, -3, -4, 13, -16) if dt.kind == "f" else ())
    return [Case("integer_pow", f"integer_pow y={y}", lambda x, y=y: lax.integer_pow(x, y),
                 (edge(dt),)) for y in ys]


def _round(dt):
    if dt not in FLOATS:
        return []
    return [Case("round", f"round m={m}", lambda x, m=m: lax.round(x, m), (edge(dt),))
            for m in (lax.ROUND_AWAY_FROM_ZERO, lax.ROUND_TO_NEAREST_EVEN)]


def _select_n(dt):
    x, y = pairs(dt)
    p = np.arange(x.size) % 3 == 0
    w = (np.arange(x.size) % 5).astype(np.int32) - 1  # out of range too: clamped
    return [Case("select_n", "select_n bool", lambda p, a, b: lax.select_n(p, a, b), (p, x, y)),
            Case("select_n", "select_n int", lambda w, a, b: lax.select_n(w, a, b, a),
                 (w, x, y))]


def _clamp(dt):
    if dt not in FLOATS + INTS + UINTS:
        return []
    x, y = pairs(dt)
    e = edge(dt)
    lo, hi = e[np.arange(e.size) % 7], e[(np.arange(e.size) * 5 + 3) % e.size]
    return [Case("clamp", "clamp array bounds", lambda a, b, c: lax.clamp(a, b, c), (x, y, x)),
            Case("clamp", "clamp scalar bounds", lambda b: lax.clamp(e[0], b, e[1]), (y,)),
            Case("clamp", "clamp mixed", lambda a, b, c: lax.clamp(a, b, c), (lo, e, hi))]


def _structural(dt):
    e = edge(dt)
    m = np.resize(e, (4, max(e.size, 16)))
    m[1] = m[1, ::-1]
    pad_val = np.asarray(e[1] if dt.kind == "f" else e[-1], dt)  # -0.0 for floats
    return [
        Case("broadcast_in_dim", "broadcast_in_dim",
             lambda x: lax.broadcast_in_dim(x, (3, x.size), (1,)), (e,)),
        Case("reshape", "reshape", lambda x: lax.reshape(x, (2, 2, -1)), (m,)),
        Case("transpose", "transpose", lambda x: lax.transpose(x, (1, 0)), (m,)),
        Case("rev", "rev", lambda x: lax.rev(x, (0, 1)), (m,)),
        Case("slice", "slice", lambda x: lax.slice(x, (1, 1), (4, x.shape[1]), (2, 3)), (m,)),
        Case("pad", "pad", lambda x, v: lax.pad(x, v, ((1, 2, 1), (-1, 1, 0))), (m, pad_val)),
        Case("concatenate", "concatenate", lambda x, y: lax.concatenate([x, y, x], 1),
             (m, m[:, ::-1].copy())),
        Case("squeeze", "squeeze", lambda x: lax.squeeze(x[None], (0,)), (m,)),
        Case("expand_dims", "expand_dims", lambda x: lax.expand_dims(x, (1,)), (m,)),
        Case("iota", "iota", lambda x: lax.broadcasted_iota(dt, (3, 5), 1) + x, (e[:1],))
        if dt != BOOL else Case("iota", "iota", lambda x: lax.iota(np.int32, 3) > 1 | x,
                                (e[:1],)),
        Case("dynamic_slice", "dynamic_slice",
             lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 5)),
             (m, np.int32(3), np.int32(-2))),
        Case("dynamic_update_slice", "dynamic_update_slice",
             lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(7))),
             (m, m[:2, :4].copy(), np.int32(5))),
    ]


def _gather(dt):
    e = edge(dt)
    idx = np.array([0, 3, 1, e.size - 1, 0, 2, 1000, -5], np.int32)  # clamped indices too
    wild = np.array([0, -1, -e.size, e.size - 1, e.size, 1000, -1000, np.iinfo(np.int32).min,
                     np.iinfo(np.int32).max], np.int32)  # normalized, then clamped
    return [Case("gather", "gather", lambda x, i: x[jnp.clip(i, 0, x.shape[0] - 1)], (e, idx)),
            Case("gather", "gather out of bounds", lambda x, i: x[i], (e, wild))]


def _scatters(dt):
    x, y = pairs(dt)
    n = x.size
    idx = np.r_[np.arange(n), (np.arange(n) * 7919) % n].astype(np.int32)  # each slot twice
    upd = np.r_[y, y[::-1]]
    ops = {"scatter": "set", "scatter-add": "add", "scatter-mul": "multiply",
           "scatter-min": "min", "scatter-max": "max"}
    out = [Case(p, p, lambda a, i, u, m=m: getattr(jnp.asarray(a).at[i], m)(u), (x, idx, upd))
           for p, m in ops.items() if not (dt == BOOL and m in ("add", "multiply"))]
    # one index along one axis: lowered to an elementwise select(iota == i, op(x, v), x)
    rows2 = np.stack([y, x])
    for p, m in ops.items():
        if not (dt == BOOL and m in ("add", "multiply")):
            out.append(Case(p, f"{p} one row", lambda a, u, m=m: getattr(
                jnp.asarray(a).at[1], m)(u), (rows2, y)))
    if dt != BOOL:
        out.append(Case("scatter-sub", "scatter-sub",
                        lambda a, i, u: lax.scatter_sub(
                            a, i[:, None], u, lax.ScatterDimensionNumbers((), (0,), (0,))),
                        (x, idx, upd)))
    return out


def _sort(dt):
    _, long = rows(dt)
    short, _ = rows(dt)
    return [Case("sort", "sort rows", lambda x: lax.sort(x, 1), (long,)),
            Case("sort", "sort pairs", lambda x: lax.sort(x, 1), (short,)),
            Case("sort", "sort key-val",
                 lambda k, v: lax.sort_key_val(k, v, 1)[1],
                 (long, np.broadcast_to(np.arange(long.shape[1], dtype=np.int32),
                                        long.shape).copy()))]


def _top_k(dt):
    if dt.kind == "c":
        return []       # (complex operands have no order: top_k raises)
    _, long = rows(dt)
    short, _ = rows(dt)
    wide = np.tile(long, (1, 8))    # 512 wide: the block-candidate selection
    return [Case("top_k", "top_k rows", lambda x: lax.top_k(x, 5), (long,)),
            Case("top_k", "top_k pairs", lambda x: lax.top_k(x, 1), (short,)),
            Case("top_k", "top_k wide rows", lambda x: lax.top_k(x, 3), (wide,))]


def _dot(dt):
    if dt == BOOL:
        return []
    x, y = pairs(dt)
    k = 1 if dt.kind == "f" else 3  # float: one product per output (sums are reordered)
    a, b = x[: x.size // k * k].reshape(-1, k), y[: y.size // k * k].reshape(-1, k)
    e = edge(dt)
    col, row = e[:, None].copy(), e[None, :].copy()  # outer product: every pair, k = 1
    zero = np.zeros((), dt)

    def gemm_epilogue(c, r):  # bias, relu, scale: what the compiler folds into a gemm
        y = lax.dot_general(c, r, (((1,), (0,)), ((), ())))
        return [y, lax.max(y + r, zero) * np.asarray(2, dt), lax.min(y, y[::-1])]
    return [Case("dot_general", "dot_general batched",
                 lambda a, b: lax.dot_general(a, b, (((1,), (1,)), ((0,), (0,)))), (a, b)),
            Case("dot_general", "dot_general outer + epilogue", gemm_epilogue, (col, row))]


def _windowed(dt):
    """Pools over the long rows (windows of 2 and 3 meet zeros of both signs, ties, inf and
    NaN; the identity pads), the selected element's gather and scatter, and convolutions
    of the rows with small kernels (a window of 1 and a sum of 2)."""
    if dt not in FLOATS + INTS + UINTS:
        return []
    _, long = rows(dt)
    p2 = ((1, 2), (1, 1), ((0, 0), (0, 1)), (1, 1), (1, 1))
    p3 = ((2, 3), (1, 2), ((0, 0), (1, 1)), (1, 1), (1, 1))
    lo, hi = (-np.inf, np.inf) if dt.kind == "f" else (np.iinfo(dt).min, np.iinfo(dt).max)
    out = []
    for tag, p in (("2", p2), ("2x3/2", p3)):
        out += [Case("reduce_window_sum", f"sum pool {tag}",
                     lambda x, p=p: lax.reduce_window(x, 0, lax.add, *p), (long,)),
                Case("reduce_window_max", f"max pool {tag}",
                     lambda x, p=p: lax.reduce_window(x, lo, lax.max, *p), (long,)),
                Case("reduce_window_min", f"min pool {tag}",
                     lambda x, p=p: lax.reduce_window(x, hi, lax.min, *p), (long,))]
        if dt.kind == "f":
            t = np.arange(long.size, dtype=dt).reshape(long.shape)
            out += [Case("select_and_gather_add", f"gather {tag}",
                         lambda t, x, p=p: [lax.select_and_gather_add(t, x, "ge", *p),
                                            lax.select_and_gather_add(t, x, "le", *p)],
                         (t, long)),
                    Case("select_and_scatter_add", f"scatter {tag}",
                         lambda x, p=p: lax.select_and_scatter_add(
                             lax.reduce_window(x, lo, lax.max, *p), x, "ge", *p), (long,))]
    k1 = np.asarray([1, 2], dt).reshape(2, 1, 1)
    k2 = np.ones((1, 1, 2), dt)
    return out + [Case("conv_general_dilated", "conv window 1",
                       lambda x, k: lax.conv(x[:, None, :], k, (1,), "VALID"), (long, k1)),
                  Case("conv_general_dilated", "conv sum of 2",
                       lambda x, k: lax.conv(x[:, None, :], k, (1,), "SAME"), (long, k2))]


def _complex(dt):
    if dt not in (F32, F64):
        return []
    x, y = pairs(dt)
    z = lax.complex
    return [Case("complex", "complex", z, (x, y)),
            Case("real", "real of complex", lambda a, b: lax.real(z(a, b)), (x, y)),
            Case("imag", "imag of complex", lambda a, b: lax.imag(z(a, b)), (x, y)),
            Case("conj", "conj", lambda a, b: lax.conj(z(a, b)), (x, y))]


def _fma(dt):
    if dt not in (F32, F64):
        return []
    x, y = pairs(dt)
    return [Case("fma", "fma", lambda a, b, c: fma_p.bind(a, b, c), (x, y, x)),
            Case("fma", "fma product error", lambda a, b: fma_p.bind(a, b, -(a * b)), (x, y))]


def _square(dt):
    if dt not in (F32, F64):
        return []
    x, y = pairs(dt)
    return [Case("square", "square of complex", lambda a, b: lax.square(lax.complex(a, b)),
                 (x, y))]


def _control_flow(dt):
    e = edge(dt)
    nb = dt != BOOL

    def body(c, x):
        c = lax.max(c, x)
        return c, c
    return [
        Case("cond", "cond", lambda p, x: lax.cond(p, lambda v: lax.max(v, v[::-1]),
                                                   lambda v: v, x), (np.True_, e)),
        Case("while", "while", lambda x: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, lax.max(c[1], c[1][::-1])),
            (0, x))[1], (e,)),
        Case("scan", "scan cumulative max", lambda x: lax.scan(body, x[0], x)[1], (e,)),
        Case("stop_gradient", "stop_gradient", lambda x: lax.stop_gradient(x) * (1 if nb else
                                                                                 True), (e,)),
        Case("checkpoint", "checkpoint", tjit.checkpoint(lambda x: lax.max(x, x[::-1])), (e,)),
        Case("checkpoint_name", "checkpoint_name",
             lambda x: tjit.ad_checkpoint.checkpoint_name(lax.max(x, x[::-1]), "m"), (e,)),
        Case("sharding_constraint", "sharding_constraint", lambda x: lax.with_sharding_constraint(
            lax.max(x, x[::-1]), tjit.sharding.NamedSharding(
                tjit.make_mesh((1,), ("i",)), tjit.sharding.PartitionSpec())), (e,)),
    ]


@tjit.custom_jvp
def _cj(x):
    return lax.max(x, x[::-1])


_cj.defjvp(lambda p, t: (_cj(*p), t[0]))


@tjit.custom_vjp
def _cv(x):
    return lax.max(x, x[::-1])


_cv.defvjp(lambda x: (_cv(x), None), lambda r, g: (g,))


def _lc(x):
    return tjit.custom_derivatives.linear_call(
        lambda _, v: lax.max(v, v[::-1]), lambda _, ct: ct, (), x)


@tjit.custom_batching.custom_vmap
def _cvm(x):
    return lax.max(x, x[::-1])


_cvm.def_vmap(lambda n, b, xs: (lax.max(xs, xs[:, ::-1]), True))


def _custom(dt):
    return [Case("custom_jvp_call", "custom_jvp", _cj, (edge(dt),)),
            Case("custom_vjp_call", "custom_vjp", _cv, (edge(dt),)),
            Case("custom_vmap_call", "custom_vmap", _cvm, (edge(dt),)),
            Case("linear_call", "linear_call", _lc, (edge(dt),))]


def _threefry(dt):
    if dt != UINTS[2]:
        return []
    x, y = pairs(dt)
    p = REGISTRY_PRIMS["threefry2x32"]
    return [Case("threefry2x32", "threefry2x32",
                 lambda a, b, c, d: list(p.bind(a, b, c, d)),
                 (np.full_like(x, 7), np.full_like(x, 1 << 31), x, y))]


def _popcount(dt):
    return [Case("population_count", "population_count", lax.population_count, (edge(dt),))
            ] if dt in INTS + UINTS else []


def _rewrites(dt):
    """Compositions that xla_like/simplify.py rewrites (each claims to be exact, or within
    a few ulp where marked "rounding"), on every pair of edge values."""
    if dt.kind == "c":
        return []
    if dt == BOOL:
        return [Case("rewrite", "ne(x, False) / eq(x, True)", lambda x, y: [
            lax.ne(x, False), lax.eq(x, True), lax.bitwise_and(x, True),
            lax.bitwise_or(x, False), lax.bitwise_xor(x, False)], pairs(dt))]
    c = lambda v: np.array(v).astype(dt)
    exact = [
        lambda x, y: lax.eq(x, lax.max(x, y)), lambda x, y: lax.eq(lax.min(y, x), x),
        lambda x, y: lax.eq(lax.max(c(0), x), x), lambda x, y: x * c(1), lambda x, y: c(1) * x,
        lambda x, y: x + c(0), lambda x, y: c(0) + x, lambda x, y: x - c(0),
        lambda x, y: c(0) - x, lambda x, y: lax.neg(lax.neg(x)),
        lambda x, y: lax.select(x == y, y, y), lambda x, y: lax.div(x, c(2)),
        lambda x, y: lax.div(x, lax.select(x == y, c(2), c(1))),
        lambda x, y: lax.convert_element_type(lax.convert_element_type(x, np.float64), dt),
        lambda x, y: lax.convert_element_type(lax.convert_element_type(x, np.int64), dt),
        lambda x, y: lax.reduce_max(lax.broadcast(x, (1,)), (0,)),
    ]
    out = [Case("rewrite", f"rewrite {k}", f, pairs(dt)) for k, f in enumerate(exact)]
    if dt.kind == "f":
        out.append(Case("rewrite", "-0.0 constants", lambda x, y: [
            x + c(-0.0), c(-0.0) + x, c(-0.0) - x, x - c(0.0), x * c(-1), x / c(-0.5)],
            pairs(dt)))
        out.append(Case("rewrite rounding", "exp(log x), log(exp x), mish", lambda x: [
            lax.exp(lax.log(x)), lax.log(lax.exp(x)),
            lax.tanh(lax.log1p(lax.exp(x)))], (edge(dt),)))
    else:
        out.append(Case("rewrite", "integer identities", lambda x, y: [
            x * c(0), x - x, lax.div(x, c(1)), lax.rem(x, c(1)), lax.bitwise_and(x, c(-1)),
            lax.bitwise_or(x, c(0)), lax.bitwise_xor(x, c(0)), lax.bitwise_and(x, c(0)),
            lax.bitwise_not(lax.bitwise_not(x))], pairs(dt)))
    return out


def _hypergeometric(prim, dt):
    """hyp1f1/hyp2f1 (and their parameter derivatives, for each parameter): every pair of
    edge values, the further operands rotated copies of the first ones."""
    if dt.kind != "f":
        return []
    x, y = pairs(dt)
    args = (x, y, np.roll(x, 5)) if prim.startswith("hyp1f1") else \
        (x, y, np.roll(x, 5), np.roll(y, 7))
    bind = REGISTRY_PRIMS[prim].bind
    if not prim.endswith("_grad"):
        return [Case(prim, prim, bind, args)]
    return [Case(prim, f"{prim} d/d operand {k}",
                 functools.partial(lambda k, *a: bind(*a, argnum=k), k), args)
            for k in range(len(args) - 1)]


U = unary
B = binary
CASES = {
    "neg": U("neg", lax.neg), "abs": U("abs", lax.abs), "sign": U("sign", lax.sign),
    "floor": U("floor", lax.floor), "ceil": U("ceil", lax.ceil),
    "round": _round, "is_finite": U("is_finite", lax.is_finite),
    **{n: U(n, getattr(lax, n)) for n in (
        "exp", "exp2", "expm1", "log", "log1p", "sqrt", "rsqrt", "cbrt", "tanh", "logistic",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
        "atanh", "erf", "erfc", "erf_inv", "lgamma", "digamma")},
    "not": U("not", lax.bitwise_not),
    # special functions (primitives/special.py; SciPy library steps on both paths)
    **{n: U(n, getattr(lax, n)) for n in ("bessel_i0e", "bessel_i1e")},
    "ndtri": U("ndtri", lambda x: REGISTRY_PRIMS["ndtri"].bind(x)),
    **{n: B(n, getattr(lax, n)) for n in ("igamma", "igammac", "igamma_grad_a", "zeta",
                                          "random_gamma_grad",
                                          "polygamma")},
    "betainc": lambda dt: [Case("betainc", "betainc", lax.betainc,
                                (*pairs(dt), np.roll(pairs(dt)[0], 5)))] if dt.kind == "f" else [],
    **{n: U(n, functools.partial(lambda n, x: REGISTRY_PRIMS[n].bind(x), n))
       for n in ("fresnel_sin", "fresnel_cos", "wofz")},
    "owens_t": B("owens_t", lambda h, a: REGISTRY_PRIMS["owens_t"].bind(h, a)),
    **{n: functools.partial(_hypergeometric, n) for n in (
        "hyp1f1", "hyp1f1_grad", "hyp2f1", "hyp2f1_grad")},
    "population_count": _popcount, "integer_pow": _integer_pow,
    "add": B("add", lax.add), "sub": B("sub", lax.sub), "mul": B("mul", lax.mul),
    "div": B("div", lax.div), "rem": B("rem", lax.rem), "pow": B("pow", lax.pow),
    "max": B("max", lax.max), "min": B("min", lax.min),
    "atan2": B("atan2", lax.atan2), "nextafter": B("nextafter", lax.nextafter),
    **{n: B(n, getattr(lax, n)) for n in ("eq", "ne", "lt", "le", "gt", "ge")},
    "and": B("and", lax.bitwise_and), "or": B("or", lax.bitwise_or),
    "xor": B("xor", lax.bitwise_xor),
    **{n: B(n, getattr(lax, n)) for n in (
        "shift_left", "shift_right_logical", "shift_right_arithmetic")},
    "select_n": _select_n, "clamp": _clamp,
    "convert_element_type": _convert, "bitcast_convert_type": _bitcast,
    # (float sums of these rows are exact in any order: zeros, ties, inf and NaN)
    "reduce_sum": _reductions("reduce_sum", _reduce(lax.reduce_sum), "number"),
    "reduce_prod": _reductions("reduce_prod", _reduce(lax.reduce_prod), "number"),
    "reduce_max": _reductions("reduce_max", _reduce(lax.reduce_max), "any"),
    "reduce_min": _reductions("reduce_min", _reduce(lax.reduce_min), "any"),
    "reduce_and": _reductions("reduce_and", _reduce(lax.reduce_and), "intbool"),
    "reduce_or": _reductions("reduce_or", _reduce(lax.reduce_or), "intbool"),
    "reduce_xor": _reductions("reduce_xor", _reduce(lax.reduce_xor), "intbool"),
    "argmax": _reductions("argmax", _arg(lax.argmax), "number"),
    "argmin": _reductions("argmin", _arg(lax.argmin), "number"),
    "cumsum": _reductions("cumsum", _cum(lax.cumsum), "number"),
    "cumprod": _reductions("cumprod", _cum(lax.cumprod), "number"),
    "cummax": _reductions("cummax", _cum(lax.cummax), "number"),
    "cummin": _reductions("cummin", _cum(lax.cummin), "number"),
    "(simplifier rewrites)": _rewrites,
    "gather": _gather, "sort": _sort, "top_k": _top_k, "dot_general": _dot,
    "threefry2x32": _threefry,
    **dict.fromkeys(["reduce_window_sum", "reduce_window_max", "reduce_window_min",
                     "select_and_gather_add", "select_and_scatter_add",
                     "conv_general_dilated"], _windowed),
    **dict.fromkeys(["complex", "real", "imag", "conj"], _complex),
    "fma": _fma, "square": _square,
    **dict.fromkeys(["cond", "while", "scan", "stop_gradient", "checkpoint",
                     "checkpoint_name", "sharding_constraint"], _control_flow),
    **dict.fromkeys(["custom_jvp_call", "custom_vjp_call", "custom_vmap_call", "linear_call"],
                    _custom),
    **dict.fromkeys(["scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max",
                     "scatter-sub"], _scatters),
    **dict.fromkeys(["broadcast_in_dim", "reshape", "transpose", "rev", "slice", "pad",
                     "concatenate", "squeeze", "expand_dims", "iota", "dynamic_slice",
                     "dynamic_update_slice"], _structural),
}

EXEMPT = {
    **dict.fromkeys(["cholesky", "eigh", "lu", "qr", "svd", "triangular_solve",
                     "lu_pivots_to_permutation"],
                    "LAPACK through NumPy on both paths (no LLVM kernel); inexact by nature"),
    "eig": "LAPACK geev through SciPy on both paths; tests/numpy/test_eig_roots_histograms.py",
    **dict.fromkeys(["schur"],
                    "LAPACK gees through SciPy on both paths; "
                    "tests/scipy/test_linalg_schur.py"),
    **dict.fromkeys(["geqrf", "householder_product", "ormqr", "hessenberg",
                     "tridiagonal"],
                    "LAPACK geqrf/orgqr/ormqr/gehrd/sytrd through SciPy on both paths; "
                    "tests/lax/test_householder.py"),
    "fft": "pocketfft through NumPy on both paths (a library step); tests/numpy/test_fft.py",
    "custom_lin": "exists only inside linearize; never evaluated forward",
    **dict.fromkeys(["debug_callback", "pure_callback", "io_callback"],
                    "host callbacks: the user's Python function computes the values; "
                    "tests/test_callbacks.py"),
    "while_transpose": "while_loop's reverse sweep: it runs the loop body's own primitives "
                       "(edge cases there) over a tape; tests/transforms/test_while_grad.py",
    **dict.fromkeys(["psum", "pmax", "pmin", "all_gather", "psum_scatter", "all_to_all",
                     "ppermute", "axis_index"],
                    "collectives: data movement and exact reductions over a named axis "
                    "(tests/parallel/)"),
    "shard_map": "runs its body's own primitives (edge cases there) on each device's "
                 "thread; tests/parallel/test_shard_map_threads.py",
    "check": "checkify's assertion: no value, and refused by every compiler unless "
             "checkify functionalizes it; tests/test_checkify.py",
}


#: primitives also run inside a fused chain (test_edge_values.fused): those the simplifier
#: and the kernel fuser rewrite; data movement, library calls and control flow run alone.
FUSED = {n for n in CASES if n not in (
    "broadcast_in_dim", "reshape", "transpose", "rev", "slice", "pad", "concatenate",
    "squeeze", "expand_dims", "iota", "dynamic_slice", "dynamic_update_slice", "gather",
    "scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max", "scatter-sub",
    "sort", "top_k", "dot_general", "threefry2x32", "cond", "while", "scan", "stop_gradient",
    "reduce_window_sum", "reduce_window_max", "reduce_window_min", "select_and_gather_add",
    "select_and_scatter_add", "conv_general_dilated",
    "checkpoint", "checkpoint_name", "sharding_constraint", "custom_jvp_call",
    "custom_vjp_call", "linear_call",
    "custom_vmap_call", "bitcast_convert_type", "cumsum", "cumprod", "complex", "real", "imag", "conj")}


def cases_for(dt):
    """Every case on operand dtype ``dt`` (shared builders contribute once)."""
    out, seen = [], set()
    for build in CASES.values():
        if build in seen:
            continue
        seen.add(build)
        out += build(dt)
    return out


def dtypes_under_test():
    return ALL + COMPLEX
