"""``jax.device_put``'s ``src``/``donate``/``may_alias`` with JAX's meaning (a one-device
process: values are the input's; may_alias=False gives a buffer of its own)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def test_device_put_may_alias_false_copies():
    x = jnp.arange(4.0)
    assert tjit.device_put(x) is x                       # default: may alias
    y = tjit.device_put(x, may_alias=False)
    assert y is not x and not np.shares_memory(np.asarray(y), np.asarray(x))
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0, 3.0])
    tree = tjit.device_put({"a": x, "b": [x, 2.0]}, may_alias={"a": False, "b": None})
    assert not np.shares_memory(np.asarray(tree["a"]), np.asarray(x))
    assert tree["b"][0] is x
    np.testing.assert_array_equal(tree["b"][1], 2.0)


def test_device_put_numpy_input_never_aliases():
    n = np.ones(3)
    y = tjit.device_put(n, may_alias=True)
    n[0] = 5.0
    np.testing.assert_array_equal(y, [1.0, 1.0, 1.0])


def test_device_put_donate_is_best_effort():
    x = jnp.ones(3)
    y = tjit.device_put(x, donate=True)
    np.testing.assert_array_equal(y, x)
    assert not x.is_deleted()   # as JAX on one device: the input stays usable
    with pytest.raises(ValueError, match="may_alias and donate cannot be True"):
        tjit.device_put(x, donate=True, may_alias=True)
    with pytest.raises(ValueError, match="may_alias and donate cannot be True"):
        tjit.device_put([x, x], donate=[False, True], may_alias=True)


def test_device_put_src():
    x = jnp.ones(2)
    dev = tjit.devices()[0]
    np.testing.assert_array_equal(tjit.device_put(x, src=dev), x)
    np.testing.assert_array_equal(tjit.device_put({"a": x}, src={"a": dev})["a"], x)
    with pytest.raises(TypeError, match=r"device_put \(src\): device must be a tjit Device"):
        tjit.device_put(x, src=3)
    with pytest.raises(ValueError, match="device_put: src must be one value or a pytree "
                                         "prefix of x"):
        tjit.device_put(x, src={"a": dev})


def test_process_functions_take_backend_and_local_devices_process_index():
    assert tjit.process_count("cpu") == 1 and tjit.process_index(backend="cpu") == 0
    assert tjit.process_indices("cpu") == [0]
    assert tjit.local_devices(0) == tjit.local_devices() == tjit.local_devices(backend="cpu")
    with pytest.warns(DeprecationWarning, match="host_id"):
        assert tjit.local_devices(host_id=0) == tjit.local_devices()
    with pytest.raises(ValueError, match="Unknown process_index 1"):
        tjit.local_devices(1)
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        tjit.process_count("tpu")


def test_make_jaxpr_axis_env_binds_collective_axes():
    def f(x):
        return tjit.lax.psum(x, "i") * tjit.lax.axis_index("i")

    with pytest.raises(NameError, match="unbound axis name: i"):
        tjit.make_jaxpr(f)(1.0)
    closed = tjit.make_jaxpr(f, axis_env=[("i", 4)])(np.float32(1.0))
    prims = [e.primitive.name for e in closed.jaxpr.eqns]
    assert "psum" in prims and "axis_index" in prims
    # JAX's positional order: (fun, static_argnums, axis_env, return_shape)
    _, shape = tjit.make_jaxpr(f, (), [("i", 4)], True)(np.ones(3, np.float32))
    assert shape.shape == (3,)
    # its jaxpr evaluated under vmap over an axis named i equals vmap of f itself
    from tjit.tracing.jaxpr import eval_jaxpr
    x = np.arange(4.0, dtype=np.float32)
    got = tjit.vmap(lambda v: eval_jaxpr(closed.jaxpr, closed.consts, v)[0], axis_name="i")(x)
    np.testing.assert_allclose(got, np.sum(x) * np.arange(4))
    with pytest.raises(TypeError, match="axis_env must be a sequence of"):
        tjit.make_jaxpr(f, axis_env=["i"])(1.0)


def test_transfer_guard_new_val_keyword():
    with tjit.transfer_guard(new_val="log"):
        assert tjit.config.transfer_guard_device_to_host == "log"


def test_dtypes_export_ops_keywords():
    import tjit.dtypes
    import tjit.export
    from tjit.sharding import NamedSharding, PartitionSpec as P
    assert tjit.dtypes.issubdtype(a=np.int8, b=np.integer)
    assert not tjit.dtypes.issubdtype(a=np.float32, b=np.integer)
    assert tjit.export.is_symbolic_dim(p=tjit.export.symbolic_shape("n")[0])
    assert not tjit.export.is_symbolic_dim(p=3)
    data, ids = np.arange(5.0), np.array([0, 0, 1, 2, 2])
    mesh = tjit.make_mesh((1,), ("x",))
    for name, ref in (("segment_sum", np.add), ("segment_max", np.maximum),
                      ("segment_min", np.minimum), ("segment_prod", np.multiply)):
        want = [ref.reduce(data[ids == s]) for s in range(3)]
        got = getattr(tjit.ops, name)(data, ids, 3, out_sharding=NamedSharding(mesh, P("x")))
        np.testing.assert_allclose(got, want)
        with pytest.raises(TypeError, match=rf"ops.{name}\(out_sharding=...\)"):
            getattr(tjit.ops, name)(data, ids, 3, out_sharding="cpu")
