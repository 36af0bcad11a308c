"""When a comparison of size expressions with floats or fractions gets Python's answer.

With int sizes, Python compares ``n > 2.5`` exactly (an int against a float is never
rounded), but ``n / 3``, ``n * 0.1`` and ``x.shape[0] * 0.5`` are floats, rounded by
every operation, and NumPy compares a Python int with an ``np.float32`` in float32
(``16777217 > np.float32(16777216.0)`` is False). A traced size expression is exact:
``n / 3`` is sympy's ``n/3``, ``n * 0.5`` is ``0.5*n``, whose float ``0.5`` stands for
its exact binary value. So a question about sizes is turned into one about exact
rationals (:func:`difference`), together with what makes the exact answer Python's:

- a side that Python computes as an int (a size, ``n // 2``, ``2*n - m``, ``n % 3``)
  compared with a Python float or int needs nothing: its answer is exact at every size;
- a side with a fraction or a float in it (``n / 2``, ``n * 0.5``), or a NumPy float
  constant, is rounded by Python. Where every coefficient is a binary fraction (``n / 4``,
  ``n * 0.5``) and the sizes are small enough (``exact_below`` < 0: the sum of the
  terms' magnitudes times their common denominator ``L`` is below 2^53), every partial
  result is a multiple of ``1/L`` that a float holds exactly: Python's answer is the
  exact one, equal sides included. Elsewhere (``n / 3``; ``n * 0.1``, whose 0.1 has a
  53-bit numerator; huge sizes) Python's value of ``a - b`` is within ``error`` of the
  exact one (``K`` roundings of at most 2^-53 relative each on terms of the given
  magnitudes, standard forward error analysis), so the exact answer is Python's where
  ``|a - b| > error``: a *margin* condition, integer-valued after scaling. Equal sides
  are never inside the margin: Python's rounding decides those, and the callers give
  such sizes a program of their own.

The model is that Python computed a side as sympy keeps it (a sum of terms): code whose
rounding sympy's exact arithmetic has already undone (``(n + 1e20) - 1e20``) is not
seen. A NumPy float on the *left* (``np.float32(x) < n``) reaches the size as a Python
float (NumPy's object comparison converts it), so it is compared exactly, as Python
would; NumPy itself rounds an int beyond 2^24 to float32 there. A side that is not a
rational multiple of integer expressions of sizes (``sqrt(n)``, ``n ** 0.5``, a size in
a denominator) is not answered (:class:`NotExact`). ``float(n)``, ``math.sqrt(n)``, ``int(n)`` and ``range(n)`` are not answered here:
they make a size a constant of the program (see size_questions).
"""

import math
import operator

import numpy as np

from tjit._sympy import sympy

# float64's significand: integers (and multiples of a binary 1/L) below this are exact
_FLOAT64_DIGITS = 53


class Difference:
    """``a - b`` for a comparison of sizes, as what decides it.

    ``expr``: an integer-valued expression of the sizes with the sign of ``a - b`` (a
    number when no size is left). For sides that Python rounds: ``diff``, the exact
    ``a - b``; ``error``, a bound on how far Python's float value of ``a - b`` is from
    it (so where ``|diff| > error`` the exact answer is Python's); ``exact_below``: an
    integer-valued expression that is < 0 where Python's arithmetic is exact, equal
    sides included (None when no such range is known). ``error`` None: exact at every
    size. ``unordered``: a NaN was compared (every relation False, ``!=`` True)."""

    __slots__ = ("diff", "error", "exact_below", "expr", "unordered")

    def __init__(self, expr, diff=None, error=None, exact_below=None, unordered=False):
        self.expr, self.diff, self.error = expr, diff, error
        self.exact_below, self.unordered = exact_below, unordered

    def answer(self, relation):
        """The answer when it holds for every size (NaN or an infinity), else None."""
        if self.unordered:
            return False
        if self.expr.is_Number:
            return relation(self.expr, 0)
        return None

    def margin(self, sign):
        """Integer-valued expression < 0 where ``a - b`` has the sign ``sign`` (+1 or -1)
        by more than Python's rounding error: the answer is Python's there."""
        return integer_valued(self.error - sign * self.diff)


class NotExact(Exception):
    """A comparison whose Python answer cannot be followed by a guard (a size in a
    denominator, an infinity inside a size expression)."""


