"""float16 kernels of the C-family renderer: the float16 corpus (``half_corpus.py``:
every op and conversion on edge values, ops that round per NumPy step, reductions and
row kernels) on the C compiler (``_Float16``), on PoCL (binary16 bits converted in
integer arithmetic, no cl_khr_fp16) and through NVRTC (PTX ``cvt``), against
``kernel_ir.evaluate`` bit for bit; marked ``cuda``, on a GPU too."""

import numpy as np
import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, half_corpus, runners
from tjit.lower.c import render
from tjit.xla_like import kernel_ir as K

F16 = np.dtype("float16")


def _nan_bits(case, runner, src):
    """Exact cases: float16 outputs equal evaluate's bits, NaN payloads included."""
    bufs = corpus.buffers(case)
    runner(src, bufs, case.sizes or {})
    for n, (g, w) in enumerate(zip([bufs[i] for i in corpus.output_args(case.kernel)],
                                   corpus.expected(case))):
        if g.dtype == F16:
            bad = g.view(np.uint16) != w.view(np.uint16)
            assert not bad.any(), f"{case.name} output {n}: bits {g.view(np.uint16)[bad][:4]}" \
                                  f" want {w.view(np.uint16)[bad][:4]}"


def _run_all(runner, srcs):
    errors = []
    for case in half_corpus.cases():
        try:
            conformance.run_case(case, runner, srcs[id(case.kernel)])
            if case.name.startswith("to_half_f"):   # (payloads of given NaNs, not
                _nan_bits(case, runner, srcs[id(case.kernel)])  # of computed ones)
        except AssertionError as e:
            errors.append(f"{case.name}: {str(e)[:600]}")
    assert not errors, "\n".join(errors)


@pytest.mark.skipif(runners.c_unavailable() is not None, reason=str(runners.c_unavailable()))
def test_c_dialect():
    srcs = runners.sources(half_corpus.cases(), "c")
    _run_all(runners.CRunner(srcs.values()), srcs)


@pytest.mark.opencl
@pytest.mark.skipif(runners.opencl_unavailable() is not None,
                    reason=str(runners.opencl_unavailable()))
@pytest.mark.parametrize("groups", [None, 2])
def test_opencl_dialect(groups):
    srcs = runners.sources(half_corpus.cases(), "opencl")
    text = runners.unit(srcs.values())
    assert "cl_khr_fp16" not in text and "tj_h2f" in text
    runner = runners.OpenCLRunner(srcs.values())
    if groups:      # (grid- and group-stride loops run several times)
        runner.max_groups = groups
    _run_all(runner, srcs)


@pytest.mark.skipif(runners.nvrtc_unavailable() is not None,
                    reason=str(runners.nvrtc_unavailable()))
def test_nvrtc_compiles():
    srcs = runners.sources(half_corpus.cases(), "cuda")
    ptx = runners.nvrtc_compile(runners.unit(srcs.values()), "compute_90")
    for s in srcs.values():
        assert f".entry {s.entry}(".encode() in ptx, s.entry
    assert b"cvt.rn.f16.f32" in ptx and b"cvt.rn.f16.f64" in ptx
    # (the only .ftz are libdevice's internal approximation steps (expf, tanhf), as in
    # float32 kernels; arithmetic, sqrt and the conversions keep subnormals)
    ftz = {ln.split()[0] for ln in ptx.decode().splitlines() if ".ftz" in ln}
    assert all(".approx." in op for op in ftz), ftz


@pytest.mark.cuda
@pytest.mark.skipif(runners.cuda_unavailable() is not None,
                    reason=str(runners.cuda_unavailable()))
def test_cuda_gpu():
    srcs = runners.sources(half_corpus.cases(), "cuda")
    _run_all(runners.CudaRunner(srcs.values()), srcs)


def test_every_half_value_rounds_as_numpy():
    """All 65536 halves through + and * by a constant, and float32 -> float16 of values
    around every half boundary, on the C compiler: the float-then-round form is NumPy's
    float16 result bit for bit (subnormals, ties to even, overflow to inf, NaN)."""
    if runners.c_unavailable() is not None:
        pytest.skip(runners.c_unavailable())
    f32 = np.dtype("float32")
    every = np.arange(65536, dtype=np.uint16).view(F16)
    row = K.Affine(0, (1,))
    x = K.Load(0, row, F16)
    y = K.Load(1, row, f32)
    k = K.Kernel("every_half", (65536,), (K.Arg(F16, "in"), K.Arg(f32, "in"))
                 + (K.Arg(F16, "out"),) * 3,
                 stores=(K.Store(2, row, K.Op("add", (x, K.Const(0.1, F16)), F16)),
                         K.Store(3, row, K.Op("mul", (x, K.Const(-1.5, F16)), F16)),
                         K.Store(4, row, K.Op("convert", (y,), F16))))
    finite = every[np.isfinite(every)].astype(f32)
    mids = np.nextafter(finite, np.float32(np.inf))   # just above each half (and ties)
    ys = np.resize(np.concatenate([mids, finite + np.float32(2.0**-25)]), 65536)
    case = corpus.Case("every_half", k, [every, ys])
    srcs = runners.sources([case], "c")
    conformance.run_case(case, runners.CRunner(srcs.values()), srcs[id(k)])


def test_hls_refuses_float16_clearly():
    k = half_corpus.cases()[0].kernel
    with pytest.raises(NotImplementedError, match="float16.*library call"):
        render(k, "hls", "h")
