"""``lax.conv_general_dilated_patches`` against a NumPy loop over windows (channel-major
patch order, as JAX), in other layouts against the NCHW result transposed; eager, jit,
vmap and gradients. ``lax.conv_shape_tuple`` against the shapes convolutions produce."""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads, check_vmap
from tjit import lax


def np_patches(x, k, strides, pads, rdil):
    """NCHW patches: out[n, c * prod(k) + s, i, j] = window s of channel c at (i, j)."""
    xp = np.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads])
    span = [(kk - 1) * d + 1 for kk, d in zip(k, rdil)]
    out_sp = [(n - s) // st + 1 for n, s, st in zip(xp.shape[2:], span, strides)]
    out = np.zeros((x.shape[0], x.shape[1] * k[0] * k[1], *out_sp))
    for c, (a, b), (i, j) in itertools.product(range(x.shape[1]),
                                               itertools.product(range(k[0]), range(k[1])),
                                               itertools.product(*map(range, out_sp))):
        s = a * k[1] + b
        out[:, c * k[0] * k[1] + s, i, j] = xp[:, c, i * strides[0] + a * rdil[0],
                                               j * strides[1] + b * rdil[1]]
    return out


CASES = [((2, 3), (1, 2), ((0, 0), (0, 0)), (1, 1)),
         ((2, 2), (2, 1), ((1, 0), (1, 1)), (1, 1)),
         ((3, 2), (1, 1), ((1, 1), (0, 0)), (2, 1))]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_patches_are_the_receptive_fields(case):
    k, strides, pads, rdil = CASES[case]
    x = np.random.default_rng(case).standard_normal((2, 3, 6, 7)).astype(np.float32)
    want = np_patches(x.astype(np.float64), k, strides, pads, rdil)
    f = lambda x: lax.conv_general_dilated_patches(x, k, strides, pads, rhs_dilation=rdil)
    for g in (f, tjit.jit(f)):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), want, rtol=1e-6, atol=1e-6)
    # NHWC in, NHWC out: the same patches, transposed
    nhwc = lax.conv_general_dilated_patches(np.transpose(x, (0, 2, 3, 1)), k, strides, pads,
                                            rhs_dilation=rdil,
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(np.asarray(nhwc), np.transpose(want, (0, 2, 3, 1)),
                               rtol=1e-6, atol=1e-6)


def test_patches_grad_and_vmap():
    x = np.random.default_rng(5).standard_normal((1, 2, 4, 4)).astype(np.float32)
    f = lambda x: lax.conv_general_dilated_patches(x, (2, 2), (2, 1), "SAME")
    check_grads(f, (x,))
    check_vmap(f, (jnp.asarray(np.stack([x, 2 * x])),), rtol=1e-6, atol=1e-6)


def test_conv_shape_tuple_matches_the_convolution():
    lhs, rhs = (4, 3, 10, 11), (5, 3, 3, 2)
    for strides, pads in [((2, 1), "SAME"), ((1, 3), "VALID"), ((2, 2), [(1, 0), (2, 2)])]:
        out = lax.conv_general_dilated(jnp.ones(lhs), jnp.ones(rhs), strides, pads)
        assert lax.conv_shape_tuple(lhs, rhs, strides, pads) == out.shape
    assert lax.conv_shape_tuple(lhs, rhs, (1, 1), "VALID", batch_group_count=2) == (2, 5, 8, 10)
    with pytest.raises(TypeError, match="conv_shape_tuple: expected 2"):
        lax.conv_shape_tuple(lhs, rhs, (1, 1), [(0, 0)])


def np_local_conv(x, w, k, strides, pads, rdil):
    """NCHW / OIHW unshared conv: out[n, o, i, j] = sum over c, window s of
    patch[n, c, s at (i, j)] * w[o, c * prod(k) + s, i, j]."""
    p = np_patches(x, k, strides, pads, rdil)  # (N, C * prod(k), H', W')
    return np.einsum("nkij,okij->noij", p, w)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_local_conv_is_one_kernel_per_position(case):
    k, strides, pads, rdil = CASES[case]
    rng = np.random.default_rng(10 + case)
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    out_sp = np_patches(x, k, strides, pads, rdil).shape[2:]
    w = rng.standard_normal((4, 3 * k[0] * k[1], *out_sp)).astype(np.float32)
    want = np_local_conv(x.astype(np.float64), w.astype(np.float64), k, strides, pads, rdil)
    f = lambda x, w: lax.conv_general_dilated_local(x, w, strides, pads, k, rhs_dilation=rdil)
    for g in (f, tjit.jit(f)):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x), jnp.asarray(w))), want,
                                   rtol=1e-5, atol=1e-5)
    # NHWC / HWIO / NHWC: the same numbers in that layout
    got = lax.conv_general_dilated_local(np.transpose(x, (0, 2, 3, 1)),
                                         np.transpose(w, (2, 3, 1, 0)), strides, pads, k,
                                         rhs_dilation=rdil,
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(np.asarray(got), np.transpose(want, (0, 2, 3, 1)),
                               rtol=1e-5, atol=1e-5)


def test_local_conv_grad():
    rng = np.random.default_rng(20)
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    w = rng.standard_normal((3, 8, 3, 3)).astype(np.float32)
    check_grads(lambda x, w: lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2)),
                (x, w))
