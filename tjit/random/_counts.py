"""Count distributions of ``tjit.random``: ``poisson`` and ``binomial``, with JAX's
signatures and algorithms, vectorized like ``_gamma.py`` (every round draws for all
elements inside one ``lax.while_loop``; an element keeps its first accepted value), so
the distribution is JAX's but the values for a key are not.

* poisson: Knuth's product of uniforms for ``lam < 10``; Hörmann's transformed
  rejection (PTRS, 1993) above. Invalid rates (negative, NaN) give -1, as JAX.
* binomial: the geometric waiting-time inversion while ``n * min(p, 1 - p) < 10``;
  Hörmann's BTRS (1993) above; ``p > 1/2`` is drawn as ``n - Binomial(n, 1 - p)``.
  Invalid ``n`` or ``p`` give NaN, as JAX.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit import lax
from tjit import numpy as jnp
from tjit.random._keys import check_key, check_shape, split_key
from tjit.random._samplers import as_param, check_param_shapes, check_real, take0, uniform_


def _keys3(key):
    keys = split_key(key, (3,))
    return take0(keys), _row(keys, 1), _row(keys, 2)


def _row(x, i):
    return lax.reshape(lax.slice_in_dim(x, i, i + 1, axis=0), tuple(x.shape[1:]))


def _any(mask, shape):
    return lax.reduce_or(mask, tuple(range(len(shape)))) if shape else mask


def _params(name, shape, *params):
    if shape is None:
        shape = tuple(jnp.broadcast_shapes(*[tuple(p.shape) for p in params]))
    else:
        shape = check_shape(name, shape)
        check_param_shapes(name, shape, *[p.shape for p in params])
    return [jnp.broadcast_to(p, shape) for p in params], shape


def _int_dtype(name, dtype):
    dt = dtypes.default_int() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, name)
    if not dtypes.is_int(dt):  # (JAX 0.10.2 refuses float dtypes too)
        raise ValueError(f"dtype argument to `{name}` must be an integer dtype, got {dt}")
    return dt


# -- poisson ----------------------------------------------------------------------------------
def _poisson_knuth(key, lam, shape, ft):
    def cond(state):
        return _any(lax.bitwise_not(state[1]), shape)

    def body(state):
        key, done, k, log_prod = state
        key, sub, _ = _keys3(key)
        u = uniform_(sub, shape, ft)
        live = lax.bitwise_not(done)
        k = lax.select(live, lax.add(k, 1.0), k)
        log_prod = lax.select(live, lax.add(log_prod, lax.log(u)), log_prod)
        return key, lax.bitwise_or(done, lax.le(log_prod, lax.neg(lam))), k, log_prod

    zeros = lax.full(shape, 0.0, ft)
    init = (key, lax.full(shape, False, np.bool_), zeros, zeros)
    return lax.sub(lax.while_loop(cond, body, init)[2], 1.0)


def _poisson_ptrs(key, lam, shape, ft):
    log_lam = lax.log(lam)
    b = lax.add(0.931, lax.mul(2.53, lax.sqrt(lam)))
    a = lax.add(-0.059, lax.mul(0.02483, b))
    inv_alpha = lax.add(1.1239, lax.div(1.1328, lax.sub(b, 3.4)))
    v_r = lax.sub(0.9277, lax.div(3.6224, lax.sub(b, 2.0)))

    def cond(state):
        return _any(lax.bitwise_not(state[1]), shape)

    def body(state):
        key, done, k_out = state
        key, ku, kv = _keys3(key)
        u = lax.sub(uniform_(ku, shape, ft), 0.5)
        v = uniform_(kv, shape, ft)
        us = lax.sub(0.5, lax.abs(u))
        k = lax.floor(lax.add(lax.mul(lax.add(lax.div(lax.mul(2.0, a), us), b), u),
                              lax.add(lam, 0.43)))
        quick = lax.bitwise_and(lax.ge(us, 0.07), lax.le(v, v_r))
        bad = lax.bitwise_or(lax.lt(k, 0.0), lax.bitwise_and(lax.lt(us, 0.013), lax.gt(v, us)))
        s = lax.log(lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
        t = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, 1.0)))
        accept = lax.bitwise_or(quick, lax.bitwise_and(lax.bitwise_not(bad), lax.le(s, t)))
        fresh = lax.bitwise_and(accept, lax.bitwise_not(done))
        return key, lax.bitwise_or(done, accept), lax.select(fresh, k, k_out)

    init = (key, lax.full(shape, False, np.bool_), lax.full(shape, 0.0, ft))
    return lax.while_loop(cond, body, init)[2]


def poisson(key, lam, shape=None, dtype=None):
    """Poisson random values with rates ``lam`` (``jax.random.poisson``).

    Args:
      key: a PRNG key.
      lam: rate(s), broadcast-compatible with ``shape``; negative or NaN rates give -1,
        rates beyond the dtype's range (inf included) its largest value.
      shape: result shape (default ``lam.shape``).
      dtype: an integer dtype (default int32; int64 with x64).

    Example: ``random.poisson(random.key(0), 3.0, (1000,)).mean()`` is close to 3.
    """
    key = check_key("poisson", key)
    dt = _int_dtype("poisson", dtype)
    ft = dtypes.default_float()
    (lam,), shape = _params("poisson", shape, as_param(lam, ft, "poisson", "lam"))
    invalid = lax.bitwise_or(lax.lt(lam, 0.0), lax.ne(lam, lam))
    infinite = lax.eq(lam, np.inf)  # gives the dtype's largest value, as rates above it do
    # so that every loop ends
    lam = lax.select(lax.bitwise_or(invalid, infinite), lax.full_like(lam, 0.0), lam)
    small = lax.lt(lam, 10.0)
    k1, k2 = _row(split_key(key, (2,)), 0), _row(split_key(key, (2,)), 1)
    knuth = _poisson_knuth(k1, lax.select(small, lam, lax.full_like(lam, 0.0)), shape, ft)
    ptrs = _poisson_ptrs(k2, lax.select(small, lax.full_like(lam, 1e5), lam), shape, ft)
    out = lax.select(small, knuth, ptrs)
    out = lax.select(invalid, lax.full_like(out, -1.0), out)
    out = lax.select(infinite, lax.full_like(out, np.inf), out)
    return lax.convert_element_type(out, dt)


# -- binomial ---------------------------------------------------------------------------------
def _binomial_inversion(key, n, p, shape, ft):
    """Successes in ``n`` trials = the number of geometric(p) gaps that fit in ``n``."""
    log1mp = lax.log1p(lax.neg(p))

    def cond(state):
        return _any(lax.le(state[2], n), shape)

    def body(state):
        key, count, total = state
        key, sub, _ = _keys3(key)
        live = lax.le(total, n)
        count = lax.select(live, lax.add(count, 1.0), count)
        geom = lax.ceil(lax.div(lax.log(uniform_(sub, shape, ft)), log1mp))
        return key, count, lax.select(live, lax.add(total, geom), total)

    zeros = lax.full(shape, 0.0, ft)
    return lax.sub(lax.while_loop(cond, body, (key, zeros, zeros))[1], 1.0)


_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287])


def _stirling_tail(k):
    """log(k!) - Stirling's approximation of it: a table below 10, a series above."""
    kp1 = lax.add(k, 1.0)
    kp1sq = lax.mul(kp1, kp1)
    series = lax.div(lax.sub(1.0 / 12, lax.div(lax.sub(1.0 / 360, lax.div(1.0 / 1260, kp1sq)),
                                               kp1sq)), kp1)
    idx = lax.convert_element_type(lax.clamp(0.0, k, 9.0), np.int32)
    table = jnp.asarray(_STIRLING_TAIL.astype(k.dtype))[idx]
    return lax.select(lax.le(k, 9.0), table, series)


