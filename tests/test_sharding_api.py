"""The sharding API that JAX programs use, on a one-device mesh: jit's in_shardings and
out_shardings, device_put with shardings and pytrees of them, the ``.sharding`` of
results, and the Sharding methods. Expected values are what JAX 0.10 documents and gives
on one CPU device (each case below was checked against it); values against NumPy."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

X = np.arange(8.0, dtype=np.float32)


@pytest.fixture
def mesh():
    return jax.make_mesh((1,), ("x",))


@pytest.fixture
def s(mesh):
    return NamedSharding(mesh, P("x"))


def spec(a):
    """What JAX shows of a result's layout: the spec of a NamedSharding, else the
    sharding's type."""
    sh = a.sharding
    return sh.spec if isinstance(sh, NamedSharding) else type(sh).__name__


# -- device_put ---------------------------------------------------------------------------
def test_device_put_commits_to_the_named_sharding_and_leaves_the_input(mesh, s):
    x = jnp.asarray(X)
    y = jax.device_put(x, s)
    assert y.sharding == s and x.sharding == SingleDeviceSharding(jax.devices()[0])
    np.testing.assert_array_equal(y, X)
    assert jax.device_put(y).sharding == s                  # no target: layout kept
    assert spec(jax.device_put(y, jax.devices()[0])) == "SingleDeviceSharding"
    [shard] = y.addressable_shards
    assert shard.device == jax.devices()[0] and shard.index == (slice(None),)
    np.testing.assert_array_equal(shard.data, X)


def test_device_put_takes_a_pytree_prefix_of_placements(mesh, s):
    r = NamedSharding(mesh, P())
    out = jax.device_put({"a": X[:2], "b": np.ones((2, 2))}, {"a": s, "b": r})
    assert (out["a"].sharding, out["b"].sharding) == (s, r)
    assert [a.sharding for a in jax.device_put([X, X], s)] == [s, s]
    with pytest.raises(ValueError, match="device_put device specification must be a tree "
                                         "prefix of the corresponding value"):
        jax.device_put({"a": X, "b": X}, {"a": s})
    with jax.set_mesh(mesh):
        assert jax.device_put(X, P("x")).sharding == s


# -- Sharding methods ---------------------------------------------------------------------
def test_sharding_equality_and_equivalence_as_jax(mesh, s):
    dev = jax.devices()[0]
    assert s != NamedSharding(mesh, P("x", None))          # JAX 0.10 compares specs
    assert hash(s) == hash(NamedSharding(mesh, P("x")))
    assert s.is_equivalent_to(NamedSharding(mesh, P("x", None)), 1)
    assert s.is_equivalent_to(NamedSharding(mesh, P()), 1)  # one device: one layout
    assert s.is_equivalent_to(SingleDeviceSharding(dev), 1)
    assert SingleDeviceSharding(dev).is_equivalent_to(s, 1)
    assert s.shard_shape((8,)) == (8,)
    assert s.devices_indices_map((8,)) == {dev: (slice(None),)}
    assert s.is_fully_replicated and s.is_fully_addressable and s.num_devices == 1
    assert s.device_set == s.addressable_devices == {dev}
    with pytest.raises(TypeError, match="expected a sharding"):
        s.is_equivalent_to(P("x"), 1)


def test_is_equivalent_to_compares_layouts_over_several_devices():
    from tjit.devices.backend import Device
    from tjit.sharding import Mesh
    devs = [Device("cpu", i) for i in range(4)]
    m = Mesh(np.array(devs, dtype=object).reshape(2, 2), ("a", "b"))
    assert NamedSharding(m, P("a")).is_equivalent_to(NamedSharding(m, P("a", None)), 2)
    assert not NamedSharding(m, P("a")).is_equivalent_to(NamedSharding(m, P("b")), 2)
    assert not NamedSharding(m, P("a")).is_equivalent_to(NamedSharding(m, P(None, "a")), 2)
    assert NamedSharding(m, P(("a", "b"))).devices_indices_map((8, 3))[devs[3]] == (
        slice(6, 8), slice(None))


