"""How many CPUs this process may actually use: the default size of tjit's thread pool.

``os.cpu_count()`` counts the machine's CPUs. A process pinned to fewer (``taskset``,
a container's cpuset) or given a CPU quota (``docker --cpus=2``, a Kubernetes CPU limit:
a cgroup's ``cpu.max`` or ``cpu.cfs_quota_us``) can run fewer threads at once; more
workers than that only queue behind each other (and under a quota, burn it sooner, so
that the whole group is throttled until the next period). The budget is the smallest
of the three counts, as JAX's CPU client sizes its pool from the affinity mask.

Read once per process (it reads files and makes a syscall); ``$TJIT_NUM_THREADS``
overrides it (``threads.default_num_threads``).
"""

import functools
import math
import os

__all__ = ["available_cpus", "cgroup_cpu_limit"]

_CGROUP_ROOT = "/sys/fs/cgroup"


@functools.cache
def available_cpus():
    """CPUs this process may use at once (>= 1): the machine's count, narrowed by the
    CPU affinity mask and a cgroup CPU quota where there are such."""
    n = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        try:
            n = min(n, len(os.sched_getaffinity(0)) or n)
        except OSError:
            pass
    limit = cgroup_cpu_limit()
    if limit is not None:
        n = min(n, max(1, math.ceil(limit)))
    return max(1, n)


def cgroup_cpu_limit(proc_cgroup="/proc/self/cgroup", root=_CGROUP_ROOT):
    """The CPU quota of this process's cgroup in CPUs (quota / period, the smallest
    over the group and its ancestors), or None when there is none or it cannot be
    read (not Linux, no cgroup file system)."""
    try:
        with open(proc_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":                    # cgroup v2 (the unified hierarchy)
            limits += _walk(root, path, _v2_limit)
        elif "cpu" in controllers.split(","):    # cgroup v1's cpu controller
            for mount in (os.path.join(root, controllers), os.path.join(root, "cpu"),
                          os.path.join(root, "cpu,cpuacct")):
                if os.path.isdir(mount):
                    limits += _walk(mount, path, _v1_limit)
                    break
    return min(limits) if limits else None


def _walk(mount, path, read_limit):
    """Limits found in the group's folder and its ancestors under ``mount``. Inside a
    container the path names the host's hierarchy while the mount shows the
    container's own group at its root: folders that do not exist are skipped, and the
    mount's root is read last."""
    found, rel = [], path.strip("/")
    while True:
        folder = os.path.join(mount, rel) if rel else mount
        if os.path.isdir(folder):
            limit = read_limit(folder)
            if limit is not None:
                found.append(limit)
        if not rel:
            return found
        rel = os.path.dirname(rel)


def _read(path):
    try:
        with open(path) as f:
            return f.read().split()
    except OSError:
        return None


def _v2_limit(folder):
    words = _read(os.path.join(folder, "cpu.max"))   # "max 100000" or "150000 100000"
    if not words or words[0] == "max":
        return None
    return _ratio(words[0], words[1] if len(words) > 1 else "100000")


def _v1_limit(folder):
    quota = _read(os.path.join(folder, "cpu.cfs_quota_us"))    # -1: no quota
    period = _read(os.path.join(folder, "cpu.cfs_period_us"))
    if not quota or not period:
        return None
    return _ratio(quota[0], period[0])


def _ratio(quota, period):
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None
