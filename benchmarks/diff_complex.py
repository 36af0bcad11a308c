"""Differential check of tjit's complex numbers against NumPy (complex128 and complex64):
every jnp function that takes complex input, eagerly, under jit, under
jit(backend="interpreter") and under vmap, on points chosen to break complex code --
branch cuts approached from both sides with signed zeros, infinities and NaNs in each
part, huge and tiny magnitudes (overflow-safe abs, division, sqrt, log) -- and random
values. A tool, not a test.

Run with the JAX environment (tjit is installed there too), so that where tjit and
NumPy disagree the script can say which side JAX is on::

    /work/jaxvenv/bin/python benchmarks/diff_complex.py [--only NAME[,NAME]] [-v]

Values are compared against NumPy fed complex128 (for complex64 inputs the float64
answer rounded to complex64), each element by its distance relative to the reference's
magnitude; NaN and infinite parts must match part by part, and a zero part must carry
the reference's sign. The result dtype must be NumPy's (complex64 stays complex64, real
results are real). Each disagreement prints with the input, tjit's value, NumPy's and
JAX's, and is counted as "tjit == JAX" when tjit agrees with JAX there (a deliberate
JAX semantics, see KNOWN) or as a tjit defect otherwise.

The LLVM kernels do not render complex dtypes (lower/llvm/codegen_ops.py): under jit a
complex op runs as a library call on the host (the primitive's NumPy implementation),
and a fused kernel sees only the real parts around it (abs, real, imag, angle feed float
kernels). The "jit" mode therefore checks the planner's routing and the real kernels
fed by complex ops, "interp" the reference interpreter of the same program.

References: NumPy fed complex128 (for complex64 inputs rounded to complex64, or NumPy's
own complex64 answer, whichever agrees); mpmath (120+ bits) for the unary functions at
points off the axes; exact rational quotients for division and reciprocal. Disagreements
are printed as DEFECT (unexplained), KNOWN (a deliberate choice, see KNOWN), "tjit ==
JAX" or "NUMPY NAN" (NumPy gives NaN for a NaN-free input where tjit gives a number: C99
recoveries, each listed for review).

What it reported (NumPy 2.4.6, JAX 0.10.2, 368 cases x 4 modes), and what was fixed:
* complex division (NumPy's Smith formula through 1 / (d + c*r)): 1 / 1e-310j was
  nan - inf j (right 0 - inf j), z / z of a subnormal complex64 inf + nan j (right 1),
  (max + max j) / (1 + 1j) inf (right max); sinc(1e-45j) complex64 inf + nan j (right 1)
  through it. Fixed by power-of-two scaling (tjit/primitives/complex_scaled.py).
* sign(z) = z / |z| with |z| rounded to a subnormal: complex64 sign(1e-45 + 1e-45j) was
  1 + 1j (right 0.7071 + 0.7071j). Fixed by scaling.
* power with a real exponent multiplied (y + 0j) * log(x) as complex numbers: (inf + 0j)
  ** 0.5 was inf + nan j (right inf + 0j), (inf + 0j) ** -1.0 nan + nan j (right 0),
  0j ** -0.5 nan + nan j (right inf); complex64 (1e30j) ** -2.0 nan (right -0).
* integer_pow of complex y <= -2 multiplied out unscaled: 1 / (a + a j)**2 for a = 2**514
  gave 0 (right -2**-1029 j). z ** -1 and reciprocal divide 1 + 0j, as JAX's (2 + 0j
  gives 0.5 + 0j; NumPy's reciprocal 0.5 - 0j).
* lax.logistic and lax.rsqrt divided with NumPy's complex "/": logistic(-1000 + 1j) was
  nan + nan j (right 0, as JAX), rsqrt(inf + inf j) nan (right 0).
Left (tjit == JAX): C99 recoveries in division (0 / (inf + nan j) = 0, where NumPy is
NaN); fmax/fmin order -0 below +0; x ** 1 of -0 + 0j is itself. Every disagreement is
the same in the four modes: the compiled path (library steps for complex ops, LLVM
kernels for the real ops around them) agrees with eager bit for bit.
"""

import argparse
import functools
import sys
import warnings
from fractions import Fraction

import numpy as np

import tjit
import tjit.numpy as tjnp

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.numpy as jjnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # the tool still runs, without the JAX column
    jax = jjnp = None

INF, NAN = np.inf, np.nan

