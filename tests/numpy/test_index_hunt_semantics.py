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


# -- integer floor division by zero: JAX's values -----------------------------------------------
def _jax_floor_divide(x, y, dt):
    """JAX's integer ``x // y`` in Python ints: lax.div's all-ones at ``y == 0`` and, for
    signed dtypes, the floor step where the signs differ and ``rem(x, y) != 0``."""
    info = np.iinfo(dt)
    if y == 0:
        return info.max if info.min == 0 else (-1 if x == 0 else -2)
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncating
    if x - q * y != 0 and (x < 0) != (y < 0):
        q -= 1
    return (q - info.min) % (info.max - info.min + 1) + info.min  # (INT_MIN // -1 wraps)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint8, np.uint32])
def test_integer_floor_divide_by_zero_as_jax(dt):
    info = np.iinfo(dt)
    vals = sorted({info.min, info.min + 1, -7, -1, 0, 1, 7, info.max} & set(
        range(info.min, info.max + 1)) if info.max < 2**16 else
        {v for v in (info.min, -7, -1, 0, 1, 7, info.max) if info.min <= v <= info.max})
    a = np.repeat(np.array(vals, dt), len(vals))
    b = np.tile(np.array(vals, dt), len(vals))
    want_q = np.array([_jax_floor_divide(int(x), int(y), dt) for x, y in zip(a, b)], dt)
    for f in _modes(jnp.floor_divide):
        np.testing.assert_array_equal(np.asarray(f(a, b)), want_q)
    for f in _modes(jnp.divmod):
        np.testing.assert_array_equal(np.asarray(f(a, b)[0]), want_q)
    # later eager calls replay NumPy (the eager lane) with the same values
    x, y = jnp.asarray(a), jnp.asarray(b)
    by_zero = np.array([_jax_floor_divide(int(v), 0, dt) for v in a], dt)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(jnp.floor_divide(x, y)), want_q)
        np.testing.assert_array_equal(np.asarray(jnp.floor_divide(x, 0)), by_zero)


# -- x.at[idx].apply: a repeated index applies func again (JAX's documented rule) --------------
@pytest.mark.parametrize("mode", [None, "clip", "drop"])
def test_at_apply_repeats_per_occurrence(mode):
    x = np.array([[7, 9], [-4, -6], [-5, 9]], np.int8)
    rows = np.array([0, 0, 2, 5], np.int32)  # 0 twice; 5 out of bounds
    want = x.copy()
    for r in rows:  # ufunc.at's loop: func once per occurrence
        r = min(r, 2) if mode == "clip" else r
        if r < 3:
            want[r, 1] = want[r, 1] * 2 + 1
    for f in _modes(lambda a, i: a.at[i, 1].apply(lambda v: v * 2 + 1,
                                                  **({} if mode is None else {"mode": mode}))):
        np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x), jnp.asarray(rows))), want)


# -- gradients through clamped reads go to the element that was read --------------------------
def test_grad_of_out_of_bounds_read_matches_finite_differences():
    """x[i] past the end reads the clamped element, so that element gets the gradient
    (JAX documents its own gradient there as incorrect: its transpose drops the update)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    k = np.array([5, -1, 1, 9], np.int32)

    def loss(a, i):
        return jnp.sum(jnp.sin(a[i, 1:]) * jnp.arange(1.0, 3.0))

    def loss64(a):
        rows = np.clip(np.where(k < 0, k + 4, k), 0, 3)
        return np.sum(np.sin(a[rows, 1:]) * np.arange(1.0, 3.0))

    eps, want = 1e-6, np.zeros(x.shape)
    for p in np.ndindex(x.shape):
        d = np.zeros(x.shape)
        d[p] = eps
        want[p] = (loss64(x + d) - loss64(x - d)) / (2 * eps)
    for f in _modes(tjit.grad(loss)):
        np.testing.assert_allclose(np.asarray(f(jnp.asarray(x), jnp.asarray(k))), want,
                                   rtol=1e-4, atol=1e-5)


# -- bool operands of integer arithmetic become int32, with or without x64 (JAX) ---------------
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "left_shift", "right_shift"])
def test_bool_integer_arithmetic_is_int32_under_x64(name):
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    with tjit.enable_x64(True):
        for f in _modes(getattr(jnp, name)):
            got = f(a, b)
            assert got.dtype == np.int32, (name, got.dtype)
            ref = {"floor_divide": [1, 0, -2, -1],  # (x // 0 as JAX, above)
                   "remainder": [0, 0, 0, 0],       # (x % 0 is 0, as NumPy and JAX)
                   "left_shift": [2, 0, 1, 0], "right_shift": [0, 0, 1, 0]}[name]
            np.testing.assert_array_equal(np.asarray(got), ref)
