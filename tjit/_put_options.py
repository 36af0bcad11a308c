"""``jax.device_put``'s per-leaf options ``src``, ``donate`` and ``may_alias``: each is
one value or a pytree prefix of ``x`` (None a leaf there), read as JAX reads them.

``may_alias=False`` (without ``donate``) asks for a copy that shares no buffer with the
input; ``donate=True`` lets the input's buffer be reused (best effort, as JAX: on one
device the input stays usable); ``src`` names where ``x`` already is, which tjit knows
from each array, so it is only checked to be a device or a sharding.
"""

from tjit.tracing.tree_util import broadcast_prefix, tree_leaves


def _per_leaf(option, x, name, scalar_types):
    if option is None or isinstance(option, scalar_types):
        return [option] * len(tree_leaves(x))
    try:
        return broadcast_prefix(option, x, is_leaf=lambda v: v is None)
    except ValueError as e:
        raise ValueError(f"device_put: {name} must be one value or a pytree prefix of x: "
                         f"{e}") from None


def copy_flags(x, donate, may_alias):
    """One bool per leaf of ``x``: True where the result must not alias the input."""
    donates = _per_leaf(donate, x, "donate", (bool,))
    aliases = _per_leaf(may_alias, x, "may_alias", (bool,))
    flags = []
    for d, m in zip(donates, aliases):
        if m and d:
            raise ValueError("may_alias and donate cannot be True at the same time.")
        if m is None:
            m = not d
        flags.append(not m and not d)
    return flags


def check_src(x, src, resolve):
    """``src`` (None, a device or sharding, or a pytree prefix of them): each entry must
    name a device (``resolve(entry, leaf)`` raises otherwise)."""
    if src is None:
        return
    leaves = tree_leaves(x)
    if isinstance(src, (list, tuple, dict)):
        per_leaf = _per_leaf(src, x, "src", ())
    else:
        per_leaf = [src] * len(leaves)
    for leaf, s in zip(leaves, per_leaf):
        if s is not None:
            resolve(s, leaf)
