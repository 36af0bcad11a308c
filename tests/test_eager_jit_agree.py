"""Eager calls, jit and the reference interpreter agree (benchmarks/diff_eager_jit.py is the
full hunt): eager runs each primitive's reference implementation (NumPy/SciPy), jit runs
tjit's kernels, eval_jaxpr_reference the traced equations one by one, so a function whose
paths take different algorithms shows up here. Every one-argument function of tjit.numpy,
tjit.lax, tjit.scipy.special and tjit.nn is found by introspection and run on the same
tails and specials in float32 and float64; a new function is covered without listing it.
"""

import inspect

import numpy as np
import pytest
import scipy.special as ss

import tjit
import tjit.lax as tlax
import tjit.nn as tnn
import tjit.numpy as tnp
import tjit.scipy.special as tsp
from tjit.tracing.jaxpr import eval_jaxpr_reference

POINTS = [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 0.1, -0.1, 0.5, -0.5, 0.99, -0.99, 1.0,
          -1.0, 1.5, -1.5, 2.5, -2.5, 5.970329, -5.970329, 10.0, -10.0, 30.0, -30.0, 88.0,
          -88.0, 700.0, -700.0, 1e30, -1e30, np.inf, -np.inf, np.nan]

# ulps allowed between any two of eager / jit / reference: mathlib's bounds (the largest,
# 5.5 / 3.5) plus the other side's rounding, unless listed
VALUE_ULPS = {np.float32: 8.0, np.float64: 8.0}
VALUE_ALLOWANCE = {
    # float64 lgamma by reflection on x < 0: mathlib_special states its error in ulps of
    # the larger term, lgamma(1 - x) (at -2.5 the 16 ulps of the result are 0.3 of those)
    ("lgamma", np.float64): 32, ("gammaln", np.float64): 32,
    # exp(lgamma(x)): one ulp of lgamma(88) ~ 302 is ~300 ulps of the result, both paths
    ("gamma", np.float64): 1024, ("factorial", np.float64): 1024,
    # Borwein's alternating sum on (0, 1): exp's last bits times 24 terms (14 at 1e-8)
    ("zeta", np.float64): 32,
}
GRAD_ULPS = {np.float32: 32.0, np.float64: 64.0}
# tanh' = (1 + t)(1 - t) from t = tanh(x) (elementwise._tanh_slope, given up for cost):
# its error is absolute, ~eps, so relative to a small slope eager (NumPy's t) and jit (the
# kernel's t) differ by 1e4-1e8 ulps; test_tanh_slope_absolute bounds it instead
GRAD_SKIP = {"tanh", "mish"}
SKIP = {"stop_gradient", "optimization_barrier", "reduce_precision", "asarray", "array",
        "copy", "nextafter"}


def public_callables(skip):
    """(prefix, name, fn) for the public callables of jnp, lax, special and nn, less
    ``skip`` (benchmarks/diff_eager_jit.py hunts over the same list)."""
    out = []
    for prefix, mod in (("jnp", tnp), ("lax", tlax), ("special", tsp), ("nn", tnn)):
        for name in sorted(dir(mod)):
            obj = getattr(mod, name, None)
            if name.startswith("_") or name in skip or inspect.isclass(obj) \
                    or inspect.ismodule(obj) or not callable(obj):
                continue
            out.append((prefix, name, obj))
    return out


def _ulps(a, b, dtype):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(all="ignore"):
        scale = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(dtype)).astype(np.float64)
        scale = np.maximum(scale, float(np.finfo(dtype).smallest_subnormal))
        d = np.abs(a - b) / scale
    return np.where(same, 0.0, np.where(np.isnan(d), np.inf, d))


