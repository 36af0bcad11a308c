"""The IR: typed variables, literals, equations, jaxprs; its printer, type checker and
two interpreters.

    { lambda a:f32[4]; b:f32[b,4]. let
        c:f32[b,4] = tanh b
        d:f32[b,4] = mul c 2.0:f32[]
      in (d,) }

``a`` before the ``;`` is a constant (a closed-over array), ``b`` an input.

* :func:`eval_jaxpr` binds each equation's primitive again, so interpreting a jaxpr
  can itself be traced (transformations compose because of this one loop).
* :func:`eval_jaxpr_reference` calls the primitives' reference implementations on
  an array namespace directly: the oracle for compiled code, and jit's interpreter.
"""

import collections
import re

import numpy as np

from tjit.tracing import pretty as pp
from tjit.tracing import source_info
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import new_array
from tjit.tracing.errors import TjitError
from tjit.tracing.shapes import contains_symbolic, substitute, substitute_params


class Var:
    """A variable of a jaxpr: an identity and an abstract value."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):   # (JAX's form: Var(id=140716682578816):float32[3])
        return f"Var(id={id(self)}):{self.aval._long()}"


class Literal:
    """A scalar constant written inline in an equation."""

    __slots__ = ("val", "aval", "_operand")

    def __init__(self, val, aval):
        self.val = val
        self.aval = aval
        self._operand = None

    def operand(self):
        """The value to bind when the equation is interpreted again: ``val`` as an
        Array of the literal's type, weak flag included (a bare NumPy scalar would bind
        as strongly typed, so ``x * 2.0`` re-bound under a transformation would stop
        being weak and promote a bfloat16 operand it meets later to float32)."""
        if self._operand is None:
            self._operand = new_array(np.asarray(self.val, self.aval.dtype),
                                      self.aval.weak_type)
        return self._operand

    def __repr__(self):
        return f"Literal({self.val})"


class DropVar(Var):
    """An output nobody reads (printed as ``_``)."""

    def __repr__(self):
        return "_"


class JaxprEqn:
    __slots__ = ("invars", "outvars", "primitive", "params", "source")

    def __init__(self, invars, outvars, primitive, params, source=None):
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = params
        self.source = source

    def replace(self, **kw):
        new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params, self.source)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self):
        return pp_eqn(self)


class Jaxpr:
    """constvars; invars. let eqns in outvars"""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.outvars]

    def __str__(self):
        return pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(self, *, print_shapes=True, custom_pp_eqn_rules=True, width=80,
                     use_color=False, source_info=False, name_stack=False,
                     print_effects=False):
        """The text, as JAX's ``Jaxpr.pretty_print``: ``print_shapes=False`` leaves the
        types out, ``custom_pp_eqn_rules=False`` prints every parameter, ``width`` is
        where lines break. (No colors: ``use_color`` is accepted and ignored.)"""
        for flag, on in (("source_info", source_info), ("name_stack", name_stack),
                         ("print_effects", print_effects)):
            if on:
                raise NotImplementedError(f"Jaxpr.pretty_print({flag}=True): tjit's printer "
                                          f"has no {flag} annotations; print without it")
        return pp_jaxpr(self, width, print_shapes, custom_pp_eqn_rules)


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr, consts):
        assert len(jaxpr.constvars) == len(consts)
        self.jaxpr = jaxpr
        self.consts = list(consts)

    @property
    def in_avals(self):
        return self.jaxpr.in_avals

    @property
    def out_avals(self):
        return self.jaxpr.out_avals

    @property
    def eqns(self):
        return self.jaxpr.eqns

    @property
    def literals(self):
        """The constvars' values (JAX's other name for ``consts``)."""
        return self.consts

    def __str__(self):
        return pp_jaxpr(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **kwargs):
        """As :meth:`Jaxpr.pretty_print` (the consts' values are not printed)."""
        return self.jaxpr.pretty_print(**kwargs)


# -- printer -------------------------------------------------------------------------------
# The text is JAX's: the same documents (tracing/pretty.py) laid out to 80 columns, the
# same variable names (a, b, ..., z, ba, ... in order of first appearance, one sequence
# through the jaxpr and all jaxprs nested in it), "_" for a top-level result nobody reads,
# and a sub-jaxpr that appears more than once, or has more than 10 equations, printed
# once on top as "let jaxpr = { ... } in" and cited by name.

class _PpContext:
    """Names of variables and of the sub-jaxprs printed on top (JAX's JaxprPpContext)."""

    def __init__(self, names=None):
        self.names = dict(names or {})
        self.shared = {}            # Jaxpr -> its name, printed once on top
        self.reserved = set()       # those names, never given to a variable
        self._count = 0

    def __call__(self, v):
        if type(v) is Literal:
            return _literal_str(v)
        if isinstance(v, DropVar):
            return "_"
        name = self.names.get(v)
        if name is None:
            while True:
                name = _encode(self._count)
                self._count += 1
                if name not in self.reserved:
                    break
            self.names[v] = name
        return name


class _PpSettings:
    __slots__ = ("print_shapes", "custom_rules")

    def __init__(self, print_shapes=True, custom_rules=True):
        self.print_shapes = print_shapes
        self.custom_rules = custom_rules


def _encode(i):
    letters = "abcdefghijklmnopqrstuvwxyz"
    s = ""
    while True:
        s = letters[i % 26] + s
        i //= 26
        if i == 0:
            return s


def _literal_str(lit):
    v = lit.val
    val = str(np.asarray(v).item()) if np.ndim(v) == 0 else "[...]"
    return f"{val}:{lit.aval.str_short()}"


def _pp_vars(vs, ctx, st, separator="", typed=False):
    if typed and st.print_shapes:
        docs = [pp.text(f"{ctx(v)}:{v.aval.str_short()}") for v in vs]
    else:
        docs = [pp.text(ctx(v)) for v in vs]
    if len(docs) < 2:   # (no break in it: the same layout as the group JAX builds)
        return docs[0] if docs else pp.nil()
    return pp.nest(2, pp.group(pp.join(pp.text(separator) + pp.group(pp.brk()), docs)))


def _pp_value(v, ctx, st):
    """A parameter's value: sub-jaxprs laid out as jaxprs, anything else as text."""
    if not _has_jaxpr(v):
        return pp.text(_value_text(v))
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return _pp_jaxpr(_open(v), ctx, st)
    items = pp.join(pp.brk(), [_pp_jaxpr(_open(j), ctx, st) for j in v])
    return pp.group(pp.concat([pp.nest(2, pp.concat([pp.text("("), pp.brk(""), items])),
                               pp.brk(""), pp.text(")")]))


def _has_jaxpr(v):
    """Whether :func:`_pp_value` lays ``v`` out as jaxprs: a jaxpr or a tuple of them (an
    empty tuple counts, as JAX's printer counts it: "()" either way). Anything else is
    the one line :func:`_value_text` writes."""
    return isinstance(v, (Jaxpr, ClosedJaxpr)) or (
        type(v) is tuple and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v))


