"""tjit.distributed's runtime: initialize and its errors, process index/count, global
arrays from process-local data, gathering them, and what happens when processes fail or
disagree. Multi-process checks run under ``mpiexec -n 2`` (one launch for many checks)."""

import numpy as np
import pytest

from tests.distributed.mpi_harness import launch, requires_mpi, results


def test_sharding_layouts_against_numpy_slicing():
    import tjit
    from tjit.devices.backend import Device
    from tjit.sharding import Mesh, NamedSharding, P
    devs = [Device("cpu", i) for i in range(4)]
    mesh = Mesh(np.array(devs, dtype=object).reshape(2, 2), ("data", "model"))
    assert mesh.shape == {"data": 2, "model": 2} and mesh.size == 4
    x = np.arange(48.0).reshape(4, 12)
    s = NamedSharding(mesh, P("data", "model"))
    assert s.shard_shape(x.shape) == (2, 6)
    blocks = {d: x[idx] for d, idx in s.devices_indices_map(x.shape).items()}
    # device (i, j) of the mesh holds row block i and column block j
    np.testing.assert_array_equal(blocks[devs[1]], x[0:2, 6:12])
    np.testing.assert_array_equal(blocks[devs[2]], x[2:4, 0:6])
    both = NamedSharding(mesh, P(("data", "model")))   # dim 0 over both axes, row-major
    assert [both.devices_indices_map((8,))[d][0].start for d in devs] == [0, 2, 4, 6]
    assert NamedSharding(mesh, P()).is_fully_replicated
    # different specs of one layout: unequal (JAX 0.10 compares specs), equivalent
    assert NamedSharding(mesh, P("data")) != NamedSharding(mesh, P("data", None))
    assert NamedSharding(mesh, P("data")).is_equivalent_to(
        NamedSharding(mesh, P("data", None)), 2)
    assert not NamedSharding(mesh, P("data")).is_equivalent_to(
        NamedSharding(mesh, P("model")), 2)
    with pytest.raises(ValueError, match="not an axis of Mesh"):
        NamedSharding(mesh, P("batch"))
    with pytest.raises(ValueError, match="more than once"):
        NamedSharding(mesh, P("data", "data"))
    with pytest.raises(ValueError, match="does not divide into 2 equal blocks"):
        s.shard_shape((3, 12))
    with pytest.raises(ValueError, match="one name per dimension"):
        Mesh(devs, ("a", "b"))
    with pytest.raises(ValueError, match="needs 2 devices"):
        tjit.make_mesh((2,), ("a",), devices=devs[:1])


def test_one_process_global_arrays_without_initialize():
    """A one-process run needs no initialize(): the helpers work on the local device."""
    import tjit
    from tjit.distributed import make_array_from_process_local_data, process_allgather
    from tjit.sharding import NamedSharding, P
    mesh = tjit.make_mesh((1,), ("data",))
    x = np.arange(6.0).reshape(3, 2)
    g = make_array_from_process_local_data(NamedSharding(mesh, P("data")), x)
    assert g.shape == (3, 2) and g.is_fully_addressable
    np.testing.assert_array_equal(np.asarray(g), x)
    np.testing.assert_array_equal(process_allgather(g), x)
    np.testing.assert_array_equal(process_allgather(x), x[None])


