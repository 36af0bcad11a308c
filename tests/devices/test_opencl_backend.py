"""The "opencl" backend (``devices/opencl.py``) against the reference interpreter.

Differential checks as for the LLVM backend: the edge-value table of every primitive
(``tests/primitives/test_edge_values.py``, run with ``TJIT_PLATFORMS=opencl``), and a
table of programs (reductions in both loop styles, softmax, layernorm, gathers, one-row
updates, dots of several shapes, control flow) compiled as few jit functions, since
each PoCL build costs ~0.1-1 s per kernel; symbolic sizes at several sizes of one
polymorphic jit; an MLP's jitted training step against the CPU backend. Tests that need
a device skip with the reason when pyopencl or an OpenCL device is missing; the
"unavailable" error is checked everywhere.
"""

import hashlib
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.devices import backend, opencl_context

REASON = opencl_context.unavailable_reason()
#: Tests that run on the device: marked, and skipped with the reason where there is none.
needs_device = pytest.mark.skipif(REASON is not None, reason=f"no usable OpenCL: {REASON}")


def _interp(f, *args, **kw):
    return tjit.jit(f, backend="interpreter", **kw)(*args)


def _close(got, want, rtol=2e-5, atol=2e-5):
    got, want = tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)
    assert len(got) == len(want)
    for n, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (n, g.dtype, g.shape, w.shape)
        if g.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"output {n}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {n}")


# ----------------------------------------------------------------------------------------
# Every primitive on edge values.

#: Every kernel dtype; the default run takes two (PoCL compiles each dtype's ~190
#: kernels in 15-25 s of CPU on a cold cache, ~1 s from the caches), the others are
#: marked slow.
EDGE_DTYPES = ["float32", "int32"] + [
    pytest.param(d, marks=pytest.mark.slow)
    for d in ("bool", "int8", "int64", "uint8", "uint32", "uint64", "float64")]

@pytest.mark.opencl
@needs_device
@pytest.mark.parametrize("dt", EDGE_DTYPES)
@pytest.mark.usefixtures("x64")
def test_edge_values_on_opencl(dt, monkeypatch):
    """Eager (NumPy) against jit on OpenCL for every primitive's edge cases of ``dt``:
    exact results bit for bit, transcendentals within the table's ulps."""
    from tests.primitives import test_edge_values as edge
    monkeypatch.setenv("TJIT_PLATFORMS", "opencl")
    before = opencl_context.STATS["executables"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        edge.check_dtype(np.dtype(dt))
    assert opencl_context.STATS["executables"] > before   # (it ran on OpenCL)


# ----------------------------------------------------------------------------------------
# A table of programs, one jit.

def _layernorm(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g + b


def _table(x, y, w, bt, ct, idx, i8, u):
    return {
        "row_sum": jnp.sum(x, axis=1), "col_sum": jnp.sum(x, axis=0),
        "col_max": jnp.max(x * 2 - 1, axis=0), "row_prod_int": jnp.prod(i8, axis=1),
        "all_sum": jnp.sum(u), "any": jnp.any(x > 1.5), "argmax": jnp.argmax(x, axis=1),
        "softmax": nn.softmax(x, axis=-1), "log_softmax": nn.log_softmax(x, axis=0),
        "layernorm": _layernorm(x, w[0, :x.shape[1]], w[1, :x.shape[1]]),
        "mish": x * jnp.tanh(nn.softplus(x)),
        "gather": x[idx] * 2, "take_cols": jnp.take(x, idx % x.shape[1], axis=1),
        "dyn_slice": lax.dynamic_slice(x, (idx[0], 1), (2, 3)),
        "row_set": x.at[idx[1]].set(y[0, :x.shape[1]]), "row_add": x.at[2].add(1.0),
        "matmul": x @ w, "matmul_t": x @ x.T, "vecmat": x[0] @ w,
        "batched": jnp.einsum("bij,bjk->bik", bt, ct),
        "int_dot": i8.astype(np.int32) @ i8.T.astype(np.int32),
        "dot_epilogue": 0.5 * (x @ w) + y,
        "where": jnp.where(x > 0, x, y[:, :x.shape[1]] * 0.1),
        "cumsum": jnp.cumsum(x, axis=1), "sort": jnp.sort(x, axis=0),
        "iota": jnp.arange(x.shape[0]) * 3 + idx[0],
    }


def _table_args(rng):
    x = rng.standard_normal((6, 5)).astype(np.float32)
    y = rng.standard_normal((6, 7)).astype(np.float32)
    w = rng.standard_normal((5, 7)).astype(np.float32)
    bt = rng.standard_normal((3, 4, 5)).astype(np.float32)
    ct = rng.standard_normal((3, 5, 2)).astype(np.float32)
    idx = np.array([4, 0, 5, 2, 9, -1], np.int32)    # out-of-range indices clamp
    i8 = rng.integers(-100, 100, (6, 5), dtype=np.int8)
    u = rng.standard_normal(1 << 15).astype(np.float32)   # large: split into rows
    return x, y, w, bt, ct, idx, i8, u


@pytest.mark.opencl
@needs_device
def test_program_table():
    args = _table_args(np.random.default_rng(0))
    got = tjit.jit(_table, backend="opencl")(*args)
    want = _interp(_table, *args)
    for name in want:
        _close(got[name], want[name], rtol=1e-4 if name == "all_sum" else 2e-5)


def _loops(x, n):
    c = lax.cond(jnp.sum(x) > 0, lambda v: v * 2, lambda v: v - 1, x)
    s = lax.switch(n % 3, [lambda v: v + 1, lambda v: v * v, lambda v: -v], x)
    i, w = lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.5 + 1), (0, x))
    carry, ys = lax.scan(lambda c, r: (c + jnp.tanh(r), c * r), jnp.zeros(x.shape[1]), x)
    rev = lax.scan(lambda c, r: (c * 2 + r, c), jnp.ones(x.shape[1]), x, reverse=True)
    f = lax.fori_loop(0, 4, lambda k, v: v.at[k].set(v[k] * 3 + k), x)
    nested = lax.fori_loop(0, 3, lambda k, v: lax.cond(k % 2 == 0, lambda u: u + 1,
                                                        lambda u: u @ jnp.eye(5), v), x)
    return c, s, i, w, carry, ys, rev, f, nested


