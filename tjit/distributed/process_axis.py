"""The communicators of a ``pmap`` axis that spans the devices of every process.

In a multi-process run, ``pmap`` maps over the devices of all processes (JAX's
multi-process pmap): each process passes its local slice (leading axis = its local device
count ``N``), the axis's size is the global device count ``P * N``, and a collective over
the axis reaches every process. Device ``i`` of process ``p`` is member ``p * N + i``
(``axis_index``), as in ``tjit.devices()``.

With one device per process its communicator is the processes' MPI communicator; with
several, each process's devices run on threads and their collectives compose
hierarchically (``hierarchical.py``: among the threads, then one MPI call per process).
"""

from tjit.devices.backend import local_device_count
from tjit.distributed import runtime
from tjit.distributed.hierarchical import HierarchicalGroup, ProcessBlocks
from tjit.distributed.mpi_communicator import MPICommunicator


def process_axis(name, num_local, backend=None, where="pmap"):
    """``(global axis size, communicators)`` for a pmap axis ``name`` over ``num_local``
    devices of each process; None in a one-process run (pmap then uses its threads'
    communicators). ``communicators`` is a list (one device per process) or a function
    of the call's ThreadGroup giving one communicator per local device.

    Raises ValueError unless ``num_local`` is this process's device count (every process
    must map all its devices, so that the processes agree on the axis)."""
    st = runtime.state()
    if st is None or st.size == 1:
        return None
    have = local_device_count(backend)
    if num_local != have:
        raise ValueError(
            f"{where}: in a run of {st.size} processes, pmap maps every device of every "
            f"process: each process passes its local slice, whose mapped axis must have "
            f"this process's local device count {have} (tjit.local_device_count()), got "
            f"{num_local}; the global axis then has size {st.size} * {have}")
    comm = st.pmap_comms.get(name)   # (kept: its output buffers are reused per call)
    if comm is None:
        comm = st.pmap_comms[name] = MPICommunicator(st.comm, name=name)
    if num_local == 1:
        return st.size, [comm]
    layout = ProcessBlocks([range(q * num_local, (q + 1) * num_local) for q in range(st.size)],
                           st.rank, name)
    return st.size * num_local, lambda threads: HierarchicalGroup(
        threads, comm, layout, name).members()
