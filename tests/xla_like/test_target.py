"""TargetInfo: the CPU's values are those the passes always used, and each field steers
the pass that reads it (lowering, simplify, fusion, gemm epilogue folding)."""

import dataclasses

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.xla_like import hlo
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import DotStep, KernelStep, LibraryStep
from tjit.xla_like.target import CPU, cpu_row_split


def program(f, *args, target=None):
    return compile_program(tjit.make_jaxpr(f)(*args), target)


def test_cpu_values():
    assert CPU.name == "cpu"
    assert CPU.kernel_dtypes == hlo.KERNEL_DTYPES | hlo.NARROW_KERNEL_DTYPES   # (float8s...)
    assert CPU.gemm_dtypes == {np.dtype(np.float32), np.dtype(np.float64)}
    assert CPU.gemm_alpha_beta and CPU.hoists_trailing_broadcasts
    assert CPU.cost("exp", np.float32) == 3.0 and CPU.cost("exp", np.float64) == 6.0
    assert CPU.cost("div", np.float32) == 1.0 and CPU.cost("take", np.float32) == 1.0
    assert CPU.cost("add", np.float32) == 0.25 and CPU.cost("dot", np.float32) == 0.0
    assert CPU.split_reduce_min == 1 << 15 and CPU.split_reduce is cpu_row_split
    assert cpu_row_split(1 << 20) == (256, 4096) and cpu_row_split(None) is None


def test_kernel_dtypes_route_other_dtypes_to_library_calls():
    x = np.ones(8, np.float32)
    f = lambda x: jnp.exp(x) + 1
    no_f32 = dataclasses.replace(CPU, kernel_dtypes=CPU.kernel_dtypes - {np.dtype("float32")})
    assert all(isinstance(s, KernelStep) for s in program(f, x).steps)
    assert all(isinstance(s, LibraryStep) for s in program(f, x, target=no_f32).steps)


def test_split_reduce_and_gemm_fields():
    x = np.ones(1 << 16, np.float32)
    assert len(program(jnp.sum, x).steps) == 2                  # a row pass, then rows
    never = dataclasses.replace(CPU, split_reduce_min=None)
    assert len(program(jnp.sum, x, target=never).steps) == 1
    a = np.ones((4, 4), np.float32)
    f = lambda a, b: a @ b * 2.0
    steps = program(f, a, a).steps
    assert [type(s) for s in steps] == [DotStep] and steps[0].alpha == 2.0
    no_fold = dataclasses.replace(CPU, gemm_alpha_beta=False)
    assert [type(s) for s in program(f, a, a, target=no_fold).steps] == [DotStep, KernelStep]


def test_broadcast_hoisting_changes_the_remat_decision():
    """exp of a row vector broadcast along the rows' trailing axis: hoisted (LLVM), it is
    recomputed in the consumer; without hoisting it costs once per element and is
    materialized."""
    v = np.ones(64, np.float32)
    m = np.ones((64, 64), np.float32)
    f = lambda v, m: jnp.exp(v)[:, None] * m
    assert len(program(f, v, m).steps) == 1
    flat = dataclasses.replace(CPU, hoists_trailing_broadcasts=False)
    assert len(program(f, v, m, target=flat).steps) == 2


def test_library_steps_record_their_primitive_and_take_the_array_namespace():
    """A library step names the primitive it runs and takes ``xp`` from the runtime."""
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    steps = program(lambda x: jnp.sort(x, axis=1), x).steps
    (lib,) = [s for s in steps if isinstance(s, LibraryStep)]
    assert lib.primitive.name == "sort" and lib.params["dimension"] == 1

    class Recording:      # an array namespace that sees every call the step makes
        used = set()

        def __getattr__(self, name):
            Recording.used.add(name)
            return getattr(np, name)
    out, = lib.fn(Recording(), {}, x[::-1].copy())
    assert Recording.used and np.array_equal(np.asarray(out), np.sort(x[::-1], axis=1))
