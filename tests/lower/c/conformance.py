"""One conformance run: a corpus case on a built target against ``kernel_ir.evaluate``."""

from tests.lower import kernel_corpus as corpus


def run_case(case, runner, src):
    """Run ``case`` through ``runner`` (a runners.*Runner) and check its outputs."""
    bufs = corpus.buffers(case)
    runner(src, bufs, case.sizes or {})
    got = [bufs[i] for i in corpus.output_args(case.kernel)]
    corpus.check(case, got, corpus.expected(case))


def run_group(name, runner, srcs):
    """All cases of corpus group ``name``; raises with every failing case listed."""
    errors = []
    for case in corpus.cases(name):
        try:
            run_case(case, runner, srcs[id(case.kernel)])
        except AssertionError as e:
            errors.append(f"{case.name}: {str(e)[:600]}")
    assert not errors, "\n".join(errors)


#: groups whose kernels loop more than once per thread when the grid is tiny
STRIDE_GROUPS = ("pairs_int8", "red_row_float32", "red_acc_uint16", "stages", "gathers",
                 "hyperplanes", "prog_layernorm_grad", "prog_poly_batch", "vectors",
                 "columns", "rows")


def run_stride_groups(runner, srcs, groups):
    """STRIDE_GROUPS on a grid of at most ``groups`` work-groups/blocks, so the grid- and
    group-stride loops run more than once per thread."""
    runner.max_groups, old = groups, runner.max_groups
    try:
        for name in STRIDE_GROUPS:
            run_group(name, runner, srcs)
    finally:
        runner.max_groups = old
