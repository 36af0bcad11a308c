"""jvp, transpose and batching rules of the elementwise primitives.

Oracles: float64 central finite differences (``check_grads``, forward and reverse mode),
a Python loop + stack (``check_vmap``), JAX's documented derivative conventions written
out in NumPy (ties of max/min, pow at 0, abs at 0, clamp at the bounds), and
scipy.special.polygamma for the trigamma used by digamma's jvp.
"""

import numpy as np
import pytest
import scipy.special

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import elementwise as ew
from tjit.primitives.base import REGISTRY
from tjit.tracing.jaxpr import subjaxprs
from tests.transforms.check import check_grads, check_vmap

SHAPES = [(), (3,), (2, 3)]


def _vals(rng, shape, lo, hi, away=()):
    """Uniform values in [lo, hi), nudged at least 0.1 away from the points ``away``
    (kinks and discontinuities where finite differences mean nothing)."""
    x = rng.uniform(lo, hi, shape)
    for a in away:
        x = np.where(np.abs(x - a) < 0.1, a + 0.1 * np.sign(x - a + 1e-9), x)
    return np.asarray(x, np.float32)


# name -> (function, lo, hi, points to stay away from)
UNARY = {
    "neg": (lax.neg, -2, 2, ()),
    "abs": (lax.abs, -2, 2, (0,)),
    "sign": (lambda x: lax.sign(x) * x, -2, 2, (0,)),
    "floor": (lambda x: lax.floor(x) * x, -2.9, 2.9, (-2, -1, 0, 1, 2)),
    "ceil": (lambda x: lax.ceil(x) * x, -2.9, 2.9, (-2, -1, 0, 1, 2)),
    "round": (lambda x: lax.round(x) + lax.round(x, 1) * x, -2.4, 2.4,
              (-1.5, -0.5, 0.5, 1.5)),
    "exp": (lax.exp, -2, 2, ()),
    "exp2": (lax.exp2, -2, 2, ()),
    "expm1": (lax.expm1, -2, 2, ()),
    "log": (lax.log, 0.5, 3, ()),
    "log1p": (lax.log1p, -0.5, 2, ()),
    "sqrt": (lax.sqrt, 0.5, 3, ()),
    "rsqrt": (lax.rsqrt, 0.5, 3, ()),
    "cbrt": (lax.cbrt, -3, 3, (0,)),
    "tanh": (lax.tanh, -3, 3, ()),
    "logistic": (lax.logistic, -3, 3, ()),
    "sin": (lax.sin, -3, 3, ()),
    "cos": (lax.cos, -3, 3, ()),
    "tan": (lax.tan, -1.2, 1.2, ()),
    "asin": (lax.asin, -0.8, 0.8, ()),
    "acos": (lax.acos, -0.8, 0.8, ()),
    "atan": (lax.atan, -3, 3, ()),
    "sinh": (lax.sinh, -2, 2, ()),
    "cosh": (lax.cosh, -2, 2, ()),
    "asinh": (lax.asinh, -3, 3, ()),
    "acosh": (lax.acosh, 1.2, 3, ()),
    "atanh": (lax.atanh, -0.8, 0.8, ()),
    "erf": (lax.erf, -2, 2, ()),
    "erfc": (lax.erfc, -2, 2, ()),
    "erf_inv": (lax.erf_inv, -0.9, 0.9, ()),
    "lgamma": (lax.lgamma, 0.3, 4, ()),
    "lgamma_neg": (lax.lgamma, -2.8, -2.2, ()),
    "digamma": (lax.digamma, 0.3, 4, ()),
    "digamma_neg": (lax.digamma, -1.8, -1.2, ()),
    "real": (lax.real, -2, 2, ()),
    "imag": (lambda x: lax.imag(x) + x, -2, 2, ()),
    "conj": (lax.conj, -2, 2, ()),
    "is_finite": (lambda x: lax.select(lax.is_finite(x), x * x, x), -2, 2, ()),
    "convert_complex": (lambda x: lax.real(lax.convert_element_type(x, np.complex128) * x),
                        -2, 2, ()),
    "convert_int": (lambda x: lax.convert_element_type(
        lax.convert_element_type(x, np.int32), x.dtype) * x, -2.9, 2.9, (-2, -1, 0, 1, 2)),
}
for _y in (-2, -1, 0, 1, 2, 3):
    UNARY[f"integer_pow_{_y}"] = (lambda x, _y=_y: lax.integer_pow(x, _y), 0.5, 2, ())
