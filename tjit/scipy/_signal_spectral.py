"""Spectral analysis for ``tjit.scipy.signal``: ``detrend``, ``stft``, ``istft``,
``welch`` and ``csd``, as ``jax.scipy.signal`` (SciPy's semantics).

Segment lengths, overlaps and FFT sizes are static (Python ints), so the segments are
one gather with a static index table and the overlap-add of ``istft`` one scatter-add:
every function runs eagerly and under ``jit``, ``vmap`` and ``grad``. Named windows
come from ``scipy.signal.get_window`` (a static table of ``nperseg`` numbers, as JAX);
an array window may be traced.
"""

import itertools
import warnings

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import normalize_axis, shape_str
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact


def _complex_dtype(dt):
    """The complex dtype with ``dt``'s precision (float32 -> complex64)."""
    return np.result_type(np.dtype(dt), np.complex64)


def _real_dtype(dt):
    """The real dtype with ``dt``'s precision (complex64 -> float32)."""
    return np.finfo(np.dtype(dt)).dtype


def _static_int(fname, name, value):
    """``value`` as a Python int; a traced value cannot size an array."""
    return static_index(value, name, f"scipy.signal.{fname}")


# ----------------------------------------------------------------------------- detrend

def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """Remove a linear (or piecewise linear) trend or the mean along ``axis``.

    Args:
      data: the input array.
      axis: the axis to detrend along.
      type: 'linear' (least-squares line, per piece between breakpoints) or 'constant'
        (the mean); SciPy's 'l' and 'c' are accepted too.
      bp: static breakpoints (indices into ``axis``) of the piecewise linear trend.
      overwrite_data: not supported (arrays are immutable); must be None.

    Returns:
      ``data`` minus its trend, in ``data``'s inexact dtype.
    """
    if overwrite_data is not None:
        raise NotImplementedError("scipy.signal.detrend: overwrite_data is not supported "
                                  "(tjit arrays are immutable); leave it None")
    if type not in ("linear", "l", "constant", "c"):
        raise ValueError(f"scipy.signal.detrend: type must be 'linear' or 'constant', got "
                         f"{type!r}")
    check_arraylike("scipy.signal.detrend", data)
    (x,) = promote_dtypes_inexact(jnp.asarray(data))
    if x.ndim == 0:
        raise ValueError("scipy.signal.detrend: data must have at least one dim, got a "
                         "scalar")
    ax = normalize_axis(axis, x.ndim, "scipy.signal.detrend")
    if type in ("constant", "c"):
        return x - jnp.mean(x, axis=ax, keepdims=True)
    n = x.shape[ax]
    cuts = np.sort(np.unique(np.r_[0, np.asarray(bp, dtype=np.int64).ravel(), n]))
    if cuts[0] < 0 or cuts[-1] > n:
        raise ValueError(f"scipy.signal.detrend: breakpoints must lie in [0, {n}] (the "
                         f"length of axis {ax}), got bp={bp!r}")
    x = jnp.moveaxis(x, ax, -1)
    pieces = [_remove_line(x[..., lo:hi]) for lo, hi in itertools.pairwise(cuts)]
    out = pieces[0] if len(pieces) == 1 else jnp.concatenate(pieces, axis=-1)
    return jnp.moveaxis(out, -1, ax)


def _remove_line(seg):
    """``seg`` minus its least-squares line along the last axis, in closed form about
    the centred abscissa (the same line as SciPy's lstsq; one point is its own line)."""
    npts = seg.shape[-1]
    centred = seg - jnp.mean(seg, axis=-1, keepdims=True)
    if npts < 2:
        return centred
    t = np.arange(npts, dtype=np.float64) - (npts - 1) / 2.0
    t = jnp.asarray(t, dtype=_real_dtype(seg.dtype))
    slope = jnp.sum(centred * t, axis=-1, keepdims=True) / _sum_sq(npts)
    return centred - slope * t


def _sum_sq(npts):
    """``sum((k - (npts-1)/2)**2 for k < npts)`` = npts (npts^2 - 1) / 12."""
    return npts * (npts * npts - 1) / 12.0


# ----------------------------------------------------------------------------- windows

