"""tjit.Array (the ABC) declares jax.Array's methods and properties as abstract stubs, as
JAX's _set_array_abstract_methods does: ``tjit.Array.sum``, ``.at``, ``.__add__`` exist
(for introspection and static tools) without changing what real arrays do."""

import abc
import inspect

import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.basearray import JAX_ARRAY_ATTRIBUTES
from tjit.tracing.core import Array as ArrayImpl

# JAX 0.10.2's jax.Array names that tjit's arrays lack on purpose (basearray.py says why)
NOT_DECLARED = {"committed", "__copy__", "__deepcopy__", "__numpy_dtype__",
                "_multi_slice", "_split"}
PROPERTIES = {"T", "mT", "at", "real", "imag", "flat", "nbytes", "itemsize", "dtype", "shape",
              "ndim", "size", "sharding", "device", "addressable_shards", "global_shards",
              "is_fully_addressable", "is_fully_replicated"}


@pytest.mark.parametrize("name", JAX_ARRAY_ATTRIBUTES)
def test_each_attribute_is_declared_with_its_kind(name):
    declared = inspect.getattr_static(tjit.Array, name)
    concrete = inspect.getattr_static(ArrayImpl, name)
    if name in PROPERTIES:
        assert isinstance(declared, property) and isinstance(concrete, property)
        stub = declared.fget
    else:
        assert callable(declared) and not isinstance(declared, property)
        stub = declared
    assert getattr(stub, "__isabstractmethod__", False)
    assert stub.__doc__  # the concrete one's, or a pointer to it
    with pytest.raises(NotImplementedError, match=f"Cannot call abstract method {name}"):
        stub(object())


def test_the_names_are_jax_arrays_less_the_documented_gaps():
    # the list is JAX 0.10.2's dir(jax.Array) less object's and NOT_DECLARED
    wanted = {"sum", "reshape", "at", "__add__", "__radd__", "astype", "T", "mT", "shape",
              "dtype", "ndim", "size", "sharding", "device", "to_device", "item", "view",
              "__array_namespace__", "__getitem__", "__setitem__", "addressable_data"}
    assert wanted <= set(JAX_ARRAY_ATTRIBUTES)
    assert not NOT_DECLARED & set(JAX_ARRAY_ATTRIBUTES)
    assert len(set(JAX_ARRAY_ATTRIBUTES)) == len(JAX_ARRAY_ATTRIBUTES)
    assert tjit.numpy.ndarray.sum is tjit.Array.sum  # jnp.ndarray is the same ABC


def test_real_arrays_and_isinstance_are_unchanged():
    x = jnp.arange(4.0)
    assert isinstance(x, tjit.Array) and not isinstance(x.tolist(), tjit.Array)
    assert float(x.sum()) == 6.0 and x.reshape(2, 2).shape == (2, 2)
    assert x.at[0].set(9.0).tolist() == [9.0, 1.0, 2.0, 3.0]
    assert (x + 1).tolist() == [1.0, 2.0, 3.0, 4.0]
    # virtual subclasses inherit nothing from the ABC: the concrete methods are their own
    assert type(x).sum is not tjit.Array.sum and tjit.Array not in type(x).__mro__

    def f(v):
        assert isinstance(v, tjit.Array)
        return v.sum() * 2
    assert float(tjit.jit(f)(x)) == 12.0
    assert float(tjit.grad(f)(x)[0]) == 2.0


def test_still_abstract_and_unhashable():
    with pytest.raises(TypeError, match="abstract type"):
        tjit.Array()
    assert tjit.Array.__hash__ is None  # as jax.Array
    assert isinstance(tjit.Array, abc.ABCMeta)
