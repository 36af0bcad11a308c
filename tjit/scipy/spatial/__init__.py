"""``tjit.scipy.spatial``: rotations (``transform.Rotation``, ``transform.Slerp``), as
``jax.scipy.spatial``."""

from tjit.scipy.spatial import transform  # noqa: F401

from tjit._namespace import publish as _publish
_publish(globals(), submodules=("transform",))  # tab completion lists the public API only
