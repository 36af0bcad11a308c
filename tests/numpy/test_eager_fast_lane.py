"""Eager fast lanes (cached primitive signatures, NumPy basic indexing, in-place ``.at``
updates) give what the general path gives: the same values, dtypes and weak flags as the
reference interpreter under ``jit``, the same errors on every call, and no effect on
tracing. Each case runs twice, so the second call takes the cached lane."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _interp(f, *args):
    """``f(*args)`` by the reference interpreter, Python scalars kept static (a traced
    int exponent would bind ``pow`` where the eager call binds ``integer_pow``)."""
    arrays = [a for a in args if isinstance(a, tjit.Array)]

    def g(*arrs):
        it = iter(arrs)
        return f(*[next(it) if isinstance(a, tjit.Array) else a for a in args])
    return tjit.jit(g, backend="interpreter")(*arrays)


def _same(got, want):
    """Same dtype, shape, weak flag and bits: eager and the interpreter run the same
    reference impls."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    assert got.weak_type == want.weak_type
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def _twice(f):
    """``f()`` on the general path, then on the cached lane: bit-identical results."""
    first, second = f(), f()
    assert first.dtype == second.dtype and first.weak_type == second.weak_type
    np.testing.assert_array_equal(np.asarray(first), np.asarray(second))
    return second


_RNG = np.random.default_rng(0)
_OPERANDS = {
    "f32": jnp.asarray(_RNG.standard_normal(5).astype(np.float32)),
    "f16": jnp.asarray(_RNG.standard_normal(5).astype(np.float16)),
    "i8": jnp.asarray(np.array([-128, -1, 0, 3, 127], np.int8)),
    "u8": jnp.asarray(np.array([0, 1, 7, 200, 255], np.uint8)),
    "bool": jnp.asarray(np.array([True, False, True, False, True])),
    "c64": jnp.asarray((_RNG.standard_normal(5) + 1j).astype(np.complex64)),
    "weak": jnp.asarray(2.5) * jnp.ones(5, jnp.float32) * 0 + 1.5,
    "scalar": 3,
}


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "true_divide", "maximum",
                                "less", "equal", "floor_divide", "remainder", "power"])
@pytest.mark.parametrize("lhs,rhs", [("f32", "f32"), ("f16", "f16"), ("i8", "i8"),
                                     ("u8", "u8"), ("bool", "bool"), ("c64", "c64"),
                                     ("f32", "scalar"), ("i8", "scalar"), ("weak", "weak")])
def test_binary_ops_match_interpreter(op, lhs, rhs):
    fn = getattr(jnp, op)
    x, y = _OPERANDS[lhs], _OPERANDS[rhs]
    try:
        want = _interp(fn, x, y)
    except TypeError as e:  # not defined for this dtype: eager says the same, every time
        for _ in range(2):
            with pytest.raises(TypeError) as info:
                fn(x, y)
            assert str(info.value) == str(e)
        return
    _same(_twice(lambda: fn(x, y)), want)


@pytest.mark.parametrize("op", ["exp", "sin", "sqrt", "negative", "abs", "floor", "tanh"])
@pytest.mark.parametrize("arg", ["f32", "f16", "i8", "c64", "weak"])
def test_unary_ops_match_interpreter(op, arg):
    fn, x = getattr(jnp, op), _OPERANDS[arg]
    try:
        want = _interp(fn, x)
    except TypeError as e:
        for _ in range(2):
            with pytest.raises(TypeError, match=None) as info:
                fn(x)
            assert str(info.value) == str(e)
        return
    _same(_twice(lambda: fn(x)), want)


def test_cached_signature_keeps_shape_and_dtype_errors():
    a, b = jnp.ones(3), jnp.ones(3)
    a + b  # caches add's (3,) f32 signature
    msgs = set()
    for _ in range(2):
        with pytest.raises(ValueError, match="shapes") as info:
            a + jnp.ones(4)
        msgs.add(str(info.value))
        with pytest.raises(TypeError, match="dtypes must be equal"):
            lax.add(a, jnp.ones(3, jnp.int32))
    assert len(msgs) == 1


