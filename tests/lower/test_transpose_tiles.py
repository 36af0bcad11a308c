"""Transposing elementwise kernels walked in blocks (``codegen._transpose_tile``): which
kernels are blocked, and that the bits do not change: whole calls and thread-split row
ranges against NumPy, and compiled programs against the reference interpreter."""

import ctypes

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.lower.llvm import codegen, target
from tjit.xla_like import kernel_ir as K

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)
F32 = np.dtype(np.float32)


def _transpose_add(m, n):
    """out[i, j] = a[j, i] * 2 + b[i, j] (a is (n, m))."""
    a = K.Load(0, K.Affine(0, (1, m)), F32)
    b = K.Load(1, K.Affine(0, (n, 1)), F32)
    expr = K.Op("add", (K.Op("mul", (a, K.Const(2.0, F32)), F32), b), F32)
    args = (K.Arg(F32, "in"), K.Arg(F32, "in"), K.Arg(F32, "out"))
    return K.Kernel(f"transpose_add_{m}x{n}", (m, n), args,
                    stores=(K.Store(2, K.Affine(0, (n, 1)), expr),))


def test_only_transposing_kernels_are_blocked():
    k = _transpose_add(64, 48)
    assert codegen._transpose_tile(k, codegen.plan_axes(k)) == (0, 1)
    small = _transpose_add(64, 8)                 # inner extent below two blocks
    assert codegen._transpose_tile(small, codegen.plan_axes(small)) is None
    a = K.Load(0, K.Affine(0, (48, 1)), F32)      # no transposed read: plain nest
    plain = K.Kernel("plain", (64, 48), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                     stores=(K.Store(1, K.Affine(0, (48, 1)), a),))
    assert codegen._transpose_tile(plain, codegen.plan_axes(plain)) is None


@pytest.mark.parametrize("m,n", [(64, 48), (37, 53), (16, 129)])
def test_blocked_kernel_bits_on_whole_and_split_ranges(m, n):
    k = _transpose_add(m, n)
    name = f"tile_test_{m}x{n}"
    fn = _FN(target.compile_ir(codegen.kernel_to_llvm_ir(k, name), [name])[name])
    rng = np.random.default_rng(m + n)
    a = rng.standard_normal((n, m)).astype(F32)
    b = rng.standard_normal((m, n)).astype(F32)
    want = a.T * np.float32(2) + b
    for ranges in ([(0, m)], [(0, 3), (3, 20), (20, m)]):   # the thread split's ranges
        out = np.full((m, n), np.nan, F32)
        ptrs = (ctypes.c_void_p * 3)(a.ctypes.data, b.ctypes.data, out.ctypes.data)
        for lo, hi in ranges:
            fn(ptrs, (ctypes.c_int64 * 1)(0), lo, hi)
        np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("shape,perm", [((32, 16, 24, 40), (0, 2, 3, 1)),
                                        ((19, 17, 33, 18), (2, 3, 0, 1)),
                                        ((50, 70), (1, 0)),
                                        ((3, 40, 5, 36), (0, 3, 2, 1))])
def test_compiled_transposes_match_the_interpreter(shape, perm):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal([shape[p] for p in perm]).astype(np.float32)
    bias = rng.standard_normal(shape[perm[-1]]).astype(np.float32)

    def f(x, y, bias):   # a relu-gradient-like select fused with the transpose
        xt = jnp.transpose(x, perm)
        return jnp.where(xt > 0, y, 0.0) * 0.5 + bias, jnp.transpose(xt * y, np.argsort(perm))
    got = tjit.jit(f)(x, y, bias)
    kernels = tjit.jit(f).lower(x, y, bias).compile().kernels()
    assert any(codegen._transpose_tile(k, codegen.plan_axes(k)) for k in kernels)
    ref = tjit.jit(f, backend="interpreter")(x, y, bias)
    xt = np.transpose(x, perm)
    want = [np.where(xt > 0, y, np.float32(0)) * np.float32(0.5) + bias,
            np.transpose(xt * y, np.argsort(perm))]
    for g, r, w in zip(got, ref, want):
        np.testing.assert_array_equal(np.asarray(g), w)
        np.testing.assert_array_equal(np.asarray(r), w)