# -- jit: in_shardings / out_shardings ----------------------------------------------------
def test_jit_shardings_values_and_layouts(mesh, s):
    r = NamedSharding(mesh, P())
    f = jax.jit(lambda a, b: (a * 2 + b, jnp.sum(a)), in_shardings=(s, None),
                out_shardings=(s, r))
    y, t = f(X, np.float32(1))
    np.testing.assert_allclose(y, X * 2 + 1)
    np.testing.assert_allclose(t, X.sum())
    assert (y.sharding, t.sharding) == (s, r)
    # a single sharding is broadcast over every argument / output
    y = jax.jit(lambda a, b: a + b, in_shardings=s, out_shardings=s)(X, X)
    np.testing.assert_allclose(y, 2 * X)
    assert y.sharding == s
    # in_shardings covers the dynamic arguments; static ones are left out
    g = jax.jit(lambda a, n: a * n, in_shardings=(s,), static_argnums=1)
    np.testing.assert_allclose(g(X, 3), 3 * X)
    # PartitionSpecs read the mesh of set_mesh
    with jax.set_mesh(mesh):
        y = jax.jit(lambda a: a + 1, in_shardings=P("x"), out_shardings=P())(X)
    assert y.sharding == r


@pytest.mark.parametrize("case, want", [
    # (what JAX 0.10 gives on one CPU device for outputs with no out_shardings; under
    # Explicit axes an uncommitted argument's type is unsplit: a + b is P('x'))
    ("committed", "x"), ("committed_in_shardings", "x"), ("uncommitted_in_shardings", ""),
    ("committed_and_numpy", "x"), ("committed_and_python_scalar", "x"), ("plain", "single"),
    ("set_mesh", ""), ("set_mesh_in_spec", "x"),
])
def test_unspecified_output_layouts_follow_jax(mesh, s, case, want):
    x = jax.device_put(X, s)
    double = jax.jit(lambda a: a * 2)
    calls = {
        "committed": lambda: double(x),
        "committed_in_shardings": lambda: jax.jit(lambda a: a * 2, in_shardings=s)(x),
        "uncommitted_in_shardings": lambda: jax.jit(lambda a: a * 2, in_shardings=s)(X),
        "committed_and_numpy": lambda: jax.jit(lambda a, b: a + b)(x, X),
        "committed_and_python_scalar": lambda: jax.jit(lambda a, b: a * b)(x, 2.0),
        "plain": lambda: double(X),
    }
    if case.startswith("set_mesh"):
        with jax.set_mesh(mesh):
            y = double(X) if case == "set_mesh" else \
                jax.jit(lambda a: a * 2, in_shardings=P("x"))(X)
    else:
        y = calls[case]()
    np.testing.assert_allclose(y, 2 * X)
    got = spec(y)
    assert got == {"x": P("x"), "": P(), "single": "SingleDeviceSharding"}[want]


def test_unspecified_outputs_are_typed_under_explicit_axes(mesh):
    """JAX 0.10.2's specs: each output's type follows its operations (sharding in
    types); under Auto axes, an output of the first argument's rank takes its layout."""
    s2 = NamedSharding(mesh, P("x", None))
    a = jax.device_put(np.ones((2, 4), np.float32), s2)
    t, row, flat, s_ = jax.jit(lambda a: (a.T, a[0], a.reshape(-1), a.sum()))(a)
    assert (spec(t), spec(row), spec(flat), spec(s_)) == (P(None, "x"), P(None), P("x"), P())
    auto = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    b = jax.device_put(np.ones((2, 4), np.float32), NamedSharding(auto, P("x", None)))
    t, s_ = jax.jit(lambda a: (a.T, a.sum()))(b)
    assert (spec(t), spec(s_)) == (P("x", None), P())
    # nullary: the mesh comes from out_shardings
    u, v = jax.jit(lambda: (jnp.ones(3), jnp.ones(4)),
                   out_shardings=(None, NamedSharding(mesh, P("x"))))()
    assert (spec(u), spec(v)) == (P(), P("x"))


def test_donation_with_shardings_deletes_the_callers_array(s):
    x = jnp.asarray(X)
    y = jax.jit(lambda a: a * 2, in_shardings=s, out_shardings=s, donate_argnums=0)(x)
    assert x.is_deleted() and y.sharding == s
    np.testing.assert_allclose(y, 2 * X)
    z = jax.device_put(jnp.asarray(X), s)
    w = jax.jit(lambda a: a + 1, donate_argnums=0)(z)
    assert z.is_deleted() and w.sharding == s


