"""Automatic dynamic shapes for ``jit`` (torch.compile's "automatic dynamic" rule).

A jitted function is compiled for the shapes of its first call. Calls that differ from
those only in some dims (same pytree, ranks, dtypes, static args: one *family*) make
those dims symbolic: the function is traced once more with one size symbol per dim
position that changed (positions whose old values are equal and whose new values are
equal share a symbol, as torch decides it), compiled into polymorphic kernels, and
every later size of those dims runs that program with no trace and no compile. A new
dim that changes later widens the pattern (one more trace).

Sizes 0 and 1 are never symbolic (torch specializes them too): a size-1 dim
broadcasts, a size-0 one is empty, so code traced for a size symbol ``s`` assumes
``s >= 2`` and a call with a 0 or 1 there gets its own concrete program.

Where the function's Python code needs a size the symbolic trace cannot decide (an
``if`` on ``x.shape[0] > 3``, ``range(x.shape[0])``, ``int(...)`` of a size, NumPy on
a shape), the symbolic trace raises; the family then falls back to one program per
shape (logged, see ``compile_log``). A direct ``==``/``!=`` between a size symbol and
an int (``x.shape[0] == 5``, ``x.shape == (5, 3)``, ``n in (4, 5)``) does not raise
in sympy (it answers "not equal"), so it is recorded as a guard: the program is used
only for sizes that keep that answer, the others get a concrete program. Comparisons of
expressions of sizes (``x.shape[0] % 2 == 0``) are not guarded (sympy's ``==`` on an
expression is structural): such code should use ``dynamic_shapes=False``.
"""

import contextvars
import operator
import os
import sys
import traceback

import sympy

from tjit.tracing.shapes import shape_str
from tjit.tracing.tree_util import keystr, tree_flatten_with_path

#: ``TJIT_DYNAMIC_SHAPES=0`` turns automatic dynamic shapes off for every new ``jit``.
ENV_VAR = "TJIT_DYNAMIC_SHAPES"

# A family keeps at most this many sizes in the exact-shape cache; later sizes are
# matched against the pattern on every call (a few microseconds).
MAX_CACHED_SIZES = 1024

_GUARDS = contextvars.ContextVar("tjit_dim_guards", default=None)


def enabled_by_default():
    return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no", "off")


class AutoDim(sympy.Symbol):
    """A size symbol made by automatic dynamic shapes (a positive integer, >= 2 in
    every program that uses it). Comparing it with ``==`` to a Python or NumPy int
    during a trace records the int as a guard (see the module docstring)."""

    __hash__ = sympy.Symbol.__hash__

    def __new__(cls, name):
        return super().__new__(cls, name, integer=True, positive=True)

    def __eq__(self, other):
        return self._compared(other, sys._getframe(1))

    def __ne__(self, other):
        same = self._compared(other, sys._getframe(1))
        return same if same is NotImplemented else not same

    def _compared(self, other, caller):
        same = sympy.Symbol.__eq__(self, other)
        if not isinstance(other, sympy.Basic):
            seen = _GUARDS.get()
            # only the user's code: tjit's and sympy's own comparisons are made knowing
            # that dims may be symbolic
            if seen is not None and not _is_library(caller):
                try:
                    seen.add((self, operator.index(other)))
                except TypeError:
                    pass
        return same


def _is_library(frame):
    name = frame.f_globals.get("__name__", "")
    return name.startswith(("tjit.", "sympy.")) or name in ("tjit", "sympy")


class guards_recorded:
    """Context manager: the ``(symbol, int)`` pairs compared with ``==`` inside it."""

    def __enter__(self):
        self.pairs = set()
        self._token = _GUARDS.set(self.pairs)
        return self

    def __exit__(self, *exc):
        _GUARDS.reset(self._token)
        return False


class Pattern:
    """Per leaf, its dims: ints, or AutoDims for the dynamic positions; ``excluded``:
    per symbol, the sizes the traced code compared it with (they get concrete programs)."""

    __slots__ = ("dims", "excluded", "in_specs")

    def __init__(self, dims):
        self.dims = dims
        self.excluded = {}
        # what the backend binds at run time (None for leaves with no symbol)
        self.in_specs = [d if any(type(x) is not int for x in d) else None for d in dims]

    def key(self):
        return tuple(tuple(x if type(x) is int else x.name for x in d) for d in self.dims)

    def bind(self, shapes):
        """{symbol: size} when ``shapes`` fit this pattern, else None."""
        env = {}
        for pat, shp in zip(self.dims, shapes):
            for p, v in zip(pat, shp):
                if type(p) is int:
                    if p != v:
                        return None
                elif v < 2:
                    return None
                else:
                    old = env.setdefault(p, v)
                    if old != v:
                        return None
        for s, bad in self.excluded.items():
            if env.get(s) in bad:
                return None
        return env

    def symbols(self):
        return [x for d in self.dims for x in d if type(x) is not int]


