"""``tjit.numpy.fft``: NumPy's / ``jax.numpy.fft``'s discrete Fourier transforms on the
``fft`` primitive (``tjit.lax.fft``), so each works under ``jit``, ``grad`` and ``vmap``.

Axes are moved to the end (the primitive transforms trailing dims), the input is
cropped or zero-padded to ``s`` / ``n`` (-1 in ``s``: that axis's own length, as NumPy 2), and ``norm`` ("backward", the default;
"ortho"; "forward") scales the result as NumPy does. Real inputs are transformed in
complex64 (complex128 with x64), as JAX; NumPy would use complex128. Unlike JAX, more
than three axes may be transformed at once (pocketfft has no such limit).
"""

import math

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import AxisError, static_index
from tjit.lax._fft import fft as _lax_fft
from tjit.primitives.fft import FftType, complex_dtype_for, real_dtype_for
from tjit.numpy._core import asarray, check_arraylike
from tjit.numpy._shape import moveaxis, roll
from tjit.numpy._padding import pad
from tjit.numpy._ufuncs import conj

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
           "ifftn", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _norm_scale(name, norm, lengths, inverse):
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ValueError(f"jnp.fft.{name}: norm must be one of {_NORMS} or None, got "
                         f"{norm!r}")
    n = math.prod(lengths)
    if norm == "backward" or n == 0:
        return None
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    return n if inverse else 1 / n  # "forward": the forward transform carries 1/n


#: the transform of complex input a real-input transform's error points to
_COMPLEX_TWIN = {"rfft": "fft", "rfft2": "fft2", "rfftn": "fftn", "ihfft": "ifft"}


def _as_operand(name, a, fft_type):
    """``a`` cast to the dtype the transform needs (complex for FFT/IFFT/IRFFT)."""
    check_arraylike(f"jnp.fft.{name}", a)
    a = asarray(a)
    if fft_type == FftType.RFFT:
        if dtypes.is_complex(a.dtype):
            raise TypeError(f"jnp.fft.{name}: the input must be real, got {a.dtype}; use "
                            f"jnp.fft.{_COMPLEX_TWIN.get(name, name)} for complex input")
        dt = real_dtype_for(a.dtype)
    else:
        dt = complex_dtype_for(a.dtype)
    return a if a.dtype == dt else a.astype(dt)


def _normalize_axes(name, ndim, axes, distinct=True):
    out = []
    for ax in axes:
        ax = static_index(ax, "axis", f"jnp.fft.{name}")
        if not -ndim <= ax < ndim:
            raise AxisError(f"jnp.fft.{name}: axis {ax} is out of bounds for an array "
                            f"of rank {ndim}")
        out.append(ax % ndim)
    if distinct and len(set(out)) != len(out):
        raise ValueError(f"jnp.fft.{name}: axes must be distinct, got {tuple(axes)}")
    return tuple(out)


def _fft_core(name, fft_type, a, s, axes, norm):
    """The transform of ``a`` over ``axes`` with output lengths ``s`` (NumPy's rules)."""
    arr = _as_operand(name, a, fft_type)
    if s is not None:
        s = tuple(static_index(x, "n (or s)", f"jnp.fft.{name}") for x in s)
        if any(x < 1 and x != -1 for x in s):
            raise ValueError(f"jnp.fft.{name}: s must be positive lengths (or -1 for an "
                             f"axis's own length), got {s}")
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    axes = _normalize_axes(name, arr.ndim, tuple(axes))
    if s is not None and len(s) != len(axes):
        raise ValueError(f"jnp.fft.{name}: s {s} and axes {axes} must have the same "
                         f"length")
    if s is not None:  # -1: the whole input along that axis (NumPy 2's rule, IRFFT too)
        s = tuple(arr.shape[ax] if n == -1 else n for n, ax in zip(s, axes))
    if fft_type in (FftType.RFFT, FftType.IRFFT) and not axes:
        raise ValueError(f"jnp.fft.{name}: at least one axis is needed")
    last = tuple(range(arr.ndim - len(axes), arr.ndim))
    if axes != last:  # (the eager path skips the no-op)
        arr = moveaxis(arr, axes, last)
    if s is None:
        s = [arr.shape[ax] for ax in last]
        if fft_type == FftType.IRFFT:
            s[-1] = 2 * (s[-1] - 1)
            if s[-1] < 1:
                raise ValueError(f"jnp.fft.{name}: invalid number of data points "
                                 f"({s[-1]}) for an input of length 1 along axis "
                                 f"{axes[-1]}; pass n")
        s = tuple(s)
    want = list(arr.shape)
    for ax, n in zip(last, s):
        want[ax] = n
    if fft_type == FftType.IRFFT:
        want[-1] = s[-1] // 2 + 1
    if any(w < d for w, d in zip(want, arr.shape)):  # crop
        arr = arr[tuple(slice(0, n) for n in want)]
    if tuple(arr.shape) != tuple(want):  # zero-pad
        arr = pad(arr, [(0, w - d) for w, d in zip(want, arr.shape)])
    out = _lax_fft(arr, fft_type, s)
    scale = _norm_scale(name, norm, s, fft_type in (FftType.IFFT, FftType.IRFFT))
    if scale is not None:
        out = out * np.asarray(scale, out.dtype)
    return moveaxis(out, last, axes) if axes != last else out


def _one_axis(axis):
    return (static_index(axis, "axis", "jnp.fft"),)


def _n(n):
    return None if n is None else (n,)


