"""JAX's out-of-bounds and index-mode semantics where they differ from NumPy's, checked
eager, under jit and with the reference interpreter against Python-loop references
(found by benchmarks/diff_indexing_ints.py against JAX)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _modes(f):
    """``f`` eager, under jit and under the reference interpreter."""
    return [f, tjit.jit(f), tjit.jit(f, backend="interpreter")]


# -- x[i] with static ints out of bounds: clamped (JAX's gather), eager and under jit ------------
@pytest.mark.parametrize("idx", [11, -11, (0, 7), (-9, -9), (np.int64(4), slice(None)),
                                 (slice(None), np.array(5, np.uint8))])
def test_static_int_out_of_bounds_clamps(idx):
    x = np.arange(15.0, dtype=np.float32).reshape(3, 5)
    full = idx if isinstance(idx, tuple) else (idx,)
    ref = x[tuple(min(max(int(i) + n if int(i) < 0 else int(i), 0), n - 1)
                  if not isinstance(i, slice) else i for i, n in zip(full, x.shape))]
    for f in _modes(lambda a: a[idx]):
        np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x))), ref)


def test_static_int_out_of_bounds_beside_empty_slice():
    x = jnp.zeros((3, 1, 1, 3))
    for f in _modes(lambda a: a[-1:1, 2, -4, 6]):
        assert f(x).shape == (0,)


def test_static_int_on_size_zero_dim_raises():
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        jnp.zeros((0, 2))[3]


# -- jnp.put's default mode: negative indices count from the end, the rest clamp --------------
def _put_reference(a, ind, v, mode):
    out = a.copy().ravel()
    n = out.size
    for i, val in zip(ind, np.resize(v, len(ind))):
        i = int(i)
        if mode is None:
            i = min(max(i + n if i < 0 else i, 0), n - 1)
        elif mode == "clip":
            i = min(max(i, 0), n - 1)
        else:
            i %= n
        out[i] = val
    return out.reshape(a.shape)


@pytest.mark.parametrize("mode", [None, "clip", "wrap"])
@pytest.mark.parametrize("ind", [[-19], [-3, 1], [25], [-25], [-1, 7, 30]])
def test_put_modes(mode, ind):
    a = np.arange(20.0, dtype=np.float32).reshape(5, 4)
    v = np.array([100.0, 200.0, 300.0], np.float32)[:len(ind)]
    want = _put_reference(a, ind, v, mode)
    for f in _modes(lambda x, i, w: jnp.put(x, i, w, mode=mode, inplace=False)):
        got = f(jnp.asarray(a), jnp.asarray(np.array(ind, np.int32)), jnp.asarray(v))
        np.testing.assert_array_equal(np.asarray(got), want)
