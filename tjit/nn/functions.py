"""Activation functions and normalizations of ``tjit.nn``, as in ``jax.nn``.

Written on ``tjit.numpy``/``lax`` so they trace and compile like user code. The
numerically delicate ones are arranged to stay finite for large |x|: ``softplus``
is ``logaddexp(x, 0)``, ``log_sigmoid`` is ``-softplus(-x)``, and ``softmax``,
``log_softmax`` and ``logsumexp`` subtract the maximum before exponentiating.

Gradients: ``relu`` (derivative 0 at 0), ``softplus`` (``sigmoid(x)``, finite for any
x) and ``softmax`` (the ``y * (dx - sum(y * dx))`` jvp) have ``custom_jvp`` rules as in
JAX; ``lax.stop_gradient`` marks the max-shifts of ``softmax``/``log_softmax``/
``logsumexp`` whose gradient cancels mathematically, so it is not computed.
"""

import fractions
import functools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import normalize_axes, normalize_axis
from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_args_inexact, promote_dtypes_inexact
from tjit.numpy._ufuncs import _dekker_split
from tjit.primitives.fma import FMA_DTYPES, fma
from tjit.transforms.custom_derivatives import custom_jvp


def _inexact(name, x):
    check_arraylike(name, x)
    return promote_dtypes_inexact(x if isinstance(x, (Array, Tracer)) else jnp.asarray(x))[0]


def _inexact_with(name, x, constant):
    """``x`` made inexact together with the Python ``constant`` that JAX's formula for the
    function combines it with (``jnp.where(x > 0, x, 0.0)``, ``logaddexp(x, 0)``): so
    bool, and integer inputs with a float constant, give a weakly typed float, and the
    result's dtype and weak type are JAX's."""
    check_arraylike(name, x)
    return promote_dtypes_inexact(x, constant)[0]


def _array(name, x):
    check_arraylike(name, x)
    return x if isinstance(x, (Array, Tracer)) else jnp.asarray(x)


# -- elementwise activations ----------------------------------------------------------------
def identity(x):
    """Identity activation: returns ``x`` as an array."""
    return _array("identity", x)


@custom_jvp
def _relu(x):
    return jnp.maximum(x, 0)


# the derivative at the kink is 0 (as JAX), not max's tie-splitting 0.5
_relu.defjvps(lambda g, ans, x: lax.select(jnp.greater(x, 0), g, lax.full_like(g, 0)))


def relu(x):
    """Rectified linear unit: ``max(x, 0)``; its derivative is 0 at ``x == 0``."""
    return _relu(_array("relu", x))


@custom_jvp
def _relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


# as JAX: the derivative is 1 strictly inside (0, 6) and 0 elsewhere, including at both
# kinks (max/min's tie-splitting would give 0.5 there)
_relu6.defjvps(lambda g, ans, x: lax.select(
    jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6)), g, lax.full_like(g, 0)))


def relu6(x):
    """Rectified linear unit capped at 6: ``min(max(x, 0), 6)``.

    Its derivative is 1 for ``0 < x < 6`` and 0 elsewhere, including at ``x == 0`` and
    ``x == 6`` (as ``jax.nn.relu6``).
    """
    return _relu6(_array("relu6", x))


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``, stable for large |x|."""
    return lax.logistic(_inexact("sigmoid", x))


@custom_jvp
def _softplus(x):
    # logaddexp(x, 0) without its correction for the rounding of x - y: x - 0 is exact.
    # This is the form xla_like.simplify recognizes in Mish (tanh(softplus(x))).
    zero = lax.full_like(x, 0)
    delta = lax.sub(x, zero)
    return lax.select(lax.ne(delta, delta), lax.add(x, zero),
                      lax.add(lax.max(x, zero), lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


# d softplus = sigmoid: exact and finite everywhere, and one op where logaddexp's rule
# takes two
_softplus.defjvps(lambda g, ans, x: jnp.multiply(g, lax.logistic(x)))


def softplus(x):
    """``log(1 + exp(x))`` computed as ``logaddexp(x, 0)`` (no overflow for large x);
    its derivative is ``sigmoid(x)``."""
    return _softplus(_inexact_with("softplus", x, 0))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, finite for large negative x."""
    return jnp.negative(softplus(jnp.negative(_inexact("log_sigmoid", x))))


