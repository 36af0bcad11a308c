"""size_bounds.decide: size questions with floor, ceiling, Mod and Min/Max, checked against
Python's integer answers at every size 1..60 (a decided answer must hold at each)."""
import operator

import pytest

from tjit._sympy import sympy
from tjit.tracing import size_bounds
from tjit.tracing.shapes import symbol

b = symbol("b")

CASES = [   # (difference, relation, expected decision)
    (2 * sympy.ceiling(b / 2) - 1 - b, operator.le, True),      # last index of x[::2]
    (sympy.floor(b / 2) - b, operator.le, True),                # x[:b // 2]
    (sympy.Mod(b, 3) - 3, operator.lt, True),
    (sympy.Mod(b, 3), operator.ge, True),
    (b - 2 * sympy.floor(b / 2) - sympy.Mod(b, 2), operator.eq, True),
    (sympy.ceiling(b / 2) - sympy.floor((b + 1) / 2), operator.eq, True),
    (sympy.floor((b + 1) / 3) - b - 1, operator.ge, False),
    (sympy.Max(b - 2, 0), operator.ge, True),
    (sympy.Min(b, 5) - 6, operator.lt, True),
    (sympy.Min(b, 5) - b, operator.le, True),                   # x[:5] fits b
    (b - sympy.Min(b, 2), operator.ge, True),                   # x[2:] is not negative
    (sympy.Max(1, b - 1) - 1 - sympy.Max(0, b - 2), operator.eq, True),
    (sympy.Min(b, 5) - 3, operator.ge, None),
    (3 * sympy.ceiling((b - 1) / 3) - 2, operator.ge, None),   # -2 at b = 1, 1 at b = 2
    (sympy.floor(b / 2) - 1, operator.ge, None),                # 0 at b = 1
    (sympy.Mod(b, 2), operator.eq, None),
]


@pytest.mark.parametrize("diff, relation, expected", CASES, ids=[str(c[0]) for c in CASES])
def test_decisions_hold_at_every_size(diff, relation, expected):
    assert size_bounds.decide(diff, relation) is expected
    f = sympy.lambdify(b, diff, modules="math")
    answers = {relation(f(n), 0) for n in range(1, 61)}
    if expected is not None:
        assert answers == {expected}
    else:
        assert answers == {True, False}


def test_unbounded_parts_leave_the_question_open():
    assert size_bounds.decide(sympy.sqrt(b) - 1, operator.ge) is None
    assert size_bounds.bounds(sympy.Symbol("x") + 1) is None
