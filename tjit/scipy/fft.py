"""``tjit.scipy.fft``: the type-2 discrete cosine transform and its inverse, as
``jax.scipy.fft`` (``dct``, ``dctn``, ``idct``, ``idctn``; type 2 only, as JAX).

Each is a composition of ``jnp.fft`` ops (Makhoul, "A Fast Cosine Transform in One and
Two Dimensions", 1980): the input is reordered (even samples, then the odd ones
reversed), transformed by one complex FFT and twiddled by ``exp(-i pi k / 2N)``, so
``jit``, ``grad`` and ``vmap`` work through the fft primitive. The reorderings are
static gathers (``jnp.take`` with a NumPy index table); N-D transforms apply the 1-D one
along each axis in turn (the transform is separable). Complex inputs are transformed
part by part, as JAX does.
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.primitives.fft import complex_dtype_for
from tjit.tracing import dtypes
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import normalize_axes, normalize_axis

__all__ = ["dct", "dctn", "idct", "idctn"]

_NORMS = (None, "backward", "ortho")


def _check_args(name, x, type, norm):
    """``x`` as an inexact array after the checks JAX makes on ``type`` and ``norm``."""
    check_arraylike(f"scipy.fft.{name}", x)
    if type != 2:
        raise NotImplementedError(
            f"scipy.fft.{name}: only DCT type 2 is implemented (as in jax.scipy.fft), got "
            f"type={type!r}; pass type=2, or call scipy.fft.{name} on a NumPy array")
    if norm not in _NORMS:
        raise ValueError(f"scipy.fft.{name}: norm={norm!r} is not implemented; use None, "
                         f"'backward' or 'ortho'")
    x, = promote_dtypes_inexact(jnp.asarray(x))
    return x


def _resized(name, x, n, axis):
    """``x`` cropped or zero-padded to length ``n`` along ``axis`` (``n=None``: as is)."""
    if n is None:
        return x
    n = static_index(n, "n", f"scipy.fft.{name}")
    if n < 1:
        raise ValueError(f"scipy.fft.{name}: the transform length must be at least 1, got "
                         f"n={n} for axis {axis}")
    size = x.shape[axis]
    if n < size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    if n > size:
        return jnp.pad(x, [(0, n - size if a == axis else 0) for a in range(x.ndim)])
    return x


def _interleave_order(n):
    """The order ``[0, 2, 4, ..., 5, 3, 1]``: even samples, then the odd ones reversed."""
    return np.concatenate([np.arange(0, n, 2), np.arange(1, n, 2)[::-1]])


def _along(values, axis, ndim):
    """1-D ``values`` shaped to broadcast along ``axis`` of an ``ndim``-array."""
    return values.reshape([-1 if a == axis else 1 for a in range(ndim)])


def _twiddle(n, dtype):
    """``exp(-i pi k / 2n)`` for k < n, computed in float64 and cast once (a constant)."""
    return np.exp(-0.5j * np.pi * np.arange(n) / n).astype(dtype)


def _ortho_factor(n, dtype):
    """SciPy's "ortho" scale of a type-2 DCT: ``1/sqrt(4n)`` for k = 0, else ``1/sqrt(2n)``."""
    return (1 / np.sqrt(np.where(np.arange(n) == 0, 4.0, 2.0) * n)).astype(dtype)


def _per_part(fun, x, *args):
    """``fun`` on a complex ``x``'s real and imaginary parts (the transform is real-linear)."""
    return lax.complex(fun(jnp.real(x), *args), fun(jnp.imag(x), *args))


def _dct_axis(x, axis, norm):
    """Type-2 DCT of a real ``x`` along ``axis`` (its final length)."""
    n = x.shape[axis]
    v = jnp.take(x, _interleave_order(n), axis=axis)
    spectrum = jnp.fft.fft(v, axis=axis)
    out = 2 * jnp.real(spectrum * _along(_twiddle(n, spectrum.dtype), axis, x.ndim))
    if norm == "ortho":
        out = out * _along(_ortho_factor(n, out.dtype), axis, x.ndim)
    return out


def _idct_axis(x, axis, norm):
    """Inverse of :func:`_dct_axis` (SciPy's type-3 DCT with the matching scale)."""
    n = x.shape[axis]
    scale = _ortho_factor(n, np.float64)
    if norm != "ortho":  # "backward": the inverse carries the whole 1/(2n) scale
        scale = scale * scale
    scale = scale * 2 * n  # ifft divides by n; the twiddle's conjugate doubles the sum
    spectrum = x * _along(scale.astype(x.dtype), axis, x.ndim)
    twiddle = (1 / _twiddle(n, np.complex128)).astype(complex_dtype_for(x.dtype))
    spectrum = spectrum * _along(twiddle, axis, x.ndim)
    v = jnp.real(jnp.fft.ifft(spectrum, axis=axis))
    return jnp.take(v, np.argsort(_interleave_order(n)), axis=axis)


def _one_d(name, axis_fun, x, type, n, axis, norm):
    x = _check_args(name, x, type, norm)
    if x.ndim == 0:
        raise ValueError(f"scipy.fft.{name}: the input must have at least one dim, got a "
                         f"scalar; pass an array such as x[None]")
    axis = normalize_axis(axis, x.ndim, f"scipy.fft.{name}")
    x = _resized(name, x, n, axis)
    if dtypes.is_complex(x.dtype):
        return _per_part(axis_fun, x, axis, norm)
    return axis_fun(x, axis, norm)


