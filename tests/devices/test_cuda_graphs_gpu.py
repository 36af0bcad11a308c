"""Direct cuBLAS calls and CUDA graph replay on a real GPU (marked ``cuda``; skipped with
the probe's reason without one): results against the reference interpreter, and that
the graphs are really used (a capture that fails on the GPU falls back silently, so
the test names the reason). The simulated-device tests are ``test_cuda_graphs.py``.
"""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cuda, cuda_graphs
from tjit.tracing import core

REASON = cuda.unavailable_reason()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(REASON is not None,
                                                   reason=f"no usable GPU: {REASON}")]
F32 = np.float32


@pytest.fixture
def rng():      # (here too: the GPU image runs these with --noconftest)
    return np.random.default_rng(0)


@pytest.fixture
def x64():
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    yield
    tjit.config.update("enable_x64", old)


@pytest.fixture
def runners(monkeypatch):
    made = []

    class Recorded(cuda_graphs.GraphedRunner):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)
    monkeypatch.setattr(cuda_graphs, "GraphedRunner", Recorded)
    return made


def ref(f, *args, **kw):
    return tjit.jit(f, backend="interpreter", **kw)(*tjit.tree_map(np.asarray, args))


def close(got, want, rtol=1e-4, atol=1e-5):
    for g, w in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        assert g.device.platform == "gpu"
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.mean((h @ w + b - y) ** 2)


def sgd_step(params, x, y):
    value, grads = tjit.value_and_grad(loss)(params, x, y)
    return value, tjit.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def mlp(rng, sizes=(64, 96, 96, 10), batch=32):
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(F32),
               (0.1 * rng.standard_normal(n)).astype(F32)) for m, n in itertools.pairwise(sizes)]
    x = rng.standard_normal((batch, sizes[0])).astype(F32)
    y = rng.standard_normal((batch, sizes[-1])).astype(F32)
    return params, x, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dots_with_transposed_and_batched_operands(dtype, rng, x64):
    cases = [(lambda a, b: a @ b, [(33, 47), (47, 29)]),
             (lambda a, b: a.T @ b, [(47, 33), (47, 29)]),
             (lambda a, b: a @ b.T, [(33, 47), (29, 47)]),
             (lambda a, b: 2.0 * (a.T @ b.T) - 1.0, [(47, 33), (29, 47)]),
             (lambda a, b: jnp.einsum("bji,bkj->bik", a, b), [(3, 47, 33), (3, 29, 47)])]
    tol = 2e-5 if dtype == np.float32 else 1e-11
    for f, shapes in cases:
        args = [rng.standard_normal(s).astype(dtype) for s in shapes]
        close(tjit.jit(f)(*args), ref(f, *args), rtol=tol, atol=tol)


def test_mlp_step_is_replayed_as_a_graph(rng, runners):
    params, x, y = mlp(rng)
    step = tjit.jit(sgd_step)
    kept = []
    for _ in range(4):
        want = ref(sgd_step, params, x, y)
        got = step(params, x, y)
        close(got, want)
        kept.append((got, [np.asarray(a) for a in tjit.tree_leaves(got)]))
        params = got[1]
    (r,) = runners
    assert r.failure is None and r.replay is not None, r.failure
    # (arguments in and outputs out by cuda_copies' kernel, not the memcpy fallback)
    assert r.copy_kernel, r.copy_kernel_failure
    for got, copy in kept:       # outputs kept across later calls are unchanged
        for g, c in zip(tjit.tree_leaves(got), copy):
            np.testing.assert_array_equal(np.asarray(g), c)


def test_donated_mlp_step_under_a_graph(rng, runners):
    params, x, y = mlp(rng)
    params = tjit.tree_map(tjit.device_put, params)
    step = tjit.jit(sgd_step, donate_argnums=0)
    for _ in range(4):
        want = ref(sgd_step, params, x, y)
        ptrs = [p._value.data.ptr for p in tjit.tree_leaves(params)]
        value, params = step(params, x, y)
        close((value, params), want)
        assert [p._value.data.ptr for p in tjit.tree_leaves(params)] == ptrs
    assert runners[0].failure is None, runners[0].failure
    assert runners[0].copy_kernel, runners[0].copy_kernel_failure


def test_copy_kernel_moves_odd_sizes_and_offsets(rng, runners, monkeypatch):
    # arguments at offsets of 4 and 1 bytes and sizes not a multiple of 16 (the kernel's
    # 4-byte and byte loops), a graph forced for a small program
    monkeypatch.setattr(cuda_graphs, "_KERNEL_US", 1e3)
    f = tjit.jit(lambda a, b, c: (jnp.tanh(a) * 2, jnp.sum(b * b), a[:5] + 1,
                                  c.astype(F32) * 3))
    base = tjit.device_put(rng.standard_normal(1001).astype(F32))
    raw = tjit.device_put(rng.integers(0, 100, 1003).astype(np.int8))
    for _ in range(4):
        a = tjit.device_put(rng.standard_normal(997).astype(F32))
        b = core.Array(base._value[1:998], False)    # (4 bytes past an aligned block)
        c = core.Array(raw._value[1:1002], False)    # (1 byte past it)
        close(f(a, b, c), ref(lambda a, b, c: (jnp.tanh(a) * 2, jnp.sum(b * b), a[:5] + 1,
                                               c.astype(F32) * 3), a, b, c))
    assert runners and runners[0].replay is not None and runners[0].copy_kernel, \
        (runners[0].failure, runners[0].copy_kernel_failure)


def test_one_kernel_call_launches_straight_from_its_arguments(rng):
    f = tjit.jit(lambda x: x * 2 + 1)
    x = tjit.device_put(rng.standard_normal(100).astype(F32))
    for _ in range(3):
        close(f(x), np.asarray(x) * 2 + 1)
    (entry,) = f._cache.values()
    assert entry.executable._fixed_runner.single is not None


def test_loop_bodies_under_graphs(rng, runners):
    w = (rng.standard_normal((64, 64)) / 8).astype(F32)

    def f(w, x):
        def body(c):
            i, h = c
            return i + 1, jnp.tanh(h @ w) * 1.5 + 0.1
        _, h = lax.while_loop(lambda c: c[0] < 20, body, (0, x))
        s, ys = lax.scan(lambda c, r: (c + jnp.tanh(r @ w).sum(), jnp.sin(r) * c), 0.0, h)
        return h, s, ys
    x = rng.standard_normal((16, 64)).astype(F32)
    close(tjit.jit(f)(w, x), ref(f, w, x), rtol=1e-4, atol=1e-4)
    assert runners and [r.failure for r in runners] == [None] * len(runners)


def test_graphs_off_gives_the_same_results(rng, monkeypatch):
    params, x, y = mlp(rng)
    on = [tjit.jit(sgd_step)(params, x, y) for _ in range(3)][-1]
    monkeypatch.setenv("TJIT_CUDA_GRAPHS", "0")     # (a new function: a new executable)
    off = [tjit.jit(lambda *a: sgd_step(*a))(params, x, y) for _ in range(3)][-1]
    close(on, off, rtol=1e-6, atol=1e-6)
