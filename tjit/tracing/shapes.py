"""Dimensions and shape rules. A dim is a Python ``int`` or a sympy expression over
named, positive integer size symbols (``b``, ``2*b``, ``b*784``).

Every helper takes a fast path when all dims are ints, so concrete tracing never
creates sympy objects. Questions sympy's assumptions leave open are then tried by bounds
(``size_bounds``: ``2*ceiling(b/2) - 1 <= b``). When a rule cannot be decided for
symbolic dims (is ``b`` equal to ``c``?), it raises :class:`InconclusiveDimensionError` naming the dims;
under automatic dynamic shapes some of those questions are answered at the traced sizes
and kept as guards instead (``definitely_equal``, ``greater_equal``, ``exact_div``,
``is_one``; see ``size_questions.decide``).
"""

import functools
import operator
import re

from tjit._sympy import is_expr, sympy, when_loaded
from tjit.tracing import size_bounds, size_questions
from tjit.tracing.errors import (
    AxisError, ConcretizationTypeError, InconclusiveDimensionError, NegativeDimensionError,
    OperandShapeError, ShapeError, static_index, traced_static_error)


@functools.lru_cache(maxsize=None)
def symbol(name):
    """The size symbol called ``name`` (positive integer)."""
    return sympy.Symbol(name, integer=True, positive=True)


def is_symbolic(d):
    return not isinstance(d, int)


def is_concrete_shape(shape):
    return all(type(d) is int for d in shape)


def canonical_dim(d, op="tjit"):
    """Normalize a user-given dim: ints (incl. NumPy ints) to int, a symbolic dim to its
    canonical form (:func:`tracing.errors.static_index` with ``dims=True``)."""
    if type(d) is int:
        return d
    return static_index(d, "shape", op, dims=True)


def canonical_shape(shape, op="tjit"):
    if isinstance(shape, int) or not hasattr(shape, "__iter__") or \
            getattr(shape, "ndim", None) == 0:   # one dim: int, sympy, 0-d (traced) array
        shape = (shape,)
    return tuple(canonical_dim(d, op) for d in shape)


def nonnegative_shape(shape, op="tjit"):
    """``canonical_shape`` of a shape to create (a result's), whose concrete dims must not
    be negative: the check every creating function shares, so eager calls, jit and the
    compiler never meet a negative size."""
    shape = canonical_shape(shape, op)
    for d in shape:
        if type(d) is int and d < 0:
            raise NegativeDimensionError(f"{op}: negative dimensions are not allowed, got "
                                         f"shape {shape_str(shape)}")
    return shape


def static_ints(values, what, op="tjit"):
    """``values`` (window sizes, strides, a permutation...) as a tuple of Python ints,
    ``operator.index`` on each: a float is an error, not truncated (2.5 read as 2)."""
    values = tuple(values)
    try:
        return tuple(operator.index(v) for v in values)
    except ConcretizationTypeError:
        traced = next(v for v in values if hasattr(v, "_concretization_error"))
        raise traced_static_error(traced, what, op) from None
    except TypeError:
        raise TypeError(f"{op}: {what} must be integers, got {tuple(values)!r}") from None


def dim_str(d):
    return str(d).replace(" ", "") if is_symbolic(d) else str(d)


