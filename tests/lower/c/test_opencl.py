"""The ``opencl`` dialect on an OpenCL device (PoCL in CI): the conformance corpus
built as one program and run against ``kernel_ir.evaluate``. Skips with a reason
when pyopencl or a device with cl_khr_fp64 is missing."""

import dataclasses

import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tjit.lower.c import dialects

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


def test_row_segments_in_groups_of_256():
    """The row forms at CUDA's block size: segments of 1 to 256 lanes folded in local
    memory with barriers (rows of 2048 and 3001 float32 take a whole group), on a grid
    of at most 2 groups so the group-stride loop runs several times."""
    wide = dataclasses.replace(dialects.OPENCL, local_size=256)
    some = ("rows_70x7_float32", "rows_9x31_float32", "rows_3x2048_float32",
            "rows_2x3001_float32", "rows_37x5_int32", "rows_bool_40", "rows_11x9_float64")
    cases = [c for c in corpus.cases("rows") if c.name in some]
    srcs = runners.sources(cases, wide)
    assert len(cases) == len(some)
    assert {s.launch.rows for s in srcs.values()} == {1, 4, 8, 16, 32}
    runner = runners.OpenCLRunner(srcs.values())
    runner.max_groups = 2
    for case in cases:
        conformance.run_case(case, runner, srcs[id(case.kernel)])
