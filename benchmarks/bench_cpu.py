"""The fused LLVM CPU backend, side by side with NumPy and (when installed) JAX.

    python benchmarks/bench_cpu.py [--quick] [--cases 1,4]

One process runs every case: each tjit result is first checked against a NumPy
reference (and JAX's against the same reference, which checks the reference), then
timed: medians of several runs after warm-up (JAX results are waited for with
``block_until_ready``; tjit returns NumPy-backed arrays, ready when returned). The
table prints times and the ratios tjit/NumPy and tjit/JAX (below 1: tjit is faster).
Compile times (case 8) run in fresh subprocesses. ``--quick`` shrinks the array cases
~16x for a smoke run. Not a test: nothing here asserts a time.

Cases:
  1. Mish forward ``x*tanh(log1p(exp(x)))`` on 8x32x224x224 f32, and jit(grad(sum(mish))).
     The note gives the bandwidth bound: bytes read+written / measured copy bandwidth.
  2. Row softmax on (8,16,512,512) f32 along the last axis.
  3. Layernorm forward+backward on (8192,1024): value_and_grad of
     ``sum(layernorm(x, w, b) * g)`` wrt x, w, b (g is passed in, not differentiated).
  4. MLP training step 784-1024-1024-10, batch 256: value_and_grad of softmax
     cross-entropy with relu hidden layers plus the SGD update, all in one jit.
  5. The SVM-style block at n = 4e6 (two reductions over a masked elementwise body).
  6. ``sum(X * log(U @ V.T + 1e-15))``, X 2000x2000, U, V 2000x50.
  7. jit dispatch overhead of ``x*2+1`` on 100 f32 (µs).
  8. First-call compile time of a 10-op elementwise function in a fresh process with an
     empty cache folder, and the warm disk-cache start (a second fresh process).
  9. A new batch size for ``jit(f, polymorphic_shapes=["(b, 128)"])``: the first-call
     time at b = 33, 34, ... and how many kernels that compiled (should be none).
 10. Control flow: an RNN as ``lax.scan`` (two dots and a tanh per step, T=200, batch
     64, 256 units), a 100-step ``fori_loop`` over 1e6 floats, a 10000-step loop on a
     scalar and 200 SGD steps of a 16-32-1 MLP in one ``fori_loop`` (the last two run by
     the native loop driver); NumPy runs a Python loop; the note gives the reference
     interpreter's time for the same jit.
"""

import argparse
import collections
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import llvmlite.binding as llvm
import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.devices import kernel_cache
from tjit.lower.llvm import target

try:
    import jax
    import jax.numpy as jjnp
except ImportError:  # JAX is optional (pip install -e .[bench])
    jax = jjnp = None

PAPER_BANDWIDTH = 15e9  # bytes/s, PERF_NOTES.md's figure, used if measuring fails


class Row:
    """One line of the result table (times in ``unit``; None: not measured)."""

    def __init__(self, name, unit="ms"):
        self.name, self.unit = name, unit
        self.tjit = self.numpy = self.jax = None
        self.note = ""


MISMATCHES = []   # lines printed under the table
FAILURES = []


# ----------------------------------------------------------------------------- helpers

#: Pause before each timing, so the previous library's idle threads (OpenBLAS's and
#: XLA's pools spin for a while after their last job) have gone to sleep and do not
#: compete for the 2 cores with the library being timed.
SETTLE_S = 0.3


def _seconds(fn, repeat, warmup):
    """Wall times of ``repeat`` runs of ``fn()`` after a settle pause and ``warmup``
    untimed runs."""
    time.sleep(SETTLE_S)
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return ts


def median_ms(fn, repeat, warmup=2):
    """Median wall time of ``fn()`` in ms over ``repeat`` runs after ``warmup`` runs."""
    return statistics.median(_seconds(fn, repeat, warmup)) * 1e3


def paired_ms(fns, rounds, per_round=5, warmup=2):
    """{name: ms} for libraries timed in alternation: each round runs every function
    (after the settle pause and ``warmup`` calls) ``per_round`` times; a library's time
    is the median of its round medians. For rows close to parity: on a shared machine
    the speed drifts over seconds, and alternating keeps both sides in the same
    conditions."""
    meds = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            meds[name].append(statistics.median(_seconds(fn, per_round, warmup)))
    return {name: statistics.median(m) * 1e3 for name, m in meds.items()}


def leaves_np(tree):
    """The leaves of a tjit/JAX/NumPy result as float64 NumPy arrays (for checking)."""
    if isinstance(tree, (tuple, list)):
        return [a for t in tree for a in leaves_np(t)]
    if isinstance(tree, dict):
        return [a for k in sorted(tree) for a in leaves_np(tree[k])]
    return [np.asarray(tree, np.float64)]


