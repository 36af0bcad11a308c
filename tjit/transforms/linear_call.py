"""``linear_call`` (JAX's ``jax.custom_derivatives.linear_call``): a function linear in
some of its arguments together with the transpose the caller states for it.

    y = linear_call(fun, fun_transpose, residual_args, linear_args)

``fun(residual_args, linear_args)`` must be linear in ``linear_args``;
``fun_transpose(residual_args, out_cotangents)`` returns cotangents shaped like
``linear_args``. Being linear, the call's jvp is the call itself on the tangents, so
forward mode (``jvp``, ``linearize``, ``jacfwd``) and reverse mode (the tangent call,
transposed: the same primitive with ``fun`` and ``fun_transpose`` swapped) both work —
what ``custom_vjp`` cannot give (it has no forward mode). tjit uses it where a map's
adjoint is not the one its primitives would derive: a shard_map over processes whose
replicated arguments' cotangents are summed over the processes
(``experimental/shard_map_processes.py``).

A tangent of a residual goes through ``fun``'s own derivative in it (ordinary traced
ops), so ``fun`` must then be differentiable in its residuals. Both functions are traced
once, at the call, into ``linear_call_p``'s ``callee`` and
``transpose`` jaxprs (over the same leading residual operands: the residuals and the
constants either closes over); compilers inline ``callee``.
"""

import weakref

from tjit.primitives.ad_prims import linear_call_p
from tjit.primitives.rules import (
    Zero,
    add_tangents,
    bdim_at_front,
    instantiate,
    is_undefined_primal,
)
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import get_aval, is_eager
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.transforms.ad import jvp
from tjit.transforms.batching import batching_axis_name
from tjit.transforms.custom_derivatives import (
    _leaf_array,
    batch_size_and_front,
    trace_flat,
    vmap_flat,
)


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """Call ``fun(residual_args, linear_args)``, linear in ``linear_args``, whose
    transpose is ``fun_transpose(residual_args, out_cotangents)``.

    Args:
      fun: a function of (residuals pytree, linear pytree) returning a pytree of arrays.
      fun_transpose: a function of (residuals pytree, cotangents pytree like fun's
        output) returning cotangents of the structure, shapes and dtypes of linear_args.
      residual_args: a pytree of arrays that fun is not linear in (not differentiated).
      linear_args: a pytree of arrays.
    Returns:
      ``fun(residual_args, linear_args)``.
    """
    name = getattr(fun, "__name__", "linear_call")
    res, res_tree = tree_flatten(residual_args)
    lin, lin_tree = tree_flatten(linear_args)
    res = [_leaf_array(x, "linear_call", name, i) for i, x in enumerate(res)]
    lin = [_leaf_array(x, "linear_call", name, len(res) + i) for i, x in enumerate(lin)]
    out_store = {}

    def flat_fun(*flat):
        out = fun(tree_unflatten(res_tree, list(flat[:len(res)])),
                  tree_unflatten(lin_tree, list(flat[len(res):])))
        leaves, out_store["tree"] = tree_flatten(out)
        return leaves

    def flat_transpose(*flat):
        cts = fun_transpose(tree_unflatten(res_tree, list(flat[:len(res)])),
                            tree_unflatten(out_store["tree"], list(flat[len(res):])))
        leaves, tree = tree_flatten(cts)
        _check_cotangents(name, tree, lin_tree, leaves, lin)
        return leaves

    res_avals = [get_aval(x) for x in res]
    callee, transpose, consts = _pair(flat_fun, flat_transpose, res_avals,
                                      [get_aval(x) for x in lin], name)
    outs = linear_call_p.bind(*consts, *res, *lin, callee=callee, transpose=transpose,
                              num_res=len(consts) + len(res))
    return tree_unflatten(out_store["tree"], outs)


def _check_cotangents(name, tree, lin_tree, leaves, lin):
    if tree != lin_tree:
        raise TypeError(f"linear_call of {name}: the transpose returned a value of structure "
                        f"{tree}, but the linear arguments have structure {lin_tree}; "
                        f"return one cotangent per linear argument")
    for i, (c, x) in enumerate(zip(leaves, lin)):
        a, b = get_aval(c), get_aval(x)
        if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
            raise TypeError(f"linear_call of {name}: the transpose's cotangent {i} is "
                            f"{a.str_short()} but linear argument {i} is {b.str_short()}; "
                            f"they must have the same shape and dtype")


def _pair(callee_fn, transpose_fn, res_avals, lin_avals, name):
    """Trace ``callee_fn(*res, *lin)`` and ``transpose_fn(*res, *cts)`` into jaxprs over the
    same leading operands: ``(consts, *res, ...)``, where ``consts`` are what either closes
    over. Returns ``(callee, transpose, consts)``."""
    callee, c_consts = trace_flat(callee_fn, list(res_avals) + list(lin_avals), name)
    ct_avals = [ShapedArray(a.shape, a.dtype) for a in callee.out_avals]
    transpose, t_consts = trace_flat(transpose_fn, list(res_avals) + ct_avals,
                                     name + "_transpose")
    nc, nt = len(c_consts), len(t_consts)
    if not nc + nt:
        return callee, transpose, []
    lead = [get_aval(c) for c in c_consts + t_consts]

    def callee_all(*vals):   # (ignores the transpose's constants)
        return eval_jaxpr(callee.jaxpr, [], *vals[:nc], *vals[nc + nt:])

    def transpose_all(*vals):   # (ignores the callee's constants)
        return eval_jaxpr(transpose.jaxpr, [], *vals[nc:])

    callee, _ = trace_flat(callee_all, lead + list(res_avals) + list(lin_avals), name)
    transpose, _ = trace_flat(transpose_all, lead + list(res_avals) + ct_avals,
                              name + "_transpose")
    return callee, transpose, list(c_consts) + list(t_consts)


