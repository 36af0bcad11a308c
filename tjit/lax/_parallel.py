"""``tjit.lax`` collectives over named axes, with ``jax.lax``'s signatures: ``psum``,
``pmean``, ``pmax``, ``pmin``, ``all_gather``, ``psum_scatter``, ``all_to_all``,
``ppermute``, ``pshuffle``, ``pswapaxes``, ``pbroadcast``, ``axis_index`` and
``axis_size``.

An axis name is bound by ``vmap(f, axis_name=...)`` or ``pmap(f, axis_name=...)``;
``axis_name`` may be a tuple of names (the axes together, the first one major). The
reductions take pytrees, as in JAX. ``axis_index_groups`` (psum, pmean, pmax, pmin,
all_gather, psum_scatter, all_to_all; over one axis name) runs the collective within each
group of members. The primitives are in ``primitives/collectives.py``.
"""


import numpy as np

from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._slicing import concatenate, slice as slice_op
from tjit.primitives import collectives as C
from tjit.primitives.collective_groups import canonical_groups, check_groups
from tjit.primitives.elementwise import convert_element_type_p
from tjit.primitives.structural import expand_dims_p, reshape_p, squeeze_p
from tjit.tracing import dtypes
from tjit.tracing.axis_env import axes_size, canonical_axes, table_of
from tjit.tracing.core import Tracer
from tjit.tracing.errors import ShapeError, static_index
from tjit.tracing.shapes import shape_str
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def _over(axes, where, groups=None):
    """The params naming the members of a collective: ``axes``; ``comms`` when the
    innermost binding is a shard_map over a mesh of processes traced into jit (the
    collective keeps its communicators by (mesh, name); nothing is bound process-wide);
    ``axis_index_groups`` when given."""
    comms = table_of(axes, where)
    out = {"axes": axes} if comms is None else {"axes": axes, "comms": comms}
    if groups is not None:
        out["axis_index_groups"] = groups
    return out


def _groups(where, axes, axis_index_groups, equal_sizes=False):
    """``axis_index_groups`` as tuples, checked against the size of ``axes`` (one name)."""
    if axis_index_groups is None:
        return None
    if len(axes) != 1:
        raise NotImplementedError(f"{where}: axis_index_groups over several axis names "
                                  f"{axes}; give one name (index the groups along it)")
    groups = canonical_groups(where, axis_index_groups)
    check_groups(where, groups, axes_size(axes), equal_sizes)
    return groups


def _reduction(prim, where, x, axis_name, axis_index_groups):
    axes = canonical_axes(axis_name, where)
    groups = _groups(where, axes, axis_index_groups)
    leaves, tree = tree_flatten(x)
    leaves = [asarray_for_lax(v) for v in leaves]
    was_bool = [dtypes.is_bool(v.dtype) for v in leaves]
    leaves = [_convert(v, np.int32) if b else v for v, b in zip(leaves, was_bool)]
    if prim is not C.psum_p:   # (JAX: pmax/pmin of bools are bools, any/all; psum counts)
        reduced = _bucketed(prim, leaves, _over(axes, where, groups))
        return tree_unflatten(tree, [_convert(v, np.bool_) if b else v
                                     for v, b in zip(reduced, was_bool)])
    if not any(isinstance(v, Tracer) for v in leaves) and (
            groups is None or len({len(g) for g in groups}) == 1):
        # values that vary along no axis: n copies summed (as JAX); with groups of
        # unequal sizes the count differs by member, so the collective computes it
        n = axes_size(axes) if groups is None else len(groups[0])
        return tree_unflatten(tree, [v * n for v in leaves])
    return tree_unflatten(tree, _bucketed(prim, leaves, _over(axes, where, groups)))


def _convert(v, dtype):
    return convert_element_type_p.bind(v, new_dtype=np.dtype(dtype), weak_type=False)


