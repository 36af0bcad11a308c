"""``tjit.Array`` is an abstract type as ``jax.Array`` is: concrete arrays, tracers under
every transformation and typed key arrays are instances; NumPy arrays and scalars are
not; it cannot be instantiated; ``jnp.ndarray is tjit.Array``; annotations and pickling
work. Expected values are JAX 0.10.2's answers to the same checks."""

import pickle
import typing

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, random
from tjit.tracing.core import Array as ArrayImpl
from tjit.tracing.core import Tracer


def _recording(seen):
    """f(x) = x, noting the type of x and whether it is a tjit.Array at trace time."""
    def f(x):
        seen.append((type(x).__name__, isinstance(x, tjit.Array)))
        return x
    return f


def test_concrete_arrays_are_instances():
    for x in (jnp.ones(3), jnp.asarray(2.0), jnp.arange(4) + 1, tjit.device_put(np.ones(2))):
        assert isinstance(x, tjit.Array), type(x)
    assert issubclass(ArrayImpl, tjit.Array)


@pytest.mark.parametrize("value", [np.ones(3), np.float32(1.0), np.int64(2), 1.0, 3, True,
                                   [1.0, 2.0], None, "x"])
def test_numpy_and_python_values_are_not_instances(value):
    assert not isinstance(value, tjit.Array)
    assert not issubclass(type(value), tjit.Array)


@pytest.mark.parametrize("name,run", [
    ("jit", lambda f, x: tjit.jit(f)(x)),
    ("vmap", lambda f, x: tjit.vmap(f)(x)),
    ("grad", lambda f, x: tjit.grad(lambda v: f(v).sum())(x)),
    ("jvp", lambda f, x: tjit.jvp(f, (x,), (x,))),
    ("vjp", lambda f, x: tjit.vjp(f, x)),
    ("scan body", lambda f, x: lax.scan(lambda c, v: (f(c), v), jnp.zeros(()), x)),
    ("cond branch", lambda f, x: lax.cond(True, f, lambda v: v, x)),
    ("checkpoint", lambda f, x: tjit.grad(tjit.checkpoint(lambda v: f(v).sum()))(x)),
    ("make_jaxpr", lambda f, x: tjit.make_jaxpr(f)(x)),
    ("eval_shape", lambda f, x: tjit.eval_shape(f, x)),
    ("jit of grad of vmap", lambda f, x: tjit.jit(tjit.grad(
        lambda v: tjit.vmap(f)(v).sum()))(x)),
])
def test_tracers_are_instances_under_each_transformation(name, run):
    seen = []
    run(_recording(seen), jnp.arange(3.0))
    assert seen, f"{name}: the function was not traced"
    for kind, is_array in seen:
        assert is_array, f"{name}: a {kind} is not a tjit.Array"
    # and the value seen was a tracer, not a concrete array that slipped through
    assert any(kind != "Array" for kind, _ in seen), (name, seen)


def test_every_tracer_class_is_a_subclass():
    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)
    kinds = list(subclasses(Tracer))
    assert len(kinds) >= 4, kinds
    for cls in kinds:
        assert issubclass(cls, tjit.Array), cls


def test_typed_keys_are_instances_raw_keys_are_ordinary_arrays():
    key = random.key(0)
    assert isinstance(key, tjit.Array)
    assert isinstance(random.split(key, 3), tjit.Array)
    assert isinstance(random.PRNGKey(0), tjit.Array)  # a uint32 array, as in JAX
    seen = []
    tjit.jit(_recording(seen))(key)
    tjit.vmap(_recording(seen))(random.split(key, 2))
    assert [s[1] for s in seen] == [True, True], seen


def test_cannot_be_instantiated_with_advice():
    for args in [(), (np.ones(3),), (np.ones(3), True)]:
        with pytest.raises(TypeError, match=r"tjit\.Array is an abstract type.*"
                                            r"tjit\.numpy\.asarray\(x\)"):
            tjit.Array(*args)
    with pytest.raises(TypeError, match="abstract type"):
        jnp.ndarray(3)


