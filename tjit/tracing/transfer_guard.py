"""JAX's transfer guards: what a transfer between the host and a device does while
``tjit.transfer_guard*(level)`` (or ``config.update("jax_transfer_guard...", level)``)
is set.

Levels, per direction: ``"allow"`` (the default), ``"log"`` (log implicit transfers,
allow explicit ones), ``"disallow"`` (refuse implicit ones, allow explicit ones),
``"log_explicit"`` (log both), ``"disallow_explicit"`` (refuse both).

Which transfers are which, as JAX 0.10.2's CPU backend behaves (measured side by side):

- host-to-device, implicit: a NumPy array, NumPy scalar or Python scalar given to a
  ``jit`` call (not a static argument) or to an eager op (``jnp.sin(np.ones(3))``,
  ``x + 1``, ``jnp.asarray(np.ones(3))``). On every backend, the CPU included, as in
  JAX, whose CPU arrays are device buffers too. Explicit: ``device_put`` of host data.
- device-to-host, implicit: ``np.asarray(x)``, ``float(x)``, ``x.item()``, ``x.tolist()``,
  ``print(x)`` of an array on an accelerator (CUDA, OpenCL); explicit: ``device_get``.
  Arrays on the CPU are host memory: reading them is no transfer (JAX's CPU backend does
  not guard them either).
- device-to-device, explicit: ``device_put`` of an accelerator's array onto another
  device.

A refused transfer raises :class:`TransferGuardError` (a ``RuntimeError``, as JAX's
``JaxRuntimeError``); a logged one is a WARNING on the ``tjit.transfer_guard`` logger.
Nothing is checked while every guard is "allow": the host-to-device checks sit on paths
taken only while ``config.guards_host_to_device`` (jit's debug hooks and the checked
eager trace), the device-to-host ones on the copy of a device array.
"""

import contextlib
import logging
import threading

from tjit.config import config
from tjit.tracing.errors import JaxRuntimeError

logger = logging.getLogger("tjit.transfer_guard")

_state = threading.local()   # .explicit: inside device_put/device_get


class TransferGuardError(JaxRuntimeError):
    """A transfer that a transfer guard level of ``"disallow"`` (implicit transfers) or
    ``"disallow_explicit"`` (every transfer) refuses."""


@contextlib.contextmanager
def explicit():
    """Transfers in the block are explicit ones (``device_put``, ``device_get``)."""
    old = getattr(_state, "explicit", False)
    _state.explicit = True
    try:
        yield
    finally:
        _state.explicit = old


def level(direction):
    """The guard level of ``direction`` ("host_to_device", ...): "allow" when unset."""
    return getattr(config, "transfer_guard_" + direction) or "allow"


def check(direction, describe):
    """Apply ``direction``'s guard level to one transfer; ``describe()`` says what moves
    (called only when the transfer is logged or refused)."""
    lvl = level(direction)
    if lvl == "allow":
        return
    is_explicit = getattr(_state, "explicit", False)
    if is_explicit and lvl in ("log", "disallow"):
        return
    kind = "explicit " if is_explicit else ""
    what = f"{kind}{direction.replace('_', '-')} transfer: {describe()}"
    if lvl.startswith("log"):
        logger.warning("%s", what)
        return
    fix = ("move the data once outside the guarded block with tjit.device_put / "
           "tjit.device_get (explicit transfers), or set the level to \"allow\" or "
           "\"log\"") if not is_explicit else "allow explicit transfers (level \"disallow\")"
    raise TransferGuardError(f"Disallowed {what}. The transfer guard "
                             f"(transfer_guard_{direction}={lvl!r}) refuses it; {fix}")


def describe_host_value(x, where):
    """What a host-to-device transfer of ``x`` moves, in JAX's words (its aval)."""
    from tjit.tracing.avals import aval_of_value
    try:
        aval = aval_of_value(x)
    except Exception:   # noqa: BLE001 (a value no op takes: named by its type)
        aval = type(x).__name__
    return f"aval={aval!r}, into {where}"


def check_host_leaves(leaves, where):
    """The host-to-device guard for the leaves given to ``where`` (a jit call or an
    eager op): NumPy arrays and scalars and Python scalars are transfers; tjit Arrays
    and tracers are not."""
    from tjit.tracing.core import Array, Tracer
    for x in leaves:
        if not isinstance(x, (Array, Tracer)) and x is not None:
            check("host_to_device", lambda x=x: describe_host_value(x, where))


def check_host_operand(x, where):
    """The host-to-device guard for host value ``x`` made an operand of the tjit.numpy
    or lax function ``where``: a transfer when the op runs eagerly (under a trace, ``x``
    becomes a constant of the program, which JAX's guard does not count either)."""
    from tjit.tracing.core import is_eager
    if is_eager():
        check("host_to_device", lambda: describe_host_value(x, where))
