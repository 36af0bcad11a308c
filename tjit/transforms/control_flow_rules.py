"""Transformation rules of the control-flow primitives ``cond``, ``while`` and ``scan``:
jvp, batching, partial evaluation (reverse mode's known/unknown split) and transpose.

The primitives live in ``tjit/primitives/control_flow.py``; their rules need the
transformation machinery (JVPTrace, BatchTrace, partial_eval_jaxpr, backward_pass), so
they are written here and assigned onto the primitives when ``tjit.transforms`` is
imported (transforms know the rule tables of primitives, not the other way around).

Bodies are transformed by *tracing*: the jvp of a body is the jaxpr traced from
``lambda *a: jvp_flat(eval_jaxpr(body), primals, tangents)``, its batched form the jaxpr
traced from evaluating it under a :class:`BatchTrace`, and so on. What a traced body
closes over is hoisted into leading operands, so bodies keep no consts of their own.
Loops find which carries get non-zero tangents / a batch axis / unknown values by a
fixed point, as in JAX.

* cond: jvp per branch (output tangent types made identical across branches); batched
  index -> every branch runs batched and ``select_n`` picks; partial eval splits every
  branch and pads the residuals to one shared list; transpose per branch.
* while: jvp of the body (cond sees primals only); batched predicate -> loop while any
  is true, masking carry updates; partial eval splits off a loop over the known
  carries; the transpose (reverse mode, which JAX lacks) is in ``while_grad.py``.
* scan: jvp and batching of the body; partial eval gives a known scan emitting stacked
  residuals and an unknown scan consuming them; transpose is a reversed scan.
"""

import numpy as np

from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import current_trace, get_aval, set_current_trace
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr
from tjit.tracing.jaxpr_trace import JaxprTrace, convert_constvars_jaxpr, trace_to_jaxpr
from tjit.tracing.tree_util import split_by_sizes
from tjit.primitives.control_flow import (
    cond_p, join_branch_consts, same_type, scan_p, while_p)
from tjit.primitives.elementwise import clamp_p, eq_p, select_n_p
from tjit.primitives.reductions import reduce_or_p
from tjit.primitives.rules import (
    Zero, add_tangents, bdim_at_front, instantiate, is_undefined_primal, moveaxis,
    tangent_aval, zeros_like_aval)
from tjit.primitives.structural import broadcast_in_dim_p
from tjit.transforms.ad import backward_pass_closed as _backward, jvp_flat
from tjit.transforms.batching import BatchTrace, BatchTracer, batching_axis_name
from tjit.transforms.checkify import contains_check, contains_nested_check, mask_checks
from tjit.transforms.partial_eval import partial_eval_jaxpr
from tjit.transforms.passes import dce


# -- small helpers --------------------------------------------------------------------------
def _or(a, b):
    return [x or y for x, y in zip(a, b)]


def _pick(mask, seq, want=True):
    return [x for x, m in zip(seq, mask) if bool(m) == want]


def _merge(mask, when_true, when_false):
    """Interleave two lists back into one by ``mask``."""
    t, f = iter(when_true), iter(when_false)
    return [next(t) if m else next(f) for m in mask]


def _bools(spec, n):
    return [spec] * n if isinstance(spec, bool) else list(spec)


def _trace(fun, avals, name):
    """Trace ``fun`` and hoist its consts: (ClosedJaxpr taking the consts first, consts)."""
    closed = trace_to_jaxpr(fun, list(avals), name)
    jaxpr, consts = convert_constvars_jaxpr(closed)
    return ClosedJaxpr(jaxpr, []), consts


def _eval(closed, *args):
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _rewire(closed, invars=None, outvars=None):
    """The same equations with permuted/pruned inputs or outputs."""
    j = closed.jaxpr
    new = Jaxpr(j.constvars, j.invars if invars is None else invars,
                j.outvars if outvars is None else outvars, j.eqns)
    return ClosedJaxpr(new, closed.consts)


def _record(trace, prim, args, params):
    """Record ``prim`` as an equation of the linear jaxpr (every input becomes a tracer
    of ``trace``; known ones become residual constants)."""
    return JaxprTrace.process_primitive(trace, prim, list(args), params)


def _zero_tangents(avals):
    return [Zero(tangent_aval(a)) for a in avals]


