"""union1d, intersect1d, setdiff1d and setxor1d of traced arrays with a static size
(as JAX allows under jit), against NumPy's set functions padded to the size."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

NAMES = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]
# default padding: setdiff1d 0, the others their smallest value (0 when empty), as eager
SMALLEST_FILL = {"union1d": True, "intersect1d": True, "setdiff1d": False, "setxor1d": True}


def _numpy_sized(name, a, b, size, fill_value, dt):
    r = getattr(np, name)(a, b).astype(dt)
    fill = fill_value if fill_value is not None else \
        (r.min() if SMALLEST_FILL[name] and r.size else 0)
    out = np.full(size, fill, dt)
    out[:min(size, r.size)] = r[:size]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_sized_setops_under_jit_match_numpy(name):
    rng = np.random.default_rng(5)
    for _ in range(40):
        a = rng.integers(-4, 8, int(rng.integers(0, 7))).astype(np.int32)
        b = rng.integers(-4, 8, (int(rng.integers(0, 3)), 2)).astype(np.int8)  # 2-d: ravelled
        size = int(rng.integers(0, 10))
        fv = None if rng.random() < 0.5 else -9
        dt = a.dtype if name == "setdiff1d" else np.result_type(a, b)
        want = _numpy_sized(name, a, b.ravel(), size, fv, dt)
        got = tjit.jit(lambda x, y: getattr(jnp, name)(x, y, size=size, fill_value=fv))(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name}({a}, {b}, "
                                      f"size={size}, fill_value={fv})")


@pytest.mark.parametrize("name", NAMES)
def test_sized_setops_under_jit_with_nans(name):
    # NaN in both operands, in one, in neither (setxor1d of NaN in both: NumPy lists
    # NaN twice, the sized form once; left out)
    a = np.array([np.nan, 1.0, 2.0, np.nan, -0.5], np.float32)
    for b in (np.array([2.0, np.nan, 3.0], np.float32), np.array([2.0, 3.0], np.float32)):
        for x, y in ((a, b), (b, a), (a[1:3], b)):
            if name == "setxor1d" and np.isnan(x).any() and np.isnan(y).any():
                continue
            want = _numpy_sized(name, x, y, 6, -1.0, np.float32)
            got = tjit.jit(lambda u, v: getattr(jnp, name)(u, v, size=6, fill_value=-1.0))(
                x, y)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{x}, {y}")


def test_traced_setops_without_size_still_explain():
    with pytest.raises(tjit.errors.ConcretizationTypeError if hasattr(tjit, "errors")
                       else Exception, match="size"):
        tjit.jit(lambda x: jnp.union1d(x, x))(np.arange(3))
