"""``lax.reduce`` and ``lax.reduce_window`` with a Python computation and with several
operands (argmax carried as (value, index) pairs), against NumPy loops in float64;
eager, jit, the reference interpreter, vmap against a Python loop and gradients against
finite differences."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.primitives.test_reduce_window import _framed, _windows
from tests.transforms.check import check_grads, check_vmap
from tjit import lax


def argmax_pair(a, b):
    """(value, index) of the larger value; the earlier (left) one on ties."""
    take_a = lax.ge(a[0], b[0])
    return lax.select(take_a, a[0], b[0]), lax.select(take_a, a[1], b[1])


def _modes(f):
    return {"eager": f, "jit": tjit.jit(f), "interpreter": tjit.jit(f, backend="interpreter")}


@pytest.mark.parametrize("mode", ["eager", "jit", "interpreter"])
def test_variadic_reduce_is_argmax(mode):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (5, 7)).astype(np.float32)  # many ties: first index wins
    idx = np.broadcast_to(np.arange(7, dtype=np.int32), (5, 7))

    def f(x, idx):
        return lax.reduce((x, idx), (np.float32(-np.inf), np.int32(0)), argmax_pair, (1,))
    vals, where = _modes(f)[mode](jnp.asarray(x), jnp.asarray(idx))
    np.testing.assert_array_equal(np.asarray(vals), x.max(1))
    np.testing.assert_array_equal(np.asarray(where), x.argmax(1))
    assert where.dtype == np.int32


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 2), (0, 1, 2), ()])
def test_reduce_with_a_python_function(dims):
    x = np.random.default_rng(1).standard_normal((3, 5, 4)).astype(np.float32)
    f = lambda x: lax.reduce(x, -np.inf, jnp.logaddexp, dims)
    want = np.log(np.exp(x.astype(np.float64)).sum(axis=dims)) if dims else x
    for g in _modes(f).values():
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), want, rtol=1e-5, atol=1e-6)
    check_grads(f, (x,))
    check_vmap(f, (jnp.asarray(np.stack([x, x[::-1]])),), rtol=1e-5, atol=1e-6)


def test_reduce_keeps_a_non_identity_init_and_empty_dims():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = lax.reduce(x, np.float32(10), lambda a, b: a + b * 1, (1,))
    np.testing.assert_array_equal(np.asarray(got), x.sum(1) + 10)
    empty = lax.reduce(np.zeros((3, 0), np.float32), np.float32(2.5), lambda a, b: a * b, (1,))
    np.testing.assert_array_equal(np.asarray(empty), np.full(3, 2.5, np.float32))


def np_variadic_argmax_window(x, wd, ws, padding, bd, wdil):
    xp, _ = _framed(x, -np.inf, padding, bd)
    ip, _ = _framed(np.arange(x.size, dtype=np.int64).reshape(x.shape), -1, padding, bd)
    kd = [(k - 1) * r + 1 for k, r in zip(wd, wdil)]
    shape = [max((n - k) // s + 1, 0) if n >= k else 0 for n, k, s in zip(xp.shape, kd, ws)]
    vals, where = np.empty(shape, x.dtype), np.empty(shape, np.int64)
    for pos, win in _windows(xp.shape, wd, ws, wdil):
        v = xp[win].ravel()
        vals[pos] = v.max()
        where[pos] = ip[win].ravel()[int(np.argmax(v))]  # the first maximum
    return vals, where


WINDOWS = [  # (shape, window, strides, padding, base dilation, window dilation)
    ((6, 6), (2, 2), (2, 2), "VALID", None, None),
    ((5, 7), (3, 3), (1, 2), "SAME", None, None),
    ((5, 6), (2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1)),
    ((4, 4), (2, 2), (1, 1), ((0, -1), (1, 1)), (2, 1), (1, 1)),
]


@pytest.mark.parametrize("case", range(len(WINDOWS)))
def test_variadic_reduce_window_is_argmax_pooling(case):
    shape, wd, ws, padding, bd, wdil = WINDOWS[case]
    x = np.random.default_rng(case).integers(0, 5, shape).astype(np.float32)
    ids = np.arange(x.size, dtype=np.int32).reshape(shape)

    def pool(x, ids):
        return lax.reduce_window((x, ids), (np.float32(-np.inf), np.int32(-1)), argmax_pair,
                                 wd, ws, padding, bd, wdil)
    pads = padding if not isinstance(padding, str) else \
        lax.padtype_to_pads(shape, wd, ws, padding)
    want_v, want_i = np_variadic_argmax_window(x, wd, ws, pads, bd or (1, 1), wdil or (1, 1))
    for g in _modes(pool).values():
        v, i = g(jnp.asarray(x), jnp.asarray(ids))
        np.testing.assert_array_equal(np.asarray(v), want_v)
        # a window of padding only keeps the init index -1
        np.testing.assert_array_equal(np.asarray(i), want_i)
    check_vmap(lambda x: pool(x, jnp.asarray(ids)),
               (jnp.asarray(np.stack([x, x * 2 - 1])),))


def test_reduce_window_with_a_python_function_and_non_identity_init():
    x = np.random.default_rng(3).uniform(0.5, 1.5, (5, 6)).astype(np.float32)
    wd, ws, pads = (2, 3), (1, 2), ((1, 0), (0, 1))
    f = lambda x: lax.reduce_window(x, 1.0, lambda a, b: a * b, wd, ws, pads)
    want = np_reduce_window(x.astype(np.float64), 1.0, np.prod, wd, ws, pads)
    for g in _modes(f).values():
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), want, rtol=1e-5)
    check_grads(f, (x,))
    # lax.add with an init that is not its identity: XLA (and so JAX) adds it to every
    # window once and skips the padding
    s = lax.reduce_window(x, np.float32(2), lax.add, wd, ws, pads)
    want = np_reduce_window(x.astype(np.float64), 0.0, np.sum, wd, ws, pads) + 2
    np.testing.assert_allclose(np.asarray(s), want, rtol=1e-5)


def np_reduce_window(x, fill, op, wd, ws, padding):
    xp, _ = _framed(x, fill, padding, (1,) * x.ndim)
    kd = list(wd)
    shape = [max((n - k) // s + 1, 0) if n >= k else 0 for n, k, s in zip(xp.shape, kd, ws)]
    out = np.empty(shape, x.dtype)
    for pos, win in _windows(xp.shape, wd, ws, (1,) * x.ndim):
        out[pos] = op(xp[win])
    return out


def test_errors_name_the_operation():
    x = jnp.ones((3, 4))
    with pytest.raises(TypeError, match="lax.reduce: computation must return"):
        lax.reduce(x, 0.0, lambda a, b: (a, b), (0,))
    with pytest.raises(ValueError, match="lax.reduce_window: operands and init_values"):
        lax.reduce_window((x, x), 0.0, lambda a, b: a, (1, 1), (1, 1), "VALID")
    with pytest.raises(Exception, match="lax.reduce: all operands must have the same shape"):
        lax.reduce((x, jnp.ones(3)), (0.0, 0.0), lambda a, b: a, (0,))
