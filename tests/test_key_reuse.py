"""``debug_key_reuse`` (JAX's key-reuse checker) for typed keys: what consumes a key,
what only reads it, eagerly, inside a jit trace and across jit calls (compared side by
side with JAX 0.10.2)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import random

KeyReuseError = tjit.errors.KeyReuseError


@pytest.fixture
def checking():
    with tjit.debug_key_reuse(True):
        yield


def test_off_by_default_and_the_option_nests():
    assert tjit.config.jax_debug_key_reuse is False
    k = random.key(0)
    random.normal(k)
    random.normal(k)           # allowed: the checker is off
    with tjit.debug_key_reuse(True):
        k = random.key(0)
        random.normal(k)
        with tjit.debug_key_reuse(False):
            random.normal(k)
        assert tjit.config.debug_key_reuse is True
        with pytest.raises(KeyReuseError, match="Previously-consumed key passed to normal"):
            random.normal(k)
    assert tjit.config.debug_key_reuse is False
    assert issubclass(KeyReuseError, TypeError)   # (as jax.errors.KeyReuseError)


def test_eager_consumers_and_readers(checking):
    k = random.key(1)
    a, b = random.split(k)
    with pytest.raises(KeyReuseError, match="split"):
        random.split(k)
    # fold_in, key_data, clone and key_impl read a key without consuming it (JAX's)
    random.fold_in(a, 1)
    random.fold_in(a, 2)
    random.key_data(a)
    assert random.key_impl(a) == "threefry2x32"
    c = random.clone(a)
    random.uniform(c)
    random.uniform(a)          # the clone was consumed, not its source
    with pytest.raises(KeyReuseError, match="uniform"):
        random.uniform(a)
    raw = random.PRNGKey(0)    # raw uint32 keys are not checked (JAX's)
    random.normal(raw)
    random.normal(raw)
    random.bits(b)
    with pytest.raises(KeyReuseError, match="randint"):
        random.randint(b, (2,), 0, 5)


def test_values_unchanged(checking):
    want = np.asarray(random.normal(random.PRNGKey(3), (4,)))
    np.testing.assert_array_equal(random.normal(random.key(3), (4,)), want)
    f = tjit.jit(lambda k: random.normal(k, (4,)))
    np.testing.assert_array_equal(f(random.key(3)), want)


SAMPLERS = {
    "normal": (), "uniform": (), "bernoulli": (), "bits": (), "split": (),
    "randint": ((3,), 0, 5), "gamma": (2.0,), "beta": (2.0, 3.0), "poisson": (3.0,),
    "binomial": (5, 0.3), "categorical": (jnp.zeros(4),), "choice": (5,),
    "dirichlet": (jnp.ones(3),), "multinomial": (5, jnp.ones(3) / 3),
    "multivariate_normal": (jnp.zeros(2), jnp.eye(2)), "permutation": (5,),
    "truncated_normal": (-1.0, 1.0), "t": (3.0,), "orthogonal": (3,),
    "exponential": (), "laplace": (), "logistic": (), "cauchy": (), "gumbel": (),
    "rayleigh": (1.0,), "geometric": (0.3,), "rademacher": ((3,),), "ball": (2,),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_each_sampler_consumes_its_key_once(checking, name):
    fn, args = getattr(random, name), SAMPLERS[name]
    k = random.key(4)
    fn(k, *args)                               # (no false reuse inside the sampler)
    with pytest.raises(KeyReuseError, match=f"(?s)Previously-consumed key passed to .*{name}"):
        fn(k, *args)


def test_reuse_inside_a_jitted_function_raises_when_traced(checking):
    def twice(k):
        return random.normal(k) + random.uniform(k)
    with pytest.raises(KeyReuseError, match="uniform"):
        tjit.jit(twice)(random.key(5))

    def once_each(k):
        k1, k2 = random.split(k)
        return random.normal(k1) + random.uniform(k2)
    assert np.isfinite(float(tjit.jit(once_each)(random.key(5))))


def test_jit_consumes_the_key_arguments_its_function_consumes(checking):
    draw = tjit.jit(lambda ks, x, n: random.normal(ks["a"], (n,)) + x, static_argnums=2)
    k1, k2, kb = random.key(6), random.key(7), random.key(8)
    draw({"a": k1, "b": kb}, 1.0, 2)
    with pytest.raises(KeyReuseError, match=r"jit\(<lambda>\) at index 0"):
        draw({"a": k1, "b": kb}, 1.0, 2)
    draw({"a": k2, "b": kb}, 1.0, 2)          # "b" was not consumed; a cached call
    with pytest.raises(KeyReuseError, match="at index 0"):
        draw({"a": k2, "b": random.key(9)}, 1.0, 2)   # (consumed by the cached program)
    random.normal(kb)

    readers = tjit.jit(lambda k: (random.key_data(k), random.fold_in(k, 3)))
    k = random.key(10)
    readers(k)
    readers(k)                                  # reading a key does not consume it
    random.normal(k)
    with pytest.raises(KeyReuseError):
        readers(k)                              # (but a consumed key may not go in)


def test_disable_jit_consumes_as_eager(checking):
    f = tjit.jit(lambda k: random.normal(k))
    k = random.key(11)
    with tjit.disable_jit():
        f(k)
    with pytest.raises(KeyReuseError):
        f(k)