def test_jit_sharding_errors_are_jaxs(mesh, s):
    two = jax.jit(lambda a, b: a + b, in_shardings=(s,))
    with pytest.raises(ValueError, match="in_shardings is the wrong length: got a tuple or "
                                         "list of length 1 for an args tuple of length 2"):
        two(X, X)
    with pytest.raises(ValueError, match="tree prefix of the positional arguments"):
        jax.jit(lambda d: d, in_shardings=({"a": s},))({"b": X})
    with pytest.raises(ValueError, match="out_shardings must be a tree prefix"):
        jax.jit(lambda a: (a, a), out_shardings=(s,))(X)
    with pytest.raises(RuntimeError, match="non-empty mesh in context .* to in_shardings"):
        jax.jit(lambda a: a, in_shardings=P("x"))(X)
    rank2 = NamedSharding(mesh, P("x", None))
    with pytest.raises(ValueError, match=r"One of jit arguments with pytree key path a is "
                                         r"incompatible .* only valid for values of rank at "
                                         r"least 2, but was applied to a value of rank 1"):
        jax.jit(lambda a: a, in_shardings=rank2)(X)
    with pytest.raises(ValueError, match="One of jit outputs with pytree key path result"):
        jax.jit(lambda a: a, out_shardings=rank2)(X)
    with pytest.raises(TypeError, match="in_shardings leaf specifications are expected to "
                                        "be PartitionSpec instances or None, but got 3"):
        jax.jit(lambda a: a, in_shardings=3)
    with pytest.raises(ValueError, match="does not support kwargs when in_shardings"):
        jax.jit(lambda a, b: a, in_shardings=(s,))(X, b=X)


def test_indivisible_and_multi_device_shardings_are_refused():
    """A mesh axis must divide the dimension (JAX's IndivisibleError text); a layout over
    several devices is refused by name (one jitted program runs on one device)."""
    from tjit.devices.backend import Device
    from tjit.sharding import Mesh
    m = Mesh(np.array([Device("cpu", i) for i in range(2)], dtype=object), ("x",))
    s2 = NamedSharding(m, P("x"))
    with pytest.raises(ValueError, match=r"implies that array axis 0 is partitioned 2 times, "
                                         r"but the dimension size is 3"):
        jax.jit(lambda a: a, in_shardings=s2)(np.ones(3))
    with pytest.raises(NotImplementedError, match="spreads values over 2 devices"):
        jax.jit(lambda a: a, in_shardings=s2)(np.ones(4))


def test_jit_shardings_under_grad_and_lower(s):
    f = jax.jit(lambda a: jnp.sum(a ** 2), in_shardings=s)
    np.testing.assert_allclose(jax.grad(f)(X), 2 * X)
    np.testing.assert_allclose(f.lower(X).compile()(X), (X ** 2).sum())


# -- shard_map on a one-device mesh ---------------------------------------------------------
def test_shard_map_reads_in_specs_from_committed_arguments_and_lays_out_its_result():
    """The matmul + psum_scatter example of JAX's sharding guide on a (1, 1) mesh: in_specs
    left out are read from the arguments' shardings (JAX's Infer); the result is laid out
    as out_specs, as in JAX."""
    mesh = jax.make_mesh((1, 1), ("X", "Y"))
    a_np = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    b_np = np.arange(64.0, dtype=np.float32).reshape(4, 16)
    with jax.set_mesh(mesh):
        a = jax.device_put(a_np, P(None, "X"))
        b = jax.device_put(b_np, P("X", None))

        @jax.shard_map(out_specs=P("X", None))
        def matmul(x, y):
            return jax.lax.psum_scatter(jnp.dot(x, y), "X", tiled=True)

        z = matmul(a, b)
        np.testing.assert_allclose(z, a_np @ b_np)
        assert z.sharding == NamedSharding(mesh, P("X", None))
        np.testing.assert_allclose(jax.jit(matmul)(a, b), a_np @ b_np)
        other = jax.device_put(a_np, NamedSharding(jax.make_mesh((1,), ("Z",)), P("Z")))
        with pytest.raises(ValueError, match="in_specs were left out"):
            matmul(other, b)


def test_shard_map_with_every_argument_replicated_under_jit():
    mesh = jax.make_mesh((1,), ("i",))
    f = jax.shard_map(lambda a: jax.lax.psum(a * 2, "i"), mesh=mesh, in_specs=P(),
                      out_specs=P())
    np.testing.assert_allclose(jax.jit(f)(X), 2 * X)   # (was: vmap with no mapped axis)
    np.testing.assert_allclose(f(X), 2 * X)


