"""``lax.ragged_dot`` and ``lax.ragged_dot_general`` (grouped matrix products, as in
mixture-of-experts layers), with JAX's semantics and JAX's reference algorithm: the
ragged dimension of ``lhs`` is expanded into one masked copy per group (rows outside a
group are zero) and contracted with the group dimension in one ``dot_general``, so jit,
grad and vmap need no new rules. Rows past ``sum(group_sizes)`` give zeros.
"""

import dataclasses

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str
from tjit.lax._annotations import apply_out_sharding
from tjit.lax._dot import dot_general
from tjit.lax._elementwise import asarray_for_lax, bitwise_and, ge, lt, select, sub
from tjit.lax._reductions import cumsum
from tjit.lax._structural import broadcast_in_dim, broadcasted_iota, full


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Ragged, group and dot dimensions of :func:`ragged_dot_general`.

    Args:
      dot_dimension_numbers: ``((lhs_contracting, rhs_contracting), (lhs_batch,
        rhs_batch))`` as in ``dot_general``.
      lhs_ragged_dimensions: the one ragged dimension of ``lhs`` (a sequence).
      rhs_group_dimensions: the group dimension of ``rhs`` (empty when the ragged
        dimension is a contracting or batch dimension).
    """
    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: tuple
    rhs_group_dimensions: tuple

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(tuple(d) for d in t) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def _expand(x, dim, group_sizes):
    """``x`` with a leading group dim: copy ``i`` keeps the rows of group ``i`` along
    ``dim`` and is zero elsewhere."""
    g = group_sizes.shape[0]
    shape = (g,) + tuple(x.shape)
    ends = cumsum(group_sizes)
    starts = sub(ends, group_sizes)  # (the exclusive cumulative sum)
    pos = broadcasted_iota(group_sizes.dtype, shape, dim + 1)
    inside = bitwise_and(ge(pos, broadcast_in_dim(starts, shape, (0,))),
                         lt(pos, broadcast_in_dim(ends, shape, (0,))))
    xb = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    return select(inside, xb, full(shape, 0, x.dtype))


def _dot(lhs, rhs, dimension_numbers, precision, preferred_element_type, out_sharding, where):
    out = dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, f"{where}(out_sharding=...)")


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """Ragged matrix product (JAX's three modes, with a 1-D ``group_sizes``).

    Args:
      lhs, rhs: arrays.
      group_sizes: int array ``[g]``: consecutive runs of the lhs ragged dimension.
      ragged_dot_dimension_numbers: a :class:`RaggedDotDimensionNumbers`.
      precision, preferred_element_type: as in ``dot_general``.
      group_offset: not supported (as in JAX's own implementation).
      out_sharding: JAX's, checked against the result (one device places nothing).

    Returns:
      As ``dot_general``'s result; with a leading group dim of size ``g`` when the ragged
      dimension is a contracting one.

    Example::

        >>> dn = lax.RaggedDotDimensionNumbers((((1,), (0,)), ((), ())), [1], [])
        >>> lax.ragged_dot_general(jnp.ones((1, 3)), jnp.ones((3, 2)), jnp.array([1, 2]), dn)
        Array([[[1., 1.]],
        <BLANKLINE>
               [[2., 2.]]], dtype=float32)
    """
    if group_offset is not None:
        raise NotImplementedError("ragged_dot_general: group_offset is not supported (nor "
                                  "by JAX's implementation); slice group_sizes instead")
    lhs, rhs = asarray_for_lax(lhs), asarray_for_lax(rhs)
    gs = asarray_for_lax(group_sizes)
    if gs.ndim != 1 or not dtypes.is_int(np.dtype(gs.dtype)):
        raise TypeError(f"ragged_dot_general: group_sizes must be a 1-D integer array "
                        f"[g], got {np.dtype(gs.dtype).name}{shape_str(gs.shape)}")
    dn = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    if len(dn.lhs_ragged_dimensions) != 1:
        raise ValueError(f"ragged_dot_general: lhs needs exactly one ragged dimension, got "
                         f"{dn.lhs_ragged_dimensions}")
    rag = dn.lhs_ragged_dimensions[0] % lhs.ndim
    incr = lambda dims: tuple(d + 1 for d in dims)
    kw = dict(precision=precision, preferred_element_type=preferred_element_type,
              out_sharding=out_sharding, where="lax.ragged_dot_general")
    if rag in lb:  # ragged batch dim: the groups only partition the batch
        return _dot(lhs, rhs, dn.dot_dimension_numbers, **kw)
    if rag in lc:  # ragged contracting dim: one partial product per group
        rrag = rc[lc.index(rag)]
        return _dot(_expand(lhs, rag, gs), _expand(rhs, rrag, gs),
                    ((incr(lc), incr(rc)), ((0,) + incr(lb), (0,) + incr(rb))), **kw)
    if len(dn.rhs_group_dimensions) != 1:
        raise ValueError("ragged_dot_general: with a ragged non-contracting lhs dimension, "
                         "rhs needs exactly one group dimension")
    rg = dn.rhs_group_dimensions[0] % rhs.ndim
    if rhs.shape[rg] != gs.shape[0]:
        raise ShapeError(f"ragged_dot_general: rhs group dimension {rg} of shape "
                         f"{shape_str(rhs.shape)} has size {rhs.shape[rg]}, but group_sizes "
                         f"has {gs.shape[0]} groups")
    return _dot(_expand(lhs, rag, gs), rhs,
                ((incr(lc) + (0,), tuple(rc) + (rg,)), (incr(lb), tuple(rb))), **kw)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """Grouped matrix product: ``lhs`` (m, k) rows in consecutive groups of sizes
    ``group_sizes`` (g,), each multiplied by its group's matrix of ``rhs`` (g, k, n).

    Args:
      lhs: (m, k) array.
      rhs: (g, k, n) array.
      group_sizes: (g,) integer array; rows past their sum give zeros.
      precision, preferred_element_type: as in ``dot_general``.
      group_offset: not supported (as in JAX's own implementation).
      out_sharding: JAX's, checked against the result.

    Returns:
      The (m, n) array of products.

    Example::

        >>> lax.ragged_dot(jnp.ones((3, 2)), jnp.stack([jnp.eye(2), 2 * jnp.eye(2)]),
        ...                jnp.array([1, 2]))
        Array([[1., 1.],
               [2., 2.],
               [2., 2.]], dtype=float32)
    """
    lhs, rhs = asarray_for_lax(lhs), asarray_for_lax(rhs)
    if lhs.ndim != 2 or rhs.ndim != 3:
        raise ShapeError(f"ragged_dot: lhs must be (m, k) and rhs (g, k, n), got "
                         f"{shape_str(lhs.shape)} and {shape_str(rhs.shape)}; use "
                         f"ragged_dot_general for other layouts")
    out = ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision,
                             preferred_element_type, group_offset)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.ragged_dot(out_sharding=...)")


__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]
