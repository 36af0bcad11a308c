"""``jax.experimental.checkify`` for tjit: run-time checks as functional error values.

``checkify(f)`` traces ``f`` to a jaxpr and runs it under the checkify interpreter
(``transforms/checkify.py``), which threads an :class:`Error` through the program:
``check_p`` equations (from :func:`check`) are discharged into it, and the error sets
the user enables add automatic checks (NaN outputs, division by zero, out-of-bounds
indices). Because the interpreter binds every equation again, the result composes with
``jit``, ``vmap`` and ``grad`` in any order, and control flow carries the error through
its bodies (the rules at the end of this file).

The error value, its exceptions and the error sets are in ``tjit/_checkify_errors.py``.
"""


import numpy as np

import tjit.numpy as jnp
from tjit._checkify_errors import (
    BatchedError,
    DivisionByZeroError,
    Error,
    ErrorCategory,
    ErrorEffect,
    FailedCheckError,
    JaxException,
    NaNError,
    OOBError,
    _check_error,
    _reduce_any_error,
    all_checks,
    assert_func,
    automatic_checks,
    div_checks,
    float_checks,
    index_checks,
    init_error,
    nan_checks,
    update_error,
    user_checks,
)
from tjit.primitives.ad_prims import checkpoint_p, custom_jvp_call_p, custom_vjp_call_p
from tjit.primitives.base import REGISTRY as _PRIMS
from tjit.primitives.check import (  # noqa: F401  (JaxRuntimeError is public)
    CheckNotFunctionalizedError,
    JaxRuntimeError,
    check_p,
)
from tjit.primitives.control_flow import cond_p, join_branch_consts, scan_p, while_p
from tjit.primitives.rules import Zero
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing.jaxpr import ClosedJaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
from tjit.tracing.traceback_util import api_boundary
from tjit.tracing.tree_util import (
    tree_flatten,
    tree_leaves,
    tree_unflatten,
)
from tjit.transforms.checkify import checkify_jaxpr_flat, error_checks


# -- public functions -------------------------------------------------------------------------------
def checkify(f, errors=user_checks):
    """Functionalize ``check`` calls in ``f`` and add the run-time checks in ``errors``.

    Args:
      f: the function to check.
      errors: the enabled error set (``user_checks`` by default; ``nan_checks``,
        ``div_checks``, ``index_checks``, ``float_checks``, ``automatic_checks``,
        ``all_checks``; combine with ``|``).

    Returns:
      A function taking ``f``'s arguments and returning ``(error, out)``.
    """
    errors = frozenset(errors)
    unknown = [e for e in errors if not (isinstance(e, type) and issubclass(e, JaxException))]
    if unknown:
        raise TypeError(f"checkify: errors must be a set of checkify error classes (e.g. "
                        f"checkify.user_checks | checkify.nan_checks), got {unknown}")

    @api_boundary
    def checked_fun(*args, **kwargs):
        store = {}
        # Array arguments are traced (an index stays a run-time value that the index
        # checks see); other leaves, Python scalars included, are closed over, as in JAX.
        leaves, in_tree = tree_flatten((args, kwargs))
        where = [i for i, x in enumerate(leaves) if type(x) is Array]

        def flat(*traced):
            ins = list(leaves)
            for i, t in zip(where, traced):
                ins[i] = t
            a, k = tree_unflatten(in_tree, ins)
            out_leaves, store["tree"] = tree_flatten(f(*a, **k))
            return out_leaves
        closed = trace_to_jaxpr(flat, [leaves[i].aval for i in where],
                                getattr(f, "__name__", "<function>"))
        error, outs = checkify_jaxpr_flat(closed.jaxpr, closed.consts, errors, init_error,
                                          *[leaves[i] for i in where])
        return error, tree_unflatten(store["tree"], outs)
    checked_fun.__name__ = f"checkify({getattr(f, '__name__', 'f')})"
    return checked_fun


