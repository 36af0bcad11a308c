"""An axis name is bound only inside the mapping that binds it: after vmap(axis_name),
pmap, shard_map (top level, in jit, in jit(grad)) and failed ones, every collective used
outside a mapping raises JAX's unbound-axis error, eagerly and under jit, grad and
jit(grad) (tests/parallel/unbound.py). Across MPI processes: tests/distributed.

Also the mechanism that replaced a process-wide fallback: a collective traced inside a
scope that binds its names to a CommunicatorTable carries the table, so its transpose,
traced by grad after the scope closed, and the compiled program, run with nothing bound,
reach the table's communicators (checked against NumPy with a stand-in communicator)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.parallel.unbound import unbound_outcomes, wrong_outcomes
from tjit import lax
from tjit.devices.backend import cpu_device_count
from tjit.parallel import _bound
from tjit.sharding import P
from tjit.tracing.axis_env import CommunicatorTable

N = 4


def _x():
    return np.random.default_rng(0).standard_normal((N, 4)).astype(np.float32)


def _body(b):
    return lax.psum(b * b, "i") + lax.all_gather(b, "i", tiled=True)[:4]


def _shard(mesh):
    return tjit.shard_map(_body, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)


def _fail(*_):
    lax.psum(np.float32(1), "i")
    raise ValueError("the mapped function failed")


_AFTER = {
    "nothing": lambda mesh: None,
    "vmap": lambda mesh: tjit.vmap(_body, axis_name="i")(_x()),
    "jit_grad_vmap": lambda mesh: tjit.jit(tjit.grad(
        lambda x: jnp.sum(tjit.vmap(_body, axis_name="i")(x))))(_x()),
    "pmap": lambda mesh: tjit.pmap(_body, axis_name="i")(_x()),
    "jit_grad_pmap": lambda mesh: tjit.jit(tjit.grad(
        lambda x: jnp.sum(tjit.pmap(_body, axis_name="i")(x))))(_x()),
    "shard_map": lambda mesh: _shard(mesh)(_x().reshape(-1)),
    "jit_grad_shard_map": lambda mesh: tjit.jit(tjit.grad(
        lambda x: jnp.sum(_shard(mesh)(x))))(_x().reshape(-1)),
    "failed_vmap": lambda mesh: tjit.vmap(_fail, axis_name="i")(_x()),
    "failed_pmap": lambda mesh: tjit.pmap(_fail, axis_name="i")(_x()),
    "failed_jit_shard_map": lambda mesh: tjit.jit(tjit.shard_map(
        _fail, mesh, in_specs=P("i"), out_specs=P("i")))(_x().reshape(-1)),
}


@pytest.mark.parametrize("after", list(_AFTER))
def test_every_collective_is_unbound_after_a_mapping(after):
    with cpu_device_count(N):
        mesh = tjit.make_mesh((N,), ("i",))
        try:
            _AFTER[after](mesh)
        except ValueError as e:
            assert "the mapped function failed" in str(e)
        outcomes = unbound_outcomes("i")
    assert len(outcomes) == 40
    assert wrong_outcomes(outcomes) == {}


class _Replicated:
    """A stand-in member (rank 0 of 3) of a group whose members all hold this member's
    operand: what it receives is known without other processes."""
    rank, size = 0, 3

    def allreduce(self, x, op):
        return x * self.size if op == "sum" else x.copy()

    def allgather(self, x):
        return np.stack([x] * self.size)

    def reduce_scatter(self, x, op):
        return x[self.rank] * self.size

    def permute(self, x, pairs):
        return x.copy() if self.rank in {d for _, d in pairs} else np.zeros_like(x)


def _in_table_scope(f, table):
    """``f`` traced with ``i`` bound to ``table`` (as shard_map over processes does);
    grad transposes it after the scope has closed."""
    def scoped(x):
        with _bound([("i", table.sizes["i"])], comms=table):
            return f(x)
    return scoped


@pytest.mark.parametrize("name, f, want_grad", [
    # one member's d/dx sum(psum(x^2)): the transpose of psum is psum, so 3 * 2x
    ("psum", lambda x: lax.psum(x * x, "i"), lambda x: 3 * 2 * x),
    # all_gather's transpose is psum_scatter: member 0's block of the summed cotangent
    ("all_gather", lambda x: lax.all_gather(x, "i", tiled=True) ** 2,
     lambda x: 3 * 2 * x),
    ("ppermute", lambda x: lax.ppermute(x, "i", ((1, 0), (0, 1))) * x,
     lambda x: 2 * x),
])
def test_transposes_traced_after_the_scope_use_the_table(name, f, want_grad):
    table = CommunicatorTable("stand-in mesh", {"i": 3}, {"i": _Replicated()})
    x = _x()[0]
    g = tjit.jit(tjit.grad(lambda v: jnp.sum(_in_table_scope(f, table)(v))))
    text = str(tjit.make_jaxpr(tjit.grad(lambda v: jnp.sum(_in_table_scope(f, table)(v))))(
        x))
    assert "<communicators of 'stand-in mesh'>" in text
    np.testing.assert_allclose(np.asarray(g(x)), want_grad(x.astype(np.float64)),
                               rtol=1e-6)
    assert wrong_outcomes(unbound_outcomes("i")) == {}


def test_a_vmap_outside_a_mesh_scope_leaves_the_mesh_axis_alone():
    # vmap(axis_name="i") around a scope that binds "i" to a mesh: the collective inside
    # is the mesh's (innermost binding), not the vmap's
    table = CommunicatorTable("stand-in mesh", {"i": 3}, {"i": _Replicated()})
    xs = _x()
    out = tjit.jit(tjit.vmap(_in_table_scope(lambda v: lax.psum(v, "i"), table),
                             axis_name="i"))(xs)
    np.testing.assert_allclose(np.asarray(out), 3 * xs, rtol=1e-6)
    inner = tjit.vmap(lambda v: tjit.vmap(lambda w: lax.psum(w, "i"), axis_name="i")(v),
                      axis_name="i")(xs)   # (plain nested vmaps: the innermost "i")
    np.testing.assert_allclose(np.asarray(inner), np.broadcast_to(xs.sum(1, keepdims=True),
                                                                  xs.shape), rtol=1e-5)


def test_a_custom_vjp_bwd_runs_its_collectives_on_the_mesh_of_its_call():
    # Megatron's "f" operator: identity forward, psum backward. grad transposes it after
    # the mesh scope closed; its bwd still reaches the mesh's communicators
    table = CommunicatorTable("stand-in mesh", {"i": 3}, {"i": _Replicated()})

    @tjit.custom_vjp
    def identity_psum_bwd(x):
        return x

    identity_psum_bwd.defvjp(lambda x: (x, None), lambda _, g: (lax.psum(g, "i"),))
    x = _x()[0]
    loss = _in_table_scope(lambda v: jnp.sum(identity_psum_bwd(v) ** 2), table)
    for g in (tjit.grad(loss), tjit.jit(tjit.grad(loss))):
        np.testing.assert_allclose(np.asarray(g(x)), 3 * 2 * x.astype(np.float64), rtol=1e-6)
    assert wrong_outcomes(unbound_outcomes("i")) == {}
