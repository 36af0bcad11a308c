"""The C renderer's ``c`` dialect: the conformance corpus compiled with the system C
compiler (one shared library for all kernels) and run through ctypes, against
``kernel_ir.evaluate``; plus the renderer's errors and the op coverage."""

import numpy as np
import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tjit.lower.c import render
from tjit.xla_like import kernel_ir as K

pytestmark = pytest.mark.skipif(runners.c_unavailable() is not None,
                                reason=str(runners.c_unavailable()))


@pytest.fixture(scope="module")
def built():
    srcs = runners.sources(corpus.all_cases(), "c")
    return srcs, runners.CRunner(srcs.values())


@pytest.mark.parametrize("group", corpus.case_names())
def test_conformance(built, group):
    srcs, runner = built
    conformance.run_group(group, runner, srcs)


def test_corpus_covers_every_op_and_monoid():
    ops, monoids = set(), set()
    for c in corpus.all_cases():
        ops |= {n.op for n in K.all_nodes(c.kernel) if isinstance(n, K.Op)}
        monoids |= {s.monoid for s in c.kernel.stages}
    assert ops == set(K.UNARY_OPS) | set(K.BINARY_OPS) | set(K.OTHER_OPS)
    assert monoids == set(K.MONOIDS)


def test_source_is_deterministic_and_uses_helpers():
    k = corpus.cases("pairs_float32")[0].kernel
    a, b = render(k, "c", "f"), render(k, "c", "f")
    assert a.text == b.text and a.entry == "f"
    assert "fmaxf" not in a.text and "fminf" not in a.text   # NaN-propagating max/min
    assert [p.kind for p in a.params] == ["buffer"] * len(k.args)
    assert a.launch.kind == "pointwise"


def test_bad_kernels_raise():
    c64 = np.dtype("complex64")      # (float16: test_float16.py)
    x = K.Load(0, K.Affine(0, (1,)), c64)
    k = K.Kernel("bad", (4,), (K.Arg(c64, "in"), K.Arg(c64, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), K.Op("neg", (x,), c64)),))
    with pytest.raises(NotImplementedError, match="complex64"):
        render(k, "c")
    i32, i64 = np.dtype("int32"), np.dtype("int64")
    y = K.Load(0, K.Affine(0, (1,)), i32)
    k = K.Kernel("mixed", (4,), (K.Arg(i32, "in"), K.Arg(i32, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), K.Op("add", (y, K.Const(1, i64)),
                                                            i32)),))
    with pytest.raises(TypeError, match="one dtype"):
        render(k, "cuda")
    with pytest.raises(ValueError, match="unknown dialect"):
        render(k, "metal")


def test_loop_axes_merge_linear_runs_only():
    from tests.lower import test_codegen as T
    from tjit.lower.loops import plan_axes
    p = plan_axes(T.softmax_kernel(3, 4, 257))
    assert p.groups == ((0, 1), (2,)) and p.reduce == (False, True) and p.extents[0] == 12
    k, _ = T.reduction_kernel(T.F32, 9, 37, "acc")   # never across the reduce boundary
    assert plan_axes(k).groups == ((0,), (1,))
    sym = corpus.cases("symbolic")[0].kernel          # transposed read: kept apart
    assert plan_axes(sym).groups == ((0,), (1,))
    plane = corpus.cases("hyperplanes")[0].kernel     # the extent-1 plane axis is dropped
    assert plan_axes(plane).groups == ((1,),)
    text = render(corpus.cases("pairs_int8")[0].kernel, "cuda").text
    assert "% " in text                               # pairs: (x, y) grid, not linear
    flat = render(T.softmax_kernel(3, 4, 257), "cuda").text
    assert " % " not in flat.split("tj_floordiv")[-1]  # B*H: one index, no division


def test_launch_spec_counts_work_for_any_size():
    k = corpus.cases("symbolic")[0].kernel       # row style over (n, m): one group per row
    spec = render(k, "cuda").launch
    assert spec.kind == "row" and spec.local_size == 256
    assert spec.grid({"n": 40, "m": 33}) == (40, 256)
    assert spec.grid({"n": 10**6, "m": 2}, max_groups=4096) == (4096, 256)
    pw = render(corpus.cases("symbolic")[3].kernel, "opencl").launch   # floor(n/2) points
    assert pw.kind == "pointwise" and pw.vector == 2    # int64 pairs (long2)
    assert pw.items({"n": 9}) == 2 and pw.items({"n": 11}) == 3
    assert pw.grid({"n": 9}) == (1, 64)


