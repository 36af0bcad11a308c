"""What the user's Python code learns about symbolic sizes while a function is traced.

Dims of a symbolic trace are sympy expressions, and sympy answers ``==`` structurally:
``x.shape[0] % 2 == 0`` is ``Mod(s0, 2) == 0``, which sympy calls False for every size,
and a dict or set lookup hashes the expression, which matches no int key. A program
traced that way and reused for other sizes would be silently wrong. So while a trace
with symbolic sizes runs, the questions that the *user's* code asks about an expression
of those sizes (``==``, ``!=``, truthiness, hashing) are answered here:

- :class:`GuardingQuestions` (automatic dynamic shapes): the trace runs for one call's
  actual sizes, so ``==``, ``!=`` and truthiness are answered for those sizes and each
  answer is kept as a :class:`Guard` (an expression of the size symbols and whether it
  was zero). The program then serves only sizes that give every answer the same way
  (``dynamic_shapes.Pattern.bind`` checks them all in one generated function, ~1 us);
  other sizes get programs of their own. Hashing (a dict/set lookup: which key matched
  cannot be recorded as one expression) raises, and the caller falls back to one program
  per shape.
- :class:`RefusingQuestions` (user-declared ``polymorphic_shapes``): one program serves
  every size, so a question is answered only when sympy decides it for all sizes
  (``b + 1 == b`` is False for every ``b``); otherwise it raises
  :class:`InconclusiveDimensionError` naming the comparison (JAX's
  InconclusiveDimensionOperation; JAX itself answers an undecidable ``==`` with False).

Order comparisons (``<``, ``<=``, ``>``, ``>=``, and so ``min``/``max``/``sorted`` of sizes)
are answered the same way: at the traced sizes with a guard under automatic dynamic
shapes (``n > 3`` is a Python bool; the guard keeps ``n - 3 > 0`` and its answer), and,
for declared dims, only when the symbols' assumptions or the bounds of the roundings in
them (``size_bounds``: ``b // 2 <= b``, ``b % 3 < 3``, as JAX decides them) settle them. Comparisons with a
float, a NumPy number or a fraction of sizes (``n > 2.5``, ``n * 0.5 < 3``, ``n / 3 <=
1.5``, ``n == 4.0``) are answered exactly (``size_rounding``: the guard is an integer
condition, ``n > 2.5`` is ``2*n - 5 > 0``) where Python's float arithmetic provably gives
the exact answer, with guards that keep it so; sizes where rounding could decide it get a
program of their own. ``int()``, ``float()`` (``math.sqrt(n)``), ``range()`` and
``operator.index`` of a size expression are NOT answered: they would turn the size into
a constant that no guard can follow, so the trace raises and the family falls back to
one program per shape.

tjit's own shape rules ask too, where sympy cannot decide a question about derived dims
(``reshape`` of ``(n, 3)`` to ``(n // 2, 2, 3)``: is ``6*floor(n/2) == 3*n``?; does
``n // 2`` divide by 2?; is the derived dim ``n // 2`` a broadcasting 1?): they call
:func:`decide`, which under automatic dynamic shapes answers at the traced sizes with a
guard, and otherwise returns None (the rule then raises as for declared dims).

Guards compare an integer-valued expression with 0: a question about a fraction of
sizes (``n / 2 > 3``) is asked of its numerator times its denominator (same sign), so
that the exact integer evaluation at call time gives the same answer.

How: ``sympy.Basic.__eq__``, ``__ne__``, ``__hash__`` and ``sympy.Expr.__bool__`` are
wrapped once, when sympy is imported (``tjit._sympy``). Outside a symbolic trace the
wrapper costs one context-variable read; inside one, only calls whose caller is not
tjit's or a dependency's own code (those compare knowing that dims may be symbolic) are
answered here.
"""

import contextvars
import operator
import sys

from tjit._sympy import is_expr, sympy, when_loaded
from tjit.tracing import size_bounds, size_rounding
from tjit.tracing.errors import ConcretizationTypeError, InconclusiveDimensionError

