"""Vectorized pointwise kernels with more work per thread (``Dialect.chunk_vectors``:
adjacent 16-byte vectors a chunk; ``Dialect.chunk_unroll``: chunks a grid apart per
grid-stride step), against ``kernel_ir.evaluate``: on the OpenCL device (PoCL in CI:
the renderer is shared, so this checks the CUDA variants' logic), compiled by NVRTC
for every CUDA variant, and, marked ``cuda``, run on a GPU (``RUN_VARIANTS``).

The cases sit around the chunk sizes (4 to 16 float32 points a chunk): lengths with
tails of every size, loads and stores at offsets that misalign every chunk, some rows
or nothing (16 bytes = 4 float32), rows shorter than two wide chunks, per-row and
broadcast operands, iotas, float64 and int32, the pointwise kernels of jitted Mish
grad, an MLP step and a batch-polymorphic program; each also on a grid of one group,
so that threads loop and a step's later chunks fall past the end.
"""

import dataclasses
import re

import numpy as np
import pytest
import sympy

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tjit.devices import cuda_pointwise
from tjit.lower.c import dialects, render
from tjit.xla_like import kernel_ir as K

F32, F64, I32 = np.dtype("float32"), np.dtype("float64"), np.dtype("int32")
WIDE = [v for v in cuda_pointwise.VARIANTS if v != cuda_pointwise.DEFAULT]
PROGRAMS = ("prog_mish_grad", "prog_mlp_step", "prog_poly_batch")


def _variant(dialect, name):
    v, u = cuda_pointwise.parse(name)
    return dataclasses.replace(dialect, chunk_vectors=v, chunk_unroll=u)


def _line(name, dt, n, x_at, out_at, op):
    """out[out_at + i] = op(x[x_at + i], y[i]) over i < n (symbolic)."""
    x = K.Load(0, K.Affine(x_at, (1,)), dt)
    y = K.Load(1, K.Affine(0, (1,)), dt)
    k = K.Kernel(name, (n,), (K.Arg(dt, "in"), K.Arg(dt, "in"), K.Arg(dt, "out")),
                 stores=(K.Store(2, K.Affine(out_at, (1,)), op(x, y)),),
                 size_symbols=(str(n),))
    return k


def _rows(R, C):
    """(R, C) float32: x * row factor + (broadcast row - iota), and exp(x)."""
    x = K.Load(0, K.Affine(0, (C, 1)), F32)
    b = K.Load(1, K.Affine(0, (0, 1)), F32)
    sc = K.Load(2, K.Affine(0, (1, 0)), F32)
    iota = K.IndexValue(K.Affine(0, (C, 1)), F32)
    e = K.Op("add", (K.Op("mul", (x, sc), F32), K.Op("sub", (b, iota), F32)), F32)
    return K.Kernel(f"rows_{R}x{C}", (R, C), (K.Arg(F32, "in"),) * 3 +
                    (K.Arg(F32, "out"),) * 2,
                    stores=(K.Store(3, K.Affine(0, (C, 1)), e),
                            K.Store(4, K.Affine(0, (C, 1)), K.Op("exp", (x,), F32))))


def _cases():
    n = sympy.Symbol("n", integer=True, positive=True)
    rng = np.random.default_rng(5)
    out = []

    def axpy(x, y):
        return K.Op("add", (K.Op("mul", (x, K.Const(2.5, x.dtype)), x.dtype), y), x.dtype)

    def wrap(x, y):         # int32 products wrap
        return K.Op("add", (K.Op("mul", (x, y), I32), K.Const(7, I32)), I32)

    lengths = {F32: (1, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 1029),
               F64: (3, 4, 5, 8, 9, 17, 33), I32: (5, 16, 17, 47)}
    offsets = {F32: ((0, 0), (1, 0), (0, 2), (4, 4), (3, 5), (8, 0)),
               F64: ((0, 0), (1, 0), (0, 3)), I32: ((0, 0), (2, 1))}
    for dt, op in ((F32, axpy), (F64, axpy), (I32, wrap)):
        for xo, so in offsets[dt]:
            k = _line(f"line_{dt.name}_{xo}_{so}", dt, n, xo, so, op)
            for nv in lengths[dt]:
                if dt.kind == "f":
                    xs = rng.standard_normal(nv + xo).astype(dt)
                    ys = rng.standard_normal(nv).astype(dt)
                else:
                    xs = rng.integers(-2**31, 2**31, nv + xo, dtype=np.int64).astype(dt)
                    ys = rng.integers(-2**31, 2**31, nv, dtype=np.int64).astype(dt)
                out.append(corpus.Case(f"{k.name}_n{nv}", k, [xs, ys], {"n": nv}))
    for R, C in ((5, 12), (13, 37), (9, 40), (3, 300)):
        out.append(corpus.Case(f"rows_{R}x{C}", _rows(R, C), [
            rng.standard_normal(s).astype(F32) for s in (R * C, C, R)], mode="close"))
    out += list(corpus.cases("vectors"))
    for p in PROGRAMS:
        out += list(corpus.cases(p))
    return out


CASES = _cases()
#: the cases whose kernel is a vectorized pointwise one (the others render the same in
#: every variant: ``test_other_kernels_render_unchanged``)
VECTOR_CASES = [c for c in CASES if render(c.kernel, "cuda").launch.vector > 1]
#: run on PoCL and on a GPU (compiles dominate; NVRTC compiles every variant): 2x2 takes
#: every path of the variants (V adjacent vectors inside U-chunk steps), 4x1 the widest
#: chunks and the short-row fallback
RUN_VARIANTS = ("2x2", "4x1")


