"""Saving and loading arrays in NumPy's ``.npy`` / ``.npz`` formats, as ``jax.numpy``:
``save``/``savez``/``savez_compressed`` write an array's values through NumPy and
``load`` returns tjit arrays (NumPy arrays inside an ``.npz`` archive stay NumPy's, as
in JAX). bfloat16 data, which NumPy stores as the raw 2-byte type ``V2``, is read back
as bfloat16."""

import numpy as np

from tjit.numpy._core import asarray
from tjit.numpy._dtypes import bfloat16

__all__ = ["save", "savez", "savez_compressed", "load"]


def _to_host(x):
    """NumPy values for tjit arrays (a traced value raises the concretization error);
    anything else is left to NumPy."""
    if hasattr(x, "aval") or type(x).__module__.startswith("tjit"):
        return np.asarray(x)
    return x


def save(file, arr, allow_pickle=True):
    """Write ``arr`` to ``file`` in ``.npy`` format (``numpy.save``)."""
    np.save(file, _to_host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to an uncompressed ``.npz`` archive (``numpy.savez``)."""
    np.savez(file, *[_to_host(a) for a in args], allow_pickle=allow_pickle,
             **{k: _to_host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to a compressed ``.npz`` archive."""
    np.savez_compressed(file, *[_to_host(a) for a in args], allow_pickle=allow_pickle,
                        **{k: _to_host(v) for k, v in kwds.items()})


def load(file, *args, **kwargs):
    """Read ``.npy`` / ``.npz`` data (``numpy.load``'s arguments). A single array comes
    back as a tjit array (with JAX's dtype rules: 64-bit data becomes 32-bit unless x64
    is on); an ``.npz`` archive is NumPy's lazy ``NpzFile``."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):  # how NumPy stores bfloat16
            out = out.view(bfloat16)
        try:
            out = asarray(out)
        except TypeError:  # a dtype tjit has no arrays of (strings, objects)
            pass
    return out
