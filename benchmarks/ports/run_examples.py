"""Port the JAX repository's example scripts (``examples/*.py``) to tjit by changing
imports, run them with JAX and with tjit, and compare what they print.

    python benchmarks/ports/run_examples.py [NAME ...] [--work DIR] [--reuse-jax]

Each script runs as ``__main__`` in a fresh process (``--one``), once with JAX
(/work/jaxvenv) and once with ``jax`` imports resolving to tjit (run_page.py's alias).
MNIST is downloaded by ``examples/datasets.py``; here its ``mnist_raw`` gives a small
synthetic set instead (the same arrays for both runs: digits are noisy copies of ten
fixed patterns), and the rest of datasets.py (scaling, one-hot labels, permutation) is
JAX's own code. Printed lines are compared as compare.py compares notebook cells, after
the timings ("in 0.52 sec") are blanked.
"""

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from compare import same_text  # noqa: E402
import run_page  # noqa: E402

MIRROR = "/work/.mirror/jax-ml+jax/repo"
JAX_PY = "/work/jaxvenv/bin/python"
TJIT_PY = os.path.join(HERE, "..", "..", ".venv", "bin", "python")

# name -> (revision of the JAX repository, path). Two examples JAX removed in March 2026
# (nested vmaps for pairwise kernels) are read from the commit before their removal.
_REMOVED = "c856560f0e^"
EXAMPLES = {
    "advi": ("HEAD", "examples/advi.py"),
    "mnist_classifier_fromscratch": ("HEAD", "examples/mnist_classifier_fromscratch.py"),
    "mnist_classifier": ("HEAD", "examples/mnist_classifier.py"),
    "mnist_vae": ("HEAD", "examples/mnist_vae.py"),
    "spmd_mnist_classifier_fromscratch": ("HEAD",
                                          "examples/spmd_mnist_classifier_fromscratch.py"),
    "kernel_lsq": (_REMOVED, "examples/kernel_lsq.py"),
    "gaussian_process_regression": (_REMOVED, "examples/gaussian_process_regression.py"),
    "differentially_private_sgd": ("HEAD", "examples/differentially_private_sgd.py"),
    # model-predictive control (iLQR, MPC; removed from JAX in July 2022), run through its
    # test file: each test's assert_allclose prints the values it checks (TEST_FILES)
    "control": ("eadc3466c0^", "examples/control_test.py"),
}

#: test files run as programs: name -> the modules of the JAX repository they import
#: (module name -> path at the same revision)
TEST_FILES = {
    "control": {"examples.control": "examples/control.py"},
}

SKIPPED = {
    "onnx2xla": "downloads an ONNX model and needs the onnx package",
    "jax_cpp/prog.py": "exports for a C++ PJRT client",
    "ffi/": "builds a C++ XLA FFI library",
}

N_TRAIN, N_TEST = 256, 128
TIMING = re.compile(r"\(?\b(?:in )?\d+\.\d+ ?sec\)?")


def synthetic_mnist_raw():
    """uint8 images (n, 28, 28) and labels: each digit class a fixed random pattern, each
    image its class's pattern with noise (learnable, as MNIST is)."""
    import numpy as np
    rng = np.random.RandomState(0)
    patterns = (rng.rand(10, 28, 28) > 0.75) * 200.0

    def make(n):
        labels = rng.randint(0, 10, n).astype(np.uint8)
        images = patterns[labels] + rng.normal(0, 40, (n, 28, 28))
        return np.clip(images, 0, 255).astype(np.uint8), labels
    train_images, train_labels = make(N_TRAIN)
    test_images, test_labels = make(N_TEST)
    return train_images, train_labels, test_images, test_labels


def _install_datasets():
    """``examples.datasets`` (and ``datasets``, as the spmd example imports it): JAX's
    module with ``mnist_raw`` replaced by :func:`synthetic_mnist_raw`."""
    src = _mirror_text("HEAD", "examples/datasets.py")
    mod = types.ModuleType("examples.datasets")
    exec(compile(src, "examples/datasets.py", "exec"), mod.__dict__)
    mod.mnist_raw = synthetic_mnist_raw
    pkg = types.ModuleType("examples")
    pkg.__path__ = []
    pkg.datasets = mod
    sys.modules.update({"examples": pkg, "examples.datasets": mod, "datasets": mod})


class _AbslFlag:
    def __init__(self, default):
        self.value, self.present = default, False


