"""Extended dtypes: dtypes that are not NumPy's, as JAX's ``jax.dtypes.extended``.

The one extended dtype today is the PRNG key dtype ``key<fry>`` of typed key arrays
(``tjit.random.key``). Its scalar type ``prng_key`` subclasses ``extended``, which
subclasses ``np.generic`` as in JAX, so that ``issubdtype(k.dtype, prng_key)`` reads as
it does there and NumPy's own ``issubdtype`` accepts the classes as its second argument.

Arrays of an extended dtype are not tracer-level values: they are wrappers (see
``tjit/random/_key_array.py``) whose pytree leaf is an ordinary array, so every
transformation and backend sees only NumPy dtypes. ``ExtendedArray`` is their common
base, so that ``jnp`` functions (concatenate, stack) can hand such arrays to their type.
"""

import numpy as np

from tjit.tracing.shapes import dim_str


class extended(np.generic):  # noqa: N801 (JAX's name)
    """Scalar class of all extended dtypes (``jax.dtypes.extended``)."""


class prng_key(extended):  # noqa: N801 (JAX's name)
    """Scalar class of PRNG key dtypes (``jax.dtypes.prng_key``)."""


class ExtendedDType:
    """Base of extended dtype objects: ``type`` is the scalar class, ``name`` its name."""
    type = extended
    name = "extended"

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return type(other) is type(self) and other.name == self.name

    def __hash__(self):
        return hash((type(self), self.name))


class KeyDType(ExtendedDType):
    """The dtype of typed PRNG key arrays: ``key<fry>`` for threefry2x32 keys.

    An array of shape ``s`` holds data of shape ``s + data_shape`` and dtype
    ``data_dtype``; ``array_type`` (set where that class is defined) wraps such data."""
    type = prng_key
    data_shape = (2,)
    data_dtype = np.dtype(np.uint32)
    array_type = None

    def __init__(self, impl_name, short_name):
        self.impl_name = impl_name
        self.name = f"key<{short_name}>"


THREEFRY_KEY_DTYPE = KeyDType("threefry2x32", "fry")


def extended_issubdtype(dtype, parent):
    """``issubdtype`` when ``dtype`` is an extended dtype: true for itself and for the
    scalar classes it descends from (``prng_key``, ``extended``, ``np.generic``)."""
    if isinstance(parent, ExtendedDType):
        return parent == dtype
    return isinstance(parent, type) and issubclass(dtype.type, parent)


class ExtendedAval:
    """Shape and extended dtype of an array, as ``jax.typeof`` gives for a key array
    (``ShapedArray(key<fry>[3])``). Tracing never sees it: transformations trace the
    array's data."""
    __slots__ = ("shape", "dtype")
    weak_type = False

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    @property
    def ndim(self):
        return len(self.shape)

    def str_short(self):
        return f"{self.dtype.name}[{','.join(dim_str(d) for d in self.shape)}]"

    __str__ = str_short

    def __repr__(self):
        return f"ShapedArray({self.str_short()})"

    def __eq__(self, other):
        return type(other) is ExtendedAval and (other.shape, other.dtype) == (self.shape,
                                                                               self.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))


class ExtendedArray:
    """Base of arrays of an extended dtype; a subclass keeps its raw data (an ordinary
    array) in ``_data``. The ``jnp``/``lax`` functions that accept them hand them to
    these methods, which subclasses define:

    * ``_join(arrays, axis, new_axis, op)``: concatenate (``new_axis=False``) or stack;
    * ``_where(condition, x, y, op)``: ``jnp.where`` / ``lax.select``;
    * ``_broadcast_to(shape)``, ``_take(indices, axis, mode)``;
    * ``_as_array(dtype, op)``: ``jnp.asarray`` / ``array`` / ``copy``;
    * ``_full_like(fill_value, dtype, shape, op)``: ``jnp.zeros_like`` and its kin.
    """
    __slots__ = ()

    @classmethod
    def _join(cls, arrays, axis, new_axis, op):
        raise NotImplementedError(f"{op} of {cls.__name__} arrays")

    @classmethod
    def _where(cls, condition, x, y, op="where"):
        raise NotImplementedError(f"{op} of {cls.__name__} arrays")

    def _broadcast_to(self, shape):
        raise NotImplementedError(f"broadcast_to of {type(self).__name__} arrays")

    def _take(self, indices, axis, mode):
        raise NotImplementedError(f"take of {type(self).__name__} arrays")

    def _as_array(self, dtype, op):
        raise NotImplementedError(f"{op} of {type(self).__name__} arrays")

    def _full_like(self, fill_value, dtype, shape, op):
        raise NotImplementedError(f"{op} of {type(self).__name__} arrays")
