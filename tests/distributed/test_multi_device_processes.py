"""Several devices per MPI process (JAX's multi-process model): ``mpiexec -n 2`` with
``TJIT_NUM_CPU_DEVICES=2`` gives 4 devices, 2 in each process. One launch checks

* ``tjit.devices()``/``local_devices()``/``device_count()``/``local_device_count()`` and
  each device's ``process_index``;
* pmap over the 4 devices (each process passes its 2 rows): every collective against the
  one-process ``vmap(axis_name)`` oracle over the 4 shards and, for the reductions and
  gathers, against NumPy in float64; pmap(grad) with pmean against NumPy's gradient;
* shard_map over a (2, 2) mesh ('proc', 'local') and a (4,) mesh built from
  ``tjit.devices()``: collectives over each axis and tuples of them against nested vmap;
* jit(shard_map) over both meshes (the blocks on each process's devices' threads, the
  hierarchical communicators bound) against the top-level call, the unsharded function
  and NumPy; jit(grad) and jvp of a (data x model) layer and a data-parallel loss
  against float64 central differences (|a - b| <= 1e-5 + 1e-4 |b|);
* jit, grad and jvp of pmap over the 4 devices (threads and hierarchical communicators,
  as the top level): values against the top-level pmap and NumPy, gradients and jvps of
  the processes' summed losses against float64 central differences;
* errors: a pmap that maps fewer devices than the process has, operands that differ
  across processes under TJIT_DISTRIBUTED_CHECKS=1;
* data-parallel training of examples/train_mlp.py's MLP over the 4 devices, with pmap,
  shard_map and jit(shard_map): the same parameters as the one-process loop after 50 steps.
  Tolerance as in test_data_parallel.py: |a - b| <= 2e-6 + 1e-5 |b| (the gradient mean
  sums in another order; tens of float32 ulps), and every device's and process's
  parameters bitwise equal to each other.
"""

import numpy as np

from tests.distributed.mpi_harness import REPO, launch, requires_mpi, results
from tests.distributed.test_data_parallel import STEPS, one_process_training

