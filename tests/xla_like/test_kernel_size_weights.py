"""Fusion's kernel-size bound counts what a kernel computes: index-map ops (broadcast,
transpose, rev, slice, reshape) become load addresses and count nothing, and a value
cut out of a kernel leaves the member sets of every value that inlined it (a stale set
counted it again and split its readers into tiny kernels). References: NumPy float64."""

import numpy as np

import tjit
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.compile import compile_program
from tjit.xla_like.fusion import MAX_KERNEL_NODES


def _affine_chain(n):
    """``n`` steps of ``x * c + d`` with distinct scalar constants (each broadcast)."""
    def f(x):
        for i in range(n):
            x = x * (1.0 + (i + 1) / 1000) + (i + 1) / 100
        return x
    return f


def _reference(x, n):
    x = x.astype(np.float64)
    for i in range(n):
        x = x * (1.0 + (i + 1) / 1000) + (i + 1) / 100
    return x


def _ops(kernel):
    return sum(isinstance(v, K.Op) for v in K.all_nodes(kernel))


def test_broadcasts_of_constants_do_not_count_towards_the_bound():
    n = 60      # 120 arithmetic ops (under the bound) and 120 broadcasts
    x = np.linspace(-1, 1, 257).astype(np.float32)
    prog = compile_program(tjit.make_jaxpr(_affine_chain(n))(x))
    assert [_ops(k) for k in prog.kernels] == [2 * n]
    got = np.asarray(tjit.jit(_affine_chain(n))(x), np.float64)
    np.testing.assert_allclose(got, _reference(x, n), rtol=1e-5)


def test_long_chain_splits_into_full_kernels():
    n = 200     # 400 ops: split, every kernel but the last near the bound
    x = np.linspace(-1, 1, 100).astype(np.float32)
    prog = compile_program(tjit.make_jaxpr(_affine_chain(n))(x))
    sizes = [_ops(k) for k in prog.kernels]
    assert len(sizes) == -(-2 * n // (MAX_KERNEL_NODES - 2)) or \
        len(sizes) == -(-2 * n // MAX_KERNEL_NODES), sizes
    assert max(sizes) <= MAX_KERNEL_NODES and min(sizes[:-1]) >= MAX_KERNEL_NODES - 4, sizes
    got = np.asarray(tjit.jit(_affine_chain(n))(x), np.float64)
    np.testing.assert_allclose(got, _reference(x, n), rtol=1e-4)
