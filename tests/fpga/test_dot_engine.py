"""The shared matrix-multiply engine of a design's dots (``fpga/dot_engine.py``): a
chain of dots runs on one PE grid, one dot after another, through HLS C simulation
against the interpreter and a NumPy loop over k (the template's summation order: bit
for bit); dots that can overlap keep grids of their own; the estimate sequences the
engine's dots.

The card is made small (``PARTS["u280"]`` with 200 DSPs: 150 for the dots, 30 float32
PEs) so that the dots of C-simulation size are bound by DSPs, as the MLP step's are on
a real U280: with the card's 9024 DSPs a 37 x 29 dot gets a PE per output anyway."""

import dataclasses

import numpy as np
import pytest

import tjit
from tjit.devices import hls_compile
from tjit.fpga import dot_engine, estimate
from tjit.fpga.op_costs import PARTS
from tjit.lower.c import tiled_dot
from tjit.lower.loops import plan_axes

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


@pytest.fixture
def small_card(monkeypatch):
    monkeypatch.setitem(PARTS, "u280", dataclasses.replace(PARTS["u280"], dsp=200))


def _loop_dot(a, b):
    """``a @ b`` summed over k in increasing order in their dtype (wrapping ints)."""
    out = np.zeros(a.shape[:-1] + b.shape[-1:], a.dtype)
    with np.errstate(over="ignore"):
        for k in range(a.shape[-1]):
            out = out + a[:, k:k + 1] * b[k:k + 1, :]
    return out


def _chain(x, w1, w2, w3):
    return ((x @ w1) @ w2) @ w3


