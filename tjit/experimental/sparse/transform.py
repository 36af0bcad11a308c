"""``sparsify``: run a function written for dense arrays on sparse ones (as JAX's).

The function is traced with a dense stand-in (same shape and dtype) for each sparse
argument; the jaxpr is then evaluated equation by equation, values being dense arrays
or BCOO arrays. An equation whose inputs are all dense binds its primitive as usual; one
with a sparse input uses the rule of its primitive below, or raises naming the
primitive. Covered: dot_general (sparse x dense either side, and sparse x sparse), mul
by a dense array, a scalar or a sparse array, div by a scalar, neg, transpose,
reduce_sum, add/sub of two sparse arrays (or with a dense one: dense result),
concatenate (all operands sparse), slice, dynamic_slice, squeeze, reshape, rev,
expand_dims, broadcast_in_dim (new leading dims as batch dims),
convert_element_type/copy, the zero-preserving unary functions (sin, tanh, sqrt, abs,
expm1, log1p, ...), integer_pow with a positive exponent, custom_jvp/custom_vjp calls
(their body, sparsified), ``sparse.todense`` (densifies), and the control flow
while/cond/scan (rebuilt around their sparsified bodies, sparse operands closed over or
passed as pytrees).
"""

import functools

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.experimental.sparse import _methods
from tjit.experimental.sparse._base import JAXSparse
from tjit.experimental.sparse.api import TODENSE_MARK
from tjit.experimental.sparse.bcoo import BCOO, bcoo_reduce_sum, bcoo_transpose
from tjit.experimental.sparse.bcoo_dot import bcoo_dot_general
from tjit.experimental.sparse.bcoo_layout import (
    bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_dynamic_slice, bcoo_reshape, bcoo_rev,
    bcoo_slice, bcoo_squeeze)
from tjit.experimental.sparse.bcoo_indexing import bcoo_gather
from tjit.experimental.sparse.bcsr import BCSR
from tjit.tracing.jaxpr import interpret_jaxpr
from tjit.tracing.tree_util import tree_flatten, tree_structure, tree_unflatten

_is_sparse = lambda x: isinstance(x, JAXSparse)

# f(0) == 0: applied to the stored values, the result keeps the sparsity pattern
_ZERO_PRESERVING = {
    "abs", "asin", "asinh", "atan", "atanh", "bessel_i1e", "copy", "copy_p", "expm1",
    "imag", "log1p", "neg", "real", "sign", "sin", "sinh", "sqrt", "tan", "tanh",
    "erf", "erf_inv", "cbrt"}


def _dot_general(eqn, lhs, rhs):
    return bcoo_dot_general(lhs, rhs, dimension_numbers=eqn.params["dimension_numbers"],
                            preferred_element_type=eqn.params.get("preferred_element_type"))


def _mul(eqn, a, b):
    if _is_sparse(a) and _is_sparse(b):
        return _methods.multiply(a, b)   # pairs of entries (or in place: one pattern)
    return _methods.multiply(a, b) if _is_sparse(a) else _methods.multiply(b, a)


def _div(eqn, a, b):
    if _is_sparse(b):
        raise NotImplementedError("sparsify: division by a sparse array (x / 0 is not 0). "
                                  "Fix: densify the divisor with .todense().")
    return a / b


def _add(eqn, a, b):
    return _methods.add(a, b)


def _sub(eqn, a, b):
    return _methods.add(a, -b)


def _transpose(eqn, a):
    return bcoo_transpose(a, permutation=eqn.params["permutation"])


def _reduce_sum(eqn, a):
    out = bcoo_reduce_sum(a, axes=eqn.params["axes"])
    return out.data.sum() if out.shape == () else out   # a full sum is dense (as JAX)


def _convert(eqn, a):
    return a.astype(eqn.params["new_dtype"])


def _integer_pow(eqn, a):
    y = eqn.params["y"]
    if y <= 0:
        raise NotImplementedError(f"sparsify: integer_pow with y={y} does not keep zeros "
                                  "zero. Fix: densify first (.todense()).")
    return a._with_data(eqn.primitive.bind(a.data, **eqn.params))


