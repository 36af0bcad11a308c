"""NumPy's floating-point warnings switched off around reference impls.

JAX returns inf/NaN silently for ``log(-1)``, ``1/0`` and overflow, so eager tjit must not
warn either. ``np.errstate`` builds a context manager per call; on NumPy 2 the error state
is a context variable, and setting it directly costs a third as much (this runs on every
eager op). Used by the primitives' impls (:func:`quiet`) and by the eager fast lanes
(:data:`quiet_run`, :data:`quiet_on` / :data:`quiet_off`).
"""

import contextvars
import functools

import numpy as np

try:  # NumPy 2: the ufuncs read their error state from this context variable
    from numpy._core.umath import _extobj_contextvar, _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # pragma: no cover - other NumPy versions
    _extobj_contextvar = None

#: ``token = quiet_on()`` ... ``quiet_off(token)``: warnings off in between
if _extobj_contextvar is not None:
    quiet_on = functools.partial(_extobj_contextvar.set, _IGNORE_ALL)  # C calls only
    quiet_off = _extobj_contextvar.reset
else:  # pragma: no cover - NumPy without the context variable: an entered np.errstate
    def quiet_on():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def quiet_off(state):
        state.__exit__(None, None, None)


def quiet_call(fn, *args):
    """``fn(*args)`` with NumPy's floating-point warnings off (:data:`quiet_on` around it):
    the fallback of :data:`quiet_run`."""
    token = quiet_on()
    try:
        return fn(*args)
    finally:
        quiet_off(token)


def _quiet_context():
    """A context of its own in which NumPy's warnings are off (every other context
    variable at its default: entered only around a NumPy ufunc call)."""
    context = contextvars.Context()
    context.run(_extobj_contextvar.set, _IGNORE_ALL)
    return context


#: ``quiet_run(ufunc, *args)``: the ufunc called with NumPy's warnings off, by entering a
#: context made once where they are off: one C call, a third of what switching the
#: variable on and off around the call costs (the eager lanes' form, on every operation).
#: A context is entered by one thread at a time: where it is in use (another thread's
#: call at the same moment, or a nested one) it raises RuntimeError, and the caller
#: takes :func:`quiet_call` instead (NumPy's calls raise no RuntimeError of their own,
#: and calling one again does the same). For NumPy calls only (a ufunc, or a short
#: function of NumPy calls): code that reads other context variables would see their
#: defaults.
if _extobj_contextvar is not None:
    quiet_run = _quiet_context().run
else:  # pragma: no cover - NumPy without the context variable
    quiet_run = quiet_call


def quiet(impl):
    """``impl`` with NumPy's floating-point warnings (divide, invalid, overflow) off.
    The wrapper's ``__wrapped__`` is ``impl`` itself, for callers that switch the
    warnings off once around several calls."""
    if _extobj_contextvar is None:  # pragma: no cover
        def quiet_impl(xp, *args, **params):
            with np.errstate(all="ignore"):
                return impl(xp, *args, **params)
    else:
        set_, reset, state = _extobj_contextvar.set, _extobj_contextvar.reset, _IGNORE_ALL

        def quiet_impl(xp, *args, **params):
            token = set_(state)
            try:
                return impl(xp, *args, **params)
            finally:
                reset(token)
    quiet_impl.__name__ = getattr(impl, "__name__", "impl")
    quiet_impl.__wrapped__ = impl
    quiet_impl.fp_quiet = True
    return quiet_impl
