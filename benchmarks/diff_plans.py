"""Differential hunt: random programs through every planner target, concrete and symbolic sizes.

Each program is drawn from a seed: 1-2 float32 inputs of shape (b, c...) where ``b`` is the
"batch" dim -- concrete (prime or awkward, large enough that the GPU target splits its
reductions: >= 2^20 elements) or a size symbol (``jit(polymorphic_shapes=...)``, run at
tiny and awkward sizes and at one large one). Steps: elementwise chains (an fma-shaped
x*y+z among them), reductions over the batch dim, a static dim or all dims (sum as a mean,
max, min, prod, any, all; kept dims broadcast back), reshapes that merge the batch dim with
its neighbours and split size expressions again (b*c -> (b, c), (p, b*k/p)), transposes,
slices, flips, broadcasts, gathers (along a static dim and rows of the batch dim), window
reductions (max/sum, 'SAME'), dots (against a constant, or over the batch dim), cumsums.

Targets, against NumPy in float64 (the same program text on ``numpy``):
  cpu     ``tjit.jit`` (fused LLVM kernels)
  interp  ``tjit.jit(backend="interpreter")`` (the cpu and gpu targets pass where they
          differ from NumPy as the interpreter does: float32 effects, not the plans')
  gpu     ``tjit.jit(backend="cuda")`` on the simulated GPU (tests/devices/fake_cupy:
          every kernel evaluated by ``kernel_ir.evaluate``)
  grad_cpu, grad_gpu  ``jit(grad)`` of sum(sin(3 * outputs)) against the interpreter's
  plans   ``compile_program`` for the CUDA and HLS targets, every plan checked step by
          step (no kernel reads its own output, nothing read before it is written)

    .venv/bin/python benchmarks/diff_plans.py [--seed S] [--count N] [--poly-only|--concrete-only]
        [--targets cpu,interp,gpu,plans,grad_cpu,grad_gpu] [-v]

Prints a line per failing (program, target, size) and the counts per target.
"""

import argparse
import contextlib
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

F32 = np.float32
STATIC = (2, 3, 4, 5, 6, 8, 12)
POLY_SIZES = (2, 3, 7, 97)


class Value:
    """A traced (or NumPy) value with its shape as the generator sees it: ints, and
    ("B", k, o) for the dim of size b*k + o (b the batch size; at most one such dim)."""

    def __init__(self, x, dims):
        self.x, self.dims = x, tuple(dims)


def _bdim(dims):
    return next((i for i, d in enumerate(dims) if isinstance(d, tuple)), None)


def _size(d, b):
    return d if isinstance(d, int) else b * d[1] + d[2]


def _static_size(dims):
    return int(np.prod([d if isinstance(d, int) else d[1] for d in dims]))


def _broadcasts(src, dst):
    """Whether a value of dims ``src`` broadcasts against ``dst`` without growing it."""
    if len(src) > len(dst):
        return False
    return all(a == 1 or a == b for a, b in zip(src[::-1], dst[::-1]))


def _divisors(n):
    return [p for p in range(2, n) if n % p == 0]


def _np_window(x, axis, w, kind):
    """'SAME' stride-1 window max/sum of NumPy ``x`` along ``axis`` (JAX's padding: the
    total w - 1, the low half rounded down)."""
    lo = (w - 1) // 2
    pad = [(0, 0)] * x.ndim
    pad[axis] = (lo, w - 1 - lo)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, pad, constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, w, axis=axis)
    return win.max(-1) if kind == "max" else win.sum(-1)


