"""One process failing must not leave the others waiting forever in a collective.

``initialize()`` (with more than one process) installs an exception hook: an uncaught
exception in any process prints its traceback, prefixed with the process's rank, and
calls ``MPI_Abort``, which makes the launcher end every process of the run. Without it a
process that died before a collective would leave the others blocked in it, since MPI
has no timeout. The previous hook comes back on ``shutdown()``.
"""

import sys
import traceback

_PREVIOUS = None


def abort_message(rank, size, exc_type, exc, tb):
    """The text a failing process prints before it aborts the run."""
    head = (f"tjit.distributed: process {rank} of {size} raised "
            f"{exc_type.__name__}: {exc}; aborting all {size} processes (MPI_Abort)\n")
    body = "".join(traceback.format_exception(exc_type, exc, tb))
    return head + "".join(f"[rank {rank}] {line}\n" for line in body.splitlines())


def install_abort_hook(comm, rank, size):
    """Make an uncaught exception in this process abort every process of ``comm``."""
    global _PREVIOUS
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        try:
            sys.stderr.write(abort_message(rank, size, exc_type, exc, tb))
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            comm.Abort(1)

    _PREVIOUS = previous
    sys.excepthook = hook


def remove_abort_hook():
    """Put back the exception hook that ``install_abort_hook`` replaced."""
    global _PREVIOUS
    if _PREVIOUS is not None:
        sys.excepthook = _PREVIOUS
        _PREVIOUS = None