def check(label, who, got, want, rtol, scales=None):
    """Record a mismatch unless every leaf of ``got`` is close to ``want``.

    The absolute tolerance of leaf i is ``rtol * scales[i]`` (default: max |want[i]|),
    so sums with cancellation are judged against the size of their terms."""
    got, want = leaves_np(got), leaves_np(want)
    if len(got) != len(want):
        MISMATCHES.append(f"{label} [{who}]: {len(got)} outputs, reference has {len(want)}")
        return False
    ok = True
    for i, (g, w) in enumerate(zip(got, want)):
        scale = scales[i] if scales and scales[i] is not None else (
            float(np.max(np.abs(w))) if w.size else 1.0)
        if g.shape != w.shape:
            MISMATCHES.append(f"{label} [{who}] output {i}: shape {g.shape}, want {w.shape}")
            ok = False
        elif not np.allclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=False):
            err = np.abs(g - w)
            MISMATCHES.append(
                f"{label} [{who}] output {i}: max abs err {np.nanmax(err):.3g} "
                f"(tolerance {rtol:g} x {scale:.3g}), {int(np.sum(~np.isfinite(g)))} "
                f"non-finite, max |ref| {np.max(np.abs(w)):.3g}")
            ok = False
    return ok


def plan_note(jitted, args):
    """'2 kernels + 1 dot': what tjit's compiled program runs per call."""
    summary = jitted.lower(*args).compile().fusion_summary()
    counts = collections.Counter(kind for kind, _ in summary)
    return " + ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(counts.items()))


def fail(row, label, err):
    msg = f"{type(err).__name__}: {err}".splitlines()[0][:300]
    FAILURES.append(f"{label}: {msg}")
    row.note = "tjit FAILED (see below)"


def bench_arrays(label, tj_fn, np_fn, jx_fn, args, cfg, rtol=1e-4, scales=None, note=""):
    """Check and time one array case. ``tj_fn`` is tjit.jit-ed; ``jx_fn`` is plain JAX
    code (jitted here); ``np_fn`` is the NumPy reference; all take ``args``."""
    row = Row(label)
    want = np_fn(*args)
    t_args = [jnp.asarray(a) for a in args]
    try:
        got = tj_fn(*t_args)
        check(label, "tjit", got, want, rtol, scales)
        row.tjit = median_ms(lambda: tj_fn(*t_args), cfg.repeat)
        row.note = plan_note(tj_fn, t_args)
    except Exception as err:  # noqa: BLE001 -- report and go on with the other columns
        fail(row, label, err)
    row.numpy = median_ms(lambda: np_fn(*args), cfg.repeat, warmup=1)
    if jax is not None:
        jf = jax.jit(jx_fn)
        j_args = [jax.device_put(a) for a in args]
        check(label, "jax", jax.block_until_ready(jf(*j_args)), want, rtol, scales)
        row.jax = median_ms(lambda: jax.block_until_ready(jf(*j_args)), cfg.repeat)
    if note:
        row.note = f"{row.note}; {note}" if row.note else note
    return row


def host_description():
    """'znver3, no AVX-512': the CPU LLVM compiles for (PERF_NOTES.md's numbers were
    taken on an AVX-512 host, where tjit prefers 512-bit vectors)."""
    avx512 = "AVX-512 (512-bit vectors)" if target.prefers_512() else "no AVX-512"
    return f"{llvm.get_host_cpu_name()}, {avx512}"


def copy_bandwidth(cfg):
    """Bytes/s of a large single-threaded np.copyto (read + write counted)."""
    src = np.ones(cfg.copy_elems, np.float32)
    dst = np.empty_like(src)
    ms = median_ms(lambda: np.copyto(dst, src), 9)
    return 2 * src.nbytes / (ms * 1e-3)


# --------------------------------------------------------------------- cases 1 and 2

def _mish(mod):
    return lambda x: x * mod.tanh(mod.log1p(mod.exp(x)))


def _np_mish_grad(x):
    e = np.exp(x)
    t = np.tanh(np.log1p(e))
    return t + x * (1 - t * t) * (e / (1 + e))


def case_mish(cfg, bandwidth, bw_source):
    x = (np.random.default_rng(0).standard_normal(cfg.mish_shape) * 3).astype(np.float32)
    bound_ms = 2 * x.nbytes / bandwidth * 1e3
    bound = f"bound {bound_ms:.1f} ms at {bandwidth / 1e9:.1f} GB/s ({bw_source})"
    shape = "x".join(map(str, x.shape))
    fwd = bench_arrays(f"1a Mish fwd {shape}", tjit.jit(_mish(jnp)), _mish(np),
                       _mish(jjnp) if jax else None, [x], cfg, note=bound)
    tj_grad = tjit.jit(tjit.grad(lambda v: jnp.sum(_mish(jnp)(v))))
    jx_grad = jax.grad(lambda v: jjnp.sum(_mish(jjnp)(v))) if jax else None
    bwd = bench_arrays("1b Mish jit(grad(sum(mish)))", tj_grad, _np_mish_grad, jx_grad,
                       [x], cfg, note=bound)
    return [fwd, bwd]


