"""``tjit.scipy.integrate``: ``trapezoid``, as ``jax.scipy.integrate``."""

from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import normalize_axis, shape_str
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate ``y`` along ``axis`` by the composite trapezoidal rule.

    Args:
      y: the samples.
      x: the sample points: 1-D with ``y.shape[axis]`` entries, or ``y``'s shape; None
        for equal spacing ``dx``.
      dx: the spacing when ``x`` is None.
      axis: the axis to integrate over.

    Returns:
      The integral, with ``axis`` removed.
    """
    check_arraylike("scipy.integrate.trapezoid", y, *(() if x is None else (x,)))
    y = jnp.asarray(y)
    if y.ndim == 0:
        raise ShapeError("scipy.integrate.trapezoid: y must have at least one dim, got a "
                         "scalar")
    ax = normalize_axis(axis, y.ndim)
    if x is not None:
        x = jnp.asarray(x)
        if not (x.shape == (y.shape[ax],) or x.shape == y.shape):
            raise ShapeError(f"scipy.integrate.trapezoid: x of shape {shape_str(x.shape)} "
                             f"does not fit y of shape {shape_str(y.shape)} along axis {ax}; "
                             f"x must be ({y.shape[ax]},) or y's shape")
    return jnp.trapezoid(y, x=x, dx=dx, axis=ax)


__all__ = ["trapezoid"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