class Family:
    """What one family of calls has seen: the first shapes, the dynamic program (its
    pattern and cache entry) once there is one, or the reason it specializes per shape."""

    __slots__ = ("cached_sizes", "entry", "fallback", "pattern", "ref")

    def __init__(self, shapes):
        self.ref = shapes
        self.pattern = None
        self.entry = None
        self.fallback = None
        self.cached_sizes = 0

    def lookup(self, shapes):
        """The dynamic entry when it serves ``shapes``, else None."""
        if self.pattern is not None and self.pattern.bind(shapes) is not None:
            return self.entry
        return None

    def widen(self, shapes, names, by_value=False):
        """(pattern, cause) of the dynamic program that serves ``shapes`` too, or
        (None, why not) when ``shapes`` must be specialized. ``by_value``: dims share a
        symbol when their new sizes are equal (the retry when the first grouping left
        a shape rule undecidable, e.g. ``a + b`` with ``a``'s dim 3 → 5, ``b``'s 1 → 5)."""
        old = self.pattern.dims if self.pattern is not None else self.ref
        groups, dims, changed = {}, [], []
        for li, (pat, ref, shp) in enumerate(zip(old, self.ref, shapes)):
            leaf = []
            for j, (p, v) in enumerate(zip(pat, shp)):
                if type(p) is int and p == v:
                    leaf.append(v)
                    continue
                if v < 2:
                    return None, (f"new shape for arg {names[li]}: {shape_str(ref)} → "
                                  f"{shape_str(shp)}; size {v} in dim {j} is specialized "
                                  f"(sizes 0 and 1 are never dynamic)")
                # "together": the same old value (or symbol) and the same new value
                k = ("v", v) if by_value else ("c", p, v) if type(p) is int else \
                    ("s", p.name, v)
                if k not in groups:
                    groups[k] = AutoDim(f"s{len(groups)}")
                leaf.append(groups[k])
                if type(p) is int:
                    changed.append((li, j))
            dims.append(tuple(leaf))
        pattern = Pattern(tuple(dims))
        if self.pattern is not None and pattern.key() == self.pattern.key():
            return None, (f"new shape for arg {_first_leaf(shapes, self.ref, names)}: the "
                          f"function compared a size with an int while tracing (guard "
                          f"{_guard_text(self.pattern)}), so this size is specialized")
        return pattern, _cause(changed, self.ref, shapes, names, pattern)


def _first_leaf(shapes, ref, names):
    for n, s, r in zip(names, shapes, ref):
        if s != r:
            return f"{n}: {shape_str(r)} → {shape_str(s)}"
    return names[0] if names else "?"


def _guard_text(pattern):
    return ", ".join(f"{s} != {v}" for s, bad in pattern.excluded.items() for v in sorted(bad))


def _cause(changed, ref, shapes, names, pattern):
    by_leaf = {}
    for li, j in changed:
        by_leaf.setdefault(li, []).append(j)
    parts = []
    for li, js in by_leaf.items():
        which = ", ".join(str(j) for j in js)
        parts.append(f"new shape for arg {names[li]}: {shape_str(ref[li])} → "
                     f"{shape_str(shapes[li])}, now dynamic in dim{'s' if len(js) > 1 else ''} "
                     f"{which}")
    return "; ".join(parts) + f" (program for {_pattern_text(pattern, names)})"


def _pattern_text(pattern, names):
    return ", ".join(f"{n}: {shape_str(d)}" for n, d in zip(names, pattern.dims)
                     if any(type(x) is not int for x in d))


def record_guards(pattern, pairs):
    """Keep the sizes that traced code compared a symbol of ``pattern`` with (0 and 1
    never reach the program)."""
    mine = set(pattern.symbols())
    for s, v in pairs:
        if s in mine and v >= 2:
            pattern.excluded.setdefault(s, set()).add(v)


def leaf_names(dyn_args, dyn_kwargs, arg_name, dyn_positions):
    """A readable name per flat leaf of ``(dyn_args, dyn_kwargs)``: the parameter's
    name and the leaf's key path inside it (``params['w']``, ``x``, ``batch[0]``)."""
    out = []
    for path, _ in tree_flatten_with_path((dyn_args, dyn_kwargs))[0]:
        where, key, rest = path[0].idx, path[1], path[2:]
        base = arg_name(dyn_positions[key.idx]) if where == 0 else str(key.key)
        out.append(base + keystr(rest))
    return out


def explain_new_family(fam_key, others, names, statics_names):
    """Why a call matched no family seen before ("first call", "static arg n changed",
    "dtype of arg x changed", ...): compared with the family seen last."""
    if not others:
        return "first call"
    treedef, leaves, statics, version, _, _ = fam_key
    o_treedef, o_leaves, o_statics, o_version, _, _ = others[-1]
    if version != o_version:
        return "config changed (tjit.config.update)"
    if statics != o_statics:
        old, new = dict(o_statics), dict(statics)
        diff = [k for k in new if k not in old or old[k] != new[k]]
        which = ", ".join(statics_names(k) for k in diff) or "?"
        shown = "; ".join(f"{statics_names(k)}: {_short(old.get(k))} → {_short(new[k])}"
                          for k in diff)
        return f"static arg {which} changed ({shown})"
    if treedef != o_treedef:
        return f"new pytree structure of the arguments: {o_treedef} → {treedef}"
    for n, (r, d, w), (o_r, o_d, o_w) in zip(names, leaves, o_leaves):
        if d != o_d or w != o_w:
            return (f"dtype of arg {n} changed: {o_d.name}{' (weak)' if o_w else ''} → "
                    f"{d.name}{' (weak)' if w else ''}")
        if r != o_r:
            return f"rank of arg {n} changed: {o_r} → {r}"
    return "new backend or device"


def _short(static):
    return "?" if static is None else f"{static.value!r:.40}"


_LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                      for m in (sympy, sys.modules["tjit"]))


def fallback_reason(error):
    """Why a symbolic trace failed, with the user's line that needed a concrete size."""
    frame = None
    for fr in traceback.extract_tb(error.__traceback__):
        if not os.path.abspath(fr.filename).startswith(_LIBRARY_DIRS):
            frame = fr
    at = f" at {os.path.basename(frame.filename)}:{frame.lineno} ({frame.line})" \
        if frame is not None and frame.line else ""
    return (f"the function's Python code needs a concrete size{at}: "
            f"{type(error).__name__}: {str(error)[:200]}")