def _softmax(mod):
    def softmax(x):
        e = mod.exp(x - mod.max(x, axis=-1, keepdims=True))
        return e / mod.sum(e, axis=-1, keepdims=True)
    return softmax


def case_softmax(cfg):
    x = np.random.default_rng(1).standard_normal(cfg.softmax_shape).astype(np.float32)
    label = f"2  row softmax {tuple(x.shape)}"
    return [bench_arrays(label, tjit.jit(_softmax(jnp)), _softmax(np),
                         _softmax(jjnp) if jax else None, [x], cfg)]


# ------------------------------------------------------------------------ case 3

EPS = 1e-5


def _layernorm_loss(mod):
    def loss(x, w, b, g):
        mu = mod.mean(x, axis=-1, keepdims=True)
        xc = x - mu
        var = mod.mean(xc * xc, axis=-1, keepdims=True)
        y = xc / mod.sqrt(var + EPS) * w + b
        return mod.sum(y * g)
    return loss


def _np_layernorm_vg(x, w, b, g):
    """Hand-written forward and backward of sum(layernorm(x, w, b) * g)."""
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = 1 / np.sqrt((xc * xc).mean(-1, keepdims=True) + EPS)
    xhat = xc * rstd
    value = np.sum((xhat * w + b) * g)
    dw = np.sum(g * xhat, axis=0)
    db = np.sum(g, axis=0)
    dxhat = g * w
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return [value, dx, dw, db]


def case_layernorm(cfg):
    rng = np.random.default_rng(2)
    n, d = cfg.ln_shape
    x = (rng.standard_normal((n, d)) * 2 + 0.5).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    b = (0.1 * rng.standard_normal(d)).astype(np.float32)
    g = rng.standard_normal((n, d)).astype(np.float32)
    # the loss is a sum with cancellation: judge it against the size of its terms
    terms = np.abs(g).astype(np.float64) * (np.abs(w) * 3 + np.abs(b))
    scales = [float(terms.sum()), None, None, None]
    tj = tjit.jit(tjit.value_and_grad(_layernorm_loss(jnp), argnums=(0, 1, 2)))
    jx = jax.value_and_grad(_layernorm_loss(jjnp), argnums=(0, 1, 2)) if jax else None
    return [bench_arrays(f"3  layernorm fwd+bwd ({n},{d})", tj, _np_layernorm_vg, jx,
                         [x, w, b, g], cfg, rtol=1e-3, scales=scales)]


# ------------------------------------------------------------------------ case 4

LR = 0.01


def _mlp_step(mod, value_and_grad):
    def loss(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = mod.maximum(h, 0.0)
        m = mod.max(h, axis=1, keepdims=True)
        logp = h - m - mod.log(mod.sum(mod.exp(h - m), axis=1, keepdims=True))
        return -mod.mean(mod.sum(y * logp, axis=1))

    def step(params, x, y):
        value, grads = value_and_grad(loss)(params, x, y)
        return value, [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(params, grads)]
    return step


def _np_mlp_step(params, x, y):
    """Hand-written forward, backward and SGD update of the MLP step."""
    acts, h = [x], x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = np.maximum(h, 0)
            acts.append(h)
    z = h - h.max(1, keepdims=True)
    e = np.exp(z)
    s = e.sum(1, keepdims=True)
    loss = -np.mean(np.sum(y * (z - np.log(s)), axis=1))
    dz = (e / s * y.sum(1, keepdims=True) - y) / x.shape[0]
    new = [None] * len(params)
    for i in reversed(range(len(params))):
        w, b = params[i]
        dw, db = acts[i].T @ dz, dz.sum(0)
        if i:
            dz = (dz @ w.T) * (acts[i] > 0)
        new[i] = (w - LR * dw, b - LR * db)
    return [loss, new]


def case_mlp(cfg):
    rng = np.random.default_rng(3)
    sizes = [784, 1024, 1024, 10]
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
               (0.01 * rng.standard_normal(n)).astype(np.float32))
              for m, n in itertools.pairwise(sizes)]
    bsz = cfg.mlp_batch
    x = rng.standard_normal((bsz, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, bsz)]
    row = Row(f"4  MLP step 784-1024-1024-10, batch {bsz}")
    want = _np_mlp_step(params, x, y)
    tj = tjit.jit(_mlp_step(jnp, tjit.value_and_grad))
    t_params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    t_x, t_y = jnp.asarray(x), jnp.asarray(y)
    fns = {}
    try:
        check(row.name, "tjit", tj(t_params, t_x, t_y), want, 1e-3)
        fns["tjit"] = lambda: tj(t_params, t_x, t_y)
        row.note = plan_note(tj, (t_params, t_x, t_y))
    except Exception as err:  # noqa: BLE001
        fail(row, row.name, err)
    row.numpy = median_ms(lambda: _np_mlp_step(params, x, y), cfg.repeat, warmup=1)
    if jax is not None:
        jf = jax.jit(_mlp_step(jjnp, jax.value_and_grad))
        j_params = jax.device_put(params)
        j_x, j_y = jax.device_put(x), jax.device_put(y)
        check(row.name, "jax", jf(j_params, j_x, j_y), want, 1e-3)
        fns["jax"] = lambda: jax.block_until_ready(jf(j_params, j_x, j_y))
    _set_paired(row, fns, cfg)
    return [row, _mlp_loop_row(cfg, params, x, y)]