# -- mode switches --------------------------------------------------------------------------
def test_auto_and_explicit_axes_report_their_mode_and_lay_out_as_told(mesh):
    from tjit.sharding import AxisType, auto_axes, explicit_axes, get_abstract_mesh, get_mesh
    assert get_mesh().empty and get_mesh().axis_names == ()
    seen = []

    def double(a):
        seen.append(get_abstract_mesh().axis_types)
        return a * 2

    with jax.set_mesh(mesh):
        assert get_mesh() == mesh
        with pytest.raises(TypeError, match="out_sharding"):
            auto_axes(double)(X)
        y = auto_axes(double)(X, out_sharding=P("x"))
        z = explicit_axes(double, in_sharding=P("x"))(X)
        w = jax.jit(lambda a: auto_axes(double, out_sharding=P())(a))(X)
    assert seen[:2] == [(AxisType.Auto,), (AxisType.Explicit,)]
    assert y.sharding == NamedSharding(mesh, P("x"))
    for v in (y, z, w):
        np.testing.assert_allclose(v, 2 * X)
    assert get_abstract_mesh().empty


def test_arrays_made_from_blocks_keep_their_named_sharding(s):
    y = jax.make_array_from_callback((8,), s, lambda index: X[index])
    assert y.sharding == s
    np.testing.assert_array_equal(y, X)
    z = jax.make_array_from_single_device_arrays((8,), s, [jax.device_put(X)])
    assert z.sharding == s
    np.testing.assert_array_equal(z, X)


def test_out_sharding_of_eager_functions_lays_out_the_result(mesh, s):
    """JAX's out_sharding= on jnp and random functions: the eager result is committed."""
    z = jnp.zeros(4, out_sharding=s)
    r = jax.random.normal(jax.random.key(0), (4,), out_sharding=s)
    d = jnp.dot(jnp.ones((2, 2)), jnp.ones((2, 2)), out_sharding=NamedSharding(mesh, P("x")))
    assert z.sharding == r.sharding == s and spec(d) == P("x")
    np.testing.assert_array_equal(d, np.full((2, 2), 2.0))
    np.testing.assert_array_equal(z, np.zeros(4))
    w = jax.lax.with_sharding_constraint(jnp.asarray(X), s)
    assert w.sharding == s


def test_shape_dtype_struct_carries_a_sharding(s):
    a = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=s)
    assert a.sharding == s and a != jax.ShapeDtypeStruct((8,), jnp.float32)
    assert "sharding=NamedSharding" in repr(a)
    f = jax.jit(lambda v: v * 2, in_shardings=s)
    np.testing.assert_allclose(f.lower(a).compile()(X), 2 * X)


# -- several devices: the blocks of each device, as a multi-process jax.Array --------------
def test_device_put_over_several_cpu_devices_gives_each_device_its_block():
    """device_put of one value with a NamedSharding over several CPU devices keeps each
    device's block (a GlobalArray, as a JAX array over several processes' devices, whose
    blocks shard_map takes); jit refuses it by name (no automatic partitioning)."""
    from tjit.devices.backend import Device
    from tjit.distributed.arrays import GlobalArray
    from tjit.sharding import Mesh
    devs = [Device("cpu", i) for i in range(4)]
    m = Mesh(np.array(devs, dtype=object).reshape(2, 2), ("X", "Y"))
    s4 = NamedSharding(m, P("X", "Y"))
    x = np.arange(32.0).reshape(8, 4)
    g = jax.device_put(x, s4)
    assert isinstance(g, GlobalArray) and g.sharding == s4 and g.dtype == np.float32
    blocks = {sh.device: np.asarray(sh.data) for sh in g.addressable_shards}
    np.testing.assert_array_equal(blocks[devs[1]], x[0:4, 2:4])
    np.testing.assert_array_equal(blocks[devs[2]], x[4:8, 0:2])
    np.testing.assert_array_equal(np.asarray(g), x)
    f = jax.shard_map(lambda a: a * 2, mesh=m, in_specs=P("X", "Y"), out_specs=P("X", "Y"))
    np.testing.assert_allclose(np.asarray(f(g)), 2 * x)
    with pytest.raises(TypeError, match="GlobalArray"):
        jax.jit(lambda a: a + 1)(g)
    with pytest.raises(ValueError, match="does not divide into 2 equal blocks"):
        jax.device_put(np.ones(3), NamedSharding(m, P("X")))
