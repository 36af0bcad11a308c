"""Argument handling of every creation function against NumPy's signature: one record per
call (positional and keyword forms, defaults left out or given), the same call made on
NumPy and on tjit.numpy, values, shape and dtype compared. Dtypes follow JAX's defaults
without x64: NumPy's 64-bit results become their 32-bit counterparts."""

import numpy as np
import pytest

import tjit.numpy as jnp

_NARROW = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32,
           np.dtype(np.uint64): np.uint32, np.dtype(np.complex128): np.complex64}

M34 = np.arange(12.0).reshape(3, 4)
I23 = np.arange(6, dtype=np.int16).reshape(2, 3)

# (function name, args, kwargs): each is called as np.<name>(*args, **kwargs) and
# jnp.<name>(*args, **kwargs).
CALLS = [
    # arange: positional and keyword start/stop/step/dtype; stop=None means [0, start)
    ("arange", (5,), {}), ("arange", (0,), {}), ("arange", (-2,), {}),
    ("arange", (2, 9), {}), ("arange", (2, 9, 3), {}), ("arange", (9, 2, -3), {}),
    ("arange", (2,), {"stop": 9}), ("arange", (2,), {"stop": 9, "step": 2}),
    ("arange", (), {"start": 1, "stop": 4}), ("arange", (7, None, 2), {}),
    ("arange", (0,), {"step": 7}), ("arange", (10,), {"step": 3}),
    ("arange", (10,), {"step": 2.5}), ("arange", (3,), {"step": -1}),
    ("arange", (-3,), {"step": -1}), ("arange", (0, 10**9), {"step": 10**8}),
    ("arange", (1, 0), {}), ("arange", (0, 1, 0.1), {}), ("arange", (1.5, -1.0, -0.5), {}),
    ("arange", (5,), {"dtype": np.float32}), ("arange", (1, 7, 2), {"dtype": np.int8}),
    ("arange", (5.5,), {}), ("arange", (5.5,), {"dtype": np.int32}),
    ("arange", (0, 3, 0.6), {"dtype": np.int32}), ("arange", (np.int16(4),), {"dtype": int}),
    ("arange", (np.float32(2),), {"step": np.float32(0.5)}), ("arange", (np.array(4),), {}),
    ("arange", (np.array(1), np.array(7.5)), {"step": np.array(2)}),
    # linspace: num 0/1, endpoint, retstep, axis, dtype, array ends
    ("linspace", (0, 1), {}), ("linspace", (0, 1, 0), {}), ("linspace", (0, 1, 1), {}),
    ("linspace", (2, 3), {"num": 1, "endpoint": False}),
    ("linspace", (0, 1, 5), {"endpoint": False}), ("linspace", (0, 1, 5), {"retstep": True}),
    ("linspace", (0, 1, 1), {"retstep": True}), ("linspace", (0, 1, 4), {"retstep": True,
                                                                         "endpoint": False}),
    ("linspace", (0, 10, 4), {"dtype": np.int32}), ("linspace", (-5, 5, 7), {"dtype": int}),
    ("linspace", (np.array([0.0, 1.0]), 5.0, 3), {}),
    ("linspace", (np.array([0.0, 1.0]), np.array([[2.0], [3.0]]), 3), {"axis": -1}),
    ("linspace", (np.array([0.0, 1.0]), 5.0, 3), {"axis": 1}),
    ("linspace", (), {"start": 1, "stop": 2, "num": 3}), ("linspace", (0, 1, np.int64(3)), {}),
    ("linspace", (np.array([0, 10]), 20, 3), {"dtype": np.int32, "axis": -1}),
    # logspace / geomspace
    ("logspace", (0, 3, 4), {}), ("logspace", (0, 3), {"num": 4, "base": 2.0}),
    ("logspace", (0, 2, 3), {"endpoint": False}), ("logspace", (0, 2, 1), {}),
    ("logspace", (0, 2, 0), {}), ("logspace", (0, 3, 4), {"dtype": np.int32}),
    ("logspace", (np.array([0.0, 1.0]), 2.0, 3), {"axis": 1}),
    ("geomspace", (1, 1000, 4), {}), ("geomspace", (-1, -1000, 4), {}),
    ("geomspace", (1, 256), {"num": 9, "endpoint": False}), ("geomspace", (2, 2, 3), {}),
    ("geomspace", (1, 1000, 4), {"dtype": np.int32}), ("geomspace", (1, 8, 1), {}),
    ("geomspace", (1, 8, 0), {}), ("geomspace", (1, 8, 1), {"endpoint": False}),
    ("geomspace", (np.array([1.0, 10.0]), 1000.0, 3), {"axis": -1}),
    # filled arrays: shape as int, tuple, list, NumPy int and 0-d array
    ("zeros", (3,), {}), ("zeros", ((2, 3),), {}), ("zeros", ([2, 0],), {}),
    ("zeros", ((),), {}), ("zeros", (np.int64(3),), {}), ("zeros", (np.array(2),), {}),
    ("zeros", ((np.array(2), np.int8(3)),), {}), ("zeros", (), {"shape": 2, "dtype": int}),
    ("ones", ((2, 1),), {"dtype": np.int8}), ("ones", (4,), {"dtype": bool}),
    ("ones", (), {"shape": (1, 2), "dtype": "float32"}),
    ("empty", ((2, 2),), {}), ("empty", (0,), {"dtype": np.int32}),
    ("full", ((2, 3), 1.5), {}), ("full", (3, 7), {}), ("full", ((2,), True), {}),
    ("full", ((2, 3), np.array([1, 2, 3])), {}), ("full", ((2, 3), [[1.0], [2.0]]), {}),
    ("full", ((2, 3), 7), {"dtype": np.float32}), ("full", (), {"shape": 2, "fill_value": 3}),
    ("full", ((2,), np.float16(1.5)), {}), ("full", ((), 2.5), {"dtype": np.int32}),
    # *_like: dtype and shape overrides
    ("zeros_like", (I23,), {}), ("zeros_like", (I23,), {"dtype": np.float32}),
    ("ones_like", (I23,), {"shape": (4,)}), ("ones_like", (M34,), {"shape": 5, "dtype": int}),
    ("empty_like", (I23,), {"shape": ()}), ("full_like", (I23, 2.7), {}),
    ("full_like", (M34, 2), {"dtype": np.int8}), ("full_like", (I23, [1, 2, 3]), {}),
    ("full_like", (I23, 9), {"shape": (3, 1)}), ("zeros_like", ([1.5, 2.0],), {}),
    ("ones_like", (3,), {}),
    # eye / identity / tri / tril / triu
    ("eye", (3,), {}), ("eye", (3, 5), {}), ("eye", (3,), {"M": 2}), ("eye", (4,), {"k": -1}),
    ("eye", (3, 4, 2), {}), ("eye", (3,), {"k": 7}), ("eye", (3,), {"k": -7}),
    ("eye", (0,), {}), ("eye", (3,), {"dtype": np.int32}), ("eye", (), {"N": 2, "k": 1}),
    ("eye", (3,), {"k": np.int64(1)}), ("eye", (2, 0), {}), ("identity", (np.int64(2),), {}),
    ("identity", (3,), {}), ("identity", (2,), {"dtype": bool}), ("identity", (0,), {}),
    ("tri", (3,), {}), ("tri", (3, 5, 1), {}), ("tri", (4,), {"k": -2}),
    ("tri", (2, 3), {"k": 9}), ("tri", (3,), {"dtype": np.int32}),
    ("tril", (M34,), {}), ("tril", (M34, -1), {}), ("tril", (M34,), {"k": 2}),
    ("tril", (M34,), {"k": 9}), ("triu", (M34,), {}), ("triu", (I23, 1), {}),
    ("triu", (M34,), {"k": -9}), ("triu", (np.ones((2, 3, 3)),), {"k": 1}),
    # array / asarray: dtype, copy, ndmin
    ("array", ([1, 2, 3],), {}), ("array", ([1.0, 2.0],), {"dtype": np.int32}),
    ("array", (I23,), {"copy": True}), ("array", (I23,), {"copy": False}),
    ("array", (5,), {"ndmin": 2}), ("array", ([1, 2],), {"ndmin": 3}),
    ("array", (I23,), {"ndmin": 1}), ("array", ([[True], [False]],), {}),
    ("array", (3.5,), {"dtype": np.float16}), ("array", ((1, 2.5),), {}),
    ("asarray", ([1, 2],), {}), ("asarray", (I23,), {"dtype": np.float32}),
    ("asarray", (M34,), {"copy": True}), ("asarray", (2,), {"dtype": bool}),
    ("asarray", ([],), {}),
]


