"""Taylor-series rules of ``cond``, ``while`` and ``scan`` (and ``sort``/``top_k``, which
permute) for ``tjit.experimental.jet``.

JAX's jet has no rules for control flow; tjit's ``jit`` inlines into a trace, so a loop
inside a jitted function reaches jet as these primitives and needs them. A body is
transformed by tracing: its jet jaxpr takes ``(primals, series)`` and returns
``(outputs, series)``, where every floating or complex value has ``order`` coefficient
inputs/outputs (instantiated: a carry's series must have one type around the loop, so
symbolic zeros are not tracked through bodies) and integer or boolean values none.
What a traced body closes over is hoisted into leading operands, as in
``tjit/transforms/control_flow_rules.py``'s jvp rules, whose layout this follows.
"""

import tjit.numpy as jnp
from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Var, eval_jaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
from tjit.primitives.control_flow import cond_p, join_branch_consts, scan_p, while_p
from tjit.primitives.reductions import sort_p, top_k_p
from tjit.experimental._jet_trace import jet_flat, jet_rules, zero_series
from tjit.tracing.tree_util import split_by_sizes


def _varies(aval):
    return dtypes.is_inexact(aval.dtype)


def _flat_terms(avals, series):
    """The coefficients of the values that carry series, one after the other."""
    return [t for a, s in zip(avals, series) if _varies(a) for t in s]


def _n_terms(avals, order):
    return order * sum(_varies(a) for a in avals)


def _unflatten(avals, values, terms, order):
    """``(values, series)`` from a body's outputs: each varying value's ``order`` terms
    taken in turn from ``terms``, :data:`zero_series` for the others."""
    it = iter(terms)
    return values, [[next(it) for _ in range(order)] if _varies(a) else zero_series
                    for a in avals]


def _order(series):
    return len(series[0]) if series else 0


def jet_jaxpr(closed, order, name):
    """The jet of ``closed``: ``(primals, terms of the varying inputs) -> (outputs,
    terms of the varying outputs)``. Returns ``(jaxpr taking consts first, consts)``."""
    in_avals, out_avals = closed.in_avals, closed.out_avals
    n = len(in_avals)

    def fun(*args):
        _, series = _unflatten(in_avals, None, args[n:], order)
        outs, out_series = jet_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                                    list(args[:n]), series, order, name)
        return list(outs) + _flat_terms(out_avals, out_series)

    term_avals = [a for a in in_avals if _varies(a) for _ in range(order)]
    traced = trace_to_jaxpr(fun, list(in_avals) + term_avals, name)
    jaxpr, consts = convert_constvars_jaxpr(traced)
    return ClosedJaxpr(jaxpr, []), consts


def _rewire(closed, invars=None, outvars=None):
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars if invars is None else invars,
                             j.outvars if outvars is None else outvars, j.eqns),
                       closed.consts)


def _cond_rule(primals, series, *, branches):
    order = _order(series)
    index, *ops = primals
    in_avals = branches[0].in_avals
    new, consts = join_branch_consts([jet_jaxpr(b, order, "cond_jet") for b in branches])
    outs = cond_p.bind(index, *consts, *ops, *_flat_terms(in_avals, series[1:]),
                       branches=new)
    out_avals = branches[0].out_avals
    return _unflatten(out_avals, outs[:len(out_avals)], outs[len(out_avals):], order)