_RUNTIME_SCRIPT = '''
import os
import tjit, tjit.distributed as td
from tjit.distributed import make_array_from_process_local_data, process_allgather
from tjit.sharding import NamedSharding, P, Mesh
rank = int(os.environ["PMI_RANK"])
errs = {}
try:
    process_allgather(np.ones(2))
except td.DistributedError as e:
    errs["before"] = str(e)
try:
    tjit.shard_map(lambda b: b, Mesh(np.array(tjit.devices()), ("i",)), in_specs=P("i"),
                   out_specs=P("i"))(np.ones(2))
except td.DistributedError as e:
    errs["shard_map_before"] = str(e)
report(rank=rank, before_index=tjit.process_index(), before_count=tjit.process_count(),
       initialized_before=td.is_initialized())
for kw in ({"num_processes": 3}, {"process_id": 1 - rank}, {"coordinator_address": "h:1"}):
    try:
        td.initialize(**kw)
    except ValueError as e:
        errs.setdefault("jax_args", []).append(str(e))
td.initialize(num_processes=2, process_id=rank)
try:
    td.initialize()
except td.DistributedError as e:
    errs["twice"] = str(e)
from tjit.distributed.devices import global_devices, global_local_devices
report(rank=rank, index=tjit.process_index(), count=tjit.process_count(), errs=errs,
       global_ids=[d.id for d in global_devices()],
       local_ids=[d.id for d in global_local_devices()],
       processes=[d.process_index for d in global_devices()])
# tjit.devices() is every process's, tjit.local_devices() this process's (as in JAX)
mine, other = tjit.local_devices()[0], tjit.devices()[1 - rank]
try:
    tjit.jit(lambda v: v + 1, device=other)(np.ones(2))
except ValueError as e:
    errs["other_device"] = str(e)
report(rank=rank, devices=[(d.id, d.process_index) for d in tjit.devices()],
       local_devices=[(d.id, d.process_index) for d in tjit.local_devices()],
       counts=(tjit.device_count(), tjit.local_device_count()),
       local_in_global=mine in tjit.devices(), repr_=repr(mine),
       on_mine=tjit.jit(lambda v: v + 1, device=mine)(np.ones(2)), errs=errs)
# a global array: rank r holds rows [3r, 3r + 3) of a (6, 2) array
mesh = tjit.make_mesh((2,), ("data",))
x = np.arange(12.0).reshape(6, 2)
g = make_array_from_process_local_data(NamedSharding(mesh, P("data")), x[3 * rank:3 * rank + 3])
rep = make_array_from_process_local_data(NamedSharding(mesh, P()), x)
try:
    np.asarray(g)
except TypeError as e:
    errs["asarray"] = str(e)
report(rank=rank, g_shape=g.shape, whole=process_allgather(g), rep=np.asarray(rep),
       stacked=process_allgather(np.array([rank, 10 + rank])),
       tiled=process_allgather(np.array([rank, 10 + rank]), tiled=True), errs=errs)
# TJIT_DISTRIBUTED_CHECKS=1: ranks disagreeing on a collective's operand fail alike
comm = td.MPICommunicator(td.runtime.state().comm, name="data", checks=True)
try:
    comm.allreduce(np.ones(rank + 2, np.float32), "sum")
except td.DistributedError as e:
    errs["mismatch"] = str(e)
try:
    comm.allgather(np.ones(3, np.float32 if rank == 0 else np.float64))
except td.DistributedError as e:
    errs["dtype"] = str(e)
# every dtype: MPI's own datatypes, and bytes + rank-order reduction where MPI has none
def member_data(r, dtype):
    v = np.random.default_rng(r).standard_normal((2, 3)) * 4
    return (v > 0) if dtype == "bool" else (v + 1j * v if "complex" in dtype else v).astype(dtype)
dt_results = {}
for dtype in ["float32", "float64", "float16", "int32", "int64", "int8", "complex64", "bool"]:
    x = member_data(rank, dtype)
    as_pairs = lambda a: np.asarray(a).astype(np.complex128).view(np.float64).tolist()
    dt_results[dtype] = {"allgather": as_pairs(comm.allgather(x)),
                         "alltoall": as_pairs(comm.alltoall(x)),
                         "permute": as_pairs(comm.permute(x, [(0, 1), (1, 0)]))}
    if dtype != "bool":
        for op in ("sum", "max", "min") if dtype != "complex64" else ("sum",):
            y = comm.allreduce(x, op)
            z = comm.reduce_scatter(x, op)
            dt_results[dtype][op] = [as_pairs(y), as_pairs(z), y.dtype.name]
report(rank=rank, dt_results=dt_results)
# output buffers are reused only once nothing refers to them
r1 = comm.allreduce(np.full(5, rank + 1.0, np.float32), "sum")
r2 = comm.allreduce(np.full(5, 10.0, np.float32), "sum")
reused_while_alive = r2 is r1
r1_after = r1.copy()
buf_ids = {id(r1), id(r2)}
del r1, r2
r3 = comm.allreduce(np.full(5, 1.0, np.float32), "sum")
report(rank=rank, reused_while_alive=reused_while_alive, r1_after=r1_after,
       reused_after_release=id(r3) in buf_ids, r3=r3)
# ... and through shard_map: each process brings a batch of another size
local = np.ones((2 + rank, 3), np.float32)
xs = make_array_from_process_local_data(NamedSharding(mesh, P("data")), local,
                                        global_shape=(2 * (2 + rank), 3))
try:
    tjit.shard_map(lambda b: tjit.lax.psum(b, "data"), mesh, in_specs=P("data"),
                   out_specs=P())(xs)
except td.DistributedError as e:
    errs["shard_map_mismatch"] = str(e)
report(rank=rank, errs=errs, ok_after=comm.allreduce(np.float32(rank + 1), "sum"))
hook = sys.excepthook
td.shutdown()
after_shutdown = (td.is_initialized(), tjit.process_index(), tjit.process_count(),
                  sys.excepthook is not hook, len(tjit.devices()))
td.initialize()
report(rank=rank, after_shutdown=after_shutdown,
       again=(td.is_initialized(), tjit.process_index(), tjit.process_count()))
'''


