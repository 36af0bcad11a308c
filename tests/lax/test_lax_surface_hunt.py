"""``tjit.lax`` semantics found by the differential hunt (benchmarks/diff_lax.py), each
against an independent reference (NumPy, a Python loop) or JAX's documented signature."""

import numpy as np
import pytest

import tjit
from tjit import lax


@pytest.mark.parametrize("use_jit", [False, True])
@pytest.mark.parametrize("is_stable", [True, False])
def test_top_k_accepts_is_stable(use_jit, is_stable):
    # JAX's top_k takes is_stable (tie order unspecified when False); tjit raised
    # TypeError on the keyword
    x = np.array([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, -1.0, 5.0]], np.float32)

    def f(a):
        return lax.top_k(a, 2, is_stable=is_stable)
    vals, idx = (tjit.jit(f) if use_jit else f)(x)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :2]
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(x, order, -1))
    if is_stable:
        np.testing.assert_array_equal(np.asarray(idx), order)
