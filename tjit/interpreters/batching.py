"""``tjit.interpreters.batching`` (as ``jax.interpreters.batching``): a primitive's vmap
rule, ``primitive_batchers[p] = rule`` with ``rule(args, batch_dims, **params) ->
(out, out_dim)`` (lists of them when ``p.multiple_results``); an argument that is not
batched has the dim :data:`not_mapped`."""

from tjit.interpreters._rule_table import RuleTable
from tjit.primitives.rules import bdim_at_front, moveaxis, not_mapped
from tjit.tracing.core import get_aval

primitive_batchers = RuleTable("batch", "batching")


def defvectorized(prim):
    """Batch a one-argument primitive that applies to each element (or each slice along
    leading axes) by applying it to the batched array: the batch dim stays where it is."""
    def batch(args, dims, **params):
        (x,), (d,) = args, dims
        return _with_dims(prim, prim.bind(x, **params), d)
    primitive_batchers[prim] = batch


def defbroadcasting(prim):
    """Batch an elementwise primitive over operands of equal shapes (scalars aside, which
    it broadcasts itself, as JAX's rule leaves them): batched operands get their batch
    dim in front, unbatched ones are broadcast along it."""
    def batch(args, dims, **params):
        # (a batched operand has a dim, so ranked is never empty)
        ranked = [(tuple(get_aval(a).shape), d) for a, d in zip(args, dims)
                  if get_aval(a).shape]
        shape, dim = ranked[0]
        if dim is not not_mapped and all(r == (shape, dim) for r in ranked):
            return _with_dims(prim, prim.bind(*args, **params), dim)
        size = next(get_aval(a).shape[d] for a, d in zip(args, dims) if d is not not_mapped)
        front = [bdim_at_front(a, d, size) if get_aval(a).shape or d is not not_mapped
                 else a for a, d in zip(args, dims)]
        return _with_dims(prim, prim.bind(*front, **params), 0)
    primitive_batchers[prim] = batch


def _with_dims(prim, out, dim):
    """A batching rule's answer: ``out`` and its batch dim (one per result when ``prim``
    has multiple results, as the batching trace expects)."""
    return (out, [dim] * len(out)) if prim.multiple_results else (out, dim)


__all__ = ["bdim_at_front", "defbroadcasting", "defvectorized", "moveaxis", "not_mapped",
           "primitive_batchers"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
