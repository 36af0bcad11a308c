"""Automatic differentiation: forward mode (jvp) and reverse mode (vjp = linearize +
transpose).

Forward mode. :class:`JVPTrace` carries (primal, tangent) pairs. For each primitive it
binds the primitive's jvp rule under its parent trace; tangents may be symbolic
:class:`Zero`, so inputs that do not vary cost nothing.

Reverse mode. :func:`linearize` runs the JVP of ``f`` *under* a
:class:`~tjit.transforms.partial_eval.LinearizeTrace`: primal values are known and
computed in the parent trace, tangents are unknown and recorded into a linear jaxpr
whose constants are the residuals. :func:`backward_pass` then walks that jaxpr in
reverse applying each primitive's transpose rule, binding under the current trace. So
under ``jit`` the forward pass, the residuals and the backward pass all land in the one
jaxpr being traced, and ``grad(grad(f))`` works because the backward pass is itself
traced by the outer differentiation.
"""

import functools

import numpy as np

from tjit.tracing.traceback_util import api_boundary
from tjit.tracing import argnums as _argnums
from tjit.tracing import dtypes
from tjit.tracing.core import (
    Array, PrimalTracer, Trace, Tracer, current_trace, escaped_tracer_error, get_aval,
    set_current_trace)
from tjit.tracing.jaxpr import Jaxpr, Literal
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.primitives.rules import (
    UndefinedPrimal, Zero, add_tangents, instantiate, tangent_aval)
from tjit.transforms.float0 import cotangent_in, tangent_in, tangent_out
from tjit.transforms.jit_of_transform import compiled, routed
from tjit.transforms.partial_eval import LinearizeTrace
from tjit.transforms import ref_primals
from tjit.transforms.vjp_object import VJP, saveable_flags


