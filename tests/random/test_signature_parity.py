"""jax.random keyword parameters with JAX's meaning: ``key(dtype=)``,
``wrap_key_data(dtype=)``, ``PRNGKey(impl=)``, ``key_dtype(impl_spec=)`` and the samplers'
``out_sharding=`` (checked against the result's shape; one device places nothing)."""

import inspect

import numpy as np
import pytest

import tjit
import tjit.random as random
from tjit.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

# JAX 0.10.2's samplers with an out_sharding parameter
SAMPLERS = ("ball", "bernoulli", "beta", "bits", "categorical", "cauchy", "chisquare",
            "dirichlet", "exponential", "f", "gamma", "generalized_normal", "geometric",
            "gumbel", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
            "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
            "poisson", "rademacher", "randint", "rayleigh", "t", "triangular",
            "truncated_normal", "uniform", "wald")


def test_key_dtype_and_impl_forms_give_the_same_key():
    want = np.asarray(random.PRNGKey(7))
    np.testing.assert_array_equal(want, [0, 7])   # JAX's threefry seed layout
    for k in (random.key(7, dtype=random.key_dtype()), random.key(7, dtype="threefry2x32"),
              random.key(7, impl="threefry2x32")):
        assert k.dtype == random.key_dtype(impl_spec="threefry2x32")
        np.testing.assert_array_equal(random.key_data(k), want)
    np.testing.assert_array_equal(random.PRNGKey(7, impl="threefry2x32"), want)
    data = random.key_data(random.split(random.key(1), 3))
    keys = random.wrap_key_data(data, dtype=random.key_dtype())
    assert keys.shape == (3,)
    np.testing.assert_array_equal(random.key_data(keys), data)


def test_key_dtype_errors():
    with pytest.raises(ValueError, match="Cannot specify both `impl` and `dtype`"):
        random.key(0, impl="threefry2x32", dtype="threefry2x32")
    with pytest.raises(ValueError, match="only impl='threefry2x32'"):
        random.wrap_key_data(np.zeros(2, np.uint32), dtype="rbg")
    with pytest.raises(ValueError, match="only impl='threefry2x32'"):
        random.PRNGKey(0, impl="philox4x32")


@pytest.mark.parametrize("name", SAMPLERS)
def test_samplers_take_out_sharding(name):
    assert "out_sharding" in inspect.signature(getattr(random, name)).parameters


def test_out_sharding_gives_the_same_values_and_is_checked():
    k = random.key(0)
    mesh = tjit.make_mesh((1,), ("x",))
    want = random.normal(k, (4, 2))
    for s in (None, SingleDeviceSharding(tjit.devices()[0]), NamedSharding(mesh, P("x"))):
        np.testing.assert_array_equal(random.normal(k, (4, 2), out_sharding=s), want)
    got = tjit.jit(lambda k: random.randint(k, (4,), 0, 9, out_sharding=NamedSharding(
        mesh, P("x"))))(k)
    np.testing.assert_array_equal(got, random.randint(k, (4,), 0, 9))
    with pytest.raises(TypeError, match=r"random.uniform\(out_sharding=...\): expected a "
                                        r"sharding"):
        random.uniform(k, (3,), out_sharding="cpu")
    with pytest.raises(ValueError, match=r"random.uniform\(out_sharding=...\).*rank 1"):
        random.uniform(k, (3,), out_sharding=NamedSharding(mesh, P("x", None)))
