"""Keyword parameters of jax.numpy functions that tjit accepts with JAX's (and NumPy's)
meaning, each checked against NumPy in float64 or a Python loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


# -- var/std/nanvar/nanstd(mean=): NumPy 2 semantics ----------------------------------------
@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_moments_with_given_mean(rng, name, ddof):
    x = rng.normal(size=(5, 4))
    if name.startswith("nan"):
        x[1, 2] = x[3, 0] = np.nan
    given = getattr(np, name.replace("var", "mean").replace("std", "mean"))(
        x, axis=0, keepdims=True) + 0.25   # not the true mean: it must be used as given
    want = getattr(np, name)(x, axis=0, ddof=ddof, mean=given)
    got = getattr(jnp, name)(jnp.asarray(x, jnp.float32), axis=0, ddof=ddof, mean=given)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    # a mean that broadcasts (NumPy accepts it; shape without the kept axis)
    got_b = getattr(jnp, name)(jnp.asarray(x, jnp.float32), axis=0, ddof=ddof,
                               mean=given[0])
    np.testing.assert_allclose(got_b, want, rtol=1e-5)


def test_var_mean_under_jit_and_grad(rng):
    x = rng.normal(size=(6,))
    m = np.float32(0.3)
    f = tjit.jit(lambda x, m: jnp.var(x, mean=m))
    np.testing.assert_allclose(f(x.astype(np.float32), m), np.var(x, mean=0.3), rtol=1e-5)
    # d/dm mean((x - m)**2) = -2 * mean(x - m)
    g = tjit.grad(lambda m: jnp.var(x.astype(np.float32), mean=m))(m)
    np.testing.assert_allclose(g, -2 * np.mean(x - 0.3), rtol=1e-4)


def test_var_mean_wrong_shape():
    with pytest.raises(Exception, match=r"jnp.var\(mean=...\).*\(2, 4\)"):
        jnp.var(jnp.ones((3, 4)), axis=0, mean=jnp.ones((2, 4)))


# -- cov/corrcoef(dtype=) ---------------------------------------------------------------------
def test_cov_corrcoef_dtype(rng, x64):
    x = rng.normal(size=(3, 7))
    fw = rng.integers(1, 4, size=7)
    got = jnp.cov(x.astype(np.float32), fweights=fw, dtype=jnp.float64)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.cov(x.astype(np.float32), fweights=fw,
                                           dtype=np.float64), rtol=1e-12)
    r = jnp.corrcoef(np.arange(7) % 3, np.arange(7) ** 2, dtype=jnp.complex128)
    assert r.dtype == np.complex128
    np.testing.assert_allclose(r, np.corrcoef(np.arange(7) % 3, np.arange(7) ** 2),
                               rtol=1e-12)


def test_cov_dtype_lowers_precision():
    x = np.linspace(0, 1, 10)
    assert jnp.cov(x, dtype=jnp.float16).dtype == np.float16
    np.testing.assert_allclose(jnp.cov(x, dtype=jnp.float16), np.cov(x), rtol=1e-2)


@pytest.mark.parametrize("fn", [jnp.cov, jnp.corrcoef])
def test_cov_dtype_must_be_inexact(fn):
    with pytest.raises(ValueError, match="dtype must be a subclass of float or complex"):
        fn(np.ones((2, 3)), dtype=jnp.int32)


# -- index dtypes: argsort(dtype=), ravel_multi_index(dtype=) --------------------------------
@pytest.mark.parametrize("dtype", [jnp.int8, jnp.uint16, jnp.int32])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_dtype(rng, dtype, descending):
    x = rng.integers(0, 5, size=(3, 9))   # ties: the stable order is checked too
    want = np.argsort(-x if descending else x, axis=1, kind="stable")
    for f in (jnp.argsort, tjit.jit(jnp.argsort, static_argnames=("dtype", "descending"))):
        got = f(x, dtype=dtype, descending=descending)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


def test_argsort_dtype_errors():
    with pytest.raises(ValueError, match="not large enough to hold indices up to 299"):
        jnp.argsort(np.zeros(300), dtype=jnp.int8)
    with pytest.raises(ValueError, match="not an integer type"):
        jnp.argsort(np.zeros(3), dtype=jnp.float32)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_ravel_multi_index_dtype(mode):
    idx = (np.array([0, 2, -1, 5]), np.array([3, 0, 200, -7]))
    want = np.ravel_multi_index(idx, (3, 4), mode=mode)
    got = jnp.ravel_multi_index(idx, (3, 4), mode=mode, dtype=jnp.int8)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    got_u = tjit.jit(lambda a, b: jnp.ravel_multi_index((a, b), (3, 4), mode=mode,
                                                        dtype=jnp.uint8))(*idx)
    assert got_u.dtype == np.uint8
    np.testing.assert_array_equal(got_u, want)


def test_ravel_multi_index_dtype_too_narrow():
    with pytest.raises(ValueError, match="ravel_multi_index: dtype=int8 is not large enough"):
        jnp.ravel_multi_index((np.array([0]), np.array([0])), (30, 40), mode="clip",
                              dtype=jnp.int8)


# -- take_along_axis(wrap_negative_indices=) --------------------------------------------------
def _take_along_loop(a, idx, mode, wrap):
    """A Python loop over a 2-D ``a``, axis 1: JAX's documented meaning."""
    n = a.shape[1]
    out = np.empty(idx.shape)
    for r in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            k = int(idx[r, c])
            if wrap and k < 0:
                k += n
            if mode == "clip":
                k = min(max(k, 0), n - 1)
            out[r, c] = a[r, k] if 0 <= k < n else np.nan
    return out


