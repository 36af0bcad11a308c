"""What a runner needs of a program that is the same at every size binding, worked out
once per program rather than once per runner or binding.

A runner (``runner.ProgramRunner``) indexes a program's values, knows their dtypes, its
parameters' and outputs' positions and its constants: none of that depends on the
sizes. What does, the shapes of the values, the bytes of the temporary slots and the
kernels' iteration spaces, is a handful of distinct size expressions (``b``, ``512*b``,
``2048*b`` for an MLP at batch ``b``). The layout compiles all of them into one Python
function of the size symbols' values (``sympy.lambdify``), so :meth:`RunnerLayout.at`
evaluates a new binding with one call and fills the shape templates in: no sympy
expression is hashed or evaluated per dim (a sympy hash is slow here: sizes questions
are tracked, ``tracing/size_questions.py``).
"""

import sympy

from tjit.xla_like.plan import concrete


class RunnerLayout:
    """The size-independent facts of one program, and its sizes at a binding."""

    @classmethod
    def of(cls, prog):
        """The layout of ``prog``, made on first use and kept on the program."""
        layout = prog.__dict__.get("_runner_layout")
        if layout is None:
            layout = prog.__dict__["_runner_layout"] = cls(prog)
        return layout

    def __init__(self, prog):
        ids = list(prog.values)
        self.index = {v: n for n, v in enumerate(ids)}
        self.dtype = {v: prog.values[v].dtype for v in ids}
        self.param_slots = [self.index[v] for v in prog.params]
        self.out_slots = [self.index[v] for v in prog.outputs]
        self.consts = [(self.index[v], val.const) for v, val in prog.values.items()
                       if val.kind == "const"]
        self.exprs = {}             # distinct symbolic size expression -> its position
        self.static_shapes = {}     # value -> shape, for values of concrete shape
        self.shape_templates = []   # (value, dims: an int, or ~position of its expression)
        for v in ids:
            dims = self._template(prog.values[v].shape)
            if all(d >= 0 for d in dims):
                self.static_shapes[v] = dims
            else:
                self.shape_templates.append((v, dims))
        self.slot_template = self._template(prog.slot_sizes)
        # id(kernel) -> its iteration space's template
        self.kernel_templates = {id(k): self._template(k.shape) for k in prog.kernels}
        self.symbolic = bool(self.exprs)
        exprs = list(self.exprs)
        syms = sorted({s for e in exprs for s in e.free_symbols}, key=lambda s: s.name)
        self._names = [s.name for s in syms]
        self._fn = sympy.lambdify(syms, exprs, modules="math") if exprs else None

    def _template(self, dims):
        out = []
        for d in dims:
            if isinstance(d, int):
                out.append(int(d))
            else:
                out.append(~self.exprs.setdefault(d, len(self.exprs)))
        return tuple(out)

    def at(self, env):
        """``({value: shape}, [bytes of each temporary slot], values)`` at the binding
        ``env``; ``values`` (the expressions' values) go to :meth:`kernel_shape`."""
        if not self.symbolic:
            return dict(self.static_shapes), list(self.slot_template), ()
        vals = self._values(env)
        shapes = dict(self.static_shapes)
        for v, dims in self.shape_templates:
            shapes[v] = tuple(d if d >= 0 else vals[~d] for d in dims)
        return shapes, [d if d >= 0 else vals[~d] for d in self.slot_template], vals

    def kernel_shape(self, kernel, vals):
        """The iteration space of one of the program's kernels, given ``at``'s values."""
        return tuple(d if d >= 0 else vals[~d] for d in self.kernel_templates[id(kernel)])

    def _values(self, env):
        by_name = {s.name: v for s, v in env.items()}
        try:
            raw = self._fn(*[by_name[n] for n in self._names])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            raw = [None] * len(self.exprs)
        out = []
        for e, v in zip(self.exprs, raw):
            if type(v) is not int:
                if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 52:
                    v = int(v)
                else:   # (what compiled Python cannot say: sympy, or its error)
                    v = concrete(e, env)
            out.append(v)
        return out
