"""Train the MLP of ``train_mlp.py`` with data parallelism over MPI processes.

Run:  mpiexec -n 4 python examples/train_mlp_data_parallel.py [--steps 300]
      python examples/train_mlp_data_parallel.py          (one process: the same curve)

Every process builds the same parameters and data. Each step's batch of 128 rows is
split over the devices of every process (``P('data')``; one per process, or
``TJIT_NUM_CPU_DEVICES=N`` each): each device computes the loss and gradients of its
rows, ``lax.pmean`` averages them over the ``'data'`` axis (an MPI Allreduce inside the
compiled step), and every process applies the same SGD update, so the parameters stay
replicated (``P()``) and follow the one-process run up to float32 rounding of the sum's
order. Process 0 prints the loss curve.
"""

import argparse
import os
import sys
import time

import numpy as np

import tjit
from tjit import lax
from tjit.sharding import P

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_mlp import init_params, loss_fn, make_data  # noqa: E402  (the same model and data)


def local_step(params, x, y, lr):
    """One SGD step on this process's rows; gradients and loss averaged over 'data'."""
    loss, grads = tjit.value_and_grad(loss_fn)(params, x, y)
    grads, loss = lax.pmean((grads, loss), "data")
    new = tjit.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return new, loss


def make_train_step(mesh):
    """The data-parallel step: parameters replicated, the batch split over 'data'."""
    return tjit.shard_map(local_step, mesh, in_specs=(P(), P("data"), P("data"), P()),
                          out_specs=(P(), P()))


def train(steps=300, batch=128, lr=0.05, log_every=50, quiet=False):
    """Trains and returns (parameters as NumPy arrays, batch losses, seconds per step)."""
    mesh = tjit.make_mesh((tjit.device_count(),), ("data",))
    if batch % mesh.size:
        raise SystemExit(f"the batch of {batch} rows does not split over {mesh.size} "
                         f"devices; launch a number of processes (and devices) that "
                         f"divides it")
    train_step = make_train_step(mesh)
    kd, kp = tjit.random.split(tjit.random.PRNGKey(0))
    x_all, y_all = (np.asarray(a) for a in make_data(kd, 4096, 16, 4))
    params = init_params(kp, [16, 64, 4])
    say = print if (tjit.process_index() == 0 and not quiet) else (lambda *a: None)
    losses = []
    t0 = time.perf_counter()
    for step in range(steps):
        i = (step * batch) % (x_all.shape[0] - batch)
        params, loss = train_step(params, x_all[i:i + batch], y_all[i:i + batch],
                                  np.float32(lr))
        losses.append(float(loss))
        if step % log_every == 0 or step == steps - 1:
            say(f"step {step:4d}  batch loss {losses[-1]:.4f}")
    per_step = (time.perf_counter() - t0) / steps
    say(f"{tjit.process_count()} process(es), {mesh.size} device(s): "
        f"{per_step * 1e3:.2f} ms/step")
    return tjit.tree_util.tree_map(np.asarray, params), losses, per_step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--save", help="write the final parameters and losses here (.npz)")
    args = ap.parse_args()
    tjit.distributed.initialize()
    params, losses, _ = train(args.steps)
    if args.save and tjit.process_index() == 0:
        flat = {f"{i}_{k}": v for i, layer in enumerate(params) for k, v in layer.items()}
        np.savez(args.save, losses=np.asarray(losses), **flat)


if __name__ == "__main__":
    main()
