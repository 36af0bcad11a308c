"""Checks of the options that pick a function's arguments by number or by name.

``jit``'s ``static_argnums``/``static_argnames``/``donate_argnums``/``donate_argnames``,
``grad``'s ``argnums``, ``checkpoint``'s ``static_argnums``, ``custom_jvp``'s
``nondiff_argnums``: each is an int or a sequence of ints (or of names) that must pick
parameters the function has. A wrong one used to be ignored silently; these helpers
turn it into an error that names the transformation, the function and its arity, and
says how to fix the option, e.g.::

    jit(f): static_argnums=5 is out of range: f takes 1 positional parameter (x);
    use an index in [-1, 1), or static_argnames for a keyword argument

Negative indices count from the end of the positional parameters, as in JAX. Options
that JAX resolves against each call (``grad``'s ``argnums``, ``checkpoint``'s
``static_argnums``) use :func:`resolve_at_call`, where they count from the end of the
positional arguments passed. :func:`leaf_names` names each flat leaf of a call's
arguments for messages, as JAX's ``api_util.debug_info``.
"""

import inspect
import operator

from tjit.tracing.tree_util import keystr, tree_flatten_with_path

__all__ = ["Params", "as_index_tuple", "as_name_tuple", "check_argnames",
           "check_call_arity", "is_index", "leaf_names", "normalize_argnums",
           "resolve_at_call"]


def leaf_names(named):
    """A readable name per flat leaf of the values in ``named``, ``(name, value)`` pairs
    in flattening order: the name, then the leaf's key path inside the value
    (``params['w']``, ``x``, ``batch[0]``), as JAX's ``api_util.debug_info``."""
    return [name + keystr(path) for name, value in named
            for path, _ in tree_flatten_with_path(value)[0]]


class Params:
    """What ``fun``'s signature says about its parameters (``known`` is False when
    Python cannot tell, e.g. for some builtins)."""

    def __init__(self, fun):
        try:
            params = list(inspect.signature(fun).parameters.values())
            self.known = True
        except (TypeError, ValueError):
            params, self.known = [], False
        p = inspect.Parameter
        self.pos_names = [q.name for q in params
                          if q.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.names = [q.name for q in params
                      if q.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY)]
        self.var_positional = any(q.kind == p.VAR_POSITIONAL for q in params)
        self.var_keyword = any(q.kind == p.VAR_KEYWORD for q in params)

    @property
    def fixed_arity(self):
        """True when the number of positional parameters is certain (no ``*args``)."""
        return self.known and not self.var_positional

    def describe(self, fname):
        n = len(self.pos_names)
        s = "" if n == 1 else "s"
        return f"{fname} takes {n} positional parameter{s} ({', '.join(self.pos_names)})"


def as_index_tuple(value, option, where):
    """``value`` (None, an int or a sequence of ints) as a tuple of ints, no repeats."""
    if value is None:
        return ()
    items = (value,) if is_index(value) else value
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if items is None or isinstance(value, str) or not all(is_index(i) for i in items):
        raise TypeError(f"{where}: {option} must be an int or a sequence of ints, got "
                        f"{type(value).__name__} {value!r:.60}")
    items = tuple(operator.index(i) for i in items)
    _no_repeats(items, option, where)
    return items


def as_name_tuple(value, option, where):
    """``value`` (None, a str or a sequence of str) as a tuple of names, no repeats."""
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if items is None or not all(isinstance(i, str) for i in items):
        raise TypeError(f"{where}: {option} must be a str or a sequence of str, got "
                        f"{type(value).__name__} {value!r:.60}")
    _no_repeats(items, option, where)
    return items


