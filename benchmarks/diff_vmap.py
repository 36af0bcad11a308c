"""Differential hunt: vmap of the public API against a Python loop over the batch.

Every case of benchmarks/diff_grad.py (tjit.numpy, linalg, fft, scipy.special, nn, lax, ...)
is run under vmap with a random in_axes per argument (0, 1, -1 or None; integer arguments
batched too), a random out_axes, batch sizes 3, 1 and 0, nested vmap with other axes,
jit(vmap), vmap(grad) and grad of the sum of vmap. The reference is the eager function
called row by row, stacked along out_axes; where the two disagree or only tjit raises, JAX
(same program, vmap) is asked, and a disagreement with both the loop and JAX is a bug.

Separate sections batch integer/index arguments (take, take_along_axis, dynamic_slice starts,
.at[] indices, one_hot, argsort outputs as indices, searchsorted, bincount(length=), random
keys), scalars, axis_size without batched inputs, out_axes=None, pytrees of in_axes, control
flow with batched predicates (cond, while with batched trip counts, scan, fori_loop, switch)
and custom_jvp / custom_vjp / custom_vmap.

    /work/jaxvenv/bin/python benchmarks/diff_vmap.py --seed 0
    /work/jaxvenv/bin/python benchmarks/diff_vmap.py --only sort,take -v
"""

import argparse
import os
import signal
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diff_grad as dg  # noqa: E402  (its case table and kits; sets x64 in both libraries)

jax, tjit, TJ, JX = dg.jax, dg.tjit, dg.TJ, dg.JX


class Report:
    def __init__(self, verbose):
        self.flags, self.counts, self.verbose = [], {}, verbose

    def count(self, what, n=1):
        self.counts[what] = self.counts.get(what, 0) + n

    def flag(self, name, msg):
        self.flags.append((name, msg))
        print("FLAG %s: %s" % (name, msg), flush=True)


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("case took too long")


def leaves(K, out):
    return (jax.tree_util.tree_leaves(out) if K is JX else tjit.tree_util.tree_leaves(out))


def close(a, b, rtol):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "V" or b.dtype.kind == "V":
        return True
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return np.array_equal(a, b)
    return np.allclose(a.astype(complex), b.astype(complex), rtol=rtol, atol=rtol, equal_nan=True)


def trees_close(xs, ys, rtol):
    return len(xs) == len(ys) and all(close(x, y, rtol) for x, y in zip(xs, ys))


def move_in(x, axis, B, rng, draw=None):
    """x with a batch of B rows inserted at `axis`: x, then new draws from the argument's
    generator (so structured arguments stay symmetric, definite, ...), or permutations of x."""
    def another():
        if draw is not None:
            return np.asarray(draw(rng), x.dtype).reshape(x.shape)
        return rng.permutation(x.ravel()).reshape(x.shape) if x.size else x
    rows = np.stack([x] + [another() for _ in range(B - 1)]) if B else \
        np.zeros((0,) + x.shape, x.dtype)
    return np.moveaxis(rows, 0, axis)


def loop_ref(K, f, args, in_axes, out_axes, B):
    """The reference: f row by row (eager), outputs stacked along out_axes."""
    rows = []
    for b in range(B):
        rows.append(leaves(K, f(*[a if ax is None else np.take(a, b, axis=ax)
                                  for a, ax in zip(args, in_axes)])))
    if not rows:
        return None
    outs = []
    for i in range(len(rows[0])):
        col = np.stack([np.asarray(r[i]) for r in rows])
        outs.append(np.moveaxis(col, 0, out_axes) if out_axes is not None else col[0])
    return outs


def run_vmap(K, f, args, in_axes, out_axes, wrap=None, axis_size=None):
    g = K.lib.vmap(f, in_axes=tuple(in_axes), out_axes=out_axes, axis_size=axis_size)
    if wrap == "jit":
        g = K.lib.jit(g)
    return [np.asarray(x) for x in leaves(K, g(*args))]