#: name -> why tjit deliberately differs from NumPy there (JAX's semantics)
KNOWN = {
    "float_power": "JAX keeps complex64; NumPy's float_power is complex128 (values are "
                   "compared with NumPy's power)",
    "expm1": "the Array API's special values, conjugate-symmetric: expm1(nan - 0j) = nan - 0j "
             "(tests/numpy/test_complex_special_values.py)",
    "power_scalar[1]": "x ** 1 is x itself (-0 + 0j stays -0 + 0j, as jnp.power(x, 1) in JAX)",
    "exp2": "complex64 at |imag| = 8.5e37: the phase of 2**(i y) is float32 rounding noise",
    "sinc": "the zero's sign of the imaginary part at tiny negative real parts: NumPy's and "
            "JAX's come from their division (sinc(-4.7e-38 + 1.2e-38j) has a positive "
            "imaginary part: tjit +0, both -0); tjit keeps sinc(conj z) = conj(sinc z)",
    "reciprocal": "the zero's sign in 1 / (inf + nan j) (C99 says 0, no sign)",
    "reciprocal/exact": "the zero's sign in 1 / (inf + nan j) (C99 says 0, no sign)",
    "power_scalar[-1]": "x ** -1 divides 1 + 0j, as JAX's (1 / (1 + 0j) = 1 + 0j; NumPy's "
                        "x ** -1 is its reciprocal, conj(x) / |x|**2: 1 - 0j)",
    "power": "zero signs where NumPy's NaN became exp(y log x): (8.5e37 + 0j) ** (-2 + 0j) "
             "is 0 - 0j (the imaginary part of y * log x is -0)",
    "lax.rsqrt": "the zero's sign in 1 / sqrt(inf + nan j) (C99 says 0, no sign)",
    "lax.logistic": "1 / (1 + exp(-inf + nan j)): exp gives an infinity (inf + nan j), "
                    "and 1 / infinity is 0 in C99's division (JAX: nan)",
}
KNOWN["float_power"] += "; " + KNOWN["power"]


# ----------------------------------------------------------------------------- inputs

def _parts(dtype):
    """Real values that make up the special grid: signed zeros, units, infinities, NaN,
    the huge and tiny ends of ``dtype``'s real type."""
    fi = np.finfo(_real_of(dtype))
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, INF, -INF, NAN,
            float(fi.max) / 4, -float(fi.max) / 4, float(fi.tiny), -float(fi.tiny) * 4,
            float(fi.smallest_subnormal), 3.0]


def _real_of(dtype):
    return np.float32 if np.dtype(dtype) == np.complex64 else np.float64


def special_grid(dtype):
    p = _parts(dtype)
    re, im = np.meshgrid(p, p, indexing="ij")
    return _complex(re.ravel(), im.ravel(), dtype)


def _complex(re, im, dtype):
    z = np.zeros(np.broadcast(re, im).shape, dtype)
    z.real, z.imag = re, im
    return z


def branch_points(dtype):
    """Points on and next to the branch cuts of sqrt/log/arc*: both real half-axes and
    both imaginary half-axes, with each sign of zero in the other part and a tiny
    offset to either side."""
    tiny = float(np.finfo(_real_of(dtype)).tiny)
    off = [0.0, -0.0, 1e-30, -1e-30, tiny, -tiny]
    axis = [-3.0, -1.0, -0.5, 0.5, 1.0, 3.0, -1e20, 1e20]
    re = [a for a in axis for _ in off] + [o for _ in axis for o in off]
    im = [o for _ in axis for o in off] + [a for a in axis for _ in off]
    return _complex(np.array(re), np.array(im), dtype)


def random_points(dtype, n=64, seed=0):
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(-3, 3, n)
    return _complex(rng.standard_normal(n) * mag, rng.standard_normal(n) * mag, dtype)


def all_points(dtype):
    return np.concatenate([special_grid(dtype), branch_points(dtype), random_points(dtype)])


def matrix(dtype, n=4, seed=1, kind="general"):
    rng = np.random.default_rng(seed)
    a = _complex(rng.standard_normal((n, n)), rng.standard_normal((n, n)), dtype)
    if kind == "hermitian":
        a = (a + a.conj().T) / 2
    elif kind == "hpd":
        a = a @ a.conj().T + n * np.eye(n, dtype=dtype)
    return a.astype(dtype)


# ----------------------------------------------------------------------------- cases

class Case:
    """One function on one set of arguments. ``fn(m, *args)`` runs with ``m`` any of
    numpy, tjit.numpy, jax.numpy; ``canon(out, args)`` turns an output into arrays to
    compare (invariants for decompositions whose factors are not unique)."""

    def __init__(self, name, fn, args, canon=None, vmap=True, jit=True, rtol=None,
                 normwise=False, exact=None):
        self.name, self.fn, self.args = name, fn, args
        self.exact = exact  # exact(*complex128 args) -> the reference, where NumPy's is not
        self.canon, self.vmap, self.jit, self.rtol = canon, vmap, jit, rtol
        self.normwise = normwise  # error relative to the whole result (fft, linalg)