@pytest.mark.parametrize("mode", [None, "fill", "clip"])
@pytest.mark.parametrize("wrap", [True, False])
def test_take_along_axis_wrap_negative_indices(rng, mode, wrap):
    a = rng.normal(size=(3, 5))
    idx = rng.integers(-7, 8, size=(3, 6))
    want = _take_along_loop(a, idx, mode, wrap)
    eager = jnp.take_along_axis(a, idx, 1, mode=mode, wrap_negative_indices=wrap)
    jitted = tjit.jit(lambda a, i: jnp.take_along_axis(a, i, 1, mode=mode,
                                                       wrap_negative_indices=wrap))(a, idx)
    np.testing.assert_allclose(eager, want, rtol=1e-6)
    np.testing.assert_allclose(jitted, want, rtol=1e-6)


# -- out_sharding= (JAX's explicit-sharding argument; one device places nothing) ---------------
def _shardings():
    from tjit.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding
    mesh = tjit.make_mesh((1,), ("x",))
    return (SingleDeviceSharding(tjit.devices()[0]), NamedSharding(mesh, P("x")),
            NamedSharding(mesh, P()))


_X = np.arange(6.0).reshape(2, 3)
OUT_SHARDING_CALLS = {
    "zeros": lambda **k: jnp.zeros((2, 3), **k),
    "ones": lambda **k: jnp.ones((2, 3), jnp.int32, **k),
    "empty": lambda **k: jnp.empty((2, 3), **k),
    "full": lambda **k: jnp.full((2, 3), 2.5, **k),
    "zeros_like": lambda **k: jnp.zeros_like(_X, **k),
    "ones_like": lambda **k: jnp.ones_like(_X, **k),
    "full_like": lambda **k: jnp.full_like(_X, 7, **k),
    "arange": lambda **k: jnp.arange(1, 7, 2, **k),
    "array": lambda **k: jnp.array([[1, 2]], **k),
    "asarray": lambda **k: jnp.asarray(_X, **k),
    "reshape": lambda **k: jnp.reshape(_X, (3, 2), **k),
    "ravel": lambda **k: jnp.ravel(_X, order="F", **k),
    "broadcast_to": lambda **k: jnp.broadcast_to(_X[0], (2, 3), **k),
    "repeat": lambda **k: jnp.repeat(_X, 2, axis=1, **k),
    "matmul": lambda **k: jnp.matmul(_X, _X.T, **k),
    "dot": lambda **k: jnp.dot(_X, _X.T, **k),
    "tensordot": lambda **k: jnp.tensordot(_X, _X.T, 1, **k),
    "einsum": lambda **k: jnp.einsum("ij,kj->ik", _X, _X, **k),
    "bincount": lambda **k: jnp.bincount(np.array([0, 2, 2]), length=4, **k),
    "percentile": lambda **k: jnp.percentile(_X, 30, axis=0, **k),
}


