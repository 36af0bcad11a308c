"""``tjit.scipy.sparse``: as ``jax.scipy.sparse``, the namespace of its ``linalg``
submodule (the Krylov solvers ``cg``, ``bicgstab`` and ``gmres``)."""

from tjit._namespace import publish as _publish
from tjit.scipy.sparse import linalg  # noqa: F401

_publish(globals(), submodules=("linalg",))  # tab completion lists the public API only
