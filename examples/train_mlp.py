"""Train a two-layer MLP on a synthetic regression task with a jitted training step.

Run:  python examples/train_mlp.py [--steps 300]

The whole step (forward, backward through ``tjit.value_and_grad``, SGD update) is one
jitted function: traced once, forward and backward passes in one jaxpr, cached. The
parameters are donated (``donate_argnums=0``): each step writes the new parameters into
the old ones' buffers, which is safe because the loop only keeps the step's result.
"""

import argparse
import functools
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import nn, random


def init_params(key, sizes):
    params = []
    for k, (m, n) in zip(random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        params.append({"w": random.normal(k, (m, n)) * np.sqrt(2.0 / m), "b": jnp.zeros(n)})
    return params


def forward(params, x):
    h = nn.relu(x @ params[0]["w"] + params[0]["b"])
    return h @ params[1]["w"] + params[1]["b"]


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


@functools.partial(tjit.jit, donate_argnums=0)
def train_step(params, x, y, lr):
    """One SGD step; returns (new params, loss before the step)."""
    loss, grads = tjit.value_and_grad(loss_fn)(params, x, y)
    new = tjit.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return new, loss


def make_data(key, n, d_in, d_out):
    k1, k2 = random.split(key)
    x = random.normal(k1, (n, d_in))
    teacher = random.normal(k2, (d_in, d_out))
    y = jnp.tanh(x @ teacher) + 0.1 * jnp.sin(3.0 * x[:, :d_out])
    return x, y


def main(steps=300, batch=128, lr=0.05):
    key = random.PRNGKey(0)
    kd, kp = random.split(key)
    x_all, y_all = make_data(kd, 4096, 16, 4)
    params = init_params(kp, [16, 64, 4])
    first = float(loss_fn(params, x_all, y_all))
    t0 = time.perf_counter()
    for step in range(steps):
        i = (step * batch) % (x_all.shape[0] - batch)
        params, loss = train_step(params, x_all[i:i + batch], y_all[i:i + batch], lr)
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:4d}  batch loss {float(loss):.4f}")
    elapsed = time.perf_counter() - t0
    last = float(loss_fn(params, x_all, y_all))
    print(f"full-data loss {first:.4f} -> {last:.4f} in {steps} steps "
          f"({elapsed / steps * 1e3:.2f} ms/step, traced {train_step._cache_size()} time(s))")
    if not last < 0.5 * first:
        raise SystemExit("training did not reduce the loss")
    return first, last


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    main(ap.parse_args().steps)
