"""tjit.nn.dot_product_attention against a float64 NumPy reference written from the
formula (per batch, head and query: a softmax over the allowed keys), its gradients
against central differences of that reference, and under jit/vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.nn import dot_product_attention

B, T, S, N, K, H = 2, 5, 6, 4, 2, 3


def reference(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None,
              kv_len=None, window=None):
    """Attention one (batch, head, query) at a time in float64: a masked-out key gets the
    weight of a logit of -0.7 * float32 max (JAX's large negative number)."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    b_, t_, n_, h_ = q.shape
    s_, k_ = k.shape[1], k.shape[2]
    scale = 1 / np.sqrt(h_) if scale is None else scale
    bias = None if bias is None else np.broadcast_to(bias, (b_, n_, t_, s_))
    mask = None if mask is None else np.broadcast_to(mask, (b_, n_, t_, s_))
    out = np.zeros(q.shape)
    lse = np.zeros(q.shape[:-1])
    neg = -0.7 * np.finfo(np.float32).max
    for b in range(b_):
        for n in range(n_):
            kv_head = n // (n_ // k_)  # grouped-query: consecutive query heads share one
            for t in range(t_):
                logits = np.array([q[b, t, n] @ k[b, s, kv_head] * scale for s in range(s_)])
                if bias is not None:
                    logits += bias[b, n, t]
                allowed = np.ones(s_, bool)
                for s in range(s_):
                    if mask is not None and not mask[b, n, t, s]:
                        allowed[s] = False
                    if is_causal and s > t:
                        allowed[s] = False
                    if window is not None and not (t - window[0] <= s <= t + window[1]):
                        allowed[s] = False
                    if kv_len is not None and s >= kv_len[b]:
                        allowed[s] = False
                    if q_len is not None and t >= q_len[b]:
                        allowed[s] = False
                logits = np.where(allowed, logits, neg)
                w = np.exp(logits - logits.max())
                lse[b, t, n] = np.log(w.sum()) + logits.max()
                w /= w.sum()
                if q_len is None or t < q_len[b]:
                    out[b, t, n] = w @ v[b, :, kv_head]
    return out, lse


@pytest.fixture
def qkv():
    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal(s).astype(np.float32)
                 for s in ((B, T, N, H), (B, S, K, H), (B, S, K, H)))


def _cases():
    rng = np.random.default_rng(1)
    bias = rng.standard_normal((1, N, T, S)).astype(np.float32)
    mask = rng.random((B, 1, T, S)) > 0.3
    q_len, kv_len = np.array([3, 5], np.int32), np.array([4, 6], np.int32)
    return {
        "plain": ({}, {}),
        "bias": ({"bias": bias}, {"bias": bias}),
        "bias2d": ({"bias": bias[0, 0]}, {"bias": bias[0, 0]}),
        "mask": ({"mask": mask}, {"mask": mask}),
        "causal": ({"is_causal": True}, {"is_causal": True}),
        "window": ({"local_window_size": (1, 2)}, {"window": (1, 2)}),
        "window_int": ({"local_window_size": 1}, {"window": (1, 1)}),
        "lengths": ({"query_seq_lengths": q_len, "key_value_seq_lengths": kv_len},
                    {"q_len": q_len, "kv_len": kv_len}),
        "everything": ({"bias": bias, "mask": mask, "is_causal": True, "scale": 0.7,
                        "query_seq_lengths": q_len, "local_window_size": (2, 0)},
                       {"bias": bias, "mask": mask, "is_causal": True, "scale": 0.7,
                        "q_len": q_len, "window": (2, 0)}),
    }


@pytest.mark.parametrize("case", list(_cases()))
def test_matches_the_formula(qkv, case):
    ours, ref = _cases()[case]
    got = dot_product_attention(*qkv, **ours)
    want, _ = reference(*qkv, **ref)
    assert got.shape == want.shape and got.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_residual_is_the_logsumexp_and_3d_inputs_work(qkv):
    q, k, v = qkv
    out, res = dot_product_attention(q, k, v, is_causal=True, return_residual=True)
    want, lse = reference(q, k, v, is_causal=True)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
    assert res.shape == (B, T, N)
    np.testing.assert_allclose(np.asarray(res), lse, rtol=1e-5, atol=1e-5)
    out3 = dot_product_attention(q[1], k[1], v[1], is_causal=True)  # TNH layout
    assert out3.shape == (T, N, H)
    np.testing.assert_allclose(np.asarray(out3), want[1], rtol=1e-5, atol=1e-5)


