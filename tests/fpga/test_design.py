"""Dataflow designs (``tjit/fpga/design.py``) and their estimate (``estimate.py``):
Mish fwd+bwd and softmax stream every intermediate (no DRAM), layernorm's stream that
bypasses a row-style stage is deep enough, an under-sized stream deadlocks in C
simulation and is reported with the stage and stream names, and a pipelined
elementwise stage costs its trip count + pipeline depth cycles at II=1."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.devices import hls, hls_compile
from tjit.fpga import estimate, op_costs
from tjit.fpga.row_passes import row_slack

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _mish(x):
    return x * jnp.tanh(jnp.log1p(jnp.exp(x)))


def _mish_fwd_bwd(x):
    y, vjp = tjit.vjp(_mish, x)
    return y, vjp(jnp.ones_like(y))[0]


def _softmax(x):
    return nn.softmax(x, axis=-1)


def _layernorm(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5)


def _x(shape=(16, 64), seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _compiled(f, *args):
    return tjit.jit(f).lower(*args).compile(backend="hls")


def _design(c):
    (d,) = c.executable.designs.values()
    return d


@pytest.mark.parametrize("f", [_mish_fwd_bwd, _softmax], ids=["mish_fwd_bwd", "softmax"])
def test_streams_and_no_dram_intermediates(f):
    x = _x()
    c = _compiled(f, x)
    d = _design(c)
    assert d.streams and not d.dram_intermediates and not d.buffers
    kinds = [s.kind for s in d.stages]
    assert kinds[0] == "read" and kinds[-1] == "write" and "kernel" in kinds
    assert "#pragma HLS DATAFLOW" in d.text and "hls::stream<" in d.text
    for g, w in zip(tjit.tree_util.tree_leaves(c(x)),
                    tjit.tree_util.tree_leaves(tjit.jit(f, backend="interpreter")(x))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_pointwise_design_moves_16_float32_lanes_a_step():
    """Mish fwd+bwd is pointwise: every stage takes a 512-bit beat (16 float32 lanes) a
    step, its streams carry hls::vector<float, 16> packets, and the estimate counts
    ceil(points / 16) steps; a size that is not a multiple of 16 keeps 16 lanes, its last
    step masked, its ports pointers to elements (tests/fpga/test_lane_tail.py). Both
    match the interpreter."""
    ref = tjit.jit(_mish_fwd_bwd, backend="interpreter")
    for shape, whole in (((16, 64), True), ((5, 7), False)):
        x = _x(shape, seed=1)
        c = _compiled(_mish_fwd_bwd, x)
        d = _design(c)
        assert {st.lanes for st in d.stages} == {16}
        assert {s.lanes for s in d.streams} == {16}
        assert "hls::vector<float, 16>" in d.text
        assert d.port_lanes == [16 if whole else 1] * len(d.ports)  # 512-bit beat ports
        assert ("const hls::vector<float, 16> *p" in d.text) == whole
        (de,) = c.hls_report().designs
        assert [e.trip for e in de.stages] == [-(-x.size // 16)] * len(de.stages)
        for g, w in zip(tjit.tree_util.tree_leaves(c(x)), tjit.tree_util.tree_leaves(ref(x))):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype,lanes", [(np.float32, 16), (np.float64, 8)])
@pytest.mark.usefixtures("x64")
def test_row_style_stage_folds_a_beat_a_step(dtype, lanes):
    """Softmax's row-style stage reads its rows a 512-bit beat a step (16 float32 or 8
    float64 lanes) and folds the lanes pairwise before its accumulators; it matches the
    interpreter at the float sums' tolerance, and the estimate counts rows * N / W
    steps; its passes overlap, so the first output comes two rows (max, sum) and their
    slack after the first input (``fpga/row_passes.py``)."""
    x = _x((6, 4 * lanes), seed=2).astype(dtype)
    c = _compiled(_softmax, x)
    d = _design(c)
    assert {st.lanes for st in d.stages} == {lanes}
    (st,) = [st for st in d.stages if st.kind == "kernel"]
    (k,) = [e for e in c.hls_report().designs[0].stages if e.kind == "kernel"]
    assert k.trip == x.size // lanes
    assert k.hold == 2 * x.shape[1] // lanes + sum(row_slack(st.kernel, lanes))
    np.testing.assert_allclose(np.asarray(c(x)),
                               np.asarray(tjit.jit(_softmax, backend="interpreter")(x)),
                               rtol=2e-5, atol=2e-5)


def test_bypass_stream_is_as_deep_as_what_it_waits_for():
    """Layernorm: x flows to its statistics stages and, by another stream, to the
    normalizing stage, which must hold x until the mean and variance of a row reach it
    (streams of one value a row: the two row stages before it, two rows): that stream
    holds at least those two rows, and the design (no buffers) matches the
    interpreter."""
    x = _x((8, 16))
    c = _compiled(_layernorm, x)
    d = _design(c)
    assert not d.buffers
    x_streams = [s for s in d.streams if s.value == d.ports[0][0]]
    assert max(s.depth * s.lanes for s in x_streams) >= 2 * x.shape[1]  # (depth: packets)
    np.testing.assert_allclose(np.asarray(c(x)),
                               np.asarray(tjit.jit(_layernorm, backend="interpreter")(x)),
                               rtol=2e-5, atol=2e-5)


def _port_users(d):
    """{port name: stages whose call passes it} from the top function's stage calls."""
    users = {}
    for line in d.text.splitlines():
        if "TJ_STAGE(" in line:
            stage = line.split('"')[1]
            for name in d.port_names:
                if f"({name}," in line or f" {name}," in line or f" {name})" in line or \
                        f"({name})" in line:
                    users.setdefault(name, []).append(stage)
    return users


