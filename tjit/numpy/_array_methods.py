"""Operators and methods shared by ``tjit.Array`` and tracers: both classes get the
same definitions here, so ``x + 1`` or ``x.sum()`` means the same eagerly and under
a transformation."""

from tjit.tracing.core import Array, Tracer
from tjit import numpy as jnp


def _defer_to(other):
    # Let objects with higher priority (that are not arrays) handle the operation.
    return not isinstance(other, (Array, Tracer)) and hasattr(other, "__jax_array__")


def _binop(fn, reflected=False):
    if reflected:
        def op(self, other):
            return fn(other, self)
    else:
        def op(self, other):
            return fn(self, other)
    return op


def _cmp(fn):
    def op(self, other):
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented
    return op


def _astype(self, dtype, copy=False):
    return jnp.astype(self, dtype)


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and not isinstance(shape[0], int) and hasattr(shape[0], "__iter__"):
        shape = tuple(shape[0])
    return jnp.reshape(self, shape, order=order)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or hasattr(axes[0], "__iter__")):
        axes = axes[0]
    return jnp.transpose(self, axes or None)


def _view(self, dtype=None):
    if dtype is None:
        return self
    return jnp.bitcast_view(self, dtype)


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
    "__round__": lambda self, ndigits=None: (
        jnp.round(self, ndigits or 0) if not isinstance(self, Array) or self.ndim
        else round(self.item(), ndigits)),
    "__getitem__": lambda self, idx: jnp._rewriting_take(self, idx),
    "__setitem__": lambda self, idx, v: (_ for _ in ()).throw(TypeError(
        "tjit arrays are immutable: use x = x.at[idx].set(value) instead of "
        "x[idx] = value")),
}

_METHODS = {
    "sum": lambda self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
    where=None: jnp.sum(self, axis, dtype, out, keepdims, initial, where),
    "prod": lambda self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
    where=None: jnp.prod(self, axis, dtype, out, keepdims, initial, where),
    "mean": lambda self, axis=None, dtype=None, out=None, keepdims=False, where=None:
    jnp.mean(self, axis, dtype, out, keepdims, where=where),
    "var": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None:
    jnp.var(self, axis, dtype, out, ddof, keepdims, where=where),
    "std": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None:
    jnp.std(self, axis, dtype, out, ddof, keepdims, where=where),
    "max": lambda self, axis=None, out=None, keepdims=False, initial=None, where=None:
    jnp.max(self, axis, out, keepdims, initial, where),
    "min": lambda self, axis=None, out=None, keepdims=False, initial=None, where=None:
    jnp.min(self, axis, out, keepdims, initial, where),
    "all": lambda self, axis=None, out=None, keepdims=False, where=None:
    jnp.all(self, axis, out, keepdims, where=where),
    "any": lambda self, axis=None, out=None, keepdims=False, where=None:
    jnp.any(self, axis, out, keepdims, where=where),
    "argmax": lambda self, axis=None, out=None, keepdims=None:
    jnp.argmax(self, axis, out, keepdims=keepdims),
    "argmin": lambda self, axis=None, out=None, keepdims=None:
    jnp.argmin(self, axis, out, keepdims=keepdims),
    "cumsum": lambda self, axis=None, dtype=None, out=None: jnp.cumsum(self, axis, dtype),
    "cumprod": lambda self, axis=None, dtype=None, out=None: jnp.cumprod(self, axis, dtype),
    "reshape": _reshape,
    "transpose": _transpose,
    "astype": _astype,
    "view": _view,
    "ravel": lambda self, order="C": jnp.ravel(self, order),
    "flatten": lambda self, order="C": jnp.ravel(self, order),
    "squeeze": lambda self, axis=None: jnp.squeeze(self, axis),
    "swapaxes": lambda self, a, b: jnp.swapaxes(self, a, b),
    "clip": lambda self, min=None, max=None: jnp.clip(self, min, max),
    "round": lambda self, decimals=0, out=None: jnp.round(self, decimals),
    "conj": lambda self: jnp.conjugate(self),
    "conjugate": lambda self: jnp.conjugate(self),
    "dot": lambda self, b: jnp.dot(self, b),
    "take": lambda self, indices, axis=None, mode=None: jnp.take(self, indices, axis,
                                                                   mode=mode),
    "repeat": lambda self, repeats, axis=None: jnp.repeat(self, repeats, axis),
    "sort": lambda self, axis=-1, kind=None, order=None: jnp.sort(self, axis),
    "argsort": lambda self, axis=-1, kind=None, order=None: jnp.argsort(self, axis),
    "nonzero": lambda self, size=None, fill_value=None: jnp.nonzero(self, size=size,
                                                                    fill_value=fill_value),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: jnp.diagonal(self, offset, axis1,
                                                                      axis2),
    "trace": lambda self, offset=0, axis1=0, axis2=1: jnp.trace(self, offset, axis1, axis2),
    "ptp": lambda self, axis=None, keepdims=False: jnp.ptp(self, axis, keepdims=keepdims),
    "searchsorted": lambda self, v, side="left": jnp.searchsorted(self, v, side),
    "copy": lambda self: jnp.array(self, copy=True),
}

_PROPERTIES = {
    "T": lambda self: jnp.transpose(self),
    "mT": lambda self: jnp.swapaxes(self, -1, -2),
    "real": lambda self: jnp.real(self),
    "imag": lambda self: jnp.imag(self),
    "at": lambda self: jnp._IndexUpdateHelper(self),
    "flat": lambda self: jnp.ravel(self),
    "nbytes": lambda self: int(self.size) * self.dtype.itemsize,
    "itemsize": lambda self: self.dtype.itemsize,
}


def install():
    for cls in (Array, Tracer):
        for name, fn in _OPS.items():
            setattr(cls, name, fn)
        for name, fn in _METHODS.items():
            setattr(cls, name, fn)
        for name, fn in _PROPERTIES.items():
            setattr(cls, name, property(fn))
    Array.__hash__ = object.__hash__  # __eq__ above would otherwise unset it
