"""``tjit.image``: image resampling as ``jax.image``: ``resize``, ``scale_and_translate``
and ``ResizeMethod`` (nearest, linear, cubic, cubic-pytorch, lanczos3, lanczos5, area)."""

from tjit.image._kernels import ResizeMethod
from tjit.image._scale import resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

from tjit._namespace import publish as _publish

_publish(globals())  # tab completion lists the public API only
