"""The ``hls`` dialect of the C renderer on the conformance corpus
(``tests/lower/kernel_corpus.py``): every case's kernel rendered as a top-level HLS
kernel, all built as one C-simulation library (g++ -Wall -Werror against tjit's
simulation headers) and run against ``kernel_ir.evaluate``; plus what the source says
(pipeline, ports, interleaved partials, hls_math names)."""

import numpy as np
import pytest

from tests.lower import kernel_corpus as corpus
from tests.lower.c import conformance, runners
from tjit.devices import hls_compile
from tjit.lower.c import render

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


class HlsRunner:
    """Corpus kernels as one C-simulation library, called through ctypes."""

    def __init__(self, srcs):
        self.lib = hls_compile.load(runners.unit(srcs))

    __call__ = runners.CRunner.__call__


def _reassociated(case):
    """HLS folds float sums/products into interleaved partials: such a case compares
    within the corpus' float tolerance, as the threaded targets' sums do."""
    if case.mode == "exact" and any(s.monoid in ("sum", "prod") and
                                    np.dtype(s.dtype).kind == "f" for s in case.kernel.stages):
        case.mode = "close"
    return case


@pytest.fixture(scope="module")
def built():
    srcs = runners.sources(corpus.all_cases(), "hls")
    return srcs, HlsRunner(srcs.values())


@pytest.mark.parametrize("group", corpus.case_names())
def test_conformance(built, group):
    srcs, runner = built
    errors = []
    for case in corpus.cases(group):
        try:
            conformance.run_case(_reassociated(case), runner, srcs[id(case.kernel)])
        except AssertionError as e:
            errors.append(f"{case.name}: {str(e)[:600]}")
    assert not errors, "\n".join(errors)


def test_source_pipelines_and_ports():
    k = next(c.kernel for c in corpus.all_cases() if c.name == "softmax")
    src = render(k, "hls", "softmax")
    assert src.text.count("#pragma HLS PIPELINE II=1") >= 3   # max, sum, store passes
    assert "#pragma HLS INTERFACE m_axi port=a0 bundle=gmem0" in src.text
    assert "#pragma HLS INTERFACE m_axi port=a1 bundle=gmem1" in src.text
    assert "hls::exp(" in src.text and "expf(" not in src.text
    # the sum folds into 8 interleaved partials, folded pairwise
    assert "[8] = {" in src.text and "inter distance=8" in src.text


def test_symbolic_sizes_are_axilite_with_tripcount():
    k = next(c.kernel for c in corpus.all_cases() if c.kernel.size_symbols)
    src = render(k, "hls", "sym")
    assert "#pragma HLS INTERFACE s_axilite port=n_" in src.text
    assert "LOOP_TRIPCOUNT" in src.text


def test_dot_is_the_pe_grid_summing_in_k_order():
    """``a @ b`` on the hls backend: the grid of multiply-add PEs over partitioned
    buffers (``tiled_dot.py``; M = 40 rows, N = 20 columns: ragged against its grid),
    each output summing its products in increasing k: bit for bit a float32 loop over
    k; the estimate counts P x Q float32 multiply-adds (fmul 3 + fadd 2 DSPs)."""
    import tjit
    from tjit.lower.c import tiled_dot
    from tjit.lower.loops import plan_axes
    rng = np.random.default_rng(7)
    a = rng.standard_normal((40, 24)).astype(np.float32)
    b = rng.standard_normal((24, 20)).astype(np.float32)
    c = tjit.jit(lambda x, y: x @ y).lower(a, b).compile(backend="hls")
    assert "ARRAY_PARTITION variable=at" in c.executable.text
    want = np.zeros((40, 20), np.float32)
    for k in range(24):
        want = want + a[:, k:k + 1] * b[k:k + 1, :]
    np.testing.assert_array_equal(np.asarray(c(a, b)), want)
    (stage,) = [s for d in c.executable.designs.values() for s in d.stages
                if s.kind == "kernel"]
    dp = tiled_dot.match(stage.kernel, plan_axes(stage.kernel), grid=stage.grid)
    r = c.hls_report()
    (st,) = [s for s in r.designs[0].stages if s.kind == "kernel"]
    assert st.dsp == dp.p * dp.q * 5 and dp.p * dp.q > 16