def _stub_absl():
    """A stand-in for absl-py's ``app`` and ``flags`` (neither venv has absl-py): flags
    keep their defaults (no command line here); ``app.run(main)`` runs the after-init
    callbacks, then ``main([argv0])``. The same for both runs, as the plotting stubs."""
    try:
        import absl  # noqa: F401
        return
    except ImportError:
        pass
    registry, after_init = {}, []
    flags = types.ModuleType("absl.flags")

    def define(name, default, *args, **kwargs):
        registry[name] = _AbslFlag(default)
        return registry[name]
    for kind in ("bool", "boolean", "integer", "float", "string", "enum", "enum_class",
                 "list"):
        setattr(flags, f"DEFINE_{kind}", define)

    class _Flags:
        def __getitem__(self, name):
            return registry[name]

        def __getattr__(self, name):
            if name not in registry:
                raise AttributeError(name)
            return registry[name].value
    flags.FLAGS = _Flags()
    app = types.ModuleType("absl.app")
    app.call_after_init = after_init.append

    def run(main, argv=None):
        for callback in after_init:
            callback()
        main(argv or [sys.argv[0]])
    app.run = run
    absl = types.ModuleType("absl")
    absl.app, absl.flags = app, flags
    sys.modules.update({"absl": absl, "absl.app": app, "absl.flags": flags})


def _stub_dp_accounting():
    """``dp_accounting`` (Google's privacy accounting, in neither venv) for the DP-SGD
    example, which only prints its epsilon: here the epsilon of the Gaussian mechanism
    composed over the steps without the subsampling amplification dp_accounting credits
    (a looser bound, min over the orders a of steps * a / (2 sigma^2) + log(1/delta) /
    (a - 1)), computed in Python floats from the orders the script passes (its
    ``jnp.linspace``); the same for both runs."""
    import math
    dp_event = types.ModuleType("dp_accounting.dp_event")
    dp_event.GaussianDpEvent = lambda sigma: ("gaussian", float(sigma))
    dp_event.PoissonSampledDpEvent = lambda q, event: event

    class RdpAccountant:
        def __init__(self, orders):
            self.orders, self.rdp = [float(a) for a in orders], None

        def compose(self, event, count=1):
            sigma = event[1]
            self.rdp = [count * a / (2 * sigma ** 2) for a in self.orders]

        def get_epsilon(self, delta):
            return min(r + math.log(1 / delta) / (a - 1) for a, r in zip(self.orders, self.rdp))
    accountant = types.ModuleType("dp_accounting.rdp.rdp_privacy_accountant")
    accountant.RdpAccountant = RdpAccountant
    rdp = types.ModuleType("dp_accounting.rdp")
    rdp.rdp_privacy_accountant = accountant
    dp = types.ModuleType("dp_accounting")
    dp.dp_event, dp.rdp = dp_event, rdp
    sys.modules.update({"dp_accounting": dp, "dp_accounting.dp_event": dp_event,
                        "dp_accounting.rdp": rdp,
                        "dp_accounting.rdp.rdp_privacy_accountant": accountant})


def _stub_absl_testing():
    """``absl.testing.absltest`` and ``parameterized`` for a test file run as a program:
    its TestCase classes are unittest's, ``absltest.main`` is not called (the file is
    not ``__main__``); the same for both runs."""
    import unittest
    testing = types.ModuleType("absl.testing")
    absltest = types.ModuleType("absl.testing.absltest")
    absltest.TestCase, absltest.main = unittest.TestCase, lambda *a, **k: None
    parameterized = types.ModuleType("absl.testing.parameterized")
    parameterized.TestCase = unittest.TestCase
    testing.absltest, testing.parameterized = absltest, parameterized
    sys.modules.update({"absl.testing": testing, "absl.testing.absltest": absltest,
                        "absl.testing.parameterized": parameterized})
    # `from jax.config import config; config.parse_flags_with_absl()` (JAX before 0.4.25;
    # JAX 0.10.2 has no jax.config module): a stand-in for both runs
    cfg = types.ModuleType("jax.config")
    cfg.config = types.SimpleNamespace(parse_flags_with_absl=lambda: None)
    sys.modules["jax.config"] = cfg


def _printing_assert_allclose():
    """``np.testing.assert_allclose`` that first prints the values it checks (rounded
    to 6 significant digits), so a test file's run shows JAX's and tjit's numbers, not
    only whether each stayed within the test's tolerance."""
    import numpy as np
    check = np.testing.assert_allclose

    def assert_allclose(actual, desired, *args, **kwargs):
        print("   ", np.array2string(np.asarray(actual), precision=6, separator=","
                                     ).replace("\n", ""))
        return check(actual, desired, *args, **kwargs)
    np.testing.assert_allclose = assert_allclose