def _is_scalar_pred(pred):
    if isinstance(pred, (bool, np.bool_)):
        return True
    if isinstance(pred, (Array, Tracer)):
        a = get_aval(pred)
        return a.shape == () and a.dtype == np.bool_
    return False


def _check(pred, msg, debug, fmt_args, fmt_kwargs):
    name = "debug_check" if debug else "check"
    if not _is_scalar_pred(pred):
        raise TypeError(f"checkify.{name} takes a scalar bool pred as argument, got {pred!r}; "
                        f"reduce it first, e.g. jnp.all(x > 0)")
    for arg in tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (Array, Tracer, np.ndarray)):
            raise TypeError(f"Formatting arguments to checkify.{name} need to be PyTrees of "
                            f"arrays, but got {arg!r} of type {type(arg)}; wrap it with "
                            f"jnp.asarray")
    new_error = FailedCheckError(None, msg, *fmt_args, **fmt_kwargs)
    _check_error(assert_func(init_error, jnp.logical_not(pred), new_error), debug=debug)


def check(pred, msg, *fmt_args, debug=False, **fmt_kwargs):
    """Check a scalar bool ``pred``; when it is False, an error with ``msg`` (a format
    string filled with ``fmt_args``/``fmt_kwargs``, which may be traced arrays) is added.

    Eagerly a failure raises :class:`JaxRuntimeError`; staged code (``jit``, loops,
    branches) must be wrapped with :func:`checkify`, which returns the error.
    """
    _check(pred, msg, debug, fmt_args, fmt_kwargs)


def debug_check(pred, msg, *fmt_args, **fmt_kwargs):
    """A :func:`check` that only takes effect under :func:`checkify` (a no-op otherwise)."""
    _check(pred, msg, True, fmt_args, fmt_kwargs)


