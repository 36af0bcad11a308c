"""tjit.image against independent references: a float64 NumPy loop over output pixels
written from the kernel formulas (Keys 1981, Lanczos, triangle, box overlap), exact cases
(linear ramps, block means, identities, shifts), Pillow and scipy.ndimage where they
share the convention (skipped when not installed), gradients against finite differences,
vmap against a Python loop, jit against the reference interpreter, and JAX's errors."""

import doctest
import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads, check_vmap
from tjit import image
from tjit.image import ResizeMethod

KERNEL_METHODS = ["linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]


# ---- the reference: one output pixel at a time, float64, from the formulas ----

def _keys(x, a):
    # Keys' cubic convolution kernel with parameter a, on |x|
    x = abs(x)
    if x < 1:
        return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
    if x < 2:
        return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a
    return 0.0


def _lanczos(x, radius):
    return float(np.sinc(x) * np.sinc(x / radius)) if abs(x) <= radius else 0.0


KERNEL_FORMULAS = {
    "linear": lambda x: max(0.0, 1 - abs(x)),
    "cubic": lambda x: _keys(x, -0.5),
    "cubic-pytorch": lambda x: _keys(x, -0.5),  # with antialias: the Keys kernel
    "lanczos3": lambda x: _lanczos(x, 3),
    "lanczos5": lambda x: _lanczos(x, 5),
}


def _pixel_weights(m, i, scale, shift, method, antialias):
    """Weights of input pixels 0..m-1 for output pixel i (None: the pixel is zero)."""
    centre = (i + 0.5 - shift) / scale  # output pixel i's centre, in input coordinates
    if method == "cubic-pytorch" and not antialias:
        # OpenCV's a = -0.75 kernel over pixels -2..m+1, the outer ones repeating the
        # edges; no zeroing outside the input (PyTorch's border), only past the padding
        w = np.zeros(m)
        for j in range(-2, m + 2):
            w[min(max(j, 0), m - 1)] += _keys(centre - 0.5 - j, -0.75)
        return w / w.sum() if abs(w.sum()) > 1e-4 else None
    if not -1e-12 <= centre <= m + 1e-12:
        return None
    if method == "area":  # overlap of [i, i+1] mapped back with each input pixel
        lo, hi = (i - shift) / scale, (i + 1 - shift) / scale
        w = np.array([max(0.0, min(hi, j + 1) - max(lo, j)) for j in range(m)])
    else:
        stretch = max(1 / scale, 1.0) if antialias else 1.0
        w = np.array([KERNEL_FORMULAS[method]((centre - 0.5 - j) / stretch) for j in range(m)])
    return w / w.sum() if abs(w.sum()) > 1e-4 else None


def reference(x, shape, dims, scales, shifts, method, antialias=True):
    """scale_and_translate in float64, output pixel by output pixel along each dim."""
    out = np.asarray(x, np.float64)
    for d, s, t in zip(dims, scales, shifts):
        m, n = out.shape[d], shape[d]
        moved = np.moveaxis(out, d, 0)
        result = np.zeros((n,) + moved.shape[1:])
        for i in range(n):
            w = _pixel_weights(m, i, s, t, method, antialias)
            if w is not None:
                result[i] = np.tensordot(w, moved, axes=1)
        out = np.moveaxis(result, 0, d)
    return out


def reference_resize(x, shape, method, antialias=True):
    dims = [d for d in range(x.ndim) if x.shape[d] != shape[d]]
    scales = [shape[d] / x.shape[d] if shape[d] else 1.0 for d in dims]
    return reference(x, shape, dims, scales, [0.0] * len(dims), method, antialias)


def _tol(method):
    # JAX's Lanczos kernel is 1 for distances under 1e-3 (sinc's limit, safe in float32):
    # up to (pi 1e-3)^2 / 6 ~ 2e-6 from the formula there
    return 3e-6 if method.startswith("lanczos") else 1e-10


def _image(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- values ----

RESIZES = [((7, 9), (13, 5)), ((16, 16), (4, 4)), ((5,), (11,)), ((10,), (3,)),
           ((2, 6, 8, 1), (2, 9, 3, 1)), ((4, 4, 4), (6, 2, 7)), ((6,), (1,)), ((1, 5), (3, 5))]


@pytest.mark.parametrize("method", KERNEL_METHODS)
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("shapes", RESIZES, ids=str)
def test_resize_matches_the_reference_loop(x64, method, antialias, shapes):
    x = _image(shapes[0])
    got = image.resize(x, shapes[1], method, antialias=antialias)
    assert got.dtype == np.float64 and got.shape == shapes[1]
    np.testing.assert_allclose(got, reference_resize(x, shapes[1], method, antialias),
                               rtol=_tol(method), atol=_tol(method))


@pytest.mark.parametrize("method", KERNEL_METHODS)
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_scale_and_translate_matches_the_reference_loop(x64, method, antialias, seed):
    rng = np.random.default_rng(seed)
    x = _image((8, 3, 11), seed)
    scale, shift = rng.uniform(0.3, 2.5, 2), rng.uniform(-3, 3, 2)
    shape = (int(rng.integers(1, 20)), 3, int(rng.integers(1, 20)))
    got = image.scale_and_translate(x, shape, (0, -1), jnp.asarray(scale), jnp.asarray(shift),
                                    method, antialias=antialias)
    want = reference(x, shape, (0, 2), scale, shift, method, antialias)
    np.testing.assert_allclose(got, want, rtol=_tol(method), atol=_tol(method))


def test_float32_matches_the_reference_to_float32_rounding():
    x = _image((9, 12), 3)
    for method in KERNEL_METHODS:
        got = image.resize(x.astype(np.float32), (5, 20), method)
        assert got.dtype == np.float32
        # float32 weights: area's interval ends (i / scale) round to ~1e-7 relative
        np.testing.assert_allclose(got, reference_resize(x, (5, 20), method), atol=1e-5,
                                   err_msg=method)


@pytest.mark.parametrize("shapes", [((6, 4), (12, 3)), ((5,), (13,)), ((9, 2), (2, 7))],
                         ids=str)
def test_nearest_picks_the_pixel_under_each_centre(shapes):
    x = np.arange(math.prod(shapes[0])).reshape(shapes[0]).astype(np.int32)
    got = image.resize(x, shapes[1], "nearest")
    want = x
    for d, (m, n) in enumerate(zip(*shapes)):  # centre (i + 1/2) m / n, in exact integers
        want = np.take(want, [(2 * i + 1) * m // (2 * n) for i in range(n)], axis=d)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def test_nearest_keeps_bool_and_integer_dtypes():
    assert image.resize(np.array([True, False]), (4,), "nearest").dtype == np.bool_
    np.testing.assert_array_equal(image.resize(np.array([True, False]), (4,), "nearest"),
                                  [True, True, False, False])


# ---- exact cases ----

@pytest.mark.parametrize("m,n", [(4, 8), (5, 13), (3, 7)])
def test_linear_upsampling_of_a_ramp_is_the_ramp_clamped_at_the_edges(x64, m, n):
    x = 2.0 + 0.5 * np.arange(m)
    centres = np.clip((np.arange(n) + 0.5) * m / n - 0.5, 0, m - 1)
    np.testing.assert_allclose(image.resize(x, (n,), "bilinear"), 2.0 + 0.5 * centres,
                               rtol=1e-13)


@pytest.mark.parametrize("factor", [2, 3])
def test_area_downscaling_by_an_integer_factor_gives_block_means(x64, factor):
    x = _image((6 * factor, 4 * factor, 2))
    blocks = x.reshape(6, factor, 4, factor, 2).mean(axis=(1, 3))
    np.testing.assert_allclose(image.resize(x, (6, 4, 2), "area"), blocks, rtol=1e-12)


@pytest.mark.parametrize("method", ["nearest"] + KERNEL_METHODS)
def test_identity_resize_returns_the_input(method):
    x = _image((5, 7)).astype(np.float32)
    np.testing.assert_array_equal(image.resize(x, x.shape, method), x)


@pytest.mark.parametrize("method", KERNEL_METHODS)
def test_unit_scale_interpolates_the_input_and_integer_shifts_move_it(x64, method):
    x = _image((6, 5))
    ones, zeros = jnp.ones(2), jnp.zeros(2)
    np.testing.assert_allclose(image.scale_and_translate(x, x.shape, (0, 1), ones, zeros,
                                                         method), x, atol=1e-12)
    shifted = image.scale_and_translate(x, x.shape, (0, 1), ones, jnp.array([2., -1.]), method)
    want = np.zeros_like(x)
    want[2:, :4] = x[:4, 1:]  # out[i, j] = x[i - 2, j + 1]; pixels mapped from outside: 0
    np.testing.assert_allclose(shifted, want, atol=1e-12)


def test_cubic_pytorch_repeats_edges_where_cubic_zero_weights(x64):
    x = np.array([1.0, 1.0, 1.0, 5.0])
    # a constant region stays constant next to the edge with repeated edges
    got = image.resize(x, (8,), "cubic-pytorch", antialias=False)
    assert got[0] == pytest.approx(1.0, abs=1e-12)
    assert not np.allclose(got, image.resize(x, (8,), "cubic", antialias=False))


def test_antialias_only_matters_when_downsampling(x64):
    x = _image((12,))
    up = [image.resize(x, (30,), "lanczos3", antialias=a) for a in (True, False)]
    np.testing.assert_array_equal(up[0], up[1])
    down = [image.resize(x, (5,), "lanczos3", antialias=a) for a in (True, False)]
    assert np.abs(np.asarray(down[0]) - np.asarray(down[1])).max() > 1e-3


# ---- other libraries with the same convention ----

@pytest.mark.parametrize("pil_filter,method", [("BILINEAR", "linear"), ("BICUBIC", "cubic"),
                                               ("LANCZOS", "lanczos3")])
@pytest.mark.parametrize("out", [(5, 7), (29, 40), (6, 31)], ids=str)
def test_antialiased_resize_matches_pillow(pil_filter, method, out):
    pil = pytest.importorskip("PIL.Image")
    x = _image((13, 17), 1).astype(np.float32)
    want = np.asarray(pil.fromarray(x, mode="F").resize(out[::-1],
                                                         getattr(pil.Resampling, pil_filter)))
    np.testing.assert_allclose(image.resize(x, out, method), want, atol=1e-5)


def test_linear_upsampling_matches_scipy_zoom_on_the_pixel_grid(x64):
    ndimage = pytest.importorskip("scipy.ndimage")
    x = _image((13, 17), 2)
    want = ndimage.zoom(x, (29 / 13, 40 / 17), order=1, grid_mode=True, mode="nearest")
    np.testing.assert_allclose(image.resize(x, (29, 40), "linear"), want, atol=1e-12)


# ---- dtypes ----

@pytest.mark.parametrize("method", KERNEL_METHODS)
def test_integer_images_become_float32_without_rounding(method):
    x = np.random.default_rng(4).integers(0, 256, (9, 7, 3)).astype(np.uint8)
    got = image.resize(x, (5, 12, 3), method)
    assert got.dtype == np.float32  # as JAX: promoted, not rounded or clipped back
    np.testing.assert_allclose(got, reference_resize(x, (5, 12, 3), method), atol=2e-4)
    assert image.resize(x, (5, 12, 3), "nearest").dtype == np.uint8


def test_float16_stays_float16_and_x64_gives_float64(x64):
    assert image.resize(np.ones(3, np.float16), (5,), "linear").dtype == np.float16
    assert image.resize(np.ones(3, np.int64), (5,), "linear").dtype == np.float64


# ---- transformations ----

@pytest.mark.parametrize("method", ["nearest", "linear", "cubic", "lanczos3", "area",
                                    "cubic-pytorch"])
def test_gradient_in_the_image_matches_finite_differences(x64, method):
    x = _image((5, 4))
    check_grads(lambda im: image.resize(im, (7, 3), method, antialias=False), (x,))


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "area"])
def test_gradient_in_scale_and_translation_matches_finite_differences(x64, method):
    x = _image((7, 5))
    scale, shift = np.array([1.3, 0.7]), np.array([0.4, -0.2])  # away from kernel kinks

    def f(s, t):
        return image.scale_and_translate(x, (9, 6), (0, 1), s, t, method)
    check_grads(f, (scale, shift), eps=1e-6, rtol=1e-5, atol=1e-6)


def test_vmap_over_images_and_over_scales_matches_a_loop():
    x = _image((4, 6, 5)).astype(np.float32)
    check_vmap(lambda im: image.resize(im, (9, 3), "cubic"), (x,), atol=1e-5)
    check_vmap(lambda im: image.resize(im, (9, 3), "nearest"), (x,), atol=0)
    scales = np.array([[1.5, 0.5], [0.8, 1.2], [2.0, 1.0]], np.float32)
    shifts = np.array([[0.3, 0.0], [-1.0, 0.5], [0.0, 2.0]], np.float32)
    check_vmap(lambda s, t: image.scale_and_translate(x[0], (7, 8), (0, 1), s, t, "linear"),
               (scales, shifts), atol=1e-5)


@pytest.mark.parametrize("method", ["nearest", "linear", "lanczos5", "cubic-pytorch", "area"])
def test_jit_matches_the_reference_interpreter(method):
    x = _image((2, 6, 9)).astype(np.float32)
    f = lambda im: image.resize(im, (2, 11, 4), method, antialias=False)
    np.testing.assert_allclose(tjit.jit(f)(x), tjit.jit(f, backend="interpreter")(x),
                               rtol=1e-6, atol=1e-6)


def test_jit_of_grad_in_scale_equals_eager_grad_and_finite_differences(x64):
    x = _image((6, 5))

    def loss(s):
        return jnp.sum(image.scale_and_translate(x, (8, 4), (0, 1), s, jnp.array([0.3, -0.1]),
                                                 "lanczos3") ** 2)
    s = np.array([1.25, 0.8])  # no output centre on the input's edge (a jump there)
    g = tjit.jit(tjit.grad(loss))(s)
    np.testing.assert_allclose(g, tjit.grad(loss)(s), rtol=1e-10)
    eps = 1e-6
    fd = [(loss(s + eps * e) - loss(s - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)


@pytest.mark.parametrize("method", ["nearest", "cubic"])
def test_a_symbolic_batch_dim_is_kept(method):
    f = tjit.jit(lambda im: image.resize(im, (im.shape[0], 7, im.shape[2]), method),
                 polymorphic_shapes=["(b, 4, c)"])
    for shape in [(3, 4, 2), (5, 4, 1)]:
        x = _image(shape).astype(np.float32)
        np.testing.assert_allclose(f(x), image.resize(x, (shape[0], 7, shape[2]), method),
                                   atol=1e-6)
    with pytest.raises(ValueError, match="resampling needs concrete sizes"):
        tjit.jit(lambda im: image.resize(im, (4, 2 * im.shape[1]), "linear"),
                 polymorphic_shapes=["(4, n)"])(np.ones((4, 3), np.float32))


def test_jit_of_scale_and_translate_with_traced_scale():
    x = _image((6, 6)).astype(np.float32)
    f = lambda s, t: image.scale_and_translate(x, (4, 9), (0, 1), s, t, "cubic")
    s, t = np.array([0.7, 1.4], np.float32), np.array([0.2, -0.6], np.float32)
    np.testing.assert_allclose(tjit.jit(f)(s, t), reference(x, (4, 9), (0, 1), s, t, "cubic"),
                               atol=2e-6)


# ---- errors ----

def test_errors_name_the_problem():
    x = np.ones((4, 4))
    with pytest.raises(ValueError, match="shape must have length equal to the number of "
                                         "dimensions of x"):
        image.resize(x, (2,), "linear")
    with pytest.raises(ValueError, match='Unknown resize method "bogus"'):
        image.resize(x, (2, 2), "bogus")
    with pytest.raises(TypeError, match="resize: method must be a ResizeMethod"):
        image.resize(x, (2, 2), 3)
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not currently "
                                         "supported for scale_and_translate"):
        image.scale_and_translate(x, (2, 2), (0, 1), jnp.ones(2), jnp.zeros(2), "nearest")
    with pytest.raises(ValueError, match=r"scale must have one entry per spatial dimension"):
        image.scale_and_translate(x, (2, 2), (0, 1), jnp.ones(3), jnp.zeros(2), "linear")
    with pytest.raises(ValueError, match="dimension 1 is not in spatial_dims"):
        image.scale_and_translate(x, (2, 2), (0,), jnp.ones(1), jnp.zeros(1), "linear")
    with pytest.raises(ValueError, match="negative dimension"):
        image.resize(x, (2, -1), "linear")
    with pytest.raises(ValueError, match="dimension 0 of size 0"):
        image.resize(np.ones((0, 3)), (2, 3), "linear")


def test_method_names_and_empty_outputs():
    assert ResizeMethod.from_string("trilinear") is ResizeMethod.LINEAR
    assert ResizeMethod.from_string("bicubic-pytorch") is ResizeMethod.CUBIC_PYTORCH
    assert image.resize(np.ones((3, 4)), (0, 4), ResizeMethod.LANCZOS3).shape == (0, 4)


def test_docstring_examples_run():
    for fun in (image.resize, image.scale_and_translate, ResizeMethod):
        result = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in doctest.DocTestFinder(recurse=False).find(fun, globs={"image": image,
                                                                          "ResizeMethod": ResizeMethod}):
            result.run(test)
        assert result.summarize(verbose=False).failed == 0, fun