UNARY = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "exp2",
         "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "arcsinh", "arccosh", "arctanh", "reciprocal", "abs", "absolute", "angle",
         "sign", "conj", "conjugate", "real", "imag", "square", "negative", "positive",
         "isfinite", "isinf", "isnan", "nan_to_num", "round", "around", "rint", "sinc",
         "iscomplex", "isreal", "fabs_of_abs"]
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "power", "float_power",
          "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "isclose"]


#: mpmath's function for each unary jnp function it can serve as the reference for
_MP = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p",
       "log2": lambda m, z: m.log(z) / m.log(2), "log10": lambda m, z: m.log(z) / m.log(10),
       "exp2": lambda m, z: m.power(2, z), "sin": "sin", "cos": "cos", "tan": "tan",
       "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh",
       "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
       "reciprocal": lambda m, z: 1 / z, "sign": lambda m, z: z / abs(z),
       "square": lambda m, z: z * z,
       "rsqrt": lambda m, z: 1 / m.sqrt(z), "logistic": lambda m, z: 1 / (1 + m.exp(-z))}

#: lax functions NumPy lacks: NumPy's formula for each, tjit's and JAX's lax for the others
_LAX_FORMULAS = {"rsqrt": lambda z: 1 / np.sqrt(z), "logistic": lambda z: 1 / (1 + np.exp(-z))}


def _lax_unary(name):
    def f(m, z):
        if m is np:
            return _LAX_FORMULAS[name](z)
        return getattr(tjit.lax if m is tjnp else jax.lax, name)(z)
    return f


def mp_reference(name):
    """``ref(z)``: mpmath where both parts of ``z`` are finite and nonzero (off every
    axis, so off every branch cut; analytic there), at 120 bits plus the parts' exponents
    (so that z + 1 and re + im are exact), NumPy elsewhere (C99's special values and
    signed zeros). None without mpmath."""
    try:
        import mpmath
    except ImportError:
        return None
    f = _MP[name]
    f = (lambda g: lambda z: g(mpmath, z))(f) if callable(f) else getattr(mpmath, f)

    def ref(z):
        with np.errstate(all="ignore"):
            out = (getattr(np, name) if hasattr(np, name) else _LAX_FORMULAS[name])(z)
        for k in np.ndindex(z.shape):
            c = complex(z[k])
            if np.isfinite(c) and c.real != 0 and c.imag != 0:
                # bits enough to add the parts and 1 exactly (acosh(0.5 - 1e-307j) cancels)
                er, ei = np.log2(abs(c.real)), np.log2(abs(c.imag))
                with mpmath.workprec(120 + int(max(abs(er), abs(ei), abs(er - ei)))):
                    out[k] = _mp_to_complex(f(mpmath.mpc(c.real, c.imag)))
        return out
    return ref


def _mp_to_complex(v):
    parts = []
    for p in (v.real, v.imag):
        try:
            parts.append(float(p))
        except OverflowError:
            parts.append(np.inf if p > 0 else -np.inf)
    return complex(*parts)


def _np_name(m, name):
    # NumPy's float_power computes in complex128; JAX's (and tjit's) keeps complex64, so
    # the value to compare is NumPy's power (the dtype is listed in KNOWN)
    return "power" if m is np and name == "float_power" else name


def _unary(name):
    if name == "fabs_of_abs":  # a real kernel fed by a complex op
        return lambda m, z: m.sqrt(m.abs(z)) * 2.0 + m.real(z)
    return lambda m, z: getattr(m, name)(z)