# -- forward mode ---------------------------------------------------------------------------
class JVPTracer(PrimalTracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return get_aval(self.primal)

    def _describe(self):
        return "a value being differentiated"

    def __repr__(self):   # (JAX 0.10.2's forms; grad's tangents are linearize tracers)
        primal = _short_repr(self.primal)
        t = self.tangent
        if isinstance(t, Tracer) and t._trace.name == "linearize":
            return f"GradTracer(primal={primal}, typeof(tangent)={get_aval(t).str_short()})"
        return f"JVPTracer(primal={primal}, tangent={_short_repr(t)})"

    __str__ = __repr__


def _short_repr(x):
    return repr(x) if isinstance(x, Tracer) else str(x)


class JVPTrace(Trace):
    """Propagates tangents alongside primal values."""

    name = "jvp"

    def __init__(self, parent, fun_name="<function>"):
        self.parent = parent
        self.fun_name = fun_name

    def to_pair(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, Tracer) and not x._trace.is_valid:
            raise escaped_tracer_error(x)
        return x, Zero.from_value(x)

    def wrap(self, primal, tangent):
        return primal if type(tangent) is Zero else JVPTracer(self, primal, tangent)

    def process_primitive(self, prim, args, params):
        primals, tangents = zip(*[self.to_pair(a) for a in args]) if args else ((), ())
        if all(type(t) is Zero for t in tangents):
            with set_current_trace(self.parent):
                return prim.bind(*primals, **params)
        if prim.jvp is None:
            raise NotImplementedError(
                f"Differentiation rule for '{prim.name}' not implemented"
                + (" (it is not differentiable)" if prim.not_differentiable else ""))
        with set_current_trace(self.parent):
            out, t_out = prim.jvp(list(primals), list(tangents), **params)
        if prim.multiple_results:
            return [self.wrap(o, t) for o, t in zip(out, t_out)]
        return self.wrap(out, t_out)


def _strip_aux(trace, store):
    """Auxiliary outputs are returned as primal values, as in JAX."""
    if store is not None and "aux" in store:
        leaves, td = tree_flatten(store["aux"])
        store["aux"] = tree_unflatten(td, [trace.to_pair(x)[0] if isinstance(x, Tracer)
                                           else x for x in leaves])


def jvp_flat(flat_fun, primals, tangents, name="<function>", store=None):
    """Forward mode on a flat function: returns (out_primals, out_tangents) where a
    tangent may be a symbolic Zero."""
    trace = JVPTrace(current_trace(), name)
    ins = [p if type(t) is Zero else JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    try:
        with set_current_trace(trace):
            outs = flat_fun(*ins)
        pairs = [trace.to_pair(o) for o in outs]
        _strip_aux(trace, store)
    finally:
        trace.invalidate()
    return [p for p, _ in pairs], [t for _, t in pairs]


def _flatten_fun(fun, in_tree, has_aux=False, name="the function"):
    """flat args -> flat outs; records the output tree (and aux) in ``store``."""
    store = {}

    def flat(*leaves):
        out = fun(*tree_unflatten(in_tree, leaves))
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"has_aux=True requires {name} to return a pair (output, "
                                f"auxiliary data), a two-element tuple, but it returned "
                                f"{_describe_value(out)}; return (output, aux) or drop "
                                f"has_aux")
            out, store["aux"] = out
        leaves_out, store["tree"] = tree_flatten(out)
        return leaves_out
    return flat, store


@api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode derivative: ``(fun(*primals), d fun(primals) . tangents)``.

    Args:
      fun: function of arrays (pytrees allowed).
      primals, tangents: tuples/lists of the same structure. An integer or boolean
        primal takes a tangent of dtype ``tjit.dtypes.float0`` (``np.zeros(shape,
        float0)``), as in JAX; an integer or boolean output's tangent is float0.
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primal and tangent arguments must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    jitted = compiled(fun, ("jvp", has_aux), functools.partial(_jvp_of, has_aux=has_aux))
    if jitted is not None:  # jvp(jit(f)): jit(jvp of f), traced once per signature
        return jitted(tuple(primals), tuple(tangents))   # (its trace checks the trees)
    flat_p, tree_p = tree_flatten(tuple(primals))
    flat_t, tree_t = tree_flatten(tuple(tangents))
    if tree_p != tree_t:
        raise TypeError(f"jvp: primal and tangent arguments must have the same tree "
                        f"structure; got {tree_p} and {tree_t}")
    flat_p = [_to_array(p) for p in flat_p]
    flat_t = [_weak_like(tangent_in(get_aval(p), t, i, "jvp", _to_array), get_aval(p))
              for i, (p, t) in enumerate(zip(flat_p, flat_t))]
    flat_fun, store = _flatten_fun(lambda *a: fun(*a), tree_p, has_aux, _name(fun))
    outs_p, outs_t = jvp_flat(flat_fun, flat_p, flat_t, _name(fun), store)
    outs_t = [_api_tangent(get_aval(p), t) for p, t in zip(outs_p, outs_t)]
    out_p = tree_unflatten(store["tree"], outs_p)
    out_t = tree_unflatten(store["tree"], outs_t)
    if has_aux:
        return out_p, out_t, store["aux"]
    return out_p, out_t


def _jvp_of(fun, has_aux):
    """``(primals, tangents) -> jvp(fun, primals, tangents)``: what ``jvp(jit(fun))``
    compiles."""
    def jvp_of_fun(primals, tangents):
        return jvp(fun, primals, tangents, has_aux=has_aux)
    jvp_of_fun.__name__ = f"jvp({_name(fun)})"
    return jvp_of_fun


def _name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def _api_tangent(aval, t):
    """A tangent or cotangent (maybe a Zero) as jvp/vjp/linearize return it: float0 for
    an integer or boolean primal, else an array of the primal's type (weak included)."""
    return _weak_like(tangent_out(aval, t), aval)


def _api_cotangent(aval, ct, real_outputs):
    """A cotangent as vjp returns it, with the weak type JAX's backward pass gives it.
    tjit's jvp rules make their constants strong, so the weak type is set here: a weakly
    typed primal gets a weak cotangent (what JAX's convert_element_type transpose
    restores after a promotion). The exception is a weak complex primal of a function
    whose outputs are all real. Its cotangent enters the complex domain through a
    transpose: of real, imag or abs (a strong complex) or of a complex-to-real convert
    (weak). tjit's backward pass gives those the weak types JAX's does, so they are kept
    (``grad(lambda z: jnp.real(z)**2)(3. + 4j)`` is strong, as in JAX)."""
    if real_outputs and aval.weak_type and dtypes.is_complex(aval.dtype):
        return tangent_out(aval, ct)
    return _api_tangent(aval, ct)


def _describe_value(x):
    """``x`` for an error message: an array's type (``float32[3]``) or a container's
    kind and length, never its whole contents."""
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of length {len(x)}"
    try:
        return f"a {get_aval(_to_array(x)).str_short()} array"
    except TypeError:
        return f"a {type(x).__name__}"


def _to_array(x):
    if isinstance(x, (Array, Tracer)):
        return x
    from tjit.lax._elementwise import asarray_for_lax
    return asarray_for_lax(x)


def _weak_like(x, aval):
    """``x`` weakly typed where its primal ``aval`` is (same dtype): a derivative has
    its primal's type, as in JAX (``grad(f)(3.0)`` is weak, so it does not promote a
    bfloat16 array it meets later)."""
    if not aval.weak_type or type(x) is Zero:
        return x
    a = get_aval(x)
    if a.weak_type or a.dtype != aval.dtype:
        return x
    from tjit.lax._elementwise import convert_element_type
    return convert_element_type(x, a.dtype, weak_type=True)


# -- reverse mode ----------------------------------------------------------------------------
def linearize_flat(flat_fun, primals, name="<function>", store=None):
    """Returns ``(out_primals, linear_closed_jaxpr, out_zero_mask)``: the jaxpr maps input
    tangents to the (non-zero) output tangents; its consts are the residuals."""
    lin = LinearizeTrace(current_trace(), name)
    jvp_trace = JVPTrace(lin, name)
    tangent_in = [lin.new_arg(tangent_aval(get_aval(p))) for p in primals]
    ins = [JVPTracer(jvp_trace, p, t) for p, t in zip(primals, tangent_in)]
    try:
        with set_current_trace(jvp_trace):
            outs = flat_fun(*ins)
        pairs = [jvp_trace.to_pair(o) for o in outs]
        _strip_aux(jvp_trace, store)
    finally:
        jvp_trace.invalidate()
    out_primals = [p for p, _ in pairs]
    zero_mask = [type(t) is Zero for t in (t for _, t in pairs)]
    try:
        out_tracers = [lin.to_tracer(t) for _, t in pairs if type(t) is not Zero]
    finally:
        lin.invalidate()
    return out_primals, lin.to_jaxpr(out_tracers), zero_mask


def backward_pass(jaxpr, consts, cts_out, wanted=None):
    """Transpose a linear jaxpr: cotangents of its outputs -> cotangents of its inputs.

    Equations whose inputs are all known (constants, literals, or computed from them) are
    evaluated forward first; the rest are linear and transposed in reverse order.
    ``wanted`` (one bool per input, or None: all): the inputs whose cotangents are
    needed; equations no wanted input reaches are not transposed (JAX's ``DontWant``),
    and the others' cotangents are zeros.
    """
    known = dict(zip(jaxpr.constvars, consts))

    def read(v):
        return v.operand() if type(v) is Literal else known[v]

    linear_eqns = []
    for eqn in jaxpr.eqns:
        if all(type(v) is Literal or v in known for v in eqn.invars):
            outs = eqn.primitive.bind(*[read(v) for v in eqn.invars], **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            known.update(zip(eqn.outvars, outs))
        else:
            linear_eqns.append(eqn)
    if wanted is None:
        wanted = [True] * len(jaxpr.invars)
    else:
        linear_eqns = _reached_from(jaxpr, wanted, linear_eqns)
    ct_env = {}

    def accumulate(v, ct):
        if type(v) is Literal or v in known or ct is None or type(ct) is Zero:
            return
        ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

    for v, ct in zip(jaxpr.outvars, cts_out):
        accumulate(v, ct)
    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(c is None for c in cts):
            continue
        prim = eqn.primitive
        if prim.transpose is None:
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for '{prim.name}' "
                f"not implemented")
        cts = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, cts)]
        args = [read(v) if type(v) is Literal or v in known else UndefinedPrimal(v.aval)
                for v in eqn.invars]
        cts_in = prim.transpose(cts if prim.multiple_results else cts[0], *args, **eqn.params)
        for v, ct in zip(eqn.invars, cts_in):
            accumulate(v, ct)
    return [ct_env.get(v, Zero(v.aval)) if w and type(v) is not Literal else Zero(v.aval)
            for v, w in zip(jaxpr.invars, wanted)]