def _value_text(v):
    """The text of a parameter value that holds no jaxpr."""
    if isinstance(v, frozenset):
        return f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})"
    if isinstance(v, type) and issubclass(v, np.generic):   # a scalar type: its dtype's name
        return np.dtype(v).name
    if callable(v) and not isinstance(v, type) and hasattr(v, "__name__"):
        return v.__name__   # (a rule held by a param: its name, not its address)
    return _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), str(v))


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


def _open(j):
    return j.jaxpr if isinstance(j, ClosedJaxpr) else j


def _printed_params(eqn, st):
    """(name, value) pairs as printed: the primitive's ``pp_params`` rule where it has
    one (JAX's pp_eqn_rules: trivial values left out, ``name`` first), else all, sorted."""
    rule = eqn.primitive.pp_params if st.custom_rules else None
    return rule(eqn.params) if rule is not None else sorted(eqn.params.items())


def _pp_eqn(eqn, ctx, st):
    items = _printed_params(eqn, st)
    if any(_has_jaxpr(v) for _, v in items):
        return _eqn_doc(eqn, items, ctx, st)
    # No sub-jaxpr: the flat line is cheap to write, and most equations fit as one
    # (the document, built only where the line does not fit, lays out to this flat)
    outs = " ".join(f"{ctx(v)}:{v.aval.str_short()}" if st.print_shapes else ctx(v)
                    for v in eqn.outvars)
    params = " ".join(f"{k}={_value_text(v)}" for k, v in items)
    ins = " ".join(ctx(v) for v in eqn.invars)
    flat = (f"{outs} = " if eqn.outvars else "") + eqn.primitive.name + (
        f"[{params}]" if items else "") + " " + ins
    return pp.lazy(flat, lambda: _eqn_doc(eqn, items, ctx, st))


