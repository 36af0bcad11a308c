"""``concatenate`` lowers to one fusible kernel (takes and selects) for up to four
operands: values against NumPy for every dtype class, axes, empty operands and signed
zeros/NaNs; loop bodies that concatenate stay kernels; long lists, symbolic sizes along
the axis and empty results stay a library copy."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _plan(f, *args, **kw):
    return tjit.jit(f, **kw).lower(*args).compile().as_text()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int32, np.float32,
                                   np.complex64])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_fused_concatenation_matches_numpy(dtype, axis):
    rng = np.random.default_rng(axis)
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for s, n in zip(shapes, (1, 3, 2)):
        s[axis] = n
    parts = [(rng.standard_normal(s) * 5).astype(dtype) for s in shapes]

    def f(a, b, c):
        return jnp.concatenate([a, b * 2 if dtype != np.bool_ else ~b, c], axis=axis)
    want = np.concatenate([parts[0], parts[1] * 2 if dtype != np.bool_ else ~parts[1],
                           parts[2]], axis=axis)
    if dtype != np.complex64:           # (complex values run as library steps throughout)
        assert "library concatenate" not in _plan(f, *parts)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(*parts)), want)


def test_signed_zeros_nans_and_empty_operands_are_kept():
    a = np.array([-0.0, np.nan, np.inf], np.float32)
    b = np.zeros((0,), np.float32)
    c = np.array([-np.inf, -0.0], np.float32)
    got = np.asarray(tjit.jit(lambda a, b, c: jnp.concatenate([a, b, c]))(a, b, c))
    want = np.concatenate([a, b, c])
    np.testing.assert_array_equal(got, want)
    assert list(np.signbit(got)) == list(np.signbit(want))


def test_loop_body_that_concatenates_stays_kernels():
    def step(c, _):
        return jnp.concatenate([c[1:], c[:1]]) * 0.5 + c, None
    f = lambda x: lax.scan(step, x, None, length=20)[0]  # noqa: E731
    x = np.linspace(0, 1, 16, dtype=np.float32)
    assert "library" not in _plan(f, x)
    want = x.astype(np.float64)
    for _ in range(20):
        want = np.roll(want, -1) * 0.5 + want
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), want, rtol=1e-5)


def test_long_lists_symbolic_axes_and_empty_results_stay_a_library_copy():
    many = [np.full((2,), i, np.float32) for i in range(6)]
    assert "library concatenate" in _plan(lambda *xs: jnp.concatenate(xs), *many)
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda *xs: jnp.concatenate(xs))(
        *many)), np.concatenate(many))
    poly = tjit.jit(lambda a, b: jnp.concatenate([a, b]), polymorphic_shapes=["(n,)", "(n,)"])
    for n in (1, 3):
        a, b = np.arange(n, dtype=np.float32), -np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(np.asarray(poly(a, b)), np.concatenate([a, b]))
    e = np.zeros((0, 3), np.float32)
    assert tjit.jit(lambda a, b: jnp.concatenate([a, b], axis=1))(e, e).shape == (0, 6)


def test_symbolic_batch_dims_off_the_axis_still_fuse():
    f = tjit.jit(lambda a, b: jnp.concatenate([a, b], axis=1) + 1,
                 polymorphic_shapes=["(n, 2)", "(n, 3)"])
    for n in (1, 4):
        a = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
        b = np.arange(3 * n, dtype=np.float32).reshape(n, 3) * 10
        np.testing.assert_array_equal(np.asarray(f(a, b)), np.concatenate([a, b], 1) + 1)
