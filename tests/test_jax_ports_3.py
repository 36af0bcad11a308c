"""JAX programs ported by changing imports, round 3: the modules and names they import
(jax.errors, jax.monitoring, jax.api_util, jax.version, jax.debug.log, ...) and what the
docs pages print (print_saved_residuals' lines with the user's source line).

Expected values are JAX's documented behaviour (its exception hierarchy, event names,
``rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)``) or NumPy computations.
"""

import importlib
import logging
import sys
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.ad_checkpoint import checkpoint_name, print_saved_residuals


# -- jax.errors ------------------------------------------------------------------------------
# JAX's hierarchy (jax/_src/errors.py): name -> the builtin exception it must be
JAX_ERRORS = {
    "JAXTypeError": TypeError, "JAXIndexError": IndexError,
    "ConcretizationTypeError": TypeError, "NonConcreteBooleanIndexError": IndexError,
    "TracerArrayConversionError": TypeError, "TracerBoolConversionError": TypeError,
    "TracerIntegerConversionError": TypeError, "UnexpectedTracerError": TypeError,
    "KeyReuseError": TypeError, "JaxprTypeError": TypeError,
    "JaxRuntimeError": RuntimeError, "InconclusiveDimensionOperation": Exception,
}


def test_errors_module_imports_as_jax_errors():
    errors = importlib.import_module("tjit.errors")
    assert tjit.errors is errors
    for name, builtin in JAX_ERRORS.items():
        cls = getattr(errors, name)
        assert issubclass(cls, builtin), name
    # JAX's subclass relations
    assert issubclass(errors.ConcretizationTypeError, errors.JAXTypeError)
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)
    assert issubclass(errors.NonConcreteBooleanIndexError, errors.JAXIndexError)
    for name in ("TracerArrayConversionError", "TracerIntegerConversionError",
                 "UnexpectedTracerError", "KeyReuseError"):
        assert issubclass(getattr(errors, name), errors.JAXTypeError), name
    # and every one is tjit's own (the module's docstring): `except TjitError` catches all
    assert [n for n in errors.__all__ if not issubclass(getattr(errors, n), errors.TjitError)
            ] == []


def test_errors_are_what_tracing_raises():
    from tjit.errors import (NonConcreteBooleanIndexError, TracerArrayConversionError,
                             TracerBoolConversionError)
    with pytest.raises(TracerArrayConversionError, match="numpy.asarray"):
        tjit.jit(lambda x: np.asarray(x))(jnp.ones(2))
    with pytest.raises(TracerBoolConversionError):
        tjit.jit(lambda x: 1 if x > 0 else 2)(jnp.float32(1))
    with pytest.raises(NonConcreteBooleanIndexError):
        tjit.jit(lambda x: x[x > 0])(jnp.arange(3.0))


def test_refused_transfer_is_a_jax_runtime_error():
    from tjit.errors import JaxRuntimeError
    from tjit.tracing.transfer_guard import TransferGuardError
    assert issubclass(TransferGuardError, JaxRuntimeError)


# -- jax.monitoring --------------------------------------------------------------------------
def test_monitoring_listeners_and_jit_events():
    from tjit import monitoring
    events, durations, spans, scalars = [], [], [], []
    listeners = [(monitoring.register_event_listener, lambda e, **k: events.append((e, k))),
                 (monitoring.register_event_duration_secs_listener,
                  lambda e, d, **k: durations.append((e, d, k))),
                 (monitoring.register_event_time_span_listener,
                  lambda e, s, t, **k: spans.append((e, t - s))),
                 (monitoring.register_scalar_listener,
                  lambda e, v, **k: scalars.append((e, v)))]
    for register, cb in listeners:
        register(cb)
    try:
        monitoring.record_event("/my/event", kind="a")
        monitoring.record_event_duration_secs("/my/duration", 0.5)
        monitoring.record_event_time_span("/my/span", 1.0, 3.5)
        monitoring.record_scalar("/my/scalar", 7)
        assert events == [("/my/event", {"kind": "a"})]
        assert spans == [("/my/span", 2.5)] and scalars == [("/my/scalar", 7)]

        def ported_step(x):
            return jnp.sin(x) * 2
        tjit.jit(ported_step)(jnp.ones(3))
        mine = {e: d for e, d, k in durations if k.get("fun_name") == "ported_step"}
        assert set(mine) == {"/jax/core/compile/jaxpr_trace_duration",
                             "/jax/core/compile/backend_compile_duration"}
        assert all(d >= 0 for d in mine.values())
    finally:
        monitoring.clear_event_listeners()
    assert monitoring.get_event_listeners() == [] == monitoring.get_scalar_listeners()
    monitoring.record_event("/after/clear")   # no listener: nothing called
    assert len(events) == 1
    with pytest.raises(ValueError, match="not registered"):
        monitoring.unregister_event_listener(print)


