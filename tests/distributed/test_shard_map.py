"""shard_map over a mesh of MPI processes: every collective against the one-process
oracle ``vmap(axis_name=...)`` over the same global data and against NumPy, and a 2-D
(data x model) MLP layer against the unsharded layer. One launch per process count runs
every check; each rank reports its blocks and the test compares them."""

import numpy as np
import pytest

from tests.distributed.mpi_harness import launch, requires_mpi, results

_COLLECTIVES_SCRIPT = '''
import tjit, tjit.numpy as jnp
from tjit import lax
from tjit.distributed import process_allgather
from tjit.experimental.shard_map import shard_map
from tjit.sharding import P
from tests.parallel.unbound import unbound_outcomes, wrong_outcomes
tjit.distributed.initialize()
n, rank = tjit.process_count(), tjit.process_index()
mesh = tjit.make_mesh((n,), ("i",))
rng = np.random.default_rng(0)                  # the same global data in every process
x = rng.standard_normal((n * 2, 3)).astype(np.float32)
perm = [(j, (j + 1) % n) for j in range(n)]
crossed = [[j for j in reversed(range(n)) if j % 2 == p] for p in (0, 1)]  # (order matters)
uneven = [[0], list(range(1, n))]
bodies = {
    "psum": lambda b: lax.psum(b, "i"),
    "pmean": lambda b: lax.pmean(b, "i"),
    "pmax": lambda b: lax.pmax(b, "i"),
    "pmin": lambda b: lax.pmin(b, "i"),
    "all_gather": lambda b: lax.all_gather(b, "i"),
    "all_gather_tiled_1": lambda b: lax.all_gather(b, "i", axis=1, tiled=True),
    "psum_scatter": lambda b: lax.psum_scatter(jnp.tile(b, (n, 1)), "i", tiled=True),
    "all_to_all": lambda b: lax.all_to_all(jnp.tile(b, (n, 1)), "i", 0, 0, tiled=True),
    "ppermute": lambda b: lax.ppermute(b, "i", perm),
    "axis_index": lambda b: b * lax.axis_index("i").astype(jnp.float32),
    "scalar_psum": lambda b: lax.psum(jnp.sum(b, axis=0), "i"),
    "grad_of_psum": lambda b: tjit.grad(lambda v: jnp.sum(lax.psum(v * v, "i") ** 2))(b),
    # axis_index_groups: MPI sub-communicators (Comm.Split) of the axis
    "psum_groups": lambda b: lax.psum(b, "i", axis_index_groups=crossed),
    "pmean_uneven": lambda b: lax.pmean(b, "i", axis_index_groups=uneven),
    "pmax_groups": lambda b: lax.pmax(b, "i", axis_index_groups=crossed),
    "pmin_uneven": lambda b: lax.pmin(b, "i", axis_index_groups=uneven),
    "all_gather_groups": lambda b: lax.all_gather(b, "i", axis_index_groups=crossed),
    "psum_scatter_groups": lambda b: lax.psum_scatter(
        jnp.tile(b, (n // 2, 1)), "i", axis_index_groups=crossed, tiled=True),
    "grad_all_gather_groups": lambda b: tjit.grad(lambda v: jnp.sum(jnp.sin(
        lax.all_gather(v, "i", axis_index_groups=crossed))))(b),
    "all_to_all_groups": lambda b: lax.all_to_all(b, "i", 0, 0, axis_index_groups=crossed,
                                                  tiled=True),
}
out = {}
for name, body in bodies.items():
    f = shard_map(body, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)
    y = f(x)
    out[name] = process_allgather(y)          # the blocks of every rank, as the global value
    # the oracle: vmap over the processes' blocks in one process
    oracle = tjit.vmap(body, axis_name="i")(x.reshape(n, 2, 3))
    out[name + "_oracle"] = np.asarray(oracle).reshape((-1,) + np.asarray(oracle).shape[2:])
out["unbound_after_top_level"] = wrong_outcomes(unbound_outcomes("i"))
rep = shard_map(lambda b: lax.psum(b, "i"), mesh, in_specs=P("i"), out_specs=P())(x)
out["replicated_type"] = type(rep).__name__
out["replicated"] = np.asarray(rep)
try:
    shard_map(lambda b: b, mesh, in_specs=P("i"), out_specs=P())(x)
except ValueError as e:
    out["check_rep_error"] = str(e)
try:
    shard_map(lambda b: lax.psum(b, "j"), mesh, in_specs=P("i"), out_specs=P())(x)
except NameError as e:
    out["unbound"] = str(e)
# under jit: the argument is the global value in every process, so is the output
for name, body in bodies.items():
    f = shard_map(body, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)
    out[name + "_jit"] = np.asarray(tjit.jit(f)(x))
# data parallelism inside one jit: params P(), batch P("i"), grads pmean'd in the body
r2 = np.random.default_rng(5)
W = r2.standard_normal((3, 2)).astype(np.float32)
X = r2.standard_normal((n * 4, 3)).astype(np.float32)
T = r2.standard_normal((n * 4, 2)).astype(np.float32)
local_loss = lambda w, x, t: jnp.mean((jnp.tanh(x @ w) - t) ** 2)
def local_step(w, x, t):
    l, g = tjit.value_and_grad(local_loss)(w, x, t)
    return lax.pmean(l, "i"), lax.pmean(g, "i")
step = tjit.jit(shard_map(local_step, mesh, in_specs=(P(), P("i"), P("i")),
                          out_specs=(P(), P())))
l, g = step(W, X, T)
out["dp_loss"], out["dp_grad"] = float(l), np.asarray(g)
# grad of the shard_map from outside, in jit: replicated and split arguments
outer = shard_map(lambda w, x, t: lax.pmean(local_loss(w, x, t), "i"), mesh,
                  in_specs=(P(), P("i"), P("i")), out_specs=P())
out["outer_grad"] = np.asarray(tjit.jit(tjit.grad(lambda w: outer(w, X, T)))(W))
split = shard_map(lambda b: lax.psum(b, "i") * b, mesh, in_specs=P("i"), out_specs=P("i"))
out["split_grad"] = np.asarray(tjit.jit(tjit.grad(lambda v: jnp.sum(split(v) ** 2)))(x))
xs3 = np.stack([x, 2 * x, x - 1])
out["vmap"] = np.asarray(tjit.vmap(split)(xs3))
out["vmap_loop"] = np.stack([process_allgather(split(v)) for v in xs3])
# after shard_map in jit and jit(grad) across processes, nothing stays bound: every
# collective used outside a mapping raises (it used to reduce over the mesh's processes)
out["unbound_after_jit"] = wrong_outcomes(unbound_outcomes("i"))
def failing(b):
    lax.psum(b, "i")
    raise ValueError("the body failed")
try:
    tjit.jit(shard_map(failing, mesh, in_specs=P("i"), out_specs=P("i")))(x)
except ValueError as e:
    out["failed"] = str(e)
out["unbound_after_failed"] = wrong_outcomes(unbound_outcomes("i"))
# "i" naming the processes of another mesh under jit: its own communicators
other = tjit.make_mesh((1, n), ("k", "i"))
out["other_mesh"] = np.asarray(tjit.jit(shard_map(
    lambda b: lax.psum(b, ("k", "i")) + lax.psum(b, "i"), other, in_specs=P("i"),
    out_specs=P()))(x))
# vmap(axis_name="i") around it: the collective is the mesh's (the innermost binding)
psum_i = tjit.jit(shard_map(lambda b: lax.psum(b, "i"), mesh, in_specs=P("i"), out_specs=P()))
out["vmap_named"] = np.asarray(tjit.vmap(psum_i, axis_name="i")(xs3))
out["vmap_named_loop"] = np.stack([np.asarray(psum_i(v)) for v in xs3])
# a pmap-style axis over every process: one communicator per local device
from tjit.devices.collectives import bind_axis
from tjit.distributed.process_axis import process_axis
from tjit.parallel import compile_spmd
size, comms = process_axis("p", 1)
prog = compile_spmd(lambda v: lax.psum(v, "p") * lax.axis_size("p"), {"p": size},
                    (np.float32(0),))
with bind_axis("p", comms[0]):
    out["process_axis"] = [size, float(prog(np.float32(rank + 1)))]
try:   # (each process maps all its devices: here one)
    process_axis("p", 2)
except ValueError as e:
    out["process_axis_error"] = str(e)
report(rank=rank, **out)
'''


