"""Tracebacks that end in the user's code, as JAX's ``traceback_util`` makes them.

Public entry points (a jitted call, ``grad``/``vmap`` wrappers, eager ``jnp`` calls) are
wrapped in ``api_boundary``. When an exception leaves the outermost one, tjit's own
frames are dropped from its traceback; the full traceback stays reachable, as JAX keeps
it. ``TJIT_TRACEBACK_FILTERING`` (or ``tjit.config.update("traceback_filtering", ...)``)
picks the mode, with JAX's names:

- ``off``: tracebacks untouched;
- ``tracebackhide``: tjit frames get ``__tracebackhide__`` (IPython and pytest hide them);
- ``remove_frames``: tjit frames removed; the unfiltered traceback is the exception's
  ``__cause__`` (an ``UnfilteredStackTrace``);
- ``quiet_remove_frames``: tjit frames removed, with a note saying how to see them;
- ``auto`` (default): ``tracebackhide`` under IPython, ``quiet_remove_frames`` elsewhere.

Nothing runs unless an exception escapes: the success path costs one try block.
Eager calls end in user code too (:func:`filter_at_entry`): the entry point a user
called filters what it raises, so the errors of ``jnp.reshape(x, (7,))``, ``a + b``,
``lax.add(x, "s")`` or ``float(x)`` show the user's line last. The fast lanes and
Array's conversions catch in their own body, at no cost until something raises; every
other public function (those each namespace publishes: ``tjit._namespace.publish``) and
its classes' methods get an :func:`eager_boundary`.
"""

import functools
import os
import re
import sys
import types

from tjit.config import config

_TJIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# tests of tjit itself live outside the package, so they count as user code
_NOTE = ("--------------------\nFor simplicity, tjit has removed its internal frames from "
         "the traceback of the following exception. Set TJIT_TRACEBACK_FILTERING=off to "
         "include these.")


class UnfilteredStackTrace(Exception):
    """Carries the full traceback of an exception whose tjit frames were removed."""


def filtering_mode():
    """The active mode; ``auto`` resolved for the running shell."""
    mode = config.traceback_filtering
    if mode == "auto":
        ipython = sys.modules.get("IPython")
        shell = ipython is not None and getattr(ipython, "get_ipython", lambda: None)()
        mode = "tracebackhide" if shell else "quiet_remove_frames"
    return mode


def is_tjit_frame(frame):
    return frame.f_code.co_filename.startswith(_TJIT_DIR)