def _operands(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":     # (large: the sums wrap)
        return [rng.integers(-2**12, 2**12, s).astype(dtype) for s in shapes]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _design(c):
    (d,) = c.executable.designs.values()
    return d


@pytest.mark.usefixtures("small_card")
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_a_chain_of_three_ragged_dots_runs_on_one_engine(dtype):
    args = _operands([(37, 29), (29, 23), (23, 31), (31, 19)], dtype, seed=1)
    c = tjit.jit(_chain).lower(*args).compile(backend="hls")
    d = _design(c)
    dots = [st for st in d.stages if st.grid is not None]
    assert len(dots) == 3
    assert {st.engine for st in dots} == {"tjit_p0_d0_mm_engine"}
    assert len({st.grid for st in dots}) == 1          # (one grid for all)
    p, q = dots[0].grid
    assert p * q * 5 <= 150 if dtype == np.float32 else p * q * 4 <= 150
    assert not d.streams                                # (engine dots: buffers only)
    text = d.text
    assert text.count('TJ_STAGE("tjit_p0_d0_mm_engine"') == 1
    assert text.count("TJ_STAGE(") == 1                 # (the dots are not stages)
    op = "fmul" if dtype == np.float32 else "mul"
    assert f"ALLOCATION operation instances={op} limit=" in text
    # (one A tile and one set of accumulators for the three dots, at file scope)
    assert text.count("TJ_ENGINE_TILE float") + text.count("TJ_ENGINE_TILE int") == 2
    assert "tjit_p0_d0_at[" in text and "tjit_p0_d0_acc[" in text
    got = np.asarray(c(*args))
    x, w1, w2, w3 = args
    np.testing.assert_array_equal(got, _loop_dot(_loop_dot(_loop_dot(x, w1), w2), w3))
    want = np.asarray(tjit.jit(_chain, backend="interpreter")(*args))
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:   # (the interpreter's matmul sums in another order: three sums' rounding)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.usefixtures("small_card")
def test_dots_that_can_overlap_keep_their_own_grids():
    """``(x @ a, y @ b)``: neither dot waits for the other; their grids share the DSPs
    and run at once, which one engine cannot beat."""
    x, a, y, b = _operands([(40, 24), (24, 20), (40, 24), (24, 20)], np.float32, seed=2)
    f = lambda x, a, y, b: (x @ a, y @ b)
    c = tjit.jit(f).lower(x, a, y, b).compile(backend="hls")
    dots = [st for st in _design(c).stages if st.grid is not None]
    assert len(dots) == 2 and all(st.engine is None for st in dots)
    assert "mm_engine" not in _design(c).text
    got = c(x, a, y, b)
    np.testing.assert_array_equal(np.asarray(got[0]), _loop_dot(x, a))
    np.testing.assert_array_equal(np.asarray(got[1]), _loop_dot(y, b))


@pytest.mark.usefixtures("small_card")
def test_the_choice_compares_the_longest_path_with_the_sum():
    """The chain's grids split 30 PEs three ways yet run one at a time: the engine's
    sum of steps is far below their longest path. The same dots without dependencies
    run their grids at once: about the engine's time, so they keep their grids."""
    args = _operands([(37, 29), (29, 23), (23, 31), (31, 19)], np.float32, seed=3)
    c = tjit.jit(_chain).lower(*args).compile(backend="hls")
    steps = [type("Step", (), {"kernel": st.kernel, "ins": (), "outs": ()})
             for st in _design(c).stages]
    for n, st in enumerate(steps[1:], 1):       # (a chain: each reads the one before)
        st.ins, steps[n - 1].outs = (n,), (n,)
    chain = dot_engine.plan_dots(steps)
    assert chain.engine == [0, 1, 2]
    assert chain.engine_steps <= dot_engine.ENGINE_GAIN * chain.grid_steps
    for st in steps:
        st.ins, st.outs = (), ()
    apart = dot_engine.plan_dots(steps)         # (no dependencies: all overlap)
    assert apart.engine == [] and apart.engine_steps == chain.engine_steps
    assert apart.grid_steps > dot_engine.ENGINE_GAIN * apart.engine_steps
    # (apart, the grids' time is the longest dot's: far below the chain's sum)
    assert 2 * apart.grid_steps < chain.grid_steps


@pytest.mark.usefixtures("small_card")
def test_estimate_of_the_engine():
    """Each dot's cycles at the engine's grid, by hand for the first: (37, 29) @
    (29, 23) float32 at grid (7, 4): Q = 4, NC = 6 groups, RM = 6 rounds (TM = 42: one
    tile), A read 16 a step along k; cycles = load (42 x 2 + 2) + K NC RM (29 x 6 x 6 =
    1044, II 1) + depth (fmul 3 + fadd 4 + 2) + epilogue to a buffer (42 x 6 + 2).
    The engine runs its dots one after another: the design's latency is their sum;
    its DSPs are one grid's."""
    args = _operands([(37, 29), (29, 23), (23, 31), (31, 19)], np.float32, seed=4)
    c = tjit.jit(_chain).lower(*args).compile(backend="hls")
    d = _design(c)
    first = d.stages[0]
    assert first.grid == (7, 4)
    dp = tiled_dot.match(first.kernel, plan_axes(first.kernel), grid=first.grid)
    assert (dp.p, dp.q, dp.nc, dp.rm, dp.tiles, dp.wa) == (7, 4, 6, 6, 1, 16)
    assert dot_engine.dot_steps(first.kernel, first.grid) == 29 * 6 * 6
    r = c.hls_report()
    (de,) = r.designs
    e0 = de.stages[0]
    assert e0.cycles == (42 * 2 + 2) + 1044 + 9 + (42 * 6 + 2)
    assert de.latency_cycles == sum(e.cycles for e in de.stages)
    assert de.dsp == max(e.dsp for e in de.stages) == 7 * 4 * 5


def test_b_read_across_its_rows_is_staged_in_panels():
    """``x @ y.T`` (B contiguous along k only, as the MLP's backward dots read it):
    B is staged a column group at a time (``b_panel`` k a step), so the grid keeps
    II = 1. (21, 30) @ (30, 17) at grid (4, 8): P = 3 (RM = 8 rounds cover the 21
    rows), Q = 8, NC = 3, A read 8 a step; cycles = A's tile (24 x 4 + 2) + the panels
    (3 x (8 x 2 + 2 + 9)) + K NC RM (30 x 3 x 8) + depth 9 + epilogue (24 x 3 + 2);
    bit for bit the loop over k."""
    x, y = _operands([(21, 30), (17, 30)], np.float32, seed=5)
    c = tjit.jit(lambda p, q: p @ q.T).lower(x, y).compile(backend="hls")
    (st,) = [s for s in _design(c).stages if s.grid is not None]
    dp = tiled_dot.match(st.kernel, plan_axes(st.kernel), grid=(4, 8))
    assert (dp.p, dp.q, dp.rm, dp.nc, dp.wa, dp.b_lanes, dp.b_panel) == (3, 8, 8, 3, 8, 1, 16)
    e = estimate.stage_estimate(st.kernel, "dot", grid=(4, 8))
    assert e.ii == 1 and e.cycles == (24 * 4 + 2) + 3 * (8 * 2 + 2 + 9) + 720 + 9 + 74
    np.testing.assert_array_equal(np.asarray(c(x, y)), _loop_dot(x, y.T))


@pytest.mark.usefixtures("small_card")
def test_the_engine_takes_the_dot_that_is_ready_first():
    """Dots A, B, C on the engine and a slow stage S between A and B (a transpose of one
    point a step): in design order the engine would wait for S before B; the list
    schedule runs C (ready when A is) first."""
    args = _operands([(37, 29), (29, 23), (23, 31), (31, 19)], np.float32, seed=6)
    c = tjit.jit(_chain).lower(*args).compile(backend="hls")
    k = [st.kernel for st in _design(c).stages]

    def step(kernel, ins, outs):
        return type("Step", (), {"kernel": kernel, "ins": ins, "outs": outs})
    slow = type("Slow", (), {"shape": (10**6,)})
    steps = [step(k[0], (), (1,)), step(slow, (1,), (2,)), step(k[1], (2,), (3,)),
             step(k[2], (1,), (4,))]
    choice = dot_engine.DotPlanChoice({0: (7, 4), 2: (7, 4), 3: (7, 4)}, [0, 2, 3], 0, 0)
    assert dot_engine.engine_order(steps, choice) == [0, 1, 3, 2]
    # (a fast S: B's input is ready before C's, so B runs first, the design's order)
    steps[1] = step(type("Fast", (), {"shape": (1,)}), (), (2,))
    assert dot_engine.engine_order(steps, choice) == [0, 1, 2, 3]


@pytest.mark.usefixtures("small_card")
def test_calls_from_several_threads_keep_their_own_engine_tiles():
    """The engine's A tile and accumulators are per call in C simulation (a stage
    thread's own): four threads calling one compiled chain at once get their own
    products."""
    import concurrent.futures
    shapes = [(97, 89), (89, 83), (83, 91), (91, 79)]
    c = tjit.jit(_chain).lower(*_operands(shapes, np.float32, seed=0)).compile(backend="hls")
    argsets = [_operands(shapes, np.float32, seed=10 + i) for i in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda a: np.asarray(c(*a)), argsets * 4))
    for a, got in zip(argsets * 4, outs):
        x, w1, w2, w3 = a
        np.testing.assert_array_equal(got, _loop_dot(_loop_dot(_loop_dot(x, w1), w2), w3))
