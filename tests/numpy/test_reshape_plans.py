"""lax.reshape keeps resolved sizes per (shape, new sizes of Python ints)
(lax._structural._resolved_sizes). Kept sizes must resolve -1 as NumPy does on every
call, refused sizes must be refused again, and sizes equal to kept ones as Python values
but not ints (2.0 == 2) must still be refused.
"""

import numpy as np
import pytest

import tjit.numpy as jnp
from tjit import lax


@pytest.mark.parametrize("shape,new", [((8,), (2, -1)), ((2, 4), (-1,)), ((2, 3, 4), (4, -1, 2)),
                                       ((0, 3), (-1, 3)), ((6,), (6,)), ((1,), ())])
def test_reshape_resolves_like_numpy_every_call(shape, new):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = a.reshape(new)
    for _ in range(3):
        got = jnp.reshape(jnp.asarray(a), new)
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_refused_sizes_are_refused_every_call():
    x = jnp.ones(8, jnp.float32)
    assert lax.reshape(x, (2, 4)).shape == (2, 4)
    for _ in range(2):
        with pytest.raises(Exception, match="cannot reshape"):
            lax.reshape(x, (3, 3))
        with pytest.raises(Exception, match="one unknown dimension"):
            lax.reshape(x, (-1, -1))
        with pytest.raises(TypeError):
            lax.reshape(x, (2.0, 4))
