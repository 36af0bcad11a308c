"""Operators and methods shared by ``tjit.Array`` and tracers: both classes get the
same definitions here, so ``x + 1`` or ``x.sum()`` means the same eagerly and under
a transformation.

As in JAX, most methods are the ``tjit.numpy`` function of the same name with the array
as first argument (``x.sort(axis=0, descending=True)`` is ``jnp.sort(x, axis=0,
descending=True)``); the few whose NumPy method signature differs from the function's
(``compress``, ``reshape``, ``transpose``, ``view``, ``astype``) have adapters.
"""

import numpy as np

from tjit.tracing.core import Array, Tracer
from tjit.tracing.traceback_util import eager_boundary
from tjit.tracing.traceback_util import filter_at_entry as _filter_at_entry
from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._dtypes import view as _dtype_view
from tjit.numpy._core import defers_to as _defers
from tjit.numpy._core import refuses_operand as _refused


def _binop(fn, reflected=False):
    # try/except: no cost on the common path, where fn does not raise; an error that is
    # the user's leaves with tjit's frames filtered (the operator is the entry point)
    if reflected:
        def op(self, other):
            try:
                return fn(other, self)
            except Exception as e:
                if _refused(e) and _defers(other):
                    return NotImplemented
                _filter_at_entry(e)
                raise
    else:
        def op(self, other):
            try:
                return fn(self, other)
            except Exception as e:
                if _refused(e) and _defers(other):
                    return NotImplemented
                _filter_at_entry(e)
                raise
    return op


def _cmp(fn):
    def op(self, other):
        try:
            return fn(self, other)
        except Exception as e:
            if _refused(e) and _defers(other):
                return NotImplemented
            _filter_at_entry(e)
            raise
    return op


def _forward(name):
    """``x.name(*args, **kw)`` -> ``jnp.name(x, *args, **kw)`` (looked up at call time)."""
    def method(self, *args, **kwargs):
        return getattr(jnp, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"Same as ``jnp.{name}(x, ...)``."
    return method


def _astype(self, dtype, copy=False, device=None):
    return jnp.astype(self, dtype)


def _reshape(self, *shape, order="C", out_sharding=None):
    if len(shape) == 1 and (isinstance(shape[0], (Array, Tracer)) and shape[0].ndim == 0
                            or not hasattr(shape[0], "__iter__")):
        shape = shape[0]  # x.reshape(6): an int (a 0-d array reaches jnp.reshape as is)
    elif len(shape) == 1:
        shape = tuple(shape[0])
    return jnp.reshape(self, shape, order=order, out_sharding=out_sharding)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or hasattr(axes[0], "__iter__")):
        axes = axes[0]
    return jnp.transpose(self, axes or None)


def _view(self, dtype=None, type=None):  # noqa: A002  (NumPy's argument name)
    if type is not None:
        raise NotImplementedError("x.view: the 'type' argument is not supported")
    if dtype is None:
        return self
    return _dtype_view(self, dtype)


def _compress(self, condition, axis=None, *, size=None, fill_value=0, out=None):
    return jnp.compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _tobytes(self, order="C"):
    # np.asarray raises tjit's ConcretizationTypeError on a tracer.
    return np.asarray(self).tobytes(order=order)


def _round(self, ndigits=None):
    """``round(x[, ndigits])``: an array, as JAX's (Python's round of a float gives an int
    without ndigits, so the result is then of the default int dtype)."""
    out = jnp.round(self, ndigits or 0)
    return out.astype(int) if ndigits is None else out


def _matrix_transpose(self):
    if self.ndim < 2:
        raise ValueError(f"x.mT: x must be at least two-dimensional (a stack of matrices) "
                         f"for matrix_transpose; got shape {tuple(self.shape)}. For a "
                         f"1-D array use x itself or x[:, None] (a column)")
    return jnp.swapaxes(self, -1, -2)


def _byteswap(self, inplace=False):
    """The array with each element's bytes reversed (little- <-> big-endian), as
    ``numpy.ndarray.byteswap``; the dtype is kept."""
    if inplace:
        raise ValueError("x.byteswap(inplace=True): tjit arrays are immutable; use "
                         "x = x.byteswap()")
    if jnp.iscomplexobj(self):
        return lax.complex(_byteswap(self.real), _byteswap(self.imag))
    if self.dtype.itemsize == 1:
        return self.copy()
    as_bytes = lax.bitcast_convert_type(self, np.uint8)   # a trailing axis of bytes
    return lax.bitcast_convert_type(lax.rev(as_bytes, (self.ndim,)), self.dtype)