_BODIES = ["psum", "pmean", "pmax", "pmin", "all_gather", "all_gather_tiled_1", "psum_scatter",
           "all_to_all", "ppermute", "axis_index", "scalar_psum", "grad_of_psum",
           "psum_groups", "pmean_uneven", "pmax_groups", "pmin_uneven", "all_gather_groups",
           "psum_scatter_groups", "grad_all_gather_groups", "all_to_all_groups"]


def _check_collectives(res, n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n * 2, 3)).astype(np.float32)
    blocks = x.reshape(n, 2, 3)
    numpy_ref = {   # the global results (blocks stacked along dim 0) in float64 NumPy
        "psum": np.tile(blocks.astype(np.float64).sum(0), (n, 1)),
        "pmax": np.tile(blocks.max(0), (n, 1)),
        "pmin": np.tile(blocks.min(0), (n, 1)),
        "ppermute": np.roll(blocks, 1, axis=0).reshape(-1, 3),
        "axis_index": (blocks * np.arange(n)[:, None, None]).reshape(-1, 3),
    }
    numpy_ref["pmean"] = numpy_ref["psum"] / n
    crossed = [[j for j in reversed(range(n)) if j % 2 == p] for p in (0, 1)]
    group_of = {m: g for g in crossed for m in g}
    numpy_ref["psum_groups"] = np.concatenate(   # each block: the sum over its group
        [blocks[group_of[m]].astype(np.float64).sum(0) for m in range(n)])
    numpy_ref["all_gather_groups"] = np.concatenate(
        [blocks[group_of[m]] for m in range(n)])
    rest = blocks[1:].astype(np.float64)
    numpy_ref["pmean_uneven"] = np.concatenate([blocks[0]] + [rest.mean(0)] * (n - 1))
    for rank, r in res.items():
        for name in _BODIES:
            got, want = np.asarray(r[name]), np.asarray(r[name + "_oracle"])
            assert got.shape == want.shape, (name, got.shape, want.shape)
            # float32 sums in another order than the oracle's: a few ulps
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
            if name in numpy_ref:
                np.testing.assert_allclose(got, numpy_ref[name], rtol=1e-5, atol=1e-6,
                                           err_msg=name)
        np.testing.assert_allclose(r["replicated"], blocks.astype(np.float64).sum(0),
                                   rtol=1e-5, atol=1e-6)
        assert r["replicated_type"] == "Array"
        assert "leaves out mesh axis 'i'" in r["check_rep_error"]
        assert "unbound axis name: j" in r["unbound"]
        for name in _BODIES:   # under jit: the global value, in every process
            np.testing.assert_allclose(r[name + "_jit"], np.asarray(r[name]), rtol=1e-6,
                                       atol=1e-6, err_msg=name)
        _check_grads_in_jit(r, n, x)
        np.testing.assert_allclose(r["vmap"], r["vmap_loop"], rtol=1e-6, atol=1e-6)
        for when in ["top_level", "jit", "failed"]:
            assert r["unbound_after_" + when] == {}, (when, r["unbound_after_" + when])
        assert "the body failed" in r["failed"]
        np.testing.assert_allclose(r["other_mesh"], 2 * blocks.astype(np.float64).sum(0),
                                   rtol=1e-5, atol=1e-6)
        xs3 = np.stack([x, 2 * x, x - 1]).astype(np.float64).reshape(3, n, 2, 3)
        np.testing.assert_allclose(r["vmap_named"], xs3.sum(1), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r["vmap_named_loop"], xs3.sum(1), rtol=1e-5, atol=1e-5)
        assert r["process_axis"] == [n, n * n * (n + 1) / 2]
        assert "local device count 1" in r["process_axis_error"], r["process_axis_error"]


