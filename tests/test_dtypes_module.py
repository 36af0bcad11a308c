"""tjit.dtypes (jax.dtypes), tjit.typing, tjit.named_scope/named_call, the environment
helpers, and the examples in their docstrings and in the config options' context
managers."""
import doctest
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("module", ["tjit.dtypes", "tjit.naming", "tjit.environment",
                                    "tjit.tracing.compile_time_eval"])
def test_module_examples_run(module):
    # (functions tjit exports get JAX's stored examples appended, written with `jax`)
    result = doctest.testmod(sys.modules[module], optionflags=doctest.NORMALIZE_WHITESPACE,
                             extraglobs={"jax": tjit, "jnp": jnp})
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", ["disable_jit", "debug_nans", "debug_infs", "log_compiles",
                                  "explain_cache_misses", "enable_x64", "default_device",
                                  "default_matmul_precision", "numpy_rank_promotion",
                                  "numpy_dtype_promotion", "check_tracer_leaks",
                                  "enable_checks"])
def test_option_context_examples_run(name):
    test = doctest.DocTestParser().get_doctest(getattr(tjit, name).__doc__, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert test.examples and runner.failures == 0


@pytest.mark.parametrize("dtype, bits, scalar", [
    ("bool", 8, bool), ("int8", 8, int), ("uint16", 16, int), ("int32", 32, int),
    ("float16", 16, float), ("bfloat16", 16, float), ("float32", 32, float),
    ("complex64", 64, complex)])
def test_dtype_helpers_against_numpy(dtype, bits, scalar):
    dt = jnp.dtype(dtype)
    assert tjit.dtypes.itemsize_bits(dt) == bits == np.dtype(dt).itemsize * 8
    assert tjit.dtypes.scalar_type_of(jnp.zeros(2, dt)) is scalar
    assert tjit.dtypes.canonicalize_dtype(dt) == dt
    assert tjit.dtypes.issubdtype(dt, np.number) == (dtype != "bool")


def test_canonicalize_and_result_type_follow_the_x64_switch():
    assert tjit.dtypes.canonicalize_dtype(np.float64) == np.float32
    assert tjit.dtypes.result_type(2, return_weak_type_flag=True) == (np.int32, True)
    assert tjit.dtypes.result_type(jnp.ones(2, jnp.int8), 2) == np.int8
    with tjit.enable_x64():
        assert tjit.dtypes.canonicalize_dtype(np.float64) == np.float64
        assert tjit.dtypes.result_type(2.0, return_weak_type_flag=True) == (np.float64, True)
    assert tjit.dtypes.float0.itemsize == 0 and tjit.dtypes.itemsize_bits(tjit.float0) == 0
    with pytest.raises(TypeError, match="not a numeric dtype"):
        tjit.dtypes.scalar_type_of(np.array(["a"]))


def test_named_scope_and_named_call_leave_results_unchanged():
    def f(x):
        with tjit.named_scope("block"):
            return tjit.named_call(jnp.sin, name="sine")(x) * 2
    x = np.linspace(-1, 1, 5).astype(np.float32)
    np.testing.assert_allclose(tjit.jit(f)(x), 2 * np.sin(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(tjit.grad(lambda x: f(x).sum())(x), 2 * np.cos(x), rtol=1e-6)
    with pytest.raises(TypeError, match="must be a string"):
        with tjit.named_scope(3):
            pass
    with pytest.raises(TypeError, match="name must be a string"):
        tjit.named_call(jnp.sin, name=3)


def test_typing_and_environment_helpers():
    import typing
    from tjit.typing import ArrayLike, DTypeLike
    assert tjit.Array in typing.get_args(ArrayLike) and float in typing.get_args(ArrayLike)
    assert str in typing.get_args(DTypeLike)
    info = tjit.print_environment_info(return_string=True)
    assert f"tjit:     {tjit.__version__}" in info and f"numpy:    {np.__version__}" in info
    assert tjit.process_indices() == list(range(tjit.process_count()))
    assert tjit.effects_barrier() is None
    assert tjit.P is tjit.sharding.PartitionSpec and tjit.NamedSharding is tjit.sharding.NamedSharding


def test_array_shard_and_buffer_attributes_against_numpy():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    a = jnp.asarray(x)
    (shard,) = a.addressable_shards
    assert shard.device == a.device and shard.replica_id == 0
    np.testing.assert_array_equal(shard.data, x[shard.index])
    np.testing.assert_array_equal(a.addressable_data(0), x)
    assert a.global_shards[0].index == shard.index
    assert a.is_ready() and a.is_fully_addressable
    assert a.on_device_size_in_bytes() == x.nbytes
    assert a.unsafe_buffer_pointer() == np.asarray(a).ctypes.data


def test_pmap_result_shards_are_its_rows():
    n = tjit.local_device_count()
    x = np.arange(3.0 * n, dtype=np.float32).reshape(n, 3)
    out = tjit.pmap(lambda r: r * 2)(x)
    shards = out.addressable_shards
    assert [s.device for s in shards] == tjit.local_devices()[:n]
    for i, s in enumerate(shards):
        np.testing.assert_array_equal(s.data, 2 * x[i])
