"""Dtype comparisons: every dtype tjit.numpy exposes (the scalar types ``jnp.float32``...,
their aliases, and the dtype objects of arrays) compared with objects that are not
dtype-likes gives False (``!=`` True), both ways round, never an error; compared with
dtype-likes it answers as NumPy's ``np.dtype(name) == other`` does."""

import datetime
import fractions

import numpy as np
import pytest

import tjit.numpy as jnp
from tjit.numpy._dtypes import _ScalarType

SCALAR_TYPES = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), _ScalarType))
DTYPES = ([getattr(jnp, n) for n in SCALAR_TYPES]
          + [jnp.dtype("float32"), jnp.ones(2, jnp.int8).dtype, jnp.array(True).dtype])
DTYPE_IDS = SCALAR_TYPES + ["jnp.dtype(float32)", "Array.dtype(int8)", "Array.dtype(bool)"]

FOREIGN = ["some text", "", ",", "[", "a b", "i4,", "M8[xyz]", "S-1", "float128",
           b"nonsense", {}, {"a": 1}, {"names": 1}, [], [1, 2], (), (1, 2), set(), 3, 0, 2.5,
           1j, None, Ellipsis, object(), object, datetime.date(2020, 1, 1),
           fractions.Fraction(1, 3), lambda: 0]
# Arrays are values, not dtype-likes: np.float32 == np.float32(1) is False, as in JAX (an
# array on the left compares elementwise, as in NumPy).
ARRAYS = [np.arange(3), np.float32(1.0), np.array(1.0, np.float32), jnp.arange(3.0),
          jnp.array(1.0), jnp.array(True), jnp.array(1, jnp.int8)]


@pytest.mark.parametrize("d", DTYPES, ids=DTYPE_IDS)
def test_dtype_vs_foreign_objects_is_false(d):
    for o in FOREIGN:
        for eq, ne in ((d == o, d != o), (o == d, o != d)):
            assert eq is False or eq is np.False_, (d, o, eq)
            assert ne is True or ne is np.True_, (d, o, ne)
    if isinstance(d, _ScalarType):  # (NumPy's np.dtype objects read an array's dtype)
        for a in ARRAYS:
            assert not np.any(d == a) and np.all(d != a), (d, a)


VALID = ["float32", "f4", "int8", "i1", "bool", "?", "complex64", "uint16", "float64",
         np.float32, np.int8, np.bool_, np.complex64, np.uint16, np.float64, float, int, bool,
         np.dtype("float32"), np.dtype("int8"), np.dtype("bool")]


@pytest.mark.parametrize("name", SCALAR_TYPES)
def test_scalar_type_vs_dtype_likes_follows_numpy(name):
    d = getattr(jnp, name)
    ref = np.dtype(d.dtype)
    for o in VALID + [getattr(jnp, n) for n in SCALAR_TYPES]:
        want = ref == (o.dtype if isinstance(o, _ScalarType) else o)
        assert (d == o) == want, (name, o)
        assert (d != o) == (not want), (name, o)
        assert (o == d) == want, (name, o)
    assert d == d.dtype.name and d == d.dtype.type and hash(d) == hash(d.dtype)
