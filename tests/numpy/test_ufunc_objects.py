"""jnp.ufunc objects: attributes as jax.numpy's, and at/reduce/accumulate/outer/reduceat
against NumPy's ufunc methods; jit/grad through them; the calls stay the plain
functions (no wrapper on the eager path)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.numpy import _ufuncs

RNG = np.random.default_rng(0)
F = RNG.standard_normal((4, 5))
I = RNG.integers(-8, 8, (4, 5)).astype(np.int32)  # noqa: E741
B = RNG.random((4, 5)) > 0.5

# name, identity (as jax.numpy), operand for the method tests
UFUNCS = [("add", 0, F), ("subtract", None, F), ("multiply", 1, F), ("maximum", None, F),
          ("minimum", None, F), ("logaddexp", -np.inf, F), ("logaddexp2", -np.inf, F),
          ("logical_and", True, B), ("logical_or", False, B), ("logical_xor", False, B),
          ("bitwise_and", -1, I), ("bitwise_or", 0, I), ("bitwise_xor", 0, I)]


def _close(got, want):
    got = np.asarray(got)
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_attributes_and_identity_of_the_call():
    for name, identity, _ in UFUNCS + [("negative", None, F)]:
        u = getattr(jnp, name)
        assert isinstance(u, jnp.ufunc), name
        assert u is getattr(_ufuncs, name), "jnp.<ufunc>(...) must stay the plain function"
        assert u.identity == identity or (identity is None and u.identity is None)
        assert (u.nin, u.nout, u.nargs) == ((1, 1, 1) if name == "negative" else (2, 1, 2))
        assert u.__name__ == name
    assert not isinstance(jnp.sin, jnp.ufunc) and not isinstance(np.add, jnp.ufunc)


@pytest.mark.parametrize("name,identity,x", UFUNCS, ids=[u[0] for u in UFUNCS])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_reduce_against_numpy(name, identity, x, axis):
    got = getattr(jnp, name).reduce(x, axis=axis)
    if axis is None:  # NumPy refuses axis=None for non-reorderable ops; JAX ravels
        want = getattr(np, name).reduce(x.ravel(), axis=0)
    else:
        want = getattr(np, name).reduce(x, axis=axis)
    _close(got, want.astype(np.asarray(got).dtype) if want.dtype != bool else want)


@pytest.mark.parametrize("name,identity,x", UFUNCS, ids=[u[0] for u in UFUNCS])
@pytest.mark.parametrize("axis", [0, 1])
def test_accumulate_against_numpy(name, identity, x, axis):
    got = getattr(jnp, name).accumulate(x, axis=axis)
    want = getattr(np, name).accumulate(x, axis=axis)
    _close(got, want.astype(np.asarray(got).dtype) if want.dtype != bool else want)


@pytest.mark.parametrize("name,identity,x", UFUNCS, ids=[u[0] for u in UFUNCS])
def test_outer_and_reduceat_against_numpy(name, identity, x):
    u, nu = getattr(jnp, name), getattr(np, name)
    _close(u.outer(x[0], x[1:3]), nu.outer(x[0], x[1:3]))
    idx = np.array([0, 3, 1, 4, 4])
    for axis in (0, 1):
        want = nu.reduceat(x, idx[idx < x.shape[axis]], axis=axis)
        got = u.reduceat(x, idx[idx < x.shape[axis]], axis=axis)
        _close(got, want.astype(np.asarray(got).dtype) if want.dtype != bool else want)


@pytest.mark.parametrize("name,identity,x", UFUNCS + [("negative", None, F)],
                         ids=[u[0] for u in UFUNCS] + ["negative"])
def test_at_against_numpy(name, identity, x):
    idx = (np.array([0, 2, 0, 3]), np.array([1, 1, 1, 4]))  # a repeated index
    want = x.copy()
    args = () if name == "negative" else (x[0, :4],)
    getattr(np, name).at(want, idx, *args)
    got = getattr(jnp, name).at(x, idx, *args, inplace=False)
    _close(got, want)
    want2 = x.copy()
    getattr(np, name).at(want2, (slice(None), 2), *(() if name == "negative" else (x[0, 0],)))
    _close(getattr(jnp, name).at(x, (slice(None), 2),
                                 *(() if name == "negative" else (x[0, 0],)),
                                 inplace=False), want2)


def test_reduce_options_against_numpy():
    _close(jnp.add.reduce(F, axis=(0, 1), keepdims=True),
           np.add.reduce(F, axis=(0, 1), keepdims=True))
    mask = F > 0
    _close(jnp.multiply.reduce(F, axis=1, where=mask), np.multiply.reduce(F, axis=1, where=mask))
    _close(jnp.maximum.reduce(F, axis=0, initial=0.5), np.maximum.reduce(F, axis=0, initial=0.5))
    _close(jnp.subtract.reduce(F, axis=1, keepdims=True, initial=1.0, where=mask),
           np.subtract.reduce(F, axis=1, keepdims=True, initial=1.0, where=mask))
    _close(jnp.logaddexp.reduce(np.zeros((0, 3)), axis=0),
           np.logaddexp.reduce(np.zeros((0, 3)), axis=0))


def test_user_ufunc_and_frompyfunc():
    u = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0)
    assert repr(u) == "<jnp.ufunc '<lambda>'>" and isinstance(u, jnp.ufunc)
    ref = np.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0)
    x = np.arange(1.0, 5.0)
    _close(u(x, 2.0), ref(x, 2.0).astype(float))
    _close(u.reduce(x), np.float64(ref.reduce(x)))
    _close(u.accumulate(x), ref.accumulate(x).astype(float))
    _close(u.outer(x[:2], x), ref.outer(x[:2], x).astype(float))
    _close(u.at(x, np.array([0, 0, 2]), 3.0, inplace=False),
           _np_at(ref, x, [0, 0, 2], 3.0))


def _np_at(ref, x, idx, v):
    out = x.astype(object)
    ref.at(out, idx, v)
    return out.astype(float)


def test_jit_grad_vmap_through_methods():
    x = jnp.asarray(F, dtype=jnp.float32)
    f = lambda x: jnp.sum(jnp.logaddexp.accumulate(x, axis=1))  # noqa: E731
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), np.asarray(f(x)), rtol=1e-5)
    g = tjit.grad(lambda x: jnp.sum(jnp.subtract.accumulate(x, axis=1)))(x)
    np.testing.assert_allclose(np.asarray(g), np.tile([5, -4, -3, -2, -1], (4, 1)), atol=1e-6)
    g = tjit.grad(lambda x: jnp.sum(jnp.multiply.at(x, (0, 1), 3.0, inplace=False)))(x)
    np.testing.assert_allclose(np.asarray(g)[0, 1], 3.0)
    v = tjit.vmap(lambda r: jnp.maximum.reduce(r))(x)
    np.testing.assert_allclose(np.asarray(v), F.max(1), rtol=1e-6)


def test_errors_as_jax():
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.add.at(jnp.zeros(3), 0, 1.0)
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.negative.reduce(F)
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        jnp.subtract.reduce(np.zeros(0))
    with pytest.raises(ValueError, match="does not have an identity"):
        jnp.subtract.reduce(F, where=F > 0)
    with pytest.raises(NotImplementedError, match="out argument"):
        jnp.add.reduce(F, out=np.zeros(5))
    # traced reduceat indices are fine, as in JAX (tests/numpy/test_kwargs_hunt.py)
    np.testing.assert_allclose(
        np.asarray(tjit.jit(lambda i: jnp.add.reduceat(F, i))(jnp.array([0, 2]))),
        np.add.reduceat(F, [0, 2]), rtol=1e-6)
