"""argmin/argmax as two fused reductions (``primitives/reductions.py``'s lowering).

The compiled CPU (LLVM) and OpenCL (C renderer on PoCL) paths are checked against the
reference interpreter and NumPy: every kernel dtype plus float16 (a library step), NaNs
in several positions, all-equal rows, signed zeros, axes 0/1/-1/None, long rows that
the CPU splits among threads, size-1 and empty axes, vmap, polymorphic sizes, x64 index
dtypes, and a jitted k-means step whose argmin must fuse with the distance kernel.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import ops
from tjit.devices import opencl_context

AXES = (0, 1, -1, None)


def _values(dtype, rng):
    """A (7, 9) array whose rows and columns hold the cases: ties, NaNs, signed zeros."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        x = rng.random((7, 9)) < 0.5
        x[1], x[2], x[:, 3], x[:, 4] = False, True, False, True   # all-equal rows/columns
        return x
    if dt.kind in "iu":
        x = rng.integers(-3, 4, (7, 9)).astype(dt)      # small range: many ties
        x[1] = 2
        x[:, 5] = -1
        return x
    x = rng.standard_normal((7, 9)).astype(dt)
    x[1] = 0.5                                          # all equal
    x[2, 0] = np.nan                                    # NaN first
    x[3, 4], x[3, 7] = np.nan, np.nan                   # two NaNs: the first wins
    x[4, 8] = np.nan                                    # NaN last
    x[5] = [0.0, -0.0, 0.0, 1, 2, 3, -0.0, 4, 5]        # min ties between signed zeros
    x[6] = [-0.0, 0.0, -1, -2, -0.0, -3, 0.0, -4, -5]   # max ties between signed zeros
    x[:, 2] = -np.inf
    x[0, 6] = np.inf
    return x


def _all_args(x):
    return {f"{name}_{ax}": fn(x, axis=ax)
            for name, fn in (("argmin", jnp.argmin), ("argmax", jnp.argmax)) for ax in AXES}


def _numpy_all_args(x):
    return {f"{name}_{ax}": getattr(np, name)(x, axis=ax)
            for name in ("argmin", "argmax") for ax in AXES}


def _check(got, want, index_dtype):
    for key, w in want.items():
        g = np.asarray(got[key])
        assert g.dtype == index_dtype, (key, g.dtype)
        np.testing.assert_array_equal(g, w, err_msg=key)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "float16"])
def test_compiled_matches_interpreter_and_numpy(dtype):
    x = _values(dtype, np.random.default_rng(1))
    want = _numpy_all_args(x)
    _check(tjit.jit(_all_args)(x), want, np.int32)
    _check(tjit.jit(_all_args, backend="interpreter")(x), want, np.int32)


def test_fused_not_a_library_step():
    """The two reductions land in one kernel (no host step) for a row argmin/argmax."""
    x = np.ones((4, 6), np.float32)
    text = tjit.jit(lambda a: (jnp.argmin(a, 1), jnp.argmax(a, 1))).lower(x).compile().as_text()
    assert "library" not in text, text
    assert "1 fused kernels" in text, text


@pytest.mark.parametrize("shape,axis", [((3, 5003), 1), ((5003, 3), 0), ((20000,), 0)])
def test_long_axes(shape, axis):
    """Rows long enough to be split among threads; the extreme sits late, tied twice."""
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    n = shape[axis]
    late = [slice(None)] * len(shape)
    for pos in (n - 7, n - 2):                           # ties: the earlier one wins
        late[axis] = pos
        x[tuple(late)] = -50.0
    late[axis] = n - 3
    x[tuple(late)] = 50.0
    f = tjit.jit(lambda a: (jnp.argmin(a, axis=axis), jnp.argmax(a, axis=axis)))
    got = f(x)
    np.testing.assert_array_equal(np.asarray(got[0]), np.argmin(x, axis=axis))
    np.testing.assert_array_equal(np.asarray(got[1]), np.argmax(x, axis=axis))
    x[(0,) * (len(shape) - 1) + (n - 1,) if axis == len(shape) - 1 else
      (n - 1,) + (0,) * (len(shape) - 1)] = np.nan       # a NaN anywhere wins
    np.testing.assert_array_equal(np.asarray(f(x)[0]), np.argmin(x, axis=axis))


