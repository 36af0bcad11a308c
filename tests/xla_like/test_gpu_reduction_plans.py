"""GPU plans of reductions: column sums of tall arrays split in two passes
(``TargetInfo.split_columns``, ``simplify.split_column_reduce``), kernels addressing a
fused value through a dim-splitting reshape, per-row values recomputed instead of tiny
kernels (the CUDA target's ``hoists_trailing_broadcasts``). Plans are read from
``compile_program``; values come from the simulated GPU (``fake_cupy``: every kernel run
by ``kernel_ir.evaluate``) against NumPy in float64 / the reference interpreter. The
rendered kernels of these forms are in the conformance corpus (``tests/lower/c``)."""

import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import simulated_gpu
from tjit.xla_like import target as T
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import KernelStep

F32, F64 = np.float32, np.float64


def kernels(f, args, target):
    prog = compile_program(tjit.make_jaxpr(f)(*args), target)
    return [s.kernel for s in prog.steps if isinstance(s, KernelStep)]


def ln_loss(x, w, b, g):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    return jnp.sum((xc / jnp.sqrt(var + 1e-5) * w + b) * g)


def test_split_choice():
    split = T.cuda_column_split
    assert split(8192, 1024) == 256                 # 256 x 32 rows: 2^18 threads
    assert split(256, 1024) is None                 # small: one launch
    assert split(100, 1 << 17) is None              # the columns alone fill the GPU
    assert split(16382, 1024) is None               # 2 x 8191: no divisor near the aim
    p = split(16384, 96)
    assert p and 16384 % p == 0 and 16384 // p >= 16
    assert T.CPU.split_columns is None and not T.CPU.inline_split_reshapes
    assert not T.CPU.merge_same_producer


def test_layernorm_grad_plan_on_cuda_and_cpu():
    n, d = 8192, 1024
    args = [np.zeros((n, d), F32), np.zeros(d, F32), np.zeros(d, F32), np.zeros((n, d), F32)]
    f = tjit.value_and_grad(ln_loss, argnums=(0, 1, 2))
    cuda = kernels(f, args, T.CUDA)
    # one row kernel (every row stage and dx), the loss's sum, the column pass over
    # 256 x 32 rows, and one kernel folding both partials (siblings of one producer):
    # no (8192, 1) kernels of per-row values
    assert len(cuda) == 4, [k.shape for k in cuda]
    assert any(k.shape == (256, d) and k.reduce_axes == (0,) and
               sum(a.role == "out" for a in k.args) == 2 for k in cuda)
    assert sum(k.shape == (n, d) and k.reduce_axes == (1,) for k in cuda) == 1
    assert any(k.shape == (256, 32, d) and k.reduce_axes == (1,) for k in cuda)
    assert not any(tuple(k.shape) in ((n,), (n, 1)) and not k.reduce_axes for k in cuda)
    cpu = kernels(f, args, T.CPU)
    assert len(cpu) == 3 and not any(len(k.shape) == 3 for k in cpu)


def test_softmax_keeps_no_temporary_on_cuda():
    (k,) = kernels(lambda x: tjit.nn.softmax(x, axis=-1), [np.zeros((64, 512), F32)], T.CUDA)
    assert sum(a.role == "out" for a in k.args) == 1      # exp is not stored


@pytest.mark.parametrize("dtype", [F32, F64])
def test_split_column_sums_match_numpy(gpu, rng, x64, dtype):
    n, d = 16384, 96          # split: ~1024 partials of 16 rows per column
    x = rng.standard_normal((n, d)).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)

    def f(x, y):
        z = x * y[:, None] - 0.5
        return z.sum(0), jnp.max(z, axis=0), (z * z).sum(0)
    assert any(len(k.shape) == 3 for k in kernels(f, [x, y], T.CUDA))
    got = tjit.jit(f)(x, y)
    z = x.astype(F64) * y[:, None] - 0.5
    tol = 1e-4 if dtype == F32 else 1e-11
    np.testing.assert_allclose(np.asarray(got[0]), z.sum(0), rtol=tol, atol=tol * 30)
    np.testing.assert_array_equal(np.asarray(got[1]), (x * y[:, None] - dtype(0.5)).max(0))
    np.testing.assert_allclose(np.asarray(got[2]), (z * z).sum(0), rtol=tol)


def test_split_column_reductions_propagate_nan_inf_and_integers(gpu, rng):
    n, d = 8192, 160
    x = rng.standard_normal((n, d)).astype(F32)
    x[5, 3] = np.nan
    x[8000, 4] = np.inf
    x[:, 5] = -np.inf
    x[77, 6], x[4000, 6] = np.inf, -np.inf          # inf - inf: NaN in the sum
    k = rng.integers(-1000, 1000, (n, d)).astype(np.int32)

    def f(x, k):
        return x.sum(0), x.max(0), x.min(0), (k * 3).sum(0), (k > 0).sum(0), \
            jnp.any(k == 999, axis=0)
    assert any(len(kn.shape) == 3 for kn in kernels(f, [x, k], T.CUDA))
    got = [np.asarray(v) for v in tjit.jit(f)(x, k)]
    with np.errstate(invalid="ignore"):
        want = [x.astype(F64).sum(0), x.max(0), x.min(0), (k * 3).sum(0), (k > 0).sum(0),
                np.any(k == 999, axis=0)]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-2)   # NaN where NumPy's
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(g, w)


def test_layernorm_grad_on_the_simulated_gpu(gpu, rng):
    n, d = 2048, 512          # split columns (2^20 elements), warp rows, one row kernel
    x = (rng.standard_normal((n, d)) * 2 + 0.5).astype(F32)
    w, b = (1 + 0.1 * rng.standard_normal(d)).astype(F32), rng.standard_normal(d).astype(F32)
    g = rng.standard_normal((n, d)).astype(F32)
    f = tjit.value_and_grad(ln_loss, argnums=(0, 1, 2))
    assert any(len(k.shape) == 3 for k in kernels(f, [x, w, b, g], T.CUDA))
    got = tjit.jit(f)(x, w, b, g)
    want = tjit.jit(f, backend="interpreter")(x, w, b, g)
    for a, e in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=2e-4, atol=2e-3)


def test_split_reshape_of_a_fused_value_is_addressed_affinely(gpu, rng):
    """A reshape that splits a dim, of an unmaterialized value, on CUDA: one kernel."""
    x = rng.standard_normal((6, 20)).astype(F32)
    f = lambda x: jnp.exp(x * 2).reshape(3, 2, 4, 5).sum(axis=(1, 3))
    ks = kernels(f, [x], T.CUDA)
    assert len(ks) == 1
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)),
                               np.exp(x.astype(F64) * 2).reshape(3, 2, 4, 5).sum((1, 3)),
                               rtol=1e-5)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
