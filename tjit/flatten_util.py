"""``tjit.flatten_util``: JAX's ``jax.flatten_util`` (one flat vector for a pytree).

>>> import tjit.numpy as jnp
>>> from tjit.flatten_util import ravel_pytree
>>> flat, unravel = ravel_pytree({"w": jnp.ones((2, 2)), "b": jnp.zeros(2)})
>>> flat
Array([0., 0., 1., 1., 1., 1.], dtype=float32)
>>> unravel(flat)["w"].shape
(2, 2)
"""

import functools

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.tree_util import tree_flatten, tree_unflatten


class HashablePartial(functools.partial):
    """A ``functools.partial`` equal to (and hashing as) another of the same function
    and arguments, so two ``unravel`` functions of one structure are one static
    argument to ``jit``. The arguments are shapes, sizes, dtypes and tree structures:
    all hashable."""

    def __eq__(self, other):
        return (type(other) is HashablePartial and self.func is other.func
                and self.args == other.args and self.keywords == other.keywords)

    def __hash__(self):
        return hash((self.func, self.args, tuple(sorted(self.keywords.items()))))


def ravel_pytree(pytree):
    """Ravel (flatten) a pytree of arrays down to a 1-D array, as ``jax.flatten_util``.

    Args:
      pytree: a pytree of arrays and scalars.

    Returns:
      ``(flat, unravel)``: ``flat`` is the leaves raveled and concatenated in tree
      order, in the dtype their dtypes promote to (an empty float32 array when there
      are no leaves); ``unravel(flat)`` rebuilds a pytree of the same structure, with
      each leaf's shape and dtype, from a 1-D array of the same length. When the
      leaves had one dtype, ``unravel`` keeps the dtype of the vector it is given
      (JAX's dtype-polymorphic unravel); otherwise the vector must have ``flat``'s
      dtype.
    """
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, HashablePartial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves):
    if not leaves:
        return jnp.zeros((0,), jnp.float32), HashablePartial(_unravel_nothing)
    leaves = [jnp.asarray(x) for x in leaves]
    # JAX's dtypes.dtype: a leaf's own (canonical) dtype; Python scalars are not weak here
    from_dtypes = tuple(x.dtype for x in leaves)
    to_dtype = jnp.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in leaves)
    shapes = tuple(tuple(x.shape) for x in leaves)
    if all(dt == to_dtype for dt in from_dtypes):
        flat = lax.concatenate([lax.reshape(x, (n,)) for x, n in zip(leaves, sizes)], 0)
        return flat, HashablePartial(_unravel_list_single_dtype, sizes, shapes)
    flat = lax.concatenate([lax.reshape(lax.convert_element_type(x, to_dtype), (n,))
                            for x, n in zip(leaves, sizes)], 0)
    return flat, HashablePartial(_unravel_list, sizes, shapes, from_dtypes, to_dtype)


def _unravel_nothing(flat):
    _check_vector(flat, 0)
    return []


def _check_vector(flat, size):
    shape = tuple(np.shape(flat))
    if shape != (size,):
        raise ValueError(f"ravel_pytree's unravel: expected a 1-D array of length {size} "
                         f"(the raveled pytree's), got shape {shape}; pass a vector of "
                         f"the length ravel_pytree returned")


def _unravel_list_single_dtype(sizes, shapes, flat):
    _check_vector(flat, sum(sizes))
    return [lax.reshape(chunk, shape)
            for chunk, shape in zip(lax.split(flat, sizes), shapes)]


def _unravel_list(sizes, shapes, from_dtypes, to_dtype, flat):
    dtype = jnp.result_type(flat)
    if dtype != to_dtype:
        raise TypeError(f"ravel_pytree's unravel: given an array of dtype {dtype}, but "
                        f"expected dtype {to_dtype} (the raveled pytree's; its leaves "
                        f"have several dtypes, so unravel casts back from that one)")
    _check_vector(flat, sum(sizes))
    return [lax.convert_element_type(lax.reshape(chunk, shape), dt)
            for chunk, shape, dt in zip(lax.split(flat, sizes), shapes, from_dtypes)]


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "ravel_pytree"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
