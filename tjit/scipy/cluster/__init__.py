"""``tjit.scipy.cluster``: vector quantization (``vq``), as ``jax.scipy.cluster``."""

from tjit.scipy.cluster import vq  # noqa: F401

from tjit._namespace import publish as _publish
_publish(globals(), submodules=("vq",))  # tab completion lists the public API only
