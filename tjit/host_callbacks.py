"""``jax.pure_callback`` and ``jax.experimental.io_callback``: Python functions on NumPy
arrays inside traced programs, with results of declared shapes and dtypes. They bind
``pure_callback_p``/``io_callback_p`` (tjit/primitives/callbacks.py), which the compiled
plan runs as host steps.
"""

import numpy as np

from tjit import numpy as jnp
from tjit._sympy import is_expr
from tjit.lax._elementwise import asarray_for_lax
from tjit.primitives.callbacks import VMAP_METHODS, FlatCallback, io_callback_p, pure_callback_p
from tjit.tracing import dtypes
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

__all__ = ["io_callback", "pure_callback"]


def _result_types(op, result_shape_dtypes):
    """``(flat (shape, dtype) pairs, out_tree)`` of a pytree of ``shape``/``dtype`` leaves
    (pairs, not avals: the compiler specializes symbolic dims inside tuples of params)."""
    leaves, out_tree = tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(f"{op}: result_shape_dtypes leaves must have shape and dtype "
                            f"(tjit.ShapeDtypeStruct), got {type(leaf).__name__} {leaf!r:.60}")
        dt = np.dtype(leaf.dtype)
        if dtypes.canonicalize(dt) != dt:
            raise ValueError(f"{op}: result_shape_dtypes cannot specify 64-bit types when "
                             f"`jax_enable_x64` is disabled (got {dt}; use "
                             f"{dtypes.canonicalize(dt)} or tjit.config.update('enable_x64', "
                             f"True))")
        avals.append((tuple(leaf.shape), dt))
    return tuple(avals), out_tree


def as_operand(x):
    """A callback's operand: a tracer or Array as it is, a NumPy value or Python number as
    an Array, a symbolic dim (a size under dynamic shapes) as the array of its run-time
    value (the callback sees the number, not the symbol)."""
    if is_expr(x):
        return jnp.asarray(x)
    return asarray_for_lax(x)


def _operands(callback, args, kwargs):
    flat, in_tree = tree_flatten((args, kwargs))
    return FlatCallback(callback, in_tree), [as_operand(x) for x in flat]


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Calls the pure Python function ``callback(*args, **kwargs)`` on NumPy arrays, from
    eager code or inside ``jit``/``vmap``/``lax.scan`` (as ``jax.pure_callback``).

    Being pure, it may be called fewer times than the program states: under ``jit`` a
    call whose result is unused is dropped. Its results are checked against
    ``result_shape_dtypes`` (a RuntimeError names the callback and the mismatch);
    64-bit results narrow to 32 bits without x64, as in JAX. It has no derivative
    (``grad`` raises, as JAX's): give one with ``tjit.custom_jvp``.

    Under ``vmap``, ``vmap_method`` says how it batches: ``"sequential"`` (and
    ``"sequential_unrolled"``): once per batch element, in a loop; ``"expand_dims"``:
    once, with the batched operands' batch axis first and a size-1 axis in front of the
    others; ``"broadcast_all"``: likewise with every operand broadcast to the batch;
    ``"legacy_vectorized"``: the batched operands as they come, the others unchanged.
    None (the default) refuses, as JAX's does.

    Args:
      callback: a function of NumPy arrays returning a pytree of arrays that matches
        ``result_shape_dtypes``.
      result_shape_dtypes: a pytree of ``tjit.ShapeDtypeStruct`` (anything with
        ``shape`` and ``dtype``).
      *args, **kwargs: array pytrees passed to ``callback``.
      sharding: accepted for JAX compatibility (tjit calls back on the host).
      vmap_method: see above.

    Returns:
      The callback's results as tjit Arrays, in the structure of ``result_shape_dtypes``.

    Example:

    >>> spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    >>> f = jax.jit(lambda x: jax.pure_callback(np.cumsum, spec, x) * 2)
    >>> f(jnp.asarray([1.0, 2.0, 3.0]))
    Array([ 2.,  6., 12.], dtype=float32)
    """
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"pure_callback: vmap_method must be one of the allowed methods "
                         f"{list(VMAP_METHODS)}, but got: {vmap_method!r}")
    flat_callback, operands = _operands(callback, args, kwargs)
    avals, out_tree = _result_types("pure_callback", result_shape_dtypes)
    outs = pure_callback_p.bind(*operands, callback=flat_callback, result_types=avals,
                                vmap_method=vmap_method)
    return tree_unflatten(out_tree, list(outs))


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Calls the impure Python function ``callback(*args, **kwargs)`` on NumPy arrays
    (as ``jax.experimental.io_callback``): every call the program states happens, also
    under ``jit`` when its result is unused; ``ordered=True`` keeps program order with
    the other ordered callbacks (an ordered one cannot be batched by ``vmap``; an
    unordered one runs once per batch element). Results are checked against
    ``result_shape_dtypes`` as :func:`pure_callback`'s; no derivative (``grad`` raises).

    Args:
      callback: a function of NumPy arrays returning a pytree of arrays matching
        ``result_shape_dtypes`` (None for no result).
      result_shape_dtypes: a pytree of ``tjit.ShapeDtypeStruct``, or None.
      *args, **kwargs: array pytrees passed to ``callback``.
      sharding: accepted for JAX compatibility (tjit calls back on the host).
      ordered: keep program order with the other ordered callbacks.

    Returns:
      The callback's results as tjit Arrays, in the structure of ``result_shape_dtypes``.

    Example:

    >>> from tjit.experimental import io_callback
    >>> seen = []
    >>> f = jax.jit(lambda x: io_callback(seen.append, None, x, ordered=True) or x + 1)
    >>> _ = f(jnp.asarray(1.0)), f(jnp.asarray(2.0))
    >>> seen
    [array(1., dtype=float32), array(2., dtype=float32)]
    """
    flat_callback, operands = _operands(callback, args, kwargs)
    avals, out_tree = _result_types("io_callback", result_shape_dtypes)
    outs = io_callback_p.bind(*operands, callback=flat_callback, result_types=avals,
                              ordered=bool(ordered))
    return tree_unflatten(out_tree, list(outs))
