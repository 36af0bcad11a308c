"""Random programs through every planner target, with concrete and symbolic sizes.

The programs come from ``benchmarks/diff_plans.py`` (seeded): elementwise chains, an
fma-shaped x*y+z, reductions over the batch dim, a static dim or all dims (mean, max,
min, prod, any, all; kept dims broadcast back against larger values), reshapes that
merge the batch dim with its neighbours and split the size expression b*k again,
transposes, slices, flips, broadcasts, gathers, 'SAME' window reductions, dots (against a
constant, and Gram matrices over the batch dim), cumsums. Each runs on the CPU, the
reference interpreter and the simulated GPU (every kernel by ``kernel_ir.evaluate``)
against the same program text on NumPy in float64, and plans for the CUDA and HLS targets
are checked step by step (no kernel reading its own output or a value not yet written).

Polymorphic programs (``jit(polymorphic_shapes=...)``) run at tiny sizes (2, 3) and an
awkward one (7); a few concrete ones at a prime row count making >= 2^20 elements, where
the GPU target splits reductions raggedly.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from benchmarks.diff_plans import Program, run_target

F32 = np.float32


def _check(prog, targets, sizes):
    failures = []
    for target in targets:
        for b in sizes:
            msg = run_target(prog, target, b)
            if msg:
                failures.append(f"seed={prog.seed} poly={prog.poly} {prog.spec()} b={b}: "
                                f"{' '.join(prog.desc)}: {msg}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("chunk", range(6))
def test_polymorphic_programs_on_every_target(gpu, chunk):
    for seed in range(chunk * 8, chunk * 8 + 8):
        prog = Program(seed, poly=True)
        prog.jitted = {}
        _check(prog, ("plans",), (2,))
        _check(prog, ("cpu", "interp", "gpu"), (2, 3, 7))
    assert gpu.launch_devices      # (the GPU's kernels ran, on the simulated device)


# programs reducing over a prime batch dim of >= 2^20 elements (split raggedly on the
# GPU): a kept-dim max over (b, 6, 5) then a split, a Gram matrix over b then a window
# max, a window over b*3 merged rows then all(), a kept mean broadcast back, a kept prod
# under a where
@pytest.mark.parametrize("seed", [0, 1, 12, 17, 32])
def test_concrete_programs_with_million_element_reductions(gpu, seed):
    prog = Program(seed, poly=False)
    prog.jitted = {}
    _check(prog, ("plans", "gpu", "cpu"), (prog.big_rows(),))
    assert gpu.launch_devices


@pytest.mark.parametrize("seed", [1, 17, 32])
def test_polymorphic_programs_at_tiny_and_million_element_sizes(gpu, seed):
    # one symbolic program, then bindings large enough for their own (split) programs
    prog = Program(seed, poly=True)
    prog.jitted = {}
    _check(prog, ("gpu",), (3, prog.big_rows(), 2))


# -- a size expression divided into a number --------------------------------------------

@pytest.mark.parametrize("expr", [
    lambda n: 1.0 / n, lambda n: 2 / n, lambda n: (n - 1) / n, lambda n: 1.5 / n ** 2,
    lambda n: 3.0 / (n + 1), lambda n: n / 2.5])
def test_number_over_a_symbolic_dim_is_a_true_division(expr):
    # sympy writes c / b as c * b**-1; the power of the integer dim raised TypeError
    # (integer_pow to -1). JAX divides the dim's value: float32, weakly typed.
    f = tjit.jit(lambda x: x * expr(x.shape[0]), polymorphic_shapes=["(b,)"])
    for n in (1, 3, 7, 1000):
        x = np.linspace(-2, 2, n).astype(F32)
        got = np.asarray(f(x))
        assert got.dtype == F32
        np.testing.assert_allclose(got, x.astype(np.float64) * expr(float(n)), rtol=1e-6,
                                   atol=1e-7)


# -- scatters on the simulated GPU ----------------------------------------------------------

def test_scatters_with_repeated_indices_on_the_simulated_gpu(gpu):
    # A take's gradient is a scatter-add, which the CUDA runtime runs as cupy.add.at;
    # the simulated cupy wrapped ufuncs as plain functions (no .at), so every jit(grad)
    # of a gather on the simulated GPU raised AttributeError.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 5)).astype(F32)
    idx = np.array([4, 0, 4, 2, 4, 0], np.int32)
    v = rng.standard_normal((7, 6)).astype(F32)
    g = tjit.jit(tjit.grad(lambda x: (jnp.take(x, idx, axis=1) * v).sum()), backend="cuda")
    want = np.zeros((7, 5))
    np.add.at(want.T, idx, v.astype(np.float64).T)
    np.testing.assert_allclose(np.asarray(g(x)), want, rtol=1e-6, atol=1e-6)
    u = rng.standard_normal(6).astype(F32)
    for op, ufunc in (("add", np.add), ("max", np.maximum), ("min", np.minimum),
                      ("mul", np.multiply)):
        f = tjit.jit(lambda a, u: getattr(a.at[idx], op)(u), backend="cuda")
        a = rng.standard_normal(5).astype(F32)
        want = a.astype(np.float64)
        ufunc.at(want, idx, u.astype(np.float64))
        np.testing.assert_allclose(np.asarray(f(a, u)), want, rtol=1e-6, err_msg=op)


@pytest.mark.parametrize("seed", [12025, 12043, 12050, 7, 22])
def test_gradients_of_random_programs_on_the_simulated_gpu(gpu, seed):
    # jit(grad) against the interpreter's, polymorphic at small sizes
    prog = Program(seed, poly=True)
    prog.jitted = {}
    _check(prog, ("grad_gpu", "grad_cpu"), (2, 5))