def _case(group, name):
    return next(c for c in corpus.cases(group) if c.name == name)


def test_vector_path_where_stores_are_contiguous():
    axpy = _case("vectors", "vec_axpy_1_0_5").kernel
    cu, cl, c = (render(axpy, d) for d in ("cuda", "opencl", "c"))
    assert cu.launch.vector == cl.launch.vector == 4 and c.launch.vector == 1
    assert "make_float4" in cu.text and "vload4" in cl.text and "vstore4" in cl.text
    assert "& 15) == 0" in cu.text and "float4" not in c.text   # run-time alignment check
    # a store that ignores the innermost axis, or stores of two dtypes: scalar
    assert render(_case("maps", "maps").kernel, "cuda").launch.vector == 1
    assert render(corpus.cases("pairs_int8")[0].kernel, "cuda").launch.vector == 1


def test_column_tiles_split_many_reduced_points():
    col = _case("columns", "col_f32").kernel               # (1000, 37), sum over rows
    for d, local in (("cuda", 256), ("opencl", 64)):
        spec = render(col, d).launch
        assert spec.kind == "column" and spec.tile * spec.slices == local
        assert spec.slices > 1 and spec.grid() == (-(-37 // spec.tile), local)
    many = render(_case("columns", "col_many_kept").kernel, "cuda").launch
    assert many.slices == 1 and many.work == -(-70000 // 256)
    few = render(corpus.cases("red_acc_float32")[0].kernel, "cuda").launch   # 9 rows
    assert few.slices == 1
    assert render(col, "c").launch.slices == 1


def test_row_segments_by_row_length():
    """Warp rows (fewer lanes below 32, several rows a block), a block per long row,
    the group-per-row loops beyond; shuffles on CUDA, local memory on OpenCL."""
    def launch(n, dt=corpus.F32, d="cuda"):
        return render(corpus.row_kernel(3, n, dt), d)
    assert [launch(n).launch.rows for n in (1, 7, 32, 33, 1024, 2048, 8192)] == \
        [256, 32, 8, 8, 8, 1, 1]
    assert launch(512, corpus.F64).launch.rows == 8
    assert launch(600, corpus.F64).launch.rows == 1
    assert launch(9000).launch.rows == 1 and "lane" not in launch(9000).body
    warp, block = launch(100).body, launch(2048).body
    assert "__shfl_down_sync(0xffffffffu" in warp and "__syncthreads" not in warp
    assert "__shared__" in block and "__shfl_sync" not in block.split("__syncthreads")[-1]
    cl = launch(100, d="opencl").body
    assert "barrier(" in cl and "#pragma unroll" in cl
    assert launch(100).launch.grid() == (1, 256) and launch(7).launch.grid() == (1, 256)
    assert render(corpus.row_kernel(1000, 7, corpus.F32), "cuda").launch.grid() \
        == (-(-1000 // 32), 256)


def test_softmax_computes_exp_once_per_point():
    from tests.lower import test_codegen as T
    k = T.softmax_kernel(3, 4, 257)
    for d, name in (("c", "expf("), ("opencl", "exp("), ("cuda", "expf(")):
        assert render(k, d).body.count(name) == 1, d


def test_loop_pragmas_open_every_loop_body(tmp_path):
    """The HLS seam: a dialect's loop_pragmas lines open each loop body; c, opencl and
    cuda have none. The kernel still compiles and matches evaluate."""
    import dataclasses

    from tjit.lower.c import dialects
    seen = []

    def pragmas(innermost, trip):
        seen.append((innermost, trip))
        return (f"#pragma tjit_test innermost={int(innermost)}",)

    hls = dataclasses.replace(dialects.C, name="c", loop_pragmas=pragmas)
    case = _case("stages", "acc3")
    src = render(case.kernel, hls, "acc3_pragmas")
    assert src.text.count("#pragma tjit_test") == len(seen) == 3
    assert [i for i, _ in seen] == [False, False, True]    # kept, reduced (A, then C)
    assert [t for _, t in seen] == [6, 4, 5]
    assert "#pragma" not in render(case.kernel, "c").text
    assert all(d.loop_pragmas(True, 8) == () for d in dialects.DIALECTS.values()
               if d.name != "hls")
    conformance.run_case(case, runners.CRunner([src]), src)
