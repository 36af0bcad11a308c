"""Sums, means, products and cumulative sums of float16 and bfloat16 arrays accumulate
in float32 (as JAX/XLA do), against float64 references of the same inputs.

The class of defect this guards: a reduction that widens float16 by name and leaves the
other half-precision type alone. bfloat16 summed in bfloat16 stalls once the running
sum's ulp passes the addend: 20000 x 0.1 summed to 32 (JAX 2000), its mean was 0.0016,
its cumsum ended at 32 and a product of 100 x 1.0078 gave 2.06 (2.17). Every
accumulating reduction, both half types, eager and jit.
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
N = 20000
CASES = {
    "sum": (jnp.sum, np.sum, np.full(N, 0.1)),
    "mean": (jnp.mean, np.mean, np.full(N, 0.1)),
    "cumsum_last": (lambda a: jnp.cumsum(a)[-1], lambda a: np.cumsum(a)[-1], np.full(N, 0.1)),
    "prod": (jnp.prod, np.prod, np.full(100, 1.01)),
    "var": (jnp.var, np.var, np.linspace(0.0, 1.0, N)),
    "nansum": (jnp.nansum, np.nansum, np.full(N, 0.1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("half", sorted(HALF))
@pytest.mark.parametrize("use_jit", [False, True])
def test_half_precision_accumulates_in_float32(name, half, use_jit):
    f, ref, values = CASES[name]
    x = values.astype(np.float32).astype(HALF[half])   # the inputs as the half type holds them
    want = ref(x.astype(np.float64))
    got = (tjit.jit(f) if use_jit else f)(jnp.asarray(x))
    assert got.dtype == np.dtype(HALF[half])
    # float32 accumulation, one rounding to the half type at the end
    eps = float(ml_dtypes.finfo(HALF[half]).eps)
    np.testing.assert_allclose(float(got), want, rtol=2 * eps)
