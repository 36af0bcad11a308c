"""Short contiguous inner loops kept rolled (``codegen._rolled_group``) and loop-body
kernels built with the vector profile (``profile.compile_profile(many_calls=True)``):
the code changes, the bits do not (checked against NumPy float32, which rounds each
product and sum as the kernel does)."""

import ctypes

import numpy as np
import pytest

from tjit.devices import kernel_cache
from tjit.lower.llvm import codegen, profile, target
from tjit.xla_like import kernel_ir as K

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)
F32 = np.dtype(np.float32)


def _outer_update(m, n):
    """out[i, j] = a[i, j] + g[i] * h[j]: an RNN gradient's ``dW += g h^T``."""
    a = K.Load(0, K.Affine(0, (n, 1)), F32)
    g = K.Load(1, K.Affine(0, (1, 0)), F32)
    h = K.Load(2, K.Affine(0, (0, 1)), F32)
    expr = K.Op("add", (a, K.Op("mul", (g, h), F32)), F32)
    args = (K.Arg(F32, "in"), K.Arg(F32, "in"), K.Arg(F32, "in"), K.Arg(F32, "out"))
    return K.Kernel(f"outer_{m}x{n}", (m, n), args,
                    stores=(K.Store(3, K.Affine(0, (n, 1)), expr),))


def _data(m, n):
    rng = np.random.default_rng(m * 100 + n)
    return [rng.standard_normal(m * n).astype(F32), rng.standard_normal(m).astype(F32),
            rng.standard_normal(n).astype(F32)]


def _call(fn, bufs, out, start, end):
    ptrs = (ctypes.c_void_p * 4)(*[b.ctypes.data for b in bufs], out.ctypes.data)
    fn(ptrs, (ctypes.c_int64 * 1)(0), start, end)


@pytest.mark.parametrize("m,n", [(16, 16), (5, 8), (3, 33), (16, 7)])
@pytest.mark.parametrize("prof", ["vector", "scalar"])
def test_outer_update_bits_match_numpy(m, n, prof):
    k = _outer_update(m, n)
    name = f"rolled_test_{prof}_{m}x{n}"
    text = codegen.kernel_to_llvm_ir(k, name, prof)
    rolled = prof == "vector" and n >= codegen.ROLLED_MIN_EXTENT
    assert ("llvm.loop.unroll.disable" in text) == rolled
    fn = _FN(target.compile_ir(text, [name], profile=prof)[name])
    bufs = _data(m, n)
    want = (bufs[0].reshape(m, n) + bufs[1][:, None] * bufs[2][None, :]).ravel()
    out = np.full(m * n, np.nan, F32)
    for lo in range(m):     # (one row a call: the thread split's ranges)
        _call(fn, bufs, out, lo, lo + 1)
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


def test_rolled_inner_loop_vectorizes_without_gathers():
    text = codegen.kernel_to_llvm_ir(_outer_update(16, 16), "rolled_asm", "vector")
    asm = target.assembly(text)
    assert "scatter" not in asm and "gather" not in asm


def test_rolled_group_choice():
    assert codegen._rolled_group(_outer_update(16, 16), codegen.plan_axes(
        _outer_update(16, 16))) == 1
    small = _outer_update(16, 4)     # too short: LLVM's unrolled form is kept
    assert codegen._rolled_group(small, codegen.plan_axes(small)) is None
    # a store strided along the inner axis (a transpose) is not contiguous there
    k = _outer_update(16, 16)
    t = K.Kernel(k.name + "_t", k.shape, k.args,
                 stores=(K.Store(3, K.Affine(0, (1, 16)), k.stores[0].expr),))
    assert codegen._rolled_group(t, codegen.plan_axes(t)) is None


def test_many_calls_takes_the_vector_profile_and_its_own_cache_entry():
    k = _outer_update(8, 16)
    assert profile.compile_profile(k) == "scalar"
    assert profile.compile_profile(k, many_calls=True) == "vector"
    one, many = kernel_cache.compile_kernel(k), kernel_cache.compile_kernel(k, True)
    assert ctypes.cast(one, ctypes.c_void_p).value != ctypes.cast(many, ctypes.c_void_p).value
    bufs = _data(8, 16)
    outs = [np.full(128, np.nan, F32) for _ in range(2)]
    for fn, out in zip((one, many), outs):
        _call(fn, bufs, out, 0, 8)
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))
