"""Abstract values: what a tracer knows about an array (shape, dtype, weak type)."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.shapes import dim_str, size as shape_size


#: ``make(ndim)``: the sharding of a type that names no mesh axes (set by tjit.sharding)
_UNSHARDED = [None]


def set_unsharded_type(make):
    _UNSHARDED[0] = make


class ShapedArray:
    """Shape (ints or sympy dims), dtype and weak-type flag of an array."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = None

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return shape_size(self.shape)

    @property
    def sharding(self):
        """The type's sharding, as ``jax.typeof(x).sharding``: a NamedSharding over the
        empty AbstractMesh with every dimension unsplit (a committed Array's type,
        ``tjit._eager_layout.LaidOutAval``, carries its mesh axes)."""
        return _UNSHARDED[0](len(self.shape))

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.dtype == other.dtype
                and self.shape == other.shape and self.weak_type == other.weak_type)

    def __hash__(self):
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype, self.weak_type))
        return h

    def str_short(self):
        """``f32[3,4]``: the jaxpr printer's short form."""
        dims = ",".join(dim_str(d) for d in self.shape)
        return f"{dtypes.short_name(self.dtype)}[{dims}]"

    def _long(self):
        """``float32[3,4]``: the dtype's full name, as JAX's ``str(jax.typeof(x))``."""
        name = "float0" if self.dtype == dtypes.float0 else self.dtype.name
        return f"{name}[{','.join(dim_str(d) for d in self.shape)}]"

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self._long()}{weak})"

    def __str__(self):  # as JAX 0.10.2: a weak type is marked ~ (~float32[])
        return ("~" if self.weak_type else "") + self._long()


def aval_of_value(x):
    """Abstract value of a concrete value (NumPy array/scalar, Python scalar, Array)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    t = type(x)
    if t is bool:
        return ShapedArray((), dtypes.bool_, False)
    if t is int or t is float or t is complex:
        return ShapedArray((), dtypes.dtype_of_python_scalar(x), True)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize(x.dtype), False)
    raise TypeError(f"value of type {t.__name__} is not a valid tjit array: {x!r:.80}")
