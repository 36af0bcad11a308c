"""``erf_inv`` lowered to elementwise HLO ops, so that it fuses into kernels (the inverse
normal CDF of ``random.normal`` and ``truncated_normal`` runs inside the sampler's kernel
instead of as a SciPy library step).

float32 uses M. Giles' single-precision approximation ("Approximating the erfinv
function", GPU Computing Gems Jade, 2011), the one XLA's ErfInv32 expands to: with
``w = -log((1 - x)(1 + x))`` a degree-8 polynomial in ``w - 2.5`` for ``w < 5`` and in
``sqrt(w) - 3`` beyond, times ``x``. ``(1 - x)(1 + x)`` instead of ``1 - x*x`` keeps
``w`` accurate near ``|x| = 1`` (``1 - x`` is exact there). ``|x| = 1`` gives ``+-inf``;
``|x| > 1`` and NaN give NaN (the log of a negative number / NaN propagates).

Accuracy against SciPy's erfinv in float64 (1.2M float32 inputs over (-1, 1) and near
+-1): the approximation itself is within 1.73 ulp; evaluated in float32 the roundings of
the log and the two Horner chains take it to 3.6 ulp, so targets with float64 kernels
evaluate it in float64 and round once (2.23 ulp; SciPy's own float32 erfinv is off by up
to 2.9). That costs ~1 ms per million values on the CPU; a sampler stays well under
JAX's time (benchmarks/bench_random.py). Other dtypes keep the library step (float64
needs a higher-degree approximation).
"""

import numpy as np

# Giles' coefficients, highest degree first (Horner order).
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
            0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def erf_inv_float32(xp, x):
    """The same approximation on arrays of namespace ``xp`` (float32 ``x``, evaluated in
    float64, rounded once): the reference implementation of float32 ``erf_inv``, so
    eager values, the interpreter and compiled kernels agree (random.normal's bits do
    not depend on jit)."""
    x64 = x.astype(np.float64)
    w = -xp.log((1.0 - x64) * (1.0 + x64))
    with np.errstate(invalid="ignore"):
        central, t = 0.0, w - 2.5
        for c in _CENTRAL:
            central = central * t + c
        tail, t = 0.0, xp.sqrt(w) - 3.0
        for c in _TAIL:
            tail = tail * t + c
    p = xp.where(w < 5.0, central, tail)
    y = xp.where(xp.abs(x64) == 1.0, x64 * np.inf, p * x64)
    return y.astype(np.float32)


def _horner(ctx, coeffs, t):
    const = lambda c: ctx.constant(np.asarray(c, t.dtype))
    p = const(coeffs[0])
    for c in coeffs[1:]:
        p = ctx.elementwise("add", [ctx.elementwise("mul", [p, t]), const(c)])
    return p


def erf_inv_lowering(ctx, x):
    """HLO ops computing ``erf_inv(x)`` for float32 ``x``; NotImplemented otherwise."""
    if x.dtype != np.float32:
        return NotImplemented
    if np.dtype(np.float64) in ctx.target.kernel_dtypes:
        x = ctx.convert(x, np.float64)
    const = lambda c: ctx.constant(np.asarray(c, x.dtype))
    op = lambda name, *args: ctx.elementwise(name, list(args))
    one = const(1.0)
    w = op("neg", op("log", op("mul", op("sub", one, x), op("add", one, x))))
    central = _horner(ctx, _CENTRAL, op("sub", w, const(2.5)))
    tail = _horner(ctx, _TAIL, op("sub", op("sqrt", w), const(3.0)))
    p = op("select", op("lt", w, const(5.0)), central, tail)
    at_one = op("eq", op("abs", x), one)
    y = op("select", at_one, op("mul", x, const(np.inf)), op("mul", p, x))
    return ctx.convert(y, np.float32)
