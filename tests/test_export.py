"""``tjit.export`` (as ``jax.export``): symbolic shapes from JAX's spec grammar, an export
that runs at every size of its symbolic dims (compiled once), its bytes round trip, and
clear errors; values against NumPy, gradients against finite differences."""

import numpy as np
import pytest
import sympy

import tjit
import tjit.numpy as jnp
from tjit import compile_log, export


def test_symbolic_shape_reads_jaxs_grammar():
    b, c = sympy.symbols("b c", integer=True, positive=True)
    assert export.symbolic_shape("b, 4") == (b, 4)
    assert export.symbolic_shape("(b, 2*b + 1)") == (b, 2 * b + 1)
    got = export.symbolic_shape("floordiv(b, 2), mod(b, 3), max(b, c), min(c, 4)")
    assert got == (sympy.floor(b / 2), sympy.Mod(b, 3), sympy.Max(b, c), sympy.Min(c, 4))
    assert export.symbolic_shape("_, c", like=(3, None)) == (3, c)
    assert export.symbolic_shape("b, ...", like=(1, 2, 3)) == (b, 2, 3)
    assert export.is_symbolic_dim(b) and not export.is_symbolic_dim(4)


@pytest.mark.parametrize("spec, error, match", [
    ("b, 2.5", ValueError, "unexpected '.'"),
    ("b, -1", ValueError, "non-negative"),
    ("b, _", ValueError, "like="),
])
def test_symbolic_shape_errors_name_the_spec(spec, error, match):
    with pytest.raises(error, match=match):
        export.symbolic_shape(spec)


def test_constraints_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="constraints"):
        export.symbolic_shape("b", constraints=("b >= 4",))


