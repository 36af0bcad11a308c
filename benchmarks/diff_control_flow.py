"""Differential hunt: control flow under every transformation.

Each case draws a program ``f(x, s0) -> R^n`` from blocks of control flow (lax.cond,
lax.switch with out-of-range indices, counter and early-exit while_loops, fori_loop with
static and traced bounds, scan with reverse/unroll/length/xs=None and pytree carries of
float/int/bool/complex dtypes, a float16 scan, lax.map with batch_size, associative_scan,
jnp.where selects, checkpointed loop bodies, nested scan-in-while-in-cond); ``x`` is
closed over by the bodies, ``s0`` starts the state. The program is written once against a
"kit": NumPy float64 with Python loops (the reference) or tjit/jax. Each case then applies
one transformation stack (eager, jit, grad, value_and_grad, jacfwd, jacrev, hessian, jvp,
vjp, vmap with several in_axes, and compositions such as vmap(grad(jit)), jit(vmap(grad)),
grad(vmap), jvp(grad)).

References: the NumPy float64 program for values, central finite differences in float64
for derivatives (two step sizes; a case whose two estimates disagree sits on a kink, e.g.
a predicate flipping, and is skipped), a Python loop over the batch for vmap. Running the
same cases with ``--lib jax`` checks the harness (JAX refuses reverse mode through
while_loop: those cases are counted as "refused").

    .venv/bin/python benchmarks/diff_control_flow.py --cases 300 --seed 0
    /work/jaxvenv/bin/python benchmarks/diff_control_flow.py --lib jax --cases 300 --seed 0

Options: --x64 (float64), --remat (tjit: every scan body checkpointed and chunked),
--while-checkpoints K (tjit: Revolve snapshots in reverse mode through while_loop),
--only/--transforms to focus. API edge cases (outcome or error of small calls) compared
with JAX:

    .venv/bin/python benchmarks/diff_control_flow.py --edges /tmp/e_tjit.json
    /work/jaxvenv/bin/python benchmarks/diff_control_flow.py --lib jax --edges /tmp/e_jax.json
    .venv/bin/python benchmarks/diff_control_flow.py --compare-edges /tmp/e_tjit.json /tmp/e_jax.json
"""

import argparse
import contextlib
import functools
import json
import sys
import time
import traceback

import numpy as np

N = 3          # length of x and of the state
BATCH = 3


# -- kits: one program text on NumPy float64 (the reference) and on tjit/jax --------------
class NumpyKit:
    m = np
    ref = True

    def to_int(self, v):
        return int(v)

    def f16(self, v):
        return v            # the reference stays in float64

    def back(self, v):
        return v

    def cond(self, p, tf, ff, *ops):
        return tf(*ops) if p else ff(*ops)

    def switch(self, i, branches, *ops):
        return branches[min(max(int(i), 0), len(branches) - 1)](*ops)   # JAX clamps

    def while_loop(self, cf, bf, c):
        while cf(c):
            c = bf(c)
        return c

    def fori_loop(self, lo, hi, bf, c, unroll=None):
        for i in range(int(lo), int(hi)):
            c = bf(np.int64(i), c)
        return c

    def scan(self, f, c, xs, length=None, reverse=False, unroll=1):
        leaves = _leaves(xs)
        n = length if length is not None else len(leaves[0])
        ys = [None] * n
        for t in (range(n - 1, -1, -1) if reverse else range(n)):
            c, ys[t] = f(c, None if xs is None else _index(xs, t))
        return c, _stack(ys)

    def map(self, f, xs, batch_size=None):
        return _stack([f(_index(xs, t)) for t in range(len(_leaves(xs)[0]))])

    def associative_scan(self, fn, elems, reverse=False):
        if reverse:
            return _flip(self.associative_scan(fn, _flip(elems)))
        acc, out = None, []
        for t in range(len(_leaves(elems)[0])):
            e = _index(elems, t)
            acc = e if acc is None else fn(acc, e)
            out.append(acc)
        return _stack(out)

    def checkpoint(self, f, policy=None):
        return f


