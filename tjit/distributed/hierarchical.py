"""Collectives over a named axis whose members are devices of several processes, each
process driving several of them on threads (``TJIT_NUM_CPU_DEVICES=N`` under
``mpiexec -n P``), as JAX's multi-process model: the axis has one member per device of
every process, and a collective reaches all of them.

They compose hierarchically. The members of one process meet on a
:class:`~tjit.devices.collectives.ThreadGroup`; its first member (the process's leader)
combines their operands (a sum, a stack), runs one MPI call for the whole process on the
process-level :class:`MPICommunicator`, and hands each member its own result:

    allreduce       local reduce (rank order)     -> Allreduce            -> copy per member
    allgather       local stack (n, ...)          -> Allgather (P, n, ..) -> reorder rows
    reduce_scatter  local reduce (S, ...)         -> Reduce_scatter_block -> row per member
    alltoall        stack, rows to processes      -> Alltoall             -> rows per member
    permute         local pairs copied, the others Isend/Irecv between the processes

A member's ``rank`` is its index on the axis (pmap: ``process_index * N + local index``),
so ``axis_index`` is global. :class:`ProcessBlocks` says which ranks each process holds;
ranks need not be contiguous per process (a mesh axis tuple such as ('local', 'proc')),
but every process holds as many. ``axis_index_groups`` run as :class:`GatheredSubgroup`:
an allgather over the whole axis, then the group's rows.

Every member gets an array of its own (a compiled plan may write into a collective's
output), so n - 1 results are copies of the leader's.
"""

import numpy as np

from tjit.devices.collectives import (
    Communicator,
    check_operands_agree,
    group_position,
    reduce_in_order,
)
from tjit.distributed.mpi_communicator import _bytes
from tjit.distributed.runtime import DistributedError

#: Tags of ppermute's point-to-point messages: base + destination rank (unique per call).
_PERMUTE_TAG = 4096


class ProcessBlocks:
    """Which ranks of an axis of ``size`` members each process holds.

    Args:
      blocks: per process, in the order of the process-level communicator's ranks, the
        axis ranks that process holds, in the order of its members (threads).
      me: this process's rank in the process-level communicator.
    """

    def __init__(self, blocks, me, name=None):
        self.blocks = [tuple(int(r) for r in b) for b in blocks]
        n = len(self.blocks[0])
        if any(len(b) != n for b in self.blocks):
            raise DistributedError(
                f"axis {name!r}: its members are spread unevenly over the processes "
                f"({[len(b) for b in self.blocks]} members per process); collectives "
                f"across processes need the same number in each (build the mesh from "
                f"tjit.devices() reshaped so that each axis group holds as many devices of "
                f"every process it spans)")
        self.per_process = n
        self.size = n * len(self.blocks)
        order = np.array([r for b in self.blocks for r in b], np.int64)
        if sorted(order.tolist()) != list(range(self.size)):
            raise DistributedError(f"axis {name!r}: the ranks {self.blocks} are not "
                                   f"0..{self.size - 1} each once")
        self.order = order                       # process-major position -> rank
        self.inverse = np.argsort(order)         # rank -> process-major position
        self.in_order = bool((order == np.arange(self.size)).all())
        self.mine = self.blocks[me]
        self.home = {r: q for q, b in enumerate(self.blocks) for r in b}
        self.slot = {r: j for b in self.blocks for j, r in enumerate(b)}
        self.me = me

    def to_rank_order(self, rows):
        """Rows in process-major order -> rows in rank order."""
        return rows if self.in_order else rows[self.inverse]

    def to_process_order(self, rows, axis=0):
        """Rows in rank order -> rows in process-major order (along ``axis``)."""
        return rows if self.in_order else np.take(rows, self.order, axis=axis)


