"""Sharding in types on a one-device mesh, as JAX 0.10: eager results keep the layout of
their committed operands, ``jax.typeof`` shows it (``float32[8@X]``), ``.copy()`` keeps
it, and creation functions place their result as ``device=`` says. Values against NumPy;
the expected ``.sharding`` specs are hard-coded from what JAX 0.10.2 gives on one CPU
device (each case was run there)."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.sharding import AxisType, NamedSharding, PartitionSpec as P, SingleDeviceSharding

X = np.arange(8.0, dtype=np.float32)
Y = np.arange(8.0, dtype=np.float32).reshape(2, 4)


@pytest.fixture
def mesh():
    return jax.make_mesh((1,), ("X",))


def spec(a):
    sh = a.sharding
    return sh.spec if isinstance(sh, NamedSharding) else type(sh).__name__


# (operation, its NumPy value, the spec JAX 0.10.2 gives) on x: f32[8@X], y: f32[2,4@X]
CASES = [
    ("x + 1", lambda x, y: x + 1, lambda: X + 1, P("X")),
    ("x + x", lambda x, y: x + x, lambda: X + X, P("X")),
    ("sin", lambda x, y: jnp.sin(x), lambda: np.sin(X), P("X")),
    ("sum", lambda x, y: jnp.sum(x), lambda: X.sum(), P()),
    ("x[0]", lambda x, y: x[0], lambda: X[0], P()),
    ("x[:4]", lambda x, y: x[:4], lambda: X[:4], P("X")),
    ("reshape", lambda x, y: x.reshape(2, 4), lambda: X.reshape(2, 4), P("X", None)),
    ("astype", lambda x, y: x.astype(jnp.int32), lambda: X.astype(np.int32), P("X")),
    ("x + uncommitted", lambda x, y: jnp.arange(8.0) + x, lambda: X + X, P("X")),
    ("y.T", lambda x, y: y.T, lambda: Y.T, P("X", None)),
    ("y.sum(0)", lambda x, y: y.sum(0), lambda: Y.sum(0), P("X")),
    ("y.sum(1)", lambda x, y: y.sum(1), lambda: Y.sum(1), P(None)),
    ("y[0]", lambda x, y: y[0], lambda: Y[0], P("X")),
    ("y[:, 1]", lambda x, y: y[:, 1], lambda: Y[:, 1], P(None)),
    ("y[None]", lambda x, y: y[None], lambda: Y[None], P(None, None, "X")),
    ("y[1:]", lambda x, y: y[1:], lambda: Y[1:], P(None, "X")),
    ("reshape3", lambda x, y: y.reshape(2, 2, 2), lambda: Y.reshape(2, 2, 2),
     P(None, "X", None)),
    ("concatenate", lambda x, y: jnp.concatenate([y, y]), lambda: np.concatenate([Y, Y]),
     P(None, "X")),
    ("stack", lambda x, y: jnp.stack([y, y]), lambda: np.stack([Y, Y]), P(None, None, "X")),
    ("cumsum", lambda x, y: jnp.cumsum(y, axis=0), lambda: np.cumsum(Y, 0), P(None, "X")),
    ("argmax", lambda x, y: jnp.argmax(y, axis=1), lambda: np.argmax(Y, 1), P(None)),
    ("max", lambda x, y: jnp.max(y, 1), lambda: Y.max(1), P(None)),
    ("where", lambda x, y: jnp.where(y > 2, y, 0), lambda: np.where(Y > 2, Y, 0),
     P(None, "X")),
    ("sort", lambda x, y: jnp.sort(y, 0), lambda: np.sort(Y, 0), P(None, "X")),
    ("y @ w", lambda x, y: y @ jnp.ones((4, 3)), lambda: Y @ np.ones((4, 3)), P(None, None)),
    ("w @ y", lambda x, y: jnp.ones((3, 2)) @ y, lambda: np.ones((3, 2)) @ Y, P(None, "X")),
    ("copy", lambda x, y: y.copy(), lambda: Y, P(None, "X")),
    ("jnp.array", lambda x, y: jnp.array(y), lambda: Y, P(None, "X")),
]


@pytest.mark.parametrize("name, op, ref, want", CASES, ids=[c[0] for c in CASES])
def test_eager_results_keep_the_layout_of_their_operands(mesh, name, op, ref, want):
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    y = jax.device_put(Y, NamedSharding(mesh, P(None, "X")))
    for _ in range(2):   # (the second call: a signature the fast lanes have seen)
        out = op(x, y)
        np.testing.assert_allclose(np.asarray(out), ref(), rtol=1e-6)
        assert out.sharding == NamedSharding(mesh, want), name


def test_plain_arrays_stay_single_device_and_other_meshes_are_refused(mesh):
    u = jnp.arange(8.0)
    assert spec(u + 1) == "SingleDeviceSharding"
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    z = jax.device_put(X, NamedSharding(jax.make_mesh((1,), ("Y",)), P("Y")))
    with pytest.raises(ValueError, match="Mesh for all inputs should be equal"):
        x + z
    # uncommitting (device_put to a device) gives a plain array again
    v = jax.device_put(x, jax.devices()[0])
    assert spec(v * 2) == "SingleDeviceSharding"
    np.testing.assert_array_equal(v * 2, 2 * X)


def test_auto_axes_lay_out_results_alike_but_types_show_explicit_axes_only():
    m = jax.make_mesh((1,), ("X",), axis_types=(AxisType.Auto,))
    x = jax.device_put(X, NamedSharding(m, P("X")))
    assert (x + 1).sharding == NamedSharding(m, P("X"))     # JAX 0.10.2: P('X',)
    assert x.sum().sharding == NamedSharding(m, P())
    assert str(jax.typeof(x)) == "float32[8]"


def test_typeof_shows_the_layout(mesh):
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    t = jax.typeof(x)
    assert str(t) == "float32[8@X]" and repr(t) == "ShapedArray(float32[8@X])"
    assert t.sharding.spec == P("X") and t.sharding.mesh == mesh.abstract_mesh
    assert t.shape == (8,) and t.dtype == np.float32
    m2 = jax.make_mesh((1, 1), ("X", "Y"))
    a = jax.device_put(Y, NamedSharding(m2, P(None, ("X", "Y"))))
    assert str(jax.typeof(a)) == "float32[2,4@(X,Y)]"
    assert str(jax.typeof(jnp.ones(3))) == "float32[3]"


def test_creation_functions_place_their_result_on_device(mesh):
    dev = jax.devices()[0]
    s, r = NamedSharding(mesh, P("X")), NamedSharding(mesh, P())
    x = jax.device_put(X, s)
    makers = {
        "zeros": (lambda d: jnp.zeros(4, device=d), np.zeros(4)),
        "ones": (lambda d: jnp.ones(4, device=d), np.ones(4)),
        "empty": (lambda d: jnp.empty(4, device=d), None),
        "full": (lambda d: jnp.full(4, 2.0, device=d), np.full(4, 2.0)),
        "arange": (lambda d: jnp.arange(4, device=d), np.arange(4)),
        "zeros_like": (lambda d: jnp.zeros_like(x, device=d), np.zeros(8)),
        "full_like": (lambda d: jnp.full_like(x, 3.0, device=d), np.full(8, 3.0)),
        "eye": (lambda d: jnp.eye(4, device=d), np.eye(4)),
        "linspace": (lambda d: jnp.linspace(0.0, 1.0, 4, device=d),
                     np.linspace(0.0, 1.0, 4, dtype=np.float32)),
        "asarray": (lambda d: jnp.asarray(X, device=d), X),
        "array": (lambda d: jnp.array(X, device=d), X),
    }
    for name, (make, ref) in makers.items():
        for where, want in ((dev, SingleDeviceSharding(dev)), (s, s), (r, r)):
            out = make(where)
            assert out.sharding == want, (name, where)
            if ref is not None:
                np.testing.assert_array_equal(np.asarray(out), ref)


def test_compiled_input_and_output_shardings_are_jaxs(mesh):
    s, r = NamedSharding(mesh, P("X")), NamedSharding(mesh, P())
    x = jax.device_put(X, s)
    c = jax.jit(lambda a, b: (a + b, a.sum())).lower(x, 1.0).compile()
    assert c.input_shardings == ((s, r), {})
    assert c.output_shardings == (s, r)
    assert str(c.in_tree) == "PyTreeDef(((*, *), {}))" and str(c.out_tree) == "PyTreeDef((*, *))"
    y, t = c(x, 1.0)
    np.testing.assert_allclose(y, X + 1)
    np.testing.assert_allclose(t, X.sum())
    dev = jax.devices()[0]
    plain = jax.jit(lambda a: a * 2).lower(np.ones(3, np.float32)).compile()
    assert plain.input_shardings == ((SingleDeviceSharding(dev),), {})
    assert plain.output_shardings == SingleDeviceSharding(dev)
    static = jax.jit(lambda a, k: a * k, static_argnums=1).lower(x, 2).compile()
    assert static.input_shardings == ((s,), {})
    given = jax.jit(lambda a: a * 2, out_shardings=r).lower(x).compile()
    assert given.output_shardings == r
    kw = jax.jit(lambda a, b=1: a * b).lower(x, b=2.0).compile()
    assert kw.input_shardings == ((s,), {"b": r})
    ins = jax.jit(lambda a: a * 2, in_shardings=s).lower(X).compile()
    assert ins.input_shardings == ((s,), {})


def test_visualize_sharding_draws_each_devices_block(mesh, capsys):
    """The text JAX's rich table prints without colour (cell sizes by JAX's rule: 10
    lines for a whole 2-d array, width aspect * 25, at least 9; a label padded as rich
    pads it), hard-coded here from that rule; tjit needs no rich."""
    from tjit.devices.backend import Device
    from tjit.sharding import Mesh
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    jax.debug.visualize_array_sharding(x)
    assert capsys.readouterr().out == "┌───────┐\n│ CPU 0 │\n└───────┘\n\n"
    jax.debug.visualize_array_sharding(jnp.ones((4, 4)))
    lines = capsys.readouterr().out.split("\n")
    assert lines[0] == "┌" + "─" * 23 + "┐" and lines[5] == "│" + "CPU 0".center(23) + "│"
    assert len(lines) == 13 and lines[1] == lines[9] == "│" + " " * 23 + "│"
    devs = [Device("cpu", i) for i in range(4)]
    m = Mesh(np.array(devs, dtype=object).reshape(2, 2), ("a", "b"))
    jax.debug.visualize_sharding((8, 4), NamedSharding(m, P("a", "b")))
    blank = "│       │       │"
    assert capsys.readouterr().out.split("\n") == [
        "┌───────┬───────┐", blank, "│ CPU 0 │ CPU 1 │", blank, blank,
        "├───────┼───────┤", blank, "│ CPU 2 │ CPU 3 │", blank, blank,
        "└───────┴───────┘", "", ""]
    jax.debug.visualize_sharding((8,), NamedSharding(m, P("a")))   # replicas share a cell
    assert capsys.readouterr().out == "┌───────┬───────┐\n│CPU 0,1│CPU 2,3│\n└───────┴───────┘\n\n"
    jax.jit(lambda a: jax.debug.visualize_array_sharding(a) or a)(x)   # at trace time
    assert "CPU 0" in capsys.readouterr().out
    with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
        jax.debug.visualize_array_sharding(jnp.ones((2, 2, 2)))


def test_jit_outputs_are_typed_under_explicit_axes(mesh):
    """JAX 0.10.2 gives each output the spec its operations' types give (the calls and
    Compiled.output_shardings alike); uncommitted arguments count as unsplit."""
    a = jax.device_put(Y, NamedSharding(mesh, P("X", None)))
    f = jax.jit(lambda a: (a.T, a.sum(0), a[:, :2] * 2, a[0], a.sum(1)))
    outs = f(a)
    want = [P(None, "X"), P(None), P("X", None), P(None), P("X")]
    for o, ref, w in zip(outs, (Y.T, Y.sum(0), Y[:, :2] * 2, Y[0], Y.sum(1)), want):
        np.testing.assert_allclose(np.asarray(o), ref)
        assert o.sharding == NamedSharding(mesh, w)
    assert [s.spec for s in f.lower(a).compile().output_shardings] == want
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    y = jax.jit(lambda a, b: a + b)(x, np.ones(8, np.float32))
    assert y.sharding == NamedSharding(mesh, P("X"))
    np.testing.assert_allclose(y, X + 1)


def test_types_of_plain_arrays_and_lowered_arguments(mesh):
    """As JAX 0.10.2: a plain array's type has the empty mesh's unsplit sharding (also a
    tracer's); Lowered.in_avals shows a committed argument's layout and out_info the
    outputs' shardings."""
    from tjit.sharding import AbstractMesh
    empty = AbstractMesh((), ())
    assert jax.typeof(jnp.ones((2, 3))).sharding == NamedSharding(empty, P(None, None))
    assert jax.typeof(jnp.float32(1)).sharding == NamedSharding(empty, P())
    assert repr(jax.typeof(jnp.ones(2)).sharding) == \
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
    seen = []
    jax.jit(lambda a: seen.append(jax.typeof(a).sharding) or a)(jnp.ones(3))
    assert seen == [NamedSharding(empty, P(None))]
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    low = jax.jit(lambda a, b: a * b).lower(x, 2.0)
    (ta, tb), kw = low.in_avals
    assert (str(ta), repr(tb), kw) == ("float32[8@X]", "ShapedArray(float32[], weak_type=True)",
                                       {})
    assert low.out_info.sharding == NamedSharding(mesh, P("X"))
    assert low.out_info.shape == (8,)


def test_layouts_stated_in_a_traced_program_type_jit_outputs(mesh):
    """reshard / with_sharding_constraint / shard_map's out_specs under jit leave a
    sharding_constraint equation (identity), which types the outputs as JAX 0.10.2's:
    reshard to P(None, 'X') then sum(1) gives P(None); shard_map's out_specs as given."""
    a_np = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    a = jax.device_put(a_np, NamedSharding(mesh, P("X", None)))
    with jax.set_mesh(mesh):
        y = jax.jit(lambda a: jax.reshard(a * 2, P(None, "X")).sum(1))(a)
        r, t = jax.jit(lambda a: (jax.reshard(a * 2, P(None, "X")), a.T))(a)
        text = str(jax.make_jaxpr(lambda a: jax.reshard(a * 2, P(None, "X")))(a))
        g = jax.grad(lambda a: jax.reshard(a * a, P(None, "X")).sum())(a)
        gj = jax.jit(jax.grad(lambda a: jax.reshard(a * a, P(None, "X")).sum()))(a)
        v = jax.jit(jax.vmap(lambda row: jax.reshard(row * 2, P(None))))(a)
    np.testing.assert_allclose(y, (2 * a_np).sum(1))
    assert y.sharding == NamedSharding(mesh, P(None))
    assert (spec(r), spec(t)) == (P(None, "X"), P(None, "X"))
    np.testing.assert_allclose(r, 2 * a_np)
    assert "sharding_constraint" in text
    np.testing.assert_allclose(g, 2 * a_np)
    np.testing.assert_allclose(gj, 2 * a_np)
    np.testing.assert_allclose(v, 2 * a_np)

    m2 = jax.make_mesh((1, 1), ("X", "Y"))
    x_np = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    w_np = np.arange(64.0, dtype=np.float32).reshape(4, 16)
    with jax.set_mesh(m2):   # (the example of JAX's shard_map guide)
        x = jax.device_put(x_np, P(None, "X"))
        w = jax.device_put(w_np, P("X", None))

        @jax.shard_map(out_specs=P("X", None))
        def matmul(x, y):
            return jax.lax.psum_scatter(jnp.dot(x, y), "X", tiled=True)

        z = jax.jit(matmul)(x, w)
    np.testing.assert_allclose(z, x_np @ w_np)
    assert z.sharding == NamedSharding(m2, P("X", None))


Z = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
# (operation on z: f32[2@X,3,4@Y], its NumPy value, JAX 0.10.2's spec)
CASES_3D = [
    ("argsort", lambda z: jnp.argsort(z, axis=1), lambda: np.argsort(Z, axis=1, kind="stable"),
     P("X", None, "Y")),
    ("z[:, idx]", lambda z: z[:, jnp.array([2, 0])], lambda: Z[:, [2, 0]], P("X", None, "Y")),
    ("pad", lambda z: jnp.pad(z, ((0, 0), (1, 1), (0, 0))),
     lambda: np.pad(Z, ((0, 0), (1, 1), (0, 0))), P("X", None, "Y")),
    ("flip", lambda z: jnp.flip(z, 1), lambda: np.flip(Z, 1), P("X", None, "Y")),
    ("clip", lambda z: jnp.clip(z, 1, 5), lambda: np.clip(Z, 1, 5), P("X", None, "Y")),
    ("mean", lambda z: z.mean(1), lambda: Z.mean(1), P("X", "Y")),
    ("var", lambda z: z.var(axis=(0,)), lambda: Z.var(axis=0), P(None, "Y")),
    ("broadcast_to", lambda z: jnp.broadcast_to(z[:, :1], (2, 3, 4)),
     lambda: np.broadcast_to(Z[:, :1], (2, 3, 4)), P("X", None, "Y")),
    ("tile", lambda z: jnp.tile(z, (1, 2, 1)), lambda: np.tile(Z, (1, 2, 1)),
     P("X", None, "Y")),
    ("reshape merge", lambda z: z.reshape(6, 4), lambda: Z.reshape(6, 4), P("X", "Y")),
    ("swapaxes", lambda z: jnp.swapaxes(z, 0, 2), lambda: np.swapaxes(Z, 0, 2),
     P("Y", None, "X")),
    ("moveaxis", lambda z: jnp.moveaxis(z, 0, -1), lambda: np.moveaxis(Z, 0, -1),
     P(None, "Y", "X")),
    ("z[..., 0]", lambda z: z[..., 0], lambda: Z[..., 0], P("X", None)),
    ("dynamic_slice", lambda z: jax.lax.dynamic_slice(z, (0, 1, 0), (2, 2, 4)),
     lambda: Z[:, 1:3], P("X", None, "Y")),
    ("cumsum", lambda z: jnp.cumsum(z, axis=1), lambda: np.cumsum(Z, 1), P("X", None, "Y")),
    ("max0", lambda z: z.max(0), lambda: Z.max(0), P(None, "Y")),
    ("any", lambda z: (z > 3).any(), lambda: (Z > 3).any(), P()),
]


@pytest.mark.parametrize("name, op, ref, want", CASES_3D, ids=[c[0] for c in CASES_3D])
def test_eager_layouts_over_two_mesh_axes(name, op, ref, want):
    m2 = jax.make_mesh((1, 1), ("X", "Y"))
    z = jax.device_put(Z, NamedSharding(m2, P("X", None, "Y")))
    out = op(z)
    np.testing.assert_allclose(np.asarray(out), ref(), rtol=1e-6)
    assert out.sharding == NamedSharding(m2, want), name


def test_make_jaxpr_prints_the_layouts_of_committed_arguments(mesh):
    """JAX 0.10.2's text: the types carry their Explicit axes (float32[8@X]); the
    program is the one a plain argument gives (its values unchanged)."""
    x = jax.device_put(X, NamedSharding(mesh, P("X")))
    assert str(jax.make_jaxpr(lambda a: a * 2)(x)) == \
        "{ lambda ; a:f32[8@X]. let b:f32[8@X] = mul a 2.0:f32[] in (b,) }"
    m2 = jax.make_mesh((1, 1), ("X", "Y"))
    a = jax.device_put(Y.T.copy(), NamedSharding(m2, P(None, "X")))
    text = str(jax.make_jaxpr(lambda a: (a.T, a.sum(0)))(a))
    assert "a:f32[4,2@X]" in text and "b:f32[2@X,4] = transpose" in text
    assert "c:f32[2@X] = reduce_sum" in text
    plain = jax.make_jaxpr(lambda a: a * 2)(X)
    assert str(plain) == "{ lambda ; a:f32[8]. let b:f32[8] = mul a 2.0:f32[] in (b,) }"


def test_stage_attributes_as_jaxs():
    """args_info / donate_argnums / in_avals / out_info / cost_analysis of jit(f).lower()
    and .compile(), with JAX 0.10.2's values for this program."""
    from tjit.stages import ArgInfo
    f = jax.jit(lambda a, b: (a * b, a.sum()), donate_argnums=0)
    low = f.lower(jnp.ones(3), 2.0)
    c = low.compile()
    (a, b), kw = low.args_info
    assert isinstance(a, ArgInfo) and (a.donated, b.donated, kw) == (True, False, {})
    assert (a.shape, a.dtype, str(b._aval)) == ((3,), np.float32, "~float32[]")
    assert low.donate_argnums == c.donate_argnums == (0,)
    assert c.in_avals == low.in_avals
    dev = SingleDeviceSharding(jax.devices()[0])
    assert [(o.shape, o.sharding) for o in c.out_info] == [((3,), dev), ((), dev)]
    # (the lowered stage reads the compiled one's estimate, as JAX's; JAX counts 5 flops
    # here, tjit's cost model 6: a 3-term sum as 3 adds)
    assert low.cost_analysis() == c.cost_analysis() and low.cost_analysis()["flops"] >= 5
    y, t = c(jnp.ones(3), 2.0)
    np.testing.assert_allclose(y, np.full(3, 2.0))
    np.testing.assert_allclose(t, 3.0)
