"""Eager ``jnp.where(c, x, y)`` on NumPy-backed operands runs as one ``np.where``
(numpy._misc._where_eager). Every combination of Python numbers, weak and strong
arrays, broadcasting shapes and dtypes must give the reference interpreter's result
under ``jit`` (dtype, weak flag, shape and bits: NaN, -0.0), shapes that do not
broadcast the general path's error, and a closed-over Array under ``jit`` a traced
select (not a constant computed at trace time).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array

from tests.numpy.exact import assert_same as _same

_RNG = np.random.default_rng(5)


def _values(dt, shape):
    v = _RNG.standard_normal(shape) * 4
    if np.dtype(dt).kind == "f" or dt == jnp.bfloat16:
        v.flat[0] = np.nan
        v.flat[-1] = -0.0
    return np.asarray(v).astype(dt)


def _operands():
    ops = {"py float": 2.5, "py int": 3, "py bool": True}
    for dt in (np.float32, np.float16, jnp.bfloat16, np.int8, np.int32, np.bool_):
        for shape in ((), (4,), (3, 4)):
            ops[f"{np.dtype(dt).name}{shape}"] = jnp.asarray(_values(dt, shape))
    ops["weak f32(4,)"] = Array(_values(np.float32, (4,)), True)
    ops["weak i32()"] = Array(np.asarray(7, np.int32), True)
    return ops


@pytest.mark.parametrize("cshape", [(), (4,), (3, 4), (3, 1)])
def test_where_matches_the_interpreter(cshape):
    c = jnp.asarray(_RNG.integers(0, 2, cshape).astype(bool))
    ops = _operands()
    names = list(ops)
    for i, nx in enumerate(names):
        for ny in names[i % 3::3]:  # a third of the pairs, every operand on both sides
            x, y = ops[nx], ops[ny]
            try:
                want = tjit.jit(lambda c, x, y: jnp.where(c, x, y),
                                backend="interpreter")(c, x, y)
            except (TypeError, ValueError):
                continue  # refused by the general path: nothing for the lane to match
            for _ in range(2):
                _same(jnp.where(c, x, y), want)


def test_shapes_that_do_not_broadcast_raise_the_general_error():
    c = jnp.asarray(np.array([True, False, True]))
    with pytest.raises(Exception, match="jnp.where"):
        jnp.where(c, jnp.ones(4, jnp.float32), 0.0)


def test_closed_over_arrays_under_jit_are_traced():
    c = jnp.asarray(np.array([True, False]))
    x = jnp.asarray(np.array([1.0, 2.0], np.float32))
    text = str(tjit.make_jaxpr(lambda y: jnp.where(c, x, y))(jnp.zeros(2, jnp.float32)))
    assert "select_n" in text
    f = tjit.jit(lambda y: jnp.where(c, x, y))
    np.testing.assert_array_equal(np.asarray(f(jnp.full(2, 5.0, jnp.float32))), [1.0, 5.0])
