"""The OpenCL dialect's tiled dot (``lower/c/tiled_dot.py``, threaded form) on an
OpenCL device (PoCL in CI).

Dot kernels come from the compiler itself (``compile_program`` for the OpenCL target:
``dot -> reduce(mul)`` kernels with whatever epilogue fusion folded into them), are
rendered as OpenCL C and as plain C, and run on the same random inputs. Each output
sums its products in increasing ``k`` in both, so the OpenCL tiles must match the C
loop nest bit for bit, at every grid (one group looping over all the blocks, three,
many); both are checked against NumPy in float64. Shapes: ones, odd sizes, sizes that
are not multiples of the tile (64 x 64 x 16), short axes (smaller register blocks),
transposed and batched operands, float32 and float64, symbolic sizes.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.c import runners
from tjit.lower.c import render, tiled_dot
from tjit.lower.loops import plan_axes
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import KernelStep
from tjit.xla_like.target import opencl_target

_MISSING = runners.opencl_unavailable() or runners.c_unavailable()
pytestmark = [pytest.mark.opencl, pytest.mark.skipif(_MISSING is not None,
                                                     reason=str(_MISSING))]


def _mm(a, b):
    return a @ b


def _np_relu_bias(a, b, c):
    return np.maximum(a @ b + c, 0)


#: name -> (function, its NumPy float64 reference, argument shapes); each is traced in
#: float32 and float64.
CASES = {
    "odd": (_mm, _mm, [(33, 17), (17, 65)]),
    "tile_multiple": (_mm, _mm, [(64, 32), (32, 64)]),
    "not_tile_multiples": (_mm, _mm, [(70, 40), (40, 130)]),
    "k_two": (_mm, _mm, [(9, 2), (2, 11)]),
    "two_rows": (_mm, _mm, [(2, 50), (50, 3)]),
    "short_n": (_mm, _mm, [(128, 24), (24, 10)]),           # register block 8 x 2
    "lhs_transposed": (lambda a, b: a.T @ b, lambda a, b: a.T @ b, [(19, 37), (19, 23)]),
    "rhs_transposed": (lambda a, b: a @ b.T, lambda a, b: a @ b.T, [(37, 19), (23, 19)]),
    "both_transposed": (lambda a, b: a.T @ b.T, lambda a, b: a.T @ b.T,
                        [(19, 37), (23, 19)]),
    "batched": (lambda a, b: jnp.einsum("bmk,bkn->bmn", a, b), np.matmul,
                [(3, 9, 20), (3, 20, 70)]),
    "batched_broadcast_rhs": (lambda a, b: jnp.einsum("bmk,kn->bmn", a, b), np.matmul,
                              [(2, 5, 7), (7, 6)]),
    "epilogue": (lambda a, b, c: jnp.maximum(a @ b + c, 0.0), _np_relu_bias,
                 [(21, 30), (30, 45), (45,)]),
    "sgd_update": (lambda w, x, g: w - 0.1 * (x.T @ g), lambda w, x, g: w - 0.1 * (x.T @ g),
                   [(40, 24), (16, 40), (16, 24)]),
}


def _dot_step(f, shapes, dtype, polymorphic=None, donated=()):
    """The program and its one kernel step whose kernel the tiling matches."""
    args = [np.zeros(s, dtype) for s in shapes]
    closed = tjit.jit(f, polymorphic_shapes=polymorphic).lower(*args).jaxpr
    prog = compile_program(closed, opencl_target(), donated)
    found = [s for s in prog.steps if isinstance(s, KernelStep) and
             tiled_dot.match(s.kernel, plan_axes(s.kernel), threaded=True) is not None]
    assert len(found) == 1, prog.text()
    return prog, found[0]


def _size(shape, sizes):
    return int(np.prod([d if isinstance(d, int) else int(d.subs(
        {s: sizes[str(s)] for s in d.free_symbols})) for d in shape]))


def _buffers(prog, step, sizes, params):
    """Flat buffers of the step's arguments: parameters from ``params`` (their values),
    other inputs random, outputs NaN (every element must be written)."""
    rng = np.random.default_rng(11)
    bufs = []
    for j, v in enumerate(list(step.ins) + list(step.outs)):
        val = prog.values[v]
        n = _size(val.shape, sizes)
        if j >= len(step.ins):
            bufs.append(np.full(n, np.nan, val.dtype))
        elif v in prog.params:
            bufs.append(np.ascontiguousarray(params[prog.params.index(v)]).reshape(-1))
        else:
            bufs.append(rng.standard_normal(n).astype(val.dtype))
    return bufs


def _run_both(k, inputs, sizes, groups):
    """OpenCL outputs (one run per grid bound) and the C dialect's, same inputs."""
    ocl, c = render(k, "opencl", "k_ocl"), render(k, "c", "k_c")
    assert "__local" in ocl.text, "the tiled form was not rendered"
    want = [b.copy() for b in inputs]
    runners.CRunner([c])(c, want, sizes)
    runner = runners.OpenCLRunner([ocl])
    got = []
    for g in groups:
        runner.max_groups = g
        bufs = [b.copy() for b in inputs]
        runner(ocl, bufs, sizes)
        got.append(bufs)
    return got, want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_tiles_match_the_c_loop_bit_for_bit(case, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    f, np_f, shapes = CASES[case]
    prog, step = _dot_step(f, shapes, dtype)
    assert all(np.dtype(a.dtype) == dtype for a in step.kernel.args)
    rng = np.random.default_rng(len(case))
    params = [rng.standard_normal(s).astype(dtype) for s in shapes]
    inputs = _buffers(prog, step, {}, params)
    got, want = _run_both(step.kernel, inputs, {}, groups=(1, 3, 256))
    n_in = len(step.ins)
    for bufs in got:
        for j in range(n_in, len(bufs)):
            np.testing.assert_array_equal(bufs[j], want[j], err_msg=f"{case} argument {j}")
    if list(step.outs) == list(prog.outputs) and all(v in prog.params for v in step.ins):
        ref = np_f(*[p.astype(np.float64) for p in params])
        tol = 2e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(want[n_in].reshape(ref.shape), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [1, 5, 77])
def test_symbolic_rows(n):
    """One kernel for every batch size of a polymorphic jit: the tile counts and
    bounds are run-time values."""
    prog, step = _dot_step(lambda x, w: jnp.maximum(x @ w, 0.0), [(8, 40), (40, 24)],
                           "float32", polymorphic=["(n, 40)", None])
    assert step.kernel.size_symbols
    sizes = {str(s): n for s in step.kernel.size_symbols}
    rng = np.random.default_rng(n)
    params = [rng.standard_normal(s).astype(np.float32) for s in [(n, 40), (40, 24)]]
    got, want = _run_both(step.kernel, _buffers(prog, step, sizes, params), sizes, (2, 256))
    out = len(step.ins)
    for bufs in got:
        np.testing.assert_array_equal(bufs[out], want[out])
    ref = np.maximum(params[0].astype(np.float64) @ params[1], 0)
    np.testing.assert_allclose(want[out].reshape(n, 24), ref, rtol=2e-5, atol=2e-5)


def test_in_place_epilogue_reads_the_output_it_writes():
    """A donated weight updated in place: the epilogue reads ``w`` through the output at
    the element it writes (the same work-item); the product never reads it."""
    shapes = [(40, 24), (16, 40), (16, 24)]
    prog, step = _dot_step(lambda w, x, g: w - 0.5 * (x.T @ g), shapes, "float32",
                           donated=(0,))
    k = step.kernel
    assert k.inplace
    rng = np.random.default_rng(5)
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    inputs = _buffers(prog, step, {}, params)
    (w_in, out), = k.inplace
    inputs[out] = inputs[w_in].copy()       # (the runtime's donated buffer holds w)
    want = [b.copy() for b in inputs]
    K.evaluate(k, want)
    ocl = render(k, "opencl", "k_inplace")
    assert "__local" in ocl.text
    got = [b.copy() for b in inputs]
    runners.OpenCLRunner([ocl])(ocl, got, {})
    np.testing.assert_allclose(got[out], want[out], rtol=1e-5, atol=1e-6)
    ref = params[0] - 0.5 * (params[1].T.astype(np.float64) @ params[2])
    np.testing.assert_allclose(got[out].reshape(40, 24), ref, rtol=1e-5, atol=1e-5)


def test_transcendental_epilogue():
    """``tanh(a @ b + c)``: the products bit for bit as above; OpenCL's tanh and the C
    library's may differ in the last bit."""
    shapes = [(21, 30), (30, 45), (45,)]
    prog, step = _dot_step(lambda a, b, c: jnp.tanh(a @ b + c), shapes, "float32")
    rng = np.random.default_rng(2)
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    (got,), want = _run_both(step.kernel, _buffers(prog, step, {}, params), {}, (256,))
    out = len(step.ins)
    np.testing.assert_allclose(got[out], want[out], rtol=5e-7, atol=0)
    ref = np.tanh(params[0].astype(np.float64) @ params[1] + params[2])
    np.testing.assert_allclose(got[out].reshape(ref.shape), ref, rtol=2e-5, atol=2e-6)


def test_dots_outside_the_form_keep_the_row_kernel():
    """Integer dots, a matrix-vector product (one free axis) and the single-work-item
    dialect are not tiled."""
    closed = tjit.jit(lambda a, b, v: (a @ b, a @ v)).lower(
        np.zeros((6, 5), np.int32), np.zeros((5, 7), np.int32), np.zeros(5, np.int32)).jaxpr
    prog = compile_program(closed, opencl_target())
    for k in prog.kernels:
        assert tiled_dot.match(k, plan_axes(k), threaded=True) is None
    closed = tjit.jit(_mm).lower(np.zeros((6, 5), np.float32),
                                 np.zeros((5, 7), np.float32)).jaxpr
    (k,) = compile_program(closed, opencl_target()).kernels
    assert "__local" in render(k, "opencl").text
    assert "__local" not in render(k, "opencl_swi").text
