"""Steady-state time of the CPU plan's dot folds, beside JAX (when installed).

    python benchmarks/bench_dot_folds.py [--rounds 5] [--repeat 20] [--cases a,b]

Cases (float32):
  scale_lhs      (2 * x) @ w               x 8192x32, w 32x32: scale folded into alpha
  scale_rhs      x @ (w / 3)
  neg_result     -(x @ w)                   (folded before too: the baseline of a fold)
  reshape_arg    x.reshape(-1, 64) @ w      x 512x64x64 (8 MB), w 64x16: the argument
                                            viewed, not copied
  reshape_prod   (x @ w).reshape(...) @ v   the product written as the reshaped value
  flip_add       jnp.flip(x, 0) * 2 + 1     x 2048x1024: rev fused into the kernel
  conv_grad      grad of a 3x3 conv (NHWC, batch 8, 32x32x16 -> 32) wrt input and
                 weight: im2col reshapes, the flipped kernel
  sgd_lr         w - lr * (x.T @ g)         x, g 32x1024, w 1024x1024, lr a traced
                                            argument: alpha read at each call
  scaled_by_n    (x.T @ g) / x.shape[0]     the same product under polymorphic_shapes
                                            ("n, 1024"): alpha 1/n set when n is bound

Each case prints its step counts (kernels / dots / library steps of the compiled
plan), checks tjit's result against the reference interpreter (``backend=
"interpreter"``) and JAX's, and times both libraries alternately (``--rounds``
rounds of ``--repeat`` calls; the row is the median of the per-round medians).
Not a test: nothing here asserts a time.

Measured on the 2-core shared machine at load average 13-15 (JAX 0.10.2): "before" is
the tree before the operand-scale fold, the reshape-copy drops/argument views and the
rev lowering, run alternately with "after" in separate processes, two runs each
(``--rounds 5 --repeat 10``); tjit ms per run, steps as kernels/dots/library steps:

  case          before                    after                   JAX (all 4 runs)
  scale_lhs     1k/1d  0.259 0.249        0k/1d  0.225 0.224      0.43-0.59
  scale_rhs     1k/1d  0.284 0.228        0k/1d  0.224 0.222      0.30-0.43
  neg_result    0k/1d  0.229 0.222        0k/1d  0.223 0.220      0.38-0.62 (no change)
  reshape_arg   1k/1d  2.700 1.739        0k/1d  0.963 0.986      2.0-10.7
  reshape_prod  1k/2d  0.346 0.340        0k/2d  0.313 0.314      0.39-0.80
  flip_add      1k/1l  2.514 1.474        1k     0.607 0.675      0.64-2.95
  conv_grad     12k/3d/1l 28.1 27.6       8k/3d  25.5 21.0        3.4-14.0

Run-time scalars in alpha (the same way, alternating runs of the tree before and after,
``--rounds 7 --repeat 20``, load average 10-14; before: the fold took constants only and a
size used as a value was a kernel summing ones; scaled_by_n's "after" includes the spec
parse that jit no longer repeats per call, ~0.3 ms of the before):

  sgd_lr        1k/1d  0.458 0.420 0.424  0k/1d  0.364 0.393 0.336  0.58-3.1 (median 0.83)
  scaled_by_n   2k/1d  1.105 1.029        0k/1d  0.323 0.331        0.72-0.78

The scale folds save a pass over a 1 MB operand (about 10% of these small products);
the argument view saves an 8 MB copy; the flip no longer runs as a NumPy library step
before its kernel. conv_grad's wall time at this load is mostly its gemms and gathers
waiting in the thread pool (the steps add up to ~4.5 ms when timed one by one).
"""

import argparse
import collections
import os
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tnp
from tjit import lax as tlax

try:
    import jax
    import jax.numpy as jnp_jax
    from jax import lax as jlax
except ImportError:     # (tjit only)
    jax = None


