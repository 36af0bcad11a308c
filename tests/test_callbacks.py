"""Host callbacks (tjit.debug.print/callback, tjit.pure_callback,
tjit.experimental.io_callback): printed text against Python's own str.format of the
NumPy values, call counts and order, results against NumPy and Python loops through
jit, vmap, scan/while/cond and the interpreter, and errors (JAX's messages and types)."""

import doctest

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.experimental import io_callback
from tjit.primitives.callbacks import CallbackResultError

F32 = tjit.ShapeDtypeStruct((), jnp.float32)


def _lines(capsys):
    """The printed lines (an array may span several)."""
    return capsys.readouterr().out.splitlines()


def _split(lines):
    return "\n".join(lines).splitlines()


# -- debug.print -----------------------------------------------------------------------------
def _show(x, y):
    tjit.debug.print("x={x} y={} sum={s:.3f}", y, x=x, s=x.sum())
    return x * y


def _expected(x, y):
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    return f"x={x} y={y} sum={x.sum():.3f}"


def test_print_eager_and_jit_format_the_runtime_values_each_call(capsys):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    _show(xs[0], np.float32(2.5))
    assert _lines(capsys) == _split([_expected(xs[0], 2.5)])
    f = tjit.jit(_show)
    tjit.make_jaxpr(_show)(xs[0], np.float32(1.0))  # tracing prints nothing
    assert _lines(capsys) == []
    for x in xs:
        out = f(x, np.float32(-1.5))
        np.testing.assert_array_equal(np.asarray(out), x * np.float32(-1.5))
    assert _lines(capsys) == _split([_expected(x, -1.5) for x in xs])


def test_print_without_placeholders_and_static_args(capsys):
    tjit.jit(lambda x: tjit.debug.print("plain") or x)(1.0)
    tjit.debug.print("{} {name}", jnp.arange(3), name="label")  # a str stays a Python value
    assert _lines(capsys) == ["plain", "{} {name}".format(np.arange(3, dtype=np.int32),
                                                          name="label")]


def test_print_uses_the_call_sites_numpy_print_options(capsys):
    x = np.float32([1.0 / 3.0, 2.0])
    with np.printoptions(precision=2):
        f = tjit.jit(lambda v: tjit.debug.print("{}", v) or v)
        with np.printoptions(precision=2):
            want = f"{x}"
        f(x)
    assert _lines(capsys) == [want]


def test_print_under_vmap_prints_each_element_as_a_python_loop(capsys):
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.float32(0.5)

    def f(x):
        tjit.debug.print("row {} with {}", x, y)
        return x * 2

    for fn in (tjit.vmap(f), tjit.jit(tjit.vmap(f))):
        np.testing.assert_array_equal(np.asarray(fn(xs)), xs * 2)
        assert _lines(capsys) == [f"row {x} with {y}" for x in xs]


def test_print_under_grad_and_jvp_shows_the_primal(capsys):
    def f(x):
        tjit.debug.print("x={}", x)
        return jnp.sum(jnp.sin(x))

    x = np.float32([0.1, 0.7])
    for g in (tjit.grad(f), tjit.jit(tjit.grad(f))):
        np.testing.assert_allclose(np.asarray(g(x)), np.cos(x.astype(np.float64)), rtol=1e-6)
        assert _lines(capsys) == [f"x={x}"]
    _, t = tjit.jvp(f, (x,), (np.ones(2, np.float32),))
    np.testing.assert_allclose(float(t), np.cos(x.astype(np.float64)).sum(), rtol=1e-6)
    assert _lines(capsys) == [f"x={x}"]


def test_print_checks_its_arguments_at_the_call():
    with pytest.raises(ValueError, match="Unused positional arguments"):
        tjit.debug.print("{}", 1, 2)
    with pytest.raises(ValueError, match="f-string"):
        tjit.debug.print("x", x=1)
    with pytest.raises(TypeError, match="two-call form"):
        tjit.debug.print(ordered=True, x=1)


def test_two_call_forms(capsys):
    tjit.jit(lambda x: tjit.debug.print(ordered=True)("v={}", x) or x)(2.0)
    got = []
    tjit.jit(lambda x: tjit.debug.callback(ordered=True)(got.append, x) or x)(3.0)
    assert _lines(capsys) == ["v=2.0"] and [float(g) for g in got] == [3.0]


