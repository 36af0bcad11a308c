"""What ``import tjit`` costs a new user, beside ``import jax`` and ``import numpy``.

    python benchmarks/bench_import.py [--repeat 7] [--jax-python /path/to/python-with-jax]

Each import runs in a fresh interpreter; the figures are the process CPU time of the
import statement (steadier on a loaded machine) and its wall time, medians over
``--repeat`` processes. Bytecode goes to a private ``PYTHONPYCACHEPREFIX`` per
interpreter, written by one untimed warm-up import: with ``PYTHONDONTWRITEBYTECODE`` set
and a working tree others edit, stale ``.pyc`` files made Python compile ~230 of tjit's
modules from source on every import (~0.9 s of CPU), which an installed package never
does. The rows after jax are the third-party packages that ``import tjit`` pulls in, each
imported alone (NumPy's ~85 ms included in those that import NumPy).

Measured on the shared 2-core machine (load average ~11), medians of 7, ms of CPU:

  import tjit 293 (was 534-584 before sympy, tjit.scipy's submodules and numpy.random
  were deferred), import jax 470, import numpy 86; sympy alone 259 (now imported by the
  first symbolic size only: tjit/_sympy.py), llvmlite.binding 37 (the first compile needs
  it), opt_einsum ~7 beyond NumPy, tjit's docstring tables (``_docs``: NumPy's docstrings
  for jnp functions written without one, the differences notes) ~30. Wall time on this
  loaded machine is 2.5-3.5 times the CPU time for tjit and JAX alike.

Then llvmlite.binding became a first-compile import (``tjit/lower/llvm/binding.py``) and
the docstring tables are made once and then read from the cache folder
(``tjit/_docs_cache.py``; this script's processes share one, as a user's do): import tjit
287 -> 224 ms of CPU (before and after alternating, medians of 9, load 14-16).

Not a test: nothing here asserts a time.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PROBE = ("import time; c, w = time.process_time(), time.perf_counter(); import {mod}; "
         "print(time.process_time() - c, time.perf_counter() - w)")
#: Heavy packages under ``import tjit``, timed alone for their share.
PARTS = ("numpy", "sympy", "llvmlite.binding", "opt_einsum", "ml_dtypes")


def import_cpu(python, mod, repeat, cache):
    """(CPU, wall) seconds of ``import mod`` in fresh interpreters (warm bytecode): for
    each, (median, min, max)."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = PROBE.format(mod=mod)
    cpu, wall = [], []
    for i in range(repeat + 1):      # the first run writes the bytecode: not counted
        out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                             check=False, timeout=300)
        if out.returncode != 0:
            return None
        if i:
            c, w = out.stdout.strip().splitlines()[-1].split()
            cpu.append(float(c))
            wall.append(float(w))
    return [(statistics.median(r), min(r), max(r)) for r in (cpu, wall)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--jax-python", default=sys.executable)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; ms of process CPU and of wall time, "
          f"median (min-max) of {args.repeat} fresh processes")
    rows = [(sys.executable, "tjit"), (args.jax_python, "jax")] + [
        (sys.executable, m) for m in PARTS]
    with tempfile.TemporaryDirectory(prefix="tjit_pyc_") as root:
        for python, mod in rows:
            cache = os.path.join(root, str(abs(hash(python))))
            got = import_cpu(python, mod, args.repeat, cache)
            if got is None:
                print(f"  import {mod:18s} not importable with {python}")
                continue
            (med, lo, hi), (wmed, wlo, whi) = ((round(x * 1e3) for x in r) for r in got)
            print(f"  import {mod:18s} cpu {med:5d} ({lo}-{hi})  wall {wmed:5d} ({wlo}-{whi})",
                  flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