def _eqn_doc(eqn, items, ctx, st):
    lhs = _pp_vars(eqn.outvars, ctx, st, typed=True)   # (named before the params' jaxprs)
    params = pp.nil()
    if items:
        pairs = [pp.text(f"{k}=") + _pp_value(v, ctx, st) for k, v in items]
        params = pp.group(pp.concat([
            pp.nest(2, pp.concat([pp.text("["), pp.brk(""), pp.join(pp.brk(), pairs)])),
            pp.brk(""), pp.text("]")]))
    rhs = [pp.text(eqn.primitive.name), params, pp.text(" ") + _pp_vars(eqn.invars, ctx, st)]
    if not eqn.outvars:   # (no results, e.g. a check: no "=")
        return pp.concat(rhs)
    return pp.concat([lhs, pp.text(" = "), *rhs])


def _pp_skeleton(jaxpr, ctx, st):
    consts = _pp_vars(jaxpr.constvars, ctx, st, typed=True)
    ins = _pp_vars(jaxpr.invars, ctx, st, typed=True)
    eqns = pp.join(pp.brk("; "), [_pp_eqn(e, ctx, st) for e in jaxpr.eqns])
    outs = pp.concat([pp.text("("), _pp_vars(jaxpr.outvars, ctx, st, separator=","),
                      pp.text(",)" if len(jaxpr.outvars) == 1 else ")")])
    return pp.group(pp.nest(2, pp.concat([
        pp.text("{ lambda "), consts, pp.text("; "), ins, pp.text(". let"),
        pp.nest(2, pp.brk() + eqns), pp.brk(), pp.text("in "), outs])) + pp.text(" }"))


def _pp_jaxpr(jaxpr, ctx, st):
    name = ctx.shared.get(jaxpr)
    return pp.text(name) if name is not None else _pp_skeleton(jaxpr, ctx, st)


def _jaxprs_in(params):
    for p in params.values():
        for sub in (p if isinstance(p, tuple) else (p,)):
            if isinstance(sub, (Jaxpr, ClosedJaxpr)):
                yield _open(sub)


