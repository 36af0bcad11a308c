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
