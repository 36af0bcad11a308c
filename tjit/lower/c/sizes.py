"""Size expressions (ints or sympy expressions over size symbols) as C int64 code.

A kernel's symbolic sizes are int64 parameters, one per ``Kernel.size_symbols`` entry,
so one compiled kernel serves every value. :class:`Sizes` renders each distinct
expression once, as a ``const`` local at the top of the kernel (``z0, z1, ...``), and
hands back its name; ints are literals. Forms: Symbol, Integer, Add, Mul (with exact
rational quotients such as ``n*(n+1)/2``), Pow with a positive integer exponent,
floor/ceiling of a quotient, Mod, Max, Min (the forms of ``lower/llvm/codegen.py``).
"""

import re

import numpy as np
import sympy

__all__ = ["Sizes", "param_name"]


def param_name(symbol):
    """The C parameter that holds size symbol ``symbol``."""
    return "n_" + re.sub(r"\W", "_", str(symbol))


class Sizes:
    """Renders size expressions for one kernel; ``decls()`` gives the locals."""

    def __init__(self, symbols, i64, floordiv):
        self.symbols = {str(s): param_name(s) for s in symbols}
        self.i64 = i64                 # the dialect's int64 spelling
        self.floordiv = floordiv       # () -> name of the floor-division helper
        self.lines = []
        self.cache = {}

    def __call__(self, e):
        """A C expression (a literal or a local's name) with the value of ``e``."""
        if isinstance(e, (int, np.integer)):
            return self._lit(int(e))
        e = sympy.sympify(e)
        if e.is_Integer:
            return self._lit(int(e))
        name = self.cache.get(e)
        if name is None:
            text = self._render(e)
            name = self.cache[e] = f"z{len(self.lines)}"
            self.lines.append(f"const {self.i64} {name} = {text};")
        return name

    def decls(self):
        return list(self.lines)

    def _lit(self, v):
        return str(v) if 0 <= v < 2**31 else f"(({self.i64}){v})"

    def _join(self, op, args):
        return "(" + f" {op} ".join(self(a) for a in args) + ")"

    def _render(self, e):
        if e.is_Symbol:
            if e.name not in self.symbols:
                raise ValueError(f"C renderer: size symbol {e.name!r} is not in the "
                                 f"kernel's size_symbols {sorted(self.symbols)}")
            return self.symbols[e.name]
        if e.is_Add:
            return self._join("+", e.args)
        if e.is_Mul or (e.is_Pow and e.exp.is_negative):
            num, den = sympy.fraction(e)
            if den != 1:               # an exact quotient
                return f"({self(num)} / {self(den)})"
            return self._join("*", e.args)
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return self._join("*", [e.base] * int(e.exp))
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            num, den = sympy.fraction(sympy.together(e.args[0]))
            if isinstance(e, sympy.floor):
                return f"{self.floordiv()}({self(num)}, {self(den)})"
            return f"(-{self.floordiv()}({self(-num)}, {self(den)}))"
        if isinstance(e, sympy.Mod):
            x, y = self(e.args[0]), self(e.args[1])
            return f"({x} - {y} * {self.floordiv()}({x}, {y}))"
        if isinstance(e, (sympy.Max, sympy.Min)):
            cmp = ">" if isinstance(e, sympy.Max) else "<"
            out = self(e.args[0])
            for a in e.args[1:]:
                v = self(a)
                out = f"({out} {cmp} {v} ? {out} : {v})"
            return out
        raise NotImplementedError(f"C renderer: cannot render size expression {e} "
                                  f"({type(e).__name__})")
