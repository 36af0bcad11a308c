"""Eager ``jnp.concatenate`` and ``jnp.stack`` of NumPy-backed Arrays run as one NumPy
call (numpy._shape._join_eager). Every mix of dtypes, weak flags, Python numbers, axes
and shapes must give the reference interpreter's result under ``jit`` (dtype, weak
flag, shape, bits), refused inputs the general path's error, and closed-over Arrays
under ``jit`` traced equations.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array

from tests.numpy.exact import assert_same as _same

_RNG = np.random.default_rng(11)


def _arrays(shape):
    f = _RNG.standard_normal(shape)
    return [jnp.asarray(f.astype(np.float32)), Array(f.astype(np.float32), True),
            jnp.asarray(f.astype(np.float16)), jnp.asarray(f.astype(jnp.bfloat16)),
            jnp.asarray((f * 9).astype(np.int8)), jnp.asarray(f > 0),
            Array((f * 9).astype(np.int32), True)]


@pytest.mark.parametrize("join", [jnp.concatenate, jnp.stack])
@pytest.mark.parametrize("shape,axis", [((3,), 0), ((3,), -1), ((2, 3), 1), ((2, 3), -2),
                                        ((2, 3), 0)])
def test_join_matches_the_interpreter(join, shape, axis):
    arrs = _arrays(shape)
    for i, a in enumerate(arrs):
        for b in arrs[i % 2::2]:
            for ops in ([a, b], [a, b, a]):
                want = tjit.jit(lambda *v: join(list(v), axis=axis),
                                backend="interpreter")(*ops)
                for _ in range(2):
                    _same(join(ops, axis=axis), want)


def test_refusals_keep_the_general_errors():
    a, b = jnp.ones((2, 3), jnp.float32), jnp.ones((2, 4), jnp.float32)
    with pytest.raises(Exception, match="concatenate"):
        jnp.concatenate([a, b], axis=0)
    with pytest.raises(Exception, match="stack"):
        jnp.stack([a, b])
    with pytest.raises(Exception, match="out of bounds"):
        jnp.concatenate([a, a], axis=2)
    with pytest.raises(Exception, match="zero-dimensional"):
        jnp.concatenate([jnp.float32(1), jnp.float32(2)])
    _same(jnp.stack([jnp.float32(1), jnp.float32(2)]),
          tjit.jit(lambda u, v: jnp.stack([u, v]), backend="interpreter")(
              jnp.float32(1), jnp.float32(2)))


def test_closed_over_arrays_under_jit_are_traced():
    x = jnp.asarray(np.array([1.0, 2.0], np.float32))
    text = str(tjit.make_jaxpr(lambda y: jnp.concatenate([x, y]))(jnp.zeros(2, jnp.float32)))
    assert "concatenate" in text
    text = str(tjit.make_jaxpr(lambda: jnp.stack([x, x]))())
    assert "concatenate" in text
