"""Where in the user's code an equation was traced (JAX's ``source_info_util``, in part).

Recording is off by default, and on only where provenance is read: inside
``print_saved_residuals``, and while a ``checkpoint`` body is traced (that trace is
cached and reused by later calls, so it keeps its lines for a later
``print_saved_residuals``, as JAX's cached traces do). Inside :func:`recording`, each
equation a :class:`~tjit.tracing.jaxpr_trace.JaxprTrace` appends carries a
:class:`Source`: the innermost frame outside tjit and the standard library, as JAX picks
its user frame. Only the code object and instruction offset are kept; the line and
column are worked out when printed. An equation replayed from an earlier jaxpr
(``eval_jaxpr``: checkpoint's partial evaluation, inlined calls) keeps the source it
was first traced at (:func:`bind_replaying`).
"""

import contextlib
import itertools
import os
import sys
import sysconfig
import threading

_TJIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[k]) + os.sep
                      for k in ("stdlib", "platstdlib")})


class Source:
    """A traced equation's place in the user's code: a code object and the offset of the
    instruction that ran (what a traceback keeps)."""

    __slots__ = ("code", "lasti")

    def __init__(self, code, lasti):
        self.code, self.lasti = code, lasti

    @property
    def file_name(self):
        return self.code.co_filename

    @property
    def function_name(self):
        """The qualified name, e.g. 'outer.<locals>.f'."""
        return self.code.co_qualname

    def position(self):
        """(line, column): the column 0-based, as Python's code positions count."""
        pos = next(itertools.islice(self.code.co_positions(), self.lasti // 2, None), None)
        if pos is None or pos[0] is None:
            return self.code.co_firstlineno, 0
        return pos[0], pos[2] or 0

    def summary(self):
        """JAX's form: ``file:line:column (function)``, the column left out when 0."""
        line, col = self.position()
        col = f":{col}" if col else ""
        return f"{self.file_name}:{line}{col} ({self.function_name})"

    def __repr__(self):
        return f"Source({self.summary()})"


class _State(threading.local):
    depth = 0          # how many recording() blocks are open
    replay = None      # the Source of the equation being replayed, if any


_state = _State()
# recording() blocks and bind_replaying() calls open in any thread: current() runs at
# every traced equation, and with none open it returns at once (a thread-local read
# costs ~140 ns, ~1.5% of tracing a function of 1500 cheap equations)
_open_blocks = 0
_open_lock = threading.Lock()
_USER_FILE = {}        # file name -> whether it is the user's (not tjit's, not stdlib)


def is_recording():
    return _state.depth > 0


@contextlib.contextmanager
def recording():
    """Record each traced equation's user source line inside this block."""
    _state.depth += 1
    with _counted():
        try:
            yield
        finally:
            _state.depth -= 1


def bind_replaying(source, primitive, args, params):
    """``primitive.bind(*args, **params)``, the equations it traces getting ``source``
    (it replays an equation first traced there). Not a context manager: it runs once per
    equation of a replayed jaxpr (checkpoint's partial evaluation under grad), and two
    generator-based ``with`` blocks cost ~20% of that trace."""
    global _open_blocks
    state = _state
    saved, state.replay = state.replay, source
    with _open_lock:
        _open_blocks += 1
    try:
        return primitive.bind(*args, **params)
    finally:
        state.replay = saved
        with _open_lock:
            _open_blocks -= 1


@contextlib.contextmanager
def _counted():
    global _open_blocks
    with _open_lock:
        _open_blocks += 1
    try:
        yield
    finally:
        with _open_lock:
            _open_blocks -= 1


def _is_user_code(code):
    name = code.co_filename
    user = _USER_FILE.get(name)
    if user is None:
        user = _USER_FILE[name] = not (name.startswith(_TJIT_DIR) or
                                       name.startswith(_STDLIB_DIRS))
    return user


def current():
    """The Source of the primitive being traced now: the one of the equation being
    replayed, else the user's frame when recording, else None."""
    if not _open_blocks:
        return None
    if _state.replay is not None:
        return _state.replay
    if not _state.depth:
        return None
    frame = sys._getframe(1)
    known = _USER_FILE
    while frame is not None:   # (~6 tjit frames per equation: the cache read inline)
        code = frame.f_code
        user = known.get(code.co_filename)
        if user or (user is None and _is_user_code(code)):
            return Source(code, frame.f_lasti)
        frame = frame.f_back
    return None
