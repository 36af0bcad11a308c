"""The inverse trigonometric and (inverse) hyperbolic functions as fused kernel ops.

Through the public API (``jax.jit`` of ``jnp.arcsin``, ``jnp.sinh``...): each is one
kernel, no library step, and its values match NumPy in extended precision within
mathlib's bounds (tests/lower/test_mathlib.py's table: the LLVM functions alone, swept
much wider) on random points over wide ranges and on the edge values of each domain
(+-0, +-1, +-inf, NaN, denormals, huge, 1 -+ 2^-k). The C renderer's spelling of each
op is checked in tests/lower/c (its corpus covers every kernel-IR op).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.test_mathlib import BOUNDS, LD, ulp_error
from tests.primitives.edge_cases import ULPS
from tjit.xla_like import kernel_ir as K

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)

#: jnp name -> (kernel-IR op, NumPy reference, random range)
OPS = {"arctan": ("atan", np.arctan, 1e4), "arcsin": ("asin", np.arcsin, 1.0),
       "arccos": ("acos", np.arccos, 1.0), "sinh": ("sinh", np.sinh, 100.0),
       "cosh": ("cosh", np.cosh, 100.0), "arcsinh": ("asinh", np.arcsinh, 1e6),
       "arccosh": ("acosh", np.arccosh, 1e6), "arctanh": ("atanh", np.arctanh, 1.0)}


@pytest.fixture(autouse=True)
def x64():
    with tjit.enable_x64(True):
        yield


def _inputs(dt, span):
    rng = np.random.default_rng(7)
    fi = np.finfo(dt)
    mag = 2.0 ** rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)),
                             4000)
    near1 = 2.0 ** -rng.uniform(1, fi.nmant + 1, 2000)
    edges = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 2.0,
             float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.tiny),
             float(fi.max), -float(fi.max), float(fi.eps), 1 - float(fi.epsneg),
             1 + float(fi.eps), 88.72, 89.5, 709.7, 710.6, 2.0 ** 28, 2.0 ** 29]
    with np.errstate(over="ignore"):
        return np.concatenate([rng.uniform(-span, span, 4000), mag, -mag, 1 - near1,
                               near1 - 1, 1 + near1, edges]).astype(dt)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_jit_is_one_kernel_within_bound(name, dt):
    op, ref_fn, span = OPS[name]
    x = _inputs(dt, span)
    f = tjit.jit(getattr(jnp, name))
    compiled = f.lower(x).compile()
    assert [k for k, _ in compiled.fusion_summary()] == ["kernel"]
    assert {n.op for k in compiled.kernels() for n in K.all_nodes(k)
            if isinstance(n, K.Op)} == {op}
    got = np.asarray(f(x))
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(LD if dt == F64 else np.float64))
        eager = np.asarray(getattr(jnp, name)(x))
    err = ulp_error(got, ref, dt)
    i = int(np.argmax(err))
    assert err[i] <= BOUNDS[op][dt == F64], (name, dt.name, x[i], got[i], ref[i], err[i])
    # jit == eager within the primitives' table (NumPy's float32 arcsin/arccos/cosh are
    # themselves up to 2.5 ulp off)
    assert ulp_error(got, eager.astype(LD), dt).max() <= ULPS[op]
    # IEEE specials bit for bit: NaN where NumPy gives NaN, the sign of zero, infinities
    same_nan = np.isnan(got) == np.isnan(eager)
    exact = (eager == 0) | np.isinf(eager)
    assert same_nan.all() and (got[exact] == eager[exact]).all()
    assert (np.signbit(got[exact]) == np.signbit(eager[exact])).all()


def test_atan2_and_sinh_fuse_into_one_kernel():
    def f(x):
        return jnp.arctan2(x, 1 + x * x) * 2 + jnp.sinh(x)

    x = np.linspace(-5, 5, 1001, dtype=np.float32)
    c = tjit.jit(f).lower(x).compile()
    assert [k for k, _ in c.fusion_summary()] == ["kernel"]
    assert len(c.kernels()) == 1
    got = np.asarray(tjit.jit(f)(x))
    x64 = x.astype(np.float64)
    want = np.arctan2(x64, 1 + x64 * x64) * 2 + np.sinh(x64)
    np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-6)


@pytest.mark.parametrize("name", ["arcsin", "sinh", "arctanh"])
def test_grad_under_jit_fuses(name):
    """The derivatives (1/sqrt(1 - x^2), cosh, 1/(1 - x^2)) run fused as well."""
    x = np.linspace(-0.9, 0.9, 257)
    g = tjit.jit(tjit.vmap(tjit.grad(getattr(jnp, name))))
    assert all(k == "kernel" for k, _ in g.lower(x).compile().fusion_summary())
    h = 1e-6
    ref_fn = OPS[name][1]
    fd = (ref_fn(x + h) - ref_fn(x - h)) / (2 * h)
    np.testing.assert_allclose(np.asarray(g(x)), fd, rtol=1e-8)


def _all_eight(m, x):
    return (m.arcsin(x) + m.arccos(x) * m.arctan(x) + m.sinh(x) - m.cosh(x)
            + m.arcsinh(x) * m.arctanh(x) + m.arccosh(2 + x))


@pytest.mark.parametrize("backend", ["hls", "opencl"])
def test_c_family_backends_run_them_fused(backend):
    """The C renderer's spellings (hls::asin, OpenCL's asinh...) compile and run: C
    simulation for HLS, PoCL for OpenCL (skipped where either is missing)."""
    from tjit.devices import hls_compile
    if backend == "hls" and hls_compile.unavailable_reason() is not None:
        pytest.skip(str(hls_compile.unavailable_reason()))
    x = np.linspace(-0.95, 0.95, 301)
    want = _all_eight(np, x)
    for dt, tol in ((np.float32, 4e-6), (np.float64, 1e-14)):
        xd = x.astype(dt)
        f = tjit.jit(lambda v: _all_eight(jnp, v), backend=backend)
        assert [k for k, _ in f.lower(xd).compile().fusion_summary()] == ["kernel"]
        np.testing.assert_allclose(np.asarray(f(xd)), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_small_kernels_call_the_linked_functions_with_the_same_bits(dt):
    """<= 1024 points: the "scalar" profile calls mathlink's compiled functions instead
    of inlining them (lower/llvm/profile.py); the bits must not change."""
    x = _inputs(dt, 3.0)
    for name in sorted(OPS):
        big = np.asarray(tjit.jit(getattr(jnp, name))(x))
        for part in np.array_split(np.arange(x.size), x.size // 1000 + 1):
            small = np.asarray(tjit.jit(getattr(jnp, name))(x[part]))
            np.testing.assert_array_equal(small.view(f"u{dt.itemsize}"),
                                          big[part].view(f"u{dt.itemsize}"), err_msg=name)
