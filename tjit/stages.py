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

import dataclasses

from tjit.api import Compiled, Jitted as Wrapped, Lowered  # noqa: F401
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

Traced = Lowered

#: ``jax.stages.CompilerOptions`` (XLA's options, a dict), for annotations in ported code;
#: tjit's ``Lowered.compile`` takes no compiler options
CompilerOptions = dict[str, str | bool]


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """One argument leaf of a lowered program (``Lowered.args_info``): its type and
    whether it is donated, as ``jax.stages.ArgInfo``."""
    _aval: object
    donated: bool

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


def args_info(lowered):
    """``(args, kwargs)`` of :class:`ArgInfo`, one per argument leaf of ``lowered``."""
    avals = tree_flatten(lowered.in_avals)[0]
    donated = set(lowered.donated)
    return tree_unflatten(lowered.in_tree, [ArgInfo(a, i in donated)
                                            for i, a in enumerate(avals)])


__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
