"""``while_transpose``: the reverse sweep of a ``while`` loop, as one primitive.

Reverse mode through ``lax.while_loop`` needs the residuals of every trip, and how many
trips there are is known only when the loop stops. A jaxpr value has a shape fixed at
trace time, so the residuals cannot be an output of the forward pass. Instead the
transpose of ``while`` binds this primitive, which re-runs the loop's non-linear part
from its initial state, records each trip's residuals on a tape that grows as the loop
runs (or keeps ``k`` Revolve snapshots of the state: ``tjit/primitives/loop_tape.py``)
and sweeps back over them. The tape lives only while the primitive runs, so every
value a jaxpr sees keeps a static shape and the rest of tjit (jit, vmap, the
compiler's plans) needs nothing new; a new primitive with a growable output would
have needed data-dependent shapes in every layer. The price is one more forward sweep
of the loop beside the primal one.

Operands ``*cond_consts, *body_consts, *bwd_consts, *init, *acc``; params:

* ``cond_jaxpr``: ``cond_consts + state -> bool[]``, ``body_jaxpr``: ``body_consts +
  state -> state + record`` (the forward loop; ``record``: the trip's residuals),
* ``bwd_jaxpr``: ``bwd_consts + record + acc -> acc``, applied to the records of trips
  ``n-1, ..., 0`` (the body's transpose at that trip, accumulating cotangents),
* ``cond_nconsts``, ``body_nconsts``, ``bwd_nconsts``, ``checkpoints`` (None: tape;
  an int ``k``: at most ``k`` saved states).

The result is the final ``acc``. Its jvp, batching and partial-evaluation rules are in
``tjit/transforms/while_grad.py``.
"""

from tjit.primitives.base import as_dtype_out, new_primitive
from tjit.primitives.control_flow import check_carry, same_type
from tjit.primitives.loop_tape import reverse_sweep
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr_reference

while_transpose_p = new_primitive("while_transpose", multiple_results=True)


def split_operands(seq, cond_nconsts, body_nconsts, bwd_nconsts, n_state):
    """``(cond_consts, body_consts, bwd_consts, init, acc)`` of an operand list."""
    a = cond_nconsts
    b = a + body_nconsts
    c = b + bwd_nconsts
    d = c + n_state
    return list(seq[:a]), list(seq[a:b]), list(seq[b:c]), list(seq[c:d]), list(seq[d:])


def _n_state(body_jaxpr, body_nconsts):
    return len(body_jaxpr.in_avals) - body_nconsts


def record_avals(body_jaxpr, body_nconsts):
    """The avals of one trip's record: the body's outputs after the state."""
    return body_jaxpr.out_avals[_n_state(body_jaxpr, body_nconsts):]


def _check_types(what, got, want):
    if len(got) != len(want) or not all(same_type(a, b) for a, b in zip(got, want)):
        raise TypeError(f"while_transpose: {what} takes "
                        f"({', '.join(a.str_short() for a in want)}), got "
                        f"({', '.join(a.str_short() for a in got)})")


@while_transpose_p.def_abstract_eval
def _abstract(*avals, cond_jaxpr, body_jaxpr, bwd_jaxpr, cond_nconsts, body_nconsts,
              bwd_nconsts, checkpoints):
    ns = _n_state(body_jaxpr, body_nconsts)
    cc, bc, wc, init, acc = split_operands(avals, cond_nconsts, body_nconsts, bwd_nconsts, ns)
    _check_types("cond_jaxpr", cc + init, cond_jaxpr.in_avals)
    _check_types("body_jaxpr", bc + init, body_jaxpr.in_avals)
    _check_types("bwd_jaxpr", wc + record_avals(body_jaxpr, body_nconsts) + acc,
                 bwd_jaxpr.in_avals)
    check_carry("while_transpose", "body_jaxpr", init, body_jaxpr.out_avals[:ns])
    check_carry("while_transpose", "bwd_jaxpr", acc, bwd_jaxpr.out_avals)
    return [a.strip_weak_type() for a in acc]


