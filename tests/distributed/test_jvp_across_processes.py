"""Forward mode across MPI processes: jvp, linearize and jacfwd of shard_map over a mesh of
2 processes and of pmap over the processes, for every collective, against the one-process
oracle ``vmap(axis_name=...)`` over the same global data and against central finite
differences of a float64 NumPy reference. The tangents' collectives run on the same
communicators as the primal ones (the check would see a local-only reduction). One
launch runs every check."""

import numpy as np
import pytest

from tests.distributed.mpi_harness import launch, requires_mpi, results

N = 2   # processes

_SCRIPT = '''
import tjit, tjit.numpy as jnp
from tjit import lax
from tjit.experimental.shard_map import shard_map
from tjit.sharding import P
tjit.distributed.initialize()
n, rank = tjit.process_count(), tjit.process_index()
mesh = tjit.make_mesh((n,), ("i",))
rng = np.random.default_rng(0)          # the same global data in every process
x = rng.standard_normal((n * 2, 3)).astype(np.float32)
t = rng.standard_normal((n * 2, 3)).astype(np.float32)
ring = [(j, (j + 1) % n) for j in range(n)]
collectives = {
    "psum": lambda b: lax.psum(b, "i"),
    "pmean": lambda b: lax.pmean(b, "i"),
    "pmax": lambda b: lax.pmax(b, "i"),
    "pmin": lambda b: lax.pmin(b, "i"),
    "all_gather": lambda b: lax.all_gather(b, "i"),
    "all_gather_tiled_1": lambda b: lax.all_gather(b, "i", axis=1, tiled=True),
    "psum_scatter": lambda b: lax.psum_scatter(b, "i", tiled=True),
    "all_to_all": lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True),
    "ppermute": lambda b: lax.ppermute(b, "i", ring),
    "axis_index": lambda b: b * lax.axis_index("i").astype(jnp.float32),
    "psum_groups": lambda b: lax.psum(b, "i", axis_index_groups=[[0], [1]]),
    "all_gather_groups": lambda b: lax.all_gather(b, "i", axis_index_groups=[[1, 0]]),
    "all_to_all_groups": lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True,
                                                  axis_index_groups=[[1, 0]]),
}
out = {}
for name, c in collectives.items():
    body = lambda b, c=c: c(jnp.sin(b)) ** 2
    sm = shard_map(body, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)
    r = {}
    r["sm_jvp"] = tjit.jvp(sm, (x,), (t,))[1]
    r["sm_jit_jvp"] = tjit.jit(lambda a, b: tjit.jvp(sm, (a,), (b,)))(x, t)[1]
    r["sm_linearize"] = tjit.linearize(sm, x)[1](t)
    r["sm_jacfwd_t"] = np.tensordot(np.asarray(tjit.jacfwd(sm)(x)), t, axes=2)
    # the oracle: vmap over the processes' blocks, in this one process
    orc = tjit.vmap(body, axis_name="i")
    X, T = x.reshape(n, 2, 3), t.reshape(n, 2, 3)
    o = np.asarray(tjit.jvp(orc, (X,), (T,))[1])
    r["oracle"] = o.reshape((-1,) + o.shape[2:])
    # pmap over the processes: this process's slice in and out
    pm = tjit.pmap(body, axis_name="i")
    mine, tm = X[rank:rank + 1], T[rank:rank + 1]
    r["pm_jvp"] = tjit.jvp(pm, (mine,), (tm,))[1][0]
    r["pm_jit_jvp"] = tjit.jit(lambda a, b: tjit.jvp(pm, (a,), (b,)))(mine, tm)[1][0]
    r["pm_linearize"] = tjit.linearize(pm, mine)[1](tm)[0]
    # jacfwd(pmap): every process pushes the same basis vector of its slice
    jac = np.asarray(tjit.jacfwd(pm)(mine))[0]
    lead = jac.ndim - 3
    r["pm_jacfwd"] = jac.reshape(jac.shape[:lead] + (-1,))
    shift = lambda v: orc(X + v[None])
    oj = np.asarray(tjit.jacfwd(shift)(np.zeros((2, 3), np.float32)))[rank]
    r["pm_jacfwd_oracle"] = oj.reshape(oj.shape[:lead] + (-1,))
    out[name] = {k: np.asarray(v).tolist() for k, v in r.items()}
report(rank=rank, **out)
'''

