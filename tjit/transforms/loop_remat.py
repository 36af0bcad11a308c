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

When that is still over the budget, a third trace splits each scan of a known length
``L = k * m`` (``m`` the divisor nearest ``sqrt(L)``) into ``k`` checkpointed chunks of
``m`` checkpointed iterations (the two-level scheme of Chen et al. 2016): the forward
loop keeps ``k`` carries, and the backward loop recomputes one chunk at a time keeping
its ``m``: about ``2 sqrt(L)`` carries live instead of ``L``, for a second forward pass.
"""

import contextlib
import contextvars
import math

from tjit.transforms.checkpoint import checkpoint

# 0: scans as written; 1: bodies checkpointed; 2: and split into checkpointed chunks
_LEVEL = contextvars.ContextVar("tjit_rematerialized_scan_bodies", default=0)


@contextlib.contextmanager
def rematerialized_scan_bodies(chunks=False):
    """Scans traced inside this block checkpoint their bodies (``chunks``: and run in
    checkpointed chunks of about ``sqrt(length)`` iterations, see :func:`chunk_length`)."""
    token = _LEVEL.set(2 if chunks else 1)
    try:
        yield
    finally:
        _LEVEL.reset(token)


def level():
    """0: scans traced here are as written; 1: their bodies are checkpointed; 2: and split
    into checkpointed chunks (a trace done here depends on it)."""
    return _LEVEL.get()


def scan_body(f):
    """The body a scan traces: ``checkpoint(f)`` inside :func:`rematerialized_scan_bodies`,
    else ``f``."""
    return checkpoint(f) if _LEVEL.get() else f


def chunk_length(length):
    """The iterations per chunk when a scan of ``length`` (an int, or a size expression)
    runs in checkpointed chunks: the divisor of ``length`` nearest its square root that
    makes chunks of at least 2 and at least 2 of them; None when it runs as one loop."""
    if _LEVEL.get() < 2 or type(length) is not int or length < 4:
        return None
    root = math.isqrt(length)
    for delta in range(root):
        for d in (root - delta, root + delta):
            if 2 <= d <= length // 2 and length % d == 0:
                return d
    return None     # (a prime length)