SECOND_ORDER = ["tanh", "logistic", "sin", "exp", "log", "sqrt", "rsqrt", "erf", "lgamma",
                "digamma", "digamma_neg", "atan", "abs", "integer_pow_3", "integer_pow_-2"]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grads(name, shape):
    f, lo, hi, away = UNARY[name]
    x = _vals(np.random.default_rng(len(name)), shape, lo, hi, away)
    check_grads(f, (x,), order=2 if name in SECOND_ORDER else 1)


def _pos(rng, shape):
    return _vals(rng, shape, 0.5, 2)


def _any(rng, shape):
    return _vals(rng, shape, -2, 2)


def _nonzero(rng, shape):
    return _vals(rng, shape, -2, 2, (0,)) + np.float32(0)


# name -> (function, x domain, y domain)
BINARY = {
    "add": (lax.add, _any, _any),
    "sub": (lax.sub, _any, _any),
    "mul": (lax.mul, _any, _any),
    "div": (lax.div, _any, _nonzero),
    "rem": (lax.rem, lambda r, s: _vals(r, s, 0.1, 3), lambda r, s: _vals(r, s, 0.45, 0.55)),
    "pow": (lax.pow, _pos, _any),
    "max": (lax.max, _any, _any),
    "min": (lax.min, _any, _any),
    "atan2": (lax.atan2, _nonzero, _nonzero),
    "complex": (lambda x, y: (lax.real(lax.complex(x, y) * lax.complex(y, x)),
                              lax.imag(lax.complex(x, y) * lax.complex(y, x))), _any, _any),
}
PAIRS = [((3,), (3,)), ((), ()), ((), (2, 3)), ((2, 3), ())]


@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grads(name, shapes):
    f, dx, dy = BINARY[name]
    rng = np.random.default_rng(len(name))
    x, y = dx(rng, shapes[0]), dy(rng, shapes[1])
    order = 2 if name in ("pow", "div", "mul", "atan2", "max") else 1
    check_grads(f, (x, y), order=order)


def test_rem_grad_matches_trunc_formula():
    x = np.float32([2.3, -2.3, 0.7, 5.1])
    y = np.float32([0.5, 0.5, -0.3, 2.0])
    gx, gy = tjit.grad(lambda a, b: lax.rem(a, b).sum(), (0, 1))(x, y)
    np.testing.assert_allclose(np.asarray(gx), np.ones(4))
    np.testing.assert_allclose(np.asarray(gy), -np.trunc(x / y))


# -- JAX's conventions at special points ---------------------------------------------------------
def test_max_min_split_gradient_at_ties():
    x = np.float32([1.0, 2.0, 3.0])
    y = np.float32([1.0, 5.0, 0.0])
    for fn, win in ((lax.max, x > y), (lax.min, x < y)):
        gx, gy = tjit.grad(lambda a, b: fn(a, b).sum(), (0, 1))(x, y)
        tie = x == y
        np.testing.assert_array_equal(np.asarray(gx), np.where(tie, 0.5, win * 1.0))
        np.testing.assert_array_equal(np.asarray(gy), np.where(tie, 0.5, ~win * 1.0))
    # jnp.maximum goes through max_p
    g = tjit.grad(lambda a: jnp.maximum(a, 2.0).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 0.5, 1.0])


def test_pow_derivatives_at_zero():
    x = np.float32([0.0, 0.0, 0.0, 2.0])
    y = np.float32([0.0, 1.0, 2.5, 0.0])
    gx, gy = tjit.grad(lambda a, b: lax.pow(a, b).sum(), (0, 1))(x, y)
    # d/dx: 0 where y == 0; y * x**(y-1) otherwise (0**0 = 1 for y = 1)
    np.testing.assert_array_equal(np.asarray(gx), [0.0, 1.0, 0.0, 0.0])
    # d/dy: log(x) * x**y with log taken as 0 at x == 0
    np.testing.assert_allclose(np.asarray(gy), [0.0, 0.0, 0.0, np.log(2.0)], rtol=1e-6)
    assert np.all(np.isfinite(np.asarray(gx))) and np.all(np.isfinite(np.asarray(gy)))


