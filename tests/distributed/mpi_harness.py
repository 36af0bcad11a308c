"""Run small scripts under ``mpiexec -n N`` from a test, and read what each rank reports.

MPI start-up costs about a second per launch, so a test batches many checks into one
script: each rank writes records with ``report(rank=..., ...)`` (the script's preamble)
to a file of its own (ranks' stdout lines interleave), and the test compares them.
Launches have a timeout, so a hang fails the test instead of stalling the suite. Tests
skip, saying why, where mpi4py or mpiexec is missing (``pip install "tjit[mpi]"`` brings
both).
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

PREAMBLE = '''
import json, os, sys
import numpy as np
def report(**kw):
    """One record of results from this rank for the test to read."""
    path = f"results_rank{os.environ.get('PMI_RANK', '0')}.jsonl"
    with open(path, "a") as fh:
        fh.write(json.dumps(kw, default=lambda a: np.asarray(a).tolist()) + "\\n")
'''


def mpiexec_path():
    """The mpiexec beside this Python (a venv with the mpich wheel), else on PATH."""
    here = pathlib.Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def skip_reason():
    """Why MPI tests cannot run here, or None."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return 'mpi4py is not installed (pip install "tjit[mpi]")'
    if mpiexec_path() is None:
        return 'no mpiexec found beside Python or on PATH (pip install "tjit[mpi]")'
    return None


requires_mpi = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


def launch(script, n, tmp_path, env=None, timeout=90):
    """Run ``script`` (Python source; PREAMBLE is prepended) on ``n`` ranks; returns the
    CompletedProcess (``returncode``, ``stdout``, ``stderr``)."""
    for old in tmp_path.glob("results_rank*.jsonl"):
        old.unlink()
    path = tmp_path / f"mpi_script_{n}.py"
    path.write_text(PREAMBLE + textwrap.dedent(script))
    full_env = dict(os.environ, PYTHONPATH=str(REPO), TJIT_PLATFORMS="cpu",
                    OMP_NUM_THREADS="1")
    full_env.pop("TJIT_NUM_CPU_DEVICES", None)   # (one device per process unless ``env``
    full_env.update(env or {})                    # asks for more)
    cmd = [mpiexec_path(), "-n", str(n), sys.executable, str(path)]  # (results() reads
    # the rank files beside the script, the last argument)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=full_env, cwd=str(tmp_path), check=False)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n {n} did not finish in {timeout} s (a hang?)\n"
                    f"stdout:\n{e.stdout}\nstderr:\n{e.stderr}")


def results(proc, n):
    """{rank: {key: value}} from the RESULT lines, after checking the run succeeded."""
    assert proc.returncode == 0, (f"mpiexec exited with {proc.returncode}\n"
                                  f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    out = {}
    for path in sorted(pathlib.Path(proc.args[-1]).parent.glob("results_rank*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            out.setdefault(rec.pop("rank"), {}).update(rec)
    assert sorted(out) == list(range(n)), (f"expected results from ranks 0..{n - 1}, got "
                                           f"{sorted(out)}\nstdout:\n{proc.stdout}\n"
                                           f"stderr:\n{proc.stderr}")
    return out