def compare(rep, name, f_of, args, in_axes, out_axes, B, rtol, wrap=None):
    """vmap vs the loop (and JAX where they differ); f_of(K) is the per-row function."""
    rep.count("checks")
    try:
        got = run_vmap(TJ, f_of(TJ), args, in_axes, out_axes, wrap)
    except Timeout:
        raise
    except Exception as e:  # noqa: BLE001
        try:
            run_vmap(JX, f_of(JX), args, in_axes, out_axes, wrap)
        except Exception as e2:  # noqa: BLE001
            rep.count("both_raise")
            if rep.verbose:
                print("  both raise:", name, repr(e)[:150], "|", repr(e2)[:150])
            return
        rep.flag(name, "tjit vmap raises, JAX does not: %s" % repr(e)[:300])
        if rep.verbose:
            traceback.print_exc()
        return
    try:
        ref = loop_ref(TJ, f_of(TJ), args, in_axes, out_axes, B)
    except Exception:  # noqa: BLE001
        ref = None
    if ref is not None and trees_close(got, ref, rtol):
        rep.count("agree_loop")
        return
    try:
        jx = run_vmap(JX, f_of(JX), args, in_axes, out_axes, wrap)
    except Exception as e:  # noqa: BLE001
        jx = None
        if ref is None:
            rep.count("jax_raises_tjit_ok")
            if rep.verbose:
                print("  JAX raises, tjit runs:", name, repr(e)[:150])
            return
    if jx is not None and trees_close(got, jx, rtol):
        rep.count("agree_jax_not_loop" if ref is not None else "agree_jax")
        return
    shapes = lambda t: None if t is None else [x.shape for x in t]  # noqa: E731
    rep.flag(name, "in_axes %s out_axes %s B=%d: tjit %s loop %s JAX %s\n    tjit %s\n    ref %s"
             % (in_axes, out_axes, B, shapes(got), shapes(ref), shapes(jx),
                [x.ravel()[:6] for x in got], [x.ravel()[:6] for x in (ref or jx or [])]))


def axis_choices(ndim):
    return [0, 1, -1] if ndim >= 1 else [0, -1]


# -- the per-function sweep over diff_grad's cases ----------------------------------------------
def sweep(rep, rng, only):
    for cs in dg.CASES:
        if only and not any(o in cs.name for o in only):
            continue
        base = [a.draw(rng) for a in cs.args]
        arr = [i for i, a in enumerate(cs.args) if a.kind != "const"]
        if not arr:
            continue
        fixed = list(base)

        def f_of(K, cs=cs, fixed=fixed, arr=arr):
            def f(*xs):
                full = list(fixed)
                for i, x in zip(arr, xs):
                    full[i] = K.np.asarray(x)  # methods such as .at on the loop's rows
                return cs.fn(K, *full)
            return f

        xs0 = [np.asarray(base[i]) for i in arr]
        draws = [cs.args[i].draw for i in arr]
        rtol = 1e-8 * max(cs.loose, 1.0)
        signal.alarm(60)
        try:
            for B in (3, 1, 0):
                in_axes = []
                for x in xs0:
                    ch = axis_choices(x.ndim) + [None]
                    in_axes.append(ch[rng.integers(len(ch))])
                if all(a is None for a in in_axes):
                    in_axes[0] = 0
                args = [x if ax is None else move_in(x, ax, B, rng, d)
                        for x, ax, d in zip(xs0, in_axes, draws)]
                out_axes = [0, -1, 1][rng.integers(3)] if B else 0
                try:
                    y = f_of(TJ)(*xs0)
                    if out_axes == 1 and min(np.ndim(t) for t in leaves(TJ, y)) < 1:
                        out_axes = -1
                except Exception:  # noqa: BLE001
                    out_axes = 0
                compare(rep, "%s[B=%d]" % (cs.name, B), f_of, args, in_axes, out_axes, B, rtol)
                if B == 3:
                    compare(rep, cs.name + "[jit]", f_of, args, in_axes, out_axes, B, rtol, "jit")
                    nested(rep, cs.name, f_of, xs0, draws, rng, rtol)
                    if any(cs.args[i].diff for i in arr):
                        grads(rep, cs, f_of, args, in_axes, arr, rtol)
        except Timeout:
            rep.flag(cs.name, "timed out")
        finally:
            signal.alarm(0)


def nested(rep, name, f_of, xs0, draws, rng, rtol):
    """vmap(vmap(f, inner axes), outer axes) against a double loop."""
    B1, B2 = 2, 3
    inner, outer, args = [], [], []
    for k, (x, d) in enumerate(zip(xs0, draws)):
        ai = [0, -1, None][rng.integers(3)] if k else 0
        x2 = x if ai is None else move_in(x, ai, B2, rng, d)
        ao = [0, 1, -1, None][rng.integers(4)] if k else [0, -1][rng.integers(2)]
        if ao == 1 and x2.ndim < 1:
            ao = 0
        x3 = x2 if ao is None else move_in(x2, ao, B1, rng)
        inner.append(ai)
        outer.append(ao)
        args.append(x3)

    def f2_of(K):
        return K.lib.vmap(f_of(K), in_axes=tuple(inner), out_axes=-1)
    compare(rep, name + "[nested]", f2_of, args, outer, 0, B1, rtol)


