"""Notebook manners of arrays: repr of empty arrays, ``in``, the buffer protocol, and
JAX's warning when a 64-bit dtype is asked for without x64."""

import sys
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.random as jr


# -- repr ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0,), (3, 0, 2), (0, 0)])
def test_repr_of_empty_array_names_its_shape_as_jax(shape):
    # JAX's Array.__repr__ writes "[], shape=..." for every size-0 array, (0,) included
    # (NumPy leaves the shape out for 1-D); the rest is NumPy's array2string.
    assert repr(jnp.zeros(shape)) == f"Array([], shape={shape}, dtype=float32)"


def test_repr_of_nonempty_array_unchanged():
    assert repr(jnp.asarray([1.0, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.zeros((0, 3), jnp.int32)) == "Array([], shape=(0, 3), dtype=int32)"


# -- `in` ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [2, 7, 2.0, 2.5, -1, [0, 1, 2], [9, 9, 9], (3, 4, 5),
                                   np.int64(5), np.array([3, 9, 9])])
def test_in_is_numpys(value):
    ref = np.arange(6).reshape(2, 3)
    assert (value in jnp.asarray(ref)) == (value in ref)


def test_in_with_array_and_0d():
    x = jnp.arange(6.0)
    assert jnp.asarray(4.0) in x and jnp.asarray(4.5) not in x
    assert 3.0 in jnp.asarray(3.0) and 2.0 not in jnp.asarray(3.0)


def test_in_under_jit_is_a_concretization_error():
    with pytest.raises(tjit.errors.TracerBoolConversionError):
        tjit.jit(lambda x: 2 in x)(jnp.arange(3))


# -- buffer protocol ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_, np.complex64])
def test_buffer_is_readonly_and_matches_numpy(dtype):
    ref = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    x = jnp.asarray(ref)
    m = x.__buffer__(0)
    assert m.readonly
    assert (m.shape, m.format, m.itemsize) == (ref.shape, memoryview(ref).format,
                                               ref.itemsize)
    assert m.tobytes() == ref.tobytes()
    with pytest.raises(TypeError):
        m.cast("B")[0] = 0  # read-only: an Array is immutable


def test_buffer_of_transposed_and_0d_arrays():
    ref = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert jnp.asarray(ref).T.__buffer__(0).tolist() == ref.T.tolist()
    assert jnp.asarray(np.float32(2.5)).__buffer__(0).tolist() == 2.5


def test_buffer_of_bfloat16_is_a_clear_error():
    with pytest.raises(TypeError, match="bfloat16.*astype"):
        jnp.ones(2, jnp.bfloat16).__buffer__(0)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="memoryview() of a Python class "
                    "needs PEP 688 (Python 3.12)")
def test_memoryview():
    ref = np.arange(6, dtype=np.float32)
    m = memoryview(jnp.asarray(ref))
    assert m.readonly and m.tolist() == ref.tolist()
    assert bytes(jnp.asarray(ref)) == ref.tobytes()


# -- the x64 warning ----------------------------------------------------------------------
X64_REQUESTS = {
    "asarray": lambda: jnp.asarray([1.0, 2.0], dtype=jnp.float64),
    "array": lambda: jnp.array([1, 2], dtype="int64"),
    "astype": lambda: jnp.ones(3).astype(np.float64),
    "zeros": lambda: jnp.zeros(3, dtype=jnp.float64),
    "ones": lambda: jnp.ones((2, 2), np.complex128),
    "full": lambda: jnp.full(3, 1.5, dtype=np.float64),
    "arange": lambda: jnp.arange(4, dtype=np.int64),
    "linspace": lambda: jnp.linspace(0, 1, 5, dtype=np.float64),
    "eye": lambda: jnp.eye(2, dtype=np.float64),
    "random.normal": lambda: jr.normal(jr.key(0), (2,), dtype=np.float64),
    "random.uniform": lambda: jr.uniform(jr.key(0), (2,), dtype=np.float64),
}


@pytest.mark.parametrize("name", sorted(X64_REQUESTS))
def test_requested_64_bit_dtype_warns_as_jax(name):
    with pytest.warns(UserWarning, match=r"Explicitly requested dtype (float|int|complex)"
                      r"(64|128) requested in \w+ is not available, and will be truncated "
                      r"to dtype (float|int|complex)(32|64)\. .*enable_x64") as rec:
        out = X64_REQUESTS[name]()
    assert out.dtype.itemsize <= 8 and out.dtype != np.float64
    assert rec[0].filename == __file__  # it points at the user's line, not into tjit


@pytest.mark.parametrize("call", [
    lambda: jnp.asarray(np.ones(3)),           # float64 *data*: JAX does not warn
    lambda: jnp.asarray([1.0, 2.0]),
    lambda: jnp.zeros(3, dtype=float),         # Python types mean the defaults
    lambda: jnp.ones(3).astype(int),
    lambda: jnp.zeros(3, dtype=jnp.float32),
    lambda: jnp.sum(jnp.ones(3)),
])
def test_no_warning_without_an_explicit_64_bit_request(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call()


def test_no_warning_with_x64_enabled():
    tjit.config.update("enable_x64", True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert jnp.zeros(2, dtype=np.float64).dtype == np.float64
            assert jnp.ones(2).astype(np.float64).dtype == np.float64
    finally:
        tjit.config.update("enable_x64", False)


def test_warning_shows_once_per_call_site():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("default")
        for _ in range(3):
            jnp.zeros(2, dtype=np.float64)
    assert len(rec) == 1
