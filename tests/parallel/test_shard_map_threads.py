"""jit(shard_map(f, mesh, ...)) over a mesh of this process's CPU devices runs each block
on its device's thread (one shard_map equation, the pmap runtime's threads, collectives
between them): results against the sequential definition (nested vmap(axis_name), traced
without threads), the unsharded function in float64 NumPy and the reference interpreter;
grad, jvp and vmap of it through the definition; the threads it ran on."""

import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices.backend import cpu_device_count
from tjit.experimental import shard_map_threads
from tjit.experimental.shard_map import shard_map
from tjit.experimental.shard_map_traced import vmap_form
from tjit.sharding import P

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 4)).astype(np.float32)


def _ring(n):
    return [(j, (j + 1) % n) for j in range(n)]


# name -> (body, in_spec, out_spec, NumPy reference of the global result from X)
def _cases(n):
    rows = 8 // n
    blocks = lambda X: X.reshape(n, rows, 4)
    return {
        "psum": (lambda b: lax.psum(jnp.sin(b), "i") * b, P("i"), P("i"),
                 lambda X: (np.sin(blocks(X)).sum(0)[None] * blocks(X)).reshape(8, 4)),
        "pmean_replicated": (lambda b: lax.pmean(jnp.sum(b * b, 0), "i"), P("i"), P(),
                             lambda X: (X * X).reshape(n, rows, 4).sum(1).mean(0)),
        "all_gather": (lambda b: lax.all_gather(b, "i", tiled=True) @ b.T, P("i"), P("i"),
                       lambda X: np.concatenate([X @ blk.T for blk in blocks(X)])),
        "ppermute": (lambda b: lax.ppermute(b, "i", _ring(n)) + b, P("i"), P("i"),
                     lambda X: (np.roll(blocks(X), 1, 0) + blocks(X)).reshape(8, 4)),
        "psum_scatter": (lambda b: lax.psum_scatter(b, "i", scatter_dimension=1,
                                                    tiled=True), P("i"), P(None, "i"),
                         lambda X: blocks(X).sum(0)),
        "all_to_all": (lambda b: lax.all_to_all(b, "i", 1, 0, tiled=True), P("i"),
                       P(None, "i"), lambda X: _all_to_all_ref(X, n)),
        "axis_index": (lambda b: b * lax.axis_index("i").astype(jnp.float32), P("i"),
                       P("i"), lambda X: (blocks(X) * np.arange(n)[:, None, None])
                       .reshape(8, 4)),
    }