def _toplevel_context(jaxpr):
    """The context to print ``jaxpr`` in, and the sub-jaxprs it prints on top: those met
    twice in a breadth-first walk, a jaxpr of more than 10 equations counting twice.
    (JAX names them after a ``name`` param, which only its jit primitive has; tjit
    inlines nested jits, so every one is "jaxpr", "jaxpr1", ...)"""
    used = {v for v in jaxpr.outvars if type(v) is not Literal}
    unread = {}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                unread[v] = "_"
        used.update(v for v in eqn.invars if type(v) is not Literal)
    ctx = _PpContext(unread)
    counts, queue = {}, collections.deque([jaxpr])
    while queue:
        j = queue.popleft()
        counts[j] = counts.get(j, 0) + (2 if j is not jaxpr and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            queue.extend(_jaxprs_in(eqn.params))
    shared = []
    for j, c in counts.items():
        if c > 1:
            name = "jaxpr" if not shared else f"jaxpr{len(shared)}"
            ctx.shared[j] = name
            ctx.reserved.add(name)
            shared.append((name, j))
    return ctx, shared


def pp_jaxpr_doc(jaxpr, print_shapes=True, custom_pp_eqn_rules=True):
    """``jaxpr`` as a document of tracing/pretty.py (``.format(width)`` gives the text)."""
    st = _PpSettings(print_shapes, custom_pp_eqn_rules)
    ctx, shared = _toplevel_context(jaxpr)
    docs = [pp.concat([pp.text(f"let {name} = "), _pp_skeleton(j, ctx, st), pp.text(" in"),
                       pp.brk()]) for name, j in shared]
    return pp.concat([*docs, _pp_skeleton(jaxpr, ctx, st)])


def pp_jaxpr(jaxpr, width=80, print_shapes=True, custom_pp_eqn_rules=True):
    """The text of ``jaxpr``, as JAX prints it: one line where it fits in ``width``
    columns, else an equation a line and parameters broken as they need."""
    return pp_jaxpr_doc(jaxpr, print_shapes, custom_pp_eqn_rules).format(width)


def pp_eqn(eqn, width=80):
    """One equation alone, its variables named afresh."""
    return _pp_eqn(eqn, _PpContext(), _PpSettings()).format(width)


def eqn_texts(jaxpr):
    """Each top-level equation of ``jaxpr`` printed as ``pp_jaxpr`` prints it (the same
    variable names), one string per equation: what views of compiled code cite."""
    st = _PpSettings()
    ctx, shared = _toplevel_context(jaxpr)
    for _, j in shared:   # (named first, as pp_jaxpr names them)
        _pp_skeleton(j, ctx, st)
    for v in list(jaxpr.constvars) + list(jaxpr.invars):
        ctx(v)
    return [_pp_eqn(e, ctx, st).format() for e in jaxpr.eqns]


# -- type checker ------------------------------------------------------------------------
class JaxprTypeError(TjitError, TypeError):
    """A jaxpr that does not type-check (check_jaxpr), as JAX's jax.errors.JaxprTypeError."""


def check_jaxpr(jaxpr):
    """Validate scoping and types: every var defined once before use, and every
    equation's outvars equal to its primitive's abstract evaluation of its invars."""
    if isinstance(jaxpr, ClosedJaxpr):
        if len(jaxpr.consts) != len(jaxpr.jaxpr.constvars):
            raise JaxprTypeError("closed jaxpr: number of consts and constvars differ")
        jaxpr = jaxpr.jaxpr
    defined = set()

    def define(v, where):
        if v in defined:
            raise JaxprTypeError(f"variable {v} defined twice ({where})")
        if not isinstance(v.aval, ShapedArray):
            raise JaxprTypeError(f"variable {v} has no ShapedArray type ({where})")
        defined.add(v)

    def read(v, where):
        if isinstance(v, Literal):
            return v.aval
        if v not in defined:
            raise JaxprTypeError(f"variable {v} used before definition in {where}")
        return v.aval

    for v in jaxpr.constvars:
        define(v, "constvars")
    for v in jaxpr.invars:
        define(v, "invars")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i} ({eqn.primitive.name})"
        in_avals = [read(v, where) for v in eqn.invars]
        for p in eqn.params.values():
            for sub in (p if isinstance(p, tuple) else (p,)):
                if isinstance(sub, (ClosedJaxpr, Jaxpr)):
                    check_jaxpr(sub)
        out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
        out = list(out) if eqn.primitive.multiple_results else [out]
        if len(out) != len(eqn.outvars):
            raise JaxprTypeError(f"{where}: {len(eqn.outvars)} outvars for {len(out)} results")
        for ov, aval in zip(eqn.outvars, out):
            if not _aval_matches(ov.aval, aval):
                raise JaxprTypeError(f"{where}: outvar typed {ov.aval} but the rule gives "
                                     f"{aval}")
            define(ov, where)
    for v in jaxpr.outvars:
        read(v, "outvars")


def _aval_matches(declared, computed):
    return declared.shape == computed.shape and declared.dtype == computed.dtype


# -- interpreters ----------------------------------------------------------------------------
def eval_jaxpr(jaxpr, consts, *args):
    """Interpret ``jaxpr`` by binding each primitive (traceable under any transform)."""
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: {len(jaxpr.invars)} inputs expected, got {len(args)}")
    return interpret_jaxpr(jaxpr, consts, args, _bind_eqn)


