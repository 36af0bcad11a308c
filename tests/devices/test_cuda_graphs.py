"""Direct cuBLAS calls and CUDA graph replay of the CUDA runner, on the simulated device
(``fake_cupy``: cuBLAS's column-major calls over raw pointers, streams whose capture
records launches, gemms and copies, graphs that replay them against the buffers as
they are then), checked against the reference interpreter.
"""

import itertools
import re

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
from tjit import lax
from tjit.devices import cuda_graphs

F32 = np.float32


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    monkeypatch.delenv("TJIT_CUDA_GRAPHS", raising=False)
    with simulated_gpu(monkeypatch) as fake:
        yield fake


@pytest.fixture
def runners(monkeypatch):
    """The GraphedRunners made during the test."""
    made = []

    class Recorded(cuda_graphs.GraphedRunner):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)
    monkeypatch.setattr(cuda_graphs, "GraphedRunner", Recorded)
    return made


@pytest.fixture
def capture_all(monkeypatch):
    """Capture every capturable program, however small (kernels made to look costly)."""
    monkeypatch.setattr(cuda_graphs, "_KERNEL_US", 1e3)


def ref(f, *args, **kw):
    return tjit.jit(f, backend="interpreter", **kw)(*tjit.tree_map(np.asarray, args))


def check(got, want, tol=1e-5):
    for g, w in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        assert type(g._value) is FakeDeviceArray
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def mlp_params(rng, sizes=(12, 16, 16, 3)):
    return [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(F32),
             (0.1 * rng.standard_normal(n)).astype(F32)) for m, n in itertools.pairwise(sizes)]


def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.mean((h @ w + b - y) ** 2)


def sgd_step(params, x, y):
    value, grads = tjit.value_and_grad(loss)(params, x, y)
    return value, tjit.tree_map(lambda p, g: p - 0.1 * g, params, grads)


# -- direct cuBLAS calls -----------------------------------------------------------------

DOTS = {   # name: (function, operand shapes, expected (op_a, op_b) of the cuBLAS call)
    "a@b": (lambda a, b: a @ b, [(5, 7), (7, 3)], (0, 0)),
    "a.T@b": (lambda a, b: a.T @ b, [(7, 5), (7, 3)], (1, 0)),
    "a@b.T": (lambda a, b: a @ b.T, [(5, 7), (3, 7)], (0, 1)),
    "a.T@b.T": (lambda a, b: a.T @ b.T, [(7, 5), (3, 7)], (1, 1)),
    "row@b": (lambda a, b: a @ b, [(1, 7), (7, 3)], (0, 0)),
    "a@col": (lambda a, b: a @ b, [(5, 7), (7, 1)], (0, 0)),
    "matvec": (lambda a, b: a @ b, [(5, 7), (7,)], None),
    "batched": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b), [(4, 5, 7), (4, 7, 3)], (0, 0)),
    "batched.T": (lambda a, b: jnp.einsum("bji,bkj->bik", a, b), [(4, 7, 5), (4, 3, 7)],
                  (1, 1)),
    "folded": (lambda a, b: 3.0 * (a @ b) - a[:, :3], [(5, 7), (7, 3)], (0, 0)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(DOTS))
def test_dots_are_single_cublas_calls_without_copies(gpu, name, dtype, rng, x64):
    f, shapes, ops = DOTS[name]
    args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    before = len(gpu.cublas_lib.calls)
    got = tjit.jit(f)(*args)
    check(got, ref(f, *args), tol=1e-5 if dtype == np.float32 else 1e-12)
    calls = gpu.cublas_lib.calls[before:]
    assert len(calls) == 1 and calls[0][0].startswith("s" if dtype == np.float32 else "d")
    if ops is not None:     # (cuBLAS's first operand is the product's right one)
        assert calls[0][1:3] == ops[::-1], calls
    with gpu.cuda.Stream() as stream:   # (the direct calls run on the current stream)
        check(tjit.jit(f)(*args), ref(f, *args), tol=1e-5 if dtype == np.float32 else 1e-12)
    assert gpu.cublas_lib.stream_ptr == stream.ptr
    exe_kernels = tjit.jit(f).lower(*args).compile().kernels()
    if name != "folded":    # no transpose copies: the dot is the whole program
        assert exe_kernels == []


# -- kernel launches ---------------------------------------------------------------------

def softmax_grad(x):
    return tjit.grad(lambda x: jnp.sum(tjit.nn.softmax(x, axis=-1) ** 2))(x)


