"""``jnp.bitwise_count`` and ``jnp.spacing``: NumPy ufuncs about a value's bits."""

import numpy as np

from tjit import lax
from tjit.numpy._core import ensure_array, promote_args_inexact
from tjit.tracing import dtypes


def bitwise_count(x, /):
    """Number of 1 bits in the absolute value of each element (NumPy's rule, so
    ``bitwise_count(-3) == 2``), as uint8.

    Args:
      x: an integer or bool array.

    Returns:
      A uint8 array of ``x``'s shape.
    """
    x = ensure_array("bitwise_count", x)
    if dtypes.is_bool(x.dtype):
        return lax.convert_element_type(x, np.uint8)
    if not dtypes.is_int(x.dtype):
        raise TypeError(f"bitwise_count: takes integer or bool arrays, got dtype {x.dtype}; "
                        f"view floats' bits with lax.bitcast_convert_type first")
    if not dtypes.is_unsigned(x.dtype):
        # abs wraps the most negative value to itself: its bit pattern is |x| unsigned
        x = lax.abs(x)
    return lax.convert_element_type(lax.population_count(x), np.uint8)


def spacing(x, /):
    """Distance from each element to the adjacent float away from zero, with the sign
    of the element (NumPy's ``spacing``: positive at -0.0; NaN for infinities and NaN;
    for float16, as NumPy, always the step towards +inf).

    Args:
      x: a real array (integers promote to the default float).

    Returns:
      An array of the promoted float dtype.
    """
    x, = promote_args_inexact("spacing", x)
    if dtypes.is_complex(x.dtype):
        raise TypeError(f"spacing: not defined for complex inputs, got dtype {x.dtype}")
    inf = lax.full_like(x, np.inf)
    if x.dtype == np.float16:
        towards = inf
    else:
        towards = lax.select(lax.lt(x, lax.full_like(x, 0)), lax.neg(inf), inf)
    step = lax.sub(lax.nextafter(x, towards), x)
    # infinities have no spacing (float16's -inf would otherwise give inf)
    out = lax.select(lax.is_finite(x), step, lax.full_like(x, np.nan))
    return lax.convert_element_type(out, out.dtype, weak_type=False)  # (strong, as JAX's)


__all__ = ["bitwise_count", "spacing"]
