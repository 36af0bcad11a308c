"""Dots on the hls backend as the P x Q grid of multiply-add PEs (``lower/c/tiled_dot.py``)
through C simulation, and its estimate (``fpga/estimate.py``, ``fpga/dot_grid.py``).

Every output of the grid sums its products in increasing k from 0, one sequential sum
in the dot's dtype, whatever the grid and tiles: the tests compare bit for bit with a
NumPy loop over k in that dtype (two roundings a step, as g++ -ffp-contract=off), and
with the interpreter (NumPy's matmul, another order) within the bound of two sums of K
terms: ``|got - want| <= 2 K eps (|A| @ |B|)``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.c import runners
from tjit.devices import hls_compile
from tjit.fpga import dot_grid, estimate
from tjit.fpga.op_costs import PARTS
from tjit.lower.c import render, tiled_dot
from tjit.lower.loops import plan_axes

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _loop_dot(a, b):
    """``a @ b`` (leading batch axes) summed over k in increasing order in their dtype."""
    out = np.zeros(a.shape[:-1] + b.shape[-1:], a.dtype)
    with np.errstate(over="ignore"):
        for k in range(a.shape[-1]):
            out = out + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return out


def _operands(shape_a, shape_b, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":      # (large: the sums wrap)
        return (rng.integers(-2**20, 2**20, shape_a).astype(dtype),
                rng.integers(-2**20, 2**20, shape_b).astype(dtype))
    return (rng.standard_normal(shape_a).astype(dtype),
            rng.standard_normal(shape_b).astype(dtype))


def _dot_stages(c):
    return [st for d in c.executable.designs.values() for st in d.stages
            if st.kind == "kernel" and st.grid is not None]


def _check(f, a, b, ref_a, ref_b):
    c = tjit.jit(f).lower(a, b).compile(backend="hls")
    assert _dot_stages(c), "the dot is not in the grid template"
    assert "multiply-add PEs" in c.executable.text
    got = np.asarray(c(a, b))
    np.testing.assert_array_equal(got, _loop_dot(ref_a, ref_b))
    want = np.asarray(tjit.jit(f, backend="interpreter")(a, b))
    if got.dtype.kind == "f":
        bound = 2 * ref_a.shape[-1] * np.finfo(got.dtype).eps * (
            np.abs(ref_a).astype(np.float64) @ np.abs(ref_b).astype(np.float64))
        assert np.all(np.abs(got.astype(np.float64) - want) <= bound)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("m, k, n", [(40, 24, 20), (7, 13, 5), (33, 17, 2), (2, 50, 9),
                                     (100, 37, 70)])
def test_ragged_float32_dots_sum_in_k_order(m, k, n):
    a, b = _operands((m, k), (k, n), np.float32, seed=m + n)
    _check(lambda x, y: x @ y, a, b, a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.usefixtures("x64")
def test_float64_and_int32_dots(dtype):
    a, b = _operands((19, 23), (23, 11), dtype, seed=3)
    _check(lambda x, y: x @ y, a, b, a, b)


def test_transposed_operands_as_the_backward_pass_reads_them():
    """``x.T @ y`` (A read along m: its tile filled a row run at a time) and
    ``x @ y.T`` (B read across its rows), the forms of an MLP's weight and input
    gradients."""
    x, y = _operands((24, 40), (24, 18), np.float32, seed=4)
    _check(lambda p, q: p.T @ q, x, y, x.T, y)
    x, y = _operands((21, 30), (17, 30), np.float32, seed=5)
    _check(lambda p, q: p @ q.T, x, y, x, y.T)


def test_dot_general_with_batch_dims():
    a, b = _operands((3, 9, 14), (3, 14, 6), np.float32, seed=6)
    _check(lambda x, y: jnp.einsum("bmk,bkn->bmn", x, y), a, b, a, b)


def test_fused_epilogue():
    """Bias and ReLU fused into the dot's epilogue: the grid's sum, then the epilogue."""
    rng = np.random.default_rng(7)
    a, w = _operands((29, 31), (31, 12), np.float32, seed=7)
    bias = rng.standard_normal(12).astype(np.float32)
    got = np.asarray(tjit.jit(lambda x, y, z: jnp.maximum(x @ y + z, 0),
                              backend="hls")(a, w, bias))
    np.testing.assert_array_equal(got, np.maximum(_loop_dot(a, w) + bias, 0))


def _dot_kernel(a, b):
    c = tjit.jit(lambda x, y: x @ y).lower(a, b).compile(backend="hls")
    (st,) = _dot_stages(c)
    return st.kernel


@pytest.mark.parametrize("grid", [(1, 1), (3, 5), (7, 2), (64, 64), (16, 16)])
def test_any_grid_gives_the_same_bits(grid):
    """The kernel rendered on its own (top-level ports) at several grids: P, Q, RM and
    NC change, the sum's order does not."""
    a, b = _operands((45, 26), (26, 19), np.float32, seed=8)
    k = _dot_kernel(a, b)
    dp = tiled_dot.match(k, plan_axes(k), grid=grid)
    assert dp.p * dp.q <= grid[0] * grid[1] and dp.q <= 19
    assert dp.nc * dp.rm >= tiled_dot.ACC_DISTANCE      # (the adder's latency is covered)
    src = render(k, "hls", f"dot_{grid[0]}x{grid[1]}", dot_grid=grid)
    assert f"grid of {dp.p}x{dp.q} multiply-add PEs" in src.text
    lib = hls_compile.load(runners.unit([src]))
    out = np.zeros(45 * 19, np.float32)
    args = [out] * len(k.args)
    args[dp.a.arg], args[dp.b_arg] = a, b
    runners.CRunner.__call__(type("Lib", (), {"lib": lib})(), src, args, {})
    np.testing.assert_array_equal(out.reshape(45, 19), _loop_dot(a, b))


