"""Size expressions as C int64 code (the forms of ``tjit/lower/sizes.py``).

A kernel's symbolic sizes are int64 parameters, one per ``Kernel.size_symbols`` entry,
so one compiled kernel serves every size. :class:`Sizes` renders each distinct
expression once, as a ``const`` local at the top of the kernel (``z0, z1, ...``), and
hands back its name; ints are literals.
"""

import re

from tjit.lower.sizes import SizeEmitter

__all__ = ["Sizes", "param_name"]


def param_name(symbol):
    """The C parameter that holds size symbol ``symbol``."""
    return "n_" + re.sub(r"\W", "_", str(symbol))


class Sizes(SizeEmitter):
    """Renders size expressions for one kernel; ``decls()`` gives the locals."""

    who = "C renderer"

    def __init__(self, symbols, i64, floordiv):
        super().__init__({str(s): param_name(s) for s in symbols})
        self.i64 = i64                 # the dialect's int64 spelling
        self.floordiv_name = floordiv  # () -> name of the floor-division helper
        self.lines = []

    def decls(self):
        return list(self.lines)

    def bind(self, text):
        name = f"z{len(self.lines)}"
        self.lines.append(f"const {self.i64} {name} = {text};")
        return name

    def const(self, v):
        return str(v) if 0 <= v < 2**31 else f"(({self.i64}){v})"

    def symbol_value(self, name):
        return self.symbols[name]

    def add(self, x, y):
        return f"({x} + {y})"

    def sub(self, x, y):
        return f"({x} - {y})"

    def mul(self, x, y):
        return f"({x} * {y})"

    def div(self, x, y):
        return f"({x} / {y})"

    def floordiv(self, x, y):
        return f"{self.floordiv_name()}({x}, {y})"

    def max(self, x, y):
        return f"({x} > {y} ? {x} : {y})"

    def min(self, x, y):
        return f"({x} < {y} ? {x} : {y})"
