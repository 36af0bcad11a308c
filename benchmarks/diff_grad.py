"""Differential hunt: derivatives of the differentiable public API, one function at a time.

Each case is one public function (tjit.numpy, numpy.linalg/fft, scipy.special, nn, lax) written
once against a "kit" (tjit or jax), with argument generators (seeded random points plus
points on kinks, ties and boundaries). At every point the function's differentiable
arguments are flattened into one vector v and

- jacfwd and jacrev are compared with each other and with central finite differences
  (two step sizes; a column whose two differences disagree sits on a kink and is left to
  the JAX comparison),
- grad (with argnums over the original arguments), jvp and vjp are compared with the
  Jacobian contracted by random tangents / cotangents,
- at the first point: hessian against differences of the gradient, jit(jacrev) against
  eager, and float32 jacrev against the float64 Jacobian with a loose tolerance,
- jax.jacrev on the same point is the arbiter where finite differences cannot be (kinks,
  ties, bounds: JAX's convention is followed there) and a second opinion elsewhere.

Separate sections compare with JAX the handling of integer/bool inputs (errors, float0
tangents) and of complex inputs (grad of real-valued functions of complex arguments,
holomorphic grads, jvp/vjp conventions).

Run with the JAX virtualenv (which imports both libraries):

    /work/jaxvenv/bin/python benchmarks/diff_grad.py --reps 3 --seed 0
    /work/jaxvenv/bin/python benchmarks/diff_grad.py --only sort,median -v
    /work/jaxvenv/bin/python benchmarks/diff_grad.py --third --skip cases,int,complex
"""

import argparse
import faulthandler
import os
import signal
import sys
import time
import traceback

import numpy as np

os.environ["JAX_ENABLE_X64"] = "1"
os.environ["TJIT_ENABLE_X64"] = "1"

import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402
import jax.scipy.special  # noqa: E402,F401
import jax.scipy.linalg  # noqa: E402,F401
import jax.nn  # noqa: E402,F401

import tjit  # noqa: E402
import tjit.numpy as tjnp  # noqa: E402
import tjit.scipy.special  # noqa: E402,F401
import tjit.scipy.linalg  # noqa: E402,F401
import tjit.nn  # noqa: E402,F401

jax.config.update("jax_enable_x64", True)
tjit.config.update("jax_enable_x64", True)


class Kit:
    """One library's public namespaces under short names, so a case is written once."""

    def __init__(self, lib, np_mod):
        self.lib, self.np, self.lax, self.nn = lib, np_mod, lib.lax, lib.nn
        self.sp, self.la, self.fft = lib.scipy.special, np_mod.linalg, np_mod.fft
        self.sla = lib.scipy.linalg


TJ, JX = Kit(tjit, tjnp), Kit(jax, jjnp)


# -- argument generators -----------------------------------------------------------------------
class A:
    """One argument: kind, shape; diff=False for integer/static arguments."""

    def __init__(self, kind, shape=(), diff=True, lo=0, hi=3, value=None):
        self.kind, self.shape, self.diff = kind, tuple(shape), diff
        self.lo, self.hi, self.value = lo, hi, value

    def draw(self, rng):
        k, s = self.kind, self.shape
        if k == "const":
            return self.value
        if k == "int":
            return rng.integers(self.lo, self.hi, s)
        if k == "n":
            return rng.standard_normal(s)
        if k == "pos":
            return rng.uniform(0.3, 3.0, s)
        if k == "unit":
            return rng.uniform(0.05, 0.95, s)
        if k == "sym1":
            return rng.uniform(-0.9, 0.9, s)
        if k == "big":
            return rng.uniform(1.2, 4.0, s) * rng.choice([-1.0, 1.0], s)
        if k == "mat":  # well conditioned square
            n = s[-1]
            return rng.standard_normal(s) + 2.0 * np.eye(n)
        if k == "spd":
            n = s[-1]
            m = rng.standard_normal(s)
            return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
        if k == "sym":  # symmetric with separated eigenvalues
            n = s[-1]
            q, _ = np.linalg.qr(rng.standard_normal((n, n)))
            return (q * (np.arange(n) * 1.5 + rng.uniform(-0.2, 0.2, n))) @ q.T
        if k == "ties":  # values with repeats (ties for sort/max/median)
            return rng.choice([-1.0, 0.0, 0.5, 2.0], s)
        raise ValueError(k)


class Case:
    def __init__(self, name, fn, args, edges=(), rtol=1e-6, fd_rel=1e-5, hess=True,
                 f32=True, jit=True, fd=True, loose=1.0, no_grid=False):
        self.no_grid = no_grid
        self.loose = loose  # tolerance factor: functions that round through float32 inside
        self.name, self.fn, self.args, self.edges = name, fn, args, list(edges)
        self.rtol, self.fd_rel, self.hess, self.f32, self.jit = rtol, fd_rel, hess, f32, jit
        self.fd = fd


CASES = []


def case(name, fn, *args, **kw):
    CASES.append(Case(name, fn, list(args), **kw))


def n(*s):
    return A("n", s)


def pos(*s):
    return A("pos", s)


def c(value):
    return A("const", diff=False, value=value)


def ints(lo, hi, *s):
    return A("int", s, diff=False, lo=lo, hi=hi)


def cplx_out(K, y):
    """Complex outputs as real pairs (FD and jac of real functions)."""
    return K.np.stack([K.np.real(y), K.np.imag(y)])


# -- elementwise unary -------------------------------------------------------------------------
UNARY = {  # name: (kind, edge points)
    "sin": "n", "cos": "n", "tan": "sym1", "arcsin": "sym1", "arccos": "sym1", "arctan": "n",
    "sinh": "n", "cosh": "n", "tanh": "n", "arcsinh": "n", "arccosh": "big", "arctanh": "sym1",
    "exp": "n", "exp2": "n", "expm1": "n", "log": "pos", "log2": "pos", "log10": "pos",
    "log1p": "pos", "sqrt": "pos", "cbrt": "n", "square": "n", "reciprocal": "big",
    "abs": "n", "absolute": "n", "fabs": "n", "negative": "n", "positive": "n", "sign": "n",
    "rint": "n", "floor": "n", "ceil": "n", "trunc": "n", "fix": "n", "round": "n",
    "sinc": "n", "i0": "n", "deg2rad": "n", "rad2deg": "n", "degrees": "n", "radians": "n",
    "real": "n", "imag": "n", "conj": "n", "conjugate": "n", "angle": "n", "nan_to_num": "n",
    "signbit": None, "isfinite": None,
}
KINK_POINTS = np.array([0.0, 1.0, -1.0, 0.5, -0.5, 2.0])
for _name, _kind in UNARY.items():
    if _kind is None:
        continue
    _edges = [(KINK_POINTS,)] if _kind == "n" else []
    case(_name, lambda K, x, _f=_name: getattr(K.np, _f)(x), A(_kind, (5,)), edges=_edges)
case("sqrt@0", lambda K, x: K.np.sqrt(x), pos(3), edges=[(np.array([0.0, 1.0, 4.0]),)])
case("cbrt@0", lambda K, x: K.np.cbrt(x), n(3), edges=[(np.array([0.0, 1.0, -8.0]),)])
case("sinc@0", lambda K, x: K.np.sinc(x), n(3), edges=[(np.array([0.0, 1e-9, -1.0]),)])
case("i0@0", lambda K, x: K.np.i0(x), n(3), edges=[(np.array([0.0, 1e-9, -3.0]),)])
case("log1p@tiny", lambda K, x: K.np.log1p(x), n(3), edges=[(np.array([0.0, 1e-9, -0.5]),)])
case("arcsin_near1", lambda K, x: K.np.arcsin(x), A("sym1", (3,)),
     edges=[(np.array([0.999, -0.999, 0.0]),)])

# -- elementwise binary ------------------------------------------------------------------------
BINARY = {
    "add": ("n", "n"), "subtract": ("n", "n"), "multiply": ("n", "n"), "divide": ("n", "big"),
    "true_divide": ("n", "big"), "power": ("pos", "n"), "float_power": ("pos", "n"),
    "arctan2": ("n", "n"), "hypot": ("n", "n"), "logaddexp": ("n", "n"),
    "logaddexp2": ("n", "n"), "copysign": ("n", "n"), "fmod": ("n", "big"),
    "remainder": ("n", "big"), "mod": ("n", "big"), "maximum": ("n", "n"),
    "minimum": ("n", "n"), "fmax": ("n", "n"), "fmin": ("n", "n"),
    "heaviside": ("n", "n"), "nextafter": ("n", "n"), "floor_divide": ("n", "big"),
}
PAIR_EDGES = (np.array([0.0, 1.0, -1.0, 2.0, 0.0, 3.0]), np.array([0.0, 1.0, 1.0, 2.0, 2.0, -3.0]))
for _name, (_k1, _k2) in BINARY.items():
    _edges = [PAIR_EDGES] if (_k1, _k2) == ("n", "n") else []
    case(_name, lambda K, x, y, _f=_name: getattr(K.np, _f)(x, y), A(_k1, (4,)), A(_k2, (4,)),
         edges=_edges)
case("power_int_exp", lambda K, x: K.np.power(x, 3), n(4), edges=[(np.array([0.0, -1.0, 2.0]),)])
case("power_neg_base_int_y", lambda K, x, y: K.np.power(x, y), n(3), c(np.array([2.0, 3.0, 4.0])),
     edges=[(np.array([-1.5, 0.0, -2.0]), )])
case("power@0^y", lambda K, x, y: K.np.power(x, y), pos(3), pos(3),
     edges=[(np.array([0.0, 0.0, 1.0]), np.array([2.0, 1.0, 0.0]))])
case("power_0^0_dx", lambda K, y: K.np.power(0.0, y), pos(3),
     edges=[(np.array([1.0, 2.0, 3.0]),)])
case("float_power@0", lambda K, x, y: K.np.float_power(x, y), pos(3), pos(3),
     edges=[(np.array([0.0, 0.0, 1.0]), np.array([2.0, 3.0, 0.0]))])
case("ldexp", lambda K, x, e: K.np.ldexp(x, e), n(4), ints(-3, 4, 4))
case("hypot@0", lambda K, x, y: K.np.hypot(x, y), n(3), n(3),
     edges=[(np.array([0.0, 3.0, 0.0]), np.array([0.0, 4.0, 2.0]))])
case("arctan2@0", lambda K, x, y: K.np.arctan2(x, y), n(3), n(3),
     edges=[(np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, -1.0]))])
case("logaddexp_inf", lambda K, x, y: K.np.logaddexp(x, y), n(3), n(3),
     edges=[(np.array([-1e308, 1.0, 0.0]), np.array([1.0, -1e308, 0.0]))])
case("where_nan_trap", lambda K, x: K.np.where(x > 0, K.np.sqrt(K.np.where(x > 0, x, 1.0)), 0.0),
     n(4), edges=[(np.array([0.0, -1.0, 4.0, 1.0]),)])
