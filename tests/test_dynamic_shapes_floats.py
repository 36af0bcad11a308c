"""Automatic dynamic shapes with comparisons of sizes against floats, NumPy floats and
fractions of sizes (tracing/size_rounding.py): answered exactly at the traced sizes with
integer guards, where Python's float arithmetic provably gives that answer; sizes where
rounding could decide it get programs of their own. The oracle is Python's own answer
with int sizes, and the reference interpreter traced per shape."""

import logging
import math

import numpy as np
import pytest
import sympy

import tjit
from tjit.dynamic_shapes import AutoDim
from tjit.tracing.errors import InconclusiveDimensionError
from tjit.tracing.size_questions import GuardingQuestions, SpecializeSizes
from tjit.xla_like.plan import concrete

RNG = np.random.default_rng(13)

FLOAT_QUESTIONS = {
    "n > 2.5": lambda n, m: n > 2.5,
    "5.5 < n": lambda n, m: 5.5 < n,
    "n >= 6.0": lambda n, m: n >= 6.0,
    "n == 6.0": lambda n, m: n == 6.0,
    "n != 6.0": lambda n, m: n != 6.0,
    "n * 0.5 < 3": lambda n, m: n * 0.5 < 3,
    "0.25 * n <= 1.5": lambda n, m: 0.25 * n <= 1.5,
    "n / 2 > 2.5": lambda n, m: n / 2 > 2.5,
    "n / 2 == 3": lambda n, m: n / 2 == 3,
    "n / 3 <= 1.5": lambda n, m: n / 3 <= 1.5,
    "n * 0.1 > 0.45": lambda n, m: n * 0.1 > 0.45,
    "n // 2 >= 2.5": lambda n, m: n // 2 >= 2.5,
    "np.float32(6.5) < n": lambda n, m: np.float32(6.5) < n,
    "n < np.float64(6.5)": lambda n, m: n < np.float64(6.5),
    "n / 2 + m * 0.25 > 4": lambda n, m: n / 2 + m * 0.25 > 4,
    "n / m < 1.5": lambda n, m: n / m < 1.5,
    "n ** 0.5 > 2": lambda n, m: n ** 0.5 > 2,
    "np.sqrt(n) > 2": lambda n, m: np.sqrt(n) > 2,
}
# (a size in a denominator, a root of a size: no integer guard; the documented fallback)
FALLBACKS = {"n / m < 1.5", "n ** 0.5 > 2", "np.sqrt(n) > 2"}
SIZES = [(3, 5), (4, 4), (5, 7), (6, 6), (7, 5), (8, 4), (9, 3), (10, 10), (11, 2),
         (64, 64), (6, 7), (4, 8), (3, 5)]


def _randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("form", sorted(FLOAT_QUESTIONS))
def test_float_comparisons_of_sizes_are_answered_per_size(form):
    test = FLOAT_QUESTIONS[form]

    def f(x, y):
        if test(x.shape[0], y.shape[0]):
            return x * 2.0, y.sum()
        return x - 1.0, y.max()

    dyn = tjit.jit(f)
    ref = tjit.jit(f, backend="interpreter", dynamic_shapes=False)
    for n, m in SIZES:
        x, y = _randn(n, 3), _randn(m)
        for g, r in zip(dyn(x, y), ref(x, y)):
            np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(dyn(x, y)[0], x * 2.0 if test(n, m) else x - 1.0)
    if form in FALLBACKS:
        assert dyn.compile_count == len(set(SIZES))
    elif "m" not in form:       # one size: at most one program per answer
        assert dyn.trace_count <= 4 and dyn.compile_count <= 4
    else:
        assert dyn.compile_count <= 5 < len(set(SIZES))


def test_a_size_on_the_other_side_retraces_and_the_log_says_why(caplog):
    def f(x):
        return x * 2.0 if x.shape[0] > 5.5 else x - 1.0

    jf = tjit.jit(f)
    tjit.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            for n in (3, 4, 5, 2, 6, 9, 4, 40):
                x = _randn(n)
                np.testing.assert_array_equal(jf(x), x * 2.0 if n > 5.5 else x - 1.0)
    finally:
        tjit.config.update("log_compiles", False)
    # 3 concrete; 4: dynamic (s0 > 5.5 False), which serves 5 and 2; 6: a program for
    # True, which serves 9 and 40
    assert jf.trace_count == 3 and jf.compile_count == 3
    (fam,) = jf._families.values()
    assert [str(p.guards[0].expr) for p, _ in fam.programs] == ["2*s0 - 11"] * 2
    assert "s0 > 5.5 is False" in caplog.text and "answers differently" in caplog.text


def test_equal_sides_that_rounding_decides_get_their_own_program(caplog):
    # n / 3 == 2.0 at n = 6 only; Python's rounding of 6 / 3 decides that size
    def f(x):
        return x * 2.0 if x.shape[0] / 3 >= 2.0 else x - 1.0

    jf = tjit.jit(f)
    tjit.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            for n in (2, 4, 5, 6, 7, 8, 6, 3):
                x = _randn(n)
                np.testing.assert_array_equal(jf(x), x * 2.0 if n / 3 >= 2.0 else x - 1.0)
    finally:
        tjit.config.update("log_compiles", False)
    assert "sides are equal at these sizes" in caplog.text
    assert "these sizes are specialized" in caplog.text
    assert jf.compile_count <= 5    # 2; dynamic for False; 6 alone; dynamic for True


