"""What NumPy keeps as strings, objects or records is refused as JAX refuses it, with an
error that names asarray, the NumPy dtype and how to get numbers (integer codes, a numeric
dtype, one array per field), and none is a crash or a silent conversion."""

import numpy as onp
import pytest

import tjit.numpy as jnp

CASES = [
    (["north", "east"], "<U5", "pandas.factorize"),
    (onp.array([b"x", b"y"]), "|S1", "return_inverse=True"),
    (onp.array(["1.5", None], dtype=object), "object", "astype(float)"),
    (onp.zeros(2, dtype=[("a", "f4"), ("b", "i4")]), "('a', '<f4')", "values['field']"),
]


@pytest.mark.parametrize("value,dtype,fix", CASES, ids=["str", "bytes", "object", "record"])
@pytest.mark.parametrize("fn", [jnp.asarray, jnp.array])
def test_non_numeric_input_names_dtype_and_fix(fn, value, dtype, fix):
    with pytest.raises(TypeError) as info:
        fn(value)
    text = str(info.value)
    assert text.startswith("asarray: unsupported input")
    assert dtype in text and fix in text


def test_pandas_object_column_points_to_factorize():
    pd = pytest.importorskip("pandas")
    names = pd.Series(["a", "b", "a"], dtype=object)
    with pytest.raises(TypeError, match="factorize"):
        jnp.asarray(names)
    codes, _ = pd.factorize(names)
    onp.testing.assert_array_equal(onp.asarray(jnp.bincount(jnp.asarray(codes))), [2, 1])


@pytest.mark.parametrize("call", [
    lambda: jnp.percentile(jnp.ones(3), [5, 95]),
    lambda: jnp.isin(jnp.ones(3), [1.0]),
    lambda: jnp.searchsorted(jnp.arange(3.0), [1.0]),
], ids=["percentile-q", "isin-test_elements", "searchsorted-v"])
def test_list_argument_error_names_the_fix_without_a_wrong_position(call):
    # as JAX, array arguments must be arrays; the error must not point at position 0
    # when the list is the second argument (position 1 is right)
    with pytest.raises(TypeError,
                       match=r"got list( at position 1)?; wrap it with jnp.asarray") as info:
        call()
    assert "position 0" not in str(info.value)
