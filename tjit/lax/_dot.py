"""``tjit.lax`` contractions: ``dot_general`` and its conveniences ``dot`` and
``batch_matmul``. As in ``jax.lax`` there is no general dtype promotion: operands of
different dtypes meet in the one of higher precision (XLA's HigherPrecisionType, which
JAX's dot_general dtype rule follows); ``tjit.numpy``'s matmul/dot/einsum promote first."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import remember
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import normalize_axis, shape_str
from tjit.primitives.dot import dot_general_dtype, unpack_dimension_numbers
from tjit.primitives.linalg import Precision, dot_general_p
from tjit.lax._elementwise import asarray_for_lax, convert_element_type, is_arraylike
from tjit.lax._annotations import apply_out_sharding

_PRECISION_NAMES = {
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    "high": Precision.HIGH, "tensorfloat32": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
}


def canonicalize_precision(precision):
    """None, a :class:`Precision`, its name, or a pair of them -> a hashable param."""
    if precision is None:
        return None
    if isinstance(precision, Precision):
        return precision
    if isinstance(precision, str):
        try:
            return _PRECISION_NAMES[precision.lower()]
        except KeyError:
            raise ValueError(f"dot_general: unknown precision {precision!r}; use one of "
                             f"{sorted(_PRECISION_NAMES)} or lax.Precision") from None
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        return tuple(canonicalize_precision(p) for p in precision)
    raise ValueError(f"dot_general: precision must be None, a lax.Precision, a string or a "
                     f"pair of them, got {precision!r}")


def _canonical_pref(preferred_element_type):
    if preferred_element_type is None:
        return None
    return dtypes.canonicalize(dtypes.check_dtype(preferred_element_type, "dot_general"))


def _operands(lhs, rhs):
    # Python scalars take the other operand's dtype (weak typing), as elsewhere in lax.
    like = next((a.dtype for a in (lhs, rhs) if is_arraylike(a)), None)
    like = None if like is None else dtypes.canonicalize(like)
    return asarray_for_lax(lhs, like), asarray_for_lax(rhs, like)


def _precision_rank(dt):
    """XLA's order of precision (primitive_util.h HigherPrecisionType): complex first,
    then exponent range, mantissa bits, bit width, and signed over unsigned."""
    real = dtypes.finfo(dt).dtype if dtypes.is_complex(dt) else dt
    floating = dtypes.is_float(real)
    bits = 1 if dtypes.is_bool(real) else np.dtype(real).itemsize * 8
    return (dtypes.is_complex(dt), dtypes.finfo(real).maxexp if floating else -1,
            dtypes.finfo(real).nmant if floating else -1, bits, not dtypes.is_unsigned(real))


def operand_dtype(ld, rd, preferred_element_type=None, name="dot_general"):
    """The dtype operands of dtypes ``ld`` and ``rd`` are computed in: mixed ones (int8 x
    float32, float16 x float32) meet in the one of higher precision, as JAX's dot_general
    dtype rule (distinct dtypes never rank equal); with a ``preferred_element_type``
    (canonical) in that type instead, as JAX's lowering on CPU and GPU does (float32 x
    int32 -> int32 multiplies the truncated floats), once the type is checked against
    the higher one."""
    ld, rd = np.dtype(ld), np.dtype(rd)
    if ld == rd:
        return ld
    dt = ld if _precision_rank(ld) > _precision_rank(rd) else rd
    if preferred_element_type is not None:
        aval = ShapedArray((), dt)
        dot_general_dtype(aval, aval, preferred_element_type, name)  # may not narrow
        dt = preferred_element_type
    return dt


def common_operand_dtype(lhs, rhs, preferred_element_type=None, name="dot_general"):
    """``lhs`` and ``rhs`` converted to their :func:`operand_dtype` (unchanged when their
    dtypes are equal)."""
    if np.dtype(lhs.dtype) == np.dtype(rhs.dtype):
        return lhs, rhs
    dt = operand_dtype(lhs.dtype, rhs.dtype, preferred_element_type, name)
    return convert_element_type(lhs, dt), convert_element_type(rhs, dt)


def _dims(dims, ndim, what):
    if isinstance(dims, (int, np.integer)):
        dims = (dims,)
    return tuple(normalize_axis(d, ndim, f"dot_general ({what})") for d in dims)


#: (dimension_numbers, lhs rank, rhs rank) -> their normalised form, for numbers that
#: are tuples of Python ints only (1.0 == 1 as a key: a float must still be refused)
_normalised_dns = {}


def _only_ints(lc, rc, lb, rb):
    for dims in (lc, rc, lb, rb):
        if type(dims) is not tuple:
            return False
        for d in dims:
            if type(d) is not int:
                return False
    return True


def _dimension_numbers(dimension_numbers, lndim, rndim):
    """``((lc, rc), (lb, rb))`` as tuples of non-negative axes, checked."""
    (lc, rc), (lb, rb) = unpack_dimension_numbers(dimension_numbers)
    key = ((lc, rc), (lb, rb), lndim, rndim) if _only_ints(lc, rc, lb, rb) else None
    if key is not None:
        dn = _normalised_dns.get(key)
        if dn is not None:
            return dn
    dn = ((_dims(lc, lndim, "lhs contracting"), _dims(rc, rndim, "rhs contracting")),
          (_dims(lb, lndim, "lhs batch"), _dims(rb, rndim, "rhs batch")))
    if key is not None:
        remember(_normalised_dns, key, dn)
    return dn


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
    """General tensor contraction (XLA's DotGeneral).

    Args:
      lhs, rhs: arrays; of different dtypes, both are computed in the one of higher
        precision (int8 x float32 -> float32, float16 x float32 -> float32), or in
        ``preferred_element_type`` when it is given.
      dimension_numbers: ``((lhs_contracting_dims, rhs_contracting_dims),
        (lhs_batch_dims, rhs_batch_dims))``.
      precision: None, a ``lax.Precision`` or a pair of them.
      preferred_element_type: dtype of the result: the accumulation type when it is
        wider; a float product is converted to a narrower or integer one (truncating
        and saturating, as JAX). Operands of different dtypes are both converted to it.
      out_sharding: JAX's, checked against the result (one device places nothing).

    Returns:
      An array with the batch dims, then lhs's free dims, then rhs's free dims.
    """
    lhs, rhs = _operands(lhs, rhs)
    dn = _dimension_numbers(dimension_numbers, lhs.ndim, rhs.ndim)
    pref = _canonical_pref(preferred_element_type)
    lhs, rhs = common_operand_dtype(lhs, rhs, pref)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                             precision=canonicalize_precision(precision),
                             preferred_element_type=pref)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.dot_general(out_sharding=...)")


def dot(lhs, rhs, precision=None, preferred_element_type=None, *, dimension_numbers=None,
        out_sharding=None):
    """Vector/matrix product: contracts the last dim of ``lhs`` with the first of ``rhs``.

    Args:
      lhs: an array of rank 1 or 2 (any rank with ``dimension_numbers``).
      rhs: an array of rank 1 or 2 (any rank with ``dimension_numbers``).
      dimension_numbers: as :func:`dot_general`'s, for other contractions (JAX's).
      out_sharding: JAX's, checked against the result.

    Returns:
      The vector-vector (scalar), matrix-vector, vector-matrix or matrix-matrix product.
    """
    if dimension_numbers is None:
        lhs, rhs = _operands(lhs, rhs)
        if lhs.ndim not in (1, 2) or rhs.ndim not in (1, 2):
            raise ShapeError(f"dot: operands must have rank 1 or 2, got shapes "
                             f"{shape_str(lhs.shape)} and {shape_str(rhs.shape)}; use "
                             f"lax.dot_general (or tjit.numpy.dot/matmul) for other ranks")
        dimension_numbers = (((lhs.ndim - 1,), (0,)), ((), ()))
    out = dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.dot(out_sharding=...)")


def batch_matmul(lhs, rhs, precision=None, preferred_element_type=None):
    """Batched matrix product of ``lhs`` (..., m, k) and ``rhs`` (..., k, n) with equal
    leading (batch) dims."""
    lhs, rhs = _operands(lhs, rhs)
    if lhs.ndim < 2 or lhs.ndim != rhs.ndim:
        raise ShapeError(f"batch_matmul: operands must have equal ranks >= 2, got shapes "
                         f"{shape_str(lhs.shape)} and {shape_str(rhs.shape)}")
    nb = lhs.ndim - 2
    batch = tuple(range(nb))
    return dot_general(lhs, rhs, (((nb + 1,), (nb,)), (batch, batch)), precision,
                       preferred_element_type)


__all__ = ["Precision", "dot_general", "dot", "batch_matmul", "dot_general_p"]