def _custom_call(eqn, *args):
    if eqn.params.get("name") == TODENSE_MARK:      # sparse.todense(x) in the function
        return [a.todense() if _is_sparse(a) else a for a in args]
    body = eqn.params.get("call_jaxpr") or eqn.params.get("fun_jaxpr")
    if body is None:
        raise NotImplementedError(f"sparsify: {eqn.primitive.name} has no body to sparsify")
    jaxpr = getattr(body, "jaxpr", body)
    consts = getattr(body, "consts", ())
    return _eval_sparse(jaxpr, consts, list(args))


def _concatenate(eqn, *ops):
    if not all(_is_sparse(o) for o in ops):
        raise NotImplementedError("sparsify: concatenate of sparse and dense operands. Fix: "
                                  "make them all sparse (BCOO.fromdense) or all dense.")
    return bcoo_concatenate(ops, dimension=eqn.params["dimension"])


def _slice(eqn, a):
    p = eqn.params
    return bcoo_slice(a, start_indices=p["start_indices"], limit_indices=p["limit_indices"],
                      strides=p.get("strides"))


def _squeeze(eqn, a):
    return bcoo_squeeze(a, dimensions=eqn.params["dimensions"])


def _reshape(eqn, a):
    return bcoo_reshape(a, new_sizes=eqn.params["new_sizes"],
                        dimensions=eqn.params.get("dimensions"))


def _rev(eqn, a):
    return bcoo_rev(a, eqn.params["dimensions"])


def _dynamic_slice(eqn, a, *starts):
    if any(_is_sparse(s) for s in starts):
        raise NotImplementedError("sparsify: dynamic_slice with sparse start indices")
    return bcoo_dynamic_slice(a, starts, eqn.params["slice_sizes"])


def _gather(eqn, a, idx):
    if _is_sparse(idx):
        raise NotImplementedError("sparsify: gather with sparse indices. Fix: pass the "
                                  "indices dense.")
    p = eqn.params
    return bcoo_gather(a, idx, p["dimension_numbers"], p["slice_sizes"], mode=p["mode"],
                       fill_value=p["fill_value"])


def _broadcast_in_dim(eqn, a, *dyn):
    if dyn:
        raise NotImplementedError("sparsify: broadcast_in_dim with dynamic shape operands")
    return bcoo_broadcast_in_dim(a, shape=eqn.params["shape"],
                                 broadcast_dimensions=eqn.params["broadcast_dimensions"])


def _expand_dims(eqn, a):
    ndim = a.ndim + len(eqn.params["dimensions"])
    new = {d % ndim for d in eqn.params["dimensions"]}
    kept = [t for t in range(ndim) if t not in new]
    shape = [1] * ndim
    for t, n in zip(kept, a.shape):
        shape[t] = n
    return bcoo_broadcast_in_dim(a, shape=tuple(shape), broadcast_dimensions=tuple(kept))


def _closed_fun(closed, consts=()):
    """The closed jaxpr ``closed`` as a function of its remaining inputs, evaluated with
    the sparse rules (``consts`` are its leading inputs, sparse or dense)."""
    def fun(*args):
        return _eval_sparse(closed.jaxpr, closed.consts, list(consts) + list(args))
    return fun


def _while(eqn, *ins):
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond = _closed_fun(p["cond_jaxpr"], ins[:nc])
    body = _closed_fun(p["body_jaxpr"], ins[nc:nc + nb])
    return list(lax.while_loop(lambda c: cond(*c)[0], lambda c: tuple(body(*c)),
                               tuple(ins[nc + nb:])))


def _cond(eqn, index, *ops):
    branches = [_closed_fun(b) for b in eqn.params["branches"]]
    return list(lax.switch(index, [lambda *o, f=f: tuple(f(*o)) for f in branches], *ops))


def _scan(eqn, *ins):
    p = eqn.params
    nc, ncarry = p["num_consts"], p["num_carry"]
    step = _closed_fun(p["jaxpr"], ins[:nc])

    def f(carry, xs):
        outs = step(*carry, *xs)
        return tuple(outs[:ncarry]), tuple(outs[ncarry:])

    carry, ys = lax.scan(f, tuple(ins[nc:nc + ncarry]), tuple(ins[nc + ncarry:]),
                         length=p["length"], reverse=p["reverse"], unroll=p["unroll"])
    return list(carry) + list(ys)


