"""comb/beta/poch where they were exp of a large log-sum: the log is now kept as a
double-double pair (tjit/scipy/_special_dd.py), so exp no longer amplifies its rounding.

Reference values: mpmath 1.3 at 40 digits, ``mp.binomial(N, k)``, ``mp.beta(a, b)``,
``mp.rf(z, m)`` (rising factorial) and ``mp.log(x)``, with the arguments as the
float32/float64 values the tests pass (``mp.mpf(float(np.float32(a)))``)."""

from fractions import Fraction

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as sp
from tjit.scipy import _special_dd

# (function, a, b, dtype, mpmath value); before the pairs (exp of the log-sum):
# comb(1000, 500) 607 ulps, comb(100, 45) float32 26.9, beta(251, 251) 141,
# poch(-20.3, -20.4) float32 70.6, poch(199.5, 34.9) 28 (JAX 0.10.2: 1.4e3, 370, -,
# 1.2e7, inf)
_CASES = [
    ("comb", 1000.0, 500.0, np.float64, "2.702882409454365695156147e+299"),
    ("comb", 100000.0, 85.0, np.float64, "3.425219597512255645814932e+296"),
    ("comb", 600.0, 37.0, np.float64, "1.447800388851733857589536e+59"),
    ("comb", 100.0, 45.0, np.float32, "6.144847121413617959672059e+28"),
    ("comb", 120.0, 20.0, np.float32, "29462227291176635718126.0"),
    ("comb", 1e12, 7.5, np.float64, "7.125345438990888936120918e+85"),   # (161 ulps)
    ("comb", 1e17, 3.5, np.float64, "2.718665319851841579403484e+58"),  # (23; mpmath: 100 digits)
    ("comb", 1e5, 2.5, np.float32, "951515020755.3031645479318"),        # (50 ulps)
    ("beta", 2.5, 1e5, np.float32, "4.203664593373853729978719e-13"),    # (9 ulps)
    ("beta", 0.3, 300.0, np.float64, "0.5406481021344052947751355"),
    ("beta", 251.0, 251.0, np.float64, "1.70972605437322340024501e-152"),
    ("beta", 1000.0, 10.5, np.float64, "3.409950017933028728301123e-26"),
    ("beta", 300.25, 160.5, np.float64, "1.098937096042423288070335e-130"),
    ("beta", 40.5, 100.0, np.float32, "1.055852818421066201863626e-37"),
    ("beta", 20.0, 300.0, np.float32, "1.876676926496129998981984e-33"),
    ("poch", 199.52623149688787, 34.90254878959579, np.float64,
     "3.129117359667707628441347e+81"),
    ("poch", 300.5, 90.25, np.float64, "8.712280432043943269731459e+228"),
    ("poch", -150.3, -20.4, np.float64, "9.697765204207760449274828e-46"),
    ("poch", -20.3, -20.4, np.float32, "5.509697865024845153173457e-31"),
    ("poch", -30.7, -12.2, np.float32, "1.848314479056297856878172e-19"),
    ("poch", 199.5, -10.4, np.float32, "1.629516237905856107561608e-24"),
]


def _ulps(got, want, dtype):
    return abs(float(got) - float(want)) / float(np.spacing(dtype(abs(float(want)))))


@pytest.mark.parametrize("name,a,b,dtype,want", _CASES)
def test_large_argument_paths_vs_mpmath(name, a, b, dtype, want, x64):
    f = getattr(sp, name)
    # the point alone and among lanes of other branches (the select keeps each lane's;
    # tests/test_special_eager_branches.py checks those lanes against every branch)
    a_arr = np.array([a, 3.0, 7.5], dtype)
    b_arr = np.array([b, 2.0, 1.5], dtype)
    for g in (f, tjit.jit(f)):
        out = np.asarray(g(jnp.asarray(a_arr), jnp.asarray(b_arr)))
        assert out.dtype == dtype
        assert _ulps(out[0], want, dtype) <= 3, (name, a, b, out[0], want)
    assert _ulps(f(dtype(a), dtype(b)), want, dtype) <= 3


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_narrow_types_take_the_pairs_in_float32(dtype):
    # float16/bfloat16: the pair formulas run in float32 (fma has no narrower types) and
    # round once; mpmath: binomial(18.25, 9.125) = 57432.77 (non-integer: no product),
    # beta(12, 12) = 6.1633525e-8 (bfloat16 only: a float16 subnormal)
    cases = [(sp.comb, 18.25, 9.125, 57432.7715797002943)]
    if dtype == jnp.bfloat16:
        cases.append((sp.beta, 12.0, 12.0, 6.16335250875565857e-08))
    for f, a, b, want in cases:
        for g in (f, tjit.jit(f)):
            got = g(jnp.asarray(a, dtype), jnp.asarray(b, dtype))
            assert got.dtype == dtype
            assert abs(float(got) / want - 1) <= float(jnp.finfo(dtype).eps), (f, got)


