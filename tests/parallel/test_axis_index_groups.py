"""``axis_index_groups`` (JAX's: the collective runs within each group of members) for
psum, pmean, pmax, pmin, all_gather, psum_scatter and all_to_all: under vmap(axis_name)
against NumPy per group (float64), pmap on 4 CPU devices (threads, sub-groups) against the
vmap oracle, gradients against finite differences, and the errors for groups that do not
partition the axis. Across MPI processes: tests/distributed/test_shard_map.py."""

import threading
import time

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices.backend import cpu_device_count
from tjit.devices.collectives import CollectiveAborted, ThreadGroup

N = 4
PAIRS = ((0, 1), (2, 3))
CROSSED = ((3, 0), (2, 1))     # (group order is not rank order)
UNEVEN = ((0,), (1, 2, 3))     # (reductions only: all_gather needs equal sizes)


def _x(seed=0):
    return np.random.default_rng(seed).standard_normal((N, 4, 2)).astype(np.float32)


def _by_member(groups, per_group):
    """Row m: ``per_group(group, k)`` for member m at position k of its group."""
    out = [None] * N
    for g in groups:
        for k, m in enumerate(g):
            out[m] = per_group(list(g), k)
    return np.stack(out)


def _cases():
    out = []
    for groups in (PAIRS, CROSSED, UNEVEN):
        out += [
            ("psum", groups, lambda v, g=groups: lax.psum(v, "i", axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m].sum(0))),
            ("pmean", groups, lambda v, g=groups: lax.pmean(v, "i", axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m].mean(0))),
            ("pmax", groups, lambda v, g=groups: lax.pmax(v, "i", axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m].max(0))),
            ("pmin", groups, lambda v, g=groups: lax.pmin(v, "i", axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m].min(0))),
        ]
    for groups in (PAIRS, CROSSED):
        out += [
            ("all_gather", groups,
             lambda v, g=groups: lax.all_gather(v, "i", axis_index_groups=g, axis=1),
             lambda X, g=groups: _by_member(g, lambda m, k: np.stack(X[m], 1))),
            ("all_gather_tiled", groups,
             lambda v, g=groups: lax.all_gather(v, "i", axis_index_groups=g, tiled=True),
             lambda X, g=groups: _by_member(g, lambda m, k: np.concatenate(X[m], 0))),
            ("psum_scatter", groups,
             lambda v, g=groups: lax.psum_scatter(v[:2], "i", axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m][:, :2].sum(0)[k])),
            ("psum_scatter_tiled", groups,
             lambda v, g=groups: lax.psum_scatter(v, "i", axis_index_groups=g, tiled=True),
             lambda X, g=groups: _by_member(g, lambda m, k: X[m].sum(0)[2 * k:2 * k + 2])),
            # member at position k receives block k of each group member's operand
            ("all_to_all", groups,
             lambda v, g=groups: lax.all_to_all(v[:2], "i", 0, 1, axis_index_groups=g),
             lambda X, g=groups: _by_member(g, lambda m, k: np.stack(
                 [X[j][k] for j in m], axis=1))),
            ("all_to_all_tiled", groups,
             lambda v, g=groups: lax.all_to_all(v, "i", 0, 1, axis_index_groups=g,
                                                tiled=True),
             lambda X, g=groups: _by_member(g, lambda m, k: np.concatenate(
                 [X[j][2 * k:2 * k + 2] for j in m], axis=1))),
        ]
    return out


CASES = _cases()
IDS = [f"{name}-{groups}" for name, groups, _, _ in CASES]


@pytest.mark.parametrize("name, groups, fn, ref", CASES, ids=IDS)
def test_vmap_against_numpy(name, groups, fn, ref):
    X = _x()
    got = tjit.vmap(fn, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), ref(X.astype(np.float64)), rtol=1e-5,
                               atol=1e-6)
    jitted = tjit.jit(tjit.vmap(fn, axis_name="i"))(X)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(got), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, groups, fn, ref", CASES, ids=IDS)
def test_pmap_against_the_vmap_oracle(name, groups, fn, ref):
    X = _x(1)
    with cpu_device_count(N):
        got = tjit.pmap(fn, axis_name="i")(X)
    want = tjit.vmap(fn, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


def _fd_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["psum", "pmean", "all_gather", "psum_scatter_tiled",
                                  "all_to_all_tiled"])
