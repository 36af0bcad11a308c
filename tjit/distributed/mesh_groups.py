"""The communicators of a ``shard_map`` mesh whose devices span several processes, this
process driving several of them (``TJIT_NUM_CPU_DEVICES=N`` under ``mpiexec -n P``, a mesh
of ``tjit.devices()`` reshaped to ``(P, N)``, ``(P * N,)``, ...).

A collective over mesh axes runs within a group: the devices that share the coordinates
along the other axes, ranked row-major over the named axes (shard_map's ``axis_group``).
Per group and per call, this process's devices in it meet on a ThreadGroup; a group that
also holds devices of other processes gets an MPI communicator over those processes
(``Comm.Split`` of the world, made once per mesh: splitting is a collective every process
makes in the same order) and its members compose hierarchically (``hierarchical.py``).
"""

from tjit.devices.collectives import ThreadGroup
from tjit.distributed import runtime
from tjit.distributed.hierarchical import HierarchicalGroup, ProcessBlocks
from tjit.distributed.mpi_communicator import MPICommunicator
from tjit.sharding import device_process_index


class _GroupPlan:
    """One group of one axis key that holds devices of this process: which of
    ``devices`` they are, in rank order, and (spanning processes) the MPI side."""

    def __init__(self, key, local, comm=None, layout=None):
        self.key = key
        self.local = local      # indices into the process's mesh devices, member order
        self.comm = comm        # MPICommunicator over the group's processes, or None
        self.layout = layout    # ProcessBlocks, or None (only this process's devices)

    def members(self):
        threads = ThreadGroup(len(self.local), str(self.key))
        if self.comm is None:
            return threads.members()
        return HierarchicalGroup(threads, self.comm, self.layout, self.key).members()


def mesh_communicators(mesh, devices, keys, axis_group):
    """Per device of ``devices`` (this process's devices of ``mesh``, in mesh order),
    ``{key: communicator}`` for every ``key`` (an axis name or tuple of names);
    ``axis_group(mesh, coords, axes)`` gives a device's ``(group, rank)``. The MPI
    communicators are made once per mesh (a collective of every process), the thread
    meetings per call."""
    rt = runtime.require("shard_map")
    plans = rt.mesh_groups.get((mesh, tuple(keys)))
    if plans is None:
        plans = rt.mesh_groups[(mesh, tuple(keys))] = _plan(rt, mesh, devices, keys,
                                                             axis_group)
    per_device = [{} for _ in devices]
    for plan in plans:
        for k, comm in zip(plan.local, plan.members()):
            per_device[k][plan.key] = comm
    return per_device


def _groups(mesh, axes, axis_group):
    """``{group: [(rank, process, device), ...] in rank order}`` for a collective over
    ``axes``."""
    out = {}
    for d in mesh.devices.flat:
        colour, rank = axis_group(mesh, mesh.coords(d), axes)
        out.setdefault(colour, []).append((rank, device_process_index(d), d))
    return {c: sorted(m, key=lambda t: t[0]) for c, m in out.items()}


def _plan(rt, mesh, devices, keys, axis_group):
    """Every group plan of this process (the MPI splits made here, in the same order in
    every process: keys as given, groups by index)."""
    me = rt.rank
    index = {d: k for k, d in enumerate(devices)}
    plans = []
    for key in keys:
        axes = key if isinstance(key, tuple) else (key,)
        for colour, members in sorted(_groups(mesh, axes, axis_group).items()):
            procs = list(dict.fromkeys(p for _, p, _ in members))   # by their first rank
            blocks = [[r for r, p, _ in members if p == q] for q in procs]
            layout = None
            if len(procs) > 1:
                layout = ProcessBlocks(blocks, procs.index(me) if me in procs else 0, key)
                _require_threads(rt, len(devices), key)
            comm = None
            if layout is not None:   # (every process takes part in the split)
                mpi_comm = rt.comm.Split(0 if me in procs else rt.MPI.UNDEFINED,
                                         procs.index(me) if me in procs else 0)
                if me in procs:
                    rt.sub_comms[("mesh_groups", mesh, key, colour)] = mpi_comm
                    comm = MPICommunicator(mpi_comm, name=key)
            if me in procs:
                local = [index[d] for _, p, d in members if p == me]
                plans.append(_GroupPlan(key, local, comm, layout))
    return plans


def _require_threads(rt, num_local, key):
    """Several devices of this process call MPI from their threads, groups of one axis
    at the same time: MPI must allow it."""
    if num_local > 1 and rt.MPI.Query_thread() < rt.MPI.THREAD_MULTIPLE:
        raise runtime.DistributedError(
            f"shard_map over axis {key!r}: this process drives {num_local} devices of a mesh "
            f"that spans processes, whose threads call MPI concurrently, but MPI was "
            f"initialized without MPI_THREAD_MULTIPLE (mpi4py.rc.thread_level = 'multiple' "
            f"before importing mpi4py.MPI, the default); or run one device per process")
