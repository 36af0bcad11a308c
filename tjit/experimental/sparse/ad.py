"""Sparse-aware ``grad``, ``value_and_grad``, ``jacfwd``, ``jacrev`` (as JAX's
``sparse.grad`` ...): w.r.t. a sparse argument they differentiate its stored values only
(its integer indices are structure) and return the derivative as a sparse array with the
argument's indices, i.e. the gradient restricted to the sparsity pattern."""

import functools

import tjit
from tjit.experimental.sparse._base import JAXSparse
from tjit.tracing.errors import static_index
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

_is_sparse = lambda x: isinstance(x, JAXSparse)


def _argnums_tuple(argnums, n_args, op):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not -n_args <= static_index(a, "argnums", f"sparse.{op}") < n_args:
            raise ValueError(f"sparse.{op}: argnums {argnums} out of range for {n_args} "
                             "positional arguments")
    return tuple(a % n_args for a in nums), isinstance(argnums, int)


def _rebuild(sparse_arg, g):
    """``sparse_arg`` with values ``g`` (derivative dims leading, mapped by vmap)."""
    rebuild = sparse_arg._with_data
    for _ in range(g.ndim - sparse_arg.data.ndim):
        rebuild = tjit.vmap(rebuild)
    return rebuild(g)


def _sparse_aware(transform, op, fun, argnums, has_aux, kwargs):
    @functools.wraps(fun)
    def wrapped(*args):
        nums, single = _argnums_tuple(argnums, len(args), op)
        # each differentiated argument: its leaves, sparse arrays replaced by their data
        leaves, trees = {}, {}
        for a in nums:
            leaves[a], trees[a] = tree_flatten(args[a], is_leaf=_is_sparse)

        def flat_fun(*diff):
            full = list(args)
            for a, vals in zip(nums, diff):
                rebuilt = [x._with_data(v) if _is_sparse(x) else v
                           for x, v in zip(leaves[a], vals)]
                full[a] = tree_unflatten(trees[a], rebuilt)
            return fun(*full)

        diff = [[x.data if _is_sparse(x) else x for x in leaves[a]] for a in nums]
        out = transform(flat_fun, argnums=tuple(range(len(nums))), has_aux=has_aux,
                        **kwargs)(*diff)

        def post(grads):
            res = tuple(tree_unflatten(trees[a], [_rebuild(x, g) if _is_sparse(x) else g
                                                  for x, g in zip(leaves[a], gs)])
                        for a, gs in zip(nums, grads))
            return res[0] if single else res

        if transform is tjit.value_and_grad:
            value, grads = out
            return value, post(grads)
        if has_aux:
            return post(out[0]), out[1]
        return post(out)
    return wrapped


def grad(fun, argnums=0, has_aux=False, **kwargs):
    """``tjit.grad`` that accepts sparse arguments: their gradient is sparse, on their
    pattern. Example: ``sparse.grad(lambda X, y: X @ y)(X, y)`` is a BCOO like ``X``."""
    return _sparse_aware(tjit.grad, "grad", fun, argnums, has_aux, kwargs)


def value_and_grad(fun, argnums=0, has_aux=False, **kwargs):
    """``tjit.value_and_grad`` that accepts sparse arguments (see :func:`grad`)."""
    return _sparse_aware(tjit.value_and_grad, "value_and_grad", fun, argnums, has_aux, kwargs)


def jacfwd(fun, argnums=0, has_aux=False, **kwargs):
    """``tjit.jacfwd`` that accepts sparse arguments (dense outputs only, as JAX)."""
    return _sparse_aware(tjit.jacfwd, "jacfwd", fun, argnums, has_aux, kwargs)


def jacrev(fun, argnums=0, has_aux=False, **kwargs):
    """``tjit.jacrev`` that accepts sparse arguments (dense outputs only, as JAX)."""
    return _sparse_aware(tjit.jacrev, "jacrev", fun, argnums, has_aux, kwargs)


jacobian = jacrev


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "JAXSparse", "grad", "jacfwd", "jacobian", "jacrev", "value_and_grad"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
