"""The random fused programs of ``tests/xla_like/test_random_programs.py`` (fusion
patterns: elementwise chains, reductions over random axes broadcast back, cumulative
sums, argmax, concatenation, gathers, compiled loop bodies, transposes, strided slices,
reshapes; and ``jit(grad(...))`` of them) through HLS C simulation (dataflow designs,
``backend="hls"``) and single-work-item OpenCL on PoCL (``backend="opencl_swi"``),
against the reference interpreter. A C-simulation build is a g++ run (~1 s) and a PoCL
build ~0.1-1 s a kernel, so the default run draws a few programs; ``-m slow`` draws as
many as the CPU's suite. Deterministic: the "ci" profile is derandomized."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tjit
import tjit.numpy as jnp
from tests.xla_like import test_random_programs as R
from tjit.devices import hls_compile, opencl_context

_HLS = hls_compile.unavailable_reason()
_OCL = opencl_context.unavailable_reason()
BACKENDS = [
    pytest.param("hls", marks=pytest.mark.skipif(_HLS is not None, reason=str(_HLS))),
    pytest.param("opencl_swi", marks=[pytest.mark.opencl, pytest.mark.skipif(
        _OCL is not None, reason=str(_OCL))]),
]


def _forward(backend, program, seed):
    shapes, steps, n_out = program
    args = R._inputs(shapes, seed)
    f = lambda *a: R.run(jnp, a, steps, n_out)
    got = tjit.jit(f, backend=backend)(*args)
    want = tjit.jit(f, backend="interpreter")(*args)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype)
        scale = 1 + float(np.max(np.abs(w[np.isfinite(w)]), initial=0))
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-5 * scale,
                                   err_msg=f"{backend} vs interpreter: {steps}")


def _gradient(backend, program, seed):
    shapes, steps, n_out = program
    args = R._inputs(shapes, seed)
    weights = [np.random.default_rng(seed + 1).standard_normal(np.shape(w)).astype(np.float32)
               for w in R.run(np, args, steps, n_out)]

    def loss(*a):
        return sum(jnp.sum(o * w) for o, w in zip(R.run(jnp, a, steps, n_out), weights))
    g = tjit.grad(loss, argnums=tuple(range(len(args))))
    got = tjit.jit(g, backend=backend)(*args)
    want = tjit.jit(g, backend="interpreter")(*args)
    for k, (a, b) in enumerate(zip(got, want)):
        a, b = np.asarray(a), np.asarray(b)
        scale = 1 + float(np.max(np.abs(b[np.isfinite(b)]), initial=0))
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=5e-5 * scale,
                                   err_msg=f"d/d arg {k}, {backend} vs interpreter: {steps}")


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=3, deadline=None)
@given(R.programs(), st.integers(0, 2**16))
def test_random_program(backend, program, seed):
    _forward(backend, program, seed)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=2, deadline=None)
@given(R.programs(), st.integers(0, 2**16))
def test_random_program_gradient(backend, program, seed):
    _gradient(backend, program, seed)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=120, deadline=None)
@given(R.programs(), st.integers(0, 2**16))
def test_random_program_many(backend, program, seed):
    _forward(backend, program, seed)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None)
@given(R.programs(), st.integers(0, 2**16))
def test_random_program_gradient_many(backend, program, seed):
    _gradient(backend, program, seed)