def test_estimate_cycles_and_dsp_of_a_grid():
    """(64, 32) @ (32, 48) float32 at grid (4, 8): Q = 8 columns, NC = 6 groups, RM = 16
    rounds (TM = 64: one tile), A read 8 a step along k (the fewest that read the tile
    in 1/8 of the grid's steps: P / (WA NC) <= 1/8); cycles = load (64 x 4 + 2) +
    K NC RM (32 x 6 x 16 = 3072, II 1) + depth (fmul 3 + fadd 4 + 2) + epilogue to a
    port (64 x 6 steps + 2); DSP = 4 x 8 PEs x (3 + 2)."""
    a, b = _operands((64, 32), (32, 48), np.float32, seed=9)
    k = _dot_kernel(a, b)
    dp = tiled_dot.match(k, plan_axes(k), grid=(4, 8))
    assert (dp.p, dp.q, dp.nc, dp.rm, dp.tiles, dp.wa) == (4, 8, 6, 16, 1, 8)
    e = estimate.stage_estimate(k, "dot", grid=(4, 8))
    assert e.trip == 64 * 48 * 32 // (4 * 8) and e.ii == 1 and e.depth == 9
    assert e.cycles == 258 + 3072 + 9 + 386
    assert e.dsp == 4 * 8 * 5
    # streamed out, one element a step: the epilogue takes Q steps a column group
    assert estimate.stage_estimate(k, "dot", grid=(4, 8), streamed_out=True).cycles == \
        258 + 3072 + 9 + 64 * 6 * 8 + 2


def test_grids_share_the_parts_dsps():
    """A design's dots share DOT_DSP_SHARE of the part's DSPs, by the square root of
    their multiply-adds; a lone dot's grid is what its output can use."""
    assert dot_grid.mac_dsp(np.float32) == 5 and dot_grid.mac_dsp(np.float64) == 13
    assert dot_grid.grid_for(256, 1024, 1353) == (42, 32)
    assert dot_grid.grid_for(256, 10, 1353) == (135, 10)
    a, b = _operands((256, 64), (64, 128), np.float32, seed=10)
    k = _dot_kernel(a, b)
    small = _dot_kernel(*_operands((16, 8), (8, 4), np.float32, seed=11))
    grids = dot_grid.dot_grids([k, small, k], "u280")
    budget = dot_grid.DOT_DSP_SHARE * PARTS["u280"].dsp
    used = sum(p * q * 5 for p, q in grids.values())
    assert set(grids) == {0, 1, 2} and budget * 0.9 <= used <= budget
    assert grids[0] == grids[2] and grids[1][0] * grids[1][1] < grids[0][0] * grids[0][1]
