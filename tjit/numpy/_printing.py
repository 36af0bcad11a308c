"""Printing of ``tjit.numpy``: NumPy's print options (arrays print through NumPy, so
``jnp.printoptions`` is ``numpy.printoptions``, as in ``jax.numpy``) and the
``array2string`` / ``array_str`` / ``array_repr`` functions on tjit arrays."""

import numpy as np

from tjit.numpy._core import asarray, check_arraylike

__all__ = ["printoptions", "set_printoptions", "get_printoptions", "array2string",
           "array_str", "array_repr"]

# The same objects as NumPy's (JAX's choice): one set of options for both libraries.
printoptions = np.printoptions
set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions


def _host(fname, a):
    """``a``'s values as a NumPy array (a traced ``a`` raises tjit's concretization
    error: printing inside ``jit`` needs ``jax.debug.print``-style callbacks)."""
    check_arraylike(f"jnp.{fname}", a)
    return np.asarray(asarray(a))


def array2string(a, max_line_width=None, precision=None, suppress_small=None,
                 separator=" ", prefix="", *, formatter=None, threshold=None,
                 edgeitems=None, sign=None, floatmode=None, suffix="", legacy=None):
    """``numpy.array2string`` of a tjit array's values (same arguments and output).

    Example::

        >>> jnp.array2string(jnp.arange(3.), separator=", ")
        '[0., 1., 2.]'
        >>> jnp.array2string(jnp.asarray([1.5, 2.0, 3.25]), precision=1)
        '[1.5 2.  3.2]'
    """
    return np.array2string(_host("array2string", a), max_line_width, precision,
                           suppress_small, separator, prefix, formatter=formatter,
                           threshold=threshold, edgeitems=edgeitems, sign=sign,
                           floatmode=floatmode, suffix=suffix, legacy=legacy)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """``str`` of an array's values (``numpy.array_str``): ``'[0. 1. 2.]'``.

    Example::

        >>> jnp.array_str(jnp.asarray([1.5, 2.0]))
        '[1.5 2. ]'
    """
    return np.array_str(_host("array_str", a), max_line_width, precision, suppress_small)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of an array as tjit writes it (``Array([0., 1., 2.], dtype=float32)``;
    NumPy's ``array_repr`` writes ``array(...)``), with NumPy's formatting options.

    Example::

        >>> jnp.array_repr(jnp.zeros((0, 3)))
        'Array([], shape=(0, 3), dtype=float32)'
        >>> jnp.array_repr(jnp.asarray([1, 2]))
        'Array([1, 2], dtype=int32)'
    """
    check_arraylike("jnp.array_repr", arr)
    arr = asarray(arr)
    _host("array_repr", arr)  # a clear error for traced values
    opts = {k: v for k, v in (("linewidth", max_line_width), ("precision", precision),
                               ("suppress", suppress_small)) if v is not None}
    with np.printoptions(**opts):
        return repr(arr)