def test_float_of_a_size_falls_back_with_a_clear_log(caplog):
    def f(x):
        return x * 2.0 if math.sqrt(x.shape[0]) > 2 else x - 1.0

    jf = tjit.jit(f)
    tjit.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            for n in (2, 3, 4, 5, 6):
                x = _randn(n)
                np.testing.assert_array_equal(jf(x), x * 2.0 if math.sqrt(n) > 2 else x - 1.0)
    finally:
        tjit.config.update("log_compiles", False)
    assert jf.compile_count == 5
    assert "fell back" in caplog.text and "float() of the size expression" in caplog.text
    assert "math.sqrt(x.shape[0])" in caplog.text     # the user's line


def test_nan_and_infinity_are_decided_without_guards():
    def f(x):
        n = x.shape[0]
        # (the NaN comparisons are the point here)
        ok = n < math.inf and not (n > math.nan) and n != math.nan and -math.inf < n  # noqa: PLW0177
        return x * 2.0 if ok else x - 1.0

    jf = tjit.jit(f)
    for n in (3, 4, 9):
        x = _randn(n)
        np.testing.assert_array_equal(jf(x), x * 2.0)
    (fam,) = jf._families.values()
    assert jf.trace_count == 2 and fam.programs[0][0].guards == ()


@pytest.mark.parametrize("question", [lambda b: b > 2.5, lambda b: b * 0.5 < 3,
                                      lambda b: b / 2 > 0])
def test_declared_polymorphic_dims_refuse_rounded_or_undecided_float_questions(question):
    def f(x):
        return x * 2.0 if question(x.shape[0]) else x - 1.0

    with pytest.raises(InconclusiveDimensionError, match="polymorphic dims b"):
        tjit.jit(f, polymorphic_shapes=("b",))(_randn(4))


def test_declared_polymorphic_dims_answer_exact_float_questions_for_every_size():
    def f(x):
        b = x.shape[0]
        return x * 2.0 if b > 0.5 and b != 2.5 and b + 0.0 < math.inf else x - 1.0

    jf = tjit.jit(f, polymorphic_shapes=("b",))
    for n in (3, 4, 7):
        x = _randn(n)
        np.testing.assert_array_equal(jf(x), x * 2.0)
    assert jf.compile_count == 1


# -- the guards against Python's own answers, at sizes up to and beyond float precision ---
N, M = AutoDim("s0"), AutoDim("s1")
EXACTNESS_FORMS = {
    "n > 2.5": lambda n, m: n > 2.5,
    "n / 2 > 2**52": lambda n, m: n / 2 > 2 ** 52,
    "n / 2 >= m / 4": lambda n, m: n / 2 >= m / 4,
    "n * 0.5 < 2.0**60": lambda n, m: n * 0.5 < 2.0 ** 60,
    "n / 3 <= m / 3": lambda n, m: n / 3 <= m / 3,
    "n * 0.1 > m * 0.3": lambda n, m: n * 0.1 > m * 0.3,
    "n > np.float32(2**24)": lambda n, m: n > np.float32(2 ** 24),
    "(n + 1) / 3 > m / 3": lambda n, m: (n + 1) / 3 > m / 3,
    "n == m * 1.0": lambda n, m: n == m * 1.0,
}
_EDGES = [2 ** 24 - 1, 2 ** 24, 2 ** 24 + 1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1,
          2 ** 53 + 3, 2 ** 54 + 2, 2 ** 61 + 1]


def _size_pairs():
    pairs = [(n, m) for n in (2, 3, 5, 6, 9, 30) for m in (2, 3, 6, 9, 10, 31)]
    pairs += [(e + d, e + k) for e in _EDGES for d in (0, 1) for k in (-3, 0, 1, 2)]
    pairs += [(e, 3 * e - 1) for e in _EDGES] + [(3 * e, e) for e in _EDGES]
    pairs += [tuple(int(v) for v in RNG.integers(2, 2 ** 62, 2)) for _ in range(40)]
    return pairs


@pytest.mark.parametrize("form", sorted(EXACTNESS_FORMS))
def test_guards_hold_only_where_python_answers_as_at_the_traced_sizes(form):
    test = EXACTNESS_FORMS[form]
    pairs = _size_pairs()
    answered = 0
    for n, m in pairs[::3]:
        env = {N: n, M: m}
        try:
            with GuardingQuestions(env, concrete) as q:
                got = bool(test(N, M))
        except SpecializeSizes:
            continue    # (rounding could decide it here: these sizes are specialized)
        answered += 1
        assert got == test(n, m), (n, m)    # Python's answer with int sizes
        for n2, m2 in pairs:
            env2 = {N: n2, M: m2}
            if all(g.holds(env2, concrete) for g in q.guards):
                assert test(n2, m2) == got, (form, (n, m), (n2, m2), q.guards)
    assert answered >= len(pairs[::3]) // 2


def test_guard_of_a_float_comparison_is_an_integer_condition():
    with GuardingQuestions({N: 7}, concrete) as q:
        assert N > 2.5 and not N * 0.5 < 3 and N / 2 > 2.5
    exprs = [g.expr for g in q.guards]
    assert sympy.expand(2 * N - 5) in exprs
    assert all(not e.has(sympy.Float) and e.is_integer for e in exprs)
