"""``axis_index_groups`` (JAX's): a collective over a named axis run separately within
each group of the axis's members, e.g. ``[[0, 1], [2, 3]]`` on an axis of size 4 sums
members 0 and 1 together and 2 and 3 together. The groups must cover every member once;
a member's position in its group is its rank there (all_gather stacks in group order).

Here: the check that the groups partition the axis, and the forms the collectives take
under ``vmap(axis_name=...)`` — array ops on the batch's slices, member ``m``'s result
made from the rows of its group. Run-time groups are sub-communicators
(``Communicator.subgroup`` in ``devices/collectives.py``).
"""

from tjit.primitives.slicing import concatenate_p, slice_p
from tjit.primitives.structural import reshape_p
from tjit.tracing.core import get_aval


def check_groups(where, groups, n, equal_sizes=False):
    """ValueError unless ``groups`` (a tuple of tuples of ints) cover the members
    ``0 .. n-1`` of the axis exactly once (and, if ``equal_sizes``, are equally large)."""
    members = [m for g in groups for m in g]
    if sorted(members) != list(range(n)):
        raise ValueError(f"{where}: axis_index_groups {[list(g) for g in groups]} must "
                         f"cover all indices exactly once (the axis has size {n}: each of "
                         f"0..{n - 1} in exactly one group)")
    if equal_sizes and len({len(g) for g in groups}) > 1:
        raise ValueError(f"{where}: axis_index_groups {[list(g) for g in groups]} must all "
                         f"be the same size")


def canonical_groups(where, groups):
    """``groups`` as a tuple of non-empty tuples of ints (a hashable param)."""
    try:
        out = tuple(tuple(int(m) for m in g) for g in groups)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: axis_index_groups must be a list of lists of axis "
                        f"indices, e.g. [[0, 1], [2, 3]], got {groups!r:.80}") from None
    if not out or any(not g for g in out):
        raise ValueError(f"{where}: axis_index_groups {groups!r:.80} has an empty group")
    return out


def position(groups, member):
    """``(group index, rank within the group)`` of ``member``."""
    for g, group in enumerate(groups):
        if member in group:
            return g, group.index(member)
    raise ValueError(f"member {member} is in none of the axis_index_groups {groups}")


def _rows(x, members):
    """Rows ``members`` of ``x`` (members first), stacked in that order."""
    shape = tuple(get_aval(x).shape)
    rest = (0,) * (len(shape) - 1)
    pieces = [slice_p.bind(x, start_indices=(m,) + rest, limit_indices=(m + 1,) + shape[1:],
                           strides=None) for m in members]
    return pieces[0] if len(pieces) == 1 else concatenate_p.bind(*pieces, dimension=0)


def _stack_members(groups, piece_of):
    """``(n,) + shape``: row ``m`` is ``piece_of(g, k)`` for member ``m`` at position ``k``
    of group ``g``."""
    n = sum(len(g) for g in groups)
    rows = []
    for m in range(n):
        p = piece_of(*position(groups, m))
        shape = tuple(get_aval(p).shape)
        rows.append(reshape_p.bind(p, new_sizes=(1,) + shape, dimensions=None))
    return rows[0] if n == 1 else concatenate_p.bind(*rows, dimension=0)


def grouped_reduce(x, groups, reduce_p):
    """Members first in ``x``: each member's row becomes its group's reduction."""
    per_group = [reduce_p.bind(_rows(x, g), axes=(0,)) for g in groups]
    return _stack_members(groups, lambda g, k: per_group[g])


def grouped_gather(x, groups):
    """Members first in ``x``: each member's row becomes its group's rows stacked in
    group order, ``(n, group size) + shape``."""
    per_group = [_rows(x, g) for g in groups]
    return _stack_members(groups, lambda g, k: per_group[g])


def grouped_exchange(x, groups, exchange):
    """Members first in ``x``: ``exchange(rows)`` maps a group's rows (in group order) to
    its members' results (likewise); each member gets the row of its position."""
    per_group = [exchange(_rows(x, g)) for g in groups]

    def row(g, k):
        y = per_group[g]
        shape = tuple(get_aval(y).shape)
        piece = slice_p.bind(y, start_indices=(k,) + (0,) * (len(shape) - 1),
                             limit_indices=(k + 1,) + shape[1:], strides=None)
        return reshape_p.bind(piece, new_sizes=shape[1:], dimensions=None)
    return _stack_members(groups, row)


def grouped_sum_scatter(x, groups, reduce_sum_p, dim, tiled):
    """Members first in ``x``: member ``k`` of a group gets block ``k`` along ``dim`` (of
    the member's operand) of its group's sum; untiled, that dim (the group size) goes."""
    sums = [reduce_sum_p.bind(_rows(x, g), axes=(0,)) for g in groups]
    size = len(groups[0])

    def block(g, k):
        s = tuple(get_aval(sums[g]).shape)
        b = s[dim] // size
        start = tuple(k * b if i == dim else 0 for i in range(len(s)))
        limit = tuple((k + 1) * b if i == dim else s[i] for i in range(len(s)))
        y = slice_p.bind(sums[g], start_indices=start, limit_indices=limit, strides=None)
        if tiled:
            return y
        return reshape_p.bind(y, new_sizes=s[:dim] + s[dim + 1:], dimensions=None)
    return _stack_members(groups, block)