@pytest.mark.opencl
@needs_device
@pytest.mark.parametrize("n", [0, 2])
def test_control_flow(n):
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    fn = tjit.jit(_loops, backend="opencl")
    _close(fn(x, np.int32(n)), _interp(_loops, x, np.int32(n)))


@pytest.mark.opencl
@needs_device
def test_polymorphic_sizes_compile_once():
    def f(x, w):
        h = jnp.tanh(x @ w)
        return nn.softmax(h, axis=-1), jnp.sum(h, axis=0), x[:, ::2].sum(axis=1)
    g = tjit.jit(f, backend="opencl", polymorphic_shapes=["(b, 5)", None])
    rng = np.random.default_rng(2)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    builds = None
    for b in (1, 7, 64):
        x = rng.standard_normal((b, 5)).astype(np.float32)
        _close(g(x, w), _interp(f, x, w))
        if builds is None:
            builds = opencl_context.STATS["builds"] + opencl_context.STATS["disk_hits"]
    assert g._cache_size() == 1
    assert opencl_context.STATS["builds"] + opencl_context.STATS["disk_hits"] == builds


def _loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


def _sgd(p, x, y):
    g = tjit.grad(_loss)(p, x, y)
    return tjit.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), _loss(p, x, y)


@pytest.mark.opencl
@needs_device
def test_mlp_training_matches_cpu():
    rng = np.random.default_rng(3)
    p = {"w1": rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
         "b1": np.zeros(16, np.float32),
         "w2": rng.standard_normal((16, 3)).astype(np.float32) * 0.3,
         "b2": np.zeros(3, np.float32)}
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 3)).astype(np.float32)
    ocl, cpu = tjit.jit(_sgd, backend="opencl"), tjit.jit(_sgd, backend="cpu")
    po, pc = p, p
    for _ in range(4):
        (po, lo), (pc, lc) = ocl(po, x, y), cpu(pc, x, y)
        _close(lo, lc, rtol=1e-5, atol=1e-6)
    _close(po, pc, rtol=1e-5, atol=1e-6)
    assert float(lo) < float(_loss(p, x, y))


# ----------------------------------------------------------------------------------------
# Selection, inspection, caches, errors.

@pytest.mark.opencl
@needs_device
def test_platforms_env_selects_opencl(monkeypatch):
    monkeypatch.setenv("TJIT_PLATFORMS", "opencl")
    assert tjit.default_backend() == "opencl"
    x = np.arange(6, dtype=np.float32)
    exe = tjit.jit(lambda v: jnp.sin(v) * 2).lower(x).compile().executable
    assert exe.backend == "opencl"
    np.testing.assert_allclose(np.asarray(exe.call([x])[0]), np.sin(x) * 2, rtol=1e-6)
    d = tjit.devices("opencl")[0]
    assert d.platform == "opencl"
    np.testing.assert_allclose(tjit.jit(jnp.cos, device=d)(x), np.cos(x), rtol=1e-6)