# -- order, counts and control flow ------------------------------------------------------------
def test_ordered_callbacks_keep_program_order_under_jit():
    log = []

    def f(x):
        a = jnp.exp(x)
        tjit.debug.callback(lambda v: log.append(("exp", v.copy())), a, ordered=True)
        b = a @ a.T
        io_callback(lambda v: log.append(("dot", v.copy())), None, b, ordered=True)
        tjit.debug.callback(lambda v: log.append(("x", v.copy())), x, ordered=True)
        return b.sum()

    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    tjit.jit(f)(x)
    assert [k for k, _ in log] == ["exp", "dot", "x"]
    e = np.exp(x.astype(np.float64))
    np.testing.assert_allclose(log[0][1], e, rtol=1e-5)
    np.testing.assert_allclose(log[1][1], e @ e.T, rtol=1e-5)
    np.testing.assert_array_equal(log[2][1], x)


def test_callbacks_in_scan_while_and_cond_bodies_under_jit(capsys):
    def body(c, x):
        tjit.debug.print("c={} x={}", c, x)
        y = tjit.pure_callback(lambda a: np.float32(a) * 2, F32, x)
        return c + y, y

    xs = np.float32([1.0, 4.0, -2.0])
    carry, ys = tjit.jit(lambda v: lax.scan(body, np.float32(0.0), v))(xs)
    c, want_lines, want_ys = np.float32(0.0), [], []
    for x in xs:  # the Python loop the scan stands for
        want_lines.append(f"c={c} x={x}")
        c = c + 2 * x
        want_ys.append(2 * x)
    assert _lines(capsys) == want_lines
    np.testing.assert_array_equal(np.asarray(ys), want_ys)
    assert float(carry) == float(c)

    def wbody(state):
        i, s = state
        tjit.debug.print("i={}", i, ordered=True)
        return i + 1, s + io_callback(lambda v: np.float32(v * 3), F32, s)

    i, s = tjit.jit(lambda: lax.while_loop(lambda st: st[0] < 3, wbody, (0, np.float32(1.0))))()
    assert _lines(capsys) == ["i=0", "i=1", "i=2"] and (int(i), float(s)) == (3, 64.0)

    h = tjit.jit(lambda p, x: lax.cond(p, lambda v: tjit.debug.print("yes {}", v) or v,
                                       lambda v: v * 2, x))
    assert (float(h(True, 1.5)), float(h(False, 1.5))) == (1.5, 3.0)
    assert _lines(capsys) == ["yes 1.5"]


def test_io_callback_runs_when_unused_and_pure_callback_is_dropped():
    io_calls, pure_calls = [], []

    def f(x):
        io_callback(lambda v: io_calls.append(1) or v, F32, x)
        tjit.pure_callback(lambda v: pure_calls.append(1) or v, F32, x)
        return x + 1

    g = tjit.jit(f)
    assert [float(g(np.float32(k))) for k in range(3)] == [1.0, 2.0, 3.0]
    assert (len(io_calls), len(pure_calls)) == (3, 0)
    f(np.float32(0.0))  # eagerly both run
    assert (len(io_calls), len(pure_calls)) == (4, 1)


def test_callbacks_are_not_folded_or_merged():
    calls = []

    def f():
        a = tjit.pure_callback(lambda: calls.append(1) or np.float32(2.0), F32)
        b = io_callback(lambda v: calls.append(2) or v, F32, np.float32(3.0))
        c = io_callback(lambda v: calls.append(2) or v, F32, np.float32(3.0))
        return a + b + c

    g = tjit.jit(f)
    assert float(g()) == 8.0 and float(g()) == 8.0
    assert calls == [1, 2, 2] * 2


def test_results_do_not_alias_what_the_callback_keeps():
    buf = np.zeros(3, np.float32)

    def fill(v):
        buf[:] = v
        return buf

    spec = tjit.ShapeDtypeStruct((3,), jnp.float32)
    for f in (lambda v: tjit.pure_callback(fill, spec, v), tjit.jit(
            lambda v: tjit.pure_callback(fill, spec, v))):
        a = f(np.full(3, 1.0, np.float32))
        b = f(np.full(3, 2.0, np.float32))
        assert np.asarray(a).tolist() == [1.0] * 3 and np.asarray(b).tolist() == [2.0] * 3


def test_arguments_kept_by_a_callback_stay_intact():
    kept = []
    f = tjit.jit(lambda x: io_callback(kept.append, None, jnp.sin(x) * 2, ordered=True) or x * 3)
    xs = [np.arange(4, dtype=np.float32), np.ones(4, np.float32)]
    for x in xs:
        f(x)
    for k, x in zip(kept, xs, strict=True):
        np.testing.assert_allclose(k, np.sin(x.astype(np.float64)) * 2, rtol=1e-5)
        assert not k.flags.writeable


# -- pure_callback ---------------------------------------------------------------------------
def _np_fn(x, y):
    return (np.tanh(x) * y).astype(np.float32), np.argsort(x, axis=-1).astype(np.int32)


