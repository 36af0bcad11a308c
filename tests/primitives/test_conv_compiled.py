"""Compiled convolutions (a fused im2col gather + the target's gemm) against the reference
interpreter, across layouts, strides, padding, dilations and groups, and their
gradients; dtypes the lowering leaves to the library step still agree."""

import numpy as np
import pytest

import tjit
from tjit import lax

CASES = [
    # lhs shape, rhs shape, dimension numbers, strides, padding, lhs_dil, rhs_dil, G, B
    ((4, 9, 9, 3), (3, 3, 3, 5), ("NHWC", "HWIO", "NHWC"), (1, 1), "SAME", None, None, 1, 1),
    ((2, 3, 10, 8), (6, 3, 3, 2), ("NCHW", "OIHW", "NCHW"), (2, 1), ((1, 2), (0, -1)),
     None, (2, 1), 1, 1),
    ((2, 4, 7, 7), (6, 2, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 2), ((1, 1), (1, 1)),
     (2, 1), (1, 1), 2, 1),
    ((4, 4, 6, 6), (6, 4, 2, 2), ("NCHW", "OIHW", "NCHW"), (1, 1), "VALID", None, (1, 2), 1, 2),
    ((3, 11, 4), (3, 4, 7), ("NWC", "WIO", "NWC"), (3,), ((2, 0),), None, None, 1, 1),
]


def _conv(case):
    _, _, dn, strides, pad, ld, rd, G, B = case

    def f(x, w):
        return lax.conv_general_dilated(x, w, strides, pad, ld, rd, dn,
                                        feature_group_count=G, batch_group_count=B)
    return f


def _operands(case, dtype=np.float32):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(case[0]).astype(dtype),
            rng.standard_normal(case[1]).astype(dtype))


@pytest.mark.parametrize("case", CASES)
def test_compiled_conv_matches_interpreter(case):
    f = _conv(case)
    x, w = _operands(case)
    got = np.asarray(tjit.jit(f)(x, w))
    want = np.asarray(tjit.jit(f, backend="interpreter")(x, w))
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", CASES)
def test_compiled_conv_gradients_match_interpreter(case):
    f = _conv(case)
    x, w = _operands(case)

    def loss(x, w):
        return (tjit.numpy.tanh(f(x, w)) ** 2).sum()
    got = tjit.jit(tjit.grad(loss, argnums=(0, 1)))(x, w)
    want = tjit.jit(tjit.grad(loss, argnums=(0, 1)), backend="interpreter")(x, w)
    for g, r in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-4)


def test_compiled_conv_other_dtypes_and_widened():
    case = CASES[1]
    f = _conv(case)
    for dtype in (np.float32, np.int32):   # (float64 is float32 unless x64 is on)
        x, w = _operands(case, np.float64)
        x, w = (x * 3).astype(dtype), (w * 3).astype(dtype)
        got = np.asarray(tjit.jit(f)(x, w))
        want = np.asarray(tjit.jit(f, backend="interpreter")(x, w))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    x, w = _operands(case)
    _, _, dn, strides, pad, ld, rd, _, _ = case

    def wide(x, w):
        return lax.conv_general_dilated(x, w, strides, pad, ld, rd, dn,
                                        preferred_element_type=np.float64)
    got = np.asarray(tjit.jit(wide)(x, w))
    want = np.asarray(tjit.jit(wide, backend="interpreter")(x, w))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_compiled_conv_runs_a_gemm_step():
    case = CASES[0]
    x, w = _operands(case)
    steps = tjit.jit(_conv(case)).lower(x, w).compile().fusion_summary()
    kinds = [k for k, _ in steps]
    assert "dot" in kinds and "library" not in kinds, steps   # im2col: a fused gather


def test_huge_window_index_falls_back_to_the_impl(monkeypatch):
    from tjit.primitives import conv
    monkeypatch.setattr(conv, "MAX_WINDOW_INDEX", 10)
    case = CASES[0]
    x, w = _operands(case)
    f = _conv(case)
    assert "library" in [k for k, _ in tjit.jit(f).lower(x, w).compile().fusion_summary()]
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x, w)),
                               np.asarray(tjit.jit(f, backend="interpreter")(x, w)),
                               rtol=1e-5, atol=1e-5)