case("where_unsafe", lambda K, x: K.np.where(x > 0, K.np.log(K.np.abs(x) + 1), x), n(4),
     edges=[(np.array([0.0, -1.0, 4.0, 1.0]),)])
case("where_two", lambda K, x, y: K.np.where(x > y, x * y, x - y), n(4), n(4))
case("clip", lambda K, x: K.np.clip(x, -0.5, 0.5), n(5),
     edges=[(np.array([-0.5, 0.5, 0.0, 1.0, -1.0]),)])
case("clip_arr_bounds", lambda K, x, lo, hi: K.np.clip(x, lo, hi), n(4), A("n", (4,)) , pos(4),
     edges=[(np.array([0.0, 1.0, -1.0, 2.0]), np.array([0.0, 0.0, -1.0, 3.0]),
             np.array([1.0, 1.0, 1.0, 2.0]))])
case("relu", lambda K, x: K.nn.relu(x), n(4), edges=[(np.array([0.0, -1.0, 1.0, 0.0]),)])
case("relu6", lambda K, x: K.nn.relu6(x), A("n", (4,)), edges=[(np.array([0.0, 6.0, 3.0, -1.0]),)])
case("abs@0", lambda K, x: K.np.abs(x), n(3), edges=[(np.array([0.0, -0.0, 1.0]),)])
case("max_ties", lambda K, x: K.np.max(x), A("ties", (5,)),
     edges=[(np.array([1.0, 1.0, 0.0, 1.0, -2.0]),)])
case("min_ties_axis", lambda K, x: K.np.min(x, axis=0), A("ties", (3, 2)),
     edges=[(np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 2.0]]),)])
case("amax_keepdims", lambda K, x: K.np.amax(x, axis=1, keepdims=True), n(3, 4))
case("maximum_ties", lambda K, x, y: K.np.maximum(x, y), n(3), n(3),
     edges=[(np.array([1.0, 0.0, 2.0]), np.array([1.0, 0.0, 2.0]))])
case("max_where", lambda K, x: K.np.max(x, where=np.array([True, False, True, True]), initial=-5.0),
     n(4))
case("ptp", lambda K, x: K.np.ptp(x, axis=0), n(3, 2))
case("argmax_take", lambda K, x: x[K.np.argmax(x)] * x, A("ties", (4,)))
case("sort", lambda K, x: K.np.sort(x), n(5), edges=[(np.array([1.0, 0.0, 1.0, -1.0, 0.0]),)])
case("sort_axis0", lambda K, x: K.np.sort(x, axis=0), n(3, 3))
case("sort_desc_stable", lambda K, x: K.np.sort(x, stable=True, descending=True), n(4))
case("argsort_take", lambda K, x: K.np.take(x, K.np.argsort(x)) ** 2, n(5))
case("median_odd", lambda K, x: K.np.median(x), n(5),
     edges=[(np.array([1.0, 1.0, 1.0, 0.0, 2.0]),)])
case("median_even_axis", lambda K, x: K.np.median(x, axis=1), n(2, 4))
case("nanmedian", lambda K, x: K.np.nanmedian(x), n(5))
for _m in ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]:
    case("quantile_" + _m, lambda K, x, _m=_m: K.np.quantile(x, np.array([0.1, 0.35, 0.9]),
                                                             method=_m), n(7))
case("quantile_q", lambda K, x, q: K.np.quantile(x, q), c(np.array([1.0, 3.0, 2.0, 5.0])),
     A("unit", (3,)))
case("percentile_axis", lambda K, x: K.np.percentile(x, 30.0, axis=0, keepdims=True), n(5, 2))
case("nanpercentile", lambda K, x: K.np.nanpercentile(x, 40.0), n(6))
case("partition", lambda K, x: K.np.partition(x, 2), n(5))
case("topk", lambda K, x: K.lax.top_k(x, 2)[0], n(5))
case("lexsort_take", lambda K, x: x[K.np.lexsort((x,))], n(4))

# -- reductions -----------------------------------------------------------------------------
W34 = np.array([[True, False, True, True], [True, True, False, True], [False, True, True, True]])
for _r in ["sum", "prod", "mean", "var", "std", "max", "min", "nansum", "nanprod", "nanmean",
           "nanvar", "nanstd", "nanmax", "nanmin", "average"]:
    case(_r, lambda K, x, _r=_r: getattr(K.np, _r)(x), n(3, 4))
    case(_r + "_axis1_keep", lambda K, x, _r=_r: getattr(K.np, _r)(x, axis=1, **(
        {} if _r == "average" else {"keepdims": True})), n(3, 4))
for _r in ["sum", "prod", "mean", "var", "std"]:
    case(_r + "_where", lambda K, x, _r=_r: getattr(K.np, _r)(x, axis=1, where=W34), n(3, 4))
case("prod_zero", lambda K, x: K.np.prod(x, axis=0), n(3, 2),
     edges=[(np.array([[0.0, 0.0], [2.0, 0.0], [3.0, 1.0]]),)])
case("var_ddof", lambda K, x: K.np.var(x, axis=0, ddof=1), n(4, 2))
case("average_w", lambda K, x, w: K.np.average(x, axis=0, weights=w), n(3, 2), pos(3))
case("logsumexp_b", lambda K, x, b: K.sp.logsumexp(x, b=b), n(4), pos(4))
case("logsumexp_axis", lambda K, x: K.sp.logsumexp(x, axis=1, keepdims=True), n(2, 3))
case("logsumexp_-inf", lambda K, x: K.sp.logsumexp(x), n(3),
     edges=[(np.array([-np.inf, 0.0, 1.0]),)])
case("linalg_norm_vec2", lambda K, x: K.la.norm(x), n(4), edges=[(np.zeros(4),)])
for _o in [1, 2, np.inf, -np.inf, 3, 0.5, -1]:
    case("vector_norm_ord%s" % _o, lambda K, x, _o=_o: K.la.norm(x, ord=_o), n(4))
for _o in ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
    case("matrix_norm_%s" % _o, lambda K, x, _o=_o: K.la.norm(x, ord=_o), n(3, 3))

# -- cumulative -------------------------------------------------------------------------------
for _cum in ["cumsum", "cumprod", "nancumsum", "nancumprod"]:
    case(_cum, lambda K, x, _f=_cum: getattr(K.np, _f)(x, axis=1), n(2, 4))
case("cumprod_zero", lambda K, x: K.np.cumprod(x), n(4), edges=[(np.array([1.5, 0.0, 2.0, 0.0]),)])
case("cumulative_sum_initial", lambda K, x: K.np.cumulative_sum(x, include_initial=True), n(4))
case("cumulative_prod", lambda K, x: K.np.cumulative_prod(x), n(4))
case("lax.cummax", lambda K, x: K.lax.cummax(x, axis=0), n(5),
     edges=[(np.array([1.0, 1.0, 0.0, 2.0, 2.0]),)])
case("lax.cummin_rev", lambda K, x: K.lax.cummin(x, axis=0, reverse=True), n(5))
case("lax.cumlogsumexp", lambda K, x: K.lax.cumlogsumexp(x, axis=0), n(5))
case("lax.cumsum_rev", lambda K, x: K.lax.cumsum(x, axis=1, reverse=True), n(2, 3))
case("lax.cumprod", lambda K, x: K.lax.cumprod(x, axis=0), n(4))
case("diff", lambda K, x: K.np.diff(x, n=2, axis=0), n(5, 2))
case("diff_prepend", lambda K, x, p: K.np.diff(x, prepend=p), n(4), n(1))
case("ediff1d", lambda K, x: K.np.ediff1d(x, to_begin=np.array([1.0])), n(4))
case("gradient", lambda K, x: K.np.stack(K.np.gradient(x)), n(4, 3))
case("trapezoid", lambda K, x, y: K.np.trapezoid(y, x), n(5), n(5))

# -- shape and indexing -----------------------------------------------------------------------
IDX = np.array([0, 2, 2, 1, 0])
case("take", lambda K, x: K.np.take(x, IDX), n(4))
case("take_clip", lambda K, x: K.np.take(x, np.array([0, 5, -7]), mode="clip"), n(4))
case("take_wrap", lambda K, x: K.np.take(x, np.array([0, 5, -7]), mode="wrap"), n(4))
case("take_fill", lambda K, x: K.np.take(x, np.array([0, 5, -7]), mode="fill", fill_value=2.0),
     n(4))
case("take_along_axis", lambda K, x: K.np.take_along_axis(
    x, np.array([[0, 0], [2, 1], [1, 1]]), axis=0), n(3, 2))
case("fancy_index", lambda K, x: x[np.array([1, 1, 0]), :][:, np.array([2, 0])], n(3, 3))
case("bool_mask", lambda K, x: x[np.array([True, False, True, True])], n(4))
case("slice_neg_step", lambda K, x: x[::-2, 1:], n(5, 3))
for _op in ["set", "add", "multiply", "min", "max", "divide", "power"]:
    def _at(K, x, v, _op=_op):
        ref = x.at[np.array([0, 2, 2, 0])]
        return getattr(ref, _op)(v)
    _kind = "pos" if _op in ("power", "divide") else "n"
    case("at_" + _op + "_dup", _at, A(_kind, (4,)), A(_kind, (4,)),
         edges=[] if _kind == "pos" else [(np.array([1.0, 0.0, 1.0, 2.0]),
                                            np.array([1.0, -1.0, 1.0, 1.0]))])
case("at_get_fill", lambda K, x: x.at[np.array([0, 7])].get(mode="fill", fill_value=0.0), n(4))
case("at_set_unique", lambda K, x, v: x.at[1:3].set(v), n(4), n(2))
case("at_set_scalar_dup", lambda K, x, v: x.at[np.array([1, 1])].set(v), n(3), n())
case("at_mul_zero", lambda K, x, v: x.at[np.array([1, 1])].multiply(v), n(3), n(2),
     edges=[(np.array([1.0, 0.0, 2.0]), np.array([0.0, 3.0]))])
case("where", lambda K, c_, x, y: K.np.where(c_ > 0, x, y), c(np.array([1, -1, 1, 0])), n(4), n(4))
case("select", lambda K, x, y: K.np.select([x > 0, y > 0], [x * y, y], default=x), n(4), n(4))
case("piecewise", lambda K, x: K.np.piecewise(x, [x < 0, x >= 0], [lambda t: -t ** 3,
                                                                    lambda t: t ** 2]), n(4))
for _m in ["constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum",
           "minimum", "mean", "median"]:
    case("pad_" + _m, lambda K, x, _m=_m: K.np.pad(x, ((1, 2), (2, 1)), mode=_m), n(3, 3))
