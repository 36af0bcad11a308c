"""``tjit.experimental.hijax`` (as ``jax.experimental.hijax``): ``VJPHiPrimitive``, an
operation defined by a class with its own derivative and batching rules, and the helpers
that derive one rule from another. The machinery is in ``tjit/hijax.py``."""

from tjit.hijax import *  # noqa: F401,F403
from tjit.hijax import __all__  # noqa: F401  (the one list of the public names)

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