def grads(rep, cs, f_of, args, in_axes, arr, rtol):
    """vmap(grad(sum f)) and grad(sum vmap f) for the first differentiable argument."""
    k = next(j for j, i in enumerate(arr) if cs.args[i].diff)
    if np.asarray(args[k]).dtype.kind != "f":
        return

    def g_of(K):
        f = f_of(K)

        def s(*xs):
            tot = 0.0
            for t in leaves(K, f(*xs)):
                t = K.np.asarray(t)
                tot = tot + K.np.sum(K.np.real(t) if t.dtype.kind == "c" else t)
            return tot
        return K.lib.grad(s, argnums=k)
    compare(rep, cs.name + "[vmap_grad]", g_of, args, in_axes, 0, 3, rtol * 100)

    def sum_vmap_of(K):
        def whole(*xs):
            out = K.lib.vmap(f_of(K), in_axes=tuple(in_axes))(*xs)
            tot = 0.0
            for t in leaves(K, out):
                tot = tot + K.np.sum(K.np.real(t) if t.dtype.kind == "c" else t)
            return tot
        return K.lib.grad(whole, argnums=k)
    rep.count("checks")
    try:
        got = np.asarray(sum_vmap_of(TJ)(*args))
    except Exception as e:  # noqa: BLE001
        try:
            sum_vmap_of(JX)(*args)
            rep.flag(cs.name + "[grad_sum_vmap]", "tjit raises, JAX not: %s" % repr(e)[:200])
        except Exception:  # noqa: BLE001
            rep.count("both_raise")
        return
    def sum_loop(*xs):  # the reference: the rows unrolled in Python, no vmap
        tot = 0.0
        for b in range(3):  # grads() runs at B=3
            row = [x if ax is None else TJ.np.take(x, b, axis=ax) for x, ax in zip(xs, in_axes)]
            for t in leaves(TJ, f_of(TJ)(*row)):
                tot = tot + TJ.np.sum(TJ.np.real(t) if t.dtype.kind == "c" else t)
        return tot
    try:
        want = np.asarray(tjit.grad(sum_loop, argnums=k)(*args))
        if close(got, want, rtol * 100):
            rep.count("agree_loop")
            return
    except Exception:  # noqa: BLE001
        pass
    try:
        want = np.asarray(sum_vmap_of(JX)(*args))
    except Exception:  # noqa: BLE001
        return
    if not close(got, want, rtol * 100):
        rep.flag(cs.name + "[grad_sum_vmap]", "tjit %s JAX %s" % (got.ravel()[:6], want.ravel()[:6]))
    else:
        rep.count("agree_jax")