def test_abs_and_sign_at_zero():
    x = np.float32([-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(np.asarray(tjit.grad(lambda a: lax.abs(a).sum())(x)),
                                  [-1.0, 1.0, 1.0])  # JAX: slope +1 at 0
    np.testing.assert_array_equal(np.asarray(tjit.grad(lambda a: lax.sign(a).sum())(x)),
                                  [0.0, 0.0, 0.0])


def test_integer_pow_zero_exponent_has_zero_tangent():
    _, t = tjit.jvp(lambda a: lax.integer_pow(a, 0), (np.float32(3.0),), (np.float32(1.0),))
    assert float(t) == 0.0


def test_trigamma_against_scipy(x64):
    x = np.concatenate([np.linspace(0.05, 30, 40), np.linspace(-4.9, -0.1, 23)])
    x = x[np.abs(x - np.round(x)) > 0.05]
    got = np.asarray(ew.trigamma(jnp.asarray(x)))
    np.testing.assert_allclose(got, scipy.special.polygamma(1, x), rtol=1e-10)
    # digamma's jvp uses it
    _, t = tjit.jvp(lax.digamma, (jnp.asarray(x),), (jnp.ones_like(jnp.asarray(x)),))
    np.testing.assert_allclose(np.asarray(t), scipy.special.polygamma(1, x), rtol=1e-10)


def test_lgamma_second_derivative_is_trigamma(x64):
    x = np.array([0.7, 1.5, 3.0, -1.5])
    g2 = tjit.vmap(tjit.grad(tjit.grad(lambda a: lax.lgamma(a))))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g2), scipy.special.polygamma(1, x), rtol=1e-10)


# -- complex ------------------------------------------------------------------------------------
def _cfun(fn):
    """A real function of (re, im) through a complex intermediate."""
    def f(a, b):
        z = fn(lax.complex(a, b))
        return lax.real(z), lax.imag(z)
    return f


@pytest.mark.parametrize("name,fn", [
    ("sin", lax.sin), ("exp", lax.exp), ("log", lax.log), ("sqrt", lax.sqrt),
    ("tanh", lax.tanh), ("conj", lax.conj), ("mul", lambda z: z * lax.conj(z) * z),
    ("div", lambda z: lax.div(z * z + 1, z)),
    ("abs", lambda z: lax.complex(lax.abs(z), lax.abs(z) * 0)),
    ("integer_pow", lambda z: lax.integer_pow(z, 3)),
])
def test_complex_grads(name, fn):
    rng = np.random.default_rng(1)
    a, b = _vals(rng, (4,), 0.3, 2), _vals(rng, (4,), -2, 2)
    check_grads(_cfun(fn), (a, b))


def test_linear_complex_parts_transpose_in_numpy():
    z = jnp.asarray(np.complex64([1 + 2j, -3 + 0.5j]))
    ct = np.float32([0.25, -2.0])
    ct_c = np.complex64([1 - 1j, 2 + 3j])
    # JAX's convention: real^T(c) = c + 0j, imag^T(c) = -1j * c, complex^T(c) = (re c, -im c)
    np.testing.assert_array_equal(np.asarray(tjit.vjp(lax.real, z)[1](ct)[0]), ct + 0j)
    np.testing.assert_array_equal(np.asarray(tjit.vjp(lax.imag, z)[1](ct)[0]), -1j * ct)
    np.testing.assert_array_equal(np.asarray(tjit.vjp(lax.conj, z)[1](ct_c)[0]),
                                  np.conj(ct_c))
    a, b = np.float32([1, 2]), np.float32([3, 4])
    ga, gb = tjit.vjp(lax.complex, a, b)[1](ct_c)
    np.testing.assert_array_equal(np.asarray(ga), ct_c.real)
    np.testing.assert_array_equal(np.asarray(gb), -ct_c.imag)


def test_arithmetic_transposes_in_numpy():
    x, c = np.float32([1.0, -2.0, 3.0]), np.float32([0.5, 4.0, -1.0])
    ct = np.float32([2.0, 1.0, -3.0])
    np.testing.assert_array_equal(np.asarray(tjit.vjp(lax.neg, x)[1](ct)[0]), -ct)
    np.testing.assert_array_equal(
        np.asarray(tjit.vjp(lambda a: lax.mul(c, a), x)[1](ct)[0]), c * ct)
    np.testing.assert_array_equal(
        np.asarray(tjit.vjp(lambda a: lax.div(a, c), x)[1](ct)[0]), ct / c)
    # a rank-0 operand broadcast against an array receives the summed cotangent
    gs, gx = tjit.vjp(lambda s, a: lax.sub(s, a) * c, np.float32(2.0), x)[1](ct)
    np.testing.assert_allclose(np.asarray(gs), np.sum(ct * c))
    np.testing.assert_allclose(np.asarray(gx), -ct * c)
    assert np.shape(gs) == ()