case("pad_reflect_odd", lambda K, x: K.np.pad(x, 3, mode="reflect", reflect_type="odd"), n(3))
case("pad_const_val", lambda K, x: K.np.pad(x, 2, constant_values=1.5), n(3))
case("roll", lambda K, x: K.np.roll(x, 2, axis=1), n(2, 4))
case("roll_flat", lambda K, x: K.np.roll(x, -3), n(2, 3))
case("rot90", lambda K, x: K.np.rot90(x, 3), n(2, 3))
case("flip", lambda K, x: K.np.flip(x), n(2, 3))
case("tile_repeat", lambda K, x: K.np.repeat(K.np.tile(x, (2, 1)), 2, axis=1), n(2, 2))
case("repeat_arr", lambda K, x: K.np.repeat(x, np.array([1, 0, 3]), total_repeat_length=4), n(3))
case("concat_stack", lambda K, x, y: K.np.concatenate([K.np.stack([x, y]), x[None]]), n(3), n(3))
case("split", lambda K, x: K.np.split(x, [1, 3])[1] * K.np.array_split(x, 2)[0][0], n(5))
case("transpose_reshape", lambda K, x: K.np.transpose(x.reshape(2, 3, 2), (2, 0, 1)), n(12))
case("tril_triu", lambda K, x: K.np.tril(x, -1) + 2 * K.np.triu(x, 1), n(3, 3))
case("diag_diagonal", lambda K, x: K.np.diag(K.np.diagonal(x, 1)) + K.np.trace(x), n(3, 3))
case("interp", lambda K, x, xp, fp: K.np.interp(x, xp, fp), A("unit", (4,)),
     c(np.array([0.0, 0.3, 0.6, 1.0])), n(4))
case("interp_x_at_knots", lambda K, x, fp: K.np.interp(x, np.array([0.0, 0.5, 1.0]), fp),
     A("unit", (3,)), n(3), edges=[(np.array([0.0, 0.5, 1.0]), np.array([1.0, 3.0, 2.0]))])
case("interp_left_right", lambda K, x, fp: K.np.interp(x, np.array([0.0, 1.0]), fp, left=-1.0,
                                                       right=fp[0]), A("n", (4,)), n(2))
case("interp_period", lambda K, x, fp: K.np.interp(x, np.array([0.0, 1.0, 2.0]), fp, period=3.0),
     n(3), n(3))
case("interp_wrt_xp", lambda K, xp: K.np.interp(np.array([0.3, 1.7]),
                                                K.np.cumsum(xp), np.array([1.0, 4.0, -2.0])),
     pos(3))
for _m in ["full", "same", "valid"]:
    case("convolve_" + _m, lambda K, x, y, _m=_m: K.np.convolve(x, y, mode=_m), n(5), n(3))
    case("correlate_" + _m, lambda K, x, y, _m=_m: K.np.correlate(x, y, mode=_m), n(5), n(3))
case("einsum_mm", lambda K, x, y: K.np.einsum("ij,jk->ik", x, y), n(2, 3), n(3, 2))
case("einsum_trace_outer", lambda K, x, y: K.np.einsum("ii,j->j", x, y), n(3, 3), n(2))
case("einsum_batch", lambda K, x, y: K.np.einsum("bij,bjk->bik", x, y), n(2, 2, 3), n(2, 3, 1))
case("einsum_3", lambda K, x, y, z: K.np.einsum("i,ij,j", x, y, z), n(2), n(2, 3), n(3))
case("dot_vdot_inner", lambda K, x, y: K.np.stack([K.np.dot(x, y), K.np.vdot(x, y),
                                                    K.np.inner(x, y)]), n(3), n(3))
case("matmul_outer_kron", lambda K, x, y: K.np.kron(K.np.outer(x, y), x @ K.np.outer(x, y)),
     n(2), n(2))
case("tensordot", lambda K, x, y: K.np.tensordot(x, y, axes=([0, 2], [1, 0])), n(2, 3, 2),
     n(2, 2, 2))
case("cross", lambda K, x, y: K.np.cross(x, y), n(2, 3), n(2, 3))
case("polyval", lambda K, p, x: K.np.polyval(p, x), n(4), n(3))
case("polyfit", lambda K, y: K.np.polyfit(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), y, 2), n(5))
case("polymul_polyder", lambda K, p, q: K.np.polyder(K.np.polymul(p, q), 1), n(3), n(2))
case("vander", lambda K, x: K.np.vander(x, 4), n(3))
case("histogram_w", lambda K, w: K.np.histogram(np.array([0.1, 0.5, 0.5, 0.9]), bins=3,
                                                range=(0.0, 1.0), weights=w)[0], n(4))
case("bincount_w", lambda K, w: K.np.bincount(np.array([0, 2, 2, 1]), weights=w, length=4), n(4))
case("unique_sized_counts", lambda K, x: K.np.unique(K.np.round(x), size=4, fill_value=0.0), n(5))
case("searchsorted_interp", lambda K, x: x * K.np.searchsorted(np.array([-1.0, 0.0, 1.0]), x), n(4))
case("cov", lambda K, x: K.np.cov(x), n(2, 5))
case("corrcoef", lambda K, x: K.np.corrcoef(x), n(3, 5))
case("meshgrid", lambda K, x, y: K.np.stack(K.np.meshgrid(x, y)), n(2), n(3))
case("linspace_ep", lambda K, a, b: K.np.linspace(a, b, 5), n(), n())
case("logspace", lambda K, a, b: K.np.logspace(a, b, 4), A("sym1", ()), A("sym1", ()))
case("geomspace", lambda K, a, b: K.np.geomspace(a, b, 4), pos(), pos())
case("kaiser_window", lambda K, b: K.np.kaiser(5, b), pos())

# -- linalg -----------------------------------------------------------------------------------
M3, S3, P3 = A("mat", (3, 3)), A("sym", (3, 3)), A("spd", (3, 3))
case("det", lambda K, x: K.la.det(x), M3)
case("det_singular", lambda K, x: K.la.det(x), M3,
     edges=[(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]),),
            (np.zeros((3, 3)),)])
case("det_batch", lambda K, x: K.la.det(x), A("mat", (2, 2, 2)))
case("slogdet", lambda K, x: K.la.slogdet(x)[1] * K.la.slogdet(x)[0], M3)
case("inv", lambda K, x: K.la.inv(x), M3)
case("solve", lambda K, a, b: K.la.solve(a, b), M3, n(3, 2))
case("solve_vec", lambda K, a, b: K.la.solve(a, b), M3, n(3))
case("solve_batch_b", lambda K, a, b: K.la.solve(a, b), A("mat", (2, 2, 2)), n(2, 2, 1))
case("pinv", lambda K, x: K.la.pinv(x), n(3, 2))
case("pinv_sq", lambda K, x: K.la.pinv(x), M3)
case("lstsq", lambda K, a, b: K.la.lstsq(a, b)[0], n(4, 2), n(4))
case("eigh_w", lambda K, x: K.la.eigh(x)[0], S3)
case("eigh_v_abs", lambda K, x: K.np.abs(K.la.eigh(x)[1]), S3)
case("eigh_vecs_proj", lambda K, x: (lambda v: v @ v.T * 0 + v[:, :1] @ v[:, :1].T)(
    K.la.eigh(x)[1]), S3)
case("eigvalsh", lambda K, x: K.la.eigvalsh(x), S3)
case("eigh_UPLO_U", lambda K, x: K.la.eigvalsh(x, UPLO="U"), n(3, 3))
case("eigh_nonsym_input", lambda K, x: K.la.eigvalsh(x), n(3, 3))
case("svd_s", lambda K, x: K.la.svd(x, compute_uv=False), n(3, 2))
case("svdvals_sq", lambda K, x: K.la.svd(x, compute_uv=False), M3)
case("svd_proj", lambda K, x: (lambda usv: usv[0][:, :1] * usv[2][:1, :])(
    K.la.svd(x, full_matrices=False)), n(3, 2))
case("svd_recon", lambda K, x: (lambda usv: (usv[0] * usv[1]) @ usv[2])(
    K.la.svd(x, full_matrices=False)), n(2, 3))
case("qr_r_abs", lambda K, x: K.np.abs(K.la.qr(x)[1]), n(3, 3))
case("qr_reduced", lambda K, x: (lambda qr: qr[0] * K.np.sign(K.np.diagonal(qr[1])))(
    K.la.qr(x)), n(4, 2))
case("qr_complete", lambda K, x: (lambda qr: qr[0][:, :2] * K.np.sign(K.np.diagonal(qr[1])))(
    K.la.qr(x, mode="complete")), n(4, 2))
case("qr_wide", lambda K, x: (lambda qr: qr[0] @ qr[1])(K.la.qr(x)), n(2, 3))
case("cholesky", lambda K, x: K.la.cholesky(x), P3)
case("cholesky_upper", lambda K, x: K.la.cholesky(x, upper=True), P3)
case("matrix_power_3", lambda K, x: K.la.matrix_power(x, 3), n(3, 3))
case("matrix_power_-2", lambda K, x: K.la.matrix_power(x, -2), M3)
case("matrix_power_0", lambda K, x: K.la.matrix_power(x, 0) * x, n(2, 2))
case("expm", lambda K, x: K.sla.expm(x), n(3, 3))
case("expm_big", lambda K, x: K.sla.expm(3 * x), n(3, 3))
case("sla.solve_triangular", lambda K, a, b: K.sla.solve_triangular(a, b, lower=True), M3, n(3))
case("sla.cho_solve", lambda K, a, b: K.sla.cho_solve(K.sla.cho_factor(a), b), P3, n(3))
case("sla.lu_solve", lambda K, a, b: K.sla.lu_solve(K.sla.lu_factor(a), b), M3, n(3))
case("sla.lu_p_l_u", lambda K, a: (lambda plu: plu[1] @ plu[2])(K.sla.lu(a)), M3)
case("tensorsolve_inv", lambda K, x: K.la.tensorinv(x.reshape(2, 2, 4), ind=2), A("mat", (4, 4)))
case("matrix_rank_cond", lambda K, x: K.la.cond(x), M3)
case("multi_dot", lambda K, a, b, c_: K.la.multi_dot([a, b, c_]), n(2, 3), n(3, 3), n(3, 1))
case("vecdot_matvec", lambda K, a, b: K.la.vecdot(a, b) * K.la.matrix_norm(a), n(2, 3), n(2, 3))
case("eig_sym_vals", lambda K, x: K.np.sort(K.np.real(K.la.eigvals(x))), S3, jit=False)
case("eig_vals_real", lambda K, x: K.np.sort(K.np.abs(K.la.eigvals(x))), M3, jit=False)

case("sla.polar_u", lambda K, a: K.sla.polar(a)[0], M3)
case("sla.polar_p", lambda K, a: K.sla.polar(a)[1], M3)
case("sla.eigh_generalized", lambda K, a, b: K.sla.eigh(a, b, eigvals_only=True), S3, P3)
case("sla.solve_pos", lambda K, a, b: K.sla.solve(a, b, assume_a="pos"), P3, n(3))
case("sla.solve_sym", lambda K, a, b: K.sla.solve(a, b, assume_a="sym"), S3, n(3))
case("sla.expm_frechet", lambda K, a, e: K.sla.expm_frechet(a, e, compute_expm=False), n(2, 2),
     n(2, 2))