# -- jax.api_util, jax.version ---------------------------------------------------------------
def test_api_util():
    from tjit import api_util
    from tjit.tree_util import tree_structure
    assert api_util.rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)   # JAX's doc example
    assert api_util.rebase_donate_argnums((0, 3), (1, 5)) == (0, 2)
    with pytest.raises(ValueError, match="cannot intersect"):
        api_util.rebase_donate_argnums((1,), (1,))
    value = ((1, (2, 3)), {"b": [4, 5], "a": 6})
    # args (1, (2, 3)), kwargs {'a': 6, 'b': [4, 5]} (sorted): arg 1 and kwarg b donated
    assert api_util.donation_vector((1,), ("b",), tree_structure(value)) == \
        (False, True, True, False, True, True)
    tree = tree_structure(((1, 2), {"a": 3}))
    assert api_util.flatten_axes("vmap in_axes", tree, (0, None)) == [0, 0, None]
    with pytest.raises(ValueError, match="vmap in_axes specification must be a tree prefix"):
        api_util.flatten_axes("vmap in_axes", tree, (0, None, 1))
    aval = api_util.shaped_abstractify(np.ones((2, 3), np.float32))
    assert (aval.shape, aval.dtype, aval.weak_type) == ((2, 3), np.float32, False)
    assert api_util.shaped_abstractify(1.0).weak_type
    assert api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]


def test_version_module():
    from tjit import version
    assert version.__version__ == tjit.__version__
    assert version.__version_info__ == tjit.__version_info__ == \
        tuple(int(p) for p in tjit.__version__.split("."))


# -- top-level names -------------------------------------------------------------------------
def test_host_aliases_warn_and_agree():
    for old, new in (("host_id", tjit.process_index()), ("host_count", tjit.process_count()),
                     ("host_ids", list(range(tjit.process_count())))):
        with pytest.warns(DeprecationWarning, match=f"{old} has been renamed"):
            assert getattr(tjit, old)() == new


def test_copy_to_host_async_returns_its_tree():
    tree = {"a": jnp.arange(3.0), "s": "text", "n": 2}
    assert tjit.copy_to_host_async(tree) is tree
    np.testing.assert_array_equal(np.asarray(tree["a"]), [0.0, 1.0, 2.0])