def elementwise_cases(dtype):
    pts = all_points(dtype)
    cases = [Case(n, _unary(n), [pts], exact=mp_reference(n) if n in _MP else None)
             for n in UNARY]
    cases.append(Case("reciprocal/exact", _unary("reciprocal"), [pts],
                      exact=lambda z: exact_quotient(np.ones_like(z), z)))
    cases += [Case("lax." + n, _lax_unary(n), [pts], exact=mp_reference(n))
              for n in _LAX_FORMULAS]
    cases += [Case("angle_deg", lambda m, z: m.angle(z, deg=True), [pts]),
              Case("round_1", lambda m, z: m.round(z, 1), [random_points(dtype)]),
              Case("nan_to_num_args", lambda m, z: m.nan_to_num(z, nan=1.5, posinf=7.0,
                                                                neginf=-7.0), [pts])]
    # binary ops: every pair of a smaller grid (specials x specials and randoms)
    p = _parts(dtype)[:12]
    g = _complex(np.repeat(p, len(p)), np.tile(p, len(p)), dtype)
    x, y = np.meshgrid(g, g, indexing="ij")
    xs, ys = x.ravel(), y.ravel()
    r1, r2 = random_points(dtype, 64, 2), random_points(dtype, 64, 3)
    for n in BINARY:
        f = (lambda n: lambda m, a, b: getattr(m, _np_name(m, n))(a, b))(n)
        exact = exact_quotient if n in ("divide", "true_divide") else None
        cases.append(Case(n, f, [xs, ys], exact=exact))
        cases.append(Case(n + "/random", f, [r1, r2], exact=exact))
    cases += [
        Case("isclose_equal_nan", lambda m, a, b: m.isclose(a, b, equal_nan=True), [xs, ys]),
        Case("allclose_equal_nan", lambda m, a, b: m.allclose(a, a, equal_nan=True),
             [xs, ys], vmap=False),
        Case("allclose", lambda m, a, b: m.allclose(a, b * (1 + 1e-9)), [r1, r2], vmap=False),
        Case("divide_huge_den", lambda m, a, b: a / b, exact=exact_quotient, args=
             [_complex(np.array([1.0, 1e300, 1.0, 3.0, 1e-300]),
                       np.array([1.0, 1e300, -1.0, 4.0, 1e-300]), dtype),
              _complex(np.array([1e300, 1e300, 1e-300, 1e-310, 1e-300]),
                       np.array([1e300, -1e300, 1e-300, 2e-310, 2e-300]), dtype)]),
        Case("divide_huge_num", lambda m, a, b: a / b, exact=exact_quotient, args=
             [_complex(np.array([1.0, 0.5, 1.0, 1.0]), np.array([1.0, -0.5, 0.0, 0.0]), dtype)
              * np.finfo(_real_of(dtype)).max,
              _complex(np.array([1.0, 0.5, 4.0, 0.5]), np.array([1.0, 0.5, 0.0, 0.0]), dtype)]),
        Case("divide_tiny", lambda m, a, b: a / b, exact=exact_quotient, args=
             [_complex(np.array([1.0, 1.0, 3.0, 2.0]), np.array([1.0, 0.0, 4.0, 0.0]), dtype)
              * np.finfo(_real_of(dtype)).smallest_subnormal * 8,
              _complex(np.array([1.0, 0.0, 4.0, 1.0]), np.array([1.0, 1.0, 3.0, 0.0]), dtype)
              * np.finfo(_real_of(dtype)).smallest_subnormal * 8]),
        Case("multiply_inf", lambda m, a, b: a * b,
             [_complex(np.array([INF, INF, 1.0, 0.0, NAN, INF]),
                       np.array([0.0, NAN, 0.0, INF, INF, INF]), dtype),
              _complex(np.array([1.0, 1.0, INF, 1.0, 1.0, 0.0]),
                       np.array([1.0, 0.0, INF, 0.0, 0.0, 0.0]), dtype)]),
    ]
    # powers: real exponents (integer_pow for Python ints), 0**0, 0**-1, inf**x
    base = np.concatenate([random_points(dtype, 32, 4),
                           _complex(np.array([0.0, -0.0, INF, -INF, 0.0, 1.0, -1.0, NAN]),
                                    np.array([0.0, 0.0, 0.0, 0.0, INF, 0.0, -0.0, 0.0]),
                                    dtype)])
    for e in [0, 1, 2, 3, -1, -2, 5, 0.5, -0.5, 2.5, 0.0, -1.0]:
        cases.append(Case(f"power_scalar[{e!r}]", (lambda e: lambda m, z: z ** e)(e), [base]))
        cases.append(Case(f"power_fn[{e!r}]",
                          (lambda e: lambda m, z: m.power(z, e))(e), [base]))
    exps = _complex(np.array([0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 0.0, 1.0]),
                    np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]), dtype)
    zb, ze = np.meshgrid(base, exps, indexing="ij")
    cases.append(Case("power_complex_exp", lambda m, a, b: m.power(a, b),
                      [zb.ravel(), ze.ravel()]))
    return cases


def exact_quotient(x, y):
    """``x / y`` rounded once from exact rational arithmetic, for finite operands and a
    nonzero denominator (NumPy's own quotient elsewhere; it also gives the sign of zero)."""
    x, y = np.broadcast_arrays(x, y)
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    for k in np.ndindex(out.shape):
        a, c = complex(x[k]), complex(y[k])
        if not (np.isfinite(a) and np.isfinite(c) and c != 0):
            continue
        ar, ai, cr, ci = (Fraction(v) for v in (a.real, a.imag, c.real, c.imag))
        den = cr * cr + ci * ci
        parts = [(ar * cr + ai * ci) / den, (ai * cr - ar * ci) / den]
        vals = [_round_fraction(f, z) for f, z in zip(parts, (out[k].real, out[k].imag))]
        out[k] = complex(*vals)
    return out


