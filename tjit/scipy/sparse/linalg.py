"""``tjit.scipy.sparse.linalg``: the Krylov solvers ``cg``, ``bicgstab`` and ``gmres``, as
``jax.scipy.sparse.linalg``.

``A`` (and the preconditioner ``M``) is a square matrix, an object with ``@``, or a
function computing the matrix-vector product, so matrix-free operators on pytrees of
arrays work. Each solve is wrapped in ``lax.custom_linear_solve``: gradients come from a
second solve with the transposed operator (implicit differentiation), never from
differentiating the iterations; they are accurate when both solves converge.
"""

import functools
import math
import operator

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike
from tjit.scipy.sparse._cg_bicgstab import bicgstab_solve, cg_solve, identity
from tjit.scipy.sparse._gmres import gmres_batched, gmres_incremental, gmres_solve
from tjit.scipy.sparse._tree_vectors import dot, norm
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str
from tjit.tree_util import tree_leaves, tree_map, tree_structure


def _shapes(tree):
    return [tuple(np.shape(x)) for x in tree_leaves(tree)]


def _dtypes(tree):
    return [str(jnp.result_type(x)) for x in tree_leaves(tree)]


def _normalize_matvec(op, name, f, b):
    """``f`` as a function x -> f x: a callable as given, a square matrix (or an object
    with ``@``, its ``shape`` square if it states one) as its product with ``b``."""
    if callable(f):
        return f
    if not hasattr(f, "__matmul__") and not isinstance(f, (list, tuple)):
        raise TypeError(f"scipy.sparse.linalg.{op}: the linear operator {name} must be a "
                        f"function, a square matrix or an object with @, got "
                        f"{type(f).__name__}")
    if isinstance(f, (list, tuple)):  # nested lists: an array, as jnp.asarray reads them
        f = jnp.asarray(f)
    if not hasattr(f, "shape"):  # an @ operator of unstated shape: its output is checked
        return functools.partial(operator.matmul, f)
    shape = tuple(f.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ShapeError(f"scipy.sparse.linalg.{op}: the linear operator {name} must be a "
                         f"square matrix, but has shape {shape_str(shape)}")
    leaves = tree_leaves(b)
    if tree_structure(b) != tree_structure(0) or not leaves[0].ndim:
        raise ShapeError(f"scipy.sparse.linalg.{op}: with {name} a matrix, b must be one "
                         f"array of shape ({shape[0]},) (or ({shape[0]}, k)), got a pytree "
                         f"of shapes {_shapes(b)}; pass {name} as a function to solve for "
                         f"pytree vectors")
    if leaves[0].shape[0] != shape[1]:
        raise ShapeError(f"scipy.sparse.linalg.{op}: {name} of shape {shape_str(shape)} "
                         f"does not fit b of shape {shape_str(leaves[0].shape)}: b needs "
                         f"{shape[1]} rows")
    if isinstance(f, (np.ndarray, jnp.ndarray)):
        return functools.partial(dot, f)
    return functools.partial(operator.matmul, f)  # e.g. a user's sparse-matrix class


def _checked(op, name, f):
    """``f`` checked to map a vector to one of the same structure, shapes and dtypes (the
    iterations keep x in b's dtype, so an operator that promotes would break them)."""
    def g(x):
        y = f(x)
        if tree_structure(y) != tree_structure(x) or _shapes(y) != _shapes(x):
            raise ShapeError(
                f"scipy.sparse.linalg.{op}: {name}(x) must return a vector shaped like x, "
                f"got structure {tree_structure(y)} with shapes {_shapes(y)} for x of "
                f"structure {tree_structure(x)} with shapes {_shapes(x)}")
        if _dtypes(y) != _dtypes(x):
            got, want = ", ".join(sorted(set(_dtypes(y)))), ", ".join(sorted(set(_dtypes(x))))
            raise TypeError(
                f"scipy.sparse.linalg.{op}: {name}(x) returns dtypes {_dtypes(y)} for x of "
                f"dtypes {_dtypes(x)} (b's): the solution keeps b's dtype, so cast b and x0 "
                f"to {got}, or {name} to {want}")
        return y
    return g


def _vectors(op, b, x0):
    """b and x0 as pytrees of inexact arrays of one structure, shapes and dtypes."""
    def as_array(name):
        def conv(v):
            check_arraylike(f"scipy.sparse.linalg.{op}", v)
            return jnp.asarray(v)
        return conv

    b = tree_map(as_array("b"), b)
    if not tree_leaves(b):
        raise ValueError(f"scipy.sparse.linalg.{op}: b has no arrays (an empty pytree)")
    for leaf in tree_leaves(b):
        if not jnp.issubdtype(leaf.dtype, jnp.inexact):
            raise TypeError(f"scipy.sparse.linalg.{op}: b must have floating or complex "
                            f"dtypes, got {leaf.dtype}; cast it, e.g. b.astype(float)")
    if len(set(_dtypes(b))) > 1:  # the scalars of an iteration would promote some leaves
        raise TypeError(f"scipy.sparse.linalg.{op}: the arrays of b must share one dtype, "
                        f"got {_dtypes(b)}; cast them to one, e.g. the widest")
    if x0 is None:
        return b, tree_map(jnp.zeros_like, b)
    x0 = tree_map(as_array("x0"), x0)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"scipy.sparse.linalg.{op}: x0 and b must have matching tree "
                         f"structure: {tree_structure(x0)} vs {tree_structure(b)}")
    if _shapes(x0) != _shapes(b):
        raise ShapeError(f"scipy.sparse.linalg.{op}: arrays in x0 and b must have matching "
                         f"shapes: {_shapes(x0)} vs {_shapes(b)}")
    if _dtypes(x0) != _dtypes(b):
        raise TypeError(f"scipy.sparse.linalg.{op}: arrays in x0 and b must have matching "
                        f"dtypes: {_dtypes(x0)} vs {_dtypes(b)}; cast x0 to b's")
    return b, x0


