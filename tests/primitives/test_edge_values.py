"""Eager (the primitives' NumPy reference impls) against jit (fused LLVM kernels) on edge
values, for every registered primitive: +-0, +-inf, NaN (sign and payload), subnormals,
each dtype's extremes, ties, integer overflow, division by zero, INT_MIN / -1, shifts by
>= the bit width, casts of NaN/inf/out-of-range floats.

Exact results must agree bit for bit (any NaN equals any NaN); transcendentals within
:data:`ULPS` with identical special values (NaN, +-inf, +-0). Each case also runs fused
into a small chain (``x * 1`` before, ``+ 0`` and a max-reduction after), so the
simplifier's rewrites and the fusion path are exercised, not only a lone kernel. The
cases of one dtype are compiled as one jit function (compile time dominates). A new
primitive fails :func:`test_every_primitive_has_edge_cases` until it gets an entry here.
"""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.primitives.edge_cases import (
    CASES,
    EXEMPT,
    FUSED,
    LOOSE,
    ULPS,
    UNIT_SCALE,
    ZERO_SIGN_FREE,
    cases_for,
    dtypes_under_test,
)
from tjit import lax
from tjit.primitives.base import REGISTRY


def test_every_primitive_has_edge_cases():
    missing = sorted(set(REGISTRY) - set(CASES) - set(EXEMPT))
    assert not missing, f"primitives without edge cases (tests/primitives/edge_cases.py): " \
                        f"{missing}"
    assert not set(CASES) & set(EXEMPT)


# ----------------------------------------------------------------------------------------
# Comparison.

def _ordered(a):
    """Float bits mapped to integers that order like the floats (ulp distance)."""
    u = a.view(f"i{a.itemsize}").astype(np.int64)
    return np.where(u < 0, np.iinfo(f"i{a.itemsize}").min - u, u)  # -0.0 -> 0, next to +0.0


def mismatches(got, want, ulps, zero_sign=True, loose=False, unit_scale=False):
    """Indices (flat) where ``got`` and ``want`` differ beyond ``ulps`` (and the sign of
    a zero, unless ``zero_sign`` is false; ``loose``: NaN-ness and signs only;
    ``unit_scale``: ulps of max(|want|, 1), for functions with zeros in their domain)."""
    got, want = (np.ascontiguousarray(a).reshape(-1) for a in (got, want))
    if got.dtype.kind == "c":
        got, want = got.view(got.real.dtype), want.view(want.real.dtype)
    if got.dtype.kind != "f":
        return np.flatnonzero(got != want)
    nan_g, nan_w = np.isnan(got), np.isnan(want)
    bits = got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}")
    if not zero_sign:
        bits &= ~((got == 0) & (want == 0))
    bad = (nan_g != nan_w) | (bits & ~nan_g & ~nan_w)
    if ulps:
        special = ~np.isfinite(want) | ~np.isfinite(got) | (want == 0) | (got == 0)
        far = np.abs(_ordered(got.astype(want.dtype)) - _ordered(want)) > ulps
        if unit_scale:
            with np.errstate(invalid="ignore"):  # infinities: compared as special below
                scale = np.maximum(np.abs(want), 1).astype(want.dtype)
                err = np.abs(got.astype(np.float64) - want.astype(np.float64))
                far = err > ulps * np.spacing(scale).astype(np.float64)
            special = ~np.isfinite(want) | ~np.isfinite(got)
        bad = (nan_g != nan_w) | (~nan_g & ~nan_w & np.where(special, bits, far))
    if loose:  # NaN-ness and signs only
        bad = (nan_g != nan_w) | (~nan_w & (want != 0) & (np.signbit(got) != np.signbit(want)))
    return np.flatnonzero(bad)


def _describe(case, args, got, want, bad):
    lines = []
    flat = [np.broadcast_to(np.asarray(a), np.shape(want)).reshape(-1)
            if np.shape(a) == np.shape(want) else None for a in args]
    g, w = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    for k in bad[:6]:
        ins = ", ".join(repr(f[k]) for f in flat if f is not None)
        lines.append(f"    [{k}] in=({ins}) jit={g[k]!r} eager={w[k]!r}")
    return f"  {case.name} ({len(bad)} of {w.size} differ):\n" + "\n".join(lines)


# ----------------------------------------------------------------------------------------
# Running cases: all of a dtype in one jit; one by one only to name a failure.

