"""dot -> reduce(mul(...)) on targets without a gemm (``TargetInfo.dot_kernels``, the
OpenCL target): every dot becomes one fused row-style kernel whose reduce axes are the
contraction, checked through ``kernel_ir.evaluate`` against the reference interpreter;
the CPU target keeps its gemm steps."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.test_runner import EvaluateRunner
from tjit import lax
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import DotStep, KernelStep
from tjit.xla_like.target import CPU, opencl_target

CASES = [
    ("matmul", lambda a, b: a @ b, (5, 7), (7, 3), np.float32),
    ("rhs_transposed", lambda a, b: a @ b.T, (5, 7), (3, 7), np.float32),
    ("lhs_transposed", lambda a, b: lax.dot_general(a, b, (((0,), (1,)), ((), ()))),
     (7, 4), (3, 7), np.float32),
    ("batched", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (2, 5, 7), (2, 7, 3),
     np.float32),
    ("batch_not_leading", lambda a, b: lax.dot_general(a, b, (((2,), (0,)), ((1,), (2,)))),
     (4, 2, 6), (6, 3, 2), np.float32),
    ("two_contractions", lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [0, 1])),
     (3, 4, 5), (4, 5, 2), np.float32),
    ("vector", lambda a, b: jnp.dot(a, b), (9,), (9,), np.float32),
    ("int32_wraps", lambda a, b: a @ b, (4, 6), (6, 2), np.int32),
    ("int8_to_int32", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                                   preferred_element_type=np.int32),
     (3, 40), (40, 2), np.int8),
]


def _args(sa, sb, dt, rng):
    if np.dtype(dt).kind == "f":
        return [rng.standard_normal(s).astype(dt) for s in (sa, sb)]
    info = np.iinfo(dt)
    return [rng.integers(info.min, info.max, s, dtype=dt, endpoint=True) for s in (sa, sb)]


@pytest.mark.parametrize("name,f,sa,sb,dt", CASES, ids=[c[0] for c in CASES])
def test_dot_becomes_one_reduce_kernel(name, f, sa, sb, dt):
    a, b = _args(sa, sb, dt, np.random.default_rng(1))
    closed = tjit.make_jaxpr(f)(a, b)
    prog = compile_program(closed, opencl_target())
    assert [type(s) for s in prog.steps] == [KernelStep]
    (k,) = prog.kernels
    assert k.row_style and k.reduce_axes and k.stages[0].monoid == "sum"
    got = np.asarray(EvaluateRunner(prog).run([a, b])[0])
    want = np.asarray(tjit.jit(f, backend="interpreter")(a, b))
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:   # integer products and sums wrap identically
        np.testing.assert_array_equal(got, want)


def test_cpu_and_bool_dots_stay_gemm_steps():
    a = np.ones((4, 5), np.float32)
    prog = compile_program(tjit.make_jaxpr(lambda a: a @ a.T)(a), CPU)
    assert any(isinstance(s, DotStep) for s in prog.steps)
    m = np.eye(3, dtype=bool)
    prog = compile_program(tjit.make_jaxpr(lambda m: lax.dot(m, m))(m), opencl_target())
    assert any(isinstance(s, DotStep) for s in prog.steps)


def test_without_fp64_float64_dots_stay_out_of_kernels(x64):
    a = np.ones((3, 4), np.float64)
    closed = tjit.make_jaxpr(lambda a: a @ a.T)(a)
    assert not compile_program(closed, opencl_target(fp64=False)).kernels
    assert compile_program(closed, opencl_target(fp64=True)).kernels
