"""The communicator of a named axis whose members are MPI processes.

:class:`MPICommunicator` implements the communicator that the compiled plan's collective
steps call (``tjit/devices/collectives.py``: ``allreduce``, ``allgather``,
``reduce_scatter``, ``alltoall``, ``permute``) with mpi4py's buffer-based calls —
``Allreduce``, ``Allgather``, ``Reduce_scatter_block``, ``Alltoall``, ``Sendrecv`` — from
the plan's NumPy buffers straight into a preallocated NumPy output: nothing is pickled,
and mpi4py releases the GIL for the time of the call.

Dtypes MPI has no arithmetic datatype for (bfloat16, bool) are gathered as bytes and
reduced here in rank order, as the in-process communicator does.

``TJIT_DISTRIBUTED_CHECKS=1`` (or ``checks=True``) makes every collective first compare
its operation, shape and dtype across the processes (one small ``Allgather``) and raise
the same :class:`DistributedError` on every process when they differ, rather than hang
or exchange mismatched buffers; a process that waits there more than
``TJIT_DISTRIBUTED_TIMEOUT`` seconds (default 300) for the others raises too (one of them
never came: it finished or took another branch).
"""

import functools
import os
import sys
import time

import numpy as np

from tjit.devices.collectives import Communicator, group_position, reduce_in_order
from tjit.distributed.runtime import DistributedError

_SIGNATURE_BYTES = 256


def checks_enabled():
    """Whether ``TJIT_DISTRIBUTED_CHECKS`` asks for the cross-process checks."""
    return os.environ.get("TJIT_DISTRIBUTED_CHECKS", "").strip() not in ("", "0", "false")


@functools.lru_cache(maxsize=None)
def _mpi_datatype(dtype):
    """MPI's predefined datatype for ``dtype`` (reductions are defined on those), or None
    where MPI has none or no arithmetic (bool): then bytes are moved."""
    from mpi4py import MPI
    if dtype == np.bool_ or not dtype.isbuiltin:
        return None
    return MPI._typedict.get(dtype.char)


class _OutputPool:
    """Output buffers handed out again once nothing but the pool refers to them (the
    program and the caller dropped the result), so a collective in a loop writes into
    memory already mapped instead of faulting in fresh pages every call, as a raw MPI
    loop over preallocated buffers does. CPython's reference count says when a buffer
    is free: views and Arrays of it hold references."""

    PER_KEY = 4

    def __init__(self):
        self.bufs = {}

    def empty(self, shape, dtype):
        key = (shape, dtype)   # (callers pass a shape tuple and a NumPy dtype)
        bufs = self.bufs.get(key)
        if bufs is None:
            bufs = self.bufs[key] = []
        for buf in bufs:
            if sys.getrefcount(buf) == 3:   # (the list, ``buf``, getrefcount's argument)
                return buf
        buf = np.empty(shape, dtype)
        if len(bufs) < self.PER_KEY:
            bufs.append(buf)
        return buf


def _bytes(a):
    """A contiguous array's memory as a flat uint8 view (0-d arrays included)."""
    return a.reshape(-1).view(np.uint8)


