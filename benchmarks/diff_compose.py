"""Differential hunt: random small programs under random stacks of transformations.

Each case draws a program R^n -> R^m (elementwise ops with kinks, reductions, broadcasting,
layouts, gathers, concatenation, dot/einsum, cumsum/cumprod, sort, scan/fori/while/cond,
custom_jvp/custom_vjp, checkpoint with policies, stop_gradient) written once against a
"kit" (NumPy float64 or tjit/jax), and a stack of transformations (jit variants, checkpoint,
grad, value_and_grad, jvp, vjp, linearize, jacfwd, jacrev, hessian, vmap variants).

References are independent of the transformations under test: the program's NumPy float64
forward, central finite differences (two step sizes; a case whose two differences disagree
sits on a kink and is skipped), a Python loop for vmap, identity for jit/checkpoint.

    .venv/bin/python benchmarks/diff_compose.py --cases 500 --seed 0
    /work/jaxvenv/bin/python benchmarks/diff_compose.py --lib jax --dtypes out.json

With --dtypes the result dtypes / weak types / raised errors of the scalar-argument family
are written as JSON, to compare tjit's with JAX's.
"""

import argparse
import json
import sys
import time
import traceback

import numpy as np

W_SEED = 1234


# -- kits: the same program text on NumPy (float64 reference) and on tjit/jax ----------------
class NumpyKit:
    """NumPy float64; control flow as Python loops; stop_gradient values replayed."""

    def __init__(self):
        self.m = np
        self.sg_mode, self.sg_vals, self.sg_i = None, [], 0

    def stop_gradient(self, v):
        if self.sg_mode == "record":
            self.sg_vals.append(np.array(v))
        elif self.sg_mode == "replay":
            v = self.sg_vals[self.sg_i]
            self.sg_i += 1
        return v

    def scan(self, step, c, xs, reverse=False):
        ys = []
        for xi in (xs[::-1] if reverse else xs):
            c, y = step(c, xi)
            ys.append(y)
        return c, np.stack(ys[::-1] if reverse else ys)

    def while_dyn(self, cond, body, c):
        i = 0
        while i < 4 and cond(c):
            c, i = body(c), i + 1
        return c

    def cummax(self, x):
        return np.maximum.accumulate(x, axis=0)

    def scatter_add(self, x, idx, v):
        x = np.array(x)
        np.add.at(x, idx, v)
        return x

    def fori(self, n, body, c):
        for i in range(n):
            c = body(i, c)
        return c

    def while_(self, n, body, c):
        return self.fori(n, body, c)

    def cond(self, p, a, b, x):
        return a(x) if p else b(x)

    def custom_jvp_softplus(self, x):
        return np.logaddexp(x, 0.0)

    def custom_vjp_xtanh(self, x):
        return x * np.tanh(x)

    def checkpoint(self, f, policy):
        return f

    def sort(self, x):
        return np.sort(x, axis=-1)

    def dynamic_slice(self, x, start, size):
        return x[start:start + size]


