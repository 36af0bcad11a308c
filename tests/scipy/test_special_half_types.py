"""Every one-argument real function of tjit.scipy.special takes float16 and bfloat16
arrays, eager and under jit, and returns that dtype within a few of its ulps of SciPy's
float64 value. Tables kept per dtype (a series' root, a Dekker split from np.finfo)
raised KeyError / ValueError for the half types (expi, ndtr and log_ndtr on bfloat16).
A new one-argument function fails here until it is listed in SCIPY or REFUSED."""

import warnings

import ml_dtypes
import numpy as np
import pytest
import scipy.special as ss

import tjit
from tjit.scipy import special as ts

XS = np.array([0.125, 0.25, 0.5, 0.75, 0.875], np.float64)   # every function's domain

# tjit name: SciPy's function of one float64 array (a tuple result: each part)
SCIPY = {n: getattr(ss, n) for n in (
    "dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "expi", "expit",
    "gamma", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "log_ndtr", "log_softmax",
    "loggamma", "logit", "logsumexp", "ndtr", "ndtri", "softmax", "fresnel", "sici")}
SCIPY["factorial"] = lambda x: ss.gamma(x + 1)
SCIPY["zeta"] = ss.zeta   # (Riemann's: x < 1 its analytic continuation)
REFUSED = {"spence",   # float32/float64 only, as JAX's (a clear TypeError)
           "wofz"}     # complex


def _one_argument_real_functions():
    names = []
    for n in sorted(dir(ts)):
        f = getattr(ts, n)
        if n.startswith("_") or not callable(f) or n in REFUSED:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = f(XS.astype(np.float32))
        except (TypeError, ValueError):   # more arguments, or another kind of input
            continue
        outs = out if isinstance(out, tuple) else (out,)
        if all(getattr(o, "dtype", None) == np.float32 for o in outs):
            names.append(n)
    return names


def test_every_one_argument_function_is_listed():
    assert set(_one_argument_real_functions()) == set(SCIPY)


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(SCIPY))
def test_half_types_eager_and_jit(name, dt):
    x = XS.astype(dt)
    want = SCIPY[name](x.astype(np.float64))
    want = want if isinstance(want, tuple) else (want,)
    eps = float(ml_dtypes.finfo(dt).eps)
    for run in (getattr(ts, name), tjit.jit(getattr(ts, name))):
        got = run(x)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == np.dtype(dt), (name, g.dtype)
            np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=4 * eps,
                                       atol=4 * eps * np.abs(w).max(), err_msg=name)