@requires_mpi
def test_initialize_process_index_global_arrays_and_errors(tmp_path):
    res = results(launch(_RUNTIME_SCRIPT, 2, tmp_path,
                         env={"TJIT_DISTRIBUTED_CHECKS": "1"}), 2)
    for rank, r in res.items():
        assert (r["before_index"], r["before_count"], r["initialized_before"]) == (0, 1, False)
        assert "initialize() was not called" in r["errs"]["before"]
        assert "shard_map needs the processes" in r["errs"]["shard_map_before"]
        assert f"rank {rank} of 2" in r["errs"]["before"]
        assert (r["index"], r["count"]) == (rank, 2)
        assert "already called" in r["errs"]["twice"]
        assert [("rank %d of 2" % rank) in e for e in r["errs"]["jax_args"]] == [1, 1, 0]
        assert "start them with mpiexec" in r["errs"]["jax_args"][2]
        assert r["global_ids"] == [0, 1] and r["local_ids"] == [rank]
        assert r["processes"] == [0, 1]
        assert r["devices"] == [[0, 0], [1, 1]] and r["local_devices"] == [[rank, rank]]
        assert r["counts"] == [2, 1] and r["local_in_global"]
        assert r["repr_"] == ("CpuDevice(id=0)" if rank == 0 else
                              "CpuDevice(id=1, process_index=1)")
        assert r["on_mine"] == [2.0, 2.0]
        assert f"belongs to process {1 - rank}, not this process ({rank})" in \
            r["errs"]["other_device"]
        assert r["g_shape"] == [6, 2]
        np.testing.assert_array_equal(r["whole"], np.arange(12.0).reshape(6, 2))
        np.testing.assert_array_equal(r["rep"], np.arange(12.0).reshape(6, 2))
        assert "process_allgather" in r["errs"]["asarray"]
        np.testing.assert_array_equal(r["stacked"], [[0, 10], [1, 11]])
        np.testing.assert_array_equal(r["tiled"], [0, 10, 1, 11])
        assert "rank 0: allreduce sum float32[2]; rank 1: allreduce sum float32[3]" in \
            r["errs"]["mismatch"]
        assert "float32[3]" in r["errs"]["dtype"] and "float64[3]" in r["errs"]["dtype"]
        assert ("rank 0: allreduce sum float32[2, 3]; rank 1: allreduce sum float32[3, 3]"
                in r["errs"]["shard_map_mismatch"]), r["errs"]["shard_map_mismatch"]
        assert r["ok_after"] == 3.0   # the run goes on after a detected mismatch
        # shutdown: back to one process, the abort hook removed; initialize works again
        assert r["after_shutdown"] == [False, 0, 1, True, 1]
        assert r["again"] == [True, rank, 2]
        assert not r["reused_while_alive"] and r["r1_after"] == [3.0] * 5
        assert r["r3"] == [2.0] * 5 and r["reused_after_release"]
        _check_dtypes(r["dt_results"], rank)