# -- selection, clamp, conversions --------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((3,), (3,), (3,)), ((3,), (), (3,)), ((), (3,), (3,)),
                                    ((), (), ())], ids=str)
def test_select_n_grads(shapes):
    rng = np.random.default_rng(2)
    which = rng.random(shapes[0]) < 0.5
    a, b = _any(rng, shapes[1]), _any(rng, shapes[2])
    check_grads(lambda a, b: lax.select_n(which, a * a, lax.sin(b)), (a, b), order=2)
    idx = np.int32([0, 2, 1, 2])
    cs = [_any(rng, (4,)) for _ in range(3)]
    check_grads(lambda *c: lax.select_n(idx, *c), tuple(cs))


def test_select_n_transpose_in_numpy():
    which = np.int32([0, 1, 2, 1])
    ct = np.float32([1, 2, 3, 4])
    args = [np.zeros(4, np.float32), np.float32(0), np.zeros(4, np.float32)]
    g = tjit.vjp(lambda *c: lax.select_n(which, *c), *args)[1](ct)
    np.testing.assert_array_equal(np.asarray(g[0]), np.where(which == 0, ct, 0))
    np.testing.assert_array_equal(np.asarray(g[1]), np.sum(np.where(which == 1, ct, 0)))
    np.testing.assert_array_equal(np.asarray(g[2]), np.where(which == 2, ct, 0))


def test_clamp_gradient_passes_strictly_inside():
    x = np.float32([-2.0, -1.0, 0.0, 1.0, 2.0])
    lo, hi = np.float32(-1.0), np.float32(1.0)
    g_lo, g_x, g_hi = tjit.grad(lambda l, a, h: lax.clamp(l, a, h).sum(), (0, 1, 2))(lo, x, hi)
    np.testing.assert_array_equal(np.asarray(g_x), [0, 0, 1, 0, 0])
    assert float(g_lo) == 1.0 and float(g_hi) == 1.0  # lo wins at -2, hi at 2 (JAX)
    rng = np.random.default_rng(3)
    for shapes in [((), (4,), ()), ((4,), (4,), (4,)), ((4,), (4,), ())]:
        lo = _vals(rng, shapes[0], -1.5, -0.5)
        hi = _vals(rng, shapes[2], 0.5, 1.5)
        xs = _vals(rng, shapes[1], -2.5, 2.5, (-1.5, -1, -0.5, 0.5, 1, 1.5))
        check_grads(lax.clamp, (lo, xs, hi))


def test_convert_element_type_rules(x64):
    x = np.float32([0.5, -1.5, 2.25])
    f = lambda a: lax.convert_element_type(lax.convert_element_type(a, np.float64) ** 2,  # noqa
                                           np.float32)
    g = tjit.grad(lambda a: f(a).sum())(x)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), 2 * x)
    # transpose converts back to the operand's dtype
    ct = np.float64([1.0, 2.0, 3.0])
    gt = tjit.vjp(lambda a: lax.convert_element_type(a, np.float64), x)[1](ct)[0]
    assert np.asarray(gt).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(gt), ct.astype(np.float32))
    # float -> int: an integer has a float0 tangent (JAX's); int -> float: no tangent
    # flows from the integer
    _, t = tjit.jvp(lambda a: lax.convert_element_type(a, np.int32), (x,), (x,))
    assert t.dtype == tjit.dtypes.float0 and t.shape == x.shape
    g = tjit.grad(lambda a: (lax.convert_element_type(
        lax.convert_element_type(a, np.int32), np.float32) * a).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.trunc(x))
    # complex -> real keeps the real part; real -> complex
    check_grads(lambda a, b: lax.convert_element_type(lax.complex(a, b) * lax.complex(b, a),
                                                      a.dtype), (x, x[::-1].copy()))


# -- zero-derivative ops ---------------------------------------------------------------------------
ZERO_JVP_INT = ["eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "not", "shift_left",
                "shift_right_logical", "shift_right_arithmetic", "population_count",
                "is_finite", "bitcast_convert_type"]


@pytest.mark.parametrize("name", ZERO_JVP_INT)
def test_integer_valued_ops_are_marked_and_have_zero_jvp(name):
    p = REGISTRY[name]
    assert p.not_differentiable and p.jvp is not None