def _round_fraction(f, zero_like):
    if f == 0:
        return 0.0 * np.sign(zero_like) if zero_like != 0 else zero_like
    try:
        return float(f)
    except OverflowError:
        return np.inf if f > 0 else -np.inf


def _sorted_complex(v):
    v = np.asarray(v).ravel()
    return v[np.lexsort((v.imag, v.real))]


def _eig_canon(out, args):
    w, v = (np.asarray(o) for o in out)
    a = np.asarray(args[0]).astype(np.complex128)
    resid = np.linalg.norm(a @ v - v * w) / np.linalg.norm(a)
    return _sorted_complex(w), np.array([resid < 1e-4]), np.array([w.dtype.char, v.dtype.char])


def _svd_canon(out, args):
    u, s, vh = (np.asarray(o) for o in out)
    a = np.asarray(args[0]).astype(np.complex128)
    ok = np.linalg.norm((u * s) @ vh - a) / np.linalg.norm(a) < 1e-4
    return s, np.array([ok]), np.array([u.dtype.char, s.dtype.char, vh.dtype.char])


def _qr_canon(out, args):
    q, r = (np.asarray(o) for o in out)
    a = np.asarray(args[0]).astype(np.complex128)
    ok = np.linalg.norm(q @ r - a) / np.linalg.norm(a) < 1e-4
    upper = np.allclose(np.tril(r, -1), 0)
    unitary = np.allclose(q.conj().T @ q, np.eye(q.shape[1]), atol=1e-4)
    return np.abs(np.diag(r)), np.array([ok, upper, unitary]), np.array([q.dtype.char])


def _eigh_canon(out, args):
    w, v = (np.asarray(o) for o in out)
    a = np.asarray(args[0]).astype(np.complex128)
    ok = np.linalg.norm(a @ v - v * w) / np.linalg.norm(a) < 1e-4
    return w, np.array([ok]), np.array([w.dtype.char, v.dtype.char])


def _roots_canon(out, args):
    return (_sorted_complex(out),)