class HierarchicalGroup:
    """One call's meeting of this process's members of an axis that spans processes.

    Args:
      threads: the ThreadGroup of this process's members (its ``abort`` and
        ``member_done`` release members waiting here, as on pmap's threads).
      process_comm: the MPICommunicator over the processes holding members (one rank per
        process, in the order of ``layout.blocks``).
      layout: the :class:`ProcessBlocks` of the axis.
    """

    def __init__(self, threads, process_comm, layout, name=None):
        if threads.size != layout.per_process:
            raise ValueError(f"axis {name!r}: {threads.size} threads for "
                             f"{layout.per_process} members of this process")
        self.threads = threads
        self.mpi = process_comm
        self.layout = layout
        self.name = name
        self.results = [None] * threads.size

    def members(self):
        return [HierarchicalCommunicator(self, j) for j in range(self.threads.size)]


class HierarchicalCommunicator(Communicator):
    """Member ``j`` of this process in a :class:`HierarchicalGroup`; ``rank`` is its
    index on the whole axis."""

    def __init__(self, hg, j):
        self.hg = hg
        self.group = hg.threads      # (what pmap/shard_map abort when a device fails)
        self.local = j
        self.rank = hg.layout.mine[j]
        self.size = hg.layout.size

    def __repr__(self):
        return (f"HierarchicalCommunicator(axis={self.hg.name!r}, rank={self.rank}, "
                f"size={self.size}, process={self.hg.layout.me})")

    # -- the meeting ---------------------------------------------------------------------
    def _run(self, what, x, combine, extra=None):
        """This process's members deposit their operands; the leader checks that they
        agree, runs ``combine(operands)`` (one result per member, MPI inside) and the
        members each take theirs. Two meetings suffice: the leader writes the results
        of the next call only once every member has deposited that call's operand,
        i.e. has taken this call's result."""
        hg = self.hg
        g = hg.threads
        g.slots[self.local] = (what, extra, x)
        g._wait()
        if self.local == 0:
            try:
                vals = self._agreed(what, extra)
                hg.results[:] = combine(vals)
            except BaseException:
                g.abort()
                raise
        g._wait()
        out = hg.results[self.local]
        hg.results[self.local] = None
        return out

    def _agreed(self, what, extra):
        """The members' operands, after checking they run the same collective on
        operands of one shape and dtype (the processes are compared by the MPI
        communicator's TJIT_DISTRIBUTED_CHECKS)."""
        slots = self.hg.threads.slots
        if any((w, e) != (what, extra) for w, e, _ in slots):
            raise RuntimeError(
                f"collectives over axis {self.hg.name!r} differ across this process's "
                f"devices: " + ", ".join(f"rank {r} runs {w}" for r, (w, _, _) in
                                         zip(self.hg.layout.mine, slots))
                + "; every device must run the same collectives in the same order")
        vals = [_contiguous(v) for _, _, v in slots]
        check_operands_agree(what, self.hg.name,
                             [(f"rank {r}", v) for r, v in zip(self.hg.layout.mine, vals)])
        return vals

    def _leading(self, what, x):
        if np.ndim(x) == 0 or np.shape(x)[0] != self.size:
            raise ValueError(f"{what} over axis {self.hg.name!r}: the operand's leading dim "
                             f"must be the axis size {self.size}, got shape "
                             f"{list(np.shape(x))}")

    # -- the collectives -------------------------------------------------------------------
    def allreduce(self, x, op):
        def combine(vals):
            mine = vals[0] if len(vals) == 1 else reduce_in_order(vals, op)
            return _copies(self.hg.mpi.allreduce(mine, op), len(vals))
        return self._run("allreduce", x, combine, op)

    def allgather(self, x):
        def combine(vals):
            rows = self.hg.mpi.allgather(np.stack(vals))          # (P, n) + x.shape
            rows = rows.reshape((self.size,) + rows.shape[2:])
            return _copies(self.hg.layout.to_rank_order(rows), len(vals))
        return self._run("allgather", x, combine)

    def reduce_scatter(self, x, op):
        self._leading("reduce_scatter", x)

        def combine(vals):
            lay = self.hg.layout
            total = reduce_in_order(vals, op)                      # (S, ...) by rank
            blocks = lay.to_process_order(total).reshape(
                (len(lay.blocks), lay.per_process) + total.shape[1:])
            mine = self.hg.mpi.reduce_scatter(np.ascontiguousarray(blocks), op)
            return [np.array(row) for row in mine]                 # row j: member j's
        return self._run("reduce_scatter", x, combine, op)

    def alltoall(self, x):
        self._leading("alltoall", x)

        def combine(vals):
            lay = self.hg.layout
            n, procs = lay.per_process, len(lay.blocks)
            rows = lay.to_process_order(np.stack(vals), axis=1)    # (n_src, S, ...)
            rows = rows.reshape((n, procs, n) + rows.shape[2:])
            send = np.ascontiguousarray(np.swapaxes(rows, 0, 1))   # (P, n_src, n_dst, ...)
            got = self.hg.mpi.alltoall(send)                       # [q, k, i]: q's k-th to my i-th
            return [np.ascontiguousarray(lay.to_rank_order(
                got[:, :, i].reshape((self.size,) + got.shape[3:]))) for i in range(n)]
        return self._run("alltoall", x, combine)

    def permute(self, x, pairs):
        pairs = tuple((int(s), int(d)) for s, d in pairs)

        def combine(vals):
            lay = self.hg.layout
            mpi = self.hg.mpi
            if mpi.checks:
                mpi._check_same("permute", np.stack(vals), pairs)
            outs = [np.zeros_like(v) for v in vals]
            requests = []
            for s, d in pairs:
                src_here, dst_here = lay.home[s] == lay.me, lay.home[d] == lay.me
                if src_here and dst_here:
                    outs[lay.slot[d]][...] = vals[lay.slot[s]]
                elif src_here:
                    requests.append(mpi.comm.Isend([_bytes(vals[lay.slot[s]]), mpi.MPI.BYTE],
                                                   dest=lay.home[d], tag=_PERMUTE_TAG + d))
                elif dst_here:
                    requests.append(mpi.comm.Irecv([_bytes(outs[lay.slot[d]]), mpi.MPI.BYTE],
                                                   source=lay.home[s], tag=_PERMUTE_TAG + d))
            mpi.MPI.Request.Waitall(requests)
            return outs
        return self._run("permute", x, combine, pairs)

    def subgroup(self, groups):
        return GatheredSubgroup(self, groups)


