"""The resampling kernels of ``tjit.image`` and the ``ResizeMethod`` enum that names them.

Each kernel maps the distance ``x >= 0`` (in input pixels, already divided by the
antialiasing stretch) between an output sample and an input pixel centre to a weight; the
formulas are JAX's (jax/_src/image/scale.py), written with ``tjit.numpy`` ops so that the
weights are differentiable in the distance (and so in ``scale`` and ``translation``).
"""

import enum

import numpy as np

from tjit import numpy as jnp


def _fill_lanczos_kernel(radius, x):
    # sinc(x) sinc(x / radius), with its limit 1 near 0 (the guarded division keeps the
    # gradient finite at x = 0)
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    safe = jnp.where(x != 0, np.pi ** 2 * x ** 2, 1)
    out = jnp.where(x > 1e-3, y / safe, 1)
    return jnp.where(x > radius, 0., out)


def _fill_keys_cubic_kernel(x):
    # Keys (1981) cubic convolution with a = -0.5: Pillow's, TensorFlow's and PyTorch's
    # antialiased bicubic
    out = ((1.5 * x - 2.5) * x) * x + 1.
    out = jnp.where(x >= 1., ((-0.5 * x + 2.5) * x - 4.) * x + 2., out)
    return jnp.where(x >= 2., 0., out)


def _fill_opencv_cubic_kernel(x):
    # the same family with a = -0.75: OpenCV's, and PyTorch's bicubic without antialias
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _fill_triangle_kernel(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


#: Marks the area method, whose weights are interval overlaps rather than a kernel of x.
AREA_KERNEL = object()


class ResizeMethod(enum.Enum):
    """Image resize method, as ``jax.image.ResizeMethod``.

    NEAREST: nearest-neighbour interpolation. LINEAR: linear interpolation (a triangle
    filter when antialiasing a downsample). LANCZOS3 / LANCZOS5: Lanczos resampling of
    radius 3 / 5. CUBIC: cubic interpolation with the Keys kernel (a = -0.5).
    CUBIC_PYTORCH: PyTorch's bicubic (OpenCV's kernel, a = -0.75, with repeated edge
    pixels) when not antialiasing; CUBIC otherwise. AREA: the mean of the input over each
    output pixel's area (a box filter when upsampling, as TensorFlow's).

    Example::

        >>> ResizeMethod.from_string("bilinear")
        <ResizeMethod.LINEAR: 1>
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        """The method a string names ('nearest', 'linear', 'bilinear', 'trilinear',
        'triangle', 'lanczos3', 'lanczos5', 'cubic', 'bicubic', 'tricubic',
        'cubic-pytorch', 'bicubic-pytorch', 'area'); a ValueError for any other."""
        if s == "nearest":
            return ResizeMethod.NEAREST
        if s in ("linear", "bilinear", "trilinear", "triangle"):
            return ResizeMethod.LINEAR
        if s == "lanczos3":
            return ResizeMethod.LANCZOS3
        if s == "lanczos5":
            return ResizeMethod.LANCZOS5
        if s in ("cubic", "bicubic", "tricubic"):
            return ResizeMethod.CUBIC
        if s in ("cubic-pytorch", "bicubic-pytorch"):
            return ResizeMethod.CUBIC_PYTORCH
        if s == "area":
            return ResizeMethod.AREA
        raise ValueError(f'Unknown resize method "{s}"')


#: method -> (kernel radius in input pixels, kernel)
KERNELS = {
    ResizeMethod.LINEAR: (1, _fill_triangle_kernel),
    ResizeMethod.LANCZOS3: (3, lambda x: _fill_lanczos_kernel(3., x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _fill_lanczos_kernel(5., x)),
    ResizeMethod.CUBIC: (2, _fill_keys_cubic_kernel),
    ResizeMethod.CUBIC_PYTORCH: (2, _fill_opencv_cubic_kernel),
    ResizeMethod.AREA: (1, AREA_KERNEL),
}


def as_method(method, op):
    """``method`` (a ResizeMethod or its string name) as a ResizeMethod."""
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    if not isinstance(method, ResizeMethod):
        raise TypeError(f"{op}: method must be a ResizeMethod or its name (e.g. 'linear'), "
                        f"got {method!r}")
    return method
