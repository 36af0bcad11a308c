"""``tjit.debug.breakpoint`` (as ``jax.debug.breakpoint``): stop where the program
reaches it, at run time, in a small debugger over the calling frames.

When the breakpoint is traced (under ``jit``, ``vmap``, ``grad``...), the calling
frames are recorded: their source position and their local variables. The array-valued
locals become the operands of a ``debug.callback``, so when the program runs the
debugger sees their computed values; the other locals are kept as they were. As JAX's
``jdb``, the debugger reads commands from standard input:

    p EXPR / pp EXPR   print an expression of the frame's variables (also: a bare EXPR)
    l / list           the source around the current line
    w / where          the stack of recorded frames
    u / up, d / down   move to the calling / called frame
    c / continue       leave the debugger; the program goes on
    q / quit / exit    the same (the program goes on)
"""

import cmd
import linecache
import os
import pprint
import sys

import numpy as np

from tjit.tracing.core import Array, Tracer

_TJIT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _Frame:
    """One recorded frame: where it is and its variables (arrays filled in at run time)."""

    def __init__(self, frame):
        self.filename = frame.f_code.co_filename
        self.lineno = frame.f_lineno
        self.function = frame.f_code.co_name
        self.globals = frame.f_globals
        self.locals = dict(frame.f_locals)
        self.array_names = [n for n, v in self.locals.items()
                            if isinstance(v, (Array, Tracer, np.ndarray))]


def record_frames(start, filter_frames=True, num_frames=None):
    """The frames from ``start`` outwards (tjit's own left out when ``filter_frames``),
    at most ``num_frames`` of them."""
    frames, f = [], start
    while f is not None and (num_frames is None or len(frames) < num_frames):
        if not (filter_frames and os.path.abspath(f.f_code.co_filename).startswith(_TJIT_DIR)):
            frames.append(_Frame(f))
        f = f.f_back
    return frames


class Debugger(cmd.Cmd):
    """The command loop over recorded frames (index 0: the breakpoint's frame)."""

    prompt = "(jdb) "

    def __init__(self, frames, stdin=None, stdout=None):
        stdin = stdin or sys.stdin
        super().__init__(stdin=stdin, stdout=stdout or sys.stdout)
        self.use_rawinput = stdin is sys.__stdin__  # a terminal: input(); else readline
        self.frames = frames
        self.index = 0

    @property
    def frame(self):
        return self.frames[self.index]

    def _print(self, text):
        self.stdout.write(f"{text}\n")

    def _eval(self, expr):
        return eval(expr, dict(self.frame.globals), dict(self.frame.locals))

    def _show(self, expr, pretty):
        try:
            value = self._eval(expr)
        except Exception as e:  # noqa: BLE001 -- report it and stay in the debugger
            self._print(f"*** {type(e).__name__}: {e}")
            return
        self._print(pprint.pformat(value) if pretty else repr(value))

    def do_p(self, arg):
        """p EXPR: print the value of EXPR in the current frame."""
        self._show(arg, pretty=False)

    def do_pp(self, arg):
        """pp EXPR: pretty-print the value of EXPR in the current frame."""
        self._show(arg, pretty=True)

    def default(self, line):
        self._show(line, pretty=False)

    def emptyline(self):
        return False

    def do_list(self, arg):
        """l(ist): the source lines around the current line."""
        fr = self.frame
        for n in range(max(1, fr.lineno - 5), fr.lineno + 6):
            text = linecache.getline(fr.filename, n)
            if text:
                mark = "->" if n == fr.lineno else "  "
                self._print(f"{n:4d} {mark} {text.rstrip()}")
    do_l = do_list

    def do_where(self, arg):
        """w(here): the recorded stack, the current frame marked."""
        for i, fr in reversed(list(enumerate(self.frames))):
            mark = ">" if i == self.index else " "
            self._print(f"{mark} {fr.filename}({fr.lineno}){fr.function}()")
    do_w = do_where

    def do_up(self, arg):
        """u(p): move to the calling frame."""
        if self.index + 1 < len(self.frames):
            self.index += 1
        self._location()
    do_u = do_up

    def do_down(self, arg):
        """d(own): move to the called frame."""
        if self.index > 0:
            self.index -= 1
        self._location()
    do_d = do_down

    def do_continue(self, arg):
        """c(ontinue): leave the debugger; the program goes on."""
        return True
    do_c = do_cont = do_continue
    do_q = do_quit = do_exit = do_continue

    def do_EOF(self, arg):
        return True

    def _location(self):
        fr = self.frame
        line = linecache.getline(fr.filename, fr.lineno).strip()
        self._print(f"> {fr.filename}({fr.lineno}){fr.function}()\n-> {line}")

    def run(self):
        self._print("Entering jdb:")
        self._location()
        self.cmdloop()


__all__ = ["Debugger", "record_frames"]
