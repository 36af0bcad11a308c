"""Closed jaxpr -> :class:`~tjit.xla_like.hlo.HloModule`.

Each equation lowers by, in order:

1. inlining: call-like primitives (``custom_jvp_call``, ``custom_vjp_call``,
   ``checkpoint``) are replaced by their bodies, and ``stop_gradient`` /
   ``checkpoint_name`` are identities, so fusion sees through them;
2. the primitive's own ``lowering(ctx, *operands, **params)`` rule (stated next to the
   primitive, in terms of :class:`hlo.Builder`);
3. the elementwise vocabulary: a primitive named like an HLO elementwise op;
4. structured control flow (``cond``, ``while``, ``scan``, and ``while_transpose``, the
   reverse sweep of a ``while``) becomes a ``control`` op whose
   bodies are lowered (and simplified) here into HloModules of their own, which the
   plan compiles as sub-programs;
5. otherwise a ``library`` op that runs the primitive's reference implementation on the
   host (gather, sort, linalg, float16/complex dtypes...): correct for every primitive,
   fast where it matters by rules 2-4.
"""

import numpy as np

from tjit.primitives.ad_prims import CALL_JAXPR_PARAM, checkpoint_name_p, stop_gradient_p
from tjit.primitives.sharding_constraint import sharding_constraint_p
from tjit.primitives.control_flow import cond_p, scan_p, while_p
from tjit.primitives.while_transpose import (
    body_with_next_predicate,
    bwd_as_scan_body,
    record_avals,
    while_transpose_p,
)
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Literal, is_polymorphic, specialize
from tjit.tracing.shapes import contains_symbolic, substitute_params
from tjit.xla_like import hlo
from tjit.xla_like.simplify import simplify
from tjit.xla_like.target import CPU

_IDENTITY_PRIMS = (stop_gradient_p, checkpoint_name_p, sharding_constraint_p)


def lower_jaxpr(closed, name="main", target=CPU):
    """Lower ``closed`` (a ClosedJaxpr) to an HloModule with one parameter per invar
    (``target``: its ``kernel_dtypes`` decide which ops become library calls)."""
    ctx = hlo.Builder()
    ctx.target = target
    jaxpr = closed.jaxpr
    params = [ctx.add("parameter", (), v.aval.shape, v.aval.dtype, index=k)
              for k, v in enumerate(jaxpr.invars)]
    consts = [ctx.constant(_raw(c)) for c in closed.consts]
    outs = _lower_body(ctx, jaxpr, consts, params, tag_origin=True)
    return hlo.HloModule(name, params, ctx.instrs, outs)


def _raw(c):
    return np.asarray(getattr(c, "_value", c))


def _lower_body(ctx, jaxpr, consts, args, tag_origin=False):
    """``tag_origin``: mark each Instr with the index of the equation it lowers (the
    top level only: equations of inlined calls count as their call's)."""
    env = {}
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a

    def read(v):
        if type(v) is Literal:
            return ctx.constant(v.val, v.aval.dtype)
        return env[v]

    for n, eqn in enumerate(jaxpr.eqns):
        first = len(ctx.instrs)
        ins = [read(v) for v in eqn.invars]
        outs = lower_eqn(ctx, eqn, ins)
        for v, o in zip(eqn.outvars, outs):
            env[v] = o
        if tag_origin:
            for i in ctx.instrs[first:]:
                i.origin = (n,)
    return [read(v) for v in jaxpr.outvars]


def lower_eqn(ctx, eqn, ins):
    """The list of Instrs for ``eqn``'s outputs."""
    prim, params = eqn.primitive, eqn.params
    if prim in _IDENTITY_PRIMS:
        return ins
    body_param = CALL_JAXPR_PARAM.get(prim)
    if body_param is not None:
        body = params[body_param]
        return _lower_body(ctx, body.jaxpr, [ctx.constant(_raw(c)) for c in body.consts], ins)
    out_avals = [v.aval for v in eqn.outvars]
    if prim in _CONTROL_FLOW and (prim is not while_transpose_p
                                  or ctx.target.name in _WHILE_TRANSPOSE_TARGETS):
        return _lower_control(ctx, prim, ins, params, out_avals)
    dtypes = ctx.target.kernel_dtypes
    supported = all(a.dtype in dtypes for a in out_avals) and all(i.dtype in dtypes for i in ins)
    if supported and prim.name not in hlo.NARROW_KERNEL_PRIMITIVES and (
            any(a.dtype in hlo.NARROW_KERNEL_DTYPES for a in out_avals)
            or any(i.dtype in hlo.NARROW_KERNEL_DTYPES for i in ins)):
        supported = False     # (an op on float8/int4 that kernels do not compute: a host step)
    if supported and prim.lowering is not None:
        ctx.avals_out = out_avals
        out = prim.lowering(ctx, *ins, **params)
        if out is not NotImplemented:
            return list(out) if prim.multiple_results else [out]
    if supported and prim.name in hlo.ELEMENTWISE and not params:
        return [ctx.elementwise(prim.name, ins, out_avals[0].dtype)]
    return library_call(ctx, prim, ins, params, out_avals)


