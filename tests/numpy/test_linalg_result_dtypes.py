"""Result dtypes of jnp.linalg found by benchmarks/diff_linalg.py: float16 operands of
the LAPACK-backed factorizations (svd, eigh, cholesky, qr) are computed in float32 and
returned as float16, as lu and triangular_solve already were (they raised NumPy's
"array type float16 is unsupported in linalg"; reference: NumPy in float32 on the same
values, rounded to float16); matrix_rank of a vector is an int32 (JAX's dtype)."""

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


@pytest.mark.parametrize("v,want", [([0.0, 1.0], 1), ([0.0, 0.0], 0), (2.5, 1)])
def test_matrix_rank_of_vectors_and_scalars_is_int32(v, want, x64):
    for got in (L.matrix_rank(np.asarray(v)), tjit.jit(L.matrix_rank)(np.asarray(v))):
        assert got.dtype == np.int32 and int(got) == want == np.linalg.matrix_rank(v)