def test_kernel_launch_templates_at_several_sizes(gpu, rng):
    # (argument tuples templated per size binding: temporaries, size scalars)
    f = tjit.jit(softmax_grad, polymorphic_shapes=["(b, 16)"])
    for n in (3, 5, 3):
        x = rng.standard_normal((n, 16)).astype(F32)
        check(f(x), ref(softmax_grad, x))


ONE_KERNEL = {   # name: (function, whether the call skips the value table)
    "x*2+1": (lambda x: x * 2 + 1, True),
    "two outputs, swapped": (lambda x: (jnp.sin(x) * 2, jnp.cos(x) + x), True),
    "with a pass-through": (lambda x: (jnp.tanh(x) * 2, x), False),
}


@pytest.mark.parametrize("name", sorted(ONE_KERNEL))
def test_one_kernel_programs_launch_straight_from_the_arguments(gpu, rng, name):
    f, direct = ONE_KERNEL[name]
    jf = tjit.jit(f)
    x = rng.standard_normal((6, 8)).astype(F32)
    dev = tjit.device_put(x)
    strided = tjit.device_put(rng.standard_normal((6, 16)).astype(F32))._value[:, ::2]
    for arg in (dev, x, strided, dev):     # (device, host, strided device)
        got = jf(arg)
        check(got, ref(f, np.asarray(arg)))
        leaves = tjit.tree_leaves(got)
        if direct:      # fresh outputs, none the argument's buffer
            assert all(o._value is not dev._value for o in leaves)
    (entry,) = jf._cache.values()
    exe = entry.executable
    assert len(exe.program.steps) == 1
    assert (exe._fixed_runner.single is not None) == direct


# -- graphs ------------------------------------------------------------------------------

def test_mlp_step_replays_a_graph_with_fresh_outputs(gpu, runners, rng):
    params = mlp_params(rng)
    step = tjit.jit(sgd_step)
    kept, graphs, copies = [], [], []
    for i in range(4):
        x = rng.standard_normal((8, 12)).astype(F32)
        y = rng.standard_normal((8, 3)).astype(F32)
        before = gpu.graph_launches, gpu.copies, gpu.copy_kernel_launches
        got = step(params, x, y)
        check(got, ref(sgd_step, params, x, y))
        graphs.append(gpu.graph_launches - before[0])
        copies.append((gpu.copies - before[1], gpu.copy_kernel_launches - before[2]))
        kept.append((got, tjit.tree_map(lambda a: np.array(a), got)))
        # each output its own allocation: a kept loss holds no parameter's memory
        assert all(a._value.base is None for a in tjit.tree_leaves(got))
        params = got[1]
    # the first call runs plainly, the second captures and checks a replay, then replays
    assert graphs == [0, 1, 1, 1]
    # a replay: one copy (the table of addresses), the gather and scatter kernels in it
    assert copies[2:] == [(1, 2), (1, 2)], runners[0].copy_kernel_failure
    (r,) = runners
    assert r.failure is None and r.replay is not None and r.plain is None
    assert r.copy_kernel and r.copy_kernel_failure is None
    for got, copy in kept:       # outputs a caller kept are never overwritten
        for g, c in zip(tjit.tree_leaves(got), tjit.tree_leaves(copy)):
            np.testing.assert_array_equal(np.asarray(g), c)


def test_graph_outputs_donated_into_the_argument_buffers(gpu, runners, rng):
    params = tjit.tree_map(tjit.device_put, mlp_params(rng))
    step = tjit.jit(sgd_step, donate_argnums=0)
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    for i in range(4):
        want = ref(sgd_step, params, x, y)
        ptrs = [p._value.__array_interface__["data"][0] for p in tjit.tree_leaves(params)]
        before = gpu.graph_launches
        value, new = step(params, x, y)
        assert all(p.is_deleted() for p in tjit.tree_leaves(params))
        check((value, new), want)
        out_ptrs = [p._value.__array_interface__["data"][0] for p in tjit.tree_leaves(new)]
        assert out_ptrs == ptrs      # (each parameter updated in its own buffer)
        assert gpu.graph_launches - before == (i >= 1)
        params = new
    assert runners[0].failure is None


