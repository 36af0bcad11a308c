"""Deciding size questions by bounds, where sympy's assumptions cannot.

sympy decides ``b - 1 >= 0`` for a positive integer ``b`` from its assumptions, but not
``2*ceiling(b/2) - 1 <= b`` (the last index of ``x[::2]``), ``floor(b/2) <= b`` or
``Mod(b, 3) < 3``. JAX's shape polymorphism decides these by bounding each term
(jax/_src/export/shape_poly.py: ``floordiv`` and ``mod`` have known ranges). Here a size
expression is *relaxed* into one without rounding:

- ``floor(p/q)`` (``p`` integer-valued, ``q`` a positive int) is ``p/q - r`` with ``r`` in
  ``[0, (q-1)/q]``, ``ceiling(p/q)`` is ``p/q + r'`` and ``Mod(p, q)`` is ``q*r`` (the same
  ``r`` as ``floor(p/q)``'s, so ``q*floor(p/q) + Mod(p, q)`` relaxes to ``p``);
  a rounding of anything else takes ``r`` in ``[0, 1]``;
- ``Min``/``Max`` become a fresh variable between the bounds of their arguments;

and the relaxed polynomial is bounded term by term by interval arithmetic, with every size
symbol at least 1 (0 for a nonnegative one). An integer-valued difference ``d`` is then
``>= 0`` where its lower bound exceeds -1, which the integer steps of a rounding need
(``2*ceiling(b/2) - 1 - b`` relaxes to ``2*r - 1`` in ``[-1, 0]``: it is ``<= 0``).

:func:`decide` answers only what holds for every size; None leaves the question open (the
caller guards it or raises InconclusiveDimensionError).
"""

import math
import operator

from tjit._sympy import sympy


def decide(diff, relation):
    """``relation(diff, 0)`` (``operator.eq``, ``lt``, ``le``, ``gt`` or ``ge``) when the
    bounds of ``diff`` (a size expression) settle it for every size; else None.

    ``Min``/``Max`` (the dims of a clamped slice, ``x[:5]`` is ``min(b, 5)`` long) are
    split into cases: each takes one argument, which is then the least (greatest), and
    a case's conditions that bound one size symbol (``b - 5 <= 0``) narrow its range.
    The answer is the one every possible case gives."""
    cases = _cases(diff)
    if cases is None:
        return _decide_case(diff, relation, {})
    answers = set()
    for expr, ranges in cases:
        answers.add(_decide_case(expr, relation, ranges))
        if None in answers or len(answers) > 1:
            return None
    return answers.pop() if answers else None


_MAX_CASES = 16


def _cases(diff):
    """[(diff with each Min/Max replaced by one argument, {symbol: (lo, hi)})] over the
    feasible choices, or None when ``diff`` has no Min/Max (or too many)."""
    picks = list(diff.atoms(sympy.Min, sympy.Max))
    if not picks:
        return None
    if math.prod(len(m.args) for m in picks) > _MAX_CASES or \
            any(m.atoms(sympy.Min, sympy.Max) - {m} for m in picks):
        return None     # (nested or many: bounds of the whole only)
    cases = [({}, {})]
    for m in picks:
        sign = 1 if isinstance(m, sympy.Min) else -1    # (Min picks a where a - o <= 0)
        grown = []
        for choice, ranges in cases:
            for a in m.args:
                narrowed = dict(ranges)
                if all(_narrow(narrowed, sign * (a - o)) for o in m.args if o is not a):
                    grown.append(({**choice, m: a}, narrowed))
        cases = grown
    return [(diff.xreplace(choice), ranges) for choice, ranges in cases]


def _narrow(ranges, d):
    """Add the condition ``d <= 0`` to ``ranges`` where it bounds one size symbol
    linearly (``k*s + m``); False when it leaves that symbol no value."""
    d = sympy.expand(d)
    syms = d.free_symbols
    if len(syms) != 1:
        return True     # (a condition that is not kept only widens the case)
    s, = syms
    poly = d.as_poly(s)
    if poly is None or poly.degree() != 1:
        return True
    k, m = poly.all_coeffs()
    if not (k.is_Rational and m.is_Rational):
        return True
    lo, hi = ranges.get(s) or _variable(s, {}) or (None, None)
    if lo is None:
        return True
    if k > 0:
        hi = min(hi, sympy.floor(-m / k))
    else:
        lo = max(lo, sympy.ceiling(-m / k))
    ranges[s] = (lo, hi)
    return lo <= hi


def _decide_case(diff, relation, symbol_ranges):
    span = bounds(diff, symbol_ranges)
    if span is None:
        return None
    lo, hi = span
    if diff.is_integer:     # (an integer above -1 is >= 0; one below 1 is <= 0)
        lo = _up(lo)
        hi = _down(hi)
        if lo > hi:
            return None     # (cannot happen for a true bound; stay silent if it does)
    if relation is operator.eq:
        if lo > 0 or hi < 0:
            return False
        return True if lo == 0 and hi == 0 else None
    if relation is operator.ge:
        return True if lo >= 0 else False if hi < 0 else None
    if relation is operator.gt:
        return True if lo > 0 else False if hi <= 0 else None
    if relation is operator.le:
        return True if hi <= 0 else False if lo > 0 else None
    if relation is operator.lt:
        return True if hi < 0 else False if lo >= 0 else None
    return None


