"""Single-work-item OpenCL (the ``opencl_swi`` dialect, the style FPGA OpenCL compilers
pipeline) on PoCL: the conformance corpus against ``kernel_ir.evaluate`` and the
``"opencl_swi"`` backend on the OpenCL backend's program table and MLP training step
against the interpreter (the same functions as ``tests/devices/test_opencl_backend.py``)."""

import numpy as np
import pytest

import tjit
from tests.devices import test_opencl_backend as T
from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tjit.lower.c import render

_MISSING = runners.opencl_unavailable()
pytestmark = [pytest.mark.opencl, pytest.mark.skipif(_MISSING is not None,
                                                     reason=str(_MISSING))]


class SingleWorkItemRunner(runners.OpenCLRunner):
    """Each kernel launched as one work-item (global size 1, local size 1)."""

    def __call__(self, src, bufs, sizes):
        assert src.launch.local_size == 1
        groups = self.max_groups
        self.max_groups = 1          # (LaunchSpec.grid: one group of local_size 1)
        try:
            super().__call__(src, bufs, sizes)
        finally:
            self.max_groups = groups


@pytest.fixture(scope="module")
def built():
    srcs = runners.sources(corpus.all_cases(), "opencl_swi")
    return srcs, SingleWorkItemRunner(srcs.values())


@pytest.mark.parametrize("group", corpus.case_names())
def test_conformance(built, group):
    srcs, runner = built
    conformance.run_group(group, runner, srcs)


def test_kernels_are_loops_without_work_item_builtins():
    k = next(c.kernel for c in corpus.all_cases() if c.name == "softmax")
    text = render(k, "opencl_swi", "softmax").text
    assert "__kernel void softmax(" in text and "get_global_id" not in text
    assert "barrier" not in text and "for (long i0 = 0;" in text


def test_backend_program_table_and_mlp_step():
    args = T._table_args(np.random.default_rng(0))
    got = tjit.jit(T._table, backend="opencl_swi")(*args)
    want = T._interp(T._table, *args)
    for name in want:
        T._close(got[name], want[name], rtol=1e-4 if name == "all_sum" else 2e-5)
    rng = np.random.default_rng(3)
    p = {"w1": rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
         "b1": np.zeros(16, np.float32),
         "w2": rng.standard_normal((16, 3)).astype(np.float32) * 0.3,
         "b2": np.zeros(3, np.float32)}
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 3)).astype(np.float32)
    T._close(tjit.jit(T._sgd, backend="opencl_swi")(p, x, y), T._interp(T._sgd, p, x, y),
             rtol=1e-5, atol=1e-6)
