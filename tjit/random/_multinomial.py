"""``tjit.random.multinomial``: JAX's algorithm (jax/_src/random: one binomial per
outcome, each drawing from the trials left at the conditional probability
``p_i / (p_i + ... + p_k)``, in a ``lax.scan`` over the outcomes)."""

from tjit import lax
from tjit.tracing import dtypes
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.random._counts import binomial
from tjit.random._keys import check_key, split
from tjit.random._samplers import param_array


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` trials over the outcomes of ``p`` (last axis), as
    ``jax.random.multinomial``.

    Args:
      key: a PRNG key.
      n: numbers of trials, broadcastable to ``p.shape[:-1]`` (floats allowed, as JAX).
      p: outcome probabilities along the last axis (summing to 1).
      shape: the result shape, outcomes last (``p`` is broadcast to it); default
        ``p.shape``. (JAX's docstring calls it the batch shape, but its code, followed
        here, broadcasts ``p`` to it.)
      dtype: the result dtype; default float32 (float64 with x64), as JAX's
        ``astype(None)``, whatever the dtypes of ``n`` and ``p``.
      unroll: passed to the ``lax.scan`` over the outcomes.

    Returns:
      Counts of shape ``shape`` that add up to ``n`` along the last axis.

    Its distribution is JAX's; its values for a key are not (tjit's ``binomial``
    sampler differs from JAX's).
    """
    key = check_key("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(param_array(n, "multinomial", "n"),
                                  param_array(p, "multinomial", "p"))
    if shape is None:
        shape = tuple(p.shape)
    shape = tuple(shape)
    if not shape:
        raise ValueError("multinomial: p (or shape) needs an outcome axis; got shape ()")
    for what, arr, want in (("p", p, shape), ("n", n, shape[:-1])):
        have = tuple(arr.shape)
        if len(have) > len(want) or any(h not in (1, w) for h, w in
                                        zip(have[::-1], want[::-1])):
            raise ValueError(f"multinomial: {what} of shape {have} does not broadcast to "
                             f"{want}; shape is the whole result shape, outcomes last (e.g. "
                             f"shape=(batch, {tuple(p.shape)[-1] if p.ndim else 'k'}))")
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining == 0, 1, remaining)  # P(outcome i | not before i)

    def draw(left, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, left, jnp.clip(ratio, 0, 1), dtype=left.dtype)
        return left - count, count

    _, counts = lax.scan(draw, n, (ratios, split(key, shape[-1])), unroll=unroll)
    counts = jnp.moveaxis(counts, 0, -1)
    return counts.astype(dtypes.default_float() if dtype is None else dtype)


__all__ = ["multinomial"]