_ACTIVE = contextvars.ContextVar("tjit_size_questions", default=None)

# modules whose comparisons of dims are made knowing that dims may be symbolic
_LIBRARIES = ("tjit", "sympy", "numpy", "opt_einsum", "scipy", "mpmath")


def _is_library(frame):
    name = frame.f_globals.get("__name__", "")
    return name.split(".", 1)[0] in _LIBRARIES


class SpecializeSizes(InconclusiveDimensionError):
    """A symbolic trace met sizes that need a program of their own (a derived dim that is
    a broadcasting 1 there): these shapes get one; the family stays dynamic."""


class Guard:
    """One answer a trace relied on: ``relation(expr, 0)`` (``expr``: an integer-valued
    expression of size symbols; ``relation``: ``operator.eq``, ``lt``, ``le``, ``gt`` or
    ``ge``) was ``answer``."""

    __slots__ = ("answer", "expr", "relation", "text")

    def __init__(self, expr, relation, answer, text):
        self.expr, self.relation, self.answer, self.text = expr, relation, answer, text

    def holds(self, env, evaluate):
        """Whether the sizes ``env`` give the same answer (``evaluate(expr, env)``: int)."""
        return self.relation(evaluate(self.expr, env), 0) is self.answer

    def __repr__(self):
        return self.text


class _Questions:
    """Answers for the duration of a ``with`` block (one trace)."""

    symbols = frozenset()

    def __enter__(self):
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, *exc):
        _ACTIVE.reset(self._token)
        return False

    def difference(self, a, b, text):
        """The :class:`size_rounding.Difference` of ``a`` and ``b`` when the comparison
        involves this trace's size symbols (and only them), else None."""
        try:
            d = size_rounding.difference(a, b, self.symbols)
        except size_rounding.NotExact as e:
            raise self._not_exact(text, e) from None
        if d is None or d.unordered or d.expr.is_Number:
            return d
        asked = d.expr.free_symbols | (d.error.free_symbols if d.error is not None else set())
        if asked - self.symbols:
            return None     # (symbols of another trace: not this program's question)
        return d

    def involves(self, expr):
        return isinstance(expr, sympy.Basic) and bool(expr.free_symbols & self.symbols)

    def equal(self, a, b, text):
        return self.compare(a, b, operator.eq, text)

    def compare(self, a, b, relation, text):
        """``relation(a, b)`` when it holds alike for every size (sympy or the sides'
        difference settles it); else the subclass's answer (:meth:`_rounded` where
        Python's float rounding could decide it, then :meth:`_unsettled`). None when the
        comparison is not about this trace's sizes (sympy answers it structurally)."""
        d = self.difference(a, b, text)
        if d is None:
            return None
        answer = d.answer(relation)
        if answer is None and d.error is None:  # (floor, ceiling, Mod: by their bounds)
            answer = size_bounds.decide(d.expr, relation)
        if answer is not None:
            return answer
        if d.error is not None:
            self._rounded(d, text)
        return self._unsettled(d.expr, relation, text)


