"""The eager lane of ``tjit.numpy``'s products (dot, matmul): two NumPy-backed, strongly
typed Arrays of one dtype, with no ``precision`` or ``preferred_element_type``, whose
``dot_general`` call has run before with this signature.

Promotion would leave such operands as they are, and ``lax.dot_general`` would bind the
primitive with the parameters built here; the eager fast lane keeps the runner of every
signature the abstract rule accepted (``tracing.core.fast_runner``), so calling it
directly gives the same result without the per-call promotion and argument checks
(~10 -> ~5 us for a dot of 8 elements). Anything else returns None: the general path runs
(and records the signature for the next call).
"""

import numpy as np

from tjit.tracing.core import Array, EvalTrace, fast_runner, trace_ctx
from tjit.primitives.dot import dot_general_p


def dot_general(a, b, dimension_numbers):
    """``a`` times ``b`` contracted as ``dimension_numbers`` (normalised: tuples of
    non-negative ints) in their dtype, or None when this call is not for the lane."""
    if type(a) is not Array or type(b) is not Array or a._weak or b._weak or \
            type(trace_ctx.trace) is not EvalTrace:
        return None
    va, vb = a._value, b._value
    if type(va) is not np.ndarray or type(vb) is not np.ndarray or va.dtype != vb.dtype:
        return None
    params = {"dimension_numbers": dimension_numbers, "precision": None,
              "preferred_element_type": va.dtype}
    run = fast_runner(dot_general_p, (a, b), params)
    return None if run is None else run(va, vb, **params)


def dot(a, b):
    """``jnp.dot(a, b)`` by :func:`dot_general` for operands of rank >= 1, or None."""
    if type(a) is not Array or type(b) is not Array:
        return None
    na, nb = a._value.ndim, b._value.ndim
    if not (na and nb):
        return None
    return dot_general(a, b, (((na - 1,), (0 if nb == 1 else nb - 2,)), ((), ())))
