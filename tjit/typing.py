"""``tjit.typing``: the annotation types of ``jax.typing``, for code that annotates
its functions (``def f(x: ArrayLike) -> Array``)."""

from typing import Any, Protocol, Union

import numpy as _np

from tjit._namespace import publish as _publish
from tjit.tracing.basearray import Array


class SupportsDType(Protocol):
    """Anything with a ``dtype`` attribute (an array, ``jnp.float32``)."""

    @property
    def dtype(self) -> _np.dtype: ...


#: What tjit functions accept as an array: tjit and NumPy arrays, NumPy scalars and
#: Python scalars (as ``jax.typing.ArrayLike``).
ArrayLike = Union[Array, _np.ndarray, _np.bool_, _np.number, bool, int, float, complex]

#: What tjit functions accept as a dtype (as ``jax.typing.DTypeLike``).
DTypeLike = Union[str, type[Any], _np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike"]

_publish(globals(), entry_points=False)
