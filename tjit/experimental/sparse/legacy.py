"""JAX's legacy 2-D formats ``COO``, ``CSR`` and ``CSC`` (``jax.experimental.sparse.coo``
and ``.csr``): pytrees of their buffers with ``fromdense``, ``todense``, ``.T`` and ``@``
by a dense vector or matrix. They compute through BCOO, so they jit, grad and vmap as
BCOO does; new code should use BCOO or BCSR (as JAX's documentation advises).
"""

import numpy as np

import tjit.numpy as jnp
from tjit.experimental.sparse._base import JAXSparse
from tjit.experimental.sparse.bcoo import BCOO, bcoo_fromdense
from tjit.experimental.sparse.bcoo_dot import bcoo_dot_general
from tjit.tracing.tree_util import register_pytree_node_class


def _rows_of(indptr, nse):
    """Row (or column, for CSC) of each slot: slots from ``indptr[-1]`` on get the count."""
    slot = jnp.arange(nse, dtype=indptr.dtype)
    return jnp.searchsorted(indptr[1:], slot, side="right").astype(indptr.dtype)


def _indptr_of(sorted_rows, n_rows):
    return jnp.searchsorted(sorted_rows, jnp.arange(n_rows + 1), side="left").astype(
        sorted_rows.dtype)


def _matmul(mat, other, transpose):
    """``mat @ other`` (``mat.T @ other`` if ``transpose``) with ``other`` dense 1-D or 2-D."""
    if isinstance(other, JAXSparse):
        raise NotImplementedError(f"{type(mat).__name__}: matmul between two sparse objects "
                                  "(use BCOO for sparse x sparse)")
    other = jnp.asarray(other)
    if other.ndim not in (1, 2):
        raise NotImplementedError(f"{type(mat).__name__}: matmul with an operand of shape "
                                  f"{tuple(other.shape)} (1-D or 2-D only)")
    contract = 0 if transpose else 1
    return bcoo_dot_general(mat.to_bcoo(), other, dimension_numbers=(((contract,), (0,)),
                                                                     ((), ())))


def _check_2d(name, shape):
    if len(shape) != 2:
        raise ValueError(f"{name}: the matrix must have ndim=2; got shape={tuple(shape)}")


class _Legacy(JAXSparse):
    _fields = ()

    @property
    def nse(self):
        return self.data.size

    def todense(self):
        """The dense matrix."""
        return self.to_bcoo().todense()

    def __matmul__(self, other):
        return _matmul(self, other, transpose=False)

    def tree_flatten(self):
        return tuple(getattr(self, f) for f in self._fields), (self.shape,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        for f, c in zip(cls._fields, children):
            setattr(obj, f, c)
        obj.shape = aux[0]
        return obj

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype}{list(self.shape)}, nse={self.nse})"


@register_pytree_node_class
class COO(_Legacy):
    """2-D COO matrix ``(data, row, col)`` (JAX's legacy ``sparse.COO``)."""

    _fields = ("data", "row", "col")

    def __init__(self, args, *, shape, rows_sorted=False, cols_sorted=False):
        self.data, self.row, self.col = (jnp.asarray(a) for a in args)
        self.shape = tuple(shape)
        _check_2d("COO", self.shape)
        if not self.data.shape == self.row.shape == self.col.shape or self.data.ndim != 1:
            raise ValueError(f"COO: data {tuple(self.data.shape)}, row {tuple(self.row.shape)} "
                             f"and col {tuple(self.col.shape)} must be 1-D of one length")

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        """COO matrix of the nonzeros of the 2-D ``mat``."""
        return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

    def to_bcoo(self):
        return BCOO((self.data, jnp.stack([self.row, self.col], -1)), shape=self.shape)

    def transpose(self, axes=None):
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError(f"COO.transpose: axes must be None or (1, 0), got {axes}")
        return COO((self.data, self.col, self.row), shape=self.shape[::-1])

    @property
    def T(self):
        return self.transpose()


@register_pytree_node_class
class CSR(_Legacy):
    """2-D CSR matrix ``(data, indices, indptr)`` (JAX's legacy ``sparse.CSR``)."""

    _fields = ("data", "indices", "indptr")

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.shape = tuple(shape)
        _check_2d(type(self).__name__, self.shape)
        n_ptr = self.shape[type(self) is CSC] + 1
        if self.indptr.shape != (n_ptr,) or self.data.shape != self.indices.shape:
            raise ValueError(f"{type(self).__name__}: indptr {tuple(self.indptr.shape)} must "
                             f"have shape ({n_ptr},) and data/indices one length 1-D shape")

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        """CSR matrix of the nonzeros of the 2-D ``mat``."""
        return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

    def to_bcoo(self):
        rows = _rows_of(self.indptr, self.nse)
        cols = self.indices.astype(rows.dtype)
        pair = (rows, cols) if type(self) is CSR else (cols, rows)
        return BCOO((self.data, jnp.stack(pair, -1)), shape=self.shape)

    def transpose(self, axes=None):
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError(f"{type(self).__name__}.transpose: axes must be None or (1, 0)")
        other = CSC if type(self) is CSR else CSR
        return other((self.data, self.indices, self.indptr), shape=self.shape[::-1])

    @property
    def T(self):
        return self.transpose()


@register_pytree_node_class
class CSC(CSR):
    """2-D CSC matrix ``(data, indices, indptr)``: ``indices`` are rows, ``indptr`` runs
    over columns (JAX's legacy ``sparse.CSC``)."""

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        """CSC matrix of the nonzeros of the 2-D ``mat``."""
        t = csr_fromdense(jnp.asarray(mat).T, nse=nse, index_dtype=index_dtype)
        return CSC((t.data, t.indices, t.indptr), shape=t.shape[::-1])


def coo_fromdense(mat, *, nse=None, index_dtype=jnp.int32):
    """COO matrix of the nonzeros of the 2-D ``mat`` (``nse`` required under jit)."""
    mat = jnp.asarray(mat)
    _check_2d("coo_fromdense", mat.shape)
    b = bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype)
    return COO((b.data, b.indices[:, 0], b.indices[:, 1]), shape=mat.shape, rows_sorted=True)


def coo_todense(mat):
    """Dense matrix of the COO ``mat``."""
    return mat.todense()


def coo_matvec(mat, v, transpose=False):
    """``mat @ v`` (``mat.T @ v`` if ``transpose``) for a COO ``mat`` and a vector ``v``."""
    return _matmul(mat, v, transpose)


def coo_matmat(mat, B, *, transpose=False):
    """``mat @ B`` (``mat.T @ B`` if ``transpose``) for a COO ``mat`` and a matrix ``B``."""
    return _matmul(mat, B, transpose)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32):
    """CSR matrix of the nonzeros of the 2-D ``mat`` (``nse`` required under jit)."""
    mat = jnp.asarray(mat)
    _check_2d("csr_fromdense", mat.shape)
    b = bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype)
    return CSR((b.data, b.indices[:, 1], _indptr_of(b.indices[:, 0], mat.shape[0])),
               shape=mat.shape)


def csr_todense(mat):
    """Dense matrix of the CSR ``mat``."""
    return mat.todense()


def csr_matvec(mat, v, transpose=False):
    """``mat @ v`` (``mat.T @ v`` if ``transpose``) for a CSR ``mat`` and a vector ``v``."""
    return _matmul(mat, v, transpose)


def csr_matmat(mat, B, *, transpose=False):
    """``mat @ B`` (``mat.T @ B`` if ``transpose``) for a CSR ``mat`` and a matrix ``B``."""
    return _matmul(mat, B, transpose)


