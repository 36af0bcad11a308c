"""pmap over the devices of every process (JAX's multi-process pmap): each of 2 and 4
MPI processes passes its local slice (one device per process) and gets its slice of the
result; every collective against the one-process vmap(axis_name) oracle over the whole
stacked input, and pmap(grad(...)) with pmean against NumPy's gradient; jit(pmap(...))
maps this process's slice with collectives across the processes. One launch per process count."""

import numpy as np
import pytest

from tests.distributed.mpi_harness import launch, requires_mpi, results

_SCRIPT = '''
import tjit
from tjit import lax
import tjit.numpy as jnp
tjit.distributed.initialize()
rank, n = tjit.process_index(), tjit.process_count()
ring = tuple((r, (r + 1) % n) for r in range(n))
cases = {
    "psum": lambda x: lax.psum(x, "i"),
    "pmean": lambda x: lax.pmean(x, "i"),
    "pmax": lambda x: lax.pmax(x, "i"),
    "pmin": lambda x: lax.pmin(x, "i"),
    "psum_pytree": lambda x: lax.psum({"a": x, "b": (2 * x, x[0])}, "i")["b"][0],
    "all_gather": lambda x: lax.all_gather(x, "i"),
    "all_gather_tiled": lambda x: lax.all_gather(x, "i", axis=1, tiled=True),
    "psum_scatter": lambda x: lax.psum_scatter(x, "i"),
    "all_to_all": lambda x: lax.all_to_all(x, "i", 0, 1),
    "ppermute": lambda x: lax.ppermute(x, "i", ring),
    "axis_index": lambda x: x * lax.axis_index("i").astype(x.dtype) + lax.axis_size("i"),
}
X = np.random.default_rng(0).standard_normal((n, n, 3)).astype(np.float32)
mine = X[rank:rank + 1]                      # this process's local slice (1 device)
out = {}
for name, fn in cases.items():
    got = tjit.pmap(fn, axis_name="i")(mine)
    oracle = tjit.vmap(fn, axis_name="i")(X)[rank:rank + 1]
    out[name] = [np.asarray(got).tolist(), np.asarray(oracle).tolist(),
                 [d.process_index for d in got.devices()]]
# pmap(grad): each process's gradient of its own loss, averaged over the processes
W = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
loss = lambda w, x: jnp.mean(jnp.tanh(x @ w) ** 2)
step = tjit.pmap(lambda w, x: lax.pmean(tjit.grad(loss)(w, x), "i"), axis_name="i")
g = step(W[None], mine)
# traced under jit, pmap maps this process's slice; its collectives still span processes
jitted = tjit.jit(tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i"))(mine)
report(rank=rank, cases=out, grad=np.asarray(g)[0], devices=len(tjit.devices()),
       jitted=np.asarray(jitted))
'''


def _numpy_grad(W, X):
    """d/dW of mean over processes p of mean(tanh(X[p] @ W) ** 2), in float64."""
    W, X = W.astype(np.float64), X.astype(np.float64)
    total = np.zeros_like(W)
    for x in X:
        t = np.tanh(x @ W)
        total += x.T @ (2 * t * (1 - t ** 2)) / t.size
    return total / len(X)


@requires_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_pmap_spans_processes_like_vmap(tmp_path, n):
    res = results(launch(_SCRIPT, n, tmp_path, timeout=120), n)
    X = np.random.default_rng(0).standard_normal((n, n, 3)).astype(np.float32)
    W = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
    want_grad = _numpy_grad(W, X)
    for rank, r in res.items():
        assert r["devices"] == n
        for name, (got, oracle, procs) in r["cases"].items():
            np.testing.assert_allclose(got, oracle, rtol=1e-6, atol=1e-6,
                                       err_msg=f"{name} on process {rank} of {n}")
            assert procs == [rank], name
        np.testing.assert_allclose(np.asarray(r["cases"]["psum"][0])[0],
                                   X.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r["grad"], want_grad, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(r["jitted"]), X.astype(np.float64).sum(0)[None],
                                   rtol=1e-5, atol=1e-5)