def test_make_array_from_single_device_arrays():
    from tjit.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding
    x = jnp.arange(6.0).reshape(2, 3)
    dev = tjit.devices()[0]
    y = tjit.make_array_from_single_device_arrays((2, 3), SingleDeviceSharding(dev), [x])
    np.testing.assert_array_equal(np.asarray(y), np.arange(6.0).reshape(2, 3))
    mesh = tjit.make_mesh((1,), ("i",))
    z = tjit.make_array_from_single_device_arrays((2, 3), NamedSharding(mesh,
                                                  PartitionSpec("i")), [x])
    np.testing.assert_array_equal(np.asarray(z), np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*block of shape \(4, 3\)"):
        tjit.make_array_from_single_device_arrays((4, 3), SingleDeviceSharding(dev), [x])
    with pytest.raises(TypeError, match="arrays\\[0\\] must be a tjit Array on one device"):
        tjit.make_array_from_single_device_arrays((2, 3), SingleDeviceSharding(dev),
                                                  [np.ones((2, 3))])
    with pytest.raises(ValueError, match="missing"):
        tjit.make_array_from_single_device_arrays((2, 3), SingleDeviceSharding(dev), [])


def test_default_prng_impl_context():
    assert tjit.default_prng_impl.value == "threefry2x32"
    with tjit.default_prng_impl("threefry2x32"):
        k = tjit.random.key(0)
    assert tjit.random.key_impl(k) == "threefry2x32"
    with pytest.raises(ValueError, match="threefry2x32"):
        with tjit.default_prng_impl("rbg"):
            pass


def test_custom_gradient_from_custom_derivatives():
    from tjit.custom_derivatives import custom_gradient

    @custom_gradient
    def f(x):
        return jnp.sin(x), lambda g: (g * 10.0,)   # a stated (not true) gradient
    assert float(f(1.0)) == pytest.approx(np.sin(1.0), rel=1e-6)
    assert float(tjit.grad(f)(1.0)) == 10.0


# -- jax.debug.log ---------------------------------------------------------------------------
def test_debug_log_writes_records_with_the_call_site(caplog):
    def f(x):
        tjit.debug.log("x={x} s={s}", x=x, s=x.sum())
        return x + 1
    line = f.__code__.co_firstlineno + 1
    with caplog.at_level(logging.INFO, logger="tjit.debug"):
        tjit.jit(f)(jnp.arange(3))
        tjit.debug.log("eager {}", 4)
    msgs = [(r.getMessage(), r.levelno, r.lineno) for r in caplog.records
            if r.name == "tjit.debug"]
    assert msgs[0] == ("x=[0 1 2] s=3", logging.INFO, line)
    assert msgs[1][0] == "eager 4"
    assert all(r.pathname == __file__ for r in caplog.records if r.name == "tjit.debug")


def test_debug_log_prints_nothing(capsys):
    tjit.jit(lambda x: tjit.debug.log("v {}", x) or x)(jnp.float32(2))
    assert capsys.readouterr().out == ""


# -- jax.sharding ----------------------------------------------------------------------------
def test_get_abstract_mesh_and_reshard():
    from tjit.sharding import AbstractMesh, AxisType, PartitionSpec as P, get_abstract_mesh
    from tjit.sharding import reshard
    assert get_abstract_mesh().empty and get_abstract_mesh().axis_names == ()
    mesh = tjit.make_mesh((1,), ("i",))
    with tjit.set_mesh(mesh):
        am = get_abstract_mesh()
        # (jax.make_mesh's axes are Explicit by default in JAX 0.10)
        assert am == mesh.abstract_mesh == AbstractMesh((1,), ("i",), (AxisType.Explicit,))
        assert (am.axis_names, am.axis_sizes, am.size, am.shape, am.empty) == \
            (("i",), (1,), 1, {"i": 1}, False)
        x = jnp.arange(4.0)
        tree = reshard({"a": x, "b": (x * 2,)}, P("i"))
        np.testing.assert_array_equal(np.asarray(tree["b"][0]), np.arange(4.0) * 2)
        y = tjit.jit(lambda v: reshard(v * 3, P("i")))(x)
        np.testing.assert_array_equal(np.asarray(y), np.arange(4.0) * 3)
        with pytest.raises(ValueError, match="reshard \\(leaf 0\\)"):
            reshard(x, P("i", "j"))
        with pytest.raises(ValueError, match="None"):
            reshard(x, None)
    with pytest.raises(ValueError, match="needs a mesh"):
        reshard(jnp.ones(2), P("i"))


# -- the docs' import lines, through the harness's `jax` alias -------------------------------
def test_ported_import_lines():
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "benchmarks"
                           / "ports"))
    try:
        run_page = importlib.import_module("run_page")
    finally:
        sys.path.pop(0)
    finder = run_page._Alias()
    sys.meta_path.insert(0, finder)
    try:
        ns = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec("from jax.errors import ConcretizationTypeError, JAXTypeError\n"
                 "from jax.monitoring import record_event\n"
                 "from jax.api_util import shaped_abstractify\n"
                 "from jax.version import __version_info__\n"
                 "from jax.custom_derivatives import custom_gradient\n"
                 "from jax.sharding import reshard, get_abstract_mesh\n"
                 "from jax.debug import log\n"
                 "import jax\n"
                 "names = [jax.copy_to_host_async, jax.make_array_from_single_device_arrays,"
                 " jax.host_count, jax.host_id, jax.host_ids, jax.default_prng_impl]\n", ns)
        assert ns["ConcretizationTypeError"] is tjit.errors.ConcretizationTypeError
        assert all(callable(n) for n in ns["names"])
    finally:
        sys.meta_path.remove(finder)
        for name in [m for m in sys.modules if m == "jax" or m.startswith("jax.")]:
            if sys.modules[name].__name__.startswith("tjit"):
                del sys.modules[name]


# -- print_saved_residuals: JAX's lines, with the user's source line -------------------------
def _g(W, x):
    return jnp.sin(jnp.dot(W, x))


def _f(W1, W2, x):
    x = checkpoint_name(_g(W1, x), name="a")
    return _g(W2, x)


def test_print_saved_residuals_lines_through_checkpoint(capsys):
    """What JAX prints for the same program (run with JAX 0.10.2): the value saved by
    the policy names where the user computed it, though checkpoint replays it from a
    jaxpr; the dots come from _g's line, column 19 (0-based, as Python counts)."""
    W, x = jnp.ones((3, 3)), jnp.ones(3)
    args = ["f32[3,3] from the argument W1", "f32[3,3] from the argument W2",
            "f32[3] from the argument x"]
    g_line, f_line = _g.__code__.co_firstlineno + 1, _f.__code__.co_firstlineno + 1
    policies = tjit.checkpoint_policies
    print_saved_residuals(tjit.checkpoint(_f, policy=policies.save_only_these_names("a")),
                          W, W, x)
    assert capsys.readouterr().out.splitlines() == args + [
        f"f32[3] named 'a' from {__file__}:{f_line}:8 (_f)"]
    print_saved_residuals(tjit.checkpoint(_f, policy=policies.dots_saveable), W, W, x)
    assert capsys.readouterr().out.splitlines() == args + [
        f"f32[3] output of dot_general from {__file__}:{g_line}:19 (_g)"] * 2
    # tracing outside print_saved_residuals records no source (it costs a stack walk)
    jaxpr = tjit.make_jaxpr(_f)(W, W, x)
    assert all(e.source is None for e in jaxpr.jaxpr.eqns)


