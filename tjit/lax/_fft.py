"""``tjit.lax.fft`` (``jax.lax.fft``): the ``fft`` primitive of ``primitives/fft.py``."""

import numpy as np

from tjit.lax._elementwise import asarray_for_lax
from tjit.primitives.fft import FftType, fft_p
from tjit.tracing.shapes import static_ints

__all__ = ["FftType", "fft"]


def _fft_type(fft_type):
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            raise ValueError(f"lax.fft: fft_type must be one of 'fft', 'ifft', 'rfft', "
                             f"'irfft' or a lax.FftType, got {fft_type!r}") from None
    return FftType(fft_type)


def fft(x, fft_type, fft_lengths):
    """Fourier transform over the trailing ``len(fft_lengths)`` dims of ``x``.

    Args:
      x: complex operand (real for ``RFFT``).
      fft_type: a :class:`FftType` or its name ('fft', 'ifft', 'rfft', 'irfft').
      fft_lengths: the transform's sizes; for ``RFFT`` they equal the trailing dims, for
        ``IRFFT`` the last is the real output's length ``n`` (operand: ``n // 2 + 1``).

    Returns:
      The transform, with no normalization on ``FFT``/``RFFT`` and ``1/N`` on
      ``IFFT``/``IRFFT`` (as ``jax.lax.fft``).
    """
    # one length or a sequence of them, each checked static (a traced one is named, not
    # converted by np.asarray)
    if not isinstance(fft_lengths, (tuple, list)):
        fft_lengths = [fft_lengths] if np.ndim(fft_lengths) == 0 else list(fft_lengths)
    lengths = static_ints(fft_lengths, "fft_lengths", "lax.fft")
    return fft_p.bind(asarray_for_lax(x), fft_type=_fft_type(fft_type), fft_lengths=lengths)
