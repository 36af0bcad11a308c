"""Arrays made under one x64 setting and combined under the other: JAX's trivial
promotion keeps a dtype all operands share (weak only if all are), whatever the switch
says now, so an op's dtype never depends on whether its operands' shapes were equal (a
fast path) or broadcast (the general path re-canonicalized it: weak int32 + weak int32
gave int64 under x64 when broadcast, float64 + float64 gave float32 without x64)."""

import contextlib

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

OPS = [(jnp.add, np.add), (jnp.multiply, np.multiply), (jnp.subtract, np.subtract),
       (jnp.maximum, np.maximum), (jnp.minimum, np.minimum)]


@contextlib.contextmanager
def _x64(on):
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", on)
    try:
        yield
    finally:
        tjit.config.update("enable_x64", old)


def _made(x64, kind):
    with _x64(x64):
        if kind == "weak int":
            return lax.broadcast(jnp.asarray(3), (2, 3)), lax.broadcast(jnp.asarray(2), (3,))
        if kind == "weak float":
            return lax.broadcast(jnp.asarray(1.5), (2, 3)), lax.broadcast(jnp.asarray(.5), (3,))
        return (jnp.asarray(np.full((2, 3), 1.5, kind)), jnp.asarray(np.full(3, .25, kind)))


@pytest.mark.parametrize("made_x64,kind", [(False, "weak int"), (False, "weak float"),
                                           (True, "float64"), (True, "int64"),
                                           (False, "float32"), (False, "int16")])
@pytest.mark.parametrize("op,np_op", OPS, ids=[f.__name__ for f, _ in OPS])
def test_shared_dtype_survives_the_switch(made_x64, kind, op, np_op):
    m, row = _made(made_x64, kind)
    want_dtype, want_weak = m.dtype, m.weak_type
    with _x64(not made_x64):
        full = lax.broadcast(row, (2,))
        want = np_op(np.asarray(m), np.asarray(full)).astype(want_dtype)
        for how, got in [("equal shapes", op(m, full)), ("broadcast", op(m, row)),
                         ("broadcast, again", op(m, row)),
                         ("jit", tjit.jit(op)(m, row))]:
            assert (got.dtype, got.weak_type) == (want_dtype, want_weak), (how, got.dtype)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=how)