def _leaves(tree):
    if isinstance(tree, dict):
        return [v for k in sorted(tree) for v in _leaves(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [v for t in tree for v in _leaves(t)]
    return [] if tree is None else [tree]


def _map_tree(fn, tree):
    if isinstance(tree, dict):
        return {k: _map_tree(fn, v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map_tree(fn, t) for t in tree)
    return None if tree is None else fn(tree)


def _index(tree, t):
    return _map_tree(lambda a: a[t], tree)


def _flip(tree):
    return _map_tree(lambda a: a[::-1], tree)


def _stack(items):
    if not items:
        return None     # a zero-length loop: the blocks do not read its ys
    first = items[0]
    if isinstance(first, dict):
        return {k: _stack([it[k] for it in items]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(_stack([it[i] for it in items]) for i in range(len(first)))
    return None if first is None else np.stack([np.asarray(a) for a in items])


class TracedKit:
    ref = False

    def __init__(self, jax, fdtype):
        import importlib
        self.jax, self.lax, self.fdtype = jax, jax.lax, fdtype
        self.m = importlib.import_module(jax.__name__ + ".numpy")

    def to_int(self, v):
        return self.m.asarray(v).astype(int)     # the default int (int64 under x64)

    def f16(self, v):
        return v.astype(self.m.float16)

    def back(self, v):
        return v.astype(self.fdtype)

    def cond(self, p, tf, ff, *ops):
        return self.lax.cond(p, tf, ff, *ops)

    def switch(self, i, branches, *ops):
        return self.lax.switch(i, branches, *ops)

    def while_loop(self, cf, bf, c):
        return self.lax.while_loop(cf, bf, c)

    def fori_loop(self, lo, hi, bf, c, unroll=None):
        return self.lax.fori_loop(lo, hi, bf, c, unroll=unroll)

    def scan(self, f, c, xs, length=None, reverse=False, unroll=1):
        return self.lax.scan(f, c, xs, length=length, reverse=reverse, unroll=unroll)

    def map(self, f, xs, batch_size=None):
        return self.lax.map(f, xs, batch_size=batch_size)

    def associative_scan(self, fn, elems, reverse=False):
        return self.lax.associative_scan(fn, elems, reverse=reverse)

    def checkpoint(self, f, policy=None):
        pol = None if policy is None else getattr(self.jax.checkpoint_policies, policy)
        return self.jax.checkpoint(f, policy=pol)


# -- blocks: s -> s, closing over x; each draws its parameters once -----------------------
def blk_cond(rng):
    i, j = rng.integers(0, N, 2)
    thr, a, b = rng.uniform(-0.5, 0.5), rng.uniform(0.5, 1.5), rng.uniform(0.2, 0.8)
    tupled = rng.random() < 0.5

    def run(k, s, x):
        m = k.m
        if tupled:   # a pytree operand
            return k.cond(s[i] > thr, lambda o: m.sin(o[0]) * a + o[1][j],
                          lambda o: o[0] * o[0] * b - m.cos(o[1]), (s, x))
        return k.cond(s[i] > thr, lambda s_, x_: m.sin(s_) * a + x_[j],
                      lambda s_, x_: s_ * s_ * b - m.cos(x_), s, x)
    return run


def blk_switch(rng):
    scale = rng.uniform(1.0, 3.0)

    def run(k, s, x):
        m = k.m
        idx = k.to_int(m.floor(s[0] * scale))     # often < 0 or > 2: clamped
        return k.switch(idx, [lambda s_: s_ + 1.0, lambda s_: m.tanh(s_) * 2.0,
                              lambda s_: s_ * x[1]], s)
    return run


def blk_while_counter(rng):
    K, a = int(rng.integers(0, 4)), rng.uniform(0.5, 1.2)

    def run(k, s, x):
        m = k.m

        def body(c):
            i, s_, flag = c
            s2 = m.tanh(s_ * a + x * 0.3 + i * 0.1)
            return i + 1, s2, flag ^ (s2[0] > 0)
        i0 = k.to_int(0) if not k.ref else 0
        _, s, flag = k.while_loop(lambda c: c[0] < K, body, (i0, s, s[0] > 10.0))
        return s + m.where(flag, 0.25, -0.25)
    return run


def blk_while_early(rng):
    maxit, thr = int(rng.integers(2, 7)), rng.uniform(1.0, 6.0)

    def run(k, s, x):
        m = k.m

        def body(c):
            i, s_ = c
            return i + 1, s_ * 1.25 + 0.1 * m.sin(x)
        i0 = k.to_int(0) if not k.ref else 0
        n, s = k.while_loop(lambda c: (c[0] < maxit) & (m.sum(c[1] * c[1]) < thr), body,
                            (i0, s))
        return s + 0.05 * n
    return run


def blk_fori_complex(rng):
    K, j = int(rng.integers(0, 4)), int(rng.integers(0, N))
    unroll = [None, 1, 2, True][int(rng.integers(0, 4))]

    def run(k, s, x):
        m = k.m

        def body(i, c):
            s_, z = c
            z2 = z * m.exp(1j * s_[j] * 0.5) + 0.1 * s_[0]
            return s_ + 0.1 * m.real(z2) * m.cos(s_ + i), z2
        z0 = s[0] + 1j * s[1 % N]
        s, z = k.fori_loop(0, K, body, (s, z0), unroll=unroll)
        return s + 0.1 * m.imag(z)
    return run


def blk_fori_traced(rng):
    a = rng.uniform(0.3, 0.9)

    def run(k, s, x):
        m = k.m
        lo = k.to_int(s[2 % N] > 1.0)
        hi = 1 + k.to_int(s[0] > 0) + k.to_int(x[1] > 0.3)
        return k.fori_loop(lo, hi, lambda i, s_: m.sin(s_ * a + i) + x * 0.2, s)
    return run


def blk_scan(rng):
    L = int(rng.integers(1, 7))     # 4 and 6 split into chunks under --remat
    reverse, unroll = bool(rng.random() < 0.5), [1, 2, 3, True][int(rng.integers(0, 4))]
    ck = rng.random() < 0.3
    policy = [None, "nothing_saveable", "dots_saveable", "everything_saveable"][
        int(rng.integers(0, 4))]

    def run(k, s, x):
        m = k.m
        xs = {"v": m.sin(m.outer(m.arange(L) * 0.5 + 0.2, s)), "t": m.arange(L)}

        def body(c, xt):
            h = m.tanh(c["h"] * xt["v"] + x * 0.4) + 0.05 * xt["t"]
            cnt, flag = c["aux"]
            return ({"h": h, "aux": (cnt + xt["t"], flag | (h[0] > 0.3))},
                    (m.sum(h * h), h[::-1]))
        if ck:
            body = k.checkpoint(body, policy)
        init = {"h": s, "aux": (k.to_int(0) if not k.ref else 0, s[1 % N] > 5.0)}
        c, (ys, yv) = k.scan(body, init, xs, reverse=reverse, unroll=unroll)
        return (c["h"] + 0.1 * m.sum(yv, axis=0) + 0.05 * ys[0]
                + 0.01 * c["aux"][0] + m.where(c["aux"][1], 0.1, 0.0))
    return run


def blk_scan_none(rng):
    L, reverse = int(rng.integers(0, 7)), bool(rng.random() < 0.5)

    def run(k, s, x):
        m = k.m

        def body(c, _):
            return c * 0.8 + m.sin(x + c), m.cos(c)
        c, ys = k.scan(body, s, None, length=L, reverse=reverse)
        w = m.arange(1, L + 1) * 0.1
        return c + (m.sum(ys * w[:, None], axis=0) if L else 0.0)
    return run


def blk_float16(rng):
    L = int(rng.integers(1, 4))

    def run(k, s, x):
        m = k.m

        def body(h, xt):
            return h * 0.75 + m.tanh(xt) * 0.25, h
        xs = k.f16(m.outer(m.arange(L) * 0.3 + 0.4, x))
        h, ys = k.scan(body, k.f16(s), xs)
        return k.back(h) + 0.1 * k.back(m.sum(ys, axis=0))
    return run


def blk_map(rng):
    bs = [None, 1, 2, 3][int(rng.integers(0, 4))]
    thr = rng.uniform(-0.5, 0.5)

    def run(k, s, x):
        m = k.m
        rows = m.outer(s, m.arange(1, N + 1) * 0.5)     # (N, N)

        def f(r):   # a cond inside the mapped function: batched under batch_size
            return k.cond(r[0] > thr, lambda r_: m.sin(r_) + x, lambda r_: r_ * 0.5, r)
        return m.sum(k.map(f, rows, batch_size=bs), axis=1) * 0.3
    return run


def blk_assoc(rng):
    kind, reverse = ["add", "mul", "affine"][int(rng.integers(0, 3))], bool(rng.random() < 0.5)

    def run(k, s, x):
        m = k.m
        if kind == "add":
            return k.associative_scan(lambda a, b: a + b, s * x, reverse=reverse)
        if kind == "mul":
            return k.associative_scan(lambda a, b: a * b, m.tanh(s) + 1.0, reverse=reverse)
        # composition of affine maps u -> a u + b (not commutative: checks the order)
        a, b = k.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]),
                                  (m.tanh(s) * 0.9, x + s * 0.5), reverse=reverse)
        return a + b
    return run


def blk_where(rng):
    thr = rng.uniform(-0.5, 0.5)

    def run(k, s, x):
        m = k.m
        safe = m.where(s > thr, s, 1.0)     # the safe-where idiom: no NaN from log
        return m.where(s > thr, m.log(m.abs(safe) + 1.0) * 2.0, s * x)
    return run


def blk_ckpt_fori(rng):
    K = int(rng.integers(1, 4))
    policy = [None, "nothing_saveable", "everything_saveable"][int(rng.integers(0, 3))]

    def run(k, s, x):
        m = k.m
        step = k.checkpoint(lambda i, s_: m.sin(s_) * 0.9 + x * s_ * 0.2, policy)
        return k.fori_loop(0, K, step, s)
    return run


def blk_nested(rng):
    thr, L, maxit = rng.uniform(-0.3, 0.3), int(rng.integers(1, 3)), int(rng.integers(1, 4))

    def run(k, s, x):
        m = k.m

        def inner_scan(h):
            def body(c, xt):
                return m.tanh(c + xt * x), c
            return k.scan(body, h, m.outer(m.arange(L) * 0.2 + 0.1, h))[0]

        def loop(s_):
            i0 = k.to_int(0) if not k.ref else 0
            return k.while_loop(
                lambda c: (c[0] < maxit) & (m.sum(m.abs(c[1])) < 6.0),
                lambda c: (c[0] + 1, inner_scan(c[1]) * 1.3), (i0, s_))[1]
        return k.cond(s[0] > thr, loop, lambda s_: s_ * 0.5 + x, s)
    return run


def blk_const_init(rng):
    """Loops whose initial carry is a constant: the tangent enters through the closed-over
    x only (the carry's tangent is zero on entry, nonzero after one trip), and a cond
    whose one branch returns a constant (a symbolic-zero tangent on one side)."""
    which = ["scan", "while", "fori", "cond"][int(rng.integers(0, 4))]
    K = int(rng.integers(1, 4))

    def run(k, s, x):
        m = k.m
        zero = m.zeros(N, dtype=s.dtype)
        if which == "scan":
            c, _ = k.scan(lambda c, xt: (c * 0.5 + m.sin(xt * x), None), zero,
                          m.outer(m.arange(K) + 1.0, s), length=K)
        elif which == "while":
            i0 = k.to_int(0) if not k.ref else 0
            c = k.while_loop(lambda c: c[0] < K, lambda c: (c[0] + 1, c[1] * 0.5 + x * s),
                             (i0, zero))[1]
        elif which == "fori":
            c = k.fori_loop(0, K, lambda i, c: c + m.tanh(x * i), zero)
        else:
            c = k.cond(s[0] > x[0], lambda o: o * x, lambda o: m.ones(N, dtype=o.dtype), s)
        return s + c
    return run


def blk_int_pred(rng):
    """cond on an integer predicate (nonzero means true) with int operands and outputs."""
    def run(k, s, x):
        m = k.m
        n = k.to_int(m.floor(s[1 % N] * 2.0))          # int; 0 takes the false branch
        out, cnt = k.cond(n, lambda a, c: (a * 2.0, c + 1), lambda a, c: (a - x, c * 3),
                          s, n)
        return out + 0.1 * cnt
    return run


def blk_while_dict(rng):
    """A while_loop over a dict carry of float, complex and float16 leaves, stopping
    early on a test of the complex leaf."""
    maxit, thr = int(rng.integers(1, 5)), rng.uniform(1.0, 3.0)

    def run(k, s, x):
        m = k.m

        def body(c):
            z = c["z"] * (1.0 + 0.3j) + c["s"][0]
            return {"i": c["i"] + 1, "s": m.sin(c["s"]) + x * 0.5, "z": z,
                    "h": c["h"] * 0.5 + k.f16(m.real(z))}
        i0 = k.to_int(0) if not k.ref else 0
        c = k.while_loop(lambda c: (c["i"] < maxit) & (m.abs(c["z"]) < thr), body,
                         {"i": i0, "s": s, "z": s[0] * 1j + 0.5, "h": k.f16(s[1 % N])})
        return c["s"] + 0.2 * m.real(c["z"]) + 0.1 * k.back(c["h"])
    return run


def blk_remat_loops(rng):
    """checkpoint around a function holding a while_loop and a scan with length=."""
    K = int(rng.integers(1, 4))
    policy = [None, "nothing_saveable", "everything_saveable"][int(rng.integers(0, 3))]

    def run(k, s, x):
        m = k.m

        def inner(s_):
            i0 = k.to_int(0) if not k.ref else 0
            s_ = k.while_loop(lambda c: c[0] < K, lambda c: (c[0] + 1, m.cos(c[1]) * x),
                              (i0, s_))[1]
            return k.scan(lambda c, xt: (c + xt * c, c), s_, m.outer(m.ones(K), s_) * 0.1,
                          length=K)[0]
        return k.checkpoint(inner, policy)(s)
    return run


def blk_assoc_axis(rng):
    reverse = bool(rng.random() < 0.5)

    def run(k, s, x):
        m = k.m
        a = m.tanh(m.outer(s, x)) * 0.5
        if k.ref:
            out = NumpyKit().associative_scan(lambda p, q: p * q + p + q, a.T, reverse=reverse).T
        else:
            out = k.lax.associative_scan(lambda p, q: p * q + p + q, a, reverse=reverse, axis=1)
        return m.tanh(m.sum(out, axis=0))
    return run


def blk_weak_init(rng):
    """Python-scalar initial carries (weakly typed): the carry takes the body's dtype, as
    in JAX; a fori_loop whose traced upper bound may be below its lower bound."""
    K = int(rng.integers(0, 4))

    def run(k, s, x):
        m = k.m
        acc = k.fori_loop(0, K, lambda i, c: c * 0.5 + m.sum(x * s) * 0.1 + i, 0.0)
        hi = k.to_int(m.floor(s[0] * 3.0))        # negative trip counts are empty
        acc2 = k.fori_loop(1, hi, lambda i, c: c + m.sin(s[1 % N] * i), 1.0)
        c, _ = k.scan(lambda c, xt: (c + xt, None), 0, m.arange(K))   # an int carry
        return s * (1.0 + 0.1 * c) + acc + 0.3 * acc2
    return run


def blk_pred_closure(rng):
    """A while predicate that closes over x (batched through consts only under vmap with
    in_axes=(0, None)), inside a scan over a zero- or non-empty xs."""
    L, maxit = int(rng.integers(0, 3)), int(rng.integers(1, 5))

    def run(k, s, x):
        m = k.m

        def body(c, xt):
            i0 = k.to_int(0) if not k.ref else 0
            c = k.while_loop(lambda v: (v[0] < maxit) & (m.sum(v[1] * v[1]) < 2.0 + x[0]),
                             lambda v: (v[0] + 1, v[1] * 1.2 + xt), (i0, c))[1]
            return c, m.sum(c)
        xs = m.outer(m.arange(L) * 0.1 + 0.2, x)
        c, ys = k.scan(body, s, xs)
        return c + (m.sum(ys) * 0.1 if L else 0.0)
    return run


BLOCKS = {f.__name__[4:]: f for f in [
    blk_cond, blk_switch, blk_while_counter, blk_while_early, blk_fori_complex,
    blk_fori_traced, blk_scan, blk_scan_none, blk_float16, blk_map, blk_assoc, blk_where,
    blk_ckpt_fori, blk_nested, blk_const_init, blk_int_pred, blk_while_dict,
    blk_remat_loops, blk_assoc_axis, blk_weak_init, blk_pred_closure]}
F16_BLOCKS = {"float16", "while_dict"}     # float16 leaves: a looser tolerance
# blocks whose reverse mode goes through a while_loop (JAX refuses these)
WHILE_BLOCKS = {"while_counter", "while_early", "fori_traced", "nested", "const_init",
                "while_dict", "remat_loops", "weak_init", "pred_closure"}


def draw_program(rng, only=None):
    names = list(BLOCKS) if only is None else only
    picked = [str(rng.choice(names)) for _ in range(int(rng.integers(1, 3)))]
    return picked, [BLOCKS[p](rng) for p in picked]


def run_program(kit, blocks, x, s0):
    m, s = kit.m, s0
    for b in blocks:
        s = b(kit, s, x)
        s = s + 0.1 * m.sin(x)     # mix, so every block's output depends on x
    return s


# -- references ---------------------------------------------------------------------------
def fd_jac(fun, z, h):
    cols = []
    for i in range(z.size):
        e = np.zeros_like(z)
        e[i] = h
        cols.append((np.asarray(fun(z + e)) - np.asarray(fun(z - e))) / (2 * h))
    return np.stack(cols, axis=-1)


def stable_jac(fun, z):
    """Central differences at two steps; None when they disagree (a kink or jump)."""
    a, b = fd_jac(fun, z, 1e-4), fd_jac(fun, z, 1e-5)
    if not np.allclose(a, b, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(a).max())):
        return None
    return b


def stable_hess(gfun, z):
    """Second central differences of a scalar function (float64), two steps."""
    def hess(h):
        n, H = z.size, np.zeros((z.size, z.size))
        for i in range(n):
            for j in range(n):
                ei, ej = np.zeros(n), np.zeros(n)
                ei[i], ej[j] = h, h
                H[i, j] = (gfun(z + ei + ej) - gfun(z + ei - ej) - gfun(z - ei + ej)
                           + gfun(z - ei - ej)) / (4 * h * h)
        return H
    a, b = hess(1e-3), hess(2e-3)
    if not np.allclose(a, b, rtol=1e-3, atol=1e-3 * max(1.0, np.abs(a).max())):
        return None
    return (4 * a - b) / 3      # Richardson: the h^2 error terms cancel


class Skip(Exception):
    pass


TRANSFORMS = ["eager", "jit", "grad", "jit_grad", "value_and_grad", "grad_argnums",
              "jacfwd", "jacrev", "hessian", "jvp", "vjp", "jvp_grad", "vmap_00",
              "vmap_0n", "vmap_n0", "vmap_10_out1", "vmap_grad_jit", "jit_vmap_grad",
              "grad_vmap", "vmap_jacrev", "linearize", "vmap_jvp", "jit_hessian",
              "hessian_rev", "vmap_0n_grad", "vmap_hessian_rev", "vmap_vmap",
              "vmap_vmap_grad"]
FORWARD_ONLY = {"eager", "jit", "jvp", "jacfwd", "vmap_00", "vmap_0n", "vmap_n0",
                "vmap_10_out1", "linearize", "vmap_jvp", "vmap_vmap"}


def check_case(J, kit, blocks, tname, x, s0, xb, sb, w, v):
    """Returns (got, want) as lists of arrays; raises Skip on a kink."""
    m, ref = kit.m, NumpyKit()

    def f(x_, s_):
        return run_program(kit, blocks, x_, s_)

    def g(x_, s_):
        return m.sum(f(x_, s_) * w)

    def rf(x_, s_):
        return run_program(ref, blocks, x_, s_)

    def rg(x_, s_):
        return float(np.sum(rf(x_, s_) * w))

    def f1(x_):     # one input: the state starts from x too
        return f(x_, x_ * 0.7 + 0.1)

    def g1(x_):
        return m.sum(f1(x_) * w)

    def rf1(x_):
        return rf(x_, x_ * 0.7 + 0.1)

    def rg1(x_):
        return float(np.sum(rf1(x_) * w))

    def jac(fun, z):
        j = stable_jac(fun, z)
        if j is None:
            raise Skip()
        return j

    x64, s64, w64 = (np.asarray(a, np.float64) for a in (x, s0, w))
    xb64, sb64 = np.asarray(xb, np.float64), np.asarray(sb, np.float64)
    if tname == "eager":
        return [f(x, s0)], [rf(x64, s64)]
    if tname == "jit":
        return [J.jit(f)(x, s0)], [rf(x64, s64)]
    if tname in ("grad", "jit_grad"):
        gr = J.grad(g1) if tname == "grad" else J.jit(J.grad(g1))
        return [gr(x)], [jac(rg1, x64)]
    if tname == "value_and_grad":
        val, gr = J.value_and_grad(g1)(x)
        return [val, gr], [rg1(x64), jac(rg1, x64)]
    if tname == "grad_argnums":
        gx, gs = J.grad(g, argnums=(0, 1))(x, s0)
        return [gx, gs], [jac(lambda z: rg(z, s64), x64), jac(lambda z: rg(x64, z), s64)]
    if tname in ("jacfwd", "jacrev"):
        return [getattr(J, tname)(f1)(x)], [jac(rf1, x64)]
    if tname == "hessian":
        H = stable_hess(rg1, x64)
        if H is None:
            raise Skip()
        jac(rg1, x64)       # a kink in the gradient too: skip
        return [J.hessian(g1)(x)], [H]
    if tname == "jvp":
        y, t = J.jvp(f1, (x,), (v,))
        return [y, t], [rf1(x64), jac(rf1, x64) @ v]
    if tname == "vjp":
        y, pull = J.vjp(f1, x)
        return [y, pull(w)[0]], [rf1(x64), w @ jac(rf1, x64)]
    if tname == "linearize":
        y, lin = J.linearize(f1, x)
        return [y, lin(v)], [rf1(x64), jac(rf1, x64) @ v]
    if tname == "vmap_jvp":   # batched tangents, unbatched primals
        return [J.vmap(lambda t: J.jvp(f1, (x,), (t,))[1])(xb)], [xb64 @ jac(rf1, x64).T]
    if tname == "hessian_rev":   # reverse over reverse
        H = stable_hess(rg1, x64)
        if H is None:
            raise Skip()
        jac(rg1, x64)
        return [J.jacrev(J.grad(g1))(x)], [H]
    if tname == "vmap_vmap":      # out[i, j] = f(xb[j], sb[i]): two batch levels
        fn = J.vmap(J.vmap(f, in_axes=(0, None)), in_axes=(None, 0))
        return [fn(xb, sb)], [np.stack([np.stack([rf(a, b) for a in xb64]) for b in sb64])]
    if tname == "vmap_vmap_grad":
        fn = J.vmap(J.vmap(J.grad(g), in_axes=(0, None)), in_axes=(None, 0))
        return [fn(xb, sb)], [np.stack([np.stack([jac(lambda z: rg(z, b), a) for a in xb64])
                                        for b in sb64])]
    if tname == "vmap_0n_grad":   # batched closure values, gradient wrt the shared state
        fn = J.vmap(J.grad(g, argnums=1), in_axes=(0, None))
        return [fn(xb, s0)], [np.stack([jac(lambda z: rg(a, z), s64) for a in xb64])]
    if tname == "vmap_hessian_rev":
        Hs = [stable_hess(rg1, a) for a in xb64]
        if any(H is None for H in Hs):
            raise Skip()
        for a in xb64:
            jac(rg1, a)
        return [J.vmap(J.jacrev(J.grad(g1)))(xb)], [np.stack(Hs)]
    if tname == "jit_hessian":
        H = stable_hess(rg1, x64)
        if H is None:
            raise Skip()
        jac(rg1, x64)
        return [J.jit(J.hessian(g1))(x)], [H]
    if tname == "jvp_grad":
        H = stable_hess(rg1, x64)
        if H is None:
            raise Skip()
        jac(rg1, x64)
        return [J.jvp(J.grad(g1), (x,), (v,))[1]], [H @ v]
    if tname == "vmap_00":
        return [J.vmap(f)(xb, sb)], [np.stack([rf(a, b) for a, b in zip(xb64, sb64)])]
    if tname == "vmap_0n":    # batched closure values, unbatched initial state
        return [J.vmap(f, in_axes=(0, None))(xb, s0)], [
            np.stack([rf(a, s64) for a in xb64])]
    if tname == "vmap_n0":    # unbatched closure values, batched state
        return [J.vmap(f, in_axes=(None, 0))(x, sb)], [
            np.stack([rf(x64, b) for b in sb64])]
    if tname == "vmap_10_out1":
        return [J.vmap(f, in_axes=(1, 0), out_axes=1)(xb.T, sb)], [
            np.stack([rf(a, b) for a, b in zip(xb64, sb64)], axis=1)]
    if tname in ("vmap_grad_jit", "jit_vmap_grad"):
        fn = (J.vmap(J.grad(J.jit(g1))) if tname == "vmap_grad_jit"
              else J.jit(J.vmap(J.grad(g1))))
        return [fn(xb)], [np.stack([jac(rg1, a) for a in xb64])]
    if tname == "grad_vmap":
        return [J.grad(lambda X: m.sum(J.vmap(g1)(X)))(xb)], [
            np.stack([jac(rg1, a) for a in xb64])]
    if tname == "vmap_jacrev":
        return [J.vmap(J.jacrev(f1))(xb)], [np.stack([jac(rf1, a) for a in xb64])]
    raise ValueError(tname)


def compare(got, want, tol):
    for a, b in zip(got, want):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return f"shape {a.shape} vs {b.shape}"
        scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
        err = float(np.abs(a - b).max()) if b.size else 0.0
        if not np.isfinite(a).all() or err > tol * scale:
            return f"max err {err:.3g} (scale {scale:.3g})"
    return None


def value_sensitive(blocks, x, s0):
    """True when the float64 program's value moves by more than float32 noise could
    explain: a predicate sits on its threshold, so float32 may legally take the other
    branch."""
    base = run_program(NumpyKit(), blocks, x, s0)
    for d in (1e-6, -1e-6):
        other = run_program(NumpyKit(), blocks, x * (1 + d), s0 * (1 + d))
        if np.abs(other - base).max() > 1e-3 * max(1.0, np.abs(base).max()):
            return True
    return False


# -- API edges: each case's outcome (value or error) on tjit and on JAX, compared ------------
def edge_cases(J, jnp, lax):
    """Small calls at the edges of the control-flow API (predicate and index types, weak
    types, empty loops, batch sizes, custom rules inside loops, float0 tangents...)."""
    x = jnp.arange(3.0) + 0.5
    X = jnp.arange(6.0).reshape(2, 3) * 0.3 + 0.1

    @J.custom_vjp
    def cv(a):
        return jnp.sin(a)
    cv.defvjp(lambda a: (jnp.sin(a), jnp.cos(a)), lambda c, g: (g * c * 2,))  # 2x on purpose

    @J.custom_jvp
    def cj(a):
        return jnp.exp(a)
    cj.defjvp(lambda p, t: (jnp.exp(p[0]), 3 * t[0]))
    return {  # one line per case: a table
        "cond_noops": lambda: lax.cond(True, lambda: x + 1, lambda: x - 1),
        "cond_weak_branches": lambda: lax.cond(x[0] > 0, lambda: 1.0, lambda: jnp.float32(2.)),
        "cond_weak_int_float": lambda: lax.cond(x[0] > 0, lambda: 1, lambda: 2.0),
        "cond_pred_shape1": lambda: lax.cond(jnp.array([True]), lambda: x, lambda: x),
        "cond_pred_float": lambda: lax.cond(1.5, lambda: x, lambda: -x),
        "cond_pred_int": lambda: lax.cond(2, lambda: x, lambda: -x),
        "cond_pred_traced_float": lambda: J.jit(lambda p: lax.cond(p, lambda: x, lambda: -x))(0.0),
        "switch_float_index": lambda: lax.switch(1.0, [lambda: x, lambda: -x]),
        "switch_one_branch": lambda: lax.switch(5, [lambda: x]),
        "switch_neg": lambda: J.jit(lambda i: lax.switch(i, [lambda: x, lambda: -x, lambda: 2*x]))(-7),
        "switch_big": lambda: J.jit(lambda i: lax.switch(i, [lambda: x, lambda: -x, lambda: 2*x]))(7),
        "switch_empty": lambda: lax.switch(0, []),
        "switch_bool_index": lambda: lax.switch(True, [lambda: x, lambda: -x]),
        "while_pred_shape1": lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(1)),
        "while_pred_float": lambda: lax.while_loop(lambda c: c[0], lambda c: c * 0, x),
        "while_weak_init": lambda: lax.while_loop(lambda c: c < 3, lambda c: c + jnp.float32(1), 0.0),
        "while_weak_init_jit": lambda: J.jit(lambda: lax.while_loop(lambda c: c < 3, lambda c: c + x[0] + 1, 0))(),
        "while_int_to_float": lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0),
        "fori_float_bounds": lambda: lax.fori_loop(0.0, 3.0, lambda i, c: c + i, 0.0),
        "fori_bool_bounds": lambda: lax.fori_loop(False, True, lambda i, c: c + i, 0),
        "fori_neg": lambda: lax.fori_loop(5, 2, lambda i, c: c + i, 0),
        "fori_mixed_int": lambda: lax.fori_loop(jnp.int8(0), 3, lambda i, c: c + i, 0),
        "fori_index_dtype": lambda: str(lax.fori_loop(jnp.int16(0), jnp.int16(3), lambda i, c: i, jnp.int16(0)).dtype),
        "fori_index_dtype_traced": lambda: str(J.jit(lambda n: lax.fori_loop(jnp.int16(0), n, lambda i, c: i, jnp.int16(0)))(jnp.int16(3)).dtype),
        "fori_unroll_traced": lambda: J.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0, unroll=2))(3),
        "fori_weak_carry": lambda: str(lax.fori_loop(0, 3, lambda i, c: c + x[0], 0.0).dtype),
        "scan_unroll0": lambda: lax.scan(lambda c, a: (c + a, c), 0.0, x, unroll=0),
        "scan_unroll_neg": lambda: lax.scan(lambda c, a: (c + a, c), 0.0, x, unroll=-1),
        "scan_ys_none": lambda: lax.scan(lambda c, a: (c + a, None), 0.0, x),
        "scan_len_mismatch": lambda: lax.scan(lambda c, a: (c + a, None), 0.0, x, length=4),
        "scan_length_float": lambda: lax.scan(lambda c, a: (c + 1, None), 0.0, None, length=3.0),
        "scan_length_array": lambda: lax.scan(lambda c, a: (c + 1, None), 0.0, None, length=jnp.int32(3)),
        "scan_xs_scalar": lambda: lax.scan(lambda c, a: (c + a, None), 0.0, 1.0),
        "scan_dict_mismatch": lambda: lax.scan(lambda c, a: (c, None), 0.0, {"a": x, "b": jnp.ones(4)}),
        "scan_carry_dtype": lambda: lax.scan(lambda c, a: (c + a, None), 0, x),
        "scan_carry_weak_ok": lambda: str(lax.scan(lambda c, a: (c + a, None), 0.0, x)[0].dtype),
        "scan_reverse_ys": lambda: lax.scan(lambda c, a: (c + a, c), 0.0, x, reverse=True),
        "scan_len0": lambda: [np.asarray(t).shape for t in J.tree_util.tree_leaves(lax.scan(lambda c, a: (c + a, (c, a * 2)), 0.0, jnp.zeros((0, 2))))],
        "scan_len0_grad": lambda: J.grad(lambda z: lax.scan(lambda c, a: (c * a, c), z, jnp.zeros((0,)))[0])(2.0),
        "map_bs_big": lambda: lax.map(lambda a: a * 2, x, batch_size=10),
        "map_bs_2": lambda: lax.map(lambda a: {"s": a.sum(), "v": a}, jnp.ones((5, 2)), batch_size=2),
        "map_bs0": lambda: lax.map(lambda a: a, x, batch_size=0),
        "map_empty": lambda: lax.map(lambda a: a * 2, jnp.zeros((0, 3))),
        "map_empty_bs": lambda: lax.map(lambda a: a * 2, jnp.zeros((0, 3)), batch_size=2),
        "map_tuple_xs": lambda: lax.map(lambda t: t[0] * t[1], (x, x + 1), batch_size=2),
        "assoc_neg_axis": lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=-1),
        "assoc_len0": lambda: lax.associative_scan(jnp.add, jnp.zeros((0,))),
        "assoc_len1_rev": lambda: lax.associative_scan(jnp.add, jnp.ones((1,)), reverse=True),
        "assoc_mismatch": lambda: lax.associative_scan(lambda a, b: (a[0] + b[0], a[1] + b[1]), (jnp.ones(3), jnp.ones(4))),
        "assoc_scalar": lambda: lax.associative_scan(jnp.add, jnp.float32(1.0)),
        "assoc_axis_oob": lambda: lax.associative_scan(jnp.add, jnp.ones(3), axis=1),
        "assoc_pytree_out": lambda: lax.associative_scan(lambda a, b: {"u": a["u"] * b["u"], "v": a["v"] + b["v"]}, {"u": x + 1, "v": x}),
        "assoc_grad": lambda: J.grad(lambda z: lax.associative_scan(jnp.multiply, z).sum())(x + 1),
        "assoc_vmap": lambda: J.vmap(lambda z: lax.associative_scan(jnp.maximum, z))(jnp.array([[1., 3, 2], [4, 0, 5]])),
        "vmap_while_batched_pred_grad": lambda: J.vmap(J.grad(lambda z: lax.fori_loop(0, 3, lambda i, c: c * z, 1.0)))(x),
        "vmap_cond_batched_pred_int_out": lambda: J.vmap(lambda z: lax.cond(z > 0.5, lambda: 1, lambda: 2))(x),
        "vmap_switch_batched": lambda: J.vmap(lambda i: lax.switch(i, [lambda: 1.0, lambda: 2.0, lambda: 3.0]))(jnp.array([-1, 0, 1, 2, 5])),
        "vmap_while_trip": lambda: J.vmap(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))[1])(jnp.array([0, 1, 3])),
        "vmap_fori_traced_bounds": lambda: J.vmap(lambda lo, hi: lax.fori_loop(lo, hi, lambda i, c: c + i, 0))(jnp.array([0, 2, 5]), jnp.array([3, 2, 1])),
        "grad_cond_int_operand": lambda: J.grad(lambda z: lax.cond(z > 0, lambda a, n: a * n, lambda a, n: a - n, z, 3))(1.5),
        "grad_switch_closure": lambda: J.grad(lambda z: lax.switch(1, [lambda: z, lambda: z ** 3]))(2.0),
        "jvp_scan_int_carry": lambda: J.jvp(lambda z: lax.scan(lambda c, a: ((c[0] + 1, c[1] * a), None), (0, z), x + 1)[0][1], (2.0,), (1.0,)),
        "jacfwd_while_int": lambda: J.jacfwd(lambda z: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * z), (0, z))[1])(2.0),
        "hessian_fori_traced": lambda: J.hessian(lambda z: lax.fori_loop(0, jnp.int32(3), lambda i, c: c * z, 1.0))(2.0),
        "grad_while_closure_pred": lambda: J.grad(lambda z: lax.while_loop(lambda c: c < z * 10, lambda c: c + z, 0.0))(0.7),
        "checkpoint_scan_grad": lambda: J.grad(lambda z: lax.scan(J.checkpoint(lambda c, a: (jnp.sin(c * a), None)), z, x + 1)[0])(0.5),
        "remat_policy_while": lambda: J.grad(J.checkpoint(lambda z: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * z, z), policy=J.checkpoint_policies.nothing_saveable))(0.5),
        "cond_bool_out_vmap_grad": lambda: J.vmap(J.grad(lambda z: lax.cond(z > 1, lambda: (z * 2, True), lambda: (z ** 2, False))[0]))(x),
        "cond_complex": lambda: J.grad(lambda z: jnp.abs(lax.cond(z > 0, lambda: z * (1 + 2j), lambda: z * 1j)) ** 2)(1.5),
        "scan_f16_carry_grad": lambda: str(J.grad(lambda z: lax.scan(lambda c, a: (c * a, None), z, (x + 1).astype(jnp.float16))[0])(jnp.float16(1.0)).dtype),
        "while_bool_carry_vmap": lambda: J.vmap(lambda z: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, ~c[1]), (0, z > 1))[1])(x),
        "cond_vmap_unbatched_pred_batched_ops": lambda: J.vmap(lambda z: lax.cond(True, lambda a: a + 1, lambda a: a - 1, z))(x),
        "cond_branches_diff_types_err": lambda: lax.cond(x[0] > 0, lambda: x, lambda: x.astype(jnp.int32)),
        "cond_branches_diff_shape_err": lambda: lax.cond(x[0] > 0, lambda: x, lambda: x[:2]),
        "while_body_changes_shape": lambda: lax.while_loop(lambda c: c.sum() < 3, lambda c: jnp.concatenate([c, c]), x),
        "scan_body_returns_not_pair": lambda: lax.scan(lambda c, a: c, 0.0, x),
        "cond_operand_kw": lambda: lax.cond(True, lambda a: a + 1, lambda a: a - 1, operand=x),
        "fori_python_float_carry_jit": lambda: str(J.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0.0))(3).dtype),
        "while_tuple_vs_list": lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1, c[1]], (0, 1.0)),
        "vmap_out_axes_none_while": lambda: J.vmap(lambda z: lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0), out_axes=None)(x),
        "vmap_scan_xs_axis1": lambda: J.vmap(lambda xs: lax.scan(lambda c, a: (c + a, c * a), 0.0, xs), in_axes=1)(X),
        "grad_scan_xs_rev_unroll": lambda: J.grad(lambda xs: lax.scan(lambda c, a: (jnp.sin(c) * a, c), 1.0, xs, reverse=True, unroll=2)[0])(x),
        "jvp_switch_vmap": lambda: J.vmap(lambda i, z: J.jvp(lambda u: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v ** 2], u), (z,), (1.0,)))(jnp.array([0, 1, 2]), x),
        "linear_transpose_scan": lambda: J.linear_transpose(lambda xs: lax.scan(lambda c, a: (c + 2 * a, c), 0.0, xs), x)((1.0, jnp.ones(3))),
        "linear_transpose_cond": lambda: J.linear_transpose(lambda v: lax.cond(True, lambda a: 2 * a, lambda a: 3 * a, v), x)(jnp.ones(3)),
        "jvp_while_int_carry_float0": lambda: str(J.jvp(lambda z, n: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * z), (n, z)), (2.0, 0), (1.0, np.zeros((), dtype=J.dtypes.float0)))[1][0].dtype),
        "vjp_scan_int_xs": lambda: str(J.vjp(lambda z, xs: lax.scan(lambda c, a: (c * a, None), z, xs)[0], 2.0, jnp.array([1, 2, 3]))[1](1.0)[1].dtype),
        "custom_vjp_in_scan_grad": lambda: J.grad(lambda z: lax.scan(lambda c, a: (cv(c) * a, None), z, x)[0])(0.3),
        "custom_vjp_in_while_jvp": lambda: J.jvp(lambda z: lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, cv(c[1])), (0, z))[1], (0.3,), (1.0,)),
        "custom_vjp_in_while_grad": lambda: J.grad(lambda z: lax.fori_loop(0, 2, lambda i, c: cv(c), z))(0.3),
        "custom_jvp_in_cond_grad": lambda: J.grad(lambda z: lax.cond(z > 0, cj, jnp.sin, z))(0.3),
        "custom_jvp_in_vmap_scan": lambda: J.vmap(J.grad(lambda z: lax.scan(lambda c, a: (cj(c) * a, None), z, jnp.ones(2) * 0.1)[0]))(x),
        "custom_vjp_in_cond_vmap_grad": lambda: J.vmap(J.grad(lambda z: lax.cond(z > 1, cv, jnp.cos, z)))(x),
        "weak_cond_out": lambda: str((J.jit(lambda p: lax.cond(p, lambda a: a, lambda a: a * 2, 1.0))(True) + jnp.float16(1)).dtype),
        "weak_scan_carry_out": lambda: str((lax.scan(lambda c, a: (c + 1.0, None), 0.0, None, length=2)[0] + jnp.float16(1)).dtype),
        "weak_while_out": lambda: str((J.jit(lambda: lax.while_loop(lambda c: c < 3.0, lambda c: c + 1.0, 0.0))() + jnp.float16(1)).dtype),
        "weak_fori_out": lambda: str((lax.fori_loop(0, 2, lambda i, c: c + 1.0, 0.0) + jnp.float16(1)).dtype),
        "strong_fori_out": lambda: str((lax.fori_loop(0, 2, lambda i, c: c + jnp.float32(1.0), 0.0) + jnp.float16(1)).dtype),
        "weak_switch_out": lambda: str((lax.switch(J.jit(lambda: 1)(), [lambda: 1.0, lambda: 2.0]) + jnp.float16(1)).dtype),
        "map_weak_out": lambda: str((lax.map(lambda a: 2.0, x) + jnp.float16(1)).dtype),
        "ckpt_static_fori": lambda: J.grad(lambda z: lax.fori_loop(0, 2, lambda i, c: J.checkpoint(lambda u, k: u * k, static_argnums=(1,))(c, 3), z))(1.5),
        "jacrev_scan_pytree_out": lambda: J.jacrev(lambda z: lax.scan(lambda c, a: ({"u": c["u"] * a, "v": c["v"] + a}, None), {"u": z, "v": z}, x)[0])(1.5),
        "hessian_cond_in_scan": lambda: J.hessian(lambda z: lax.scan(lambda c, a: (lax.cond(c > 1, lambda u: u * a, lambda u: u ** 2 + a, c), None), z, x)[0])(0.7),
        "vmap_map_bs": lambda: J.vmap(lambda r: lax.map(lambda a: a * r.sum(), r, batch_size=2))(X),
        "grad_map_bs": lambda: J.grad(lambda r: lax.map(lambda a: jnp.sin(a) * r[0], r, batch_size=2).sum())(x),
        "vmap_assoc_axis1": lambda: J.vmap(lambda m: lax.associative_scan(jnp.add, m, axis=1))(jnp.ones((2, 2, 3))),
        "jvp_assoc_rev": lambda: J.jvp(lambda v: lax.associative_scan(jnp.multiply, v, reverse=True), (x,), (jnp.ones(3),)),
        "scan_length_vs_xs_none_vmap": lambda: J.vmap(lambda z: lax.scan(lambda c, _: (c * z, c), 1.0, None, length=3))(x),
        "vmap_while_closure_only_pred": lambda: J.vmap(lambda lim: lax.while_loop(lambda c: c < lim, lambda c: c + 1.0, 0.0))(x),
        "vmap_fori_traced_bounds_grad": lambda: J.vmap(J.grad(lambda z, n: lax.fori_loop(0, n, lambda i, c: c * z, 1.0)), in_axes=(0, 0))(x, jnp.array([0, 1, 3])),
        "grad_while_trip_dep_input": lambda: J.grad(lambda z: lax.while_loop(lambda c: c[1] < 10.0, lambda c: (c[0] * z, c[1] + z), (1.0, 0.0))[0])(3.0),
        "jit_switch_static_grad": lambda: J.jit(J.grad(lambda z, i: lax.switch(i, [jnp.sin, jnp.cos], z)), static_argnums=1)(0.5, 1),
        "vmap_cond_pred_unbatched_closure_batched": lambda: J.vmap(lambda z: lax.cond(x[0] > 0, lambda: z * 2, lambda: z))(x),
        "cond_in_vmap_in_grad_int_index": lambda: J.grad(lambda z: J.vmap(lambda i: lax.switch(i, [lambda: z, lambda: z * z]))(jnp.array([0, 1, 1])).sum())(3.0),
        "eval_shape_scan": lambda: str(J.eval_shape(lambda z: lax.scan(lambda c, a: (c + a, c), z, x), 1.0)),
        "scan_carry_f16_vs_f32_err": lambda: lax.scan(lambda c, a: (c + a, None), jnp.float16(0), x),
        "while_body_weak_to_strong": lambda: str(lax.while_loop(lambda c: c < 3, lambda c: c + jnp.float32(1), 0.0).dtype),
        "cond_int_and_float_branches": lambda: lax.cond(True, lambda: jnp.int32(1), lambda: 1.0),
    }


