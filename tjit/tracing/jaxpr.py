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

import numpy as np

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

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


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
        return pp_eqn(self, _Namer())


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

    def pretty_print(self):
        return str(self)


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

    def pretty_print(self):
        return str(self)


# -- printer -------------------------------------------------------------------------------
class _Namer:
    """a, b, ..., z, ba, bb, ... in order of first appearance (JAX's scheme)."""

    def __init__(self):
        self.names = {}

    def __call__(self, v):
        if isinstance(v, Literal):
            return _literal_str(v)
        if isinstance(v, DropVar):
            return "_"
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = _encode(len(self.names))
        return name

    def typed(self, v):
        if isinstance(v, DropVar):
            return "_:" + v.aval.str_short()
        return f"{self(v)}:{v.aval.str_short()}"


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
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    elif isinstance(v, np.generic):
        v = v.item()
    return f"{v!r}:{lit.aval.str_short()}" if not isinstance(v, bool) else \
        f"{v}:{lit.aval.str_short()}"


def _param_str(v, indent):
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        inner = pp_jaxpr(v.jaxpr if isinstance(v, ClosedJaxpr) else v, indent + 2)
        return "\n" + " " * (indent + 2) + inner
    if isinstance(v, tuple) and v and all(isinstance(x, (Jaxpr, ClosedJaxpr)) for x in v):
        return "(" + "".join(_param_str(x, indent) for x in v) + "\n" + " " * indent + ")"
    if isinstance(v, np.dtype):   # dtype parameters by name, as JAX prints them (int32)
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    return str(v)


def pp_eqn(eqn, namer, indent=0):
    outs = " ".join(namer.typed(v) for v in eqn.outvars)
    params = ""
    if eqn.params:
        items = [f"{k}={_param_str(v, indent + 4)}" for k, v in sorted(eqn.params.items())]
        params = "[" + " ".join(items) + "]" if not any("\n" in s for s in items) else \
            "[\n" + "\n".join(" " * (indent + 4) + s for s in items) + "\n" + " " * indent + "]"
    ins = " ".join(namer(v) for v in eqn.invars)
    lhs = f"{outs} = " if outs else ""   # (no results, e.g. a check: JAX prints no "=")
    return f"{lhs}{eqn.primitive.name}{params} {ins}".rstrip()


def eqn_texts(jaxpr):
    """Each top-level equation of ``jaxpr`` printed as ``pp_jaxpr`` prints it (the same
    variable names), one string per equation: what views of compiled code cite."""
    namer = _Namer()
    for v in list(jaxpr.constvars) + list(jaxpr.invars):
        namer(v)
    return [pp_eqn(e, namer) for e in jaxpr.eqns]


def pp_jaxpr(jaxpr, indent=0, namer=None):
    namer = namer or _Namer()
    consts = " ".join(namer.typed(v) for v in jaxpr.constvars)
    ins = " ".join(namer.typed(v) for v in jaxpr.invars)
    head = f"{{ lambda {consts}; {ins}. let"
    eqns = [pp_eqn(e, namer, indent + 4) for e in jaxpr.eqns]
    outs = ", ".join(namer(v) for v in jaxpr.outvars)   # (JAX's commas: "in (b, c)")
    tail = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
    # A jaxpr that fits in 80 columns prints on one line, its equations separated by "; ",
    # as JAX prints them ({ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos b in (c,) })
    one_line = f"{head} {'; '.join(eqns)}{' ' if eqns else ''}{tail}"
    if indent + len(one_line) <= 80 and "\n" not in one_line:
        return one_line
    pad = " " * (indent + 4)
    body = "".join(f"\n{pad}{e}" for e in eqns)
    return f"{head}{body}\n{' ' * (indent + 2)}{tail}"


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