def _pc(x, y, vmap_method=None):
    spec = (tjit.ShapeDtypeStruct(x.shape, jnp.float32),
            tjit.ShapeDtypeStruct(x.shape, jnp.int32))
    return tjit.pure_callback(_np_fn, spec, x, y, vmap_method=vmap_method)


def test_pure_callback_results_eager_and_jit_vs_numpy():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((3, 5)).astype(np.float32), np.float32(1.5)
    want = _np_fn(x, y)
    for fn in (_pc, tjit.jit(_pc), tjit.jit(_pc, backend="interpreter")):
        got = fn(x, y)
        for g, w in zip(got, want, strict=True):
            assert np.asarray(g).dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), w)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
def test_pure_callback_vmap_methods_vs_a_python_loop(method):
    rng = np.random.default_rng(3)
    xs, y = rng.standard_normal((4, 5)).astype(np.float32), np.float32(0.5)
    shapes = []

    def cb(x, y):
        shapes.append((x.shape, np.shape(y)))
        y = y[:, None] if np.ndim(y) == 1 else y  # a batched y lines up with x's rows
        return (x * y).astype(np.float32)

    def f(x):
        return tjit.pure_callback(cb, tjit.ShapeDtypeStruct(x.shape, jnp.float32), x, y,
                                  vmap_method=method)

    got = tjit.jit(tjit.vmap(f))(xs)
    np.testing.assert_array_equal(np.asarray(got), np.stack([x * y for x in xs]))
    want_shapes = {"sequential": [((5,), ())] * 4, "sequential_unrolled": [((5,), ())] * 4,
                   "expand_dims": [((4, 5), (1,))], "broadcast_all": [((4, 5), (4,))],
                   "legacy_vectorized": [((4, 5), ())]}[method]
    assert shapes == want_shapes


def test_pure_callback_vmap_needs_a_method_and_in_axes_other_than_zero():
    f = lambda x: tjit.pure_callback(np.sin, F32, x)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        tjit.vmap(f)(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        tjit.pure_callback(np.sin, F32, 1.0, vmap_method="bad")
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = lambda x: tjit.pure_callback(lambda v: np.cumsum(v).astype(np.float32),
                                     tjit.ShapeDtypeStruct((2,), jnp.float32), x,
                                     vmap_method="sequential")
    got = tjit.vmap(g, in_axes=1)(xs)
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.cumsum(c) for c in xs.T]))


def test_pure_callback_in_a_scan_vs_numpy():
    def step(c, x):
        y = tjit.pure_callback(lambda a, b: (a * b).astype(np.float32), F32, c, x)
        return y, y

    xs = np.float32([1.5, -2.0, 3.0, 0.5])
    _, ys = tjit.jit(lambda v: lax.scan(step, np.float32(1.0), v))(xs)
    np.testing.assert_array_equal(np.asarray(ys), np.cumprod(xs))


