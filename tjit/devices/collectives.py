"""Communicators: what a collective step of a compiled plan calls to exchange data
between the members of a named axis (devices of one process, or processes).

The collective primitives (``primitives/collectives.py``) look their axis names up in
the communicators bound to the running thread (:func:`bind_axis`) and call

    allreduce(x, op) -> array like x               op in {"sum", "max", "min"}
    allgather(x) -> (size,) + x.shape              row r = member r's x
    reduce_scatter(x, op) -> x.shape[1:]           x.shape[0] == size: op over members of x[rank]
    alltoall(x) -> x.shape                         x.shape[0] == size: y[j] = member j's x[rank]
    permute(x, pairs) -> x.shape                   x of the src whose dst is rank; else zeros
    subgroup(groups) -> Communicator               this member's group of a partition of
                                                   the ranks (axis_index_groups): its
                                                   position in the group is its rank

always on C-contiguous NumPy arrays whose communicated axis is first. :class:`Communicator`
states this interface; :class:`ThreadCommunicator` implements it for threads of one
process (``pmap`` over N CPU devices); ``tjit.distributed``'s MPI communicator implements
it across processes.
"""

import threading

import numpy as np

from tjit.tracing.axis_env import bind_communicators

_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


class Communicator:
    """One member (``rank`` of ``size``) of a group that runs collectives together."""

    rank = 0
    size = 1

    def allreduce(self, x, op):
        raise NotImplementedError

    def allgather(self, x):
        raise NotImplementedError

    def reduce_scatter(self, x, op):
        raise NotImplementedError

    def alltoall(self, x):
        raise NotImplementedError

    def permute(self, x, pairs):
        raise NotImplementedError

    def subgroup(self, groups):
        raise NotImplementedError(
            f"{type(self).__name__} does not split into axis_index_groups")


def group_position(groups, rank):
    """``(group index, rank within the group)`` of ``rank`` in ``groups`` (a partition
    of the ranks, as tuples)."""
    for g, group in enumerate(groups):
        if rank in group:
            return g, group.index(rank)
    raise ValueError(f"rank {rank} is in none of the axis_index_groups {groups}")


def bind_axis(name, communicator):
    """Context manager: in this thread, collectives over axis ``name`` (a name, or a
    tuple of names served by one communicator) run on ``communicator`` while a compiled
    program (``tjit.parallel.compile_spmd``) runs."""
    return bind_communicators({name: communicator})


def bind_axes(mapping):
    """Context manager binding several names (or tuples of names) at once:
    ``{name: communicator}``."""
    return bind_communicators(mapping)


class CollectiveAborted(RuntimeError):
    """Raised in the members still waiting when another member of the group failed."""


class ThreadGroup:
    """The meeting point of ``size`` threads of one process: each collective deposits
    every member's operand, waits for all, and reads them all in rank order (so every
    member reduces in the same order: results are identical and deterministic).

    A member that fails calls :meth:`abort`; one that finishes its program calls
    :meth:`member_done`. Either way the members still waiting in a collective can never
    be joined, so they raise instead of hanging (e.g. a collective inside a ``cond``
    whose predicate differs across devices)."""

    def __init__(self, size, name="axis"):
        self.size = size
        self.name = name
        self.slots = [None] * size
        self._cond = threading.Condition()
        self._arrived = 0
        self._generation = 0
        self._aborted = False
        self._done = []
        self._subgroups = {}     # axis_index_groups -> a ThreadGroup per group

    def members(self):
        return [ThreadCommunicator(self, r) for r in range(self.size)]

    def abort(self):
        """Release the members waiting in a collective (one member failed), in its
        subgroups too."""
        with self._cond:
            self._aborted = True
            self._cond.notify_all()
            subs = [t for parts in self._subgroups.values() for t in parts]
        for t in subs:
            t.abort()

    def member_done(self, rank):
        """Member ``rank`` finished its program: no collective will see it again."""
        with self._cond:
            self._done.append(rank)
            self._cond.notify_all()
            subs = list(self._subgroups.items())
        for groups, parts in subs:
            g, k = group_position(groups, rank)
            parts[g].member_done(k)

    def subgroups(self, groups):
        """One ThreadGroup per group of ``groups`` (made once, shared by the members),
        told of the members already failed or done."""
        with self._cond:
            parts = self._subgroups.get(groups)
            if parts is None:
                parts = [ThreadGroup(len(g), f"{self.name}{list(g)}") for g in groups]
                for t in parts:
                    t._aborted = self._aborted
                for r in self._done:
                    g, k = group_position(groups, r)
                    parts[g]._done.append(k)
                self._subgroups[groups] = parts
            return parts

    def _wait(self):
        with self._cond:
            gen = self._generation
            self._arrived += 1
            if self._arrived == self.size:
                self._arrived = 0
                self._generation += 1
                self._cond.notify_all()
                return
            while self._generation == gen:
                if self._aborted:
                    raise CollectiveAborted(
                        f"collective over axis {self.name!r} aborted: another member of "
                        f"the axis failed (its error is the one reported)")
                if self._done:
                    self._aborted = True
                    self._cond.notify_all()
                    raise RuntimeError(
                        f"a collective over axis {self.name!r} is not run by every member: "
                        f"member {self._done[0]} finished its program while others wait "
                        f"in a collective. Every device must run the same collectives in "
                        f"the same order; a collective inside lax.cond/while_loop whose "
                        f"predicate differs across devices breaks that (compute both "
                        f"branches and select, or make the predicate the same on every "
                        f"device, e.g. with psum/pmax)")
                self._cond.wait()


