"""The ``opencl`` dialect on an OpenCL device (PoCL in CI): the conformance corpus
built as one program and run against ``kernel_ir.evaluate``. Skips with a reason
when pyopencl or a device with cl_khr_fp64 is missing."""

import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners

_MISSING = runners.opencl_unavailable()
pytestmark = [pytest.mark.opencl, pytest.mark.skipif(_MISSING is not None,
                                                     reason=str(_MISSING))]


@pytest.fixture(scope="module")
def built():
    srcs = runners.sources(corpus.all_cases(), "opencl")
    return srcs, runners.OpenCLRunner(srcs.values())


@pytest.mark.parametrize("group", corpus.case_names())
def test_conformance(built, group):
    srcs, runner = built
    conformance.run_group(group, runner, srcs)


#: groups whose kernels loop more than once per thread when the grid is tiny
STRIDE_GROUPS = ("pairs_int8", "red_row_float32", "red_acc_uint16", "stages", "gathers",
                 "hyperplanes", "prog_layernorm_grad", "prog_poly_batch")


@pytest.mark.parametrize("groups", [1, 3])
def test_grid_and_group_stride(built, groups):
    srcs, runner = built
    runner.max_groups, old = groups, runner.max_groups
    try:
        for name in STRIDE_GROUPS:
            conformance.run_group(name, runner, srcs)
    finally:
        runner.max_groups = old