def _member_data(r, dtype):
    v = np.random.default_rng(r).standard_normal((2, 3)) * 4
    return (v > 0) if dtype == "bool" else (v + 1j * v if "complex" in dtype else v).astype(dtype)


def _pairs(a):
    return np.asarray(a).astype(np.complex128).view(np.float64)


def _check_dtypes(res, rank):
    """Each communicator result against NumPy over both members' data (sums of two
    members are exact in any order); values travel as (real, imag) pairs."""
    reduce = {"sum": np.add, "max": np.maximum, "min": np.minimum}
    for dtype, got in res.items():
        xs = [_member_data(r, dtype) for r in range(2)]
        np.testing.assert_array_equal(got["allgather"], _pairs(np.stack(xs)), err_msg=dtype)
        np.testing.assert_array_equal(got["alltoall"], _pairs(np.stack([x[rank] for x in xs])))
        np.testing.assert_array_equal(got["permute"], _pairs(xs[1 - rank]), err_msg=dtype)
        for op in ("sum", "max", "min"):
            if op not in got:
                continue
            full = reduce[op](xs[0], xs[1])
            y, z, out_dtype = got[op]
            assert out_dtype == dtype
            np.testing.assert_array_equal(y, _pairs(full), err_msg=f"{dtype} {op}")
            np.testing.assert_array_equal(z, _pairs(full[rank]),
                                          err_msg=f"{dtype} {op} reduce_scatter")


_RAISE_SCRIPT = '''
import os
import tjit.distributed as td
td.initialize()
comm = td.MPICommunicator(td.runtime.state().comm, name="data")
if td.process_index() == 1:
    raise ValueError("bad batch on this rank")
comm.allreduce(np.ones(4, np.float32), "sum")   # rank 0 would wait here forever
print("rank 0 was not stopped", flush=True)
'''


@requires_mpi
def test_one_rank_raising_ends_every_rank_with_its_message(tmp_path):
    # (the abort is immediate; the time bound is for a loaded machine)
    proc = launch(_RAISE_SCRIPT, 2, tmp_path, timeout=120)
    assert proc.returncode != 0
    assert "process 1 of 2 raised ValueError: bad batch on this rank" in proc.stderr
    assert "aborting all 2 processes" in proc.stderr
    assert "rank 0 was not stopped" not in proc.stdout


_MISSING_RANK_SCRIPT = '''
import tjit.distributed as td
td.initialize()
comm = td.MPICommunicator(td.runtime.state().comm, name="data")
if td.process_index() == 0:
    comm.allreduce(np.ones(4, np.float32), "sum")   # rank 1 never comes
'''


@requires_mpi
def test_a_rank_that_skips_a_collective_is_an_error_under_checks(tmp_path):
    proc = launch(_MISSING_RANK_SCRIPT, 2, tmp_path, timeout=60,
                  env={"TJIT_DISTRIBUTED_CHECKS": "1", "TJIT_DISTRIBUTED_TIMEOUT": "1"})
    assert proc.returncode != 0
    assert "process 0 waited 1 s for the other 1 process(es)" in proc.stderr, proc.stderr