def _f(x, w):
    return jnp.tanh(x @ w).sum(axis=0), x[: x.shape[0] // 2] * 2


def _f_np(x, w):
    return np.tanh(x @ w).sum(axis=0), x[: x.shape[0] // 2] * 2


def _exported():
    specs = export.symbolic_args_specs(
        (np.ones((3, 4), np.float32), np.ones((4, 5), np.float32)), ("b, 4", None))
    return export.export(tjit.jit(_f))(*specs)


def test_export_runs_at_every_size_and_compiles_once():
    exp = _exported()
    b = sympy.Symbol("b", integer=True, positive=True)
    assert [a.shape for a in exp.in_avals] == [(b, 4), (4, 5)]
    assert [a.shape for a in exp.out_avals] == [(5,), (sympy.floor(b / 2), 4)]
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    records = []
    for n in (1, 2, 5, 8):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        if n == 2:
            compile_log.add_sink(records.append)   # after the first size's compile
        got = exp.call(x, w)
        for g, want in zip(got, _f_np(x.astype(np.float64), w.astype(np.float64))):
            assert g.shape == want.shape
            np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)
    compile_log.remove_sink(records.append)
    assert [r for r in records if "compile" in r.what] == []


def test_serialized_export_round_trips():
    exp = _exported()
    blob = exp.serialize()
    assert isinstance(blob, bytearray)
    back = export.deserialize(blob)
    assert back.in_avals == exp.in_avals and back.out_avals == exp.out_avals
    assert back.fun_name == "_f" and back.in_tree == exp.in_tree
    x, w = np.arange(12.0, dtype=np.float32).reshape(6, 2).repeat(2, 1) / 9, \
        np.eye(4, 5, dtype=np.float32)
    for a, b in zip(back.call(x, w), exp.call(x, w)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_damaged_or_foreign_bytes_raise_a_clear_error(monkeypatch):
    blob = _exported().serialize()
    with pytest.raises(ValueError, match="not a tjit export, or a damaged one"):
        export.deserialize(blob[: len(blob) // 2])
    monkeypatch.setattr(export, "_version", lambda: "0.0-other")
    with pytest.raises(ValueError, match="export again with this version"):
        export.deserialize(blob)


def test_a_program_holding_a_lambda_cannot_be_serialized():
    def f(x):
        return tjit.pure_callback(lambda v: np.sin(v), tjit.ShapeDtypeStruct(x.shape,
                                                                           x.dtype), x)
    exp = export.export(tjit.jit(f))(tjit.ShapeDtypeStruct((3,), jnp.float32))
    with pytest.raises(ValueError, match="cannot be serialized"):
        exp.serialize()


def test_call_checks_structure_dtype_and_symbol_sizes():
    exp = _exported()
    w = np.ones((4, 5), np.float32)
    with pytest.raises(TypeError, match="structure"):
        exp.call(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="int32"):
        exp.call(np.ones((3, 4), np.int32), w)
    with pytest.raises(ValueError, match=r"argument 1 has shape \(4, 6\)"):
        exp.call(np.ones((3, 4), np.float32), np.ones((4, 6), np.float32))
    two = export.export(tjit.jit(lambda x, y: x + y))(
        *export.symbolic_args_specs((np.ones(2), np.ones(2)), "b"))
    with pytest.raises(ValueError, match="dim b is 2 elsewhere but 3"):
        two.call(np.ones(2, np.float32), np.ones(3, np.float32))


def test_static_arguments_are_baked_into_the_export():
    jitted = tjit.jit(lambda x, n: x * n, static_argnums=1)
    exp = export.export(jitted)(tjit.ShapeDtypeStruct(export.symbolic_shape("b"),
                                                      jnp.float32), 3)
    assert len(exp.in_avals) == 1
    np.testing.assert_array_equal(np.asarray(exp.call(np.arange(4, dtype=np.float32))),
                                  [0, 3, 6, 9])


def test_gradient_and_vmap_through_call():
    exp = _exported()
    w = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5)
    x = np.linspace(-0.5, 0.7, 12).reshape(3, 4)

    def loss_np(x):
        return np.sum(np.tanh(x @ w.astype(np.float64)).sum(axis=0) ** 2)
    g = tjit.grad(lambda x: jnp.sum(exp.call(x, jnp.asarray(w))[0] ** 2))(
        jnp.asarray(x, jnp.float32))
    eps = 1e-6
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        fd[idx] = (loss_np(x + e) - loss_np(x - e)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g), fd, rtol=2e-3, atol=2e-4)

    xs = np.linspace(0, 1, 2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    got = tjit.vmap(lambda x: exp.call(x, jnp.asarray(w))[0])(xs)
    np.testing.assert_allclose(np.asarray(got), np.stack([_f_np(x, w)[0] for x in xs]),
                               rtol=1e-5)


def test_call_refuses_an_export_for_another_platform_unless_disabled():
    # docs/export/export.md: an export for platforms=['tpu'] raises on the CPU, and
    # DisabledSafetyCheck.platform() lets it run (also after serialization)
    exp = export.export(tjit.jit(tjit.lax.cos), platforms=["tpu"])(1.0)
    with pytest.raises(ValueError, match=r"exported for platforms '\('tpu',\)' but it is "
                                         r"used on '\('cpu',\)'.*DisabledSafetyCheck"):
        exp.call(1.0)
    with pytest.raises(ValueError, match="exported for platforms"):
        export.deserialize(exp.serialize()).call(1.0)
    unsafe = export.export(tjit.jit(tjit.lax.cos), platforms=["tpu"],
                           disabled_checks=[export.DisabledSafetyCheck.platform()])(1.0)
    np.testing.assert_allclose(float(unsafe.call(1.0)), np.cos(1.0), rtol=1e-6)
    again = export.deserialize(unsafe.serialize())
    assert again.disabled_safety_checks == (export.DisabledSafetyCheck.platform(),)
    np.testing.assert_allclose(float(again.call(2.0)), np.cos(2.0), rtol=1e-6)
    # the default platform is the default backend's, so a plain export runs here
    assert export.export(tjit.jit(jnp.sin))(1.0).platforms == (
        export.default_export_platform(),)
    with pytest.raises(TypeError, match=r"platforms=\['cpu'\]"):
        export.export(tjit.jit(jnp.sin), platforms="cpu")


def test_tjits_own_functions_export_like_jaxs_jitted_ones():
    # docs/export/export.md exports jnp.cos directly (JAX's jnp functions are jitted);
    # a user's plain function still needs jit
    exp = export.export(jnp.cos)(1.0)
    np.testing.assert_allclose(float(exp.call(0.5)), np.cos(0.5), rtol=1e-6)
    with pytest.raises(TypeError, match=r"use export\(tjit.jit\(f\)\)"):
        export.export(lambda x: x)(1.0)


def test_call_solves_symbols_from_derived_dims():
    # docs/export/shape_poly.md: f32[b, b, 2*d] is called with d solved from the size
    # (it raised "not determined"); an odd size has no d, a clear error as in JAX
    exp = export.export(tjit.jit(lambda x: x.sum(axis=(0, 1))))(
        tjit.ShapeDtypeStruct(export.symbolic_shape("b, b, 2*d"), np.int32))
    x = np.arange(3 * 3 * 6, dtype=np.int32).reshape(3, 3, 6)
    np.testing.assert_array_equal(np.asarray(exp.call(x)), x.sum(axis=(0, 1)))
    with pytest.raises(ValueError, match=r"do not match the exported shapes \(b, b, 2\*d\)"
                                         r": no positive integer d makes 2\*d == 5"):
        exp.call(np.ones((3, 3, 5), np.int32))
    with pytest.raises(ValueError, match="dim b is 3 elsewhere but 4"):
        exp.call(np.ones((3, 4, 6), np.int32))


def test_serialize_takes_vjp_order_and_the_rehydrated_call_differentiates():
    # docs/export/export.md: serialize(vjp_order=3), then grad up to third order;
    # reference: the derivatives of 7 x^3 at 0.1 (21 x^2, 42 x, 42)
    blob = export.export(tjit.jit(lambda x: 7 * x * x * x))(1.0).serialize(vjp_order=3)
    f = export.deserialize(blob).call
    g1, g2, g3 = tjit.grad(f), tjit.grad(tjit.grad(f)), tjit.grad(tjit.grad(tjit.grad(f)))
    np.testing.assert_allclose([float(f(0.1)), float(g1(0.1)), float(g2(0.1)),
                                float(g3(0.1))], [7e-3, 0.21, 4.2, 42.0], rtol=1e-5)
    with pytest.raises(ValueError, match="vjp_order must be a non-negative int"):
        export.export(tjit.jit(jnp.sin))(1.0).serialize(vjp_order=-1)
