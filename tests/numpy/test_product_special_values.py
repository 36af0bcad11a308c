"""Products against NumPy on IEEE special values (signed zeros, inf * 0 = nan, nan).

Where NumPy's product is an elementwise multiply (outer, linalg.outer, kron, dot/inner
with a scalar) the result matches bit for bit, sign of zero included. Where NumPy sums
products (tensordot with axes=0 and einsum without contraction go through dot), a zero's
sign depends on the summation, so zeros are compared by value; infs and nans still match.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_SPECIAL = [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5]
A = np.array(_SPECIAL, np.float32)
B = np.array(_SPECIAL[::-1], np.float32)
A2, B2 = A.reshape(2, 4), B[:6].reshape(3, 2)



def _scalar(m, name):
    return np.multiply if m is np else getattr(m, name)


# (name, call on the module np or jnp, NumPy multiplies elementwise)
PRODUCTS = [
    ("outer", lambda m: m.outer(A, B), True),
    ("outer 2-d", lambda m: m.outer(A2, B2), True),
    ("outer scalar", lambda m: m.outer(np.float32(-0.0), B), True),
    ("linalg.outer", lambda m: m.linalg.outer(A, B), True),
    ("kron", lambda m: m.kron(A, B), True),
    ("kron 2-d", lambda m: m.kron(A2, B2), True),
    # NumPy documents dot/inner with a scalar as multiply (its BLAS scal path drops the
    # nans of inf * 0); JAX and tjit multiply, so multiply is the reference.
    ("inner scalar", lambda m: _scalar(m, "inner")(np.float32(-0.0), A), True),
    ("inner scalar right", lambda m: _scalar(m, "inner")(A2, np.float32(np.inf)), True),
    ("dot scalar", lambda m: _scalar(m, "dot")(A, np.float32(-0.0)), True),
    ("dot scalar left", lambda m: _scalar(m, "dot")(np.float32(0.0), B2), True),
    ("multiply broadcast", lambda m: m.multiply(A[:, None], B[None, :]), True),
    ("tensordot axes=0", lambda m: m.tensordot(A, B, 0), False),
    ("tensordot axes=0 2-d", lambda m: m.tensordot(A2, B2, axes=0), False),
    ("einsum outer", lambda m: m.einsum("i,j->ij", A, B), False),
]


def _compare(got, want, exact_sign):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got, want)  # nan == nan here; -0 == 0
    if exact_sign:
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("name,call,exact", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_product_special_values_match_numpy(name, call, exact):
    with np.errstate(invalid="ignore"):
        want = call(np)
    _compare(call(jnp), want, exact)


@pytest.mark.parametrize("name", ["outer", "kron", "linalg.outer"])
def test_elementwise_products_keep_zero_signs_under_jit(name):
    fn = {"outer": jnp.outer, "kron": jnp.kron, "linalg.outer": jnp.linalg.outer}[name]
    with np.errstate(invalid="ignore"):
        want = {"outer": np.outer, "kron": np.kron, "linalg.outer": np.outer}[name](A, B)
    _compare(tjit.jit(fn)(A, B), want, True)


def test_outer_of_the_reported_cases():
    for a, b in (([-0.0], [1.0]), ([-1.0], [0.0]), ([np.inf], [0.0])):
        a, b = np.array(a, np.float32), np.array(b, np.float32)
        with np.errstate(invalid="ignore"):
            _compare(jnp.outer(a, b), np.outer(a, b), True)
