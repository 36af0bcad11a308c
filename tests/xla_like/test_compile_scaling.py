"""Compiling long programs: an unrolled loop of thousands of equations compiles (no
pass recurses per equation), its fused kernels stay under the size limit, and the
results match the reference interpreter."""

import inspect
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.compile import compile_program
from tjit.xla_like.fusion import MAX_KERNEL_NODES


def ode(n):
    """Explicit Euler steps of dy/dt = -k y + sin(y), unrolled by Python (5 ops a step)."""
    def f(y, k):
        for _ in range(n):
            y = y + 0.01 * (-k * y + jnp.sin(y))
        return y
    return f


def _inputs():
    return np.linspace(-2, 2, 100).astype(np.float32), np.float32(0.5)


def _op_count(kernel):
    return sum(isinstance(n, K.Op) for n in K.all_nodes(kernel))


def test_unrolled_ode_of_1000_steps_compiles_and_matches_the_interpreter():
    y, k = _inputs()
    f = ode(1000)
    got = np.asarray(tjit.jit(f)(y, k))
    want = np.asarray(tjit.jit(f, backend="interpreter")(y, k))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def test_fused_kernels_respect_the_size_limit():
    y, k = _inputs()
    prog = compile_program(tjit.make_jaxpr(ode(300))(y, k))
    sizes = [_op_count(kern) for kern in prog.kernels]
    # 300 steps of ~5 ops: several kernels, each at most the limit, none tiny in the middle
    assert len(sizes) >= 300 * 5 // MAX_KERNEL_NODES
    assert max(sizes) <= MAX_KERNEL_NODES, sizes
    assert sorted(sizes)[1] >= MAX_KERNEL_NODES // 4, sizes


def _chain(x):
    for i in range(800):
        x = jnp.sin(x) * 0.5 + x if i % 2 else x * 1.001 - 0.01
    return jnp.sum(x * x)


@pytest.fixture
def low_recursion_limit():
    """About 200 frames above the caller's depth: far fewer than the program's 2,000+
    equations, so a pass that recursed once per equation (or per kernel node) fails."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 200)
    yield
    sys.setrecursionlimit(old)


def test_every_pass_survives_a_program_deeper_than_the_recursion_limit(low_recursion_limit):
    x = np.linspace(0, 1, 8).astype(np.float32)
    text = str(tjit.make_jaxpr(_chain)(x))                  # tracing and printing
    assert text.count("sin") >= 400
    str(tjit.make_jaxpr(tjit.grad(_chain))(x))              # jvp, partial eval, transpose
    value = tjit.jit(_chain)(x)                             # simplify, fuse, emit, codegen
    grad = tjit.jit(tjit.grad(_chain))(x)
    batched = tjit.jit(tjit.vmap(_chain))(np.stack([x, x[::-1]]))
    ref = tjit.jit(_chain, backend="interpreter")(x)
    ref_grad = tjit.jit(tjit.grad(_chain), backend="interpreter")(x)
    ref_rev = tjit.jit(_chain, backend="interpreter")(x[::-1].copy())
    np.testing.assert_allclose(np.asarray(value), np.asarray(ref), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(ref_grad), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(batched), [np.asarray(ref), np.asarray(ref_rev)],
                               rtol=1e-4)
