"""The ``fft`` primitive (``jax.lax.fft``): discrete Fourier transforms over the trailing
``len(fft_lengths)`` dims of an array, in the four kinds of :class:`FftType`.

* ``FFT`` / ``IFFT``: complex -> complex, same shape (IFFT carries the 1/N factor).
* ``RFFT``: real -> complex; the trailing dims must equal ``fft_lengths``, the last one
  becomes ``n // 2 + 1`` (the non-negative frequencies).
* ``IRFFT``: complex -> real; the trailing dims are ``fft_lengths`` except the last,
  which is ``n // 2 + 1``; the output's last dim is ``n``.

The reference implementation (and so the compiled path, where it is a library step)
calls the array namespace's pocketfft (``numpy.fft``; ``cupy.fft`` on CUDA). All four
are linear: the jvp applies the primitive to the tangent; the transposes are JAX's
(FFT and IFFT are symmetric matrices, so each is its own transpose; RFFT transposes to
the real part of an FFT of the zero-extended cotangent; IRFFT to the conjugated RFFT of
the cotangent with the Hermitian weights 1, 2, ..., 2, 1 that count the frequencies
RFFT leaves out). Complex cotangents pair with tangents as ``Re(ct * t)`` (no
conjugate), JAX's convention. Batching moves the mapped axis to the front.
"""

import enum
import math

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import get_aval
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str
from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive
from tjit.primitives.elementwise import conj_p, mul_p, real_p
from tjit.primitives.slicing import pad_p
from tjit.primitives.structural import broadcast_in_dim_p


