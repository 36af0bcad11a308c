"""Where in the user's code an equation was traced (JAX's ``source_info_util``, in part).

Recording is off by default: walking the stack for every traced primitive would slow
tracing, and only the inspections that print provenance read it
(``print_saved_residuals``). Inside :func:`recording`, each equation a
:class:`~tjit.tracing.jaxpr_trace.JaxprTrace` appends carries a :class:`Source`: the
innermost frame outside tjit and the standard library, as JAX picks its user frame.
An equation replayed from an earlier jaxpr (``eval_jaxpr``: checkpoint's partial
evaluation, inlined calls) keeps the source it was first traced at (:func:`replaying`).
"""

import contextlib
import itertools
import os
import sys
import sysconfig
import threading
from typing import NamedTuple

_TJIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[k]) + os.sep
                      for k in ("stdlib", "platstdlib")})


class Source(NamedTuple):
    file_name: str
    line: int
    column: int        # 0-based, as Python's code positions count
    function_name: str  # the qualified name, e.g. 'outer.<locals>.f'

    def summary(self):
        """JAX's form: ``file:line:column (function)``, the column left out when 0."""
        col = f":{self.column}" if self.column else ""
        return f"{self.file_name}:{self.line}{col} ({self.function_name})"


class _State(threading.local):
    depth = 0          # how many recording() blocks are open
    replay = None      # the Source of the equation being replayed, if any


_state = _State()


def is_recording():
    return _state.depth > 0


@contextlib.contextmanager
def recording():
    """Record each traced equation's user source line inside this block."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1


@contextlib.contextmanager
def replaying(source):
    """Equations traced inside this block get ``source`` (they replay an equation)."""
    saved, _state.replay = _state.replay, source
    try:
        yield
    finally:
        _state.replay = saved


def _is_user_file(name):
    return not (name.startswith(_TJIT_DIR) or name.startswith(_STDLIB_DIRS))


def current():
    """The Source of the primitive being traced now, or None when not recording."""
    if not _state.depth:
        return None
    if _state.replay is not None:
        return _state.replay
    frame = sys._getframe(1)
    while frame is not None and not _is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    line, col = frame.f_lineno, 0
    pos = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None), None)
    if pos is not None and pos[0] is not None:
        line, col = pos[0], pos[2] or 0
    return Source(code.co_filename, line, col, code.co_qualname)