class MPICommunicator(Communicator):
    """One process's end of an MPI communicator, as the communicator of a named axis.

    Args:
      comm: the mpi4py intra-communicator whose ranks are the axis's members.
      name: the axis name (for messages).
      checks: compare shapes and dtypes across ranks before each collective (default:
        the ``TJIT_DISTRIBUTED_CHECKS`` environment variable).
    """

    def __init__(self, comm, name=None, checks=None):
        from mpi4py import MPI
        self.MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.name = name
        self.checks = checks_enabled() if checks is None else bool(checks)
        self.timeout = float(os.environ.get("TJIT_DISTRIBUTED_TIMEOUT", "") or 300)
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN}
        self._pool = _OutputPool()
        self._subgroups = {}     # axis_index_groups -> this process's group's communicator

    def __repr__(self):
        return f"MPICommunicator(axis={self.name!r}, rank={self.rank}, size={self.size})"

    # -- the collectives ---------------------------------------------------------------
    def allreduce(self, x, op):
        x = self._operand(x, "allreduce", op)
        dt = _mpi_datatype(x.dtype)
        if dt is None or (op != "sum" and np.iscomplexobj(x)):
            return reduce_in_order(self.allgather(x), op)
        out = self._pool.empty(x.shape, x.dtype)
        self.comm.Allreduce([x, dt], [out, dt], op=self._ops[op])
        return out

    def allgather(self, x):
        x = self._operand(x, "allgather")
        out = self._pool.empty((self.size,) + x.shape, x.dtype)
        dt = _mpi_datatype(x.dtype)
        if dt is None:
            self.comm.Allgather([_bytes(x), self.MPI.BYTE],
                                [_bytes(out), self.MPI.BYTE])
        else:
            self.comm.Allgather([x, dt], [out, dt])
        return out

    def reduce_scatter(self, x, op):
        x = self._operand(x, "reduce_scatter", op)
        self._leading(x, "reduce_scatter")
        dt = _mpi_datatype(x.dtype)
        if dt is None or (op != "sum" and np.iscomplexobj(x)):
            rows = self.alltoall(x)                  # row j: rank j's block for this rank
            return reduce_in_order(rows, op)
        out = self._pool.empty(x.shape[1:], x.dtype)
        self.comm.Reduce_scatter_block([x, dt], [out, dt], op=self._ops[op])
        return out

    def alltoall(self, x):
        x = self._operand(x, "alltoall")
        self._leading(x, "alltoall")
        out = self._pool.empty(x.shape, x.dtype)
        dt = _mpi_datatype(x.dtype)
        if dt is None:
            self.comm.Alltoall([_bytes(x), self.MPI.BYTE],
                               [_bytes(out), self.MPI.BYTE])
        else:
            self.comm.Alltoall([x, dt], [out, dt])
        return out

    def permute(self, x, pairs):
        x = self._operand(x, "permute", tuple(map(tuple, pairs)))
        dst = [d for s, d in pairs if s == self.rank]
        src = [s for s, d in pairs if d == self.rank]
        out = np.zeros_like(x)
        null = self.MPI.PROC_NULL
        self.comm.Sendrecv([_bytes(x), self.MPI.BYTE], dest=dst[0] if dst else null,
                           sendtag=17, recvbuf=[_bytes(out), self.MPI.BYTE],
                           source=src[0] if src else null, recvtag=17)
        return out

    def barrier(self):
        self.comm.Barrier()

    def subgroup(self, groups):
        """The communicator of this process's group of ``groups`` (axis_index_groups): an
        MPI ``Comm.Split`` made the first time (a collective over the axis, which every
        member reaches at the same step of the plan) and kept."""
        sub = self._subgroups.get(groups)
        if sub is None:
            g, k = group_position(groups, self.rank)
            sub = self._subgroups[groups] = MPICommunicator(
                self.comm.Split(g, k), name=f"{self.name}{[list(x) for x in groups]}",
                checks=self.checks)
        return sub

    # -- helpers -----------------------------------------------------------------------
    def _operand(self, x, what, extra=None):
        if type(x) is np.ndarray and x.flags.c_contiguous and not self.checks:
            return x    # (the plan's buffers: the common case, kept short)
        x = np.asarray(x)
        if not x.flags.c_contiguous:
            x = np.ascontiguousarray(x)   # (only when needed: it turns 0-d into 1-d)
        if self.checks:
            self._check_same(what, x, extra)
        return x

    def _leading(self, x, what):
        if x.ndim == 0 or x.shape[0] != self.size:
            raise DistributedError(
                f"{what} over axis {self.name!r}: the operand's leading dimension must be "
                f"the axis size {self.size}, got shape {x.shape}")

    def _wait(self, request, what):
        """Wait for ``request``, at most ``TJIT_DISTRIBUTED_TIMEOUT`` seconds (checks mode):
        a process that never reaches the collective (it returned, or took another branch)
        becomes an error here instead of a hang."""
        deadline = time.monotonic() + self.timeout
        pause = 1e-5
        while not request.Test():
            if time.monotonic() > deadline:
                raise DistributedError(
                    f"{what} over axis {self.name!r}: process {self.rank} waited "
                    f"{self.timeout:g} s for the other {self.size - 1} process(es) of the axis "
                    f"to reach this collective; at least one of them did not (it finished, "
                    f"raised, or runs other collectives); TJIT_DISTRIBUTED_TIMEOUT sets the "
                    f"wait (TJIT_DISTRIBUTED_CHECKS=1 found this)")
            time.sleep(pause)
            pause = min(pause * 2, 1e-3)

    def _check_same(self, what, x, extra):
        """Raise the same DistributedError on every rank unless all ranks call ``what``
        on operands of one shape and dtype (one small Allgather)."""
        sig = f"{what} {extra or ''} {x.dtype.name}{list(x.shape)}".encode()
        mine = np.zeros(_SIGNATURE_BYTES, np.uint8)
        mine[:min(len(sig), _SIGNATURE_BYTES)] = np.frombuffer(sig, np.uint8)[:_SIGNATURE_BYTES]
        every = np.empty((self.size, _SIGNATURE_BYTES), np.uint8)
        request = self.comm.Iallgather([mine, self.MPI.BYTE], [every, self.MPI.BYTE])
        self._wait(request, what)
        if (every == every[0]).all():
            return
        texts = [bytes(r).rstrip(b"\0").decode(errors="replace") for r in every]
        listing = "; ".join(f"rank {r}: {t}" for r, t in enumerate(texts))
        raise DistributedError(
            f"collective over axis {self.name!r}: the processes disagree on the operation "
            f"or its operand ({listing}); every process must run the same collectives on "
            f"arrays of the same shape and dtype (TJIT_DISTRIBUTED_CHECKS=1 found this)")
