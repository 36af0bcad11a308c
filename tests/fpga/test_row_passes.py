"""Row-style stages at W lanes run their passes over a row (stage levels, then the store
pass) at once on different rows: one loop at II=1, pass p ``delay_p`` steps behind the
first (``fpga/row_passes.py``, ``lower/c/lanes.render_rows``). C simulation against the
interpreter at row lengths of 1, whole beats, ragged and symbolic rows; streams beside
the stage deep enough for its lag; the rendered schedule and the estimate's cycles
against their formula."""

import re

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.devices import hls_compile
from tjit.fpga.row_passes import row_lag, row_passes, row_slack

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _softmax(x):
    return nn.softmax(x, axis=-1)


def _softmax_plus_x(x):
    """x also goes to a pointwise stage beside the row stage: its stream must hold x
    until the row stage's output for the same points comes (two rows and the slack)."""
    return _softmax(x) + x


def _logsumexp_rows(x):
    """Two levels (max, sum of exp) and a value a row: no store pass."""
    m = jnp.max(x, axis=-1, keepdims=True)
    return jnp.log(jnp.sum(jnp.exp(x - m), axis=-1)) + m[:, 0]


def _close(f, got, *args, tol=2e-6):
    want = tjit.jit(f, backend="interpreter")(*args)
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def _design(c):
    (d,) = c.executable.designs.values()
    return d


def _row_stages(d):
    return [st for st in d.stages if st.kind == "kernel" and st.kernel.reduce_axes and
            st.kernel.row_style]


@pytest.mark.parametrize("f,n", [(_softmax, 16), (_softmax_plus_x, 1), (_softmax_plus_x, 21),
                                 (_softmax_plus_x, 100), (_logsumexp_rows, 1),
                                 (_logsumexp_rows, 37)],
                         ids=["softmax-16", "plus_x-1", "plus_x-21", "plus_x-100",
                              "logsumexp-1", "logsumexp-37"])
def test_overlapped_passes_match_the_interpreter(f, n):
    x = np.random.default_rng(n).standard_normal((7, n)).astype(np.float32)
    c = tjit.jit(f).lower(x).compile(backend="hls")
    (st,) = _row_stages(_design(c))
    assert st.lanes == 16
    _close(f, c(x), x)


def test_grad_of_softmax_rows_overlaps_its_passes():
    f = tjit.grad(lambda x: jnp.sum(_softmax(x) * jnp.arange(x.shape[1])))
    x = np.random.default_rng(4).standard_normal((6, 40)).astype(np.float32)
    c = tjit.jit(f).lower(x).compile(backend="hls")
    assert any(len(row_passes(st.kernel, st.lanes)) > 1 for st in _row_stages(_design(c)))
    _close(f, c(x), x, tol=1e-5)


def test_symbolic_rows_at_several_sizes():
    g = tjit.jit(_softmax_plus_x, polymorphic_shapes=["(b, n)"])
    c = g.lower(np.zeros((2, 7), np.float32)).compile(backend="hls")
    assert {st.lanes for st in _row_stages(_design(c))} == {16}
    for shape in [(3, 1), (2, 16), (4, 33), (5, 100), (2, 0), (0, 3)]:
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        _close(_softmax_plus_x, c(x), x)


def test_rendered_schedule_is_the_slack():
    """The row stage's loop delays its passes by S + slack steps (the design's
    ``row_slack``) and declares its row values and delay lines free of carried
    dependences; the stage compiles under -Wall -Werror (C simulation) and matches."""
    x = np.random.default_rng(0).standard_normal((4, 512)).astype(np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    d = _design(c)
    (st,) = _row_stages(d)
    slack = row_slack(st.kernel, 16)
    assert len(slack) == 2 and all(s > 0 for s in slack)
    delays = re.findall(r"const int64_t dl\d+ = \w+ \+ (\d+) \+ (\d+);", d.text)
    assert [(int(a), int(b)) for a, b in delays] == [(32, slack[0]), (32, slack[1])]
    assert d.text.count("#pragma HLS DEPENDENCE") >= 4 + 1     # 2 lines, 2 row values
    _close(_softmax, c(x), x)


@pytest.mark.parametrize("shape", [(8, 512), (5, 21), (3, 1)])
def test_estimate_is_one_pass_plus_the_delays(shape):
    """Cycles = rows x S + delay_last + ready_last, delay_last = (passes - 1) x S +
    the slacks; the trip is rows x S at II=1 (the passes were rows x sum(S + ready))."""
    x = np.zeros(shape, np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    (st,) = _row_stages(_design(c))
    passes = row_passes(st.kernel, 16)
    rows, s = shape[0], -(-shape[1] // 16)
    delay = (len(passes) - 1) * s + sum(p.ready for p in passes[:-1])
    (e,) = [e for e in c.hls_report().designs[0].stages if e.name == st.name]
    assert e.trip == rows * s and e.ii == 1
    assert e.cycles == rows * s + delay + passes[-1].ready
    assert e.hold == delay


def test_full_size_softmax_is_near_its_port_bound():
    """(8, 16, 512, 512): the pipeline time comes within 1% of the busiest port's
    (32 beats a row each way), where three passes one after another took 5.6 times it."""
    x = np.zeros((8, 16, 512, 512), np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    (de,) = c.hls_report().designs
    assert de.compute_s < 1.01 * de.port_s


def test_row_lag_counts_rows_and_slack():
    x = np.zeros((4, 100), np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    (st,) = _row_stages(_design(c))
    extra = sum(row_slack(st.kernel, 16))
    s = -(-100 // 16)
    assert row_lag(st.kernel, 16, 100) == (2 + extra // s) * 100 + min(extra % s * 16, 100)


def _layernorm(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5)


def test_symbolic_layernorm_takes_16_lanes():
    """Rows of a symbolic length n: the streams beside the row stages get the depth of
    the longest row the design accepts (SYMBOLIC_ROW_CAP), so x streams to every stage
    (read once) and the (b, n) stages take 16 lanes, each row's last beat masked."""
    g = tjit.jit(_layernorm, polymorphic_shapes=["(b, n)"])
    c = g.lower(np.zeros((4, 37), np.float32)).compile(backend="hls")
    d = _design(c)
    assert [r for _, r, *_ in d.ports] == ["in", "out"]
    assert not d.dram_intermediates
    wide = [st for st in d.stages if st.kind == "kernel" and len(st.kernel.shape) == 2 and
            str(st.kernel.shape[1]) == "n"]
    assert len(wide) == 3 and {st.lanes for st in wide} == {16}
    for shape in [(3, 1), (2, 16), (4, 37), (5, 100), (2, 0), (0, 5)]:
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        _close(_layernorm, c(x), x, tol=2e-5)
    with pytest.raises(RuntimeError, match="SYMBOLIC_ROW_CAP"):
        c(np.zeros((1, 8193), np.float32))
