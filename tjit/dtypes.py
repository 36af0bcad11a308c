"""``tjit.dtypes``: JAX's ``jax.dtypes`` module (dtype helpers used by library code).

>>> import tjit, tjit.numpy as jnp
>>> tjit.dtypes.canonicalize_dtype(jnp.float64)   # without x64
dtype('float32')
"""

import numpy as _np

from tjit._namespace import publish as _publish
from tjit.tracing import dtypes as _dt
from tjit.tracing.dtypes import TypePromotionError, bfloat16  # noqa: F401
from tjit.tracing.extended_dtypes import extended, prng_key  # noqa: F401
from tjit.numpy._dtypes import finfo, iinfo, result_type as _result_type
from tjit.numpy._dtypes import issubdtype as _issubdtype
from tjit.numpy._core import result_type_of as _result_type_of

def issubdtype(a, b):
    """Whether dtype ``a`` is ``b`` or below it in the type hierarchy, as
    ``jax.dtypes.issubdtype`` (``jnp.issubdtype`` names its parameters arg1, arg2)."""
    return _issubdtype(a, b)


#: The dtype of the tangent of an integer or boolean value in JAX (a zero-width void).
float0 = _dt.float0


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """``dtype`` as tjit stores it: 64-bit types become 32-bit ones unless x64 is on.

    >>> import tjit, tjit.numpy as jnp
    >>> tjit.dtypes.canonicalize_dtype(int), tjit.dtypes.canonicalize_dtype("bfloat16")
    (dtype('int32'), dtype(bfloat16))
    """
    return _dt.canonicalize(_dt.check_dtype(dtype, "canonicalize_dtype"))


def result_type(*args, return_weak_type_flag=False):
    """The dtype JAX's promotion gives ``args`` (and, with ``return_weak_type_flag``,
    whether it is weak: Python scalars alone give a weak type).

    >>> import tjit
    >>> tjit.dtypes.result_type(1.0, return_weak_type_flag=True)
    (dtype('float32'), True)
    """
    if not return_weak_type_flag:
        return _result_type(*args)
    return _result_type_of(*args)


def scalar_type_of(x):
    """The Python scalar type (bool, int, float or complex) of ``x``'s dtype.

    >>> import tjit, tjit.numpy as jnp
    >>> tjit.dtypes.scalar_type_of(jnp.ones(2)), tjit.dtypes.scalar_type_of(3)
    (<class 'float'>, <class 'int'>)
    """
    dt = _np.dtype(result_type(x))
    if _dt.is_bool(dt):
        return bool
    if _dt.is_int(dt):
        return int
    if _dt.is_float(dt):
        return float
    if _dt.is_complex(dt):
        return complex
    raise TypeError(f"scalar_type_of: {x!r:.60} has dtype {dt}, not a numeric dtype")


def itemsize_bits(dtype):
    """Bits of one element of ``dtype``.

    >>> import tjit, tjit.numpy as jnp
    >>> tjit.dtypes.itemsize_bits(jnp.int8), tjit.dtypes.itemsize_bits(jnp.bfloat16)
    (8, 16)
    >>> tjit.dtypes.itemsize_bits(jnp.int4), tjit.dtypes.itemsize_bits(jnp.float6_e2m3fn)
    (4, 6)
    """
    if _np.dtype(dtype) == float0:
        return 0
    # (int4, float4_e2m1fn, ...: their bits, not the byte NumPy stores them in)
    return _dt.bit_width(_dt.check_dtype(dtype, "itemsize_bits"))


__all__ = ["TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo",
           "float0", "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type",
           "scalar_type_of"]

_publish(globals(), submodules=())  # errors raised here end in the user's line