def test_tracing_still_stages_ops_on_concrete_arrays():
    a = jnp.ones(3)
    a + a  # warm the eager cache
    jaxpr = tjit.make_jaxpr(lambda x: x + a + a)(jnp.ones(3))
    assert str(jaxpr).count("add") == 2


_M = jnp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


@pytest.mark.parametrize("idx", [1, -1, (0, 2), (1, -1, 3), slice(None, None, -1),
                                 slice(1, None), (slice(None), 1), (Ellipsis, 2),
                                 (None, 0), (0, None, slice(0, 3, 2)), (), Ellipsis,
                                 (slice(5, 9),), (0, 1, 2)])
def test_basic_indexing_matches_numpy_and_jit(idx):
    want = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[idx]
    for _ in range(2):
        got = _M[idx]
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype == np.float32 and not got.weak_type
    _same(_M[idx], _interp(lambda m: m[idx], _M))


def test_basic_indexing_keeps_weak_type_and_errors():
    w = jnp.asarray(2.0) * jnp.ones(3)
    assert w[1].weak_type == w.weak_type
    for _ in range(2):
        np.testing.assert_array_equal(_M[0, 5], _M[0, 2])  # clamped, as JAX's gather
        with pytest.raises(IndexError, match="too many indices"):
            _M[0, 0, 0, 0]
        with pytest.raises(ValueError, match="slice step cannot be zero"):
            _M[::0]


def test_basic_index_result_cannot_change_its_source():
    x = jnp.arange(6.0)
    y = x[1:4]
    np.asarray(x)  # views handed out are read-only
    with pytest.raises(ValueError):
        np.asarray(y)[0] = 99.0
    assert float(x[1]) == 1.0


@pytest.mark.parametrize("method", ["set", "add", "subtract", "multiply"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize("idx", [2, -1, slice(1, 4), (slice(None, None, 2),), 9, -12])
@pytest.mark.parametrize("value", [3, 1.5, True, "array"])
def test_at_updates_match_interpreter(method, dtype, idx, value):
    x = jnp.asarray(np.array([0, 1, 2, 100, 127, 5], dtype))
    if value == "array":
        value = jnp.ones(np.asarray(x)[idx].shape if np.ndim(idx) or isinstance(
            idx, (slice, tuple)) else (), dtype)
    elif value == 1.5 and dtype != np.float32:
        value = 2

    def update(x):
        return getattr(x.at[idx], method)(value)
    try:
        want = _interp(update, x)
    except (TypeError, ValueError) as e:
        for _ in range(2):
            with pytest.raises(type(e)) as info:
                update(x)
            assert str(info.value) == str(e)
        return
    _same(_twice(lambda: update(x)), want)
    np.testing.assert_array_equal(np.asarray(x), np.array([0, 1, 2, 100, 127, 5], dtype))


def test_at_update_against_numpy_copy():
    x = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = ref.copy()
    want[1, 1:3] += 10
    np.testing.assert_array_equal(np.asarray(x.at[1, 1:3].add(10)), want)
    want = ref.copy()
    want[:, -1] = 7
    np.testing.assert_array_equal(np.asarray(x.at[:, -1].set(7)), want)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x.at[0].set(jnp.ones(3))


def test_fast_lanes_stay_quiet_on_overflow():
    """Overflow gives inf without NumPy's RuntimeWarning on every path, as in JAX."""
    import warnings
    big = jnp.full(3, 3e38, jnp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            assert np.isinf(np.asarray(big + big)).all()
            assert np.isinf(np.asarray(big.at[0].add(3e38)))[0]
            assert np.isinf(np.asarray(big.at[1:].multiply(10.0)))[1:].all()
