"""``lax.optimization_barrier`` and ``lax.with_sharding_constraint``: annotations that
return their operand's values unchanged.

tjit's compiler has no pass that moves work across a barrier or partitions a program
over devices from layout hints, so both are the identity on values (which is all JAX
promises about values); they differentiate and batch as the identity. The sharding is
checked as JAX checks it (a Sharding, or a PartitionSpec inside ``with mesh:``, whose
spec fits the array's rank and the mesh's axes) by a checker that ``tjit.sharding``
installs, since meshes live above this layer.
"""

import functools
import inspect

from tjit.tracing.core import Array, Tracer
from tjit.tracing.tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten
from tjit.lax._elementwise import asarray_for_lax

#: installed by tjit.sharding (set_sharding_checker): check(sharding, shape, where) raises
#: on a sharding that does not fit; is_sharding(obj) tells shardings and specs (a
#: PartitionSpec is a tuple, yet one leaf of the shardings pytree)
_CHECK_SHARDING = [None]
_IS_SHARDING = [lambda s: False]
#: place(array, sharding): an eager Array laid out as the sharding (x.sharding), as JAX's;
#: a tracer with the layout recorded in the traced program (sharding_constraint)
_PLACE = [None]


def set_sharding_checker(check, is_sharding, place=None):
    """Install the sharding checker and predicate used by with_sharding_constraint, and
    what lays out its eager results."""
    _CHECK_SHARDING[0] = check
    _IS_SHARDING[0] = is_sharding
    _PLACE[0] = place


def _as_array(x):
    return x if isinstance(x, (Array, Tracer)) else asarray_for_lax(x)


def optimization_barrier(operand):
    """Return ``operand`` (a pytree of arrays) unchanged, as
    ``jax.lax.optimization_barrier``.

    In JAX the barrier keeps XLA from moving, merging or fusing computations across it.
    tjit has no such barrier in its compiler: this is the identity (values, gradients and
    batching are those of ``operand``), and fusion or rematerialization may still cross
    it; values are the same either way.
    """
    return tree_map(_as_array, operand)


def _is_sharding_leaf(s):
    return s is None or _IS_SHARDING[0](s)


def with_sharding_constraint(x, shardings):
    """Constrain the layout of ``x`` (a pytree of arrays) to ``shardings``, as
    ``jax.lax.with_sharding_constraint``: returns ``x``'s values unchanged.

    Args:
      x: a pytree of arrays.
      shardings: a Sharding (``NamedSharding``, ``SingleDeviceSharding``) or a
        ``PartitionSpec`` (inside ``with mesh:``), or a pytree of them that is a prefix
        of ``x``'s structure.

    tjit's ``jit`` compiles one device's program (multi-device layouts come from
    ``shard_map``/``pmap``), so the constraint is checked but places nothing; an eager
    result on a one-device mesh has the constraint as its ``.sharding``, as in JAX.
    """
    leaves, tree = tree_flatten(x)
    try:
        per_leaf = broadcast_prefix(shardings, x, is_leaf=_is_sharding_leaf)
    except ValueError as e:
        raise ValueError(f"with_sharding_constraint: shardings must be one sharding or a "
                         f"pytree prefix of x's structure {tree}: {e}") from None
    check = _CHECK_SHARDING[0]
    out = []
    for i, (leaf, s) in enumerate(zip(leaves, per_leaf)):
        leaf = _as_array(leaf)
        if s is None:
            raise ValueError(f"One of with_sharding_constraint arguments got sharding {s} "
                             "which is not allowed. Please only pass `jax.sharding.Sharding` "
                             "instances (tjit.sharding.NamedSharding) or PartitionSpecs.")
        if check is not None:
            check(s, tuple(leaf.shape), f"with_sharding_constraint (leaf {i} of x)")
        if _PLACE[0] is not None and (type(leaf) is Array or isinstance(leaf, Tracer)):
            leaf = _PLACE[0](leaf, s)   # (eager: JAX commits it; traced: its type)
        out.append(leaf)
    return tree_unflatten(tree, out)


def apply_out_sharding(x, out_sharding, where):
    """JAX's ``out_sharding=`` (``sharding=``) argument of functions that make an array:
    None returns ``x``; a Sharding or PartitionSpec is checked against ``x``'s shape as
    :func:`with_sharding_constraint` checks it (tjit computes on one device; an eager
    result on a one-device mesh has it as its ``.sharding``, as in JAX); anything else
    raises naming ``where``."""
    if out_sharding is None:
        return x
    check = _CHECK_SHARDING[0]   # (installed by tjit.sharding, which tjit imports)
    if check is not None:
        check(out_sharding, tuple(x.shape), where)
    if _PLACE[0] is not None and (type(x) is Array or isinstance(x, Tracer)):
        x = _PLACE[0](x, out_sharding)
    return x


def accepts_out_sharding(fun, name):
    """``fun`` with JAX's keyword-only ``out_sharding=None`` added (applied to its result
    by :func:`apply_out_sharding`): for samplers and other functions whose own code does
    not need it."""
    where = f"{name}(out_sharding=...)"

    @functools.wraps(fun)
    def wrapped(*args, out_sharding=None, **kwargs):
        out = fun(*args, **kwargs)
        return out if out_sharding is None else apply_out_sharding(out, out_sharding, where)
    sig = inspect.signature(fun)
    wrapped.__signature__ = sig.replace(parameters=[
        *sig.parameters.values(),
        inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return wrapped


__all__ = ["optimization_barrier", "with_sharding_constraint"]