def test_inplace_update_and_pass_through_under_a_graph(gpu, runners, capture_all, rng):
    # the update kernel reads p through its output buffer (donated or not); x is returned
    f = tjit.jit(lambda p, g, x: (p - 0.1 * g, jnp.sum(g * g), x), donate_argnums=0)
    g = rng.standard_normal(64).astype(F32)
    x = tjit.device_put(np.arange(3, dtype=F32))
    for i in range(3):
        p = tjit.device_put(rng.standard_normal(64).astype(F32))
        want = ref(lambda p, g, x: (p - 0.1 * g, jnp.sum(g * g), x), p, g, x)
        got = f(p, g, x)
        check(got, want)
        assert got[2]._value is x._value
    twice = tjit.jit(lambda g: (jnp.tanh(g) * 2, jnp.tanh(g) * 2, jnp.sum(g)))
    for _ in range(3):
        a, b, _ = twice(g)
        assert a._value is b._value     # (one array, as the plain path returns it)
        check((a, b), ref(lambda g: (jnp.tanh(g) * 2,) * 2, g))
    undonated = tjit.jit(lambda p, g: p - 0.1 * g)
    for i in range(3):
        p = tjit.device_put(rng.standard_normal(64).astype(F32))
        keep = np.asarray(p)
        check(undonated(p, g), ref(lambda p, g: p - 0.1 * g, p, g))
        np.testing.assert_array_equal(np.asarray(p), keep)     # (the argument is intact)
    assert [r.failure for r in runners] == [None] * 3 and gpu.graph_launches >= 6


def test_loop_bodies_replay_graphs(gpu, runners, rng):
    w = (rng.standard_normal((16, 16)) / 4).astype(F32)

    def f(w, x):
        def body(c):
            i, h = c
            return i + 1, jnp.tanh(h @ w) * 1.5 + 0.1
        _, h = lax.while_loop(lambda c: c[0] < 6, body, (0, x))
        s, ys = lax.scan(lambda c, r: (c + jnp.tanh(r @ w).sum(), jnp.sin(r) * c), 0.0, h)
        return h, s, ys
    x = rng.standard_normal((4, 16)).astype(F32)
    before = gpu.graph_launches
    check(tjit.jit(f)(w, x), ref(f, w, x), tol=1e-4)
    assert gpu.graph_launches - before >= 4 + 2     # (trips after the capturing one)
    assert runners and all(r.failure is None for r in runners)


def test_a_failed_capture_falls_back_to_plain_calls(gpu, runners, rng):
    gpu.fail_capture = RuntimeError("cudaErrorStreamCaptureUnsupported")
    params = mlp_params(rng)
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    step = tjit.jit(sgd_step)
    for _ in range(3):
        check(step(params, x, y), ref(sgd_step, params, x, y))
    assert gpu.graph_launches == 0
    assert "cudaErrorStreamCaptureUnsupported" in runners[0].failure


def test_a_graph_disagreeing_with_the_plain_run_is_dropped(gpu, runners, rng, monkeypatch):
    from tests.devices import fake_cupy
    # a broken replay (the graph's last recorded launch lost) must never be returned
    monkeypatch.setattr(fake_cupy.Graph, "__init__",
                        lambda self, fake, work: setattr(self, "fake", fake) or
                        setattr(self, "work", work[:-1]))
    params = mlp_params(rng)
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    step = tjit.jit(sgd_step)
    for _ in range(3):
        check(step(params, x, y), ref(sgd_step, params, x, y))
    assert "disagreed" in runners[0].failure and runners[0].replay is None


def _train(step, params, rng, calls=4, donated=False):
    for _ in range(calls):
        x = rng.standard_normal((8, 12)).astype(F32)
        y = rng.standard_normal((8, 3)).astype(F32)
        want = ref(sgd_step, params, x, y)
        got = step(params, x, y)
        check(got, want)
        params = got[1]


@pytest.mark.parametrize("donate", [False, True])
def test_without_the_copy_kernel_a_graph_copies_with_memcpys(gpu, runners, rng,
                                                              monkeypatch, donate):
    from tjit.devices import cuda_copies

    def unavailable(arch, device_id):
        raise RuntimeError("NVRTC: no copy kernel here")
    monkeypatch.setattr(cuda_copies, "load", unavailable)
    params = tjit.tree_map(tjit.device_put, mlp_params(rng))
    step = tjit.jit(sgd_step, donate_argnums=0 if donate else ())
    _train(step, params, rng)
    (r,) = runners
    assert r.replay is not None and r.failure is None and not r.copy_kernel
    assert "no copy kernel" in r.copy_kernel_failure and gpu.copy_kernel_launches == 0
    before = gpu.copies
    _train(step, tjit.tree_map(tjit.device_put, mlp_params(rng)), rng, calls=1)
    assert gpu.copies - before > 2      # (one per argument and output)