def _setitem(self, idx, value):
    raise TypeError("tjit arrays are immutable: use x = x.at[idx].set(value) instead of "
                    "x[idx] = value")


_OPS = {
    "__add__": _binop(lambda a, b: jnp.add(a, b)),
    "__radd__": _binop(lambda a, b: jnp.add(a, b), True),
    "__sub__": _binop(lambda a, b: jnp.subtract(a, b)),
    "__rsub__": _binop(lambda a, b: jnp.subtract(a, b), True),
    "__mul__": _binop(lambda a, b: jnp.multiply(a, b)),
    "__rmul__": _binop(lambda a, b: jnp.multiply(a, b), True),
    "__truediv__": _binop(lambda a, b: jnp.true_divide(a, b)),
    "__rtruediv__": _binop(lambda a, b: jnp.true_divide(a, b), True),
    "__floordiv__": _binop(lambda a, b: jnp.floor_divide(a, b)),
    "__rfloordiv__": _binop(lambda a, b: jnp.floor_divide(a, b), True),
    "__mod__": _binop(lambda a, b: jnp.remainder(a, b)),
    "__rmod__": _binop(lambda a, b: jnp.remainder(a, b), True),
    "__divmod__": _binop(lambda a, b: jnp.divmod(a, b)),
    "__rdivmod__": _binop(lambda a, b: jnp.divmod(a, b), True),
    "__pow__": _binop(lambda a, b: jnp.power(a, b)),
    "__rpow__": _binop(lambda a, b: jnp.power(a, b), True),
    "__matmul__": _binop(lambda a, b: jnp.matmul(a, b)),
    "__rmatmul__": _binop(lambda a, b: jnp.matmul(a, b), True),
    "__and__": _binop(lambda a, b: jnp.bitwise_and(a, b)),
    "__rand__": _binop(lambda a, b: jnp.bitwise_and(a, b), True),
    "__or__": _binop(lambda a, b: jnp.bitwise_or(a, b)),
    "__ror__": _binop(lambda a, b: jnp.bitwise_or(a, b), True),
    "__xor__": _binop(lambda a, b: jnp.bitwise_xor(a, b)),
    "__rxor__": _binop(lambda a, b: jnp.bitwise_xor(a, b), True),
    "__lshift__": _binop(lambda a, b: jnp.left_shift(a, b)),
    "__rlshift__": _binop(lambda a, b: jnp.left_shift(a, b), True),
    "__rshift__": _binop(lambda a, b: jnp.right_shift(a, b)),
    "__rrshift__": _binop(lambda a, b: jnp.right_shift(a, b), True),
    "__eq__": _cmp(lambda a, b: jnp.equal(a, b)),
    "__ne__": _cmp(lambda a, b: jnp.not_equal(a, b)),
    "__lt__": _cmp(lambda a, b: jnp.less(a, b)),
    "__le__": _cmp(lambda a, b: jnp.less_equal(a, b)),
    "__gt__": _cmp(lambda a, b: jnp.greater(a, b)),
    "__ge__": _cmp(lambda a, b: jnp.greater_equal(a, b)),
    "__neg__": lambda self: jnp.negative(self),
    "__pos__": lambda self: jnp.positive(self),
    "__abs__": lambda self: jnp.absolute(self),
    "__invert__": lambda self: jnp.invert(self),
    "__round__": _round,
    "__getitem__": lambda self, idx: jnp._rewriting_take(self, idx),
    "__setitem__": _setitem,
}

# Methods that are the jnp function of the same name (NumPy's method signatures).
_FORWARDED = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip", "conj",
    "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "max", "mean", "min",
    "nonzero", "prod", "ptp", "ravel", "repeat", "round", "searchsorted", "sort", "squeeze",
    "std", "sum", "swapaxes", "take", "trace", "var",
)

_METHODS = {
    **{name: _forward(name) for name in _FORWARDED},
    "flatten": _forward("ravel"),
    "reshape": _reshape,
    "transpose": _transpose,
    "astype": _astype,
    "view": _view,
    "compress": _compress,
    "tobytes": _tobytes,
    "byteswap": _byteswap,
}

