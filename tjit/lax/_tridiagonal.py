"""``lax.linalg.tridiagonal_solve``: Gaussian elimination with partial pivoting on a
tridiagonal matrix (LAPACK ``gtsv``'s algorithm), written as two ``scan``s.

As scans of elementwise steps it needs no primitive of its own: ``jit`` runs it as a
native loop, ``vmap`` batches it, and ``grad`` differentiates it through the scans
(linear in ``b``; the diagonals' derivatives follow from the same steps). Pivoting
keeps it stable on matrices that are not diagonally dominant, where the plain Thomas
algorithm divides by zero or loses all digits.

Elimination keeps one pending row ``(pivot, super, rhs)``. Step ``i`` compares it with
row ``i + 1``'s subdiagonal entry ``l``: when ``|l|`` is larger the rows swap (the
fixed row ``i`` is then row ``i + 1``, with a second superdiagonal ``du[i + 1]``), and
the other row minus a multiple of the fixed one becomes the pending row ``i + 1``.
Back substitution then runs over the fixed rows from the last.
"""

import numpy as np

from tjit.lax import _control_flow
from tjit.tracing import dtypes
from tjit.tracing.core import get_aval


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """Solve ``A x = b`` for tridiagonal ``A``, as ``jax.lax.linalg.tridiagonal_solve``.

    Args:
      dl, d, du: ``[..., m]`` arrays: the sub-, main and superdiagonal of ``A``
        (``dl[..., i] = A[i, i-1]``, ``du[..., i] = A[i, i+1]``; ``dl[..., 0]`` and
        ``du[..., m-1]`` are not read).
      b: ``[..., m, n]``: ``n`` right-hand sides.
      perturb_singular: replace pivots smaller than ``eps * max|U|`` (``U`` the
        eliminated upper factor) by that size, so a singular system gives a finite
        solution (for inverse iteration), as JAX's option.

    Returns:
      ``x`` of ``b``'s shape. A singular matrix without ``perturb_singular`` gives
      non-finite values.
    """
    import tjit.numpy as jnp
    dl, d, du, b = (jnp.asarray(v) for v in (dl, d, du, b))
    _check(dl, d, du, b)
    dtype = jnp.result_type(dl, d, du, b)
    if not dtypes.is_inexact(dtype):
        dtype = dtypes.canonicalize(np.float64)
    dl, d, du, b = (v.astype(dtype) for v in (dl, d, du, b))
    m = d.shape[-1]
    if m == 0 or b.shape[-1] == 0:
        return jnp.zeros(b.shape, dtype)
    # rows first: scans run over the row axis, everything else rides along
    rows = [jnp.moveaxis(v, -1, 0) for v in (dl, d, du)] + [jnp.moveaxis(b, -2, 0)]
    dl_r, d_r, du_r, b_r = rows
    pivots, supers, supers2, rhs = _eliminate(dl_r, d_r, du_r, b_r, m)
    if perturb_singular:
        pivots = _perturbed(pivots, supers, supers2)
    x = _back_substitute(pivots, supers, supers2, rhs)
    return jnp.moveaxis(x, 0, -2)


def _check(dl, d, du, b):
    shapes = [tuple(get_aval(v).shape) for v in (dl, d, du, b)]
    if not (shapes[0] == shapes[1] == shapes[2]) or len(shapes[1]) < 1:
        raise ValueError(f"tridiagonal_solve: dl, d and du must have one shape [..., m], "
                         f"got {shapes[0]}, {shapes[1]} and {shapes[2]}")
    if len(shapes[3]) != len(shapes[1]) + 1 or shapes[3][:-1] != shapes[1]:
        raise ValueError(f"tridiagonal_solve: b must have shape [..., m, n] with the "
                         f"diagonals' [..., m] = {shapes[1]}, got {shapes[3]}")


def _eliminate(dl, d, du, b, m):
    """The fixed rows ``(pivot, super, super2, rhs)``, each ``[m, ...]``."""
    import tjit.numpy as jnp

    def step(pending, nxt):
        a, c, r = pending
        lo, dn, un, bn = nxt
        swap = jnp.abs(a) < jnp.abs(lo)
        # multipliers with the unused branch's divisor replaced (no inf/NaN in gradients);
        # nothing to eliminate (lo == 0) is a zero multiplier, also under a zero pivot
        a_safe = jnp.where(swap | (a == 0), 1, a)
        keep_m, swap_m = lo / a_safe, a / jnp.where(swap, lo, 1)
        fixed = (jnp.where(swap, lo, a), jnp.where(swap, dn, c),
                 jnp.where(swap, un, jnp.zeros_like(un)),
                 jnp.where(swap[..., None], bn, r))
        pending = (jnp.where(swap, c - swap_m * dn, dn - keep_m * c),
                   jnp.where(swap, -swap_m * un, un),
                   jnp.where(swap[..., None], r - swap_m[..., None] * bn,
                             bn - keep_m[..., None] * r))
        return pending, fixed

    last, (a, c, e, r) = _control_flow.scan(step, (d[0], du[0], b[0]),
                                            (dl[1:], d[1:], du[1:], b[1:]))
    a_last, _, r_last = last
    zeros = jnp.zeros_like(a_last)[None]
    return (jnp.concatenate([a, a_last[None]]), jnp.concatenate([c, zeros]),
            jnp.concatenate([e, zeros]), jnp.concatenate([r, r_last[None]]))


def _perturbed(pivots, supers, supers2):
    """Pivots below ``eps * max|U|`` (per system) raised to that size, sign kept."""
    import tjit.numpy as jnp
    eps = np.finfo(pivots.dtype).eps
    size = jnp.maximum(jnp.maximum(jnp.abs(pivots).max(0), jnp.abs(supers).max(0)),
                       jnp.abs(supers2).max(0))
    tol = eps * jnp.where(size > 0, size, 1)
    magnitude = jnp.abs(pivots)
    unit = jnp.where(magnitude == 0, 1, pivots / jnp.where(magnitude == 0, 1, magnitude))
    return jnp.where(magnitude < tol, unit * tol, pivots)


def _back_substitute(a, c, e, r):
    import tjit.numpy as jnp
    zero = jnp.zeros_like(r[0])

    def step(later, row):
        x1, x2 = later                        # x[i + 1], x[i + 2]
        ai, ci, ei, ri = row
        x = (ri - ci[..., None] * x1 - ei[..., None] * x2) / ai[..., None]
        return (x, x1), x

    _, xs = _control_flow.scan(step, (zero, zero), (a, c, e, r), reverse=True)
    return xs