def _while_rule(primals, series, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """The carry becomes (primals, terms); the predicate reads the primals only."""
    order = _order(series)
    cc, bc, init = split_by_sizes(primals, [cond_nconsts, body_nconsts])
    _, bc_s, init_s = split_by_sizes(series, [cond_nconsts, body_nconsts])
    bc_avals, car_avals = split_by_sizes(body_jaxpr.in_avals, [body_nconsts])
    body, hoisted = jet_jaxpr(body_jaxpr, order, "while_body_jet")
    n_bc_terms = _n_terms(bc_avals, order)
    h, p_bc, p_car, t_bc, t_car = split_by_sizes(body.jaxpr.invars, [len(hoisted), len(bc),
                                                             len(init), n_bc_terms])
    body = _rewire(body, invars=h + p_bc + t_bc + p_car + t_car)
    cj = cond_jaxpr.jaxpr   # (the terms are extra carry inputs it ignores)
    cond = ClosedJaxpr(Jaxpr(cj.constvars, cj.invars + [Var(v.aval) for v in t_car],
                             cj.outvars, cj.eqns), cond_jaxpr.consts)
    outs = while_p.bind(*cc, *hoisted, *bc, *_flat_terms(bc_avals, bc_s), *init,
                        *_flat_terms(car_avals, init_s), cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=len(cc),
                        body_nconsts=len(hoisted) + len(bc) + n_bc_terms)
    return _unflatten(car_avals, outs[:len(init)], outs[len(init):], order)


def _scan_rule(primals, series, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """One scan over (consts, carry, xs) and their terms; the ys' terms are stacked
    along the scanned axis as the ys are."""
    order = _order(series)
    sizes = [num_consts, num_carry]
    consts, init, xs = split_by_sizes(primals, sizes)
    c_s, i_s, x_s = split_by_sizes(series, sizes)
    c_av, car_av, x_av = split_by_sizes(jaxpr.in_avals, sizes)
    y_av = jaxpr.out_avals[num_carry:]
    body, hoisted = jet_jaxpr(jaxpr, order, "scan_body_jet")
    n_c, n_car, n_y = (_n_terms(a, order) for a in (c_av, car_av, y_av))
    h, pc, pcar, px, tc, tcar, tx = split_by_sizes(
        body.jaxpr.invars, [len(hoisted), num_consts, num_carry, len(xs), n_c, n_car])
    pcar_o, py, tcar_o, ty = split_by_sizes(body.jaxpr.outvars, [num_carry, len(y_av), n_car])
    body = _rewire(body, invars=h + pc + tc + pcar + tcar + px + tx,
                   outvars=pcar_o + tcar_o + py + ty)
    outs = scan_p.bind(*hoisted, *consts, *_flat_terms(c_av, c_s), *init,
                       *_flat_terms(car_av, i_s), *xs, *_flat_terms(x_av, x_s),
                       jaxpr=body, length=length, reverse=reverse,
                       num_consts=len(hoisted) + num_consts + n_c,
                       num_carry=num_carry + n_car, unroll=unroll)
    carry, carry_t, ys, ys_t = split_by_sizes(outs, [num_carry, n_car, len(y_av)])
    _, carry_s = _unflatten(car_av, carry, carry_t, order)
    _, ys_s = _unflatten(y_av, ys, ys_t, order)
    return carry + ys, carry_s + ys_s


jet_rules[cond_p] = _cond_rule
jet_rules[while_p] = _while_rule
jet_rules[scan_p] = _scan_rule


# -- permutations: the terms follow their values ----------------------------------------------
def _sort_rule(primals, series, *, dimension, is_stable, num_keys):
    shape = jnp.shape(primals[0])
    positions = lax.broadcasted_iota(jnp.int32, shape, dimension)
    outs = sort_p.bind(*primals, positions, dimension=dimension, is_stable=is_stable,
                       num_keys=num_keys)
    perm = outs[-1]
    return outs[:-1], [[jnp.take_along_axis(t, perm, axis=dimension) for t in s]
                       for s in series]


def _top_k_rule(primals, series, **params):
    values, indices = top_k_p.bind(*primals, **params)
    axis = params.get("dimension", -1)
    return [values, indices], [[jnp.take_along_axis(t, indices, axis=axis)
                                for t in series[0]], zero_series]


jet_rules[sort_p] = _sort_rule
jet_rules[top_k_p] = _top_k_rule


__all__ = ["jet_jaxpr"]