class TracedKit:
    def __init__(self, jax):
        import importlib
        self.jax = jax
        self.m = importlib.import_module(jax.__name__ + ".numpy")
        self.lax = jax.lax
        jnp = self.m

        @jax.custom_jvp
        def softplus(x):
            return jnp.logaddexp(x, 0.0)

        @softplus.defjvp
        def _sp_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return softplus(x), t * jax.nn.sigmoid(x)

        @jax.custom_vjp
        def xtanh(x):
            return x * jnp.tanh(x)

        def _xt_fwd(x):
            return xtanh(x), x

        def _xt_bwd(x, g):
            t = jnp.tanh(x)
            return (g * (t + x * (1 - t * t)),)

        xtanh.defvjp(_xt_fwd, _xt_bwd)
        self.custom_jvp_softplus, self.custom_vjp_xtanh = softplus, xtanh

    def stop_gradient(self, v):
        return self.lax.stop_gradient(v)

    def scan(self, step, c, xs, reverse=False):
        return self.lax.scan(step, c, xs, reverse=reverse)

    def while_dyn(self, cond, body, c):
        def keep(s):
            return (s[0] < 4) & cond(s[1])
        return self.lax.while_loop(keep, lambda s: (s[0] + 1, body(s[1])), (0, c))[1]

    def cummax(self, x):
        return self.lax.cummax(x, axis=0)

    def scatter_add(self, x, idx, v):
        return x.at[idx].add(v)

    def fori(self, n, body, c):
        return self.lax.fori_loop(0, n, body, c)

    def while_(self, n, body, c):
        def cond(s):
            return s[0] < n

        def step(s):
            return s[0] + 1, body(s[0], s[1])
        return self.lax.while_loop(cond, step, (0, c))[1]

    def cond(self, p, a, b, x):
        return self.lax.cond(p, a, b, x)

    def checkpoint(self, f, policy):
        pol = None if policy is None else getattr(self.jax.checkpoint_policies, policy)
        return self.jax.checkpoint(f, policy=pol)

    def sort(self, x):
        return self.m.sort(x, axis=-1)

    def dynamic_slice(self, x, start, size):
        return self.lax.dynamic_slice_in_dim(x, start, size, axis=0)


# -- programs -------------------------------------------------------------------------------
UNARY = ["tanh", "sin", "exp_tanh", "sq", "log1p_sq", "abs", "softplus_cjvp", "xtanh_cvjp",
         "leaky", "cumsum", "cumprod", "sort", "sg", "fori", "while", "cond", "scan",
         "ckpt", "while_dyn", "scan_rev", "cummax", "argsort_take", "scatter_add",
         "ckpt_scan"]
BINARY = ["add", "mul", "max", "where", "div"]
REDUCE = ["sum", "max", "mean", "prod", "min"]
LAYOUT = ["T", "flip_reshape", "stride", "concat", "take", "gather", "dslice", "dot",
          "einsum", "bcast"]
POLICIES = [None, "dots_saveable", "nothing_saveable", "everything_saveable",
            "dots_with_no_batch_dims_saveable"]


MAX_STEPS = [6]
TOL = [3e-4]   # float32 results against float64 references (a 1% derivative error fails)