def _set_paired(row, fns, cfg):
    """tjit and JAX timed in alternating rounds (``paired_ms``)."""
    if fns:
        times = paired_ms(fns, cfg.rounds)
        row.tjit, row.jax = times.get("tjit"), times.get("jax")
        row.note = (row.note + "; " if row.note else "") + \
            f"tjit and jax alternated, median of {cfg.rounds} rounds"


def _mlp_loop_row(cfg, params, x, y):
    """4b: the step as a training loop uses it, params donated and fed back (each call
    may update the weights in place)."""
    row = Row("4b MLP step, params donated (a training loop)")
    want = _np_mlp_step(params, x, y)
    fns = {}

    def looped(step, to_device):
        state = [to_device(params)]

        def one():
            state[0] = step(state[0], x_d, y_d)[1]
            return state[0]
        x_d, y_d = to_device(x), to_device(y)
        return one
    try:
        tj = tjit.jit(_mlp_step(jnp, tjit.value_and_grad), donate_argnums=0)
        check(row.name, "tjit", tj([(jnp.asarray(w), jnp.asarray(b)) for w, b in params],
                                  jnp.asarray(x), jnp.asarray(y)), want, 1e-3)
        fns["tjit"] = looped(tj, lambda t: tjit.tree_util.tree_map(jnp.asarray, t))
    except Exception as err:  # noqa: BLE001
        fail(row, row.name, err)
    if jax is not None:
        jf = jax.jit(_mlp_step(jjnp, jax.value_and_grad), donate_argnums=0)
        check(row.name, "jax", jf(jax.device_put(params), jax.device_put(x),
                                  jax.device_put(y)), want, 1e-3)
        j_one = looped(jf, jax.device_put)
        fns["jax"] = lambda: jax.block_until_ready(j_one())
    _set_paired(row, fns, cfg)
    return row


# --------------------------------------------------------------------- cases 5 and 6

def _block(mod):
    def block(xw, xd, y, wd, dd, s):
        out = 1 - y * (xw + s * xd)
        sv = out > 0
        out = out * sv
        g = wd + s * dd - mod.sum(out * y * xd)
        h = dd + mod.sum(xd * sv * xd)
        return g, h
    return block


def case_block(cfg):
    rng = np.random.default_rng(4)
    n = cfg.block_n
    xw = rng.standard_normal(n).astype(np.float32)
    xd = rng.standard_normal(n).astype(np.float32)
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)
    scalars = [np.float32(0.3), np.float32(1.7), np.float32(0.05)]
    args = [xw, xd, y] + scalars
    body = np.abs(1 - y * (xw + scalars[2] * xd)).astype(np.float64)
    scales = [float(np.sum(body * np.abs(xd))) + 1, float(np.sum(xd.astype(np.float64) ** 2))]
    return [bench_arrays(f"5  block n={n:.3g}", tjit.jit(_block(jnp)), _block(np),
                         _block(jjnp) if jax else None, args, cfg, scales=scales)]


def _log_lik(mod):
    return lambda x, u, v: mod.sum(x * mod.log(u @ v.T + 1e-15))


def case_log_lik(cfg):
    rng = np.random.default_rng(5)
    m, k = cfg.ll_n, 50
    x = rng.random((m, m)).astype(np.float32)
    u = rng.random((m, k)).astype(np.float32)
    v = rng.random((m, k)).astype(np.float32)
    scale = float(np.sum(np.abs(x * np.log(u.astype(np.float64) @ v.T + 1e-15))))
    return [bench_arrays(f"6  sum(X*log(U@V.T+1e-15)) {m}x{m}, k={k}", tjit.jit(_log_lik(jnp)),
                         _log_lik(np), _log_lik(jjnp) if jax else None, [x, u, v], cfg,
                         scales=[scale])]


