"""JAX's mesh API as ported doc pages use it: set_mesh, device_put with a sharding or a
bare PartitionSpec, jax_num_cpu_devices / XLA_FLAGS, make_mesh's axis_types and smaller
meshes, initializers' out_sharding, the jax.shard_map decorator form. Values against
NumPy, the mesh restored after a block, errors."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.sharding import Mesh, NamedSharding, SingleDeviceSharding, current_mesh


@pytest.fixture
def mesh():
    return jax.make_mesh((1,), ("i",))


def test_context_manager_sets_and_restores(mesh):
    other = jax.make_mesh((1,), ("j",))
    assert current_mesh() is None
    with jax.set_mesh(mesh) as m:
        assert m is mesh and current_mesh() is mesh
        with jax.set_mesh(other):
            assert current_mesh() is other
        assert current_mesh() is mesh
    assert current_mesh() is None


def test_global_setter_stays_until_restored(mesh):
    setting = jax.set_mesh(mesh)
    try:
        assert current_mesh() is mesh
        assert jax.sharding.current_mesh() is mesh
    finally:
        setting.__exit__(None, None, None)
    assert current_mesh() is None


def test_device_put_with_a_spec_under_the_mesh_and_computation(mesh):
    x_np = np.arange(8.0, dtype=np.float32)

    def host_fn(x):
        return np.asarray(x) * 2

    def f(x):
        return jax.pure_callback(host_fn, jax.ShapeDtypeStruct.like(x), x)

    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.asarray(x_np), jax.P("i"))
        # committed to the mesh layout, as JAX's (equivalent to the one device's)
        assert x.sharding == NamedSharding(mesh, jax.P("i"))
        assert x.sharding.is_equivalent_to(SingleDeviceSharding(mesh.devices.flat[0]), 1)
        np.testing.assert_array_equal(jax.jit(f)(x), 2 * x_np)
        out = jax.shard_map(f, in_specs=jax.P("i"), out_specs=jax.P("i"))(x)
        np.testing.assert_array_equal(out, 2 * x_np)
    tree = jax.device_put({"a": x_np, "b": x_np[:2]}, NamedSharding(mesh, jax.P("i")))
    np.testing.assert_array_equal(tree["a"], x_np)
    np.testing.assert_array_equal(tree["b"], x_np[:2])
    np.testing.assert_array_equal(
        jax.device_put(x_np, SingleDeviceSharding(jax.devices()[0])), x_np)


def test_errors(mesh):
    with pytest.raises(TypeError, match="expected a Mesh"):
        jax.set_mesh(("i",))
    with pytest.raises(RuntimeError, match="outside of jit"):
        jax.jit(lambda x: (jax.set_mesh(mesh), x)[1])(1.0)
    assert current_mesh() is None
    with pytest.raises(ValueError, match="set_mesh"):
        jax.device_put(jnp.ones(4), jax.P("i"))
    with jax.set_mesh(mesh), pytest.raises(ValueError, match="rank|dimension|axes"):
        jax.device_put(jnp.ones(4), jax.P("i", None))


def test_a_sharding_over_several_devices_is_refused():
    try:
        other = jax.devices("opencl")[0]
    except Exception:  # noqa: BLE001  (no second backend here: build the mesh from what there is)
        other = None
    devices = [jax.devices()[0]] + ([other] if other is not None else [])
    if len(devices) < 2:
        pytest.skip("one device only: no multi-device mesh to refuse")
    two = Mesh(np.array(devices, dtype=object), ("i",))
    with pytest.raises(NotImplementedError, match="2 devices"):
        jax.device_put(jnp.ones(4), NamedSharding(two, jax.P("i")))


_NUM_CPU_DEVICES_SCRIPT = """
import tjit as jax, numpy as np
jax.config.update("jax_num_cpu_devices", 4)
devs = jax.devices()
mesh = jax.make_mesh((4,), ("i",))
f = jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=jax.P("i"), out_specs=jax.P("i"))
out = np.asarray(f(np.arange(8.0, dtype=np.float32)))
try:
    jax.config.update("jax_num_cpu_devices", 2)
    late = "accepted"
except RuntimeError as e:
    late = "refused" if "before the devices are first used" in str(e) else str(e)