def _operators(op, A, M, b):
    A = _checked(op, "A", _normalize_matvec(op, "A", A, b))
    M = identity if M is None else _checked(op, "M", _normalize_matvec(op, "M", M, b))
    return A, M


def _size(b):
    """The vector's length: an int, or a symbolic dim under polymorphic shapes."""
    return sum(math.prod(x.shape) for x in tree_leaves(b))


def _isolve(op, solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric=False):
    b, x0 = _vectors(op, b, x0)
    A, M = _operators(op, A, M, b)
    if maxiter is None:
        maxiter = 10 * _size(b)  # SciPy's default
    isolve = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real positive definite operator is symmetric: the transposed solve is the solve
    symmetric = check_symmetric and not any(jnp.iscomplexobj(x) for x in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=isolve, transpose_solve=isolve,
                                symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by (preconditioned) conjugate gradients, as
    ``jax.scipy.sparse.linalg.cg``; its numerics follow SciPy's ``cg``.

    Args:
      A: a Hermitian positive definite operator: a 2-D square array, an object with
        ``@``, or a function ``A(x)`` returning a vector shaped like ``x`` (pytrees
        allowed).
      b: the right-hand side: an array, or a pytree of arrays of any shapes (one vector).
      x0: the starting guess, shaped like ``b`` (default zeros).
      tol, atol: stop when ``norm(residual) <= max(tol * norm(b), atol)`` (SciPy's
        non-legacy rule).
      maxiter: the most iterations (default ``10 * b``'s size).
      M: a preconditioner approximating A's inverse (matrix, ``@`` object or function).

    Returns:
      ``(x, info)``: the solution, shaped like ``b``, and None (JAX reports no
      convergence information). Gradients come from a second cg solve.
    """
    return _isolve("cg", cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by BiCGSTAB for a general (nonsymmetric) ``A``, as
    ``jax.scipy.sparse.linalg.bicgstab``; its numerics follow SciPy's ``bicgstab``.

    Args:
      A: a square operator: a 2-D array, an object with ``@``, or a function ``A(x)``
        returning a vector shaped like ``x`` (pytrees allowed).
      b: the right-hand side: an array, or a pytree of arrays (one vector).
      x0: the starting guess, shaped like ``b`` (default zeros).
      tol, atol: stop when ``norm(residual) <= max(tol * norm(b), atol)``.
      maxiter: the most iterations (default ``10 * b``'s size).
      M: a preconditioner approximating A's inverse.

    Returns:
      ``(x, info)``: the solution and None. Gradients come from a BiCGSTAB solve with
      the transposed operator.
    """
    return _isolve("bicgstab", bicgstab_solve, A, b, x0, tol=tol, atol=atol,
                   maxiter=maxiter, M=M)


_GMRES_METHODS = {"incremental": gmres_incremental, "batched": gmres_batched}


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve ``A x = b`` by restarted GMRES, as ``jax.scipy.sparse.linalg.gmres``.

    Args:
      A: a square operator: a 2-D array, an object with ``@``, or a function ``A(x)``
        returning a vector shaped like ``x`` (pytrees allowed).
      b: the right-hand side: an array, or a pytree of arrays (one vector).
      x0: the starting guess, shaped like ``b`` (default zeros).
      tol, atol: stop when ``norm(residual) <= max(tol * norm(b), atol)``.
      restart: the Krylov subspace dimension built between restarts (at most b's size).
      maxiter: the most restarts (default ``10 * b``'s size).
      M: a preconditioner approximating A's inverse (GMRES works on ``M A``).
      solve_method: 'batched' (one dense least-squares solve per restart; no early exit
        within a restart, little overhead on GPUs) or 'incremental' (Givens rotations
        update a QR factorization at each step: more stable, and stops a restart early).

    Returns:
      ``(x, info)``: the solution and, as JAX's, an int array: -1 when x has NaNs, else 0.
    """
    if solve_method not in _GMRES_METHODS:
        raise ValueError(f"scipy.sparse.linalg.gmres: invalid solve_method "
                         f"{solve_method!r}, must be either 'incremental' or 'batched'")
    b, x0 = _vectors("gmres", b, x0)
    A, M = _operators("gmres", A, M, b)
    size = _size(b)
    if maxiter is None:
        maxiter = 10 * size  # SciPy's default
    if int(restart) < 1:
        raise ValueError(f"scipy.sparse.linalg.gmres: restart must be at least 1, got "
                         f"{restart}")
    # (a symbolic size is left alone: a breakdown ends a restart that outgrows it)
    restart = min(int(restart), size) if isinstance(size, int) else int(restart)
    b_norm = norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = norm(M(b)) * jnp.minimum(1.0, atol / b_norm)  # the tolerance on M's residual
    gmres_func = _GMRES_METHODS[solve_method]

    def solve(A, b):
        return gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    info = jnp.where(jnp.isnan(norm(x)), -1, 0)
    return x, info


__all__ = ["bicgstab", "cg", "gmres"]

from tjit._namespace import publish as _publish

_publish(globals(), submodules=())  # tab completion lists the public API only
