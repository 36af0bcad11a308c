"""bfloat16 through the gates that pick a path by NumPy's ``dtype.kind``.

ml_dtypes' bfloat16 has kind "V", so a gate written ``kind == "f"`` (or ``in "fc"``)
sent it down the integer/void path: IEEE max/min's signed zeros, integer_pow's float64
chain, max-pool gradients' NaN propagation and the eager updates' silent overflow were
skipped for bfloat16 alone. Each case here compares with float32/float64 computations
of the same bfloat16 values; gates now ask tracing.dtypes (is_float / is_inexact).
"""

import warnings

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(7)


def _bf16(values):
    return np.asarray(values, np.float32).astype(BF16)


def _bits(a):
    return np.asarray(a).view(np.uint16)


@pytest.mark.parametrize("use_jit", [False, True])
def test_max_min_order_signed_zeros(use_jit):
    # IEEE 754-2019: max(+0, -0) = +0, min(+0, -0) = -0 whatever the operand order
    wrap = tjit.jit if use_jit else (lambda f: f)
    pz, nz = jnp.asarray(_bf16([0.0])), jnp.asarray(_bf16([-0.0]))
    for a, b in ((pz, nz), (nz, pz)):
        assert not np.signbit(np.asarray(wrap(jnp.maximum)(a, b), np.float32)).any()
        assert np.signbit(np.asarray(wrap(jnp.minimum)(a, b), np.float32)).all()
    both = jnp.asarray(_bf16([-0.0, 0.0, -0.0]))
    assert not np.signbit(np.float32(wrap(jnp.max)(both)))
    assert np.signbit(np.float32(wrap(jnp.min)(jnp.asarray(_bf16([0.0, -0.0, 0.0])))))


@pytest.mark.parametrize("power", [4, 7, 11, -5])
def test_integer_pow_rounds_once(power):
    # float16/float32/bfloat16: the product chain in float64, rounded once to the dtype
    x = _bf16(RNG.uniform(0.6, 1.9, 64) * RNG.choice([-1, 1], 64))
    want = (x.astype(np.float64) ** power).astype(BF16)
    for fn in (lambda a: lax.integer_pow(a, power), tjit.jit(lambda a: a ** power)):
        got = np.asarray(fn(jnp.asarray(x)))
        assert got.dtype == BF16
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_max_pool_gradient_routes_to_nan():
    # the gradient of a window max goes to the first NaN of a window holding one
    x = _bf16([1.0, np.nan, 3.0, 2.0, 5.0, 4.0])

    def pool_sum(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (2,), (2,), "VALID").astype(
            jnp.float32).sum()

    for grad in (tjit.grad(pool_sum), tjit.jit(tjit.grad(pool_sum))):
        g = np.asarray(grad(jnp.asarray(x)), np.float32)
        np.testing.assert_array_equal(g, [0, 1, 1, 0, 1, 0])


def test_eager_updates_overflow_silently():
    # JAX gives inf without a warning; NumPy's bfloat16 ufuncs would warn
    big = _bf16([3e38, 1.0, 3e38])
    x = jnp.asarray(big)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        basic = x.at[0].add(jnp.asarray(big[0]))
        fancy = x.at[jnp.asarray([0, 2, 0])].add(jnp.asarray(_bf16([3e38, 3e38, 1.0])))
    assert np.isinf(np.float32(basic[0])) and np.float32(basic[1]) == 1.0
    assert np.isinf(np.asarray(fancy, np.float32)[[0, 2]]).all()


@pytest.mark.parametrize("number", [0.1, 3, -2.5])
def test_python_numbers_keep_bfloat16(number):
    # a Python number with a bfloat16 array stays bfloat16, as float32's does: the
    # number becomes a bfloat16 first (JAX), then the float32 operation is rounded
    x = _bf16([0.3, -1.7, 250.0])
    s = np.float32(_bf16([number])[0])
    for op in (jnp.add, jnp.multiply, jnp.subtract, jnp.true_divide):
        got = np.asarray(op(jnp.asarray(x), number))
        want = getattr(np, op.__name__)(x.astype(np.float32), s).astype(BF16)
        assert got.dtype == BF16
        np.testing.assert_array_equal(_bits(got), _bits(want))