def _expected_dtype(d):
    return np.dtype(_NARROW.get(np.dtype(d), d))


def _check(got, want, where, values=True):
    want = np.asarray(want)
    got_np = np.asarray(got)
    assert got_np.shape == want.shape, f"{where}: shape {got_np.shape} != {want.shape}"
    assert got_np.dtype == _expected_dtype(want.dtype), \
        f"{where}: dtype {got_np.dtype} != {_expected_dtype(want.dtype)} (NumPy {want.dtype})"
    if not values:
        return
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got_np, want, err_msg=where)
    else:
        np.testing.assert_allclose(got_np, want, rtol=2e-6, atol=1e-6, equal_nan=True,
                                   err_msg=where)


@pytest.mark.parametrize("name,args,kwargs", CALLS,
                         ids=[f"{n}{a!r}{k!r}"[:70] for n, a, k in CALLS])
def test_creation_call_matches_numpy(name, args, kwargs):
    want = getattr(np, name)(*args, **kwargs)
    got = getattr(jnp, name)(*args, **kwargs)
    where = f"jnp.{name}(*{args!r}, **{kwargs!r})"
    if kwargs.get("retstep"):
        assert isinstance(got, tuple) and len(got) == 2, where
        _check(got[0], want[0], where)
        np.testing.assert_allclose(float(got[1]), want[1], rtol=1e-6, equal_nan=True)
    else:  # NumPy's empty* leave the values unset
        _check(got, want, where, values=not name.startswith("empty"))


