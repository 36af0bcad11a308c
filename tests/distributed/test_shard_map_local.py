"""shard_map over the CPU devices of one process (TJIT_NUM_CPU_DEVICES; no MPI): the
devices run on threads with a thread group per mesh axis. Checked against vmap with the
same axis names and against the unsharded layer in NumPy."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.devices.backend import cpu_device_count
from tjit.sharding import P


@pytest.fixture
def four_devices():
    with cpu_device_count(4):
        yield


def test_2d_mesh_collectives_against_nested_vmap(four_devices):
    mesh = tjit.make_mesh((2, 2), ("data", "model"))
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)

    def body(b):
        return lax.psum(b, "model") * lax.axis_index("data").astype(jnp.float32)

    got = tjit.shard_map(body, mesh, in_specs=P("data", "model"),
                         out_specs=P("data", "model"), check_rep=False)(x)
    # oracle: the blocks as (data, model, 2, 3) under vmap over both axis names
    blocks = x.reshape(2, 2, 2, 3).swapaxes(1, 2)
    want = tjit.vmap(tjit.vmap(body, axis_name="model"), axis_name="data")(blocks)
    np.testing.assert_allclose(np.asarray(got),
                               np.asarray(want).swapaxes(1, 2).reshape(4, 6), rtol=1e-6)
    # and NumPy: psum over 'model' adds the two column blocks of each row block
    s = x[:, :3] + x[:, 3:]
    np.testing.assert_allclose(np.asarray(got),
                               np.concatenate([s, s], 1) * np.repeat([0, 1], 2)[:, None],
                               rtol=1e-6)
    # a collective over both axes (a communicator bound to the tuple): blocks in
    # row-major (data, model) order, the same on every device
    gathered = tjit.shard_map(lambda b: lax.all_gather(b, ("data", "model"), tiled=True),
                              mesh, in_specs=P("data", "model"), out_specs=P())(x)
    np.testing.assert_array_equal(np.asarray(gathered),
                                  np.concatenate([blocks[i, j] for i in range(2)
                                                  for j in range(2)]))


def test_megatron_layer_on_local_devices_against_unsharded(four_devices):
    mesh = tjit.make_mesh((2, 2), ("data", "model"))
    rng = np.random.default_rng(3)
    x, w1, b1, w2 = (rng.standard_normal(s).astype(np.float32)
                     for s in [(8, 6), (6, 10), (10,), (10, 4)])

    def layer(x, w1, b1, w2):
        return lax.psum(nn.relu(x @ w1 + b1) @ w2, "model")

    y = tjit.shard_map(layer, mesh, in_specs=(P("data"), P(None, "model"), P("model"),
                                              P("model")), out_specs=P("data"))(x, w1, b1, w2)
    want = np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)


def test_shard_map_errors(four_devices):
    mesh = tjit.make_mesh((4,), ("data",))
    x = np.ones((6, 2), np.float32)
    with pytest.raises(ValueError, match="cannot be split"):
        tjit.shard_map(lambda b: b, mesh, in_specs=P("data"), out_specs=P("data"))(x)
    with pytest.raises(ValueError, match="not an axis of Mesh"):
        tjit.shard_map(lambda b: b, mesh, in_specs=P("batch"), out_specs=P())(x)
    with pytest.raises(ValueError, match="in_specs must be a tree prefix of the arguments"):
        tjit.shard_map(lambda a, b: a, mesh, in_specs=(P("data"),),
                       out_specs=P("data"))(np.ones((4, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="out_specs must be a tree prefix of the outputs"):
        tjit.shard_map(lambda a: (a, a), mesh, in_specs=P("data"),
                       out_specs=(P("data"),) * 3)(np.ones((4, 2)))
    with pytest.raises(NameError, match="unbound axis name: model"):
        tjit.shard_map(lambda b: lax.psum(b, "model"), mesh, in_specs=P("data"),
                       out_specs=P("data"))(np.ones((4, 2)))
