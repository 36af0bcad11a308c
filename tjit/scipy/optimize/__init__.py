"""``tjit.scipy.optimize``: ``minimize`` (BFGS) and its strong Wolfe ``line_search``, as
``jax.scipy.optimize``; both trace under ``jit``."""

from tjit.scipy.optimize._line_search import line_search
from tjit.scipy.optimize._minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "line_search", "minimize"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
