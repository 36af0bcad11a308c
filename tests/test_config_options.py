"""JAX's config options in tjit (tjit/config.py): names, errors, context managers, and
what each option does, checked against NumPy and the options' documented meaning."""
import logging
import os
import sys
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

config_module = sys.modules["tjit.config"]
OPTIONS = config_module.OPTIONS


@pytest.fixture(autouse=True)
def _restore_options():
    before = {n: getattr(tjit.config, n) for n in OPTIONS}
    yield
    for n, v in before.items():
        if getattr(tjit.config, n) != v:
            tjit.config.update(n, v)


# -- names and errors ------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_option_reads_under_its_jax_name_and_round_trips(name):
    value = getattr(tjit.config, name)
    assert tjit.config.read(f"jax_{name}") == value
    assert getattr(tjit.config, f"jax_{name}") == value
    assert tjit.config.values[f"jax_{name}"] == value
    tjit.config.update(f"jax_{name}", value)   # its own value is always accepted
    assert getattr(tjit.config, name) == value


def test_unknown_option_is_an_attribute_error_and_a_value_error():
    for exc in (AttributeError, ValueError):
        with pytest.raises(exc, match="Unrecognized config option: jax_no_such_thing"):
            tjit.config.update("jax_no_such_thing", 1)


@pytest.mark.parametrize("name, bad", [
    ("numpy_rank_promotion", "sometimes"), ("numpy_dtype_promotion", "loose"),
    ("default_matmul_precision", "fastest"), ("default_prng_impl", "rbg"),
    ("threefry_partitionable", False), ("enable_x64", "maybe"),
    ("while_loop_checkpoints", 0), ("platforms", 3)])
def test_bad_values_are_refused_naming_the_option(name, bad):
    with pytest.raises(ValueError, match=name):
        tjit.config.update(name, bad)


def test_platform_name_is_jax_s_older_name_of_platforms():
    tjit.config.update("jax_platform_name", "cpu")
    assert tjit.config.platforms == "cpu"


def test_context_managers_restore_the_value_even_on_error():
    assert not tjit.config.debug_nans
    with pytest.raises(RuntimeError):
        with tjit.debug_nans():
            assert tjit.config.debug_nans and tjit.debug_nans.value
            raise RuntimeError
    assert not tjit.config.debug_nans
    with pytest.raises(TypeError, match="numpy_rank_promotion"):
        tjit.numpy_rank_promotion()


# -- disable_jit -----------------------------------------------------------------------
def test_disable_jit_runs_the_python_function_at_every_call():
    calls = []
    f = tjit.jit(lambda x: calls.append(float(x[0])) or x * 2)
    with tjit.disable_jit():
        np.testing.assert_array_equal(f(jnp.ones(2)), [2, 2])
        f(jnp.ones(2) * 3)
    assert calls == [1.0, 3.0]   # concrete values, once per call


def test_disable_jit_runs_lax_control_flow_as_python_loops():
    seen = []
    with tjit.disable_jit():
        out = lax.while_loop(lambda c: c < 3, lambda c: seen.append(int(c)) or c + 1, 0)
        carry, ys = lax.scan(lambda c, x: (c + x, c * x), jnp.float32(0), jnp.arange(4.0),
                             reverse=True)
        picked = lax.cond(jnp.float32(1) > 0, lambda: "true branch", lambda: 1 / 0)
        # under vmap the operands are traced: the primitive runs as usual
        batched = tjit.vmap(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + 1, x))(
            jnp.arange(5))
    assert int(out) == 3 and seen == [0, 1, 2]
    ref_c, ref_ys = 0.0, []
    for x in [3.0, 2.0, 1.0, 0.0]:
        ref_ys.append(ref_c * x)
        ref_c += x
    assert float(carry) == ref_c
    np.testing.assert_array_equal(ys, ref_ys[::-1])
    assert picked == "true branch"     # only the taken branch ran
    np.testing.assert_array_equal(batched, [3, 3, 3, 3, 4])


# -- debug_nans / debug_infs -----------------------------------------------------------
def test_debug_nans_names_the_eager_op():
    x = jnp.array([1.0, -1.0])
    assert np.isnan(np.asarray(jnp.log(x))[1])        # off: NaN, no error
    with tjit.debug_nans():
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered "
                                                     r"in log"):
            jnp.log(x)
        with pytest.raises(FloatingPointError, match="in sub"):
            jnp.float32(np.inf) - np.inf
        np.testing.assert_allclose(jnp.log(jnp.abs(x)), [0, 0])   # finite: runs


def test_debug_nans_reruns_a_jitted_call_to_name_the_op(caplog):
    f = tjit.jit(lambda x: jnp.sqrt(x - 2.0) * 3.0)
    np.testing.assert_allclose(f(jnp.float32(6)), 6.0)
    with tjit.debug_nans(), caplog.at_level(logging.WARNING, logger="tjit"):
        np.testing.assert_allclose(f(jnp.float32(6)), 6.0)
        with pytest.raises(FloatingPointError, match=r"\(nan\) encountered in sqrt"):
            f(jnp.float32(1))
    assert "de-optimized" in caplog.text


def test_debug_nans_when_the_nan_comes_in_as_an_argument():
    with tjit.debug_nans():
        with pytest.raises(FloatingPointError, match="did not produce one op by op"):
            tjit.jit(lambda x: x)(np.float32(np.nan))


