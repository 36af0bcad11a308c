"""The communicators of a ``pmap`` axis that spans the devices of every process.

In a multi-process run, ``pmap`` maps over the devices of all processes (JAX's
multi-process pmap): each process passes its local slice (leading axis = its local device
count), the axis's size is the global device count, and a collective over the axis
reaches every process. :func:`process_axis` gives pmap what it needs for that: the global
size and one communicator per local device, whose rank is that device's global index.
"""

from tjit.distributed import runtime
from tjit.distributed.mpi_communicator import MPICommunicator


def process_axis(name, num_local):
    """``(global axis size, [communicator per local device])`` for a pmap axis ``name``
    over ``num_local`` devices of each process; None in a one-process run (pmap then
    uses its threads' communicators).

    Raises NotImplementedError for several devices per process (run one process per
    device with mpiexec)."""
    st = runtime.state()
    if st is None or st.size == 1:
        return None
    if num_local != 1:
        raise NotImplementedError(
            f"pmap over {num_local} devices of each of {st.size} processes: across "
            f"processes pmap maps one device per process; launch one process per device "
            f"(mpiexec -n {st.size * num_local}) without TJIT_NUM_CPU_DEVICES")
    comm = st.pmap_comms.get(name)   # (kept: its output buffers are reused per call)
    if comm is None:
        comm = st.pmap_comms[name] = MPICommunicator(st.comm, name=name)
    return st.size, [comm]
