"""Check the C renderer on every kernel recorded by ``collect_kernels.py``.

    PYTHONPATH=. python -m tests.lower.c.sweep [kernels.pkl] [c|opencl|cuda]

Each kernel runs on random inputs (``kernel_corpus.random_inputs``; symbolic sizes 5
to 7) against ``kernel_ir.evaluate``, in batches of one translation unit each; ``cuda``
without a usable GPU only compiles everything with NVRTC. Prints the failures and a
summary. Kernels that ``evaluate`` cannot define (reductions over an empty axis: it
stores nothing, or raises for max/min) are counted apart.
"""

import collections
import pickle
import sys

import numpy as np
import sympy

from tests.lower import kernel_corpus as corpus
from tests.lower import test_codegen as T
from tests.lower.c import collect_kernels, runners
from tjit.lower.c import render

BATCH = runners.BATCH


def _sizes(k, j):
    return {s: 5 + j % 3 for s in k.size_symbols} or None


def _extents(k, sizes):
    env = {sympy.Symbol(s, integer=True, positive=True): v for s, v in (sizes or {}).items()}
    return [int(sympy.sympify(d).subs(env)) for d in k.shape]


def make_case(k, j):
    sizes = _sizes(k, j)
    c = corpus.Case(f"sweep{j}_{k.name}", k, corpus.random_inputs(k, sizes, j), sizes,
                    mode=corpus.mode_for(k))
    if k.inplace:        # the data read through the output: as long as the stores reach
        env = {sympy.Symbol(s, integer=True, positive=True): v
               for s, v in (sizes or {}).items()}
        lens = T._out_lens(k, env)
        rng = np.random.default_rng(j)
        for _, o in k.inplace:
            n = lens.get(o, 0)
            if k.hyperplane is not None:   # every row the plane index may pick
                n = max(n, n * int(sympy.sympify(k.hyperplane[2]).subs(env)))
            c.init[o] = (rng.standard_normal(n) * 3).astype(k.args[o].dtype)
    return c


def main(path=collect_kernels.PATH, dialect="c"):
    with open(path, "rb") as f:
        kernels = pickle.load(f)
    cases = [make_case(k, j) for j, k in enumerate(kernels)]
    srcs = {id(c.kernel): render(c.kernel, dialect, f"k{j}") for j, c in enumerate(cases)}
    if dialect == "cuda" and runners.cuda_unavailable():
        runners.nvrtc_compile(runners.unit(srcs.values()), "compute_90")
        print(f"NVRTC compiled all {len(srcs)} kernels (no GPU to run them: "
              f"{runners.cuda_unavailable()})")
        return 0
    runner = {"c": runners.CRunner, "opencl": runners.OpenCLRunner,
              "cuda": runners.CudaRunner}[dialect]
    counts = collections.Counter()
    for b in range(0, len(cases), BATCH):
        chunk = cases[b:b + BATCH]
        run = runner([srcs[id(c.kernel)] for c in chunk])
        for c in chunk:
            empty = c.kernel.reduce_axes and 0 in _extents(c.kernel, c.sizes)
            try:
                bufs = corpus.buffers(c)
                run(srcs[id(c.kernel)], bufs, c.sizes or {})
                got = [bufs[i] for i in corpus.output_args(c.kernel)]
                corpus.check(c, got, corpus.expected(c))
                counts["pass"] += 1
            except (AssertionError, ValueError, IndexError) as e:
                if empty:
                    counts["empty reduction (evaluate undefined)"] += 1
                    continue
                counts["FAIL"] += 1
                print(f"FAIL {c.name} ({type(e).__name__}): {str(e)[:400]}")
    print(f"{dialect}: {len(cases)} kernels: {dict(counts)}")
    return int(counts["FAIL"] > 0)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
