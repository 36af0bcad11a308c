"""float16 programs compiled for the OpenCL backend (PoCL in CI): their kernels store
binary16 and compute in float, rounding once per op (``lower/c/scalar.py``), so
elementwise results equal the reference interpreter's (NumPy float16) bit for bit;
reductions (float accumulators, another order) agree to float16's precision."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import opencl_context

REASON = opencl_context.unavailable_reason()
pytestmark = [pytest.mark.opencl,
              pytest.mark.skipif(REASON is not None, reason=f"no usable OpenCL: {REASON}")]
F16 = np.float16


def _bits_equal(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    nan = np.isnan(got) & np.isnan(want)
    bad = (got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}")) & ~nan
    assert not bad.any(), f"{what}: {bad.sum()} differ, e.g. {got[bad][:4]} vs {want[bad][:4]}"


def _inputs():
    rng = np.random.default_rng(12)
    x = (rng.standard_normal((32, 200)) * 4).astype(F16)
    y = rng.standard_normal((32, 200)).astype(F16)
    x[0, :8] = [np.inf, -np.inf, np.nan, 6e-8, 65504, -0.0, 1e-5, 300]
    y[0, :8] = [1, 2, 3, 0.5, 2, 1, 1e-3, 300]   # 65504 * 2 and 300 * 300 overflow
    return x, y


def elementwise(x, y):
    z = x * y + x / (y + F16(3)) - jnp.sqrt(jnp.abs(y))
    return (z, jnp.maximum(z, x), jnp.where(z > 0, z, -z).astype(jnp.int16),
            z.astype(jnp.float32) * 2, (x.astype(jnp.float32) / 7).astype(F16))


def test_elementwise_bits_equal_interpreter():
    x, y = _inputs()
    f = tjit.jit(elementwise, backend="opencl")
    got, want = f(x, y), tjit.jit(elementwise, backend="interpreter")(x, y)
    assert "float16" in f.lower(x, y).compile().as_text()   # kernels, not host steps
    for n, (g, w) in enumerate(zip(got, want)):
        _bits_equal(g, w, f"output {n}")


def test_softmax_and_sums_close_to_interpreter():
    def f(x, y):
        z = jnp.tanh(x) * y
        return tjit.nn.softmax(z, axis=-1), jnp.sum(z, axis=1), jnp.max(x, axis=0)
    x, y = _inputs()
    x[0, :3] = 1.0           # finite rows for the softmax
    got = tjit.jit(f, backend="opencl")(x, y)
    want = tjit.jit(f, backend="interpreter")(x, y)
    for n, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype == F16, n
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                   rtol=4e-3, atol=4e-3, err_msg=f"output {n}")
    _bits_equal(got[2], want[2], "max")     # (max is exact in any order)


@pytest.mark.parametrize("shapes", [((33, 70), (70, 17)), ((5, 300), (300, 9)),
                                    ((3, 64, 40), (3, 40, 24))])
def test_dot_is_its_exact_sum_rounded_once(shapes):
    """A float16 dot's value is the exact sum of its (float-exact) products rounded once
    to half, as NumPy's and the CPU's are: the kernel IR multiplies in float32. A product
    rounded to half on its own (OpenCL dots once did) moved a third of the outputs by
    an ulp. Outputs may differ
    from the exact rounding only where float32 accumulation error could cross a half
    rounding boundary."""
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype(F16) for s in shapes)
    f = tjit.jit(jnp.matmul, backend="opencl")
    got = np.asarray(f(a, b)).astype(np.float64)
    assert "__local float" in f.lower(a, b).compile().as_text(source=True)  # (tiled)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = a64 @ b64
    near = exact.astype(F16).astype(np.float64)
    k = a.shape[-1]
    slack = k * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))   # float32 accumulation bound
    boundary = np.abs(np.abs(exact - near) - np.spacing(np.abs(near).astype(F16))
                      .astype(np.float64) / 2) <= slack
    bad = (got != near) & ~boundary
    assert not bad.any(), f"{bad.sum()} of {bad.size} outputs not the exact sum rounded once"