# -- hand-written programs: index arguments, scalars, control flow, custom rules ------------------
def programs(rng):
    x = rng.standard_normal((4, 5))
    v = rng.standard_normal(6)
    i3 = np.array([[0, 2, 1], [3, 3, 0], [1, 0, 2], [5, 4, 1]], np.int32)   # rows: 4
    starts = np.array([0, 2, 3, 1], np.int32)
    sv = np.sort(rng.standard_normal((4, 6)), axis=1)
    P = []

    def p(name, f_of, args, in_axes, out_axes=0, B=None, axis_size=None):
        P.append((name, f_of, args, in_axes, out_axes, B, axis_size))

    xb = rng.standard_normal((4, 6))
    p("take_batched_idx", lambda K: lambda a, i: K.np.take(a, i), (v, i3), (None, 0))
    p("take_both", lambda K: lambda a, i: K.np.take(a, i, axis=0), (xb, i3), (0, 0))
    p("take_mode_clip", lambda K: lambda a, i: K.np.take(a, i + 4, mode="clip"), (v, i3), (None, 0))
    p("take_mode_fill", lambda K: lambda a, i: K.np.take(a, i + 3, mode="fill", fill_value=-7.),
      (v, i3), (None, 0))
    p("take_along_axis", lambda K: lambda a, i: K.np.take_along_axis(a, i, axis=0),
      (xb, i3), (0, 0))
    p("take_along_axis_idx_only", lambda K: lambda a, i: K.np.take_along_axis(a, i, axis=0),
      (v, i3), (None, 0))
    p("dynamic_slice", lambda K: lambda a, s: K.lax.dynamic_slice(a, (s,), (3,)),
      (xb, starts), (0, 0))
    p("dynamic_slice_start_only", lambda K: lambda a, s: K.lax.dynamic_slice(a, (s,), (3,)),
      (v, starts), (None, 0))
    p("dynamic_slice_2d", lambda K: lambda a, s: K.lax.dynamic_slice(a, (s, s // 2), (2, 2)),
      (rng.standard_normal((5, 5)), starts), (None, 0))
    p("dynamic_update_slice", lambda K: lambda a, u, s: K.lax.dynamic_update_slice(a, u, (s,)),
      (xb, rng.standard_normal(2), starts), (0, None, 0))
    p("dynamic_update_slice_upd", lambda K: lambda a, u, s: K.lax.dynamic_update_slice(a, u, (s,)),
      (v, rng.standard_normal((4, 2)), starts), (None, 0, 0))
    p("dynamic_index_in_dim", lambda K: lambda a, s: K.lax.dynamic_index_in_dim(a, s, 0, False),
      (v, starts), (None, 0))
    p("at_set", lambda K: lambda a, i, u: K.np.asarray(a).at[i].set(u), (v, i3, rng.standard_normal((4, 3))),
      (None, 0, 0))
    p("at_add_dup", lambda K: lambda a, i: K.np.asarray(a).at[i].add(1.0), (xb, i3), (0, 0))
    p("at_mul", lambda K: lambda a, i: K.np.asarray(a).at[i].mul(2.0), (v, i3), (None, 0))
    p("at_min", lambda K: lambda a, i, u: K.np.asarray(a).at[i].min(u), (xb, i3, rng.standard_normal((4, 3))),
      (0, 0, 0))
    p("at_max_scalar_idx", lambda K: lambda a, s: K.np.asarray(a).at[s].max(10.0), (v, starts), (None, 0))
    p("at_get_fill", lambda K: lambda a, i: K.np.asarray(a).at[i + 4].get(mode="fill", fill_value=9.0),
      (v, i3), (None, 0))
    p("at_2d_pair", lambda K: lambda a, i, j: K.np.asarray(a).at[i, j].set(0.0),
      (rng.standard_normal((6, 6)), i3, i3[::-1]), (None, 0, 0))
    p("getitem_batched_idx", lambda K: lambda a, i: K.np.asarray(a)[i], (v, i3), (None, 0))
    p("getitem_slice_and_idx", lambda K: lambda a, i: K.np.asarray(a)[1:, i[0]], (rng.standard_normal((3, 6)),
                                                                      i3), (None, 0))
    p("one_hot", lambda K: lambda i: K.nn.one_hot(i, 6), (i3,), (0,))
    p("one_hot_axis0", lambda K: lambda i: K.nn.one_hot(i, 6, axis=0), (i3,), (1,))
    p("argsort_as_index", lambda K: lambda a: a[K.np.argsort(a)], (xb,), (0,))
    p("argsort_take_along", lambda K: lambda a, b: K.np.take_along_axis(
        b, K.np.argsort(a), axis=0), (xb, xb.T * 2 + 1), (0, 1))
    p("searchsorted", lambda K: lambda a, q: K.np.searchsorted(a, q), (sv, xb), (0, 0))
    p("searchsorted_right_q", lambda K: lambda a, q: K.np.searchsorted(a, q, side="right"),
      (sv[0], xb), (None, 1))
    p("bincount_length", lambda K: lambda i: K.np.bincount(i, length=7), (i3,), (0,))
    p("bincount_weights", lambda K: lambda i, w: K.np.bincount(i, w, length=7),
      (i3, rng.standard_normal((4, 3))), (0, 0))
    p("argmax_gather", lambda K: lambda a: a[K.np.argmax(a)], (xb,), (1,))
    p("where_index", lambda K: lambda a, i: K.np.where(i > 1, K.np.asarray(a)[i], -K.np.asarray(a)[i]), (v, i3), (None, 0))
    p("segment_sum", lambda K: lambda d, s: K.lib.ops.segment_sum(d, s, num_segments=6),
      (rng.standard_normal((4, 3)), i3), (0, 0))
    p("lax.gather_via_index_take", lambda K: lambda a, i: K.lax.index_take(a, (i,), (0,)),
      (v, i3), (None, 0))
    p("lax.sort_multi", lambda K: lambda a, b: K.lax.sort((a, b), num_keys=1)[1], (xb, xb.T * 3),
      (0, 1))
    p("lax.top_k_idx", lambda K: lambda a: K.lax.top_k(a, 3)[1], (xb,), (0,))
    p("roll_batched_shift", lambda K: lambda a, s: K.np.roll(a, s), (v, starts), (None, 0))
    p("lax.select_n_idx", lambda K: lambda i, a, b: K.lax.select_n(i > 1, a, b),
      (i3, rng.standard_normal((4, 3)), rng.standard_normal(3)), (0, 0, None))
    p("clamp_batched_bounds", lambda K: lambda lo, a: K.lax.clamp(lo, a, 1.0),
      (rng.standard_normal(4) * 0.1, v), (0, None))
    # random keys batched
    p("random_normal_keys", lambda K: lambda k: K.lib.random.normal(k, (3,)),
      ("KEYS",), (0,))
    p("random_split_keys", lambda K: lambda k: K.lib.random.key_data(K.lib.random.split(k, 2))
      if hasattr(K.lib.random, "key_data") else K.lib.random.split(k, 2), ("KEYS",), (0,))
    p("random_uniform_minval", lambda K: lambda k, lo: K.lib.random.uniform(
        k, (2,), minval=lo, maxval=lo + 1), ("KEY", rng.standard_normal(4)), (None, 0))
    p("random_choice", lambda K: lambda k: K.lib.random.choice(k, 10, (3,), replace=False),
      ("KEYS",), (0,))
    p("random_permutation", lambda K: lambda k, a: K.lib.random.permutation(k, a),
      ("KEYS", xb), (0, 0))
    p("random_bernoulli_p", lambda K: lambda k, q: K.lib.random.bernoulli(k, q, (3,)),
      ("KEY", rng.uniform(0, 1, 4)), (None, 0))
    p("random_randint", lambda K: lambda k, hi: K.lib.random.randint(k, (3,), 0, hi),
      ("KEYS", starts + 2), (0, 0))
    p("random_fold_in", lambda K: lambda k, d: K.lib.random.normal(K.lib.random.fold_in(k, d)),
      ("KEY", starts), (None, 0))
    # scalars and batch shapes
    p("scalar_batch", lambda K: lambda s, a: s * a + K.np.sin(s), (rng.standard_normal(4), v),
      (0, None))
    p("scalar_python_none", lambda K: lambda a: a * 2.0 + 1, (v,), (0,))
    p("size1_batch", lambda K: lambda a: K.np.cumsum(a), (x[:1],), (0,))
    p("size0_batch", lambda K: lambda a: K.np.sort(a) @ a, (np.zeros((0, 5)),), (0,), B=0)
    p("size0_batch_axis1", lambda K: lambda a: K.np.linalg.norm(a), (np.zeros((5, 0)),), (1,),
      B=0)
    p("axis_size_no_batched", lambda K: lambda a: a * 2, (v,), (None,), out_axes=0, B=3,
      axis_size=3)
    p("out_axes_none", lambda K: lambda a, b: (a * 2, K.np.sum(b)), (xb, v), (0, None),
      out_axes=(0, None))
    p("out_axes_tuple", lambda K: lambda a: (a, K.np.cumsum(a)), (xb,), (0,), out_axes=(1, -1))
    p("in_axes_pytree", lambda K: lambda d: d["a"] * d["b"][0] + d["b"][1],
      ({"a": xb, "b": (v, xb.T)},), ({"a": 0, "b": (None, 1)},))
    p("in_axes_pytree_dict_prefix", lambda K: lambda d: d["a"] - d["b"],
      ({"a": xb, "b": xb.T},), ({"a": 0, "b": 1},))
    # control flow with batched predicates and trip counts
    p("cond_batched_pred", lambda K: lambda a: K.lax.cond(a[0] > 0, lambda t: t * 2,
                                                          lambda t: -t, a), (xb,), (0,))
    p("cond_operand_unbatched", lambda K: lambda s, a: K.lax.cond(s > 0, lambda t: t.sum(),
                                                                  lambda t: t.max(), a),
      (rng.standard_normal(4), v), (0, None))
    p("switch_batched_idx", lambda K: lambda i, a: K.lax.switch(
        i, [lambda t: t + 1, lambda t: t * t, lambda t: K.np.sin(t)], a),
      (starts % 3, xb), (0, 0))
    p("switch_idx_clamped", lambda K: lambda i, a: K.lax.switch(
        i, [lambda t: t + 1, lambda t: t * t], a), (starts - 1, v), (0, None))
    p("while_batched_trips", lambda K: lambda n: K.lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 + 1), (0, 1.0))[1],
      (starts + 1,), (0,))
    p("while_batched_carry", lambda K: lambda a: K.lax.while_loop(
        lambda c: K.np.sum(c) < 10, lambda c: c * 2 + 0.5, a), (np.abs(xb),), (0,))
    p("fori_batched_upper", lambda K: lambda n, a: K.lax.fori_loop(
        0, n, lambda i, c: c + a[i], 0.0), (starts + 1, xb), (0, 0))
    p("fori_static", lambda K: lambda a: K.lax.fori_loop(0, 3, lambda i, c: c * a + i, a),
      (xb,), (1,))
    p("scan_batched_xs", lambda K: lambda a: K.lax.scan(lambda c, t: (c + t, c * t), 0.0, a),
      (xb,), (0,))
    p("scan_batched_init_only", lambda K: lambda c0, a: K.lax.scan(
        lambda c, t: (c * 0.5 + t, c), c0, a), (rng.standard_normal(4), v), (0, None))
    p("scan_reverse_axis1", lambda K: lambda a: K.lax.scan(
        lambda c, t: (c + t, c), 0.0, a, reverse=True), (xb,), (1,))
    p("map_batched", lambda K: lambda a: K.lax.map(lambda t: t * t + 1, a),
      (rng.standard_normal((4, 3, 2)),), (2,))
    p("associative_scan", lambda K: lambda a: K.lax.associative_scan(K.np.add, a), (xb,), (1,))
    p("cond_inside_scan", lambda K: lambda a: K.lax.scan(lambda c, t: (K.lax.cond(
        t > 0, lambda u: u + t, lambda u: u * t, c), c), 0.0, a)[1], (xb,), (0,))
    p("while_in_cond", lambda K: lambda n: K.lax.cond(n > 2, lambda m: K.lax.while_loop(
        lambda c: c < m * 3, lambda c: c + 2, 0 * m), lambda m: m, n), (starts,), (0,))
    # nested vmap of control flow, collectives over the vmapped axis, typed keys
    p("nested_cond", lambda K: K.lib.vmap(lambda a: K.lax.cond(a.sum() > 0, lambda t: t * 2,
                                                               lambda t: t - 1, a), in_axes=1),
      (rng.standard_normal((4, 3, 2)),), (0,))
    p("nested_while_trips", lambda K: K.lib.vmap(lambda n, a: K.lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * a), (0, 1.0))[1], in_axes=(0, None)),
      (np.array([[0, 1, 3], [2, 2, 0], [4, 1, 1], [0, 0, 5]], np.int32), rng.uniform(1, 2, 4)),
      (0, 0))
    p("nested_switch", lambda K: K.lib.vmap(lambda i, a: K.lax.switch(
        i, [lambda t: t, lambda t: -t, lambda t: t * t], a), in_axes=(0, 1)),
      (i3 % 3, rng.standard_normal((4, 2, 3))), (0, 0))
    p("psum_axis_name", lambda K: K.lib.vmap(lambda a: a / K.lax.psum(a, "i"), axis_name="i"),
      (np.abs(xb) + 1,), (1,))
    p("axis_index", lambda K: K.lib.vmap(lambda a: a * K.lax.axis_index("i"), axis_name="i"),
      (xb,), (0,))
    p("pmax_nested_inner", lambda K: K.lib.vmap(lambda a: K.lax.pmax(a, "j"), axis_name="j"),
      (xb,), (0,))
    p("typed_key_split", lambda K: lambda k: K.lib.random.key_data(K.lib.random.split(
        K.lib.random.wrap_key_data(k), 3)), (np.array([[0, 1], [2, 3], [4, 5], [6, 7]],
                                                      np.uint32),), (0,))
    p("fori_grad", lambda K: K.lib.grad(lambda a: K.lax.fori_loop(
        0, 3, lambda i, c: K.np.sin(c) * a, a)), (v,), (0,))
    p("scan_grad_batched_xs", lambda K: K.lib.grad(lambda a: K.lax.scan(
        lambda c, t: (c * t + 1.0, c), 0.5, a)[0]), (xb,), (1,))
    p("cond_grad_batched_pred", lambda K: K.lib.grad(lambda a: K.lax.cond(
        a > 0, K.np.sin, K.np.cos, a)), (v,), (0,))
    p("while_fwd_grad", lambda K: K.lib.jacfwd(lambda a: K.lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, K.np.sin(c[1])), (0, a))[1]), (v,), (0,))
    p("fft_axis1", lambda K: lambda a: K.np.fft.rfft(a), (xb,), (1,))
    p("fft2_batched", lambda K: lambda a: K.np.fft.fft2(a), (rng.standard_normal((3, 4, 5)),),
      (2,))
    # size= functions, searches, sorting networks, random with batched parameters
    xi = rng.integers(-1, 2, (4, 6)).astype(np.float64)
    p("nonzero_size", lambda K: lambda a: K.np.nonzero(a, size=4, fill_value=-1)[0], (xi,), (0,))
    p("unique_size", lambda K: lambda a: K.np.unique(a, size=3, fill_value=9.0), (xi,), (1,))
    p("argwhere_size", lambda K: lambda a: K.np.argwhere(a > 0, size=3), (xi,), (0,))
    p("where_one_arg_size", lambda K: lambda a: K.np.where(a, size=2, fill_value=0)[0], (xi,),
      (0,))
    p("interp_batched_xp", lambda K: lambda q, xp: K.np.interp(q, xp, K.np.sin(xp)),
      (xb, sv), (0, 0))
    p("digitize", lambda K: lambda a, bins: K.np.digitize(a, bins), (xb, sv), (0, 0))
    p("histogram_batched", lambda K: lambda a: K.np.histogram(a, bins=3, range=(-2, 2))[0],
      (xb,), (0,))
    p("cumlogsumexp_rev", lambda K: lambda a: K.lax.cumlogsumexp(a, reverse=True), (xb,), (1,))
    p("reduce_window", lambda K: lambda a: K.lax.reduce_window(a, -np.inf, K.lax.max, (2,),
                                                                (1,), "VALID"), (xb,), (1,))
    p("einsum_one_batched", lambda K: lambda a, b: K.np.einsum("i,ij->j", a, b),
      (xb, rng.standard_normal((6, 3))), (0, None))
    p("matmul_batched_right", lambda K: lambda a, b: a @ b,
      (rng.standard_normal((3, 6)), rng.standard_normal((6, 4, 2))), (None, 1))
    p("categorical_logits", lambda K: lambda k, lg: K.lib.random.categorical(k, lg),
      ("KEY", xb), (None, 0))
    p("gamma_alpha", lambda K: lambda k, al: K.lib.random.gamma(k, al), ("KEYS", np.abs(xb) + .5),
      (0, 0))
    p("mvn_mean", lambda K: lambda k, m: K.lib.random.multivariate_normal(k, m, np.eye(6)),
      ("KEYS", xb), (0, 0))
    p("truncated_normal_bounds", lambda K: lambda k, lo: K.lib.random.truncated_normal(
        k, lo, lo + 1.0, (3,)), ("KEY", rng.standard_normal(4)), (None, 0))
    p("unbatched_output", lambda K: lambda a, b: (a + 1, b * 2), (xb, v), (0, None),
      out_axes=(0, None))
    return P


