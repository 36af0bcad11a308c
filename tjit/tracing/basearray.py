"""``tjit.Array``: the public array type, an abstract base class as ``jax.Array`` is.

JAX code checks ``isinstance(x, jax.Array)`` in pytree utilities, optimizers and user
functions, and expects True both outside and inside ``jit``/``vmap``/``grad``. So the
public ``tjit.Array`` (and ``tjit.numpy.ndarray``, the same object as in JAX) is this
ABC, with every kind of tjit array registered as a virtual subclass:

* the concrete array, ``tjit.tracing.core.Array`` (exported here as ``ArrayImpl``,
  JAX's name for it): a buffer on a device;
* ``Tracer`` and so every tracer class (jit's, jvp's, vmap's, checkpoint's);
* ``ExtendedArray`` and so typed key arrays (``tjit.random.key``), which JAX counts as
  ``jax.Array`` too.

NumPy arrays, NumPy scalars and Python scalars are not instances, as in JAX.

Why an ABC beside the concrete class rather than one class: tjit's own code asks "is
this a concrete buffer?" (eager dispatch lanes, jit's argument routing, device
transfers) far more often than "is this any tjit array?", and must not let a tracer
through those checks. Those keep testing the concrete class (``type(x) is Array`` on
the hot paths, where an ABC's ``isinstance`` would cost a cache lookup per call); only
the public name changes meaning. The ABC cannot be instantiated: arrays are made with
``tjit.numpy.array``/``asarray``/``zeros`` or ``tjit.device_put``.
"""

import abc

from tjit.tracing.core import Array as ArrayImpl
from tjit.tracing.core import Tracer
from tjit.tracing.extended_dtypes import ExtendedArray


class _ArrayMeta(abc.ABCMeta):
    """ABCMeta with a per-type memo of ``isinstance``: ABCMeta's own check (weak-set
    lookups) costs ~15x a plain ``isinstance`` and ~3x JAX's ``isinstance(x, jax.Array)``,
    and JAX ports call it per pytree leaf. The answer for a type is abc's own
    (``__subclasscheck__``), remembered in a dict; ``register`` on a class clears its memo
    and its ancestors' (abc counts a class registered on a subclass). Objects whose
    ``__class__`` is not their type (proxies) take abc's path every time."""

    _MEMO_LIMIT = 1024  # types remembered before the memo starts over (dynamic classes)

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace, **kwargs)
        cls._memo = {}

    def register(cls, subclass):
        out = super().register(subclass)
        for ancestor in cls.__mro__:
            if isinstance(ancestor, _ArrayMeta):
                ancestor._memo = {}
        return out

    def __instancecheck__(cls, instance):
        t = type(instance)
        hit = cls._memo.get(t)
        if hit is not None:
            return hit
        if instance.__class__ is not t:
            return super().__instancecheck__(instance)
        if len(cls._memo) >= cls._MEMO_LIMIT:
            cls._memo = {}
        hit = cls._memo[t] = cls.__subclasscheck__(t)
        return hit


class Array(metaclass=_ArrayMeta):
    """The type of tjit arrays, for ``isinstance`` checks and annotations (as ``jax.Array``).

    ``isinstance(x, tjit.Array)`` is True for concrete arrays, for tracers inside
    transformed functions and for typed key arrays; False for NumPy arrays and scalars::

        def f(x: tjit.Array) -> tjit.Array:   # annotations hold traced and concrete
            assert isinstance(x, tjit.Array)
            return x * 2

    Not a constructor: build arrays with :func:`tjit.numpy.array`,
    :func:`tjit.numpy.asarray`, :func:`tjit.numpy.zeros` or :func:`tjit.device_put`.
    """

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise TypeError(
            f"{cls.__module__}.{cls.__qualname__} is an abstract type (as jax.Array) and "
            "cannot be instantiated: create arrays with tjit.numpy.array(x), "
            "tjit.numpy.asarray(x), tjit.numpy.zeros(shape, dtype) or tjit.device_put(x)")


# Shown as <class 'tjit.Array'>, the name users import it by.
Array.__module__ = "tjit"

Array.register(ArrayImpl)
Array.register(Tracer)
Array.register(ExtendedArray)
