"""``debug_nans`` / ``debug_infs`` for eager ops: JAX's ``FloatingPointError``; and the
eager side of ``no_execution`` and of the host-to-device transfer guard.

While either option is on, the thread's eager trace is a :class:`CheckingEvalTrace`:
every primitive's float output is checked and a NaN (an inf) raises
``FloatingPointError("invalid value (nan) encountered in log")``. Being its own type
keeps tjit.numpy's eager lanes off (they look for an ``EvalTrace`` exactly), so every
op of the program passes here and through tjit.numpy's general promotion path, where
the ``numpy_rank_promotion`` and strict ``numpy_dtype_promotion`` checks are made: this
trace is in place while any of these options asks for checks. Nothing is paid while
they are off.

The switch takes effect in the thread that sets it and in threads started after it;
threads already running keep their eager trace.
"""

import numpy as np

from tjit.config import config
from tjit.tracing import core, dtypes, transfer_guard


class CheckingEvalTrace(core.EvalTrace):
    """Eager evaluation that checks each primitive's float outputs."""

    def process_primitive(self, prim, args, params):
        if config.no_execution:
            raise RuntimeError(no_execution_message(prim.name))
        if config.guards_host_to_device:
            transfer_guard.check_host_leaves(args, f"the eager op {prim.name}")
        out = self._process_general(prim, args, params)
        if config.checks_floats:
            check_outputs(prim.name, out if isinstance(out, (list, tuple)) else (out,))
        return out


def no_execution_message(name):
    return (f"tjit tried to execute function {name}, but the no_execution config option "
            f"is set (tjit.no_execution(): tracing is allowed, running is not)")


def invalid_kind(value):
    """'nan' or 'inf' when ``value`` (a NumPy-backed array) has one the options ask to
    report, else None."""
    v = np.asarray(value)
    if v.dtype.kind not in "fc" and v.dtype not in dtypes.ML_FLOATS:  # bfloat16, float8s
        return None
    if config.debug_nans and np.isnan(v).any():
        return "nan"
    if config.debug_infs and np.isinf(v).any():
        return "inf"
    return None


def check_outputs(name, outs):
    for o in outs:
        if isinstance(o, core.Array):
            kind = invalid_kind(o._value)
            if kind is not None:
                raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")


def _sync_eager_trace():
    """Install (or remove) the checking trace as this thread's eager trace."""
    ctx = core.trace_ctx
    want = CheckingEvalTrace if config.eager_checks else core.EvalTrace
    core.root_trace_type[0] = want      # threads started later
    if type(ctx.trace) in (core.EvalTrace, CheckingEvalTrace) and type(ctx.trace) is not want:
        ctx.trace = want()


config.on_change(_sync_eager_trace)
_sync_eager_trace()  # JAX_DEBUG_NANS=1 at start-up
