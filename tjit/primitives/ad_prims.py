"""Primitives of differentiation control: ``stop_gradient``, ``checkpoint_name``, and the
call primitives behind ``custom_jvp``, ``custom_vjp`` and ``checkpoint`` (remat).

* ``stop_gradient_p``: identity whose jvp is zero (``lax.stop_gradient``).
* ``checkpoint_name_p``: identity with a ``name`` param, linear; a name the checkpoint
  policies ``save_only_these_names`` & co. look for (``ad_checkpoint.checkpoint_name``).
* ``custom_jvp_call_p``: operands ``*consts, *nondiff, *args``; runs ``call_jaxpr`` (the
  primal function) everywhere except under jvp, where its ``jvp`` param (a flat Python
  function ``jvp(nondiff, primals, tangents) -> (outs, tangent_outs)``) is used.
* ``custom_vjp_call_p``: operands ``*consts, *args``; runs ``call_jaxpr``; under jvp the
  ``fwd`` param computes outputs and residuals and the tangents come from a
  ``custom_lin`` equation, which reverse mode transposes with the ``bwd`` param. Plain
  forward mode cannot evaluate ``custom_lin`` (JAX's "can't apply forward-mode autodiff
  (jvp) to a custom_vjp function").
* ``linear_call_p``: operands ``*residuals, *linear``; runs ``callee``, which is linear in
  the ``linear`` operands; its jvp is itself on the tangents, and reverse mode binds it
  again with ``callee`` and ``transpose`` swapped (``transforms/linear_call.py``).
* ``custom_vmap_call_p``: runs ``call``; under vmap its ``rule`` param (a flat Python
  function ``rule(axis_size, in_batched, args) -> (outs, out_batched)``) is used
  instead of batching ``call`` (``jax.custom_batching.custom_vmap``).
* ``checkpoint_p``: operands are ``jaxpr``'s inputs; params ``prevent_cse``,
  ``differentiated``, ``policy``. Reverse mode saves only what ``policy`` allows and
  recomputes the rest in the backward pass.

The rules that need transformation machinery (batching of the call primitives, the jvp,
partial-eval and transpose rules of ``checkpoint_p``) are attached at import time by
``tjit/transforms/custom_derivatives.py`` and ``tjit/transforms/checkpoint.py``
(primitives/ does not import transforms/). Call primitives carry their body as a
:class:`ClosedJaxpr` param listed in :data:`CALL_JAXPR_PARAM`, so a compiler can inline
them.
"""

from tjit.tracing import dtypes
from tjit.tracing.core import get_aval
from tjit.tracing.jaxpr import ClosedJaxpr, eval_jaxpr_reference
from tjit.primitives import rules as _r
from tjit.primitives.base import as_dtype_out, new_primitive
from tjit.primitives.control_flow import same_type


# -- stop_gradient -------------------------------------------------------------------------
stop_gradient_p = new_primitive("stop_gradient")


@stop_gradient_p.def_abstract_eval
def _stop_gradient_abstract(x):
    return x.update(weak_type=False)


@stop_gradient_p.def_impl
def _stop_gradient_impl(xp, x):
    return x


_r.defjvp_zero(stop_gradient_p)
_r.defvectorized(stop_gradient_p)


# -- checkpoint_name -----------------------------------------------------------------------
checkpoint_name_p = new_primitive("checkpoint_name")


@checkpoint_name_p.def_abstract_eval
def _checkpoint_name_abstract(x, *, name):
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a string, got {name!r:.60}")
    return x.update(weak_type=False)


@checkpoint_name_p.def_impl
def _checkpoint_name_impl(xp, x, *, name):
    return x


# Linear: the tangent carries the same name (as JAX's name_p).
_r.deflinear(checkpoint_name_p, lambda ct, x, *, name: [ct])
_r.defvectorized(checkpoint_name_p)


# -- shared helpers for the call primitives ------------------------------------------------
def _check_operands(op, avals, jaxpr):
    expected = jaxpr.in_avals
    if len(avals) != len(expected):
        raise TypeError(f"{op}: the body takes {len(expected)} inputs, got {len(avals)}")
    for i, (a, e) in enumerate(zip(avals, expected)):
        if not same_type(a, e):
            raise TypeError(f"{op}: body input {i} has type {e.str_short()} but the operand "
                            f"passed has type {a.str_short()}")


def _check_closed(op, jaxpr):
    if not isinstance(jaxpr, ClosedJaxpr):
        raise TypeError(f"{op}: the body must be a ClosedJaxpr, got {type(jaxpr).__name__}")


def _run_body(xp, jaxpr, vals):
    outs = eval_jaxpr_reference(jaxpr.jaxpr, jaxpr.consts, list(vals), xp)
    return [as_dtype_out(xp, o, a.dtype) for o, a in zip(outs, jaxpr.out_avals)]


def _call_primitive(name, param):
    """A multiple-results primitive that evaluates its ``param`` jaxpr on its operands."""
    p = new_primitive(name, multiple_results=True)

    def abstract_eval(*avals, **params):
        body = params[param]
        _check_closed(name, body)
        _check_operands(name, avals, body)
        return list(body.out_avals)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(lambda xp, *vals, **params: _run_body(xp, params[param], vals))
    p.def_weak_type(lambda *weak, **params: [a.weak_type for a in params[param].out_avals])
    return p


