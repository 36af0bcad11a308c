"""Short constant loops around a loop that stays a loop carry ``llvm.loop.unroll.disable``
(``codegen.SHORT_LOOP_TRIPS``): LLVM then no longer copies the vectorized inner loop
once per trip. Which loops get the hint, that the object code shrinks, and that the
results stay those of NumPy (bit for bit for copies; the reference interpreter for a
pooling program)."""

import ctypes

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.lower.llvm import codegen, target
from tjit.xla_like import kernel_ir as K

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)
I32 = np.dtype(np.int32)


def _broadcast(shape, in_coefs):
    """out (contiguous over ``shape``) = in[sum(in_coefs * index)], int32."""
    strides = [int(np.prod(shape[a + 1:])) for a in range(len(shape))]
    src = K.Load(0, K.Affine(0, tuple(in_coefs)), I32)
    return K.Kernel(f"bcast_{'x'.join(map(str, shape))}", tuple(shape),
                    (K.Arg(I32, "in"), K.Arg(I32, "out")),
                    stores=(K.Store(1, K.Affine(0, tuple(strides)), src),))


# the max-pool gradient's broadcast: (batch, 16, 2, 16, 2, 32) reading (.., 2*i1 + i3, ..)
POOL_BCAST = ((4, 16, 2, 16, 2, 32), (0, 0, 2, 0, 1, 0))


def _hinted_loops(text):
    """How many loops carry the unroll.disable hint (the kept-rolled row counts too)."""
    return text.count("!llvm.loop")


def test_short_loops_around_a_vector_loop_are_hinted():
    k = _broadcast(*POOL_BCAST)
    text = codegen.kernel_to_llvm_ir(k, "short_hint_pool", "vector")
    # the rolled row of 32, and the 2-, 16- and 2-trip loops around it; the thread-split
    # outer loop (batch and the first 16 collapse into it: a runtime range) keeps
    # LLVM's choice
    assert _hinted_loops(text) == 4


def test_loops_around_a_loop_that_folds_away_keep_llvms_choice():
    # inner 16 (one 512-bit vector): the loops around it are unrolled as before
    k = _broadcast((4, 16, 2, 16), (0, 0, 0, 1))
    text = codegen.kernel_to_llvm_ir(k, "short_hint_fold", "vector")
    assert _hinted_loops(text) == 1      # only the rolled row


def test_long_loops_keep_llvms_choice():
    # a 9216-trip loop around a row of 32: too long to unroll fully, partly unrolled
    k = _broadcast((2, 9216, 32), (0, 0, 1))
    text = codegen.kernel_to_llvm_ir(k, "short_hint_long", "vector")
    assert _hinted_loops(text) == 1


def test_hint_shrinks_the_object_code(monkeypatch):
    k = _broadcast(*POOL_BCAST)
    hinted = target.emit_object(codegen.kernel_to_llvm_ir(k, "short_hint_a", "vector"))
    monkeypatch.setattr(codegen, "SHORT_LOOP_TRIPS", 0)     # no short-loop hints
    plain = target.emit_object(codegen.kernel_to_llvm_ir(k, "short_hint_b", "vector"))
    assert len(hinted) * 1.5 < len(plain), (len(hinted), len(plain))


@pytest.mark.parametrize("ranges", [[(0, 4)], [(0, 1), (1, 3), (3, 4)]])
def test_hinted_broadcast_bits_match_numpy(ranges):
    shape, coefs = POOL_BCAST
    k = _broadcast(shape, coefs)
    name = f"short_hint_run_{len(ranges)}"
    fn = _FN(target.compile_ir(codegen.kernel_to_llvm_ir(k, name, "vector"), [name])[name])
    src = np.random.default_rng(3).integers(-2**31, 2**31 - 1, 4, dtype=np.int64)
    src = src.astype(np.int32)
    idx = sum(c * np.arange(n).reshape([-1 if a == b else 1 for b in range(len(shape))])
              for a, (c, n) in enumerate(zip(coefs, shape)))
    want = np.broadcast_to(src[idx], shape).ravel()
    out = np.zeros(want.size, np.int32)
    ptrs = (ctypes.c_void_p * 2)(src.ctypes.data, out.ctypes.data)
    for lo, hi in ranges:   # (the thread split's ranges of the outer axis)
        fn(ptrs, None, lo, hi)
    np.testing.assert_array_equal(out, want)


def test_pooling_gradient_matches_the_interpreter():
    """Sum and max pooling over 2x2 windows and their gradients (the kernels the hint
    changes in a CNN), compiled, against the reference interpreter."""
    x = np.random.default_rng(4).standard_normal((2, 16, 16, 32)).astype(np.float32)
    win = (1, 2, 2, 1)

    def loss(x):
        m = lax.reduce_window(x, -np.inf, lax.max, win, win, "VALID")
        s = lax.reduce_window(m * m, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return (s * s).sum()

    f = tjit.value_and_grad(loss)
    got = tjit.jit(f)(x)
    want = tjit.jit(f, backend="interpreter")(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)
