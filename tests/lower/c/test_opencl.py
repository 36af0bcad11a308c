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


@pytest.mark.parametrize("groups", [1, 3])
def test_grid_and_group_stride(built, groups):
    srcs, runner = built
    conformance.run_stride_groups(runner, srcs, groups)