def closure_tangent_error(kind, name, aval):
    return TypeError(
        f"{kind} function '{name}' closes over a value that is being differentiated "
        f"(a {aval.str_short()} traced by an enclosing transformation); its derivative "
        f"through that value cannot be taken. Pass the value as an explicit argument of "
        f"the function (for custom_jvp, list it in nondiff_argnums if it should not be "
        f"differentiated).")


def _check_closure_tangents(kind, name, tangents):
    for t in tangents:
        if type(t) is not _r.Zero:
            raise closure_tangent_error(kind, name, get_aval(t))


def _custom_call_pp(params):
    """As JAX prints a custom_jvp/vjp call: ``name`` first, then the rest sorted, counts
    of zero left out (the rules print as their functions' names)."""
    rest = sorted((k, v) for k, v in params.items()
                  if k != "name" and not (k in ("num_consts", "num_nondiff") and v == 0))
    return [("name", params["name"]), *rest]


# -- custom_jvp_call -----------------------------------------------------------------------
custom_jvp_call_p = _call_primitive("custom_jvp_call", "call_jaxpr")
custom_jvp_call_p.pp_params = _custom_call_pp


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, num_nondiff,
                         symbolic_zeros, name):
    _check_closure_tangents("custom_jvp", name, tangents[:num_consts])
    k = num_consts + num_nondiff
    # nondiff operands never contribute tangents (JAX applies stop_gradient to them)
    return jvp(list(primals[num_consts:k]), list(primals[k:]), list(tangents[k:]))


custom_jvp_call_p.jvp = _custom_jvp_call_jvp


# -- custom_vjp_call and custom_lin ------------------------------------------------------------
custom_vjp_call_p = _call_primitive("custom_vjp_call", "call_jaxpr")
custom_vjp_call_p.pp_params = _custom_call_pp
custom_lin_p = new_primitive("custom_lin", multiple_results=True)

FORWARD_MODE_ERROR = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts,
                         symbolic_zeros, name):
    _check_closure_tangents("custom_vjp", name, tangents[:num_consts])
    args, t_args = list(primals[num_consts:]), list(tangents[num_consts:])
    nz = tuple(type(t) is not _r.Zero for t in t_args)
    outs, res = fwd(args, nz)
    out_avals = tuple(_r.tangent_aval(get_aval(o)) for o in outs)
    lin = custom_lin_p.bind(*res, *[t for t in t_args if type(t) is not _r.Zero],
                            num_res=len(res), bwd=bwd, nz_in=nz, out_avals=out_avals,
                            name=name)
    t_outs = [t if dtypes.is_inexact(a.dtype) else _r.Zero(a)
              for t, a in zip(lin, out_avals)]
    return outs, t_outs


custom_vjp_call_p.jvp = _custom_vjp_call_jvp


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract(*avals, num_res, bwd, nz_in, out_avals, name):
    return list(out_avals)


custom_lin_p.def_weak_type(lambda *weak, out_avals, **params: [False] * len(out_avals))


@custom_lin_p.def_impl
def _custom_lin_impl(xp, *vals, **params):
    raise TypeError(FORWARD_MODE_ERROR)


def _custom_lin_transpose(cts, *args, num_res, bwd, nz_in, out_avals, name):
    res = list(args[:num_res])
    cts_in = bwd(res, list(cts))
    return [None] * num_res + [c for c, nz in zip(cts_in, nz_in) if nz]


def _custom_lin_forward_mode(*args, **params):
    raise TypeError(FORWARD_MODE_ERROR)


custom_lin_p.transpose = _custom_lin_transpose
custom_lin_p.jvp = _custom_lin_forward_mode    # forward mode over the linear part
custom_lin_p.batch = _custom_lin_forward_mode  # only reached from vmap of a jvp


# -- linear_call (rules: transforms/linear_call.py) --------------------------------------------
linear_call_p = _call_primitive("linear_call", "callee")


# -- custom_vmap_call (rules: transforms/custom_batching.py) ----------------------------------
custom_vmap_call_p = _call_primitive("custom_vmap_call", "call")


# -- checkpoint (remat) ----------------------------------------------------------------------
checkpoint_p = _call_primitive("checkpoint", "jaxpr")
remat_p = checkpoint_p  # JAX's other name for it

CALL_JAXPR_PARAM = {custom_jvp_call_p: "call_jaxpr", custom_vjp_call_p: "call_jaxpr",
                    checkpoint_p: "jaxpr", linear_call_p: "callee", custom_vmap_call_p: "call"}

AD_PRIMITIVES = (stop_gradient_p, checkpoint_name_p, custom_jvp_call_p, custom_vjp_call_p,
                 custom_lin_p, checkpoint_p, linear_call_p, custom_vmap_call_p)

__all__ = ["stop_gradient_p", "checkpoint_name_p", "custom_jvp_call_p", "custom_vjp_call_p",
           "custom_lin_p", "checkpoint_p", "remat_p", "linear_call_p",
           "custom_vmap_call_p", "CALL_JAXPR_PARAM", "AD_PRIMITIVES",
           "FORWARD_MODE_ERROR", "closure_tangent_error"]