@pytest.mark.parametrize("name", sorted(OUT_SHARDING_CALLS))
def test_out_sharding_same_values(name):
    call = OUT_SHARDING_CALLS[name]
    want = np.asarray(call())
    for s in _shardings():
        got = call(out_sharding=s)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    jitted = tjit.jit(lambda: call(out_sharding=_shardings()[1]))()
    np.testing.assert_array_equal(jitted, want)


@pytest.mark.parametrize("name", sorted(OUT_SHARDING_CALLS))
def test_out_sharding_checked(name):
    from tjit.sharding import NamedSharding, PartitionSpec as P
    mesh = tjit.make_mesh((1,), ("x",))
    with pytest.raises(TypeError, match=rf"jnp.{name}\(out_sharding=...\): expected a "
                                        r"sharding"):
        OUT_SHARDING_CALLS[name](out_sharding="cpu")
    with pytest.raises(ValueError, match=rf"jnp.{name}\(out_sharding=...\).*entries"):
        OUT_SHARDING_CALLS[name](out_sharding=NamedSharding(mesh, P("x", None, None)))


# -- ufuncs' out=/where= (JAX accepts only None: arrays are immutable) --------------------------
UFUNCS_OUT_WHERE = ("add", "subtract", "multiply", "maximum", "minimum", "bitwise_and",
                    "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
                    "logaddexp", "logaddexp2", "negative")


@pytest.mark.parametrize("name", UFUNCS_OUT_WHERE)
def test_ufunc_out_where_none_accepted_else_refused(name):
    f = getattr(jnp, name)
    x, y = np.array([1, 2, 3]), np.array([3, 0, 1])
    args = (x,) if name == "negative" else (x, y)
    np_args = [a.astype(np.float64) if name.startswith("logaddexp") else a for a in args]
    want = getattr(np, name)(*np_args)
    np.testing.assert_allclose(f(*args, out=None, where=None), want, rtol=1e-6)
    with pytest.raises(NotImplementedError, match=rf"jnp.{name}: the 'out' argument"):
        f(*args, out=np.empty(3))
    with pytest.raises(NotImplementedError, match=rf"jnp.{name}: the 'where' argument"):
        f(*args, where=np.array([True, False, True]))


@pytest.mark.parametrize("name", ["isposinf", "isneginf", "modf"])
def test_out_none_only(name):
    f = getattr(jnp, name)
    x = np.array([-np.inf, -1.5, 2.25, np.inf])
    want, got = getattr(np, name)(x), f(x, out=None)
    for w, g in zip(want if name == "modf" else [want], got if name == "modf" else [got]):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(NotImplementedError, match=rf"jnp.{name}: the 'out' argument"):
        f(x, out=np.empty(4))


def test_fmax_fmin_keyword_names():
    a, b = np.array([1.0, np.nan, 3.0]), np.array([2.0, 5.0, np.nan])
    np.testing.assert_array_equal(jnp.fmax(x1=a, x2=b), np.fmax(a, b))
    np.testing.assert_array_equal(jnp.fmin(a, x2=b), np.fmin(a, b))


def test_einsum_dot_general_hook(rng):
    x, y, z = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 5))
    calls = []

    def doubled(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
        calls.append(dimension_numbers)
        return 2.0 * tjit.lax.dot_general(lhs, rhs, dimension_numbers, precision)

    got = jnp.einsum("ij,jk,kl->il", x, y, z, _dot_general=doubled)
    assert len(calls) == 2   # one per pairwise contraction
    np.testing.assert_allclose(got, 4.0 * np.einsum("ij,jk,kl->il", x, y, z), rtol=1e-5)


def test_array_methods_take_the_new_keywords():
    from tjit.sharding import NamedSharding, PartitionSpec as P
    x = jnp.arange(6.0)
    mesh = tjit.make_mesh((1,), ("x",))
    np.testing.assert_array_equal(x.reshape(2, 3, out_sharding=NamedSharding(mesh, P("x"))),
                                  np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(x.var(mean=1.0), np.var(np.arange(6.0), mean=1.0))
    assert x.argsort(dtype=jnp.int8).dtype == np.int8
