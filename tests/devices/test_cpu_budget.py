"""The CPUs a process may use (affinity mask, cgroup quota) size the default thread pool;
with a budget of one CPU, or a pool larger than the budget, work still completes with
the interpreter's bits."""

import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import cpu_budget, threads


def _tree(tmp_path, proc_line, files):
    """A fake /proc/self/cgroup with one line and a fake cgroup mount with ``files``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "proc_cgroup"
    proc.write_text(proc_line + "\n")
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    root.mkdir(exist_ok=True)
    return str(proc), str(root)


def test_v2_quota_is_the_smallest_over_the_ancestors(tmp_path):
    proc, root = _tree(tmp_path, "0::/a/b", {"a/b/cpu.max": "150000 100000",
                                             "a/cpu.max": "50000 100000",
                                             "cpu.max": "max 100000"})
    assert cgroup_limit(proc, root) == 0.5


def test_v2_without_quota(tmp_path):
    proc, root = _tree(tmp_path, "0::/a", {"a/cpu.max": "max 100000"})
    assert cgroup_limit(proc, root) is None


def test_v2_inside_a_container_reads_the_mount_root(tmp_path):
    # the path names the host's hierarchy; the container sees its own group at the root
    proc, root = _tree(tmp_path, "0::/kubepods/pod1/abc", {"cpu.max": "200000 100000"})
    assert cgroup_limit(proc, root) == 2.0


def test_v1_cpu_controller(tmp_path):
    proc, root = _tree(tmp_path, "4:cpu,cpuacct:/grp",
                       {"cpu,cpuacct/grp/cpu.cfs_quota_us": "300000",
                        "cpu,cpuacct/grp/cpu.cfs_period_us": "100000"})
    assert cgroup_limit(proc, root) == 3.0
    proc, root = _tree(tmp_path / "none", "4:cpu,cpuacct:/grp",
                       {"cpu,cpuacct/grp/cpu.cfs_quota_us": "-1",
                        "cpu,cpuacct/grp/cpu.cfs_period_us": "100000"})
    assert cgroup_limit(proc, root) is None


def test_unreadable_or_odd_files_mean_no_limit(tmp_path):
    assert cgroup_limit(str(tmp_path / "missing"), str(tmp_path)) is None
    proc, root = _tree(tmp_path, "0::/a", {"a/cpu.max": "lots 100000"})
    assert cgroup_limit(proc, root) is None
    proc, root = _tree(tmp_path / "z", "0::/a", {"a/cpu.max": "0 100000"})
    assert cgroup_limit(proc, root) is None


def cgroup_limit(proc, root):
    return cpu_budget.cgroup_cpu_limit(proc_cgroup=proc, root=root)


@pytest.fixture
def budget(monkeypatch):
    """Set the machine's CPU count, affinity mask and quota that available_cpus sees."""
    def set_budget(cpus, affinity, quota):
        monkeypatch.setattr(cpu_budget.os, "cpu_count", lambda: cpus)
        monkeypatch.setattr(cpu_budget.os, "sched_getaffinity", lambda pid: set(range(affinity)),
                            raising=False)
        monkeypatch.setattr(cpu_budget, "cgroup_cpu_limit", lambda: quota)
        cpu_budget.available_cpus.cache_clear()
    yield set_budget
    cpu_budget.available_cpus.cache_clear()


@pytest.mark.parametrize("cpus, affinity, quota, want", [
    (8, 8, None, 8), (8, 1, None, 1), (8, 8, 2.5, 3), (8, 3, 0.5, 1), (2, 2, 16.0, 2)])
def test_available_cpus(budget, cpus, affinity, quota, want):
    budget(cpus, affinity, quota)
    assert cpu_budget.available_cpus() == want


def test_default_thread_count_follows_the_budget(budget, monkeypatch):
    monkeypatch.delenv("TJIT_NUM_THREADS", raising=False)
    budget(8, 1, None)
    monkeypatch.setattr(threads, "_parsed", (object(), None))  # (re-parse the unset value)
    assert threads.default_num_threads() == 1
    monkeypatch.setenv("TJIT_NUM_THREADS", "3")               # the variable still wins
    assert threads.default_num_threads() == 3


def _program(x):
    return jnp.sum(jnp.sin(x) * jnp.exp(-x * x), axis=1) + jnp.cos(x[:, 0])


def _pinned_run(nthreads, x, out):
    """Run the split program with ``nthreads`` threads on one CPU: this thread is pinned
    to it, and so are the pool's workers, which it starts (threads inherit the mask)."""
    if hasattr(threads.os, "sched_setaffinity"):
        threads.os.sched_setaffinity(0, {min(threads.os.sched_getaffinity(0))})
    pool = threads.get_pool(nthreads)
    try:
        out[nthreads] = np.asarray(tjit.jit(_program)(x))
        out[f"split {nthreads}"] = pool._workers is not None   # (a call was split)
    finally:
        threads.get_pool(nthreads).close()   # (no pinned workers left for later tests)


def test_more_threads_than_cpus_completes_with_the_same_bits(monkeypatch):
    # 6 threads on one CPU (a pool larger than the budget, the others' jobs running
    # too): every block is done, none waits forever; the blocks, hence the bits, are
    # those of one thread
    x = np.random.default_rng(3).standard_normal((4096, 160)).astype(np.float32)
    want = np.asarray(tjit.jit(_program, backend="interpreter")(x))
    out = {}
    for n in (6, 1):
        monkeypatch.setenv("TJIT_NUM_THREADS", str(n))
        t = threading.Thread(target=_pinned_run, args=(n, x, out), daemon=True)
        t.start()
        t.join(timeout=120)
        assert not t.is_alive(), f"{n} threads on one CPU did not finish in 120 s"
    assert out["split 6"] and not out["split 1"]
    np.testing.assert_allclose(out[6], want, rtol=2e-5, atol=2e-5)
    np.testing.assert_array_equal(out[6], out[1])