class GatheredSubgroup(Communicator):
    """This member's group of ``groups`` (axis_index_groups over an axis spanning
    processes): every collective allgathers the operands of the whole axis (every member
    runs it at the same step, each in its group) and keeps its group's, in the group's
    order. Moves size/group-size times the data of a split communicator, in exchange for
    needing none."""

    def __init__(self, parent, groups):
        g, k = group_position(groups, parent.rank)
        self.parent = parent
        self.group = parent.group
        self.ranks = list(groups[g])
        self.rank = k
        self.size = len(self.ranks)

    def __repr__(self):
        return f"GatheredSubgroup(ranks={self.ranks}, rank={self.rank})"

    def _rows(self, x):
        return self.parent.allgather(_contiguous(x))[self.ranks]

    def allreduce(self, x, op):
        return reduce_in_order(list(self._rows(x)), op)

    def allgather(self, x):
        return np.ascontiguousarray(self._rows(x))

    def reduce_scatter(self, x, op):
        if np.ndim(x) == 0 or np.shape(x)[0] != self.size:
            raise ValueError(f"reduce_scatter over a group of {self.size}: the operand's "
                             f"leading dim must be {self.size}, got shape {list(np.shape(x))}")
        return reduce_in_order([r[self.rank] for r in self._rows(x)], op)

    def alltoall(self, x):
        return np.ascontiguousarray(self._rows(x)[:, self.rank])

    def permute(self, x, pairs):
        rows = self._rows(x)
        src = {d: s for s, d in pairs}.get(self.rank)
        return np.zeros_like(np.asarray(x)) if src is None else np.array(rows[src])


def _contiguous(x):
    """``x`` as a C-contiguous NumPy array, 0-d kept 0-d (``np.ascontiguousarray`` makes
    it 1-d)."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else np.array(x, order="C")


def _copies(out, n):
    """The leader's result and n - 1 copies of it (one array per member)."""
    return [out] + [out.copy() for _ in range(n - 1)]
