"""Wide lanes for row-style stages at every row length: a row that is not a multiple of
the beat's W lanes (ragged) or has a symbolic length keeps W lanes a step, each row's
last step masked (its lanes hold the fold's identity, so the lanes' fold tree keeps its
order); the streams around it cut their packets per row (``lanes.packet_row``); C
simulation against the interpreter, and the estimate counts ceil(N / W) steps a row."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.devices import hls_compile
from tjit.lower.c import streams

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _softmax(x):
    return nn.softmax(x, axis=-1)


def _softmax_and_exp(x):
    """A pointwise stage beside the row stage on one reader: it takes the row cut."""
    return nn.softmax(x, axis=-1), jnp.exp(x) * 2


def _close(f, x, got, tol=2e-6):
    want = tjit.jit(f, backend="interpreter")(x)
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def _design(c):
    (d,) = c.executable.designs.values()
    return d


@pytest.mark.parametrize("f,rows,n", [(_softmax, 5, 21), (_softmax, 2, 47),
                                      (_softmax_and_exp, 3, 7)],
                         ids=["softmax-21", "softmax-47", "with_pointwise-7"])
def test_ragged_rows_keep_16_lanes(f, rows, n):
    x = np.random.default_rng(n).standard_normal((rows, n)).astype(np.float32)
    c = tjit.jit(f).lower(x).compile(backend="hls")
    d = _design(c)
    assert {st.lanes for st in d.stages} == {16}
    assert {st.row for st in d.stages} == {n}          # every stage cuts rows of n
    assert {s.row for s in d.streams} == {n}
    assert d.port_lanes == [1] * len(d.ports)          # masked beats: element pointers
    steps = rows * -(-n // 16)
    (de,) = c.hls_report().designs
    assert all(e.trip == steps for e in de.stages), [(e.name, e.trip) for e in de.stages]
    _close(f, x, c(x))


@pytest.mark.usefixtures("x64")
def test_float64_ragged_rows_keep_8_lanes():
    x = np.random.default_rng(1).standard_normal((3, 13))
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    assert {st.lanes for st in _design(c).stages} == {8}
    _close(_softmax, x, c(x), tol=1e-13)


def test_masked_lanes_hold_the_identity_of_max_and_sum():
    """Rows whose real lanes are all below the masked lanes' zeros (max) and a row of
    one element: the masked lanes must not take part in either fold."""
    x = -100.0 - np.random.default_rng(2).random((4, 17)).astype(np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    _close(_softmax, x, c(x))
    y = np.array([[-3.0], [5.0]], np.float32)
    c1 = tjit.jit(_softmax).lower(y).compile(backend="hls")
    assert {st.lanes for st in _design(c1).stages} == {16}
    np.testing.assert_array_equal(np.asarray(c1(y)), np.ones((2, 1), np.float32))


def test_grad_of_ragged_softmax_rows():
    f = tjit.grad(lambda x: jnp.sum(_softmax(x) ** 2))
    x = np.random.default_rng(3).standard_normal((3, 19)).astype(np.float32)
    c = tjit.jit(f).lower(x).compile(backend="hls")
    assert {st.lanes for st in _design(c).stages} == {16}
    _close(f, x, c(x))


def test_symbolic_rows_keep_16_lanes():
    """One design for every (b, n): its row buffer holds SYMBOLIC_ROW_CAP elements and
    the design refuses longer rows with a clear error instead of overrunning it."""
    g = tjit.jit(_softmax, polymorphic_shapes=["(b, n)"])
    c = g.lower(np.zeros((2, 7), np.float32)).compile(backend="hls")
    d = _design(c)
    assert {st.lanes for st in d.stages} == {16}
    for shape in [(3, 7), (2, 16), (4, 33), (1, 1), (0, 5), (3, 0)]:
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        _close(_softmax, x, c(x))
    (de,) = c.hls_report(sizes={"b": 1000, "n": 1001}).designs
    assert [e.trip for e in de.stages] == [1000 * 63] * 3
    too_long = np.zeros((1, streams.SYMBOLIC_ROW_CAP + 1), np.float32)
    with pytest.raises(RuntimeError, match="SYMBOLIC_ROW_CAP"):
        c(too_long)


def test_estimate_of_softmax_1000_by_1001_keeps_16_lanes():
    """The estimate only (a million elements is minutes of C simulation): the row
    stage takes 63 steps a row on each of its passes, not 1001."""
    x = np.zeros((1000, 1001), np.float32)
    c = tjit.jit(_softmax).lower(x).compile(backend="hls")
    d = _design(c)
    assert {st.lanes for st in d.stages} == {16}
    (de,) = c.hls_report().designs
    rd, row_stage, wr = de.stages
    assert rd.trip == wr.trip == row_stage.trip == 1000 * 63
    # 3 passes a row (max, sum of exp, store) of 63 steps each, overlapping: one pass
    # over the rows plus two rows and the passes' slack (fpga/row_passes.py)
    assert 63 * 1000 < row_stage.cycles < 63 * 1000 + 3 * 63 + 200