def test_names_and_identity():
    assert jnp.ndarray is tjit.Array  # as jnp.ndarray is jax.Array
    assert repr(tjit.Array) == str(tjit.Array) == "<class 'tjit.Array'>"
    assert tjit.Array.__name__ == "Array" and tjit.Array.__module__ == "tjit"
    assert pickle.loads(pickle.dumps(tjit.Array)) is tjit.Array


def test_annotations_and_typing_arraylike():
    def f(x: tjit.Array, y: jnp.ndarray) -> tjit.Array:
        return x + y
    hints = typing.get_type_hints(f)
    assert hints == {"x": tjit.Array, "y": tjit.Array, "return": tjit.Array}
    np.testing.assert_array_equal(tjit.jit(f)(jnp.ones(2), jnp.ones(2)), [2.0, 2.0])
    assert tjit.Array in typing.get_args(tjit.typing.ArrayLike)
    assert np.ndarray in typing.get_args(tjit.typing.ArrayLike)


def test_pickled_arrays_round_trip_as_concrete_arrays():
    for x in (jnp.arange(6, dtype=jnp.int32).reshape(2, 3), jnp.asarray(1.5)):
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is type(x) and isinstance(y, tjit.Array)
        assert y.dtype == x.dtype and y.weak_type == x.weak_type
        np.testing.assert_array_equal(np.asarray(y), np.asarray(x))


def test_user_code_branching_on_the_type_traces():
    # the optax-style idiom: leave non-arrays alone, scale arrays, also under jit/grad
    def scale(tree):
        return tjit.tree_util.tree_map(
            lambda v: v * 2 if isinstance(v, tjit.Array) else v, tree)

    def loss(x):
        out = scale({"a": x, "n": np.float32(3.0)})
        return out["a"].sum() * out["n"]
    x = jnp.asarray([1.0, 2.0])
    assert float(tjit.jit(loss)(x)) == pytest.approx(18.0)
    np.testing.assert_allclose(tjit.grad(loss)(x), [6.0, 6.0])


def test_global_arrays_are_instances_refs_are_not():
    # a multi-process array is a jax.Array; a mutable Ref is not (JAX 0.10.2: jax.new_ref
    # gives a core.Ref, not an Array, outside and inside jit)
    from tjit.distributed import make_array_from_process_local_data
    from tjit.sharding import NamedSharding, P
    mesh = tjit.make_mesh((1,), ("data",))
    g = make_array_from_process_local_data(NamedSharding(mesh, P("data")), np.ones((2, 2)))
    assert isinstance(g, tjit.Array), type(g)

    assert not isinstance(tjit.new_ref(jnp.ones(3)), tjit.Array)
    seen = []

    def f(x):
        ref = tjit.new_ref(x)
        seen.append(isinstance(ref, tjit.Array))
        return ref[...]
    tjit.jit(f)(jnp.ones(3))
    assert seen == [False]


def test_isinstance_memo_follows_abc_semantics():
    # isinstance is memoised per type; register (on tjit.Array or on a subclass of it)
    # and real subclasses must still give abc's answers
    class Mine:
        pass
    assert not isinstance(Mine(), tjit.Array)  # now remembered as False

    class Sub(tjit.Array):
        def __new__(cls):
            return object.__new__(cls)
    Sub.register(Mine)  # abc: a class registered on a subclass is a virtual subclass
    assert isinstance(Mine(), tjit.Array) and isinstance(Mine(), Sub)
    assert issubclass(Mine, tjit.Array)
    assert isinstance(Sub(), tjit.Array) and isinstance(Sub(), Sub)
    assert not isinstance(jnp.ones(2), Sub)  # tjit arrays are not instances of a subclass


def test_singledispatch_on_the_type():
    import functools

    @functools.singledispatch
    def kind(x):
        return "other"

    @kind.register
    def _(x: tjit.Array):
        return "array"
    seen = []
    tjit.jit(lambda v: seen.append(kind(v)) or v)(jnp.ones(2))
    assert [kind(jnp.ones(2)), kind(np.ones(2)), kind(1.0)] + seen == [
        "array", "other", "other", "array"]