_COLLECTIVE_REFS = {   # X: (n, 2, 3) the members' blocks -> the members' results stacked
    "psum": lambda X: np.stack([X.sum(0)] * N),
    "pmean": lambda X: np.stack([X.mean(0)] * N),
    "pmax": lambda X: np.stack([X.max(0)] * N),
    "pmin": lambda X: np.stack([X.min(0)] * N),
    "all_gather": lambda X: np.stack([X] * N),
    "all_gather_tiled_1": lambda X: np.stack([np.concatenate(list(X), axis=1)] * N),
    "psum_scatter": lambda X: np.stack([X.sum(0)[r:r + 1] for r in range(N)]),
    "all_to_all": lambda X: np.stack([X[:, r] for r in range(N)]),
    "ppermute": lambda X: np.roll(X, 1, axis=0),
    "axis_index": lambda X: X * np.arange(N)[:, None, None],
    "psum_groups": lambda X: X,
    "all_gather_groups": lambda X: np.stack([X[[1, 0]]] * N),
    # one group [1, 0]: member 1 is the group's rank 0, member 0 its rank 1
    "all_to_all_groups": lambda X: np.stack([X[[1, 0], 1], X[[1, 0], 0]]),
}


def _reference(name, X):
    return _COLLECTIVE_REFS[name](np.sin(X)) ** 2


def _fd_tangent(name, X, T, eps=1e-6):
    return (_reference(name, X + eps * T) - _reference(name, X - eps * T)) / (2 * eps)


@requires_mpi
def test_forward_mode_of_every_collective_across_processes(tmp_path):
    res = results(launch(_SCRIPT, N, tmp_path, timeout=240), N)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N * 2, 3)).astype(np.float32)
    t = rng.standard_normal((N * 2, 3)).astype(np.float32)
    X, T = x.reshape(N, 2, 3).astype(np.float64), t.reshape(N, 2, 3).astype(np.float64)
    for name in _COLLECTIVE_REFS:
        fd = _fd_tangent(name, X, T)            # (members,) + one member's result
        fd_global = fd.reshape((-1,) + fd.shape[2:])
        for rank, r in res.items():
            got = r[name]
            msg = f"{name} on process {rank}"
            np.testing.assert_allclose(got["oracle"], fd_global, rtol=1e-4, atol=1e-4,
                                       err_msg=msg + ": the vmap oracle")
            for form in ("sm_jvp", "sm_jit_jvp", "sm_linearize", "sm_jacfwd_t"):
                np.testing.assert_allclose(got[form], got["oracle"], rtol=1e-5, atol=1e-5,
                                           err_msg=f"{msg}: {form}")
                np.testing.assert_allclose(got[form], fd_global, rtol=1e-4, atol=1e-4,
                                           err_msg=f"{msg}: {form} vs finite differences")
            for form in ("pm_jvp", "pm_jit_jvp", "pm_linearize"):
                np.testing.assert_allclose(got[form], fd[rank], rtol=1e-4, atol=1e-4,
                                           err_msg=f"{msg}: {form}")
            np.testing.assert_allclose(got["pm_jacfwd"], got["pm_jacfwd_oracle"], rtol=1e-5,
                                       atol=1e-5, err_msg=f"{msg}: jacfwd(pmap)")
            # each column: the tangent of the same basis vector pushed on every process
            for k in range(6):
                e = np.zeros((N, 2, 3))
                e[:, k // 3, k % 3] = 1
                np.testing.assert_allclose(
                    np.asarray(got["pm_jacfwd"])[..., k], _fd_tangent(name, X, e)[rank],
                    rtol=1e-4, atol=1e-4, err_msg=f"{msg}: jacfwd(pmap) column {k}")


@pytest.mark.parametrize("name", sorted(_COLLECTIVE_REFS))
def test_numpy_references_are_the_vmap_oracle(name):
    """The references above, checked against vmap(axis_name) in one process (so a wrong
    reference cannot hide behind the MPI launch)."""
    import tjit
    import tjit.numpy as jnp
    from tjit import lax
    ring = [(j, (j + 1) % N) for j in range(N)]
    coll = {
        "psum": lambda b: lax.psum(b, "i"),
        "pmean": lambda b: lax.pmean(b, "i"),
        "pmax": lambda b: lax.pmax(b, "i"),
        "pmin": lambda b: lax.pmin(b, "i"),
        "all_gather": lambda b: lax.all_gather(b, "i"),
        "all_gather_tiled_1": lambda b: lax.all_gather(b, "i", axis=1, tiled=True),
        "psum_scatter": lambda b: lax.psum_scatter(b, "i", tiled=True),
        "all_to_all": lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True),
        "ppermute": lambda b: lax.ppermute(b, "i", ring),
        "axis_index": lambda b: b * lax.axis_index("i").astype(jnp.float32),
        "psum_groups": lambda b: lax.psum(b, "i", axis_index_groups=[[0], [1]]),
        "all_gather_groups": lambda b: lax.all_gather(b, "i", axis_index_groups=[[1, 0]]),
        "all_to_all_groups": lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True,
                                                      axis_index_groups=[[1, 0]]),
    }[name]
    X = np.random.default_rng(3).standard_normal((N, 2, 3)).astype(np.float32)
    got = tjit.vmap(lambda b: coll(jnp.sin(b)) ** 2, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), _reference(name, X.astype(np.float64)),
                               rtol=1e-5, atol=1e-6)