def _bucketed(prim, leaves, over):
    """``prim`` over each leaf (``over``: the params naming the axes), with the leaves of
    one dtype flattened into one operand (one collective per dtype, as XLA's all-reduce
    combiner does: across processes each collective is a message, and its latency
    dominates for the small leaves of a gradient pytree)."""
    groups = {}
    for i, v in enumerate(leaves):
        groups.setdefault((np.dtype(v.dtype), bool(v.weak_type)), []).append(i)
    out = [None] * len(leaves)
    for idx in groups.values():
        if len(idx) == 1:
            out[idx[0]] = prim.bind(leaves[idx[0]], **over)
            continue
        sizes = [int(np.prod(leaves[i].shape, dtype=np.int64)) for i in idx]
        joined = concatenate([_reshape(leaves[i], (n,)) for i, n in zip(idx, sizes)], 0)
        total = prim.bind(joined, **over)
        start = 0
        for i, n in zip(idx, sizes):
            out[i] = _reshape(slice_op(total, (start,), (start + n,)), leaves[i].shape)
            start += n
    return out


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of ``x`` (a pytree) over the members of the named axis (axes); every member
    gets the sum. Bools are summed as int32.

    Args:
      x: array, scalar or pytree of them.
      axis_name: a name bound by vmap/pmap, or a tuple of names.
    Returns:
      A pytree like ``x``.
    """
    return _reduction(C.psum_p, "psum", x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """Elementwise maximum of ``x`` (a pytree) over the named axis (axes)."""
    return _reduction(C.pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Elementwise minimum of ``x`` (a pytree) over the named axis (axes)."""
    return _reduction(C.pmin_p, "pmin", x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of ``x`` (a pytree) over the named axis (axes): ``psum(x) / axis_size``
    (with ``axis_index_groups``: over each member's group, divided by its size)."""
    x = psum(x, axis_name, axis_index_groups=axis_index_groups)
    axes = canonical_axes(axis_name, "pmean")
    groups = _groups("pmean", axes, axis_index_groups)
    if groups is None:
        n = axes_size(axes)       # static: no collective
    elif len({len(g) for g in groups}) == 1:
        n = len(groups[0])
    else:   # groups of unequal sizes: each member's count, by a collective
        n = psum(1, axis_name, axis_index_groups=groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [v / n for v in leaves])


def axis_size(axis_name):
    """The number of members of the named axis (the product for a tuple of names)."""
    return axes_size(canonical_axes(axis_name, "axis_size"))


def axis_index(axis_name):
    """This member's index along the named axis (int32); for a tuple of names, the
    row-major index over them (the first name major)."""
    axes = canonical_axes(axis_name, "axis_index")
    out = None
    for k, name in enumerate(axes):
        i = C.axis_index_p.bind(**_over((name,), "axis_index"))
        stride = axes_size(axes[k + 1:]) if k + 1 < len(axes) else 1
        i = i * np.int32(stride) if stride != 1 else i
        out = i if out is None else out + i
    return out


def _reshape(v, shape):
    return reshape_p.bind(v, new_sizes=tuple(shape), dimensions=None)


def _axis(where, what, axis, ndim):
    """``axis`` of an operand of rank ``ndim`` as a non-negative int (a float such as 1.5
    is named, not taken as a position)."""
    axis = static_index(axis, what, where)
    if not -ndim <= axis < ndim:
        fix = (f"use an axis in [{-ndim}, {ndim})" if ndim else
               "a scalar has no axis to tile or scatter: reshape it to rank 1 first")
        raise ShapeError(f"{where}: {what}={axis} is out of range for an operand of rank "
                         f"{ndim}; {fix}")
    return axis % ndim


_ALL_GATHER_TO = ("varying", "reduced", "invarying")


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """Every member's ``x`` stacked along a new axis ``axis`` (``tiled=True``:
    concatenated along the existing ``axis``), the same on every member (with
    ``axis_index_groups``, of equal sizes: the members of each member's group, in the
    group's order). ``to``: JAX's output axis type; 'varying' (the default, whose
    transpose is ``psum_scatter``) is the one tjit has."""
    if to not in _ALL_GATHER_TO:
        raise ValueError(f"Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                         f"values are: {set(_ALL_GATHER_TO)}")
    if to != "varying":
        # same values, but JAX differentiates them otherwise (all_gather_invariant
        # transposes to a slice, not a psum_scatter): refuse rather than differ
        raise NotImplementedError(f"lax.all_gather(to={to!r}) is not supported: tjit has no "
                                  f"varying/invariant axis types; use to='varying' (the "
                                  f"default)")
    axes = canonical_axes(axis_name, "all_gather")
    groups = _groups("all_gather", axes, axis_index_groups, equal_sizes=True)
    n = axes_size(axes) if groups is None else len(groups[0])
    leaves, tree = tree_flatten(x)
    outs = []
    for v in leaves:
        v = asarray_for_lax(v)
        a = _axis("all_gather", "axis", axis, v.ndim if tiled else v.ndim + 1)
        # several names: gather over each, the last (minor) one first, so the first name
        # ends up major (one name per primitive, so every runtime serves it)
        for name in reversed(axes):
            v = C.all_gather_p.bind(v, all_gather_dimension=a, tiled=bool(tiled),
                                    axis_size=n if groups else axes_size((name,)),
                                    **_over((name,), "all_gather", groups))
        if not tiled and len(axes) > 1:
            s = tuple(v.shape)
            v = _reshape(v, s[:a] + (n,) + s[a + len(axes):])
        outs.append(v)
    return tree_unflatten(tree, outs)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The sum over the named axis, scattered: member ``r`` gets block ``r`` of dim
    ``scatter_dimension`` of the sum (that dim must equal the axis size, which it loses;
    ``tiled=True``: a multiple of it, divided by it). With ``axis_index_groups`` (of
    equal sizes): the sum over each member's group, scattered over the group by the
    members' positions in it."""
    axes = canonical_axes(axis_name, "psum_scatter")
    groups = _groups("psum_scatter", axes, axis_index_groups, equal_sizes=True)
    n = axes_size(axes) if groups is None else len(groups[0])
    leaves, tree = tree_flatten(x)
    outs = []
    for v in leaves:
        v = asarray_for_lax(v)
        d = _axis("psum_scatter", "scatter_dimension", scatter_dimension, v.ndim)
        if len(axes) == 1:
            outs.append(C.psum_scatter_p.bind(v, scatter_dimension=d, axis_size=n,
                                              tiled=bool(tiled),
                                              **_over(axes, "psum_scatter", groups)))
            continue
        if not tiled and v.shape[d] != n:
            raise ShapeError(f"psum_scatter: dim {d} of the operand (shape "
                             f"{shape_str(v.shape)}) must equal the size {n} of axes {axes}; "
                             f"use tiled=True to scatter blocks of a larger dim")
        # several names: scatter blocks over each, the first (major) one first
        for name in axes:
            v = C.psum_scatter_p.bind(v, scatter_dimension=d, axis_size=axes_size((name,)),
                                      tiled=True, **_over((name,), "psum_scatter"))
        outs.append(v if tiled else squeeze_p.bind(v, dimensions=(d,)))
    return tree_unflatten(tree, outs)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None,
               tiled=False):
    """Member ``r`` sends block ``j`` of ``split_axis`` to member ``j`` and stacks the
    blocks it receives along ``concat_axis`` (``tiled=False``: ``x.shape[split_axis]``
    equals the axis size; that dim is removed and a new one of the axis size is
    inserted at ``concat_axis``. ``tiled=True``: split_axis is divided by the axis size
    and concat_axis multiplied by it). With ``axis_index_groups`` (of equal sizes): the
    exchange runs within each group, a member's position in its group being its index
    and the group's size the axis size."""
    axes = canonical_axes(axis_name, "all_to_all")
    groups = _groups("all_to_all", axes, axis_index_groups, equal_sizes=True)
    n = axes_size(axes) if groups is None else len(groups[0])
    over = _over(axes, "all_to_all", groups)
    x = asarray_for_lax(x)
    nd = x.ndim
    sa = _axis("all_to_all", "split_axis", split_axis, nd)
    if tiled:
        ca = _axis("all_to_all", "concat_axis", concat_axis, nd)
        return C.all_to_all_p.bind(x, split_axis=sa, concat_axis=ca, axis_size=n, **over)
    if x.shape[sa] != n:
        size = "group size" if groups else "size"
        raise ShapeError(f"all_to_all: dim split_axis={sa} of the operand (shape "
                         f"{shape_str(x.shape)}) must equal the {size} {n} of axes {axes}; "
                         f"use tiled=True to split a multiple of it into blocks")
    # concat_axis is a position in the result, which has lost split_axis (as JAX)
    ca = _axis("all_to_all", "concat_axis", concat_axis, nd)
    if ca == sa:
        return C.all_to_all_p.bind(x, split_axis=sa, concat_axis=ca, axis_size=n, **over)
    if sa < ca:
        ca += 1
    x = expand_dims_p.bind(x, dimensions=(ca,))
    if ca < sa:
        sa += 1
    out = C.all_to_all_p.bind(x, split_axis=sa, concat_axis=ca, axis_size=n, **over)
    return squeeze_p.bind(out, dimensions=(sa,))


def ppermute(x, axis_name, perm):
    """Member ``dst`` gets the ``x`` of member ``src`` for each ``(src, dst)`` in
    ``perm``; members no pair sends to get zeros."""
    axes = canonical_axes(axis_name, "ppermute")
    try:
        perm = tuple((int(s), int(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise TypeError(f"ppermute: perm must be a sequence of (source, destination) index "
                        f"pairs, got {perm!r:.80}") from None
    leaves, tree = tree_flatten(x)
    over = _over(axes, "ppermute")
    return tree_unflatten(tree, [C.ppermute_p.bind(asarray_for_lax(v), perm=perm, **over)
                                 for v in leaves])


def pshuffle(x, axis_name, perm):
    """``ppermute`` with the permutation as a list of sources: member ``i`` gets the ``x``
    of member ``perm[i]``. ``perm`` holds every index of the axis exactly once; ``x`` may
    be a pytree.

    >>> jax.vmap(lambda x: jax.lax.pshuffle(x, 'i', [2, 0, 1]), axis_name='i')(jnp.arange(3.0))
    Array([2., 0., 1.], dtype=float32)
    """
    # (a float entry such as 1.5 is refused, not truncated to 1; a traced one is named)
    perm = [static_index(p, "perm (the source of each member)", "pshuffle") for p in perm]
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"pshuffle: perm {perm} is not a permutation of 0..{len(perm) - 1}; "
                         f"list each member's source index exactly once")
    axes = canonical_axes(axis_name, "pshuffle")
    if len(perm) != axes_size(axes):   # (JAX's documented contract; it does not check)
        raise ValueError(f"pshuffle: perm has {len(perm)} entries but axes {axes} have "
                         f"{axes_size(axes)} members; give one source per member")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def pbroadcast(x, axis_name, source):
    """Every member gets member ``source``'s ``x`` (JAX's collective broadcast; its bits
    exactly, NaNs and -0.0 included, where JAX's reference form ``psum`` of ``x`` masked
    to ``source`` would turn -0.0 into 0.0). ``source`` indexes the axes together;
    ``x`` may be a pytree.

    >>> jax.vmap(lambda x: jax.lax.pbroadcast(x, 'i', 2), axis_name='i')(jnp.arange(4.0))
    Array([2., 2., 2., 2.], dtype=float32)
    """
    axes = canonical_axes(axis_name, "pbroadcast")
    n = axes_size(axes)
    source = static_index(source, "source", "pbroadcast")
    if not 0 <= source < n:
        raise ValueError(f"pbroadcast: source={source} is not a member of axes {axes} "
                         f"(size {n}); pass an index in [0, {n})")
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [_index_leading(all_gather(v, axes), source)
                                 for v in leaves])


def _index_leading(stacked, i):
    """``stacked[i]`` (the leading axis dropped)."""
    start = (i,) + (0,) * (stacked.ndim - 1)
    limit = (i + 1,) + tuple(stacked.shape[1:])
    return squeeze_p.bind(slice_op(stacked, start, limit), dimensions=(0,))


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the named axis with positional axis ``axis`` of each member's ``x`` (whose
    size must be the axis size): member ``i`` gets ``[x_j[i] for j]`` along ``axis``. An
    ``all_to_all`` that splits and concatenates along ``axis``; ``x`` may be a pytree.

    >>> jax.vmap(lambda x: jax.lax.pswapaxes(x, 'i', 0), axis_name='i')(
    ...     jnp.arange(4).reshape(2, 2))
    Array([[0, 2],
           [1, 3]], dtype=int32)
    """
    leaves, tree = tree_flatten(x)
    try:
        return tree_unflatten(tree, [all_to_all(v, axis_name, axis, axis,
                                                axis_index_groups=axis_index_groups)
                                     for v in leaves])
    except ShapeError as e:
        raise ShapeError(f"pswapaxes (an all_to_all along axis {axis}): {e}") from None


__all__ = [
    "all_gather",
    "all_to_all",
    "axis_index",
    "axis_size",
    "pbroadcast",
    "pmax",
    "pmean",
    "pmin",
    "ppermute",
    "pshuffle",
    "psum",
    "psum_scatter",
    "pswapaxes",
]