def test_pure_callback_has_no_derivative_but_custom_jvp_gives_one():
    f = lambda x: tjit.pure_callback(np.sin, F32, x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        tjit.grad(f)(np.float32(0.3))
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
        tjit.grad(lambda x: io_callback(np.sin, F32, x))(np.float32(0.3))

    @tjit.custom_jvp
    def host_sin(x):
        return tjit.pure_callback(lambda v: np.sin(v).astype(np.float32), F32, x)

    @host_sin.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return host_sin(x), tjit.pure_callback(
            lambda v: np.cos(v).astype(np.float32), F32, x) * t

    x, h = 0.3, 1e-6
    fd = (np.sin(x + h) - np.sin(x - h)) / (2 * h)
    for g in (tjit.grad(host_sin), tjit.jit(tjit.grad(host_sin))):
        np.testing.assert_allclose(float(g(np.float32(x))), fd, rtol=1e-5)


# -- io_callback -----------------------------------------------------------------------------
def test_io_callback_vmap_unordered_runs_per_element_ordered_refuses():
    seen = []
    f = lambda x: io_callback(lambda v: seen.append(float(v)) or v * 2, F32, x)
    xs = np.float32([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(tjit.jit(tjit.vmap(f))(xs)), xs * 2)
    assert seen == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        tjit.vmap(lambda x: io_callback(np.sin, F32, x, ordered=True))(xs)


# -- errors ----------------------------------------------------------------------------------
def _misshapen(x):
    return x[:2]


@pytest.mark.parametrize("jit", [False, True])
def test_result_mismatches_name_the_callback(jit):
    spec = tjit.ShapeDtypeStruct((3,), jnp.float32)
    run = tjit.jit if jit else (lambda f: f)
    x = np.ones(3, np.float32)
    with pytest.raises(CallbackResultError, match=r"_misshapen.*shape.*Expected: \(3,\), "
                                                  r"Actual: \(2,\)") as e:
        run(lambda v: tjit.pure_callback(_misshapen, spec, v))(x)
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(CallbackResultError, match="dtype.*Expected: float32, Actual: int32"):
        run(lambda v: tjit.pure_callback(lambda a: a.astype(np.int32), spec, v))(x)
    with pytest.raises(CallbackResultError, match="returned 1 values, expected 2"):
        run(lambda v: io_callback(lambda a: a, (spec, spec), v))(x)
    with pytest.raises(ValueError, match="64-bit"):
        tjit.pure_callback(np.sin, np.zeros(3, np.float64), x)


class _HostError(Exception):
    pass


def _raise(*args):
    raise _HostError(f"host failure on {len(args)} args")


@pytest.mark.parametrize("where", ["eager", "jit", "scan", "vmap", "interpreter"])
def test_exceptions_in_callbacks_reach_the_caller_unchanged(where):
    x = np.ones(3, np.float32)
    spec = tjit.ShapeDtypeStruct((3,), jnp.float32)
    fns = {
        "eager": lambda: tjit.pure_callback(_raise, spec, x),
        "jit": lambda: tjit.jit(lambda v: tjit.pure_callback(_raise, spec, v))(x),
        "scan": lambda: tjit.jit(lambda v: lax.scan(
            lambda c, e: (c, tjit.debug.callback(_raise, e)), 0.0, v))(x),
        "vmap": lambda: tjit.jit(tjit.vmap(lambda e: io_callback(_raise, F32, e)))(x),
        "interpreter": lambda: tjit.jit(lambda v: tjit.debug.callback(_raise, v),
                                        backend="interpreter")(x),
    }
    with pytest.raises(_HostError, match="host failure on 1 args"):
        fns[where]()


def test_debug_callback_refuses_a_non_callable_and_ignores_results():
    with pytest.raises(TypeError, match="must be callable"):
        tjit.debug.callback(3, 1.0)
    got = []
    f = tjit.jit(lambda x: tjit.debug.callback(lambda v: got.append(v) or v * 2, x) or x)
    assert float(f(np.float32(2.0))) == 2.0 and [float(g) for g in got] == [2.0]


# -- names and docstring examples ------------------------------------------------------------
def test_public_names_and_their_examples():
    import tjit.experimental
    assert "pure_callback" in tjit.__all__ and "debug" in tjit.__all__
    assert tjit.experimental.io_callback is io_callback
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    globs = {"jax": tjit, "tjit": tjit, "jnp": jnp, "np": np}
    for fun in (tjit.debug.print, tjit.debug.callback, tjit.pure_callback, io_callback):
        tests = finder.find(fun, fun.__name__, globs=dict(globs))
        assert tests and tests[0].examples
        for t in tests:
            assert not runner.run(t, out=lambda _: None).failed, fun.__name__


# -- other backends: the same host step --------------------------------------------------------
def _backend_program(log):
    def f(xs):
        def body(c, x):
            tjit.debug.print("c={} x={}", c, x, ordered=True)
            y = tjit.pure_callback(lambda a: (a * 2).astype(np.float32), F32, x)
            return c + y, y
        c, ys = lax.scan(body, np.float32(0.0), jnp.exp(xs))
        io_callback(lambda v: log.append(v), None, ys * 3, ordered=True)
        return c, ys
    return f


def _check_backend(run, capsys):
    xs = np.float32([0.5, -1.0, 2.0])
    log = []
    c, ys = run(_backend_program(log), xs)
    e = np.exp(xs.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ys), 2 * e, rtol=1e-5)
    np.testing.assert_allclose(float(c), 2 * e.sum(), rtol=1e-5)
    np.testing.assert_allclose(log[0], 6 * e, rtol=1e-5)
    printed = _lines(capsys)
    assert [line.split(" x=")[0] for line in printed] == [
        "c=0.0", f"c={np.float32(2 * e[0])}", f"c={np.float32(2 * e[:2].sum())}"]


def _backend_param(name):
    from tjit.devices import hls_compile, opencl_context
    reason = {"opencl": opencl_context.unavailable_reason,
              "hls": hls_compile.unavailable_reason}[name]()
    marks = [pytest.mark.skipif(reason is not None, reason=str(reason))]
    return pytest.param(name, marks=marks + ([pytest.mark.opencl] if name == "opencl" else []))


@pytest.mark.parametrize("backend", [_backend_param("opencl"), _backend_param("hls")])
def test_callbacks_run_as_host_steps_on_the_opencl_and_hls_backends(backend, capsys):
    _check_backend(lambda f, x: tjit.jit(f, backend=backend)(x), capsys)


def test_callbacks_on_the_simulated_cuda_device(monkeypatch, capsys):
    """Operands come from device arrays to NumPy; results go back as device arrays."""
    from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch):
        seen = []

        def run(f, x):
            def g(v):
                io_callback(lambda a: seen.append(type(a)), None, v, ordered=True)
                return f(v)
            out = tjit.jit(g, backend="cuda")(x)
            assert type(out[1]._value) is FakeDeviceArray
            return out

        _check_backend(run, capsys)
        assert seen == [np.ndarray]


