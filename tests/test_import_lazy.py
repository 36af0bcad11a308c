"""`import tjit` stays cheap: optional and heavy libraries load only when asked for.

SciPy, CuPy, PyOpenCL and mpi4py are imported by the features that need them (a
scipy-backed routine, a CUDA or OpenCL device, an MPI run), never by importing tjit's
public modules or by a first jitted CPU program. Each check runs in a fresh interpreter,
so that modules other tests imported do not count.
"""

import json
import subprocess
import sys
import textwrap

LAZY = ("scipy", "cupy", "pyopencl", "mpi4py", "pkg_resources")


def _loaded_after(code):
    """The modules of ``LAZY`` that are in ``sys.modules`` after running ``code``."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps([m for m in {LAZY!r} if m in sys.modules]))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_optional_library():
    loaded = _loaded_after("""
        import tjit, tjit.numpy, tjit.lax, tjit.nn, tjit.random, tjit.scipy
    """)
    assert loaded == [], f"import tjit imported {loaded}; import them where they are used"


def test_first_cpu_program_loads_no_optional_library():
    loaded = _loaded_after("""
        import numpy as np
        import tjit
        import tjit.numpy as jnp
        x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        out = tjit.jit(lambda a: jnp.tanh(a @ a.T).sum())(x)
        want = np.tanh(x.astype(np.float64) @ x.T.astype(np.float64)).sum()
        assert abs(float(out) - want) < 1e-4 * abs(want), (out, want)
        tjit.devices()
    """)
    assert loaded == [], f"a first CPU program imported {loaded}"