class GuardingQuestions(_Questions):
    """Automatic dynamic shapes: answers at the trace's sizes ``env`` ({symbol: int}),
    each kept in ``guards``."""

    def __init__(self, env, evaluate):
        self.env, self.evaluate = env, evaluate
        self.symbols = frozenset(env)
        self.guards = []
        self._asked = set()

    def _unsettled(self, expr, relation, text):
        """At the traced sizes, kept as a guard."""
        return self.decide(expr, relation, text)

    def _rounded(self, d, text):
        """Guard that Python's float arithmetic gives the exact answer (size_rounding):
        sizes where it is exact, else sizes where the sides differ by more than the
        rounding error; sizes with neither get a program of their own."""
        # (a guard only where it holds: the answer does not rely on it being False)
        if d.exact_below is not None and self.evaluate(d.exact_below, self.env) < 0:
            self.decide(d.exact_below, operator.lt, f"{text} is exact in floats")
            return
        sign = self.evaluate(d.expr, self.env)
        if sign == 0:
            raise SpecializeSizes(f"{text}: its sides are equal at these sizes, where "
                                  f"Python's float rounding decides it")
        sign = 1 if sign > 0 else -1
        if not self.decide(d.margin(sign), operator.lt, f"{text} is beyond float rounding"):
            raise SpecializeSizes(f"{text}: at these sizes its sides are closer than "
                                  f"Python's float rounding error")

    def _not_exact(self, text, why):
        return ConcretizationTypeError(
            f"the comparison {text} of sizes has no exact integer answer that a guard can "
            f"follow ({why}), so this function gets one program per shape")

    def decide(self, expr, relation, text):
        if relation is operator.eq and expr.could_extract_minus_sign():
            expr = -expr    # (a == b and b == a: one guard)
        answer = relation(self.evaluate(expr, self.env), 0)
        if (expr, relation) not in self._asked:    # (each guard costs a call per new size)
            self._asked.add((expr, relation))
            self.guards.append(Guard(expr, relation, answer, f"{text} is {answer}"))
        return answer

    def hashed(self, expr):
        raise ConcretizationTypeError(
            f"the size expression {expr} was hashed (a dict or set lookup, or a cache "
            f"key): which key matches depends on the concrete size, so this function gets "
            f"one program per shape")


class RefusingQuestions(_Questions):
    """Declared ``polymorphic_shapes``: answers that hold for every size, else an error."""

    def __init__(self, symbols, where):
        self.symbols, self.where = frozenset(symbols), where

    def _inconclusive(self, text, diff):
        return InconclusiveDimensionError(
            f"{self.where}: the comparison {text} of symbolic dims has no single answer "
            f"for every size of the polymorphic dims {_names(diff)}; compare outside the "
            f"traced function, make the dim concrete in polymorphic_shapes, or leave "
            f"polymorphic_shapes out (automatic dynamic shapes then keep one program per "
            f"answer)")

    def _rounded(self, d, text):
        """Python's rounding decides it at large sizes: no answer for every size."""
        raise InconclusiveDimensionError(
            f"{self.where}: the comparison {text} of symbolic dims with a float or a "
            f"fraction is rounded by Python's float arithmetic at large sizes of the "
            f"polymorphic dims {_names(d.expr)}, so it has no single answer for every "
            f"size; compare integers (n > 2.5: n >= 3; n / 2 > 3: n > 6), or leave "
            f"polymorphic_shapes out (automatic dynamic shapes guard it)")

    def _unsettled(self, expr, relation, text):
        decided = _SIGN_RULES[relation](expr)
        if decided is not None:           # decided by the symbols' assumptions
            return bool(decided)
        raise self._inconclusive(text, expr)

    def _not_exact(self, text, why):
        return InconclusiveDimensionError(f"{self.where}: the comparison {text} of symbolic "
                                          f"dims cannot be decided exactly ({why})")

    def decide(self, expr, relation, text):
        return None     # (one program for every size: the rule raises its own error)

    def hashed(self, expr):
        raise InconclusiveDimensionError(
            f"{self.where}: the symbolic dim {expr} was hashed (a dict or set lookup): its "
            f"key differs from every int, so the lookup cannot be answered for every size "
            f"of the polymorphic dims {_names(expr)}; look up outside the traced function "
            f"or make the dim concrete in polymorphic_shapes")


# relation -> what the symbols' assumptions say about ``relation(diff, 0)`` (None: open)
_SIGN_RULES = {
    operator.eq: lambda d: d.is_zero,
    operator.lt: lambda d: d.is_negative,
    operator.le: lambda d: d.is_nonpositive,
    operator.gt: lambda d: d.is_positive,
    operator.ge: lambda d: d.is_nonnegative,
}


def guarding():
    """Whether a trace with automatic dynamic shapes is asking (answers become guards)."""
    return isinstance(_ACTIVE.get(), GuardingQuestions)