def run_test_file(name, rev, src):
    """Run each test of the file ``src`` (its TestCase classes, tests in name order)
    and print one line per test (ok, or the failure's type and first line)."""
    import unittest
    for mod_name, path in TEST_FILES[name].items():
        mod = types.ModuleType(mod_name)
        exec(compile(_mirror_text(rev, path), path, "exec"), mod.__dict__)
        sys.modules[mod_name] = mod
        setattr(sys.modules["examples"], mod_name.split(".")[-1], mod)
    _stub_absl_testing()
    _printing_assert_allclose()
    env = {"__name__": name + "_test"}
    exec(compile(src, EXAMPLES[name][1], "exec"), env)
    cases = [c for c in env.values() if isinstance(c, type) and
             issubclass(c, unittest.TestCase) and c is not unittest.TestCase]
    for case in cases:
        for test in sorted(t for t in dir(case) if t.startswith("test")):
            print(f"{case.__name__}.{test}")
            result = unittest.TestResult()
            case(test).run(result)
            bad = result.errors + result.failures
            if bad:
                last = bad[0][1].strip().splitlines()[-1]
                print(f"  FAIL {last[:300]}")
            else:
                print("  ok")


def _mirror_text(rev, path):
    return subprocess.run(["git", f"--git-dir={MIRROR}", "show", f"{rev}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def run_one(name, impl, out):
    """Run example ``name`` as __main__ here and write its stdout and exception."""
    if impl == "tjit":
        run_page._alias_jax()
    run_page._stub_missing_modules()
    _stub_absl()
    _stub_dp_accounting()
    importlib.import_module("jax.numpy")   # (importing JAX draws from NumPy's generator)
    run_page._fixed_seeds()
    _install_datasets()
    rev, path = EXAMPLES[name]
    src = _mirror_text(rev, path)
    buf = io.StringIO()
    rec = {"exc": None}
    try:
        with contextlib.redirect_stdout(buf):
            if name in TEST_FILES:
                run_test_file(name, rev, src)
            else:
                exec(compile(src, path, "exec"), {"__name__": "__main__"})
    except BaseException as e:  # noqa: BLE001 - a script's failure is data here
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)
        rec["exc"] = {"type": type(e).__name__, "msg": str(e)[:2000],
                      "where": [f"{f.filename}:{f.lineno} {f.name}" for f in tb[-4:]]}
    rec["stdout"] = buf.getvalue()
    with open(out, "w") as f:
        json.dump(rec, f, indent=1)


def compare_runs(jax_rec, tjit_rec):
    """'match', or where the two runs part: the first differing line."""
    je, te = jax_rec["exc"], tjit_rec["exc"]
    if je or te:
        if je and te and je["type"] == te["type"]:
            pass
        else:
            who = "tjit" if te else "jax"
            e = te or je
            return f"{who} raises {e['type']}: {e['msg'][:300]} at {e['where'][-1:]}"
    jl = jax_rec["stdout"].splitlines()
    tl = tjit_rec["stdout"].splitlines()
    for k, (a, b) in enumerate(zip(jl, tl)):
        if not same_text(TIMING.sub("T", a), TIMING.sub("T", b)):
            return f"line {k + 1} of {len(jl)} differs:\n  jax : {a!r}\n  tjit: {b!r}"
    if len(jl) != len(tl):
        return f"jax printed {len(jl)} lines, tjit {len(tl)}"
    return "match"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", default=list(EXAMPLES))
    ap.add_argument("--work", default="/tmp/tjit_ports/examples")
    ap.add_argument("--reuse-jax", action="store_true")
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--as", dest="impl", choices=["jax", "tjit"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        return run_one(a.one, a.impl, a.out)
    os.makedirs(a.work, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", JAX_PLATFORMS="cpu")
    n_match = 0
    for name in a.names:
        outs = {impl: os.path.join(a.work, f"{name}.{impl}.json") for impl in ("jax", "tjit")}
        for impl, py in (("jax", JAX_PY), ("tjit", TJIT_PY)):
            if impl == "jax" and a.reuse_jax and os.path.exists(outs["jax"]):
                continue
            if os.path.exists(outs[impl]):
                os.remove(outs[impl])
            try:
                subprocess.run([py, os.path.abspath(__file__), "--one", name, "--as", impl,
                                "--out", outs[impl]], env=env, timeout=a.timeout,
                               capture_output=True, text=True, cwd=a.work)
            except subprocess.TimeoutExpired:
                pass
        if not all(os.path.exists(p) for p in outs.values()):
            print(f"== {name}: a run failed or timed out "
                  f"({[k for k, p in outs.items() if not os.path.exists(p)]})")
            continue
        recs = {k: json.load(open(p)) for k, p in outs.items()}
        verdict = compare_runs(recs["jax"], recs["tjit"])
        n_match += verdict == "match"
        lines = len(recs["jax"]["stdout"].splitlines())
        print(f"== {name} ({lines} lines printed): {verdict}")
        sys.stdout.flush()
    print(f"TOTAL: {n_match} of {len(a.names)} examples print what JAX prints")
    print("Not run here:", "; ".join(f"{k} ({v})" for k, v in SKIPPED.items()))


if __name__ == "__main__":
    main()
