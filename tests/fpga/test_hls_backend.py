"""The "hls" backend (``devices/hls.py``: dataflow designs in C simulation) against the
reference interpreter: the OpenCL backend's table of programs, control flow and MLP
training step (``tests/devices/test_opencl_backend.py``, the same functions), every
primitive's edge values (marked slow: a build per primitive), symbolic sizes at several sizes
of one polymorphic jit with one build, and ``jit(grad(...))`` of the MLP step."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices import test_opencl_backend as T
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def test_program_table():
    args = T._table_args(np.random.default_rng(0))
    got = tjit.jit(T._table, backend="hls")(*args)
    want = T._interp(T._table, *args)
    for name in want:
        T._close(got[name], want[name], rtol=1e-4 if name == "all_sum" else 2e-5)


# (control flow between designs and polymorphic sizes: test_fpga_differential.py, on
# both FPGA backends)


def test_mlp_step_jit_grad_matches_interpreter():
    rng = np.random.default_rng(3)
    p = {"w1": rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
         "b1": np.zeros(16, np.float32),
         "w2": rng.standard_normal((16, 3)).astype(np.float32) * 0.3,
         "b2": np.zeros(3, np.float32)}
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 3)).astype(np.float32)
    hls = tjit.jit(T._sgd, backend="hls")
    ph, pi = p, p
    for _ in range(3):
        (ph, lh), (pi, li) = hls(ph, x, y), T._interp(T._sgd, pi, x, y)
        T._close(lh, li, rtol=1e-5, atol=1e-6)
    T._close(ph, pi, rtol=1e-5, atol=1e-6)


#: One C-simulation build (g++) per jitted primitive: ~100 s per dtype on a cold cache
#: here, so the edge values run with -m slow (the program table covers the default run).
@pytest.mark.slow
@pytest.mark.parametrize("dt", ["float32", "int32", "float64", "bool"])
@pytest.mark.usefixtures("x64")
def test_edge_values_on_hls(dt, monkeypatch):
    """Eager (NumPy) against jit on hls for every primitive's edge cases of ``dt``."""
    from tests.primitives import test_edge_values as edge
    monkeypatch.setenv("TJIT_PLATFORMS", "hls")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        edge.check_dtype(np.dtype(dt))


def test_lower_compile_backend_and_report():
    x = np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32)
    c = tjit.jit(lambda v: jnp.exp(v) * 2).lower(x).compile(backend="hls")
    assert c.executable.backend == "hls"
    T._close(c(x), np.exp(x) * 2)
    assert "HLS estimate" in str(c.hls_report())
    with pytest.raises(ValueError, match="hls_report.*backend='hls'"):
        tjit.jit(jnp.exp).lower(x).compile().hls_report()
