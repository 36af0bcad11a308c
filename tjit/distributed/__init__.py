"""Multi-process runs on MPI, as ``jax.distributed``.

Launch one Python process per rank with MPI's launcher and call :func:`initialize` once
at the start of the program, in every process::

    mpiexec -n 4 python train.py

    import tjit
    tjit.distributed.initialize()          # MPI's world communicator
    tjit.process_index(), tjit.process_count()   # this process's rank, the number of ranks

Collectives over a mesh of processes (``tjit.shard_map``) then run as MPI calls on the
compiled program's buffers (:class:`MPICommunicator`). MPI comes from PyPI:
``pip install "tjit[mpi]"`` (mpi4py and the mpich wheel, which brings ``mpiexec``).

Modules: ``runtime`` (the process's communicator, initialize/shutdown, errors),
``faults`` (an uncaught exception aborts every process), ``mpi_communicator`` (the
collectives on MPI), ``devices`` (every process's devices), ``arrays`` (GlobalArray,
make_array_from_process_local_data, process_allgather), ``process_axis`` (pmap's axis
over every process's devices), ``hierarchical`` (collectives over several devices per
process: threads, then MPI), ``mesh_groups`` (shard_map's groups of such a mesh).
"""

# (order: tjit.sharding uses runtime and devices, and arrays uses tjit.sharding)
from tjit.distributed.runtime import (  # noqa: F401
    DistributedError, initialize, is_initialized, shutdown, process_index, process_count)
from tjit.distributed.mpi_communicator import MPICommunicator  # noqa: F401
from tjit.distributed.devices import global_devices  # noqa: F401
from tjit.distributed.arrays import (  # noqa: F401
    GlobalArray, make_array_from_process_local_data, process_allgather)

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), submodules=(), entry_points=False)  # tab completion lists the public API only
