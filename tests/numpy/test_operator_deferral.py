"""Array operators defer to operand types they do not know, as JAX's do: they return
NotImplemented, so the other operand's reflected operator runs (``Array + Series`` is
pandas' Series, equal to NumPy's result) and Python's own error names both types;
lists keep jnp's error that says to wrap them in jnp.asarray, and jnp functions still
refuse what is not an array."""

import operator

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.lt, operator.eq, operator.ge]


class Reflected:
    """An operand type tjit does not know that answers every reflected operator."""
    def __init__(self, value):
        self.value = np.asarray(value)

    def _reflect(name):
        def op(self, other):
            return ("reflected", name, np.asarray(other).tolist())
        return op

    for _name in ("radd", "rsub", "rmul", "rtruediv", "rfloordiv", "rmod", "rpow", "rmatmul",
                  "rand", "ror", "rxor", "rlshift", "rrshift"):
        locals()[f"__{_name}__"] = _reflect(_name)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.floordiv, operator.mod, operator.pow,
                                operator.matmul, operator.and_, operator.or_, operator.xor,
                                operator.lshift, operator.rshift])
def test_unknown_operand_gets_its_reflected_operator(op):
    a = jnp.arange(1, 4)
    got = op(a, Reflected([1, 1, 1]))
    assert got[0] == "reflected" and got[2] == [1, 2, 3]


@pytest.mark.parametrize("op", BINARY)
def test_pandas_series_operand_matches_numpy(op):
    pd = pytest.importorskip("pandas")
    x = np.array([1.0, 2.5, 4.0], np.float32)
    s = pd.Series(np.array([2.0, 2.5, 0.5], np.float32))
    for got, want in ((op(jnp.asarray(x), s), op(x, s.to_numpy())),
                      (op(s, jnp.asarray(x)), op(s.to_numpy(), x))):
        assert isinstance(got, pd.Series)
        np.testing.assert_allclose(got.to_numpy(dtype=np.float64), want, rtol=1e-6)


@pytest.mark.parametrize("bad", ["text", None, object()], ids=["str", "None", "object"])
def test_unsupported_operand_error_names_both_types(bad):
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Array'"):
        jnp.ones(2) + bad
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -: .* 'Array'"):
        bad - jnp.ones(2)


def test_lists_keep_the_asarray_hint_and_jnp_functions_still_refuse():
    with pytest.raises(TypeError, match=r"wrap it with jnp.asarray"):
        jnp.ones(3) + [1, 2, 3]
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="add requires ndarray or scalar arguments, got Series"):
        jnp.add(jnp.ones(3), pd.Series([1.0, 2.0, 3.0]))


def test_traced_operands_still_compute():
    f = tjit.jit(lambda x, y: (x + y, 2.0 ** x, y @ x))
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    s, p, d = f(x, y)
    np.testing.assert_allclose(np.asarray(s), x + y)
    np.testing.assert_allclose(np.asarray(p), 2.0 ** x)
    assert float(d) == pytest.approx(11.0)


COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("bad", [[1, 2, 3], (1, 2, 3), {1, 2, 3}, {1: 2}],
                         ids=["list", "tuple", "set", "dict"])
def test_comparing_with_jax_rejected_types_raises_instead_of_false(op, bad):
    """NumPy compares ``a == [1, 2, 3]`` elementwise; JAX refuses the list. Answering
    False (Python's fallback for unrelated types) would be a silent wrong answer."""
    a = jnp.arange(1, 4)
    with pytest.raises(TypeError):
        op(a, bad)
    with pytest.raises(TypeError):
        op(bad, a)
    with pytest.raises(TypeError):
        tjit.jit(lambda x: op(x, bad))(a)


@pytest.mark.parametrize("other", ["text", None, object()], ids=["str", "None", "object"])
def test_equality_with_unrelated_types_is_python_s_answer(other):
    a = jnp.arange(1, 4)
    assert (a == other) is False and (a != other) is True
    assert (other == a) is False and (other != a) is True
    with pytest.raises(TypeError, match="not supported"):
        a < other