@pytest.mark.cuda
def test_callbacks_on_a_real_gpu(capsys):
    from tjit.devices import cuda
    if cuda.unavailable_reason() is not None:
        pytest.skip(f"no usable GPU: {cuda.unavailable_reason()}")
    _check_backend(lambda f, x: tjit.jit(f, backend="cuda")(x), capsys)


def test_callbacks_under_dynamic_shapes_see_the_run_time_sizes(capsys):
    """A jit called at new sizes runs one polymorphic program: the declared result shapes
    and a printed size follow each call's size."""
    def f(x):
        tjit.debug.print("n={} rows={}", x.shape[0], x)
        spec = tjit.ShapeDtypeStruct(x.shape, x.dtype)
        return tjit.pure_callback(lambda a: np.cumsum(a).astype(a.dtype), spec, x) + 1

    g = tjit.jit(f)
    sizes = (3, 5, 7, 9)
    for n in sizes:
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(np.asarray(g(x)), np.cumsum(x) + 1)
    assert _lines(capsys) == _split([f"n={n} rows={np.arange(n, dtype=np.float32)}"
                                     for n in sizes])
    h = tjit.jit(f, polymorphic_shapes=["(n,)"])
    np.testing.assert_array_equal(np.asarray(h(np.ones(4, np.float32))), np.arange(4) + 2)
    assert _lines(capsys)[0] == "n=4 rows=[1. 1. 1. 1.]"


def test_donation_does_not_reorder_callbacks():
    """Donation planning may hoist the readers of a donated argument above the writer of
    its output; a callback reading it stays in place (hoisted, it ran before the callback
    the program states first: "w" before "a"); the donation is declined instead."""
    log = []

    def f(w, a):
        new = w * 2
        tjit.debug.callback(lambda v: log.append(("a", v.copy())), a, ordered=True)
        tjit.debug.callback(lambda v: log.append(("w", v.copy())), w, ordered=True)
        return new

    w, a = np.arange(4, dtype=np.float32), np.ones(3, np.float32)
    with pytest.warns(UserWarning, match="donated buffers were not usable"):
        out = tjit.jit(f, donate_argnums=0)(jnp.asarray(w), a)
    np.testing.assert_array_equal(np.asarray(out), w * 2)
    assert [k for k, _ in log] == ["a", "w"]
    np.testing.assert_array_equal(log[0][1], a)
    np.testing.assert_array_equal(log[1][1], w)


def test_pmap_calls_back_on_each_devices_thread_and_raises_there():
    """Each device's thread runs the host step; an exception on a worker thread reaches
    the caller with its type and message."""
    from tjit.devices.backend import cpu_device_count
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    spec = tjit.ShapeDtypeStruct((3,), jnp.float32)
    seen = []

    def cb(v):
        seen.append(v.copy())
        if v.sum() > 20:  # the last two rows
            raise _HostError(f"host failure on row {v}")
        return v * 2

    with cpu_device_count(4):
        out = tjit.pmap(lambda v: tjit.pure_callback(cb, spec, v))(xs[:2])
        np.testing.assert_array_equal(np.asarray(out), xs[:2] * 2)
        assert sorted(s.tolist() for s in seen) == xs[:2].tolist()
        with pytest.raises(_HostError, match="host failure on row"):
            tjit.pmap(lambda v: tjit.pure_callback(cb, spec, v))(xs)


def test_print_inside_checkpoint_under_grad_shows_the_primal_once(capsys):
    f = tjit.checkpoint(lambda x: tjit.debug.print("ck {}", x) or jnp.sin(x) * x)
    for g in (tjit.grad(f), tjit.jit(tjit.grad(f))):
        x = np.float32(0.7)
        want = np.cos(np.float64(x)) * x + np.sin(np.float64(x))
        np.testing.assert_allclose(float(g(x)), want, rtol=1e-6)
        assert _lines(capsys) == [f"ck {x}"]