def test_size_one_and_empty_axes():
    f = tjit.jit(lambda a: (jnp.argmin(a, axis=1), jnp.argmax(a, axis=0)))
    got = f(np.array([[3.0], [np.nan], [-1.0]], np.float32))
    np.testing.assert_array_equal(np.asarray(got[0]), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(got[1]), [1])
    empty_rows = tjit.jit(lambda a: jnp.argmin(a, axis=1))(np.zeros((0, 3), np.float32))
    assert empty_rows.shape == (0,) and empty_rows.dtype == np.int32
    for fn in (jnp.argmin, jnp.argmax):    # NumPy and JAX raise ValueError here
        with pytest.raises(ValueError, match=f"{fn.__name__}.*empty"):
            tjit.jit(lambda a, fn=fn: fn(a, axis=1))(np.zeros((3, 0), np.float32))


def test_keepdims_and_x64_index_dtype(x64):
    x = _values("float64", np.random.default_rng(3))
    got = tjit.jit(lambda a: jnp.argmax(a, axis=1, keepdims=True))(x)
    assert np.asarray(got).dtype == np.int64
    np.testing.assert_array_equal(np.asarray(got), np.argmax(x, axis=1, keepdims=True))
    _check(tjit.jit(_all_args)(x), _numpy_all_args(x), np.int64)


def test_vmap_matches_a_loop():
    x = np.random.default_rng(4).integers(0, 3, (5, 4, 6)).astype(np.float32)
    x[2, 1, 3] = np.nan
    f = tjit.jit(tjit.vmap(lambda a: (jnp.argmin(a, axis=0), jnp.argmax(a))))
    got_min, got_max = f(x)
    np.testing.assert_array_equal(np.asarray(got_min), [np.argmin(r, axis=0) for r in x])
    np.testing.assert_array_equal(np.asarray(got_max), [np.argmax(r) for r in x])


def test_polymorphic_rows():
    f = tjit.jit(lambda a: jnp.argmin(a, axis=1), polymorphic_shapes=["(7, b)"])
    for b in (1, 9, 33):
        x = np.random.default_rng(b).integers(0, 4, (7, b)).astype(np.float32)
        x[0, b // 2] = np.nan
        np.testing.assert_array_equal(np.asarray(f(x)), np.argmin(x, axis=1))


def _kmeans_step(x, c):
    d2 = jnp.sum(x * x, 1)[:, None] - 2 * x @ c.T + jnp.sum(c * c, 1)[None, :]
    assign = jnp.argmin(d2, axis=1)
    k = c.shape[0]
    sums = ops.segment_sum(x, assign, num_segments=k)
    counts = ops.segment_sum(jnp.ones_like(x[:, 0]), assign, num_segments=k)
    return assign, sums / jnp.maximum(counts, 1.0)[:, None]


def test_kmeans_step():
    rng = np.random.default_rng(5)
    centers = rng.standard_normal((8, 4)) * 4
    x = (centers[rng.integers(0, 8, 300)] + 0.3 * rng.standard_normal((300, 4)))
    x, c = x.astype(np.float32), (centers + 0.2 * rng.standard_normal((8, 4))).astype(
        np.float32)
    d2 = ((x[:, None, :].astype(np.float64) - c[None]) ** 2).sum(-1)
    want = d2.argmin(1)
    assert (np.sort(d2, 1)[:, 1] - d2.min(1) > 1e-2).all()   # no near-ties in float32
    sums = np.zeros((8, 4))
    np.add.at(sums, want, x)
    f = tjit.jit(_kmeans_step)
    assign, new_c = f(x, c)
    np.testing.assert_array_equal(np.asarray(assign), want)
    np.testing.assert_allclose(
        np.asarray(new_c), sums / np.maximum(np.bincount(want, minlength=8), 1)[:, None],
        rtol=1e-5, atol=1e-5)
    text = f.lower(x, c).compile().as_text()
    assert "library argmin" not in text, text


REASON = opencl_context.unavailable_reason()


@pytest.mark.opencl
@pytest.mark.skipif(REASON is not None, reason=f"no usable OpenCL: {REASON}")
@pytest.mark.parametrize("dtype", ["float32"] + [
    pytest.param(d, marks=pytest.mark.slow) for d in ("int32", "bool")])  # cold PoCL builds
def test_opencl_matches_numpy(dtype):
    """The C renderer's rendering of the same kernels (row and accumulate styles), on
    PoCL."""
    x = _values(dtype, np.random.default_rng(6))
    # argmin down the columns (accumulate style: two kernels), argmax along the rows
    f = tjit.jit(lambda a: {"argmin_0": jnp.argmin(a, axis=0),
                            "argmax_1": jnp.argmax(a, axis=1)}, backend="opencl")
    got = f(x)
    for key, g in got.items():
        name, ax = key.split("_")
        g = np.asarray(g)
        assert g.dtype == np.int32, (key, g.dtype)
        np.testing.assert_array_equal(g, getattr(np, name)(x, axis=int(ax)), err_msg=key)