def backward_pass_closed(closed, linear, known_vals, cts):
    """:func:`backward_pass` of a closed jaxpr linear in the inputs marked ``linear`` (one
    bool per input); its other inputs take ``known_vals``, in order. Returns the
    cotangents of the linear inputs (Zero allowed), for rules that transpose a call."""
    j = closed.jaxpr
    known_in = [v for v, lin in zip(j.invars, linear) if not lin]
    lin_in = [v for v, lin in zip(j.invars, linear) if lin]
    jj = Jaxpr(list(j.constvars) + known_in, lin_in, j.outvars, j.eqns)
    return backward_pass(jj, list(closed.consts) + list(known_vals), cts)


def _reached_from(jaxpr, wanted, eqns):
    """The equations of ``eqns`` that depend on a wanted input of ``jaxpr``."""
    reach = {v for v, w in zip(jaxpr.invars, wanted) if w}
    kept = []
    for eqn in eqns:
        if any(type(v) is not Literal and v in reach for v in eqn.invars):
            reach.update(eqn.outvars)
            kept.append(eqn)
    return kept


@api_boundary
def vjp(fun, *primals, has_aux=False, reduce_axes=(), saveable_args=True):
    """Reverse mode: returns ``(fun(*primals), vjp_fn)`` (and aux) where
    ``vjp_fn(cotangent)`` returns a tuple with one cotangent per primal argument.
    ``reduce_axes`` is deprecated in JAX, which accepts only its default ``()``.
    ``vjp_fn`` is a pytree of its residuals (JAX's VJP object, ``vjp_object.py``);
    ``saveable_args`` (a tuple-tree of bools over the arguments) leaves argument values
    out of its saved state, to be restored in ``vjp_fn.args_res`` before the call.

    As in JAX, integer and boolean primals get float0 cotangents (NumPy arrays of dtype
    ``tjit.dtypes.float0``), and an integer output's cotangent may be any value of its
    shape (float0 included): it is dropped."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated (as in JAX); "
                                  "sum the cotangents over the named axes with lax.psum")
    flat_p, in_tree = tree_flatten(primals)
    write_back = None
    if ref_primals.has_refs(flat_p):   # with respect to refs: ref_primals.py
        fun, flat_p, write_back = ref_primals.thread(fun, flat_p, in_tree)
    flat_p = [_to_array(p) for p in flat_p]
    flat_fun, store = _flatten_fun(lambda *a: fun(*a), in_tree, has_aux, _name(fun))
    out_primals, linear, zero_mask = linearize_flat(flat_fun, flat_p, _name(fun), store)
    if write_back is not None:
        write_back(lambda v: v.primal if isinstance(v, JVPTracer) else v)
    out_tree = store["tree"]
    out_avals = [get_aval(p) for p in out_primals]
    in_avals = [get_aval(p) for p in flat_p]
    real_outputs = not any(dtypes.is_complex(a.dtype) for a in out_avals)

    def backward(residuals, ct, wanted=None):
        cts, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(f"vjp: the cotangent must have the output's structure {out_tree},"
                            f" got {ct_tree}")
        cts = [cotangent_in(a, c, i, "vjp", _to_array)
               for i, (c, a) in enumerate(zip(cts, out_avals))]
        # an integer output's cotangent is dropped (a Zero: it has no tangent space)
        live = [Zero(tangent_aval(a)) if c is None else c
                for c, a, z in zip(cts, out_avals, zero_mask) if not z]
        cts_in = backward_pass(linear.jaxpr, residuals, live, wanted)
        return tree_unflatten(in_tree, [_api_cotangent(a, c, real_outputs)
                                        for c, a in zip(cts_in, in_avals)])

    if write_back is not None:   # (their gradients go into refs: VJP.with_refs)
        backward.ref_args = ref_primals.ref_arguments(primals)
    # a pytree of the residuals (JAX's VJP objects): it can leave and enter jitted code
    vjp_fn = VJP.from_residuals(backward, linear.consts, flat_p, in_tree,
                                saveable_flags(saveable_args, primals))
    out = tree_unflatten(out_tree, out_primals)
    if has_aux:
        return out, vjp_fn, store["aux"]
    return out, vjp_fn


def _zeros(aval):
    return instantiate(Zero(aval))


@api_boundary
def linearize(fun, *primals, has_aux=False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the linearized
    function (JAX's ``jax.linearize``). With ``has_aux`` ``fun`` returns ``(out, aux)``
    and the result is ``(out, f_jvp, aux)``; ``aux`` is not differentiated."""
    from tjit.tracing.jaxpr import eval_jaxpr
    flat_p, in_tree = tree_flatten(primals)
    flat_p = [_to_array(p) for p in flat_p]
    flat_fun, store = _flatten_fun(lambda *a: fun(*a), in_tree, has_aux, _name(fun))
    out_primals, linear, zero_mask = linearize_flat(flat_fun, flat_p, _name(fun), store)
    out_tree = store["tree"]

    def f_jvp(*tangents):
        flat_t, t_tree = tree_flatten(tangents)
        if t_tree != in_tree:
            raise TypeError(f"linearize: tangents must have the primals' structure {in_tree}")
        # checked as jvp does (a scalar would broadcast silently); float0 ones become zeros
        flat_t = [instantiate(tangent_in(get_aval(p), t, i, "linearize (calling the "
                                         "linearized function)", _to_array))
                  for i, (p, t) in enumerate(zip(flat_p, flat_t))]
        outs = iter(eval_jaxpr(linear.jaxpr, linear.consts, *flat_t))
        res = [_api_tangent(get_aval(p), Zero(tangent_aval(get_aval(p))) if z else next(outs))
               for p, z in zip(out_primals, zero_mask)]
        return tree_unflatten(out_tree, res)
    if has_aux:
        return tree_unflatten(out_tree, out_primals), f_jvp, store["aux"]
    return tree_unflatten(out_tree, out_primals), f_jvp


