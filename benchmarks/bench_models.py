"""Programs a new user would try first, jitted on tjit and (when installed) on JAX.

    python benchmarks/bench_models.py [--quick] [--cases cnn,gru] [--rounds 3]

Each case is one program written once against a library namespace (``jnp``, ``lax``,
``nn``, ``jit``, ``grad``, ``vmap``, ``tree_map``, ``segment_sum``), so tjit and JAX run
the same source. Before timing, tjit's result (and JAX's) is checked against a NumPy
float64 reference: outputs directly, gradients through a directional derivative
(central difference of the NumPy float64 loss along a random direction, against
``<grad, direction>``). Times are medians; with JAX the two libraries alternate over
``--rounds`` rounds and the row shows the median of the per-round medians. "first" is
the first call's wall time (trace + compile + run) in this process; tjit's kernel cache
is pointed at a fresh empty folder (unless TJIT_CACHE_DIR is set), so it is a cold
compile. Not a test: nothing here asserts a time.

Cases (full size; ``--quick`` shrinks batches):
  cnn_nhwc / cnn_nchw  conv 3x3 SAME (batch 32, 32x32x16 -> 32) relu, max pool 2x2,
                       conv 3x3 32 -> 32, relu, avg pool 2x2 (pools via reduce_window);
                       value_and_grad of mean(y**2) wrt the 4 parameters
  transformer          one pre-LN block, B=8 T=128 D=256, 4 heads, causal softmax
                       attention, gelu MLP (4D); value_and_grad wrt 10 parameters
  gru_scan             GRU, 64 steps of lax.scan, batch 32, 64 -> 256; value_and_grad
  adam                 an optax-style Adam update over a pytree of 10 parameters
  logreg_vmap          per-example gradients of logistic regression, vmap(grad), B=256 D=512
  kmeans               one k-means step: pairwise distances, argmin, segment_sum
  cumsum / sort / top_k  on (1024, 1024) f32 along the last axis (top_k k=8)
  embed_grad           grad of an embedding lookup: scatter-add into a 32000x128 table
  einsum_bmm / einsum_attn  'bij,bjk->bik' and 'bhqd,bhkd->bhqk'

Measured on the 2-core development machine, heavily loaded (load average 9-22: single
rows swing 2x between runs; JAX 0.10.2 CPU), full size, ``--rounds 3``, ms tjit / JAX:

  case         first run (load 9)         after the fixes (load 11-12)
  top_k        191 / 10.9   17.5x         9.5 / 6.9    1.36x   (rev+sort+rev -> selection)
  embed_grad   8.9 / 1.2     7.3x         2.8 / 1.0    2.9x    (repeated-row scatter fold)
  kmeans       12.8 / 2.8    4.5x         13.4 / 2.9   4.6x    (argmin + 2 scatters on NumPy)
  cnn_nchw     179 / 109     1.63x        106 / 136    0.78x   (transposes in 8x8 blocks)
  cnn_nhwc     79 / 68       1.16x        108 / 152    0.71x
  transformer  150 / 181     0.83x        121 / 160    0.76x
  gru_scan     121 / 119     1.02x        114 / 122    0.94x
  others (adam, logreg_vmap, sort, einsums) 0.2-0.8x; cumsum (a NumPy library step)
  0.7-2.2x as JAX's time swings. First calls: cnn_nhwc 1.2-2.8x JAX's, kmeans 1.4-3.9x,
  the rest below JAX's.
Interleaved runs of the code before and after (same load): top_k 186-227 -> 12-29 ms,
embedding grad 12-16 -> 6-11 ms, segment_sum (8192x32 into 64) 6.5-10 -> 2.4-5 ms,
cnn_nchw 146-149 -> 115-132 ms.

Then row scatters (segment_sum, the embedding gradient), top_k and cumsum became
compiled CPU steps (``devices/cpu_scatter``, ``cpu_top_k``, ``cpu_cumulative``). The
code before and after, run alternately at load 9 (full size, ``--rounds 3``, medians
of 3 runs, ms; JAX's median beside):

  case         before    after    JAX     (before at load 2: tjit / JAX)
  kmeans       14.7      0.76     12.0    3.83 / 3.10
  cumsum       11.9      0.90     15.8    6.85 / 7.98
  top_k        13.2      1.15     11.6    3.52 / 2.82
  embed_grad   10.7      0.54      3.9    1.96 / 0.74
Again at load 13: kmeans 12.5 -> 0.94, cumsum 12.0 -> 0.96, top_k 16.1 -> 1.26,
embed_grad 16.3 -> 0.60 (JAX 10.0, 20.0, 12.0, 3.7). The NumPy steps they replace
suffered most from the load. First calls with an empty
cache folder include each helper's one-time LLVM compile (top_k ~40 ms of CPU, a row
scan ~11, a row scatter ~17; later processes load them from the disk cache).

gru_scan: its backward scan ran in Python's loop (the gates' cotangents were ``pad``
library steps); pad now lowers to fusible takes, and native loops run steps split
across threads. The three code paths compiled in one process, alternating (load 4.4,
ms wall / process CPU per call; JAX beside):

  batch   before        pad lowered   + split steps native   JAX
  8       38.5 / 19.1   34.8 / 15.8   29.3 / 14.9            39.2 / 24.6
  32      54.8 / 46.4   64.0 / 45.9   41.8 / 39.1            57.2 / 55.3

First calls with an empty cache folder, after kernels that differ only in a row count
share one compiled body (``devices/shared_kernels.py``: k-means' two row sums) and the
own sgemm compiles with the light pipeline (``target.PROFILES``, 174 -> 71 ms of LLVM
CPU), ``--quick``, each case in a fresh process, process CPU of the first call (ms,
medians of 5, code before and after alternating, load 15-16): kmeans 433 -> 322,
transformer 837 -> 751, cnn_nhwc 708 / 729 (neither change applies to it: noise).

Plans after scaled dot operands fold into the gemm's alpha, reshape copies for dots are
dropped (the producer writes the reshaped value; arguments are viewed) and rev is a
fused index map (steps at ``--quick`` sizes, before -> after): cnn_nhwc 37 -> 31
(kernels 31 -> 26, the rev library step gone), cnn_nchw 42 -> 36, transformer 44 -> 39,
gru_scan unchanged (11; bodies 4 and 9). Times moved within the noise at load 11-16:
process CPU per call, medians of 3 alternating processes, quick: cnn_nhwc 5.8 -> 5.9 ms,
cnn_nchw 7.1 -> 6.8, transformer 16.0 -> 16.0; full size (3 before, 2 after):
cnn_nhwc 34.3 -> 33.9/36.9, cnn_nchw 40.7 -> 41.3/40.2, transformer 63.9 -> 62.1/62.9
(``bench_dot_folds.py`` shows the folds where they matter).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

if not os.environ.get("TJIT_CACHE_DIR"):  # cold compiles: before tjit reads it
    os.environ["TJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tjit_bench_models_")

import numpy as np

import tjit
import tjit.numpy as tjnp
from tjit import lax as tlax
from tjit import nn as tnn
from tjit import ops as tops

try:
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
    from jax import nn as jnn
    from jax import ops as jops
except ImportError:  # JAX is optional (pip install -e .[bench])
    jax = None


class Lib:
    """The names a program uses, from one library."""

    def __init__(self, name, mod, jnp, lax, nn, ops):
        self.name, self.jnp, self.lax, self.nn = name, jnp, lax, nn
        self.jit, self.grad, self.vmap = mod.jit, mod.grad, mod.vmap
        self.value_and_grad = mod.value_and_grad
        self.tree_map = mod.tree_util.tree_map
        self.segment_sum = ops.segment_sum
        self.block = mod.block_until_ready
        self.put = mod.device_put


TJIT = Lib("tjit", tjit, tjnp, tlax, tnn, tops)
JAX = Lib("jax", jax, jjnp, jlax, jnn, jops) if jax is not None else None


class Case:
    """program(L) -> function to jit; args: NumPy pytree; reference(*args) -> float64
    outputs, or for a gradient case loss_np(*args) with ``grad_argnums``: the program
    returns (loss, grads) and the grads are checked by a directional derivative."""

    def __init__(self, name, program, args, reference=None, loss_np=None, grad_argnums=(),
                 rtol=2e-4):
        self.name, self.program, self.args = name, program, args
        self.reference, self.loss_np, self.grad_argnums = reference, loss_np, grad_argnums
        self.rtol = rtol


# ------------------------------------------------------------------------ NumPy helpers

def _f64(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(_f64(t) for t in tree)
    if isinstance(tree, dict):
        return {k: _f64(v) for k, v in tree.items()}
    a = np.asarray(tree)
    return a.astype(np.float64) if a.dtype.kind == "f" else a  # ids stay integers


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [a for t in tree for a in _leaves(t)]
    if isinstance(tree, dict):
        return [a for k in sorted(tree) for a in _leaves(tree[k])]
    return [np.asarray(tree)]


def _like(tree, flat):
    """``flat`` (an iterator of arrays) in the structure of ``tree``."""
    if isinstance(tree, (list, tuple)):
        return type(tree)(_like(t, flat) for t in tree)
    if isinstance(tree, dict):
        return {k: _like(tree[k], flat) for k in sorted(tree)}
    return next(flat)


def np_conv_same(x, w, layout):
    """3x3 SAME cross-correlation, stride 1 (NHWC/HWIO or NCHW/OIHW), float64."""
    if layout == "NCHW":
        return np_conv_same(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0),
                            "NHWC").transpose(0, 3, 1, 2)
    kh, kw = w.shape[:2]
    xp = np.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    h, wd = x.shape[1:3]
    return sum(np.einsum("nhwc,co->nhwo", xp[:, i:i + h, j:j + wd], w[i, j])
               for i in range(kh) for j in range(kw))


def np_pool(x, layout, op):
    if layout == "NCHW":
        return np_pool(x.transpose(0, 2, 3, 1), "NHWC", op).transpose(0, 3, 1, 2)
    n, h, w, c = x.shape
    return op(x.reshape(n, h // 2, 2, w // 2, 2, c), axis=(2, 4))


def np_gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ------------------------------------------------------------------------------- cases

def case_cnn(layout, batch):
    rng = np.random.default_rng(10)
    chans = lambda n, c, h: (n, h, h, c) if layout == "NHWC" else (n, c, h, h)
    hwio = lambda i, o: (3, 3, i, o) if layout == "NHWC" else (o, i, 3, 3)
    x = rng.standard_normal(chans(batch, 16, 32)).astype(np.float32)
    params = [(rng.standard_normal(hwio(16, 32)) * (2 / 144) ** .5).astype(np.float32),
              np.full(32, 0.1, np.float32),
              (rng.standard_normal(hwio(32, 32)) * (2 / 288) ** .5).astype(np.float32),
              np.full(32, 0.1, np.float32)]
    dn = (layout, "HWIO" if layout == "NHWC" else "OIHW", layout)
    bshape = (1, 1, 1, 32) if layout == "NHWC" else (1, 32, 1, 1)
    win = (1, 2, 2, 1) if layout == "NHWC" else (1, 1, 2, 2)

    def program(L):
        jnp, lax = L.jnp, L.lax

        def conv(h, w, b):
            y = lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=dn)
            return jnp.maximum(y + b.reshape(bshape), 0.0)

        def loss(params, x):
            w1, b1, w2, b2 = params
            h = lax.reduce_window(conv(x, w1, b1), -jnp.inf, lax.max, win, win, "VALID")
            h = lax.reduce_window(conv(h, w2, b2), 0.0, lax.add, win, win, "VALID") / 4
            return jnp.mean(h * h)
        return L.value_and_grad(loss)

    def loss_np(params, x):
        w1, b1, w2, b2 = params
        bs = lambda b: b.reshape(bshape)
        h = np_pool(np.maximum(np_conv_same(x, w1, layout) + bs(b1), 0), layout, np.max)
        h = np_pool(np.maximum(np_conv_same(h, w2, layout) + bs(b2), 0), layout, np.mean)
        return np.mean(h * h)
    return Case(f"cnn_{layout.lower()}", program, (params, x), loss_np=loss_np,
                grad_argnums=(0,))


def case_transformer(batch, t=128, d=256, heads=4):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((batch, t, d)).astype(np.float32)
    p = {"g1": np.ones(d), "b1": np.zeros(d), "wqkv": rng.standard_normal((d, 3 * d)) / d ** .5,
         "wo": rng.standard_normal((d, d)) / d ** .5, "g2": np.ones(d), "b2": np.zeros(d),
         "w1": rng.standard_normal((d, 4 * d)) / d ** .5, "c1": np.full(4 * d, 0.01),
         "w2": rng.standard_normal((4 * d, d)) / (4 * d) ** .5, "c2": np.zeros(d)}
    p = {k: np.asarray(v, np.float32) for k, v in p.items()}
    dh = d // heads

    def block(xp, nn_gelu, softmax, p, x):
        def ln(h, g, b):
            mu = h.mean(-1, keepdims=True)
            var = ((h - mu) ** 2).mean(-1, keepdims=True)
            return (h - mu) / xp.sqrt(var + 1e-5) * g + b
        bt = x.shape[0]
        qkv = ln(x, p["g1"], p["b1"]) @ p["wqkv"]
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(bt, t, heads, dh).transpose(0, 2, 1, 3)
                   for i in range(3))
        s = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(dh)
        mask = np.tril(np.ones((t, t), bool))
        att = softmax(xp.where(mask, s, -1e9))
        o = (att @ v).transpose(0, 2, 1, 3).reshape(bt, t, d)
        x = x + o @ p["wo"]
        hmid = nn_gelu(ln(x, p["g2"], p["b2"]) @ p["w1"] + p["c1"])
        return x + hmid @ p["w2"] + p["c2"]

    def np_softmax(s):
        e = np.exp(s - s.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def program(L):
        def loss(p, x):
            y = block(L.jnp, L.nn.gelu, lambda s: L.nn.softmax(s, axis=-1), p, x)
            return L.jnp.mean(y * y)
        return L.value_and_grad(loss)

    def loss_np(p, x):
        return np.mean(block(np, np_gelu, np_softmax, p, x) ** 2)
    return Case("transformer", program, (p, x), loss_np=loss_np, grad_argnums=(0,))


def case_gru(batch, steps=64, din=64, hid=256):
    rng = np.random.default_rng(12)
    xs = rng.standard_normal((steps, batch, din)).astype(np.float32)
    p = [(rng.standard_normal((din, 3 * hid)) / din ** .5).astype(np.float32),
         (rng.standard_normal((hid, 3 * hid)) / hid ** .5).astype(np.float32),
         np.zeros(3 * hid, np.float32)]

    def cell(xp, sigmoid, p, h, x):
        wx, wh, b = p
        gx, gh = x @ wx + b, h @ wh
        z = sigmoid(gx[:, :hid] + gh[:, :hid])
        r = sigmoid(gx[:, hid:2 * hid] + gh[:, hid:2 * hid])
        n = xp.tanh(gx[:, 2 * hid:] + r * gh[:, 2 * hid:])
        return (1 - z) * n + z * h

    def program(L):
        def loss(p, xs):
            def step(h, x):
                h = cell(L.jnp, L.nn.sigmoid, p, h, x)
                return h, L.jnp.sum(h * h)
            h, per_step = L.lax.scan(step, L.jnp.zeros((xs.shape[1], hid)), xs)
            return L.jnp.mean(h) + L.jnp.sum(per_step) / per_step.size
        return L.value_and_grad(loss)

    def loss_np(p, xs):
        h, total = np.zeros((xs.shape[1], hid)), 0.0
        for x in xs:
            h = cell(np, np_sigmoid, p, h, x)
            total += np.sum(h * h)
        return np.mean(h) + total / len(xs)
    return Case("gru_scan", program, (p, xs), loss_np=loss_np, grad_argnums=(0,))


ADAM = {"lr": 1e-3, "b1": 0.9, "b2": 0.999, "eps": 1e-8}


def case_adam():
    rng = np.random.default_rng(13)
    shapes = [(512, 512), (512,), (512, 1024), (1024,), (1024, 256), (256,),
              (3, 3, 64, 64), (64,), (256, 10), (10,)]
    mk = lambda: [rng.standard_normal(s).astype(np.float32) for s in shapes]
    params, grads, m = mk(), mk(), mk()
    v = [np.abs(a) for a in mk()]
    step = np.float32(7)

    def update(tree_map, sqrt, params, grads, m, v, step):
        b1, b2 = ADAM["b1"], ADAM["b2"]
        m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        c1, c2 = 1 - b1 ** step, 1 - b2 ** step
        params = tree_map(lambda p, m, v: p - ADAM["lr"] * (m / c1) / (sqrt(v / c2) + ADAM["eps"]),
                          params, m, v)
        return params, m, v

    def program(L):
        return lambda *a: update(L.tree_map, L.jnp.sqrt, *a)

    def reference(params, grads, m, v, step):
        tm = lambda f, *trees: [f(*xs) for xs in zip(*trees)]
        return update(tm, np.sqrt, params, grads, m, v, step)
    return Case("adam", program, (params, grads, m, v, step), reference=reference)


def case_logreg(batch, d=512):
    rng = np.random.default_rng(14)
    w = (rng.standard_normal(d) / d ** .5).astype(np.float32)
    x = rng.standard_normal((batch, d)).astype(np.float32)
    y = (rng.random(batch) < 0.5).astype(np.float32)

    def program(L):
        jnp = L.jnp

        def loss(w, x, y):
            z = jnp.dot(x, w)
            return jnp.logaddexp(0.0, z) - y * z
        return L.vmap(L.grad(loss), in_axes=(None, 0, 0))

    def reference(w, x, y):
        return (np_sigmoid(x @ w) - y)[:, None] * x
    return Case("logreg_vmap", program, (w, x, y), reference=reference)


def case_kmeans(n, k=64, d=32):
    rng = np.random.default_rng(15)
    centers = rng.standard_normal((k, d)) * 4
    labels = rng.integers(0, k, n)
    # points near their centers (the argmin is unambiguous); start from moved centers
    x = (centers[labels] + 0.3 * rng.standard_normal((n, d))).astype(np.float32)
    c = (centers + 0.2 * rng.standard_normal((k, d))).astype(np.float32)

    def program(L):
        jnp = L.jnp

        def step(x, c):
            d2 = (jnp.sum(x * x, 1)[:, None] - 2 * x @ c.T + jnp.sum(c * c, 1)[None, :])
            assign = jnp.argmin(d2, axis=1)
            sums = L.segment_sum(x, assign, num_segments=k)
            counts = L.segment_sum(jnp.ones_like(x[:, 0]), assign, num_segments=k)
            return sums / jnp.maximum(counts, 1.0)[:, None], jnp.sum(jnp.min(d2, axis=1))
        return step

    def reference(x, c):
        d2 = ((x[:, None, :] - c[None]) ** 2).sum(-1)
        assign = d2.argmin(1)
        sums = np.zeros((k, d))
        np.add.at(sums, assign, x)
        counts = np.bincount(assign, minlength=k)
        return sums / np.maximum(counts, 1)[:, None], d2.min(1).sum()
    return Case("kmeans", program, (x, c), reference=reference, rtol=1e-3)


def case_rows(kind, n):
    x = np.random.default_rng(16).standard_normal((n, 1024)).astype(np.float32)
    programs = {"cumsum": (lambda L: lambda x: L.jnp.cumsum(x, axis=1),
                           lambda x: np.cumsum(x, axis=1)),
                "sort": (lambda L: lambda x: L.jnp.sort(x, axis=1), lambda x: np.sort(x, 1)),
                "top_k": (lambda L: lambda x: L.lax.top_k(x, 8),
                          lambda x: (-np.sort(-x, 1)[:, :8], np.argsort(-x, 1)[:, :8]))}
    program, reference = programs[kind]
    return Case(kind, program, (x,), reference=reference, rtol=1e-4)


def case_embed_grad(vocab=32000, dim=128, n_ids=4096):
    rng = np.random.default_rng(17)
    table = rng.standard_normal((vocab, dim)).astype(np.float32)
    ids = rng.integers(0, vocab, n_ids).astype(np.int32)
    ids[:64] = 5  # repeated ids: the scatter must add
    g = rng.standard_normal((n_ids, dim)).astype(np.float32)

    def program(L):
        return L.grad(lambda table, ids, g: L.jnp.sum(table[ids] * g))

    def reference(table, ids, g):
        out = np.zeros(table.shape)
        np.add.at(out, ids, g)
        return out
    return Case("embed_grad", program, (table, ids, g), reference=reference)


def case_einsum(spec, shapes, name):
    rng = np.random.default_rng(18)
    args = tuple(rng.standard_normal(s).astype(np.float32) for s in shapes)
    return Case(name, lambda L: lambda a, b: L.jnp.einsum(spec, a, b), args,
                reference=lambda a, b: np.einsum(spec, a, b), rtol=1e-4)


def all_cases(quick):
    b = 8 if quick else 32
    return [case_cnn("NHWC", b), case_cnn("NCHW", b), case_transformer(2 if quick else 8),
            case_gru(b), case_adam(), case_logreg(64 if quick else 256),
            case_kmeans(1024 if quick else 8192),
            *(case_rows(kind, 256 if quick else 1024) for kind in ("cumsum", "sort", "top_k")),
            case_embed_grad(),
            case_einsum("bij,bjk->bik", [(b, 128, 128)] * 2, "einsum_bmm"),
            case_einsum("bhqd,bhkd->bhqk", [(b // 4, 8, 128, 64)] * 2, "einsum_attn")]


# ---------------------------------------------------------------------------- checking

def check(case, lib, got):
    """A list of mismatch lines (empty: the result matches the float64 reference)."""
    args64 = _f64(case.args)
    if case.loss_np is None:
        return _compare(f"{case.name} [{lib}]", _leaves(got),
                        _leaves(case.reference(*args64)), case.rtol)
    loss, grads = got
    want = case.loss_np(*args64)
    errs = _compare(f"{case.name} [{lib}] loss", [loss], [want], case.rtol)
    # directional derivative: <grad, u> against a central difference along u
    rng = np.random.default_rng(99)
    grads = grads if len(case.grad_argnums) > 1 else (grads,)
    dot, plus, minus = 0.0, list(args64), list(args64)
    for argnum, g in zip(case.grad_argnums, grads):
        g_leaves = _leaves(g)
        u = [rng.standard_normal(a.shape) for a in g_leaves]
        dot += sum(float(np.sum(np.asarray(a, np.float64) * b)) for a, b in zip(g_leaves, u))
        base = _leaves(args64[argnum])
        eps = 1e-6 * max(1.0, max(float(np.max(np.abs(a))) for a in base))  # few kinks crossed
        plus[argnum] = _like(args64[argnum], iter([a + eps * b for a, b in zip(base, u)]))
        minus[argnum] = _like(args64[argnum], iter([a - eps * b for a, b in zip(base, u)]))
    fd = (case.loss_np(*plus) - case.loss_np(*minus)) / (2 * eps)
    if not abs(dot - fd) <= 2e-3 * max(abs(fd), 1e-6):
        errs.append(f"{case.name} [{lib}] grad: <grad,u> = {dot:.6g}, finite difference "
                    f"{fd:.6g}")
    return errs


def _compare(label, got, want, rtol):
    if len(got) != len(want):
        return [f"{label}: {len(got)} outputs, reference has {len(want)}"]
    errs = []
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = float(np.max(np.abs(w))) if w.size else 1.0
        if g.shape != w.shape:
            errs.append(f"{label} output {i}: shape {g.shape}, want {w.shape}")
        elif not np.allclose(g, w, rtol=rtol, atol=rtol * scale):
            errs.append(f"{label} output {i}: max abs err {np.max(np.abs(g - w)):.3g} "
                        f"(max |ref| {scale:.3g})")
    return errs


# ----------------------------------------------------------------------------- timing

def _median_ms(fn, repeat):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def prepare(case, lib):
    """(call, first_ms, mismatches) for one library: jit, first call, check."""
    fn = lib.jit(case.program(lib))
    args = lib.put(case.args)
    call = lambda: lib.block(fn(*args))
    t0 = time.perf_counter()
    got = call()
    first = (time.perf_counter() - t0) * 1e3
    return call, first, check(case, lib.name, got)


def run_case(case, libs, rounds, repeat):
    row = {"name": case.name, "errors": []}
    calls = {}
    for lib in libs:
        try:
            calls[lib.name], row[f"{lib.name}_first"], errs = prepare(case, lib)
            row["errors"] += errs
        except Exception as err:  # noqa: BLE001 -- report, go on with the other cases
            row["errors"].append(f"{case.name} [{lib.name}] FAILED: "
                                 f"{type(err).__name__}: {str(err).splitlines()[0][:200]}")
    meds = {name: [] for name in calls}
    for _ in range(rounds):  # alternate the libraries: the machine's speed drifts
        for name, call in calls.items():
            time.sleep(0.2)  # let the other library's spinning threads sleep
            meds[name].append(_median_ms(call, repeat))
    for name, m in meds.items():
        row[f"{name}_ms"] = statistics.median(m)
    return row


def _fmt(v, width=9):
    return f"{v:{width}.2f}" if v is not None else f"{'-':>{width}}"


def report(rows):
    print(f"\n{'case':14} {'tjit ms':>9} {'jax ms':>9} {'ratio':>7} {'tjit 1st':>9} "
          f"{'jax 1st':>9} {'1st ratio':>9}")
    for r in rows:
        t, j = r.get("tjit_ms"), r.get("jax_ms")
        tf, jf = r.get("tjit_first"), r.get("jax_first")
        ratio = t / j if t and j else None
        fratio = tf / jf if tf and jf else None
        print(f"{r['name']:14} {_fmt(t)} {_fmt(j)} {_fmt(ratio, 7)} {_fmt(tf)} {_fmt(jf)} "
              f"{_fmt(fratio)}")
    print("(ms; ratio = tjit/jax, below 1: tjit is faster; 1st = first call incl. compile)")
    errors = [e for r in rows for e in r["errors"]]
    for e in errors:
        print("MISMATCH/FAILURE:", e)
    return not errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small batches, few repeats")
    ap.add_argument("--cases", default="", help="comma-separated case names (default all)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    args = ap.parse_args()
    cases = all_cases(args.quick)
    if args.cases:
        wanted = args.cases.split(",")
        unknown = set(wanted) - {c.name for c in cases}
        if unknown:
            sys.exit(f"unknown cases {sorted(unknown)}; known: {[c.name for c in cases]}")
        cases = [c for c in cases if c.name in wanted]
    libs = [TJIT] + ([JAX] if JAX else [])
    if not JAX:
        print("(JAX is not installed: tjit only)")
    print(f"load average {os.getloadavg()[0]:.2f}; TJIT_CACHE_DIR={os.environ['TJIT_CACHE_DIR']}")
    repeat = 3 if args.quick else 7
    rows = []
    for case in cases:
        rows.append(run_case(case, libs, 1 if args.quick else args.rounds, repeat))
        print(f"  {case.name}: done", flush=True)
    ok = report(rows)
    print(f"load average {os.getloadavg()[0]:.2f}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