@pytest.mark.parametrize("fn", [lax.lt, lax.eq, lax.ge,
                                lambda x, y: lax.bitcast_convert_type(x, np.int32),
                                lambda x, y: lax.sign(x), lambda x, y: lax.floor(y)])
def test_zero_jvp_gives_zero_tangents(fn):
    x, y = np.float32([1.0, 2.5, -3.0]), np.float32([2.0, 2.5, -4.0])
    out, t = tjit.jvp(fn, (x, y), (np.ones(3, np.float32), np.ones(3, np.float32)))
    if np.issubdtype(np.asarray(out).dtype, np.inexact):
        assert np.asarray(t).dtype == np.asarray(out).dtype
        np.testing.assert_array_equal(np.asarray(t), 0)
    else:  # integer and boolean values have float0 tangents, as in JAX
        assert t.dtype == tjit.dtypes.float0 and t.shape == np.shape(out)


def test_nextafter_derivatives_against_finite_differences(x64):
    """nextafter(x, y) is x moved by one ulp toward y: slope 1 in x, 0 in y (its jvp was
    once the zero of the piecewise-constant ops, so grad gave 0)."""
    x = np.array([1.0, 2.5, -3.0, 1e3])
    y = np.array([2.0, -9.0, 4.0, 1e3 + 1])
    h = 1e-4
    f = lambda a, b: lax.nextafter(a, b)  # noqa: E731
    dx = (np.nextafter(x + h, y) - np.nextafter(x - h, y)) / (2 * h)
    dy = (np.nextafter(x, y + h) - np.nextafter(x, y - h)) / (2 * h)
    _, tx = tjit.jvp(f, (x, y), (np.ones(4), np.zeros(4)))
    _, ty = tjit.jvp(f, (x, y), (np.zeros(4), np.ones(4)))
    np.testing.assert_allclose(np.asarray(tx), dx, rtol=1e-9)
    np.testing.assert_allclose(np.asarray(ty), dy, atol=0)
    g = tjit.grad(lambda a: jnp.sum(3.0 * lax.nextafter(a, y)))(x)
    np.testing.assert_allclose(np.asarray(g), 3.0 * dx, rtol=1e-9)


def test_every_elementwise_primitive_has_rules():
    for name, p in REGISTRY.items():
        if getattr(ew, f"{name}_p", None) is not p:
            continue
        assert p.batch is not None, name
        assert p.jvp is not None, name


# -- batching --------------------------------------------------------------------------------
def _f32(rng, shape):
    return _vals(rng, shape, 0.3, 0.9)


def _i32(rng, shape):
    return rng.integers(-20, 20, shape).astype(np.int32)


def _shift(rng, shape):
    return rng.integers(-2, 35, shape).astype(np.int32)


