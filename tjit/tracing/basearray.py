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
import inspect

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
    __hash__ = None  # arrays are unhashable (as jax.Array declares)

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


#: jax.Array's attributes (JAX 0.10.2: ``dir(jax.Array)`` beyond ``object``'s) that the
#: ABC declares, as ``jax.Array`` does, so that ``tjit.Array.sum`` or ``tjit.Array.at``
#: exist for introspection, documentation and static tools. Left out, because tjit's arrays
#: do not have them: ``committed``, ``__copy__``/``__deepcopy__`` (the default protocols
#: copy), ``__numpy_dtype__`` and JAX's private ``_multi_slice``/``_split``.
JAX_ARRAY_ATTRIBUTES = (
    "T", "__abs__", "__add__", "__and__", "__array_namespace__", "__contains__",
    "__divmod__", "__eq__", "__floordiv__", "__ge__", "__getitem__", "__gt__", "__invert__",
    "__le__", "__lshift__", "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__",
    "__neg__", "__or__", "__pos__", "__pow__", "__radd__", "__rand__", "__rdivmod__",
    "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__", "__rmul__", "__ror__",
    "__round__", "__rpow__", "__rrshift__", "__rshift__", "__rsub__", "__rtruediv__",
    "__rxor__", "__setitem__", "__sub__", "__truediv__", "__xor__", "addressable_data",
    "addressable_shards", "all", "any", "argmax", "argmin", "argpartition", "argsort",
    "astype", "at", "byteswap", "choose", "clip", "compress", "conj", "conjugate", "copy",
    "copy_to_host_async", "cumprod", "cumsum", "device", "diagonal", "dot", "dtype", "flat",
    "flatten", "global_shards", "imag", "is_fully_addressable", "is_fully_replicated", "item",
    "itemsize", "mT", "max", "mean", "min", "nbytes", "ndim", "nonzero", "prod", "ptp",
    "ravel", "real", "repeat", "reshape", "round", "searchsorted", "shape", "sharding",
    "size", "sort", "squeeze", "std", "sum", "swapaxes", "take", "to_device", "trace",
    "transpose", "var", "view",
)


def declare_abstract_attributes():
    """Declare on :class:`Array` each of ``JAX_ARRAY_ATTRIBUTES`` as an abstract stub with
    the concrete array's docstring (JAX's ``_set_array_abstract_methods``): properties as
    properties, methods and operators as ``abc.abstractmethod`` functions that raise
    ``NotImplementedError``. The registered array classes are virtual subclasses, which
    inherit nothing from the ABC: attribute lookup on real arrays and ``isinstance`` are
    unchanged. Called once by ``tjit.numpy``, after the modules that give the concrete
    classes their methods have run."""
    for name in JAX_ARRAY_ATTRIBUTES:
        impl = inspect.getattr_static(ArrayImpl, name, None)
        if impl is None:
            raise AttributeError(f"tjit.Array.{name}: the concrete array class has no "
                                 f"{name!r} to declare (declare_abstract_attributes runs "
                                 f"after tjit.numpy installs the array methods)")
        if isinstance(impl, property):
            stub = _abstract_stub(name, impl.fget)
            setattr(Array, name, property(stub, doc=stub.__doc__))
        else:
            setattr(Array, name, _abstract_stub(name, impl))


def _abstract_stub(name, impl):
    def method(*args, **kwargs):
        raise NotImplementedError(f"Cannot call abstract method {name} of tjit.Array: it is "
                                  f"defined on arrays (tjit.numpy.asarray(x).{name})")
    method.__name__ = name
    method.__qualname__ = f"Array.{name}"
    method.__module__ = "tjit"
    method.__doc__ = inspect.getdoc(impl) or f"``x.{name}`` of a tjit array (as jax.Array.{name})."
    return abc.abstractmethod(method)


def refusal_hint(x):
    """``"; <why and what to do>"`` for an object that is a ``tjit.Array`` to the user but
    not an operand tjit can compute with here (a GlobalArray split over processes, which
    holds only this process's blocks), from its type's ``_refusal_hint``; else ``""``.
    Errors that refuse an argument's type append it."""
    hint = getattr(type(x), "_refusal_hint", None)
    return f"; {hint(x)}" if hint is not None else ""