class Program:
    """A random program: ``run(m, *arrays)`` evaluates it with array module ``m`` (numpy
    or tjit.numpy; the same decisions both ways, drawn from ``seed`` at each run)."""

    def __init__(self, seed, poly):
        rng = np.random.default_rng(seed)
        self.seed, self.poly = seed, poly
        rank = int(rng.integers(1, 4))
        self.static = tuple(int(rng.choice(STATIC)) for _ in range(rank - 1))
        if rng.random() < 0.3 and self.static:     # a prime static dim now and then
            self.static = self.static[:-1] + (int(rng.choice([5, 7, 11])),)
        self.n_in = int(rng.integers(1, 3))
        # second input: full, or a trailing piece (broadcasts), or a per-row vector
        # the first input's batch dim alone, or merged with the next static dim (b*c)
        lead = (("B", 1, 0),) + self.static
        if self.static and rng.random() < 0.3:
            lead = (("B", self.static[0], 0),) + self.static[1:]
        self.shapes = [lead]
        if self.n_in == 2:
            kind = rng.integers(3)
            self.shapes.append(self.shapes[0] if kind == 0 else
                               (("B", 1, 0),) if kind == 1 else self.static or (("B", 1, 0),))
        self.n_steps = int(rng.integers(3, 11))
        self.trace_seed = int(rng.integers(1 << 30))
        self.desc = []

    # -- sizes -------------------------------------------------------------------------

    def big_rows(self):
        """The smallest prime count of rows that makes the inputs >= 2^20 elements."""
        import sympy
        per_row = max(_static_size(self.static), 1)
        return int(sympy.nextprime(-(-(1 << 20) // per_row) - 1))

    def concrete_shapes(self, b):
        return [tuple(_size(d, b) for d in s) for s in self.shapes]

    def spec(self):
        return ["(" + ", ".join((f"{d[1]}*b" if d[1] != 1 else "b") if isinstance(d, tuple)
                                else str(d) for d in s) +
                ("," if len(s) == 1 else "") + ")" for s in self.shapes]

    def inputs(self, b, seed=0):
        rng = np.random.default_rng(seed + 7919 * self.seed)
        return [rng.standard_normal(s).astype(F32) for s in self.concrete_shapes(b)]

    # -- the program ------------------------------------------------------------------

    def run(self, m, *arrays):
        rng = np.random.default_rng(self.trace_seed)
        is_np = m is np
        b = arrays[0].shape[0] // self.shapes[0][0][1]
        pool = [Value(a, s) for a, s in zip(arrays, self.shapes)]
        desc = []
        for _ in range(self.n_steps):
            cur = pool[-1]
            name, v = self._step(m, is_np, rng, pool, cur, b)
            desc.append(name)
            if v is not None:
                pool.append(v)
        self.desc = desc
        outs = [pool[-1].x]
        if len(pool) > self.n_in + 1 and rng.random() < 0.5:
            outs.append(pool[self.n_in + int(rng.integers(len(pool) - self.n_in - 1))].x)
        return tuple(outs)

    def _step(self, m, is_np, rng, pool, cur, b):
        x, dims = cur.x, cur.dims
        bd = _bdim(dims)
        n = len(dims)
        kinds = ["unary", "unary", "binary", "binary", "fma", "reduce", "reduce", "back",
                 "back", "exact"]
        if n:
            kinds += ["transpose", "merge", "split", "split", "gather", "window", "dot",
                      "slice", "flip", "cumsum", "complex"]
        if bd is not None:
            kinds += ["batch_edge"]
        if n < 4 and _static_size(dims) <= 16:
            kinds += ["broadcast"]
        kind = str(rng.choice(kinds))
        if kind == "unary":
            op = str(rng.choice(["tanh", "sin", "exp_tanh", "sqrt_abs", "square", "scale",
                                 "clip", "mask", "int_ops"]))
            return op, Value(_UNARY[op](m, x), dims)
        if kind in ("binary", "fma"):
            options = [v for v in pool if _broadcasts(v.dims, dims)]
            y = options[int(rng.integers(len(options)))]
            if kind == "fma":
                z = options[int(rng.integers(len(options)))]
                return "fma", Value(x * y.x + z.x, dims)
            op = str(rng.choice(sorted(_BINARY)))
            return op, Value(_BINARY[op](m, x, y.x), dims)
        if kind == "reduce":
            return self._reduce(m, is_np, rng, x, dims, bd)
        if kind == "exact":       # integer reductions of an input: exact on every target
            src = pool[int(rng.integers(self.n_in))]
            q = m.floor(src.x * 4).astype(np.int32 if is_np else m.int32)
            op = str(rng.choice(["sum", "max", "min", "argmax", "argmin"]))
            sb, n_src = _bdim(src.dims), len(src.dims)
            axis = sb if rng.integers(3) else int(rng.integers(n_src))
            if op in ("sum", "max", "min") and rng.integers(4) == 0:
                axis = None
            v = getattr(m, op)(q, axis=axis)
            nd = () if axis is None else src.dims[:axis] + src.dims[axis + 1:]
            return f"int_{op}[{axis}]", Value(v.astype(np.float64 if is_np else m.float32), nd)
        if kind == "batch_edge":   # drop the first row of the batch dim, or repeat it
            _, k, o = dims[bd]
            head = (slice(None),) * bd
            # (a first row to repeat only where there is one at every b >= 1: the
            # polymorphic slice of b - 1 rows is min(1, b - 1) long, in JAX too)
            if o < 0:
                return "repeat_first-", None
            if rng.integers(2):
                nd = dims[:bd] + (("B", k, o - 1),) + dims[bd + 1:]
                return f"drop_first{bd}", Value(x[head + (slice(1, None),)], nd)
            nd = dims[:bd] + (("B", k, o + 1),) + dims[bd + 1:]
            return f"repeat_first{bd}", Value(
                m.concatenate([x[head + (slice(0, 1),)], x], axis=bd), nd)
        if kind == "complex":      # (x + i y)^2 of a pool value y like x: |.| or Re
            options = [v for v in pool if v.dims == dims]
            y = options[int(rng.integers(len(options)))].x
            z = m.square(x + 1j * y) if rng.integers(2) else (x + 1j * y) ** 2
            part = str(rng.choice(["abs", "real", "imag"]))
            return f"complex_sq_{part}", Value(getattr(m, part)(z) * 0.5, dims)
        if kind == "back":      # the current value against a larger one it broadcasts to
            options = [v for v in pool if _broadcasts(dims, v.dims) and v.dims != dims]
            if not options:
                return "back-", None
            y = options[int(rng.integers(len(options)))]
            op = str(rng.choice(sorted(_BINARY)))
            return f"back_{op}", Value(_BINARY[op](m, y.x, x), y.dims)
        if kind == "transpose":
            perm = tuple(int(p) for p in rng.permutation(n))
            return f"T{perm}", Value(m.transpose(x, perm), [dims[p] for p in perm])
        if kind == "merge":
            if n < 2:
                return "merge-", None
            a = int(rng.integers(n - 1))
            d0, d1 = dims[a], dims[a + 1]
            if isinstance(d0, tuple) and isinstance(d1, tuple):
                return "merge-", None
            new = (("B", d0[1] * d1, d0[2] * d1) if isinstance(d0, tuple) else
                   ("B", d1[1] * d0, d1[2] * d0) if isinstance(d1, tuple) else d0 * d1)
            nd = dims[:a] + (new,) + dims[a + 2:]
            return f"merge{a}", Value(self._reshape(m, x, nd, b), nd)
        if kind == "split":
            a = int(rng.integers(n))
            d = dims[a]
            k = d[1] if isinstance(d, tuple) else d
            ps = _divisors(k)
            if isinstance(d, tuple) and (k == 1 or d[2]):
                return "split-", None
            if isinstance(d, tuple):
                # b*k -> (b*k/p, p) or (p, b*k/p) or (b, k)
                form = int(rng.integers(3))
                if form == 2 or not ps:
                    new = (("B", 1, 0), k)
                else:
                    p = int(rng.choice(ps))
                    new = (("B", k // p, 0), p) if form == 0 else (p, ("B", k // p, 0))
            else:
                if not ps:
                    return "split-", None
                p = int(rng.choice(ps))
                new = (p, k // p)
            nd = dims[:a] + new + dims[a + 1:]
            return f"split{a}{new}", Value(self._reshape(m, x, nd, b), nd)
        if kind == "gather":
            a = int(rng.integers(n))
            d = dims[a]
            if isinstance(d, tuple) and d[2] < 0:
                # (a gather's row of b*k - 1 rows: b*k - 1 >= 1 is undecidable, in JAX too)
                return "take_rows-", None
            if isinstance(d, tuple):   # rows of the batch dim, picked modulo its size
                idx = np.array([5, 0, 2, 11], np.int32)
                size = _size(d, b)
                ix = idx % size if is_np else m.asarray(idx) % size
                return f"take_rows{a}", Value(m.take(x, ix, axis=a),
                                              dims[:a] + (4,) + dims[a + 1:])
            ix = np.arange(d - 1, -1, -2)
            return f"take{a}", Value(m.take(x, ix, axis=a),
                                     dims[:a] + (len(ix),) + dims[a + 1:])
        if kind == "window":
            a = int(rng.integers(n))
            w = int(rng.choice([2, 3, 4]))
            op = str(rng.choice(["max", "sum"]))
            if is_np:
                return f"window_{op}{a}:{w}", Value(_np_window(x, a, w, op), dims)
            from tjit import lax
            wd = [1] * n
            wd[a] = w
            fn, init = (lax.max, -np.inf) if op == "max" else (lax.add, 0.0)
            return f"window_{op}{a}:{w}", Value(
                lax.reduce_window(x, init, fn, tuple(wd), (1,) * n, "SAME"), dims)
        if kind == "dot":
            last = dims[-1]
            if bd is not None and n == 2:   # over the batch dim: a Gram matrix, averaged
                xt = m.transpose(x)
                g = m.matmul(xt, x) if bd == 0 else m.matmul(x, xt)
                keep = dims[1 - bd]
                return "dot_batch", Value(g * (1.0 / _size(dims[bd], b)), (keep, keep))
            if isinstance(last, tuple):
                return "dot-", None
            k = int(rng.choice([1, 3, 4, 8]))
            w = (np.random.default_rng(self.trace_seed).standard_normal((last, k)) /
                 np.sqrt(last)).astype(F32)
            return f"dot{k}", Value(m.matmul(x, w.astype(np.float64) if is_np else w),
                                    dims[:-1] + (k,))
        if kind == "slice":
            static = [i for i, d in enumerate(dims) if isinstance(d, int) and d >= 2]
            if not static:
                return "slice-", None
            a = int(rng.choice(static))
            nd = dims[:a] + ((dims[a] + 1) // 2,) + dims[a + 1:]
            return f"slice{a}", Value(x[(slice(None),) * a + (slice(None, None, 2),)], nd)
        if kind == "flip":
            a = int(rng.integers(n))
            return f"flip{a}", Value(m.flip(x, a), dims)
        if kind == "cumsum":
            static = [i for i, d in enumerate(dims) if isinstance(d, int)]
            if not static:
                return "cumsum-", None
            a = int(rng.choice(static))
            return f"cumsum{a}", Value(m.cumsum(x, axis=a), dims)
        # broadcast: a new dim of 2-3 at a random place
        a, k = int(rng.integers(n + 1)), int(rng.integers(2, 4))
        nd = dims[:a] + (k,) + dims[a:]
        shape = tuple(_size(d, b) for d in nd)
        return f"bcast{a}:{k}", Value(m.broadcast_to(m.expand_dims(x, a), shape), nd)

    def _reduce(self, m, is_np, rng, x, dims, bd):
        op = str(rng.choice(["sum", "max", "min", "prod", "any", "all"]))
        n = len(dims)
        where = str(rng.choice(["batch", "batch", "static", "all", "two"] if n else ["all"]))
        if where == "two" and n < 3:
            where = "batch"
        if where == "batch" and bd is None or where == "static" and n < 2:
            where = "all" if where == "static" or bd is None else where
        if where == "all":
            axis = None
        elif where == "batch":
            axis = bd if bd is not None else int(rng.integers(n))
        elif where == "two":
            axis = tuple(sorted(int(a) for a in rng.choice(n, 2, replace=False)))
        else:
            axis = int(rng.choice([i for i in range(n) if i != bd] or [0]))
        keep = bool(rng.integers(2)) and axis is not None
        if op == "prod":
            f = 1 + 1e-3 * m.tanh(x)
            if is_np:   # (the factors as float32 holds them: their rounding is the
                f = f.astype(F32).astype(np.float64)  # program's, a bias over 2^20)
            v = m.prod(f, axis=axis, keepdims=keep)
        elif op in ("any", "all"):
            v = getattr(m, op)(x > 0.3, axis=axis, keepdims=keep).astype(
                np.float64 if is_np else m.float32)
        elif op == "sum":                 # a mean: values stay O(1) over 2^20 rows
            v = m.mean(x, axis=axis, keepdims=keep)
        else:
            v = getattr(m, op)(x, axis=axis, keepdims=keep)
        axes = range(n) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        nd = tuple(1 if i in axes else d for i, d in enumerate(dims) if keep or i not in axes)
        return f"{op}[{axis},{'k' if keep else ''}]", Value(v, nd)

    @staticmethod
    def _reshape(m, x, dims, b):
        return m.reshape(x, tuple(_size(d, b) for d in dims))


_UNARY = {
    "tanh": lambda m, x: m.tanh(x),
    "sin": lambda m, x: m.sin(x),
    "exp_tanh": lambda m, x: m.exp(m.tanh(x)),
    "sqrt_abs": lambda m, x: m.sqrt(m.abs(x)),
    "square": lambda m, x: m.square(x),
    "scale": lambda m, x: x * 0.5 + 0.25,
    "clip": lambda m, x: m.clip(x, -0.5, 0.75),
    "mask": lambda m, x: (x > 0.1) * x,
    "int_ops": lambda m, x: ((m.floor(m.clip(x, -4, 4) * 8).astype(m.int32) // 3) % 5
                             ).astype(x.dtype),
}
# the same binary ops the random-program test draws from
from tests.xla_like.test_random_programs import BINARY as _BINARY  # noqa: E402


# -- checks ---------------------------------------------------------------------------------

def numpy_reference(prog, args):
    return [np.asarray(v, np.float64) for v in prog.run(np, *[a.astype(np.float64)
                                                             for a in args])]


def compare(got, want, what):
    """None when ``got`` matches ``want`` (float32 against float64), else a message."""
    if len(got) != len(want):
        return f"{what}: {len(got)} outputs, want {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.shape != w.shape:
            return f"{what}: output {k} shape {g.shape}, want {w.shape}"
        scale = 1 + float(np.max(np.abs(w[np.isfinite(w)]), initial=0))
        with np.errstate(invalid="ignore"):
            err = np.abs(g.astype(np.float64) - w)
        # (float32 overflows where float64 does not: compared as float32 holds it)
        w = np.where(np.abs(w) > np.finfo(F32).max, np.copysign(np.inf, w), w)
        bad = ~((err <= 1e-3 * np.abs(w) + 2e-4 * scale) | (g == w) |
                (np.isnan(g) & np.isnan(w)))
        # (integer detours: floor near an integer may flip one element by 1/3)
        if bad.any() and bad.mean() > 1e-4:
            i = np.unravel_index(int(np.argmax(np.where(bad, err, -1))), g.shape)
            return (f"{what}: output {k} {int(bad.sum())}/{bad.size} off, at {i} "
                    f"{g[i]!r} want {w[i]!r}")
    return None


def plan_check(prog, args, target_name, shapes=None):
    import tjit
    from tests.xla_like.test_fusion_acyclic import assert_steps_ordered
    from tjit.xla_like import target as T
    from tjit.xla_like.compile import compile_program
    closed = tjit.make_jaxpr(prog.run_jnp, polymorphic_shapes=shapes)(*args)
    plan = compile_program(closed, getattr(T, target_name))
    assert_steps_ordered(plan, target_name)


@contextlib.contextmanager
def simulated_gpu():
    import pytest
    from tests.devices.fake_cupy import simulated_gpu as sim
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("TJIT_PLATFORMS", raising=False)
        with sim(mp) as fake:
            yield fake


def run_target(prog, target, b):
    """(sizes run, failure or None) of one program on one target at batch size ``b``."""
    import tjit
    import tjit.numpy as jnp
    prog.run_jnp = lambda *a: prog.run(jnp, *a)
    args = prog.inputs(b)
    shapes = prog.spec() if prog.poly else None
    if target == "plans":
        for tname in ("CUDA", "HLS"):
            try:
                plan_check(prog, args, tname, shapes)
            except Exception as e:
                return f"plan {tname}: {type(e).__name__}: {str(e)[:300]}"
        return None
    if target.startswith("grad_"):
        return grad_check(prog, target, args, shapes)
    want = numpy_reference(prog, args)
    kw = {"polymorphic_shapes": shapes} if shapes else {}
    if target == "interp":
        kw["backend"] = "interpreter"
    elif target == "gpu":
        kw["backend"] = "cuda"
    key = (target, tuple(shapes or ()))
    fn = prog.jitted.get(key)
    if fn is None:
        fn = prog.jitted[key] = tjit.jit(prog.run_jnp, **kw)
    try:
        got = [np.asarray(v) for v in fn(*args)]
    except Exception as e:
        return f"{target}: {type(e).__name__}: {str(e)[:300]}"
    msg = compare(got, want, target)
    if msg and target == "interp":
        # the same: NumPy's float32 evaluation agreeing with the interpreter
        with np.errstate(all="ignore"):
            f32 = [np.asarray(v, np.float64) for v in prog.run(np, *args)]
        if compare(got, f32, target) is None:
            return None
    elif msg:
        # float32 effects (a where at a near-tie, cancellations) that the reference
        # interpreter shares: a difference from NumPy, not from the program's meaning
        interp = interpreter_values(prog, args, shapes)
        if interp is not None and compare(got, interp, target) is None:
            return None
    return msg


def grad_check(prog, target, args, shapes):
    """jit(grad) of sum(sin(3 * output)) on the cpu or gpu against the interpreter's."""
    import tjit
    import tjit.numpy as jnp

    def loss(*a):
        return sum(jnp.sum(jnp.sin(3 * o)) for o in prog.run(jnp, *a))
    g = tjit.grad(loss, argnums=tuple(range(len(args))))
    kw = {"polymorphic_shapes": shapes} if shapes else {}
    key = (target, tuple(shapes or ()))
    if key not in prog.jitted:
        prog.jitted[key] = tjit.jit(g, backend=target[5:].replace("gpu", "cuda"), **kw)
    try:
        want = [np.asarray(v, np.float64)
                for v in tjit.jit(g, backend="interpreter", **kw)(*args)]
    except Exception as e:
        return f"{target} (interpreter): {type(e).__name__}: {str(e)[:300]}"
    try:
        got = [np.asarray(v) for v in prog.jitted[key](*args)]
    except Exception as e:
        return f"{target}: {type(e).__name__}: {str(e)[:300]}"
    msg = compare(got, want, target)
    if msg:     # closer to the float64 gradient than the interpreter's float32 one?
        tjit.config.update("jax_enable_x64", True)
        try:
            exact = [np.asarray(v) for v in tjit.jit(g, backend="interpreter", **kw)(
                *[a.astype(np.float64) for a in args])]
        finally:
            tjit.config.update("jax_enable_x64", False)
        if compare(got, exact, target) is None:
            return None
        # (long products: every float32 factor's rounding moves the gradient ~1e-3 over
        # 2^20 of them, in any order; no further from float64 than twice the
        # interpreter's float32 evaluation is that effect)
        def worst(vals):
            return max(float(np.max(np.abs(v.astype(np.float64) - e) /
                                    (np.abs(e) + 1e-6 * (1 + np.max(np.abs(e)))),
                                    initial=0)) for v, e in zip(vals, exact))
        if worst(got) <= 2 * worst(want) + 1e-5:
            return None
    return msg


def interpreter_values(prog, args, shapes):
    import tjit
    kw = {"polymorphic_shapes": shapes} if shapes else {}
    try:
        out = tjit.jit(prog.run_jnp, backend="interpreter", **kw)(*args)
    except Exception:
        return None
    return [np.asarray(v, np.float64) for v in out]


def hunt(seeds, poly_modes, targets, verbose=False, out=print):
    counts = {t: [0, 0] for t in targets}     # target -> [runs, failures]
    failures = []
    for seed in seeds:
        for poly in poly_modes:
            prog = Program(seed, poly)
            prog.jitted = {}
            sizes = POLY_SIZES + (prog.big_rows(),) if poly else (prog.big_rows(),)
            for target in targets:
              # (one simulated GPU for all sizes: a polymorphic program's large bindings
              # compile their own programs beside the symbolic one)
              with simulated_gpu() if "gpu" in target else contextlib.nullcontext():
                for b in (sizes if target != "plans" else sizes[:1] if poly else sizes):
                    t0 = time.perf_counter()
                    try:
                        msg = run_target(prog, target, b)
                    except Exception as e:      # the NumPy reference or the generator
                        msg = f"harness: {type(e).__name__}: {e}"
                        if verbose:
                            traceback.print_exc()
                    counts[target][0] += 1
                    tag = (f"seed={seed} {'poly ' + str(prog.spec()) if poly else 'concrete'}"
                           f" b={b} {target}")
                    if msg:
                        counts[target][1] += 1
                        failures.append((seed, poly, b, target, msg))
                        out(f"FAIL {tag}: {' '.join(prog.desc)}\n     {msg}")
                    elif verbose:
                        out(f"ok   {tag} ({time.perf_counter() - t0:.1f} s): "
                            f"{' '.join(prog.desc)}")
    return counts, failures


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--targets", default="cpu,interp,gpu,plans,grad_cpu,grad_gpu")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--poly-only", action="store_true")
    g.add_argument("--concrete-only", action="store_true")
    p.add_argument("-v", action="store_true")
    a = p.parse_args()
    modes = (True,) if a.poly_only else (False,) if a.concrete_only else (False, True)
    targets = a.targets.split(",")
    t0 = time.perf_counter()
    counts, failures = hunt(range(a.seed, a.seed + a.count), modes, targets, a.v)
    print(f"\n{a.count} programs x {len(modes)} size modes in {time.perf_counter() - t0:.0f} s")
    for t, (runs, bad) in counts.items():
        print(f"  {t:7s} {runs:5d} runs  {bad:4d} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
