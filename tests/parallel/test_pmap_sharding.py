"""``.sharding`` of Arrays (jax.Array.sharding): a pmap result's PmapSharding says which
slice each device computed, checked by indexing the result with its devices_indices_map
against NumPy run on each device's input; ordinary Arrays have a SingleDeviceSharding."""

import numpy as np
import pytest

import tjit
from tjit.devices.backend import cpu_device_count
from tjit.sharding import PmapSharding, SingleDeviceSharding

N = 4


def _x():
    return np.random.default_rng(0).standard_normal((N, 3, 2)).astype(np.float32)


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_pmap_result_sharding_maps_each_device_to_its_slice(out_axes):
    X = _x()
    with cpu_device_count(N):
        y = tjit.pmap(lambda v: np.float32(2) * v + 1, out_axes=out_axes)(X)
        devices = tjit.local_devices()[:N]
    s = y.sharding
    assert isinstance(s, PmapSharding) and s.num_devices == N
    assert s.device_set == set(devices) == y.devices()
    assert s.shard_shape(y.shape) == (3, 2) and not s.is_fully_replicated
    index = s.devices_indices_map(y.shape)
    for r, d in enumerate(devices):   # each device's slice: NumPy on its input
        np.testing.assert_allclose(np.asarray(y)[index[d]], 2 * X[r].astype(np.float64) + 1,
                                   rtol=1e-6)
    with pytest.raises(ValueError, match="no dimension"):
        s.shard_shape((N + 1, 3, 2) if out_axes == 0 else (3, 2))


def test_pmap_replicated_output_sharding():
    X = _x()
    with cpu_device_count(N):
        y = tjit.pmap(lambda v: tjit.lax.psum(v, "i"), axis_name="i", out_axes=None)(X)
    s = y.sharding
    assert s.is_fully_replicated and s.sharded_dim is None
    assert s.shard_shape(y.shape) == y.shape == (3, 2)
    for idx in s.devices_indices_map(y.shape).values():
        np.testing.assert_allclose(np.asarray(y)[idx], X.astype(np.float64).sum(0), rtol=1e-5)
    assert s == PmapSharding(list(s.devices), None) and s != PmapSharding(list(s.devices), 0)


def test_ordinary_arrays_have_a_single_device_sharding():
    x = tjit.numpy.ones((2, 3))
    for a in (x, tjit.jit(lambda v: v * 2)(x)):
        s = a.sharding
        assert s == SingleDeviceSharding(a.device) and s.device_set == {a.device}
        assert s.shard_shape((2, 3)) == (2, 3) and s.is_fully_replicated
        assert s.devices_indices_map((2, 3)) == {a.device: (slice(None), slice(None))}
