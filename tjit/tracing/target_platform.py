"""Which platform a trace is for, so ``lax.platform_dependent`` can pick its branch
while tracing: ``jit`` traces inside ``tracing_for(backend)``; elsewhere (eager calls,
``make_jaxpr``, ``vmap``/``grad`` without ``jit``) the default backend's name, which the
devices layer installs (tracing knows no devices)."""

import contextlib
import contextvars

_TRACING_FOR = contextvars.ContextVar("tjit_tracing_for_platform", default=None)
_DEFAULT = [lambda: "cpu"]


def set_default_platform(get_name):
    """Install ``get_name() -> str``: the platform of a trace outside ``jit``."""
    _DEFAULT[0] = get_name


@contextlib.contextmanager
def tracing_for(platform):
    """Trace the block for ``platform`` (a backend name; None keeps the default)."""
    token = _TRACING_FOR.set(platform)
    try:
        yield
    finally:
        _TRACING_FOR.reset(token)


def current_platform():
    """The backend name the current trace is for."""
    return _TRACING_FOR.get() or _DEFAULT[0]()
