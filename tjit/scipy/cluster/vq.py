"""``tjit.scipy.cluster.vq``: assign observations to their nearest code, as
``jax.scipy.cluster.vq``."""

from tjit.tracing.shapes import shape_str
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact


def vq(obs, code_book, check_finite=True):
    """The nearest code of every observation (``scipy.cluster.vq.vq``).

    Args:
      obs: observations, shape (M, N) (or (M,) for one feature).
      code_book: codes, shape (K, N) (or (K,)).
      check_finite: accepted for SciPy compatibility; not checked (values may be traced).

    Returns:
      ``(code, dist)``: for each observation the index of its nearest code (first on
      ties) and the Euclidean distance to it.
    """
    del check_finite  # a traced value cannot be checked
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(jnp.asarray(obs), jnp.asarray(code_book))
    if obs.ndim != code_book.ndim:
        raise ValueError(f"scipy.cluster.vq.vq: obs {shape_str(obs.shape)} and code_book "
                         f"{shape_str(code_book.shape)} must have the same number of dims")
    if obs.ndim == 1:
        obs, code_book = obs[:, None], code_book[:, None]
    if obs.ndim != 2:
        raise ValueError(f"scipy.cluster.vq.vq: obs and code_book must be 1-D or 2-D, got "
                         f"{shape_str(obs.shape)} and {shape_str(code_book.shape)}")
    if obs.shape[1] != code_book.shape[1]:
        raise ValueError(f"scipy.cluster.vq.vq: obs {shape_str(obs.shape)} and code_book "
                         f"{shape_str(code_book.shape)} must have the same number of "
                         f"features (columns)")
    dist = jnp.linalg.norm(obs[:, None, :] - code_book[None, :, :], axis=-1)  # (M, K)
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]


__all__ = ["vq"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