def custom_programs(rng):
    """custom_jvp / custom_vjp / custom_vmap under vmap (and vmap of their grads)."""
    x = rng.standard_normal((4, 3))
    P = []

    def f_jvp(K):
        @K.lib.custom_jvp
        def f(a):
            return K.np.sin(a) * 2

        @f.defjvp
        def f_j(pr, ta):
            (a,), (t,) = pr, ta
            return f(a), K.np.cos(a) * 2 * t
        return f

    def f_vjp(K):
        @K.lib.custom_vjp
        def f(a, b):
            return a * b

        def fwd(a, b):
            return a * b, (a, b)

        def bwd(r, g):
            return g * r[1], g * r[0]
        f.defvjp(fwd, bwd)
        return f

    def f_vmap(K):
        @K.lib.custom_batching.custom_vmap
        def f(a):
            return a + 1.0

        @f.def_vmap
        def rule(axis_size, in_batched, a):
            return a + 1.0, in_batched[0]
        return f

    P.append(("custom_jvp", lambda K: f_jvp(K), (x,), (1,)))
    P.append(("custom_jvp_grad", lambda K: K.lib.grad(lambda a: f_jvp(K)(a).sum()), (x,), (0,)))
    P.append(("custom_vjp", lambda K: f_vjp(K), (x, x[0]), (0, None)))
    P.append(("custom_vjp_grad", lambda K: K.lib.grad(lambda a, b: f_vjp(K)(a, b).sum(),
                                                      argnums=(0, 1)), (x, x[:, ::-1]), (0, 0)))
    P.append(("custom_vjp_grad_unbatched_b", lambda K: K.lib.grad(
        lambda a, b: f_vjp(K)(a, b).sum(), argnums=1), (x, x[0]), (0, None)))
    P.append(("custom_vmap", lambda K: f_vmap(K), (x,), (0,)))
    P.append(("custom_vmap_in_jit", lambda K: K.lib.jit(f_vmap(K)), (x,), (1,)))
    P.append(("custom_jvp_nondiff", lambda K: K.lib.grad(lambda a: K.lax.stop_gradient(a).sum()
                                                          + f_jvp(K)(a).sum()), (x,), (1,)))
    return P


