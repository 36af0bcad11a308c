"""``lax.linalg.symmetric_product`` and ``cholesky_update``, written on jnp/lax ops (so
they batch, compile and differentiate as their parts do)."""

from tjit.lax import _control_flow
from tjit.tracing.core import get_aval


def symmetric_product(a_matrix, c_matrix, *, alpha=1.0, beta=0.0, symmetrize_output=False):
    """``alpha * A @ A^T + beta * C`` for ``A`` ``[..., m, n]`` and symmetric ``C``
    ``[..., m, m]``, as ``jax.lax.linalg.symmetric_product``. The whole product is
    computed, so both triangles are valid; ``symmetrize_output`` copies the lower
    triangle's transpose into the upper one (JAX guarantees only the lower otherwise).
    """
    import tjit.numpy as jnp
    a, c = jnp.asarray(a_matrix), jnp.asarray(c_matrix)
    if a.ndim < 2 or c.shape != a.shape[:-1] + (a.shape[-2],):
        raise ValueError(f"symmetric_product: a_matrix must be [..., m, n] and c_matrix "
                         f"[..., m, m] with the same batch dims, got {a.shape} and "
                         f"{c.shape}")
    out = alpha * jnp.matmul(a, jnp.swapaxes(a, -1, -2)) + beta * c
    if symmetrize_output:
        lower = jnp.tril(out)
        out = lower + jnp.swapaxes(jnp.tril(out, -1), -1, -2)
    return out


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of ``R^T R + w w^T`` from the factor ``R`` of
    ``R^T R``, in O(n^2), as ``jax.lax.linalg.cholesky_update`` (a sequence of plane
    rotations, one per row; differentiable, unlike JAX's)."""
    import tjit.numpy as jnp
    r, w = jnp.asarray(r_matrix), jnp.asarray(w_vector)
    shape = tuple(get_aval(r).shape)
    if len(shape) != 2 or shape[0] != shape[1] or tuple(get_aval(w).shape) != shape[:1]:
        raise ValueError(f"cholesky_update: r_matrix must be square [n, n] and w_vector "
                         f"[n], got {shape} and {tuple(get_aval(w).shape)}")
    dtype = jnp.result_type(r, w)
    r, w = r.astype(dtype), w.astype(dtype)
    n = shape[0]
    cols = jnp.arange(n)

    def rotate_row(k, state):
        r, w = state
        rkk, wk = r[k, k], w[k]
        radius = jnp.sqrt(rkk * rkk + wk * wk)
        cos, sin = radius / rkk, wk / rkk
        right = cols > k
        row = jnp.where(right, (r[k] + sin * w) / cos, r[k])
        row = jnp.where(cols == k, radius, row)
        w = jnp.where(right, cos * w - sin * row, w)
        return r.at[k].set(row), w

    r, _ = _control_flow.fori_loop(0, n, rotate_row, (r, w))
    return r