def run_edges(lib, path):
    import importlib
    J = importlib.import_module(lib)
    cases = edge_cases(J, importlib.import_module(lib + ".numpy"), J.lax)
    out = {}
    for name, f in cases.items():
        try:
            r = J.tree_util.tree_map(
                lambda a: np.round(np.asarray(a).astype(float), 4).tolist()
                if hasattr(a, "shape") and np.asarray(a).dtype.kind in "fiub" else str(a), f())
            out[name] = "OK " + repr(r)[:200]
        except Exception as e:  # noqa: BLE001  (an error is an outcome to compare)
            out[name] = "ERR " + type(e).__name__ + ": " + str(e).split("\n")[0][:200]
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0)


def compare_edges(path_a, path_b):
    """Cases whose outcomes differ (both raising counts as the same outcome)."""
    with open(path_a) as fa, open(path_b) as fb:
        a, b = json.load(fa), json.load(fb)
    diff = 0
    for k in a:
        if a[k] != b.get(k) and not (a[k].startswith("ERR") and b.get(k, "").startswith("ERR")):
            diff += 1
            print(f"{k}\n    {path_a}: {a[k]}\n    {path_b}: {b.get(k)}")
    print(f"{len(a)} edge cases, {diff} differ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="tjit")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="comma-separated block names")
    ap.add_argument("--transforms", default=None, help="comma-separated transform names")
    ap.add_argument("--show", type=int, default=40, help="failures to print")
    ap.add_argument("--x64", action="store_true", help="float64 inputs (jax_enable_x64)")
    ap.add_argument("--while-checkpoints", type=int, default=None,
                    help="tjit: Revolve snapshots for reverse mode through while_loop")
    ap.add_argument("--remat", action="store_true",
                    help="tjit: trace with every scan body checkpointed and split in chunks")
    ap.add_argument("--edges", default=None,
                    help="write the API edge cases' outcomes to this JSON file and stop")
    ap.add_argument("--compare-edges", nargs=2, default=None, metavar=("A", "B"))
    args = ap.parse_args()
    if args.compare_edges:
        return compare_edges(*args.compare_edges) and 0
    if args.edges:
        return run_edges(args.lib, args.edges) and 0
    J = __import__(args.lib)
    if args.x64:
        J.config.update("jax_enable_x64", True)
    if args.while_checkpoints:
        J.config.update("while_loop_checkpoints", args.while_checkpoints)
    remat = contextlib.nullcontext
    if args.remat:
        from tjit.transforms.loop_remat import rematerialized_scan_bodies
        remat = functools.partial(rematerialized_scan_bodies, chunks=True)
    fdtype = np.float64 if args.x64 else np.float32
    kit = TracedKit(J, fdtype)
    only = args.only.split(",") if args.only else None
    tnames = args.transforms.split(",") if args.transforms else TRANSFORMS
    rng = np.random.default_rng(args.seed)
    counts = {"pass": 0, "fail": 0, "error": 0, "skip_kink": 0, "refused": 0}
    failures = []
    t0 = time.time()
    for case in range(args.cases):
        names, blocks = draw_program(rng, only)
        tname = tnames[case % len(tnames)]
        x = rng.uniform(-1, 1, N).astype(fdtype)
        s0 = rng.uniform(-1, 1, N).astype(fdtype)
        xb = rng.uniform(-1, 1, (BATCH, N)).astype(fdtype)
        sb = rng.uniform(-1, 1, (BATCH, N)).astype(fdtype)
        w = rng.uniform(-1, 1, N).astype(fdtype)
        v = rng.uniform(-1, 1, N).astype(fdtype)
        tol = 2e-2 if F16_BLOCKS & set(names) else 1e-5 if args.x64 else 2e-3
        desc = f"case {case} seed {args.seed}: {tname} of {names}"
        try:
            with remat():
                got, want = check_case(J, kit, blocks, tname, x, s0, xb, sb, w, v)
        except Skip:
            counts["skip_kink"] += 1
            continue
        except Exception as e:  # noqa: BLE001  (every crash is a finding)
            msg = f"{type(e).__name__}: {str(e)[:300]}"
            reverse = tname not in FORWARD_ONLY
            if args.lib == "jax" and reverse and WHILE_BLOCKS & set(names) and \
                    "Reverse-mode differentiation does not work" in str(e):
                counts["refused"] += 1
                continue
            counts["error"] += 1
            failures.append(f"{desc}\n    {msg}")
            if len(failures) <= 3:
                traceback.print_exc()
            continue
        why = compare(got, want, tol)
        if why is None:
            counts["pass"] += 1
        elif value_sensitive(blocks, np.float64(x), np.float64(s0)):
            counts["skip_kink"] += 1
        else:
            counts["fail"] += 1
            failures.append(f"{desc}\n    {why}\n    got  {np.asarray(got[-1]).ravel()[:9]}"
                            f"\n    want {np.asarray(want[-1]).ravel()[:9]}")
    for f in failures[:args.show]:
        print(f)
    print(f"{args.lib}: {args.cases} programs in {time.time() - t0:.0f} s: " +
          ", ".join(f"{k} {n}" for k, n in counts.items()))
    return 1 if counts["fail"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
