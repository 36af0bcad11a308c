"""Named events for metrics collectors, as ``jax.monitoring``.

Code marks a point with ``record_event(name, **kwargs)`` (or a duration, time span or
scalar); every listener registered for that kind is called with it. tjit itself reports
each jit trace and compile under JAX's event names, so a listener written for JAX sees
them (durations in seconds, ``fun_name=`` the function's name):

- ``/jax/core/compile/jaxpr_trace_duration``: tracing the function to a jaxpr;
- ``/jax/core/compile/backend_compile_duration``: compiling the jaxpr to kernels.

They come from :mod:`tjit.compile_log`'s records, read only while a duration listener
is registered.
"""

from tjit import compile_log

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_event_listeners = []
_event_duration_secs_listeners = []
_event_time_span_listeners = []
_scalar_listeners = []


def record_event(event, **kwargs):
    """Record that ``event`` happened; pass the same keywords, in the same order, at every
    call for one event."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event, duration, **kwargs):
    """Record how long ``event`` took, in seconds."""
    for callback in list(_event_duration_secs_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event, start_time, end_time, **kwargs):
    """Record when ``event`` started and ended (seconds)."""
    for callback in list(_event_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event, value, **kwargs):
    """Record a scalar value of ``event``."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback):
    """Call ``callback(event, **kwargs)`` at each :func:`record_event`."""
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback):
    """Call ``callback(event, duration_secs, **kwargs)`` at each
    :func:`record_event_duration_secs`."""
    _event_duration_secs_listeners.append(callback)


def register_event_time_span_listener(callback):
    """Call ``callback(event, start_time, end_time, **kwargs)`` at each
    :func:`record_event_time_span`."""
    _event_time_span_listeners.append(callback)


def register_scalar_listener(callback):
    """Call ``callback(event, value, **kwargs)`` at each :func:`record_scalar`."""
    _scalar_listeners.append(callback)


def _unregister(listeners, callback, kind):
    if callback not in listeners:
        raise ValueError(f"monitoring.unregister_{kind}: {callback!r} is not registered; "
                         f"register it first (register_{kind})")
    listeners.remove(callback)


def unregister_event_listener(callback):
    _unregister(_event_listeners, callback, "event_listener")


def unregister_event_duration_listener(callback):
    _unregister(_event_duration_secs_listeners, callback, "event_duration_listener")


def unregister_event_time_span_listener(callback):
    _unregister(_event_time_span_listeners, callback, "event_time_span_listener")


def unregister_scalar_listener(callback):
    _unregister(_scalar_listeners, callback, "scalar_listener")


def get_event_listeners():
    return list(_event_listeners)


def get_event_duration_listeners():
    return list(_event_duration_secs_listeners)


def get_event_time_span_listeners():
    return list(_event_time_span_listeners)


def get_scalar_listeners():
    return list(_scalar_listeners)


def clear_event_listeners():
    """Remove every listener of every kind."""
    for listeners in (_event_listeners, _event_duration_secs_listeners,
                      _event_time_span_listeners, _scalar_listeners):
        listeners.clear()


def _from_compile_record(rec):
    """compile_log's sink: a finished trace/compile record as JAX's duration events."""
    if not _event_duration_secs_listeners:
        return
    for stage, event in (("trace", TRACE_EVENT), ("compile", COMPILE_EVENT)):
        if stage in rec.stages:
            record_event_duration_secs(event, rec.stages[stage], fun_name=rec.fun_name)


compile_log.add_sink(_from_compile_record)

__all__ = [
    "clear_event_listeners", "get_event_duration_listeners", "get_event_listeners",
    "get_event_time_span_listeners", "get_scalar_listeners", "record_event",
    "record_event_duration_secs", "record_event_time_span", "record_scalar",
    "register_event_duration_secs_listener", "register_event_listener",
    "register_event_time_span_listener", "register_scalar_listener",
    "unregister_event_duration_listener", "unregister_event_listener",
    "unregister_event_time_span_listener", "unregister_scalar_listener",
]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
