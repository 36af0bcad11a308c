"""A design's outputs and the program's temporary slots: a plan for steps run one after
another reuses a slot once its value's last reader has run, but the stages of a dataflow
design run at once, so an output of a design must not be written into a slot whose
earlier value a stage of the same design still reads. The HLS target plans each design
as one time (``TargetInfo.concurrent_kernels``, ``plan.step_times``). Checked against
the reference interpreter."""

import dataclasses

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import hls_compile
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import kernel_runs
from tjit.xla_like.target import HLS

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _reuse(x):
    t = jnp.exp(x) - 1.0                 # a design's output: a temporary slot
    s = jnp.sort(t)                      # a host step between the designs
    y = t[None, :] * jnp.arange(1, 52, dtype=jnp.float32)[:, None] + s[None, :]
    w = jnp.sin(s) * 2.0                 # written after t's last read: t's slot
    return y, jnp.sort(w)


def test_output_does_not_overwrite_a_slot_the_design_reads():
    x = np.random.default_rng(0).standard_normal(2209).astype(np.float32)
    in_order = dataclasses.replace(HLS, concurrent_kernels=False)
    assert _slots_shared_in_a_design(
        compile_program(tjit.make_jaxpr(_reuse)(x), in_order)), \
        "the case no longer reuses a slot inside one design when planned in order"
    c = tjit.jit(_reuse).lower(x).compile(backend="hls")
    assert not _slots_shared_in_a_design(c.executable.program)
    want = tjit.jit(_reuse, backend="interpreter")(x)
    for _ in range(3):                   # (a race shows on some calls only)
        for g, w in zip(c(x), want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-3)


def _slots_shared_in_a_design(prog):
    """Slots that hold two values read or written by the kernels of one design."""
    shared = set()
    for _, steps in kernel_runs(prog.steps):
        used = {v for s in steps for v in s.ins + s.outs if v in prog.slot_of}
        slots = [prog.slot_of[v] for v in used]
        shared |= {k for k in slots if slots.count(k) > 1}
    return shared
