"""Transformations of jaxprs (jvp, vjp, vmap, checkpoint) and IR clean-up passes."""

from tjit.transforms import control_flow_rules  # noqa: F401,E402  (assigns cond/while/scan rules)
from tjit.transforms import while_grad  # noqa: F401,E402  (while's transpose, while_transpose's rules)
from tjit.transforms import linear_call as _linear_call  # noqa: F401,E402  (linear_call_p's rules)
