"""docs/debugging/checkify_guide.md: ``checkify(f, errors=index_checks)(x, 100)`` reports
the out-of-bounds static index (it used to be clamped silently by a static slice that
the checks never saw). Values: NumPy's clamp of the index, as JAX's gather clamps."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.experimental import checkify


def _f(x, i):
    return jnp.sin(x[i])


@pytest.mark.parametrize("i", [100, 5, -6])
def test_static_out_of_range_index_is_reported_by_index_checks(i):
    x = np.arange(5, dtype=np.float32)
    checked = checkify.checkify(_f, errors=checkify.index_checks)
    err, out = checked(jnp.asarray(x), i)   # (a NumPy x would be NumPy's indexing)
    assert err.get() is not None and "out-of-bounds indexing" in err.get()
    with pytest.raises(checkify.JaxRuntimeError, match="out-of-bounds"):
        err.throw()
    np.testing.assert_allclose(np.asarray(out), np.sin(x[np.clip(i, -5, 4)]), rtol=1e-6)


@pytest.mark.parametrize("i", [0, 4, -5])
def test_static_in_range_index_has_no_error(i):
    x = np.arange(5, dtype=np.float32)
    err, out = checkify.checkify(_f, errors=checkify.index_checks)(jnp.asarray(x), i)
    assert err.get() is None
    np.testing.assert_allclose(np.asarray(out), np.sin(x[i]), rtol=1e-6)


def test_out_of_range_static_index_still_clamps_without_checkify():
    x = np.arange(10).reshape(2, 5)
    ref = x[None, 1, 1:]          # [None, 9 -> clamped to 1, 1:]
    for got in (jnp.asarray(x)[None, 9, 1:], tjit.jit(lambda a: a[None, 9, 1:])(x)):
        np.testing.assert_array_equal(np.asarray(got), ref)
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda a: a[-100])(x)), x[0])
