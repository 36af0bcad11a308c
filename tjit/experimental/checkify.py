"""``jax.experimental.checkify``: functional run-time checks (``check``, ``checkify``,
the error sets and the ``Error`` value). The implementation is ``tjit/_checkify.py``."""

from tjit._checkify import *
from tjit._checkify import __all__  # noqa: F401  (the one list of the public names)

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
