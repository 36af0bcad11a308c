"""Saving and loading arrays in NumPy's ``.npy`` / ``.npz`` formats, as ``jax.numpy``:
``save``/``savez``/``savez_compressed`` write an array's values through NumPy and
``load`` returns tjit arrays (NumPy arrays inside an ``.npz`` archive stay NumPy's, as
in JAX). bfloat16 data, which NumPy stores as the raw 2-byte type ``V2``, is read back
as bfloat16. ``frombuffer``/``fromstring`` read through NumPy too; ``fromfile`` and
``fromiter`` are refused as in JAX (they consume their source, so they are not pure)."""

import numpy as np

from tjit.numpy._core import asarray
from tjit.numpy._dtypes import bfloat16

__all__ = ["save", "savez", "savez_compressed", "load", "frombuffer", "fromstring",
           "fromfile", "fromiter"]


def _to_host(x):
    """NumPy values for tjit arrays (a traced value raises the concretization error);
    anything else is left to NumPy."""
    if hasattr(x, "aval") or type(x).__module__.startswith("tjit"):
        return np.asarray(x)
    return x


def save(file, arr, allow_pickle=True):
    """Write ``arr`` to ``file`` in ``.npy`` format (``numpy.save``).

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> jnp.save(buf, jnp.arange(3))
        >>> _ = buf.seek(0)
        >>> jnp.load(buf)
        Array([0, 1, 2], dtype=int32)
    """
    np.save(file, _to_host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to an uncompressed ``.npz`` archive (``numpy.savez``).

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> jnp.savez(buf, x=jnp.arange(3), y=jnp.ones(2))
        >>> _ = buf.seek(0)
        >>> sorted(jnp.load(buf).files)
        ['x', 'y']
    """
    np.savez(file, *[_to_host(a) for a in args], allow_pickle=allow_pickle,
             **{k: _to_host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to a compressed ``.npz`` archive.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> jnp.savez_compressed(buf, x=jnp.zeros(1000))
        >>> _ = buf.seek(0)
        >>> jnp.load(buf)['x'].shape
        (1000,)
    """
    np.savez_compressed(file, *[_to_host(a) for a in args], allow_pickle=allow_pickle,
                        **{k: _to_host(v) for k, v in kwds.items()})


def load(file, *args, **kwargs):
    """Read ``.npy`` / ``.npz`` data (``numpy.load``'s arguments). A single array comes
    back as a tjit array (with JAX's dtype rules: 64-bit data becomes 32-bit unless x64
    is on); an ``.npz`` archive is NumPy's lazy ``NpzFile``.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> jnp.save(buf, jnp.asarray([1.5, 2.5]))
        >>> _ = buf.seek(0)
        >>> jnp.load(buf)
        Array([1.5, 2.5], dtype=float32)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):  # how NumPy stores bfloat16
            out = out.view(bfloat16)
        try:
            out = asarray(out)
        except TypeError:  # a dtype tjit has no arrays of (strings, objects)
            pass
    return out


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-D array of the bytes of ``buffer`` read as ``dtype``, as ``numpy.frombuffer``
    (tjit copies them into its own array; ``float`` means the default float)."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """A 1-D array of the numbers in the text ``string`` separated by ``sep``, as
    ``numpy.fromstring`` (``sep`` is required: NumPy's binary mode is deprecated)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def _impure(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented, as in JAX: it consumes its source, so it is "
            f"not pure and unsafe under jit and the other transformations. Use "
            f"jnp.asarray(numpy.{name}(...)) outside jit instead.")
    refuse.__name__ = name
    refuse.__doc__ = (f"Not implemented, as in JAX: use ``jnp.asarray(numpy.{name}(...))`` "
                      f"outside jit (``{name}`` consumes its source, so it is not pure).")
    return refuse


fromfile = _impure("fromfile")
fromiter = _impure("fromiter")
