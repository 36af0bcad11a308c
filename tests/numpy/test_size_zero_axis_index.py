"""A scalar integer index on an axis of size 0 raises IndexError, in x[i] and x.at[i].

The class of defect this guards: an indexed update that returned x unchanged when its
scalar index had no element to address (x of shape (0, 3), x.at[1].set(2.0)), while
x[1] raised: NumPy raises for both, as JAX does for static and traced scalar indices
(index arrays on such an axis stay JAX's out-of-bounds rule: updates are dropped).
Every update method, mode, eager and jit, static and traced index, against NumPy.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

SHAPES_AND_INDICES = [((0,), 1), ((0,), -1), ((0, 3), 0), ((2, 0), (1, 0)),
                      ((2, 0, 3), (slice(None), 2)), ((0, 2), (Ellipsis, 0, 1))]
METHODS = ["set", "add", "multiply", "min", "max", "get"]


def _numpy_raises(shape, idx):
    try:
        np.zeros(shape)[idx] = 1.0
    except IndexError:
        return True
    return False


@pytest.mark.parametrize("shape,idx", SHAPES_AND_INDICES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("mode", [None, "drop", "clip"])
@pytest.mark.parametrize("traced", [False, True])
def test_scalar_index_on_empty_axis_raises(shape, idx, method, mode, traced):
    assert _numpy_raises(shape, idx)
    if traced:  # the ints of idx as 0-d tjit arrays
        idx = tuple(jnp.asarray(i) if type(i) is int else i
                    for i in (idx if isinstance(idx, tuple) else (idx,)))

    def f(x):
        ref = x.at[idx]
        return ref.get(mode=mode) if method == "get" else getattr(ref, method)(2.0, mode=mode)

    for g in (f, tjit.jit(f)):
        with pytest.raises(IndexError, match="out of bounds for axis .* size 0"):
            g(jnp.zeros(shape))


def test_empty_index_arrays_and_other_axes_still_work():
    x = jnp.zeros((0, 3))
    assert x.at[:, 1].set(2.0).shape == (0, 3)
    assert x[:, 1].shape == (0,)
    assert x.at[jnp.array([], jnp.int32)].add(1.0).shape == (0, 3)
    assert x.at[jnp.array([1])].set(2.0).shape == (0, 3)  # index arrays: dropped (JAX)
