"""Reverse mode through ``lax.while_loop``: the transpose of ``while`` and the rules of
``while_transpose`` (``tjit/primitives/while_transpose.py``).

Linearizing a loop gives (``control_flow_rules._while_partial_eval``) a loop over the
known (primal) carries, run now, and the jvp'd loop recorded as an equation whose
tangent carries and tangent body consts are its linear inputs. Its transpose here:

1. splits the body by :func:`partial_eval_jaxpr` into the non-linear part (primal
   carries -> primal carries + residuals) and the linear part (residuals, tangents ->
   tangents); the predicate must read non-linear carries only, as a jvp'd loop's does.
   Residuals that depend on the consts only (the weights of an RNN, ``W.T``) are
   computed once, before the sweep (``control_flow_rules._split_known_body``, as for
   ``scan``); the others are the per-trip *record*;
2. binds ``while_transpose``: run the non-linear loop again from its initial state,
   keep each trip's record (a tape that doubles, or ``k`` Revolve snapshots of the
   state from which records are recomputed), and sweep back from the last trip to
   the first applying the linear part's transpose to that trip's record, accumulating
   the cotangents of the tangent body consts.

How much is kept is the option ``tjit.config.update("while_loop_checkpoints", k)``:
None (the default) tapes every trip's record (memory O(n), backward work one body
transpose per trip); an int ``k >= 1`` keeps at most ``k`` states (memory O(k),
forward work O(n log n) recomputed steps). It is read when the gradient is traced, so
a ``jit`` retraces when it changes.

Rules of ``while_transpose`` itself, so that the gradient composes:

* jvp: the same primitive over the jvp of its forward body and of its backward body
  (forward-over-reverse: ``jvp(grad(f))``, Hessian-vector products);
* batching: when only the accumulators or backward consts are batched (``jacrev``: a
  batch of cotangents), one unbatched forward sweep serves every example; otherwise
  every state, record and accumulator is batched, and a batched predicate runs the
  forward loop while any example's holds (finished ones keep their state), records
  the predicate with each trip and masks each backward step with it, so each example
  reverses exactly its own trips;
* partial evaluation (reverse over reverse: ``grad(grad(f))``): the outputs that depend
  on unknown (tangent) inputs are affine in them; their Jacobian is measured by one
  ``vmap``'d sweep per unknown input over that input's unit vectors, and the unknown
  outputs are recorded as ``known + dot(tangent, J)``, whose transpose is a dot. This
  costs as many sweeps as the unknown inputs have elements: meant for the small loop
  states of Newton iterations, line searches and step-size control, not for large
  ones.
"""

import numpy as np

from tjit.config import config
from tjit.primitives.control_flow import while_p
from tjit.primitives.dot import dot_general_p
from tjit.primitives.elementwise import add_p, convert_element_type_p, imag_p, real_p, sub_p
from tjit.primitives.reductions import reduce_or_p
from tjit.primitives.rules import (
    Zero,
    add_tangents,
    bdim_at_front,
    instantiate,
    is_undefined_primal,
    moveaxis,
    tangent_aval,
    zeros_like_aval,
)
from tjit.primitives.structural import broadcast_in_dim_p, reshape_p
from tjit.primitives.while_transpose import split_operands, while_transpose_p
from tjit.tracing import dtypes
from tjit.tracing.core import current_trace, get_aval, set_current_trace
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Var
from tjit.tracing.tree_util import split_by_sizes
from tjit.transforms.batching import BatchTrace, BatchTracer
from tjit.transforms.control_flow_rules import (
    _axis_size,
    _backward,
    _batch_jaxpr,
    _batched_select,
    _carry_fixed_point,
    _eval,
    _jvp_jaxpr,
    _known_part,
    _merge,
    _nonzero,
    _pick,
    _rewire,
    _split_known_body,
    _trace,
    _zero_tangents,
)
from tjit.transforms.partial_eval import linear_inputs_only, partial_eval_jaxpr


def _params_split(params):
    return params["cond_nconsts"], params["body_nconsts"], params["bwd_nconsts"]


def _checkpoints():
    return config.read("while_loop_checkpoints")  # validated by config.update