# ------------------------------------------------------------------------ case 7

def _median_us(fn, number, repeat=7):
    fn()
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def case_dispatch(cfg):
    row = Row("7  jit dispatch, x*2+1 on 100 f32", "µs")
    x = np.linspace(-1, 1, 100, dtype=np.float32)
    t_x = jnp.asarray(x)
    f = tjit.jit(lambda v: v * 2 + 1)
    try:
        check(row.name, "tjit", f(t_x), x * 2 + 1, 1e-6)
        row.tjit = _median_us(lambda: f(t_x), cfg.dispatch_number)
        row.note = plan_note(f, [t_x])
    except Exception as err:  # noqa: BLE001
        fail(row, row.name, err)
    row.numpy = _median_us(lambda: x * 2 + 1, cfg.dispatch_number)
    if jax is not None:
        jf = jax.jit(lambda v: v * 2 + 1)
        j_x = jax.device_put(x)
        row.jax = _median_us(lambda: jf(j_x).block_until_ready(), cfg.dispatch_number // 4)
    row.note = (row.note + "; " if row.note else "") + "numpy column: eager x*2+1"
    return [row]


# ------------------------------------------------------------------------ case 8

_FIRST_CALL = """
import json, sys, time
import numpy as np
LIB = sys.argv[1]
t_import = time.perf_counter()
if LIB == "tjit":
    import tjit as lib, tjit.numpy as np_
    from tjit.devices import kernel_cache
else:
    import jax as lib, jax.numpy as np_
import_ms = (time.perf_counter() - t_import) * 1e3

def f(x):
    y = x * 1.5 + 0.25                      # 2
    y = np_.tanh(y) * x                     # 4
    y = np_.exp(-y * y)                     # 7 (neg, mul, exp)
    y = np_.maximum(y, 0.1) - x             # 9
    return np_.sqrt(y * y + 1.0)            # 10 (+ mul, add: 12 in all)

x = np_.asarray(np.linspace(-2, 2, 4096, dtype=np.float32))
jf = lib.jit(f)
t0 = time.perf_counter()
out = jf(x)
if LIB == "jax":
    out.block_until_ready()
ms = (time.perf_counter() - t0) * 1e3
stats = dict(kernel_cache.STATS) if LIB == "tjit" else {}
print(json.dumps({"ms": ms, "stats": stats, "import_ms": import_ms}))
"""


def _first_call(lib, cache_dir):
    env = dict(os.environ)
    env["TJIT_CACHE_DIR"] = cache_dir
    env["JAX_COMPILATION_CACHE_DIR"] = cache_dir
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
    proc = subprocess.run([sys.executable, "-c", _FIRST_CALL, lib], check=False, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode:
        raise RuntimeError(f"{lib} subprocess failed: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


IMPORT_MS = {}   # library -> median time of its import statement in the child


def _byte_compile_tjit():
    """Write tjit's .pyc files, as a regular (non-editable) pip install does: with an
    editable install under PYTHONDONTWRITEBYTECODE=1 every fresh process would compile
    the modules it imports lazily at the first jit call from source (~5 ms here), a cost
    JAX, installed normally, does not pay."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.dirname(tjit.__file__)],
                   check=False, capture_output=True, timeout=600)


def _cold_warm(lib, runs):
    """Medians of (cold first call, warm-disk-cache first call) over ``runs`` fresh
    cache folders, and the tjit kernel-cache counters of the last cold and warm runs."""
    if lib == "tjit":
        _byte_compile_tjit()
    cold, warm, imports = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix=f"bench_cpu_{lib}_") as d:
            c = _first_call(lib, d)
            w = _first_call(lib, d)
        cold.append(c["ms"])
        warm.append(w["ms"])
        imports.append(w["import_ms"])
    IMPORT_MS[lib] = statistics.median(imports)
    return statistics.median(cold), statistics.median(warm), c["stats"], w["stats"]


def case_compile(cfg):
    cold = Row("8a first call, 10-op elementwise, cold")
    warm = Row("8b first call, warm disk cache")
    try:
        cold.tjit, warm.tjit, c_stats, w_stats = _cold_warm("tjit", cfg.compile_runs)
        cold.note = (f"{c_stats['compiled']} kernel(s) compiled, "
                     f"LLVM {c_stats['compile_seconds'] * 1e3:.0f} ms")
        warm.note = f"{w_stats['disk_hits']} disk hit(s), {w_stats['compiled']} compiled"
    except Exception as err:  # noqa: BLE001
        fail(cold, cold.name, err)
    if jax is not None:
        cold.jax, warm.jax, _, _ = _cold_warm("jax", cfg.compile_runs)
        warm.note += ("; " if warm.note else "") + "jax: its persistent compilation cache"
    warm.note += "; import (not timed above): " + ", ".join(
        f"{lib} {ms:.0f} ms" for lib, ms in IMPORT_MS.items())
    suffix = f"; fresh process each, median of {cfg.compile_runs}"
    cold.note += suffix
    return [cold, warm]


# ------------------------------------------------------------------------ case 9

def _poly_f(mod):
    def f(x):
        e = mod.exp(x - mod.max(x, axis=1, keepdims=True))
        return e / mod.sum(e, axis=1, keepdims=True) * 2.0 + x
    return f


def _first_calls(fn, sizes, make):
    ts = []
    for b in sizes:
        x = make(b)
        t0 = time.perf_counter()
        out = fn(x)
        if hasattr(out, "block_until_ready"):
            out.block_until_ready()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def case_polymorphic(cfg):
    row = Row("9  polymorphic jit, first call at new b")
    sizes = list(range(33, 33 + cfg.poly_sizes))
    rng = np.random.default_rng(6)
    data = {b: rng.standard_normal((b, 128)).astype(np.float32) for b in [32] + sizes}
    f = tjit.jit(_poly_f(jnp), polymorphic_shapes=["(b, 128)"])
    try:
        s0 = dict(kernel_cache.STATS)
        t0 = time.perf_counter()
        check(row.name, "tjit", f(jnp.asarray(data[32])), _poly_f(np)(data[32]), 1e-5)
        first_ms = (time.perf_counter() - t0) * 1e3
        s1 = dict(kernel_cache.STATS)
        row.tjit = _first_calls(f, sizes, lambda b: jnp.asarray(data[b]))
        s2 = dict(kernel_cache.STATS)
        for b in sizes[:3]:
            check(row.name, f"tjit b={b}", f(jnp.asarray(data[b])), _poly_f(np)(data[b]), 1e-5)
        row.note = (f"b=32: {first_ms:.0f} ms, {s1['compiled'] - s0['compiled']} compiled + "
                    f"{s1['disk_hits'] - s0['disk_hits']} disk hits; {len(sizes)} new sizes: "
                    f"{s2['compiled'] - s1['compiled']} compiled, "
                    f"{s2['disk_hits'] - s1['disk_hits']} disk hits, traces {f.trace_count}")
    except Exception as err:  # noqa: BLE001
        fail(row, row.name, err)
    if jax is not None:
        jf = jax.jit(_poly_f(jjnp))
        jax.block_until_ready(jf(data[32]))
        row.jax = _first_calls(jf, sizes, lambda b: jax.device_put(data[b]))
        row.note += "; jax: retrace+compile per shape"
    return [row]


# ----------------------------------------------------------------------- case 10

def _rnn(mod, scan):
    def rnn(wx, wh, xs):
        def step(h, x):
            h = mod.tanh(x @ wx + h @ wh)
            return h, mod.sum(h * h, axis=1)
        return scan(step, mod.zeros((xs.shape[1], wh.shape[0]), xs.dtype), xs)
    return rnn


def _np_scan(f, init, xs):
    carry, ys = init, []
    for x in xs:
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys)


def _relax(mod, fori_loop):
    return lambda x: fori_loop(0, 100, lambda i, v: v - 0.01 * mod.tanh(v) * (1.0 + 0.001 * i), x)


def _logistic_map(fori_loop):
    return lambda x: fori_loop(0, 10000, lambda i, v: 3.7 * v * (1.0 - v) * 0.5 + 0.25, x)


def _branchy_map(mod, lax_mod):
    """10,000 steps that pick one of two updates by the step number (a cond per step)."""
    return lambda x: lax_mod.fori_loop(0, 10000, lambda i, v: lax_mod.cond(
        i % 3 == 0, lambda v: v * 0.5 + 1.0, lambda v: v - 0.25, v), x)


def _np_branchy_map(x):
    for i in range(10000):
        x = x * np.float32(0.5) + np.float32(1.0) if i % 3 == 0 else x - np.float32(0.25)
    return x


def _sgd_loop(mod, fori_loop, grad):
    """200 SGD steps of a 16-32-1 tanh MLP on 128 examples, as one fori_loop."""
    def loss(p, x, y):
        return mod.mean((mod.tanh(x @ p[0] + p[1]) @ p[2] - y) ** 2)

    def train(w1, b1, w2, x, y):
        step = lambda i, p: [a - 0.05 * g for a, g in zip(p, grad(loss)(p, x, y))]  # noqa
        return fori_loop(0, 200, step, [w1, b1, w2])
    return train


def _np_sgd_loop(w1, b1, w2, x, y):
    """The same 200 steps with hand-written backprop."""
    for _ in range(200):
        h = np.tanh(x @ w1 + b1)
        d = 2 * (h @ w2 - y) / y.size
        dh = (d @ w2.T) * (1 - h * h)
        w1, b1, w2 = w1 - 0.05 * (x.T @ dh), b1 - 0.05 * dh.sum(0), w2 - 0.05 * (h.T @ d)
    return [w1, b1, w2]


def _np_fori(lo, hi, body, x):
    for i in range(lo, hi):
        x = body(i, x)
    return x


def case_control_flow(cfg):
    """Loops whose bodies run as compiled sub-programs; the note gives the time of the
    reference interpreter (bodies interpreted equation by equation) for comparison."""
    rng = np.random.default_rng(8)
    t, b, h = cfg.rnn_shape
    wx = (rng.standard_normal((h, h)) / np.sqrt(h)).astype(np.float32)
    wh = (rng.standard_normal((h, h)) / np.sqrt(h)).astype(np.float32)
    xs = rng.standard_normal((t, b, h)).astype(np.float32)
    x = rng.standard_normal(cfg.relax_n).astype(np.float32)
    sgd_args = [(rng.standard_normal((16, 32)) * 0.3).astype(np.float32),
                np.zeros(32, np.float32), (rng.standard_normal((32, 1)) * 0.3).astype(np.float32),
                rng.standard_normal((128, 16)).astype(np.float32),
                rng.standard_normal((128, 1)).astype(np.float32)]
    rows = []
    for label, make, np_fn, args in (
            (f"10a lax.scan RNN T={t}, batch {b}, {h} units", lambda m, lx: _rnn(m, lx.scan),
             _rnn(np, _np_scan), [wx, wh, xs]),
            (f"10b fori_loop x100, {cfg.relax_n:.0e} f32", lambda m, lx: _relax(m, lx.fori_loop),
             _relax(np, _np_fori), [x]),
            ("10c fori_loop x10000 on a scalar",
             lambda m, lx: _logistic_map(lx.fori_loop), _logistic_map(_np_fori),
             [np.float32(0.3)]),
            ("10d fori_loop: 200 SGD steps, small MLP",
             lambda m, lx: _sgd_loop(m, lx.fori_loop, tjit.grad if m is jnp else jax.grad),
             _np_sgd_loop, sgd_args),
            ("10e fori_loop x10000 with a cond per step", _branchy_map, _np_branchy_map,
             [np.linspace(-1, 1, 8).astype(np.float32)])):
        interp = tjit.jit(make(jnp, tjit.lax), backend="interpreter")
        t_args = [jnp.asarray(a) for a in args]
        interp_ms = median_ms(lambda: interp(*t_args), max(3, cfg.repeat // 2), warmup=1)
        rows.append(bench_arrays(label, tjit.jit(make(jnp, tjit.lax)), np_fn,
                                 make(jjnp, jax.lax) if jax else None, args, cfg, rtol=1e-4,
                                 note=f"interpreted bodies {interp_ms:.1f} ms"))
    return rows


# ----------------------------------------------------------------------- case 11

def _embed(mod):
    return lambda e, t, c: e[t] * c


def _embed_grad(mod, grad):
    return grad(lambda e, t, c: mod.sum(e[t] * c))


def _np_embed_grad(e, t, c):
    g = np.zeros_like(e)
    np.add.at(g, t.reshape(-1), c.reshape(-1, e.shape[1]))
    return g


def case_embedding(cfg):
    """An embedding table lookup and its gradient (a scatter-add of rows into zeros)."""
    rng = np.random.default_rng(11)
    (vocab, dim), tokens = cfg.embed_shape, cfg.embed_tokens
    e = rng.standard_normal((vocab, dim)).astype(np.float32)
    t = rng.integers(0, vocab, tokens).astype(np.int32)
    c = rng.standard_normal(tokens + (dim,)).astype(np.float32)
    label = f"{vocab}x{dim} table, {tokens[0]}x{tokens[1]} tokens"
    return [bench_arrays(f"11a embedding lookup e[t]*c, {label}", tjit.jit(_embed(jnp)),
                         lambda e, t, c: e[t] * c, _embed(jjnp) if jax else None, [e, t, c],
                         cfg),
            bench_arrays("11b its gradient (scatter-add of rows)",
                         tjit.jit(_embed_grad(jnp, tjit.grad)), _np_embed_grad,
                         _embed_grad(jjnp, jax.grad) if jax else None, [e, t, c], cfg)]


# ------------------------------------------------------------------------- driver

def config(quick):
    """Sizes and repeat counts; ``quick`` divides array sizes by ~16."""
    full = {"mish_shape": (8, 32, 224, 224), "softmax_shape": (8, 16, 512, 512),
            "ln_shape": (8192, 1024), "mlp_batch": 256, "block_n": 4_000_000, "ll_n": 2000,
            "repeat": 7, "rounds": 15, "dispatch_number": 20000, "compile_runs": 3,
            "poly_sizes": 20,
            "copy_elems": 8 * 32 * 224 * 224, "rnn_shape": (200, 64, 256),
            "embed_shape": (50_000, 512), "embed_tokens": (64, 128),
            "relax_n": 1_000_000}
    if quick:
        full.update(mish_shape=(8, 2, 224, 224), softmax_shape=(8, 1, 512, 512),
                    ln_shape=(512, 1024), mlp_batch=16, block_n=250_000, ll_n=500,
                    repeat=3, rounds=3, dispatch_number=2000, compile_runs=1, poly_sizes=5,
                    rnn_shape=(50, 16, 128), relax_n=100_000, embed_shape=(5000, 64),
                    embed_tokens=(16, 32))
    return argparse.Namespace(**full)


def fmt(v, width=9):
    return f"{'-':>{width}s}" if v is None else f"{v:{width}.2f}"


def ratio(a, b):
    return f"{'-':>8s}" if a is None or b is None else f"{a / b:8.2f}"


def print_table(rows):
    """The result table; the JAX columns only when JAX is importable."""
    head = f"{'case':44s} {'unit':4s} {'tjit':>9s} {'numpy':>9s} "
    head += f"{'jax':>9s} {'tjit/np':>8s} {'tjit/jax':>8s}" if jax else f"{'tjit/np':>8s}"
    print(head + "  notes")
    print("-" * (len(head) + 40))
    for r in rows:
        line = f"{r.name:44s} {r.unit:4s} {fmt(r.tjit)} {fmt(r.numpy)} "
        if jax:
            line += f"{fmt(r.jax)} {ratio(r.tjit, r.numpy)} {ratio(r.tjit, r.jax)}"
        else:
            line += ratio(r.tjit, r.numpy)
        print(f"{line}  {r.note}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="~16x smaller arrays")
    parser.add_argument("--cases", default="", help="comma-separated case numbers (1-10); "
                        "default: all")
    args = parser.parse_args(argv)
    cfg = config(args.quick)
    cfg.cases = {int(c) for c in args.cases.split(",") if c.strip()}
    # A private, empty kernel cache: every in-process first call really compiles (case 9
    # reports it) and the user's cache is left alone.
    with tempfile.TemporaryDirectory(prefix="bench_cpu_cache_") as cache_dir:
        os.environ["TJIT_CACHE_DIR"] = cache_dir
        run_all(cfg)


def run_all(cfg):
    print(f"tjit {tjit.__version__}, numpy {np.__version__}, "
          + (f"jax {jax.__version__}" if jax else "jax not installed (column skipped)")
          + f"; {platform.machine()} {host_description()}, {os.cpu_count()} CPUs, load average "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    try:
        bandwidth, bw_source = copy_bandwidth(cfg), "measured np.copyto"
    except MemoryError:
        bandwidth, bw_source = PAPER_BANDWIDTH, "PERF_NOTES figure"
    print(f"copy bandwidth: {bandwidth / 1e9:.1f} GB/s ({bw_source}, 1 thread, "
          f"{cfg.copy_elems * 4 / 1e6:.0f} MB, read+write counted)\n")
    rows = []
    cases = [lambda: case_mish(cfg, bandwidth, bw_source), lambda: case_softmax(cfg),
             lambda: case_layernorm(cfg), lambda: case_mlp(cfg), lambda: case_block(cfg),
             lambda: case_log_lik(cfg), lambda: case_dispatch(cfg),
             lambda: case_compile(cfg), lambda: case_polymorphic(cfg),
             lambda: case_control_flow(cfg), lambda: case_embedding(cfg)]
    sys.stdout.flush()
    for number, case in enumerate(cases, 1):
        if cfg.cases and number not in cfg.cases:
            continue
        new = case()
        rows.extend(new)
        for r in new:
            print(f"  done: {r.name}", file=sys.stderr, flush=True)
    print_table(rows)
    print("load average at the end: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    for line in MISMATCHES:
        print("MISMATCH", line)
    for line in FAILURES:
        print("FAILED", line)
    if not MISMATCHES and not FAILURES:
        print("all tjit results agree with NumPy")


if __name__ == "__main__":
    main()