def _all_to_all_ref(X, n):
    """Member r's result: rows-block of every member j's column block r, stacked over j;
    the global result lays member r's block out along the columns."""
    blocks = X.reshape(n, 8 // n, 4)
    per_member = [np.concatenate([np.split(blocks[j], n, axis=1)[r] for j in range(n)], 0)
                  for r in range(n)]
    return np.concatenate(per_member, axis=1)


def _sequential(body, mesh, spec, out_spec):
    """The definition, traced without threads."""
    return tjit.jit(lambda x: vmap_form(lambda b: [body(b)], mesh, [spec], [out_spec], [x],
                                        "sequential")[0])


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("name", sorted(_cases(2)))
def test_threaded_against_the_definition_numpy_and_interpreter(name, n):
    body, spec, out_spec, ref = _cases(n)[name]
    with cpu_device_count(n):
        mesh = tjit.make_mesh((n,), ("i",))
        f = shard_map(body, mesh, in_specs=spec, out_specs=out_spec)
        assert "shard_map[" in str(tjit.make_jaxpr(f)(X))   # (one equation, not vmaps)
        got = np.asarray(tjit.jit(f)(X))
        seq = np.asarray(_sequential(body, mesh, spec, out_spec)(X))
        interp = np.asarray(tjit.jit(f, backend="interpreter")(X))
        top = np.asarray(f(X))
    np.testing.assert_allclose(got, seq, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, ref(X.astype(np.float64)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(interp, seq, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got, top)   # (the same per-device programs)


def test_two_dimensional_mesh_with_tuple_axes():
    def body(b):
        return lax.psum(b, ("x", "y")) + lax.psum(b, "y") * lax.axis_index(("x", "y"))
    with cpu_device_count(4):
        mesh = tjit.make_mesh((2, 2), ("x", "y"))
        f = shard_map(body, mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
        got = np.asarray(tjit.jit(f)(X))
        seq = np.asarray(_sequential(body, mesh, P("x", "y"), P("x", "y"))(X))
    B = X.astype(np.float64).reshape(2, 4, 2, 2).transpose(0, 2, 1, 3)   # (x, y, 4, 2)
    want = B.sum((0, 1))[None, None] + B.sum(1)[:, None] * np.arange(4).reshape(2, 2, 1, 1)
    np.testing.assert_allclose(got, want.transpose(0, 2, 1, 3).reshape(8, 4), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(got, seq, rtol=1e-6, atol=1e-6)


def test_blocks_run_on_the_devices_threads(monkeypatch):
    seen = []
    real = shard_map_threads.run_bound

    def recording(run, per_device, bindings):
        def run_and_record(*blocks):
            seen.append(threading.current_thread().name)
            return run(*blocks)
        return real(run_and_record, per_device, bindings)

    monkeypatch.setattr(shard_map_threads, "run_bound", recording)
    with cpu_device_count(2):
        mesh = tjit.make_mesh((2,), ("i",))
        f = tjit.jit(shard_map(lambda b: lax.psum(b, "i"), mesh, in_specs=P("i"),
                               out_specs=P()))
        f(X)
    assert sorted(seen) == ["MainThread", "tjit-device-1"]


def test_closure_over_a_traced_value_and_transformations():
    w = np.float32(1.5)

    def global_fn(x, w):
        return jnp.sum(jnp.tanh(x * w).reshape(2, 4, 4).sum(0) ** 2)

    with cpu_device_count(2):
        mesh = tjit.make_mesh((2,), ("i",))

        def sharded(x, w):
            f = shard_map(lambda b: lax.psum(jnp.tanh(b * w), "i"), mesh, in_specs=P("i"),
                          out_specs=P())
            return jnp.sum(f(x) ** 2)

        val = tjit.jit(sharded)(X, w)
        g = tjit.jit(tjit.grad(sharded, argnums=(0, 1)))(X, w)
        t = tjit.jvp(tjit.jit(sharded), (X, w), (np.ones_like(X), np.float32(0.5)))[1]
        vm = tjit.vmap(tjit.jit(sharded), in_axes=(0, None))(np.stack([X, 2 * X]), w)
    np.testing.assert_allclose(val, global_fn(X, w), rtol=1e-5)
    want = tjit.grad(global_fn, argnums=(0, 1))(X, w)
    np.testing.assert_allclose(np.asarray(g[0]), np.asarray(want[0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(float(g[1]), float(want[1]), rtol=1e-4)
    want_t = tjit.jvp(global_fn, (X, w), (np.ones_like(X), np.float32(0.5)))[1]
    np.testing.assert_allclose(float(t), float(want_t), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(vm), [global_fn(X, w), global_fn(2 * X, w)],
                               rtol=1e-5)


def _two_d_layer(mesh, check_rep=True):
    """A (data x model) layer: x split over data, w over model, b replicated; the output
    replicated over model (psum) and, with check_rep=False, a second output that is not
    (each model block's own value: the definition keeps the copy at model index 0)."""
    def body(x, w, b):
        h = jnp.tanh(x @ w + b)
        y = lax.psum(h @ w.T, "model")
        return (y, h.sum(1, keepdims=True)) if not check_rep else y
    out_specs = (P("data"), P("data")) if not check_rep else P("data")
    return shard_map(body, mesh, in_specs=(P("data"), P(None, "model"), P()),
                     out_specs=out_specs, check_rep=check_rep)


@pytest.mark.parametrize("check_rep", [True, False])
def test_reverse_and_forward_mode_run_threaded_against_the_definition(check_rep,
                                                                      monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal(()).astype(np.float32)
    calls = []
    real = shard_map_threads.run_bound
    monkeypatch.setattr(shard_map_threads, "run_bound",
                        lambda *a: calls.append(1) or real(*a))

    def loss_of(f):
        def loss(x, w, b):
            out = f(x, w, b)
            y, s = out if isinstance(out, tuple) else (out, 0.0)
            return jnp.sum(jnp.sin(y)) + jnp.sum(s * s)
        return loss

    with cpu_device_count(4):
        mesh = tjit.make_mesh((2, 2), ("data", "model"))
        f = _two_d_layer(mesh, check_rep)
        definition = lambda *a: vmap_form(
            lambda *blk: list(f.__wrapped__(*blk)) if not check_rep
            else [f.__wrapped__(*blk)], mesh, [P("data"), P(None, "model"), P()],
            [P("data"), P("data")] if not check_rep else [P("data")], list(a), "def")
        ref_loss = lambda x, w, b: loss_of(
            lambda *a: tuple(definition(*a)) if not check_rep else definition(*a)[0])(x, w, b)
        g = tjit.jit(tjit.grad(loss_of(f), argnums=(0, 1, 2)))(x, w, b)
        assert calls, "the blocks did not run on the devices' threads"
        want = tjit.jit(tjit.grad(ref_loss, argnums=(0, 1, 2)))(x, w, b)
        for got, ref in zip(g, want):
            np.testing.assert_allclose(np.asarray(got), np.asarray(ref), rtol=1e-4, atol=1e-5)
        tx, tw = (rng.standard_normal(v.shape).astype(np.float32) for v in (x, w))
        t = tjit.jvp(tjit.jit(loss_of(f)), (x, w, b), (tx, tw, np.float32(1)))[1]
        t_ref = tjit.jvp(ref_loss, (x, w, b), (tx, tw, np.float32(1)))[1]
        np.testing.assert_allclose(float(t), float(t_ref), rtol=1e-4)
        if check_rep:   # second order: forward over reverse
            h = tjit.jit(tjit.hessian(lambda b: loss_of(f)(x, w, b)))(b)
            h_ref = tjit.hessian(lambda b: ref_loss(x, w, b))(b)
            np.testing.assert_allclose(float(h), float(h_ref), rtol=1e-3)


def test_threaded_shard_map_inside_pmap_does_not_deadlock():
    # device 0 of the pmap waits, in the shard_map step, for a worker that runs device 1,
    # which waits for device 0 in the psum after it: the inner call must not queue there
    x = np.arange(16, dtype=np.float32).reshape(2, 4, 2)
    result = {}

    def run():
        with cpu_device_count(2):
            mesh = tjit.make_mesh((2,), ("j",))
            sm = shard_map(lambda b: lax.psum(b, "j"), mesh, in_specs=P("j"), out_specs=P())
            result["got"] = np.asarray(tjit.pmap(lambda v: lax.psum(sm(v) * 2, "i"), "i")(x))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive(), "pmap of a threaded shard_map hung"
    blocks = x.astype(np.float64).reshape(2, 2, 2, 2).sum(1)   # per pmap member: sm(v)
    np.testing.assert_allclose(result["got"], np.stack([2 * blocks.sum(0)] * 2))


def test_integer_operands_and_outputs_keep_the_threads_under_grad(monkeypatch):
    # integer operands take no tangent and integer outputs a zero one; the floating ones
    # are differentiated on the devices' threads, as the definition does
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    idx = rng.integers(0, 4, size=(8,)).astype(np.int32)
    calls = []
    real = shard_map_threads.run_bound
    monkeypatch.setattr(shard_map_threads, "run_bound",
                        lambda *a: calls.append(1) or real(*a))

    def body(b, i):
        picked = jnp.take_along_axis(b, i[:, None], axis=1)[:, 0]
        return lax.psum(jnp.sum(jnp.tanh(picked)), "i"), jnp.argmax(b, axis=1) + i

    def loss_of(f):
        def loss(x):
            s, k = f(x, idx)
            return s + jnp.sum(k.astype(jnp.float32)) * 0.0 + jnp.sum(x[:, 0] ** 2)
        return loss

    with cpu_device_count(4):
        mesh = tjit.make_mesh((4,), ("i",))
        f = shard_map(body, mesh, in_specs=(P("i"), P("i")), out_specs=(P(), P("i")))
        g = tjit.jit(tjit.grad(loss_of(f)))(x)
        assert calls, "the blocks did not run on the devices' threads"
        t = tjit.jvp(tjit.jit(loss_of(f)), (x,), (np.ones_like(x),))[1]
    x64 = x.astype(np.float64)
    picked = x64[np.arange(8), idx]
    want = np.zeros_like(x64)
    want[np.arange(8), idx] = 1 - np.tanh(picked) ** 2
    want[:, 0] += 2 * x64[:, 0]
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(t), want.sum(), rtol=1e-5)
