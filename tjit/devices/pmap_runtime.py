"""Running one program per device on threads: the runtime under ``pmap``.

Device ``r > 0`` has a long-lived worker thread (starting a thread costs more than a
small collective); the calling thread runs device 0. The devices of one call form a
:class:`~tjit.devices.collectives.ThreadGroup`, and each runs with the axis name bound
to its member (``bind_axis``), so the collective steps of the compiled plan meet there.

Calls from several threads at once stay deadlock-free: jobs are handed to the workers
under one lock, so every worker sees the calls in the same order and a call's members
are never queued behind a later call's on some worker while waiting for it on another.
A device that raises aborts its group, which releases the others from any collective
they wait in; the lowest device's own error is raised (not the "aborted" of the others).
``run_bound`` does the same for a shard_map over a mesh of this process's devices (a
group per axis group, several names bound on each device).
"""

import queue
import threading

from tjit.devices.collectives import (
    CollectiveAborted,
    ThreadCommunicator,
    ThreadGroup,
    bind_axes,
    bind_axis,
)

_workers = []            # worker r - 1 serves device r
_running = threading.local()   # .program: this thread runs a device's program now
_submit_lock = threading.Lock()


def _worker_loop(jobs):
    while True:
        job = jobs.get()
        job()


def _worker(r):
    while len(_workers) < r:
        jobs = queue.SimpleQueue()
        t = threading.Thread(target=_worker_loop, args=(jobs,), daemon=True,
                             name=f"tjit-device-{len(_workers) + 1}")
        t.start()
        _workers.append(jobs)
    return _workers[r - 1]


def run_on_devices(run, per_device, axis_name, comms=None):
    """``run(*per_device[r])`` for every device ``r`` at once, each with ``axis_name``
    bound to its member of one thread group; or, for an axis that spans processes, to
    ``comms[r]`` (a list), or to the r-th of ``comms(group)`` (a function of the call's
    thread group: members of several devices per process, which meet on that group);
    returns the results in device order."""
    n = len(per_device)
    group = ThreadGroup(n, axis_name)
    comms = group.members() if comms is None else comms(group) if callable(comms) else comms

    def finish(r, failed):
        if failed:
            group.abort()
        else:
            group.member_done(r)
    return _run_all(run, per_device, lambda r: bind_axis(axis_name, comms[r]), finish)


def run_bound(run, per_device, bindings):
    """``run(*per_device[r])`` for every device ``r`` at once, each with the names of
    ``bindings[r]`` ({name or tuple of names: its communicator, whose ``group`` is the
    ThreadGroup of this process's devices it meets on}) bound: a shard_map over a mesh of
    this process's devices, one thread group per group of an axis."""
    def finish(r, failed):
        for comm in bindings[r].values():
            if failed:
                comm.group.abort()
            elif type(comm) is ThreadCommunicator:   # (its rank is its place in the group)
                comm.group.member_done(comm.rank)
    return _run_all(run, per_device, lambda r: bind_axes(bindings[r]), finish)


def _run_all(run, per_device, binding, finish):
    """The devices' programs on their threads: ``binding(r)`` is the context that binds
    device ``r``'s communicators, ``finish(r, failed)`` tells its groups it is done."""
    n = len(per_device)
    outs, errors = [None] * n, [None] * n
    done = [threading.Event() for _ in range(n)]

    def work(r):
        outer = getattr(_running, "program", False)
        _running.program = True
        try:
            with binding(r):
                outs[r] = run(*per_device[r])
            finish(r, False)
        except BaseException as e:  # noqa: BLE001 (reported below, after every device)
            errors[r] = e
            finish(r, True)
        finally:
            _running.program = outer
            done[r].set()

    # called from a device's program (a shard_map step inside pmap): the workers may be
    # busy running the devices that this call's caller waits for, so threads of its own
    nested = getattr(_running, "program", False)
    with _submit_lock:
        for r in range(1, n):
            if nested:
                threading.Thread(target=work, args=(r,), daemon=True).start()
            else:
                _worker(r).put(lambda r=r: work(r))
    work(0)
    for d in done:
        d.wait()
    real = [e for e in errors if e is not None and not isinstance(e, CollectiveAborted)]
    if real or any(e is not None for e in errors):
        raise (real or [e for e in errors if e is not None])[0]
    return outs
