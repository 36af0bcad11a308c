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
are tracked, ``tracing/size_questions.py``). A second function, generated from the
templates once per program (:meth:`RunnerLayout._compile_fill`), builds every shape, slot
size, kernel iteration space and gemm extent tuple from those values in straight-line
code: a new size binding pays two Python calls for all of its sizes instead of a loop per
value and per step (on the MLP of ``benchmarks/bench_dynamic_shapes.py`` ~22 -> ~4 us).
"""

from tjit._sympy import sympy
from tjit.xla_like.plan import DotStep, concrete


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
        self.templated_values = [v for v, _ in self.shape_templates]
        self.slot_template = self._template(prog.slot_sizes)
        # id(kernel) -> its iteration space's template
        self.kernel_templates = {id(k): self._template(k.shape) for k in prog.kernels}
        # id(dot step) -> the template of its gemm's (B, M, K, N) (plan.GemmSpec)
        self.dot_templates = {}
        for s in prog.steps:
            if isinstance(s, DotStep):
                lhs, rhs = (prog.values[v].shape for v in s.ins[:2])
                self.dot_templates[id(s)] = self._template(s.gemm_spec(lhs, rhs).bmkn)
        # (value index, slot, value) of each value that lives in a temporary slot
        self.slot_values = [(self.index[v], slot, v) for v, slot in prog.slot_of.items()]
        self.slot_indices = frozenset(k for k, _, _ in self.slot_values)
        self.symbolic = bool(self.exprs)
        exprs = list(self.exprs)
        syms = sorted({s for e in exprs for s in e.free_symbols}, key=lambda s: s.name)
        self._names = [s.name for s in syms]
        self._fn = sympy.lambdify(syms, exprs, modules="math") if exprs else None
        self._fill = self._compile_fill()
        self._static = None if self.symbolic else self._sized(())

    def _template(self, dims):
        out = []
        for d in dims:
            if isinstance(d, int):
                out.append(int(d))
            else:
                out.append(~self.exprs.setdefault(d, len(self.exprs)))
        return tuple(out)

    def _compile_fill(self):
        """``fill(v)``: from the expressions' values ``v``, the shapes of the values
        with symbolic dims (in ``shape_templates`` order), the slots' bytes, the
        kernels' iteration spaces and the dots' gemm extents (in ``kernel_templates``
        and ``dot_templates`` order), as one generated function of tuple displays."""
        def dims(template):
            return "(" + "".join(f"{d}, " if d >= 0 else f"v[{~d}], " for d in template) + ")"

        def seq(templates):
            return "(" + "".join(dims(t) + ", " for t in templates) + ")"
        body = ", ".join([seq(t for _, t in self.shape_templates),
                          "[" + dims(self.slot_template)[1:-1] + "]",
                          seq(self.kernel_templates.values()),
                          seq(self.dot_templates.values())])
        scope = {}
        exec(f"def fill(v):\n    return {body}\n", scope)  # noqa: S102 (ints and v[i] only)
        return scope["fill"]

    def at(self, env):
        """``({value: shape}, [bytes of each temporary slot], sized)`` at the binding
        ``env``; ``sized`` (the expressions' values, and the kernels' iteration spaces
        and dots' gemm extents at them) goes to :meth:`kernel_shape`/:meth:`dot_bmkn`."""
        if not self.symbolic:
            return dict(self.static_shapes), list(self.slot_template), self._static
        vals = self._values(env)
        shapes, slots, kernels, dots = self._fill(vals)
        sized = SizedValues(vals, shapes, slots, dict(zip(self.kernel_templates, kernels)),
                            dict(zip(self.dot_templates, dots)))
        shapes = dict(self.static_shapes)
        shapes.update(zip(self.templated_values, sized.shapes))
        return shapes, slots, sized

    def _sized(self, vals):
        shapes, slots, kernels, dots = self._fill(vals)
        return SizedValues(vals, shapes, slots, dict(zip(self.kernel_templates, kernels)),
                           dict(zip(self.dot_templates, dots)))

    def kernel_shape(self, kernel, sized):
        """The iteration space of one of the program's kernels, given ``at``'s ``sized``."""
        return sized.kernels[id(kernel)]

    def dot_bmkn(self, step, sized):
        """``(B, M, K, N)`` of one of the program's dot steps, given ``at``'s ``sized``."""
        return sized.dots[id(step)]

    def _values(self, env):
        by_name = {s.name: v for s, v in env.items()}
        try:
            raw = self._fn(*[by_name[n] for n in self._names])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            raw = [None] * len(self.exprs)
        for v in raw:
            if type(v) is not int:
                break
        else:
            return raw      # (the usual case: every value an int already)
        out = []
        for e, v in zip(self.exprs, raw):
            if type(v) is not int:
                if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 52:
                    v = int(v)
                else:   # (what compiled Python cannot say: sympy, or its error)
                    v = concrete(e, env)
            out.append(v)
        return out


class SizedValues:
    """What :meth:`RunnerLayout.at` evaluated at one binding: the size expressions'
    values (``vals``), the symbolic values' shapes, the slots' bytes, and per kernel
    (by id) its iteration space and per dot step its gemm's ``(B, M, K, N)``."""

    __slots__ = ("dots", "kernels", "shapes", "slots", "vals")

    def __init__(self, vals, shapes, slots, kernels, dots):
        self.vals, self.shapes, self.slots = vals, shapes, slots
        self.kernels, self.dots = kernels, dots
