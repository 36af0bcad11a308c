"""tjit.numpy array creation vs NumPy: filled arrays and dtype arguments, arange's
dtype inference and concreteness rule, linspace/logspace/geomspace, matrices (eye, tri,
tril/triu, diag), grids, symbolic shapes and error messages."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ConcretizationTypeError


def _close(got, want, rtol=1e-6, atol=1e-6, dtype=None):
    assert isinstance(got, tjit.Array), type(got)
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), f"dtype {got.dtype} != {dtype}"
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _jit_same(fn, *arrays):
    """``fn`` (arrays only) under jit gives the eager result, dtype included."""
    eager = fn(*arrays)
    jitted = tjit.jit(fn)(*arrays)
    for e, j in zip(eager if isinstance(eager, (tuple, list)) else [eager],
                    jitted if isinstance(jitted, (tuple, list)) else [jitted]):
        assert e.dtype == j.dtype and e.shape == j.shape
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6, atol=1e-6)
    return eager


# -- filled arrays --------------------------------------------------------------------------
@pytest.mark.parametrize("jf,nf", [(jnp.zeros, np.zeros), (jnp.ones, np.ones)])
@pytest.mark.parametrize("shape", [3, (), (2, 3), (0, 4), [1, 2, 1]])
@pytest.mark.parametrize("dtype,expected", [(None, np.float32), (jnp.int32, np.int32),
                                            (np.int8, np.int8), (int, np.int32),
                                            (float, np.float32), (bool, np.bool_),
                                            ("float16", np.float16),
                                            (jnp.complex64, np.complex64)])
def test_zeros_ones(jf, nf, shape, dtype, expected):
    got = jf(shape, dtype)
    _close(got, nf(shape, expected), dtype=expected)
    assert not got.weak_type


def test_default_dtypes_under_x64(x64):
    assert jnp.zeros(2).dtype == np.float64
    assert jnp.ones(2, int).dtype == np.int64
    assert jnp.arange(3).dtype == np.int64
    assert jnp.eye(2).dtype == np.float64
    assert jnp.zeros(2, jnp.float32).dtype == np.float32


def test_64bit_dtypes_narrow_without_x64():
    assert jnp.zeros(2, np.float64).dtype == np.float32
    assert jnp.ones(2, jnp.int64).dtype == np.int32


def test_empty_is_zeros():
    _close(jnp.empty((2, 2), jnp.int32), np.zeros((2, 2), np.int32))
    _close(jnp.empty_like(jnp.ones(3)), np.zeros(3, np.float32))


@pytest.mark.parametrize("shape,fill,dtype", [((2, 3), 1.5, None), ((2, 3), 7, None),
                                              ((4,), 2, jnp.float32), ((), True, None),
                                              ((2, 3), [1, 2, 3], None),
                                              ((3, 2), np.array([[1.0], [2.0], [3.0]]),
                                               jnp.float32)])
def test_full(shape, fill, dtype):
    got = jnp.full(shape, fill, dtype)
    want = np.full(shape, fill, dtype)
    if dtype is None and isinstance(fill, float):
        want = want.astype(np.float32)
    if dtype is None and isinstance(fill, (int, list)) and not isinstance(fill, bool):
        want = want.astype(np.int32)
    _close(got, want, dtype=want.dtype)


def test_full_weak_types_follow_jax():
    assert jnp.full((2,), 1.0).weak_type  # a Python scalar fill stays weakly typed
    assert not jnp.full((2,), 1.0, jnp.float32).weak_type
    assert (jnp.full((2,), 1.0) + jnp.ones(2, jnp.float16)).dtype == np.float16


def test_full_errors():
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        jnp.zeros((2, -1))
    with pytest.raises(ValueError, match="cannot be broadcast|broadcast"):
        jnp.full((2, 3), [1.0, 2.0])
    with pytest.raises(TypeError, match="shape must be an int"):
        jnp.ones("abc")
    with pytest.raises(TypeError, match="not a valid dtype"):
        jnp.zeros(2, dtype="nope")
    with pytest.raises(ValueError, match="cannot include zero"):
        jnp.geomspace(0, 10, 3)


def test_full_with_traced_fill():
    f = tjit.jit(lambda v: jnp.full((2, 3), v))
    _close(f(jnp.asarray(2.5)), np.full((2, 3), 2.5), dtype=np.float32)
    _close(f(jnp.asarray([1, 2, 3])), np.full((2, 3), [1, 2, 3]), dtype=np.int32)
    g = tjit.jit(lambda x: jnp.zeros_like(x) + jnp.full(x.shape, 7, jnp.int8),
                 polymorphic_shapes=["(b, 2)"])
    _close(g(np.ones((3, 2), np.int8)), np.full((3, 2), 7, np.int8), dtype=np.int8)


@pytest.mark.parametrize("jf,nf,extra", [(jnp.zeros_like, np.zeros_like, ()),
                                         (jnp.ones_like, np.ones_like, ()),
                                         (jnp.full_like, np.full_like, (2.7,))])
@pytest.mark.parametrize("src", [np.arange(6, dtype=np.int32).reshape(2, 3),
                                 np.ones(4, np.float16), np.array(True)])
def test_like_functions(jf, nf, extra, src):
    _close(jf(jnp.asarray(src), *extra), nf(src, *extra), dtype=src.dtype)
    _close(jf(src, *extra, dtype=jnp.float32), nf(src, *extra, dtype=np.float32),
           dtype=np.float32)
    _close(jf(src, *extra, shape=(3, 1)), nf(src, *extra, shape=(3, 1)), dtype=src.dtype)
    _jit_same(lambda a: jf(a, *extra), jnp.asarray(src))


def test_full_like_array_fill_and_copy():
    x = jnp.ones((2, 3))
    _close(jnp.full_like(x, jnp.asarray([1.0, 2.0, 3.0])), np.full((2, 3), [1.0, 2.0, 3.0]))
    c = jnp.copy(x)
    _close(c, np.ones((2, 3)), dtype=np.float32)
    assert c is not x
    _close(jnp.copy([1, 2]), np.array([1, 2]), dtype=np.int32)


# -- arange -----------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,dtype", [
    ((5,), {}, np.int32), ((0,), {}, np.int32), ((-3,), {}, np.int32), ((2, 10), {}, np.int32),
    ((2, 10, 3), {}, np.int32), ((10, 2, -2), {}, np.int32), ((5.0,), {}, np.float32),
    ((2.5,), {}, np.float32), ((0, 1, 0.1), {}, np.float32), ((1.5, 4.2, 0.3), {}, np.float32),
    ((-1, 1, 0.25), {}, np.float32), ((5,), {"dtype": jnp.float32}, np.float32),
    ((1, 7, 2), {"dtype": np.int8}, np.int8), ((np.int16(4),), {}, np.int16),
    ((3, 3), {}, np.int32), ((5, 1), {}, np.int32)])
def test_arange(args, kwargs, dtype):
    got = jnp.arange(*args, **kwargs)
    want = np.arange(*args).astype(dtype)
    _close(got, want, dtype=dtype)


def test_arange_float64_under_x64(x64):
    _close(jnp.arange(0, 1, 0.1), np.arange(0, 1, 0.1), rtol=0, atol=0, dtype=np.float64)


def test_arange_needs_concrete_args():
    with pytest.raises(ConcretizationTypeError, match="jnp.arange: the stop argument must be "
                                                       "a concrete value"):
        tjit.jit(lambda n: jnp.arange(0, n))(5)
    with pytest.raises(ConcretizationTypeError, match="static_argnums"):
        tjit.jit(lambda n: jnp.arange(n))(jnp.asarray(3))
    # a static argument works
    f = tjit.jit(lambda x, n: x + jnp.arange(n), static_argnums=1)
    _close(f(jnp.ones(4), 4), np.arange(4) + 1.0)
    with pytest.raises(ValueError, match="step must not be zero"):
        jnp.arange(0, 5, 0)
    with pytest.raises(ValueError, match="must be a scalar"):
        jnp.arange(np.arange(3))


def test_arange_of_a_symbolic_dim():
    g = tjit.jit(lambda x: x * jnp.arange(x.shape[0]), polymorphic_shapes=["(n,)"])
    for n in (1, 3, 6):
        _close(g(np.ones(n, np.float32)), np.arange(n, dtype=np.float32))
    assert g.trace_count == 1


# -- linspace family --------------------------------------------------------------------------
@pytest.mark.parametrize("start,stop,num", [(0, 1, 5), (-2.5, 7.0, 11), (3, 3, 4), (0, 10, 1),
                                            (0, 10, 0), (1, -1, 2), (0.0, 1e3, 50)])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_scalars(start, stop, num, endpoint, x64):
    got, step = jnp.linspace(start, stop, num, endpoint, retstep=True)
    want, wstep = np.linspace(start, stop, num, endpoint, retstep=True)
    _close(got, want, rtol=1e-14, atol=1e-12, dtype=np.float64)
    _close(step, np.asarray(wstep), rtol=1e-14)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_arrays_and_axis(axis):
    start = np.array([0.0, 1.0, -2.0], np.float32)
    stop = np.array([[1.0], [5.0]], np.float32)
    want = np.linspace(start, stop, 4, axis=axis)
    _close(jnp.linspace(jnp.asarray(start), jnp.asarray(stop), 4, axis=axis), want, rtol=1e-6)
    _jit_same(lambda a, b: jnp.linspace(a, b, 4, axis=axis), jnp.asarray(start),
              jnp.asarray(stop))


def test_linspace_dtypes_and_errors():
    _close(jnp.linspace(0, 10, 4, dtype=int), np.linspace(0, 10, 4, dtype=int).astype(np.int32),
           dtype=np.int32)
    _close(jnp.linspace(-5, 5, 7, dtype=jnp.int32), np.linspace(-5, 5, 7, dtype=np.int32))
    assert jnp.linspace(0, 1, 3).dtype == np.float32
    assert jnp.linspace(jnp.float16(0), 1, 3).dtype == np.float16
    with pytest.raises(ValueError, match="must be non-negative"):
        jnp.linspace(0, 1, -1)
    with pytest.raises(ConcretizationTypeError, match="num"):
        tjit.jit(lambda n: jnp.linspace(0, 1, n))(3)


def test_linspace_symbolic_num():
    g = tjit.jit(lambda x: x + jnp.linspace(0.0, 1.0, x.shape[0]), polymorphic_shapes=["(n,)"])
    for n in (1, 2, 5):
        _close(g(np.zeros(n, np.float32)), np.linspace(0, 1, n))


@pytest.mark.parametrize("kw", [{}, {"base": 2.0}, {"endpoint": False}, {"num": 1},
                                {"dtype": jnp.int32}])
def test_logspace(kw):
    _close(jnp.logspace(0.5, 3, **{"num": 6, **kw}),
           np.logspace(0.5, 3, **{"num": 6, **{k: (np.int32 if v is jnp.int32 else v)
                                               for k, v in kw.items()}}), rtol=1e-5)


@pytest.mark.parametrize("start,stop,kw", [(1, 1000, {"num": 4}), (-1, -1e4, {"num": 5}),
                                           (2.0, 3.0, {"num": 7, "endpoint": False}),
                                           (5, 0.5, {"num": 3}), (1, 256, {"num": 9})])
def test_geomspace(start, stop, kw, x64):
    got = jnp.geomspace(start, stop, **kw)
    want = np.geomspace(start, stop, **kw)
    _close(got, want, rtol=1e-13)
    assert float(got[0]) == want[0]  # the ends are exact


def test_geomspace_array_bounds_axis():
    s, e = np.array([1.0, 2.0], np.float32), np.array([100.0, 64.0], np.float32)
    _close(jnp.geomspace(jnp.asarray(s), jnp.asarray(e), 5, axis=1),
           np.geomspace(s, e, 5, axis=1), rtol=1e-5)


# -- matrices -------------------------------------------------------------------------------
@pytest.mark.parametrize("n,m,k", [(3, None, 0), (3, 5, 1), (4, 2, -1), (3, 3, 5), (0, 3, 0),
                                   (2, 4, -3)])
def test_eye_tri(n, m, k):
    _close(jnp.eye(n, m, k), np.eye(n, m, k), dtype=np.float32)
    _close(jnp.eye(n, m, k, dtype=jnp.int8), np.eye(n, m, k, dtype=np.int8))
    _close(jnp.tri(n, m, k), np.tri(n, m, k), dtype=np.float32)
    _close(jnp.tri(n, m, k, dtype=bool), np.tri(n, m, k, dtype=bool))


def test_identity():
    _close(jnp.identity(4), np.identity(4), dtype=np.float32)
    _close(jnp.identity(2, jnp.int32), np.identity(2, np.int32))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 2), (2, 3, 4)])
@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_tril_triu(shape, k):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    _close(_jit_same(lambda a: jnp.tril(a, k), jnp.asarray(x)), np.tril(x, k))
    _close(_jit_same(lambda a: jnp.triu(a, k), jnp.asarray(x)), np.triu(x, k))


def test_tril_needs_2d():
    with pytest.raises(ValueError, match="at least 2 dims"):
        jnp.tril(jnp.ones(3))


@pytest.mark.parametrize("shape", [(4,), (1,), (0,), (3, 3), (3, 5), (5, 2), (1, 4)])
@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 6])
def test_diag(shape, k):
    x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    _close(_jit_same(lambda a: jnp.diag(a, k), jnp.asarray(x)), np.diag(x, k))


@pytest.mark.parametrize("shape,k", [((2, 2), 0), ((3,), 1), ((2, 3), -2)])
def test_diagflat(shape, k):
    x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.int32).reshape(shape)
    _close(_jit_same(lambda a: jnp.diagflat(a, k), jnp.asarray(x)), np.diagflat(x, k))


def test_diag_errors():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        jnp.diag(jnp.ones((2, 2, 2)))


def test_symbolic_eye_and_diag():
    g = tjit.jit(lambda x: (jnp.eye(x.shape[0]) * x, jnp.diag(x), jnp.tril(x), jnp.zeros(x.shape),
                            jnp.ones_like(x)), polymorphic_shapes=["(n, n)"])
    for n in (2, 4):
        x = np.random.default_rng(n).standard_normal((n, n)).astype(np.float32)
        e, d, t, z, o = g(x)
        _close(e, np.eye(n) * x)
        _close(d, np.diag(x))
        _close(t, np.tril(x))
        _close(z, np.zeros((n, n)))
        _close(o, np.ones((n, n)))
    assert g.trace_count == 1


# -- grids ------------------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid(indexing, sparse, n):
    vecs = [np.arange(2 + i, dtype=np.float32) * (i + 1) for i in range(n)]
    got = jnp.meshgrid(*[jnp.asarray(v) for v in vecs], indexing=indexing, sparse=sparse)
    want = np.meshgrid(*vecs, indexing=indexing, sparse=sparse)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w)
    _jit_same(lambda *vs: tuple(jnp.meshgrid(*vs, indexing=indexing, sparse=sparse)),
              *[jnp.asarray(v) for v in vecs])


def test_meshgrid_bad_indexing():
    with pytest.raises(ValueError, match="indexing must be 'xy' or 'ij'"):
        jnp.meshgrid(jnp.ones(2), indexing="xx")


@pytest.mark.parametrize("dims", [(2, 3), (4,), (2, 1, 3), ()])
@pytest.mark.parametrize("sparse", [False, True])
def test_indices(dims, sparse):
    got = jnp.indices(dims, sparse=sparse)
    want = np.indices(dims, sparse=sparse)
    if sparse:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, dtype=np.int32)
    else:
        _close(got, want, dtype=np.int32)
    _close(jnp.indices((2, 2), dtype=jnp.float32), np.indices((2, 2), dtype=np.float32))


def test_fromfunction():
    _close(jnp.fromfunction(lambda i, j: i * 10 + j, (3, 4)),
           np.fromfunction(lambda i, j: i * 10 + j, (3, 4)), dtype=np.float32)
    _close(jnp.fromfunction(lambda i: i * i, (5,), dtype=int),
           np.fromfunction(lambda i: i * i, (5,), dtype=int), dtype=np.int32)


def test_fromfunction_calls_function_per_index_as_jax():
    # JAX vmaps `function` over each axis: it sees scalar indices, so it may return an
    # array (or a pytree) per index; the reference is a Python loop over the indices
    seen = []

    def f(i, j, scale):
        seen.append((np.shape(i), np.shape(j)))
        return (i * 10 + j) * scale * jnp.arange(3.0), i - j

    got_a, got_b = jnp.fromfunction(f, (2, 4), scale=0.5)
    want_a = np.array([[(i * 10 + j) * 0.5 * np.arange(3.0) for j in range(4)]
                       for i in range(2)])
    want_b = np.array([[i - j for j in range(4)] for i in range(2)])
    assert seen == [((), ())]
    _close(got_a, want_a, dtype=np.float32)
    _close(got_b, want_b, dtype=np.float32)
    _close(jnp.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, (2, 3, 4), dtype=int),
           np.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, (2, 3, 4), dtype=int),
           dtype=np.int32)


def test_linspace_integer_samples_floor_as_numpy():
    # k * step + start, as NumPy computes it: a lerp between the ends is an ulp off in
    # between, and flooring made ~5% of these integer ramps off by one
    rng = np.random.default_rng(11)
    for _ in range(300):
        a, b = (int(v) for v in rng.integers(-50, 50, 2))
        num, endpoint = int(rng.integers(0, 12)), bool(rng.random() < 0.5)
        for dt in (np.int32, np.int16):
            want = np.linspace(a, b, num, endpoint=endpoint, dtype=dt)
            got = np.asarray(jnp.linspace(a, b, num, endpoint=endpoint, dtype=dt))
            np.testing.assert_array_equal(got, want, err_msg=f"linspace({a}, {b}, {num}, "
                                          f"endpoint={endpoint})")
