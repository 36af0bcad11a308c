"""Regressions from the differential hunt over multi-process programs
(benchmarks/diff_distributed.py), against NumPy:

- collectives on empty blocks across MPI processes (all_gather/psum_scatter tiled,
  all_to_all): their NumPy step reshaped with -1, which NumPy cannot infer for a size-0
  array (ValueError "cannot reshape array of size 0");
- pmax/pmin of bools gave int32 (JAX: bools, any/all), under vmap(axis_name) too;
- process_allgather of a 0-d value gave shape (n, 1) (JAX: (n,));
- multihost_utils lacked broadcast_one_to_all, sync_global_devices, assert_equal,
  host_local_array_to_global_array and global_array_to_host_local_array;
- a GlobalArray passed to jit/grad/lax/jnp was refused without saying why or what to do.
"""

import numpy as np
import pytest

import tjit
from tjit import lax
from tests.distributed.mpi_harness import launch, requires_mpi, results

_SCRIPT = '''
import tjit
from tjit import lax
from tjit.experimental import multihost_utils as mu
from tjit.experimental.shard_map import shard_map
from tjit.sharding import P
tjit.distributed.initialize()
n, rank = tjit.process_count(), tjit.process_index()
mesh = tjit.make_mesh((n,), ("i",))
out = {}
# (body, block shape): every collective whose step splits or merges dims, on empty blocks
empties = {
    "all_gather_tiled_1": (lambda b: lax.all_gather(b, "i", axis=1, tiled=True), (0, 2)),
    "all_gather_tiled_0": (lambda b: lax.all_gather(b, "i", axis=0, tiled=True), (3, 0)),
    "psum_scatter_tiled": (lambda b: lax.psum_scatter(b, "i", tiled=True), (2 * n, 0)),
    "all_to_all_0_1": (lambda b: lax.all_to_all(b, "i", 0, 1, tiled=True), (2 * n, 0)),
    "all_to_all_1_0": (lambda b: lax.all_to_all(b, "i", 1, 0, tiled=True), (0, 2 * n)),
    "pmax": (lambda b: lax.pmax(b, "i"), (3, 0)),
}
for name, (body, block) in empties.items():
    x = np.zeros((n * block[0], block[1]), np.float32)
    f = shard_map(body, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)
    out[name] = list(mu.process_allgather(f(x), tiled=True).shape)
    out[name + "_jit"] = list(np.asarray(tjit.jit(f)(x)).shape)
# reductions of bools: pmax/pmin stay bool (any/all), psum counts in int32
xb = np.random.default_rng(0).random((n * 2, 3)) < 0.5
for name in ("pmax", "pmin", "psum"):
    f = shard_map(lambda b, name=name: getattr(lax, name)(b, "i"), mesh, in_specs=P("i"),
                  out_specs=P("i"), check_rep=False)
    y = np.asarray(tjit.jit(f)(xb))
    out["bool_" + name] = y.astype(int)
    out["bool_" + name + "_dtype"] = y.dtype.name
# process_allgather of scalars
out["scalar"] = mu.process_allgather(np.float32(rank))
out["scalar_tiled"] = mu.process_allgather(np.float32(rank), tiled=True)
# multihost_utils as JAX's
tree = {"a": np.arange(6, dtype=np.int32).reshape(2, 3) * (rank + 1), "b": np.bool_(rank == 0),
        "c": np.float16(rank + 0.5)}
got = mu.broadcast_one_to_all(tree)
out["bcast"] = [got["a"], bool(got["b"]), float(got["c"]), got["a"].dtype.name,
                np.asarray(got["c"]).dtype.name]
got = mu.broadcast_one_to_all(tree, is_source=rank == n - 1)
out["bcast_last"] = [got["a"], bool(got["b"]), float(got["c"])]
mu.sync_global_devices("step 1")
mu.assert_equal({"x": np.arange(3.0)}, "same")
for what, call in [("sync_mismatch", lambda: mu.sync_global_devices(f"step {rank}")),
                   ("assert_mismatch", lambda: mu.assert_equal(np.float32(rank), "differs"))]:
    try:
        call()
        out[what] = "no error"
    except AssertionError as e:
        out[what] = str(e)
local = np.arange(4.0, dtype=np.float32).reshape(2, 2) + 10 * rank
g = mu.host_local_array_to_global_array(local, mesh, P("i"))
out["global_shape"] = list(g.shape)
out["global"] = mu.process_allgather(g, tiled=True)
out["back"] = mu.global_array_to_host_local_array({"g": g}, mesh, {"g": P("i")})["g"]
# a GlobalArray split over processes, where a global value is needed: the error says what to do
import tjit.numpy as jnp
for what, call in [("jit", lambda: tjit.jit(lambda v: v * 2)(g)),
                   ("grad", lambda: tjit.grad(lambda v: jnp.sum(v))(g)),
                   ("jnp", lambda: jnp.sum(g)), ("lax", lambda: lax.neg(g))]:
    try:
        call()
        out["refused_" + what] = "no error"
    except TypeError as e:
        out["refused_" + what] = str(e)
report(rank=rank, **out)
'''