def test_a_wrong_copy_kernel_is_replaced_by_memcpys(gpu, runners, rng, monkeypatch):
    from tjit.devices import cuda_copies

    def skips_last_row(grid, block, args, stream=None):    # (a broken kernel)
        gpu.copy_rows((grid[0], grid[1] - 1), block, args, stream)
    monkeypatch.setattr(cuda_copies, "load", lambda arch, device_id: skips_last_row)
    params = mlp_params(rng)
    _train(tjit.jit(sgd_step), params, rng, calls=5)
    (r,) = runners
    assert r.replay is not None and r.failure is None and not r.copy_kernel
    assert "disagreed" in r.copy_kernel_failure


def test_copy_kernel_compiles_for_compute_90():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    from tjit.devices import cuda_compile, cuda_copies
    try:
        ptx = cuda_compile.compile_source(cuda_copies.SOURCE, "compute_90")
    except (ImportError, OSError) as e:     # (no NVRTC library)
        pytest.skip(f"NVRTC unusable: {e}")
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert f".entry {cuda_copies.ENTRY}(" in text
    assert re.search(r"ld(\.global)?(\.nc)?\.v4\.u32", text)     # (16-byte loads)
    # blocks along x cover the widest row 16 bytes a thread, capped; one row per y
    assert cuda_copies.grid([100, 16 * 256 * 3 + 1, 8]) == (4, 3)
    assert cuda_copies.grid([1 << 40]) == (cuda_copies.MAX_BLOCKS_PER_ROW, 1)
    assert cuda_copies.grid([0, 0]) == (1, 2)


def test_out_of_memory_in_a_replay_keeps_the_arguments_and_the_graph(gpu, runners, rng):
    params = tjit.tree_map(tjit.device_put, mlp_params(rng))
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    step = tjit.jit(sgd_step)
    for _ in range(2):
        step(params, x, y)
    before = [np.asarray(p) for p in tjit.tree_leaves(params)]
    gpu.memory_limit = 64       # (the output block no longer fits)
    with pytest.raises(MemoryError, match="bytes"):
        step(params, x, y)
    for p, b in zip(tjit.tree_leaves(params), before):
        np.testing.assert_array_equal(np.asarray(p), b)
    gpu.memory_limit = 1 << 30
    check(step(params, x, y), ref(sgd_step, params, x, y))
    assert runners[0].replay is not None and runners[0].failure is None


def test_graphs_off_by_environment(gpu, runners, rng, monkeypatch):
    monkeypatch.setenv("TJIT_CUDA_GRAPHS", "0")
    params = mlp_params(rng)
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    step = tjit.jit(sgd_step)
    for _ in range(3):
        check(step(params, x, y), ref(sgd_step, params, x, y))
    assert gpu.graph_launches == 0 and runners == []


def test_one_kernel_programs_and_library_calls_stay_plain(gpu, runners, rng):
    x = rng.standard_normal((5, 6)).astype(F32)
    for f in (lambda x: x * 2 + 1, lambda x: jnp.sort(jnp.tanh(x) @ x.T, axis=-1) * 2):
        jf = tjit.jit(f)
        for _ in range(3):
            check(jf(x), ref(f, x))
    assert runners == [] and gpu.graph_launches == 0


def test_polymorphic_sizes_get_a_graph_each(gpu, runners, rng):
    params = mlp_params(rng)
    step = tjit.jit(sgd_step, polymorphic_shapes=[None, "(b, 12)", "(b, 3)"])
    for n in (3, 8, 3, 8, 3):
        x = rng.standard_normal((n, 12)).astype(F32)
        y = rng.standard_normal((n, 3)).astype(F32)
        check(step(params, x, y), ref(sgd_step, params, x, y))
    assert len(runners) == 2 and all(r.replay is not None for r in runners)


def test_changing_the_current_stream_waits_for_the_previous_one(gpu, runners, rng,
                                                                monkeypatch):
    from tests.devices import fake_cupy
    waits = []
    monkeypatch.setattr(fake_cupy.Stream, "synchronize", lambda self: waits.append(self))
    params = mlp_params(rng)
    x = rng.standard_normal((8, 12)).astype(F32)
    y = rng.standard_normal((8, 3)).astype(F32)
    step = tjit.jit(sgd_step)
    for _ in range(3):
        step(params, x, y)
    assert waits == []
    with gpu.cuda.Stream():
        check(step(params, x, y), ref(sgd_step, params, x, y))
    assert waits == [gpu.null_stream]


