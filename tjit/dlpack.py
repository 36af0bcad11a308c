"""``tjit.dlpack``: JAX's ``jax.dlpack`` (arrays exchanged with other libraries).

>>> import numpy as np, tjit.dlpack
>>> tjit.dlpack.from_dlpack(np.arange(3.0))
Array([0., 1., 2.], dtype=float32)
"""

import numpy as _np

from tjit.numpy._array_api import from_dlpack  # noqa: F401
from tjit.tracing.dtypes import bfloat16 as _bfloat16

#: the dtypes a DLPack exchange carries (JAX's list)
SUPPORTED_DTYPES = frozenset(_np.dtype(t) for t in (
    _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.uint16, _np.uint32,
    _np.uint64, _np.float16, _bfloat16, _np.float32, _np.float64, _np.complex64,
    _np.complex128, _np.bool_))


def is_supported_dtype(dtype):
    """Whether arrays of ``dtype`` can be exchanged through DLPack, as
    ``jax.dlpack.is_supported_dtype``."""
    return _np.dtype(dtype) in SUPPORTED_DTYPES


__all__ = ["from_dlpack", "is_supported_dtype", "SUPPORTED_DTYPES"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