def test_config_with_absl_defines_and_applies_flags(monkeypatch):
    """jax.config.config_with_absl(): one absl flag per option under its jax_ name; the
    flags given on the command line apply after absl's app has parsed it. absl-py is not
    a dependency: a minimal fake with absl's API stands in."""
    import types
    defined, after_init = {}, []

    class Flag:
        def __init__(self, default):
            self.value, self.present = default, False

    def define(name, default, help_text):
        defined[name] = Flag(default)
    flags = types.SimpleNamespace(DEFINE_bool=define, DEFINE_integer=define,
                                  DEFINE_float=define, DEFINE_string=define,
                                  FLAGS=defined)
    app = types.SimpleNamespace(call_after_init=after_init.append)
    absl = types.ModuleType("absl")
    absl.app, absl.flags = app, flags
    monkeypatch.setitem(sys.modules, "absl", absl)
    monkeypatch.setitem(sys.modules, "absl.app", app)
    monkeypatch.setitem(sys.modules, "absl.flags", flags)
    tjit.config.config_with_absl()
    assert defined["jax_enable_x64"].value is False
    assert defined["jax_log_compiles"].value is False
    defined["jax_log_compiles"].value = defined["jax_log_compiles"].present = True
    try:
        for callback in after_init:   # what app.run does once argv is parsed
            callback()
        assert tjit.config.jax_log_compiles is True
        assert tjit.config.jax_enable_x64 is False   # not given: unchanged
    finally:
        tjit.config.update("jax_log_compiles", False)


def _offload(x):
    y = checkpoint_name(jnp.sin(x), "y")
    z = checkpoint_name(jnp.sin(y), "z")
    return jnp.sum(jnp.sin(z))


def test_print_saved_residuals_after_a_cached_checkpoint_trace(capsys):
    """grad first keeps checkpoint's trace, with its source lines as JAX's traces have
    them; print_saved_residuals reuses it (so it reports what grad saves), and the names
    come from _offload's lines (it gave the print_saved_residuals call's line)."""
    f = tjit.checkpoint(_offload,
                        policy=tjit.checkpoint_policies.save_only_these_names("y", "z"))
    x = jnp.arange(4.0)
    np.testing.assert_allclose(np.asarray(tjit.grad(f)(x)),
                               np.cos(np.sin(np.sin(np.arange(4.0)))) *
                               np.cos(np.sin(np.arange(4.0))) * np.cos(np.arange(4.0)),
                               rtol=1e-5)
    print_saved_residuals(f, x)
    line = _offload.__code__.co_firstlineno
    assert capsys.readouterr().out.splitlines() == [
        "f32[4] from the argument x",
        f"f32[4] named 'y' from {__file__}:{line + 1}:8 (_offload)",
        f"f32[4] named 'z' from {__file__}:{line + 2}:8 (_offload)"]


def test_eager_hi_primitive_runs_expand_on_the_arguments_as_given():
    """JAX 0.10.2 runs a VJPHiPrimitive's expand eagerly on its arguments as given:
    x ** 2 at the Python 1.5 is the Python 2.25, a float64 NumPy array becomes a float32
    NumPy array; under grad and jit the rules and arrays take over."""
    from tjit.experimental.hijax import VJPHiPrimitive

    class Square(VJPHiPrimitive):
        def __init__(self, aval):
            self.in_avals, self.out_aval, self.params = (aval,), aval, {}
            super().__init__()

        def expand(self, x):
            return x ** 2

        def vjp_fwd(self, nzs, x):
            return self(x), x

        def vjp_bwd_retval(self, x, g):
            return (2 * x * g,)

    def square(x):
        return Square(tjit.typeof(x))(x)
    assert type(square(1.5)) is float and square(1.5) == 2.25
    out = square(np.ones(2))
    assert type(out) is np.ndarray and out.dtype == np.float32
    assert float(tjit.grad(square)(1.5)) == 3.0
    assert float(tjit.jit(square)(2.0)) == 4.0