def test_gradients_against_finite_differences(name):
    fn, ref = next((f, r) for n, g, f, r in CASES if n == name and g == CROSSED)
    X = _x(2)
    W = np.random.default_rng(3).standard_normal(ref(X).shape)

    def loss(v):
        return jnp.sum(jnp.sin(tjit.vmap(fn, axis_name="i")(v)) * W)

    want = _fd_grad(lambda v: np.sum(np.sin(ref(v)) * W), X)
    for g in (tjit.grad(loss), tjit.jit(tjit.grad(loss))):
        np.testing.assert_allclose(np.asarray(g(X)), want, rtol=1e-4, atol=1e-4)
    with cpu_device_count(N):   # each device's own gradient, transposes on the threads
        per_device = tjit.pmap(tjit.grad(lambda v: jnp.sum(jnp.sin(fn(v)))), axis_name="i")(X)
    oracle = tjit.vmap(tjit.grad(lambda v: jnp.sum(jnp.sin(fn(v)))), axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(per_device), np.asarray(oracle), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("end", ["abort", "member_done"])
def test_members_waiting_in_a_group_are_released(end):
    # member 0 waits in its group's collective for member 1, which fails (the axis's
    # group aborts) or finishes its program: member 0 must raise, not hang
    members = ThreadGroup(N, "i").members()
    mine = members[0].subgroup(PAIRS)
    errors = []

    def wait():
        try:
            mine.allreduce(np.ones(2, np.float32), "sum")
        except (CollectiveAborted, RuntimeError) as e:
            errors.append(e)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.05)
    if end == "abort":
        members[1].group.abort()
    else:
        members[1].group.member_done(1)
    t.join(timeout=10)
    assert not t.is_alive() and len(errors) == 1
    assert isinstance(errors[0], CollectiveAborted) == (end == "abort")
    assert members[2].subgroup(PAIRS).group is members[3].subgroup(PAIRS).group


@pytest.mark.parametrize("fn, match", [
    (lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [2]]),
     "must cover all indices exactly once"),
    (lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [1, 2, 3]]),
     "must cover all indices exactly once"),
    (lambda v: lax.all_gather(v, "i", axis_index_groups=UNEVEN), "must all be the same size"),
    (lambda v: lax.psum_scatter(v, "i", axis_index_groups=UNEVEN),
     "must all be the same size"),
    (lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], []]), "has an empty group"),
    (lambda v: lax.psum(v, "i", axis_index_groups=[0, 1, 2, 3]),
     "must be a list of lists of axis indices"),
    (lambda v: lax.all_to_all(v, "i", 0, 0, axis_index_groups=UNEVEN, tiled=True),
     "must all be the same size"),
    (lambda v: lax.all_to_all(v, "i", 0, 0, axis_index_groups=PAIRS),
     "must equal the group size 2"),
])
def test_bad_groups_raise_naming_the_collective(fn, match):
    with pytest.raises((ValueError, TypeError, NotImplementedError), match=match):
        tjit.vmap(fn, axis_name="i")(_x())


def test_groups_over_several_names_raise():
    with pytest.raises(NotImplementedError, match="several axis names"):
        tjit.vmap(tjit.vmap(lambda v: lax.psum(v, ("i", "j"), axis_index_groups=PAIRS),
                            axis_name="j"), axis_name="i")(_x()[:, :2])


def test_shard_map_check_rep_knows_a_grouped_psum_varies():
    # a psum within several groups differs between groups: out_specs=P() must be refused
    # (it would return one group's sum as the whole axis's)
    from tjit.sharding import P
    with cpu_device_count(N):
        mesh = tjit.make_mesh((N,), ("i",))
        x = _x().reshape(N * 4, 2)
        grouped = tjit.shard_map(lambda b: lax.psum(b, "i", axis_index_groups=PAIRS), mesh,
                                 in_specs=P("i"), out_specs=P())
        for call in (grouped, tjit.jit(grouped)):
            with pytest.raises(ValueError, match="leaves out mesh axis 'i'"):
                call(x)
        whole = tjit.shard_map(lambda b: lax.psum(b, "i", axis_index_groups=[range(N)]), mesh,
                               in_specs=P("i"), out_specs=P())
        np.testing.assert_allclose(np.asarray(whole(x)), x.reshape(N, 4, 2).sum(0), rtol=1e-5)
        split = tjit.shard_map(lambda b: lax.psum(b, "i", axis_index_groups=PAIRS), mesh,
                               in_specs=P("i"), out_specs=P("i"))
        want = tjit.vmap(lambda b: lax.psum(b, "i", axis_index_groups=PAIRS),
                         axis_name="i")(x.reshape(N, 4, 2)).reshape(N * 4, 2)
        for call in (split, tjit.jit(split)):
            np.testing.assert_allclose(np.asarray(call(x)), np.asarray(want), rtol=1e-6)