def fused(case):
    """The case inside a chain: operands times one, result plus zero, then a max over a
    broadcast axis of the result (the simplifier and the reduction path see it)."""
    def pre(a):
        return a if a.dtype == np.bool_ or a.dtype.kind == "c" else a * 1

    def post(y):
        if y.dtype == np.bool_:
            return lax.reduce_or(lax.broadcast(y | False, (2,)), (0,))
        if y.dtype.kind == "c":
            return y + 0
        return lax.reduce_max(lax.broadcast(y + 0, (2,)), (0,))

    def fn(*args):
        outs = case.fn(*[pre(a) if i not in case.static else a for i, a in enumerate(args)])
        return [post(o) for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
    return fn


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _bundle(outs, keys):
    """Stack outputs that share a key (same operands, shape and dtype) along a new axis with
    a chain of selects, so they compile as one kernel: each LLVM kernel costs ~0.1 s, far
    more than computing every op at every point. Returns (bundles, where) with
    ``where[k][j] = (bundle, row)`` for output j of fn k."""
    groups, where = {}, []
    for k, (os_, key) in enumerate(zip(outs, keys)):
        where.append([])
        for o in os_:
            g = groups.setdefault((key, tuple(o.shape), o.dtype), [])
            where[-1].append((g, len(g)))
            g.append(o)
    bundles, index = [], {}
    for g in groups.values():
        index[id(g)] = len(bundles)
        if len(g) == 1:
            bundles.append(g[0])
            continue
        shape = (len(g),) + tuple(g[0].shape)
        row = lax.broadcasted_iota(np.int32, shape, 0)
        acc = lax.broadcast(g[0], (len(g),))
        for r, o in enumerate(g[1:], 1):
            acc = lax.select(row == r, lax.broadcast(o, (len(g),)), acc)
        bundles.append(acc)
    return bundles, [[(index[id(g)], r, len(g) > 1) for g, r in w] for w in where]


def _run_group(fns, arg_lists, statics):
    """jit of all ``fns`` at once, each on its own args -> list of output lists. An array
    shared by several cases is one jit argument (so their kernels can fuse)."""
    flat, pos = [], {}
    for args, static in zip(arg_lists, statics):
        for i, a in enumerate(args):
            if i not in static and id(a) not in pos:
                pos[id(a)] = len(flat)
                flat.append(a)
    keys = [tuple(id(a) for a in args) for args in arg_lists]
    layout = []

    def everything(*xs):
        outs = []
        for fn, args, static in zip(fns, arg_lists, statics):
            full = [a if i in static else xs[pos[id(a)]] for i, a in enumerate(args)]
            outs.append(_as_list(fn(*full)))
        bundles, lay = _bundle(outs, keys)
        layout.append(lay)
        return bundles
    got = [np.asarray(b) for b in tjit.jit(everything)(*flat)]
    return [[got[b][r] if stacked else got[b] for b, r, stacked in w] for w in layout[-1]]


def _eager(fn, args, static):
    return [np.asarray(o) for o in _as_list(
        fn(*[a if i in static else jnp.asarray(a) for i, a in enumerate(args)]))]


def check_dtype(dt):
    cases = cases_for(dt)
    chained = [c for c in cases if c.prim in FUSED]
    fns = [c.fn for c in cases] + [fused(c) for c in chained]
    names = [c.name for c in cases] + [c.name + " (fused)" for c in chained]
    labelled = cases + chained
    arg_lists = [c.args for c in labelled]
    statics = [c.static for c in labelled]
    try:
        jitted = _run_group(fns, arg_lists, statics)
    except Exception:  # find which case cannot compile
        for fn, a, s, n in zip(fns, arg_lists, statics, names):
            try:
                _run_group([fn], [a], [s])
            except Exception as e:
                raise AssertionError(f"{n} on {dt}: jit failed: {e!r}") from e
        raise
    failures = []
    for fn, args, static, name, case, got in zip(fns, arg_lists, statics, names, labelled,
                                                 jitted):
        want = _eager(fn, args, static)
        for g, w in zip(got, want):
            g = np.asarray(g)
            if g.dtype != w.dtype or g.shape != w.shape:
                failures.append(f"  {name}: jit {g.dtype}{g.shape} vs eager {w.dtype}{w.shape}")
                continue
            bad = mismatches(g, w, ULPS.get(case.prim, 0), case.prim not in ZERO_SIGN_FREE,
                             case.prim in LOOSE, case.prim in UNIT_SCALE)
            if bad.size:
                failures.append(_describe(case._replace(name=name), args, g, w, bad))
    assert not failures, f"eager vs jit on {dt}:\n" + "\n".join(failures)


@pytest.mark.parametrize("dt", dtypes_under_test(), ids=str)
def test_eager_and_jit_agree_on_edge_values(dt, x64):
    with warnings.catch_warnings():  # NaN/inf/overflow are silent, as in JAX
        warnings.simplefilter("error", RuntimeWarning)
        check_dtype(dt)


# ----------------------------------------------------------------------------------------
# The semantics chosen where NumPy and JAX differ, against hand-written answers.

def _signs(a):
    return [bool(s) for s in np.signbit(np.asarray(a)).reshape(-1)]


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_max_min_order_signed_zeros(mode):
    """IEEE 754-2019: max(+0, -0) = +0 and min = -0 in either order, in elementwise ops,
    reductions (the reported ``jnp.max([0., -0.])``), cummax/cummin and clamp."""
    run = (lambda f, *a: f(*a)) if mode == "eager" else (lambda f, *a: tjit.jit(f)(*a))
    x = np.array([0.0, -0.0, 0.0, -0.0], np.float32)
    y = np.array([-0.0, 0.0, 0.0, -0.0], np.float32)
    assert _signs(run(jnp.maximum, x, y)) == [False, False, False, True]
    assert _signs(run(jnp.minimum, x, y)) == [True, True, False, True]
    for v in ([0.0, -0.0], [-0.0, 0.0]):
        v = np.array(v, np.float32)
        assert _signs(run(jnp.max, v)) == [False] and _signs(run(jnp.min, v)) == [True]
    assert _signs(run(lambda v: lax.cummax(v, 0), np.array([-0.0, 0.0, -0.0], np.float32))) \
        == [True, False, False]
    assert _signs(run(lambda v: lax.clamp(np.float32(0), v, np.float32(1)),
                      np.array([-0.0], np.float32))) == [False]
    assert np.isnan(run(jnp.max, np.array([1.0, np.nan, 2.0], np.float32)))
    def at(a, i):
        return jnp.asarray(a).at[i]
    z = np.array([-0.0, 0.0], np.float32)
    for u in ([-0.0, 0.0], [0.0, -0.0]):  # scatter: whatever the order of the updates
        u = np.array(u, np.float32)
        assert _signs(run(lambda a, v: at(a, np.array([0, 0])).max(v), z, u)) == [False, False]
        assert _signs(run(lambda a, v: at(a, np.array([1, 1])).min(v), z, u)) == [True, True]
        assert _signs(run(lambda a, v: at(a, 0).max(v[0]), z, u)) == [bool(np.signbit(u[0])), False]


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_xla_integer_and_cast_semantics(mode, x64):
    run = (lambda f, *a: f(*a)) if mode == "eager" else (lambda f, *a: tjit.jit(f)(*a))
    i32 = np.iinfo(np.int32)
    x = np.array([7, -7, i32.min, 5], np.int32)
    y = np.array([0, 0, -1, 0], np.int32)
    assert run(lax.div, x, y).tolist() == [-1, -1, i32.min, -1]
    assert run(lax.rem, x, y).tolist() == [7, -7, 0, 5]
    assert run(lax.div, np.array([7], np.uint8), np.array([0], np.uint8)).tolist() == [255]
    assert run(lax.shift_left, np.array([1, 1, 1], np.int8),
               np.array([8, -1, 7], np.int8)).tolist() == [0, 0, -128]
    assert run(lax.shift_right_arithmetic, np.array([-8, 8], np.int8),
               np.array([9, 9], np.int8)).tolist() == [-1, 0]
    f = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, -1.9, 2.9], np.float32)
    assert run(lambda v: lax.convert_element_type(v, np.int32), f).tolist() == \
        [0, i32.max, i32.min, i32.max, i32.min, -1, 2]
    assert run(lambda v: lax.convert_element_type(v, np.uint8), f).tolist() == \
        [0, 255, 0, 255, 0, 0, 2]
    h = np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)
    assert run(lax.round, h).tolist() == [1, 2, 3, -1, -3]
    assert _signs(run(lax.round, h[3:4])) == [True]
    assert run(jnp.round, h).tolist() == [0, 2, 2, 0, -2]
