"""JAX programs ported by changing imports, round 4: what cells of JAX's documentation
and example scripts (benchmarks/ports) still met. Expected values and texts were computed
with JAX 0.10.2 and are written out here (no jax import in tests)."""

import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.sharding import NamedSharding, PartitionSpec as P


def test_named_sharding_update_replaces_mesh_spec_or_memory_kind():
    # docs/hijax_types.md builds a type's sharding with NamedSharding.update
    mesh = tjit.make_mesh((1,), ("x",))
    s = NamedSharding(mesh, P("x"))
    u = s.update(spec=("x", None))              # a sequence becomes a PartitionSpec
    assert u.spec == P("x", None) and u.mesh is mesh and s.spec == P("x")
    # JAX 0.10.2: NamedSharding(mesh=Mesh('x': 1, axis_types=(Explicit,)), spec=P(),
    # memory_kind=device)
    assert repr(s.update(spec=P())) == ("NamedSharding(mesh=Mesh('x': 1, axis_types="
                                        "(Explicit,)), spec=P(), memory_kind=device)")
    other = tjit.make_mesh((1,), ("y",))
    moved = s.update(mesh=other, spec=P("y"))
    assert moved.mesh is other and moved.spec == P("y")
    assert s.update() == s
    with pytest.raises(ValueError, match="'z'"):    # as JAX: ValueError naming the axis
        s.update(spec=P("z"))
    # (JAX ignores an unknown keyword; a misspelt one here is an error naming it)
    with pytest.raises(TypeError, match=r"NamedSharding.update.*\['spc'\]"):
        s.update(spc=P())


def test_jaxpr_prints_dot_precision_as_a_pair():
    # examples/kernel_lsq.py prints the jaxpr of a dot with precision=HIGH; JAX keeps
    # the canonical pair, one entry per operand
    x = jnp.ones((3, 2))
    text = str(tjit.make_jaxpr(lambda a: jnp.dot(a, a.T, precision=lax.Precision.HIGH))(x))
    assert "precision=(Precision.HIGH, Precision.HIGH)" in text
    text = str(tjit.make_jaxpr(lambda a: jnp.dot(a, a.T, precision="highest"))(x))
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in text
    text = str(tjit.make_jaxpr(lambda a: jnp.dot(
        a, a.T, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)))(x))
    assert "precision=(Precision.HIGH, Precision.DEFAULT)" in text
    assert "precision" not in str(tjit.make_jaxpr(lambda a: a @ a.T)(x))


def test_arange_of_none_is_a_type_error_naming_arange():
    # JAX: TypeError (from float(None)); here it said "reduce() of empty iterable"
    with pytest.raises(TypeError, match=r"jnp.arange: start is None"):
        jnp.arange(None)
    with pytest.raises(TypeError, match=r"jnp.arange: start is None"):
        jnp.arange(None, 5)
    assert jnp.arange(3, None).tolist() == [0, 1, 2]     # stop=None: arange(3)


def test_user_rules_get_tuples_as_in_jax():
    # docs/jax-primitives.md prints the arguments of its jvp and batching rules: JAX
    # passes (primals, tangents) and (args, dims) as tuples, which its printer shows as
    # "(2.0, 2.0, 10.0)" (a list printed the Arrays' reprs)
    from tjit.extend.core import Primitive
    from tjit.interpreters import ad, batching
    import numpy as np
    p = Primitive("ports4_scale")
    p.def_impl(lambda x: np.asarray(x) * 3)
    p.def_abstract_eval(lambda x: x)
    seen = []

    def jvp(primals, tangents):
        seen.append(("jvp", type(primals), type(tangents)))
        return p.bind(*primals), p.bind(*tangents)

    def batch(args, dims):
        seen.append(("batch", type(args), type(dims)))
        return p.bind(*args), dims[0]
    ad.primitive_jvps[p] = jvp
    batching.primitive_batchers[p] = batch
    assert ad.primitive_jvps[p] is jvp and batching.primitive_batchers[p] is batch
    y, t = tjit.jvp(lambda x: p.bind(x), (2.0,), (1.0,))
    assert (float(y), float(t)) == (6.0, 3.0)
    out = tjit.vmap(lambda x: p.bind(x))(jnp.arange(3.0))
    assert out.tolist() == [0.0, 3.0, 6.0]
    assert seen == [("jvp", tuple, tuple), ("batch", tuple, tuple)]


def test_mesh_repr_and_str_as_jax():
    # docs/new_docs/201/placement.md shows a mesh's repr; JAX 0.10.2 gives the sizes and
    # names apart, and the short form for str() and inside a NamedSharding's repr
    mesh = tjit.make_mesh((1,), ("x",))
    assert repr(mesh) == "Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Explicit,))"
    assert str(mesh) == "Mesh('x': 1, axis_types=(Explicit,))"
    assert repr(tjit.sharding.Mesh(tjit.devices(), ("x",))) == (
        "Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Auto,))")
    assert repr(NamedSharding(mesh, P("x"))) == (
        "NamedSharding(mesh=Mesh('x': 1, axis_types=(Explicit,)), spec=P('x',), "
        "memory_kind=device)")


def test_differentiation_tracers_print_as_jax():
    # a print inside a differentiated function (docs/jax-primitives.md traces its
    # arguments so); JAX 0.10.2's texts
    seen = []

    def f(x):
        seen.append(repr(x))
        return jnp.sin(x)
    tjit.grad(f)(2.0)
    tjit.jvp(f, (2.0,), (1.0,))
    tjit.grad(tjit.grad(f))(2.0)
    tjit.jit(tjit.grad(f))(2.0)
    tjit.jacfwd(f)(jnp.ones(2))
    assert seen == [
        "GradTracer(primal=2.0, typeof(tangent)=f32[])",
        "JVPTracer(primal=2.0, tangent=1.0)",
        "GradTracer(primal=GradTracer(primal=2.0, typeof(tangent)=f32[]), "
        "typeof(tangent)=f32[])",
        "GradTracer(primal=JitTracer(~float32[]), typeof(tangent)=f32[])",
        "JVPTracer(primal=[1. 1.], tangent=VmapTracer(aval=float32[2], "
        "batched=float32[2,2]))"]