def shape_str(shape):
    return "(" + ", ".join(dim_str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


# -- comparisons that may be undecidable -------------------------------------------------
def _plain(d):
    return type(d) is int or getattr(d, "is_Symbol", False)


def definitely_equal(a, b):
    """True/False when decidable; raises when symbolic dims leave it open.

    Under automatic dynamic shapes a question about a derived dim (``n // 2 == m``,
    ``6*floor(n/2) == 3*n``) is answered at the traced sizes and kept as a guard
    (``size_questions.decide``); two plain size symbols are left open, so that the caller
    can retrace with one symbol for both (``dynamic_shapes.Family.widen``)."""
    if type(a) is int and type(b) is int:
        return a == b
    diff = sympy.simplify(sympy.sympify(a) - sympy.sympify(b))
    if diff == 0:
        return True
    if diff.is_number:
        return False
    if diff.is_positive or diff.is_negative:
        return False
    decided = size_bounds.decide(diff, operator.eq)   # (floor, ceiling, Mod: by bounds)
    if decided is not None:
        return decided
    if not (_plain(a) and _plain(b)):
        answer = size_questions.decide(diff, operator.eq, f"{dim_str(a)} == {dim_str(b)}")
        if answer is not None:
            return answer
    raise InconclusiveDimensionError(
        f"cannot decide whether symbolic dims {dim_str(a)} and {dim_str(b)} are equal")


def _plain(d):
    return type(d) is int or d.is_Symbol


def dims_equal(a, b):
    """Like definitely_equal but returns False instead of raising when undecidable."""
    try:
        return definitely_equal(a, b)
    except InconclusiveDimensionError:
        return False


def is_one(d):
    """Whether ``d`` is a broadcasting 1. A size symbol is not (automatic ones are >= 2;
    declared ones, as JAX's, are never taken as 1). A dim derived from symbols
    (``n // 2``, ``n - 1``) can be 1 at some sizes: under automatic dynamic shapes its
    answer at the traced sizes is a guard, and a derived dim that is 1 there gets a
    program for its exact shapes (``size_questions.SpecializeSizes``), since the compiled
    kernels take a symbolic dim as a full-size one."""
    if type(d) is int:
        return d == 1
    if not is_expr(d) or d.is_Symbol or not size_questions.guarding():
        return False    # (declared dims: never 1, as before; no sympy query per call)
    decided = (d - 1).is_zero
    if decided is not None:
        return decided
    if size_questions.decide(d - 1, operator.eq, f"{dim_str(d)} == 1"):
        raise size_questions.SpecializeSizes(
            f"the derived dim {dim_str(d)} is 1 at these sizes and broadcasts")
    return False


def size(shape):
    """Number of elements (int, or a sympy expression)."""
    n = 1
    for d in shape:
        n = n * d
    if not isinstance(n, int):
        n = sympy.expand(n)
        if n.is_Integer:
            return int(n)
    return n


def greater_equal(a, b):
    """a >= b, decided for symbols (all positive) where possible."""
    if type(a) is int and type(b) is int:
        return a >= b
    diff = sympy.simplify(sympy.sympify(a) - sympy.sympify(b))
    if diff.is_nonnegative:
        return True
    if diff.is_negative:
        return False
    decided = size_bounds.decide(diff, operator.ge)   # (floor, ceiling, Mod: by bounds)
    if decided is not None:
        return decided
    # (automatic dynamic shapes: the answer at the traced sizes, kept as a guard)
    answer = size_questions.decide(diff, operator.ge, f"{dim_str(a)} >= {dim_str(b)}")
    if answer is not None:
        return answer
    raise InconclusiveDimensionError(
        f"cannot decide whether symbolic dim {dim_str(a)} >= {dim_str(b)}")


def max_dim(a, b):
    """The larger of two dims (JAX's ``core.max_dim``): an int, the one that is larger
    for every size, or else the dim ``Max(a, b)``."""
    return _pick(a, b, True)


def min_dim(a, b):
    """The smaller of two dims (JAX's ``core.min_dim``), as :func:`max_dim`."""
    return _pick(a, b, False)


def _pick(a, b, larger):
    if type(a) is int and type(b) is int:
        return max(a, b) if larger else min(a, b)
    try:
        a_first = greater_equal(a, b) is larger
    except InconclusiveDimensionError:
        return (sympy.Max if larger else sympy.Min)(a, b)
    return a if a_first else b


def exact_div(num, den, what="reshape"):
    """num / den as a dim; raises ShapeError when it does not divide evenly."""
    if type(num) is int and type(den) is int:
        if den == 0 or num % den:
            raise ShapeError(f"{what}: {num} is not divisible by {den}")
        return num // den
    q = sympy.cancel(sympy.sympify(num) / sympy.sympify(den))
    if q.is_Integer:
        return int(q)
    num_q, den_q = sympy.fraction(q)
    if den_q != 1 or not q.is_polynomial() or not all(
            c.is_Integer for c in sympy.Poly(q, *q.free_symbols).coeffs()):
        # (automatic dynamic shapes: divisible at the traced sizes is a guard)
        divides = size_questions.decide(sympy.Mod(num, den), operator.eq,
                                        f"{dim_str(num)} % {dim_str(den)} == 0")
        if divides is None:
            raise InconclusiveDimensionError(
                f"{what}: cannot divide symbolic size {dim_str(num)} evenly by "
                f"{dim_str(den)}")
        if not divides:
            raise ShapeError(f"{what}: {dim_str(num)} is not divisible by {dim_str(den)}")
        return sympy.floor(sympy.sympify(num) / sympy.sympify(den))
    return q


# -- evaluating size expressions at run time -------------------------------------------------
# Programs evaluate their size expressions with ``sympy.lambdify(..., modules="math")``
# (plan.concrete, the CPU runner's layout, the C renderer's work estimates, guards). Its
# printer writes ``floor((n + 2)/3)`` as ``floor((1/3)*n + 2/3)``: floats, 2 at n = 7, so
# a program would silently get a wrong size. floor and ceiling of an integer over a
# positive integer are printed in integer arithmetic instead (``(n + 2) // 3``), for
# every lambdify of the process (installed when sympy is imported, as size_questions'
# wrappers are).
def _exact_rounding(original, template):
    def print_rounding(self, e):
        num, den = size_bounds.integer_fraction(e.args[0])
        if num is None:
            return original(self, e)
        return template.format(num=self._print(num), den=den)
    return print_rounding


@when_loaded
def _install_exact_rounding():
    from sympy.printing.pycode import PythonCodePrinter as printer
    if not getattr(printer, "_tjit_exact_sizes", False):
        printer._print_floor = _exact_rounding(printer._print_floor, "(({num}) // {den})")
        printer._print_ceiling = _exact_rounding(
            printer._print_ceiling, "(-((-({num})) // {den}))")
        printer._tjit_exact_sizes = True


# -- rules ---------------------------------------------------------------------------------
def broadcast_shapes(*shapes, op="broadcast", error=ShapeError):
    """NumPy broadcasting over int or symbolic dims. Shapes that do not broadcast raise
    ``error`` naming ``op`` (BroadcastShapeError for elementwise operations, which JAX
    reports as a TypeError; plain ShapeError for explicit broadcasting)."""
    if len(shapes) == 1:
        return tuple(shapes[0])
    if all(is_concrete_shape(s) for s in shapes):
        ndim = max(len(s) for s in shapes)
        out = []
        for i in range(ndim):
            d = 1
            for s in shapes:
                k = i - ndim + len(s)
                if k < 0:
                    continue
                e = s[k]
                if e == 1 or e == d:
                    continue
                if d == 1:
                    d = e
                    continue
                raise error(
                    f"{op}: shapes {', '.join(shape_str(s) for s in shapes)} cannot be "
                    f"broadcast together (dim {e} vs {d}); reshape or expand_dims so "
                    f"sizes match or are 1")
            out.append(d)
        return tuple(out)
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        d = 1
        for s in shapes:
            k = i - ndim + len(s)
            if k < 0:
                continue
            e = s[k]
            if is_one(e):
                continue
            if is_one(d):
                d = e
                continue
            try:
                same = definitely_equal(d, e)
            except InconclusiveDimensionError:
                raise InconclusiveDimensionError(
                    f"{op}: cannot broadcast symbolic dims {dim_str(d)} and {dim_str(e)} "
                    f"(shapes {', '.join(shape_str(s) for s in shapes)}); tjit cannot tell "
                    f"whether they are equal or 1") from None
            if not same:
                raise error(
                    f"{op}: shapes {', '.join(shape_str(s) for s in shapes)} cannot be "
                    f"broadcast together (dim {dim_str(e)} vs {dim_str(d)}); reshape or "
                    f"expand_dims so sizes match or are 1")
        out.append(d)
    return tuple(out)


def reshape_shape(old_shape, new_shape, op="reshape"):
    """Resolve a -1 in ``new_shape`` and check the element count."""
    new_shape = canonical_shape(new_shape, op)
    negs = [i for i, d in enumerate(new_shape) if type(d) is int and d == -1]
    if len(negs) > 1:
        raise ShapeError(f"{op}: can only specify one unknown dimension (-1), got "
                         f"{shape_str(new_shape)}")
    total = size(old_shape)
    if negs:
        rest = size([d for d in new_shape if not (type(d) is int and d == -1)])
        if rest == 0:
            raise ShapeError(f"{op}: cannot infer -1 in {shape_str(new_shape)} for an "
                             f"array of shape {shape_str(old_shape)} (a zero-size dim)")
        try:
            fill = exact_div(total, rest, op)
        except InconclusiveDimensionError:
            raise   # (divisible at some sizes only: say so, not "cannot reshape")
        except ShapeError:
            raise OperandShapeError(
                f"{op}: cannot reshape array of shape {shape_str(old_shape)} "
                f"(size {dim_str(total)}) into {shape_str(new_shape)}") from None
        new_shape = tuple(fill if i == negs[0] else d for i, d in enumerate(new_shape))
    for d in new_shape:
        if type(d) is int and d < 0:
            raise NegativeDimensionError(f"{op}: negative dimension in "
                                         f"{shape_str(new_shape)}")
    if not definitely_equal(size(new_shape), total):
        raise OperandShapeError(f"{op}: cannot reshape array of shape {shape_str(old_shape)} "
                                f"(size {dim_str(total)}) into shape {shape_str(new_shape)} "
                                f"(size {dim_str(size(new_shape))})")
    return new_shape


def normalize_axis(axis, ndim, op="tjit"):
    axis = static_index(axis, "axis", op)
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise AxisError(f"{op}: axis {axis} is out of bounds for an array of rank {ndim}")
    return axis % ndim if ndim else 0


def axis_tuple(axis):
    """``axis`` (one axis, or any sequence of them: tuple, list, range, a 1-D NumPy
    array) as a tuple, the way NumPy's ``normalize_axis_tuple`` reads it: an integer
    (anything with ``__index__``) is one axis, any other iterable lists axes. Entries are
    checked by :func:`normalize_axis`; a non-iterable stays a 1-tuple so its error says
    "axis must be an integer"."""
    if isinstance(axis, (tuple, list)):
        return tuple(axis)
    try:
        return (operator.index(axis),)
    except ConcretizationTypeError:  # a traced axis: normalize_axis names op and argument
        return (axis,)
    except TypeError:
        pass
    if isinstance(axis, (str, bytes)) or not hasattr(axis, "__iter__") or \
            getattr(axis, "ndim", 1) != 1:
        return (axis,)
    return tuple(axis)


def normalize_axes(axes, ndim, op="tjit"):
    if axes is None:
        return tuple(range(ndim))
    axes = axis_tuple(axes)
    out = tuple(normalize_axis(a, ndim, op) for a in axes)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: repeated axis in {tuple(axes)}")
    return out


# -- polymorphic specs -------------------------------------------------------------------
_INT_RE = re.compile(r"\d+")
_DIM_CHARS = re.compile(r"[A-Za-z_0-9+\-*/(),\s]*")
#: JAX's dim functions (``jax.export.symbolic_shape``'s grammar), and sympy's as
#: ``dim_str`` writes them (so a printed dim parses back); names of sympy's (read when a
#: spec is parsed: sympy is imported on first use)
_DIM_FUNCTIONS = {"floordiv": "floor_div", "mod": "Mod", "max": "Max", "min": "Min",
                  "floor": "floor", "ceiling": "ceiling", "Mod": "Mod", "Max": "Max",
                  "Min": "Min"}


def _dim_function(name):
    if name == "floor_div":
        return lambda a, b: sympy.floor(a / b)
    return getattr(sympy, name)


def parse_spec(spec, actual_ndim=None):
    """Parse ``"(b, 784)"`` / ``"(b, 2*b)"`` / ``"(b, ...)"`` into a tuple of dims.

    ``...`` or ``_`` entries stay None (to be filled from the actual argument). The
    parentheses are optional; ``"(b,)"`` is rank 1. A malformed spec raises ValueError
    naming the spec and pointing at the offending position.
    """
    if spec is None:
        return None
    if isinstance(spec, tuple):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"polymorphic_shapes: a spec is a string such as '(b, 784)', got "
                        f"{type(spec).__name__} {spec!r:.60}")
    entries = _spec_entries(spec)
    dims = [_parse_dim(spec, b, e) for b, e in entries]
    if dims.count(...) > 1:
        b = [b for (b, _), d in zip(entries, dims) if d is ...][1]
        raise _spec_error(spec, b + len(spec[b:]) - len(spec[b:].lstrip()),
                          "'...' may appear only once")
    if ... in dims:
        if actual_ndim is None:
            raise ValueError(f"polymorphic_shapes: {spec!r} has '...' but no rank to expand")
        i = dims.index(...)
        fill = actual_ndim - (len(dims) - 1)
        dims = dims[:i] + [None] * fill + dims[i + 1:]
    return tuple(dims)


