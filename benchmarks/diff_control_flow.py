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
"""

import argparse
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
    L = int(rng.integers(1, 5))
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
    L, reverse = int(rng.integers(0, 4)), bool(rng.random() < 0.5)

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
    return a


class Skip(Exception):
    pass


TRANSFORMS = ["eager", "jit", "grad", "jit_grad", "value_and_grad", "grad_argnums",
              "jacfwd", "jacrev", "hessian", "jvp", "vjp", "jvp_grad", "vmap_00",
              "vmap_0n", "vmap_n0", "vmap_10_out1", "vmap_grad_jit", "jit_vmap_grad",
              "grad_vmap", "vmap_jacrev", "linearize", "vmap_jvp", "jit_hessian",
              "hessian_rev"]
FORWARD_ONLY = {"eager", "jit", "jvp", "jacfwd", "vmap_00", "vmap_0n", "vmap_n0",
                "vmap_10_out1", "linearize", "vmap_jvp"}


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="tjit")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="comma-separated block names")
    ap.add_argument("--transforms", default=None, help="comma-separated transform names")
    ap.add_argument("--show", type=int, default=40, help="failures to print")
    ap.add_argument("--x64", action="store_true", help="float64 inputs (jax_enable_x64)")
    args = ap.parse_args()
    J = __import__(args.lib)
    if args.x64:
        J.config.update("jax_enable_x64", True)
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
