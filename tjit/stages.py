"""``tjit.stages``: the types of JAX's ahead-of-time stages (``jax.stages``), for
isinstance checks and annotations in ported code.

``jit(f)`` is a :class:`Wrapped`; ``jit(f).trace(x)`` and ``jit(f).lower(x)`` give a
:class:`Lowered` (tjit's traced program is already its lowered one, so ``Traced`` is
the same type); ``.compile()`` gives a :class:`Compiled`.

>>> import tjit, tjit.numpy as jnp, tjit.stages
>>> lowered = tjit.jit(jnp.sin).lower(jnp.ones(3))
>>> isinstance(lowered, tjit.stages.Lowered), isinstance(lowered.compile(), tjit.stages.Compiled)
(True, True)
"""

from tjit.api import Compiled, Jitted as Wrapped, Lowered  # noqa: F401

Traced = Lowered

__all__ = ["Compiled", "Lowered", "Traced", "Wrapped"]