def test_multi_query_and_float16(qkv):
    q, k, v = qkv
    k1, v1 = k[:, :, :1], v[:, :, :1]  # K == 1
    want, _ = reference(q, k1, v1)
    np.testing.assert_allclose(np.asarray(dot_product_attention(q, k1, v1)), want,
                               rtol=1e-5, atol=1e-5)
    half = dot_product_attention(*(a.astype(np.float16) for a in (q, k1, v1)))
    assert half.dtype == jnp.float16
    np.testing.assert_allclose(np.asarray(half, np.float64), want, rtol=1e-2, atol=1e-2)


def test_jit_and_vmap(qkv):
    q, k, v = qkv
    f = tjit.jit(lambda q, k, v: dot_product_attention(q, k, v, is_causal=True))
    want, _ = reference(q, k, v, is_causal=True)
    np.testing.assert_allclose(np.asarray(f(q, k, v)), want, rtol=1e-5, atol=1e-5)
    # vmap over the batch of 3-D (TNH) calls equals the 4-D call
    per_item = tjit.vmap(lambda q, k, v: dot_product_attention(q, k, v, is_causal=True))
    np.testing.assert_allclose(np.asarray(per_item(q, k, v)), want, rtol=1e-5, atol=1e-5)


def test_gradients_match_central_differences_of_the_reference(qkv, x64):
    rng = np.random.default_rng(2)
    bias = rng.standard_normal((1, N, T, S))
    kw = {"bias": bias, "is_causal": True, "query_seq_lengths": np.array([4, 5], np.int32)}
    ref_kw = {"bias": bias, "is_causal": True, "q_len": np.array([4, 5])}
    weights = rng.standard_normal((B, T, N, H))
    q, k, v = (a.astype(np.float64) for a in qkv)

    def loss(q, k, v):
        return jnp.sum(dot_product_attention(q, k, v, **kw) * weights)

    grads = tjit.jit(tjit.grad(loss, argnums=(0, 1, 2)))(q, k, v)
    h = 1e-6
    for i, arg in enumerate((q, k, v)):
        fd = np.zeros(arg.shape)
        for idx in np.ndindex(arg.shape):
            args = [q, k, v]
            up, down = arg.copy(), arg.copy()
            up[idx] += h
            down[idx] -= h
            args[i] = up
            f_up = np.sum(reference(*args, **ref_kw)[0] * weights)
            args[i] = down
            f_down = np.sum(reference(*args, **ref_kw)[0] * weights)
            fd[idx] = (f_up - f_down) / (2 * h)
        # the softmax runs in float32 (as JAX), so agreement is float32's
        np.testing.assert_allclose(np.asarray(grads[i]), fd, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("change,message", [
    ({"query": np.zeros((B, T, N, 2), np.float32)}, r"query shape should be \[2, -1, -1, 3\]"),
    ({"value": np.zeros((B, S, K, H), np.float16)}, "value dtype should be float32"),
    ({"mask": np.ones((B, 1, T, S), np.float32)}, "mask dtype should be bool"),
    ({"bias": np.ones((1, 1, 1, 1, 1), np.float32)}, "bias ndim should be 4, but got 5"),
    ({"bias": np.ones((1, 3, T, S), np.float32)}, r"does not broadcast to .* \(2, 4, 5, 6\)"),
    ({"query": np.zeros((B, T, 3, H), np.float32)},
     "query heads must be a multiple of key/value heads, but got 3 vs 2"),
    ({"query_seq_lengths": np.array([1, 2, 3], np.int32)}, "query_seq_lengths shape"),
    ({"implementation": "flash"}, "Unsupported implementation option: flash"),
])
def test_bad_input_is_reported_as_jax_does(qkv, change, message):
    args = dict(zip(("query", "key", "value"), qkv))
    args.update(change)
    with pytest.raises(ValueError, match=message):
        dot_product_attention(**args)


def test_cudnn_is_refused_and_says_what_works(qkv):
    with pytest.raises(NotImplementedError, match="implementation=None or 'xla'"):
        dot_product_attention(*qkv, implementation="cudnn")
    out = dot_product_attention(*qkv, implementation="xla")
    np.testing.assert_allclose(np.asarray(out), reference(*qkv)[0], rtol=1e-5, atol=1e-5)