def draw_program(rng, big=False):
    n = int(rng.choice([4, 6, 8] if not big else [24, 66, 130]))
    shape = (n,) if rng.random() < 0.4 else (2, n // 2)
    steps = []
    for _ in range(int(rng.integers(1, MAX_STEPS[0]))):
        kind = rng.choice(["u", "u", "b", "r", "l"])
        if kind == "u":
            steps.append(("u", str(rng.choice(UNARY)), int(rng.integers(0, 5))))
        elif kind == "b":
            steps.append(("b", str(rng.choice(BINARY)), int(rng.integers(0, 50))))
        elif kind == "r":
            steps.append(("r", str(rng.choice(REDUCE)), int(rng.integers(0, 2)),
                          bool(rng.random() < 0.5)))
        else:
            steps.append(("l", str(rng.choice(LAYOUT)), int(rng.integers(0, 2))))
    return {"n": n, "shape": shape, "steps": steps}


def uses(prog, name):
    return any(s[1] == name for s in prog["steps"])


def apply_unary(K, name, x, arg):
    m = K.m
    if name == "tanh":
        return m.tanh(x)
    if name == "sin":
        return m.sin(x)
    if name == "exp_tanh":
        return m.exp(m.tanh(x))
    if name == "sq":
        return x * x * 0.5
    if name == "log1p_sq":
        return m.log1p(x * x)
    if name == "abs":
        return m.abs(x - 0.1)
    if name == "softplus_cjvp":
        return K.custom_jvp_softplus(x)
    if name == "xtanh_cvjp":
        return K.custom_vjp_xtanh(x)
    if name == "leaky":
        return m.maximum(x, 0.2 * x)
    if name == "cumsum":
        return m.cumsum(x, axis=-1) * 0.5 if x.ndim else x
    if name == "cumprod":
        return m.cumprod(1 + 0.3 * m.tanh(x), axis=0) if x.ndim else x
    if name == "sort":
        return K.sort(x) if x.ndim else x
    if name == "sg":
        return x * K.stop_gradient(m.tanh(x)) + x * 0.5
    if name in ("fori", "while"):
        loop = K.fori if name == "fori" else K.while_
        return loop(arg % 3 + 1, lambda i, c: m.sin(c) * 0.5 + c * 0.25 + 0.1 * i, x)
    if name == "cond":
        return K.cond(m.sum(x) > 0.05, lambda v: m.tanh(v) * 2.0, lambda v: v * v * 0.3, x)
    if name == "scan":
        if x.ndim == 0:
            return x

        def step(c, xi):
            c = m.tanh(c * 0.7 + xi)
            return c, c * xi
        c, ys = K.scan(step, x[0] * 0.0, x)
        return ys + c
    if name == "while_dyn":   # a data-dependent trip count (batched predicate under vmap)
        return K.while_dyn(lambda c: m.sum(c) < 1.5, lambda c: c * 1.3 + 0.2, x)
    if name == "scan_rev":
        if x.ndim == 0:
            return x
        c, ys = K.scan(lambda c, xi: (m.sin(c) + xi * 0.5, c * xi), x[0] * 0.0, x,
                       reverse=True)
        return ys + c
    if name == "cummax":
        return K.cummax(x) if x.ndim else x
    if name == "argsort_take":
        return m.take_along_axis(x, m.argsort(x, axis=-1), axis=-1) * 0.7 if x.ndim else x
    if name == "scatter_add":
        if x.ndim == 0:
            return x
        idx = np.array([0, 0, 1]) % x.shape[0]
        return K.scatter_add(x, idx, m.tanh(x[np.array([1, 0, 0]) % x.shape[0]]))
    if name == "ckpt_scan":   # checkpointed scan body
        if x.ndim == 0:
            return x
        step = K.checkpoint(lambda c, xi: (m.tanh(c * xi + 0.3), c * m.sin(xi)),
                            POLICIES[arg])
        return K.scan(step, x[0] * 0.5, x)[1]
    if name == "ckpt":
        return K.checkpoint(lambda v: m.sin(v) * m.tanh(v.T @ v @ v.T * 0.3).T if v.ndim == 2
                            else m.sin(v) * m.tanh(v),
                            POLICIES[arg])(x) if x.ndim else x
    raise ValueError(name)


def apply_binary(K, name, x, y):
    m = K.m
    if name == "add":
        return x + y
    if name == "mul":
        return x * y
    if name == "max":
        return m.maximum(x, y + 0.05)
    if name == "where":
        return m.where(x > y + 0.05, x, y * 0.5)
    if name == "div":
        return x / (1 + m.abs(y))
    raise ValueError(name)


def apply_layout(K, name, x, arg):
    m = K.m
    if x.ndim == 0:
        return x
    if name == "T":
        return x.T
    if name == "flip_reshape":
        return m.reshape(m.reshape(x, (-1,))[::-1], x.shape)
    if name == "stride":
        return x[..., ::2] if x.shape[-1] > 1 else x
    if name == "concat":
        return m.concatenate([x, x * 0.5], axis=arg % x.ndim)
    if name == "take":
        n = x.shape[0]
        return m.take(x, np.arange(n - 1, -1, -2), axis=0)
    if name == "gather":
        idx = np.array([1, 0, 1]) % x.shape[0]
        return x[idx] * 1.5
    if name == "dslice":
        n = x.shape[0]
        return K.dynamic_slice(x, n // 2, n - n // 2) if n > 1 else x
    if name == "dot":
        return x @ x.T * 0.3 if x.ndim == 2 else m.dot(x, x) * 0.3
    if name == "einsum":
        if x.ndim == 2:
            return m.einsum("ij,kj->ik", x, m.sin(x))
        return m.einsum("i,j->ij", x, m.cos(x))
    if name == "bcast":
        return (x[..., None] * x[..., None, :]).sum(-1) if x.ndim <= 2 else x
    raise ValueError(name)


def run_program(K, prog, x):
    m = K.m
    K.sg_i = 0
    x = m.reshape(x, prog["shape"])
    pool = [x, m.tanh(x[..., ::-1]) * 0.8]
    for step in prog["steps"]:
        v = pool[-1]
        if step[0] == "u":
            pool.append(apply_unary(K, step[1], v, step[2]))
        elif step[0] == "b":
            opts = [p for p in pool if p.ndim <= v.ndim and all(
                a in (1, b) for a, b in zip(p.shape[::-1], v.shape[::-1]))]
            pool.append(apply_binary(K, step[1], v, opts[step[2] % len(opts)]))
        elif step[0] == "r":
            if v.ndim:
                _, name, axis, keep = step
                pool.append(getattr(m, name)(v, axis=axis % v.ndim, keepdims=keep))
        else:
            pool.append(apply_layout(K, step[1], v, step[2]))
    out = m.reshape(pool[-1], (-1,))[:12]
    return out + m.sum(pool[len(pool) // 2]) * 0.1


# -- transformations and their references ----------------------------------------------------
AD = {"grad": 1, "vag": 1, "jvp": 1, "vjp": 1, "linearize": 1, "jacfwd": 1, "jacrev": 1,
      "hessian": 2, "grad_argnums": 1}
WRAP = ["jit", "jit_interp", "jit_static", "jit_donate", "checkpoint", "vmap0", "vmap1",
        "vmap_none"]


def fd_jac(fn, x, eps):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((np.asarray(fn(x + e), np.float64) - np.asarray(fn(x - e), np.float64))
                    / (2 * eps))
    return np.stack(cols, axis=-1)   # (m, n)


class Case:
    """A (tjit function, reference function, n_in, n_out) built transformation by
    transformation, names[0] outermost."""

    def __init__(self, jax, K, NK, prog, names, rng, eps):
        self.jax, self.jnp, self.prog = jax, K.m, prog
        self.eps = eps
        n = prog["n"]
        t = lambda x: run_program(K, prog, x)
        r = lambda x: run_program(NK, prog, x)
        m = int(np.asarray(run_program(NK, prog, np.zeros(n))).size)
        for name in reversed(names):
            t, r, n, m = self.wrap(name, t, r, n, m, rng)
        self.t, self.r, self.n, self.m = t, r, n, m

    def wrap(self, name, t, r, n, m, rng):
        jax, jnp, eps = self.jax, self.jnp, self.eps
        W = rng.standard_normal(m)
        V = rng.standard_normal(n)
        S = rng.uniform(0.5, 1.5, size=int(rng.integers(2, 4)))
        f32 = lambda a: jnp.asarray(np.asarray(a, np.float32))
        if name == "jit":
            return jax.jit(t), r, n, m
        if name == "jit_interp":
            return ((jax.jit(t, backend="interpreter") if jax.__name__ == "tjit"
                     else jax.jit(t)), r, n, m)
        if name == "jit_static":
            g = jax.jit(lambda x, s: t(x) * s, static_argnums=1)
            return (lambda x: g(x, 2.0)), (lambda x: r(x) * 2.0), n, m
        if name == "jit_donate":
            g = jax.jit(lambda x: t(x), donate_argnums=0)
            return (lambda x: g(x + 0.0)), r, n, m
        if name == "checkpoint":
            pol = POLICIES[int(rng.integers(0, len(POLICIES)))]
            p = None if pol is None else getattr(jax.checkpoint_policies, pol)
            return jax.checkpoint(t, policy=p), r, n, m
        if name == "grad":
            g = jax.grad(lambda x: jnp.sum(t(x) * f32(W)))
            return g, (lambda x: fd_jac(r, x, eps).T @ W), n, n
        if name == "grad_argnums":
            k = n // 2
            g = jax.grad(lambda a, b: jnp.sum(t(jnp.concatenate([a, b])) * f32(W)),
                         argnums=(0, 1))
            return ((lambda x: jnp.concatenate(g(x[:k], x[k:]))),
                    (lambda x: fd_jac(r, x, eps).T @ W), n, n)
        if name == "vag":
            g = jax.value_and_grad(lambda x: (jnp.sum(t(x) * f32(W)), t(x)[0]),
                                   has_aux=True)

            def tv(x):
                (v, aux), gr = g(x)
                return jnp.concatenate([v[None], aux[None], gr])
            return (tv, (lambda x: np.concatenate(
                [[np.sum(r(x) * W)], [r(x)[0]], fd_jac(r, x, eps).T @ W])), n, n + 2)
        if name == "jvp":
            def tj(x):
                p, tt = jax.jvp(t, (x,), (f32(V).astype(x.dtype),))
                return jnp.concatenate([p, tt])
            return tj, (lambda x: np.concatenate([r(x), fd_jac(r, x, eps) @ V])), n, 2 * m
        if name == "vjp":
            def tv(x):
                p, fn = jax.vjp(t, x)
                return jnp.concatenate([p, fn(f32(W).astype(p.dtype))[0]])
            return tv, (lambda x: np.concatenate([r(x), fd_jac(r, x, eps).T @ W])), n, m + n
        if name == "linearize":
            def tl(x):
                p, fl = jax.linearize(t, x)
                return jnp.concatenate([p, fl(f32(V).astype(x.dtype))])
            return tl, (lambda x: np.concatenate([r(x), fd_jac(r, x, eps) @ V])), n, 2 * m
        if name in ("jacfwd", "jacrev"):
            g = getattr(jax, name)(t)
            return ((lambda x: jnp.reshape(g(x), (-1,))),
                    (lambda x: fd_jac(r, x, eps).reshape(-1)), n, m * n)
        if name == "hessian":
            g = jax.hessian(lambda x: jnp.sum(t(x) * f32(W)))
            h = lambda x: np.sum(r(x) * W)
            return ((lambda x: jnp.reshape(g(x), (-1,))),
                    (lambda x: fd_jac(lambda y: fd_jac(h, y, eps * 3), x, eps).reshape(-1)),
                    n, n * n)
        B = len(S)
        if name == "vmap0":
            g = jax.vmap(t)
            return ((lambda x: jnp.reshape(g(x[None, :] * f32(S)[:, None]), (-1,))),
                    (lambda x: np.concatenate([r(x * s) for s in S])), n, B * m)
        if name == "vmap1":
            g = jax.vmap(t, in_axes=1, out_axes=1)
            return ((lambda x: jnp.reshape(g(x[:, None] * f32(S)[None, :]).T, (-1,))),
                    (lambda x: np.concatenate([r(x * s) for s in S])), n, B * m)
        if name == "vmap_none":   # an unbatched argument and a scalar batched one
            g = jax.vmap(lambda s, x: t(x * s), in_axes=(0, None))
            return ((lambda x: jnp.reshape(g(f32(S), x), (-1,))),
                    (lambda x: np.concatenate([r(x * s) for s in S])), n, B * m)
        raise ValueError(name)


def draw_stack(rng):
    """Up to two AD steps (order <= 2 in total), wrappers anywhere."""
    names, order = [], 0
    for _ in range(int(rng.integers(1, 5))):
        if rng.random() < 0.45 and order < 2:
            a = str(rng.choice(list(AD)))
            if order + AD[a] <= 2:
                names.append(a)
                order += AD[a]
                continue
        names.append(str(rng.choice(WRAP)))
    return names, order


def run_case(jax, seed, stats, fails, verbose=False, big=False):
    rng = np.random.default_rng(seed)
    prog = draw_program(rng, big)
    names, order = draw_stack(rng)
    if big and "hessian" in names or names.count("jacfwd") + names.count("jacrev") > 1:
        return "big"
    vmaps = [i for i, nm in enumerate(names) if nm.startswith("vmap")]
    sg = uses(prog, "sg")
    if sg and order and (order > 1 or vmaps):
        return "skip_sg"   # the replayed stop_gradient values hold for one base point
    K, NK = TracedKit(jax), NumpyKit()
    x = rng.uniform(-1.2, 1.2, prog["n"])
    key = "+".join(names)
    refs = []
    try:
        for eps in (1e-3, 2.5e-4) if order else (1e-3,):
            rr = np.random.default_rng(seed + 7)
            case = Case(jax, K, NK, prog, names, rr, eps)
            if case.m > (400 if not big else 3000):
                return "big"
            if sg and order:   # the stop_gradient values of the base point, replayed by every FD step
                NK.sg_mode, NK.sg_vals = "record", []
                run_program(NK, prog, x)
                NK.sg_mode = "replay"
            refs.append(np.asarray(case.r(x), np.float64))
    except Exception as e:  # noqa: BLE001
        if verbose:
            traceback.print_exc()
        return "ref_error:" + type(e).__name__
    want = refs[0]
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    if len(refs) == 2 and not np.allclose(refs[0], refs[1], rtol=2e-4, atol=2e-4 * scale):
        stats.setdefault(key, [0, 0, 0])[2] += 1
        return "kink"
    stats.setdefault(key, [0, 0, 0])[0] += 1
    try:
        got = np.asarray(case.t(jax.numpy.asarray(x.astype(np.float32))), np.float64)
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {str(e)[:300]}"
        fails.append((seed, key, prog, "raise", msg))
        stats[key][1] += 1
        if verbose:
            traceback.print_exc()
        return "raise"
    tol = TOL[0] * (1 + order) * scale
    if got.shape != want.shape or not np.allclose(got, want, rtol=TOL[0], atol=tol):
        err = (float(np.max(np.abs(got - want))) if got.shape == want.shape
               else f"shape {got.shape} vs {want.shape}")
        fails.append((seed, key, prog, "wrong", err))
        stats[key][1] += 1
        return "wrong"
    return "ok"


# -- dtypes against JAX: functions of a Python scalar -----------------------------------------
def _apply_second(pair, arg):
    """(primal, fn) -> (primal, fn(arg)) for vjp and linearize results."""
    return pair[0], pair[1](arg)


def dtype_family(jax):
    jnp = jax.numpy
    x0 = jnp.asarray(np.linspace(-1, 1, 4).astype(np.float32))
    h = lambda s: jnp.sum(jnp.tanh(x0 * s) * s)
    hv = lambda s: jnp.tanh(x0 * s)
    calls = {
        "grad_py": lambda: jax.grad(h)(2.0),
        "grad_f32": lambda: jax.grad(h)(np.float32(2.0)),
        "vag_py": lambda: jax.value_and_grad(h)(2.0),
        "jvp_py": lambda: jax.jvp(h, (2.0,), (1.0,)),
        "jvp_vec_py": lambda: jax.jvp(hv, (2.0,), (1.0,)),
        "vjp_py": lambda: _apply_second(jax.vjp(hv, 2.0), jnp.ones(4)),
        "linearize_py": lambda: _apply_second(jax.linearize(h, 2.0), 1.0),
        "jacfwd_py": lambda: jax.jacfwd(hv)(2.0),
        "jacrev_py": lambda: jax.jacrev(hv)(2.0),
        "hessian_py": lambda: jax.hessian(h)(2.0),
        "jit_grad_py": lambda: jax.jit(jax.grad(h))(2.0),
        "grad_jit_py": lambda: jax.grad(jax.jit(h))(2.0),
        "vmap_grad": lambda: jax.vmap(jax.grad(h))(jnp.arange(3.0)),
        "grad_int": lambda: jax.grad(h)(2),
        "grad_int_allow": lambda: jax.grad(lambda s: s * 2.0, allow_int=True)(2),
        "jacfwd_int": lambda: jax.jacfwd(hv)(2),
        "grad_const": lambda: jax.grad(lambda s: 3.0)(2.0),
        "grad_sg": lambda: jax.grad(lambda s: jax.lax.stop_gradient(s) * 1.0)(2.0),
        "grad_checkpoint_py": lambda: jax.grad(jax.checkpoint(h))(2.0),
        "jvp_mixed": lambda: jax.jvp(lambda a, b: a * b, (2.0, x0), (1.0, x0)),
        "jacrev_tuple": lambda: jax.jacrev(lambda a, b: a * b, argnums=(0, 1))(2.0, x0),
        "hessian_vec_py": lambda: jax.hessian(lambda s: jnp.sum(hv(s)))(2.0),
        "grad_scan_py": lambda: jax.grad(lambda s: jax.lax.scan(
            lambda c, xi: (c * s + xi, c), 0.0, x0)[0])(2.0),
        "grad_fori_py": lambda: jax.grad(lambda s: jax.lax.fori_loop(
            0, 3, lambda i, c: c * s, 1.0))(2.0),
        "grad_while_py": lambda: jax.grad(lambda s: jax.lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1])(2.0),
        "jvp_while_py": lambda: jax.jvp(lambda s: jax.lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1], (2.0,), (1.0,)),
        "grad_cond_py": lambda: jax.grad(lambda s: jax.lax.cond(
            s > 0, lambda v: v * v, lambda v: -v, s))(2.0),
        "vmap_out_none": lambda: jax.vmap(lambda s: 2.0, out_axes=None)(jnp.arange(3.0)),
    }
    out = {}
    for k, fn in calls.items():
        try:
            res = fn()
            leaves = jax.tree_util.tree_leaves(res)
            out[k] = [(str(np.dtype(a.dtype)), bool(getattr(a, "weak_type", False)),
                       tuple(np.shape(a)), np.round(np.asarray(a, np.float64), 4).tolist())
                      for a in leaves]
        except Exception as e:  # noqa: BLE001
            out[k] = "raises " + type(e).__name__
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="tjit")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtypes")
    ap.add_argument("--only", type=int)
    ap.add_argument("--tol", type=float, default=3e-4)
    ap.add_argument("--steps", type=int, default=5, help="most program steps")
    ap.add_argument("--big", action="store_true", help="inputs of 24-130 elements")
    ap.add_argument("--out", help="write each seed's outcome as JSON (to compare libraries)")
    a = ap.parse_args()
    MAX_STEPS[0] = a.steps + 1
    TOL[0] = a.tol
    jax = __import__(a.lib)
    import importlib
    jax.numpy = importlib.import_module(a.lib + ".numpy")
    if a.dtypes:
        with open(a.dtypes, "w") as fh:
            json.dump(dtype_family(jax), fh, indent=0)
        return
    stats, fails, outcome = {}, [], {}
    seeds = [a.only] if a.only is not None else range(a.seed, a.seed + a.cases)
    t0 = time.time()
    per_seed = {}
    for s in seeds:
        o = run_case(jax, s, stats, fails, verbose=a.only is not None, big=a.big)
        outcome[o] = outcome.get(o, 0) + 1
        per_seed[s] = o
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"outcomes": per_seed,
                       "fails": [(f[0], f[1], f[3], str(f[4])) for f in fails]}, fh)
    print(f"{len(seeds)} cases in {time.time() - t0:.0f}s: {outcome}")
    per = {}
    for k, (ok, bad, kink) in stats.items():
        for nm in set(k.split("+")):
            p = per.setdefault(nm, [0, 0])
            p[0] += ok
            p[1] += bad
    print("per transformation (cases run, disagreements):",
          {k: tuple(v) for k, v in sorted(per.items())})
    for f in fails:
        print("FAIL", f[0], f[1], f[3], f[4], f[2]["shape"], f[2]["steps"])
    sys.stdout.flush()


if __name__ == "__main__":
    main()
