"""Eager reductions (sum/prod/max/min/all/any/mean) on a signature seen before take a kept
plan (numpy._reductions._eager_plans: axes and dtypes checked once). Each call, the
first (general path) and later ones (the plan), must match the reference interpreter
under ``jit`` in dtype, weak flag, shape and bits, and NumPy's float64 values; the
errors of the general path (empty max, bad axis) must still be raised on every call, and
the x64 switch must not reuse a plan made under the other setting.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array

from tests.numpy.exact import assert_same as _same

_RNG = np.random.default_rng(21)


def _interp(f, x):
    return tjit.jit(f, backend="interpreter")(x)


def _operands():
    f32 = _RNG.standard_normal((3, 4)).astype(np.float32)
    return {
        "f32": jnp.asarray(f32),
        "f32 weak": Array(f32, True),
        "f16": jnp.asarray(_RNG.standard_normal((3, 4)).astype(np.float16)),
        "i8": jnp.asarray(_RNG.integers(-5, 5, (3, 4)).astype(np.int8)),
        "u8": jnp.asarray(_RNG.integers(0, 9, (3, 4)).astype(np.uint8)),
        "i32": jnp.asarray(_RNG.integers(-4, 5, (3, 4)).astype(np.int32)),
        "bool": jnp.asarray(_RNG.integers(0, 2, (3, 4)).astype(bool)),
        "f32 nan": jnp.asarray(np.array([[np.nan, -0.0, 1.0, 2.0]] * 3, np.float32)),
    }


_OPS = {"sum": (jnp.sum, np.sum), "prod": (jnp.prod, np.prod), "max": (jnp.max, np.max),
        "min": (jnp.min, np.min), "all": (jnp.all, np.all), "any": (jnp.any, np.any),
        "mean": (jnp.mean, np.mean)}
_AXES = [None, 0, 1, -1, (0, 1), ()]


@pytest.mark.parametrize("op", list(_OPS))
@pytest.mark.parametrize("keepdims", [False, True])
def test_plan_calls_match_interpreter_and_numpy(op, keepdims):
    fn, ref = _OPS[op]
    for name, x in _operands().items():
        for axis in _AXES:
            f = lambda v: fn(v, axis=axis, keepdims=keepdims)  # noqa: E731
            want = _interp(f, x)
            for _ in range(3):  # first call: general path; then the plan
                got = f(x)
                _same(got, want)
            with np.errstate(all="ignore"):
                r = ref(np.asarray(x, np.float64) if x.dtype != bool else np.asarray(x),
                        axis=axis, keepdims=keepdims)
            np.testing.assert_allclose(np.asarray(got, np.float64), r, rtol=2e-3, atol=1e-6,
                                       err_msg=f"{op} {name} axis={axis}")


@pytest.mark.parametrize("fn", [jnp.sum, jnp.mean])
def test_dtype_argument_is_part_of_the_plan(fn):
    x = jnp.asarray(np.arange(12, dtype=np.int8).reshape(3, 4))
    for dtype in [None, jnp.float32, jnp.int8, "float16", float, None]:
        if fn is jnp.mean and dtype is jnp.int8:
            continue
        for _ in range(2):
            _same(fn(x, axis=0, dtype=dtype),
                  _interp(lambda v: fn(v, axis=0, dtype=dtype), x))


def test_errors_raise_on_every_call():
    empty = jnp.zeros((0, 3), jnp.float32)
    x = jnp.ones((2, 3), jnp.float32)
    for _ in range(3):
        with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
            jnp.max(empty, axis=0)
        assert jnp.max(empty, axis=1).shape == (0,)  # reduces a non-empty axis: fine
        with pytest.raises(Exception, match="out of bounds"):
            jnp.sum(x, axis=2)
        with pytest.raises(Exception, match="dimension 0"):
            jnp.sum(jnp.float32(1.0) + x[0, 0], axis=0)
        assert jnp.sum(empty).dtype == np.float32


def test_x64_switch_gives_its_own_plan():
    x = jnp.asarray(np.arange(4, dtype=np.int8))
    old = tjit.config.enable_x64
    try:
        for on, want, mean_dt in [(False, np.int32, np.float32), (True, np.int64, np.float64),
                                  (False, np.int32, np.float32)]:
            tjit.config.update("enable_x64", on)
            for _ in range(2):
                assert jnp.sum(x).dtype == want
                assert jnp.mean(x, dtype=float).dtype == mean_dt
    finally:
        tjit.config.update("enable_x64", old)


@pytest.mark.parametrize("fn", [jnp.cumsum, jnp.cumprod, jnp.nancumsum,
                                lambda v: jnp.cumsum(v, axis=0)])
def test_cumulative_types_match_interpreter(fn):
    """A 1-d input is not reshaped and a conversion that changes nothing is skipped: the
    weak flag must still be dropped and bools/narrow ints widen as under jit."""
    for x in (Array(np.arange(4, dtype=np.float32), True),
              jnp.asarray(np.array([True, False, True])),
              jnp.asarray(np.arange(6, dtype=np.int8)),
              jnp.asarray(np.ones((2, 3), np.float16))):
        _same(fn(x), _interp(fn, x))
