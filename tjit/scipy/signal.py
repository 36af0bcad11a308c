"""``tjit.scipy.signal``: N-dimensional convolution and correlation, as
``jax.scipy.signal``; the spectral functions (stft, istft, welch, csd, detrend) live in
``_signal_spectral``.

The direct methods gather the zero-padded input into patches (one static index table,
``out_size x kernel_size``) and contract them with the flipped kernel by one
``dot_general``, so the result is differentiable in both arguments (the gather
transposes to a scatter-add) and batches under ``vmap``. ``fftconvolve`` (and
``convolve(method="fft")``, as JAX) multiplies the inputs' spectra (``jnp.fft.rfftn`` /
``fftn``, zero-padded to SciPy's ``next_fast_len``): O(n log n) work, differentiable
and batched through the fft primitive. ``convolve2d``/``correlate2d`` support
``boundary="fill"`` with ``fillvalue=0`` only, as JAX.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import AxisError
from tjit.tracing.shapes import shape_str
from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact


def _args(fname, in1, in2, mode, method="direct"):
    check_arraylike(f"scipy.signal.{fname}", in1, in2)
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"scipy.signal.{fname}: mode must be 'full', 'same' or 'valid', "
                         f"got {mode!r}")
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"scipy.signal.{fname}: method must be 'auto', 'direct' or 'fft', "
                         f"got {method!r}")
    # JAX promotes to inexact (integer and bool inputs convolve to the default float)
    in1, in2 = promote_dtypes_inexact(jnp.asarray(in1), jnp.asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError(f"scipy.signal.{fname}: in1 {shape_str(in1.shape)} and in2 "
                         f"{shape_str(in2.shape)} must have the same number of dims")
    if 0 in in1.shape or 0 in in2.shape:
        raise ValueError(f"scipy.signal.{fname}: inputs cannot be empty, got shapes "
                         f"{shape_str(in1.shape)} and {shape_str(in2.shape)}")
    if mode == "valid":
        ge = all(a >= b for a, b in zip(in1.shape, in2.shape))
        le = all(a <= b for a, b in zip(in1.shape, in2.shape))
        if not (ge or le):
            raise ValueError(f"scipy.signal.{fname}: in mode 'valid' one input must be at "
                             f"least as large as the other in every dim, got "
                             f"{shape_str(in1.shape)} and {shape_str(in2.shape)}")
    return in1, in2


def _convolve_full(x, k):
    """The full N-D convolution ``out[n] = sum_j x[n - j] k[j]`` (shape A + B - 1):
    ``x`` padded by B - 1 zeros per side, gathered into one patch per output point, and
    contracted with the flipped kernel."""
    a, b = x.shape, k.shape
    full = tuple(p + q - 1 for p, q in zip(a, b))
    padded = jnp.pad(x, [(q - 1, q - 1) for q in b])
    strides = np.cumprod((1,) + padded.shape[:0:-1])[::-1]  # row-major strides of padded
    n_lin = sum(np.arange(s).reshape([-1 if i == d else 1 for i in range(len(full))]) * st
                for d, (s, st) in enumerate(zip(full, strides)))
    k_lin = sum(np.arange(s).reshape([-1 if i == d else 1 for i in range(len(b))]) * st
                for d, (s, st) in enumerate(zip(b, strides)))
    idx = np.ravel(n_lin)[:, None] + np.ravel(k_lin)[None, :]  # (prod(full), prod(b))
    patches = jnp.take(jnp.ravel(padded), jnp.asarray(idx.astype(np.int32)), axis=0)
    return jnp.dot(patches, jnp.ravel(jnp.flip(k))).reshape(full)


def _crop(full, a, b, mode):
    """The part of a full convolution of shapes ``a`` and ``b`` that ``mode`` keeps
    (SciPy's: 'same' is centred on in1, 'valid' needs no padding)."""
    if mode == "full":
        return full
    if mode == "same":
        starts, sizes = [(q - 1) // 2 for q in b], list(a)
    else:
        starts = [min(p, q) - 1 for p, q in zip(a, b)]
        sizes = [abs(p - q) + 1 for p, q in zip(a, b)]
    return lax.slice(full, starts, [s + n for s, n in zip(starts, sizes)])


def _convolve_nd(in1, in2, mode):
    if in1.ndim == 0:
        return in1 * in2
    return _crop(_convolve_full(in1, in2), in1.shape, in2.shape, mode)


def _reverse_conj(x):
    x = jnp.flip(x)
    return jnp.conj(x) if dtypes.is_complex(x.dtype) else x


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-dimensional convolution of ``in1`` and ``in2`` (same number of dims).

    Args:
      mode: 'full' (shape in1 + in2 - 1), 'same' (in1's shape, centred) or 'valid'
        (the points that need no zero padding).
      method: 'auto' or 'direct' (a direct convolution), or 'fft' (:func:`fftconvolve`).

    Returns:
      The convolution, with the inputs' promoted inexact dtype (as JAX: integer and bool
      inputs give the default float; SciPy keeps integers).
    """
    in1, in2 = _args("convolve", in1, in2, mode, method)
    if method == "fft" and in1.ndim:
        return fftconvolve(in1, in2, mode)
    return _convolve_nd(in1, in2, mode)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """N-dimensional cross-correlation ``z[k] = sum_l in1[l] conj(in2[l - k + c])``,
    i.e. ``convolve(in1, conj(flip(in2)))``; ``mode`` and ``method`` as in convolve."""
    in1, in2 = _args("correlate", in1, in2, mode, method)
    return _convolve_nd(in1, _reverse_conj(in2), mode)


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution of ``in1`` and ``in2`` through their Fourier transforms
    (``scipy.signal.fftconvolve``).

    Args:
      in1, in2: arrays with the same number of dims; integer inputs give the default
        float (as JAX and SciPy). An empty input gives an empty 1-D array (as SciPy).
      mode: 'full', 'same' or 'valid', as in :func:`convolve`.
      axes: the axes to convolve over (default: all); along the other axes the inputs
        must have equal sizes or size 1 (they broadcast, as SciPy).

    Returns:
      The convolution; equal to :func:`convolve` up to rounding.
    """
    check_arraylike("scipy.signal.fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(jnp.asarray(in1), jnp.asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError(f"scipy.signal.fftconvolve: in1 {shape_str(in1.shape)} and in2 "
                         f"{shape_str(in2.shape)} must have the same number of dims")
    if in1.ndim == 0:
        return in1 * in2
    if 0 in in1.shape or 0 in in2.shape:  # SciPy's answer: an empty 1-D array
        if mode not in ("full", "same", "valid"):
            raise ValueError(f"scipy.signal.fftconvolve: mode must be 'full', 'same' or "
                             f"'valid', got {mode!r}")
        return jnp.zeros((0,), in1.dtype)
    axes = _conv_axes(in1, in2, axes, mode)
    a = [in1.shape[ax] for ax in axes]
    b = [in2.shape[ax] for ax in axes]
    full = [p + q - 1 for p, q in zip(a, b)]
    fast = [_next_fast_len(n) for n in full]
    if dtypes.is_complex(in1.dtype):
        spec = jnp.fft.fftn(in1, fast, axes) * jnp.fft.fftn(in2, fast, axes)
        out = jnp.fft.ifftn(spec, fast, axes)
    else:
        spec = jnp.fft.rfftn(in1, fast, axes) * jnp.fft.rfftn(in2, fast, axes)
        out = jnp.fft.irfftn(spec, fast, axes)
    if mode == "full":
        starts, sizes = [0] * len(axes), full
    elif mode == "same":
        starts, sizes = [(q - 1) // 2 for q in b], a
    else:
        starts = [min(p, q) - 1 for p, q in zip(a, b)]
        sizes = [abs(p - q) + 1 for p, q in zip(a, b)]
    lo, hi = [0] * out.ndim, list(out.shape)
    for ax, st, n in zip(axes, starts, sizes):
        lo[ax], hi[ax] = st, st + n
    return lax.slice(out, lo, hi)


def _conv_axes(in1, in2, axes, mode):
    """fftconvolve's axes (normalized, sorted), checking the other axes broadcast and,
    for 'valid', that one input is at least as large as the other on every conv axis."""
    nd = in1.ndim
    if axes is None:
        axes = range(nd)
    axes = [axes] if np.ndim(axes) == 0 else list(axes)
    norm = []
    for ax in axes:
        if not -nd <= int(ax) < nd:
            raise AxisError(f"scipy.signal.fftconvolve: axis {ax} is out of bounds for "
                            f"inputs of rank {nd}")
        norm.append(int(ax) % nd)
    if len(set(norm)) != len(norm):
        raise ValueError(f"scipy.signal.fftconvolve: axes must be distinct, got {axes}")
    for ax in set(range(nd)) - set(norm):
        p, q = in1.shape[ax], in2.shape[ax]
        if p != q and 1 not in (p, q):
            raise ValueError(f"scipy.signal.fftconvolve: in1 {shape_str(in1.shape)} and in2 "
                             f"{shape_str(in2.shape)} must have equal sizes (or size 1) "
                             f"along axis {ax}, which is not convolved")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"scipy.signal.fftconvolve: mode must be 'full', 'same' or "
                         f"'valid', got {mode!r}")
    if mode == "valid":
        pairs = [(in1.shape[ax], in2.shape[ax]) for ax in norm]
        if not (all(p >= q for p, q in pairs) or all(p <= q for p, q in pairs)):
            raise ValueError(f"scipy.signal.fftconvolve: in mode 'valid' one input must be "
                             f"at least as large as the other in every dim, got "
                             f"{shape_str(in1.shape)} and {shape_str(in2.shape)}")
    return sorted(norm)


def _next_fast_len(n):
    import scipy.fft  # a cheap size table; imported on first use like scipy.linalg
    return scipy.fft.next_fast_len(n, real=True)


def _args2d(fname, in1, in2, mode, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"scipy.signal.{fname}: only boundary='fill' with "
                                  f"fillvalue=0 is supported (as JAX), got "
                                  f"boundary={boundary!r}, fillvalue={fillvalue!r}; pad the "
                                  f"input with jnp.pad(mode='wrap'/'symmetric') instead")
    in1, in2 = _args(fname, in1, in2, mode)
    if in1.ndim != 2:
        raise ValueError(f"scipy.signal.{fname}: inputs must be 2-D, got "
                         f"{shape_str(in1.shape)} and {shape_str(in2.shape)}")
    return in1, in2


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D convolution (``boundary='fill'``, ``fillvalue=0`` only); see :func:`convolve`."""
    in1, in2 = _args2d("convolve2d", in1, in2, mode, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D cross-correlation (``boundary='fill'``, ``fillvalue=0`` only).

    SciPy's correlate2d centres 'same' on the flipped problem and, in 'valid' mode with
    in2 the larger input, correlates in2 with in1; both are kept, as JAX does."""
    in1, in2 = _args2d("correlate2d", in1, in2, mode, boundary, fillvalue)
    conj2 = jnp.conj(in2) if dtypes.is_complex(in2.dtype) else in2
    swap = all(p <= q for p, q in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    if mode == "valid" and swap and not same_shape:
        return _convolve_nd(jnp.flip(in2), jnp.conj(in1) if dtypes.is_complex(in1.dtype)
                            else in1, mode)
    return jnp.flip(_convolve_nd(jnp.flip(in1), conj2, mode))


from tjit.scipy._signal_spectral import csd, detrend, istft, stft, welch  # noqa: E402

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
           "fftconvolve", "istft", "stft", "welch"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
