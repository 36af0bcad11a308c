"""Parameter and dtype checks of tjit.random where jax.random (0.10.2) errors or casts:
complex parameters are refused, not made real; integer-only or float-only dtypes; the
default dtypes JAX picks. Each case was compared with JAX 0.10.2 itself."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import random
from tjit.dtypes import TypePromotionError

K = random.key(0)
C = jnp.array(2.5 + 0j, jnp.complex64)
S = (3,)

SAFE_CAST = {  # JAX's _check_all_safe_to_cast callers
    "beta": lambda v: random.beta(K, v, v, S),
    "chisquare": lambda v: random.chisquare(K, v, S),
    "f": lambda v: random.f(K, v, v, S),
    "lognormal": lambda v: random.lognormal(K, v, S),
    "pareto": lambda v: random.pareto(K, v, S),
    "rayleigh": lambda v: random.rayleigh(K, v, S),
    "t": lambda v: random.t(K, v, S),
    "triangular": lambda v: random.triangular(K, v - 1, v, v + 1, S),
    "wald": lambda v: random.wald(K, v, S),
}


@pytest.mark.parametrize("name", sorted(SAFE_CAST))
def test_complex_parameters_cannot_be_cast_safely(name):
    with pytest.raises(TypePromotionError, match=f"{name}, cannot safely cast.*complex64"):
        SAFE_CAST[name](C)
    # ints, other float widths, Python and NumPy scalars all promote to float32
    for v in (2, 2.5, jnp.array(2, jnp.int32), jnp.array(2.5, jnp.float16), np.float64(2.5),
              jnp.array(2, jnp.uint8)):
        x = SAFE_CAST[name](v)
        assert x.dtype == jnp.float32 and np.isfinite(np.asarray(x)).all()


@pytest.mark.parametrize("name", sorted(SAFE_CAST))
def test_strict_promotion_refuses_other_widths(name):
    old = tjit.config.numpy_dtype_promotion
    tjit.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        with pytest.raises(TypePromotionError):
            SAFE_CAST[name](jnp.array(2, jnp.int32))
        with pytest.raises(TypePromotionError):
            SAFE_CAST[name](jnp.array(2.5, jnp.float16))
        assert SAFE_CAST[name](2.5).dtype == jnp.float32  # a weak Python float is fine
        assert SAFE_CAST[name](jnp.array(2.5, jnp.float32)).dtype == jnp.float32
    finally:
        tjit.config.update("jax_numpy_dtype_promotion", old)


def test_complex_probabilities_and_means_are_refused():
    with pytest.raises(TypeError, match="binomial: p must be real, got complex64"):
        random.binomial(K, 5, jnp.array(0.3 + 0j, jnp.complex64), S)
    assert random.binomial(K, C, 0.3, S).dtype == jnp.float32  # n is cast, as JAX
    with pytest.raises(TypeError, match="geometric: p must be real"):
        random.geometric(K, jnp.array(0.3 + 0j, jnp.complex64), S)
    with pytest.raises(TypeError, match="multivariate_normal: mean must be real"):
        random.multivariate_normal(K, jnp.array([C, C]), jnp.eye(2))


def test_categorical_needs_float_logits():
    with pytest.raises(ValueError, match="categorical: logits must have a float dtype, got int32"):
        random.categorical(K, jnp.array([1, 2], jnp.int32))
    assert random.categorical(K, jnp.array([1.0, 2.0], jnp.float16)).dtype == jnp.int32


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16, jnp.bool_])
def test_poisson_needs_an_integer_dtype(dtype):
    with pytest.raises(ValueError, match="dtype argument to `poisson` must be an integer"):
        random.poisson(K, 2.0, S, dtype)


def test_multinomial_default_dtype_is_the_default_float():
    for p in (jnp.array([0.5, 0.5], jnp.float16), jnp.array([0.5, 0.5], jnp.bfloat16)):
        counts = random.multinomial(K, 5, p)
        assert counts.dtype == jnp.float32 and float(np.asarray(counts).sum()) == 5


def test_rademacher_bool_and_unsigned():
    # JAX computes 2 b - 1 and casts: True everywhere for bool, 255 for -1 in uint8
    b = np.asarray(random.rademacher(K, (64,), jnp.bool_))
    assert b.dtype == np.bool_ and b.all()
    ref = np.asarray(random.rademacher(K, (64,)))
    np.testing.assert_array_equal(np.asarray(random.rademacher(K, (64,), jnp.uint8)),
                                  ref.astype(np.int64) % 256)


def test_complex_orthogonal_is_unitary_and_haar_phases():
    q = np.asarray(random.orthogonal(K, 3, (200,), jnp.complex64))
    assert q.dtype == np.complex64
    eye = np.swapaxes(q.conj(), -1, -2) @ q
    np.testing.assert_allclose(eye, np.broadcast_to(np.eye(3), eye.shape), atol=1e-5)
    # Haar: each entry's phase is uniform, and E|q_ij|^2 = 1/3 (a real Q would be 0 phase)
    phases = np.angle(q[:, 0, 0])
    assert abs(np.mean(np.exp(1j * phases))) < 0.2
    assert np.mean(np.abs(q) ** 2) == pytest.approx(1 / 3, rel=1e-5)
    np.testing.assert_allclose(np.abs(q[:, 0, :]).mean(), np.abs(q[:, :, 0]).mean(), rtol=0.1)


UNCAST = {  # parameters enter the arithmetic as they are (JAX's formulas), not cast to dtype
    "double_sided_maxwell": lambda v: random.double_sided_maxwell(K, v, v, S),
    "weibull_min": lambda v: random.weibull_min(K, v, v, S),
    "generalized_normal": lambda v: random.generalized_normal(K, v, S),
    "ball": lambda v: random.ball(K, 2, v),
}


@pytest.mark.parametrize("name", sorted(UNCAST))
def test_uncast_parameters_promote_with_the_samples(name):
    f = UNCAST[name]
    ref = np.asarray(f(jnp.array(2.5, jnp.float32)))
    # a float16 parameter promotes with the float32 samples: a float32 result, not rounded
    # to float16 (1 / p is float16 arithmetic where JAX's formula has it: 4e-4 apart); a
    # complex one gives complex values whose real part is the real computation
    half = f(jnp.array(2.5, jnp.float16))
    assert half.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(half), ref,
                               rtol=1e-6 if name == "double_sided_maxwell"
                               else 1e-3)
    z = f(C)
    assert z.dtype == jnp.complex64
    np.testing.assert_allclose(np.asarray(z).real, ref, rtol=2e-6)
    old = tjit.config.numpy_dtype_promotion
    tjit.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        with pytest.raises(TypePromotionError):
            f(jnp.array(2.5, jnp.float16))
        assert f(2.5).dtype == jnp.float32
    finally:
        tjit.config.update("jax_numpy_dtype_promotion", old)


def test_multivariate_normal_strict_promotion_of_mean_and_cov():
    old = tjit.config.numpy_dtype_promotion
    tjit.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        with pytest.raises(TypePromotionError):
            random.multivariate_normal(K, jnp.array([1, 2], jnp.int32), jnp.eye(2))
        assert random.multivariate_normal(K, jnp.zeros(2), jnp.eye(2)).dtype == jnp.float32
    finally:
        tjit.config.update("jax_numpy_dtype_promotion", old)
