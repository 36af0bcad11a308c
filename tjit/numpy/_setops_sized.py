"""Set operations of traced arrays with a static ``size`` (union1d, intersect1d,
setdiff1d, setxor1d under jit, as JAX allows): the sorted unique values of both
operands together, a mask of those the operation keeps (by membership in each operand),
and the kept values compacted to ``size`` entries, padded with ``fill_value``.

The eager path (``_misc.py``) calls NumPy's set functions; this one is built from
``unique``, ``isin`` and ``nonzero`` so it traces.
"""


from tjit import lax
from tjit import numpy as jnp  # unique, isin, nonzero: looked up at call time
from tjit.tracing.errors import static_index
from tjit.tracing import dtypes
from tjit.tracing.core import Tracer

# which unique values each operation keeps, from (in ar1, in ar2, is NaN). NaN is
# found in an operand that has one, but as NumPy compares NaN != NaN it is never in an
# intersection, and setdiff1d keeps ar1's NaN. (setxor1d of two operands that both hold
# NaN gives one NaN here; NumPy lists two.)
_KEEP = {
    "union1d": lambda in1, in2, nan: jnp.logical_or(in1, in2),
    "intersect1d": lambda in1, in2, nan: in1 & in2 & ~nan,
    "setdiff1d": lambda in1, in2, nan: in1 & (~in2 | nan),
    "setxor1d": lambda in1, in2, nan: jnp.not_equal(in1, in2),
}


def _members(values, ar):
    """``isin(values, ar)``, a NaN value counting as in ``ar`` when ``ar`` has a NaN."""
    found = jnp.isin(values, ar)
    if not dtypes.is_inexact(values.dtype):
        return found
    return found | (jnp.isnan(values) & jnp.any(jnp.isnan(ar)))


def sized_setop(fname, ar1, ar2, size, fill_value, dtype, smallest_fill):
    """``fname`` of the flattened arrays as ``size`` sorted values of ``dtype``; padding is
    ``fill_value``, or the smallest kept value (0 if none) when ``smallest_fill``, else 0."""
    size = static_index(size, "size", fname)
    if size < 0:
        raise ValueError(f"{fname}: size must be >= 0, got {size}")
    a, b = (lax.convert_element_type(jnp.ravel(v), dtype) for v in (ar1, ar2))
    n = a.shape[0] + b.shape[0]
    if n == 0 or size == 0:
        fill = 0 if fill_value is None else fill_value
        return jnp.full((size,), fill, dtype)
    values, counts = jnp.unique(jnp.concatenate([a, b]), return_counts=True, size=n)
    nan = jnp.isnan(values) if dtypes.is_inexact(dtype) else jnp.zeros(values.shape, bool)
    keep = (counts > 0) & _KEEP[fname](_members(values, a), _members(values, b), nan)
    idx = jnp.nonzero(keep, size=size, fill_value=0)[0]
    out = values[idx]
    present = jnp.arange(size) < jnp.sum(keep)
    if fill_value is None:
        zero = lax.full((), 0, dtype)
        fill = jnp.where(present[0], out[0], zero) if smallest_fill else zero
    else:
        fill = lax.convert_element_type(jnp.asarray(fill_value), dtype)
    return jnp.where(present, out, fill)


def is_traced(*arrays):
    return any(isinstance(v, Tracer) for v in arrays)
