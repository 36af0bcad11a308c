"""Convolution and window-reduction semantics found by the differential hunt
(benchmarks/diff_conv_window.py), each against an independent NumPy reference or the
error JAX raises."""

import numpy as np
import pytest

import tjit
from tjit import lax


@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER"])
@pytest.mark.parametrize("use_jit", [False, True])
def test_string_padding_with_lhs_dilation_raises(padding, use_jit):
    # JAX: string padding has no meaning for a transposed convolution; tjit used to
    # silently pad the dilated input as if it were a plain one
    x = np.ones((1, 1, 4), np.float32)
    w = np.ones((1, 1, 2), np.float32)

    def f(a, b):
        return lax.conv_general_dilated(a, b, (1,), padding, lhs_dilation=(2,))

    with pytest.raises(ValueError, match="conv_general_dilated.*lhs_dilation.*explicit"):
        (tjit.jit(f) if use_jit else f)(x, w)


def test_explicit_padding_with_lhs_dilation_still_works():
    x = np.arange(1.0, 4.0, dtype=np.float32).reshape(1, 1, 3)
    w = np.ones((1, 1, 2), np.float32)
    out = lax.conv_general_dilated(x, w, (1,), [(1, 1)], lhs_dilation=(2,))
    # dilated, padded input [0, 1, 0, 2, 0, 3, 0]: sums of neighbouring pairs
    np.testing.assert_array_equal(np.asarray(out)[0, 0], [1, 1, 2, 2, 3, 3])
    # conv_transpose's string padding is its own (explicit pads underneath)
    assert lax.conv_transpose(np.ones((1, 4, 1), np.float32), np.ones((2, 1, 1), np.float32),
                              (2,), "SAME").shape == (1, 8, 1)


@pytest.mark.parametrize("src, pref", [("float32", "float16"), ("int32", "int16"),
                                       ("int8", "uint32")])
def test_conv_preferred_element_type_may_not_narrow(src, pref):
    # JAX's conv rejects these (tjit returned a rounded float16 / wrapped result)
    x = np.ones((1, 2, 5), src)
    w = np.ones((3, 2, 2), src)
    with pytest.raises(TypeError, match="conv_general_dilated: preferred_element_type"):
        lax.conv_general_dilated(x, w, (1,), "VALID", preferred_element_type=pref)


def test_conv_preferred_element_type_widens_exactly():
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1, 3, 9)).astype(np.int8)
    w = rng.integers(-128, 128, (2, 3, 3)).astype(np.int8)
    want = np.stack([[sum(np.convolve(x[0, c].astype(np.int64), w[o, c, ::-1].astype(np.int64),
                                      "valid") for c in range(3)) for o in range(2)]])
    conv = lambda a, b: lax.conv(a, b, (1,), "VALID", preferred_element_type=np.int32)
    for f in (conv, tjit.jit(conv)):
        out = f(x, w)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(out), want)


def test_conv_negative_padding_beyond_the_input_raises():
    # JAX raises; tjit returned an empty output
    x = np.ones((1, 1, 3), np.float32)
    w = np.ones((1, 1, 1), np.float32)
    with pytest.raises(tjit.ShapeError, match="negative padding"):
        lax.conv_general_dilated(x, w, (1,), [(-2, -2)])
    # with lhs dilation the dilated size (7) is what the padding crops
    out = lax.conv_general_dilated(x, w, (1,), [(-2, -2)], lhs_dilation=(3,))
    np.testing.assert_array_equal(np.asarray(out)[0, 0], [0, 1, 0])


def test_unknown_padding_mode_names_the_operation():
    x = np.ones((1, 1, 4), np.float32)
    with pytest.raises(ValueError, match="conv_general_dilated: unknown padding 'FULL'"):
        lax.conv_general_dilated(x, np.ones((1, 1, 2), np.float32), (1,), "FULL")
    with pytest.raises(ValueError, match="reduce_window: unknown padding 'FULL'"):
        lax.reduce_window(x, 0.0, lax.add, (1, 1, 2), (1, 1, 1), "FULL")