_VALUE_TYPES = (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)


@api_boundary
def linear_transpose(fun, *primals, reduce_axes=()):
    """Transpose of a linear function (JAX's ``jax.linear_transpose``).

    ``primals`` only give the input shapes and dtypes (arrays or ShapeDtypeStructs).
    Returns ``f_t`` with ``f_t(out_cotangent)`` a tuple shaped like ``primals``; it
    equals ``vjp(fun, *primals)[1]`` without evaluating ``fun`` at a point.
    """
    flat_p, in_tree = tree_flatten(primals)
    in_avals = [tangent_aval(get_aval(_to_array(p)) if isinstance(p, _VALUE_TYPES) else p)
                for p in flat_p]  # else a ShapeDtypeStruct
    for a in in_avals:
        if not dtypes.is_inexact(a.dtype):
            raise TypeError(f"linear_transpose only supports float or complex inputs, "
                            f"got {a.dtype.name}")
    flat_fun, store = _flatten_fun(lambda *a: fun(*a), in_tree)
    lin = LinearizeTrace(current_trace(), _name(fun))
    ins = [lin.new_arg(a) for a in in_avals]  # every input is unknown: all of fun is linear
    try:
        with set_current_trace(lin):
            out_tracers = [lin.to_tracer(o) for o in flat_fun(*ins)]
    finally:
        lin.invalidate()
    linear, out_tree = lin.to_jaxpr(out_tracers), store["tree"]
    out_avals = [v.aval for v in linear.jaxpr.outvars]

    def transposed(out_cotangent):
        cts, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"linear_transpose: the cotangent must have the output's "
                            f"structure {out_tree}, got {ct_tree}")
        cts = [cotangent_in(a, c, i, "linear_transpose", _to_array)
               for i, (c, a) in enumerate(zip(cts, out_avals))]
        try:
            cts_in = backward_pass(linear.jaxpr, linear.consts, cts)
        except NotImplementedError as e:
            raise NotImplementedError(f"linear_transpose of {_name(fun)}: {e}; is the "
                                      f"function linear in its inputs?") from None
        return tree_unflatten(in_tree, [_zeros(a) if type(c) is Zero else c
                                        for c, a in zip(cts_in, in_avals)])
    return transposed


