"""Convolutions and pads over a declared polymorphic dim: 'SAME' padding whose size
questions need floor/ceiling bounds (shapes.max_dim), and jnp.pad by widths that are size
expressions (as JAX), against NumPy float64 at several sizes with one compile; a
convolution padding that depends on the size is refused by name."""
import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax
from tjit._sympy import sympy
from tjit.tracing.errors import InconclusiveDimensionError
from tjit.tracing.shapes import max_dim, min_dim, symbol

K = np.random.default_rng(1).standard_normal((3, 2, 4)).astype(np.float32)


def _np_conv1d(x, k, lo, hi):
    x = np.pad(x.astype(np.float64), ((0, 0), (lo, hi), (0, 0)))
    n_out = x.shape[1] - k.shape[0] + 1
    return np.stack([np.einsum("nkc,kco->no", x[:, i:i + k.shape[0]], k)
                     for i in range(n_out)], 1)


def test_same_conv_stride_1_over_a_symbolic_spatial_dim():
    jf = jax.jit(lambda x: lax.conv_general_dilated(
        x, K, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
        polymorphic_shapes=["(2, b, 2)"])
    rng = np.random.default_rng(0)
    for n in (1, 4, 7):
        x = rng.standard_normal((2, n, 2)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(jf(x)), _np_conv1d(x, K, 1, 1),
                                   rtol=1e-5, atol=1e-5)
    assert jf.compile_count == 1


def _same_pads(n, k, s):
    total = max((-(-n // s) - 1) * s + k - n, 0)
    return total // 2, total - total // 2


def test_same_conv_stride_2_pads_by_the_size():
    # the padding is 1 or 2 by the parity of b: the input is padded by size expressions
    jf = jax.jit(lambda x: lax.conv_general_dilated(
        x, K, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
        polymorphic_shapes=["(2, b, 2)"])
    rng = np.random.default_rng(0)
    for n in (1, 4, 5, 8):
        x = rng.standard_normal((2, n, 2)).astype(np.float32)
        want = _np_conv1d(x, K, *_same_pads(n, 3, 2))[:, ::2]
        np.testing.assert_allclose(np.asarray(jf(x)), want, rtol=1e-5, atol=1e-5)
    assert jf.compile_count == 1


def _np_max_pool(x, k, s):
    lo, hi = _same_pads(len(x), k, s)
    x = np.pad(x.astype(np.float64), ((lo, hi), (0, 0)), constant_values=-np.inf)
    return np.stack([x[i:i + k].max(0) for i in range(0, len(x) - k + 1, s)])


def test_same_max_pool_stride_2_and_its_gradient():
    def pool(x):
        return lax.reduce_window(x, -np.inf, lax.max, (2, 1), (2, 1), "SAME")
    jf = jax.jit(pool, polymorphic_shapes=["(b, 3)"])
    jg = jax.jit(jax.grad(lambda x: (pool(x) * 2).sum()), polymorphic_shapes=["(b, 3)"])
    rng = np.random.default_rng(0)
    for n in (1, 4, 5, 7):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(jf(x)), _np_max_pool(x, 2, 2), rtol=1e-6)
        want = np.zeros((n, 3))       # 2 at each window's argmax
        for i in range(0, n, 2):
            want[i + np.argmax(x[i:i + 2], 0), np.arange(3)] = 2
        np.testing.assert_allclose(np.asarray(jg(x)), want)
    assert jf.compile_count == 1 and jg.compile_count == 1


def test_lax_pad_by_size_expressions():
    def f(x):
        b = x.shape[0]
        return lax.pad(x, np.float32(-1), [(b // 2, 1, 0), (0, b, 0)])
    jf = jax.jit(f, polymorphic_shapes=["(b, 3)"])
    for n in (1, 2, 5):
        x = np.arange(3.0 * n, dtype=np.float32).reshape(n, 3)
        want = np.pad(x, ((n // 2, 1), (0, n)), constant_values=-1)
        np.testing.assert_array_equal(np.asarray(jf(x)), want)
    assert jf.compile_count == 1


def test_padding_of_sizes_with_lhs_dilation_is_refused_by_name():
    jf = jax.jit(lambda x: lax.conv_general_dilated(
        x, K, (1,), [(x.shape[1] // 2, 0)], lhs_dilation=(2,),
        dimension_numbers=("NWC", "WIO", "NWC")), polymorphic_shapes=["(2, b, 2)"])
    with pytest.raises(InconclusiveDimensionError, match="conv_general_dilated: the padding"):
        jf(np.zeros((2, 5, 2), np.float32))


def test_max_and_min_dims():
    b = symbol("b")
    assert max_dim(3, 5) == 5 and min_dim(3, 5) == 3
    assert max_dim(b, 0) == b and min_dim(b, 0) == 0
    assert max_dim(2 * sympy.ceiling(b / 2) + 1 - b, 0) == 2 * sympy.ceiling(b / 2) + 1 - b
    assert min_dim(b, 5) == sympy.Min(b, 5)
    assert max_dim(b - 2, 0) == sympy.Max(b - 2, 0)


PADS = {
    "jnp.pad(x, b)": (lambda m, x: m.pad(x, x.shape[0]), {}),
    "pairs of sizes, value 7": (lambda m, x: m.pad(
        x, ((x.shape[0] // 2, 1), (0, x.shape[0])), constant_values=7.0), {}),
    "edge mode": (lambda m, x: m.pad(x, ((0, x.shape[0]), (0, 0)), mode="edge"), {}),
}


@pytest.mark.parametrize("name", list(PADS))
def test_pad_by_size_expressions(name):
    f, _ = PADS[name]
    jf = jax.jit(lambda x: f(jnp, x), polymorphic_shapes=["(b, 3)"])
    for n in (1, 2, 5):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        want = f(np, x.astype(np.float64))
        got = np.asarray(jf(x))
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert jf.compile_count == 1