def array_cases(dtype):
    v = random_points(dtype, 12, 5)
    v2 = random_points(dtype, 12, 6)
    with_nan = v.copy()
    with_nan[[2, 7]] = [complex(NAN, 1.0), complex(1.0, NAN)]
    ties = _complex(np.array([1.0, 1.0, -1.0, 1.0, 0.0, -0.0, 1.0, NAN]),
                    np.array([2.0, -1.0, 5.0, NAN, 0.0, 0.0, 2.0, 0.0]), dtype)
    a, b = matrix(dtype, seed=1), matrix(dtype, seed=2)
    m2 = np.stack([v.reshape(3, 4), v2.reshape(3, 4)])
    cases = [Case(n, (lambda n: lambda m, x: getattr(m, n)(x))(n), [m2[0]])
             for n in ["sum", "prod", "mean", "var", "std", "cumsum", "cumprod"]]
    cases += [Case(n + "_axis1", (lambda n: lambda m, x: getattr(m, n)(x, axis=1))(n), [m2[0]])
              for n in ["sum", "prod", "mean", "var", "std", "cumsum", "cumprod"]]
    cases += [
        Case("var_ddof1", lambda m, x: m.var(x, ddof=1), [v]),
        Case("nanmean", lambda m, x: m.nanmean(x), [with_nan]),
        Case("nansum", lambda m, x: m.nansum(x), [with_nan]),
        Case("sort", lambda m, x: m.sort(x), [with_nan]),
        Case("sort_ties", lambda m, x: m.sort(x), [ties]),
        Case("argsort_ties", lambda m, x: m.argsort(x, stable=True), [ties]),
        Case("unique", lambda m, x: m.unique(x), [np.concatenate([ties, ties[:3]])],
             vmap=False, jit=False),  # (a data-dependent size: JAX raises under jit too)
        Case("max", lambda m, x: m.max(x), [v]),
        Case("min", lambda m, x: m.min(x), [v]),
        Case("argmax", lambda m, x: m.argmax(x), [ties[:-1]]),
        Case("argmin", lambda m, x: m.argmin(x), [ties[:-1]]),
        Case("dot", lambda m, x, y: m.dot(x, y), [v, v2]),
        Case("vdot", lambda m, x, y: m.vdot(x, y), [v, v2]),
        Case("inner", lambda m, x, y: m.inner(x, y), [v, v2]),
        Case("matmul", lambda m, x, y: x @ y, [a, b]),
        Case("einsum_conj", lambda m, x, y: m.einsum("ij,kj->ik", x, m.conj(y)), [a, b]),
        Case("einsum_trace", lambda m, x: m.einsum("ii->", x), [a]),
        Case("norm", lambda m, x: m.linalg.norm(x), [a]),
        Case("norm_vec_huge", lambda m, x: m.linalg.norm(x),
             [_complex(np.array([3e200, 4e200]), np.array([0.0, 0.0]), dtype)
              if dtype == np.complex128 else
              _complex(np.array([3e30, 4e30]), np.array([0.0, 0.0]), dtype)]),
        Case("norm_fro", lambda m, x: m.linalg.norm(x, "fro"), [a]),
        Case("norm_2", lambda m, x: m.linalg.norm(x, 2), [a]),
        Case("norm_nuc", lambda m, x: m.linalg.norm(x, "nuc"), [a]),
        Case("norm_1", lambda m, x: m.linalg.norm(x, 1), [a]),
        Case("det", lambda m, x: m.linalg.det(x), [a]),
        Case("slogdet", lambda m, x: tuple(m.linalg.slogdet(x)), [a]),
        Case("inv", lambda m, x: m.linalg.inv(x), [a]),
        Case("pinv", lambda m, x: m.linalg.pinv(x), [a]),
        Case("solve", lambda m, x, y: m.linalg.solve(x, y), [a, b]),
        Case("lstsq", lambda m, x, y: m.linalg.lstsq(x, y)[0], [a, b]),
        Case("eigvals", lambda m, x: m.linalg.eigvals(x), [a], canon=lambda o, _: (
            _sorted_complex(o),)),
        Case("eig", lambda m, x: tuple(m.linalg.eig(x)), [a], canon=_eig_canon),
        Case("eigh", lambda m, x: tuple(m.linalg.eigh(x)), [matrix(dtype, kind="hermitian")],
             canon=_eigh_canon),
        Case("eigvalsh", lambda m, x: m.linalg.eigvalsh(x), [matrix(dtype, kind="hermitian")]),
        Case("svd", lambda m, x: tuple(m.linalg.svd(x)), [a], canon=_svd_canon),
        Case("svdvals", lambda m, x: m.linalg.svd(x, compute_uv=False), [a]),
        Case("qr", lambda m, x: tuple(m.linalg.qr(x)), [a], canon=_qr_canon),
        Case("cholesky", lambda m, x: m.linalg.cholesky(x), [matrix(dtype, kind="hpd")]),
        Case("matrix_power", lambda m, x: m.linalg.matrix_power(x, 3), [a]),
        Case("matrix_rank", lambda m, x: m.linalg.matrix_rank(x), [a]),
        Case("trace", lambda m, x: m.trace(x), [a]),
        Case("fft_roundtrip", lambda m, x: m.fft.ifft(m.fft.fft(x)), [v]),
        Case("fft", lambda m, x: m.fft.fft(x), [v]),
        Case("fft2", lambda m, x: m.fft.fft2(x), [a]),
        Case("ifftn", lambda m, x: m.fft.ifftn(x), [a]),
        Case("fftshift", lambda m, x: m.fft.fftshift(x), [v]),
        Case("polyval", lambda m, p, x: m.polyval(p, x), [v[:5], v2]),
        Case("roots", lambda m, p: m.roots(p), [v[:5]], canon=_roots_canon, vmap=False,
             jit=False),
        Case("convolve", lambda m, x, y: m.convolve(x, y), [v, v2[:5]]),
        Case("correlate", lambda m, x, y: m.correlate(x, y, "full"), [v, v2[:5]]),
        Case("polymul", lambda m, x, y: m.polymul(x, y), [v[:4], v2[:3]]),
        Case("outer", lambda m, x, y: m.outer(x, y), [v[:4], v2[:3]]),
        Case("cross", lambda m, x, y: m.cross(x, y), [v[:3], v2[:3]]),
        Case("kron", lambda m, x, y: m.kron(x, y), [v[:3], v2[:2]]),
        Case("diff", lambda m, x: m.diff(x), [v]),
        Case("interp_real_fp", lambda m, x: m.interp(m.real(x), m.asarray([-1.0, 1.0]),
                                                     m.asarray([1.0, 2.0])), [v]),
    ]
    for c in cases:
        c.normwise = True
    return cases


# ----------------------------------------------------------------------------- running

def _to_numpy(out):
    if isinstance(out, (tuple, list)):
        return tuple(_to_numpy(o) for o in out)
    return np.asarray(out)


