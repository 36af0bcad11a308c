"""Integer ufuncs at the edges of every integer dtype, against NumPy.

The class of defect this guards: an integer op that differs from NumPy (and JAX) at
its edge values (a zero divisor, the dtype's minimum, a product that wraps), where
lax's own semantics (``x rem 0 == x``, ``abs(min) == min``) leak through a jnp
function unless it fixes them up. Every binary integer ufunc is run on the product of
an edge-value grid with itself, eagerly and under jit, and compared with NumPy bit
for bit. The deviations that are deliberate (they follow JAX, not NumPy) are listed in
``DEVIATIONS`` with their reason; nothing else may differ.
"""

import itertools
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]
BINARY = ["add", "subtract", "multiply", "floor_divide", "remainder", "mod", "fmod",
          "divmod", "lcm", "gcd", "bitwise_and", "bitwise_or", "bitwise_xor",
          "left_shift", "right_shift", "power", "maximum", "minimum", "fmax", "fmin",
          "equal", "less", "greater_equal", "logical_and", "logical_xor"]
UNARY = ["abs", "negative", "positive", "sign", "square", "invert", "absolute"]


def _zero_divisor(a, b):
    return b == 0


def _dtype_min(a, b):
    m = np.iinfo(a.dtype).min
    return (a == m) | (b == m) if m < 0 else np.zeros(a.shape, bool)


#: (op, where it may differ from NumPy, why): each follows JAX rather than NumPy.
DEVIATIONS = {
    # JAX's values (its formula on lax.div's -1: -2 for nonzero x, -1 for 0; the max
    # for unsigned); NumPy gives 0. tests/numpy/test_index_hunt_semantics.py checks them.
    "floor_divide": (_zero_divisor, "integer x // 0 follows JAX (-2, -1 or max)"),
    "divmod": (_zero_divisor, "the quotient of divmod(x, 0) as floor_divide"),
    # |min| wraps to min in two's complement, as in JAX; NumPy works around it.
    "gcd": (_dtype_min, "gcd with the dtype's minimum: |min| wraps (as in JAX)"),
}


def _grid(dt):
    info = np.iinfo(dt)
    vals = {info.min, info.min + 1, -7, -2, -1, 0, 1, 2, 3, 7, 8, info.max - 1, info.max}
    vals = sorted(v for v in vals if info.min <= v <= info.max)
    a, b = zip(*itertools.product(vals, vals))
    return np.array(a, dt), np.array(b, dt)


def _second_operand(name, a, b):
    """Exponents and shift counts where NumPy defines the result."""
    if name == "power":
        return np.where(b.astype(np.int64) < 0, 0, b % 9).astype(b.dtype)
    if name in ("left_shift", "right_shift"):
        return (np.abs(b.astype(np.int64)) % (8 * b.itemsize)).astype(b.dtype)
    return b


def _results(x):
    return [np.asarray(v) for v in x] if isinstance(x, tuple) else [np.asarray(x)]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_integer_edges_match_numpy(name, dt):
    a, b = _grid(dt)
    b = _second_operand(name, a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _results(getattr(np, name)(a, b))
    allowed = np.zeros(a.shape, bool)
    if name in DEVIATIONS:
        allowed = DEVIATIONS[name][0](a, b)
    for mode, fn in (("eager", getattr(jnp, name)), ("jit", tjit.jit(getattr(jnp, name)))):
        got = _results(fn(a, b))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, f"{name}({dt.__name__}) {mode}: dtype {g.dtype} vs {w.dtype}"
            bad = (g != w) & ~allowed
            if bad.any():
                i = np.flatnonzero(bad)[:5]
                pytest.fail(f"{name}({np.dtype(dt).name}) {mode} differs from NumPy at "
                            f"{[(a[j], b[j], g[j], w[j]) for j in i]} (x, y, tjit, NumPy)")


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_integer_edges_match_numpy(name, dt):
    a, _ = _grid(dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(np, name)(a)
    for fn in (getattr(jnp, name), tjit.jit(getattr(jnp, name))):
        got = np.asarray(fn(a))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cumulative_keeps_integer_dtype_as_jax(dt):
    """JAX: cumsum/cumprod keep an integer input's dtype and wrap; sum widens."""
    a, _ = _grid(dt)
    for name in ("cumsum", "cumprod"):
        got = getattr(jnp, name)(a)
        assert got.dtype == np.dtype(dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(a, dtype=dt))
    assert jnp.cumsum(np.array([True, True])).dtype == np.int32