case("sla.toeplitz_block", lambda K, c_, r: K.sla.block_diag(K.sla.toeplitz(c_, r), c_[:1][None]),
     n(3), n(3))
case("sla.det_inv", lambda K, a: K.sla.det(a) * K.sla.inv(a), M3)
case("sla.solve_sylvester", lambda K, a, b, q: K.sla.solve_sylvester(a, b, q),
     A("spd", (2, 2)), A("spd", (2, 2)), n(2, 2))
case("signal.convolve2d", lambda K, x, y: K.lib.scipy.signal.convolve2d(x, y, mode="same"),
     n(3, 4), n(2, 2))
case("signal.correlate_valid", lambda K, x, y: K.lib.scipy.signal.correlate(x, y, mode="valid"),
     n(5), n(2))
case("signal.fftconvolve", lambda K, x, y: K.lib.scipy.signal.fftconvolve(x, y), n(4), n(3))
for _m in ["linear", "cubic", "lanczos3", "nearest"]:
    case("image.resize_" + _m, lambda K, x, _m=_m: K.lib.image.resize(x, (5, 3), _m), n(3, 2))
case("image.scale_and_translate", lambda K, x, s_: K.lib.image.scale_and_translate(
    x, (5,), (0,), s_, np.array([0.3]), "linear"), n(3), A("pos", (1,)))
case("sparse.cg", lambda K, a, b: K.lib.scipy.sparse.linalg.cg(a, b, tol=1e-12)[0], P3, n(3),
     loose=1e2)
case("sparse.gmres", lambda K, a, b: K.lib.scipy.sparse.linalg.gmres(a, b, tol=1e-12)[0], M3,
     n(3), loose=1e2)
case("lax.custom_linear_solve", lambda K, a, b: K.lax.custom_linear_solve(
    lambda v: a @ v, b, lambda mv, r: K.la.solve(a, r),
    transpose_solve=lambda vm, r: K.la.solve(a.T, r)), M3, n(3))
case("sp.logsumexp_sign", lambda K, x, b: K.np.stack(K.sp.logsumexp(x, b=b, return_sign=True)),
     n(3), n(3))
case("nn.softmax_-inf", lambda K, x: K.nn.softmax(x), n(3),
     edges=[(np.array([-np.inf, 0.0, 1.0]),)])
case("std_const", lambda K, x: K.np.std(x), n(3), edges=[(np.array([1.0, 1.0, 1.0]),)])
case("norm_axis_zero_row", lambda K, x: K.la.norm(x, axis=1), n(2, 3),
     edges=[(np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]),)])
case("arccosh@1", lambda K, x: K.np.arccosh(x), A("big", (3,)),
     edges=[(np.array([1.0, 1.5, 2.0]),)])
case("lax.pow_neg_base", lambda K, x: K.lax.pow(x, 3.0), n(3),
     edges=[(np.array([-2.0, 0.0, 1.5]),)])
case("lax.pow_int_exp", lambda K, x: K.lax.pow(x, np.int32(3)), n(3),
     edges=[(np.array([-2.0, 0.0, 1.5]),)])

# -- fft --------------------------------------------------------------------------------------
for _f in ["fft", "ifft"]:
    case(_f, lambda K, x, _f=_f: cplx_out(K, getattr(K.fft, _f)(x)), n(5))
    case(_f + "_n_pad", lambda K, x, _f=_f: cplx_out(K, getattr(K.fft, _f)(x, n=7, norm="ortho")),
         n(5))
    case(_f + "_n_crop", lambda K, x, _f=_f: cplx_out(K, getattr(K.fft, _f)(x, n=3)), n(5))
case("rfft", lambda K, x: cplx_out(K, K.fft.rfft(x)), n(6))
case("rfft_odd_forward", lambda K, x: cplx_out(K, K.fft.rfft(x, norm="forward")), n(5))
case("irfft", lambda K, x, y: K.fft.irfft(x + 1j * y), n(4), n(4))
case("irfft_n", lambda K, x, y: K.fft.irfft(x + 1j * y, n=5), n(3), n(3))
case("hfft", lambda K, x, y: K.fft.hfft(x + 1j * y), n(3), n(3))
case("ihfft", lambda K, x: cplx_out(K, K.fft.ihfft(x)), n(5))
case("fft2", lambda K, x: cplx_out(K, K.fft.fft2(x)), n(3, 4))
case("rfft2_s", lambda K, x: cplx_out(K, K.fft.rfftn(x, s=(2, 5))), n(3, 4))
case("irfftn", lambda K, x, y: K.fft.irfftn(x + 1j * y, axes=(0, 1)), n(2, 3), n(2, 3))
case("fftshift", lambda K, x: K.fft.fftshift(x), n(5))
case("fft_abs", lambda K, x: K.np.abs(K.fft.fft(x)), n(4))

# -- scipy.special ----------------------------------------------------------------------------
SPECIAL = {
    "gammaln": ("pos",), "digamma": ("pos",), "polygamma1": None, "gamma": ("pos",),
    "erf": ("n",), "erfc": ("n",), "erfinv": ("sym1",), "expit": ("n",), "logit": ("unit",),
    "log_ndtr": ("n",), "ndtr": ("n",), "ndtri": ("unit",), "i0e": ("n",), "i1e": ("n",),
    "i0": ("n",), "i1": ("n",), "entr": ("pos",), "xlogy": ("pos", "pos"),
    "xlog1py": ("pos", "pos"), "betaln": ("pos", "pos"), "beta": ("pos", "pos"),
    "gammainc": (None, "pos"), "gammaincc": (None, "pos"), "rel_entr": ("pos", "pos"),
    "kl_div": ("pos", "pos"), "zeta": ("big", "pos"), "spence": ("pos",), "sinc": None,
    "expi": ("pos",), "exp1": ("pos",), "erfcx": ("n",), "dawsn": ("n",), "log_softmax": None,
    "softmax": None, "multigammaln": None, "betainc": (None, None, "unit"),
    "logsumexp": None, "gammasgn": None, "ndtri_": None, "loggamma": ("pos",),
"factorial": None, "poch": ("pos", "pos"), "bernoulli": None,
    "hyp1f1": None, "lpmn": None, "sph_harm": None, "ellipk": None,
}
for _name, _kinds in SPECIAL.items():
    if _kinds is None:
        continue
    _args = [A(k, (3,)) if k else A("const", diff=False, value=np.array([0.7, 1.5, 3.0]))
             for k in _kinds]
    if _name == "zeta":
        _args = [A("const", diff=False, value=np.array([2.0, 3.5, 1.5])), pos(3)]
    if _name == "betainc":
        _args = [A("const", diff=False, value=np.array([0.7, 1.5, 3.0])),
                 A("const", diff=False, value=np.array([2.0, 0.5, 1.0])), A("unit", (3,))]
    case("sp." + _name, lambda K, *a, _f=_name: getattr(K.sp, _f)(*a), *_args)
case("sp.polygamma1", lambda K, x: K.sp.polygamma(1, x), pos(3))
case("sp.multigammaln", lambda K, x: K.sp.multigammaln(x + 2.0, 2), pos(3))
case("sp.xlogy@0", lambda K, x, y: K.sp.xlogy(x, y), pos(3), pos(3),
     edges=[(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 2.0]))])
case("sp.xlog1py@0", lambda K, x, y: K.sp.xlog1py(x, y), pos(3), pos(3),
     edges=[(np.array([0.0, 0.0, 1.0]), np.array([-1.0, 0.0, 2.0]))])
case("sp.entr@0", lambda K, x: K.sp.entr(x), pos(3), edges=[(np.array([0.0, 1.0, 2.0]),)])
case("sp.gammainc_a", lambda K, a: K.sp.gammainc(a, np.array([0.5, 1.0, 4.0])), pos(3))
case("sp.logit@edge", lambda K, x: K.sp.logit(x), A("unit", (3,)),
     edges=[(np.array([0.5, 1e-6, 1 - 1e-6]),)])
case("sp.erfinv@edge", lambda K, x: K.sp.erfinv(x), A("sym1", (3,)),
     edges=[(np.array([0.0, 0.999, -0.9999]),)])
case("sp.gammaln_neg", lambda K, x: K.sp.gammaln(x), A("n", (3,)),
     edges=[(np.array([-0.5, -1.5, -2.3]),)])
case("sp.digamma_neg", lambda K, x: K.sp.digamma(x), A("n", (3,)),
     edges=[(np.array([-0.5, -1.5, -2.3]),)])

# -- nn ---------------------------------------------------------------------------------------
NN = ["sigmoid", "log_sigmoid", "softplus", "soft_sign", "silu", "swish", "hard_tanh",
      "hard_sigmoid", "hard_silu", "leaky_relu", "elu", "celu", "selu", "mish",
      "sparse_plus", "sparse_sigmoid", "squareplus", "tanh", "logsumexp", "relu"]
for _f in NN:
    case("nn." + _f, lambda K, x, _f=_f: getattr(K.nn, _f)(x), n(5),
         edges=[(np.array([0.0, 1.0, -1.0, 3.0, -3.0]),)])
case("nn.gelu_approx", lambda K, x: K.nn.gelu(x, approximate=True), n(4))
case("nn.gelu_exact", lambda K, x: K.nn.gelu(x, approximate=False), n(4))
case("nn.celu_alpha", lambda K, x: K.nn.celu(x, alpha=0.5), n(4), edges=[(KINK_POINTS[:4],)])
case("nn.elu_alpha", lambda K, x: K.nn.elu(x, alpha=2.0), n(4), edges=[(KINK_POINTS[:4],)])
case("nn.leaky_relu_slope", lambda K, x: K.nn.leaky_relu(x, negative_slope=0.3), n(4),
     edges=[(KINK_POINTS[:4],)])
case("nn.glu", lambda K, x: K.nn.glu(x, axis=-1), n(2, 4))
case("nn.softmax_axis0", lambda K, x: K.nn.softmax(x, axis=0), n(3, 2))
case("nn.softmax_where", lambda K, x: K.nn.softmax(x, where=np.array([True, False, True, True])),
     n(4))
case("nn.log_softmax_where", lambda K, x: K.nn.log_softmax(
    x, axis=1, where=np.array([[True, False, True], [True, True, True]])), n(2, 3))
case("nn.standardize", lambda K, x: K.nn.standardize(x, axis=1), n(2, 4))
case("nn.standardize_where", lambda K, x: K.nn.standardize(
    x, where=np.array([True, True, False, True])), n(4))
case("nn.standardize_var", lambda K, x, m, v: K.nn.standardize(x, mean=m, variance=v), n(4), n(),
     pos())
case("nn.one_hot_mul", lambda K, x: K.nn.one_hot(np.array([0, 2, 1]), 3) @ x, n(3))
case("nn.logsumexp_where", lambda K, x: K.nn.logsumexp(x, where=np.array([True, False, True])),
     n(3))
