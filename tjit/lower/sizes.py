"""Size expressions (ints or sympy expressions over size symbols) as int64 code.

:class:`SizeEmitter` walks one expression's forms and leaves the arithmetic to a
subclass, so the LLVM backend (llvmlite values) and the C renderer (C text) render the
same forms the same way: Symbol, Integer, Add, Mul (an exact rational quotient such as
``n*(n+1)/2`` divides), Pow with a positive integer exponent, floor/ceiling of a
quotient (floor division rounding toward -inf), Mod (``x - y * floor(x / y)``), Max,
Min. Each distinct expression is rendered once per kernel (a cache).
"""

import numpy as np

from tjit._sympy import sympy

__all__ = ["SizeEmitter"]


class SizeEmitter:
    """Renders size expressions; subclasses give the int64 arithmetic.

    Subclass hooks: ``const(v)``, ``symbol_value(name)`` (the parameter holding a size
    symbol), ``add``, ``mul``, ``div`` (exact), ``sub``, ``floordiv``, ``max``, ``min``
    (two operands each) and ``bind(value)`` (how a rendered non-trivial expression is
    kept: a named local in C, the value itself in LLVM). ``who`` names the renderer in
    errors."""

    who = "renderer"

    def __init__(self, symbols):
        self.symbols = symbols          # symbol name -> whatever symbol_value needs
        self.cache = {}

    def __call__(self, e):
        """The rendered value of ``e`` (an int, or a sympy expression)."""
        if isinstance(e, (int, np.integer)):
            return self.const(int(e))
        e = sympy.sympify(e)
        if e.is_Integer:
            return self.const(int(e))
        v = self.cache.get(e)
        if v is None:
            v = self.cache[e] = self.bind(self._emit(e))
        return v

    def _fold(self, fn, args):
        vals = [self(a) for a in args]
        out = vals[0]
        for v in vals[1:]:
            out = fn(out, v)
        return out

    def _emit(self, e):
        if e.is_Symbol:
            if e.name not in self.symbols:
                raise ValueError(f"{self.who}: size symbol {e.name!r} is not in the "
                                 f"kernel's size_symbols {sorted(self.symbols)}")
            return self.symbol_value(e.name)
        if e.is_Add:
            return self._fold(self.add, e.args)
        if e.is_Mul or (e.is_Pow and e.exp.is_negative):
            num, den = sympy.fraction(e)
            if den != 1:               # an exact quotient
                return self.div(self(num), self(den))
            return self._fold(self.mul, e.args)
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return self._fold(self.mul, [e.base] * int(e.exp))
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            num, den = sympy.fraction(sympy.together(e.args[0]))
            if isinstance(e, sympy.floor):
                return self.floordiv(self(num), self(den))
            return self.sub(self.const(0), self.floordiv(self(-num), self(den)))
        if isinstance(e, sympy.Mod):
            x, y = self(e.args[0]), self(e.args[1])
            return self.sub(x, self.mul(y, self.floordiv(x, y)))
        if isinstance(e, (sympy.Max, sympy.Min)):
            return self._fold(self.max if isinstance(e, sympy.Max) else self.min, e.args)
        raise NotImplementedError(f"{self.who}: cannot render size expression {e} "
                                  f"({type(e).__name__})")

    def bind(self, value):
        return value