def check_error(error):
    """Raise if ``error`` failed (eagerly); under :func:`checkify` it is merged into the
    returned error instead."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} "
                        f"instead.")
    _check_error(error)


# -- rules: check_p and the automatic checks -----------------------------------------------------
def _check_discharge(error, enabled, *args, err_tree, debug):
    new = tree_unflatten(err_tree.tree, list(args))
    if any(get_aval(v).shape for v in new._pred.values()):
        new = _reduce_any_error(new)
    for effect in new._pred:
        if effect.error_type in enabled:
            error = update_error(error, new._pred[effect], new._code[effect], {},
                                 new._payload[effect], effect)
    return Error(error._pred, error._code, {**new._metadata, **error._metadata},
                 error._payload), []


error_checks[check_p] = _check_discharge


def _any_nan(out):
    vals = out if isinstance(out, (list, tuple)) else [out]
    flags = [jnp.any(jnp.isnan(v)) for v in vals if jnp.issubdtype(get_aval(v).dtype,
                                                                     jnp.inexact)]
    if not flags:
        return None
    return flags[0] if len(flags) == 1 else jnp.any(jnp.stack(flags))


def _check_nans(prim, error, enabled, out):
    if NaNError not in enabled:
        return error
    pred = _any_nan(out)
    return error if pred is None else assert_func(error, pred, NaNError(None, prim.name))


def _nan_rule(prim):
    def rule(error, enabled, *invals, **params):
        out = prim.bind(*invals, **params)
        return _check_nans(prim, error, enabled, out), out
    return rule


#: JAX's list of primitives that can generate a NaN (tjit's names; betainc is JAX's
#: regularized_incomplete_beta); ``div`` has its own rule below.
_NAN_PRIMITIVES = (
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cummax", "cummin",
    "cumprod", "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp", "expm1",
    "fft", "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma", "log1p", "log",
    "logistic", "mul", "pad", "pow", "psum", "reduce_prod", "reduce_sum",
    "reduce_window_sum", "betainc", "rem", "rsqrt", "sin", "sinh", "sqrt", "sub", "tan",
    "tanh")
for _name in _NAN_PRIMITIVES:
    error_checks[_PRIMS[_name]] = _nan_rule(_PRIMS[_name])


def _div_rule(error, enabled, x, y):
    if DivisionByZeroError in enabled:
        error = assert_func(error, jnp.any(jnp.equal(y, 0)), DivisionByZeroError(None))
    return _nan_rule(_PRIMS["div"])(error, enabled, x, y)


error_checks[_PRIMS["div"]] = _div_rule


def _dims(sizes, dtype=np.int32):
    """``sizes`` (ints, or symbolic dims of a shape-polymorphic trace) as an array."""
    if all(isinstance(d, (int, np.integer)) for d in sizes):
        return np.asarray(sizes, dtype)
    return jnp.asarray(jnp.array(list(sizes)), dtype)


def _oob_payload(oob_mask, indices, dims_map, operand_shape):
    """[index, axis, axis size] of the first out-of-bounds index (JAX's payload)."""
    flat_idx = jnp.argmin(jnp.logical_not(oob_mask))
    multi_idx = jnp.unravel_index(flat_idx, get_aval(indices).shape)
    axis = jnp.asarray(np.asarray(dims_map, np.int32))[multi_idx[-1]]
    size = jnp.asarray(_dims(operand_shape))[axis]
    index = jnp.ravel(indices)[flat_idx]
    return jnp.stack([jnp.asarray(index, np.int32), jnp.asarray(axis, np.int32),
                      jnp.asarray(size, np.int32)])


def _oob(error, prim_name, mask, indices, dims_map, operand_shape):
    payload = _oob_payload(mask, indices, dims_map, operand_shape)
    return assert_func(error, jnp.any(mask), OOBError(None, prim_name, operand_shape, payload))


def _starts_oob(error, prim_name, starts, sizes, shape):
    """The check of a dynamic slice's ``starts``: the window of ``sizes`` must lie in
    ``shape`` (the primitive clamps it silently)."""
    starts = jnp.stack([jnp.asarray(s, np.int32) for s in starts])
    mask = (starts < 0) | (starts + _dims(sizes) > _dims(shape))
    return _oob(error, prim_name, mask, starts, range(len(shape)), shape)


def _dynamic_slice_rule(error, enabled, operand, *starts, slice_sizes):
    out = _PRIMS["dynamic_slice"].bind(operand, *starts, slice_sizes=slice_sizes)
    if OOBError not in enabled:
        return error, out
    shape = tuple(get_aval(operand).shape)
    return _starts_oob(error, "dynamic_slice", starts, slice_sizes, shape), out


def _dynamic_update_slice_rule(error, enabled, operand, update, *starts):
    out = _PRIMS["dynamic_update_slice"].bind(operand, update, *starts)
    if OOBError not in enabled:
        return error, out
    shape = tuple(get_aval(operand).shape)
    return _starts_oob(error, "dynamic_update_slice", starts, get_aval(update).shape,
                       shape), out


def _gather_rule(error, enabled, operand, indices, **params):
    out = _PRIMS["gather"].bind(operand, indices, **params)
    if OOBError not in enabled:
        return error, out
    dnums, sizes = params["dimension_numbers"], params["slice_sizes"]
    shape = tuple(get_aval(operand).shape)
    smap = list(dnums.start_index_map)
    upper = _dims([shape[d] - sizes[d] for d in smap], get_aval(indices).dtype)
    mask = (indices < 0) | (indices > upper)
    return _oob(error, "gather", mask, indices, smap, shape), out


def _scatter_rule(prim):
    def rule(error, enabled, operand, indices, updates, **params):
        out = prim.bind(operand, indices, updates, **params)
        if OOBError not in enabled:
            return error, out
        dnums = params["dimension_numbers"]
        shape = tuple(get_aval(operand).shape)
        u_shape = get_aval(updates).shape
        sizes, pos = [], 0
        for i in range(len(shape)):
            if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims:
                sizes.append(1)
            else:
                sizes.append(u_shape[dnums.update_window_dims[pos]])
                pos += 1
        smap = list(dnums.scatter_dims_to_operand_dims)
        dt = get_aval(indices).dtype
        upper = [shape[d] - sizes[d] for d in smap]
        upper = _dims(np.minimum(upper, np.iinfo(dt).max), dt) if all(
            isinstance(u, (int, np.integer)) for u in upper) else _dims(upper, dt)
        mask = (indices < 0) | (indices > upper)
        error = _oob(error, prim.name, mask, indices, smap, shape)
        return _check_nans(prim, error, enabled, out), out
    return rule


error_checks[_PRIMS["dynamic_slice"]] = _dynamic_slice_rule
error_checks[_PRIMS["dynamic_update_slice"]] = _dynamic_update_slice_rule
error_checks[_PRIMS["gather"]] = _gather_rule
for _name in ("scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
              "scatter-max"):
    error_checks[_PRIMS[_name]] = _scatter_rule(_PRIMS[_name])


# -- rules: control flow -----------------------------------------------------------------------
def _trace(fun, avals, name):
    """Trace ``fun`` and hoist its constants: (ClosedJaxpr taking them first, them)."""
    jaxpr, consts = convert_constvars_jaxpr(trace_to_jaxpr(fun, list(avals), name))
    return ClosedJaxpr(jaxpr, []), consts


def _avals(values):
    return [get_aval(v) for v in values]


def _run(closed, enabled, error, args):
    return checkify_jaxpr_flat(closed.jaxpr, closed.consts, enabled, error, *args)


def _effects(error):
    return set(error._pred)


def _cond_rule(error, enabled, index, *ops, branches):
    leaves, tree = tree_flatten(error)
    n = len(leaves)
    avals = _avals(leaves) + _avals(ops)

    def branch_fun(b, store, effects):
        def fun(*flat):
            err, outs = _run(b, enabled, tree_unflatten(tree, list(flat[:n])), flat[n:])
            if effects is not None:
                err = err._add_placeholder_effects(effects)
            store["error"] = err
            return list(tree_leaves(err)) + list(outs)
        return fun

    # first pass: which kinds of error each branch adds (the outputs must agree)
    effects = _effects(error)
    for b in branches:
        store = {}
        _trace(branch_fun(b, store, None), avals, "cond_branch")
        effects |= _effects(store["error"])
    traced, stores = [], []
    for b in branches:
        stores.append({})
        traced.append(_trace(branch_fun(b, stores[-1], effects), avals, "cond_branch"))
    new_branches, consts = join_branch_consts(traced)
    outs = cond_p.bind(index, *consts, *leaves, *ops, branches=new_branches)
    metadata = {}
    for s in stores:
        metadata.update(s["error"]._metadata)
    out_tree = tree_flatten(stores[0]["error"])[1]
    m = out_tree.num_leaves
    err = tree_unflatten(out_tree, list(outs[:m]))
    return Error(err._pred, err._code, metadata, err._payload), list(outs[m:])


def _carry_fixed_point(error, trace_body):
    """The error the loop carries: ``error`` with placeholders for every kind of error the
    body adds (``trace_body(error) -> error after one iteration``)."""
    effects = _effects(error) | _effects(trace_body(error))
    return error._add_placeholder_effects(effects)


def _scan_rule(error, enabled, *vals, jaxpr, length, reverse, num_consts, num_carry, unroll):
    consts, carry, xs = (list(vals[:num_consts]), list(vals[num_consts:num_consts + num_carry]),
                         list(vals[num_consts + num_carry:]))
    x_avals = [get_aval(x).update(shape=tuple(get_aval(x).shape[1:])) for x in xs]

    def body_for(in_error, store):
        leaves, tree = tree_flatten(in_error)
        n = len(leaves)

        def fun(*flat):
            c, rest = flat[:num_consts], flat[num_consts:]
            err = tree_unflatten(tree, list(rest[:n]))
            err, outs = _run(jaxpr, enabled, err, list(c) + list(rest[n:]))
            err = err._add_placeholder_effects(_effects(in_error))
            store["error"] = err
            return list(tree_leaves(err)) + list(outs)
        avals = _avals(consts) + _avals(leaves) + _avals(carry) + x_avals
        return _trace(fun, avals, "scan_body"), leaves

    def one_step(err):
        store = {}
        body_for(err, store)
        return store["error"]

    full = _carry_fixed_point(error, one_step)
    store = {}
    (body, hoisted), leaves = body_for(full, store)
    outs = scan_p.bind(*hoisted, *consts, *leaves, *carry, *xs, jaxpr=body, length=length,
                       reverse=reverse, num_consts=len(hoisted) + num_consts,
                       num_carry=len(leaves) + num_carry, unroll=unroll)
    return _split_error(store, outs)


def _while_rule(error, enabled, *vals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts = list(vals[:cond_nconsts])
    bconsts = list(vals[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(vals[cond_nconsts + body_nconsts:])
    # the predicate's checks run on the initial carry, then after every body step
    error, _ = _run(cond_jaxpr, enabled, error, cconsts + carry)

    def body_for(in_error, store):
        leaves, tree = tree_flatten(in_error)
        n, nb, nc = len(leaves), len(bconsts), len(cconsts)

        def fun(*flat):
            b, c, rest = flat[:nb], flat[nb:nb + nc], flat[nb + nc:]
            err = tree_unflatten(tree, list(rest[:n]))
            err, outs = _run(body_jaxpr, enabled, err, list(b) + list(rest[n:]))
            err, _ = _run(cond_jaxpr, enabled, err, list(c) + list(outs))
            err = err._add_placeholder_effects(_effects(in_error))
            store["error"] = err
            return list(tree_leaves(err)) + list(outs)
        avals = _avals(bconsts) + _avals(cconsts) + _avals(leaves) + _avals(carry)
        return _trace(fun, avals, "while_body"), leaves, tree

    def one_step(err):
        store = {}
        body_for(err, store)
        return store["error"]

    full = _carry_fixed_point(error, one_step)
    store = {}
    (body, b_hoisted), leaves, tree = body_for(full, store)
    n = len(leaves)

    def cond_fun(*flat):
        c, rest = flat[:len(cconsts)], flat[len(cconsts):]
        _, (pred,) = _run(cond_jaxpr, enabled, tree_unflatten(tree, list(rest[:n])),
                          list(c) + list(rest[n:]))
        return [pred]
    cond, c_hoisted = _trace(cond_fun, _avals(cconsts) + _avals(leaves) + _avals(carry),
                             "while_cond")
    full_leaves = tree_leaves(full)
    outs = while_p.bind(*c_hoisted, *cconsts, *b_hoisted, *bconsts, *cconsts, *full_leaves,
                        *carry, cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=len(c_hoisted) + len(cconsts),
                        body_nconsts=len(b_hoisted) + len(bconsts) + len(cconsts))
    return _split_error(store, outs)


def _checkpoint_rule(error, enabled, *vals, jaxpr, **params):
    """``checkpoint`` (remat) of the checkified body: the error is one more input and
    output of the call."""
    leaves, tree = tree_flatten(error)
    n, store = len(leaves), {}

    def fun(*flat):
        err, outs = _run(jaxpr, enabled, tree_unflatten(tree, list(flat[:n])), flat[n:])
        store["error"] = err
        return list(tree_leaves(err)) + list(outs)
    body, hoisted = _trace(fun, _avals(leaves) + _avals(vals), "checkpoint")
    outs = checkpoint_p.bind(*hoisted, *leaves, *vals, jaxpr=body, **params)
    return _split_error(store, outs)


def _checkified_call(error, enabled, call_jaxpr, vals, split, name):
    """Trace ``call_jaxpr`` under checkify with the error's leaves inserted among its
    inputs after the first ``split``: (jaxpr taking hoisted consts first, them, the
    error's leaves, the output error's treedef holder)."""
    leaves, tree = tree_flatten(error)
    n, store = len(leaves), {"in_tree": tree}

    def fun(*flat):
        err = tree_unflatten(tree, list(flat[split:split + n]))
        err, outs = _run(call_jaxpr, enabled, err, list(flat[:split]) + list(flat[split + n:]))
        store["error"] = err
        return list(tree_leaves(err)) + list(outs)
    avals = _avals(vals[:split]) + _avals(leaves) + _avals(vals[split:])
    body, hoisted = _trace(fun, avals, name)
    return body, hoisted, leaves, store


def _custom_jvp_rule(error, enabled, *vals, call_jaxpr, jvp, num_consts, num_nondiff,
                     **params):
    """The error's leaves are extra nondiff operands. The jvp rule is the user's, on the
    original operands; it forwards the input error (JAX's semantics: a custom rule is not
    checked; checkify of the jvp checks the function instead)."""
    body, hoisted, leaves, store = _checkified_call(error, enabled, call_jaxpr, vals,
                                                    num_consts, "custom_jvp")
    n = len(leaves)

    def jvp_with_error(nondiff, primals, tangents):
        outs, t_outs = jvp(list(nondiff[n:]), primals, tangents)
        errs = _forwarded(store, nondiff[:n])
        return errs + list(outs), [Zero.from_value(e) for e in errs] + list(t_outs)
    outs = custom_jvp_call_p.bind(*hoisted, *vals[:num_consts], *leaves, *vals[num_consts:],
                                  call_jaxpr=body, jvp=jvp_with_error,
                                  num_consts=len(hoisted) + num_consts,
                                  num_nondiff=n + num_nondiff, **params)
    return _split_error(store, outs)


def _custom_vjp_rule(error, enabled, *vals, call_jaxpr, fwd, bwd, num_consts, **params):
    """The error's leaves are extra leading arguments; ``fwd`` forwards them (as JAX's
    rule, the forward rule is not checked) and ``bwd`` gives them no cotangent."""
    body, hoisted, leaves, store = _checkified_call(error, enabled, call_jaxpr, vals,
                                                    num_consts, "custom_vjp")
    n = len(leaves)

    def fwd_with_error(args, nz):
        outs, res = fwd(list(args[n:]), tuple(nz[n:]))
        return _forwarded(store, args[:n]) + list(outs), res

    def bwd_with_error(res, cts):
        m = len(tree_leaves(store["error"]))  # (the output error may have more leaves)
        return [None] * n + list(bwd(res, list(cts[m:])))
    outs = custom_vjp_call_p.bind(*hoisted, *vals[:num_consts], *leaves, *vals[num_consts:],
                                  call_jaxpr=body, fwd=fwd_with_error, bwd=bwd_with_error,
                                  num_consts=len(hoisted) + num_consts, **params)
    return _split_error(store, outs)


def _forwarded(store, leaves):
    """The input error's ``leaves`` as the leaves of the checkified call's output error
    (placeholders for the kinds of error the call adds): what a custom rule returns."""
    error = tree_unflatten(store["in_tree"], list(leaves))
    return list(tree_leaves(error._add_placeholder_effects(_effects(store["error"]))))


def _split_error(store, outs):
    """(the output error, the other outputs) of a call whose outputs lead with the leaves
    of the error that ``store`` holds."""
    out_tree = tree_flatten(store["error"])[1]
    m = out_tree.num_leaves
    return tree_unflatten(out_tree, list(outs[:m])), list(outs[m:])


error_checks[checkpoint_p] = _checkpoint_rule
error_checks[custom_jvp_call_p] = _custom_jvp_rule
error_checks[custom_vjp_call_p] = _custom_vjp_rule
error_checks[cond_p] = _cond_rule
error_checks[scan_p] = _scan_rule
error_checks[while_p] = _while_rule

__all__ = [
    "BatchedError",
    "DivisionByZeroError",
    "Error",
    "ErrorCategory",
    "ErrorEffect",
    "FailedCheckError",
    "JaxException",
    "JaxRuntimeError",
    "NaNError",
    "OOBError",
    "all_checks",
    "automatic_checks",
    "check",
    "check_error",
    "checkify",
    "debug_check",
    "div_checks",
    "float_checks",
    "index_checks",
    "init_error",
    "nan_checks",
    "user_checks",
]
