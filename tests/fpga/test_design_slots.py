"""A design's outputs and the program's temporary slots: the slot plan reuses a slot
once its value's last reader has run (steps one after another), but the stages of a
dataflow design run at once, so an output of a design must not be written into a slot
whose earlier value a stage of the same design still reads (``devices/hls.py``,
``_outputs_off_shared_slots``). Checked against the reference interpreter."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import hls_compile

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
    c = tjit.jit(_reuse).lower(x).compile(backend="hls")
    prog = c.executable.program
    (d,) = [d for d in c.executable.designs.values() if len(d.ports) > 2]
    slots = [prog.slot_of.get(v) for v, role, *_ in d.ports if role in ("in", "out")]
    reused = {s for s in slots if s is not None and slots.count(s) > 1}
    assert reused, "the case no longer reuses a slot inside one design"
    want = tjit.jit(_reuse, backend="interpreter")(x)
    for _ in range(3):                   # (a race shows on some calls only)
        for g, w in zip(c(x), want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-3)
