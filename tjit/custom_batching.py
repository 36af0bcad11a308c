"""``tjit.custom_batching`` (as ``jax.custom_batching``): ``custom_vmap``, a function
with a batching rule of its own, and ``sequential_vmap``, one that ``vmap`` runs as a
loop over the batch (for functions that cannot take a batch axis, such as callbacks).
The machinery is in ``tjit/transforms/custom_batching.py``."""

from tjit.lax import map as _lax_map
from tjit.tracing.tree_util import tree_flatten, tree_map, tree_unflatten
from tjit.transforms.custom_batching import custom_vmap


def sequential_vmap(f):
    """``f`` as a :class:`custom_vmap` whose batching rule is a loop (``lax.map``) over the
    batched arguments, the unbatched ones passed to every step as they are
    (``jax.custom_batching.sequential_vmap``).

    Args:
      f: a function of arrays (pytrees of arrays).
    Returns:
      A custom_vmap function equal to ``f``; under ``vmap`` each batch element is one
      call of ``f`` and every output is batched.

    >>> f = jax.custom_batching.sequential_vmap(lambda x: jnp.sum(x) * 2)
    >>> jax.vmap(f)(jnp.ones((3, 2)))
    Array([4., 4., 4.], dtype=float32)
    """
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        leaves, tree = tree_flatten(list(args))
        flags = tree_flatten(in_batched)[0]

        def one(mapped):
            it = iter(mapped)
            return f(*tree_unflatten(tree, [next(it) if b else x
                                            for x, b in zip(leaves, flags)]))
        out = _lax_map(one, [x for x, b in zip(leaves, flags) if b])
        return out, tree_map(lambda _: True, out)
    return f


__all__ = ["custom_vmap", "sequential_vmap"]

from tjit._namespace import publish as _publish

_publish(globals())