def run_programs(rep, rng, only):
    keys_t = tjit.random.split(tjit.random.PRNGKey(1), 4)
    keys_j = jax.random.split(jax.random.PRNGKey(1), 4)
    allp = [(n, f, a, ia, oa, B, sz) for n, f, a, ia, oa, B, sz in programs(rng)]
    allp += [(n, f, a, ia, 0, None, None) for n, f, a, ia in custom_programs(rng)]
    for name, f_of, args, in_axes, out_axes, B, axis_size in allp:
        if only and not any(o in name for o in only):
            continue
        if any(isinstance(a, str) for a in args):
            # keys: each library gets its own (same bits)
            def sub(K, a):
                if not isinstance(a, str):
                    return a
                if a == "KEYS":
                    return keys_t if K is TJ else keys_j
                return tjit.random.PRNGKey(3) if K is TJ else jax.random.PRNGKey(3)
            key_prog(rep, name, f_of, args, in_axes, sub)
            continue
        if B is None:
            first = jax.tree_util.tree_leaves(
                [a for a, ax in zip(args, in_axes) if ax is not None])
            flat_axes = jax.tree_util.tree_leaves([ax for ax in in_axes if ax is not None])
            B = np.shape(first[0])[flat_axes[0]] if first else axis_size
        signal.alarm(60)
        try:
            pytree = any(isinstance(a, (dict, tuple)) for a in args)
            if pytree or isinstance(out_axes, tuple) or axis_size is not None:
                generic(rep, name, f_of, args, in_axes, out_axes, B, axis_size)
            else:
                compare(rep, name, f_of, list(args), list(in_axes), out_axes, B, 1e-9)
                compare(rep, name + "[jit]", f_of, list(args), list(in_axes), out_axes, B, 1e-9,
                        "jit")
        except Timeout:
            rep.flag(name, "timed out")
        except Exception as e:  # noqa: BLE001
            rep.flag(name, "harness error %r" % e)
        finally:
            signal.alarm(0)