def bounds(expr, symbol_ranges=None):
    """(lower, upper) bounds of a size expression over all sizes (sympy numbers, ±oo), or
    None when it has a part that is not bounded here. ``symbol_ranges``: narrower
    ranges of some size symbols."""
    relaxed, ranges = _Relaxation().run(expr)
    if relaxed is None:
        return None
    ranges.update(symbol_ranges or {})
    lo = hi = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(relaxed)):
        span = _term_bounds(term, ranges)
        if span is None:
            return None
        lo, hi = lo + span[0], hi + span[1]
    return lo, hi


def _up(x):
    """The least integer >= x for finite x (an integer bound is tighter)."""
    return sympy.ceiling(x) if x.is_finite else x


def _down(x):
    return sympy.floor(x) if x.is_finite else x


class _Relaxation:
    """Replaces roundings, Mod, Min and Max by bounded fresh variables."""

    def __init__(self):
        self.ranges = {}
        self._floors = {}   # (p, q) -> r with floor(p/q) = p/q - r

    def run(self, expr):
        try:
            return self._relax(sympy.sympify(expr)), self.ranges
        except _Unbounded:
            return None, None

    def _fresh(self, lo, hi):
        r = sympy.Dummy("r", real=True)
        self.ranges[r] = (lo, hi)
        return r

    def _remainder(self, p, q):
        """r with floor(p/q) = p/q - r, shared by floor(p/q) and Mod(p, q)."""
        key = (p, q)
        if key not in self._floors:
            self._floors[key] = self._fresh(sympy.Integer(0), sympy.Rational(q - 1, q))
        return self._floors[key]

    def _relax(self, e):
        if e.is_Atom:
            return e
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            sign = 1 if isinstance(e, sympy.floor) else -1
            p, q = integer_fraction(sign * e.args[0])
            if p is None:   # (floor(x) is in (x - 1, x]: r in [0, 1])
                return self._relax(e.args[0]) - sign * self._fresh(sympy.Integer(0),
                                                                  sympy.Integer(1))
            return sign * (self._relax(p) / q - self._remainder(p, q))
        if isinstance(e, sympy.Mod):
            p, q = e.args
            if not (q.is_Integer and q > 0 and p.is_integer):
                raise _Unbounded
            return q * self._remainder(p, int(q))
        if isinstance(e, (sympy.Min, sympy.Max)):
            spans = [bounds(a) for a in e.args]
            if any(s is None for s in spans):
                raise _Unbounded
            pick = min if isinstance(e, sympy.Min) else max
            return self._fresh(pick(s[0] for s in spans), pick(s[1] for s in spans))
        return e.func(*[self._relax(a) for a in e.args])


class _Unbounded(Exception):
    pass


def integer_fraction(x):
    """(integer-valued numerator, positive int denominator) of ``x``, or (None, None)."""
    num, den = sympy.fraction(sympy.together(x))
    if den.is_Integer and den.is_positive and num.is_integer:
        return num, int(den)
    return None, None


def _term_bounds(term, ranges):
    """Interval of one product term: a number times powers of bounded variables."""
    coeff, rest = term.as_coeff_Mul()
    lo = hi = sympy.Integer(1)
    for factor in sympy.Mul.make_args(rest):
        if factor.is_Number:    # (the 1 of a constant term)
            lo, hi = lo * factor, hi * factor
            continue
        base, exp = factor.as_base_exp()
        span = _variable(base, ranges)
        if span is None or not (exp.is_Integer and exp > 0):
            return None
        span = _power(span, int(exp))
        lo, hi = _product((lo, hi), span)
    if coeff.is_negative:
        lo, hi = -hi, -lo
    return _scale(lo, abs(coeff)), _scale(hi, abs(coeff))


def _variable(v, ranges):
    if v in ranges:
        return ranges[v]
    if isinstance(v, sympy.Symbol) and v.is_integer:
        if v.is_positive:
            return sympy.Integer(1), sympy.oo
        if v.is_nonnegative:
            return sympy.Integer(0), sympy.oo
    return None


def _scale(x, c):
    return sympy.Integer(0) if c == 0 else x * c


def _power(span, k):
    lo, hi = span
    if lo >= 0 or k % 2:     # (monotonic there)
        return lo ** k, hi ** k
    return sympy.Integer(0), max(lo ** k, hi ** k)


def _product(a, b):
    corners = [_times(x, y) for x in a for y in b]
    return min(corners), max(corners)


def _times(x, y):
    return sympy.Integer(0) if x == 0 or y == 0 else x * y
