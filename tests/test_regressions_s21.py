"""Regressions found by rerunning the differential hunts (benchmarks/diff_*.py) with new
seeds in session 21. Each case compares against an independent reference (mpmath at
high precision, NumPy float64)."""

import mpmath
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

# Complex functions whose value stays moderate where the argument is huge: no
# intermediate (|z|**2, hypot, 1 + z) may overflow on the way (diff_dtypes.py found
# complex64 log1p(3e38 + 3e38j) = inf + 0.785j, true 89.01 + 0.785j).
_MODERATE_FOR_HUGE_Z = {
    "log": mpmath.log, "log1p": lambda z: mpmath.log(1 + z), "log2": lambda z: mpmath.log(z, 2),
    "log10": mpmath.log10, "sqrt": mpmath.sqrt, "arctan": mpmath.atan,
    "arcsinh": mpmath.asinh, "arccosh": mpmath.acosh, "arctanh": mpmath.atanh,
    "arcsin": mpmath.asin, "arccos": mpmath.acos,
}


def _huge_arguments(dtype):
    top = float(np.finfo(dtype).max)
    parts = [top, 0.75 * top, 0.5 * top, 2.0 ** (np.finfo(dtype).maxexp // 2), 1.5, 1e-3]
    # no zero imaginary parts: mpmath cannot tell the sides of a branch cut apart there
    return np.array([complex(sa * a, sb * b) for a in parts for b in parts
                     for sa in (1, -1) for sb in (1, -1) if max(a, b) > 1e3], dtype)


@pytest.mark.parametrize("name", sorted(_MODERATE_FOR_HUGE_Z))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_functions_of_huge_arguments_do_not_overflow(name, dtype, request):
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    z = _huge_arguments(dtype)
    f = getattr(jnp, name)
    rtol = 4 * np.finfo(dtype).eps
    mpmath.mp.prec = 120
    want = np.array([complex(_MODERATE_FOR_HUGE_Z[name](mpmath.mpc(complex(v)))) for v in z])
    for mode, g in (("eager", f), ("jit", tjit.jit(f))):
        got = np.asarray(g(z)).astype(np.complex128)
        err = np.abs(got - want) / np.abs(want)
        bad = np.flatnonzero(~(err <= rtol))
        assert not bad.size, (f"{mode} {name}({z[bad[0]]}) = {got[bad[0]]}, mpmath "
                              f"{want[bad[0]]} ({bad.size} of {z.size} off)")