# -- the transpose of while ------------------------------------------------------------------
def _while_transpose(cts, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, init = split_by_sizes(args, [cond_nconsts, body_nconsts])
    if any(is_undefined_primal(x) for x in cc):
        raise ValueError("lax.while_loop reverse mode: the predicate reads a value being "
                         "differentiated; a predicate must depend on primal values only")
    lin_bc = [is_undefined_primal(x) for x in bc]
    # a carry is linear when its init is, or when a linear const reaches it (a tangent
    # carry that starts from known zeros); a known init of a linear carry adds a constant
    # to its output and so takes no part in the transpose
    lin_car = _carry_fixed_point(
        lambda c: partial_eval_jaxpr(body_jaxpr, lin_bc + c, c)[2],
        [is_undefined_primal(x) for x in init])
    live = [type(c) is not Zero and c is not None for c in cts]
    if not any(l and c for l, c in zip(lin_car, live)):
        return [None] * len(args)
    carry_avals = body_jaxpr.in_avals[body_nconsts:]
    known, linear, _, nres = partial_eval_jaxpr(body_jaxpr, lin_bc + lin_car, lin_car)
    n_k = len(lin_car) - sum(lin_car)
    cond_known, cond_uk = partial_eval_jaxpr(cond_jaxpr, [False] * cond_nconsts + lin_car)[::2]
    if cond_uk[0]:
        raise ValueError("lax.while_loop reverse mode: the predicate reads a differentiated "
                         "carry; a predicate must depend on primal values only")
    cond, ch = _known_part(cond_known, 1)
    nbc = _pick(lin_bc, bc, False)
    # residuals that depend on the consts only are computed once, here; the others are
    # the per-trip records of the loop's non-linear part
    pre, kh, body, n_pre, kinds = _split_known_body(known, nres, len(nbc), n_k, 0)
    pre_outs = _eval(pre, *kh, *nbc)
    n_inv = len(pre_outs) - n_pre
    invariant, loop_consts = pre_outs[:n_inv], pre_outs[n_inv:]
    lbc_avals = [tangent_aval(v.aval) for v in _pick(lin_bc, body_jaxpr.jaxpr.invars)]
    lcar_avals = [tangent_aval(a) for a in _pick(lin_car, carry_avals)]
    linear_mask = [False] * nres + [True] * (len(lbc_avals) + len(lcar_avals))
    n_rec = len(body.out_avals) - n_k

    def bwd(*a):
        inv, rec, acc_bc, g = split_by_sizes(a, [n_inv, n_rec, len(lbc_avals)])
        res = [inv[i] if kind == "const" else rec[i] for kind, i in kinds]
        d = _backward(linear, linear_mask, res, list(g))
        d_bc, d_car = d[:len(lbc_avals)], d[len(lbc_avals):]
        return ([instantiate(add_tangents(x, y)) for x, y in zip(acc_bc, d_bc)]
                + [instantiate(x) for x in d_car])

    in_avals = ([get_aval(x) for x in invariant] + body.out_avals[n_k:] + lbc_avals
                + lcar_avals)
    bwd_j, wh = _trace(bwd, in_avals, "while_body_transpose")
    acc0 = ([zeros_like_aval(a) for a in lbc_avals]
            + [instantiate(c) for c in _pick(lin_car, cts)])
    outs = while_transpose_p.bind(
        *ch, *cc, *loop_consts, *wh, *invariant, *_pick(lin_car, init, False), *acc0,
        cond_jaxpr=cond, body_jaxpr=body, bwd_jaxpr=bwd_j, cond_nconsts=len(ch) + len(cc),
        body_nconsts=len(loop_consts), bwd_nconsts=len(wh) + len(invariant),
        checkpoints=_checkpoints())
    ct_bc, ct_init = outs[:len(lbc_avals)], outs[len(lbc_avals):]
    ct_init = [c if is_undefined_primal(x) else None
               for c, x in zip(_merge(lin_car, ct_init, [None] * n_k), init)]
    return [None] * len(cc) + _merge(lin_bc, ct_bc, [None] * len(nbc)) + ct_init


# -- jvp of while_transpose (forward over reverse) --------------------------------------------
def _sizes(params):
    """(number of states, number of record leaves) of a while_transpose."""
    body_j, bn = params["body_jaxpr"], params["body_nconsts"]
    ns = len(body_j.in_avals) - bn
    return ns, len(body_j.out_avals) - ns


def _wt_jvp(primals, tangents, **params):
    cond_j, body_j, bwd_j = params["cond_jaxpr"], params["body_jaxpr"], params["bwd_jaxpr"]
    ns, nr = _sizes(params)
    cc, bc, wc, init, acc = split_operands(primals, *_params_split(params), ns)
    _, bc_d, wc_d, init_d, acc_d = split_operands(tangents, *_params_split(params), ns)
    bc_nz, wc_nz = _nonzero(bc_d), _nonzero(wc_d)
    car_nz = _carry_fixed_point(
        lambda nz: _jvp_jaxpr(body_j, bc_nz + nz, False, "while_jvp")[2][:ns],
        _nonzero(init_d))
    body, bh, out_nz = _jvp_jaxpr(body_j, bc_nz + car_nz, car_nz + [False] * nr,
                                  "while_body_jvp")
    rec_nz = out_nz[ns:]
    acc_nz = _carry_fixed_point(
        lambda nz: _jvp_jaxpr(bwd_j, wc_nz + rec_nz + nz, False, "while_transpose_jvp")[2],
        _nonzero(acc_d))
    h, p_bc, p_car, t_bc, t_car = split_by_sizes(body.jaxpr.invars,
                                         [len(bh), len(bc), ns, sum(bc_nz)])
    p_s, p_r, t_s, t_r = split_by_sizes(body.jaxpr.outvars, [ns, nr, sum(car_nz)])
    body = _rewire(body, invars=h + p_bc + t_bc + p_car + t_car, outvars=p_s + t_s + p_r + t_r)
    bwd, wh, _ = _jvp_jaxpr(bwd_j, wc_nz + rec_nz + acc_nz, acc_nz, "while_transpose_jvp")
    h, p_wc, p_rec, p_acc, t_wc, t_rec, t_acc = split_by_sizes(
        bwd.jaxpr.invars, [len(wh), len(wc), nr, len(acc), sum(wc_nz), sum(rec_nz)])
    bwd = _rewire(bwd, invars=h + p_wc + t_wc + p_rec + t_rec + p_acc + t_acc)
    cj = cond_j.jaxpr  # the predicate reads primal states only: tangents are extra inputs
    cond = ClosedJaxpr(Jaxpr(cj.constvars, cj.invars + [Var(v.aval) for v in t_car],
                             cj.outvars, cj.eqns), cond_j.consts)
    outs = while_transpose_p.bind(
        *cc, *bh, *bc, *_pick(bc_nz, bc_d), *wh, *wc, *_pick(wc_nz, wc_d), *init,
        *[instantiate(t) for t, nz in zip(init_d, car_nz) if nz], *acc,
        *[instantiate(t) for t, nz in zip(acc_d, acc_nz) if nz],
        cond_jaxpr=cond, body_jaxpr=body, bwd_jaxpr=bwd, cond_nconsts=len(cc),
        body_nconsts=len(bh) + len(bc) + sum(bc_nz),
        bwd_nconsts=len(wh) + len(wc) + sum(wc_nz), checkpoints=params["checkpoints"])
    na = len(acc)
    avals = bwd_j.out_avals
    return outs[:na], _merge(acc_nz, outs[na:], _zero_tangents(_pick(acc_nz, avals, False)))


# -- batching ----------------------------------------------------------------------------------
def _wt_batch(args, dims, **params):
    """Every state, record and accumulator batched; a batched predicate masks both
    sweeps."""
    size = _axis_size(args, dims)
    cond_j, body_j, bwd_j = params["cond_jaxpr"], params["body_jaxpr"], params["bwd_jaxpr"]
    ns, nr = _sizes(params)
    na = len(bwd_j.out_avals)
    args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    cc, bc, wc, init, acc = split_operands(args, *_params_split(params), ns)
    cc_b, bc_b, wc_b, init_b, acc_b = split_operands([d is not None for d in dims],
                                                     *_params_split(params), ns)
    acc = [x if b else bdim_at_front(x, None, size) for x, b in zip(acc, acc_b)]
    if not any(cc_b + bc_b + init_b):
        # only the backward sweep sees the batch (jacrev: a batch of cotangents): one
        # forward sweep serves every example
        bwd, wh, _ = _batch_jaxpr(bwd_j, size, wc_b + [False] * nr + [True] * na, True,
                                  "while_body_transpose")
        outs = while_transpose_p.bind(*cc, *bc, *wh, *wc, *init, *acc,
                                      **dict(params, bwd_jaxpr=bwd,
                                             bwd_nconsts=len(wh) + len(wc)))
        return outs, [0] * na
    init = [x if b else bdim_at_front(x, None, size) for x, b in zip(init, init_b)]
    cond, ch, (pred_b,) = _batch_jaxpr(cond_j, size, cc_b + [True] * ns, False, "while_cond")
    body, bh, _ = _batch_jaxpr(body_j, size, bc_b + [True] * ns, True, "while_body")
    bwd, wh, _ = _batch_jaxpr(bwd_j, size, wc_b + [True] * (nr + na), True,
                              "while_body_transpose")
    cc, bc, wc = ch + cc, bh + bc, wh + wc
    if pred_b:
        cond, body, bwd, cc, bc, wc = _masked(cond, body, bwd, cc, bc, wc, init, ns)
    outs = while_transpose_p.bind(*cc, *bc, *wc, *init, *acc, cond_jaxpr=cond,
                                  body_jaxpr=body, bwd_jaxpr=bwd, cond_nconsts=len(cc),
                                  body_nconsts=len(bc), bwd_nconsts=len(wc),
                                  checkpoints=params["checkpoints"])
    return outs, [0] * na


def _masked(cond, body, bwd, cc, bc, wc, init, ns):
    """Loop while any example's predicate holds; an example whose predicate is false at
    a trip keeps its state, and its record there carries the predicate, so the backward
    step of that trip leaves its accumulators alone."""
    nc, nb, nw = len(cc), len(bc), len(wc)
    a_cc, a_bc, a_wc = ([get_aval(x) for x in xs] for xs in (cc, bc, wc))
    a_s = [get_aval(x) for x in init]
    a_rec, a_acc = body.out_avals[ns:], bwd.out_avals

    def any_cond(*a):
        (pred,) = _eval(cond, *a)
        return [reduce_or_p.bind(pred, axes=(0,))]

    def masked_body(*a):
        c, b, s = split_by_sizes(a, [nc, nb])
        (pred,) = _eval(cond, *c, *s)
        outs = _eval(body, *b, *s)
        return ([_batched_select(pred, [old, new]) for old, new in zip(s, outs[:ns])]
                + list(outs[ns:]) + [pred])

    def masked_bwd(*a):
        w, rec, pred, ac = split_by_sizes(a, [nw, len(a_rec), 1])
        new = _eval(bwd, *w, *rec, *ac)
        return [_batched_select(pred[0], [old, upd]) for old, upd in zip(ac, new)]

    pred_aval = cond.out_avals[0]
    cj, ch = _trace(any_cond, a_cc + a_s, "while_cond_any")
    bj, bh = _trace(masked_body, a_cc + a_bc + a_s, "while_body_masked")
    wj, wh = _trace(masked_bwd, a_wc + list(a_rec) + [pred_aval] + list(a_acc),
                    "while_body_transpose_masked")
    return cj, bj, wj, ch + cc, bh + cc + bc, wh + wc


# -- partial evaluation (reverse over reverse) ---------------------------------------------
def _unknown_flags(uk, params):
    cond_j, body_j, bwd_j = params["cond_jaxpr"], params["body_jaxpr"], params["bwd_jaxpr"]
    ns, nr = _sizes(params)
    cc_uk, bc_uk, wc_uk, init_uk, acc_uk = split_operands(uk, *_params_split(params), ns)
    car_uk = _carry_fixed_point(
        lambda c: partial_eval_jaxpr(body_j, bc_uk + c, c + [False] * nr)[2][:ns], init_uk)
    rec_uk = partial_eval_jaxpr(body_j, bc_uk + car_uk, car_uk + [False] * nr)[2][ns:]
    if any(cc_uk) or partial_eval_jaxpr(cond_j, cc_uk + car_uk)[2][0]:
        raise ValueError("while_transpose: the loop's predicate depends on a value being "
                         "differentiated; a predicate must depend on primal values only")
    return _carry_fixed_point(
        lambda a: partial_eval_jaxpr(bwd_j, wc_uk + rec_uk + a, a)[2], acc_uk)


@linear_inputs_only   # out = known + dot(unknown, J) holds for tangents only
def _wt_partial_eval(trace, args, params):
    """Known outputs computed now (unknown inputs do not reach them: zeros stand in);
    unknown outputs recorded as ``known part + dot(unknown input, Jacobian)``."""
    uk = [trace.is_unknown(a) for a in args]
    out_uk = _unknown_flags(uk, params)
    with set_current_trace(trace.parent):
        base = [zeros_like_aval(tangent_aval(a.aval)) if u else a for a, u in zip(args, uk)]
        out0 = while_transpose_p.bind(*base, **params)
        # one Jacobian per real direction of each unknown input: a complex input has two
        # (the outputs are R-linear in it, not necessarily C-linear: real parts, conj)
        parts = [(i, unit, _jacobian(base, i, unit, params, out_uk, out0))
                 for i, u in enumerate(uk) if u and _inexact(args[i].aval)
                 for unit in _units(args[i].aval)]
    outs = []
    with set_current_trace(trace):
        for j, o in enumerate(out0):
            if out_uk[j] and _inexact(get_aval(o)):
                for i, unit, jac in parts:
                    o = add_p.bind(o, _contract(_component(args[i], unit), jac[j]))
            outs.append(o)
    return outs


def _inexact(aval):
    return dtypes.is_inexact(aval.dtype)


def _units(aval):
    return (1, 1j) if dtypes.is_complex(aval.dtype) else (1,)


def _component(u, unit):
    """The real coordinate of ``u`` along ``unit`` (linear in ``u``)."""
    if not dtypes.is_complex(u.aval.dtype):
        return u
    return (real_p if unit == 1 else imag_p).bind(u)


def _jacobian(base, i, unit, params, out_uk, out0):
    """Per output: d out / d base[i] along ``unit`` with shape ``base[i].shape +
    out.shape``, from one sweep batched over the unit vectors of ``base[i]`` times
    ``unit`` (the outputs are affine in it)."""
    aval = get_aval(base[i])
    shape, m = tuple(aval.shape), int(np.prod(aval.shape, dtype=np.int64))
    eye = (np.eye(m, dtype=aval.dtype) * unit).reshape((m,) + shape)
    trace = BatchTrace(current_trace(), m, None, "while_transpose_jacobian")
    ins = [BatchTracer(trace, eye, 0) if k == i else x for k, x in enumerate(base)]
    try:
        with set_current_trace(trace):
            outs = while_transpose_p.bind(*ins, **params)
        pairs = [trace.to_batched(o) for o in outs]
    finally:
        trace.invalidate()
    jac = []
    for (v, d), o, u in zip(pairs, out0, out_uk):
        if not u:
            jac.append(None)
            continue
        v = moveaxis(v, d, 0) if d is not None else bdim_at_front(v, None, m)
        o_shape = tuple(get_aval(o).shape)
        o_b = broadcast_in_dim_p.bind(o, shape=(m,) + o_shape,
                                      broadcast_dimensions=tuple(range(1, len(o_shape) + 1)))
        jac.append(reshape_p.bind(sub_p.bind(v, o_b), new_sizes=shape + o_shape,
                                  dimensions=None))
    return jac


def _contract(u, jac):
    """``sum_k u[k] * jac[k, ...]`` over all of ``u``'s dims: linear in ``u``. ``u`` (a real
    coordinate) takes the output's dtype: a float16 state may feed a float32 output, a
    real one a complex output."""
    if u.aval.dtype != jac.aval.dtype:
        u = convert_element_type_p.bind(u, new_dtype=jac.aval.dtype, weak_type=False)
    n = len(u.aval.shape)
    dims = tuple(range(n))
    return dot_general_p.bind(u, jac, dimension_numbers=((dims, dims), ((), ())),
                              precision=None, preferred_element_type=None)


while_p.transpose = _while_transpose
while_transpose_p.jvp = _wt_jvp
while_transpose_p.batch = _wt_batch
while_transpose_p.partial_eval = _wt_partial_eval

__all__ = []