def difference(a, b, symbols):
    """The :class:`Difference` of ``a`` (a sympy expression) and ``b`` (an int, float,
    NumPy number or sympy expression) when the comparison involves ``symbols``, else
    None (a comparison with a str, None, ...: answered structurally by sympy)."""
    side_b = _operand(b)
    if side_b is None or not isinstance(a, sympy.Expr):
        return None
    value_b, digits_b, rounded_b = side_b
    if not (a.free_symbols | value_b.free_symbols) & symbols:
        return None
    if value_b is sympy.nan:
        return Difference(None, unordered=True)
    if value_b.is_infinite:      # (a side of sizes is finite: decided for every size)
        return Difference(sympy.Integer(-1 if value_b.is_extended_positive else 1))
    if a.has(sympy.Float):
        a = _exact_floats(a)
        rounded_a = True
    else:
        rounded_a = a.is_integer is not True
    diff = sympy.expand(a - value_b)
    if diff.is_Number:
        return Difference(diff)
    if not (rounded_a or rounded_b or digits_b < _FLOAT64_DIGITS):
        return Difference(integer_valued(diff))     # (Python compares ints exactly)
    return _rounded_difference(a, value_b, diff, min(digits_b, _FLOAT64_DIGITS))


def integer_valued(diff):
    """``diff`` as an integer-valued expression of the same sign (its numerator times
    its denominator)."""
    num, den = sympy.fraction(sympy.together(diff))
    if den.is_Number:
        return sympy.expand(num) if den.is_positive else sympy.expand(-num)
    return sympy.expand(num * den)


def _operand(b):
    """(exact sympy value, significand digits Python compares it in, rounded?) of a
    comparison's other side, or None when it is not a number or size expression."""
    if isinstance(b, sympy.Basic):
        if not isinstance(b, sympy.Expr):
            return None
        if b.has(sympy.Float):
            return _exact_floats(b), _FLOAT64_DIGITS, True
        return b, math.inf, b.is_integer is not True
    if type(b) is float:            # (Python: an int against a float is exact)
        return _exact_float(b), math.inf, False
    if isinstance(b, np.floating):  # (NumPy: an int is converted to b's dtype first)
        return _exact_float(float(b)), np.finfo(b.dtype).nmant + 1, False
    try:
        return sympy.Integer(operator.index(b)), math.inf, False
    except TypeError:
        return None


def _exact_float(x):
    if math.isnan(x):
        return sympy.nan
    if math.isinf(x):
        return sympy.oo if x > 0 else -sympy.oo
    return sympy.Rational(x)    # (exact: a float is a binary fraction)


def _exact_floats(expr):
    """``expr`` with each float replaced by its exact binary value."""
    if expr.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        raise NotExact(f"the size expression {expr} holds an infinity or NaN")
    return expr.xreplace({f: sympy.Rational(f) for f in expr.atoms(sympy.Float)})


def _rounded_difference(a, b, diff, digits):
    """The Difference of sides that Python rounds (see the module docstring)."""
    terms = [_term(t) for side in (a, b) for t in sympy.Add.make_args(sympy.expand(side))]
    if not all(m.is_integer for _, m in terms):     # (a size in a denominator, sqrt(n))
        raise NotExact(f"the comparison of {a} with {b} has a term that is not a rational "
                       f"multiple of an integer expression of sizes")
    lcm = math.lcm(*(c.q for c, _ in terms))
    magnitude = sum((abs(c) * m for c, m in terms), sympy.Integer(0))
    # K roundings of a relative 2^-digits each (K: the sides' operations, conversions
    # and the comparison's own), on terms of at most ``magnitude`` in all
    roundings = sum(sympy.count_ops(s) for s in (a, b)) + 2
    error = magnitude * sympy.Rational(2 * roundings, 2 ** digits)
    # binary fractions: every partial result is a multiple of 1/L below 2^digits: exact
    exact_below = integer_valued(magnitude * lcm - 2 ** digits) \
        if lcm & (lcm - 1) == 0 else None
    return Difference(integer_valued(diff), diff, error, exact_below)


def _term(t):
    """(rational coefficient, magnitude of the rest) of one term of a sum of sizes."""
    coeff, rest = t.as_coeff_Mul()
    if not coeff.is_Rational:
        raise NotExact(f"the size term {t} has a coefficient {coeff} that is not a number")
    if rest.is_nonnegative:
        return coeff, rest
    return coeff, sympy.Abs(rest)
