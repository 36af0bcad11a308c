"""shard_map inside jit, grad and vmap in one process (a mesh of TJIT_NUM_CPU_DEVICES
devices): traced into the enclosing program. Checked against the top-level shard_map
(one thread per device: an independent implementation), NumPy in float64, the reference
interpreter and finite differences."""

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


def _rand(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _mlp_layer(x, w1, b1, w2):
    return lax.psum(nn.relu(x @ w1 + b1) @ w2, "model")


_LAYER_SPECS = (P("data"), P(None, "model"), P("model"), P("model"))


def _layer_np(x, w1, b1, w2):
    x, w1, b1, w2 = (np.asarray(a, np.float64) for a in (x, w1, b1, w2))
    return np.maximum(x @ w1 + b1, 0) @ w2


def _fd_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


def test_jit_2d_mesh_layer_against_numpy_top_level_and_interpreter(four_devices):
    mesh = tjit.make_mesh((2, 2), ("data", "model"))
    args = (_rand(0, 8, 6), _rand(1, 6, 4), _rand(2, 4), _rand(3, 4, 3))
    sm = tjit.shard_map(_mlp_layer, mesh, in_specs=_LAYER_SPECS, out_specs=P("data"))
    want = _layer_np(*args)
    top = np.asarray(sm(*args))
    got = np.asarray(tjit.jit(sm)(*args))
    ref = np.asarray(tjit.jit(sm, backend="interpreter")(*args))
    assert got.shape == want.shape == (8, 3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, top, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ref, want, rtol=1e-5, atol=1e-5)


def test_jit_block_layouts_and_collectives_match_top_level(four_devices):
    """Dims split over two mesh axes, over the minor axis only, outputs replicated along
    an axis, axis_index, all_gather and ppermute: the traced call gives the thread run's
    values."""
    mesh = tjit.make_mesh((2, 2), ("a", "b"))
    x, y = _rand(4, 8, 6), _rand(5, 4, 2)

    def body(x, y):
        i = lax.axis_index("a").astype(jnp.float32)
        j = lax.axis_index("b").astype(jnp.float32)
        s = lax.psum(x, "b") * (1 + i) + j
        g = lax.all_gather(y, "a", tiled=True)
        r = lax.ppermute(y, "b", perm=[(0, 1), (1, 0)])
        return s, lax.psum(g, ("a", "b")), r

    sm = tjit.shard_map(body, mesh, in_specs=(P(("a", "b")), P("b")),
                        out_specs=(P(("a", "b")), P(), P("b", "a")), check_rep=False)
    top = sm(x, y)
    got = tjit.jit(sm)(x, y)
    for t, g in zip(top, got):
        assert np.shape(t) == np.shape(g)
        np.testing.assert_allclose(np.asarray(g), np.asarray(t), rtol=1e-6, atol=1e-6)
    # out_specs P() keeps one copy: the psum over every axis of the gathered blocks
    want = 2 * np.concatenate([y[:2], y[:2]]) + 2 * np.concatenate([y[2:], y[2:]])
    np.testing.assert_allclose(np.asarray(got[1]), want, rtol=1e-5)


def test_grad_of_2d_layer_against_finite_differences(four_devices):
    mesh = tjit.make_mesh((2, 2), ("data", "model"))
    x, w1, b1, w2 = _rand(0, 8, 6), _rand(1, 6, 4), _rand(2, 4), _rand(3, 4, 3)
    sm = tjit.shard_map(_mlp_layer, mesh, in_specs=_LAYER_SPECS, out_specs=P("data"))

    def loss(w1, b1):
        return jnp.sum(sm(x, w1, b1, w2) ** 2)

    g_w1, g_b1 = tjit.jit(tjit.grad(loss, argnums=(0, 1)))(w1, b1)
    fd_w1 = _fd_grad(lambda a: np.sum(_layer_np(x, a, b1, w2) ** 2), w1)
    fd_b1 = _fd_grad(lambda a: np.sum(_layer_np(x, w1, a, w2) ** 2), b1)
    np.testing.assert_allclose(np.asarray(g_w1), fd_w1, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(np.asarray(g_b1), fd_b1, rtol=1e-3, atol=1e-3)


def test_data_parallel_step_in_one_jit_equals_full_batch_numpy(four_devices):
    """params replicated P(), batch split P('data'), grads pmean'd inside the body, then
    grad of the whole shard_map from outside: both give the full-batch gradient."""
    mesh = tjit.make_mesh((4,), ("data",))
    w, x, t = _rand(0, 5, 3), _rand(1, 16, 5), _rand(2, 16, 3)

    def local_loss(w, x, t):
        return jnp.mean((jnp.tanh(x @ w) - t) ** 2)

    def local_step(w, x, t):
        loss, g = tjit.value_and_grad(local_loss)(w, x, t)
        return lax.pmean(loss, "data"), lax.pmean(g, "data")

    step = tjit.jit(tjit.shard_map(local_step, mesh, in_specs=(P(), P("data"), P("data")),
                                   out_specs=(P(), P())))
    loss, g = step(w, x, t)

    def loss_np(w):
        return np.mean((np.tanh(x.astype(np.float64) @ w) - t) ** 2)

    want_g = _fd_grad(loss_np, w, eps=1e-5)
    np.testing.assert_allclose(float(loss), loss_np(w.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g), want_g, rtol=1e-4, atol=1e-5)

    # grad from outside: the replicated parameter's cotangent sums over the blocks
    outer = tjit.shard_map(lambda w, x, t: lax.pmean(local_loss(w, x, t), "data"), mesh,
                           in_specs=(P(), P("data"), P("data")), out_specs=P())
    g_out = tjit.jit(tjit.grad(lambda w: outer(w, x, t)))(w)
    np.testing.assert_allclose(np.asarray(g_out), want_g, rtol=1e-4, atol=1e-5)


def test_vmap_of_shard_map_against_python_loop(four_devices):
    mesh = tjit.make_mesh((4,), ("data",))
    xs = _rand(6, 3, 8, 2)
    sm = tjit.shard_map(lambda b: b - lax.pmean(b, "data"), mesh, in_specs=P("data"),
                        out_specs=P("data"))
    got = np.asarray(tjit.vmap(sm)(xs))
    want = np.stack([np.asarray(sm(x)) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    blocks = xs.astype(np.float64).reshape(3, 4, 2, 2)   # (batch, device, block rows, 2)
    want = (blocks - blocks.mean(axis=1, keepdims=True)).reshape(xs.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_traced_errors(four_devices):
    mesh = tjit.make_mesh((4,), ("data",))
    with pytest.raises(ValueError, match="leaves out mesh axis 'data'"):
        tjit.jit(tjit.shard_map(lambda b: b, mesh, in_specs=P("data"),
                                out_specs=P()))(np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="cannot be split"):
        tjit.jit(tjit.shard_map(lambda b: b, mesh, in_specs=P("data"),
                                out_specs=P("data")))(np.ones((6, 2), np.float32))
    with pytest.raises(NameError, match="unbound axis name: model"):
        tjit.jit(tjit.shard_map(lambda b: lax.psum(b, "model"), mesh, in_specs=P("data"),
                                out_specs=P("data")))(np.ones((4, 2), np.float32))
