"""jax.make_array_from_callback and jax.live_arrays: blocks asked of the callback by
index and assembled (checked against the NumPy array the callback reads from), the
arrays alive on a backend found and deleted ones left out."""

import gc

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices.backend import cpu_device_count
from tjit.distributed.arrays import GlobalArray
from tjit.sharding import NamedSharding, SingleDeviceSharding
from tjit.sharding import PartitionSpec as P

DATA = np.arange(24, dtype=np.float32).reshape(4, 6)


def test_single_device_callback_gets_the_whole_index():
    seen = []

    def cb(index):
        seen.append(index)
        return DATA[index]
    x = tjit.make_array_from_callback((4, 6), SingleDeviceSharding(tjit.devices()[0]), cb)
    assert type(x) is tjit.tracing.core.Array and x.dtype == np.float32
    np.testing.assert_array_equal(x, DATA)
    assert seen == [(slice(None), slice(None))]
    assert x.sharding == SingleDeviceSharding(tjit.devices()[0])
    # a one-device mesh gives an Array too, usable by jnp functions
    mesh = tjit.make_mesh((1,), ("x",))
    y = tjit.make_array_from_callback((4, 6), NamedSharding(mesh, P("x")), cb)
    np.testing.assert_allclose(jnp.sin(y), np.sin(DATA.astype(np.float64)), rtol=1e-6)


def test_named_sharding_over_several_devices_asks_for_each_block():
    with cpu_device_count(4):
        mesh = tjit.make_mesh((2, 2), ("a", "b"))
        seen = []

        def cb(index):
            seen.append(index)
            return DATA[index]
        g = tjit.make_array_from_callback((4, 6), NamedSharding(mesh, P("a", "b")), cb)
        assert isinstance(g, GlobalArray) and g.shape == (4, 6)
        assert sorted((s[0].start, s[1].start) for s in seen) == [(0, 0), (0, 3), (2, 0),
                                                                   (2, 3)]
        for shard in g.addressable_shards:
            np.testing.assert_array_equal(shard.data, DATA[shard.index])
        np.testing.assert_array_equal(np.asarray(g), DATA)
        # a dim not split: every device gets the full range of it
        r = tjit.make_array_from_callback((4, 6), NamedSharding(mesh, P("a")),
                                          lambda i: DATA[i])
        assert {s.data.shape for s in r.addressable_shards} == {(2, 6)}
        np.testing.assert_array_equal(np.asarray(r), DATA)


def test_make_array_from_callback_errors():
    dev = SingleDeviceSharding(tjit.devices()[0])
    with pytest.raises(ValueError, match=r"returned shape \(3, 6\).*block of shape \(4, 6\)"):
        tjit.make_array_from_callback((4, 6), dev, lambda i: DATA[:3])
    with pytest.raises(TypeError, match="sharding must be a SingleDeviceSharding or a "
                                        "NamedSharding, got str"):
        tjit.make_array_from_callback((4, 6), "cpu", lambda i: DATA[i])
    x = tjit.make_array_from_callback((4, 6), dev, lambda i: DATA[i].astype(np.float64),
                                      dtype=np.int32)
    assert x.dtype == np.int32


def test_live_arrays_lists_the_arrays_alive_and_not_deleted():
    a = jnp.arange(5.0)
    b = jnp.ones((2, 2))
    live = tjit.live_arrays()
    assert any(x is a for x in live) and any(x is b for x in live)
    assert all(isinstance(x, tjit.Array) and not x.is_deleted() for x in live)
    b.delete()
    assert not any(x is b for x in tjit.live_arrays())
    ident = id(a)
    del a, live
    gc.collect()
    assert not any(id(x) == ident for x in tjit.live_arrays("cpu"))