def test_reduce_window_max_of_ints_with_plus_inf_init_is_not_max_pooling():
    # +inf cast to int32 reads as the int minimum, so this was taken for max pooling's
    # identity and the init silently dropped; as JAX, +inf is no int32 and raises
    x = np.array([[1, 5, 2], [3, 0, 4]], np.int32)
    with pytest.raises(TypeError, match="inf"):
        lax.reduce_window(x, np.inf, lax.max, (1, 2), (1, 1), "VALID")
    # -inf (max) and +inf (min) are the identities JAX accepts for ints
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(x, -np.inf, lax.max, (1, 2), (1, 1), "VALID")),
        [[5, 5], [3, 4]])
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(x, np.inf, lax.min, (1, 2), (1, 1), "VALID")),
        [[1, 2], [0, 0]])
    # the int maximum is a real init of a max: every window is at least it
    top = np.iinfo(np.int32).max
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(x, top, lax.max, (1, 2), (1, 1), "VALID")),
        np.full((2, 2), top))


def _skip_padding_reference(x, init, op, wd, ws, pads, base):
    """reduce_window as XLA's kernels compute it (JAX's numbers): per window, ``init``
    combined with the operand's elements in row-major order, padding and base-dilation
    holes skipped. Plain loops over the output and the window."""
    dil = [(n - 1) * b + 1 for n, b in zip(x.shape, base)]
    out_shape = [max(0, (d + lo + hi - k) // s + 1) if d + lo + hi >= k else 0
                 for d, (lo, hi), k, s in zip(dil, pads, wd, ws)]
    out = np.empty(out_shape, np.float64)
    for pos in np.ndindex(*out_shape):
        acc = init
        for off in np.ndindex(*wd):
            c = [p * s + o - lo for p, s, o, (lo, _) in zip(pos, ws, off, pads)]
            if all(0 <= ci < d and ci % b == 0 for ci, d, b in zip(c, dil, base)):
                acc = op(acc, float(x[tuple(ci // b for ci, b in zip(c, base))]))
        out[pos] = acc
    return out


@pytest.mark.parametrize("init, op, lop", [
    (1.0, lambda a, b: a + b, lax.add),
    (2.0, lambda a, b: a * b, lax.mul),
    (0.5, lambda a, b: a + b + 1, lambda a, b: a + b + 1),
])
def test_reduce_window_non_identity_init_skips_padding_and_holes(init, op, lop):
    # JAX 0.10.2 (XLA): reduce_window(arange(1, 6), 1., add, (3,), (1,), [(1, 1)]) is
    # [4, 7, 10, 13, 10]; tjit put the init into every padded element too ([5, ..., 11])
    x = np.random.default_rng(1).uniform(0.5, 1.5, (4, 5))
    wd, ws, pads, base = (2, 3), (1, 2), ((2, 1), (1, -1)), (2, 1)
    f = lambda a: lax.reduce_window(a, init, lop, wd, ws, pads, base)
    want = _skip_padding_reference(x, init, op, wd, ws, pads, base)
    for g in (f, tjit.jit(f)):
        np.testing.assert_allclose(np.asarray(g(x.astype(np.float32))), want, rtol=1e-5)
    one = np.arange(1.0, 6.0, dtype=np.float32)
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(one, 1.0, lax.add, (3,), (1,), [(1, 1)])),
        [4, 7, 10, 13, 10])


def test_general_reduce_window_cropping_past_the_operand_is_empty():
    # as JAX and the monoid primitives: no windows, not lax.pad's negative-size error
    x = np.ones((6, 1), np.float32)
    for f in (lambda a: lax.reduce_window(a, 1.0, lax.add, (2, 1), (1, 1), [(0, 1), (-1, -1)]),
              lambda a: lax.reduce_window(a, 0.0, lax.add, (2, 1), (1, 1), [(0, 1), (-1, -1)])):
        assert np.asarray(f(x)).shape == (6, 0)
        assert np.asarray(tjit.jit(f)(x)).shape == (6, 0)