@pytest.mark.parametrize("budget", [None, 0])
def test_every_stage_has_its_own_port(budget):
    """Layernorm reads x from several stages (and, with no on-chip budget, writes and
    reads DRAM scratch): each stage gets a port of its own (an alias onto the same
    buffer: Vitis rejects an m_axi port shared in a dataflow region), and the design
    still matches the interpreter."""
    def loss(x, g, b, t):
        return jnp.mean((_layernorm(x) * g + b - t) ** 2)

    f = tjit.value_and_grad(loss, argnums=(0, 1, 2))
    args = [_x((8, 16), 3), _x((16,), 4), _x((16,), 5), _x((8, 16), 6)]
    c = _compiled(f, *args)
    exe = c.executable if budget is None else \
        hls.HlsExecutable(c.executable.program, onchip_budget=budget)
    (d,) = exe.designs.values()
    users = _port_users(d)
    assert any(r == "alias" for _, r, *_ in d.ports)
    assert set(users) == set(d.port_names)
    assert all(len(stages) == 1 for stages in users.values()), users
    want = tjit.tree_util.tree_leaves(tjit.jit(f, backend="interpreter")(*args))
    for g, w in zip(exe.call(args), want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_undersized_stream_deadlocks_and_is_reported():
    """Layernorm's x stream into its normalizing stage must hold a row (4 packets here)
    while that row's mean and variance are computed; 2 packets deadlock."""
    x = _x((8, 64))
    c = _compiled(_layernorm, x)
    deep = max(_design(c).streams, key=lambda s: s.depth)
    assert deep.depth * deep.lanes >= x.shape[1]
    exe = hls.HlsExecutable(c.executable.program, depths={deep.name: 2})
    with pytest.raises(RuntimeError, match=rf"deadlocked: .*stage {deep.producer} waits to "
                                           rf"write to full stream {deep.name} \(depth 2\)"):
        exe.call([x])


def test_estimate_of_elementwise_stage_is_trip_plus_depth():
    x = _x((32, 64))
    r = _compiled(lambda v: jnp.exp(v) * 2 + 1, x).hls_report(clock_mhz=300)
    (de,) = r.designs
    (k,) = [s for s in de.stages if s.kind == "kernel"]
    assert k.ii == 1 and k.trip == x.size // 16     # 16 float32 lanes a step
    assert k.cycles == k.trip + k.depth
    # exp (10) + mul (3) + add (4) cycles from the table, a read and a write
    assert k.depth == 10 + 3 + 4 + 2
    assert de.compute_s == pytest.approx(de.latency_cycles / 300e6)
    assert de.memory_s == pytest.approx(2 * x.nbytes / 460e9)
    assert de.binds == "pipeline latency"


def test_estimate_warns_over_resources():
    x = _x((4, 4))
    c = _compiled(lambda v: jnp.tanh(jnp.exp(v)), x)
    tiny = op_costs.Part("tiny", "none", 1, 1, 0, 10, 10, 1.0, "none")
    with pytest.warns(ResourceWarning, match="DSP"):
        r = c.hls_report(part=tiny)
    assert "WARNING" in str(r)
    with pytest.raises(ValueError, match="unknown part"):
        c.hls_report(part="u9")


def _transposed_sum(x):
    """An intermediate read in another order than it is written: a buffer."""
    e = _softmax(x)
    return e + e.T


def test_intermediates_beyond_the_onchip_budget_go_to_dram():
    x = _x((16, 16))
    c = _compiled(_transposed_sum, x)
    assert _design(c).buffers and all(b.where == "onchip" for b in _design(c).buffers)
    exe = hls.HlsExecutable(c.executable.program, onchip_budget=0)
    (d,) = exe.designs.values()
    assert d.buffers and all(b.where == "dram" for b in d.buffers)
    assert [r for _, r, *_ in d.ports].count("scratch") == len(d.buffers)
    np.testing.assert_allclose(exe.call([x])[0],
                               tjit.jit(_transposed_sum, backend="interpreter")(x),
                               rtol=2e-5, atol=2e-5)


def test_estimate_bounds_each_port_by_a_beat_a_cycle():
    # Mish fwd+bwd at 256 x 1024 float32: ports x (in), y and dy (out), 1 MiB each
    x = _x((256, 1024))
    c = _compiled(_mish_fwd_bwd, x)
    r = c.hls_report(clock_mhz=300)
    (de,) = r.designs
    assert de.port_bytes == x.nbytes and de.port in _design(c).port_names
    # one 512-bit beat a cycle at 300 MHz: 19.2 GB/s, far below the U280's 460 GB/s
    assert de.port_s == pytest.approx(x.nbytes / 19.2e9)
    assert de.memory_s == pytest.approx(3 * x.nbytes / 460e9) and de.port_s > de.memory_s
    assert de.time_s == max(de.compute_s, de.port_s, de.memory_s)
    assert "busiest port" in str(r) and "19.2 GB/s" in str(r)


@pytest.mark.parametrize("compute_s, port_s, memory_s, binds", [
    (3.0, 2.0, 1.0, "pipeline latency"), (1.0, 3.0, 2.0, "m_axi port p7"),
    (1.0, 2.0, 3.0, "memory bandwidth")])
def test_estimate_names_the_bound_that_binds(compute_s, port_s, memory_s, binds):
    de = estimate.DesignEstimate("top", [], 0, 0, 0, 0, 0, 0, 0, compute_s, memory_s,
                                 port_s=port_s, port="p7")
    assert de.binds == binds and de.time_s == 3.0
