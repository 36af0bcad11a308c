"""The multi-process runtime's state: which MPI communicator this process belongs to.

``initialize()`` binds tjit to MPI's world communicator (or an explicit one) once per
process; ``process_index()``/``process_count()`` read it, as ``jax.process_index()`` and
``jax.process_count()`` (0 and 1 before ``initialize()``, as in JAX). mpi4py is imported
only here and only by ``initialize()``: importing tjit never initializes MPI.

A process launched by ``mpiexec`` but never initialized is detected from the launcher's
environment (``launched_world_size``), so that a multi-process operation in it fails with
an error that says to call ``initialize()`` instead of quietly running as rank 0 of 1.
"""

import os
import threading

import numpy as np

from tjit.devices.backend import get_backend, local_devices, set_process_layout
from tjit.distributed import faults

_LOCK = threading.Lock()
_STATE = None   # the _Runtime of this process once initialize() ran

#: Environment variables through which launchers announce the world size
#: (MPICH/Hydra's PMI, Open MPI, PMIx, Slurm's srun).
_WORLD_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "SLURM_NTASKS")
_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID")

INSTALL_HINT = 'install MPI for Python with: pip install "tjit[mpi]" (mpi4py and mpich)'


class DistributedError(RuntimeError):
    """A multi-process operation that cannot run: not initialized, initialized twice,
    ranks that disagree on a collective, a mesh that does not match the processes."""


class _Runtime:
    """This process's place among the processes: the MPI communicator and its rank."""

    def __init__(self, comm, mpi):
        self.comm = comm.Dup()     # (tjit's messages never mix with the program's own)
        self.MPI = mpi
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.sub_comms = {}                  # colour key -> split communicator
        self.pmap_comms = {}                 # pmap axis name -> its MPICommunicator
        self.mesh_tables = {}                # Mesh -> its axes' CommunicatorTable (shard_map)
        self.mesh_groups = {}                # (Mesh, axis keys) -> this process's groups'
        #                                      plans (several devices per process)


def _import_mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f"tjit.distributed.initialize() needs mpi4py ({e}); "
                          f"{INSTALL_HINT}") from None
    return MPI


def initialize(communicator=None, *, num_processes=None, process_id=None,
               coordinator_address=None):
    """Join this process to a multi-process run, as ``jax.distributed.initialize()``.

    Args:
      communicator: an mpi4py communicator whose processes take part (default: MPI's
        world communicator, i.e. every process that ``mpiexec -n N`` started).
      num_processes, process_id: JAX's arguments; MPI's launcher decides both, so when
        given they are checked against the communicator's size and this process's rank.
      coordinator_address: JAX's coordinator; MPI needs none (its launcher connects the
        processes), so giving one is an error that says how to launch.

    Afterwards ``tjit.process_index()``/``tjit.process_count()`` are this process's rank
    and the communicator's size, collectives over a mesh of processes (``shard_map``,
    ``pmap``) run on MPI, and an uncaught exception in any process ends all of them with
    that process's message (MPI abort) instead of leaving the others waiting.

    Raises:
      DistributedError: when called a second time without ``shutdown()`` in between.
      ImportError: when mpi4py is not installed.
    """
    global _STATE
    with _LOCK:
        if _STATE is not None:
            raise DistributedError(
                f"tjit.distributed.initialize() was already called in this process (rank "
                f"{_STATE.rank} of {_STATE.size}); call it once per process, or "
                f"tjit.distributed.shutdown() first to initialize again")
        mpi = _import_mpi()
        if communicator is None:
            communicator = mpi.COMM_WORLD
        elif not isinstance(communicator, mpi.Comm) or not isinstance(
                communicator, mpi.Intracomm):
            raise TypeError(
                f"tjit.distributed.initialize: communicator must be an mpi4py intra-"
                f"communicator (e.g. MPI.COMM_WORLD or a Split of it), got "
                f"{type(communicator).__name__}")
        if coordinator_address is not None:
            raise ValueError(
                f"tjit.distributed.initialize: coordinator_address={coordinator_address!r} "
                f"is not used: tjit's processes find each other through MPI; start them "
                f"with mpiexec (mpiexec -n 4 python train.py) and call initialize() "
                f"without it")
        rank, size = communicator.Get_rank(), communicator.Get_size()
        if (num_processes is not None and num_processes != size) or (
                process_id is not None and process_id != rank):
            raise ValueError(
                f"tjit.distributed.initialize: num_processes={num_processes}, process_id="
                f"{process_id} but MPI started this process as rank {rank} of {size}; "
                f"launch with mpiexec -n {num_processes or size}, or leave them out")
        st = _Runtime(communicator, mpi)
        _check_same_local_device_count(st)
        _STATE = st
        set_process_layout(st.rank, st.size)   # tjit.devices(): every process's
        if st.size > 1:
            faults.install_abort_hook(st.comm, st.rank, st.size)