def _check_inexact_args(fname, args, allow_int, holomorphic):
    for a in tree_flatten(args)[0]:
        if ref_primals.is_ref(a):
            raise TypeError(ref_primals.grad_of_ref_message(fname, a))
        dt = get_aval(_to_array(a)).dtype
        if holomorphic and not dtypes.is_complex(dt):
            raise TypeError(f"{fname} with holomorphic=True requires inputs with complex "
                            f"dtype, but got {dt.name}")
        if not dtypes.is_inexact(dt) and not allow_int:
            raise TypeError(
                f"{fname} requires real- or complex-valued inputs (input dtype that is a "
                f"sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                f"Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def check_real_or_holomorphic(fname, dt, holomorphic, what="outputs", fallback="vjp"):
    """As JAX: differentiation takes real ``what`` (inputs or outputs), or complex ones
    with holomorphic=True."""
    if holomorphic and not dtypes.is_complex(dt):
        # e.g. a real output of complex inputs (abs) is not holomorphic: JAX rejects it
        raise TypeError(f"{fname} with holomorphic=True requires {what} with complex dtype, "
                        f"but got {dt.name}.")
    if not holomorphic and not dtypes.is_float(dt):
        raise TypeError(f"{fname} requires real-valued {what} ({what[:-1]} dtype that is a "
                        f"sub-dtype of np.floating), but got {dt.name}. For holomorphic "
                        f"differentiation, pass holomorphic=True; for non-holomorphic "
                        f"functions with complex or integer {what}, use {fallback} directly.")


def _check_output_dtype(fname, dt, holomorphic):
    check_real_or_holomorphic(fname, dt, holomorphic, "outputs", "vjp")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """Returns a function computing ``(fun(*args), d fun / d args[argnums])``.

    ``fun`` must return a real scalar (or ``(scalar, aux)`` with ``has_aux``).
    ``argnums`` (an int or a sequence of ints; negative ones count from the last
    positional argument passed) picks the arguments to differentiate. Integer or boolean
    ones are refused unless ``allow_int=True``; their gradient is then a float0 array
    of their shape, as in JAX.
    """
    return routed(fun, ("value_and_grad", argnums, has_aux, holomorphic, allow_int),
                  lambda f: _value_and_grad(f, argnums, has_aux, holomorphic, allow_int,
                                            "value_and_grad"))


def check_callable(fun, what):
    if not callable(fun):
        raise TypeError(f"{what}: expected a callable as the function to transform, got "
                        f"{type(fun).__name__} {fun!r:.60}")


class DiffArgnums:
    """``argnums`` of grad and the jacobians, checked as JAX does: its type when the
    transformation is applied, its range against each call's positional arguments."""

    def __init__(self, fun, argnums, what, too_few=TypeError):
        check_callable(fun, what)
        self.fname = _name(fun)
        self.where = f"{what}({self.fname})"
        self.nums = _argnums.as_index_tuple(argnums, "argnums", self.where)
        if not self.nums:
            raise ValueError(f"{self.where}: argnums=() picks no argument to differentiate; "
                             f"pass an int or a non-empty sequence of ints")
        self.single = _argnums.is_index(argnums)
        self.fun, self.too_few = fun, too_few

    def resolve(self, args):
        """The positions of the differentiated arguments in this call."""
        n = len(args)
        if all(-n <= i < n for i in self.nums):  # fast path: the signature is read on errors
            out = tuple(i % n for i in self.nums)
            if len(set(out)) == len(out):
                return out
        return _argnums.resolve_at_call(
            self.nums, n, "argnums", self.where, self.fname, _argnums.Params(self.fun),
            too_few=self.too_few, doing="differentiating with respect to ")


def _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, what):
    spec = DiffArgnums(fun, argnums, what)

    @api_boundary
    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        nums = spec.resolve(args)
        dyn = tuple(args[n] for n in nums)
        _check_inexact_args("grad", dyn, allow_int, holomorphic)

        def partial_f(*dyn_args):
            full = list(args)
            for n, v in zip(nums, dyn_args):
                full[n] = v
            return fun(*full, **kwargs)
        partial_f.__name__ = _name(fun)  # error messages name the user's function
        res = vjp(partial_f, *dyn, has_aux=has_aux)
        ans, vjp_fn = res[0], res[1]
        a = get_aval(_to_array(ans)) if not isinstance(ans, (tuple, list, dict)) else None
        if a is None:
            aux_hint = "" if has_aux else " If it returns (loss, aux), pass has_aux=True."
            raise TypeError(f"{spec.where}: Gradient only defined for scalar-output "
                            f"functions. Output was {_describe_value(ans)}, not a scalar "
                            f"array.{aux_hint}")
        if a.shape != ():
            raise TypeError(f"{spec.where}: Gradient only defined for scalar-output "
                            f"functions. Output had shape: {a.shape}. Use jacrev/jacfwd for "
                            f"non-scalar outputs, or reduce the output (e.g. .sum()) first.")
        _check_output_dtype("grad", a.dtype, holomorphic)
        g = vjp_fn(_ones_like(ans))
        g = g[0] if spec.single else tuple(g)
        return ((ans, res[2]), g) if has_aux else (ans, g)
    return value_and_grad_f


def _ones_like(x):
    # the seed keeps the output's weak type, as JAX's: grad(f)(3.0) is weakly typed
    a = get_aval(_to_array(x))
    return Array(np.ones(a.shape, a.dtype), a.weak_type)


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """Gradient of a scalar function with respect to ``args[argnums]`` (see
    :func:`value_and_grad`: ``allow_int=True`` gives float0 gradients for integer and
    boolean arguments)."""
    return routed(fun, ("grad", argnums, has_aux, holomorphic, allow_int),
                  lambda f: _grad(f, argnums, has_aux, holomorphic, allow_int))


def _grad(fun, argnums, has_aux, holomorphic, allow_int):
    vg = _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, "grad")

    @api_boundary
    @functools.wraps(fun)
    def grad_fn(*args, **kwargs):
        out = vg(*args, **kwargs)
        if has_aux:
            (_, aux), g = out
            return g, aux
        return out[1]
    return grad_fn


__all__ = ["jvp", "vjp", "grad", "value_and_grad", "linearize", "linear_transpose",
           "backward_pass",
           "JVPTrace", "JVPTracer", "jvp_flat", "linearize_flat"]