# -- jvp --------------------------------------------------------------------------------------
def _jvp_jaxpr(closed, nonzeros, instantiate_out, name):
    """The jvp of ``closed``: (primals, non-zero tangents) -> (primal outputs, output
    tangents that are non-zero or instantiated).

    Returns ``(jaxpr, consts, out_nonzeros)``; the jaxpr takes ``consts`` first.
    """
    closed = dce(closed)  # code whose results are unused is not differentiated (as JAX)
    avals = closed.in_avals
    n = len(avals)
    inst = _bools(instantiate_out, len(closed.out_avals))
    t_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    store = {}

    def fun(*args):
        tans = iter(args[n:])
        tangents = [next(tans) if nz else Zero(tangent_aval(a))
                    for a, nz in zip(avals, nonzeros)]
        outs, outs_t = jvp_flat(lambda *a: _eval(closed, *a), list(args[:n]), tangents, name)
        out_nz = [type(t) is not Zero or i for t, i in zip(outs_t, inst)]
        store["nz"] = out_nz
        return list(outs) + [instantiate(t) for t, z in zip(outs_t, out_nz) if z]

    jaxpr, consts = _trace(fun, list(avals) + t_avals, name)
    return jaxpr, consts, store["nz"]


def _carry_fixed_point(step, carry_flags):
    """Grow ``carry_flags`` until ``step(flags)`` (the flags of the carry outputs) adds
    nothing: which carries get a tangent / batch axis / unknown value."""
    for _ in range(len(carry_flags) + 1):
        out = step(carry_flags)
        new = _or(carry_flags, out)
        if new == carry_flags:
            return carry_flags
        carry_flags = new
    return carry_flags


def _nonzero(tangents):
    return [type(t) is not Zero for t in tangents]


def _cond_jvp(primals, tangents, *, branches):
    """One cond over (primals, non-zero tangents); every branch returns the same set of
    output tangents (zeros where only another branch has one)."""
    ops, ops_dot = primals[1:], tangents[1:]
    nz = _nonzero(ops_dot)
    first = [_jvp_jaxpr(b, nz, False, "cond_jvp") for b in branches]
    out_nz = [any(f[2][i] for f in first) for i in range(len(branches[0].out_avals))]
    traced = []
    for b, (j, consts, b_nz) in zip(branches, first):
        if b_nz != out_nz:  # another branch has a tangent here: instantiate zeros
            j, consts, _ = _jvp_jaxpr(b, nz, out_nz, "cond_jvp")
        traced.append((j, consts))
    new, consts = join_branch_consts(traced)
    outs = cond_p.bind(primals[0], *consts, *ops, *_pick(nz, ops_dot), branches=new)
    n_out = len(out_nz)
    out_avals = branches[0].out_avals
    return outs[:n_out], _merge(out_nz, outs[n_out:], _zero_tangents(_pick(out_nz, out_avals,
                                                                             False)))


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """The carry becomes (primals, tangents of the carries that get one); the predicate
    reads the primals only."""
    cc, bc, init = split_by_sizes(primals, [cond_nconsts, body_nconsts])
    _, bc_dot, init_dot = split_by_sizes(tangents, [cond_nconsts, body_nconsts])
    bc_nz = _nonzero(bc_dot)
    carry_nz = _carry_fixed_point(
        lambda nz: _jvp_jaxpr(body_jaxpr, bc_nz + nz, False, "while_jvp")[2],
        _nonzero(init_dot))
    body, bh, _ = _jvp_jaxpr(body_jaxpr, bc_nz + carry_nz, carry_nz, "while_body_jvp")
    # body inputs (bh, bc, carry, bc_dot, carry_dot) -> while layout (consts; carry)
    h, p_bc, p_car, t_bc, t_car = split_by_sizes(body.jaxpr.invars,
                                         [len(bh), len(bc), len(init), sum(bc_nz)])
    body = _rewire(body, invars=h + p_bc + t_bc + p_car + t_car)
    cj = cond_jaxpr.jaxpr  # the predicate reads primals only: tangents are extra inputs
    cond = ClosedJaxpr(Jaxpr(cj.constvars, cj.invars + [Var(v.aval) for v in t_car],
                             cj.outvars, cj.eqns), cond_jaxpr.consts)
    carry_dot = [instantiate(t) for t, nz in zip(init_dot, carry_nz) if nz]
    outs = while_p.bind(*cc, *bh, *bc, *_pick(bc_nz, bc_dot), *init, *carry_dot,
                        cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=len(cc),
                        body_nconsts=len(bh) + len(bc) + sum(bc_nz))
    n = len(init)
    avals = body_jaxpr.out_avals
    return outs[:n], _merge(carry_nz, outs[n:], _zero_tangents(_pick(carry_nz, avals, False)))


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """One scan over primals and non-zero tangents (consts, carry and xs alike)."""
    sizes = [num_consts, num_carry]
    consts, init, xs = split_by_sizes(primals, sizes)
    c_dot, i_dot, x_dot = split_by_sizes(tangents, sizes)
    c_nz, x_nz = _nonzero(c_dot), _nonzero(x_dot)
    ny = len(jaxpr.out_avals) - num_carry
    carry_nz = _carry_fixed_point(
        lambda nz: _jvp_jaxpr(jaxpr, c_nz + nz + x_nz, False, "scan_jvp")[2][:num_carry],
        _nonzero(i_dot))
    body, h, out_nz = _jvp_jaxpr(jaxpr, c_nz + carry_nz + x_nz, carry_nz + [False] * ny,
                                 "scan_body_jvp")
    ys_nz = out_nz[num_carry:]
    n_cd, n_card = sum(c_nz), sum(carry_nz)
    h, pc, pcar, px, tc, tcar, tx = split_by_sizes(
        body.jaxpr.invars, [len(h), num_consts, num_carry, len(xs), n_cd, n_card])
    pcar_o, py, tcar_o, ty = split_by_sizes(body.jaxpr.outvars, [num_carry, ny, n_card])
    body = _rewire(body, invars=h + pc + tc + pcar + tcar + px + tx,
                   outvars=pcar_o + tcar_o + py + ty)
    carry_dot = [instantiate(t) for t, nz in zip(i_dot, carry_nz) if nz]
    outs = scan_p.bind(*h, *consts, *_pick(c_nz, c_dot), *init, *carry_dot, *xs,
                       *_pick(x_nz, x_dot), jaxpr=body, length=length, reverse=reverse,
                       num_consts=len(h) + num_consts + n_cd, num_carry=num_carry + n_card,
                       unroll=unroll)
    carry, carry_t, ys, ys_t = split_by_sizes(outs, [num_carry, n_card, ny])
    out_avals = jaxpr.out_avals
    zero_c = _zero_tangents(_pick(carry_nz, out_avals[:num_carry], False))
    y_avals = [ShapedArray((length,) + tuple(a.shape), a.dtype) for a in out_avals[num_carry:]]
    zero_y = _zero_tangents(_pick(ys_nz, y_avals, False))
    return carry + ys, _merge(carry_nz, carry_t, zero_c) + _merge(ys_nz, ys_t, zero_y)