def check_spec(spec):
    """Raise the error :func:`parse_spec` would give for a malformed ``spec`` (a string,
    a tuple of dims or None), before any argument's rank is known."""
    if spec is None or isinstance(spec, tuple):
        return
    if not isinstance(spec, str):
        parse_spec(spec)  # (the TypeError)
    entries = _spec_entries(spec)
    dims = [_parse_dim(spec, b, e) for b, e in entries]
    if dims.count(...) > 1:
        parse_spec(spec, len(dims))  # (the error that points at the second '...')


def _spec_error(spec, pos, why):
    return ValueError(f"polymorphic_shapes: cannot parse {spec!r}: {why} (at position {pos})"
                      f"\n    {spec}\n    {' ' * pos}^")


def _spec_entries(spec):
    """(begin, end) of each comma-separated entry, outer parentheses removed."""
    begin, end = len(spec) - len(spec.lstrip()), len(spec.rstrip())
    opened, match = [], {}
    for i in range(begin, end):
        if spec[i] == "(":
            opened.append(i)
        elif spec[i] == ")":
            if not opened:
                raise _spec_error(spec, i, "')' closes nothing")
            match[opened.pop()] = i
    if opened:
        raise _spec_error(spec, opened[-1], "'(' is never closed")
    if match.get(begin) == end - 1:   # the spec's own parentheses
        begin, end = begin + 1, end - 1
    return _split_entries(spec, begin, end)


