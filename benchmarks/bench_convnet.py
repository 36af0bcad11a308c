"""A stax convnet's training step on tjit, NumPy-free of any JAX, and beside JAX when it is
installed (``pip install -e ".[bench]"``): the same stax/optimizers code runs on both.

    .venv/bin/python benchmarks/bench_convnet.py [--batch 32] [--quick] [--rounds 5]

Network (MNIST-sized, NHWC): Conv(16, 3x3, SAME) Relu MaxPool(2x2/2) Conv(32, 3x3, SAME)
Relu AvgPool(2x2/2) Flatten Dense(10) LogSoftmax; step = jit(grad(loss)) and an SGD
update. The first step's loss and gradient norm are checked between the two libraries
(same parameters, fed as NumPy arrays). Reports medians of forward, forward+backward
step, and the first call (trace + compile). ``--rounds N`` repeats the whole comparison
N times, the libraries alternating, and reports the median of the per-round ratios: on a
loaded machine one round's ratio swings by 2x.

Measured on the 2-core development machine, loaded (batch 32, JAX 0.10.2 on the CPU;
ratios tjit/JAX): before (conv as an im2col stack + NumPy matmul library step, pooling as
library steps) forward 3.5-4x, train step 3.5-6x; after (conv as a fused im2col gather +
tjit's gemm, pooling as fused kernels) ``--rounds 5`` medians forward 0.99x, step 1.17x
(tjit step 7-15 ms, JAX 6-25 ms in the same rounds).
"""

import argparse
import statistics
import time

import numpy as np


def build(lib):
    """(init, apply, loss, step) with the library's own modules."""
    jnp, jit, grad, stax, optimizers = lib
    init, apply = stax.serial(
        stax.Conv(16, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), (2, 2)),
        stax.Conv(32, (3, 3), padding="SAME"), stax.Relu, stax.AvgPool((2, 2), (2, 2)),
        stax.Flatten, stax.Dense(10), stax.LogSoftmax)
    opt_init, opt_update, get_params = optimizers.sgd(0.05)

    def loss(params, x, y):
        return -jnp.mean(jnp.sum(apply(params, x) * y, axis=1))

    @jit
    def step(i, state, x, y):
        return opt_update(i, grad(loss)(get_params(state), x, y), state)
    return init, jit(apply), jit(loss), jit(grad(loss)), step, opt_init


def _tjit():
    import tjit
    import tjit.numpy as jnp
    from tjit.example_libraries import optimizers, stax
    return (jnp, tjit.jit, tjit.grad, stax, optimizers), tjit


def _jax():
    try:
        import jax
        import jax.numpy as jnp
        from jax.example_libraries import optimizers, stax
    except ImportError:
        return None, None
    return (jnp, jax.jit, jax.grad, stax, optimizers), jax


def median_time(fn, reps, inner=3):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            out = fn()
        _block(out)
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times)


def _block(out):
    import tjit
    for leaf in tjit.tree_util.tree_leaves(out):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def run(name, lib, params_np, x, y, reps):
    _, apply, loss, gradf, step, opt_init = build(lib)
    t0 = time.perf_counter()
    first = float(loss(params_np, x, y))
    g = gradf(params_np, x, y)
    _block(g)
    compile_s = time.perf_counter() - t0
    import tjit
    gnorm = float(np.sqrt(sum(float(np.sum(np.asarray(a, np.float64) ** 2))
                              for a in tjit.tree_util.tree_leaves(g))))
    state = opt_init(params_np)
    state = step(0, state, x, y)
    _block(state)
    fwd = median_time(lambda: apply(params_np, x), reps)
    box = [state]

    def one_step():
        box[0] = step(1, box[0], x, y)
        return box[0]
    train = median_time(one_step, reps)
    return {"name": name, "loss": first, "gnorm": gnorm, "compile": compile_s, "fwd": fwd,
            "step": train}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--quick", action="store_true", help="batch 8, 3 repetitions")
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat the comparison, libraries alternating; median ratio")
    args = ap.parse_args()
    batch, reps = (8, 3) if args.quick else (args.batch, 7)
    rng = np.random.default_rng(0)
    x = rng.random((batch, 28, 28, 1), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]

    tj_lib, tjit = _tjit()
    init = build(tj_lib)[0]
    _, params = init(tjit.random.PRNGKey(0), (batch, 28, 28, 1))
    params_np = tjit.tree_util.tree_map(np.asarray, params)
    jax_lib, _ = _jax()
    if jax_lib is None:
        print("(JAX is not installed: tjit only)")
    ratios = []
    for _ in range(max(1, args.rounds)):
        rows = [run("tjit", tj_lib, params_np, x, y, reps)]
        if jax_lib is not None:
            rows.append(run("jax", jax_lib, params_np, x, y, reps))
            a, b = rows
            assert abs(a["loss"] - b["loss"]) <= 1e-4 * abs(b["loss"]), (a["loss"], b["loss"])
            assert abs(a["gnorm"] - b["gnorm"]) <= 1e-3 * b["gnorm"], (a["gnorm"], b["gnorm"])
        _report(batch, rows)
        if len(rows) == 2:
            ratios.append((rows[0]["fwd"] / rows[1]["fwd"], rows[0]["step"] / rows[1]["step"]))
    if len(ratios) > 1:
        print(f"median over {len(ratios)} rounds: tjit/jax forward "
              f"{statistics.median(r[0] for r in ratios):.2f}x, step "
              f"{statistics.median(r[1] for r in ratios):.2f}x")


def _report(batch, rows):
    print(f"convnet step, batch {batch}, 28x28x1 NHWC (medians)")
    print(f"{'':6} {'loss':>9} {'|grad|':>9} {'first call s':>13} {'forward ms':>11} "
          f"{'train step ms':>14}")
    for r in rows:
        print(f"{r['name']:6} {r['loss']:9.5f} {r['gnorm']:9.5f} {r['compile']:13.2f} "
              f"{r['fwd'] * 1e3:11.2f} {r['step'] * 1e3:14.2f}")
    if len(rows) == 2:
        print(f"tjit/jax: forward {rows[0]['fwd'] / rows[1]['fwd']:.2f}x, step "
              f"{rows[0]['step'] / rows[1]['step']:.2f}x")


if __name__ == "__main__":
    main()
