"""Run JAX's own example programs on tjit, unchanged: ``jax`` and its submodules are
mapped to tjit's in ``sys.modules`` and ``examples.datasets`` is replaced by a synthetic
stand-in (no download), then each example's source is executed as ``__main__``.

    .venv/bin/python examples/run_jax_examples.py /path/to/jax-checkout \\
        [--only mnist_classifier,mnist_vae] [--epochs 2] [--train 2048] [--jax]

``--jax`` runs the same examples on the real JAX (installed beside tjit) with the same
synthetic data, so the printed accuracies and losses can be compared side by side.

The examples are read from ``<checkout>/examples/`` (not copied into this repository).
``--epochs`` rewrites each example's ``num_epochs = ...`` line, the only edit made to
its source; matplotlib is stubbed when it is not installed (mnist_vae saves images).

The synthetic MNIST has the real shapes (28x28 images in [0, 1], one-hot labels over
10 classes); each image is its class's fixed random template of bright pixels under
noise, so a classifier can learn it and the printed accuracies mean something.
"""

import argparse
import pathlib
import re
import sys
import time
import types

import numpy as np

EXAMPLES = ("mnist_classifier", "mnist_classifier_fromscratch", "mnist_vae", "advi")


def install_jax_aliases():
    """``import jax...`` gives tjit's modules from now on in this process."""
    import tjit
    import tjit.example_libraries.optimizers
    import tjit.example_libraries.stax
    import tjit.nn.initializers
    import tjit.scipy.special
    import tjit.scipy.stats  # noqa: F401
    from tjit import lax, nn, random, tree_util  # noqa: F401
    for name, mod in list(sys.modules.items()):
        if name == "tjit" or name.startswith("tjit."):
            sys.modules["jax" + name[4:]] = mod


def synthetic_datasets(n_train, n_test, seed=0):
    """A module standing in for JAX's ``examples/datasets.py``."""
    rng = np.random.default_rng(seed)
    templates = (rng.random((10, 28 * 28)) < 0.25).astype(np.float32)  # one per class

    def make(n):
        # a class's template of bright pixels under noise, values in [0, 1]
        labels = rng.integers(0, 10, n)
        noise = rng.standard_normal((n, 28 * 28)).astype(np.float32)
        x = np.clip(0.6 * templates[labels] + 0.35 * noise + 0.1, 0, 1)
        return x.astype(np.float32), np.eye(10, dtype=np.float32)[labels]

    def mnist(permute_train=False):
        train_images, train_labels = make(n_train)
        test_images, test_labels = make(n_test)
        if permute_train:
            perm = np.random.RandomState(0).permutation(n_train)
            train_images, train_labels = train_images[perm], train_labels[perm]
        return train_images, train_labels, test_images, test_labels

    def mnist_raw():
        tr, trl, te, tel = mnist()
        return ((tr.reshape(-1, 28, 28) * 255).astype(np.uint8), trl.argmax(1),
                (te.reshape(-1, 28, 28) * 255).astype(np.uint8), tel.argmax(1))

    mod = types.ModuleType("examples.datasets")
    mod.mnist, mod.mnist_raw = mnist, mnist_raw
    mod._one_hot = lambda x, k, dtype=np.float32: np.array(x[:, None] == np.arange(k), dtype)
    mod._partial_flatten = lambda x: np.reshape(x, (x.shape[0], -1))
    return mod


def install_examples_package(datasets):
    pkg = types.ModuleType("examples")
    pkg.__path__ = []
    pkg.datasets = datasets
    sys.modules["examples"] = pkg
    sys.modules["examples.datasets"] = datasets


class _Inert:
    """Stands in for any matplotlib object: every attribute and call gives another."""

    def __getattr__(self, name):
        return _Inert()

    def __call__(self, *args, **kwargs):
        return _Inert()


def stub_matplotlib():
    """The examples draw figures (advi animates one); the runs only need the numbers.

    With matplotlib installed, its non-interactive Agg backend is used (so
    ``plt.show(block=True)`` returns); without it, an inert stand-in takes its place.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        mpl = types.ModuleType("matplotlib")
        plt = types.ModuleType("matplotlib.pyplot")
        plt.__getattr__ = lambda name: _Inert()
        mpl.pyplot = plt
        sys.modules["matplotlib"], sys.modules["matplotlib.pyplot"] = mpl, plt


def run_example(path, epochs):
    source = path.read_text()
    if epochs is not None:
        source, n = re.subn(r"^(\s*)num_epochs = \d+", rf"\g<1>num_epochs = {epochs}",
                            source, flags=re.MULTILINE)
        if not n:
            print(f"  (no num_epochs line in {path.name}; running it as written)")
    code = compile(source, str(path), "exec")
    t0 = time.perf_counter()
    exec(code, {"__name__": "__main__", "__file__": str(path)})  # noqa: S102
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jax_checkout", type=pathlib.Path, help="a clone of jax-ml/jax")
    ap.add_argument("--only", default=",".join(EXAMPLES),
                    help=f"comma-separated example names (default: {','.join(EXAMPLES)})")
    ap.add_argument("--epochs", type=int, default=1, help="num_epochs for every example")
    ap.add_argument("--train", type=int, default=2048, help="synthetic training images")
    ap.add_argument("--test", type=int, default=512, help="synthetic test images")
    ap.add_argument("--jax", action="store_true",
                    help="run on the real JAX instead (same data), for side-by-side numbers")
    args = ap.parse_args(argv)
    folder = args.jax_checkout / "examples"
    if not folder.is_dir():
        ap.error(f"{folder} does not exist: pass the root of a jax-ml/jax checkout")
    if not args.jax:
        install_jax_aliases()
    install_examples_package(synthetic_datasets(args.train, args.test))
    stub_matplotlib()
    failed = []
    for name in args.only.split(","):
        path = folder / f"{name}.py"
        print(f"== {name} ({path})", flush=True)
        try:
            secs = run_example(path, args.epochs)
            print(f"== {name}: ok in {secs:.1f} s", flush=True)
        except Exception as e:  # noqa: BLE001 -- report every example, then fail
            failed.append(name)
            print(f"== {name}: FAILED: {type(e).__name__}: {e}", flush=True)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
