"""``check_p``: a run-time assertion (``checkify.check``) that ``checkify`` turns into an
error value.

Operands are the leaves of a ``checkify.Error`` (per error kind: its predicate, its code
and its payload arrays); the ``err_tree`` param rebuilds it. The primitive has no results
and is effectful, so it is never removed as dead code.

* Concrete operands (eager code, eager ``vmap``/``grad``): the error is examined right
  away and a failure raises :class:`JaxRuntimeError` with its message, as JAX's eager
  ``check`` does (:func:`raise_if_failed`).
* Staged code (``jit``, ``lax.cond``/``scan``/``while_loop`` bodies) cannot raise from a
  compiled program: ``checkify.checkify`` must turn the check into an output first (its
  interpreter discharges every ``check_p``). A ``check_p`` that reaches a compiler or the
  interpreter backend raises :class:`CheckNotFunctionalizedError`, saying so.
* ``debug=True`` (``checkify.debug_check``): a no-op unless discharged by ``checkify``.
* jvp: checks the primals; vmap: binds again with the batch axis first (the error then
  has per-example predicates; ``checkify`` reports the failing example).
"""

import dataclasses

from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive
from tjit.tracing.core import Tracer, get_aval, is_eager
from tjit.tracing.errors import TjitError
from tjit.tracing.tree_util import tree_unflatten


class JaxRuntimeError(TjitError, ValueError):
    """A failed ``checkify.check`` (or ``Error.throw()``): JAX's ``JaxRuntimeError``."""


class CheckNotFunctionalizedError(TjitError, ValueError):
    """A ``checkify.check`` in staged code that ``checkify.checkify`` did not transform."""


def functionalization_error(where):
    return CheckNotFunctionalizedError(
        f"Cannot abstractly evaluate a checkify.check which was not functionalized ({where}). "
        "This probably means you tried to stage (jit/scan/while_loop/cond/...) a `check` "
        "without functionalizing it through `checkify.checkify`: wrap the function, e.g. "
        "jit(checkify.checkify(f)), and read the returned error (err.get() / err.throw()).")


@dataclasses.dataclass(frozen=True)
class ErrorTree:
    """``check_p``'s ``err_tree`` param: the treedef of the error its operands rebuild
    (printed short in jaxprs, as JAX leaves it out)."""
    tree: object

    def __str__(self):
        return f"<error of {self.tree.num_leaves} leaves>"


check_p = new_primitive("check", multiple_results=True)
check_p.effectful = True
check_p.foldable = False


@check_p.def_abstract_eval
def _check_abstract(*avals, err_tree, debug):
    return []


@check_p.def_impl
def _check_impl(xp, *vals, err_tree, debug):
    # Reached only by staged code (eager checks never bind: :func:`bind_or_raise`).
    if debug:
        return []
    raise functionalization_error("the check runs inside a staged program")


def _check_lowering(ctx, *ins, err_tree, debug):
    if debug:
        return []
    raise functionalization_error("jit compiles a check")


check_p.lowering = _check_lowering


def raise_if_failed(err_tree, vals):
    """Raise :class:`JaxRuntimeError` when the error that ``vals`` (concrete leaves of
    ``err_tree``) rebuild has failed."""
    exc = tree_unflatten(err_tree.tree, list(vals)).get_exception()
    mapping = getattr(exc, "error_mapping", None)
    if mapping:  # an eager check under vmap: one example's error, the last (as JAX)
        exc = list(mapping.values())[-1]
    if exc is not None:
        raise JaxRuntimeError(str(exc)) from exc


def bind_or_raise(vals, err_tree, debug):
    """``check_p`` on ``vals`` (``err_tree``: an :class:`ErrorTree`): examined now when
    they are concrete (eager), else bound into the current trace."""
    if is_eager() and not any(isinstance(v, Tracer) for v in vals):
        if not debug:
            raise_if_failed(err_tree, vals)
        return []
    return check_p.bind(*vals, err_tree=err_tree, debug=debug)


def _check_jvp(primals, tangents, err_tree, debug):
    bind_or_raise(primals, err_tree, debug)
    return [], []


def _check_transpose(cts, *args, err_tree, debug):
    return [None] * len(args)


def _check_batch(args, dims, err_tree, debug):
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    bind_or_raise([_r.bdim_at_front(a, d, size) for a, d in zip(args, dims)], err_tree, debug)
    return [], []


check_p.jvp = _check_jvp
check_p.transpose = _check_transpose
check_p.batch = _check_batch