def generic(rep, name, f_of, args, in_axes, out_axes, B, axis_size):
    """Pytrees of axes, tuple out_axes, axis_size: tjit against JAX (same program)."""
    rep.count("checks")
    res = {}
    for K in (TJ, JX):
        try:
            out = K.lib.vmap(f_of(K), in_axes=in_axes, out_axes=out_axes,
                             axis_size=axis_size)(*args)
            res[K] = ("ok", [np.asarray(t) for t in leaves(K, out)])
        except Exception as e:  # noqa: BLE001
            res[K] = ("raise", repr(e)[:200])
    t, j = res[TJ], res[JX]
    if t[0] != j[0]:
        rep.flag(name, "tjit %s / JAX %s" % (t[0] if t[0] == "ok" else t[1],
                                              j[0] if j[0] == "ok" else j[1]))
    elif t[0] == "ok" and not trees_close(t[1], j[1], 1e-9):
        rep.flag(name, "tjit %s JAX %s" % ([x.shape for x in t[1]], [x.shape for x in j[1]]))
    else:
        rep.count("agree_jax")


def key_prog(rep, name, f_of, args, in_axes, sub):
    """Batched PRNG keys: tjit's vmap against its own row-by-row loop and against JAX's
    values (tjit's threefry matches JAX's bits)."""
    rep.count("checks")
    res = {}
    for K in (TJ, JX):
        a = [sub(K, x) for x in args]
        try:
            out = K.lib.vmap(f_of(K), in_axes=tuple(in_axes))(*a)
            got = [np.asarray(K.lib.random.key_data(t)) if str(getattr(t, "dtype", "")).startswith(
                "key") else np.asarray(t) for t in leaves(K, out)]
            rows = []
            for b in range(4):
                rows.append([np.asarray(t) for t in leaves(K, f_of(K)(*[
                    x if ax is None else x[b] for x, ax in zip(a, in_axes)]))])
            loop = [np.stack([r[i] for r in rows]) for i in range(len(rows[0]))]
            res[K] = ("ok", got, loop)
        except Exception as e:  # noqa: BLE001
            res[K] = ("raise", repr(e)[:200])
    t, j = res[TJ], res[JX]
    if t[0] != j[0]:
        rep.flag(name, "tjit %s / JAX %s" % (t[0] if t[0] == "ok" else t[1],
                                              j[0] if j[0] == "ok" else j[1]))
    elif t[0] == "ok" and not trees_close(t[1], t[2], 1e-9):
        rep.flag(name, "tjit vmap %s vs its loop %s" % (t[1][0].ravel()[:4], t[2][0].ravel()[:4]))
    elif t[0] == "ok" and not trees_close(t[1], j[1], 1e-9):
        rep.count("keys_differ_from_jax")
        if rep.verbose:
            print("  keys differ from JAX:", name)
    else:
        rep.count("agree_jax" if t[0] == "ok" else "both_raise")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="", help="comma list of: sweep, programs")
    ap.add_argument("-v", "--verbose", action="store_true")
    o = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    rep = Report(o.verbose)
    rng = np.random.default_rng(o.seed)
    only = [s for s in o.only.split(",") if s]
    skip = set(o.skip.split(","))
    if "programs" not in skip:
        run_programs(rep, rng, only)
    if "sweep" not in skip:
        sweep(rep, rng, only)
    print("\ncounts:", dict(sorted(rep.counts.items())))
    print("flags: %d" % len(rep.flags))
    for n_, m in rep.flags:
        print("  %s: %s" % (n_, m.splitlines()[0][:200]))
    return 1 if rep.flags else 0


if __name__ == "__main__":
    sys.exit(main())
