"""matmul keeps its shape arithmetic per pair of shapes (numpy._matmul._matmul_plans) and
lax.dot_general its normalised dimension numbers (lax._dot._normalised_dns). Kept plans
must give NumPy's float64 products on every call, and errors must recur: shapes refused
once are refused again, and dimension numbers equal to kept ones as Python values but
not ints (0.0 == 0) are still refused.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

_RNG = np.random.default_rng(3)

_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
           ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 5)),
           ((4,), (2, 4, 5)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("sa,sb", _SHAPES)
def test_matmul_calls_match_numpy(sa, sb):
    a = _RNG.standard_normal(sa).astype(np.float32)
    b = _RNG.standard_normal(sb).astype(np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    traced = tjit.jit(jnp.matmul, backend="interpreter")(a, b)
    for _ in range(3):
        got = jnp.matmul(jnp.asarray(a), jnp.asarray(b))
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(traced))


def test_refused_shapes_are_refused_every_time():
    for _ in range(2):
        with pytest.raises(Exception, match="matmul"):
            jnp.matmul(jnp.ones((3, 4)), jnp.ones((5, 2)))
        with pytest.raises(Exception, match="matmul"):
            jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5)))


def test_dimension_numbers_of_floats_are_refused_after_ints_were_kept():
    x = jnp.ones(4, jnp.float32)
    assert float(lax.dot_general(x, x, (((0,), (0,)), ((), ())))) == 4.0
    for _ in range(2):
        with pytest.raises(TypeError, match="axis must be an integer"):
            lax.dot_general(x, x, (((0.0,), (0,)), ((), ())))
        with pytest.raises(Exception, match="out of bounds"):
            lax.dot_general(x, x, (((1,), (0,)), ((), ())))
    # lists (unhashable) and NumPy ints take the checking path, to the same result
    assert float(lax.dot_general(x, x, [[[np.int64(0)], [0]], [[], []]])) == 4.0


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.complex64])
def test_plain_products_of_every_rank_and_empty_dims(dt):
    """dot_general's impl takes the plain product (lhs's last dim with rhs's first, no
    batch) in one matmul: ranks 1-3 on either side and zero-size dims vs NumPy."""
    shapes = [((4,), (4,)), ((0,), (0,)), ((3, 0), (0, 4)), ((0, 3), (3,)),
              ((2, 3, 4), (4,)), ((4,), (4, 2, 3)), ((2, 0, 4), (4, 5)), ((5,), (5, 0)),
              ((2, 3, 4), (4, 2, 2))]
    for sa, sb in shapes:
        a = (_RNG.standard_normal(sa) * 5).astype(dt)
        b = (_RNG.standard_normal(sb) * 5).astype(dt)
        want = np.tensordot(a.astype(np.complex128), b.astype(np.complex128), axes=1)
        want = want if dt is np.complex64 else want.real
        got = jnp.tensordot(jnp.asarray(a), jnp.asarray(b), axes=1)
        assert got.shape == want.shape and got.dtype == dt, (sa, sb)
        np.testing.assert_allclose(np.asarray(got), want.astype(dt), rtol=1e-5, atol=1e-4)
