"""``jax.debug``'s printing and callbacks: ``tjit.debug.print`` and ``tjit.debug.callback``
call Python at run time with the values (NumPy arrays) a program computes, eagerly and
inside ``jit``, ``vmap`` (once per batch element, as JAX), ``grad``/``jvp`` (the primal
values), ``lax.scan``/``while_loop``/``cond`` bodies. Both bind ``debug_callback_p``
(tjit/primitives/callbacks.py), an effect the compiler never drops.
"""

import logging
import string
import sys

import numpy as np

from tjit._namespace import publish
from tjit._sympy import is_expr
from tjit.debugger import Debugger, record_frames
from tjit.host_callbacks import as_operand
from tjit.primitives.callbacks import FlatCallback, debug_callback_p
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import user_frame
from tjit.tracing.tree_util import tree_flatten

__all__ = ["callback", "print"]

#: where ``log`` writes (JAX's ``jax.debug.log`` writes to its module's logger)
logger = logging.getLogger("tjit.debug")
#: leaves that become the callback's operands (a symbolic dim: its run-time value)
_DYNAMIC = (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)


def _split_args(args, kwargs):
    """``(in_tree, dynamic leaves as Arrays/tracers, ((position, static leaf), ...))``:
    array and number leaves are operands of the callback; the others (strings, None,
    functions...) stay Python values, as in JAX."""
    flat, in_tree = tree_flatten((args, kwargs))
    dyn, static = [], []
    for i, leaf in enumerate(flat):
        if isinstance(leaf, _DYNAMIC) or is_expr(leaf):
            dyn.append(as_operand(leaf))
        else:
            static.append((i, leaf))
    return in_tree, dyn, tuple(static)


def callback(callback=None, *args, ordered=False, partitioned=False, **kwargs):
    """Calls ``callback(*args, **kwargs)`` with the run-time values of ``args`` (as
    ``jax.debug.callback``): eagerly at once; under ``jit`` each time the compiled
    program runs, never when it is traced. Array leaves arrive as read-only NumPy
    arrays; other leaves as they were given.

    Also the two-call form ``tjit.debug.callback(ordered=True)(callback, *args)``.

    Args:
      callback: a Python function; its result is ignored.
      *args, **kwargs: pytrees passed to it.
      ordered: keep program order with the other ordered callbacks (tjit's CPU plan
        keeps every callback in program order; this states that it must).
      partitioned: accepted for JAX compatibility (tjit passes whole values).

    Returns:
      None.

    Example:

    >>> f = jax.jit(lambda x: jax.debug.callback(lambda v: print("got", v), x * 2) or x)
    >>> _ = f(jnp.arange(3))
    got [0 2 4]
    """
    def _callback(fn, *c_args, **c_kwargs):
        if not callable(fn):
            raise TypeError(f"first argument to tjit.debug.callback must be callable, but got "
                            f"an object of type {type(fn)}")
        in_tree, dyn, static = _split_args(c_args, c_kwargs)
        debug_callback_p.bind(*dyn, callback=FlatCallback(fn, in_tree, static),
                              ordered=bool(ordered))

    if callback is not None:
        _callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"debug_callback received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return _callback