def run_mode(case, mode, args):
    f = lambda *a: case.fn(tjnp, *a)  # noqa: E731
    if mode == "eager":  # tjit Arrays, so that operators (z ** 0.5) are tjit's too
        return f(*(tjnp.asarray(a) for a in args))
    if mode == "jit":
        return tjit.jit(f)(*args)
    if mode == "interp":
        return tjit.jit(f, backend="interpreter")(*args)
    if mode == "vmap":
        # batch of two: the arguments and their reversal along the leading axis
        batched = [np.stack([x, x[::-1]]) for x in args]
        out = tjit.vmap(f)(*batched)
        return _first(out)
    raise ValueError(mode)


def _first(out):
    if isinstance(out, (tuple, list)):
        return tuple(_first(o) for o in out)
    return np.asarray(out)[0]


def _flat(out, case, args):
    out = _to_numpy(out)
    if case.canon is not None:
        out = case.canon(out, args)
    if not isinstance(out, tuple):
        out = (out,)
    return [np.asarray(o) for o in out]


def bad_elements(got, want, rtol, normwise=False):
    """Mask of elements of ``got`` that disagree with ``want`` (same shape)."""
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind in "biuUS":
        return got != want
    g = got.astype(np.complex128)
    w = want.astype(np.complex128)
    bad = np.zeros(w.shape, bool)
    for gp, wp in ((g.real, w.real), (g.imag, w.imag)):
        bad |= np.isnan(wp) != np.isnan(gp)
        bad |= np.isinf(wp) & (gp != wp)
        if not normwise:
            bad |= (wp == 0) & (gp == 0) & (np.signbit(wp) != np.signbit(gp))
    finite = np.isfinite(w) & np.isfinite(g)
    with np.errstate(all="ignore"):
        scale = np.linalg.norm(w[finite]) if normwise else np.abs(w)
        err = np.abs(g - w) / np.maximum(scale, 1e-300)
        bad |= finite & (err > rtol) & (np.abs(g - w) > 1e-300)
    bad |= np.isfinite(w) & ~np.isfinite(g)
    return bad


def reference(case, dtype):
    """NumPy's answers: computed from complex128 inputs and rounded to the dtype NumPy gives
    the ``dtype`` inputs, and computed in ``dtype`` itself (complex64's intermediate
    overflows, float32 products of huge arguments to sin/cos: an answer that matches
    either is NumPy's). Returns (rounded, native, dtypes) or raises what NumPy raised."""
    wide = [x.astype(np.complex128) if x.dtype.kind == "c" else x for x in case.args]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        native = _flat(case.fn(np, *case.args), case, case.args)
        precise = _flat((case.exact or functools.partial(case.fn, np))(*wide), case, wide)
        # (a decomposition's dtype record is the native one's: complex64 stays complex64)
        rounded = [p.astype(n.dtype) if n.dtype.kind in "fc" else n if n.dtype.kind == "U"
                   else p for p, n in zip(precise, native)]
    # an exact reference stands alone: NumPy's own answer is what it corrects
    return rounded, (rounded if case.exact else native), [n.dtype for n in native]


def jax_value(case, args):
    if jjnp is None:
        return None
    try:
        # JAX arrays, so that operators (z ** -1) are JAX's too, not NumPy's
        return _flat(case.fn(jjnp, *(jjnp.asarray(a) for a in args)), case, args)
    except Exception as e:  # noqa: BLE001 - reported as text
        return f"{type(e).__name__}: {e}"[:120]


