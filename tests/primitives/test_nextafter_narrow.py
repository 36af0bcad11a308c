"""nextafter on float16/bfloat16 against C99's definition written out on the bits (one
Python step per element), over random pairs with many equal values and zeros of both
signs: the impl fixes NumPy's old float16 rule (x when x == y) on the bits alone."""

import math

import ml_dtypes
import numpy as np
import pytest

import tjit
from tjit import lax


def _c_nextafter(x, y, dt):
    """C99's nextafter of two values of ``dt`` (16-bit), as uint16 bits."""
    fx, fy = float(x), float(y)
    xb = int(np.array(x, dt).view(np.uint16))
    if math.isnan(fx) or math.isnan(fy):
        return None                         # (NaN: compared as NaN)
    if fx == fy:
        return int(np.array(y, dt).view(np.uint16))
    if fx == 0:
        return 1 | (0x8000 if fy < 0 else 0)
    away = (fy > fx) == (fx > 0)
    return xb + 1 if away else xb - 1


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
def test_narrow_nextafter_matches_c99(dt):
    rng = np.random.default_rng(8)
    pool = np.array([0.0, -0.0, 1.0, -1.0, 1.5, np.inf, -np.inf, np.nan, 6e-8, -6e-8,
                     65504.0], np.float32)
    x = np.concatenate([rng.choice(pool, 300), (rng.standard_normal(200) * 4)]).astype(dt)
    y = np.concatenate([rng.choice(pool, 300), (rng.standard_normal(200) * 4)]).astype(dt)
    y[::3] = x[::3]                                       # equal values, zeros of one sign
    for run in (lax.nextafter, tjit.jit(lax.nextafter)):
        got = np.asarray(run(x, y))
        assert got.dtype == np.dtype(dt)
        bits = got.view(np.uint16)
        for i, (a, b) in enumerate(zip(x, y)):
            want = _c_nextafter(a, b, dt)
            if want is None:
                assert np.isnan(got[i].astype(np.float32)), (a, b, got[i])
            else:
                assert int(bits[i]) == want, (float(a), float(b), float(got[i]))