@pytest.mark.opencl
@needs_device
def test_as_text_marks_host_steps_and_counts_transfers():
    def f(x):
        return jnp.sort(jnp.exp(x), axis=0) + 1.0
    x = np.random.default_rng(4).standard_normal((5, 3)).astype(np.float32)
    c = tjit.jit(f, backend="opencl").lower(x).compile()
    for _ in range(2):
        _close(c(x), _interp(f, x))
    text, counts = c.as_text(), c.executable.transfers()
    assert "host steps" in text and "sort" in text and "transfers so far" in text
    # per call: x up, exp(x) down for the sort, the sorted array up, the result down
    assert counts["to_device"] == 4 and counts["to_host"] == 4
    assert counts["host_steps"] == 2 and counts["launches"] == 4
    assert "__kernel void k_" in c.executable.as_text(source=True)


@pytest.mark.opencl
@needs_device
def test_programs_come_back_from_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    dev = opencl_context.get()
    monkeypatch.setattr(dev, "store_binaries", True)   # (off on PoCL: the next test)
    text = "__kernel void tjit_cache_probe(__global float *a) { a[0] = 42.0f; }\n"
    s = dict(opencl_context.STATS)
    dev.program(text)
    assert opencl_context.STATS["builds"] == s["builds"] + 1
    dev._programs.pop(hashlib.sha256(text.encode()).hexdigest())   # (memory cache)
    prog = dev.program(text)
    assert opencl_context.STATS["disk_hits"] == s["disk_hits"] + 1
    a = dev.empty((1,), np.float32)
    knl = dev.cl.Kernel(prog, "tjit_cache_probe")
    knl(dev.queue, (1,), None, a.buf)
    assert dev.fetch(a)[0] == 42.0
    assert any(tmp_path.iterdir())


@pytest.mark.opencl
@needs_device
def test_pocl_programs_stay_in_pocls_own_cache(tmp_path, monkeypatch):
    """On PoCL a build stores no binary in tjit's disk cache (PoCL's kernel cache keeps
    it; asking for the binary compiles every kernel again), unless PoCL's cache is off."""
    dev = opencl_context.get()
    pocl = "portable computing language" in dev.device.platform.name.lower()
    assert dev.store_binaries is not pocl
    monkeypatch.setenv("POCL_KERNEL_CACHE", "0")
    assert opencl_context._keeps_own_cache(dev.device) is False
    monkeypatch.setenv("POCL_KERNEL_CACHE", "1")
    assert opencl_context._keeps_own_cache(dev.device) is pocl
    if not pocl:
        pytest.skip(f"not PoCL ({dev.device.platform.name}): binaries are stored")
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    text = "__kernel void tjit_pocl_cache_probe(__global float *a) { a[0] = 7.0f; }\n"
    s = dict(opencl_context.STATS)
    prog = dev.program(text)
    assert opencl_context.STATS["builds"] == s["builds"] + 1
    assert not any(tmp_path.iterdir())
    a = dev.empty((1,), np.float32)
    dev.cl.Kernel(prog, "tjit_pocl_cache_probe")(dev.queue, (1,), None, a.buf)
    assert dev.fetch(a)[0] == 7.0


def test_unavailable_opencl_says_how_to_install(monkeypatch):
    """Runs everywhere: without pyopencl (simulated) the backend names what is missing
    and how to install it, and the CPU default keeps working."""
    monkeypatch.setattr(opencl_context, "_DEVICE", None)
    monkeypatch.setattr(opencl_context, "_ERROR", opencl_context.Unavailable(
        "pyopencl is not importable (No module named 'pyopencl'); install it with "
        + opencl_context.INSTALL))
    with pytest.raises(RuntimeError, match=r"opencl.*pyopencl.*tjit\[opencl\].*pocl"):
        tjit.jit(jnp.sin, backend="opencl")(np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match="pyopencl"):
        backend.get_backend("opencl")
    np.testing.assert_allclose(tjit.jit(jnp.sin, backend="cpu")(np.ones(3, np.float32)),
                               np.sin(np.ones(3, np.float32)), rtol=1e-6)