def filter_traceback(tb):
    """A copy of the traceback chain ``tb`` without tjit's frames."""
    kept = []
    while tb is not None:
        if not is_tjit_frame(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def _under_outer_boundary(frame):
    """Whether an ``api_boundary`` wrapper is active above ``frame``: then it, the
    outermost, filters once the exception reaches it."""
    frame = frame.f_back
    while frame is not None:
        if frame.f_code is _BOUNDARY_CODE:
            return True
        frame = frame.f_back
    return False


def _hide_frames(tb):
    while tb is not None:
        if is_tjit_frame(tb.tb_frame):
            tb.tb_frame.f_locals["__tracebackhide__"] = True
        tb = tb.tb_next


def _filter(e, frame):
    """Apply the filtering mode to ``e`` as it leaves the boundary running in ``frame``."""
    mode = filtering_mode()
    if mode == "off" or _under_outer_boundary(frame):
        return
    tb = e.__traceback__
    if mode == "tracebackhide":
        _hide_frames(tb)
        return
    e.with_traceback(filter_traceback(tb))
    if mode == "quiet_remove_frames":
        if _NOTE not in getattr(e, "__notes__", ()):
            e.add_note(_NOTE)
        return
    unfiltered = UnfilteredStackTrace(
        "The preceding stack trace is the source of the tjit exception below, with tjit's "
        "internal frames. The stack trace below excludes them.\n"
        "Set TJIT_TRACEBACK_FILTERING=off to see the original traceback unmodified.")
    unfiltered.with_traceback(tb)
    unfiltered.__cause__, unfiltered.__context__ = e.__cause__, e.__context__
    unfiltered.__suppress_context__ = e.__suppress_context__
    e.__cause__ = unfiltered
    e.__suppress_context__ = True


def api_boundary(fun):
    """Wrap the public entry point ``fun`` so the tracebacks it raises end in user code."""
    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        __tracebackhide__ = True  # read by IPython and pytest
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            _filter(e, sys._getframe())
            raise
    return reraise_with_filtered_traceback


def filter_at_entry(e, label=None):
    """Filter ``e``'s traceback as it leaves a public eager entry point (a ``tjit.numpy``
    function, an Array operator or method) whose ``except`` clause calls this, when that
    entry point was called from user code; a tjit caller leaves it to the outermost.

    Entry points on the eager fast lanes catch in their own body: a try block costs
    nothing until something raises (Python 3.11+), and nothing here runs before that,
    so ``a + b`` pays nothing for readable errors. Others get :func:`eager_boundary`.
    ``label`` (e.g. ``jnp.clip``) is noted on an error whose message names another
    operation (``clip``'s shape error comes from ``maximum``)."""
    frame = sys._getframe(1)
    caller = frame.f_back
    if caller is not None and is_tjit_frame(caller):
        return
    # a word, not a substring: "exp" is in "expected an array"
    if label is not None and not re.search(rf"\b{re.escape(label.rsplit('.', 1)[-1])}\b",
                                           str(e)):
        e.add_note(f"(raised in {label})")
    _filter(e, frame)


def eager_boundary(fun, label=None):
    """``fun``, a public eager entry point without an ``except`` clause of its own, with
    one: :func:`filter_at_entry` on what it raises. One call frame more (0.1-0.2 us):
    for functions whose eager path costs microseconds, not the fast lanes. A function
    that calls :func:`filter_at_entry` itself is returned as is. ``label``: how the
    user calls it (``jnp.clip``; default its name; ``""``: none)."""
    if not callable(fun) or has_own_filter(fun):
        return fun
    if label is None:
        label = getattr(fun, "__name__", None)
    label = label or None  # "": no note (a method whose name is no user's word)

    @functools.wraps(fun)
    def entry_point(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            filter_at_entry(e, label)
            raise
    return entry_point


def wrap_entry_points(namespace, names, prefix=""):
    """Make the plain functions ``names`` of a public ``namespace`` (a module's globals,
    whose functions users call as ``prefix + name``) eager entry points
    (:func:`eager_boundary`), the ones that filter themselves aside."""
    wrapped = {}  # aliases (jnp.abs, jnp.absolute) stay one function
    public = set(names)
    for name in names:
        fun = namespace.get(name)
        if isinstance(fun, types.FunctionType) and not has_own_filter(fun):
            if id(fun) not in wrapped:
                # labelled with the function's own name where it is public: an alias met
                # first (row_stack) would name itself in errors of calls of the other
                own = fun.__name__ if fun.__name__ in public else name
                wrapped[id(fun)] = eager_boundary(fun, prefix + own)
            namespace[name] = wrapped[id(fun)]


def wrap_class_methods(cls, prefix=""):
    """Make the public methods that class ``cls`` defines itself (``Generator.normal``)
    eager entry points, labelled ``prefix + cls.__name__ + "." + name``."""
    for name, fun in list(vars(cls).items()):
        if not name.startswith("_") and isinstance(fun, types.FunctionType) and \
                not has_own_filter(fun):
            setattr(cls, name, eager_boundary(fun, f"{prefix}{cls.__name__}.{name}"))


def has_own_filter(fun):
    """Whether ``fun`` filters what it raises itself: it calls :func:`filter_at_entry`
    (or is an eager boundary), or it is an :func:`api_boundary` wrapper."""
    code = getattr(fun, "__code__", None)  # (modules import it as _filter_at_entry)
    return code is not None and (code is _BOUNDARY_CODE or
                                 any(n.endswith("filter_at_entry") for n in code.co_names))


_BOUNDARY_CODE = api_boundary(lambda: None).__code__