def _cases(jnp, lax):
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    x, w = f32(8192, 32), f32(32, 32)

    def conv_loss(x, k):
        y = lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.tanh(y))
    return {
        "scale_lhs": (lambda x, w: (2 * x) @ w, (x, w)),
        "scale_rhs": (lambda x, w: x @ (w / 3), (x, w)),
        "neg_result": (lambda x, w: -(x @ w), (x, w)),
        "reshape_arg": (lambda x, w: x.reshape(-1, 64) @ w, (f32(512, 64, 64), f32(64, 16))),
        "reshape_prod": (lambda x, w, v: (x @ w).reshape(64, 128, 32) @ v,
                         (x, w, f32(64, 32, 16))),
        "flip_add": (lambda x: jnp.flip(x, 0) * 2 + 1, (f32(2048, 1024),)),
        "conv_grad": (None, (f32(8, 32, 32, 16), f32(3, 3, 16, 32) * 0.1), conv_loss),
        "sgd_lr": (lambda w, x, g, lr: w - lr * (x.T @ g),
                   (f32(1024, 1024), f32(32, 1024), f32(32, 1024), np.float32(0.01))),
        "scaled_by_n": (lambda x, g: (x.T @ g) / x.shape[0], (f32(32, 1024), f32(32, 1024))),
    }


#: Cases jitted with polymorphic shapes in tjit (JAX: concrete shapes).
POLY = {"scaled_by_n": ("n, 1024", "n, 1024")}


def _fn(case, grad):
    fn, args, *loss = case
    return (grad(loss[0], argnums=(0, 1)) if loss else fn), args


def _median_ms(call, repeat):
    call()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def _steps(compiled):
    kinds = collections.Counter(k for k, _ in compiled.fusion_summary())
    return f"{kinds.get('kernel', 0)}k/{kinds.get('dot', 0)}d/{kinds.get('library', 0)}l"


def _leaves(r):
    return [np.asarray(a, np.float64) for a in (r if isinstance(r, (tuple, list)) else [r])]


def _close(got, want, what):
    for g, w in zip(_leaves(got), _leaves(want)):
        scale = max(1.0, float(np.max(np.abs(w))))
        if not np.allclose(g, w, rtol=1e-4, atol=1e-4 * scale):
            raise SystemExit(f"{what}: mismatch, max abs err {np.max(np.abs(g - w)):.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--cases", default="")
    a = ap.parse_args()
    ours = _cases(tnp, tlax)
    theirs = _cases(jnp_jax, jlax) if jax else {}
    names = a.cases.split(",") if a.cases else list(ours)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':13} {'steps':>9} {'tjit ms':>9} {'jax ms':>9} {'ratio':>7}")
    for name in names:
        fn, args = _fn(ours[name], tjit.grad)
        f = tjit.jit(fn, polymorphic_shapes=POLY[name]) if name in POLY else tjit.jit(fn)
        steps = _steps(f.lower(*args).compile())
        got = f(*args)
        _close(got, tjit.jit(fn, backend="interpreter")(*args), f"{name} vs interpreter")
        calls = {"tjit": lambda f=f, args=args: tjit.block_until_ready(f(*args))}
        if jax:
            jfn, jargs = _fn(theirs[name], jax.grad)
            jf = jax.jit(jfn)
            _close(got, jf(*jargs), f"{name} vs JAX")
            calls["jax"] = lambda jf=jf, jargs=jargs: jax.block_until_ready(jf(*jargs))
        meds = {k: [] for k in calls}
        for _ in range(a.rounds):
            for k, call in calls.items():
                meds[k].append(_median_ms(call, a.repeat))
        t = statistics.median(meds["tjit"])
        j = statistics.median(meds["jax"]) if jax else None
        jtxt = f"{j:9.3f} {t / j:7.2f}" if j else f"{'-':>9} {'-':>7}"
        print(f"{name:13} {steps:>9} {t:9.3f} {jtxt}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