# -- batching ---------------------------------------------------------------------------------
def _axis_size(args, dims):
    return next(get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)


def _batch_call(closed, size, args, in_batched, instantiate_out, name):
    """Evaluate ``closed`` on ``args`` (batched ones with the batch axis first) under a
    BatchTrace. Returns (outputs with the batch axis first where batched, out_batched)."""
    trace = BatchTrace(current_trace(), size, batching_axis_name(), name)
    ins = [BatchTracer(trace, x, 0) if b else x for x, b in zip(args, in_batched)]
    try:
        with set_current_trace(trace):
            outs = _eval(closed, *ins)
        pairs = [trace.to_batched(o) for o in outs]
    finally:
        trace.invalidate()
    inst = _bools(instantiate_out, len(pairs))
    res = [moveaxis(v, d, 0) if d is not None else (bdim_at_front(v, None, size) if i else v)
           for (v, d), i in zip(pairs, inst)]
    return res, [d is not None or i for (_, d), i in zip(pairs, inst)]


def _batched_aval(aval, size):
    return ShapedArray((size,) + tuple(aval.shape), aval.dtype, aval.weak_type)


def _batch_jaxpr(closed, size, in_batched, instantiate_out, name):
    """``closed`` batched along a leading axis of the inputs marked in ``in_batched``.
    Returns ``(jaxpr, consts, out_batched)``; the jaxpr takes ``consts`` first."""
    avals = [_batched_aval(a, size) if b else a for a, b in zip(closed.in_avals, in_batched)]
    store = {}

    def fun(*args):
        outs, store["bat"] = _batch_call(closed, size, args, in_batched, instantiate_out, name)
        return outs

    jaxpr, consts = _trace(fun, avals, name)
    return jaxpr, consts, store["bat"]


def _batched_select(which, cases):
    """select_n with a batched (``(size,)``) selector over cases batched at axis 0."""
    shape = tuple(get_aval(cases[0]).shape)
    if len(shape) > 1:
        which = broadcast_in_dim_p.bind(which, shape=shape, broadcast_dimensions=(0,))
    return select_n_p.bind(which, *cases)


