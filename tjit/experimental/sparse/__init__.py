"""``tjit.experimental.sparse``: sparse arrays as ``jax.experimental.sparse``.

``BCOO`` (batched COO) and ``BCSR`` (batched CSR) are pytrees, so they pass through
``jit``, ``grad`` (w.r.t. ``.data`` and the dense operands) and ``vmap`` (over their
batch dims). Their operations are compositions of jnp/lax operations (gather,
scatter-add, sort) that compile into tjit's fused kernels. ``sparsify`` runs a
function written for dense arrays on sparse ones.

    from tjit.experimental import sparse
    M = sparse.BCOO.fromdense(dense)
    y = M @ x
"""

from tjit._namespace import publish as _publish
from tjit.experimental.sparse._base import (  # noqa: F401
    CuSparseEfficiencyWarning, JAXSparse, SparseEfficiencyError, SparseEfficiencyWarning)
from tjit.experimental.sparse.bcoo import (  # noqa: F401
    BCOO, bcoo_eliminate_zeros, bcoo_extract, bcoo_fromdense, bcoo_multiply_dense,
    bcoo_reduce_sum, bcoo_sort_indices, bcoo_sum_duplicates, bcoo_todense, bcoo_transpose)
from tjit.experimental.sparse.bcoo_layout import (  # noqa: F401
    bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_dynamic_slice, bcoo_reshape, bcoo_rev,
    bcoo_slice, bcoo_squeeze, bcoo_update_layout)
from tjit.experimental.sparse.bcoo_indexing import bcoo_gather  # noqa: F401  (and mat[key])
from tjit.experimental.sparse.bcoo_dot import (  # noqa: F401
    bcoo_dot_general, bcoo_dot_general_sampled, bcoo_multiply_sparse)
from tjit.experimental.sparse.bcsr import (  # noqa: F401
    BCSR, bcsr_concatenate, bcsr_dot_general, bcsr_extract, bcsr_fromdense,
    bcsr_sum_duplicates, bcsr_todense)
from tjit.experimental.sparse.legacy import (  # noqa: F401
    COO, CSC, CSR, coo_fromdense, coo_matmat, coo_matvec, coo_todense, csr_fromdense,
    csr_matmat, csr_matvec, csr_todense)
from tjit.experimental.sparse import _methods  # noqa: F401  (installs @, *, + on the classes)
from tjit.experimental.sparse.ad import (  # noqa: F401
    grad, jacfwd, jacobian, jacrev, value_and_grad)
from tjit.experimental.sparse.api import empty, eye, random_bcoo, todense  # noqa: F401
from tjit.experimental.sparse.transform import sparsify  # noqa: F401
from tjit.experimental.sparse import linalg  # noqa: F401

_publish(globals())  # tab completion lists the public API only
