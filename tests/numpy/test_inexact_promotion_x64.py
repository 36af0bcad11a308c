"""Integer and boolean inputs of functions that compute in floating point become float32
when they are 32 bits or narrower and float64 when they are 64-bit, whatever the x64
switch: JAX's ``to_inexact_dtype`` table (jax/_src/dtypes.py). Under x64 NumPy gives
float64 for every integer; tjit follows JAX, whose dtypes it mirrors. Each expectation
below was checked against JAX 0.10.2 with ``jax_enable_x64``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as sp

# dtype -> JAX's to_inexact_dtype
INEXACT = {np.bool_: np.float32, np.uint8: np.float32, np.int16: np.float32,
           np.int32: np.float32, np.uint32: np.float32, np.int64: np.float64}

FUNCTIONS = {
    "mean": jnp.mean, "var": jnp.var, "std": jnp.std, "average": jnp.average,
    "median": jnp.median, "nanmedian": jnp.nanmedian, "nanmean": jnp.nanmean,
    "nanvar": jnp.nanvar, "quantile": lambda x: jnp.quantile(x, 0.5),
    "percentile": lambda x: jnp.percentile(x, jnp.asarray([25.0, 75.0])),
    "sqrt": jnp.sqrt, "log1p": jnp.log1p, "exp2": jnp.exp2, "deg2rad": jnp.deg2rad,
    "divide": lambda x: x / x[1], "true_divide": lambda x: jnp.true_divide(x, x),
    "arctan2": lambda x: jnp.arctan2(x, x), "hypot": lambda x: jnp.hypot(x, x),
    "logaddexp": lambda x: jnp.logaddexp(x, x), "sinc": jnp.sinc,
    "linspace": lambda x: jnp.linspace(x[0], x[-1], 3),
    "interp": lambda x: jnp.interp(x, x, x),
    "cov": jnp.cov, "corrcoef": lambda x: jnp.corrcoef(x, x[::-1]),
    "histogram_edges": lambda x: jnp.histogram(x, 3)[1], "gradient": jnp.gradient,
    "trapezoid": jnp.trapezoid, "erf": sp.erf, "logsumexp": sp.logsumexp,
}


@pytest.mark.parametrize("dtype", list(INEXACT), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_integers_become_inexact_by_width_under_x64(name, dtype, x64):
    x = np.array([0, 1, 2, 3, 4, 5]).astype(dtype)
    f = FUNCTIONS[name]
    want = np.dtype(INEXACT[dtype])
    for got in (f(jnp.asarray(x)), tjit.jit(f)(x)):
        assert got.dtype == want, (name, got.dtype, want)
    # the values are those of the float64 computation, rounded once to the result dtype
    ref = np.asarray(f(jnp.asarray(x.astype(np.float64))))
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(x)), np.float64), ref,
                               rtol=2e-6 if want == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dtype,want", [(np.int32, np.complex64), (np.int64, np.complex128),
                                        (np.float16, np.complex64), (np.bool_, np.complex64)])
def test_fft_of_integers_and_halves_under_x64(dtype, want, x64):
    x = np.array([0, 1, 2, 3]).astype(dtype)
    got = jnp.fft.fft(x)
    assert got.dtype == want
    np.testing.assert_allclose(np.asarray(got), np.fft.fft(x.astype(np.float64)), atol=1e-5)


def test_without_x64_every_integer_is_float32():
    for dtype in INEXACT:
        x = np.array([1, 2, 3]).astype(dtype)
        assert jnp.mean(x).dtype == np.float32 and jnp.sqrt(x).dtype == np.float32
        assert jnp.quantile(x, 0.5).dtype == np.float32


def test_quantile_result_has_the_input_dtype_whatever_q(x64):
    a = np.arange(5, dtype=np.float32)
    for q in (np.float64(0.5), jnp.asarray([0.25, 0.5]), 0.5):
        assert jnp.quantile(a, q).dtype == np.float32
    h = np.arange(5).astype(np.float16)
    assert jnp.quantile(h, np.array([0.5], np.float32)).dtype == np.float16
