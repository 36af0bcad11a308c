"""What a ``jit`` call does under the debugging options (``tjit.config``):

- ``disable_jit``: call the Python function (its ops run eagerly, so ``print`` and a
  debugger see values);
- ``debug_nans`` / ``debug_infs``: run the compiled program, and when an output has a NaN
  (an inf), run the function again op by op with the eager checks on
  (``tracing/float_checks.py``), so the ``FloatingPointError`` names the op that made
  it, as JAX's "de-optimized" re-run does;
- a running ``tjit.profiler`` trace: record the call as a span;
- ``debug_key_reuse``: consume the typed keys the function consumes (``key_reuse.py``);
- ``no_execution``: refuse to run the program (tracing and compiling are allowed);
- a host-to-device transfer guard: NumPy and Python leaves among the (non-static)
  arguments are transfers (``tracing/transfer_guard.py``).

``Jitted.__call__`` comes here only while one of these options is on
(``config.jit_hooks``); the normal call path pays one attribute read.
"""

import logging

import numpy as np

from tjit import key_reuse, profiler
from tjit.config import config
from tjit.devices import backend
from tjit.tracing import core, float_checks, transfer_guard
from tjit.tracing.tree_util import tree_leaves

_log = logging.getLogger("tjit")


def call(jitted, args, kwargs):
    if config.profiling:
        return profiler.record_call(f"jit({jitted.__name__})", _call, jitted, args, kwargs)
    return _call(jitted, args, kwargs)


def _call(jitted, args, kwargs):
    if config.disable_jit:
        return jitted.fun(*args, **kwargs)
    if config.guards_host_to_device or config.no_execution or config.debug_key_reuse:
        dyn_args, dyn_kwargs, statics = jitted._split(args, kwargs)
        check_call(f"jit({jitted.__name__})", tree_leaves((dyn_args, dyn_kwargs)),
                   _on_accelerator(jitted))
        if config.debug_key_reuse:
            out = key_reuse.checked_call(jitted, dyn_args, dyn_kwargs, statics,
                                         lambda: jitted._call_compiled(args, kwargs))
        else:
            out = jitted._call_compiled(args, kwargs)
    else:
        out = jitted._call_compiled(args, kwargs)
    if not config.checks_floats:
        return out
    for leaf in tree_leaves(out):
        kind = float_checks.invalid_kind(getattr(leaf, "_value", leaf))
        if kind is not None:
            _raise_at_the_op(jitted, args, kwargs, kind)
    return out


def check_call(name, leaves, on_accelerator=False):
    """The host-to-device guard on the array ``leaves`` of a call of the compiled program
    ``name`` (``on_accelerator``: it runs on a device with its own memory, where Arrays
    in host memory are copied too), then ``no_execution``."""
    if config.guards_host_to_device:
        if on_accelerator:
            leaves = [x._value if isinstance(x, core.Array) and
                      type(x._value) is np.ndarray else x for x in leaves]
        transfer_guard.check_host_leaves(leaves, name)
    if config.no_execution:
        raise RuntimeError(float_checks.no_execution_message(name))


def _on_accelerator(jitted):
    """Whether ``jitted`` runs on a backend with device memory (one that puts arrays)."""
    try:
        return getattr(backend.get_backend(jitted.backend), "put", None) is not None
    except Exception:   # noqa: BLE001 (no such backend here: its call says so)
        return False


def _raise_at_the_op(jitted, args, kwargs, kind):
    name = jitted.__name__
    _log.warning("Invalid %s value encountered in the output of tjit.jit(%s). Calling the "
                 "de-optimized version.", kind, name)
    with config.option("disable_jit", True):
        jitted.fun(*args, **kwargs)   # raises FloatingPointError at the op
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in the output of jit({name}), but the "
        f"de-optimized function did not produce one op by op: a NaN or inf passed in as an "
        f"argument and returned, or rounding that differs between the compiled and the "
        f"eager evaluation, can do this")
