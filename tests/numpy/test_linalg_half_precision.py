"""float16 operands of the LAPACK-backed factorizations (svd, eigh, cholesky, qr) are
computed in float32 and returned as float16, as lu and triangular_solve already were
(they raised NumPy's "array type float16 is unsupported in linalg"). Reference: NumPy in
float32 on the same values, rounded to float16."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

L = jnp.linalg
A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], np.float16)

CASES = {
    "svdvals": (lambda a: L.svd(a, compute_uv=False),
                lambda a: np.linalg.svd(a, compute_uv=False)),
    "eigvalsh": (L.eigvalsh, np.linalg.eigvalsh),
    "cholesky": (L.cholesky, np.linalg.cholesky),
    "qr r": (lambda a: jnp.abs(L.qr(a)[1]), lambda a: np.abs(np.linalg.qr(a)[1])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_float16_factorizations(name):
    f, ref = CASES[name]
    want = ref(A.astype(np.float32)).astype(np.float16)
    for got in (f(A), tjit.jit(f)(A)):
        assert got.dtype == np.float16
        np.testing.assert_allclose(np.asarray(got, np.float32), want.astype(np.float32),
                                   rtol=2e-3, atol=2e-3)