def inline_jaxpr(ctx, closed, ins):
    """The Instrs of ``closed``'s outputs with its equations lowered in place on the
    operands ``ins``: a lowering stated as a traced function (``mlir.lower_fun``) fuses
    with its neighbours."""
    return _lower_body(ctx, closed.jaxpr, [ctx.constant(_raw(c)) for c in closed.consts], ins)


def _cond_bodies(params):
    return params["branches"], {}


def _while_bodies(params):
    return (params["cond_jaxpr"], params["body_jaxpr"]), {
        k: params[k] for k in ("cond_nconsts", "body_nconsts")}


def _scan_bodies(params):
    return (params["jaxpr"],), {
        k: params[k] for k in ("length", "reverse", "num_consts", "num_carry")}


def _while_transpose_bodies(params):
    body = params["body_jaxpr"]
    fused = body_with_next_predicate(params["cond_jaxpr"], body, params["cond_nconsts"])
    bwd = bwd_as_scan_body(params["bwd_jaxpr"], params["bwd_nconsts"],
                           len(record_avals(body, params["body_nconsts"])))
    return (params["cond_jaxpr"], fused, bwd), dict(
        {k: params[k] for k in ("cond_nconsts", "body_nconsts", "bwd_nconsts", "checkpoints")},
        n_state=len(body.in_avals) - params["body_nconsts"])


#: control-flow primitive -> params -> (body jaxprs, attrs of the ``control`` op)
_CONTROL_FLOW = {cond_p: _cond_bodies, while_p: _while_bodies, scan_p: _scan_bodies,
                 while_transpose_p: _while_transpose_bodies}
#: targets whose runtimes drive a while_transpose op (devices/control_flow.py); others
#: run it as a library call
_WHILE_TRANSPOSE_TARGETS = ("cpu", "cuda")


def _lower_control(ctx, prim, ins, params, out_avals):
    """A ``control`` op whose bodies are lowered to HloModules of their own."""
    bodies, attrs = _CONTROL_FLOW[prim](params)
    modules = [simplify(lower_jaxpr(b, f"{prim.name}_{k}", ctx.target), ctx.target)
               for k, b in enumerate(bodies)]
    return ctx.control(prim.name, modules, ins, [(a.shape, a.dtype) for a in out_avals],
                       **attrs)


def library_call(ctx, prim, ins, params, out_avals):
    """Run ``prim``'s reference implementation at this point, on the array namespace
    the runtime binds (``xp``: NumPy on the CPU). The step records ``(prim, params)``;
    a user primitive (``impl_declared``) also gets the result types it was traced with
    (concrete shapes), so running it does not ask its abstract evaluation again."""
    declared = getattr(prim, "impl_declared", None) is not None and all(
        isinstance(d, int) for a in out_avals for d in a.shape)
    fn = hlo.rebuildable(primitive_call, prim, params,
                         *((tuple(out_avals),) if declared else ()))
    return ctx.library(prim.name, fn, ins, [(a.shape, a.dtype) for a in out_avals],
                       primitive=prim, params=params, effect=prim.effectful)


def primitive_call(prim, params, results=None):
    """The library function ``fn(xp, env, *arrays)`` that runs ``prim.impl`` with
    ``params`` (symbolic ones specialized to the run's sizes ``env``, once per size);
    with ``results`` (the avals it was traced with), ``prim.impl_declared``."""
    symbolic = any(_symbolic_param(p) for p in params.values())
    impl, multiple = prim.impl, prim.multiple_results
    if results is not None:
        declared = prim.impl_declared

        def impl(xp, *arrays, **p):
            return declared(xp, results, *arrays, **p)
    per_env = {}

    def fn(xp, env, *arrays):
        p = params
        if symbolic:
            key = tuple(sorted((str(k), v) for k, v in env.items()))
            p = per_env.get(key)
            if p is None:
                p = per_env[key] = {k: _specialize_param(v, env) for k, v in params.items()}
        out = impl(xp, *arrays, **p)
        return list(out) if multiple else [out]
    return fn


def _is_jaxpr(p):
    return isinstance(p, (Jaxpr, ClosedJaxpr))


def _symbolic_param(p):
    subs = p if isinstance(p, tuple) else (p,)
    return contains_symbolic(p) or any(_is_jaxpr(x) and is_polymorphic(x) for x in subs)


def _specialize_param(p, env):
    if _is_jaxpr(p):
        return specialize(p, env)
    if isinstance(p, tuple) and p and all(_is_jaxpr(x) for x in p):
        return tuple(specialize(x, env) for x in p)
    return substitute_params(p, env)
