"""The fma impl's cheap lanes against exact rationals: the product's own error
(``c = -(a*b)``, every use in the special functions) with zero factors, squares,
factors whose split overflows and errors that underflow; rank-0 operands in each
position; float32 sums that are float32 already. Each of these once cost the eager
call a slow path or a broadcast; the values must stay IEEE's fma."""

import numpy as np
import pytest

import tjit as jax
from tests.primitives.test_fma import _assert_same, _reference
from tjit.primitives.exact_fma import fma as exact_fma
from tjit.primitives.fma import product_error


def _exact(a, b, c, dt):
    a, b, c = np.broadcast_arrays(a, b, c)
    return np.array([_reference(x, y, z, dt) for x, y, z in
                     zip(a.ravel(), b.ravel(), c.ravel())], dt).reshape(a.shape)


def _factor_pairs(dt, seed, n=400):
    """Ordinary factors with zeros of both signs among them (masked lanes of a special
    function's argument), and edge pairs over the ranges the product-error lane tells
    apart (a split that overflows, errors that underflow, products near the bounds)."""
    dt = np.dtype(dt)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n) * 3
    b = rng.standard_normal(n) * 3
    a[::7], a[3::11] = 0.0, -0.0
    fi = np.finfo(dt)
    if dt == np.float64:
        edge = [(2.0 ** 996, 1.5), (2.0 ** 998 * 1.3, 2.0 ** -40), (-2.0 ** 1000, 1.1e-5),
                (2.0 ** -480, 2.0 ** -481 * 1.7), (2.0 ** -500, 2.0 ** -470 * 1.3),
                (2.0 ** -540, -2.0 ** -540 * 1.9), (1e-200, 1e-200), (2.0 ** 510, 2.0 ** 509),
                (2.0 ** 511 * 1.3, 2.0 ** 512 * 1.4), (0.0, 2.0 ** 1000), (-0.0, -3.0),
                (1e-310, 3.0), (5e-324, 0.5)]
    else:
        edge = [(2.0 ** -70, 2.0 ** -60 * 1.3), (2.0 ** -75 * 1.7, 2.0 ** -70 * 1.1),
                (1e-30, -1e-20), (2.0 ** 60, 2.0 ** 60 * 1.9), (-0.0, 5.0),
                (float(fi.smallest_subnormal), 0.75), (1e-40, 3.0)]
    return a.astype(dt), b.astype(dt), [(dt.type(x), dt.type(y)) for x, y in edge]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_product_error_lanes_are_exact(dt):
    """Each edge pair joins the ordinary lanes alone (one such lane decides which way
    the whole call goes)."""
    a0, b0, edges = _factor_pairs(dt, seed=4, n=60)
    for ea, eb in [(None, None)] + edges:
        a, b = (a0, b0) if ea is None else (np.append(a0, ea), np.append(b0, eb))
        with np.errstate(all="ignore"):
            cases = {"general": (a, b, -(a * b)), "square": (a, a, -(a * a)),
                     "scalar factor": (a, b[-1], -(a * b[-1])),
                     "scalar a": (b[-1], a, -(b[-1] * a))}
            for what, (x, y, c) in cases.items():
                got = exact_fma(np, x, y, c)
                assert got.shape == c.shape
                _assert_same(got, _exact(x, y, c, np.dtype(dt)),
                             f"{np.dtype(dt).name} {what} with {(ea, eb)}")


def test_zero_products_keep_the_signs_of_zero():
    """c == -(a*b) holds for c = -0 with a*b = -0 too; there the sum is -0 (IEEE's
    exact zero of two negative zeros), elsewhere +0."""
    for dt in (np.float32, np.float64):
        a = np.array([-0.0, 0.0, -0.0, 2.0, 0.0], dt)
        b = np.array([5.0, 5.0, -5.0, -0.0, 0.0], dt)
        c = np.array([-0.0, -0.0, 0.0, 0.0, 0.0], dt)
        got = exact_fma(np, a, b, c)
        _assert_same(got, _exact(a, b, c, np.dtype(dt)), dt.__name__)
        assert list(np.signbit(got)) == [True, False, False, False, False]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_rank0_operands_in_each_position(dt):
    rng = np.random.default_rng(5)
    v = (rng.standard_normal((3, 4)) * 3).astype(dt)
    w = (rng.standard_normal((3, 4)) * 3).astype(dt)
    s = dt(0.7071067811865476)
    minus_ss = np.full((3, 4), -(s * s))   # (the product's error, in c's shape)
    for args in ((v, w, s), (v, s, w), (s, v, w), (s, s, v), (v, s, s), (s, w, s),
                 (s, s, minus_ss)):
        with np.errstate(all="ignore"):
            got = exact_fma(np, *args)
        assert got.shape == (3, 4) and got.dtype == dt
        _assert_same(got, _exact(*args, np.dtype(dt)), "rank-0 operand")
    assert exact_fma(np, s, s, s).shape == ()


def test_float32_sums_near_float32_values():
    """float32: a float64 sum that is a float32 is returned after one rounding; one that
    is not (a midpoint, an underflowing product error) still gets the single correct
    rounding."""
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(300) * np.exp2(rng.integers(-70, -40, 300))).astype(np.float32)
    b = (rng.standard_normal(300) * np.exp2(rng.integers(-70, -40, 300))).astype(np.float32)
    c = np.concatenate([-(a * b)[:150], (a * b)[150:] * np.float32(1.5)])
    trap = np.array([1 + 2.0 ** -18, 2.0 ** -24 * (1 - 2.0 ** -18), 1 + 2.0 ** -23], np.float32)
    a, b, c = (np.append(x, t) for x, t in zip((a, b, c), trap))
    with np.errstate(all="ignore"):
        got = exact_fma(np, a, b, c)
    _assert_same(got, _exact(a, b, c, np.dtype(np.float32)), "float32")
    assert got[-1] == np.float32(1 + 2.0 ** -23)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_eager_product_error_matches_the_compiled_fma(dt, x64):
    """The compiled kernel's fma is the host's (vfmadd): an independent reference for
    the lanes eager calls take."""
    # (ordinary values and zeros: the compiled error of an underflowing product is
    # subnormal, which the host may flush)
    a, b, _ = _factor_pairs(dt, seed=7)
    eager = np.asarray(product_error(a, b, a * b))
    compiled = jax.jit(lambda x, y: product_error(x, y, x * y))(a, b)
    _assert_same(compiled, eager, f"{np.dtype(dt).name} product error")
    sq = jax.jit(lambda x: product_error(x, x, x * x))(a)
    _assert_same(sq, np.asarray(product_error(a, a, a * a)), "square")