def _n_d(name, axis_fun, x, type, s, axes, norm):
    x = _check_args(name, x, type, norm)
    if s is not None:
        seq = isinstance(s, (tuple, list)) or getattr(s, "ndim", 0)  # (np.ndim(s) would
        # convert a tuple holding a tracer)
        s = [static_index(v, "s", f"scipy.fft.{name}") for v in (s if seq else [s])]
        if len(s) > x.ndim:
            raise ValueError(f"scipy.fft.{name}: s must have at most x.ndim ({x.ndim}) "
                             f"elements, got s={tuple(s)}")
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    else:
        axes = normalize_axes(axes, x.ndim, f"scipy.fft.{name}")
    if s is not None:
        if len(s) != len(axes):
            raise ValueError(f"scipy.fft.{name}: s={tuple(s)} and axes={axes} must have "
                             f"the same length")
        for n, axis in zip(s, axes):
            x = _resized(name, x, n, axis)

    def transform(part, *_):
        for axis in axes:
            part = axis_fun(part, axis, norm)
        return part

    return _per_part(transform, x) if dtypes.is_complex(x.dtype) else transform(x)


def dct(x, type=2, n=None, axis=-1, norm=None):
    """Type-2 discrete cosine transform along one axis (``jax.scipy.fft.dct``).

    Args:
      x: input array (integers are promoted to the default float; complex inputs are
        transformed part by part).
      type: the DCT type; only 2 is implemented, as in JAX.
      n: the transform length: the input is zero-padded or truncated to it along ``axis``.
      axis: the axis to transform.
      norm: None or "backward" (no scaling), or "ortho" (an orthonormal transform).

    Returns:
      ``y[k] = 2 * sum_j x[j] cos(pi k (2j + 1) / 2n)`` along ``axis`` (SciPy's definition).

    >>> import tjit.scipy.fft
    >>> tjit.scipy.fft.dct(jnp.array([1.0, 2.0, 0.0, -1.0]))
    Array([ 4.       ,  5.2262516, -2.828427 , -2.1647844], dtype=float32)
    """
    return _one_d("dct", _dct_axis, x, type, n, axis, norm)


def idct(x, type=2, n=None, axis=-1, norm=None):
    """Inverse of the type-2 DCT along one axis (``jax.scipy.fft.idct``):
    ``idct(dct(x, norm=m), norm=m)`` is ``x`` for either ``norm``.

    Args:
      x: input array (integers are promoted to the default float; complex inputs are
        transformed part by part).
      type: the type of the DCT inverted; only 2 is implemented, as in JAX.
      n: the transform length: the input is zero-padded or truncated to it along ``axis``.
      axis: the axis to transform.
      norm: None or "backward" (scaled by ``1/(2n)``), or "ortho" (orthonormal).

    Returns:
      the inverse transform along ``axis``, SciPy's ``scipy.fft.idct(x, type=2)``.

    >>> import tjit.scipy.fft
    >>> tjit.scipy.fft.idct(jnp.array([4.0, 0.0, -2.0, 0.0]))
    Array([0.14644662, 0.8535534 , 0.8535534 , 0.14644662], dtype=float32)
    """
    return _one_d("idct", _idct_axis, x, type, n, axis, norm)


def dctn(x, type=2, s=None, axes=None, norm=None):
    """Type-2 discrete cosine transform over several axes (``jax.scipy.fft.dctn``).

    Args:
      x: input array (integers are promoted to the default float; complex inputs are
        transformed part by part).
      type: the DCT type; only 2 is implemented, as in JAX.
      s: the transform lengths (an int or a sequence, one per transformed axis): the input
        is zero-padded or truncated to them.
      axes: the axes to transform; by default the last ``len(s)`` axes, or all axes when
        ``s`` is None too.
      norm: None or "backward" (no scaling), or "ortho" (an orthonormal transform).

    Returns:
      the 1-D :func:`dct` applied along each of ``axes`` in turn.

    >>> import tjit.scipy.fft
    >>> tjit.scipy.fft.dctn(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[ 40.      ,  -5.656854],
           [-11.313708,   0.      ]], dtype=float32)
    """
    return _n_d("dctn", _dct_axis, x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):
    """Inverse of the type-2 DCT over several axes (``jax.scipy.fft.idctn``).

    Args:
      x: input array (integers are promoted to the default float; complex inputs are
        transformed part by part).
      type: the type of the DCT inverted; only 2 is implemented, as in JAX.
      s: the transform lengths (an int or a sequence, one per transformed axis): the input
        is zero-padded or truncated to them.
      axes: the axes to transform; by default the last ``len(s)`` axes, or all axes when
        ``s`` is None too.
      norm: None or "backward" (scaled by ``1/(2n)`` per axis), or "ortho" (orthonormal).

    Returns:
      the 1-D :func:`idct` applied along each of ``axes`` in turn.

    >>> import tjit.scipy.fft
    >>> tjit.scipy.fft.idctn(jnp.array([[8.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0.5],
           [0.5, 0.5]], dtype=float32)
    """
    return _n_d("idctn", _idct_axis, x, type, s, axes, norm)


from tjit._namespace import publish as _publish

_publish(globals())  # tab completion lists the public API only