def check_operands_agree(what, axis, labelled):
    """Raise ValueError naming the first member (``(label, array)`` pairs) whose
    operand's shape or dtype differs from the first one's."""
    first, ref = labelled[0]
    for label, v in labelled:
        if v.shape != ref.shape or v.dtype != ref.dtype:
            raise ValueError(
                f"{what} over axis {axis!r}: members disagree on the operand: {first} has "
                f"{ref.dtype}{list(ref.shape)}, {label} has {v.dtype}{list(v.shape)}; "
                f"every member must pass the same shape and dtype")


class ThreadCommunicator(Communicator):
    """Member ``rank`` of a :class:`ThreadGroup` (threads of one process)."""

    def __init__(self, group, rank):
        self.group = group
        self.rank = rank
        self.size = group.size

    def __repr__(self):
        return f"ThreadCommunicator(rank={self.rank}, size={self.size})"

    def subgroup(self, groups):
        g, k = group_position(groups, self.rank)
        return ThreadCommunicator(self.group.subgroups(groups)[g], k)

    def _run(self, what, x, compute, check=lambda v: v):
        """``compute(operands)`` over every member's operand (in rank order), between
        two meetings of the group: the first makes all operands visible, the second
        keeps them alive (unchanged) until every member is done reading them.
        ``check(operand)`` is the array whose shape and dtype must agree."""
        g = self.group
        g.slots[self.rank] = (what, x)
        g._wait()
        whats, vals = zip(*g.slots)
        if any(w != what for w in whats):
            raise RuntimeError(
                f"collectives over axis {g.name!r} differ across members: "
                + ", ".join(f"member {r} runs {w}" for r, w in enumerate(whats))
                + "; every device must run the same collectives in the same order")
        if check is not None:
            check_operands_agree(what, g.name,
                                 [(f"member {r}", check(v)) for r, v in enumerate(vals)])
        try:
            out = compute(vals)
        except BaseException:
            g.abort()
            raise
        g._wait()
        return out

    def allreduce(self, x, op):
        # Each member reduces its 1/size share of the elements (in rank order) into every
        # member's output, so the work is split instead of repeated size times.
        out = np.empty_like(x)
        lo, hi = _share(x.size, self.rank, self.size)

        def reduce_share(vals):
            if hi > lo:
                part = reduce_in_order([v.reshape(-1)[lo:hi] for v, _ in vals], op)
                for _, o in vals:
                    o.reshape(-1)[lo:hi] = part
        self._run("allreduce", (x, out), reduce_share, check=lambda v: v[0])
        return out

    def allgather(self, x):
        return self._run("allgather", x, np.stack)

    def reduce_scatter(self, x, op):
        self._check_leading("reduce_scatter", x)
        r = self.rank
        return self._run("reduce_scatter", x,
                         lambda vals: reduce_in_order([v[r] for v in vals], op))

    def alltoall(self, x):
        self._check_leading("alltoall", x)
        r = self.rank
        return self._run("alltoall", x, lambda vals: np.stack([v[r] for v in vals]))

    def permute(self, x, pairs):
        src = {d: s for s, d in pairs}.get(self.rank)
        return self._run("permute", x, lambda vals: np.zeros_like(x) if src is None
                         else vals[src].copy())

    def _check_leading(self, what, x):
        if x.ndim == 0 or x.shape[0] != self.size:
            raise ValueError(f"{what} over axis {self.group.name!r}: the operand's leading "
                             f"dim must be the axis size {self.size}, got shape "
                             f"{list(x.shape)}")


def _share(n, rank, size):
    """The element range ``[lo, hi)`` of ``n`` that member ``rank`` of ``size`` reduces."""
    step = -(-n // size)
    return min(n, rank * step), min(n, (rank + 1) * step)


def reduce_in_order(vals, op):
    out = np.array(vals[0], copy=True)
    f = _REDUCE[op]
    for v in vals[1:]:
        f(out, v, out=out)
    return out
