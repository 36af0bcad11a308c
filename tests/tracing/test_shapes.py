import pytest
import sympy

from tjit.tracing import shapes
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError

b, c = shapes.symbol("b"), shapes.symbol("c")


def test_concrete_broadcast_matches_numpy():
    import numpy as np
    for s1, s2 in [((3, 1), (1, 4)), ((), (2, 3)), ((5, 1, 3), (4, 1)), ((0, 3), (1, 3))]:
        assert shapes.broadcast_shapes(s1, s2) == np.broadcast_shapes(s1, s2)


def test_concrete_fast_path_creates_no_sympy():
    out = shapes.broadcast_shapes((3, 1), (1, 4))
    assert all(type(d) is int for d in out)
    assert type(shapes.size((3, 4))) is int


def test_broadcast_error_names_shapes():
    with pytest.raises(ShapeError, match=r"\(3, 4\).*\(5,\)"):
        shapes.broadcast_shapes((3, 4), (5,))


def test_symbolic_broadcast():
    assert shapes.broadcast_shapes((b, 1), (1, 784)) == (b, 784)
    assert shapes.broadcast_shapes((b, 3), (b, 3)) == (b, 3)
    with pytest.raises(InconclusiveDimensionError, match="b.*c|c.*b"):
        shapes.broadcast_shapes((b,), (c,))
    with pytest.raises(InconclusiveDimensionError):
        shapes.broadcast_shapes((b,), (5,))


def test_reshape_with_minus_one():
    assert shapes.reshape_shape((4, 6), (-1, 3)) == (8, 3)
    assert shapes.reshape_shape((b, 784), (-1,)) == (784 * b,)
    assert shapes.reshape_shape((784 * b,), (-1, 784)) == (b, 784)
    assert shapes.reshape_shape((b, 2 * b), (2, -1)) == (2, b ** 2)
    with pytest.raises(ShapeError, match="cannot reshape"):
        shapes.reshape_shape((4, 6), (5, -1))
    with pytest.raises(ShapeError, match="cannot reshape"):
        shapes.reshape_shape((b, 3), (b, 4))


def test_parse_spec():
    assert shapes.parse_spec("(b, 784)") == (b, 784)
    assert shapes.parse_spec("(b, 2*b)") == (b, 2 * b)
    assert shapes.parse_spec("b, _") == (b, None)
    assert shapes.parse_spec("(b, ...)", actual_ndim=3) == (b, None, None)
    with pytest.raises(ValueError, match="cannot parse"):
        shapes.parse_spec("(b, 2**)")


def test_solve_dims():
    env = {}
    shapes.solve_dims((b, 2 * b), (3, 6), env)
    assert env == {b: 3}
    with pytest.raises(ShapeError, match="2\\*b"):
        shapes.solve_dims((b, 2 * b), (3, 7), {})
    env = {}
    shapes.solve_dims((2 * c,), (8,), env)
    assert env == {c: 4}


def test_definitely_equal():
    assert shapes.definitely_equal(2 * b, b + b)
    assert not shapes.definitely_equal(b, b + 1)
    with pytest.raises(InconclusiveDimensionError):
        shapes.definitely_equal(b, c)


def test_exact_div_symbolic():
    assert shapes.exact_div(784 * b, 784) == b
    with pytest.raises(InconclusiveDimensionError):
        shapes.exact_div(b, 2)
    assert isinstance(shapes.exact_div(6, 3), int)


def test_substitute_params():
    assert shapes.substitute_params((b, (2 * b, 3)), {b: 5}) == (5, (10, 3))
    assert shapes.contains_symbolic((1, (b,)))
    assert not shapes.contains_symbolic((1, (sympy.Integer(2),)))
