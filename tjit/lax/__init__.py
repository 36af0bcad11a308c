"""``tjit.lax``: the primitives as functions, plus structured control flow.

Mirrors ``jax.lax``: no implicit broadcasting or dtype promotion (Python scalars are
weakly typed and take the other operand's dtype).
"""

from tjit.lax._elementwise import *  # noqa: F401,F403
from tjit.lax._special import *  # noqa: F401,F403
from tjit.lax._elementwise import (  # noqa: F401  (names that shadow builtins)
    abs, max, min, pow, round, complex)
from tjit.lax._structural import *  # noqa: F401,F403
from tjit.lax._slicing import *  # noqa: F401,F403
from tjit.lax._reductions import *  # noqa: F401,F403
from tjit.lax._composed import *  # noqa: F401,F403
from tjit.lax._indexing import *  # noqa: F401,F403
from tjit.lax._scatter_apply import *  # noqa: F401,F403
from tjit.lax._dot import *  # noqa: F401,F403
from tjit.lax._ragged_dot import *  # noqa: F401,F403
from tjit.lax._conv import *  # noqa: F401,F403
from tjit.lax._conv_patches import *  # noqa: F401,F403
from tjit.lax._windowed import *  # noqa: F401,F403
from tjit.lax._fft import *  # noqa: F401,F403
from tjit.lax._control_flow import *  # noqa: F401,F403
from tjit.lax._ad import *  # noqa: F401,F403
from tjit.lax._parallel import *  # noqa: F401,F403
from tjit.lax._solves import *  # noqa: F401,F403
from tjit.lax._reshaping import *  # noqa: F401,F403
from tjit.lax._bits import *  # noqa: F401,F403
from tjit.lax._annotations import *  # noqa: F401,F403
from tjit.lax._platform import *  # noqa: F401,F403
from tjit.lax._value_dtype import *  # noqa: F401,F403
from tjit.lax import linalg  # noqa: F401
from tjit.lax._primitives import *  # noqa: F401,F403  (lax.exp_p, ...: after the others)
from tjit.primitives.elementwise import ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN  # noqa

class RoundingMethod:
    """``lax.round``'s rounding_method values, as ``jax.lax.RoundingMethod``:
    ``lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)`` rounds halves to even."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

from tjit._namespace import publish as _publish
_publish(globals(), submodules=('linalg',))  # tab completion lists the public API only
