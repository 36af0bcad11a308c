"""The ``checkify`` interpreter: runs a jaxpr while threading an error value through it.

:func:`checkify_jaxpr_flat` binds every equation again (so it runs eagerly, or is traced
by an enclosing ``jit``/``vmap``/``grad``), except that a primitive with an entry in
:data:`error_checks` is handed to that rule, which binds it and returns the updated error
with its outputs. The rules (the discharge of ``check_p``, the automatic NaN/division/
index checks, control flow) are registered by ``tjit/_checkify.py``, where the error
value type lives; this module knows only the flat leaves of that value and its treedef.
"""

import numpy as np

from tjit.primitives.check import check_p
from tjit.primitives.elementwise import and_p
from tjit.primitives.structural import broadcast_in_dim_p
from tjit.tracing.avals import ShapedArray
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, interpret_jaxpr, subjaxprs

#: primitive -> ``rule(error, enabled_errors, *invals, **params) -> (error, outs)``
#: (``outs`` as the primitive's bind returns them).
error_checks = {}


def contains_check(jaxpr):
    """Whether ``jaxpr`` (or a jaxpr inside it) binds ``check_p``."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    return any(e.primitive is check_p for e in jaxpr.eqns) or contains_nested_check(jaxpr)


def contains_nested_check(jaxpr):
    """Whether a jaxpr inside ``jaxpr`` (not ``jaxpr`` itself) binds ``check_p``."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    return any(contains_check(s) for s in subjaxprs(jaxpr))


def mask_checks(closed):
    """``closed`` with one more input, last: a bool scalar ``active``; each of its
    ``check_p`` equations can fail only where ``active`` holds. vmap runs every branch of
    a cond whose index is batched, and a loop's body on examples already finished: their
    checks are masked by whether the example takes that branch or still loops.

    Only top-level checks are masked (see :func:`contains_nested_check`). The first
    leaves of a check's error are its predicates (``Error`` flattens them first).
    """
    j = closed.jaxpr
    active = Var(ShapedArray((), np.dtype(np.bool_)))
    eqns = []
    for e in j.eqns:
        if e.primitive is check_p:
            k = e.params["err_tree"].tree.child_defs[0].num_leaves
            preds = []
            for v in e.invars[:k]:
                shape = tuple(v.aval.shape)
                mask = active
                if shape:  # a batched check (vmap inside): the mask broadcasts
                    mask = Var(ShapedArray(shape, np.dtype(np.bool_)))
                    eqns.append(JaxprEqn([active], [mask], broadcast_in_dim_p,
                                         {"shape": shape, "broadcast_dimensions": ()}))
                out = Var(ShapedArray(shape, np.dtype(np.bool_)))
                eqns.append(JaxprEqn([v, mask], [out], and_p, {}))
                preds.append(out)
            e = e.replace(invars=preds + e.invars[k:])
        eqns.append(e)
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars + [active], j.outvars, eqns), closed.consts)


def _default_rule(prim, error, enabled_errors, *invals, **params):
    for p in params.values():
        for sub in (p if isinstance(p, tuple) else (p,)):
            if isinstance(sub, (ClosedJaxpr, Jaxpr)) and contains_check(sub):
                raise NotImplementedError(
                    f"checkify: a checkify.check inside '{prim.name}' cannot be "
                    f"functionalized yet (checkify handles checks in jit, cond/switch, "
                    f"scan, while_loop/fori_loop and vmap bodies); move the check out of "
                    f"the '{prim.name}' function")
    return error, prim.bind(*invals, **params)


def checkify_jaxpr_flat(jaxpr, consts, enabled_errors, error, *args):
    """Interpret ``jaxpr`` on ``consts`` and ``args`` starting from ``error``.

    Returns:
      ``(error, outputs)``: the error after the program, and its flat outputs.
    """
    def apply(eqn, invals):     # (the error threads through the equations in order)
        nonlocal error
        rule = error_checks.get(eqn.primitive)
        if rule is None:
            error, outs = _default_rule(eqn.primitive, error, enabled_errors, *invals,
                                        **eqn.params)
        else:
            error, outs = rule(error, enabled_errors, *invals, **eqn.params)
        return outs

    outs = interpret_jaxpr(jaxpr, consts, args, apply)
    return error, outs