def _accepts(fn, x):
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(x))
    except Exception:
        return False
    return out.shape == x.shape and out.dtype == x.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_slopes_agree(x64, dtype):
    x = np.array(POINTS, dtype)
    compared, failures = 0, []
    for prefix, name, fn in public_callables(SKIP):
        if not _accepts(fn, x):
            continue
        try:
            with np.errstate(all="ignore"):
                eager = np.asarray(fn(x))
                jitted = np.asarray(tjit.jit(fn)(x))
                closed = tjit.make_jaxpr(fn)(x)
                ref = np.asarray(eval_jaxpr_reference(closed.jaxpr, closed.consts, [x])[0])
        except TypeError:       # eager-only by design (from_dlpack of a tracer)
            continue
        if not (eager.shape == jitted.shape == ref.shape == x.shape):
            continue                    # several results (unstack): not one map
        compared += 1
        bound = VALUE_ALLOWANCE.get((name, dtype), VALUE_ULPS[dtype])
        for pair, (a, b) in {"eager/jit": (eager, jitted), "jit/ref": (jitted, ref),
                             "eager/ref": (eager, ref)}.items():
            d = _ulps(a, b, dtype)
            k = int(np.argmax(d))
            if d[k] > bound:
                failures.append(f"{prefix}.{name}({x[k]!r}) {pair}: {a[k]!r} vs {b[k]!r}, "
                                f"{d[k]:.3g} ulps")
        if name in GRAD_SKIP:
            continue
        slope = tjit.vmap(tjit.grad(lambda v, fn=fn: fn(v)))
        try:
            with np.errstate(all="ignore"):
                ge = np.asarray(slope(x))
                gj = np.asarray(tjit.jit(slope)(x))
        except Exception:
            continue
        d = _ulps(ge, gj, dtype)
        k = int(np.argmax(d))
        if d[k] > max(bound, GRAD_ULPS[dtype]):
            failures.append(f"grad {prefix}.{name}({x[k]!r}) eager/jit: {ge[k]!r} vs "
                            f"{gj[k]!r}, {d[k]:.3g} ulps")
    assert compared > 150, compared     # discovery still finds the elementwise surface
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_slope_absolute(x64, dtype):
    """Both paths' tanh' within 2 eps (absolute) of sech(x)**2, the rule's promise."""
    x = np.array([0.0, 1e-8, 0.5, 1.0, 2.5, 5.0, 5.970329, 10.0, 20.0, -3.0], dtype)
    true = 1.0 / np.cosh(x.astype(np.float64)) ** 2
    slope = tjit.vmap(tjit.grad(tnp.tanh))
    eps = float(np.finfo(dtype).eps)
    for got in (slope(x), tjit.jit(slope)(x)):
        np.testing.assert_array_less(np.abs(np.asarray(got, np.float64) - true), 2 * eps)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_riemann_zeta_reflected_side(x64, dtype, jit):
    """zeta(x) for x <= 0: trivial zeros exactly 0 (were 6.7e49 at -88, -2.4e-18 at -2),
    float32 overflow to -inf (was NaN at -101) and |x| < eps/2 (float32 -1e-8: NaN), vs
    SciPy float64."""
    x = np.array([-2.0, -4.0, -88.0, -300.0, -3.0, -0.5, -4.5, -1e-3, -1e-8, -1e-30, -0.0,
                  0.0, 1e-30, -101.0, -170.5], dtype)
    fn = tjit.jit(tsp.zeta) if jit else tsp.zeta
    with np.errstate(all="ignore"):
        got = np.asarray(fn(x))
        true = ss.zeta(x.astype(np.float64)).astype(dtype)
    zeros = (x < 0) & (x % 2 == 0)
    assert np.all(got[zeros] == 0), got[zeros]
    np.testing.assert_array_equal(np.isinf(got), np.isinf(true))
    np.testing.assert_array_equal(np.sign(got[np.isinf(got)]), np.sign(true[np.isinf(true)]))
    finite = np.isfinite(true) & ~zeros
    # float32's reflection is exp(lgamma)-limited (~20 ulps at -21); float64 within 1e-13
    rtol = 4e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got[finite], true[finite], rtol=rtol)
