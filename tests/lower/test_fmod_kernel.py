"""Float ``rem`` in LLVM kernels (``tjit/lower/llvm/fmod.py``) is C's fmod bit for bit.

The kernel reduces in steps of ~50 bits of exponent difference with fma-exact updates,
so the inputs that could break it are the ones at its seams, each checked against
``np.fmod`` in the same dtype (bits compared; NaN where NumPy gives NaN):

* quotients within one ulp of an integer (the quotient estimate rounds to the wrong
  side), at every exponent difference from 0 to the largest (max float mod the smallest
  denormal), so every number of effective steps is exercised;
* divisors at the float64 kernel's phase boundary (2^-900: tiny divisors are reduced
  in two scaled phases), denormal divisors, divisors above 2^1022 (1/y is denormal);
* signs of both operands, and the special values (zeros, infinities, NaN).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


@pytest.fixture(params=[F32, F64], ids=["float32", "float64"])
def dt(request):
    if request.param == F64:
        request.getfixturevalue("x64")
    return request.param


def _check(x, y):
    got = np.asarray(tjit.jit(jnp.fmod)(jnp.asarray(x), jnp.asarray(y)))
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)
    assert got.dtype == want.dtype
    ok = (got.view(f"u{got.itemsize}") == want.view(f"u{got.itemsize}")) | (
        np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~ok)[:5]
    assert ok.all(), [(x[i], y[i], got[i], want[i]) for i in bad]


def _signed(rng, v):
    return v * rng.choice(np.array([-1, 1], v.dtype), v.size)


def test_near_integer_quotients_at_every_exponent_difference(dt):
    rng = np.random.default_rng(0)
    fi = np.finfo(dt)
    lo, hi = fi.minexp - fi.nmant, fi.maxexp - 1     # smallest denormal, largest exponent
    ey = rng.integers(lo, hi + 1, 20000)
    ex = np.minimum(ey + rng.integers(0, hi - lo + 1, ey.size), hi)
    with np.errstate(over="ignore", under="ignore"):
        y = np.ldexp(1 + rng.random(ey.size), ey).astype(dt)
        x = np.ldexp(1 + rng.random(ex.size), ex).astype(dt)
        # x rounded to a multiple of y where that is representable, then its neighbours
        k = np.floor(x.astype(np.float64) / y.astype(np.float64))
        base = (k * y.astype(np.float64)).astype(dt)
    base = np.where(np.isfinite(base) & (base > 0), base, x)
    xs = np.concatenate([base, np.nextafter(base, dt.type(np.inf)),
                         np.nextafter(base, dt.type(0)), x])
    ys = np.tile(y, 4)
    _check(_signed(rng, xs), _signed(rng, ys))


def test_divisor_seams(dt):
    rng = np.random.default_rng(1)
    fi = np.finfo(dt)
    tiny = fi.smallest_subnormal
    ys = [np.array([tiny, 2 * tiny, 3 * tiny, fi.smallest_normal, fi.max,
                    np.nextafter(fi.smallest_normal, 0)], dt)]
    if dt == F64:     # the two-phase boundary and 1/y denormal
        e = np.array([-900, -901, -899, -954, 1022, 1023])
        ys.append(np.ldexp(1 + rng.random(e.size), e).astype(dt))
    ys = np.concatenate(ys)
    ex = rng.integers(fi.minexp - fi.nmant, fi.maxexp, 400)
    x = np.ldexp(1 + rng.random(ex.size), ex).astype(dt)
    x = np.concatenate([x, np.array([fi.max, tiny, fi.smallest_normal], dt)])
    X, Y = np.meshgrid(x, ys)
    _check(_signed(rng, X.ravel()), _signed(rng, Y.ravel()))


def test_special_values(dt):
    fi = np.finfo(dt)
    sp = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, np.inf, -np.inf, np.nan,
                   fi.max, -fi.max, fi.smallest_subnormal, -fi.smallest_subnormal,
                   fi.smallest_normal, 1 + fi.eps, 7.0, 0.1], dt)
    X, Y = np.meshgrid(sp, sp)
    _check(X.ravel(), Y.ravel())