def normalize_argnums(nums, params, option, where, fname, by_name=True):
    """``nums`` made non-negative. Out-of-range indices raise when the signature makes
    it certain (no ``*args``); otherwise :func:`check_call_arity` checks them per call.
    ``by_name``: the transformation has a ``*_argnames`` twin to suggest."""
    if not params.fixed_arity:
        if any(i < 0 for i in nums):
            raise ValueError(
                f"{where}: {option}={_fmt(nums)} has a negative index, but {fname} takes "
                f"a variable number of positional arguments (*args), so it cannot be "
                f"resolved; use non-negative indices")
        return nums
    n = len(params.pos_names)
    bad = [i for i in nums if not -n <= i < n]
    if bad:
        hint = (f"use an index in [{-n}, {n})" if n else "drop the option")
        if by_name:
            hint += (f", or name keyword arguments with the "
                     f"{option.replace('nums', 'names')} option")
        raise ValueError(f"{where}: {option}={_fmt(nums)} is out of range: "
                         f"{params.describe(fname)}; {hint}")
    out = tuple(i % n for i in nums)
    _no_repeats(out, option, where, f" (after counting negative indices from {n})")
    return out


def check_argnames(names, params, option, where, fname):
    """Every name is a parameter of the function (unless it takes ``**kwargs``)."""
    if not params.known or params.var_keyword:
        return
    bad = [k for k in names if k not in params.names]
    if bad:
        raise ValueError(f"{where}: {option}={_fmt(names)} names no parameter of {fname}: "
                         f"{', '.join(map(repr, bad))}; its parameters that can be passed "
                         f"by name are ({', '.join(params.names)})")


def check_call_arity(nums, n_args, option, where, fname):
    """At a call: each index picks a positional argument that was passed."""
    bad = [i for i in nums if i >= n_args]
    if bad:
        s = "" if n_args == 1 else "s"
        raise ValueError(f"{where}: {option}={_fmt(nums)} but {fname} was called with "
                         f"{n_args} positional argument{s}; pass argument {bad[0]} "
                         f"positionally or remove it from {option}")


def resolve_at_call(nums, n_args, option, where, fname, params=None, too_few=ValueError,
                    doing=""):
    """At a call with ``n_args`` positional arguments: ``nums`` made non-negative, counting
    negative indices from the end of the arguments passed (as JAX does for ``grad``'s
    ``argnums``). An index past the last argument raises ``too_few`` (JAX's ``grad``
    raises TypeError: the caller passed too few arguments), one before the first a
    ValueError; ``params`` (a :class:`Params`) adds the signature to the message and
    ``doing`` a lead-in such as "differentiating with respect to "."""
    n = n_args
    out = tuple(i % n for i in nums if -n <= i < n)
    if len(out) == len(nums) and len(set(out)) == len(out):
        return out
    sig = f" ({params.describe(fname)})" if params is not None and params.fixed_arity else ""
    fix = f"use an index in [{-n}, {n})" if n else ""
    high = [i for i in nums if i >= n]
    if high:
        m = max(high) + 1
        raise too_few(f"{where}: {doing}{option}={_fmt(nums)} requires at least "
                      f"{_count(m, 'positional argument')} to be passed by the caller, but "
                      f"got only {n}{sig}; pass argument {m - 1} positionally"
                      + (f", or {fix}" if fix else ""))
    low = [i for i in nums if i < -n]
    if low:
        raise ValueError(f"{where}: {doing}{option}={_fmt(nums)} is out of range for a call "
                         f"with {_count(n, 'positional argument')}{sig}: a negative index "
                         f"counts from the last argument passed, so {low[0]} picks none"
                         + (f"; {fix}" if fix else ""))
    raise ValueError(f"{where}: {option}={_fmt(nums)} picks an argument twice (negative "
                     f"indices count from the {_count(n, 'argument')} passed); list each "
                     f"argument once")


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def is_index(x):
    """An int or an integer scalar (``operator.index`` accepts it), but not a bool."""
    if isinstance(x, bool):
        return False
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


def _no_repeats(items, option, where, why=""):
    seen = set()
    for i in items:
        if i in seen:
            raise ValueError(f"{where}: {option}={_fmt(items)} repeats {i!r}{why}; list each "
                             f"argument once")
        seen.add(i)


def _fmt(items):
    return items[0] if len(items) == 1 and isinstance(items[0], int) else tuple(items)