def test_edges_keep_the_old_limits(x64):
    # beta's infinite or huge arguments stay on exp(betaln): B(inf, 20) = 0; comb of a huge
    # N overflows to inf, of N = inf is NaN, as SciPy (no NaN from the pairs' sums)
    assert float(sp.beta(np.inf, 20.0)) == 0.0
    assert float(sp.beta(1e300, 1e300)) == 0.0
    assert float(sp.comb(1e300, 50.0)) == np.inf
    assert np.isnan(float(sp.comb(np.inf, 2.5))) and np.isnan(float(tjit.jit(sp.comb)(np.inf, 2.5)))
    # comb(N, 1/2) = Gamma(N + 1) / (Gamma(3/2) Gamma(N + 1/2)) -> sqrt(N) 2 / sqrt(pi)
    assert abs(float(sp.comb(1e300, 0.5)) / (1e150 * 1.1283791670955126) - 1) < 4e-16
    assert float(tjit.jit(sp.beta)(np.inf, 20.0)) == 0.0


_LOGS = [(3.0, "1.098612288668109691395245236922525704647"),
         (1000.0, "6.907755278982137052053974364053092622803"),
         (1.4142, "0.3465640001880033091390957586816390389383"),
         (0.70712, "-0.346554896229444576505199276313152962642"),
         (1e300, "690.7755278982137052579021966605136811507"),
         (2.5e-300, "-689.8592371663395501483110015921648714796"),
         (123456.789, "11.72364648718588101602963125293849251803")]


def test_log_pair_carries_twice_the_precision(x64):
    # hi + lo summed exactly (Fraction) against mpmath: within 2**-67 of max(|log|, 0.3)
    # where the log alone is within 2**-53 relative (what 1000 log(x) needs for 1 ulp);
    # the worst points of the reduction (m near sqrt 2 and 1 / sqrt 2) included
    x = np.array([v for v, _ in _LOGS])
    for run in (_special_dd.log_pair, tjit.jit(_special_dd.log_pair)):
        hi, lo = (np.asarray(p) for p in run(jnp.asarray(x)))
        for (_, want), h, l in zip(_LOGS, hi, lo):
            w = Fraction(want)
            bound = max(abs(w), Fraction(3, 10)) * Fraction(2) ** -67
            assert abs(Fraction(float(h)) + Fraction(float(l)) - w) <= bound, (float(w), h, l)


# mpmath: B(a, b) (digamma(a) - digamma(a + b)) and B(a, b) (digamma(b) - digamma(a + b))
_BETA_SLOPES = [((12.0, 200.0), ("-2.0524645765544487357e-20", "-4.117572995681446517e-22")),
                ((251.0, 130.5), ("-4.1705764872577342385e-108", "-1.0694101914730061095e-107")),
                ((40.5, 100.0), ("-1.3227080625036650465e-37", "-3.6055546669958896069e-38")),
                ((-2.5, 3.25), ("-4.3047974444443379818", "-4.1353488178253632329"))]


@pytest.mark.parametrize("args,want", _BETA_SLOPES)
def test_beta_gradient(args, want, x64):
    # differentiating beta's branches gave NaN where a gamma overflowed (the first two)
    # and a wrong sign at (40.5, 100); now B (digamma(a) - digamma(a + b)) by custom_jvp
    a, b = args
    for g in (tjit.grad(sp.beta, argnums=(0, 1)),):   # (jit of it: ~5 s to compile)
        for got, w in zip(g(a, b), want):
            assert abs(float(got) / float(w) - 1) < 1e-12