# -- the ctypes cuBLAS binding a capture uses -------------------------------------------

def test_raw_cublas_calls_the_cublas_v2_symbols_and_checks_status():
    from tjit.devices import cuda_blas
    called = []

    class Symbol:
        def __init__(self, name):
            self.name, self.status = name, 0

        def __call__(self, *args):
            assert len(args) == len(self.argtypes), (self.name, len(args))
            called.append(self.name)
            return self.status

    class Lib:
        def __getattr__(self, name):
            s = Symbol(name)
            setattr(self, name, s)
            return s
    lib = Lib()
    raw = cuda_blas.RawCublas(lib)
    raw.set_stream(7, 8)
    raw.set_pointer_mode_host(7)
    raw.gemm("f", False)(*range(14))
    raw.gemm("d", True)(*range(18))
    assert called == ["cublasSetStream_v2", "cublasSetPointerMode_v2", "cublasSgemm_v2",
                      "cublasDgemmStridedBatched"]
    lib.cublasDgemm_v2 = Symbol("cublasDgemm_v2")
    lib.cublasDgemm_v2.status = 13
    with pytest.raises(RuntimeError, match="cublasDgemm_v2 failed: cuBLAS status 13"):
        raw.gemm("d", False)(*range(14))


def test_loaded_libraries_are_found_by_file_name():
    from tjit.devices import cuda_blas
    paths = cuda_blas._loaded_libraries("libc")     # (this process has libc loaded)
    assert len(paths) == 1 and paths[0].rsplit("/", 1)[-1].startswith("libc.so")
    assert cuda_blas._loaded_libraries("libno_such_library_here") == []


def test_graphs_where_launches_cost_more_than_the_copies(gpu):
    # the MLP step of bench_gpu (batch 256, 784-1024-1024-10): a host-bound call, worth a
    # graph; layernorm forward+backward of (8192, 1024): 64 MiB copied in and out per
    # call for 11 launches saved, a GPU-bound call: plain
    S = tjit.ShapeDtypeStruct
    sizes = (784, 1024, 1024, 10)
    params = [(S((m, n), F32), S((n,), F32)) for m, n in itertools.pairwise(sizes)]
    mlp = tjit.jit(sgd_step).lower(params, S((256, 784), F32), S((256, 10), F32)).compile()

    def layernorm(x, w, b, g):
        def loss(x, w, b):
            mu = x.mean(-1, keepdims=True)
            xc = x - mu
            return jnp.sum(xc / jnp.sqrt((xc * xc).mean(-1, keepdims=True) + 1e-5) * w + b)
        return tjit.grad(loss, (0, 1, 2))(x, w, b)
    ln = tjit.jit(layernorm).lower(S((8192, 1024), F32), S((1024,), F32), S((1024,), F32),
                                   S((8192, 1024), F32)).compile()
    progs = {"mlp": mlp.executable.program, "layernorm": ln.executable.program}
    assert cuda_graphs.worth_capturing(progs["mlp"], {})
    assert len(progs["layernorm"].steps) > 3
    assert not cuda_graphs.worth_capturing(progs["layernorm"], {})


def test_cupy_cublas_is_the_library_pathfinder_loaded_for_cupy(monkeypatch):
    import ctypes
    import types

    from tjit.devices import cuda_blas
    cuda_pkg = pytest.importorskip("cuda")     # (cuda-pathfinder: installed with CuPy 14)
    libc = ctypes.CDLL(cuda_blas._loaded_libraries("libc")[0])
    asked = []

    def load(name):
        asked.append(name)
        return types.SimpleNamespace(abs_path=None, _handle_uint=libc._handle)
    monkeypatch.setattr(cuda_pkg, "pathfinder",
                        types.SimpleNamespace(load_nvidia_dynamic_lib=load), raising=False)
    lib = cuda_blas._cupy_cublas()
    assert asked == ["cublas"] and lib._handle == libc._handle
    # no pathfinder answer: only an unambiguous libcublas among the loaded libraries
    monkeypatch.setattr(cuda_pkg, "pathfinder", None, raising=False)
    monkeypatch.setattr(cuda_blas, "_loaded_libraries", lambda stem: ["/a/libcublas.so.12",
                                                                      "/b/libcublas.so.13"])
    assert cuda_blas._cupy_cublas() is None
