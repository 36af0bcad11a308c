"""Derivative accuracy near special points against mpmath (see benchmarks/diff_grad_accuracy.py)."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as sp


def _i1e_slope(x):
    """d/dx of exp(-|x|) I1(x) at the float x, from mpmath's closed form at 50 digits."""
    with mp.workdps(50):
        t = mp.mpf(float(x))
        if t == 0:
            return 0.5
        # I1' = I0 - I1 / x
        d = (mp.besseli(0, t) - mp.besseli(1, t) / t - mp.sign(t) * mp.besseli(1, t))
        return float(d * mp.exp(-abs(t)))


@pytest.fixture
def x64():
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    yield
    tjit.config.update("enable_x64", old)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_i1e_slope_near_zero_and_subnormal(dtype, x64):
    # 1/x overflowed at subnormal x: float32 grad at 4.2e-45 was -inf (true 0.5; JAX 0.5)
    fi = np.finfo(dtype)
    mags = [0.0, float(fi.smallest_subnormal) * 3, float(fi.tiny) / 4, float(fi.tiny),
            1e-30, 1e-12, 1e-9, 1e-6, 1e-4, 3e-4, 1e-3, 0.1, 1.0, 5.0]
    xs = np.array(sorted(set(mags + [-m for m in mags])), dtype)
    g = tjit.vmap(tjit.grad(sp.i1e))(jnp.asarray(xs))
    assert g.dtype == dtype
    g = np.asarray(g, np.float64)
    want = np.array([_i1e_slope(x) for x in xs])
    np.testing.assert_allclose(g, want, rtol=64 * fi.eps, atol=0)  # a few ulps of i0e - i1e - i1e/x
