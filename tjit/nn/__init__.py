"""``tjit.nn``: activation functions, softmax/logsumexp, one_hot, standardize and
parameter initializers (``tjit.nn.initializers``), as in ``jax.nn``."""

from tjit.nn.functions import *  # noqa: F401,F403
from tjit.nn.functions import __all__ as _functions_all
from tjit.nn._attention import dot_product_attention  # noqa: F401
from tjit.nn import initializers  # noqa: F401

__all__ = list(_functions_all) + ["dot_product_attention", "initializers"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=('initializers',))  # tab completion lists the public API only
