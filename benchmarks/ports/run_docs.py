"""Port JAX's documentation pages to tjit by changing imports, and report differences.

    python benchmarks/ports/run_docs.py [PAGE ...] [--work DIR] [--reuse-jax]

Each page (a path under docs/ in the JAX mirror) is run cell by cell twice, once with
JAX (/work/jaxvenv) and once with `jax` imports resolving to tjit (run_page.py), then
compared cell by cell (compare.py). Prints one line per differing cell and a summary.
The pages in SKIPPED need what this machine lacks; they are listed, not run.
"""

import argparse
import os
import subprocess
import sys

from compare import compare

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
MIRROR = "/work/.mirror/jax-ml+jax/repo"
JAX_PY = "/work/jaxvenv/bin/python"
TJIT_PY = os.path.join(REPO, ".venv", "bin", "python")

PAGES = [
    "docs/key-concepts.md",
    "docs/automatic-differentiation.md",
    "docs/automatic-vectorization.md",
    "docs/random-numbers.md",
    "docs/pytrees.md",
    "docs/stateful-computations.md",
    "docs/control-flow.md",
    "docs/notebooks/Common_Gotchas_in_JAX.md",
    "docs/notebooks/autodiff_cookbook.md",
    "docs/notebooks/thinking_in_jax.md",
    "docs/jit-compilation.md",
    "docs/jacobian-vector-products.md",
    "docs/higher-order.md",
    "docs/complex-differentiation.md",
    "docs/debugging.md",
    "docs/tracing.md",
    "docs/jaxpr.md",
    "docs/jep/9407-type-promotion.md",
    "docs/array_refs.md",
    "docs/notebooks/convolutions.md",
    "docs/notebooks/vmapped_log_probs.md",
    "docs/notebooks/Writing_custom_interpreters_in_Jax.md",
    "docs/notebooks/autodiff_remat.md",
    "docs/new_docs/101/arrays.md",
    "docs/new_docs/101/pytrees.md",
    "docs/new_docs/101/random.md",
    "docs/new_docs/101/state.md",
    "docs/new_docs/101/transformations.md",
    "docs/new_docs/201/control-flow.md",
    "docs/new_docs/201/jit.md",
    "docs/new_docs/201/debugging.md",
    "docs/new_docs/301/vjp-objects.md",
    "docs/new_docs/301/refs.md",
    "docs/new_docs/301/cookbook.md",
    "docs/new_docs/301/remat.md",
    "docs/new_docs/301/custom-jvp-vjp.md",
    "docs/new_docs/301/custom-derivatives.md",
    "docs/new_docs/201/callbacks.md",
    "docs/new_docs/201/placement.md",
    "docs/autodidax.md",
    "docs/autodidax2_part1.md",
    "docs/jax-primitives.md",
    "docs/external-callbacks.md",
    "docs/gradient-checkpointing.md",
    "docs/custom_pytrees.md",
    "docs/notebooks/Custom_derivative_rules_for_Python_code.md",
    "docs/hijax_types.md",
    "docs/hijax_custom_derivatives.md",
]

SKIPPED = {
    "docs/notebooks/Neural_Network_and_Data_Loading.md": "downloads MNIST (torchvision)",
    "docs/notebooks/neural_network_with_tfds_data.md": "tensorflow_datasets download",
    "docs/pallas/": "Pallas kernels (GPU/TPU)",
    "docs/notebooks/shard_map.md": "sharding over 8 devices",
    "docs/new_docs/201/shard-map.md": "sharding over 8 devices",
    "docs/new_docs/201/sharding.md": "sharding over 8 devices",
    "docs/notebooks/host-offloading.md": "TPU/GPU memory kinds",
    "docs/notebooks/colocated-python.md": "colocated Python (multi-host)",
    "docs/notebooks/cute_dsl_jax.md": "CUTLASS CuTe DSL (GPU)",
    "docs/ffi.md": "builds a C++ XLA FFI library",
}


def page_file(page, work):
    local = os.path.join(work, "pages", page.replace("/", "__"))
    if not os.path.exists(local):
        os.makedirs(os.path.dirname(local), exist_ok=True)
        text = subprocess.run(["git", f"--git-dir={MIRROR}", "show", f"HEAD:{page}"],
                              check=True, capture_output=True, text=True).stdout
        with open(local, "w") as f:
            f.write(text)
    return local


def run(py, impl, page_path, out, timeout, pythonpath=None):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", JAX_PLATFORMS="cpu")
    if pythonpath:   # another tjit tree (e.g. an older commit, git archive'd) first
        env["PYTHONPATH"] = pythonpath
    cwd = os.path.dirname(out)
    try:
        subprocess.run([py, os.path.join(HERE, "run_page.py"), page_path, "--as", impl,
                        "--out", out], env=env, cwd=cwd, timeout=timeout,
                       capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        return False
    return os.path.exists(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pages", nargs="*", default=PAGES)
    ap.add_argument("--work", default="/tmp/tjit_ports")
    ap.add_argument("--reuse-jax", action="store_true", help="keep earlier JAX results")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--tjit-tree", help="run this tjit source tree instead (PYTHONPATH)")
    ap.add_argument("--tag", default="tjit", help="name of the tjit results file")
    ap.add_argument("--compare-only", action="store_true",
                    help="compare the results kept in --work, running nothing")
    a = ap.parse_args()
    totals = {"match": 0, "differ": 0, "skipped": 0}
    kinds = {}
    for page in a.pages:
        path = page_file(page, a.work)
        base = os.path.join(a.work, "out", page.replace("/", "__"))
        os.makedirs(base, exist_ok=True)
        jout, tout = os.path.join(base, "jax.json"), os.path.join(base, f"{a.tag}.json")
        if a.compare_only:
            if not (os.path.exists(jout) and os.path.exists(tout)):
                print(f"== {page}: no results kept")
                continue
        elif not (a.reuse_jax and os.path.exists(jout)):
            if not run(JAX_PY, "jax", path, jout, a.timeout):
                print(f"== {page}: JAX run failed or timed out")
                continue
        if not a.compare_only and os.path.exists(tout):
            os.remove(tout)
        if not a.compare_only and not run(TJIT_PY, "tjit", path, tout, a.timeout,
                                          a.tjit_tree):
            print(f"== {page}: tjit run failed or timed out")
            continue
        verdicts = compare(jout, tout)
        n_match = sum(v == "match" for _, v, _ in verdicts)
        n_skip = sum(v == "skipped" for _, v, _ in verdicts)
        n_diff = len(verdicts) - n_match - n_skip
        totals["match"] += n_match
        totals["differ"] += n_diff
        totals["skipped"] += n_skip
        print(f"== {page}: {n_match} match, {n_diff} differ, {n_skip} skipped")
        for i, v, kind in verdicts:
            if kind is not None:
                kinds[kind] = kinds.get(kind, 0) + 1
                print(f"  cell {i} [{kind}]: {v}")
        sys.stdout.flush()
    print(f"TOTAL: {totals}")
    print(f"differing cells by kind: {dict(sorted(kinds.items(), key=lambda kv: -kv[1]))}")
    print("Not run here:", "; ".join(f"{k} ({v})" for k, v in SKIPPED.items()))


if __name__ == "__main__":
    main()