def silu(x):
    """SiLU / swish: ``x * sigmoid(x)``."""
    x = _inexact("silu", x)
    return jnp.multiply(x, sigmoid(x))


swish = silu


def mish(x):
    """Mish: ``x * tanh(softplus(x))``."""
    x = _inexact_with("mish", x, 0)
    return jnp.multiply(x, jnp.tanh(softplus(x)))


def soft_sign(x):
    """``x / (|x| + 1)``."""
    return _soft_sign(_inexact_with("soft_sign", x, 1))


@custom_jvp
def _soft_sign(x):
    return jnp.divide(x, jnp.add(jnp.abs(x), 1))


# its slope 1/(|x| + 1)**2 directly: the quotient rule's 1/(|x| + 1) - |x|/(|x| + 1)**2
# cancels (float32 grad at 1e3 was 799 ulps off, at 1e8 0, true 1e-16; JAX shares)
_soft_sign.defjvps(lambda g, ans, x: g * jnp.square(1 / (jnp.abs(x) + 1)))


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``; for x < 0 as ``b / (2 (sqrt(x**2 + b) - x))``, where
    the sum cancels (float32 squareplus(-30) was 55 ulps off, its grad 285; JAX's as far
    off). Each branch sees a safe x in the other's lanes (no inf * 0 in its gradient).

    The result's dtype and weak type are those of JAX's formula: x is first the operand
    ``square`` sees (bool as the strong default int), and the safe values are filled in
    x's own type (a Python -1 in ``where`` would make a bool x's result weak)."""
    x, b = _array("squareplus", x), _array("squareplus", b)
    if dtypes.is_bool(x.dtype):
        x = lax.convert_element_type(x, dtypes.default_int())
    neg = jnp.less(x, 0)
    xn = jnp.where(neg, x, lax.full_like(x, -1))
    xp = jnp.where(neg, lax.full_like(x, 0), x)
    traced = isinstance(x, Tracer) or isinstance(b, Tracer)
    if not (traced and jnp.issubdtype(x.dtype, np.inexact)):
        # (a plain eager call has nothing to differentiate, nor has an int x; the same
        # values, without the custom rules' extra operations: 55 vs 91 us on 8 elements)
        root = lambda v: jnp.sqrt(jnp.add(jnp.square(v), b))  # noqa: E731
    else:
        # b in the sum's type (its promotion and weak type, as in x**2 + b)
        b = jnp.add(b, jnp.zeros_like(jnp.add(jnp.square(x), b)))
        root = lambda v: _root_of_square_plus(v, b)  # noqa: E731
    below = jnp.divide(b, jnp.multiply(2, jnp.subtract(root(xn), xn)))
    above = jnp.divide(jnp.add(xp, root(xp)), 2)
    return jnp.where(neg, below, above)


@custom_jvp
def _root_of_square_plus(x, b):
    """``sqrt(x**2 + b)`` (inexact x, b of one type), whose slopes x/s and 1/(2s) are
    custom_jvps too: through sqrt's rule, grad of grad formed 1/s - x**2/s**3, which
    cancels for |x| >> sqrt(b) (float32 squareplus''(1000) was 2.04e-9, true 2.0e-9; 0 at
    1e5, true 2e-15; JAX as far off)."""
    return jnp.sqrt(jnp.add(jnp.square(x), b))


@_root_of_square_plus.defjvp
def _root_of_square_plus_jvp(primals, tangents):
    (x, b), (tx, tb) = primals, tangents
    s = _root_of_square_plus(x, b)
    return s, jnp.add(jnp.multiply(_x_over_root(x, b, s), tx), jnp.divide(tb, jnp.multiply(2, s)))


@custom_jvp
def _x_over_root(x, b, s):
    """``x / s`` for ``s = sqrt(x**2 + b)`` passed in (its tangent follows from x's
    and b's and is not read)."""
    return jnp.divide(x, s)


@_x_over_root.defjvp
def _x_over_root_jvp(primals, tangents):
    # d(x/s) = (b dx - x db / 2) / s**3, each term one product (scaled so s**3 does not
    # overflow)
    (x, b, s), (tx, tb, _) = primals, tangents
    over = jnp.divide(jnp.divide(jnp.divide(1, s), s), s)
    slope = jnp.subtract(jnp.multiply(b, tx), jnp.multiply(jnp.multiply(0.5, x), tb))
    return jnp.divide(x, s), jnp.multiply(over, slope)


def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` for x > 0, else ``alpha * (exp(x) - 1)``."""
    x = _inexact_with("elu", x, 0.0)
    pos = jnp.greater(x, 0)
    # expm1 of the clamped value: no overflow warning/inf for large positive x
    return jnp.where(pos, x, jnp.multiply(alpha, jnp.expm1(jnp.where(pos, 0.0, x))))


def selu(x):
    """Scaled ELU with the self-normalizing constants of Klambauer et al. (2017)."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return jnp.multiply(scale, elu(x, alpha))


def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    x = _inexact_with("celu", x, 0.0)
    return jnp.add(jnp.maximum(x, 0.0),
                   jnp.multiply(alpha, jnp.expm1(jnp.divide(jnp.minimum(x, 0.0), alpha))))


def leaky_relu(x, negative_slope=1e-2):
    """``x`` for x >= 0, else ``negative_slope * x``."""
    x = _array("leaky_relu", x)
    return jnp.where(jnp.greater_equal(x, 0), x, jnp.multiply(negative_slope, x))


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x = _array("hard_tanh", x)
    return jnp.where(jnp.greater(x, 1), 1, jnp.where(jnp.less(x, -1), -1, x))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return jnp.divide(relu6(jnp.add(_array("hard_sigmoid", x), 3.0)), 6.0)


def hard_silu(x):
    """Hard SiLU / hard swish: ``x * hard_sigmoid(x)``."""
    x = _array("hard_silu", x)
    return jnp.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def sparse_plus(x):
    """0 for x <= -1, ``(x + 1)**2 / 4`` for -1 < x < 1, x for x >= 1."""
    x = _inexact_with("sparse_plus", x, 1.0)
    mid = jnp.divide(jnp.square(jnp.add(x, 1.0)), 4)
    return jnp.where(jnp.less_equal(x, -1.0), 0.0, jnp.where(jnp.greater_equal(x, 1.0), x, mid))


def sparse_sigmoid(x):
    """``0.5 * clip(x + 1, 0, 2)``: the derivative of :func:`sparse_plus`."""
    x = _inexact_with("sparse_sigmoid", x, 1.0)
    if jnp.iscomplexobj(x):  # JAX's clip refuses it: complex numbers have no order
        raise ValueError(f"sparse_sigmoid: complex input ({x.dtype}) cannot be clipped; "
                         f"apply it to jnp.real(x)")
    return jnp.multiply(0.5, jnp.minimum(jnp.maximum(jnp.add(x, 1.0), 0.0), 2.0))


def gelu(x, approximate=True):
    """Gaussian error linear unit.

    Args:
      x: input array.
      approximate: True (default) for the tanh formula
        ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))``; False for the exact
        ``x/2 * erfc(-x / sqrt(2))``.
    """
    x = _inexact("gelu", x)
    if approximate:
        c = np.array(np.sqrt(2 / np.pi), x.dtype)
        if dtypes.is_complex(x.dtype):
            inner = jnp.multiply(c, jnp.add(x, jnp.multiply(0.044715, lax.integer_pow(x, 3))))
            return jnp.multiply(x, jnp.multiply(0.5, jnp.add(1.0, jnp.tanh(inner))))
        # From |x| = 30 the factor below is exactly 1 or 0 in every float type (its argument
        # passes +-1900): clipping x inside it keeps x**3 finite, whose overflow made the
        # slope 0 * inf = NaN (float32 grad at 1e13; JAX shares). lax.clamp, not jnp.clip:
        # clamp's slope is one select, minimum(maximum())'s two with their ties (the backward
        # pass took 0.50 ms on 1e6 float32 instead of 0.44)
        xc = lax.clamp(-30.0, x, 30.0)
        inner = jnp.multiply(c, jnp.add(xc, jnp.multiply(0.044715, lax.integer_pow(xc, 3))))
        # (1 + tanh(u)) / 2 == logistic(2u), which keeps its relative accuracy where
        # tanh(u) -> -1: 1 + tanh cancels to 0 below x ~ -5.7 in float32 (JAX's formula
        # gives -0 there for -8.6e-10), and loses ~1e9 ulp near it in float64
        return jnp.multiply(x, lax.logistic(jnp.multiply(2.0, inner)))
    if dtypes.is_complex(x.dtype):
        raise TypeError("gelu(approximate=False) needs a real floating-point input")
    sqrt_half = np.array(np.sqrt(0.5), x.dtype)
    z = jnp.multiply(jnp.negative(x), sqrt_half)
    out = jnp.multiply(jnp.multiply(0.5, x), lax.erfc(z))
    # Below x = -1, erfc(z) magnifies z's rounding by ~x**2 (float32 gelu(-5.736) was 26
    # ulps off; JAX shares): the factor exp(z**2 - x**2/2), its exponent from exact square
    # pairs (the leading parts cancel exactly), undoes it, as in scipy.special.ndtr.
    # (Clipped to [-40, -1], where it is used: erfc(z) is 0 below, and the squares stay
    # finite; a huge x's square pair was NaN, and so was the slope through the where.)
    # The factor also corrects the slope, erfc's exp(-z**2) having the same z; its own
    # derivative is 0 but for rounding, so it is not differentiated (a dozen ops of noise
    # made jit(grad(gelu)) 1.45x slower).
    xl = jnp.clip(x, -40.0, -1.0)
    excess = lax.stop_gradient(_erfc_arg_excess(jnp.negative(xl), sqrt_half))
    return jnp.where(x < -1.0, _times_exp_of_excess(out, excess), out)


def _times_exp_of_excess(v, excess):
    """``v * exp(excess)`` for an :func:`_erfc_arg_excess` of an argument clipped to
    |a| <= 40: for float32 and wider ``v + v * excess``, within excess**2 / 2 of it, below
    an ulp (|excess| <= 40**2 eps), and no exp; a half type's excess is not that small."""
    if v.dtype.itemsize >= 4:
        return jnp.add(v, jnp.multiply(v, excess))
    return jnp.multiply(v, jnp.exp(excess))


def _erfc_arg_excess(a, c):
    """``z**2 - a**2 / 2`` for ``z = a * c`` rounded, ``c`` = sqrt(1/2) rounded to a's
    dtype: tiny (~a**2 eps), from the exact error ``e = a c - z`` of the product (one
    fma; half types: Dekker's TwoProduct, c split at trace time). Then ``z**2 = a**2 c**2
    - e (2 z + e)``, and ``a**2 (c**2 - 1/2)`` is a constant (``delta``, exact) times
    a**2: fewer steps than the exact squares of both z and a (erfc's rounding
    magnification is all in z's rounding)."""
    split, c_hi, c_lo, delta = _product_split_constants(np.dtype(a.dtype))
    z = jnp.multiply(a, c)
    if np.dtype(a.dtype) in FMA_DTYPES:     # (one op for Dekker's ten)
        e = fma(a, c, jnp.negative(z))
    else:
        t = jnp.multiply(a, split)
        a_hi = jnp.subtract(t, jnp.subtract(t, a))
        a_lo = jnp.subtract(a, a_hi)
        e = jnp.add(jnp.add(jnp.add(jnp.subtract(jnp.multiply(a_hi, c_hi), z),
                                    jnp.multiply(a_hi, c_lo)), jnp.multiply(a_lo, c_hi)),
                    jnp.multiply(a_lo, c_lo))
    return jnp.subtract(jnp.multiply(jnp.multiply(a, a), delta),
                        jnp.multiply(e, jnp.add(jnp.add(z, z), e)))


@functools.lru_cache(maxsize=None)
def _product_split_constants(dtype):
    """Dekker's split factor for ``dtype`` and sqrt(1/2) rounded to it, split in halves
    (``c_hi + c_lo``), and ``c**2 - 1/2`` (exact, then rounded)."""
    split = _dekker_split(dtype)
    c = dtype.type(np.sqrt(0.5))
    ct = c * dtype.type(split)
    c_hi = ct - (ct - c)
    delta = fractions.Fraction(float(c)) ** 2 - fractions.Fraction(1, 2)
    return split, float(c_hi), float(c - c_hi), float(delta)


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``x`` along ``axis`` times the sigmoid of
    the second half (the axis size must be even)."""
    x = _inexact("glu", x)
    axis = normalize_axis(axis, x.ndim, "glu")
    n = x.shape[axis]
    if n % 2:
        raise ValueError(f"glu: the size of axis {axis} must be divisible by 2, got {n} "
                         f"(shape {tuple(x.shape)})")
    x1 = lax.slice_in_dim(x, 0, n // 2, axis=axis)
    x2 = lax.slice_in_dim(x, n // 2, n, axis=axis)
    return jnp.multiply(x1, sigmoid(x2))


def log1mexp(x):
    """``log(1 - exp(-x))`` for x > 0, accurate for small and large x (Maechler 2012)."""
    x = _inexact("log1mexp", x)
    small = jnp.less(x, np.log(2.0))
    return jnp.where(small, jnp.log(jnp.negative(jnp.expm1(jnp.negative(x)))),
                     jnp.log1p(jnp.negative(jnp.exp(jnp.negative(x)))))


tanh = jnp.tanh


# -- reductions: softmax family, logsumexp, standardize ----------------------------------------
def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(normalize_axes(tuple(axis), ndim, name)))
    return (normalize_axis(static_index(axis, "axis", name), ndim, name),)


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _reduce(lax_fn, x, axes, keepdims):
    """A reduction with jnp's result type: strong, as JAX's jnp.max/jnp.sum (which the
    JAX versions of these functions call) drop the weak type that lax's keep."""
    out = lax_fn(x, axes)
    if getattr(out, "weak_type", False):
        out = lax.convert_element_type(out, out.dtype, weak_type=False)
    return lax.reshape(out, _kept_shape(x.shape, axes)) if keepdims else out


def _masked(x, where, fill):
    return x if where is None else jnp.where(where, x, fill)


def softmax(x, axis=-1, where=None):
    """Softmax ``exp(x) / sum(exp(x))`` along ``axis`` (int, tuple or None), computed
    after subtracting the maximum so large inputs do not overflow.

    Args:
      x: input array.
      axis: the axis or axes that sum to 1. Default -1.
      where: optional mask of the elements to include; masked-out outputs are 0.

    Returns:
      An array of the shape of ``x``. (An input of +inf gives NaN, as in JAX.)
    """
    x = _inexact("softmax", x)
    return _softmax(x, _axes(axis, x.ndim, "softmax"), where)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x, axes, where):
    x_safe = _masked(x, where, -np.inf)
    x_max = _reduce(lax.reduce_max, x_safe, axes, True)
    unnormalized = jnp.exp(jnp.subtract(x_safe, lax.stop_gradient(x_max)))
    result = jnp.divide(unnormalized, _reduce(lax.reduce_sum, unnormalized, axes, True))
    return result if where is None else jnp.where(where, result, 0)


@_softmax.defjvp
def _softmax_jvp(axes, primals, tangents):
    # JAX's rule: cheaper than differentiating the division, and no exp overflow
    (x, where), x_dot = primals, tangents[0]
    y = _softmax(x, axes, where)
    y_dot = _masked(jnp.multiply(y, x_dot), where, 0)
    return y, jnp.multiply(y, jnp.subtract(x_dot, _reduce(lax.reduce_sum, y_dot, axes, True)))


def log_softmax(x, axis=-1, where=None):
    """``log(softmax(x))`` computed as ``x - max - log(sum(exp(x - max)))``.

    Args:
      x: input array.
      axis: the axis or axes to normalize over. Default -1.
      where: optional mask; masked-out outputs are -inf.
    """
    x = _inexact("log_softmax", x)
    axes = _axes(axis, x.ndim, "log_softmax")
    x_safe = _masked(x, where, -np.inf)
    x_max = _reduce(lax.reduce_max, x_safe, axes, True)
    shifted = jnp.subtract(x_safe, lax.stop_gradient(x_max))
    result = jnp.subtract(shifted, _log_sum_exp_shifted(shifted, axes, True))
    return result if where is None else jnp.where(where, result, -np.inf)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, stable for large |a|
    (``jax.nn.logsumexp`` = ``jax.scipy.special.logsumexp``).

    Args:
      a: input array.
      axis: int, tuple of ints or None (all axes). Default None.
      b: optional scale factors broadcastable to ``a`` (may be negative).
      keepdims: keep the reduced axes as size 1.
      return_sign: if True return ``(log|sum|, sign(sum))``; otherwise a negative sum
        gives NaN.
      where: optional mask of the elements to include.
    """
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(jnp.not_equal(b, 0), a, -np.inf)
    else:
        a = _inexact("logsumexp", a)
    if dtypes.is_complex(a.dtype):
        raise TypeError("logsumexp: complex inputs are not supported; pass real arrays")
    axes = _axes(axis, a.ndim, "logsumexp")
    a_safe = _masked(a, where, -np.inf)
    amax = _reduce(lax.reduce_max, a_safe, axes, True)
    # all -inf (or +inf/NaN) maxima: shift by 0 so the result is -inf/inf/NaN, not NaN
    amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, 0))
    shifted = jnp.subtract(a_safe, amax)
    if b is None:
        sumexp, log_abs = _total_and_log(shifted, axes, keepdims)
    else:
        sumexp, sumexp_m1 = _weighted_sumexp(shifted, b, where, axes, keepdims)
    sign = jnp.sign(sumexp)
    amax = amax if keepdims else lax.reshape(amax, tuple(sumexp.shape))
    if b is not None:  # a sum near 1 keeps its small part: log1p(sum - 1), the difference formed exactly
        near_one = jnp.less(jnp.abs(sumexp_m1), 0.5)
        log_abs = jnp.where(near_one, jnp.log1p(jnp.where(near_one, sumexp_m1, 0)),
                            jnp.log(jnp.abs(sumexp)))
    out = jnp.add(log_abs, amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = jnp.where(jnp.less(sign, 0), np.nan, out)
    return out


def _log_sum_exp_shifted(shifted, axes, keepdims):
    """``log(sum(exp(shifted)))`` where the maxima are shifted to exactly 0 (or the whole
    slice is NaN: log_softmax's shift by an infinite or NaN maximum). The reduced side is
    reshaped once, at the end (an eager reshape costs as much as the sum it follows)."""
    out = _total_and_log(shifted, axes, False, may_lack_maximum=False)[1]
    return lax.reshape(out, _kept_shape(shifted.shape, axes)) if keepdims else out


def _total_and_log(shifted, axes, keepdims, may_lack_maximum=True):
    """``(total, log(total))`` for ``total = sum(exp(shifted))``, the log keeping the rest
    after the maxima (each maximum is shifted to exactly 0 and adds exactly 1) where it
    matters. Below 2 there is one maximum (ties add 2 and more), and ``log1p(rest)`` keeps
    the rest that ``total`` rounded away: float32 log_softmax([-20.93, 0])[1] was 0 (true
    -8.2e-10: 1 + 8e-10 rounds to 1; JAX and SciPy share). From 2 up ``log(total) >= log
    2``, and rounding ``total`` costs under an ulp.

    An eager call knows which branch its totals take and computes that one only (the
    rest not at all where every total is 2 or more, the common case); traced, both are
    computed and selected, to the same values, and a jit fuses the sibling sums into one
    pass. The unused log1p sees ``rest >= 0``, so its slope stays finite.

    ``may_lack_maximum``: a slice with no finite maximum (logsumexp of all -inf: total 0,
    rest 0) has m = ``floor(total)`` = 0 maxima, and ``log1p(rest + (m - 1))`` gives its
    -inf; one maximum makes that ``log1p(rest)`` again, as ``1 <= total < 2``."""
    unnormalized = jnp.exp(shifted)
    total = _reduce(lax.reduce_sum, unnormalized, axes, keepdims)
    branch = _eager_branch(total)
    if branch == "log":
        return total, jnp.log(total)
    rest = _reduce(lax.reduce_sum, _after_the_maxima(shifted, unnormalized), axes, keepdims)
    if branch == "log1p":
        return total, jnp.log1p(rest)
    if may_lack_maximum:
        rest = jnp.add(rest, jnp.subtract(jnp.floor(total), 1))
    return total, lax.select(jnp.less(total, 2), jnp.log1p(rest), jnp.log(total))


def _after_the_maxima(shifted, unnormalized):
    """``exp(shifted)`` less 1 at the maxima (exactly 0 there). Traced, ``exp - mask``:
    exp's derivatives of every order at the maxima (log_softmax's second derivatives),
    and a jit fuses it. Eager values need no derivatives: the select of ``shifted``
    (0 at the maxima) gives the same values with one full-size temporary instead of two
    (a float mask and the difference; with a count of the maxima, fresh allocations took
    1e6 float32 from 0.9 to 8 ms)."""
    at_maxima = jnp.equal(shifted, 0)
    if isinstance(shifted, Tracer):
        return jnp.subtract(unnormalized, at_maxima.astype(shifted.dtype))
    return lax.select(at_maxima, shifted, unnormalized)


def _eager_branch(total):
    """The branch of :func:`_total_and_log` that every one of an eager call's totals
    takes: "log" (all 2 or more, or NaN), "log1p" (all in [1, 2): one finite maximum
    each), or None (traced, or mixed)."""
    if isinstance(total, Tracer):
        return None
    values = np.asarray(total)
    if not values.size:
        return "log"
    # (reductions, not masks: NaN is skipped by fmin and spreads through maximum/minimum)
    if not np.fmin.reduce(values, axis=None) < 2:
        return "log"      # none below 2 (NaN counts as "log": its log is NaN)
    if np.maximum.reduce(values, axis=None) < 2 and np.minimum.reduce(values, axis=None) >= 1:
        return "log1p"    # all in [1, 2), no NaN
    return None


def _weighted_sumexp(shifted, b, where, axes, keepdims):
    """``sum(b * exp(shifted))`` (``shifted <= 0``) and that sum minus 1, without losing
    the cancellation.

    Weights of both signs cancel: ``exp(1e-12) - 1`` in float32 is ``1 - 1`` = 0, as
    ``exp`` rounds the information away before the sum. Written as
    ``sum(b) + sum(b * expm1(shifted))``, the leading parts cancel exactly in ``sum(b)``
    and the small differences survive in ``expm1``. That form's rounding error is
    ``eps * sum|b expm1|`` against ``eps * sum|b exp|`` for the plain one, so it is used
    where it is smaller (shifts mostly above -log 2); the plain sum elsewhere.
    """
    exp_part = _masked(jnp.multiply(jnp.exp(shifted), b), where, 0)
    em1_part = _masked(jnp.multiply(jnp.expm1(shifted), b), where, 0)
    b_part = _masked(jnp.broadcast_to(b, shifted.shape), where, 0)
    plain = _reduce(lax.reduce_sum, exp_part, axes, keepdims)
    b_sum = _reduce(lax.reduce_sum, b_part, axes, keepdims)
    em1_sum = _reduce(lax.reduce_sum, em1_part, axes, keepdims)
    err_plain = _reduce(lax.reduce_sum, jnp.abs(exp_part), axes, keepdims)
    err_split = _reduce(lax.reduce_sum, jnp.abs(em1_part), axes, keepdims)
    use_split = jnp.less(err_split, err_plain)
    total = jnp.where(use_split, jnp.add(b_sum, em1_sum), plain)
    total_m1 = jnp.where(use_split, jnp.add(jnp.subtract(b_sum, 1), em1_sum),
                         jnp.subtract(plain, 1))
    return total, total_m1


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``logsumexp(x) - log(n)``: the log of the mean of ``exp(x)``."""
    x = _inexact("logmeanexp", x)
    axes = _axes(axis, x.ndim, "logmeanexp")
    lse = logsumexp(x, axis=axes, keepdims=keepdims, where=where)
    return jnp.subtract(lse, jnp.log(_count(x, axes, where, keepdims)))


def _count(x, axes, where, keepdims):
    """Number of (unmasked) elements reduced, as an array of ``x``'s dtype."""
    if where is None:
        n = 1
        for i in axes:
            n *= x.shape[i]
        return lax.convert_element_type(n, x.dtype) if isinstance(n, int) else \
            _reduce(lax.reduce_sum, jnp.ones_like(x), axes, keepdims)
    mask = lax.convert_element_type(jnp.broadcast_to(where, x.shape), x.dtype)
    return _reduce(lax.reduce_sum, mask, axes, keepdims)


def _mean(x, axes, where):
    total = _reduce(lax.reduce_sum, _masked(x, where, 0), axes, True)
    return jnp.divide(total, _count(x, axes, where, True))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="stable"):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``.

    Args:
      x: input array.
      axis: int, tuple of ints or None. Default -1.
      mean, variance: optional precomputed statistics (broadcastable to ``x``).
      epsilon: added to the variance. Default 1e-5.
      where: optional mask of the elements used for the statistics.
      algorithm: "stable" (default: two-pass ``mean((x - mean)**2)``, accurate when
        |mean| >> std) or "fast" (``mean(x**2) - mean**2`` clipped at 0; JAX's default).
        Both are the same function up to rounding.
    """
    x = _inexact("standardize", x)
    axes = _axes(axis, x.ndim, "standardize")
    if mean is None:
        mean = _mean(x, axes, where)
    if variance is None:
        if algorithm == "stable":
            variance = _mean(jnp.square(jnp.subtract(x, mean)), axes, where)
        elif algorithm == "fast":
            variance = jnp.maximum(
                jnp.subtract(_mean(jnp.square(x), axes, where), jnp.square(mean)), 0)
        else:
            raise ValueError(f"standardize: unknown algorithm {algorithm!r}; expected "
                             f"'stable' or 'fast'")
    return jnp.multiply(jnp.subtract(x, mean), lax.rsqrt(jnp.add(variance, epsilon)))


normalize = standardize


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """One-hot encoding: a new axis of size ``num_classes`` with 1 at index ``x``
    (indices outside ``[0, num_classes)`` give all zeros).

    Args:
      x: integer indices.
      num_classes: number of classes (a static int).
      dtype: result dtype (default float32, float64 with x64).
      axis: position of the new axis in the result. Default -1.
    """
    x = _array("one_hot", x)
    num_classes = static_index(num_classes, "num_classes", "one_hot")
    dtype = dtypes.default_float() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "one_hot")
    pos = normalize_axis(axis, x.ndim + 1, "one_hot")
    lhs = lax.expand_dims(x, (pos,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(pos, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), pos)
    return jnp.astype(jnp.equal(lhs, rhs), dtype)


__all__ = ["identity", "relu", "relu6", "sigmoid", "softplus", "log_sigmoid", "silu", "swish",
           "mish", "soft_sign", "squareplus", "elu", "selu", "celu", "leaky_relu",
           "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish", "sparse_plus",
           "sparse_sigmoid", "gelu", "glu", "log1mexp", "tanh", "softmax", "log_softmax",
           "logsumexp", "logmeanexp", "standardize", "normalize", "one_hot"]
