"""Scan bodies recomputed per iteration, for ``jit(f, memory_budget=...)``.

Reverse mode through ``lax.scan`` (and ``fori_loop``, a scan) saves each iteration's
residuals stacked along the loop: for a scan over layers, every layer's activations and
the derivatives of its nonlinearities. The compiler's rematerialization
(``xla_like/remat.py``) cannot recompute them, since they are results of the loop.
``checkpoint`` on the body (as ``jax.checkpoint`` on a scan body in JAX) saves only each
iteration's carry and recomputes the rest of the iteration in the backward loop. When a
budgeted program does not fit, ``jit`` traces the function once more inside
:func:`rematerialized_scan_bodies`, where every scan checkpoints its body, and plans
that program within the budget.
"""

import contextlib
import contextvars

from tjit.transforms.checkpoint import checkpoint

_ACTIVE = contextvars.ContextVar("tjit_rematerialized_scan_bodies", default=False)


@contextlib.contextmanager
def rematerialized_scan_bodies():
    """Scans traced inside this block checkpoint their bodies."""
    token = _ACTIVE.set(True)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def scan_body(f):
    """The body a scan traces: ``checkpoint(f)`` inside :func:`rematerialized_scan_bodies`,
    else ``f``."""
    return checkpoint(f) if _ACTIVE.get() else f