def _split_entries(spec, begin, end):
    entries, depth, start = [], 0, begin
    for i in range(begin, end):
        depth += (spec[i] == "(") - (spec[i] == ")")
        if spec[i] == "," and depth == 0:
            entries.append((start, i))
            start = i + 1
    entries.append((start, end))
    if not spec[entries[-1][0]:end].strip() and len(entries) > 1:
        entries.pop()  # "(b,)": a trailing comma, as in a Python tuple
    if len(entries) == 1 and not spec[begin:end].strip():
        return []      # "()": rank 0
    for b, e in entries:
        if not spec[b:e].strip():
            raise _spec_error(spec, b, "empty dim (two commas in a row?)")
    return entries


def _parse_dim(spec, b, e):
    text = spec[b:e].strip()
    b += len(spec[b:e]) - len(spec[b:e].lstrip())
    if text in ("...", "_"):
        return None if text == "_" else ...
    if _INT_RE.fullmatch(text):
        return int(text)
    bad = _DIM_CHARS.match(text).end()
    if bad < len(text):
        raise _spec_error(spec, b + bad, f"unexpected {text[bad]!r} in dim {text!r}; a dim "
                          "is an int, a name, or +, -, *, //, floordiv, mod, max, min of them")
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)) - set(_DIM_FUNCTIONS)
    try:
        expr = sympy.sympify(text, locals={
            **{n: symbol(n) for n in names},
            **{k: _dim_function(v) for k, v in _DIM_FUNCTIONS.items()}})
    except Exception:  # noqa: BLE001  (sympy raises many kinds on bad text)
        raise _spec_error(spec, b, f"cannot parse dim {text!r}") from None
    if not isinstance(expr, sympy.Expr) or expr.has(sympy.Float) or expr.is_integer is False \
            or (expr.is_Number and expr < 0):
        raise _spec_error(spec, b, f"dim {text!r} is not a non-negative integer expression")
    return canonical_dim(expr)