def _window(fname, window, nperseg, input_length, dtype):
    """The window array and the segment length, as SciPy's ``_triage_segments``: a
    named window (str or tuple) is ``get_window(window, nperseg)`` (nperseg default 256,
    capped at the input length); an array window sets ``nperseg`` itself."""
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if nperseg > input_length:
            warnings.warn(f"scipy.signal.{fname}: nperseg = {nperseg} is greater than "
                          f"input length = {input_length}, using nperseg = {input_length}",
                          stacklevel=5 if fname == "stft" else 6)
            nperseg = input_length
        import scipy.signal  # the window tables; imported on first use (as scipy.fft)
        try:
            win = scipy.signal.get_window(window, nperseg)
        except ValueError as e:
            raise ValueError(f"scipy.signal.{fname}: unknown window {window!r} ({e})") \
                from None
        return jnp.asarray(win, dtype=dtype), nperseg
    win = jnp.asarray(window)
    if win.ndim != 1:
        raise ValueError(f"scipy.signal.{fname}: window must be 1-D, got shape "
                         f"{shape_str(win.shape)}")
    if input_length < win.shape[0]:
        raise ValueError(f"scipy.signal.{fname}: the window ({win.shape[0]} points) is "
                         f"longer than the input ({input_length} points)")
    if nperseg is None:
        nperseg = win.shape[0]
    elif nperseg != win.shape[0]:
        raise ValueError(f"scipy.signal.{fname}: nperseg = {nperseg} must equal the "
                         f"length of the window array ({win.shape[0]})")
    return win.astype(dtype) if not dtypes.is_complex(win.dtype) else win, nperseg


# ------------------------------------------------------------------ the spectral helper

def _odd_ext(x, n):
    """``x`` extended by ``n`` points at each end of its last axis by odd symmetry
    about the end points (SciPy's ``odd_ext``)."""
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(f"scipy.signal: boundary='odd' extends by {n} points, more than "
                         f"the signal's length - 1 ({x.shape[-1] - 1}); use a shorter "
                         f"nperseg or another boundary")
    first, last = x[..., :1], x[..., -1:]
    left = 2 * first - jnp.flip(x[..., 1:n + 1], axis=-1)
    right = 2 * last - jnp.flip(x[..., -n - 1:-1], axis=-1)
    return jnp.concatenate([left, x, right], axis=-1)


def _extend(x, boundary, n):
    """``x`` extended at both ends of its last axis by ``n`` points (stft's boundary)."""
    if boundary is None:
        return x
    if boundary == "odd":
        return _odd_ext(x, n)
    pad = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    mode = {"even": "reflect", "constant": "edge", "zeros": "constant"}[boundary]
    return jnp.pad(x, pad, mode=mode)


def _detrend_function(fname, detrend_type):
    if detrend_type is False or detrend_type is None:
        return lambda d: d
    if isinstance(detrend_type, str):
        if detrend_type not in ("linear", "l", "constant", "c"):
            raise ValueError(f"scipy.signal.{fname}: detrend must be 'constant', "
                             f"'linear', False or a function, got {detrend_type!r}")
        return lambda d: detrend(d, axis=-1, type=detrend_type)
    if callable(detrend_type):
        return detrend_type
    raise ValueError(f"scipy.signal.{fname}: detrend must be 'constant', 'linear', False "
                     f"or a function, got {detrend_type!r}")


def _segments_fft(x, win, detrend_func, nperseg, nstep, nfft, twosided):
    """The windowed FFT of every segment of the last axis: shape (..., nseg, nfreq)."""
    nseg = (x.shape[-1] - nperseg) // nstep + 1
    idx = np.arange(nseg)[:, None] * nstep + np.arange(nperseg)[None, :]
    segs = detrend_func(x[..., idx])
    segs = segs * win
    if twosided:
        return jnp.fft.fft(segs, n=nfft)
    return jnp.fft.rfft(segs, n=nfft)


