"""float32 inputs keep float32 through tjit.scipy.stats with x64 enabled, as in JAX: a
NumPy float64 constant (np.log(2.0) is one) or a strong float64 made of a Python scalar
parameter promoted norm.logpdf, laplace, chi2, cauchy, wrapcauchy, truncnorm and
multivariate_normal results to float64. Every distribution function is called with float32
arrays for its required arguments, then with Python floats for all but the first."""

import inspect

import numpy as np
import pytest

import tjit.scipy.stats as stats
from tjit.scipy.stats._util import _DISTRIBUTION_FUNCTIONS


def _functions():
    for dist in sorted(n for n in dir(stats) if not n.startswith("_")):
        module = getattr(stats, dist)
        if not inspect.ismodule(module):
            continue
        for name in _DISTRIBUTION_FUNCTIONS:
            fn = getattr(module, name, None)
            if fn is not None:
                yield f"{dist}.{name}", fn


CASES = list(_functions())
X = np.array([0.2, 0.3, 0.5], np.float32)
#: the arguments after x (as float32 arrays, as Python floats where they may be scalars)
#: of the distributions whose arguments have shapes of their own
SHAPED = {"multivariate_normal": ([np.float32(0.4), np.float32(1.0)], [0.4, 1.0]),
          "dirichlet": ([X],),                  # (alpha is 1-D)
          "multinomial": ([np.float32(3.0), X], [3.0, X])}


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_float32_stays_float32_with_x64(x64, name, fn):
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.default is inspect.Parameter.empty
              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    n = len(params) - 1
    for rest in SHAPED.get(name.split(".")[0], ([X] * n, [0.4] * n)):
        out = fn(X, *rest)
        assert out.dtype == np.float32, (name, "Python floats" if rest and
                                         type(rest[0]) is float else "arrays", out.dtype)


def test_every_distribution_is_swept():
    names = {n.split(".")[0] for n, _ in CASES}
    assert {"norm", "laplace", "chi2", "cauchy", "wrapcauchy", "truncnorm",
            "multivariate_normal", "bernoulli"} <= names and len(CASES) > 60