def _cond_batch(args, dims, *, branches):
    """A batched index selects per example among all branches' (batched) outputs; an
    unbatched one keeps the cond with batched branches."""
    size = _axis_size(args, dims)
    ops = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args[1:], dims[1:])]
    ops_bat = [d is not None for d in dims[1:]]
    n_out = len(branches[0].out_avals)
    if dims[0] is not None:
        # a batched predicate: run every branch on the whole batch and select per example
        index = clamp_p.bind(np.int32(0), moveaxis(args[0], dims[0], 0),
                             np.int32(len(branches) - 1))
        outs = [_batch_branch(b, i, index, size, ops, ops_bat) for i, b in enumerate(branches)]
        return [_batched_select(index, [o[i] for o in outs]) for i in range(n_out)], \
            [0] * n_out
    first = [_batch_jaxpr(b, size, ops_bat, False, "cond_branch") for b in branches]
    out_bat = [any(f[2][i] for f in first) for i in range(n_out)]
    traced = []
    for b, (j, consts, b_bat) in zip(branches, first):
        if b_bat != out_bat:
            j, consts, _ = _batch_jaxpr(b, size, ops_bat, out_bat, "cond_branch")
        traced.append((j, consts))
    new, consts = join_branch_consts(traced)
    outs = cond_p.bind(args[0], *consts, *ops, branches=new)
    return outs, [0 if b else None for b in out_bat]


def _batch_branch(branch, i, index, size, ops, ops_bat):
    """Branch ``i`` run on every example of the batch; its checkify checks can fail only
    for the examples whose ``index`` picks it."""
    if not contains_check(branch) or contains_nested_check(branch):
        return _batch_call(branch, size, ops, ops_bat, True, "cond_branch")[0]
    picked = eq_p.bind(index, broadcast_in_dim_p.bind(np.int32(i), shape=(size,),
                                                      broadcast_dimensions=()))
    return _batch_call(mask_checks(branch), size, list(ops) + [picked], list(ops_bat) + [True],
                       True, "cond_branch")[0]


def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """Batched body and cond; a batched predicate loops while any example's holds."""
    size = _axis_size(args, dims)
    args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    cc, bc, init = split_by_sizes(args, [cond_nconsts, body_nconsts])
    cc_bat, bc_bat, init_bat = split_by_sizes([d is not None for d in dims],
                                      [cond_nconsts, body_nconsts])
    carry_bat = _carry_fixed_point(
        lambda bat: _batch_jaxpr(body_jaxpr, size, bc_bat + bat, False, "while_body")[2],
        init_bat)
    pred_bat = _batch_jaxpr(cond_jaxpr, size, cc_bat + carry_bat, False, "while_cond")[2][0]
    masked = False
    if pred_bat:  # examples finish at different iterations: every carry is batched
        # A finished example's body still runs (its carry kept): the body's checks are
        # masked by the example's predicate. (The predicate's checks see a finished
        # example's last carry again: they repeat its last result, which is harmless.)
        masked = contains_check(body_jaxpr)
        if contains_nested_check(cond_jaxpr) or contains_nested_check(body_jaxpr):
            raise ValueError(
                "Checkify does not support batched while-loops (checkify-of-vmap-of-while)"
                " whose predicate differs between examples and whose body or predicate has "
                "a check inside a nested loop or branch. Hint: if possible, move the vmap "
                "to the outer level to get vmap-of-checkify-of-while.")
        carry_bat = [True] * len(init)
    init = [bdim_at_front(x, None, size) if b and not b0 else x
            for x, b, b0 in zip(init, carry_bat, init_bat)]
    body, bh, _ = _batch_jaxpr(mask_checks(body_jaxpr) if masked else body_jaxpr, size,
                               bc_bat + carry_bat + [True] * masked, carry_bat, "while_body")
    cond, ch, _ = _batch_jaxpr(cond_jaxpr, size, cc_bat + carry_bat, False, "while_cond")
    out_dims = [0 if b else None for b in carry_bat]
    if not pred_bat:
        outs = while_p.bind(*ch, *cc, *bh, *bc, *init, cond_jaxpr=cond, body_jaxpr=body,
                            cond_nconsts=len(ch) + len(cc), body_nconsts=len(bh) + len(bc))
        return outs, out_dims
    return _while_batched_pred(cond, ch + cc, body, bh + bc, init, masked), out_dims