def _spectral(fname, x, y, fs, window, nperseg, noverlap, nfft, detrend_type,
              return_onesided, scaling, axis, mode, boundary=None, padded=False):
    """SciPy's ``_spectral_helper``: (freqs, times, result) with the frequencies on
    ``axis`` and the segments on the last axis. ``y`` None is the auto-spectrum."""
    if boundary not in (None, "even", "odd", "constant", "zeros"):
        raise ValueError(f"scipy.signal.{fname}: boundary must be None, 'even', 'odd', "
                         f"'constant' or 'zeros', got {boundary!r}")
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"scipy.signal.{fname}: scaling must be 'density' or 'spectrum', "
                         f"got {scaling!r}")
    detrend_func = _detrend_function(fname, detrend_type)
    if y is None:
        check_arraylike(f"scipy.signal.{fname}", x)
        (x,) = promote_dtypes_inexact(jnp.asarray(x))
    else:
        check_arraylike(f"scipy.signal.{fname}", x, y)
        x, y = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(y))
        if x.ndim != y.ndim:
            raise ValueError(f"scipy.signal.{fname}: x {shape_str(x.shape)} and y "
                             f"{shape_str(y.shape)} must have the same number of dims")
    if x.ndim == 0:
        raise ValueError(f"scipy.signal.{fname}: x must have at least one dim, got a scalar")
    ax = normalize_axis(_static_int(fname, "axis", axis), x.ndim, f"scipy.signal.{fname}")
    x = jnp.moveaxis(x, ax, -1)
    if y is not None:
        y = jnp.moveaxis(y, ax, -1)
        try:
            np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        except ValueError:
            raise ValueError(f"scipy.signal.{fname}: x {shape_str(x.shape)} and y "
                             f"{shape_str(y.shape)} do not broadcast outside axis {ax}") \
                from None
        length = max(x.shape[-1], y.shape[-1])  # the shorter one is zero-padded
        x, y = (jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, length - a.shape[-1])])
                for a in (x, y))
    complex_dtype = _complex_dtype(x.dtype)
    real_dtype = _real_dtype(complex_dtype)
    if x.shape[-1] == 0 or (y is not None and y.shape[-1] == 0):
        raise ValueError(f"scipy.signal.{fname}: the input is empty along axis {ax}")
    if nperseg is not None:
        nperseg = _static_int(fname, "nperseg", nperseg)
        if nperseg < 1:
            raise ValueError(f"scipy.signal.{fname}: nperseg must be a positive integer, "
                             f"got {nperseg}")
    win, nperseg = _window(fname, window, nperseg, x.shape[-1], real_dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(fname, "noverlap", noverlap)
    nfft = nperseg if nfft is None else _static_int(fname, "nfft", nfft)
    if nfft < nperseg:
        raise ValueError(f"scipy.signal.{fname}: nfft ({nfft}) must be greater than or "
                         f"equal to nperseg ({nperseg})")
    if not 0 <= noverlap < nperseg:
        raise ValueError(f"scipy.signal.{fname}: noverlap ({noverlap}) must be in "
                         f"[0, nperseg = {nperseg})")
    nstep = nperseg - noverlap
    x = _extend(x, boundary, nperseg // 2)
    y = None if y is None else _extend(y, boundary, nperseg // 2)
    if padded:  # to a whole number of segments
        nadd = (-(x.shape[-1] - nperseg) % nstep) % nperseg
        x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, nadd)])
        y = None if y is None else jnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, nadd)])

    if scaling == "density":
        scale = 1.0 / (fs * jnp.sum(win * win))
    else:
        scale = 1.0 / jnp.sum(win) ** 2
    if mode == "stft":
        scale = jnp.sqrt(scale)
    twosided = not return_onesided
    if return_onesided and (dtypes.is_complex(x.dtype) or dtypes.is_complex(win.dtype)):
        warnings.warn(f"scipy.signal.{fname}: input data is complex, switching to "
                      f"return_onesided=False",
                      stacklevel=4 if fname == "stft" else 5)
        twosided = True
    if twosided:
        freqs = np.fft.fftfreq(nfft)
    else:
        freqs = np.fft.rfftfreq(nfft)
    freqs = jnp.asarray(freqs, dtype=real_dtype) * fs

    result = _segments_fft(x, win, detrend_func, nperseg, nstep, nfft, twosided)
    if y is not None:
        result = jnp.conj(result) * _segments_fft(y, win, detrend_func, nperseg, nstep,
                                                  nfft, twosided)
    elif mode == "psd":
        result = jnp.conj(result) * result
    result = result * scale
    if not twosided and mode == "psd":  # one-sided power: the negative frequencies too
        end = nfft // 2 + 1 if nfft % 2 else nfft // 2
        result = result.at[..., 1:end].multiply(2)
    times = np.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nstep)
    if boundary is not None:
        times = times - nperseg / 2
    times = jnp.asarray(times, dtype=real_dtype) / fs
    result = result.astype(complex_dtype)
    if y is None and mode != "stft":
        result = jnp.real(result)
    return freqs, times, jnp.moveaxis(result, -1, ax)


