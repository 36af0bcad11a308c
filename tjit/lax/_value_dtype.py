"""``lax.dtype`` (``jax.lax.dtype``): the dtype tjit gives a value or a type."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.basearray import Array

_PYTHON_SCALARS = (bool, int, float, complex)


def dtype(x):
    """The dtype tjit gives ``x``: an array's or tracer's own (key arrays included); for
    NumPy arrays and scalars, dtypes, dtype names and scalar types, that dtype
    canonicalized (64-bit types become 32-bit unless x64 is on); for Python scalars and
    ``bool``/``int``/``float``/``complex``, the default types. Unlike ``jnp.dtype`` (which
    is NumPy's ``np.dtype``), as JAX's.

    >>> jax.lax.dtype(1.0), jax.lax.dtype(np.arange(3)), jax.lax.dtype(complex)
    (dtype('float32'), dtype('int32'), dtype('complex64'))
    """
    if isinstance(x, Array):
        return x.dtype
    if isinstance(x, type) and x in _PYTHON_SCALARS:
        return np.dtype(dtypes.dtype_of_python_scalar(x(0)))
    if isinstance(x, _PYTHON_SCALARS) and not isinstance(x, np.generic):
        return np.dtype(dtypes.dtype_of_python_scalar(x))
    if x is None:   # (np.dtype(None) would be float64; ValueError as JAX's)
        raise ValueError("lax.dtype: None has no dtype; pass an array, a scalar, a dtype "
                         "or a scalar type")
    if isinstance(x, (list, tuple)):
        raise TypeError(f"lax.dtype: cannot determine the dtype of {x!r:.60}; pass an "
                        f"array, a scalar, a dtype or a scalar type (jnp.asarray(x).dtype "
                        f"for a nested list)")
    if not isinstance(x, (type, str, np.dtype)):
        x = getattr(x, "dtype", x)   # NumPy arrays and scalars, ShapeDtypeStruct, ...
    try:
        return dtypes.canonicalize(np.dtype(x))
    except TypeError:
        raise TypeError(f"lax.dtype: cannot determine the dtype of {x!r:.60} "
                        f"({type(x).__name__}); pass an array, a scalar, a dtype or a "
                        f"scalar type") from None


__all__ = ["dtype"]
