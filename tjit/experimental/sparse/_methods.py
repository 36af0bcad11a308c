"""Operators of the sparse classes (``@``, ``*``, ``+``, ``-``), installed here so that the
format modules need not import the contraction code (as JAX defines them in transform.py).

``@`` follows ``jnp.matmul``: 1-D and 2-D operands, N-D with a 1-D operand or a 2-D
rhs, or N-D with equal leading batch dims (which must be layout batch dims of a BCOO);
sparse @ sparse is a BCOO. ``*`` by a scalar
or a dense array scales the stored values and keeps the sparsity pattern; sparse * sparse
is a BCOO of the pairs of entries at one coordinate. ``+`` of two sparse arrays of one
shape concatenates their entries (duplicates add); with a dense array of the full shape
it is dense. Two arrays sharing one index buffer (``2 * m - m``) combine their values in
place, as JAX's.
"""

import numbers

import tjit
import tjit.numpy as jnp
from tjit.experimental.sparse._base import JAXSparse
from tjit.experimental.sparse.bcoo import (
    BCOO, bcoo_concatenate_nse, bcoo_multiply_dense)
from tjit.experimental.sparse.bcoo_dot import bcoo_dot_general, bcoo_multiply_sparse
from tjit.experimental.sparse.bcsr import BCSR


def _as_bcoo(x):
    return x.to_bcoo() if isinstance(x, BCSR) else x


def _is_operand(x):
    return isinstance(x, (JAXSparse, numbers.Number)) or hasattr(x, "shape")


def matmul(a, b):
    """``a @ b`` with either operand sparse (BCOO or BCSR): a dense array."""
    a, b = _as_bcoo(a), _as_bcoo(b)
    a_nd, b_nd = len(a.shape), len(b.shape)
    if a_nd == 0 or b_nd == 0:
        raise ValueError(f"matmul: operands must have ndim >= 1, got shapes {a.shape} and "
                         f"{b.shape}")
    if (a_nd <= 2 and b_nd <= 2) or b_nd == 1 or (b_nd == 2 and a_nd > 2):
        # a 1-D or 2-D rhs is broadcast over lhs's leading dims (jnp.matmul), which
        # dot_general's output order (lhs free dims, then rhs free dims) already gives
        dims = (([a_nd - 1], [0 if b_nd == 1 else b_nd - 2]), ([], []))
    elif a_nd == 1:       # (k,) @ (..., k, m) -> (..., m): lhs has no free dims
        dims = (([0], [b_nd - 2]), ([], []))
    elif a_nd == b_nd:
        batch = list(range(a_nd - 2))
        dims = (([a_nd - 1], [a_nd - 2]), (batch, batch))
    else:
        raise NotImplementedError(
            f"sparse matmul of shapes {a.shape} and {b.shape}: N-D operands must have the "
            "same ndim (leading batch dims). Fix: reshape or use bcoo_dot_general.")
    return bcoo_dot_general(a, b if isinstance(b, BCOO) else jnp.asarray(b),
                            dimension_numbers=dims)


def multiply(a, b):
    """``a * b`` with ``a`` sparse: ``a``'s pattern, or the pairs of entries of two
    sparse operands."""
    if isinstance(b, JAXSparse):
        if _same_pattern(a, b) and a.unique_indices:   # as JAX: values multiply in place
            return a._with_data(a.data * b.data)
        return bcoo_multiply_sparse(_as_bcoo(a), _as_bcoo(b))
    out = bcoo_multiply_dense(_as_bcoo(a), b)
    return BCSR.from_bcoo(out) if isinstance(a, BCSR) else out


def add(a, b):
    """``a + b``: sparse + sparse is sparse (entries concatenated); with a dense operand
    the result is dense."""
    if isinstance(a, JAXSparse) and isinstance(b, JAXSparse):
        if _same_pattern(a, b):                        # as JAX: values add in place
            return a._with_data(a.data + b.data)
        return bcoo_concatenate_nse([_as_bcoo(a), _as_bcoo(b)])
    sp, dense = (a, b) if isinstance(a, JAXSparse) else (b, a)
    dense_shape = tuple(jnp.shape(dense))
    if dense_shape != sp.shape and jnp.broadcast_shapes(dense_shape, sp.shape) != dense_shape:
        # as JAX: no silent densification to a shape larger than the dense operand's
        raise NotImplementedError(
            f"sparse + dense: {sp!r} + dense{dense_shape} would densify the sparse array to "
            "a larger shape than the dense operand's. Fix: densify it explicitly "
            "(x.todense()) if that is the intent.")
    return jnp.add(a.todense() if a is sp else a, b.todense() if b is sp else b)


def _same_pattern(a, b):
    """Both sparse arrays of one class, shape and index buffers (the same object)."""
    return (type(a) is type(b) and a.shape == b.shape and
            all(x is y for x, y in zip(tjit.tree_util.tree_leaves(a)[1:],
                                       tjit.tree_util.tree_leaves(b)[1:])))


def _neg(self):
    return self._with_data(-self.data)


def _divide(self, other):
    other = jnp.asarray(other)
    if other.ndim:
        raise NotImplementedError(
            f"sparse / dense of shape {tuple(other.shape)}: only division by a scalar keeps "
            "the sparsity pattern (x / 0 is not 0). Fix: multiply by 1 / other on the pattern.")
    return self._with_data(self.data / other)


def _install(cls):
    cls.__matmul__ = lambda self, other: matmul(self, other) if _is_operand(other) \
        else NotImplemented
    cls.__rmatmul__ = lambda self, other: matmul(other, self) if _is_operand(other) \
        else NotImplemented
    cls.__mul__ = lambda self, other: multiply(self, other) if _is_operand(other) \
        else NotImplemented
    cls.__rmul__ = lambda self, other: multiply(self, other) if _is_operand(other) \
        else NotImplemented
    cls.__truediv__ = lambda self, other: _divide(self, other) \
        if not isinstance(other, JAXSparse) else NotImplemented
    cls.__add__ = lambda self, other: add(self, other)
    cls.__radd__ = lambda self, other: add(other, self)
    cls.__sub__ = lambda self, other: add(self, -other)
    cls.__rsub__ = lambda self, other: add(other, -self)
    cls.__neg__ = _neg
    cls.__pos__ = lambda self: self
    cls.dot = lambda self, other: matmul(self, other)


for _cls in (BCOO, BCSR):
    _install(_cls)