class FftType(enum.IntEnum):
    """The kind of transform (``jax.lax.FftType``)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3

    def __str__(self):  # as the jaxpr printer shows the param
        return f"FftType.{self.name}"

    __repr__ = __str__


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}

fft_p = new_primitive("fft")


def _check_lengths(x, fft_type, fft_lengths):
    k = len(fft_lengths)
    if k > x.ndim:
        raise ShapeError(f"fft: fft_lengths {fft_lengths} name more dims than the operand "
                         f"{x.str_short()} has")
    if any(type(n) is not int or n < 0 for n in fft_lengths):
        raise ShapeError(f"fft: fft_lengths must be non-negative ints, got {fft_lengths}")
    trailing = tuple(x.shape[x.ndim - k:])
    want = tuple(fft_lengths)
    if fft_type == FftType.IRFFT and k:
        want = want[:-1] + (want[-1] // 2 + 1,)
    if trailing != want:
        raise ShapeError(f"fft: {fft_type.name} with fft_lengths {fft_lengths} needs the "
                         f"operand's trailing dims to be {shape_str(want)}, got operand "
                         f"{x.str_short()}; pad or slice the operand first (jnp.fft does)")


@fft_p.def_abstract_eval
def _fft_abstract(x, *, fft_type, fft_lengths):
    fft_type = FftType(fft_type)
    if fft_type in (FftType.RFFT, FftType.IRFFT) and not fft_lengths:
        raise ShapeError(f"fft: {fft_type.name} needs at least one fft length, got "
                         f"fft_lengths={fft_lengths}")
    if fft_type == FftType.RFFT:
        if x.dtype not in _COMPLEX_OF:
            raise TypeError(f"fft: RFFT needs a float32 or float64 operand, got {x.str_short()};"
                            f" convert with x.astype(jnp.float32) first")
        _check_lengths(x, fft_type, fft_lengths)
        shape = x.shape[:-1] + (fft_lengths[-1] // 2 + 1,)
        return ShapedArray(shape, _COMPLEX_OF[x.dtype])
    if x.dtype not in _REAL_OF:
        raise TypeError(f"fft: {fft_type.name} needs a complex64 or complex128 operand, got "
                        f"{x.str_short()}; convert with x.astype(jnp.complex64) first")
    _check_lengths(x, fft_type, fft_lengths)
    if fft_type == FftType.IRFFT:
        shape = x.shape[:-1] + (fft_lengths[-1],)
        return ShapedArray(shape, _REAL_OF[x.dtype])
    return ShapedArray(x.shape, x.dtype)


fft_p.def_weak_type(lambda w, **_: False)


@fft_p.def_impl
def _fft_impl(xp, x, *, fft_type, fft_lengths):
    x = xp.asarray(x)
    fft_type = FftType(fft_type)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if not axes:  # a transform over no dims is the identity
        return x.copy()
    real_out = fft_type == FftType.IRFFT
    out_dtype = _REAL_OF[x.dtype] if real_out else _COMPLEX_OF.get(x.dtype, x.dtype)
    if 0 in x.shape or 0 in fft_lengths:  # pocketfft rejects empty transforms
        out_aval = _fft_abstract(ShapedArray(x.shape, x.dtype), fft_type=fft_type,
                                 fft_lengths=fft_lengths)
        return xp.zeros(out_aval.shape, out_dtype)
    one = len(axes) == 1  # the 1-D entry points skip the n-D bookkeeping
    if fft_type == FftType.FFT:
        out = xp.fft.fft(x) if one else xp.fft.fftn(x, axes=axes)
    elif fft_type == FftType.IFFT:
        out = xp.fft.ifft(x) if one else xp.fft.ifftn(x, axes=axes)
    elif fft_type == FftType.RFFT:
        out = xp.fft.rfft(x) if one else xp.fft.rfftn(x, axes=axes)
    else:
        out = xp.fft.irfft(x, fft_lengths[0]) if one else \
            xp.fft.irfftn(x, s=tuple(fft_lengths), axes=axes)
    return out.astype(out_dtype, copy=False)


# -- transposes --------------------------------------------------------------------------------
def _const_like(x, values, dtype):
    """``values`` (a NumPy array over ``x``'s last dim) broadcast to ``x``'s shape."""
    from tjit.tracing.core import Array
    shape = tuple(get_aval(x).shape)
    return broadcast_in_dim_p.bind(Array(np.asarray(values, dtype), False), shape=shape,
                                   broadcast_dimensions=(len(shape) - 1,))


def _rfft_transpose(ct, fft_lengths):
    """Re(FFT(ct zero-extended to the full last length)): RFFT is a slice of the FFT of
    the real input seen as complex."""
    n = fft_lengths[-1]
    nd = len(get_aval(ct).shape)
    zero = np.zeros((), get_aval(ct).dtype)
    from tjit.tracing.core import Array
    full = pad_p.bind(ct, Array(zero, False),
                      padding_config=((0, 0, 0),) * (nd - 1) + ((0, n - (n // 2 + 1), 0),))
    return real_p.bind(fft_p.bind(full, fft_type=FftType.FFT, fft_lengths=fft_lengths))


def _irfft_transpose(ct, fft_lengths):
    """conj(RFFT(ct) * w / N) with w = 1 for the zero (and, for even n, the Nyquist)
    frequency and 2 for the others, which IRFFT uses twice (as X_k and conj(X_k))."""
    x = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    n = fft_lengths[-1]
    m = n // 2 + 1
    w = np.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    w /= math.prod(fft_lengths)
    dt = get_aval(x).dtype
    return conj_p.bind(mul_p.bind(x, _const_like(x, w, dt)))


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    fft_type = FftType(fft_type)
    aval = x.aval if _r.is_undefined_primal(x) else get_aval(x)
    if type(ct) is _r.Zero:
        return [_r.Zero(ShapedArray(aval.shape, aval.dtype))]
    if not fft_lengths:  # the identity
        return [ct]
    if 0 in fft_lengths or 0 in aval.shape or 0 in get_aval(ct).shape:
        return [_r.zeros_like_aval(aval)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


_r.deflinear(fft_p, _fft_transpose)


def _fft_batch(args, dims, *, fft_type, fft_lengths):
    x = _r.moveaxis(args[0], dims[0], 0)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


fft_p.batch = _fft_batch


def complex_dtype_for(dt):
    """The complex dtype an FFT of a ``dt`` operand computes in (float32 -> complex64,
    float64 -> complex128; integers by their width, as JAX's to_inexact_dtype; float16
    and bfloat16 -> complex64, as JAX)."""
    dt = dtypes.to_inexact(dt)
    if dtypes.is_complex(dt):
        return dt
    return _COMPLEX_OF.get(dt, np.dtype(np.complex64))


def real_dtype_for(dt):
    """The real dtype of ``dt``'s precision (complex64 -> float32, ...)."""
    return _REAL_OF[complex_dtype_for(dt)]
