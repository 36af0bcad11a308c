"""``tjit.nn.dot_product_attention``: scaled dot-product attention with JAX's XLA
implementation semantics (jax/_src/nn/functions.py ``_dot_product_attention_xla``).

Grouped-query attention is computed on a ``(B, T, K, G, H)`` view of the query (G = N // K
query heads share each key/value head) instead of JAX's vmap over G: the same einsums,
one contraction each. Logits are accumulated in ``promote_types(query.dtype, float32)``;
masked logits become ``-0.7 * max`` of their dtype (capped at float32's range), not
-inf, so a fully masked row is a uniform average rather than NaN; the softmax runs in
float32 whatever the input dtype, as JAX's does.
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.nn.functions import logsumexp, softmax
from tjit.tracing import dtypes


def _ensure_4d(t):
    t = jnp.asarray(t)
    return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check_shape_and_dtype(t, shape, dtype, name):
    """JAX's checks and messages: rank, dtype, then each dim that is not -1."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {list(shape)}: but got {tuple(t.shape)}")


def _check_broadcastable(t, full, name):
    """A 4-D bias/mask broadcasts to the logits' (B, N, T, S); its head dim is 1 or N."""
    if t is None:
        return
    if any(d != 1 and d != f for d, f in zip(t.shape, full)):
        raise ValueError(f"dot_product_attention: {name} of shape {tuple(t.shape)} does not "
                         f"broadcast to the logits' (B, N, T, S) = {tuple(full)}; each dim "
                         "must be 1 or equal to that size")


def _large_negative(dtype):
    # capped at float32's range: the softmax runs in float32, where it must stay finite
    top = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return jnp.asarray(-0.7 * top, dtype=dtype)


def _combined_mask(mask, is_causal, q_seqlen, kv_seqlen, window, T, S):
    """The AND of every mask that applies, broadcastable to the grouped logits
    (B, K, G, T, S); None when nothing is masked."""
    masks = [] if mask is None else [mask]
    q_pos = jnp.arange(T)[:, None]
    k_pos = jnp.arange(S)[None, :]
    if is_causal:
        masks.append(jnp.greater_equal(q_pos, k_pos))
    if window is not None:
        left, right = window
        masks.append(jnp.logical_and(jnp.less_equal(q_pos, k_pos + left),
                                     jnp.greater_equal(q_pos, k_pos - right)))
    if q_seqlen is not None:  # (B, 1, 1, T, 1)
        masks.append(jnp.less(jnp.arange(T)[None, :, None], q_seqlen[:, None, None])
                     [:, None, None])
    if kv_seqlen is not None:  # (B, 1, 1, 1, S)
        masks.append(jnp.less(jnp.arange(S)[None, None, :], kv_seqlen[:, None, None])
                     [:, None, None])
    if not masks:
        return None
    combined = masks[0]
    for m in masks[1:]:
        combined = jnp.logical_and(combined, m)
    return combined