_PROPERTIES = {
    "T": lambda self: jnp.transpose(self),
    "mT": _matrix_transpose,
    "real": lambda self: jnp.real(self),
    "imag": lambda self: jnp.imag(self),
    "at": lambda self: jnp._IndexUpdateHelper(self),
    "flat": lambda self: jnp.ravel(self),
    "nbytes": lambda self: int(self.size) * self.dtype.itemsize,
    "itemsize": lambda self: self.dtype.itemsize,
}

#: ndarray attributes about memory that tjit arrays lack (as JAX's): reading one raises an
#: AttributeError that says why, so ``hasattr(x, "strides")`` stays False
_NUMPY_MEMORY_ATTRIBUTES = {
    "flags": "tjit arrays are always read-only (immutable, as JAX's) and own no memory "
             "layout flags; to change elements use x = x.at[idx].set(value)",
    "strides": "tjit arrays have no strides (the compiler chooses layouts); for sliding "
               "windows use jnp slicing / jnp.stack, or numpy.lib.stride_tricks on "
               "numpy.asarray(x) outside jit",
    "base": "tjit arrays are never views of one another (immutable, as JAX's)",
    "ctypes": "tjit arrays own no host pointer to share; use numpy.asarray(x).ctypes",
}


def _refusing_attribute(name, why):
    def read(self):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r} "
                             f"(numpy.ndarray.{name}): {why}")
    return property(read)


#: operators that are their jnp function as is (``x + y`` is ``jnp.add(x, y)``): the
#: unary ones are bound directly at install, one Python call less on every eager
#: operation; the binary ones go through ``_binop`` to defer to unknown operand types
_DIRECT = {"__add__": "add", "__sub__": "subtract", "__mul__": "multiply",
           "__truediv__": "true_divide", "__floordiv__": "floor_divide", "__mod__": "remainder",
           "__pow__": "power", "__matmul__": "matmul", "__and__": "bitwise_and",
           "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__lshift__": "left_shift",
           "__rshift__": "right_shift", "__neg__": "negative", "__pos__": "positive",
           "__abs__": "absolute", "__invert__": "invert", "__getitem__": "_rewriting_take"}


_REFLECTED = {"__radd__": "add", "__rsub__": "subtract", "__rmul__": "multiply",
              "__rtruediv__": "true_divide", "__rfloordiv__": "floor_divide",
              "__rmod__": "remainder", "__rpow__": "power", "__rmatmul__": "matmul"}


#: unary operators and indexing: nothing to defer to, so bound as is
_UNARY = {"__neg__", "__pos__", "__abs__", "__invert__", "__getitem__"}


#: comparison operators: NotImplemented for every TypeError (``_cmp``)
_COMPARE = {"__eq__": "equal", "__ne__": "not_equal", "__lt__": "less",
            "__le__": "less_equal", "__gt__": "greater", "__ge__": "greater_equal"}


def _install_op(cls, name, fn):
    if name in _DIRECT and name in _UNARY:
        fn = eager_boundary(getattr(jnp, _DIRECT[name]))  # as is if it filters itself
    elif name in _DIRECT or name in _REFLECTED or name in _COMPARE:
        reflected = name in _REFLECTED
        fun = getattr(jnp, (_REFLECTED if reflected else _COMPARE if name in _COMPARE
                            else _DIRECT)[name])
        # a jnp function that makes its own operator form (tjit/numpy/_ufuncs.py's
        # elementwise ones) is its operator without a wrapper's Python call
        own = getattr(fun, "operator_form", None)
        if name in _COMPARE:
            fn = own("compare") if own is not None else fn
        elif own is not None:
            fn = own("defer", reflected)
        else:
            fn = _binop(fun, reflected)
    setattr(cls, name, fn)


def install():
    for cls in (Array, Tracer):
        for name, fn in _OPS.items():
            _install_op(cls, name, fn)
        for name, fn in _METHODS.items():
            setattr(cls, name, eager_boundary(fn, f"x.{name}"))
        for name, fn in _PROPERTIES.items():
            setattr(cls, name, property(eager_boundary(fn, f"x.{name}")))
        for name, why in _NUMPY_MEMORY_ATTRIBUTES.items():
            if name not in vars(cls):  # (one the class defines itself stays)
                setattr(cls, name, _refusing_attribute(name, why))