def _first(name_start):
    return next(c for c in CASES if c.name.startswith(name_start))


def test_wide_chunks_render_the_variant_and_size_the_grid():
    k = _first("line_float32_0_0").kernel
    base = render(k, "cuda").launch      # (the default: 1x2)
    assert (base.vector, base.unroll) == (4, 2)
    for name in WIDE:
        v, u = cuda_pointwise.parse(name)
        src = render(k, cuda_pointwise.dialect(name))
        assert (src.launch.vector, src.launch.unroll) == (4 * v, u), name
        assert src.text.count("*(const float4 *)") >= 2 * v * u, name
        # a work item is a chunk; a thread takes u of them per step
        assert src.launch.items({"n": 4 * v * 1000}) == 1000
        assert src.launch.grid({"n": 4 * v * 1000}) == (-(-1000 // (256 * u)), 256)
        assert src.launch.grid({"n": 1}) == (1, 256)
    # rows shorter than two wide chunks keep one vector a chunk
    short = render(_rows(5, 12), cuda_pointwise.dialect("2x1")).launch
    assert (short.vector, short.unroll) == (4, 1)
    assert render(_rows(9, 40), cuda_pointwise.dialect("2x1")).launch.vector == 8
    # the default is the plain cuda dialect: sources unchanged
    assert cuda_pointwise.dialect(cuda_pointwise.DEFAULT) is dialects.CUDA


def test_other_kernels_render_unchanged():
    others = [c.kernel for c in CASES if c not in VECTOR_CASES]
    assert len(others) >= 5 and len(VECTOR_CASES) >= 100
    for name in WIDE:
        d = cuda_pointwise.dialect(name)
        for k in {id(k): k for k in others}.values():
            assert render(k, d).text == render(k, "cuda").text, (name, k.name)


def test_bad_variant_names_the_choices():
    with pytest.raises(ValueError, match=r"TJIT_CUDA_POINTWISE='3x1'.*1x1, 2x1"):
        cuda_pointwise.parse("3x1")


_NO_CL = runners.opencl_unavailable()


@pytest.mark.opencl
@pytest.mark.skipif(_NO_CL is not None, reason=str(_NO_CL))
@pytest.mark.parametrize("name", RUN_VARIANTS)
def test_wide_chunks_match_evaluate_on_opencl(name):
    d = _variant(dialects.OPENCL, name)
    srcs = runners.sources(VECTOR_CASES, d)
    assert any(s.launch.unroll == d.chunk_unroll and s.launch.vector >= 4 * d.chunk_vectors
               for s in srcs.values())
    runner = runners.OpenCLRunner(srcs.values())
    _run_all(runner, srcs)


def _run_all(runner, srcs):
    errors = []
    for groups in (None, 1):     # the default grid; one group: every thread loops
        if groups is not None:
            runner.max_groups = groups
        for case in VECTOR_CASES:
            try:
                conformance.run_case(case, runner, srcs[id(case.kernel)])
            except AssertionError as e:
                errors.append(f"{case.name} (groups {groups}): {str(e)[:400]}")
    assert not errors, "\n".join(errors)


_NO_NVRTC = runners.nvrtc_unavailable()


@pytest.mark.skipif(_NO_NVRTC is not None, reason=str(_NO_NVRTC))
def test_nvrtc_compiles_every_cuda_variant():
    """One unit of every case in every variant, to PTX for compute_90; the wide
    variants load more 16-byte vectors per thread than the default."""
    srcs, loads = [], {}
    for name in cuda_pointwise.VARIANTS:
        d = cuda_pointwise.dialect(name)
        for s in runners.sources(VECTOR_CASES, d).values():
            srcs.append(dataclasses.replace(s, body=s.body.replace(
                s.entry, f"{s.entry}_{name.replace('x', '_')}")))
    ptx = runners.nvrtc_compile(runners.unit(srcs), "compute_90").decode()
    entries = re.split(r"\.entry ", ptx)[1:]
    assert len(entries) == len(srcs)
    for e in entries:
        name = e.split("(")[0]
        if name.startswith("k0_line_float32_0_0_"):     # (aligned float32)
            loads[name[-3:]] = len(re.findall(r"ld\.global(?:\.nc)?\.v4\.f32", e))
    assert loads["1_1"] == 2 and loads["2_1"] == 4 and loads["4_1"] == 8
    assert loads["1_2"] >= 4 and loads["2_2"] >= 8


def test_the_session_nvrtc_check_compiles_the_variants():
    """Every vectorized pointwise kernel a test session makes is also checked in every
    wide variant (``nvrtc_check._variants``); other kernels once."""
    from tests.lower.c import nvrtc_check
    k = _first("line_float32_0_0").kernel
    src = render(k, "cuda")
    got = nvrtc_check._variants(k, src)
    assert [(s.launch.vector, s.launch.unroll) for s in got] == \
        [(4 * v, u) for v, u in map(cuda_pointwise.parse, WIDE)]
    assert len({s.entry for s in got} | {src.entry}) == len(WIDE) + 1
    other = next(c.kernel for c in CASES if c not in VECTOR_CASES)
    assert nvrtc_check._variants(other, render(other, "cuda")) == []


_NO_GPU = runners.cuda_unavailable()


@pytest.mark.cuda
@pytest.mark.skipif(_NO_GPU is not None, reason=str(_NO_GPU))
@pytest.mark.parametrize("name", RUN_VARIANTS)
def test_wide_chunks_match_evaluate_on_the_gpu(name):
    d = cuda_pointwise.dialect(name)
    srcs = runners.sources(VECTOR_CASES, d)
    _run_all(runners.CudaRunner(srcs.values()), srcs)
