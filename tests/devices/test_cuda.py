"""The CUDA backend on a GPU: device arrays, eager ops on CuPy, compiled programs
against the reference interpreter, donation, asynchronous calls, out-of-memory.

Every test is marked ``cuda`` and skips, with the probe's reason, without a usable GPU
(``tests/devices/test_cuda_faults.py`` covers that case and the compiler without one).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cuda

REASON = cuda.unavailable_reason()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(REASON is not None,
                                                   reason=f"no usable GPU: {REASON}")]
F32 = np.float32


@pytest.fixture
def rng():      # (here too: the GPU image runs these with --noconftest)
    return np.random.default_rng(0)


def gpu():
    return tjit.devices("gpu")[0]


def on_gpu(x):
    return tjit.device_put(x, gpu())


def ref(f, *args, **kw):
    """``f`` by the reference interpreter on host copies of ``args``."""
    host = tjit.tree_map(lambda a: np.asarray(a), args)
    return tjit.jit(f, backend="interpreter", **kw)(*host)


def close(got, want, rtol=2e-6, atol=1e-6):
    for g, w in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        assert isinstance(g, tjit.Array) and g.device.platform == "gpu", g
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def test_platform_names_and_device_arrays(rng):
    assert tjit.default_backend() == "gpu"
    assert gpu().platform == "gpu" and gpu() in tjit.devices()
    x = rng.standard_normal((3, 4)).astype(F32)
    a = on_gpu(x)
    assert a.device == gpu() and a.devices() == {gpu()}
    np.testing.assert_array_equal(np.asarray(a), x)
    assert "Array(" in repr(a) and str(a) == str(x)
    assert a.block_until_ready() is a and a[1, 2].item() == x[1, 2]
    assert tjit.device_get(a).tolist() == x.tolist()
    back = tjit.device_put(a, tjit.devices("cpu")[0])
    assert back.device.platform == "cpu" and np.array_equal(np.asarray(back), x)


def test_eager_ops_run_on_cupy_and_match_numpy(rng):
    import cupy
    x = rng.standard_normal((5, 7)).astype(F32)
    y = rng.standard_normal((7, 3)).astype(F32)
    a, b = on_gpu(x), on_gpu(y)
    cases = [(jnp.exp(a), np.exp(x)), (a * 2 + 1, x * 2 + 1), (a.sum(0), x.sum(0)),
             (a @ b, x @ y), (jnp.where(a > 0, a, 0.0), np.where(x > 0, x, 0)),
             (a[1:3, ::2], x[1:3, ::2]), (a + x, x + x),     # a host operand is moved over
             (jnp.tanh(a).max(-1), np.tanh(x).max(-1))]
    for got, want in cases:
        assert type(got._value) is cupy.ndarray and got.device == gpu()
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=1e-6)


def softmax(x):
    e = jnp.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def mish(x):
    return x * jnp.tanh(jnp.log1p(jnp.exp(x)))


@pytest.mark.parametrize("name", ["elementwise", "softmax", "layernorm", "layernorm_grad",
                                  "mish_grad", "gather", "dot", "batched_dot", "full_sum",
                                  "int_ops"])
def test_jit_matches_interpreter(name, rng):
    x = rng.standard_normal((64, 300)).astype(F32)
    g, b = rng.standard_normal(300).astype(F32), rng.standard_normal(300).astype(F32)
    w = rng.standard_normal((300, 40)).astype(F32)
    cases = {
        "elementwise": (lambda x: jnp.sin(x) * 3 + jnp.abs(x) ** 1.5, (x,), 1e-5),
        "softmax": (softmax, (x,), 1e-5),
        "layernorm": (layernorm, (x, g, b), 1e-4),
        "layernorm_grad": (tjit.grad(lambda x, g, b: layernorm(x, g, b).sum() ** 2,
                                     argnums=(0, 1, 2)), (x, g, b), 1e-3),
        "mish_grad": (tjit.grad(lambda x: mish(x).sum()), (x,), 1e-5),
        "gather": (lambda x, i: x[i] * 2 + x[:, i[:3]].sum(), (x, np.array([5, 0, 63, 7],
                                                                          np.int32)), 1e-5),
        "dot": (lambda x, w: jnp.tanh(x @ w) * 2 + 1, (x, w), 1e-4),
        "batched_dot": (lambda a, b: jnp.matmul(a, b) * 0.5,
                        (x.reshape(4, 16, 300), x.reshape(4, 300, 16)), 1e-4),
        "full_sum": (lambda x: (x * x).sum() + jnp.log(jnp.abs(x) + 1).mean(),
                     (np.tile(x, (40, 8)),), 1e-4),
        "int_ops": (lambda i: (i * 7 // 3) % 5 - jnp.abs(i), (np.arange(-50, 50,
                                                                           dtype=np.int32),), 0),
    }
    f, args, rtol = cases[name]
    got = tjit.jit(f, backend="cuda")(*args)
    close(got, ref(f, *args), rtol=rtol, atol=rtol)
    got2 = tjit.jit(f)(*[on_gpu(a) for a in args])    # device arguments, default backend
    close(got2, got, rtol=0, atol=0)


def test_control_flow_matches_interpreter(rng):
    x = rng.standard_normal((8, 16)).astype(F32)

    def f(x):
        y = lax.fori_loop(0, 5, lambda i, c: jnp.tanh(c) * 1.5 + i, x)
        z = lax.while_loop(lambda c: c.sum() < 1e4, lambda c: c * 2.0 + 1, jnp.abs(y))
        w = lax.cond(z.sum() > 0, lambda v: v - 1, lambda v: v + 1, z)
        s, ys = lax.scan(lambda c, r: (c + r.sum(), c * r), 0.0, w)
        return w, s, ys
    close(tjit.jit(f)(x), ref(f, x), rtol=1e-5, atol=1e-3)


def test_symbolic_sizes_compile_once(rng):
    traces = []

    def f(x):
        traces.append(1)
        return softmax(x) @ jnp.ones((128, 4), F32)
    jf = tjit.jit(f, polymorphic_shapes=["(b, 128)"])
    for n in (1, 7, 64, 300):
        x = rng.standard_normal((n, 128)).astype(F32)
        e = np.exp(x - x.max(-1, keepdims=True))
        close(jf(x), (e / e.sum(-1, keepdims=True)) @ np.ones((128, 4), F32), rtol=1e-5,
              atol=1e-5)
    assert len(traces) == 1


def test_jit_grad_mlp_step(rng):
    sizes = [(784, 64), (64, 10)]
    params = [(rng.standard_normal(s).astype(F32) * 0.05, np.zeros(s[1], F32)) for s in sizes]
    x = rng.standard_normal((32, 784)).astype(F32)
    y = np.eye(10, dtype=F32)[rng.integers(0, 10, 32)]

    def loss(p, x, y):
        h = x
        for k, (w, b) in enumerate(p):
            h = h @ w + b
            if k < len(p) - 1:
                h = jnp.maximum(h, 0)
        return -(tjit.nn.log_softmax(h) * y).sum(-1).mean()

    def step(p, x, y):
        g = tjit.grad(loss)(p, x, y)
        return tjit.tree_map(lambda a, d: a - 0.1 * d, p, g)
    close(tjit.jit(step)(params, x, y), ref(step, params, x, y), rtol=1e-4, atol=1e-5)


def test_donation_reuses_the_device_buffer(rng):
    x = on_gpu(rng.standard_normal((256, 256)).astype(F32))
    want = np.asarray(x) * 2 + 1
    ptr = x._value.data.ptr
    out = tjit.jit(lambda x: x * 2 + 1, donate_argnums=0)(x)
    assert x.is_deleted() and out._value.data.ptr == ptr
    np.testing.assert_allclose(np.asarray(out), want)


def test_async_call_and_block_until_ready(rng):
    x = on_gpu(rng.standard_normal((2048, 2048)).astype(F32))
    f = tjit.jit(lambda x: jnp.tanh(x @ x) @ x)
    outs = [f(x) for _ in range(3)]          # enqueued; nothing waits here
    assert tjit.block_until_ready(outs) is outs
    want = ref(lambda x: jnp.tanh(x @ x) @ x, x)
    for o in outs:
        np.testing.assert_allclose(np.asarray(o), np.asarray(want), rtol=2e-3, atol=2e-2)


def test_out_of_memory_is_a_memory_error_naming_bytes(rng):
    x = on_gpu(rng.standard_normal(1 << 18).astype(F32))
    f = tjit.jit(lambda x: x[:, None] * x[None, :])
    with pytest.raises(MemoryError) as e:
        f(x)          # a 256 GiB result: no GPU holds it
    assert isinstance(e.value, cuda.CudaOutOfMemoryError) and "bytes" in str(e.value)
    assert not x.is_deleted() and np.isfinite(np.asarray(x)).all()
