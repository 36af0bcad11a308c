"""The hierarchical collectives (several devices per process) without MPI: the processes'
level is a stand-in, a ThreadCommunicator between the "processes'" leader threads (the
interface MPICommunicator implements), so every layout of ranks over processes runs in one
Python process. Checked against NumPy, for layouts whose ranks are contiguous per process
(pmap) and interleaved or listed out of order (mesh axis tuples such as ('local',
'proc')). ppermute's point-to-point messages need MPI: tests/distributed's launches."""

import threading

import numpy as np
import pytest

from tjit.devices.collectives import CollectiveAborted, ThreadGroup
from tjit.distributed import DistributedError
from tjit.distributed.hierarchical import HierarchicalGroup, ProcessBlocks

LAYOUTS = [[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[3, 1], [0, 2]], [[2, 0, 4], [5, 1, 3]],
           [[1], [0], [2]]]


def _run(blocks, op):
    """``op(communicator, rank)`` on every member of the layout at once; {rank: result}."""
    level = ThreadGroup(len(blocks), "processes")
    procs = level.members()
    members = [HierarchicalGroup(ThreadGroup(len(b), "local"), procs[q], ProcessBlocks(
        blocks, q, "i"), "i").members() for q, b in enumerate(blocks)]
    out, errors = {}, []

    def work(comm):
        try:
            out[comm.rank] = op(comm, comm.rank)
        except BaseException as e:  # noqa: BLE001 (reported by the test)
            errors.append(e)
            for ms in members:      # (what MPI_Abort does to the other processes)
                ms[0].group.abort()
            level.abort()
    threads = [threading.Thread(target=work, args=(c,), daemon=True)
               for ms in members for c in ms]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a member hung"
    real = [e for e in errors if not isinstance(e, CollectiveAborted)]
    if errors:
        raise (real or errors)[0]
    return out


@pytest.mark.parametrize("blocks", LAYOUTS, ids=str)
def test_collectives_against_numpy(blocks):
    S = sum(len(b) for b in blocks)
    X = np.random.default_rng(S).standard_normal((S, S, 3)).astype(np.float32)
    X64 = X.astype(np.float64)
    got = _run(blocks, lambda c, r: [c.allreduce(X[r], "sum"), c.allreduce(X[r], "max"),
                                     c.allgather(X[r]), c.reduce_scatter(X[r], "sum"),
                                     c.alltoall(X[r]), c.rank, c.size])
    assert sorted(got) == list(range(S))
    for r, (total, top, gathered, scattered, swapped, rank, size) in got.items():
        assert (rank, size) == (r, S)
        np.testing.assert_allclose(total, X64.sum(0), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(top, X.max(0))
        np.testing.assert_array_equal(gathered, X)
        np.testing.assert_allclose(scattered, X64.sum(0)[r], rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(swapped, X[:, r])     # y[j] = member j's x[r]
    # every member owns its result (a compiled plan may write into it)
    assert len({id(v[0]) for v in got.values()}) == S


@pytest.mark.parametrize("blocks", LAYOUTS[:3], ids=str)
def test_axis_index_groups_against_numpy(blocks):
    groups = ((0, 3), (2, 1))
    X = np.random.default_rng(1).standard_normal((4, 2, 5)).astype(np.float32)

    def op(c, r):
        sub = c.subgroup(groups)
        return [sub.rank, sub.allreduce(X[r], "sum"), sub.allgather(X[r]),
                sub.reduce_scatter(X[r], "sum"), sub.alltoall(X[r])]
    got = _run(blocks, op)
    for r, (k, total, gathered, scattered, swapped) in got.items():
        g = next(g for g in groups if r in g)
        assert k == g.index(r)
        np.testing.assert_allclose(total, X[list(g)].sum(0), rtol=1e-6)
        np.testing.assert_array_equal(gathered, X[list(g)])
        np.testing.assert_allclose(scattered, X[list(g), k].sum(0), rtol=1e-6)
        np.testing.assert_array_equal(swapped, X[list(g), k])


def test_uneven_and_wrong_layouts_are_errors():
    with pytest.raises(DistributedError, match=r"unevenly.*\[2, 1\]"):
        ProcessBlocks([[0, 1], [2]], 0, "i")
    with pytest.raises(DistributedError, match="each once"):
        ProcessBlocks([[0, 1], [1, 2]], 0, "i")


def test_members_disagreeing_in_a_process_raise_not_hang():
    def op(c, r):
        return c.allreduce(np.zeros(3 if r != 1 else 4, np.float32), "sum")
    with pytest.raises(ValueError, match=r"members disagree.*float32\[4\]"):
        _run([[0, 1], [2, 3]], op)