def _c64(rng, shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


UNARY_BATCH = [(n, UNARY[n][0], _f32) for n in sorted(UNARY)] + [
    ("not", lax.bitwise_not, _i32), ("population_count", lax.population_count, _i32),
    ("abs_c", lax.abs, _c64), ("real_c", lax.real, _c64), ("imag_c", lax.imag, _c64),
    ("conj_c", lax.conj, _c64),
    ("convert_i2f", lambda x: lax.convert_element_type(x, np.float32), _i32),
    ("bitcast_same", lambda x: lax.bitcast_convert_type(x, np.int32), _f32),
    ("bitcast_narrow", lambda x: lax.bitcast_convert_type(x, np.uint8), _f32),
]


@pytest.mark.parametrize("in_axes,shape", [(0, (4, 3)), (1, (3, 4)), (0, (4,))], ids=str)
@pytest.mark.parametrize("name,fn,dom", UNARY_BATCH, ids=[u[0] for u in UNARY_BATCH])
def test_unary_vmap(name, fn, dom, in_axes, shape):
    check_vmap(fn, (dom(np.random.default_rng(5), shape),), in_axes=in_axes)


def test_bitcast_widening_vmap_batch_on_last_axis():
    x = np.random.default_rng(0).integers(0, 255, (3, 4, 5)).astype(np.uint8)
    check_vmap(lambda a: lax.bitcast_convert_type(a, np.float32), (x,), in_axes=2)
    check_vmap(lambda a: lax.bitcast_convert_type(a, np.int32), (x[..., :4].copy(),),
               in_axes=0)


BINARY_BATCH = [(n, BINARY[n][0], BINARY[n][1], BINARY[n][2]) for n in sorted(BINARY)] + [
    ("nextafter", lax.nextafter, _any, _any), ("div_int", lax.div, _i32, _i32),
    ("rem_int", lax.rem, _i32, _i32),
    ("max_int", lax.max, _i32, _i32), ("eq", lax.eq, _i32, _i32), ("lt", lax.lt, _f32, _f32),
    ("ge", lax.ge, _f32, _f32), ("and", lax.bitwise_and, _i32, _i32),
    ("or", lax.bitwise_or, _i32, _i32), ("xor", lax.bitwise_xor, _i32, _i32),
    ("shift_left", lax.shift_left, _i32, _shift),
    ("shift_right_logical", lax.shift_right_logical, _i32, _shift),
    ("shift_right_arithmetic", lax.shift_right_arithmetic, _i32, _shift),
]
# (in_axes, x shape, y shape): both batched, a non-zero axis, unbatched arrays, and
# rank-0 operands (batched scalars among arrays; unbatched scalars)
BINARY_AXES = [((0, 0), (4, 3), (4, 3)), ((1, 0), (3, 4), (4, 3)),
               ((None, 0), (3,), (4, 3)), ((0, None), (4, 3), (3,)),
               ((0, 0), (4,), (4, 3)), ((0, None), (4,), (3,)), ((None, 1), (), (3, 4)),
               ((0, 0), (4,), (4,))]


@pytest.mark.parametrize("axes", BINARY_AXES, ids=str)
@pytest.mark.parametrize("name,fn,dx,dy", BINARY_BATCH, ids=[b[0] for b in BINARY_BATCH])
def test_binary_vmap(name, fn, dx, dy, axes):
    in_axes, sx, sy = axes
    rng = np.random.default_rng(6)
    check_vmap(fn, (dx(rng, sx), dy(rng, sy)), in_axes=in_axes)


SELECT_AXES = [((0, 0, 0), (4, 3), (4, 3), (4, 3)), ((None, 1, 0), (3,), (3, 4), (4, 3)),
               ((0, None, None), (4, 3), (), (3,)), ((0, 0, None), (4,), (4, 3), ()),
               ((None, None, 0), (), (), (4,)), ((0, None, 0), (4,), (), (4,))]


@pytest.mark.parametrize("axes", SELECT_AXES, ids=str)
def test_select_n_vmap(axes):
    in_axes, sw, sa, sb = axes
    rng = np.random.default_rng(7)
    which = rng.random(sw) < 0.5
    check_vmap(lambda w, a, b: lax.select_n(w, a, b), (which, _f32(rng, sa), _f32(rng, sb)),
               in_axes=in_axes)
    idx = rng.integers(0, 3, sw).astype(np.int32)
    check_vmap(lambda w, a, b: lax.select_n(w, a, b, a * b),
               (idx, _f32(rng, sa), _f32(rng, sb)), in_axes=in_axes)


CLAMP_AXES = [((None, 0, None), (), (4, 3), ()), ((0, 0, 0), (4, 3), (4, 3), (4, 3)),
              ((0, None, None), (4,), (3,), ()), ((None, 1, 0), (), (3, 4), (4,)),
              ((0, None, 0), (4,), (), (4,)), ((None, None, 0), (3,), (3,), (4, 3))]


@pytest.mark.parametrize("axes", CLAMP_AXES, ids=str)
def test_clamp_vmap(axes):
    in_axes, sl, sx, sh = axes
    rng = np.random.default_rng(8)
    args = (_vals(rng, sl, -1, 0), _vals(rng, sx, -2, 2), _vals(rng, sh, 0, 1))
    check_vmap(lax.clamp, args, in_axes=in_axes)


def test_nested_vmap():
    rng = np.random.default_rng(9)
    x, y = _f32(rng, (3, 4)), _f32(rng, (5, 4))
    inner = tjit.vmap(lambda a, b: lax.pow(a, b) + lax.atan2(a, b), in_axes=(None, 0))
    check_vmap(inner, (x, y), in_axes=(0, None))  # result (3, 5, 4)
    inner2 = tjit.vmap(lambda a, b: lax.clamp(np.float32(0.4), a, b), in_axes=(1, 0))
    check_vmap(inner2, (x, y), in_axes=(None, 0), out_axes=1)
    sel = tjit.vmap(lambda w, a: lax.select(w, a, lax.sin(a)), in_axes=(0, 1))
    check_vmap(sel, (rng.random((5, 4)) < 0.5, _f32(rng, (3, 4, 5))), in_axes=(None, 0))


def test_vmap_of_grad_and_grad_of_vmap():
    x = _vals(np.random.default_rng(10), (5, 3), -2, 2)
    f = lambda a: lax.tanh(a) * lax.logistic(a) + lax.max(a, 0.1)  # noqa: E731
    per_row = tjit.vmap(tjit.grad(lambda r: f(r).sum()))(x)
    whole = tjit.grad(lambda m: tjit.vmap(f)(m).sum())(x)
    np.testing.assert_allclose(np.asarray(per_row), np.asarray(whole), rtol=1e-6)
    check_grads(lambda m: tjit.vmap(f, in_axes=1, out_axes=1)(m), (x,))


# -- jnp programs and jit --------------------------------------------------------------------
def _relu_mix(x):
    y = jnp.where(x > 0, x ** 2, jnp.sin(x))
    return jnp.sum(jnp.maximum(y, -0.5) * jnp.exp(-x) + jnp.clip(x, -1.0, 1.0)) + \
        jnp.sum(x.astype(jnp.int32).astype(x.dtype) * x ** 3 / (1.0 + jnp.abs(x)))


def test_grad_of_jnp_program_matches_finite_differences():
    x = _vals(np.random.default_rng(11), (7,), -2, 2, (-1, 0, 1, -np.arcsin(0.5)))
    check_grads(_relu_mix, (x,), order=2)
    g = np.asarray(tjit.grad(lambda a: jnp.sum(jnp.where(a > 0, a ** 2, jnp.sin(a))))(x))
    np.testing.assert_allclose(g, np.where(x > 0, 2 * x, np.cos(x)), rtol=1e-6)


def test_jit_of_grad_is_one_jaxpr_and_matches_eager():
    x = _vals(np.random.default_rng(12), (6,), -2, 2, (-1, 0, 1, -np.arcsin(0.5)))
    g = tjit.grad(_relu_mix)
    closed = tjit.make_jaxpr(tjit.jit(g))(x)
    assert not list(subjaxprs(closed.jaxpr))
    assert len(closed.jaxpr.eqns) > 10
    np.testing.assert_allclose(np.asarray(tjit.jit(g)(x)), np.asarray(g(x)), rtol=1e-6, atol=3e-7)
    h = tjit.jit(tjit.grad(lambda a: jnp.sum(jnp.tanh(a) ** 2 / jnp.sqrt(1 + a * a))))
    hh = tjit.grad(lambda a: jnp.sum(jnp.tanh(a) ** 2 / jnp.sqrt(1 + a * a)))
    np.testing.assert_allclose(np.asarray(h(x)), np.asarray(hh(x)), rtol=1e-6, atol=3e-7)


def test_rules_trace_with_symbolic_shapes():
    def f(x, y):
        out, vjp_fn = tjit.vjp(lambda a: lax.pow(a, y) * lax.tanh(a) + np.float32(1), x)
        return vjp_fn(out)[0], tjit.vmap(lambda r: lax.max(r, np.float32(0.5)))(x)
    closed = tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)", "(b, 3)"])(
        np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert "b" in str(closed.jaxpr)
    x = _vals(np.random.default_rng(13), (5, 3), 0.5, 2)
    y = _vals(np.random.default_rng(14), (5, 3), -1, 1)
    got = tjit.jit(f, polymorphic_shapes=["(b, 3)", "(b, 3)"])(x, y)
    want = f(x, y)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=3e-7)


def test_threefry_is_not_differentiable():
    from tjit.primitives.random_bits import threefry2x32_p
    k = np.uint32([1, 2])
    assert threefry2x32_p.jvp is None and threefry2x32_p.not_differentiable
    # its uint32 inputs only take float0 tangents (JAX's rule), so nothing is
    # differentiated: the output's tangent is float0 too
    out, t = tjit.jvp(lambda a: threefry2x32_p.bind(a, a, a, a)[0], (k,),
                      (np.zeros(2, tjit.dtypes.float0),))
    assert t.dtype == tjit.dtypes.float0 and t.shape == (2,)
    with pytest.raises(TypeError, match="expected tangent dtype.*float0"):
        tjit.jvp(lambda a: threefry2x32_p.bind(a, a, a, a)[0], (k,), (k,))