def compare(case, dtype, modes, verbose):
    """Yields (mode, message, agrees_with_jax) for each disagreement."""
    try:
        want, native, want_dt = reference(case, dtype)
    except Exception as e:  # noqa: BLE001
        want, native, want_dt = e, None, None
    rtol = case.rtol or (2e-5 if dtype == np.complex64 else 1e-11)
    for mode in modes:
        if (mode == "vmap" and not case.vmap) or (mode in ("jit", "interp") and not case.jit):
            continue
        args = case.args
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = _flat(run_mode(case, mode, args), case, args)
        except Exception as e:  # noqa: BLE001
            if isinstance(want, Exception):
                continue
            yield mode, f"raised {type(e).__name__}: {str(e)[:150]}", None
            continue
        if isinstance(want, Exception):
            yield mode, f"NumPy raised {type(want).__name__}, tjit gave {got}", None
            continue
        jx = None
        for i, (g, w, wn, wdt) in enumerate(zip(got, want, native, want_dt)):
            if g.dtype != wdt and case.canon is None:
                jx = jx or jax_value(case, args)
                same = not isinstance(jx, str) and jx is not None and jx[i].dtype == g.dtype
                yield mode, f"dtype {g.dtype}, NumPy {wdt}", same
            if g.shape != w.shape:
                yield mode, f"shape {g.shape}, NumPy {w.shape}", None
                continue
            # (an exact reference knows a value, not the sign its underflow rounds to)
            bad = bad_elements(g, w, rtol, case.normwise or case.exact is not None)
            if wn.shape == g.shape:
                bad &= bad_elements(g, wn, rtol, case.normwise or case.exact is not None)
            if not bad.any():
                continue
            jx = jx or jax_value(case, args)
            idx = np.flatnonzero(bad.ravel())
            fewer = _fewer_nans(g, w, wn, args)[idx]
            if fewer.any():  # NumPy's NaN where tjit gives a number: listed for review
                yield mode, _show(f"{fewer.sum()}/{bad.size} are NaN in NumPy only", idx[fewer],
                                  g, w, jx, i, args, verbose), "recovered"
                idx = idx[~fewer]
                if not idx.size:
                    continue
            if isinstance(jx, str) or jx is None or jx[i].shape != g.shape:
                yield mode, _show(f"{bad.sum()}/{bad.size} differ", idx, g, w, jx, i, args,
                                  verbose), False
                continue
            off_jax = bad_elements(g, jx[i].astype(g.dtype), rtol, case.normwise).ravel()
            for same, part in ((False, idx[off_jax[idx]]), (True, idx[~off_jax[idx]])):
                if part.size:
                    what = "differ from NumPy and JAX" if not same else "differ, as JAX's"
                    yield mode, _show(f"{part.size}/{bad.size} {what}", part, g, w, jx, i,
                                      args, verbose), same


def _nan_parts(v):
    v = np.asarray(v)
    if v.dtype.kind != "c":
        return np.isnan(v).astype(int) if v.dtype.kind == "f" else np.zeros(v.shape, int)
    return np.isnan(v.real).astype(int) + np.isnan(v.imag)


def _fewer_nans(g, w, wn, args):
    """Elements (flat) of NaN-free inputs where tjit's value has fewer NaN parts than
    both NumPy answers."""
    fewer = (_nan_parts(g) < _nan_parts(w)) & (_nan_parts(g) < _nan_parts(wn))
    for a in args:
        a = np.asarray(a)
        if a.shape != g.shape:
            return np.zeros(g.size, bool)
        fewer &= _nan_parts(a) == 0
    return fewer.ravel()


def _show(head, idx, g, w, jx, i, args, verbose):
    lines = [head]
    for k in idx[: (8 if verbose else 3)]:
        inp = ", ".join(repr(complex(np.asarray(a).ravel()[k])) if np.asarray(a).size == g.size
                        else "..." for a in args)
        jv = jx if isinstance(jx, str) else (jx[i].ravel()[k] if jx is not None
                                             and jx[i].size == g.size else None)
        lines.append(f"    ({inp}) -> tjit {_r(g.ravel()[k])}, numpy {_r(w.ravel()[k])}, "
                     f"jax {_r(jv)}")
    return "\n".join(lines)


def _r(x):
    return repr(complex(x)) if isinstance(x, np.complexfloating) else repr(x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated case names (prefixes)")
    ap.add_argument("--dtype", default="complex128,complex64")
    ap.add_argument("--modes", default="eager,jit,interp,vmap")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    only = [s for s in a.only.split(",") if s]
    modes = a.modes.split(",")
    counts = {"defect": 0, "jax": 0, "recovered": 0, "known": 0, "cases": 0}
    for dname in a.dtype.split(","):
        dtype = np.dtype(dname).type
        for case in elementwise_cases(dtype) + array_cases(dtype):
            if only and not any(case.name.startswith(o) for o in only):
                continue
            counts["cases"] += 1
            seen = set()
            for mode, msg, same in compare(case, dtype, modes, a.verbose):
                key = (msg.split("\n")[0], same)
                default = ("KNOWN", "known") if case.name in KNOWN else ("DEFECT", "defect")
                tag, kind = {True: ("tjit == JAX", "jax"),
                             "recovered": ("NUMPY NAN", "recovered")}.get(same, default)
                counts[kind] += 1
                if key in seen and not a.verbose:  # same message in another mode
                    print(f"  {case.name} {dname} [{mode}] same as above")
                    continue
                seen.add(key)
                note = f" ({KNOWN[case.name]})" if case.name in KNOWN else ""
                print(f"{tag}: {case.name} {dname} [{mode}] {msg}{note}")
    print(f"\n{counts['cases']} cases; {counts['defect']} disagreements unexplained, "
          f"{counts['known']} KNOWN, {counts['jax']} where tjit agrees with JAX, "
          f"{counts['recovered']} where NumPy alone gives NaN")
    return 1 if counts["defect"] else 0


if __name__ == "__main__":
    sys.exit(main())