case("nn.dot_product_attention", lambda K, q, k, v: K.nn.dot_product_attention(q, k, v),
     n(1, 3, 1, 2), n(1, 3, 1, 2), n(1, 3, 1, 2), loose=1e4)  # softmax in float32, as JAX

# -- lax --------------------------------------------------------------------------------------
case("lax.rem", lambda K, x, y: K.lax.rem(x, y), n(4), A("big", (4,)))
case("lax.integer_pow", lambda K, x: K.lax.integer_pow(x, -3), A("big", (4,)))
case("lax.integer_pow0", lambda K, x: K.lax.integer_pow(x, 0) + K.lax.integer_pow(x, 1), n(3))
case("lax.integer_pow5@0", lambda K, x: K.lax.integer_pow(x, 5), n(3),
     edges=[(np.array([0.0, -1.0, 1.0]),)])
case("lax.pow", lambda K, x, y: K.lax.pow(x, y), pos(3), n(3))
case("lax.atan2", lambda K, x, y: K.lax.atan2(x, y), n(3), n(3))
case("lax.select_n", lambda K, x, y, z: K.lax.select_n(np.array([0, 1, 2, 1]), x, y, z), n(4),
     n(4), n(4))
case("lax.select_n_bool", lambda K, x, y: K.lax.select_n(np.array([True, False]), x, y),
     n(2), n(2))
case("lax.dynamic_slice", lambda K, x: K.lax.dynamic_slice(x, (1, 2), (2, 2)), n(3, 3))
case("lax.dynamic_slice_clamp", lambda K, x: K.lax.dynamic_slice(x, (2,), (3,)), n(4))
case("lax.dynamic_update_slice", lambda K, x, u: K.lax.dynamic_update_slice(x, u, (1, 0)),
     n(3, 3), n(2, 2))
case("lax.dynamic_update_clamp", lambda K, x, u: K.lax.dynamic_update_slice(x, u, (5,)), n(4),
     n(2))
case("lax.dynamic_index", lambda K, x: K.lax.dynamic_index_in_dim(x, 1, axis=1), n(2, 3))
case("lax.gather_scatter", lambda K, x, u: K.lax.dynamic_update_index_in_dim(x, u, 0, 0),
     n(3, 2), n(2))
for _op, _f in [("add", "reduce_window_add"), ("max", "reduce_window_max"),
                ("min", "reduce_window_min")]:
    case("lax." + _f, lambda K, x, _op=_op: K.lax.reduce_window(
        x, {"add": 0.0, "max": -np.inf, "min": np.inf}[_op],
        {"add": K.lax.add, "max": K.lax.max, "min": K.lax.min}[_op], (2, 2), (1, 2), "SAME"),
         n(3, 4))
case("lax.reduce_window_mul", lambda K, x: K.lax.reduce_window(x, 1.0, K.lax.mul, (2,), (1,),
                                                               "VALID"), n(4))
case("lax.reduce_window_dil", lambda K, x: K.lax.reduce_window(
    x, 0.0, K.lax.add, (2,), (1,), ((1, 1),), base_dilation=(2,), window_dilation=(2,)), n(4))
case("lax.reduce_window_max_ties", lambda K, x: K.lax.reduce_window(
    x, -np.inf, K.lax.max, (2,), (1,), "VALID"), A("ties", (5,)))
case("lax.conv", lambda K, x, w: K.lax.conv_general_dilated(x, w, (1, 1), "SAME"),
     n(1, 2, 4, 3), n(2, 2, 2, 2))
case("lax.conv_dil_stride", lambda K, x, w: K.lax.conv_general_dilated(
    x, w, (2,), [(1, 1)], lhs_dilation=(1,), rhs_dilation=(2,)), n(1, 1, 6), n(2, 1, 2))
case("lax.conv_lhs_dil", lambda K, x, w: K.lax.conv_general_dilated(
    x, w, (1,), [(0, 1)], lhs_dilation=(2,)), n(1, 1, 4), n(1, 1, 3))
case("lax.conv_groups", lambda K, x, w: K.lax.conv_general_dilated(
    x, w, (1,), "VALID", feature_group_count=2), n(1, 4, 5), n(2, 2, 2))
case("lax.conv_batch_groups", lambda K, x, w: K.lax.conv_general_dilated(
    x, w, (1,), "VALID", batch_group_count=2), n(2, 1, 4), n(2, 1, 2))
