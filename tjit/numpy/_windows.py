"""Window functions of ``tjit.numpy`` (bartlett, blackman, hamming, hanning, kaiser),
with NumPy's formulas, in the default float dtype (float32 unless x64 is enabled). The
window length ``M`` decides the output shape, so it must be a concrete int."""


import numpy as np

from tjit import lax
from tjit.tracing.errors import static_index
from tjit.tracing import dtypes
from tjit.tracing.core import concrete_value
from tjit.numpy._core import ensure_array
from tjit.numpy import _ufuncs as uf


def _length(M, fname):  # noqa: N803  (NumPy's argument name)
    return static_index(concrete_value(M, f"the window length M of jnp.{fname}"), "M",
                        f"jnp.{fname}")


def _symmetric_n(M):  # noqa: N803
    """``arange(1 - M, M, 2)`` in the default float dtype (symmetric about 0)."""
    dt = dtypes.default_float()
    return lax.add(lax.mul(lax.iota(dt, M), lax.full((), 2, dt)), lax.full((), 1 - M, dt))


def _cosine_window(M, fname, terms):  # noqa: N803
    """``sum(c * cos(k * pi * n / (M - 1)))`` over ``terms`` = ((k, c), ...)."""
    M = _length(M, fname)  # noqa: N806
    dt = dtypes.default_float()
    if M < 1:
        return lax.full((0,), 0, dt)
    if M == 1:
        return lax.full((1,), 1, dt)
    n = _symmetric_n(M)
    out = lax.full((M,), 0, dt)
    for k, c in terms:
        arg = lax.mul(n, lax.full((), k * np.pi / (M - 1), dt))
        out = lax.add(out, lax.mul(lax.cos(arg), lax.full((), c, dt)))
    return out


def hanning(M):  # noqa: N803
    """The Hann window: ``0.5 + 0.5 cos(pi n / (M - 1))``."""
    return _cosine_window(M, "hanning", ((0, 0.5), (1, 0.5)))


def hamming(M):  # noqa: N803
    """The Hamming window: ``0.54 + 0.46 cos(pi n / (M - 1))``."""
    return _cosine_window(M, "hamming", ((0, 0.54), (1, 0.46)))


def blackman(M):  # noqa: N803
    """The Blackman window: ``0.42 + 0.5 cos(pi n / (M-1)) + 0.08 cos(2 pi n / (M-1))``."""
    return _cosine_window(M, "blackman", ((0, 0.42), (1, 0.5), (2, 0.08)))


def bartlett(M):  # noqa: N803
    """The Bartlett (triangular) window, zero at both ends."""
    M = _length(M, "bartlett")  # noqa: N806
    dt = dtypes.default_float()
    if M < 1:
        return lax.full((0,), 0, dt)
    if M == 1:
        return lax.full((1,), 1, dt)
    return lax.sub(lax.full((), 1, dt), lax.div(lax.abs(_symmetric_n(M)),
                                                lax.full((), M - 1, dt)))


def kaiser(M, beta):  # noqa: N803
    """The Kaiser window ``i0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / i0(beta)``; ``beta``
    may be traced."""
    M = _length(M, "kaiser")  # noqa: N806
    dt = dtypes.default_float()
    if M < 1:
        return lax.full((0,), 0, dt)
    if M == 1:
        return lax.full((1,), 1, dt)
    beta = lax.convert_element_type(ensure_array("kaiser", beta), dt)
    ratio = lax.div(_symmetric_n(M), lax.full((), M - 1, dt))  # in [-1, 1]
    arg = lax.sqrt(lax.max(lax.sub(lax.full((), 1, dt), lax.mul(ratio, ratio)),
                           lax.full((), 0, dt)))
    return uf.true_divide(uf.i0(uf.multiply(beta, arg)), uf.i0(beta))


__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