_SCRIPT = f'''
import sys
sys.path.insert(0, {str(REPO / "examples")!r})
import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.sharding import Mesh, P
from tjit.distributed import process_allgather
tjit.distributed.initialize()
rank, procs = tjit.process_index(), tjit.process_count()
N, S = tjit.local_device_count(), tjit.device_count()
out = {{"devices": [[d.id, d.process_index] for d in tjit.devices()],
       "local": [[d.id, d.process_index] for d in tjit.local_devices()], "N": N, "S": S}}

# -- pmap over every device: each collective against vmap over the 4 shards --------------
ring = tuple((r, (r + 1) % S) for r in range(S))
mixed = ((0, 1), (1, 3), (3, 0))                   # 0 -> 1 local, the others across; 2 gets 0
groups = [[0, 2], [1, 3]]                          # every group spans both processes
cases = {{
    "psum": lambda x: lax.psum(x, "i"),
    "pmean": lambda x: lax.pmean(x, "i"),
    "pmax": lambda x: lax.pmax(x, "i"),
    "pmin": lambda x: lax.pmin(x, "i"),
    "psum_pytree": lambda x: lax.psum({{"a": x, "b": (2 * x, x[0])}}, "i")["b"][1],
    "psum_int": lambda x: lax.psum((x * 100).astype(jnp.int32), "i"),
    "all_gather": lambda x: lax.all_gather(x, "i"),
    "all_gather_tiled": lambda x: lax.all_gather(x, "i", axis=1, tiled=True),
    "all_gather_bool": lambda x: lax.all_gather(x > 0, "i"),
    "psum_scatter": lambda x: lax.psum_scatter(x, "i"),
    "psum_scatter_tiled": lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
    "all_to_all": lambda x: lax.all_to_all(x, "i", 0, 1),
    "ppermute_ring": lambda x: lax.ppermute(x, "i", ring),
    "ppermute_mixed": lambda x: lax.ppermute(x, "i", mixed),
    "axis_index": lambda x: x * lax.axis_index("i").astype(x.dtype) + lax.axis_size("i"),
    "psum_groups": lambda x: lax.psum(x, "i", axis_index_groups=groups),
    "pmax_groups": lambda x: lax.pmax(x, "i", axis_index_groups=[[0, 3], [1, 2]]),
    "all_gather_groups": lambda x: lax.all_gather(x, "i", axis_index_groups=groups),
    "psum_scatter_groups": lambda x: lax.psum_scatter(
        x[:2], "i", axis_index_groups=[[3, 0], [2, 1]]),
    # gradients: the transposes (psum_scatter, the inverse ppermute, ...) on the same axis
    "grad_all_gather": lambda x: tjit.grad(
        lambda v: jnp.sum(jnp.sin(lax.all_gather(v, "i")) * X[..., :1]))(x),
    "grad_ppermute_psum": lambda x: tjit.grad(
        lambda v: jnp.sum(lax.ppermute(v, "i", mixed) * lax.psum(v ** 2, "i")))(x),
    "grad_all_to_all": lambda x: tjit.grad(
        lambda v: jnp.sum(jnp.cos(lax.all_to_all(v, "i", 0, 1)) * X[0, 0, 0]))(x),
}}
X = np.random.default_rng(0).standard_normal((S, S, 8)).astype(np.float32)
mine = X[rank * N:(rank + 1) * N]                 # this process's rows: its devices' shards
pm = {{}}
for name, fn in cases.items():
    got = tjit.pmap(fn, axis_name="i")(mine)
    oracle = tjit.vmap(fn, axis_name="i")(X)[rank * N:(rank + 1) * N]
    pm[name] = [np.asarray(got), np.asarray(oracle),
                sorted([d.id, d.process_index] for d in got.devices())]
out["pmap"] = pm
W = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
loss = lambda w, x: jnp.mean(jnp.tanh(x @ w) ** 2)
g = tjit.pmap(lambda w, x: lax.pmean(tjit.grad(loss)(w, x), "i"), axis_name="i",
              in_axes=(None, 0))(W, mine)
out["grad"] = np.asarray(g)
try:                                             # each process maps all its devices
    tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(mine[:1])
    out["short"] = ""
except ValueError as e:
    out["short"] = str(e)
# traced pmap (the per-device program on each device's thread): jit, grad, jvp
Wp = np.random.default_rng(7).standard_normal((8, 3)).astype(np.float32)
pf = tjit.pmap(lambda w, x: lax.psum(jnp.tanh(x[0] @ w), "i")
               * (lax.axis_index("i") + 1).astype(jnp.float32)
               + lax.ppermute(x[1, :3], "i", mixed) * 0.5, axis_name="i", in_axes=(None, 0))
ploss = lambda w, x: jnp.sum(jnp.sin(pf(w, x)))   # this process's loss (SPMD: each its own)
Tx = np.random.default_rng(8).standard_normal(X.shape).astype(np.float32)
out["traced_pmap"] = {{
    "top": np.asarray(pf(Wp, mine)),
    "jit": np.asarray(tjit.jit(pf)(Wp, mine)),
    "grad": [np.asarray(g) for g in tjit.jit(tjit.grad(ploss, argnums=(0, 1)))(Wp, mine)],
    "jvp": np.asarray(tjit.jvp(lambda x: ploss(Wp, x), (mine,),
                               (Tx[rank * N:(rank + 1) * N],))[1]),
    "out_axes": np.asarray(tjit.jit(tjit.pmap(lambda x: x * 2, axis_name="i",
                                              out_axes=1))(mine)),
}}
# processes disagreeing on the operand: TJIT_DISTRIBUTED_CHECKS=1 (read when the axis's
# communicator is made: a new axis name) turns a hang or garbage into the same error
os.environ["TJIT_DISTRIBUTED_CHECKS"] = "1"
try:
    tjit.pmap(lambda x: lax.psum(x, "c"), axis_name="c")(mine[:, :, :4 + rank])
    out["mismatch"] = ""
except tjit.distributed.DistributedError as e:
    out["mismatch"] = str(e)
del os.environ["TJIT_DISTRIBUTED_CHECKS"]

# -- shard_map over meshes of every process's devices -----------------------------------
mesh2 = Mesh(np.array(tjit.devices(), dtype=object).reshape(procs, N), ("proc", "local"))
A = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
def body2(b):
    return (lax.psum(b, "proc") + 10 * lax.pmax(b, "local") + 100 * lax.psum(b, ("proc", "local"))
            + lax.axis_index(("local", "proc")).astype(jnp.float32) / 8
            + lax.all_gather(b, ("local", "proc"), tiled=True).sum(0))
sm2 = tjit.shard_map(body2, mesh2, in_specs=P(("proc", "local")),
                     out_specs=P(("proc", "local")), check_rep=False)
got2 = sm2(A)
want2 = tjit.vmap(tjit.vmap(body2, axis_name="local"), axis_name="proc")(A.reshape(2, 2, 1, 6))
out["sm2"] = [process_allgather(got2), np.asarray(want2).reshape(4, 6), type(got2).__name__]
mesh1 = tjit.make_mesh((S,), ("i",))
def body1(b):
    return (lax.ppermute(b, "i", ring) + lax.psum_scatter(jnp.tile(b, (S, 1)), "i")
            + lax.all_to_all(jnp.tile(b, (S, 1)), "i", 0, 0)[::S])
got1 = tjit.shard_map(body1, mesh1, in_specs=P("i"), out_specs=P("i"), check_rep=False)(A)
want1 = tjit.vmap(body1, axis_name="i")(A[:, None, :])
out["sm1"] = [process_allgather(got1), np.asarray(want1).reshape(4, 6)]
rep = tjit.shard_map(lambda b: lax.psum(b, "i"), mesh1, in_specs=P("i"), out_specs=P())(A)
out["sm1_psum"] = np.asarray(rep)
# a GlobalArray from each process's rows (its 2 devices' blocks) as the argument
glob = tjit.make_array_from_process_local_data(tjit.sharding.NamedSharding(mesh1, P("i")),
                                               A[rank * N:(rank + 1) * N])
got_g = tjit.shard_map(lambda b: 2 * b + lax.axis_index("i").astype(jnp.float32), mesh1,
                       in_specs=P("i"), out_specs=P("i"))(glob)
out["global_in"] = [glob.shape, process_allgather(got_g)]

# -- jit, grad and jvp of shard_map over these meshes (global values in and out) ---------
out["jit_sm2"] = np.asarray(tjit.jit(sm2)(A))
out["jit_sm1"] = np.asarray(tjit.jit(tjit.shard_map(body1, mesh1, in_specs=P("i"),
                                                    out_specs=P("i"), check_rep=False))(A))
Wl = np.random.default_rng(3).standard_normal((6, 4)).astype(np.float32)
bl = np.random.default_rng(4).standard_normal(4).astype(np.float32)
C = np.random.default_rng(5).standard_normal((4, 4)).astype(np.float32)
# a (data x model) layer: rows split over 'proc', columns over 'local'
layer = tjit.shard_map(lambda w, b, x: jnp.tanh(x @ w + b), mesh2,
                       in_specs=(P(None, "local"), P("local"), P("proc")),
                       out_specs=P("proc", "local"))
loss2 = lambda w, b, x: jnp.sum(jnp.sin(layer(w, b, x)) * C)
# data parallel over the (4,) mesh: each device's rows, the sum over every device
loss1 = tjit.shard_map(lambda w, x: lax.psum(jnp.sum(jnp.tanh(x @ w) ** 2), "i"), mesh1,
                       in_specs=(P(), P("i")), out_specs=P())
T = [np.random.default_rng(6 + k).standard_normal(a.shape).astype(np.float32)
     for k, a in enumerate((Wl, bl, A))]
out["traced"] = {{
    "layer": np.asarray(tjit.jit(layer)(Wl, bl, A)),
    "layer_unsharded": np.asarray(tjit.jit(lambda w, b, x: jnp.tanh(x @ w + b))(Wl, bl, A)),
    "loss1": np.asarray(tjit.jit(loss1)(Wl, A)),
    "loss1_unsharded": np.asarray(tjit.jit(lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2))(Wl, A)),
    "grad2": [np.asarray(g) for g in tjit.jit(tjit.grad(loss2, argnums=(0, 1, 2)))(Wl, bl, A)],
    "grad1": [np.asarray(g) for g in tjit.jit(tjit.grad(loss1, argnums=(0, 1)))(Wl, A)],
    "jvp2": np.asarray(tjit.jit(lambda *a: tjit.jvp(loss2, a, tuple(T))[1])(Wl, bl, A)),
    "jvp1": np.asarray(tjit.jvp(loss1, (Wl, A), (T[0], T[2]))[1]),
}}

# -- data-parallel training over the 4 devices -----------------------------------------
from train_mlp_data_parallel import local_step, make_train_step, train
params, losses, _ = train(steps={STEPS}, quiet=True)     # shard_map over the 4 devices
out["sm_train"] = [params, losses]
from train_mlp import init_params, make_data
kd, kp = tjit.random.split(tjit.random.PRNGKey(0))
x_all, y_all = (np.asarray(a) for a in make_data(kd, 4096, 16, 4))
p = init_params(kp, [16, 64, 4])
step = tjit.pmap(local_step, axis_name="data", in_axes=(None, 0, 0, None))
same = True
for s in range({STEPS}):
    i = (s * 128) % (x_all.shape[0] - 128) + rank * 64   # this process's 64 of 128 rows
    new, _ = step(p, x_all[i:i + 64].reshape(N, 32, 16), y_all[i:i + 64].reshape(N, 32, 4),
                  np.float32(0.05))
    stacked = tjit.tree_util.tree_map(np.asarray, new)
    same &= all((l[k] == l[k][:1]).all() for l in stacked for k in l)
    p = tjit.tree_util.tree_map(lambda a: a[0], stacked)
out["pmap_train"] = [p, bool(same)]
jstep = tjit.jit(make_train_step(tjit.make_mesh((S,), ("data",))))   # the traced step
p, jl = init_params(kp, [16, 64, 4]), []
for s in range({STEPS}):
    i = (s * 128) % (x_all.shape[0] - 128)
    p, l = jstep(p, x_all[i:i + 128], y_all[i:i + 128], np.float32(0.05))
    jl.append(float(l))
out["jit_train"] = [tjit.tree_util.tree_map(np.asarray, p), jl]
report(rank=rank, **out)
'''


