"""The compiled-path differential suite's remaining parts on the FPGA backends, beside
``test_hls_backend.py`` and ``test_opencl_swi.py``: every primitive's edge values on
every dtype the CPU's table runs (``tests/primitives/test_edge_values.py``: floats,
signed and unsigned integers, bool, complex) through HLS C simulation and through
single-work-item OpenCL on PoCL, eager NumPy against jit (a build of every primitive's
program: 20-120 s a dtype here, so marked slow); and for ``opencl_swi`` the control flow
on the host and symbolic sizes at several sizes of one polymorphic jit, against the
reference interpreter."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices import test_opencl_backend as T
from tests.primitives import edge_cases
from tjit import nn
from tjit.devices import hls_compile, opencl_context

_HLS = hls_compile.unavailable_reason()
_OCL = opencl_context.unavailable_reason()
needs_hls = pytest.mark.skipif(_HLS is not None, reason=str(_HLS))
needs_ocl = [pytest.mark.opencl, pytest.mark.skipif(_OCL is not None, reason=str(_OCL))]
DTYPES = [str(d) for d in edge_cases.dtypes_under_test()]


def _edge_values(backend, dt, monkeypatch):
    from tests.primitives import test_edge_values as edge
    monkeypatch.setenv("TJIT_PLATFORMS", backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        edge.check_dtype(np.dtype(dt))


@pytest.mark.slow
@needs_hls
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.usefixtures("x64")
def test_edge_values_on_hls_every_dtype(dt, monkeypatch):
    _edge_values("hls", dt, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.usefixtures("x64")
def test_edge_values_on_opencl_swi(dt, monkeypatch):
    if _OCL is not None:
        pytest.skip(str(_OCL))
    _edge_values("opencl_swi", dt, monkeypatch)


# both FPGA backends: hls (C simulation) and single-work-item OpenCL (PoCL)
_HLS = hls_compile.unavailable_reason()
FPGA_BACKENDS = [
    pytest.param("hls", marks=pytest.mark.skipif(_HLS is not None, reason=str(_HLS))),
    pytest.param("opencl_swi", marks=needs_ocl)]


@pytest.mark.parametrize("backend", FPGA_BACKENDS)
@pytest.mark.parametrize("n", [0, 2])
def test_control_flow_runs_on_the_host_between_designs(n, backend):
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    fn = tjit.jit(T._loops, backend=backend)
    T._close(fn(x, np.int32(n)), T._interp(T._loops, x, np.int32(n)))


@pytest.mark.parametrize("backend", FPGA_BACKENDS)
def test_polymorphic_sizes_compile_once(backend):
    def f(x, w):
        h = jnp.tanh(x @ w)
        return nn.softmax(h, axis=-1), jnp.sum(h, axis=0), x[:, ::2].sum(axis=1)
    g = tjit.jit(f, backend=backend, polymorphic_shapes=["(b, 5)", None])
    rng = np.random.default_rng(2)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    for b in (1, 7, 64):
        x = rng.standard_normal((b, 5)).astype(np.float32)
        T._close(g(x, w), T._interp(f, x, w))
    assert g._cache_size() == 1