# ------------------------------------------------------------------ public functions

def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """Short-time Fourier transform (``scipy.signal.stft``).

    Args:
      x: the signal.
      fs: its sampling frequency.
      window: a window name or tuple (``scipy.signal.get_window``) or a 1-D array.
      nperseg: the segment length (static); noverlap: points shared by neighbouring
        segments (default ``nperseg // 2``); nfft: the FFT length (default nperseg).
      detrend: False, 'constant', 'linear' or a function applied to each segment.
      return_onesided: one-sided spectrum for real input.
      boundary: None, 'zeros', 'even', 'odd' or 'constant' extension by nperseg // 2.
      padded: zero-pad the end to a whole number of segments.
      axis: the time axis.

    Returns:
      ``(f, t, Zxx)``: frequencies, segment times and the STFT (frequencies on ``axis``,
      segments last), complex.
    """
    return _spectral("stft", x, None, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, "spectrum", axis, "stft", boundary, padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
    """Cross power spectral density by Welch's method (``scipy.signal.csd``).

    Args:
      x, y: the signals (``y`` None: the PSD of ``x``); the shorter one is zero-padded.
      scaling: 'density' (V**2/Hz) or 'spectrum' (V**2).
      average: 'mean' or 'median' (bias-corrected) of the segments' periodograms.
      The other arguments are :func:`stft`'s (nperseg default 256, capped at the
      signal's length).

    Returns:
      ``(f, Pxy)``: frequencies and the (complex) cross spectral density.
    """
    return _welch_average("csd", x, y, fs, window, nperseg, noverlap, nfft, detrend,
                          return_onesided, scaling, axis, average)


def _welch_average(fname, x, y, fs, window, nperseg, noverlap, nfft, detrend_type,
                   return_onesided, scaling, axis, average):
    """csd's body; ``fname`` names the public function in errors."""
    if average not in ("mean", "median"):
        raise ValueError(f"scipy.signal.{fname}: average must be 'mean' or 'median', got "
                         f"{average!r}")
    freqs, _, pxy = _spectral(fname, x, y, fs, window, nperseg, noverlap, nfft,
                              detrend_type, return_onesided, scaling, axis, "psd")
    if y is not None and not dtypes.is_complex(pxy.dtype):
        pxy = pxy.astype(_complex_dtype(pxy.dtype))
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] == 1:
            pxy = pxy[..., 0]
        elif average == "mean":
            pxy = jnp.mean(pxy, axis=-1)
        else:
            bias = _median_bias(pxy.shape[-1])
            if dtypes.is_complex(pxy.dtype):
                pxy = (jnp.median(jnp.real(pxy), axis=-1)
                       + 1j * jnp.median(jnp.imag(pxy), axis=-1))
            else:
                pxy = jnp.median(pxy, axis=-1)
            pxy = pxy / bias
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """Power spectral density by Welch's method (``scipy.signal.welch``); the arguments
    are :func:`csd`'s.

    Returns:
      ``(f, Pxx)``: frequencies and the (real) power spectral density.
    """
    freqs, pxx = _welch_average("welch", x, None, fs, window, nperseg, noverlap, nfft,
                                detrend, return_onesided, scaling, axis, average)
    return freqs, jnp.real(pxx)