def _check_same_local_device_count(st):
    """Every process must drive as many devices (the global list numbers them
    process by process)."""
    mine = np.array([len(local_devices())], np.int64)
    every = np.empty(st.size, np.int64)
    st.comm.Allgather(mine, every)
    if len(set(every.tolist())) > 1:
        raise DistributedError(
            f"tjit.distributed.initialize: the processes drive different numbers of local "
            f"devices ({dict(enumerate(every.tolist()))} by process); give every process "
            f"the same TJIT_NUM_CPU_DEVICES")


def is_initialized():
    """Whether ``initialize()`` ran in this process (and ``shutdown()`` has not)."""
    return _STATE is not None


def shutdown():
    """Leave the multi-process run: drop tjit's communicators and restore the exception
    hook. MPI itself is finalized by mpi4py when the process exits. A no-op when not
    initialized, as ``jax.distributed.shutdown()``."""
    global _STATE
    with _LOCK:
        if _STATE is None:
            return
        for sub in _STATE.sub_comms.values():
            sub.Free()
        _STATE.comm.Free()
        faults.remove_abort_hook()
        set_process_layout(None, None)
        _STATE = None


def process_index(backend=None):
    """This process's index among the processes (its MPI rank); 0 before
    ``initialize()``. ``backend`` (JAX's, a name such as 'cpu') must be one that runs
    here; every backend of a process has its index."""
    _check_backend(backend)
    return _STATE.rank if _STATE is not None else 0


def process_count(backend=None):
    """The number of processes (the communicator's size); 1 before ``initialize()``.
    ``backend`` as :func:`process_index`'s."""
    _check_backend(backend)
    return _STATE.size if _STATE is not None else 1


def _check_backend(backend):
    if backend is not None:
        get_backend(backend)   # raises naming the backends there are


def launched_world_size():
    """The number of processes the launcher (mpiexec, srun) started, from its
    environment; 1 when this process was not started by one."""
    for var in _WORLD_SIZE_VARS:
        v = os.environ.get(var)
        if v and v.isdigit():
            return int(v)
    return 1


def _launched_rank():
    for var in _RANK_VARS:
        v = os.environ.get(var)
        if v and v.isdigit():
            return int(v)
    return 0


def require(what):
    """The runtime, for an operation ``what`` that needs the processes to talk. Before
    ``initialize()`` in a process that mpiexec started as one of several: a
    DistributedError saying to call ``initialize()``. Not launched as several processes
    and not initialized: None (a one-process run)."""
    if _STATE is not None:
        return _STATE
    n = launched_world_size()
    if n > 1:
        raise DistributedError(
            f"{what} needs the processes of this run to communicate, but "
            f"tjit.distributed.initialize() was not called: this process was started as "
            f"rank {_launched_rank()} of {n} (by mpiexec or srun); call "
            f"tjit.distributed.initialize() once at the start of the program, in every "
            f"process")
    return None


def state():
    """The runtime of this process, or None before ``initialize()``."""
    return _STATE


def split(layout, colour, key):
    """The communicator of the processes that pass the same ``colour``, ranked by
    ``key``: an MPI ``Comm.Split`` of the world, made once per ``layout`` (a hashable
    that every process computes alike, e.g. a mesh and axis) and kept, since splitting is
    itself a collective over every process."""
    st = _STATE
    comm = st.sub_comms.get(layout)
    if comm is None:
        comm = st.comm.Split(colour, key)
        st.sub_comms[layout] = comm
    return comm