def _while_batched_pred(cond, cconsts, body, bconsts, init, masked=False):
    """Loop while any example's predicate holds; finished examples keep their carry.
    ``masked``: ``body`` takes each example's predicate last (``mask_checks``)."""
    nc, nb = len(cconsts), len(bconsts)
    c_avals = [get_aval(c) for c in cconsts]
    b_avals = [get_aval(c) for c in bconsts]
    carry_avals = [get_aval(c) for c in init]

    def new_cond(*a):
        (pred,) = _eval(cond, *a)
        return [reduce_or_p.bind(pred, axes=(0,))]

    def new_body(*a):
        c, b, carry = split_by_sizes(a, [nc, nb])
        (pred,) = _eval(cond, *c, *carry)
        new = _eval(body, *b, *carry, *([pred] if masked else []))
        return [_batched_select(pred, [old, upd]) for old, upd in zip(carry, new)]

    cj, ch = _trace(new_cond, c_avals + carry_avals, "while_cond_any")
    bj, bh = _trace(new_body, c_avals + b_avals + carry_avals, "while_body_masked")
    return while_p.bind(*ch, *cconsts, *bh, *cconsts, *bconsts, *init, cond_jaxpr=cj,
                        body_jaxpr=bj, cond_nconsts=len(ch) + nc,
                        body_nconsts=len(bh) + nc + nb)


