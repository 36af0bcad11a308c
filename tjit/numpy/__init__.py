"""``tjit.numpy``: a NumPy-compatible namespace on tjit arrays (JAX's dtype rules:
float32 by default, weakly typed Python scalars; ``tjit.config.update("enable_x64",
True)`` for 64-bit defaults)."""

import numpy as _np

from tjit.tracing.basearray import Array as ndarray  # noqa: F401  (jnp.ndarray is jax.Array)
from tjit.tracing import basearray as _basearray
from tjit.tracing.core import Array  # noqa: F401
from tjit.numpy._core import asarray, array, promote_dtypes  # noqa: F401
from tjit.numpy._dtypes import *  # noqa: F401,F403
from tjit.numpy._ufuncs import *  # noqa: F401,F403
from tjit.numpy._ufuncs import abs, round, pow, divmod  # noqa: F401
from tjit.numpy._ufunc_objects import *  # noqa: F401,F403
from tjit.numpy._creation import *  # noqa: F401,F403
from tjit.numpy._reductions import *  # noqa: F401,F403
from tjit.numpy._shape import *  # noqa: F401,F403
from tjit.numpy._padding import *  # noqa: F401,F403
from tjit.numpy._indexing import _rewriting_take, _IndexUpdateHelper  # noqa: F401
from tjit.numpy._index_routines import *  # noqa: F401,F403
from tjit.numpy._index_tricks import *  # noqa: F401,F403
from tjit.numpy._matmul import *  # noqa: F401,F403
from tjit.numpy._sorting import *  # noqa: F401,F403
from tjit.numpy._misc import *  # noqa: F401,F403
from tjit.numpy._statistics import *  # noqa: F401,F403
from tjit.numpy import linalg  # noqa: F401
from tjit.numpy import fft  # noqa: F401
from tjit.numpy._polynomial import *  # noqa: F401,F403
from tjit.numpy._windows import *  # noqa: F401,F403
from tjit.numpy._vectorize import *  # noqa: F401,F403
from tjit.numpy._printing import *  # noqa: F401,F403
from tjit.numpy._io import *  # noqa: F401,F403
from tjit.numpy._packbits import *  # noqa: F401,F403
from tjit.numpy._bit_ufuncs import *  # noqa: F401,F403
from tjit.numpy import _array_methods
from tjit.numpy import _array_api
from tjit.numpy._numpy_only_names import missing_name_error as _missing_name_error
from tjit.numpy._array_api import (  # noqa: F401
    __array_api_version__, __array_namespace_info__, from_dlpack)

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None


def __getattr__(name):  # (called only for names this module lacks)
    raise _missing_name_error(name)

_array_methods.install()
_array_api.install()
_basearray.declare_abstract_attributes()  # tjit.Array.sum etc., as jax.Array's

from tjit._namespace import publish as _publish
# tab completion lists the public API only; jnp's functions become eager entry points
# below, once their docstrings are final (jnp.linalg's and jnp.fft's at their publish)
_publish(globals(), submodules=("linalg", "fft", "random"), entry_points=False)

def _make_docstrings():
    from tjit._docs import fill_missing_docstrings as _fill_docs
    _fill_docs(  # functions written without a docstring get one from NumPy's (JAX's `implements`)
        globals(), __all__, _np, "numpy", "jnp", __import__("sys").modules[__name__],
        examples={"finfo": "jnp.finfo(jnp.float32).eps", "iinfo": "jnp.iinfo(jnp.int8).max",
                  "can_cast": "jnp.can_cast(jnp.int8, jnp.float32)",
                  "isscalar": "jnp.isscalar(3.0), jnp.isscalar(jnp.ones(2))",
                  "ndim": "jnp.ndim(jnp.ones((2, 3)))", "shape": "jnp.shape(jnp.ones((2, 3)))",
                  "size": "jnp.size(jnp.ones((2, 3)))"},
        notes={"float_power": "computes in the widest float enabled (float32 without x64; "
                              "NumPy: float64)",
               "finfo": "takes tjit dtypes, bfloat16 included",
               "isscalar": "a 0-d tjit Array is not a scalar, as for NumPy arrays"})
    from tjit._doc_examples import EXAMPLES as _EXAMPLES
    from tjit._docs import add_stored_examples as _add_examples
    for _ns, _prefix in ((globals(), "jnp"), (vars(linalg), "jnp.linalg"), (vars(fft), "jnp.fft")):
        _add_examples(_ns, _ns["__all__"], _prefix, _EXAMPLES)  # made by `python -m tjit._docs`
    from tjit._docs import add_differences_notes as _add_differences
    for _ns, _ref, _name in ((globals(), _np, "numpy"), (vars(linalg), _np.linalg, "numpy.linalg"),
                             (vars(fft), _np.fft, "numpy.fft")):
        _add_differences(_ns, _ns["__all__"], _ref, _name)  # own docstrings silent on NumPy


from tjit._docs_cache import fill as _fill_docstrings
_fill_docstrings(  # made once, then read from the cache folder (tjit/_docs_cache.py)
    (("jnp", globals()), ("jnp.linalg", vars(linalg)), ("jnp.fft", vars(fft))),
    _make_docstrings)
del _make_docstrings

from tjit.tracing.traceback_util import wrap_entry_points as _wrap_entry_points
_wrap_entry_points(globals(), __all__, "jnp.")  # eager errors end in user code
