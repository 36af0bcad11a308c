"""The unique family keeps the weak type of its input on the values (not on indices
or counts), as JAX 0.10.2 does: checked eager and under jit with ``size``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

FUNCS = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all"]


def _weak(x):
    return bool(getattr(x, "weak_type", False))


def _values_and_rest(out):
    if isinstance(out, tuple):
        return out[0], out[1:]
    return out, ()


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("weak", [True, False])
def test_values_keep_the_input_weak_type(name, weak):
    x = lax.full((5,), 1.5) if weak else jnp.asarray(np.array([1.5, 2, 1.5, 0, 2], np.float32))
    assert _weak(x) == weak
    f = getattr(jnp, name)
    for out in (f(x), tjit.jit(lambda a: f(a, size=3))(x)):
        values, rest = _values_and_rest(out)
        assert values.dtype == np.float32 and _weak(values) == weak
        assert all(r.dtype == np.int32 and not _weak(r) for r in rest)
        np.testing.assert_array_equal(np.unique(np.asarray(values))[:1],
                                      np.unique(np.asarray(x))[:1])


def test_unique_with_every_return_keeps_it_on_values_only():
    x = lax.full((4,), 3)  # a weak int32
    vals, idx, inv, cnt = jnp.unique(x, return_index=True, return_inverse=True,
                                     return_counts=True)
    assert _weak(vals) and vals.dtype == np.int32
    assert not any(_weak(a) for a in (idx, inv, cnt))
    np.testing.assert_array_equal(np.asarray(cnt), [4])