@requires_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_hunt_regressions_across_processes(tmp_path, n):
    res = results(launch(_SCRIPT, n, tmp_path), n)
    want_shapes = {
        "all_gather_tiled_1": [0, 2 * n], "all_gather_tiled_0": [3 * n * n, 0],
        "psum_scatter_tiled": [2 * n, 0], "all_to_all_0_1": [2 * n, 0],
        "all_to_all_1_0": [0, 2], "pmax": [3 * n, 0]}
    blocks = (np.random.default_rng(0).random((n * 2, 3)) < 0.5).reshape(n, 2, 3)
    for rank, r in res.items():
        for name, shape in want_shapes.items():
            assert r[name] == shape, (name, r[name], shape)
            assert r[name + "_jit"] == shape, (name, r[name + "_jit"], shape)
        np.testing.assert_array_equal(r["bool_pmax"], np.tile(blocks.any(0), (n, 1)))
        np.testing.assert_array_equal(r["bool_pmin"], np.tile(blocks.all(0), (n, 1)))
        np.testing.assert_array_equal(r["bool_psum"], np.tile(blocks.sum(0), (n, 1)))
        assert (r["bool_pmax_dtype"], r["bool_pmin_dtype"], r["bool_psum_dtype"]) == (
            "bool", "bool", "int32")
        np.testing.assert_array_equal(r["scalar"], np.arange(n))
        np.testing.assert_array_equal(r["scalar_tiled"], np.arange(n))
        a = np.arange(6).reshape(2, 3)
        assert r["bcast"] == [a.tolist(), True, 0.5, "int32", "float16"], r["bcast"]
        assert r["bcast_last"] == [(a * n).tolist(), False, n - 0.5], r["bcast_last"]
        assert "sync_global_devices name mismatch" in r["sync_mismatch"], r["sync_mismatch"]
        assert "differs" in r["assert_mismatch"] and "leaf 0" in r["assert_mismatch"]
        assert r["global_shape"] == [2 * n, 2]
        want = np.concatenate([np.arange(4.0).reshape(2, 2) + 10 * p for p in range(n)])
        np.testing.assert_array_equal(r["global"], want)
        np.testing.assert_array_equal(r["back"], want[2 * rank:2 * rank + 2])
        for what in ("jit", "grad", "jnp", "lax"):
            msg = r["refused_" + what]
            assert "holds only this process's blocks" in msg, (what, msg)
            assert "process_allgather(x, tiled=True)" in msg, (what, msg)


def test_bool_reductions_under_vmap_keep_jax_dtypes():
    """pmax/pmin of bools are any/all, in bool; psum counts them in int32 (JAX 0.10)."""
    x = np.random.default_rng(1).random((4, 5)) < 0.5
    for name, want in [("pmax", x.any(0)), ("pmin", x.all(0)), ("psum", x.sum(0))]:
        y = np.asarray(tjit.vmap(lambda b, name=name: getattr(lax, name)(b, "i"),
                                 axis_name="i")(x))
        assert y.dtype == (np.int32 if name == "psum" else np.bool_), (name, y.dtype)
        np.testing.assert_array_equal(y, np.broadcast_to(want, x.shape), err_msg=name)
        y = np.asarray(tjit.jit(tjit.vmap(lambda b, name=name: getattr(lax, name)(b, "i"),
                                          axis_name="i"))(x))
        assert y.dtype == (np.int32 if name == "psum" else np.bool_), (name, y.dtype)