while_transpose_p.def_weak_type(lambda *weak, **params: [False] * len(params["bwd_jaxpr"]
                                                                     .out_avals))


@while_transpose_p.def_impl
def _impl(xp, *vals, cond_jaxpr, body_jaxpr, bwd_jaxpr, cond_nconsts, body_nconsts,
          bwd_nconsts, checkpoints):
    ns = _n_state(body_jaxpr, body_nconsts)
    cc, bc, wc, init, acc = split_operands(vals, cond_nconsts, body_nconsts, bwd_nconsts, ns)

    def run(closed, args):
        return eval_jaxpr_reference(closed.jaxpr, closed.consts, args, xp)

    def more(state):
        return bool(run(cond_jaxpr, cc + state)[0])

    def step(state):
        outs = run(body_jaxpr, bc + state)
        outs = [as_dtype_out(xp, o, a.dtype) for o, a in zip(outs, body_jaxpr.out_avals)]
        return outs[:ns], outs[ns:]

    def back(record, acc):
        outs = run(bwd_jaxpr, wc + list(record) + acc)
        return [as_dtype_out(xp, o, a.dtype) for o, a in zip(outs, bwd_jaxpr.out_avals)]

    init = [as_dtype_out(xp, xp.asarray(x), a.dtype) for x, a in zip(init, body_jaxpr.out_avals)]
    acc = [as_dtype_out(xp, xp.asarray(x), a.dtype) for x, a in zip(acc, bwd_jaxpr.out_avals)]
    return reverse_sweep(more, step, back, init, acc, xp, checkpoints)


def body_with_next_predicate(cond_jaxpr, body_jaxpr, cond_nconsts):
    """One program per trip for a compiled sweep: ``cond_consts + body_consts + state ->
    state' + record + [predicate at state']``, the predicate's equations inlined after
    the body's (a host-driven loop then makes one call per trip instead of two)."""
    b, c = body_jaxpr.jaxpr, cond_jaxpr.jaxpr
    ns = len(c.invars) - cond_nconsts
    cc_vars = [Var(v.aval) for v in c.invars[:cond_nconsts]]
    const_vars = [Var(v.aval) for v in c.constvars]
    env = dict(zip(c.constvars, const_vars))
    env.update(zip(c.invars[:cond_nconsts], cc_vars))
    env.update(zip(c.invars[cond_nconsts:], b.outvars[:ns]))

    def read(v):
        return v if type(v) is Literal else env[v]

    eqns = []
    for e in c.eqns:
        outs = [Var(v.aval) for v in e.outvars]
        eqns.append(e.replace(invars=[read(v) for v in e.invars], outvars=outs))
        env.update(zip(e.outvars, outs))
    fused = Jaxpr(list(b.constvars) + const_vars, cc_vars + list(b.invars),
                  list(b.outvars) + [read(c.outvars[0])], list(b.eqns) + eqns)
    return ClosedJaxpr(fused, list(body_jaxpr.consts) + list(cond_jaxpr.consts))


def bwd_as_scan_body(bwd_jaxpr, bwd_nconsts, n_record):
    """The backward step with a scan body's argument order: ``bwd_consts + acc + record
    -> acc`` (the accumulators are the carry, the records the scanned-over rows)."""
    j = bwd_jaxpr.jaxpr
    consts, rec, acc = (j.invars[:bwd_nconsts], j.invars[bwd_nconsts:bwd_nconsts + n_record],
                        j.invars[bwd_nconsts + n_record:])
    return ClosedJaxpr(Jaxpr(j.constvars, list(consts) + list(acc) + list(rec), j.outvars,
                             j.eqns), bwd_jaxpr.consts)


__all__ = ["body_with_next_predicate", "bwd_as_scan_body", "record_avals", "split_operands",
           "while_transpose_p"]