def _scan_batch(args, dims, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """A batched body: batch axis 0 for consts and carry, 1 for xs and ys (0 is time)."""
    size = _axis_size(args, dims)
    sizes = [num_consts, num_carry]
    consts, init, xs = split_by_sizes(args, sizes)
    c_dims, i_dims, x_dims = split_by_sizes(dims, sizes)
    consts = [x if d is None else moveaxis(x, d, 0) for x, d in zip(consts, c_dims)]
    xs = [x if d is None else moveaxis(x, d, 1) for x, d in zip(xs, x_dims)]  # 0: the scan
    c_bat = [d is not None for d in c_dims]
    x_bat = [d is not None for d in x_dims]
    ny = len(jaxpr.out_avals) - num_carry
    carry_bat = _carry_fixed_point(
        lambda bat: _batch_jaxpr(jaxpr, size, c_bat + bat + x_bat, False,
                                 "scan_body")[2][:num_carry],
        [d is not None for d in i_dims])
    init = [bdim_at_front(x, d, size) if b else x
            for x, d, b in zip(init, i_dims, carry_bat)]
    body, h, out_bat = _batch_jaxpr(jaxpr, size, c_bat + carry_bat + x_bat,
                                    carry_bat + [False] * ny, "scan_body")
    outs = scan_p.bind(*h, *consts, *init, *xs, jaxpr=body, length=length, reverse=reverse,
                       num_consts=len(h) + num_consts, num_carry=num_carry, unroll=unroll)
    return outs, [0 if b else None for b in carry_bat] + \
        [1 if b else None for b in out_bat[num_carry:]]


# -- partial evaluation and transpose: cond ----------------------------------------------
def _merge_residuals(res_avals):
    """Slots shared by the branches' residuals (one slot per type a branch needs, reused
    across branches). Returns (slot avals, per branch: the slot of each residual)."""
    slots, where = [], []
    for avals in res_avals:
        used, mine = set(), []
        for a in avals:
            s = next((i for i, t in enumerate(slots) if i not in used and same_type(t, a)),
                     None)
            if s is None:
                slots.append(a.strip_weak_type())
                s = len(slots) - 1
            used.add(s)
            mine.append(s)
        where.append(mine)
    return slots, where


def _cond_known_branch(known, n_kout, slots, where):
    def fun(*args):
        outs = _eval(known, *args)
        filled = [zeros_like_aval(a) for a in slots]  # other branches' residuals: zeros
        for r, s in zip(outs[n_kout:], where):
            filled[s] = r
        return list(outs[:n_kout]) + filled
    return _trace(fun, known.in_avals, "cond_known")


def _cond_unknown_branch(unknown, slots, where, uk_avals):
    def fun(*args):
        res, rest = args[:len(slots)], args[len(slots):]
        return _eval(unknown, *[res[s] for s in where], *rest)
    return _trace(fun, list(slots) + list(uk_avals), "cond_unknown")


def _cond_partial_eval(trace, args, params):
    """Known cond (known outputs + residuals, padded to one list shared by the branches)
    run now; unknown cond (index, residuals, unknown operands) recorded."""
    branches = params["branches"]
    index, ops = args[0], list(args[1:])
    if trace.is_unknown(index):
        return _record(trace, cond_p, args, params)
    ops_uk = [trace.is_unknown(x) for x in ops]
    n_out = len(branches[0].out_avals)
    out_uk = [False] * n_out
    for b in branches:
        out_uk = _or(out_uk, partial_eval_jaxpr(b, ops_uk, False)[2])
    splits = [partial_eval_jaxpr(b, ops_uk, out_uk) for b in branches]
    n_kout = n_out - sum(out_uk)
    slots, where = _merge_residuals([k.out_avals[n_kout:] for k, _, _, _ in splits])
    known, kconsts = join_branch_consts(
        [_cond_known_branch(k, n_kout, slots, w) for (k, _, _, _), w in zip(splits, where)])
    with set_current_trace(trace.parent):
        kouts = cond_p.bind(index, *kconsts, *_pick(ops_uk, ops, False), branches=known)
    if not any(out_uk):
        return kouts
    uk_avals = _pick(ops_uk, branches[0].in_avals)
    unknown, uconsts = join_branch_consts(
        [_cond_unknown_branch(u, slots, w, uk_avals) for (_, u, _, _), w in zip(splits, where)])
    uouts = _record(trace, cond_p, [index, *uconsts, *kouts[n_kout:], *_pick(ops_uk, ops)],
                    dict(branches=unknown))
    return _merge(out_uk, uouts, kouts[:n_kout])


def _cond_transpose(cts, index, *ops, branches):
    """A cond of the branches' transposes; residual operands are not linear."""
    lin = [is_undefined_primal(x) for x in ops]
    res = _pick(lin, ops, False)
    ct_nz = _nonzero(cts)
    in_avals, out_avals = branches[0].in_avals, branches[0].out_avals
    avals = _pick(lin, in_avals, False) + [tangent_aval(a) for a in _pick(ct_nz, out_avals)]

    def transpose_branch(b):
        def fun(*args):
            r, c = args[:len(res)], args[len(res):]
            cts_b = _merge(ct_nz, c, _zero_tangents(_pick(ct_nz, out_avals, False)))
            return [instantiate(x) for x in _backward(b, lin, r, cts_b)]
        return _trace(fun, avals, "cond_transpose")

    new, consts = join_branch_consts([transpose_branch(b) for b in branches])
    outs = cond_p.bind(index, *consts, *res, *_pick(ct_nz, cts), branches=new)
    return [None] + _merge(lin, outs, [None] * len(res))


# -- partial evaluation: while (its transpose: while_grad.py) -------------------------------
def _known_part(known, n_keep):
    """A known jaxpr from partial_eval_jaxpr without its residual outputs, consts hoisted."""
    j, consts = convert_constvars_jaxpr(known)
    closed = ClosedJaxpr(Jaxpr([], j.invars, j.outvars[:n_keep], j.eqns), [])
    return dce(closed), consts


def _while_partial_eval(trace, args, params):
    """Known carries by a loop over them alone; unknown ones by recording the whole loop
    (which recomputes the known part), transposed by ``while_grad._while_transpose``."""
    cj, bj = params["cond_jaxpr"], params["body_jaxpr"]
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    uk = [trace.is_unknown(a) for a in args]
    cc_uk, bc_uk, init_uk = split_by_sizes(uk, [cn, bn])
    carry_uk = _carry_fixed_point(
        lambda c_uk: partial_eval_jaxpr(bj, bc_uk + c_uk, c_uk)[2], init_uk)
    pred_uk = partial_eval_jaxpr(cj, cc_uk + carry_uk)[2][0]
    if pred_uk or all(carry_uk):
        return _record(trace, while_p, args, params)
    # the known carries do not depend on unknown ones: a loop over them alone
    n_k = len(carry_uk) - sum(carry_uk)
    body, bh = _known_part(partial_eval_jaxpr(bj, bc_uk + carry_uk, carry_uk)[0], n_k)
    cond, ch = _known_part(partial_eval_jaxpr(cj, cc_uk + carry_uk)[0], 1)
    cc, bc, init = split_by_sizes(args, [cn, bn])
    kcc, kbc = _pick(cc_uk, cc, False), _pick(bc_uk, bc, False)
    with set_current_trace(trace.parent):
        kouts = while_p.bind(*ch, *kcc, *bh, *kbc, *_pick(carry_uk, init, False),
                             cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=len(ch) + len(kcc),
                             body_nconsts=len(bh) + len(kbc))
    if not any(carry_uk):
        return kouts
    unknown_outs = _record(trace, while_p, args, params)  # the whole loop, recomputed
    return _merge(carry_uk, _pick(carry_uk, unknown_outs), kouts)


# -- partial evaluation and transpose: scan ----------------------------------------------
def _scan_fixed_point(jaxpr, c_uk, carry_uk, x_uk):
    num_carry = len(carry_uk)
    ny = len(jaxpr.out_avals) - num_carry
    res = {}

    def step(c):
        res["pe"] = partial_eval_jaxpr(jaxpr, c_uk + c + x_uk, c + [False] * ny)
        return res["pe"][2][:num_carry]

    carry_uk = _carry_fixed_point(step, carry_uk)
    if res["pe"][2][:num_carry] != carry_uk:
        step(carry_uk)
    return carry_uk, res["pe"]


def _split_known_body(known, nres, n_consts, n_carry, n_xs):
    """Loop-invariant code motion on the known scan body (JAX hoists the same way): the
    part that depends on the consts only runs once, before the loop, so residuals that
    are loop-invariant (the weights of an RNN, ``cos(w)``...) are stored once instead of
    once per iteration. Returns ``(pre, loop, n_pre, kinds)``: ``pre`` maps the consts to
    the invariant residuals + ``n_pre`` values the loop reads; ``loop`` maps those values,
    the carry and xs to the known outputs + the residuals of kind "stack"; ``kinds``
    says per residual: "const" (invariant), "xs" / "ys" (a known xs slice or y: that
    stacked value is reused) or "stack" (stacked by the known scan), with its position."""
    kj, kh = convert_constvars_jaxpr(known)
    n_kout = len(kj.outvars) - nres
    n_c = len(kh) + n_consts
    pre, loop, loop_uk, n_pre = partial_eval_jaxpr(
        ClosedJaxpr(kj, []), [False] * n_c + [True] * (n_carry + n_xs),
        [True] * n_kout + [False] * nres, linear=False)   # the carry is not a tangent
    lj = loop.jaxpr
    xs_pos = {v: i for i, v in enumerate(lj.invars[n_pre + n_carry:])}
    ys_pos = {v: i for i, v in enumerate(lj.outvars[n_carry:n_kout]) if type(v) is not Literal}
    variant = iter(lj.outvars[n_kout:])
    kinds, stacked, n_inv = [], [], 0
    for is_variant in loop_uk[n_kout:]:
        if not is_variant:
            kinds.append(("const", n_inv))
            n_inv += 1
            continue
        v = next(variant)
        if type(v) is not Literal and v in xs_pos:
            kinds.append(("xs", xs_pos[v]))
        elif type(v) is not Literal and v in ys_pos:  # already stacked as a known y
            kinds.append(("ys", ys_pos[v]))
        else:
            kinds.append(("stack", len(stacked)))
            stacked.append(v)
    body = ClosedJaxpr(Jaxpr([], lj.invars, lj.outvars[:n_kout] + stacked, lj.eqns), [])
    return pre, kh, body, n_pre, kinds


def _scan_partial_eval(trace, args, params):
    """Known scan (known outputs, per-step residuals stacked as extra ys) run now; unknown
    scan (residuals as consts or xs, unknown operands) recorded (JAX's
    ``_scan_partial_eval``)."""
    jaxpr, nc, ncar = params["jaxpr"], params["num_consts"], params["num_carry"]
    uk = [trace.is_unknown(a) for a in args]
    c_uk, init_uk, x_uk = split_by_sizes(uk, [nc, ncar])
    carry_uk, (known, unknown, out_uk, nres) = _scan_fixed_point(jaxpr, c_uk, init_uk, x_uk)
    consts, init, xs = split_by_sizes(args, [nc, ncar])
    kc, kinit, kx = (_pick(c_uk, consts, False), _pick(carry_uk, init, False),
                     _pick(x_uk, xs, False))
    pre, kh, body, n_pre, kinds = _split_known_body(known, nres, len(kc), len(kinit), len(kx))
    n_kout = len(body.out_avals) - sum(k == "stack" for k, _ in kinds)
    with set_current_trace(trace.parent):
        pre_outs = _eval(pre, *kh, *kc)
        n_inv = len(pre_outs) - n_pre
        kouts = scan_p.bind(*pre_outs[n_inv:], *kinit, *kx, jaxpr=body,
                            length=params["length"], reverse=params["reverse"],
                            num_consts=n_pre, num_carry=len(kinit), unroll=params["unroll"])
    known_vals = kouts[:n_kout]
    if not any(out_uk):
        return known_vals
    # the unknown scan: loop-invariant residuals as consts, the others as xs
    source = {"const": pre_outs[:n_inv], "xs": kx, "ys": known_vals[len(kinit):],
              "stack": kouts[n_kout:]}
    res_in, rest = unknown.jaxpr.invars[:nres], unknown.jaxpr.invars[nres:]
    u_c, u_car, u_x = split_by_sizes(rest, [sum(c_uk), sum(carry_uk)])
    inv = [(v, source[k][i]) for v, (k, i) in zip(res_in, kinds) if k == "const"]
    per_step = [(v, source[k][i]) for v, (k, i) in zip(res_in, kinds) if k != "const"]
    new = _rewire(unknown, invars=[v for v, _ in inv] + u_c + u_car
                  + [v for v, _ in per_step] + u_x)
    u_args = ([c for _, c in inv] + _pick(c_uk, consts) + _pick(carry_uk, init)
              + [x for _, x in per_step] + _pick(x_uk, xs))
    uouts = _record(trace, scan_p, u_args,
                    dict(params, jaxpr=new, num_consts=len(inv) + sum(c_uk),
                         num_carry=sum(carry_uk)))
    k_car, k_ys = known_vals[:len(kinit)], known_vals[len(kinit):]
    u_car, u_ys = uouts[:sum(carry_uk)], uouts[sum(carry_uk):]
    return _merge(carry_uk, u_car, k_car) + _merge(out_uk[ncar:], u_ys, k_ys)


def _scan_transpose(cts, *args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """A scan in the opposite direction over the body's transpose: cotangents of the linear
    consts accumulate in the carry, ys' cotangents are its xs, the carry's flow back."""
    consts, init, xs = split_by_sizes(args, [num_consts, num_carry])
    c_lin = [is_undefined_primal(c) for c in consts]
    x_lin = [is_undefined_primal(x) for x in xs]
    a_c, a_car, a_x = split_by_sizes(jaxpr.in_avals, [num_consts, num_carry])
    y_out = jaxpr.out_avals[num_carry:]
    ct_car = [instantiate(c) for c in cts[:num_carry]]
    ct_ys = cts[num_carry:]
    ys_nz = _nonzero(ct_ys)
    res_c, res_x = _pick(c_lin, consts, False), _pick(x_lin, xs, False)
    lin_c_avals = [tangent_aval(a) for a in _pick(c_lin, a_c)]
    y_avals = [tangent_aval(a) for a in _pick(ys_nz, y_out)]
    linear = c_lin + [True] * num_carry + x_lin
    sizes = [len(res_c), len(lin_c_avals), num_carry, len(y_avals)]

    def body(*a):
        rc, acc, ctc, cty, rx = split_by_sizes(a, sizes)
        cts_out = list(ctc) + _merge(ys_nz, cty, _zero_tangents(_pick(ys_nz, y_out, False)))
        d_c, d_car, d_x = split_by_sizes(_backward(jaxpr, linear, rc + rx, cts_out),
                                 [len(lin_c_avals), num_carry])
        return ([add_tangents(s, d) for s, d in zip(acc, d_c)]
                + [instantiate(d) for d in d_car + d_x])

    avals = (_pick(c_lin, a_c, False) + lin_c_avals + [tangent_aval(a) for a in a_car]
             + y_avals + _pick(x_lin, a_x, False))
    tj, th = _trace(body, avals, "scan_transpose")
    zeros_c = [zeros_like_aval(a) for a in lin_c_avals]
    outs = scan_p.bind(*th, *res_c, *zeros_c, *ct_car, *_pick(ys_nz, ct_ys), *res_x,
                       jaxpr=tj, length=length, reverse=not reverse,
                       num_consts=len(th) + len(res_c), num_carry=len(zeros_c) + num_carry,
                       unroll=unroll)
    ct_c, ct_init, ct_x = split_by_sizes(outs, [len(zeros_c), num_carry])
    ct_init = [c if is_undefined_primal(x) else None for c, x in zip(ct_init, init)]
    return (_merge(c_lin, ct_c, [None] * len(res_c)) + ct_init
            + _merge(x_lin, ct_x, [None] * len(res_x)))


# -- registration --------------------------------------------------------------------------
cond_p.jvp, cond_p.batch = _cond_jvp, _cond_batch
cond_p.partial_eval, cond_p.transpose = _cond_partial_eval, _cond_transpose
while_p.jvp, while_p.batch = _while_jvp, _while_batch
while_p.partial_eval = _while_partial_eval  # while_p.transpose: while_grad.py
scan_p.jvp, scan_p.batch = _scan_jvp, _scan_batch
scan_p.partial_eval, scan_p.transpose = _scan_partial_eval, _scan_transpose

__all__ = []