def fft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform (``numpy.fft.fft``).

    Args:
      a: input array (real inputs are transformed as complex).
      n: length of the transformed axis (the input is cropped or zero-padded).
      axis: the axis to transform.
      norm: "backward" (default, no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n).

    Returns:
      The complex transform. Example: ``jnp.fft.fft(jnp.ones(4))`` -> ``[4, 0, 0, 0]``.
    """
    return _fft_core("fft", FftType.FFT, a, _n(n), _one_axis(axis), norm)


def ifft(a, n=None, axis=-1, norm=None):
    """One-dimensional inverse DFT (``numpy.fft.ifft``); 1/n scaling by default."""
    return _fft_core("ifft", FftType.IFFT, a, _n(n), _one_axis(axis), norm)


def rfft(a, n=None, axis=-1, norm=None):
    """DFT of a real input's non-negative frequencies (``numpy.fft.rfft``): length
    ``n // 2 + 1`` along ``axis``."""
    return _fft_core("rfft", FftType.RFFT, a, _n(n), _one_axis(axis), norm)


def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of :func:`rfft` (``numpy.fft.irfft``): a real output of length ``n``
    (default ``2 * (m - 1)`` for an input of length ``m``)."""
    return _fft_core("irfft", FftType.IRFFT, a, _n(n), _one_axis(axis), norm)


def fftn(a, s=None, axes=None, norm=None):
    """N-dimensional DFT over ``axes`` (default: all, or the last ``len(s)``)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """N-dimensional inverse DFT (``numpy.fft.ifftn``)."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """N-dimensional DFT of a real input; the last axis keeps ``s[-1] // 2 + 1``
    frequencies (``numpy.fft.rfftn``)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of :func:`rfftn`: a real output with lengths ``s`` (default: the input's,
    with ``2 * (m - 1)`` on the last axis)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional DFT over ``axes`` (default: the last two)."""
    return _fft_core("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional inverse DFT over ``axes`` (default: the last two)."""
    return _fft_core("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional DFT of a real input (``numpy.fft.rfft2``)."""
    return _fft_core("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of :func:`rfft2` (``numpy.fft.irfft2``)."""
    return _fft_core("irfft2", FftType.IRFFT, a, s, axes, norm)


_SWAP_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swapped(name, norm):
    if norm not in _SWAP_NORM:
        raise ValueError(f"jnp.fft.{name}: norm must be one of {_NORMS} or None, got "
                         f"{norm!r}")
    return _SWAP_NORM[norm]


def hfft(a, n=None, axis=-1, norm=None):
    """DFT of a signal with Hermitian symmetry, given by its non-negative frequencies
    (``numpy.fft.hfft``): real output of length ``n`` (default ``2 * (m - 1)``).
    ``hfft(a, n) == irfft(conj(a), n, norm="forward")`` for the default norm."""
    return _fft_core("hfft", FftType.IRFFT, conj(asarray(a)), _n(n), _one_axis(axis),
                     _swapped("hfft", norm))


def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of :func:`hfft` (``numpy.fft.ihfft``): ``conj(rfft(a, n)) / n`` for the
    default norm."""
    return conj(_fft_core("ihfft", FftType.RFFT, a, _n(n), _one_axis(axis),
                          _swapped("ihfft", norm)))


def _spacing(name, d):
    if isinstance(d, (int, float, np.integer, np.floating)):
        return float(d)
    d = asarray(d)
    if d.ndim != 0:
        raise ValueError(f"jnp.fft.{name}: d must be a scalar, got shape {d.shape}")
    return d


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point DFT with sample spacing ``d``:
    ``[0, 1, ..., n//2 - 1 (or (n-1)//2), -(n//2), ..., -1] / (d * n)``.

    ``dtype`` defaults to the default float (float32 without x64), as JAX; ``device``
    is accepted for JAX's signature (arrays are created on the default device).
    """
    n = static_index(n, "n", "jnp.fft.fftfreq")
    if n < 1:
        raise ValueError(f"jnp.fft.fftfreq: n must be positive, got {n}")
    dtype = dtypes.default_float() if dtype is None else dtypes.check_dtype(dtype, "fftfreq")
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(k, dtype) / (_spacing("fftfreq", d) * n)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of :func:`rfft`: ``[0, 1, ..., n // 2] / (d * n)``."""
    n = static_index(n, "n", "jnp.fft.rfftfreq")
    if n < 1:
        raise ValueError(f"jnp.fft.rfftfreq: n must be positive, got {n}")
    dtype = dtypes.default_float() if dtype is None else dtypes.check_dtype(dtype, "rfftfreq")
    return _frequencies(np.arange(0, n // 2 + 1), dtype) / (_spacing("rfftfreq", d) * n)


def _frequencies(values, dtype):
    """``values`` (a NumPy integer array) as an Array of ``dtype``."""
    return asarray(np.asarray(values).astype(dtype))


def _shift_axes(x, axes):
    """``axes`` as a tuple; a repeated axis is rolled once per mention (NumPy, JAX)."""
    if axes is None:
        return tuple(range(x.ndim))
    return _normalize_axes("fftshift", x.ndim, (axes,) if np.ndim(axes) == 0 else axes,
                           distinct=False)


def fftshift(x, axes=None):
    """Move the zero frequency to the center (``numpy.fft.fftshift``): a roll by
    ``n // 2`` along each of ``axes`` (default: all)."""
    x = asarray(x)
    ax = _shift_axes(x, axes)
    return roll(x, [x.shape[a] // 2 for a in ax], ax) if ax else x


def ifftshift(x, axes=None):
    """Inverse of :func:`fftshift`: a roll by ``-(n // 2)`` along each of ``axes``."""
    x = asarray(x)
    ax = _shift_axes(x, axes)
    return roll(x, [-(x.shape[a] // 2) for a in ax], ax) if ax else x


def __dir__():  # tab completion lists the public names only
    return list(__all__)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
