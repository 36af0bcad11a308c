"""Reductions that the GPU's even splits cannot divide.

A concrete leading axis with no divisor near the aim (a prime count) splits anyway
(``TargetInfo.ragged_parts``, ``simplify._ragged_split``): P partials of R // P rows, the
last R % P rows reduced apart, combined by the monoid's op. A symbolic axis (a
polymorphic jit, or automatic dynamic shapes from a function's second shapes) keeps one
pass in the symbolic program, and the CUDA runtime compiles a large binding for its
sizes (``devices/cuda_specialize.py``). Before, both ran one pass with a thread group
per column tile: a column sum over (2^20, 32) float32 compiled for a second batch size
took 5-6.5 ms on an H100/H200 against 0.05 ms split.

Plans are read from ``compile_program``; values come from the simulated GPU (every kernel
run by ``kernel_ir.evaluate``) against NumPy in float64."""

import numpy as np
import pytest
import sympy

import tjit
import tjit.numpy as jnp
from tjit.devices import cuda, cuda_specialize
from tjit.xla_like import target as T
from tjit.xla_like.compile import compile_program
from tjit.xla_like.fusion import split_runs
from tjit.xla_like.plan import KernelStep

F32 = np.float32


def _program(f, args, shapes=None):
    return compile_program(tjit.make_jaxpr(f, polymorphic_shapes=shapes)(*args), T.CUDA)


def _spaces(prog):
    return [tuple(str(d) for d in s.kernel.shape) for s in prog.steps
            if isinstance(s, KernelStep)]


def _own_programs(f, *args):
    seen = []
    call = cuda.CudaExecutable.call

    def spy(self, flat_args, donated=()):
        seen.append(self)
        return call(self, flat_args, donated)
    cuda.CudaExecutable.call = spy
    try:
        out = f(*args)
    finally:
        cuda.CudaExecutable.call = call
    return out, seen[-1].counts["own_programs"]


def test_ragged_parts_choice():
    b = sympy.Symbol("b", positive=True, integer=True)
    parts = T.cuda_ragged_parts
    assert parts(1000003, 32) == 4096           # prime: no divisor; 2^18 / 32, at most 4096
    assert parts(1000003, 64) == 4096 and parts(400009, 1024) == 256
    assert parts(1000003, 1) == T.CUDA_SPLIT_ROWS    # a full reduction: rows of a block
    assert parts(1 << 20, 32) is None           # splits evenly (split_columns)
    assert parts(1 << 20, 1) is None
    assert parts(1009, 32) is None              # small: one pass
    assert parts(400009, 1 << 17) is None       # the columns alone fill the GPU
    assert parts(b, 32) is None                 # a size symbol: the runtime's choice
    assert T.CPU.ragged_parts is None


def test_prime_rows_plans_are_split():
    prog = _program(lambda x, y: (x * y[:, None]).sum(0),
                    [np.ones((1000003, 32), F32), np.ones(1000003, F32)])
    spaces = _spaces(prog)
    assert ("4096", "244", "32") in spaces, spaces      # 4096 * 244 = 999424 rows
    assert ("579", "32") in spaces, spaces              # the last 1000003 % 4096 rows
    assert ("4096", "32") in spaces, spaces             # the partials' fold
    spaces = _spaces(_program(lambda x: jnp.sum(jnp.exp(x)), [np.ones(1000003, F32)]))
    assert ("1024", "976") in spaces and ("579",) in spaces, spaces


def test_which_bindings_get_their_own_program():
    f = lambda x, y: (x * y[:, None]).sum(0)        # noqa: E731
    prog = _program(f, [np.ones((1001, 32), F32), np.ones(1001, F32)], ["(b, 32)", "(b,)"])
    assert not any(s[0] == "4096" for s in _spaces(prog))    # one pass, symbolic
    (b,) = {d for s in prog.steps if isinstance(s, KernelStep) for d in s.kernel.shape
            if not isinstance(d, int)}
    assert not cuda_specialize.wants_own_program(prog, {b: 8192})    # 2^18 elements
    assert cuda_specialize.wants_own_program(prog, {b: 1 << 15})     # 2^20
    # rows (softmax): a thread group per row however many rows there are
    rows = _program(lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True),
                    [np.ones((8, 1000), F32)], ["(b, 1000)"])
    (b,) = {d for s in rows.steps if isinstance(s, KernelStep) for d in s.kernel.shape
            if not isinstance(d, int)}
    assert not cuda_specialize.wants_own_program(rows, {b: 1 << 20})