def decide(expr, relation, text):
    """For tjit's shape rules: ``relation(expr, 0)`` for a size expression ``expr`` that
    sympy cannot decide, answered at the traced sizes and kept as a guard under automatic
    dynamic shapes; None otherwise (no trace with sizes, or symbols that are not this
    trace's, or declared dims: the caller raises its InconclusiveDimensionError)."""
    q = _ACTIVE.get()
    if q is None or not is_expr(expr) or not q.involves(expr) or \
            expr.free_symbols - q.symbols:
        return None
    expr = sympy.expand(expr)
    if expr.is_Number:
        return relation(expr, 0)    # (cannot happen for an undecided question; kept exact)
    return q.decide(size_rounding.integer_valued(expr), relation, text)


def _names(expr):
    return ", ".join(sorted(str(s) for s in expr.free_symbols))


# -- the wrappers (installed once, when sympy is imported) --------------------------------
_basic_eq = _basic_hash = _expr_float = None    # sympy's own, kept by _install


def _eq(self, other):
    q = _ACTIVE.get()
    if q is not None and not _is_library(sys._getframe(1)):
        answer = q.equal(self, other, f"{self} == {other}")
        if answer is not None:
            return answer
    return _basic_eq(self, other)


def _ne(self, other):
    q = _ACTIVE.get()
    if q is not None and not _is_library(sys._getframe(1)):
        answer = q.equal(self, other, f"{self} == {other}")
        if answer is not None:
            return not answer
    # (as sympy's own __ne__, reflection included; ``self != other`` would recurse here)
    return not self == other  # noqa: SIM201


def _order(relation, symbol, original):
    def compare(self, other):
        q = _ACTIVE.get()
        if q is not None and not _is_library(sys._getframe(1)):
            answer = q.compare(self, other, relation, f"{self} {symbol} {other}")
            if answer is not None:
                return answer
        return original(self, other)
    compare.__name__ = original.__name__
    return compare


def _float(self):
    q = _ACTIVE.get()
    if isinstance(q, GuardingQuestions) and not _is_library(sys._getframe(1)) and \
            q.involves(self):
        raise ConcretizationTypeError(
            f"float() of the size expression {self} (float(n), math.sqrt(n), math.log(n), "
            f"...) makes it a constant of the program that no guard can follow, so this "
            f"function gets one program per shape; compare the size itself with a float "
            f"(n > 2.5, n * 0.5 < 3) where a float is only compared")
    return _expr_float(self)


def _hash(self):
    q = _ACTIVE.get()
    if q is not None and not _is_library(sys._getframe(1)) and q.involves(self):
        q.hashed(self)
    h = self._mhash     # (sympy's own fast path, inline: hashing is hot in sympy)
    return _basic_hash(self) if h is None else h


def _bool(self):
    q = _ACTIVE.get()
    if q is not None and not _is_library(sys._getframe(1)):
        answer = q.equal(self, 0, f"{self} == 0")
        if answer is not None:
            return not answer
    return True     # (Python's default for an object without __bool__ or __len__)


@when_loaded
def _install():
    global _basic_eq, _basic_hash, _expr_float
    if getattr(sympy.Basic, "_tjit_size_questions", False):
        return
    _basic_eq, _basic_hash = sympy.Basic.__eq__, sympy.Basic.__hash__
    _expr_float = sympy.Expr.__float__
    sympy.Basic.__eq__, sympy.Basic.__ne__, sympy.Basic.__hash__ = _eq, _ne, _hash
    sympy.Expr.__bool__, sympy.Expr.__float__ = _bool, _float
    # (floor and ceiling, which dims of ``n // 2`` are, define their own comparisons)
    for cls in (sympy.Expr, sympy.floor, sympy.ceiling):
        for name, relation, symbol in (("__lt__", operator.lt, "<"),
                                       ("__le__", operator.le, "<="),
                                       ("__gt__", operator.gt, ">"),
                                       ("__ge__", operator.ge, ">=")):
            if name in cls.__dict__:
                setattr(cls, name, _order(relation, symbol, cls.__dict__[name]))
    sympy.Basic._tjit_size_questions = True
