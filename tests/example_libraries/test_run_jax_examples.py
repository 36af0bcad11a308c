"""examples/run_jax_examples.py runs a JAX-style example program unchanged: ``jax``
imports resolve to tjit, ``examples.datasets`` is the synthetic stand-in, and
``--epochs`` rewrites ``num_epochs``, figures don't block (in a subprocess: the aliases are process-wide)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

EXAMPLE = '''
import jax
import jax.numpy as jnp
from jax import grad, jit, random
from jax.example_libraries import optimizers, stax
from jax.scipy.special import logsumexp
from examples import datasets
import matplotlib.pyplot as plt

if __name__ == "__main__":
    num_epochs = 50
    assert num_epochs == 2, num_epochs
    assert jax.jit is __import__("tjit").jit
    train_images, train_labels, test_images, test_labels = datasets.mnist()
    assert train_images.shape == (256, 784) and test_labels.shape == (64, 10)
    init, apply = stax.serial(stax.Dense(10), stax.LogSoftmax)
    _, params = init(random.key(0), (-1, 784))
    opt_init, opt_update, get_params = optimizers.sgd(0.5)

    def loss(p):
        return -jnp.mean(jnp.sum(apply(p, train_images) * train_labels, axis=1))
    state = opt_init(params)
    first = float(loss(params))
    for i in range(num_epochs * 10):
        state = jit(opt_update)(i, grad(loss)(get_params(state)), state)
    assert float(loss(get_params(state))) < first
    # advi-style drawing: an animated figure, then a blocking show that must return
    ax = plt.figure(figsize=(8, 8), facecolor="white").add_subplot(111, frameon=False)
    plt.ion()
    ax.contour([[0, 1], [1, 0]])
    plt.pause(1.0 / 60.0)  # as advi.py (a zero pause waits forever on Agg)
    plt.show(block=True)
    print("EXAMPLE-RAN", float(logsumexp(jnp.zeros(3))))
'''


def test_runner_maps_jax_to_tjit(tmp_path):
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "tiny.py").write_text(EXAMPLE)
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "run_jax_examples.py"), str(tmp_path),
         "--only", "tiny", "--epochs", "2", "--train", "256", "--test", "64"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "EXAMPLE-RAN" in out.stdout and "== tiny: ok" in out.stdout


def test_runner_names_a_missing_checkout(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "run_jax_examples.py"),
                          str(tmp_path / "nowhere")], capture_output=True, text=True,
                         timeout=60, cwd=ROOT, check=False)
    assert out.returncode != 0 and "jax-ml/jax checkout" in out.stderr