def test_debug_infs_and_integer_outputs():
    with tjit.debug_infs():
        with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in div"):
            jnp.float32(1) / jnp.float32(0)
        assert int(jnp.int32(7) // jnp.int32(2)) == 3       # ints are never checked
        assert np.isnan(np.asarray(jnp.log(jnp.float32(-1))))  # NaN is debug_nans's


# -- numpy_rank_promotion / numpy_dtype_promotion --------------------------------------
RANK_CASES = [((2, 3), (3,), True), ((2, 3), (), False), ((4, 1, 3), (2, 1), True),
              ((2, 3), (2, 3), False), ((1, 3), (2, 3), False)]


@pytest.mark.parametrize("sx, sy, promotes", RANK_CASES)
@pytest.mark.parametrize("how", ["eager", "jit"])
def test_rank_promotion_option(sx, sy, promotes, how):
    x, y = jnp.ones(sx), jnp.ones(sy)
    add = tjit.jit(jnp.add) if how == "jit" else (lambda a, b: a + b)
    expected = (np.ones(sx) + np.ones(sy)).shape
    with tjit.numpy_rank_promotion("raise"):
        if promotes:
            with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
                add(x, y)
        else:
            assert add(x, y).shape == expected
    with tjit.numpy_rank_promotion("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert add(x, y).shape == expected
        assert bool(caught) == promotes
    assert add(x, y).shape == expected   # "allow" again


# JAX's strict lattice: a Python scalar's weak type becomes any type of its kind (or a
# float for an int scalar); strongly typed dtypes of different kinds never promote.
STRICT_CASES = [
    ("int32", "float32", None), ("float16", "float32", None), ("int8", "int16", None),
    ("bool", "int32", None), ("uint8", "int8", None), ("float32", "complex64", None),
    ("float32", "float32", "float32"), ("int32", 1, "int32"), ("uint8", 3, "uint8"),
    ("float16", 1.5, "float16"), ("int32", 1.5, None), ("float32", 2, "float32"),
    ("complex64", 1.0, "complex64"), ("bfloat16", 1.0, "bfloat16")]


@pytest.mark.parametrize("a, b, result", STRICT_CASES)
def test_strict_dtype_promotion(a, b, result):
    x = jnp.ones(2, a)
    y = b if not isinstance(b, str) else jnp.ones(2, b)
    with tjit.numpy_dtype_promotion("strict"):
        for fn in (lambda: x * y, lambda: tjit.jit(jnp.multiply)(x, y)):
            if result is None:
                if isinstance(b, float):  # int array * weak float: promotion JAX refuses
                    with pytest.raises(ValueError, match="strict"):
                        fn()
                    continue
                with pytest.raises(ValueError, match="no available implicit dtype"):
                    fn()
            else:
                assert fn().dtype == np.dtype(jnp.dtype(result))
    standard = x * y                     # standard promotion afterwards
    assert standard.dtype == jnp.result_type(x, y)


# -- placement and cache options -------------------------------------------------------
def test_platforms_and_default_device_choose_the_backend_of_later_calls():
    f = tjit.jit(lambda x: x + 1)
    assert f(jnp.float32(1)) == 2 and f.backend == "cpu"
    tjit.config.update("jax_platforms", "interpreter")
    assert f(jnp.float32(1)) == 2 and f.backend == "interpreter"
    tjit.config.update("jax_platforms", None)
    with tjit.default_device("cpu"):
        assert f(jnp.float32(2)) == 3 and f.backend == "cpu"
    tjit.config.update("jax_platforms", "no_such_platform")
    with pytest.raises(RuntimeError, match="no_such_platform"):
        f(jnp.float32(1))


def test_compilation_cache_dir_and_enable_compilation_cache(tmp_path):
    on, off = tmp_path / "on", tmp_path / "off"
    tjit.config.update("jax_compilation_cache_dir", str(off))
    tjit.config.update("jax_enable_compilation_cache", False)
    tjit.jit(lambda x: jnp.tanh(x) * 1.25)(jnp.ones(7))
    assert not off.exists() or not os.listdir(off)
    tjit.config.update("jax_enable_compilation_cache", True)
    tjit.config.update("jax_compilation_cache_dir", str(on))
    tjit.jit(lambda x: jnp.tanh(x) * 1.5 - 0.25)(jnp.ones(9))
    assert on.exists() and os.listdir(on)


def test_explain_cache_misses_turns_on_the_compile_log(caplog):
    with tjit.explain_cache_misses(), caplog.at_level(logging.WARNING, logger="tjit"):
        tjit.jit(lambda x: x * 7.5)(jnp.ones(3))
    assert "first call" in caplog.text


def test_debug_nans_reaches_threads_started_afterwards():
    import threading
    raised = []

    def work():
        try:
            jnp.log(jnp.float32(-1))
        except FloatingPointError as e:
            raised.append(str(e))
    tjit.config.update("jax_debug_nans", True)
    t = threading.Thread(target=work)
    t.start()
    t.join()
    tjit.config.update("jax_debug_nans", False)
    assert raised == ["invalid value (nan) encountered in log"]
    t = threading.Thread(target=work)       # off again for new threads
    t.start()
    t.join()
    assert len(raised) == 1