# Calls NumPy rejects: tjit raises the same kind of error, naming the function.
BAD_CALLS = [
    ("arange", (0, 5, 0), {}, ZeroDivisionError, "step"),  # also a ValueError in tjit
    ("arange", (5,), {"step": 0}, ZeroDivisionError, "step"),
    ("linspace", (0, 1, -1), {}, ValueError, "linspace"),
    ("geomspace", (0, 10, 3), {}, ValueError, "geomspace"),
    ("geomspace", (-1, 0.0, 3), {}, ValueError, "geomspace"),
    ("zeros", ((2, -1),), {}, ValueError, "zeros"),
    ("full", ((2, 3), [1, 2]), {}, ValueError, "full"),
    ("eye", (2.5,), {}, TypeError, "eye"),
    ("zeros", (np.array(2.5),), {}, TypeError, "zeros"),
    ("zeros", (2.0,), {}, TypeError, "zeros"),
    ("ones", ((2, 1.5),), {}, TypeError, "ones"),
    ("eye", (2,), {"k": 0.5}, TypeError, "eye"),
    ("linspace", (0, 1, 2.5), {}, TypeError, "linspace"),
]


@pytest.mark.parametrize("name,args,kwargs,exc,match", BAD_CALLS,
                         ids=[f"{c[0]}{c[1]!r}{c[2]!r}"[:70] for c in BAD_CALLS])
def test_creation_bad_call_raises_like_numpy(name, args, kwargs, exc, match):
    with pytest.raises(exc):
        getattr(np, name)(*args, **kwargs)
    with pytest.raises(exc, match=match):
        getattr(jnp, name)(*args, **kwargs)


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_need_a_matrix_as_in_jax(name):
    # NumPy broadcasts a 1-D input to a square; JAX (and tjit) ask for >= 2 dims.
    with pytest.raises(ValueError, match=f"jnp.{name}: input must have at least 2 dims"):
        getattr(jnp, name)(np.arange(3))


def test_arange_zero_step_is_a_value_error_too():
    with pytest.raises(ValueError, match="step must not be zero"):
        jnp.arange(1, 5, 0.0)
