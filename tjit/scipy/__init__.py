"""tjit.scipy: SciPy's API on tjit arrays, as ``jax.scipy``.

    from tjit.scipy import special, stats
    from tjit.scipy.stats import norm

Each submodule is its own file (or package) and is imported here by one line; a
submodule that fails to import leaves the others usable.
"""

from tjit.scipy import special  # noqa: F401
from tjit.scipy import stats  # noqa: F401
from tjit.scipy import linalg  # noqa: F401
from tjit.scipy import optimize  # noqa: F401
from tjit.scipy import signal  # noqa: F401
from tjit.scipy import integrate  # noqa: F401
from tjit.scipy import ndimage  # noqa: F401
from tjit.scipy import fft  # noqa: F401
from tjit._doc_examples import EXAMPLES as _EXAMPLES
from tjit._docs import add_stored_examples as _add_examples
from tjit._docs import scipy_example_namespaces as _example_namespaces

from tjit._namespace import publish as _publish
_publish(globals(), submodules=('special', 'stats', 'linalg', 'optimize', 'signal', 'integrate', 'ndimage', 'fft'))  # tab completion lists the public API only
for _modname, _prefix in _example_namespaces():  # examples checked against SciPy's
    _mod = __import__("sys").modules[_modname]
    _add_examples(vars(_mod), _mod.__all__, _prefix, _EXAMPLES)  # python -m tjit._docs
del _modname, _prefix, _mod
