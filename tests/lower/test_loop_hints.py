"""Loop metadata reaches LLVM: every ``!llvm.loop`` the renderer writes names a distinct
self-referencing loop ID (LLVM silently ignores any other form: a loop ID whose first
operand is a string changed nothing), and the optimizer acts on the hints: interleave 4
on a transcendental loop multiplies its vector body, and the results keep their bits.
(``unroll.disable``'s effect on code size: test_short_loop_hints.py.)"""

import ctypes
import re

import numpy as np
import pytest

from tjit.lower.llvm import codegen, target
from tjit.xla_like import kernel_ir as K

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)
F32 = np.dtype(np.float32)
N = 4096


def _unary(op, n=N, dt=F32):
    x = K.Load(0, K.Affine(0, (1,)), dt)
    return K.Kernel(f"{op}_{n}", (n,), (K.Arg(dt, "in"), K.Arg(dt, "out")),
                    stores=(K.Store(1, K.Affine(0, (1,)), K.Op(op, (x,), dt)),))


def _row_softmax(rows=64, cols=512, dt=F32):
    x = K.Load(0, K.Affine(0, (cols, 1)), dt)
    e = K.Op("exp", (K.Op("sub", (x, K.Stage(0, dt)), dt),), dt)
    return K.Kernel("softmax", (rows, cols), (K.Arg(dt, "in"), K.Arg(dt, "out")),
                    stages=(K.Reduction(x, "max", dt), K.Reduction(e, "sum", dt)),
                    stores=(K.Store(1, K.Affine(0, (cols, 1)),
                                    K.Op("div", (e, K.Stage(1, dt)), dt)),),
                    reduce_axes=(1,))


def _pool_broadcast():
    # short constant loops around a rolled row: unroll.disable hints (SHORT_LOOP_TRIPS)
    shape, coefs = (4, 16, 2, 16, 2, 32), (0, 0, 2, 0, 1, 0)
    strides = [int(np.prod(shape[a + 1:])) for a in range(len(shape))]
    i32 = np.dtype(np.int32)
    return K.Kernel("bcast", shape, (K.Arg(i32, "in"), K.Arg(i32, "out")),
                    stores=(K.Store(1, K.Affine(0, tuple(strides)),
                                    K.Load(0, K.Affine(0, coefs), i32)),))


def _softmax_rows(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _strip_hints(text):
    return re.sub(r", !llvm\.loop !\d+", "", text)


@pytest.mark.parametrize("kernel", [_unary("tanh"), _unary("lgamma"), _row_softmax(),
                                    _pool_broadcast()], ids=lambda k: k.name)
def test_every_loop_id_is_distinct_and_self_referencing(kernel):
    text = codegen.kernel_to_llvm_ir(kernel, "hints_form", "vector")
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", text, flags=re.MULTILINE))
    ids = re.findall(r"!llvm\.loop (!\d+)", text)
    assert ids, "each of these kernels carries at least one loop hint"
    for loop_id in ids:
        body = nodes[loop_id]
        assert re.fullmatch(rf"distinct !\{{ ?{loop_id}(, !\d+)+ ?\}}", body), body
        for ref in re.findall(r"!\d+", body)[1:]:
            assert re.fullmatch(r'!\{ ?!"llvm\.loop\.[a-z.]+"(, i32 \d+)? ?\}',
                                nodes[ref]), nodes[ref]


def test_interleave_hint_changes_the_vector_loop():
    text = codegen.kernel_to_llvm_ir(_unary("tanh"), "hints_tanh", "vector")
    assert "llvm.loop.interleave.count" in text
    vector_ops = r"= (fmul|fadd|fsub|fdiv)[^\n]*<\d+ x float>"
    hinted = len(re.findall(vector_ops, target.optimized_ir(text)))
    plain = len(re.findall(vector_ops, target.optimized_ir(_strip_hints(text))))
    # interleave 4 keeps four vector bodies in flight (LLVM's own choice here is 1)
    assert hinted >= 2 * plain > 0, (hinted, plain)


@pytest.mark.parametrize("kernel", [_unary("tanh", n=N + 37), _row_softmax(rows=8, cols=300)],
                         ids=lambda k: k.name)
def test_hints_keep_the_bits(kernel):
    # interleaving an elementwise loop must not change a bit; the softmax's exp loop also
    # accumulates its row sum (reassoc): LLVM already interleaves that one, so the hint
    # leaves its summation order, and so the bits, as they are
    text = codegen.kernel_to_llvm_ir(kernel, "hints_bits", "vector")
    assert "!llvm.loop" in text
    n = int(np.prod(kernel.shape))
    x = np.random.default_rng(7).standard_normal(n).astype(F32) * 4
    outs = []
    for i, t in enumerate([text, _strip_hints(text)]):
        name = f"hints_bits_{kernel.name}_{i}"
        fn = _FN(target.compile_ir(t.replace("hints_bits", name), [name])[name])
        out = np.zeros(n, F32)
        ptrs = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
        fn(ptrs, (ctypes.c_int64 * 1)(0), 0, kernel.shape[0])
        outs.append(out)
    want = (np.tanh(x.astype(np.float64)) if kernel.name.startswith("tanh") else
            _softmax_rows(x.astype(np.float64).reshape(kernel.shape)).ravel())
    np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-7)
    assert np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))