def _bind_eqn(eqn, ins):
    if eqn.source is not None:   # keep where it was first traced
        return source_info.bind_replaying(eqn.source, eqn.primitive, ins, eqn.params)
    return eqn.primitive.bind(*ins, **eqn.params)


def interpret_jaxpr(jaxpr, consts, args, apply):
    """The outputs of ``jaxpr`` on ``consts`` and ``args``, each equation evaluated by
    ``apply(eqn, inputs)`` (its result as the primitive's: a sequence where it has
    multiple results); literals read as operands. For interpreters that bind through
    their own rules (sparsify, checkify)."""
    env = {}

    def read(v):
        return v.operand() if type(v) is Literal else env[v]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        outs = apply(eqn, [read(v) for v in eqn.invars])
        if eqn.primitive.multiple_results:
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
        else:
            env[eqn.outvars[0]] = outs
    return [read(v) for v in jaxpr.outvars]


def eval_jaxpr_reference(jaxpr, consts, args, xp=np):
    """Run ``jaxpr`` with reference implementations on raw ``xp`` arrays (no tracing).

    Symbolic dims must have been substituted first (see :func:`specialize`).
    """
    env = {}
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = _raw(c)
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        ins = [v.val if type(v) is Literal else env[v] for v in eqn.invars]
        outs = eqn.primitive.impl(xp, *ins, **eqn.params)
        if eqn.primitive.multiple_results:
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
        else:
            env[eqn.outvars[0]] = outs
    return [v.val if type(v) is Literal else env[v] for v in jaxpr.outvars]


def _raw(c):
    return c._value if hasattr(c, "_value") else c


def is_polymorphic(jaxpr):
    """True if any aval or param in ``jaxpr`` (or its sub-jaxprs) has a symbolic dim."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    for v in list(jaxpr.invars) + list(jaxpr.outvars) + list(jaxpr.constvars):
        if not isinstance(v, Literal) and contains_symbolic(v.aval.shape):
            return True
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if contains_symbolic(v.aval.shape):
                return True
        for p in eqn.params.values():
            if contains_symbolic(p):
                return True
            for sub in (p if isinstance(p, tuple) else (p,)):
                if isinstance(sub, (Jaxpr, ClosedJaxpr)) and is_polymorphic(sub):
                    return True
    return False


def specialize(jaxpr, env):
    """A copy of ``jaxpr`` with every symbolic dim replaced using ``env`` {symbol: int}."""
    closed = isinstance(jaxpr, ClosedJaxpr)
    j = jaxpr.jaxpr if closed else jaxpr
    vmap = {}

    def var(v):
        if isinstance(v, Literal):
            return v
        nv = vmap.get(v)
        if nv is None:
            aval = v.aval
            shape = tuple(substitute(d, env) for d in aval.shape)
            nv = vmap[v] = type(v)(ShapedArray(shape, aval.dtype, aval.weak_type))
        return nv

    def param(p):
        if isinstance(p, (Jaxpr, ClosedJaxpr)):
            return specialize(p, env)
        if isinstance(p, tuple) and p and all(isinstance(x, (Jaxpr, ClosedJaxpr)) for x in p):
            return tuple(specialize(x, env) for x in p)
        return substitute_params(p, env)

    eqns = [JaxprEqn([var(v) for v in e.invars], [var(v) for v in e.outvars], e.primitive,
                     {k: param(p) for k, p in e.params.items()}, e.source) for e in j.eqns]
    new = Jaxpr([var(v) for v in j.constvars], [var(v) for v in j.invars],
                [var(v) for v in j.outvars], eqns)
    return ClosedJaxpr(new, jaxpr.consts) if closed else new


def subjaxprs(jaxpr):
    """Sub-jaxprs referenced by the params of ``jaxpr``'s equations."""
    for eqn in jaxpr.eqns:
        for p in eqn.params.values():
            for sub in (p if isinstance(p, tuple) else (p,)):
                if isinstance(sub, ClosedJaxpr):
                    yield sub.jaxpr
                elif isinstance(sub, Jaxpr):
                    yield sub
