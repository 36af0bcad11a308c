"""sympy, imported the first time tjit needs a symbolic size.

Symbolic dims are sympy expressions, but a program of concrete shapes never makes one,
and importing sympy costs about as much as the rest of ``import tjit`` (~250 ms). So
modules write ``from tjit._sympy import sympy`` and use ``sympy.X`` as usual: the first
attribute read imports sympy, runs the set-up that tjit's modules registered with
:func:`when_loaded` (wrappers installed on sympy's classes), and copies sympy's names
onto this stand-in module, so every later ``sympy.X`` is an ordinary module attribute
read with no extra cost. Code reached with concrete shapes must not read ``sympy.X``:
it asks :func:`is_expr` (is this a sympy expression?), which never imports sympy, since
no expression exists before sympy is imported.
"""

import functools
import importlib.util
import os
import re
import sys
import threading
import types

_lock = threading.RLock()
_on_load = []
_Expr = None        # sympy.Expr once sympy is loaded and set up
_loading = False    # (the loading thread's set-up reads sympy.X: no second load)


class _LazySympy(types.ModuleType):
    """Stands for sympy; its ``__getattr__`` runs only for names it does not hold yet."""

    def __getattr__(self, name):
        _load()
        return getattr(sys.modules["sympy"], name)


sympy = _LazySympy("sympy", "sympy, imported on first use (see tjit._sympy)")


def _load():
    global _Expr, _loading
    with _lock:                   # (one thread imports; the others wait for it)
        if _Expr is not None or _loading:
            return
        _loading = True
        try:
            import sympy as real
            for set_up in _on_load:
                set_up()
            # (names last: no other thread reads sympy.X before the set-up is done)
            sympy.__dict__.update((k, v) for k, v in vars(real).items()
                                  if not k.startswith("__"))
            _Expr = real.Expr
        finally:
            _loading = False


def simplify_dim(d):
    """A dim (an int or a sympy expression, e.g. computed with sympy arithmetic) in
    canonical form: expanded, and an int when it is one."""
    if type(d) is int:
        return d
    e = sympy.expand(d)
    return int(e) if e.is_Integer else e


def loaded():
    """Whether sympy has been imported (symbolic sizes may exist)."""
    return _Expr is not None or "sympy" in sys.modules


@functools.cache
def version():
    """sympy's version, read from its ``release.py`` when sympy is not imported yet (the
    keys of cached programs name it)."""
    spec = None if "sympy" in sys.modules else importlib.util.find_spec("sympy")
    if spec is not None and spec.origin:
        with open(os.path.join(os.path.dirname(spec.origin), "release.py")) as f:
            found = re.search(r"""__version__\s*=\s*["']([^"']+)["']""", f.read())
        if found:
            return found.group(1)
    return sympy.__version__


def when_loaded(set_up):
    """Call ``set_up()`` once sympy is imported: now if it is, else on its first use. A
    sympy that the user imported before tjit is set up now (its expressions may reach
    tjit as dims)."""
    with _lock:
        _on_load.append(set_up)
        done = _Expr is not None
    if done:
        set_up()
    elif "sympy" in sys.modules:
        _load()
    return set_up


def is_expr(x):
    """``isinstance(x, sympy.Expr)``, without importing sympy."""
    if _Expr is None:
        if "sympy" not in sys.modules:
            return False
        _load()
        return isinstance(x, sys.modules["sympy"].Expr)
    return isinstance(x, _Expr)


def _after_fork_in_child():
    global _lock
    _lock = threading.RLock()     # (a parent thread holding it does not exist here)


os.register_at_fork(after_in_child=_after_fork_in_child)
