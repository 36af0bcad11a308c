"""Arrays and tracers are unhashable, as NumPy's and JAX's arrays are: == is elementwise,
so an identity hash made set(x) and Counter(x) count equal values as distinct. Every way
of hashing (hash, set, dict key, Counter) on every kind of value (Array, 0-d Array, the
tracer of each transformation) raises a TypeError that says what to do instead."""

import collections

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import tree_util

HASHERS = {
    "hash": hash,
    "set": lambda x: {x},
    "dict key": lambda x: {x: 1},
    "Counter": lambda x: collections.Counter([x]),
    "frozenset": lambda x: frozenset([x]),
}


@pytest.mark.parametrize("how", sorted(HASHERS))
@pytest.mark.parametrize("value", [jnp.array([1, 2, 1]), jnp.array(3.0), jnp.ones((2, 0)),
                                   jnp.array(True)], ids=["1-d", "0-d", "empty", "bool"])
def test_array_is_unhashable(how, value):
    with pytest.raises(TypeError, match=r"unhashable type: 'tjit Array'.*Fix: use x.item"):
        HASHERS[how](value)


def test_set_and_counter_of_an_array_raise_as_in_jax():
    x = jnp.array([1, 2, 1])
    with pytest.raises(TypeError, match="unhashable"):
        set(x)  # iterating yields 0-d Arrays, themselves unhashable
    with pytest.raises(TypeError, match="unhashable"):
        collections.Counter(x)
    assert set(x.tolist()) == {1, 2}
    assert collections.Counter(x.tolist()) == {1: 2, 2: 1}


def _raise_on_hash(kind):
    def f(x):
        with pytest.raises(TypeError, match=rf"unhashable type: traced array .*\({kind} "
                                            r"tracer\).*Fix: key by id\(x\)"):
            hash(x)
        with pytest.raises(TypeError, match="unhashable"):
            {x: 0}
        with pytest.raises(TypeError, match="unhashable"):
            collections.Counter([x])
        return x * 2.0
    return f


# (transformation, the kind of tracer the function sees)
TRANSFORMS = {
    "jit": (lambda f, x: tjit.jit(f)(x), "jit"),
    "vmap": (lambda f, x: tjit.vmap(f)(x), "vmap"),
    "grad": (lambda f, x: tjit.grad(lambda y: f(y).sum())(x), "jvp"),
    "jvp": (lambda f, x: tjit.jvp(f, (x,), (x,)), "jvp"),
    "vjp": (lambda f, x: tjit.vjp(f, x)[1](x), "jvp"),
    "jit(checkpoint)": (lambda f, x: tjit.jit(tjit.checkpoint(f))(x), "jit"),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_tracers_are_unhashable(name):
    run, kind = TRANSFORMS[name]
    run(_raise_on_hash(kind), jnp.array([1.0, 2.0]))


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_no_tracer_kind_restores_hashing():
    # Every tracer class (jit, jvp, vmap, checkpoint's remat...) keeps Tracer.__hash__.
    kinds = list(_subclasses(tjit.tracing.core.Tracer))
    assert len(kinds) >= 4, kinds
    for cls in kinds + [tjit.tracing.core.Array]:
        assert cls.__hash__ in (tjit.tracing.core.Tracer.__hash__,
                                tjit.tracing.core.Array.__hash__), cls


def test_array_static_argument_is_rejected_with_advice():
    f = tjit.jit(lambda x, n: x * n, static_argnums=1)
    with pytest.raises(ValueError, match="static argument 'n' must be hashable"):
        f(jnp.ones(2), jnp.array(2.0))


def test_pytree_aux_data_holding_arrays_is_told_apart():
    # Aux data that holds arrays cannot be hashed: equal structures compare by value where
    # that has one truth value, and distinct ones are told apart instead of erroring.
    class P:
        def __init__(self, x, a):
            self.x, self.a = x, a

    tree_util.register_pytree_node(P, lambda p: ((p.x,), (p.a,)),
                                   lambda aux, ch: P(ch[0], aux[0]))
    f = tjit.jit(lambda p: p.x * p.a)
    np.testing.assert_array_equal(f(P(jnp.ones(2), jnp.array([1.0, 2.0]))), [1.0, 2.0])
    np.testing.assert_array_equal(f(P(jnp.ones(2), jnp.array([3.0, 2.0]))), [3.0, 2.0])
    np.testing.assert_array_equal(f(P(jnp.ones(2), jnp.array(4.0))), [4.0, 4.0])