def substitute(d, env):
    """Evaluate a dim given a dict {symbol: int}."""
    if type(d) is int:
        return d
    v = d.subs(env)
    if not v.is_Integer:
        raise InconclusiveDimensionError(f"dim {dim_str(d)} is not determined by {env}")
    return int(v)


def substitute_params(obj, env):
    """Replace symbolic dims anywhere inside tuples/lists of a params value."""
    if is_expr(obj):
        return substitute(obj, env)
    if isinstance(obj, tuple):
        return tuple(substitute_params(o, env) for o in obj)
    if isinstance(obj, list):
        return [substitute_params(o, env) for o in obj]
    return obj


def contains_symbolic(obj):
    if is_expr(obj):
        return not obj.is_Integer
    if isinstance(obj, (tuple, list)):
        return any(contains_symbolic(o) for o in obj)
    return False


def solve_dims(spec_shape, actual_shape, env, argname="argument"):
    """Bind symbols in ``spec_shape`` to ``actual_shape`` into ``env``; check the rest."""
    if len(spec_shape) != len(actual_shape):
        raise ShapeError(f"polymorphic_shapes: {argname} has shape {tuple(actual_shape)} "
                         f"but its spec {shape_str(spec_shape)} has rank {len(spec_shape)}")
    pending = []
    for s, a in zip(spec_shape, actual_shape):
        if s is None:
            continue
        if type(s) is int:
            if s != a:
                raise ShapeError(f"polymorphic_shapes: {argname} has shape "
                                 f"{tuple(actual_shape)}, spec requires {shape_str(spec_shape)}")
        elif s.is_Symbol:
            if s in env and env[s] != a:
                raise ShapeError(f"polymorphic_shapes: dim {s} is {env[s]} elsewhere but "
                                 f"{a} in {argname} of shape {tuple(actual_shape)}")
            env[s] = a
        else:
            pending.append((s, a))
    for s, a in pending:
        free = [x for x in s.free_symbols if x not in env]
        if len(free) == 1:
            sol = [v for v in sympy.solve(sympy.Eq(s, a), free[0]) if v.is_Integer and v > 0]
            if not sol:
                raise ShapeError(f"polymorphic_shapes: no positive integer {free[0]} makes "
                                 f"{dim_str(s)} == {a} in {argname}")
            env[free[0]] = int(sol[0])
        elif free:
            raise InconclusiveDimensionError(
                f"polymorphic_shapes: cannot solve {dim_str(s)} == {a}: give each symbol "
                f"on its own in some dim")
        if substitute(s, env) != a:
            raise ShapeError(f"polymorphic_shapes: {argname} has shape {tuple(actual_shape)} "
                             f"but dim {dim_str(s)} = {substitute(s, env)} given {env}")
    return env