def _grouped(t, K, G):
    """A (tB, 1|N, tT, tS) bias or mask as (tB, 1|K, 1|G, tT, tS) for the grouped logits."""
    if t is None:
        return None
    tB, tN, tT, tS = t.shape
    return t[:, :, None] if tN == 1 else jnp.reshape(t, (tB, K, G, tT, tS))


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   window, return_residual):
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    q = jnp.reshape(query, (B, T, K, G, H))
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", q, key, preferred_element_type=logits_dtype)
    logits = logits * jnp.asarray(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, K, G)).astype(logits.dtype)
    combined = _combined_mask(_grouped(mask, K, G), is_causal, q_seqlen, kv_seqlen, window,
                              T, S)
    if combined is not None:
        logits = jnp.where(combined, logits, _large_negative(logits.dtype))
    logits = logits.astype(np.float32)  # the softmax always runs in float32 (as JAX)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_seqlen is not None:  # padded queries' outputs are zero
        keep = jnp.less(jnp.arange(T)[None, :], q_seqlen[:, None])
        encoded = encoded * keep[:, :, None, None, None].astype(encoded.dtype)
    encoded = jnp.reshape(encoded, (B, T, N, H))
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(key.dtype)  # (B, K, G, T)
    lse = jnp.reshape(jnp.transpose(lse, (0, 3, 1, 2)), (B, T, N))
    return encoded, lax.stop_gradient(lse)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    r"""Scaled dot-product attention ``softmax(Q K^T * scale + bias) V`` per head, as
    ``jax.nn.dot_product_attention`` (its ``xla`` implementation).

    Shapes: B batch, T query length, S key/value length, N query heads, K key/value
    heads (N a multiple of K: grouped-query attention; K == 1: multi-query), H head dim.

    Args:
      query: ``(B, T, N, H)`` or ``(T, N, H)``.
      key, value: ``(B, S, K, H)`` or ``(S, K, H)``, one dtype (the query's too).
      bias: optional, added to the logits; at most 4-D, broadcastable to
        ``(B, N, T, S)`` (leading dims are added).
      mask: optional boolean array, True where a query may attend to a key; at most
        4-D, broadcastable to ``(B, N, T, S)``.
      scale: the logits' factor; default ``1 / sqrt(H)``.
      is_causal: query ``t`` attends to keys ``s <= t`` only.
      query_seq_lengths, key_value_seq_lengths: optional int32 ``(B,)`` arrays; positions
        at or past a length are padding (padded queries' outputs are 0).
      local_window_size: ``(left, right)`` or an int for both: query ``t`` attends to keys
        ``t - left <= s <= t + right``.
      implementation: None or ``'xla'``; ``'cudnn'`` (cuDNN flash attention) is not
        available in tjit and raises.
      return_residual: also return the logits' logsumexp, shape ``(B, T, N)`` or
        ``(T, N)`` (not differentiated, as in JAX).

    Returns:
      An array of the query's shape, or ``(output, residual)``.

    Masked logits are set to ``-0.7 * finfo(dtype).max`` (not -inf) and the softmax is
    computed in float32, as JAX does.
    """
    output_shape = tuple(jnp.asarray(query).shape)
    query_arr, key_arr, value_arr = (_ensure_4d(t) for t in (query, key, value))
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, (int, np.integer)):
        local_window_size = (int(local_window_size), int(local_window_size))
    elif local_window_size is not None:
        local_window_size = tuple(int(w) for w in local_window_size)
        if len(local_window_size) != 2:
            raise ValueError("dot_product_attention: local_window_size must be an int or a "
                             f"(left, right) pair, got {local_window_size}")

    B, S, K, H = key_arr.shape
    _check_shape_and_dtype(value_arr, [B, S, K, H], key_arr.dtype, "value")
    _check_shape_and_dtype(query_arr, [B, -1, -1, H], key_arr.dtype, "query")
    _check_shape_and_dtype(mask, [-1] * 4, np.dtype(bool), "mask")
    _check_shape_and_dtype(bias, [-1] * 4, None, "bias")
    _check_shape_and_dtype(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check_shape_and_dtype(key_value_seq_lengths, [B], np.dtype("int32"),
                           "key_value_seq_lengths")
    N, T = query_arr.shape[-2], query_arr.shape[1]
    if N % K != 0:
        raise ValueError("The number of query heads must be a multiple of "
                         f"key/value heads, but got {N} vs {K}")
    _check_broadcastable(bias, (B, N, T, S), "bias")
    _check_broadcastable(mask, (B, N, T, S), "mask")
    if implementation == "cudnn":
        raise NotImplementedError(
            "dot_product_attention: implementation='cudnn' (cuDNN flash attention) is not "
            "available in tjit; use implementation=None or 'xla', which computes the same "
            "attention on every backend (CPU, CUDA, OpenCL)")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")

    scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
    out = _attention_xla(query_arr, key_arr, value_arr, bias, mask, is_causal, scale_val,
                         query_seq_lengths, key_value_seq_lengths, local_window_size,
                         return_residual)
    if return_residual:
        out, residual = out
        return jnp.reshape(out, output_shape), jnp.reshape(residual, output_shape[:-1])
    return jnp.reshape(out, output_shape)


__all__ = ["dot_product_attention"]