def _median_bias(n):
    """The median of n chi^2_2 periodograms over their mean (SciPy's ``_median_bias``)."""
    ii_2 = 2 * np.arange(1.0, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse short-time Fourier transform (``scipy.signal.istft``): the inverse of
    :func:`stft` by weighted overlap-add.

    Args:
      Zxx: the STFT, at least 2-D.
      window, nperseg, noverlap, nfft: as given to :func:`stft` (nperseg and nfft
        default from ``Zxx``'s frequency axis).
      input_onesided: ``Zxx`` holds the non-negative frequencies of a real signal.
      boundary: the signal was extended at both ends by stft (the extension is cut).
      time_axis, freq_axis: the segment and frequency axes of ``Zxx``.

    Returns:
      ``(t, x)``: sample times and the signal (real for one-sided input), time last.
    """
    check_arraylike("scipy.signal.istft", Zxx)
    z = jnp.asarray(Zxx)
    if z.ndim < 2:
        raise ValueError(f"scipy.signal.istft: Zxx must be at least 2-D, got shape "
                         f"{shape_str(z.shape)}")
    fax = normalize_axis(_static_int("istft", "freq_axis", freq_axis), z.ndim,
                         "scipy.signal.istft")
    tax = normalize_axis(_static_int("istft", "time_axis", time_axis), z.ndim,
                         "scipy.signal.istft")
    if fax == tax:
        raise ValueError(f"scipy.signal.istft: time_axis and freq_axis must differ, both "
                         f"are {tax}")
    z = z.astype(_complex_dtype(dtypes.to_inexact(z.dtype)))
    n_default = 2 * (z.shape[fax] - 1) if input_onesided else z.shape[fax]
    nperseg = n_default if nperseg is None else _static_int("istft", "nperseg", nperseg)
    if nperseg < 1:
        raise ValueError(f"scipy.signal.istft: nperseg must be a positive integer, got "
                         f"{nperseg}")
    if nfft is None:
        nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft = _static_int("istft", "nfft", nfft)
    if nfft < nperseg:
        raise ValueError(f"scipy.signal.istft: nfft ({nfft}) must be greater than or equal "
                         f"to nperseg ({nperseg})")
    noverlap = nperseg // 2 if noverlap is None else _static_int("istft", "noverlap",
                                                                 noverlap)
    if not 0 <= noverlap < nperseg:
        raise ValueError(f"scipy.signal.istft: noverlap ({noverlap}) must be in "
                         f"[0, nperseg = {nperseg})")
    nstep = nperseg - noverlap
    outer = [i for i in range(z.ndim) if i not in (fax, tax)]
    z = jnp.transpose(z, outer + [fax, tax])
    if input_onesided:
        frames = jnp.fft.irfft(z, n=nfft, axis=-2)[..., :nperseg, :]
    else:
        frames = jnp.fft.ifft(z, n=nfft, axis=-2)[..., :nperseg, :]
    real_dtype = _real_dtype(z.dtype)
    if isinstance(window, (str, tuple)):
        import scipy.signal
        win = jnp.asarray(scipy.signal.get_window(window, nperseg), dtype=real_dtype)
    else:
        win = jnp.asarray(window)
        if win.shape != (nperseg,):
            raise ValueError(f"scipy.signal.istft: window must be 1-D with nperseg = "
                             f"{nperseg} points, got shape {shape_str(win.shape)}")
    nseg = frames.shape[-1]
    frames = jnp.swapaxes(frames * jnp.sum(win), -1, -2) * win  # (..., nseg, nperseg)
    out_len = nperseg + (nseg - 1) * nstep
    idx = (np.arange(nseg)[:, None] * nstep + np.arange(nperseg)[None, :]).ravel()
    batch = frames.shape[:-2]
    x = jnp.zeros(batch + (out_len,), frames.dtype).at[..., idx].add(
        frames.reshape(batch + (nseg * nperseg,)))
    norm = jnp.zeros((out_len,), win.dtype).at[idx].add(jnp.tile(win * win, nseg))
    if boundary:
        cut = nperseg // 2
        x, norm = x[..., cut:out_len - cut], norm[cut:out_len - cut]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and tax != z.ndim - 1:
        x = jnp.moveaxis(x, -1, tax - 1 if fax < tax else tax)
    times = jnp.arange(x.shape[0], dtype=real_dtype) / fs
    return times, x
