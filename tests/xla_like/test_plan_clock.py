"""The planner's clock (``plan.step_times``): on a target whose runtime runs a run of
kernels at once (``TargetInfo.concurrent_kernels``: HLS dataflow designs) a run is one
time for slot reuse and donation; elsewhere each step is its own time, and CPU plans
are what they were before the clock existed (slot counts, donation pairs, hosted
temporaries and memory peaks recorded from the planner at commit f47bd00)."""

import dataclasses

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import KernelStep, kernel_runs, memory_stats, step_times
from tjit.xla_like.target import CPU, HLS

RNG = np.random.default_rng(0)
WS = [RNG.standard_normal((64, 64)).astype(np.float32) for _ in range(4)]
X = RNG.standard_normal((32, 64)).astype(np.float32)
WB = [RNG.standard_normal((256, 256)).astype(np.float32) for _ in range(8)]
XB = RNG.standard_normal((256, 256)).astype(np.float32)


def _mlp(ws, x):
    for w in ws:
        x = jnp.tanh(x @ w)
    return jnp.sum(x * x)


def _sgd(ws, x):
    g = tjit.grad(_mlp)(ws, x)
    return [w - 0.1 * gw for w, gw in zip(ws, g)]


def _loop(w, x):
    def body(i, w):
        return w - 0.01 * (w * jnp.sum(w, axis=1, keepdims=True)) + x
    return lax.fori_loop(0, 5, body, w)


def _update_beside_a_reader(w, g):
    return w - 0.1 * g, jnp.sum(w, axis=1)


# name: (function, args, donated, (peak bytes, slots, aliased positions, hosted temps,
# in-place outputs)) as the planner before step_times made them for the CPU
CPU_PLANS = {
    "mlp_value_and_grad": (tjit.value_and_grad(_mlp), (WS, X), (), (180228, 5, [], 0, 0)),
    "sgd_donated": (_sgd, (WS, X), (0, 1, 2, 3), (114688, 5, [0, 1, 2, 3], 0, 0)),
    "loop": (_loop, (WS[0], WS[1]), (), (49152, 0, [], 0, 0)),
    "loop_donated": (_loop, (WS[0], WS[1]), (0,), (32768, 0, [], 0, 0)),
    "update_beside_reader": (_update_beside_a_reader, (WS[0], WS[1]), (0,),
                             (33024, 0, [0], 0, 1)),
    "wide_mlp_value_and_grad": (tjit.value_and_grad(_mlp), (WB, XB), (),
                                (4980740, 2, [], 15, 0)),
    "wide_sgd_donated": (_sgd, (WB, XB), tuple(range(8)),
                         (4718592, 9, list(range(8)), 0, 0)),
}


def _plan(name, target):
    f, args, donated, _ = CPU_PLANS[name]
    return compile_program(tjit.make_jaxpr(f)(*args), target, donated)


@pytest.mark.parametrize("name", sorted(CPU_PLANS))
def test_cpu_plans_are_unchanged(name):
    prog = _plan(name, CPU)
    got = (memory_stats(prog).peak_memory_in_bytes, len(prog.slot_sizes),
           sorted(prog.aliases), len(prog.hosted), len(prog.inplace_outputs))
    assert got == CPU_PLANS[name][3]


def test_cpu_clock_is_the_step_order():
    prog = _plan("wide_sgd_donated", CPU)
    assert step_times(prog.steps, CPU.concurrent_kernels) == list(range(len(prog.steps)))


def test_hls_clock_gives_each_kernel_run_one_time():
    prog = _plan("loop_donated", HLS)
    body = prog.sub_programs()[0]
    for p in (prog, body):
        times = step_times(p.steps, True)
        for first, run in kernel_runs(p.steps):
            assert times[first:first + len(run)] == [first] * len(run)
        others = [t for t, s in zip(times, p.steps) if not isinstance(s, KernelStep)]
        assert others == [n for n, s in enumerate(p.steps) if not isinstance(s, KernelStep)]
    assert any(len(run) > 1 for _, run in kernel_runs(body.steps))


def test_concurrent_clock_declines_a_donation_beside_a_reader():
    """``(w - 0.1 g, sum(w))``: in order, the update may write w's buffer once the sum
    has read it (or update in place); run at once, the sum still reads w."""
    in_order = dataclasses.replace(HLS, concurrent_kernels=False)
    seq, conc = _plan("update_beside_reader", in_order), _plan("update_beside_reader", HLS)
    runs = kernel_runs(conc.steps)
    assert len(runs) == 1 and len(runs[0][1]) == 2, conc.text(kernels=False)
    assert sorted(seq.aliases) == [0]
    assert conc.aliases == {} and not conc.inplace_outputs