def _jvp(primals, tangents, *, callee, transpose, num_res):
    params = {"callee": callee, "transpose": transpose, "num_res": num_res}
    outs = linear_call_p.bind(*primals, **params)
    res, res_t = primals[:num_res], tangents[:num_res]
    lin, lin_t = primals[num_res:], tangents[num_res:]
    t_outs = [Zero.from_value(o) for o in outs]
    if any(type(t) is not Zero for t in lin_t):   # linear: the call on the tangents
        t_outs = linear_call_p.bind(*res, *[instantiate(t) for t in lin_t], **params)
    moving = [i for i, t in enumerate(res_t) if type(t) is not Zero]
    if moving:
        # through the residuals: the callee's own derivative in them, as ordinary ops (only
        # in those with tangents: an instantiated zero of an integer residual is no tangent)
        def in_residuals(*moved):
            r = list(res)
            for i, v in zip(moving, moved):
                r[i] = v
            return eval_jaxpr(callee.jaxpr, callee.consts, *r, *lin)
        extra = jvp(in_residuals, tuple(res[i] for i in moving),
                    tuple(res_t[i] for i in moving))[1]
        t_outs = [add_tangents(t, e) for t, e in zip(t_outs, extra)]
    return outs, list(t_outs)


# a transpose jaxpr -> a compiled function of its operands that evaluates it, for a
# backward pass run eagerly (outside any trace): a jitted function's linear call under an
# eager grad (inline_call.Linearized) is transposed by one compiled call per step, as
# JAX's transposed pjit, instead of equation by equation. The function holds the jaxpr
# weakly, so an entry lives as long as its jaxpr
_EAGER_TRANSPOSES = weakref.WeakKeyDictionary()


def transpose_eagerly_with(transpose, run):
    """Evaluate ``transpose`` (a linear call's transpose jaxpr) with ``run(*operands)``
    when the backward pass runs eagerly."""
    _EAGER_TRANSPOSES[transpose] = run


def _transpose(cts, *args, callee, transpose, num_res):
    res = args[:num_res]
    if any(is_undefined_primal(r) for r in res):
        raise TypeError("linear_call: a residual operand depends on the linear ones; only "
                        "linear_args may carry the values being transposed")
    lin = args[num_res:]
    if all(type(c) is Zero for c in cts):
        return [None] * num_res + [Zero(x.aval) for x in lin]
    cts = [instantiate(c) for c in cts]
    run = _EAGER_TRANSPOSES.get(transpose) if is_eager() else None
    if run is not None:
        return [None] * num_res + list(run(*res, *cts))
    cts_in = linear_call_p.bind(*res, *cts, callee=transpose, transpose=callee,
                                num_res=num_res)
    return [None] * num_res + list(cts_in)


# callee -> {(transpose, residual dims, axis size and name, operand types): its batched
# pair}: the same jaxprs batched again alike (a jitted function's linear call under
# jacrev's vmapped pullback, at every call: inline_call.py) are traced once
_BATCHED = weakref.WeakKeyDictionary()


def _batch(args, dims, *, callee, transpose, num_res):
    """Both jaxprs batched alike: the linear operands and the outputs (hence the
    cotangents) with their batch axis first, residuals as they come."""
    size, args, dims = batch_size_and_front(args, dims)
    res, res_dims = list(args[:num_res]), list(dims[:num_res])
    lin = [bdim_at_front(x, d, size) for x, d in zip(args[num_res:], dims[num_res:])]
    n_out = len(callee.out_avals)
    types = tuple((a.shape, a.dtype, a.weak_type) for a in map(get_aval, res + lin))
    key = (transpose, tuple(res_dims), size, batching_axis_name(), types)
    cached = _BATCHED.setdefault(callee, {})
    try:
        pair = cached.get(key)
    except TypeError:   # (an unhashable axis name or size)
        cached = pair = None
    if pair is None:
        pair = _batched_pair(callee, transpose, res, res_dims, lin, size, n_out)
        if cached is not None:
            cached[key] = pair
    b_callee, b_transpose, consts = pair
    outs = linear_call_p.bind(*consts, *res, *lin, callee=b_callee, transpose=b_transpose,
                              num_res=len(consts) + num_res)
    return list(outs), [0] * n_out


def _batched_pair(callee, transpose, res, res_dims, lin, size, n_out):
    """``(callee, transpose, consts)`` batched: see :func:`_batch`."""
    def batched(closed, k):
        def fn(*vals):
            return vmap_flat(lambda *a: eval_jaxpr(closed.jaxpr, closed.consts, *a),
                             vals, res_dims + [0] * k, size, force=True,
                             name="linear_call")[0]
        return fn

    return _pair(batched(callee, len(lin)), batched(transpose, n_out),
                 [get_aval(r) for r in res], [get_aval(x) for x in lin], "linear_call")


linear_call_p.jvp = _jvp
linear_call_p.transpose = _transpose
linear_call_p.batch = _batch

__all__ = ["linear_call", "transpose_eagerly_with"]