SPARSE_RULES = {
    "concatenate": _concatenate, "slice": _slice, "squeeze": _squeeze, "reshape": _reshape,
    "rev": _rev, "dynamic_slice": _dynamic_slice, "broadcast_in_dim": _broadcast_in_dim,
    "expand_dims": _expand_dims, "gather": _gather,
    "while": _while, "cond": _cond, "scan": _scan,
    "dot_general": _dot_general, "mul": _mul, "div": _div, "add": _add, "add_any": _add,
    "sub": _sub, "transpose": _transpose, "reduce_sum": _reduce_sum,
    "convert_element_type": _convert, "integer_pow": _integer_pow,
    "custom_jvp_call": _custom_call, "custom_vjp_call": _custom_call,
}


def _apply(eqn, ins):
    name = eqn.primitive.name
    if name in SPARSE_RULES:
        return SPARSE_RULES[name](eqn, *ins)
    if name in _ZERO_PRESERVING and len(ins) == 1:
        return ins[0]._with_data(eqn.primitive.bind(ins[0].data, **eqn.params))
    shapes = ", ".join(repr(x) if _is_sparse(x) else f"dense{tuple(jnp.shape(x))}" for x in ins)
    raise NotImplementedError(
        f"sparsify: no sparse rule for primitive '{name}' (operands {shapes}). Fix: pass "
        "that operand dense (x.todense()) to the sparsified function, or express the "
        "operation with the covered ones (see tjit.experimental.sparse.transform).")


def _eval_eqn(eqn, ins):
    if any(_is_sparse(x) for x in ins):
        return _apply(eqn, [x.to_bcoo() if isinstance(x, BCSR) else x for x in ins])
    return eqn.primitive.bind(*ins, **eqn.params)


def _eval_sparse(jaxpr, consts, args):
    return interpret_jaxpr(jaxpr, consts, args, _eval_eqn)


def sparsify(f, use_tracer=False):
    """``f`` made to accept sparse arrays (BCOO, BCSR) where it expects dense ones.

    Args:
      f: a function of arrays (pytrees allowed).
      use_tracer: accepted for JAX parity; tjit always evaluates the traced jaxpr.

    Returns:
      A function with ``f``'s signature; results that depend on sparse inputs through
      pattern-keeping operations are sparse, the others dense. It composes with jit,
      grad (w.r.t. dense arguments; see ``sparse.grad`` for sparse ones) and vmap.

    Example:
      >>> M = sparse.BCOO.fromdense(jnp.eye(3))
      >>> sparse.sparsify(lambda m, v: (2 * m) @ v)(M, jnp.ones(3)).tolist()
      [2.0, 2.0, 2.0]
    """
    del use_tracer

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        leaves, tree = tree_flatten((args, kwargs), is_leaf=_is_sparse)

        def dense_f(*flat):
            a, k = tree_unflatten(tree, list(flat))
            return f(*a, **k)

        stand_ins = [tjit.ShapeDtypeStruct(x.shape, x.dtype) if _is_sparse(x) else x
                     for x in leaves]
        closed, out_shape = tjit.make_jaxpr(dense_f, return_shape=True)(*stand_ins)
        # BCSR arguments become BCOO once, so that uses of one argument share its indices
        leaves = [x.to_bcoo() if isinstance(x, BCSR) else x for x in leaves]
        outs = _eval_sparse(closed.jaxpr, closed.consts, _invars_args(closed, leaves))
        return tree_unflatten(tree_structure(out_shape), outs)
    return wrapped


def _invars_args(closed, leaves):
    """The values for the jaxpr's inputs: every leaf is an input of make_jaxpr."""
    if len(closed.jaxpr.invars) != len(leaves):
        raise TypeError(f"sparsify: traced {len(closed.jaxpr.invars)} inputs for "
                        f"{len(leaves)} argument leaves")
    return [jnp.asarray(x) if not _is_sparse(x) else x for x in leaves]


def _reshape(self, *args, **kwargs):
    """``mat.reshape(...)`` with ndarray's arguments (-1 included), as JAX's BCOO method:
    the dense reshape, sparsified (bcoo_reshape; dims regroup within batch/sparse/dense)."""
    return sparsify(lambda x: x.reshape(*args, **kwargs))(self)


BCOO.reshape = _reshape


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "BCOO", "BCSR", "sparsify"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
