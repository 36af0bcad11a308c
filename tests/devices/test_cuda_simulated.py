"""The CUDA runtime's plumbing on a simulated device (``fake_cupy``: CuPy's API over
NumPy, each kernel run by ``kernel_ir.evaluate``), against the reference interpreter:
runs here without a GPU. The CUDA C itself and cuBLAS are checked in ``test_cuda.py``.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
from tjit import lax
from tjit.devices import backend

F32 = np.float32


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch) as fake:
        yield fake


def ref(f, *args):
    return tjit.jit(f, backend="interpreter")(*tjit.tree_map(np.asarray, args))


def check(got, want, tol=1e-5):
    for g, w in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        assert type(g._value) is FakeDeviceArray and g.device == backend.Device("gpu", 0)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def softmax(x):
    e = jnp.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_default_backend_is_gpu_and_device_put(gpu, rng):
    assert tjit.default_backend() == "gpu" and tjit.devices() == [backend.Device("gpu", 0)]
    x = rng.standard_normal((3, 4)).astype(F32)
    a = tjit.device_put(x)
    assert type(a._value) is FakeDeviceArray and a.device.platform == "gpu"
    np.testing.assert_array_equal(np.asarray(a), x)
    assert "Array(" in repr(a) and a.block_until_ready() is a
    check(jnp.exp(a) + x, np.exp(x) + x)       # eager on the device, host operand moved


@pytest.mark.parametrize("name", ["softmax", "mlp_grad", "gather_sort", "loops", "folded"])
def test_programs_match_interpreter(gpu, name, rng):
    x = rng.standard_normal((8, 32)).astype(F32)
    w = rng.standard_normal((32, 5)).astype(F32)

    def mlp(w, x):
        return jnp.sum(tjit.nn.softmax(jnp.tanh(x @ w), axis=-1) ** 2)

    def loops(x):
        y = lax.fori_loop(0, 3, lambda i, c: c * 1.5 + i, x)
        z = lax.while_loop(lambda c: c.sum() < 1e4, lambda c: c * 2.0 + 1, jnp.abs(y))
        s, ys = lax.scan(lambda c, r: (c + r.sum(), c * r), 0.0, z)
        return lax.cond(s > 0, lambda v: v - 1, lambda v: v + 1, z), s, ys

    cases = {"softmax": (softmax, (x,)), "mlp_grad": (tjit.grad(mlp), (w, x)),
             "gather_sort": (lambda x, i: jnp.sort(x[i], axis=-1) * 2,
                             (x, np.array([3, 0, 7], np.int32))),
             "loops": (loops, (x,)),
             "folded": (lambda x, w, b: 2.0 * (x @ w) + b, (x, w, np.ones((8, 5), F32)))}
    f, args = cases[name]
    check(tjit.jit(f)(*args), ref(f, *args))


def test_polymorphic_one_trace_many_sizes(gpu, rng):
    traces = []

    def f(x):
        traces.append(1)
        return softmax(x)
    jf = tjit.jit(f, polymorphic_shapes=["(b, 16)"])
    for n in (1, 5, 9):
        x = rng.standard_normal((n, 16)).astype(F32)
        check(jf(x), ref(softmax, x))
    assert len(traces) == 1


def test_donation_writes_into_the_donated_buffer(gpu, rng):
    x = tjit.device_put(rng.standard_normal((16, 16)).astype(F32))
    want = np.asarray(x) * 2 + 1
    ptr = x._value.ctypes.data
    out = tjit.jit(lambda x: x * 2 + 1, donate_argnums=0)(x)
    assert x.is_deleted() and out._value.ctypes.data == ptr
    np.testing.assert_allclose(np.asarray(out), want)


def test_gpu_names_and_platforms(gpu, monkeypatch):
    monkeypatch.setenv("TJIT_PLATFORMS", "gpu,cpu")
    assert tjit.default_backend() == "gpu"
    monkeypatch.setenv("TJIT_PLATFORMS", "cpu")
    assert tjit.default_backend() == "cpu"
    x = np.arange(3, dtype=F32)
    check(tjit.jit(lambda x: x + 1, backend="gpu")(x), x + 1)
    check(tjit.jit(lambda x: x + 1, device=tjit.devices("gpu")[0])(x), x + 1)


def test_operands_on_two_gpus_are_refused(gpu):
    a = tjit.device_put(np.ones(3, F32))
    other = gpu.asarray(np.ones(3, F32)).copy()
    other.device_id = 1
    b = tjit.tracing.core.Array(other)
    with pytest.raises(ValueError, match="two devices .*device_put"):
        a + b


def test_out_of_memory_names_bytes_and_keeps_arguments(gpu):
    x = tjit.device_put(np.ones(1 << 16, F32))
    with pytest.raises(MemoryError) as e:
        tjit.jit(lambda x: x[:, None] * x[None, :])(x)    # 16 GiB > the fake's 1 GiB
    assert "17,179,869,184 bytes" in str(e.value) and e.value.nbytes == 1 << 34
    assert not x.is_deleted() and np.asarray(x).sum() == 1 << 16


def test_gpu_arrays_given_to_a_host_program_are_copied_over(gpu, monkeypatch):
    from tjit.devices.executable import InterpreterExecutable
    seen = []
    call = InterpreterExecutable.call
    monkeypatch.setattr(InterpreterExecutable, "call", lambda self, args, donated=():
                        seen.extend(type(a) for a in args) or call(self, args, donated))
    a = tjit.device_put(np.arange(4, dtype=F32))
    for name in ("interpreter", "cpu"):
        out = tjit.jit(lambda x: x * 2, backend=name)(a)
        assert type(out._value) is np.ndarray and out.device.platform == "cpu"
        np.testing.assert_array_equal(np.asarray(out), np.arange(4) * 2)
    assert seen == [np.ndarray]     # (CuPy arrays would fail in NumPy code)


@pytest.mark.parametrize("how", ["jit", "compiled"])
def test_host_donation_works_with_device_arrays_registered(gpu, rng, how):
    # (host programs copy GPU arguments over; a copied argument list used to hold a
    # second reference to every host buffer, so donation silently never happened)
    x0 = rng.standard_normal((16, 16)).astype(F32)
    x = tjit.tracing.core.Array(x0.copy())
    ptr = x._value.ctypes.data
    f = tjit.jit(lambda x: x * 2 + 1, donate_argnums=0, backend="cpu")
    if how == "compiled":
        f = f.lower(x).compile()
    out = f(x)
    assert x.is_deleted() and out._value.ctypes.data == ptr
    np.testing.assert_allclose(np.asarray(out), x0 * 2 + 1, rtol=1e-6)
    a = tjit.device_put(x0)        # a GPU argument of a host program is still copied over
    np.testing.assert_allclose(np.asarray(f(a)), x0 * 2 + 1, rtol=1e-6)


def test_dots_run_as_cublas_gemm_with_folded_epilogues(gpu, rng, x64):
    x = rng.standard_normal((8, 32)).astype(F32)
    w = rng.standard_normal((32, 5)).astype(F32)
    b = rng.standard_normal((8, 5)).astype(F32)
    cases = [(lambda x, w, b: 2.0 * (x @ w) + b, (x, w, b)),          # alpha and beta
             (lambda x, w, b: x.T @ (x @ w) - 0.5 * w, (x, w, b)),    # transposed operand
             (lambda x, w, b: (x @ w).astype(jnp.float64) @ b.T.astype(jnp.float64),
              (x, w, b))]   # (float64, a transposed right operand)
    for (f, args), gemms in zip(cases, [1, 2, 2]):
        before = gpu.gemms
        got = tjit.jit(f)(*args)
        check(got, ref(f, *args))
        assert gpu.gemms - before == gemms
    # batched dots: one strided-batched gemm
    xb = rng.standard_normal((3, 4, 6)).astype(F32)
    before = gpu.gemms
    f = lambda a: jnp.einsum("bij,bkj->bik", a, a)
    check(tjit.jit(f)(xb), ref(f, xb))
    assert gpu.gemms == before + 1 and gpu.cublas_lib.calls[-1][0] == "sgemmStridedBatched"


def test_sgd_update_gemm_writes_into_the_donated_weights(gpu, rng):
    x = tjit.device_put(rng.standard_normal((16, 32)).astype(F32))
    g = tjit.device_put(rng.standard_normal((16, 8)).astype(F32))
    w = tjit.device_put(rng.standard_normal((32, 8)).astype(F32))
    want = np.asarray(w) - 0.1 * (np.asarray(x).T.astype(np.float64) @ np.asarray(g))
    ptr, before = w._value.ctypes.data, gpu.gemms
    out = tjit.jit(lambda w, x, g: w - 0.1 * (x.T @ g), donate_argnums=0)(w, x, g)
    assert gpu.gemms == before + 1 and w.is_deleted() and out._value.ctypes.data == ptr
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