def _binomial_btrs(key, n, p, shape, ft):
    stddev = lax.sqrt(lax.mul(lax.mul(n, p), lax.sub(1.0, p)))
    b = lax.add(1.15, lax.mul(2.53, stddev))
    a = lax.add(lax.add(-0.0873, lax.mul(0.0248, b)), lax.mul(0.01, p))
    c = lax.add(lax.mul(n, p), 0.5)
    v_r = lax.sub(0.92, lax.div(4.2, b))
    r = lax.div(p, lax.sub(1.0, p))
    alpha = lax.mul(lax.add(2.83, lax.div(5.1, b)), stddev)
    m = lax.floor(lax.mul(lax.add(n, 1.0), p))

    def cond(state):
        return _any(lax.bitwise_not(state[1]), shape)

    def body(state):
        key, done, k_out = state
        key, ku, kv = _keys3(key)
        u = lax.sub(uniform_(ku, shape, ft), 0.5)
        v = uniform_(kv, shape, ft)
        us = lax.sub(0.5, lax.abs(u))
        k = lax.floor(lax.add(lax.mul(lax.add(lax.div(lax.mul(2.0, a), us), b), u), c))
        quick = lax.bitwise_and(lax.ge(us, 0.07), lax.le(v, v_r))
        bad = lax.bitwise_or(lax.lt(k, 0.0), lax.gt(k, n))
        ks = lax.clamp(0.0, k, n)  # keeps the logs finite where the proposal is rejected
        lv = lax.log(lax.div(lax.mul(v, alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
        nm1 = lax.add(lax.sub(n, m), 1.0)
        nk1 = lax.add(lax.sub(n, ks), 1.0)
        bound = lax.add(
            lax.add(lax.mul(lax.add(m, 0.5), lax.log(lax.div(lax.add(m, 1.0), lax.mul(r, nm1)))),
                    lax.mul(lax.add(n, 1.0), lax.log(lax.div(nm1, nk1)))),
            lax.mul(lax.add(ks, 0.5), lax.log(lax.div(lax.mul(r, nk1), lax.add(ks, 1.0)))))
        bound = lax.add(bound, lax.sub(
            lax.add(_stirling_tail(m), _stirling_tail(lax.sub(n, m))),
            lax.add(_stirling_tail(ks), _stirling_tail(lax.sub(n, ks)))))
        accept = lax.bitwise_or(quick, lax.bitwise_and(lax.bitwise_not(bad),
                                                       lax.le(lv, bound)))
        accept = lax.bitwise_and(accept, lax.bitwise_not(bad))
        fresh = lax.bitwise_and(accept, lax.bitwise_not(done))
        return key, lax.bitwise_or(done, accept), lax.select(fresh, k, k_out)

    init = (key, lax.full(shape, False, np.bool_), lax.full(shape, 0.0, ft))
    return lax.while_loop(cond, body, init)[2]


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial random values: successes in ``n`` trials of probability ``p``
    (``jax.random.binomial``).

    Args:
      key: a PRNG key.
      n: numbers of trials (non-negative; floats allowed, as JAX).
      p: success probabilities in [0, 1].
      shape: result shape (default: ``n`` and ``p`` broadcast).
      dtype: a float dtype (default float32, as JAX); NaN marks invalid ``n`` or ``p``.

    Example: ``random.binomial(random.key(0), 20, 0.3, (1000,)).mean()`` is close to 6.
    """
    key = check_key("binomial", key)
    ft = dtypes.default_float() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "binomial")
    if not dtypes.is_float(ft):
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {ft}")
    check_real("binomial", p=p)  # (JAX casts a complex n, and fails on a complex p)
    (n, p), shape = _params("binomial", shape, as_param(n, ft, "binomial", "n"),
                            as_param(p, ft, "binomial", "p"))
    flip = lax.gt(p, 0.5)
    q = lax.select(flip, lax.sub(1.0, p), p)
    valid = lax.bitwise_and(lax.bitwise_and(lax.ge(n, 0.0), lax.ge(p, 0.0)), lax.le(p, 1.0))
    infinite = lax.eq(n, np.inf)  # infinitely many trials: inf successes unless p = 0
    small = lax.lt(lax.mul(n, q), 10.0)
    safe_q = lax.select(lax.bitwise_and(valid, lax.gt(q, 0.0)), q, lax.full_like(q, 0.5))
    safe_n = lax.select(lax.bitwise_and(valid, lax.bitwise_not(infinite)), n,
                        lax.full_like(n, 0.0))
    k1, k2 = _row(split_key(key, (2,)), 0), _row(split_key(key, (2,)), 1)
    inv = _binomial_inversion(k1, lax.select(small, safe_n, lax.full_like(n, 0.0)), safe_q,
                              shape, ft)
    big_n = lax.select(small, lax.full_like(n, 1e4), safe_n)
    big_q = lax.select(small, lax.full_like(q, 0.5), safe_q)
    btrs = _binomial_btrs(k2, big_n, big_q, shape, ft)
    k = lax.select(small, inv, btrs)
    k = lax.select(lax.eq(q, 0.0), lax.full_like(k, 0.0), k)
    k = lax.select(flip, lax.sub(safe_n, k), k)
    k = lax.select(infinite, lax.select(lax.eq(p, 0.0), lax.full_like(k, 0.0),
                                        lax.full_like(k, np.inf)), k)
    return lax.select(valid, k, lax.full_like(k, np.nan))
