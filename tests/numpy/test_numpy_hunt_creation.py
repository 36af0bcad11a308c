"""jnp.logspace/geomspace against NumPy: with an integer dtype they floored where NumPy
truncates (geomspace(-1, -1000, 7, dtype=int32) gave -4, -32, -317 for NumPy's -3, -31,
-316); complex endpoints raised NotImplementedError (NumPy and JAX accept them); and
Python-number endpoints were computed in float32, an ulp off NumPy's float64 values
rounded once. Traced endpoints keep the traced formula (now truncating too)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("fn,args", [
    ("geomspace", (-1, -1000, 7)), ("geomspace", (-2.5, -7e4, 9)), ("geomspace", (3, 3**10, 11)),
    ("logspace", (0, 3, 7)), ("logspace", (-1, 2.5, 9)), ("logspace", (0, 10, 11, True, 2.0)),
])
def test_integer_dtype_truncates_as_numpy(fn, args):
    expected = getattr(np, fn)(*args, dtype=np.int32)
    for got in [getattr(jnp, fn)(*args, dtype=jnp.int32),
                tjit.jit(lambda: getattr(jnp, fn)(*args, dtype=jnp.int32))()]:
        np.testing.assert_array_equal(got, expected)
    # traced endpoints: the in-graph formula truncates as well
    start = jnp.asarray(np.float32(args[0]))
    got = tjit.jit(lambda s: getattr(jnp, fn)(s, *args[1:], dtype=jnp.int32))(start)
    np.testing.assert_allclose(got, expected, atol=1)
    assert np.all(np.sign(np.asarray(got)) == np.sign(expected))


@pytest.mark.parametrize("fn,args", [
    ("logspace", (0, 2, 11)), ("logspace", (-1.5, 3.3, 17)), ("geomspace", (1, 1000, 11)),
    ("geomspace", (-0.5, -80, 6)), ("geomspace", (2, 1e-3, 9, False)),
])
def test_python_number_endpoints_are_numpys_rounded_once(fn, args):
    expected = getattr(np, fn)(*args).astype(np.float32)
    for got in [getattr(jnp, fn)(*args), tjit.jit(lambda: getattr(jnp, fn)(*args))()]:
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("start,stop,num", [(1j, 1000j, 4), (-1 + 0j, 1 + 0j, 3),
                                            (1 + 1j, 10 + 10j, 5), (-1j, -100j, 3)])
def test_geomspace_of_complex_endpoints(start, stop, num):
    expected = np.geomspace(start, stop, num)
    got = jnp.geomspace(start, stop, num)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_logspace_with_array_base_along_axis():
    expected = np.logspace(0, 2, 3, base=np.array([2.0, 10.0]), axis=1)
    np.testing.assert_allclose(jnp.logspace(0, 2, 3, base=np.array([2.0, 10.0]), axis=1),
                               expected, rtol=1e-6)