small = [d.id for d in jax.make_mesh((2,), ("i",)).devices.flat]
print(len(devs), out.tolist(), late, jax.config.jax_num_cpu_devices, small)
"""


def test_num_cpu_devices_config_sets_the_host_device_count_before_first_use():
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "TJIT_NUM_CPU_DEVICES"}
    # the config option comes before XLA_FLAGS' device count, as in JAX
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=3"
    res = subprocess.run([sys.executable, "-c", _NUM_CPU_DEVICES_SCRIPT], env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    line = res.stdout.strip().splitlines()[-1]
    # a mesh smaller than the device list takes the first devices (JAX's make_mesh)
    assert line == (f"4 {[2.0 * i for i in range(8)]} refused 4 [0, 1]"), line
    with pytest.raises(ValueError, match="number of devices"):
        jax.config.update("jax_num_cpu_devices", 0)


def test_make_mesh_takes_axis_types_third_as_jax():
    from tjit.sharding import AxisType
    m = jax.make_mesh((1,), ("i",), (AxisType.Explicit,))
    assert m.axis_types == (AxisType.Explicit,)
    assert jax.make_mesh((1,), ("i",)).axis_types == (AxisType.Explicit,)   # JAX 0.10
    assert jax.sharding.Mesh(jax.devices()[:1], ("i",)).axis_types == (AxisType.Auto,)
    assert m == jax.make_mesh((1,), ("i",)) != jax.make_mesh((1,), ("i",), (AxisType.Auto,))
    assert jax.make_mesh((1,), ("i",), devices=jax.devices()[:1]).shape == {"i": 1}
    with pytest.raises(ValueError, match="axis_types"):
        jax.make_mesh((1,), ("i",), (AxisType.Auto, AxisType.Auto))
    with pytest.raises(ValueError, match="axis_types"):
        jax.make_mesh((1,), ("i",), ("explicit",))


@pytest.mark.parametrize("make", [
    lambda: jax.nn.initializers.zeros, lambda: jax.nn.initializers.ones,
    lambda: jax.nn.initializers.constant(1.5), lambda: jax.nn.initializers.normal(0.5),
    lambda: jax.nn.initializers.he_normal(1, 1), lambda: jax.nn.initializers.orthogonal(),
    lambda: jax.nn.initializers.truncated_normal(0.3), lambda: jax.nn.initializers.uniform(),
])
def test_initializers_take_out_sharding(mesh, make):
    init, key = make(), jax.random.key(3)
    want = np.asarray(init(key, (4, 2), jnp.float32))
    with jax.set_mesh(mesh):
        got = init(key, (4, 2), jnp.float32, jax.P("i", None))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(
            jax.jit(lambda k: init(k, (4, 2), jnp.float32, jax.P("i")))(key), want)
        with pytest.raises(ValueError):
            init(key, (4, 2), jnp.float32, jax.P("i", None, None))
    np.testing.assert_array_equal(
        init(key, (4, 2), jnp.float32, out_sharding=NamedSharding(mesh, jax.P())), want)
    with pytest.raises(ValueError, match="mesh"):
        init(key, (4, 2), jnp.float32, jax.P("i"))


def test_shard_map_as_jax_shard_map_decorator(mesh):
    x = np.arange(6.0, dtype=np.float32)
    with jax.set_mesh(mesh):
        @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
        def double(block):
            return block * 2
        np.testing.assert_array_equal(double(x), 2 * x)
    f = jax.shard_map(lambda b: b + 1, mesh=mesh, in_specs=jax.P("i"), out_specs=jax.P("i"),
                      check_vma=False, axis_names={"i"})
    np.testing.assert_array_equal(f(x), x + 1)
    two = jax.make_mesh((1, 1), ("i", "j"))
    with pytest.raises(NotImplementedError, match="auto"):
        jax.shard_map(lambda b: b, mesh=two, in_specs=jax.P("i"), out_specs=jax.P("i"),
                      axis_names={"i"})


def test_xla_flags_device_count_is_read(monkeypatch):
    from tjit.devices import backend
    monkeypatch.setenv("XLA_FLAGS", "--foo=1 --xla_force_host_platform_device_count=3")
    assert backend._xla_flags_device_count() == "3"
    monkeypatch.setenv("XLA_FLAGS", "--foo=1")
    assert backend._xla_flags_device_count() is None