class _FormatChecker(string.Formatter):
    """Checks a format string against its arguments at trace time (JAX's checker)."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print` "
                             f"(tjit.debug.print): {unused}")
        if unused_kw:
            raise ValueError(f"Unused keyword arguments to `jax.debug.print` (tjit.debug.print):"
                             f" {unused_kw}. You may be passing an f-string (i.e, `f\"{{x}}\"`) "
                             f"into `jax.debug.print` and instead should pass in a regular "
                             f"string.")


_CHECKER = _FormatChecker()


class _Printer:
    """The run-time half of ``print``/``log``: formats the values with ``fmt`` under the
    NumPy print options of the call site and writes a line to ``sys.stdout``, or, for
    ``log``, hands an INFO record naming the call site (file, line) to :data:`logger`.
    A class (not a closure) so that equal prints compare equal."""

    def __init__(self, fmt, printoptions, has_placeholders, log_site=None):
        self.fmt, self.printoptions, self.has_placeholders = fmt, printoptions, has_placeholders
        self.log_site = log_site
        self.__qualname__ = f"debug.{'log' if log_site else 'print'}({fmt!r})"

    def __call__(self, *args, **kwargs):
        with np.printoptions(**dict(self.printoptions)):
            if self.has_placeholders:
                msg = self.fmt.format(*args, **kwargs)
            else:
                msg = " ".join((self.fmt, *(str(a) for a in args)))
        if self.log_site is None:
            sys.stdout.write(msg + "\n")
            return
        file_name, line_no = self.log_site
        logger.handle(logger.makeRecord(logger.name, logging.INFO, file_name, line_no, msg,
                                        (), None))

    def _key(self):
        return (self.fmt, self.printoptions, self.has_placeholders, self.log_site)

    def __eq__(self, other):
        return type(other) is _Printer and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def print(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False,
          **kwargs):
    """Prints ``fmt.format(*args, **kwargs)`` with the run-time values (as
    ``jax.debug.print``): at once eagerly, and under ``jit`` each time the compiled
    program runs (not when it is traced). Arrays format as NumPy arrays, under the
    NumPy print options in force at the call.

    Pass values as arguments, not through an f-string: ``tjit.debug.print("x={x}",
    x=x)``. Also the two-call form ``tjit.debug.print(ordered=True)("x={}", x)``. Under
    ``vmap`` it prints once per batch element; under ``grad`` the primal values.

    Args:
      fmt: a ``str.format`` string.
      *args, **kwargs: the values (pytrees) it formats.
      ordered: keep program order with the other ordered prints and callbacks.
      partitioned: accepted for JAX compatibility (tjit prints whole values).
      skip_format_check: do not check ``fmt`` against the arguments at the call.

    Returns:
      None.

    Example:

    >>> f = jax.jit(lambda x: jax.debug.print("x={x}, sum={s}", x=x, s=x.sum()) or x + 1)
    >>> _ = f(jnp.arange(3))
    x=[0 1 2], sum=3
    """
    return _print_or_log(fmt, args, kwargs, ordered, skip_format_check, log=False)


def log(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False,
        **kwargs):
    """As :func:`print` (``jax.debug.log``), but each message goes to the
    ``tjit.debug`` logger as an INFO record naming the call's file and line, not to
    stdout: it shows once logging is set up (``logging.basicConfig(level=logging.INFO)``).

    Example:

    >>> f = jax.jit(lambda x: jax.debug.log("x={x}", x=x) or x + 1)
    >>> _ = f(jnp.arange(3))   # logs 'x=[0 1 2]' at INFO on 'tjit.debug'
    """
    return _print_or_log(fmt, args, kwargs, ordered, skip_format_check, log=True)


def _print_or_log(fmt, args, kwargs, ordered, skip_format_check, log):
    def _print(fmt, *c_args, **c_kwargs):
        if not skip_format_check:
            _CHECKER.format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field is not None
        site = None
        if log:
            frame = user_frame()
            site = (frame.filename, frame.lineno) if frame else ("(unknown file)", 0)
        printer = _Printer(fmt, tuple(np.get_printoptions().items()), has_placeholders, site)
        in_tree, dyn, static = _split_args(c_args, c_kwargs)
        debug_callback_p.bind(*dyn, callback=FlatCallback(printer, in_tree, static),
                              ordered=bool(ordered))

    if fmt is not None:
        _print(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        name = "debug_log" if log else "debug_print"
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return _print


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,  # noqa: A001
               token=None, **kwargs):
    """Stop here when the program runs, in a debugger over the calling frames' values
    (``jax.debug.breakpoint``; commands: ``p``/``pp`` EXPR, ``l``, ``w``, ``u``, ``d``,
    ``c``, ``q``, see ``tjit/debugger.py``). Under ``jit`` the array-valued locals of
    the frames are the values computed at run time; under ``vmap`` the debugger opens
    once per batch element, as JAX's.

    Args:
      backend: accepted for JAX compatibility (it runs where the program runs).
      filter_frames: leave tjit's own frames out of the stack (default).
      num_frames: record at most this many frames (default: all).
      ordered: keep the breakpoint in program order with other ordered effects.
      token: accepted for JAX compatibility (ignored).
    """
    frames = record_frames(sys._getframe(1), filter_frames, num_frames)
    slots = [(fr, name) for fr in frames for name in fr.array_names]

    def enter(*values):
        for (fr, name), v in zip(slots, values):
            fr.locals[name] = Array(np.asarray(v))
        Debugger(frames).run()
    callback(enter, *[fr.locals[name] for fr, name in slots], ordered=ordered)


from tjit._visualize_sharding import (  # noqa: E402
    inspect_array_sharding, visualize_array_sharding, visualize_sharding)

__all__ = ["callback", "print", "log", "breakpoint", "inspect_array_sharding",
           "visualize_array_sharding", "visualize_sharding"]

publish(globals())  # (print and callback: eager entry points, tab completion lists them)