def test_large_bindings_of_a_symbolic_column_sum_run_their_own_program(gpu):
    rng = np.random.default_rng(3)
    f = tjit.jit(lambda x, y: (x * y[:, None]).sum(0), polymorphic_shapes=["(b, 32)", "(b,)"])
    for rows, own in ((4095, 0), (1 << 15, 1), (40009, 2), (1 << 15, 2), (12, 2)):
        x = rng.standard_normal((rows, 32)).astype(F32)
        y = rng.standard_normal(rows).astype(F32)
        got, n = _own_programs(f, x, y)
        assert n == own, (rows, n)
        np.testing.assert_allclose(np.asarray(got), (x.astype(np.float64) * y[:, None]).sum(0),
                                   rtol=1e-4, atol=1e-3, err_msg=str(rows))


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod", "any", "all"])
def test_column_reductions_over_symbolic_rows_match_numpy(gpu, op):
    rng = np.random.default_rng(0)
    red = getattr(jnp, op)
    f = tjit.jit(lambda x: red(x * 1.5 if op not in ("any", "all") else x > 0.5, axis=0),
                 polymorphic_shapes=["(b, 32)"])
    # below P (all rows are the "last rows"), P multiples, P*q + r, a prime
    for rows in (3, 4095, 4096, 8192, 4096 * 3 + 17, 20011):
        x = rng.standard_normal((rows, 32))
        if op == "prod":    # (factors x * 1.5 near 1: a finite product of 20011 rows)
            x = (1 + x * 1e-3) / 1.5
        x = x.astype(F32)
        v = x * F32(1.5)       # (float32, as the kernel's product)
        want = getattr(np, op)(v.astype(np.float64) if op not in ("any", "all")
                               else x > 0.5, axis=0)
        got = np.asarray(f(x))
        assert np.isfinite(want).all()
        np.testing.assert_allclose(got, want, rtol=2e-5 if op in ("sum", "prod") else 0,
                                   atol=1e-3 if op == "sum" else 0, err_msg=str(rows))


def test_full_and_column_reductions_of_prime_lengths_match_numpy(gpu):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000003).astype(F32)
    np.testing.assert_allclose(np.asarray(tjit.jit(jnp.sum)(x)), x.astype(np.float64).sum(),
                               rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(tjit.jit(jnp.max)(x)), x.max())
    m = rng.standard_normal((65537, 24)).astype(F32)
    np.testing.assert_allclose(np.asarray(tjit.jit(lambda a: a.sum(0))(m)),
                               m.astype(np.float64).sum(0), rtol=1e-4, atol=1e-3)


def test_a_second_batch_size_keeps_the_split(gpu):
    """Automatic dynamic shapes: the second size makes the rows symbolic, and the large
    third binding (1.6M elements) runs its own, split, program."""
    rng = np.random.default_rng(2)
    f = tjit.jit(lambda x, y: (x * y[:, None]).sum(0))
    for rows, own in ((8192, 0), (12289, 0), (50000, 1)):
        x = rng.standard_normal((rows, 32)).astype(F32)
        y = rng.standard_normal(rows).astype(F32)
        got, n = _own_programs(f, x, y)
        assert n == own, (rows, n)
        np.testing.assert_allclose(np.asarray(got), (x.astype(np.float64) * y[:, None]).sum(0),
                                   rtol=1e-4, atol=1e-3)


def test_symbolic_split_runs_agree_with_concrete_ones():
    """``split_runs`` on size expressions gives the concrete answer at every size."""
    b, t = sympy.symbols("b t", positive=True, integer=True)
    cases = [((b * t, 4), (b, t, 4)), ((b, 4), (b, 2, 2)), ((b,), (b, 1)),
             ((1, b), (1, b)), ((4 * b, 3), (4, b, 3)), ((b * t,), (t, b)),
             ((b, 4), (4, b)), ((b, t), (b * t,)), ((2 * b,), (b, 3))]
    for src, dst in cases:
        sym = split_runs(src, dst)
        for bv, tv in ((2, 3), (5, 7)):
            sub = {b: bv, t: tv}
            cs = tuple(int(sympy.sympify(d).subs(sub)) for d in src)
            cd = tuple(int(sympy.sympify(d).subs(sub)) for d in dst)
            if sym is not None:     # (a symbolic run holds at every size)
                assert split_runs(cs, cd) == sym, (src, dst, bv, tv)
    assert split_runs((b * t, 4), (b, t, 4)) == [[0, 1], [2]]
    assert split_runs((b, 4), (4, b)) is None and split_runs((2 * b,), (b, 3)) is None
