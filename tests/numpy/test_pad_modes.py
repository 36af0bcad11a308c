"""jnp.pad in every NumPy mode (statistics, linear_ramp, reflect_type='odd', callable)
against np.pad in float64: eager, under jit, gradients against central differences of
the float64 NumPy function, and vmap against a Python loop of np.pad."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

STAT_MODES = ("maximum", "minimum", "mean", "median")
MODES = ("constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp") + STAT_MODES

# (shape, pad_width): widths wider than the axis, one-element axes, a zero-width axis
SHAPES = [
    ((5,), (2, 3)),
    ((3,), (7, 8)),          # wider than the axis on both sides
    ((1,), (3, 2)),          # one element: reflect degenerates to edge
    ((2, 3), ((1, 4), (5, 0))),
    ((4, 1, 3), ((0, 0), (2, 2), (4, 1))),
    ((2, 4), 3),
]

# keyword variants per mode, as NumPy accepts them
KWARGS = {
    "constant": [{}, {"constant_values": ((1.5, -2.0),)}],
    "reflect": [{}, {"reflect_type": "odd"}],
    "symmetric": [{}, {"reflect_type": "odd"}],
    "linear_ramp": [{}, {"end_values": (-3.0, 4.5)}, {"end_values": 2}],
    **{m: [{}, {"stat_length": 2}, {"stat_length": ((1, 3),)}, {"stat_length": 9}]
       for m in STAT_MODES},
}


def _cases():
    for mode in MODES:
        for kw in KWARGS.get(mode, [{}]):
            for shape, pw in SHAPES:
                yield mode, kw, shape, pw


def _data(shape, seed=0):
    # distinct values with gaps far wider than the finite-difference step (no ties at
    # the kinks of max/min/median)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 + rng.uniform(-0.05, 0.05, n) - n * 0.15).reshape(shape)


@pytest.mark.parametrize("mode, kw, shape, pw", list(_cases()))
def test_pad_matches_numpy_eager_and_jit(mode, kw, shape, pw):
    x = _data(shape)
    want = np.pad(x, pw, mode=mode, **kw)
    x32 = x.astype(np.float32)
    got = np.asarray(jnp.pad(x32, pw, mode=mode, **kw))
    got_jit = np.asarray(tjit.jit(lambda a: jnp.pad(a, pw, mode=mode, **kw))(x32))
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got_jit, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, pw", [((5,), (2, 7)), ((3, 4), ((2, 1), (5, 3)))])
def test_pad_grad_matches_finite_differences(mode, shape, pw):
    kw = KWARGS.get(mode, [{}])[-1]
    x = _data(shape, seed=1)
    w = np.random.default_rng(2).standard_normal(np.pad(x, pw).shape)

    def ref(v):
        return float((np.pad(v, pw, mode=mode, **kw) * w).sum())
    eps = 1e-3
    want = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[k] = eps
        want[k] = (ref(x + d) - ref(x - d)) / (2 * eps)
    w32 = jnp.asarray(w.astype(np.float32))
    g = tjit.jit(tjit.grad(lambda a: jnp.sum(jnp.pad(a, pw, mode=mode, **kw) * w32)))
    np.testing.assert_allclose(np.asarray(g(x.astype(np.float32))), want, rtol=1e-3,
                               atol=1e-3)


@pytest.mark.parametrize("mode", MODES)
def test_pad_vmap_matches_loop(mode):
    kw = KWARGS.get(mode, [{}])[-1]
    xs = _data((3, 4, 2), seed=3)
    pw = ((2, 5), (1, 3))
    want = np.stack([np.pad(r, pw, mode=mode, **kw) for r in xs])
    got = tjit.vmap(lambda r: jnp.pad(r, pw, mode=mode, **kw))(xs.astype(np.float32))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("mode", ["linear_ramp", "mean", "median", "maximum", "minimum"])
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
def test_pad_integer_arrays_round_and_floor_as_numpy(mode, dtype):
    # mean/median are rounded half to even, ramps floored, both cast back to the dtype
    rng = np.random.default_rng(4)
    x = rng.integers(0, 100, (4, 5)).astype(dtype)
    kws = [{}] + ([{"end_values": ((3, 90), (7, 0))}] if mode == "linear_ramp"
                  else [{"stat_length": ((2, 3), (4, 1))}])
    for kw in kws:
        want = np.pad(x, ((3, 4), (6, 2)), mode=mode, **kw)
        def f(a):
            return jnp.pad(a, ((3, 4), (6, 2)), mode, **kw)
        for g in (f, tjit.jit(f)):
            got = np.asarray(g(x))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_pad_mean_of_integers_rounds_half_to_even():
    x = np.array([1, 2, 4, 7], np.int32)  # mean 3.5 -> 4; first two: 1.5 -> 2
    for kw in ({}, {"stat_length": 2}):
        np.testing.assert_array_equal(np.asarray(jnp.pad(x, 2, mode="mean", **kw)),
                                      np.pad(x, 2, mode="mean", **kw))


def test_pad_statistics_of_empty_arrays():
    # a padded axis of an array with zero elements elsewhere: NumPy's result, no error
    x = np.zeros((0, 3), np.float32)
    for mode in STAT_MODES + ("linear_ramp",):
        want = np.pad(x, ((0, 0), (2, 1)), mode=mode)
        assert jnp.pad(x, ((0, 0), (2, 1)), mode=mode).shape == want.shape
        with pytest.raises(ValueError, match="can't extend empty axis 0"):
            jnp.pad(x, 1, mode=mode)


def test_pad_callable_mode_matches_numpy():
    def np_pad_with(vector, pad_width, iaxis, kwargs):  # NumPy edits the row in place
        vector[:pad_width[0]] = kwargs.get("before", -1) * (iaxis + 1)
        if pad_width[1]:
            vector[-pad_width[1]:] = vector[pad_width[0]:len(vector) - pad_width[1]].sum()

    def jnp_pad_with(row, pad_width, iaxis, kwargs):  # JAX's form returns the row
        row = row.at[:pad_width[0]].set(kwargs.get("before", -1) * (iaxis + 1))
        inner = row[pad_width[0]:row.shape[0] - pad_width[1]].sum()
        return row.at[row.shape[0] - pad_width[1]:].set(inner) if pad_width[1] else row

    x = _data((3, 4))
    for pw, kw in [(((1, 2), (3, 1)), {}), (2, {"before": 5.0}), (((0, 0), (1, 0)), {})]:
        want = np.pad(x, pw, np_pad_with, **kw)
        got = jnp.pad(x.astype(np.float32), pw, jnp_pad_with, **kw)
        got_jit = tjit.jit(lambda a: jnp.pad(a, pw, jnp_pad_with, **kw))(x.astype(np.float32))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(np.asarray(got_jit), want, rtol=1e-5, atol=1e-4)