case("lax.conv_nhwc", lambda K, x, w: K.lax.conv_general_dilated(
    x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")), n(1, 3, 3, 2),
     n(2, 2, 2, 1))
case("lax.conv_transpose", lambda K, x, w: K.lax.conv_transpose(
    x, w, (2,), "SAME", dimension_numbers=("NCH", "OIH", "NCH")), n(1, 1, 3), n(1, 1, 2))
case("lax.fori_loop", lambda K, x: K.lax.fori_loop(0, 3, lambda i, c_: K.np.sin(c_) * (i + 1.0),
                                                   x), n(3))
case("lax.fori_loop_tuple", lambda K, x, y: K.lax.fori_loop(
    1, 4, lambda i, cy: (cy[0] * cy[1] + i, K.np.cos(cy[0])), (x, y))[0], n(2), n(2))
case("lax.scan", lambda K, x, xs: K.lax.scan(lambda c_, t: (c_ * t + K.np.sin(c_), c_ ** 2), x,
                                             xs)[1], n(2), n(3, 2))
case("lax.scan_rev", lambda K, x, xs: K.lax.scan(lambda c_, t: (c_ * K.np.tanh(t), c_ + t), x,
                                                 xs, reverse=True)[0], n(2), n(3, 2))
case("lax.while_fixed", lambda K, x: K.lax.while_loop(lambda ci: ci[1] < 3,
                                                      lambda ci: (ci[0] * 1.5 + K.np.sin(ci[0]),
                                                                  ci[1] + 1),
                                                      (x, 0))[0], n(3), hess=False)
case("lax.cond", lambda K, x: K.lax.cond(x[0] > 0, lambda t: K.np.sin(t) * t, lambda t: t ** 3,
                                         x), n(3))
case("lax.switch", lambda K, x: K.lax.switch(np.int32(1) + (x[0] > 0).astype(np.int32),
                                             [K.np.sin, K.np.cos, lambda t: t * t[::-1]], x), n(3))
case("lax.map", lambda K, x: K.lax.map(lambda t: t[0] * K.np.exp(t[1]), x), n(3, 2))
case("lax.associative_scan", lambda K, x: K.lax.associative_scan(K.lax.mul, x), n(5))
case("lax.sort_multi", lambda K, x, y: K.lax.sort((x, y), num_keys=1)[1], n(4), n(4))
case("lax.clamp", lambda K, x: K.lax.clamp(-0.5, x, 0.5), n(4),
     edges=[(np.array([-0.5, 0.5, 0.0, 1.0]),)])
case("lax.expm1_log1p", lambda K, x: K.lax.log1p(K.lax.expm1(x)), n(3))
case("lax.logistic", lambda K, x: K.lax.logistic(x), n(3))
case("lax.erf_inv", lambda K, x: K.lax.erf_inv(x), A("sym1", (3,)))
case("lax.igamma", lambda K, x: K.lax.igamma(np.array([0.5, 2.0, 3.0]), x), pos(3), f32=False)
case("lax.lgamma_digamma", lambda K, x: K.lax.lgamma(x) * K.lax.digamma(x), pos(3))
case("lax.bessel_i1e", lambda K, x: K.lax.bessel_i1e(x), n(3))
case("lax.rsqrt", lambda K, x: K.lax.rsqrt(x), pos(3))
case("lax.reduce_precision", lambda K, x: K.lax.reduce_precision(x, 11, 52), n(3))
case("lax.dot_general", lambda K, x, y: K.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
     n(2, 2, 3), n(2, 3, 2))
case("lax.pad_neg", lambda K, x: K.lax.pad(x, 0.5, [(-1, 2, 1)]), n(4))
case("lax.reduce_max", lambda K, x: K.lax.reduce_max(x, axes=(1,)), A("ties", (2, 3)))
case("lax.argmax_gather", lambda K, x: x[K.lax.argmax(x, 0, np.int32)], n(4))
case("lax.stop_gradient", lambda K, x: K.lax.stop_gradient(x) * x, n(3), hess=False)
case("lax.tridiagonal_solve", lambda K, dl, d, du, b: K.lax.linalg.tridiagonal_solve(
    dl, d, du, b), A("const", diff=False, value=np.array([0.0, 0.5, 0.3])), A("pos", (3,)),
     A("const", diff=False, value=np.array([0.2, 0.1, 0.0])), n(3, 1))
case("lax.cbrt", lambda K, x: K.lax.cbrt(x), n(3))
case("lax.sinc_div", lambda K, x, y: K.lax.div(x, y), n(3), A("big", (3,)))
case("lax.round", lambda K, x: K.lax.round(x) + x, n(3))



# -- comparison machinery ---------------------------------------------------------------------
class Report:
    def __init__(self, verbose):
        self.verbose, self.flags, self.counts = verbose, [], {}

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def flag(self, name, msg):
        self.flags.append((name, msg))
        print("FLAG %-28s %s" % (name, msg), flush=True)


def flat_fn(K, cs, fixed):
    """F(v) -> flat real output, over the differentiable args packed into one vector."""
    diff_idx = [i for i, a in enumerate(cs.args) if a.diff]
    shapes = [np.shape(fixed[i]) for i in diff_idx]
    sizes = [int(np.prod(s)) for s in shapes]

    def unpack(v):
        out, o = list(fixed), 0
        for i, s, z in zip(diff_idx, shapes, sizes):
            out[i] = v[o:o + z].reshape(s)
            o += z
        return out

    def F(v):
        return K.np.ravel(cs.fn(K, *unpack(K.np.asarray(v))))

    return F, diff_idx


def pack(args, idx):
    return np.concatenate([np.ravel(np.asarray(args[i], dtype=np.float64)) for i in idx])


def fd_jac(F, v, rel, one_sided=False):
    """Central differences; with one_sided, also the forward and backward ones (a kink shows
    as forward != backward even where the central difference is smooth in h)."""
    cols, fwd, bwd = [], [], []
    y0 = np.asarray(F(v), np.float64) if one_sided else None
    for j in range(v.size):
        h = rel * max(1.0, abs(v[j]))
        e = np.zeros_like(v)
        e[j] = h
        yp, ym = np.asarray(F(v + e), np.float64), np.asarray(F(v - e), np.float64)
        cols.append((yp - ym) / (2 * h))
        if one_sided:
            fwd.append((yp - y0) / h)
            bwd.append((y0 - ym) / h)
    if one_sided:
        return tuple(np.stack(c_, axis=-1) for c_ in (cols, fwd, bwd))
    return np.stack(cols, axis=-1)


def close(a, b, rtol, atol):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return False
    same_nan = np.isnan(a) == np.isnan(b)
    ok = np.isclose(a, b, rtol=rtol, atol=atol) | (np.isnan(a) & np.isnan(b))
    return bool(np.all(ok & same_nan))


def fmt(a):
    return np.array2string(np.asarray(a, np.float64).ravel(), precision=6, max_line_width=200,
                           threshold=12)


def columns_off(J, R, rtol, atol):
    bad = ~np.isclose(J, R, rtol=rtol, atol=atol) & ~(np.isnan(J) & np.isnan(R))
    return np.nonzero(np.any(bad, axis=0))[0]


def nonfinite_vs_jax(rep, name, F_t, F_j, v, Jf, rng):
    """Where the Jacobian has inf/NaN, jacfwd, jvp and vjp are compared with JAX's."""
    try:
        Jfj = np.asarray(jax.jacfwd(F_j)(v))
        if not close(Jf, Jfj, 1e-7, 1e-9):
            rep.flag(name, "jacfwd (non-finite) tjit %s JAX %s" % (fmt(Jf), fmt(Jfj)))
        t = rng.standard_normal(v.size)
        jt = np.asarray(tjit.jvp(F_t, (v,), (t,))[1])
        jj = np.asarray(jax.jvp(F_j, (v,), (t,))[1])
        if not close(jt, jj, 1e-7, 1e-9):
            rep.flag(name, "jvp (non-finite) tjit %s JAX %s" % (fmt(jt), fmt(jj)))
        w = rng.standard_normal(np.size(jj))
        vt = np.asarray(tjit.vjp(F_t, v)[1](w)[0])
        vj = np.asarray(jax.vjp(F_j, v)[1](w)[0])
        if not close(vt, vj, 1e-7, 1e-9):
            rep.flag(name, "vjp (non-finite) tjit %s JAX %s" % (fmt(vt), fmt(vj)))
    except Exception as e:  # noqa: BLE001
        rep.flag(name, "non-finite comparison raises: %s" % repr(e)[:200])


def check_point(rep, cs, args, rng, first, label):
    F_t, idx = flat_fn(TJ, cs, args)
    F_j, _ = flat_fn(JX, cs, args)
    F_n = lambda v: np.asarray(F_t(v))  # noqa: E731 (tjit eager forward for FD)
    v = pack(args, idx)
    name = "%s[%s]" % (cs.name, label)
    L = cs.loose
    try:
        y = np.asarray(F_t(v))
    except Exception as e:  # noqa: BLE001
        try:
            F_j(v)
            rep.flag(name, "tjit forward raises, JAX does not: %s" % repr(e)[:200])
        except Exception as e2:  # noqa: BLE001
            rep.count("both_forward_raise")
            if rep.verbose:
                print("  both raise on", name, repr(e)[:150], "|", repr(e2)[:150])
        return
    if not np.all(np.isfinite(y)):
        rep.count("nonfinite_forward")
    scale = max(1.0, float(np.nanmax(np.abs(y))) if y.size and np.any(np.isfinite(y)) else 1.0)
    # the reference Jacobian: JAX (arbiter at kinks)
    try:
        Jj = np.asarray(jax.jacrev(F_j)(v))
    except Exception as e:  # noqa: BLE001
        Jj = None
        rep.count("jax_jacrev_raises")
        if rep.verbose:
            print("  jax raises on", name, repr(e)[:200])
    try:
        Jr = np.asarray(tjit.jacrev(F_t)(v))
    except Exception as e:  # noqa: BLE001
        if Jj is None:  # both raise (e.g. no derivative, as JAX): nothing to compare
            rep.count("both_jacrev_raise")
            return
        rep.flag(name, "tjit.jacrev raises (JAX does not): %s" % repr(e)[:300])
        if rep.verbose:
            traceback.print_exc()
        return
    try:
        Jf = np.asarray(tjit.jacfwd(F_t)(v))
    except Exception as e:  # noqa: BLE001
        rep.flag(name, "tjit.jacfwd raises: %s" % repr(e)[:300])
        Jf = Jr
    rep.count("points")
    if Jr.shape != (y.size, v.size):
        rep.flag(name, "jacrev shape %s, expected %s" % (Jr.shape, (y.size, v.size)))
        return
    finite = bool(np.all(np.isfinite(Jr)) and np.all(np.isfinite(Jf)))
    if not finite:
        # 0 * inf makes forward and reverse differ legitimately: compare each with JAX's own
        rep.count("nonfinite_jacobian")
        nonfinite_vs_jax(rep, name, F_t, F_j, v, Jf, rng)
    elif not close(Jr, Jf, 1e-9 * L, 1e-10 * scale * L):
        cols = columns_off(Jr, Jf, 1e-9 * L, 1e-10 * scale * L)
        rep.flag(name, "jacrev != jacfwd at inputs %s: rev %s fwd %s" % (
            cols, fmt(Jr[:, cols]), fmt(Jf[:, cols])))
    # finite differences, two step sizes; disagreeing columns are kinks
    smooth = np.ones(v.size, bool)
    if cs.fd:
        D1 = fd_jac(F_n, v, cs.fd_rel)
        D2, Dp, Dm = fd_jac(F_n, v, cs.fd_rel * 10, one_sided=True)
        tol_fd = 1e-5 * scale
        for j in range(v.size):
            if (not close(D1[:, j], D2[:, j], 1e-4, tol_fd) or not np.all(np.isfinite(D1[:, j]))
                    or not close(Dp[:, j], Dm[:, j], 1e-2, 1e-3 * scale)):
                smooth[j] = False
        rep.counts["fd_columns"] = rep.counts.get("fd_columns", 0) + int(smooth.sum())
        rep.counts["kink_columns"] = rep.counts.get("kink_columns", 0) + int((~smooth).sum())
        for j in np.nonzero(smooth)[0]:
            if not close(Jr[:, j], D1[:, j], 1e-4, 1e-5 * scale):
                agrees_jax = Jj is not None and close(Jr[:, j], Jj[:, j], 1e-8, 1e-10 * scale)
                if agrees_jax:  # a tie or bound where JAX picks a one-sided value
                    rep.count("jax_convention_columns")
                    continue
                rep.flag(name, "BUG AD vs FD, input %d (v=%s): tjit %s FD %s JAX %s" % (
                    j, fmt(v[j:j + 1]), fmt(Jr[:, j]), fmt(D1[:, j]),
                    fmt(Jj[:, j]) if Jj is not None else "raises"))
    # JAX comparison everywhere (at kinks JAX's convention rules)
    if Jj is not None:
        rep.count("jax_compared")
        if Jj.shape != Jr.shape:
            rep.flag(name, "jac shape %s vs JAX %s" % (Jr.shape, Jj.shape))
        else:
            cols = columns_off(Jr, Jj, 1e-6 * L, 1e-8 * scale * L)
            kink_cols = [j for j in cols if not smooth[j]]
            if kink_cols:
                rep.flag(name, "KINK tjit != JAX at inputs %s (v=%s): tjit %s JAX %s" % (
                    kink_cols, fmt(v[kink_cols]), fmt(Jr[:, kink_cols]), fmt(Jj[:, kink_cols])))
            sm_cols = [j for j in cols if smooth[j]]
            if sm_cols and not cs.fd:
                rep.flag(name, "tjit != JAX at %s: tjit %s JAX %s" % (
                    sm_cols, fmt(Jr[:, sm_cols]), fmt(Jj[:, sm_cols])))
    # grad with argnums over the original arguments, jvp, vjp
    w = rng.standard_normal(y.size)
    t = rng.standard_normal(v.size)
    if not finite:
        return
    try:
        def scalar(*dargs):
            a = list(args)
            for i, d in zip(idx, dargs):
                a[i] = d
            return tjnp.sum(tjnp.ravel(cs.fn(TJ, *a)) * w)
        g = tjit.grad(scalar, argnums=tuple(range(len(idx))))(*[args[i] for i in idx])
        g = np.concatenate([np.ravel(np.asarray(gi)) for gi in g])
        if not close(g, w @ Jr, 1e-8 * L, 1e-9 * L * scale * (1 + np.abs(w).sum())):
            rep.flag(name, "grad(argnums) != w @ jacrev: %s vs %s" % (fmt(g), fmt(w @ Jr)))
        _, jt = tjit.jvp(F_t, (v,), (t,))
        if not close(jt, Jr @ t, 1e-8 * L, 1e-9 * L * scale * (1 + np.abs(t).sum())):
            rep.flag(name, "jvp != jac @ t: %s vs %s" % (fmt(jt), fmt(Jr @ t)))
        _, pull = tjit.vjp(F_t, v)
        (vt,) = pull(w)
        if not close(vt, w @ Jr, 1e-8 * L, 1e-9 * L * scale * (1 + np.abs(w).sum())):
            rep.flag(name, "vjp != w @ jac: %s vs %s" % (fmt(vt), fmt(w @ Jr)))
        rep.count("grad_jvp_vjp")
    except Exception as e:  # noqa: BLE001
        rep.flag(name, "grad/jvp/vjp raises: %s" % repr(e)[:300])
    if not first:
        return
    if cs.jit:
        try:
            Jjit = np.asarray(tjit.jit(tjit.jacrev(F_t))(v))
            if not close(Jjit, Jr, 1e-7 * L, 1e-9 * scale * L):
                cols = columns_off(Jjit, Jr, 1e-7 * L, 1e-9 * scale * L)
                rep.flag(name, "jit(jacrev) != jacrev at %s: %s vs %s" % (
                    cols, fmt(Jjit[:, cols]), fmt(Jr[:, cols])))
            rep.count("jit")
        except Exception as e:  # noqa: BLE001
            rep.flag(name, "jit(jacrev) raises: %s" % repr(e)[:300])
    if cs.hess and v.size <= 12:
        try:
            Fs = lambda u: tjnp.sum(F_t(u) * w)  # noqa: E731
            H = np.asarray(tjit.hessian(Fs)(v))
            gs = lambda u: np.asarray(tjit.grad(Fs)(u))  # noqa: E731
            H1, H2 = fd_jac(gs, v, 1e-5), fd_jac(gs, v, 1e-4)
            hscale = max(1.0, float(np.max(np.abs(H1))) if H1.size else 1.0)
            for j in range(v.size):
                if close(H1[:, j], H2[:, j], 1e-4, 1e-5 * hscale) and smooth[j]:
                    if not close(H[:, j], H1[:, j], 1e-4, 1e-5 * hscale):
                        rep.flag(name, "hessian col %d: tjit %s FD %s" % (
                            j, fmt(H[:, j]), fmt(H1[:, j])))
                        break
            rep.count("hessian")
        except Exception as e:  # noqa: BLE001
            try:
                jax.hessian(lambda u: jjnp.sum(F_j(u) * w))(v)
                rep.flag(name, "hessian raises (JAX does not): %s" % repr(e)[:300])
            except Exception:  # noqa: BLE001
                rep.count("hessian_both_raise")
    if cs.f32:
        try:
            v32 = v.astype(np.float32)
            J32 = np.asarray(tjit.jacrev(F_t)(v32))
            if J32.dtype != np.float32:
                rep.flag(name, "float32 jacrev has dtype %s" % J32.dtype)
            s = max(1.0, float(np.max(np.abs(Jr[np.isfinite(Jr)]))) if Jr.size else 1.0)
            ok_cols = [j for j in range(v.size) if smooth[j]]
            if ok_cols and not close(J32[:, ok_cols], Jr[:, ok_cols], 2e-2, 2e-3 * s):
                cols = columns_off(J32[:, ok_cols], Jr[:, ok_cols], 2e-2, 2e-3 * s)
                cols = [ok_cols[k] for k in cols]
                if Jj is not None:
                    J32j = np.asarray(jax.jacrev(F_j)(v32))
                    jax_ok = close(J32j[:, cols], Jr[:, cols], 2e-2, 2e-3 * s)
                else:
                    jax_ok = True
                if jax_ok:
                    rep.flag(name, "float32 jacrev off at %s: %s vs f64 %s" % (
                        cols, fmt(J32[:, cols]), fmt(Jr[:, cols])))
            rep.count("float32")
        except Exception as e:  # noqa: BLE001
            rep.flag(name, "float32 jacrev raises: %s" % repr(e)[:300])


def snap(a, x):
    """``x`` rounded to a grid of halves within the argument's domain (matrices and
    integer arguments as drawn)."""
    if not a.diff or a.kind not in ("n", "pos", "big", "unit", "sym1", "ties"):
        return x
    g = np.round(np.asarray(x, np.float64) * 2) / 2
    if a.kind == "pos":
        g = np.maximum(g, 0.5)
    elif a.kind == "big":
        g = np.where(np.abs(g) < 1.5, np.sign(x) * 1.5, g)
    elif a.kind in ("unit", "sym1"):
        g = np.where(np.abs(g) >= 1, np.sign(x) * 0.5, g)
        if a.kind == "unit":
            g = np.where(g <= 0, 0.5, g)
    return g


def run_cases(rep, rng, reps, only):
    for cs in CASES:
        if only and not any(o == cs.name or o in cs.name for o in only):
            continue
        rep.count("cases")
        points = [[a.draw(rng) for a in cs.args] for _ in range(reps)]
        # a point on a coarse grid: zeros, ties and integers (kinks of abs/max/sort/floor...)
        if not cs.no_grid:
            points.append([snap(a, a.draw(rng)) for a in cs.args])
        for e in cs.edges:
            pt, k = [], 0
            for a in cs.args:
                if a.diff:
                    pt.append(np.asarray(e[k], np.float64))
                    k += 1
                else:
                    pt.append(a.draw(rng))
            points.append(pt)
        t0 = time.time()
        for i, pt in enumerate(points):
            label = "r%d" % i if i < reps else (
                "grid" if i == reps and not cs.no_grid else "edge%d" % (i - reps - 1))
            signal.alarm(120)
            try:
                check_point(rep, cs, pt, rng, i == 0, label)
            except Exception as e:  # noqa: BLE001
                rep.flag("%s[%s]" % (cs.name, label), "harness error: %s" % repr(e)[:300])
            finally:
                signal.alarm(0)
        if rep.verbose:
            print("  %-30s %.2fs" % (cs.name, time.time() - t0), flush=True)


# -- integer / bool inputs --------------------------------------------------------------------
def int_cases(rep):
    """grad w.r.t. integer/bool args must raise (as JAX); jvp with float0 tangents works;
    grad with allow_int gives float0 zeros; integer-valued intermediates get no gradient."""
    xi = np.array([1, 2, 3], np.int32)
    xb = np.array([True, False, True])
    progs = [
        ("grad_int", lambda lib, m: lib.grad(lambda x: m.sum(x * 2.0))(xi)),
        ("grad_bool", lambda lib, m: lib.grad(lambda x: m.sum(m.where(x, 1.0, 2.0)))(xb)),
        ("grad_allow_int", lambda lib, m: lib.grad(lambda x: m.sum(x * 2.0), allow_int=True)(xi)),
        ("jacrev_int", lambda lib, m: lib.jacrev(lambda x: x * 2.0)(xi)),
        ("jacfwd_int", lambda lib, m: lib.jacfwd(lambda x: x * 2.0)(xi)),
        ("vjp_int", lambda lib, m: lib.vjp(lambda x, y: x * y, xi, 2.0)[1](np.ones(3)) ),
        ("jvp_float0", lambda lib, m: lib.jvp(lambda x, y: x * y, (xi, 2.0),
                                             (np.zeros(3, jax.dtypes.float0), 1.0))[1]),
        ("jvp_int_tangent_int", lambda lib, m: lib.jvp(lambda x: x * 2, (xi,), (xi,))[1]),
        ("grad_through_int_cast", lambda lib, m: lib.grad(
            lambda x: m.sum(x.astype(m.int32) * x))(np.array([1.5, 2.5]))),
        ("grad_through_floor_div", lambda lib, m: lib.grad(
            lambda x: m.sum(m.floor_divide(x, 0.7) * x))(np.array([1.5, 2.5]))),
        ("grad_argmax_idx", lambda lib, m: lib.grad(
            lambda x: m.argmax(x).astype(m.float64) + x[1])(np.array([1.5, 2.5]))),
        ("grad_round", lambda lib, m: lib.grad(lambda x: m.sum(m.round(x)))(np.array([1.5, 2.4]))),
        ("grad_sign", lambda lib, m: lib.grad(lambda x: m.sum(m.sign(x) * x))(
            np.array([0.0, -2.0]))),
        ("grad_comparison", lambda lib, m: lib.grad(
            lambda x: m.sum((x > 0) * x))(np.array([0.0, 2.0]))),
        ("grad_int_out", lambda lib, m: lib.grad(lambda x: x.astype(m.int32))(1.5)),
        ("value_and_grad_has_aux_int", lambda lib, m: lib.value_and_grad(
            lambda x: (x ** 2, m.int32(3)), has_aux=True)(1.5)[1][0]),
        ("jacrev_int_out", lambda lib, m: lib.jacrev(lambda x: (x * 2).astype(m.int32))(
            np.array([1.5, 2.0]))),
        ("jacfwd_int_out", lambda lib, m: lib.jacfwd(lambda x: (x * 2).astype(m.int32))(
            np.array([1.5, 2.0]))),
        ("grad_pytree_mixed", lambda lib, m: lib.grad(lambda d: d["a"] * d["b"], allow_int=True)(
            {"a": 2.0, "b": np.int32(3)})["b"]),
        ("hessian_int", lambda lib, m: lib.hessian(lambda x: m.sum(x ** 2))(xi)),
        ("grad_complex_input", lambda lib, m: lib.grad(lambda x: m.abs(x) ** 2)(1.0 + 2.0j)),
        ("grad_complex_output", lambda lib, m: lib.grad(lambda x: x * 1j)(1.5)),
        ("linearize_int", lambda lib, m: lib.linearize(lambda x: x * 2.0, xi)[0]),
    ]
    for name, prog in progs:
        rep.count("int_cases")
        res = {}
        for tag, lib, m in (("tjit", tjit, tjnp), ("jax", jax, jjnp)):
            try:
                out = prog(lib, m)
                leaves = (jax.tree_util.tree_leaves(out) if tag == "jax"
                          else tjit.tree_util.tree_leaves(out))
                res[tag] = ("ok", [(str(np.asarray(x).dtype), np.asarray(x).shape,
                                    np.asarray(x).tolist() if np.asarray(x).dtype.kind != "V"
                                    else None) for x in leaves])
            except Exception as e:  # noqa: BLE001
                first = str(e).splitlines()[0][:150] if str(e) else ""
                res[tag] = ("raise", type(e).__name__, first)
        t, j = res["tjit"], res["jax"]
        if t[0] != j[0]:
            rep.flag("int:" + name, "tjit %s vs JAX %s" % (t, j))
        elif t[0] == "raise" and t[1] != j[1]:
            rep.flag("int:" + name, "error type tjit %s vs JAX %s (%s | %s)" % (t[1], j[1], t[2],
                                                                             j[2]))
        elif t[0] == "ok" and t[1] != j[1]:
            # compare dtypes (float0 naming differs between libraries: compare kinds)
            td = [(d.replace("[('float0', 'V')]", "float0"), s, v) for d, s, v in t[1]]
            jd = [(d.replace("[('float0', 'V')]", "float0"), s, v) for d, s, v in j[1]]
            if [x[:2] for x in td] != [x[:2] for x in jd] or not all(
                    a[2] is None or b[2] is None or np.allclose(a[2], b[2])
                    for a, b in zip(td, jd)):
                rep.flag("int:" + name, "tjit %s vs JAX %s" % (td, jd))


# -- complex inputs ---------------------------------------------------------------------------
def complex_cases(rep, rng):
    """Real-valued functions of complex inputs (grad returns conj of the Wirtinger-style
    cotangent, as JAX), holomorphic grads, jvp/vjp of complex functions: compared with JAX."""
    z = np.array([0.7 - 1.2j, -0.4 + 0.3j, 1.5 + 0.1j])
    real_valued = {
        "abs2": lambda m, x: m.sum(m.abs(x) ** 2), "abs": lambda m, x: m.sum(m.abs(x)),
        "real": lambda m, x: m.sum(m.real(x * x)), "imag": lambda m, x: m.sum(m.imag(x ** 3)),
        "angle": lambda m, x: m.sum(m.angle(x)), "abs_exp": lambda m, x: m.sum(m.abs(m.exp(x))),
        "abs_log": lambda m, x: m.sum(m.abs(m.log(x))),
        "abs_sqrt": lambda m, x: m.sum(m.abs(m.sqrt(x))),
        "real_conj_mul": lambda m, x: m.sum(m.real(m.conj(x) * x[::-1])),
        "norm": lambda m, x: m.linalg.norm(x), "vdot": lambda m, x: m.real(m.vdot(x, x * 2j + 1)),
        "abs_fft": lambda m, x: m.sum(m.abs(m.fft.fft(x)) ** 2),
        "real_sin_cos": lambda m, x: m.sum(m.real(m.sin(x) * m.cos(x))),
        "abs_tanh": lambda m, x: m.sum(m.abs(m.tanh(x))),
        "abs_pow": lambda m, x: m.sum(m.abs(x ** 2.5)),
        "abs_reciprocal": lambda m, x: m.sum(m.abs(1.0 / x)),
        "real_cumprod": lambda m, x: m.sum(m.real(m.cumprod(x))),
        "abs_det": lambda m, x: m.abs(m.linalg.det(m.outer(x, x) + m.eye(3) * (1 + 1j))),
        "real_inv": lambda m, x: m.sum(m.real(m.linalg.inv(m.outer(x, m.conj(x)) + 3 * m.eye(3)))),
        "eigvalsh_herm": lambda m, x: m.sum(m.linalg.eigvalsh(
            m.outer(x, m.conj(x)) + m.diag(m.arange(3.0)))[1:] * m.array([1.0, 2.0])),
        "svd_s": lambda m, x: m.sum(m.linalg.svd(m.outer(x, x[::-1]) + m.eye(3),
                                                 compute_uv=False) * m.array([1.0, 2.0, 3.0])),
        "abs_sort": lambda m, x: m.sum(m.abs(m.sort(x)) * m.array([1.0, 2.0, 3.0])),
        "real_where": lambda m, x: m.sum(m.real(m.where(m.real(x) > 0, x * x, x))),
        "abs_arctan": lambda m, x: m.sum(m.abs(m.arctan(x))),
        "abs_arcsinh": lambda m, x: m.sum(m.abs(m.arcsinh(x))),
        "abs_expm1_log1p": lambda m, x: m.sum(m.abs(m.expm1(x) + m.log1p(x))),
        "real_mean_prod": lambda m, x: m.real(m.mean(x) * m.prod(x)),
        "abs_x0": lambda m, x: m.sum(m.abs(x * m.array([0.0, 1.0, 1.0]))),
    }
    for name, f in real_valued.items():
        rep.count("complex_cases")
        try:
            gt = np.asarray(tjit.grad(lambda x: f(tjnp, x))(z))
        except Exception as e:  # noqa: BLE001
            rep.flag("cplx:" + name, "tjit.grad raises: %s" % repr(e)[:200])
            continue
        gj = np.asarray(jax.grad(lambda x: f(jjnp, x))(z))
        # FD reference: d/dRe - i d/dIm (JAX's convention for real-valued f: grad = conj(df/dz*)...)
        F = lambda x: float(np.asarray(f(tjnp, x)))  # noqa: E731
        fd = np.zeros(3, complex)
        for k in range(3):
            for unit, part in ((1.0, 1.0), (1j, -1j)):
                h = 1e-6
                e = np.zeros(3, complex)
                e[k] = unit * h
                fd[k] += part * (F(z + e) - F(z - e)) / (2 * h)
        if not np.allclose(gt, gj, rtol=1e-7, atol=1e-9):
            rep.flag("cplx:" + name, "grad tjit %s JAX %s (FD d/dre - i d/dim %s)" % (gt, gj, fd))
        elif not np.allclose(gj, fd, rtol=1e-5, atol=1e-6):
            rep.count("complex_jax_vs_fd_convention_differs")
    holo = {
        "exp": lambda m, x: m.exp(x), "log": lambda m, x: m.log(x), "sqrt": lambda m, x: m.sqrt(x),
        "sin": lambda m, x: m.sin(x), "tan": lambda m, x: m.tan(x),
        "arcsin": lambda m, x: m.arcsin(x), "arccos": lambda m, x: m.arccos(x),
        "arctanh": lambda m, x: m.arctanh(x), "power": lambda m, x: x ** (1.5 + 0.5j),
        "reciprocal": lambda m, x: m.reciprocal(x), "square": lambda m, x: m.square(x),
        "cumsum": lambda m, x: m.cumsum(x * x), "fft": lambda m, x: m.fft.fft(x),
        "ifft": lambda m, x: m.fft.ifft(x * x), "inv": lambda m, x: m.linalg.inv(
            m.outer(x, x) + 2 * m.eye(3)),
        "det": lambda m, x: m.linalg.det(m.outer(x, x[::-1]) + 2 * m.eye(3)),
        "polyval": lambda m, x: m.polyval(x, x), "logaddexp_like": lambda m, x: m.log(
            m.exp(x) + m.exp(2 * x)),
        "expm1": lambda m, x: m.expm1(x), "log1p": lambda m, x: m.log1p(x),
        "cosh": lambda m, x: m.cosh(x), "arctan": lambda m, x: m.arctan(x),
        "solve": lambda m, x: m.linalg.solve(m.diag(x) + 1.0, x * 1j),
        "sinc": lambda m, x: m.sinc(x), "log10": lambda m, x: m.log10(x),
        "exp2": lambda m, x: m.exp2(x),
    }
    for name, f in holo.items():
        rep.count("complex_cases")
        try:
            Jt = np.asarray(tjit.jacfwd(lambda x: f(tjnp, x), holomorphic=True)(z))
            Jt2 = np.asarray(tjit.jacrev(lambda x: f(tjnp, x), holomorphic=True)(z))
        except Exception as e:  # noqa: BLE001
            rep.flag("cplx_holo:" + name, "tjit raises: %s" % repr(e)[:200])
            continue
        Jj = np.asarray(jax.jacfwd(lambda x: f(jjnp, x), holomorphic=True)(z))
        if not np.allclose(Jt, Jj, rtol=1e-7, atol=1e-9):
            rep.flag("cplx_holo:" + name, "jacfwd tjit %s JAX %s" % (Jt.ravel()[:6],
                                                                  Jj.ravel()[:6]))
        if not np.allclose(Jt2, Jj, rtol=1e-7, atol=1e-9):
            rep.flag("cplx_holo:" + name, "jacrev tjit %s JAX %s" % (Jt2.ravel()[:6],
                                                                  Jj.ravel()[:6]))
        # vjp with a complex cotangent (JAX: no conjugation)
        ct = np.array([1.0 + 0.5j, -0.3j, 2.0] + [0.5] * 6)[:np.size(Jj) // 3]
        try:
            ct = ct.reshape(np.shape(Jj)[:-1])
            vt = np.asarray(tjit.vjp(lambda x: f(tjnp, x), z)[1](ct)[0])
            vj = np.asarray(jax.vjp(lambda x: f(jjnp, x), z)[1](ct)[0])
            if not np.allclose(vt, vj, rtol=1e-7, atol=1e-9):
                rep.flag("cplx_vjp:" + name, "tjit %s JAX %s" % (vt, vj))
        except Exception as e:  # noqa: BLE001
            rep.flag("cplx_vjp:" + name, "raises: %s" % repr(e)[:200])
    # real -> complex -> real, and complex jvp with real tangent errors
    mixed = {
        "r2c2r": lambda lib, m: lib.grad(lambda x: m.abs(m.exp(1j * x) * (x + 2j)) ** 2)(0.7),
        "grad_c_input_no_holo": lambda lib, m: lib.grad(lambda x: m.real(x) * 2)(1.0 + 1j),
        "grad_holo_real_input": lambda lib, m: lib.grad(lambda x: x * 2, holomorphic=True)(1.0),
        "jacrev_c_to_r": lambda lib, m: lib.jacrev(lambda x: m.abs(x) ** 2)(
            np.array([1.0 + 2j, 0.5j])),
        "jacfwd_c_to_r": lambda lib, m: lib.jacfwd(lambda x: m.abs(x) ** 2)(
            np.array([1.0 + 2j, 0.5j])),
        "jacrev_r_to_c": lambda lib, m: lib.jacrev(lambda x: m.exp(1j * x))(np.array([0.3, 1.0])),
        "jacfwd_r_to_c": lambda lib, m: lib.jacfwd(lambda x: m.exp(1j * x))(np.array([0.3, 1.0])),
        "jvp_c_real_tangent": lambda lib, m: lib.jvp(lambda x: x * x, (1.0 + 1j,), (1.0,))[1],
        "hessian_c": lambda lib, m: lib.hessian(lambda x: m.abs(x) ** 2)(1.0 + 1j),
        "grad_complex_abs0": lambda lib, m: lib.grad(lambda x: m.abs(x))(0j),
        "grad_sqrt_abs0": lambda lib, m: lib.grad(lambda x: m.abs(m.sqrt(x)))(1j),
    }
    for name, prog in mixed.items():
        rep.count("complex_cases")
        res = {}
        for tag, lib, m in (("tjit", tjit, tjnp), ("jax", jax, jjnp)):
            try:
                res[tag] = ("ok", np.asarray(prog(lib, m)))
            except Exception as e:  # noqa: BLE001
                res[tag] = ("raise", type(e).__name__, str(e)[:150])
        t, j = res["tjit"], res["jax"]
        if t[0] != j[0] or (t[0] == "raise" and t[1] != j[1]):
            rep.flag("cplx_mixed:" + name, "tjit %s vs JAX %s" % (t, j))
        elif t[0] == "ok" and (t[1].shape != j[1].shape or t[1].dtype != j[1].dtype
                               or not np.allclose(t[1], j[1], equal_nan=True)):
            rep.flag("cplx_mixed:" + name, "tjit %s %s vs JAX %s %s" % (t[1], t[1].dtype, j[1],
                                                                      j[1].dtype))


def third_order_cases(rep, rng, only):
    """jacfwd(hessian) of a weighted sum against JAX's, for the cases with at most 6
    differentiable inputs (rules' own derivatives: a tangent rule that is right to first
    order can still drop a term at the next; cases where JAX raises are skipped)."""
    for cs in CASES:
        if not cs.hess or (only and not any(o in cs.name for o in only)):
            continue
        args = [a.draw(rng) for a in cs.args]
        F_t, idx = flat_fn(TJ, cs, args)
        F_j, _ = flat_fn(JX, cs, args)
        v = pack(args, idx)
        if v.size > 6:
            continue
        signal.alarm(120)
        try:
            w = rng.standard_normal(np.size(F_t(v)))
            try:
                J = np.asarray(jax.jacfwd(jax.hessian(lambda u: jjnp.sum(F_j(u) * w)))(v))
            except Exception:  # noqa: BLE001
                continue
            T = np.asarray(tjit.jacfwd(tjit.hessian(lambda u: tjnp.sum(F_t(u) * w)))(v))
            rep.count("third_order")
            s = max(1.0, float(np.nanmax(np.abs(J))) if np.any(np.isfinite(J)) else 1.0)
            if not close(T, J, 1e-6 * cs.loose, 1e-8 * s * cs.loose):
                rep.flag(cs.name + "[3rd]", "jacfwd(hessian) tjit %s JAX %s" % (fmt(T), fmt(J)))
        except Exception as e:  # noqa: BLE001
            rep.flag(cs.name + "[3rd]", "raises: %s" % repr(e)[:200])
        finally:
            signal.alarm(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="", help="sections to skip: cases,int,complex")
    ap.add_argument("--third", action="store_true", help="also third derivatives vs JAX")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    faulthandler.enable()
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError("case > 120 s")))
    rng = np.random.default_rng(args.seed)
    rep = Report(args.verbose)
    only = [o for o in args.only.split(",") if o]
    skip = set(args.skip.split(","))
    t0 = time.time()
    if "cases" not in skip:
        run_cases(rep, rng, args.reps, only)
    if args.third:
        third_order_cases(rep, rng, only)
    if "int" not in skip and not only:
        int_cases(rep)
    if "complex" not in skip and not only:
        complex_cases(rep, rng)
    print("\n%d flags in %.0f s; counts: %s" % (len(rep.flags), time.time() - t0, rep.counts))
    return 1 if rep.flags else 0


if __name__ == "__main__":
    sys.exit(main())