def _fd_grad(f, x, eps=1e-5):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


def _check_grads_in_jit(r, n, x):
    """jit(shard_map) with pmean'd grads, and jit(grad(shard_map)), against NumPy's
    full-batch loss and its finite differences in float64."""
    r2 = np.random.default_rng(5)
    w, xs, t = (r2.standard_normal(s).astype(np.float32) for s in [(3, 2), (n * 4, 3),
                                                                    (n * 4, 2)])

    def loss(w):
        return np.mean((np.tanh(xs.astype(np.float64) @ w) - t) ** 2)

    want = _fd_grad(loss, w)
    np.testing.assert_allclose(r["dp_loss"], loss(w.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(r["dp_grad"], want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(r["outer_grad"], want, rtol=1e-4, atol=1e-6)

    def split_loss(v):
        blocks = v.reshape(n, 2, 3)
        return np.sum((blocks.sum(0) * blocks) ** 2)

    np.testing.assert_allclose(r["split_grad"], _fd_grad(split_loss, x, 1e-4), rtol=1e-4,
                               atol=1e-4)


@requires_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_every_collective_across_processes_against_vmap_and_numpy(tmp_path, n):
    _check_collectives(results(launch(_COLLECTIVES_SCRIPT, n, tmp_path), n), n)


_MLP_2D_SCRIPT = '''
import tjit, tjit.numpy as jnp
from tjit import lax, nn
from tjit.distributed import process_allgather, make_array_from_process_local_data
from tjit.experimental.shard_map import shard_map
from tjit.sharding import P, NamedSharding
tjit.distributed.initialize()
rank = tjit.process_index()
mesh = tjit.make_mesh((2, 2), ("data", "model"))
rng = np.random.default_rng(1)
x = rng.standard_normal((8, 6)).astype(np.float32)
w1 = rng.standard_normal((6, 10)).astype(np.float32)
b1 = rng.standard_normal(10).astype(np.float32)
w2 = rng.standard_normal((10, 4)).astype(np.float32)

def layer(x, w1, b1, w2):
    # x: a batch block; w1/b1: a block of hidden units; w2: the matching rows
    h = nn.relu(x @ w1 + b1)
    return lax.psum(h @ w2, "model")        # the hidden units' contributions, summed

f = shard_map(layer, mesh, in_specs=(P("data", None), P(None, "model"), P("model"),
                                     P("model", None)), out_specs=P("data", None))
y = f(x, w1, b1, w2)
hidden = shard_map(lambda x, w1, b1: nn.relu(x @ w1 + b1), mesh,
                   in_specs=(P("data", None), P(None, "model"), P("model")),
                   out_specs=P("data", "model"))(x, w1, b1)
# inputs given as global arrays built from each process's own block
coords = mesh.coords(mesh.local_devices[0])
xs = make_array_from_process_local_data(NamedSharding(mesh, P("data", None)),
                                        x[4 * coords["data"]:4 * coords["data"] + 4])
y2 = f(xs, w1, b1, w2)
# collectives over both axes: MPI communicators of the tuple ('data', 'model')
gathered = shard_map(lambda b: lax.all_gather(b, ("data", "model"), tiled=True), mesh,
                     in_specs=P("data", "model"), out_specs=P())(w1[:4])
total = shard_map(lambda b: lax.psum(jnp.sum(b, keepdims=True), ("model", "data")), mesh,
                  in_specs=P("data", "model"), out_specs=P())(w1[:4])
report(rank=rank, gathered=gathered, total=total)
# inside jit and grad: global (replicated) arguments and outputs in every process
hidden_jit = tjit.jit(shard_map(lambda x, w1, b1: nn.relu(x @ w1 + b1), mesh,
                                in_specs=(P("data", None), P(None, "model"), P("model")),
                                out_specs=P("data", "model")))(x, w1, b1)
g_w1, g_b1 = tjit.jit(tjit.grad(lambda w1, b1: jnp.sum(f(x, w1, b1, w2) ** 2),
                                argnums=(0, 1)))(w1, b1)
report(rank=rank, y_jit=tjit.jit(f)(x, w1, b1, w2), hidden_jit=hidden_jit, g_w1=g_w1,
       g_b1=g_b1)
report(rank=rank, y=process_allgather(y), hidden=process_allgather(hidden),
       y2=process_allgather(y2), hidden_block_shape=hidden.addressable_data(0).shape)
'''


@requires_mpi
def test_2d_data_model_mlp_layer_against_the_unsharded_layer(tmp_path):
    res = results(launch(_MLP_2D_SCRIPT, 4, tmp_path), 4)
    rng = np.random.default_rng(1)
    x, w1, b1, w2 = (rng.standard_normal(s).astype(np.float32)
                     for s in [(8, 6), (6, 10), (10,), (10, 4)])
    # (10 hidden units over 2 model blocks: 5 each)
    h = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    for r in res.values():
        np.testing.assert_allclose(r["hidden"], h, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r["y"], h @ w2, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(r["y2"], r["y"])
        assert r["hidden_block_shape"] == [4, 5]
        blocks = w1[:4].reshape(2, 2, 2, 5).swapaxes(1, 2)   # (data, model, 2, 5)
        np.testing.assert_array_equal(r["gathered"], np.concatenate(
            [blocks[i, j] for i in range(2) for j in range(2)]))
        np.testing.assert_allclose(r["total"], [[w1[:4].astype(np.float64).sum()]],
                                   rtol=1e-5)
        np.testing.assert_allclose(r["y_jit"], h @ w2, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r["hidden_jit"], h, rtol=1e-5, atol=1e-5)
    # the gradient of sum(layer ** 2) in float64 (relu's kinks are not near these points)
    mask = (x.astype(np.float64) @ w1 + b1) > 0
    dh = 2 * (h @ w2) @ w2.T * mask
    for r in res.values():
        np.testing.assert_allclose(r["g_w1"], x.T.astype(np.float64) @ dh, rtol=1e-4,
                                   atol=1e-4)
        np.testing.assert_allclose(r["g_b1"], dh.sum(0), rtol=1e-4, atol=1e-4)