def _check_collectives(rank, pm):
    for name, (got, oracle, devs) in pm.items():
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(oracle, np.float64),
                                   rtol=1e-6, atol=1e-6, err_msg=f"{name} on process {rank}")
        assert devs == [[2 * rank, rank], [2 * rank + 1, rank]], (name, devs)
    # and NumPy in float64 (the oracle is vmap's; these do not depend on it)
    X = np.random.default_rng(0).standard_normal((4, 4, 8)).astype(np.float32)
    X64, mine = X.astype(np.float64), slice(2 * rank, 2 * rank + 2)
    np.testing.assert_allclose(pm["psum"][0], np.broadcast_to(X64.sum(0), (2, 4, 8)),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(pm["pmax"][0], np.broadcast_to(X.max(0), (2, 4, 8)))
    np.testing.assert_array_equal(pm["all_gather"][0], np.broadcast_to(X, (2, 4, 4, 8)))
    np.testing.assert_array_equal(pm["all_gather_bool"][0], np.broadcast_to(X > 0, (2, 4, 4, 8)))
    np.testing.assert_allclose(pm["psum_scatter"][0], X64.sum(0)[mine], rtol=1e-5, atol=1e-5)
    # all_to_all(x, split 0, concat 1): member m gets [k, j] = member j's x[m, k]
    np.testing.assert_array_equal(pm["all_to_all"][0], X.transpose(1, 2, 0)[mine])
    np.testing.assert_array_equal(pm["ppermute_ring"][0], X[[3, 0, 1, 2]][mine])
    want_mixed = np.stack([X[3], X[0], np.zeros_like(X[0]), X[1]])   # nothing sent to 2
    np.testing.assert_array_equal(pm["ppermute_mixed"][0], want_mixed[mine])
    np.testing.assert_allclose(pm["axis_index"][0],
                               X[mine] * np.arange(4)[mine, None, None] + 4, rtol=1e-6, atol=1e-6)
    pair = np.stack([X64[0] + X64[2], X64[1] + X64[3]] * 2)
    np.testing.assert_allclose(pm["psum_groups"][0], pair[mine], rtol=1e-5, atol=1e-5)


def _fd_grad(f, args, eps=1e-6):
    """Central differences of ``f`` (NumPy, float64) with respect to each argument."""
    grads = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            hi = [x.copy() for x in args]
            lo = [x.copy() for x in args]
            hi[k][j] += eps
            lo[k][j] -= eps
            g[j] = (f(*hi) - f(*lo)) / (2 * eps)
        grads.append(g)
    return grads


def _check_traced(r, A):
    """jit/grad/jvp of shard_map over the (2, 2) and (4,) meshes: against the top-level
    call and the vmap oracle, the unsharded function, NumPy in float64 and float64
    central differences."""
    got2, want2, _ = r["sm2"]
    np.testing.assert_allclose(r["jit_sm2"], want2, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(r["jit_sm2"], got2, rtol=1e-6, atol=1e-5)   # (top level)
    np.testing.assert_allclose(r["jit_sm1"], r["sm1"][1], rtol=1e-6, atol=1e-6)
    A64 = A.astype(np.float64)
    W, b, C = (np.random.default_rng(k).standard_normal(s).astype(np.float32).astype(np.float64)
               for k, s in ((3, (6, 4)), (4, 4), (5, (4, 4))))
    T = [np.random.default_rng(6 + k).standard_normal(a.shape).astype(np.float32)
         .astype(np.float64) for k, a in enumerate((W, b, A64))]
    t = r["traced"]

    def loss2(w, b_, x):
        return np.sum(np.sin(np.tanh(x @ w + b_)) * C)

    def loss1(w, x):
        return np.sum(np.tanh(x @ w) ** 2)
    np.testing.assert_allclose(t["layer"], np.tanh(A64 @ W + b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(t["layer"], t["layer_unsharded"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(t["loss1"], loss1(W, A64), rtol=1e-5)
    np.testing.assert_allclose(t["loss1"], t["loss1_unsharded"], rtol=1e-5)
    for got, want in zip(t["grad2"], _fd_grad(loss2, [W, b, A64])):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for got, want in zip(t["grad1"], _fd_grad(loss1, [W, A64])):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    eps = 1e-6
    fd2 = (loss2(*[a + eps * d for a, d in zip((W, b, A64), T)])
           - loss2(*[a - eps * d for a, d in zip((W, b, A64), T)])) / (2 * eps)
    np.testing.assert_allclose(t["jvp2"], fd2, rtol=1e-4, atol=1e-5)
    fd1 = (loss1(W + eps * T[0], A64 + eps * T[2])
           - loss1(W - eps * T[0], A64 - eps * T[2])) / (2 * eps)
    np.testing.assert_allclose(t["jvp1"], fd1, rtol=1e-4, atol=1e-5)


def _check_traced_pmap(res, rank):
    """jit/grad/jvp of a pmap over 2 devices in each of 2 processes: the values against
    the top-level pmap and NumPy; each process's loss is its own (SPMD), so the
    gradients are those of the sum of both processes' losses (psum/ppermute transpose
    across processes): this process's rows of dL/dX, and dL/dW summed over the
    processes, against float64 central differences of L; the jvps summed likewise."""
    X = np.random.default_rng(0).standard_normal((4, 4, 8)).astype(np.float32)
    W = np.random.default_rng(7).standard_normal((8, 3)).astype(np.float32)
    Tx = np.random.default_rng(8).standard_normal(X.shape).astype(np.float32)
    X64, W64, T64 = (a.astype(np.float64) for a in (X, W, Tx))

    def outputs(w, x):       # every device's output, NumPy (mixed: 0->1, 1->3, 3->0)
        s = np.tanh(x[:, 0] @ w).sum(0)
        sent = np.zeros((4, 3))
        for src, dst in ((0, 1), (1, 3), (3, 0)):
            sent[dst] = x[src, 1, :3]
        return s[None] * np.arange(1, 5)[:, None] + 0.5 * sent

    def total(w, x):
        return np.sum(np.sin(outputs(w, x)))
    t = res[rank]["traced_pmap"]
    mine = slice(2 * rank, 2 * rank + 2)
    np.testing.assert_allclose(t["jit"], t["top"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(t["jit"], outputs(W64, X64)[mine], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(t["out_axes"], np.moveaxis(2 * X[mine], 0, 1))
    gw, gx = _fd_grad(total, [W64, X64])
    np.testing.assert_allclose(t["grad"][1], gx[mine], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sum(np.asarray(res[q]["traced_pmap"]["grad"][0]) for q in res),
                               gw, rtol=1e-4, atol=1e-5)
    eps = 1e-6
    fd = (total(W64, X64 + eps * T64) - total(W64, X64 - eps * T64)) / (2 * eps)
    np.testing.assert_allclose(sum(float(res[q]["traced_pmap"]["jvp"]) for q in res), fd,
                               rtol=1e-4, atol=1e-5)


def _check_params(got, ref, rank, what):
    for layer, ref_layer in zip(got, ref):
        for k in ("w", "b"):
            np.testing.assert_allclose(np.asarray(layer[k], np.float32), ref_layer[k],
                                       rtol=1e-5, atol=2e-6, err_msg=f"{what} rank {rank} {k}")


@requires_mpi
def test_two_devices_in_each_of_two_processes(tmp_path):
    res = results(launch(_SCRIPT, 2, tmp_path, env={"TJIT_NUM_CPU_DEVICES": "2"},
                         timeout=150), 2)
    ref_params, ref_losses = one_process_training()
    A = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
    for rank, r in res.items():
        assert r["devices"] == [[0, 0], [1, 0], [2, 1], [3, 1]]
        assert r["local"] == [[2 * rank, rank], [2 * rank + 1, rank]]
        assert (r["N"], r["S"]) == (2, 4)
        _check_collectives(rank, r["pmap"])
        W = np.random.default_rng(1).standard_normal((8, 3))
        X = np.random.default_rng(0).standard_normal((4, 4, 8)).astype(np.float32)
        from tests.distributed.test_pmap_processes import _numpy_grad
        np.testing.assert_allclose(r["grad"], np.broadcast_to(_numpy_grad(W, X), (2, 8, 3)),
                                   rtol=1e-4, atol=1e-6)
        assert "local device count 2" in r["short"], r["short"]
        _check_traced_pmap(res, rank)
        assert "float32[4, 4]" in r["mismatch"] and "float32[4, 5]" in r["mismatch"], \
            r["mismatch"]
        # shard_map: against nested vmap, and the psum against NumPy
        got2, want2, kind = r["sm2"]
        np.testing.assert_allclose(got2, want2, rtol=1e-6, atol=1e-5)
        assert kind == "GlobalArray"    # split over both processes' devices
        np.testing.assert_allclose(*r["sm1"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(r["sm1_psum"], A.astype(np.float64).sum(0, keepdims=True),
                                   rtol=1e-5, atol=1e-6)
        _check_traced(r, A)
        shape, doubled = r["global_in"]
        assert shape == [4, 6]
        np.testing.assert_allclose(doubled, 2 * A + np.arange(4)[:, None], rtol=1e-6)
        # training: shard_map and pmap over the 4 devices vs the one-process loop
        params, losses = r["sm_train"]
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=2e-6)
        _check_params(params, ref_params, rank, "shard_map")
        pm_params, same_on_devices = r["pmap_train"]
        _check_params(pm_params, ref_params, rank, "pmap")
        assert same_on_devices
        jit_params, jit_losses = r["jit_train"]
        np.testing.assert_allclose(jit_losses, ref_losses, rtol=1e-5, atol=2e-6)
        _check_params(jit_params, ref_params, rank, "jit(shard_map)")
        for a, b in [(params, res[0]["sm_train"][0]), (pm_params, res[0]["pmap_train"][0]),
                     (jit_params, res[0]["jit_train"][0])]:
            for la, lb in zip(a, b):
                for k in ("w", "b"):
                    np.testing.assert_array_equal(la[k], lb[k])
    assert ref_losses[-1] < 0.5 * ref_losses[0]
