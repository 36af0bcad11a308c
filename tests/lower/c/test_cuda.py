"""The ``cuda`` dialect: every conformance kernel compiled by NVRTC (no GPU needed:
PTX for compute_90, so a syntax or type error fails here), and, marked ``cuda``, run
on a GPU against ``kernel_ir.evaluate``. The GPU test loads the NVRTC image with
``cupy.RawModule(path=...)``: ``RawModule(code=...)`` would add ``-ftz=true``.

    PYTHONPATH=. python3 -m pytest -m cuda tests/lower/c
"""

import numpy as np
import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tests.lower.test_codegen import fma_kernel
from tjit.lower.c import dialects, render
from tjit.xla_like import kernel_ir as K

_NO_NVRTC = runners.nvrtc_unavailable()


@pytest.mark.skipif(_NO_NVRTC is not None, reason=str(_NO_NVRTC))
def test_nvrtc_compiles_every_kernel():
    srcs = runners.sources(corpus.all_cases(), "cuda")
    ptx = runners.nvrtc_compile(runners.unit(srcs.values()), "compute_90")
    for s in srcs.values():
        assert f".entry {s.entry}(".encode() in ptx, s.entry



@pytest.mark.skipif(_NO_NVRTC is not None, reason=str(_NO_NVRTC))
def test_no_fma_contraction_no_ftz():
    """a*b+c stays a mul and an add (--fmad=false); options never flush subnormals."""
    f32 = np.dtype("float32")
    ld = [K.Load(i, K.Affine(0, (1,)), f32) for i in range(3)]
    k = K.Kernel("madd", (64,), (K.Arg(f32, "in"),) * 3 + (K.Arg(f32, "out"),),
                 stores=(K.Store(3, K.Affine(0, (1,)), K.Op("add", (K.Op(
                     "mul", (ld[0], ld[1]), f32), ld[2]), f32)),))
    ptx = runners.nvrtc_compile(render(k, "cuda", "madd").text, "compute_90")
    assert b"mul.rn.f32" in ptx and b"add.rn.f32" in ptx and b"fma" not in ptx
    assert b".ftz" not in ptx
    opts = dialects.CUDA.compile_options
    assert "--fmad=false" in opts and not any("fast" in o or o == "-ftz=true" for o in opts)


@pytest.mark.skipif(_NO_NVRTC is not None, reason=str(_NO_NVRTC))
def test_fma_is_one_fused_instruction():
    """The kernel IR's fma renders as fmaf/fma, an fma.rn even under --fmad=false; the
    a*b + c beside it stays a mul and an add."""
    for dt, sfx in (("float32", "f32"), ("float64", "f64")):
        k = fma_kernel(np.dtype(dt), 64)
        ptx = runners.nvrtc_compile(render(k, "cuda", "fused").text, "compute_90")
        assert f"fma.rn.{sfx}".encode() in ptx, dt
        assert f"mul.rn.{sfx}".encode() in ptx and f"add.rn.{sfx}".encode() in ptx, dt


@pytest.fixture(scope="module")
def built():
    srcs = runners.sources(corpus.all_cases(), "cuda")
    return srcs, runners.CudaRunner(srcs.values())


_NO_GPU = runners.cuda_unavailable()


@pytest.mark.cuda
@pytest.mark.skipif(_NO_GPU is not None, reason=str(_NO_GPU))
@pytest.mark.parametrize("group", corpus.case_names())
def test_conformance(built, group):
    srcs, runner = built
    conformance.run_group(group, runner, srcs)


@pytest.mark.cuda
@pytest.mark.skipif(_NO_GPU is not None, reason=str(_NO_GPU))
@pytest.mark.parametrize("groups", [1, 3])
def test_grid_and_group_stride(built, groups):
    srcs, runner = built
    conformance.run_stride_groups(runner, srcs, groups)
