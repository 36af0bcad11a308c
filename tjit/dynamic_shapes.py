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

Questions the user's code asks about sizes and expressions of sizes are answered for
the traced call's actual sizes and kept as guards (``tracing/size_questions.py``):
equality and truthiness (``x.shape[0] == 5``, ``x.shape == (5, 3)``, ``n in (4, 5)``,
``n % 2 == 0``, ``if n - 1:``, ``a.shape[0] == b.shape[0]``; sympy alone would answer
them structurally, False for every size, and the program would be silently wrong at the
sizes where the true answer differs) and order (``if x.shape[0] > 3``, ``n >= m``,
``min(n, 8)``, ``max``, ``sorted``; sympy alone cannot answer them), with floats and
fractions too (``n > 2.5``, ``n * 0.5 < 3``, ``n / 3 <= 1.5``: exact integer guards where
Python's float rounding provably agrees, ``tracing/size_rounding.py``). So do tjit's shape
rules where sympy cannot decide a question about a *derived* dim: a slice bound that is
a size expression (``x[: n // 2]``, and NumPy's clamping of ``x[:5]``), ``reshape(n //
2, 2, 3)`` (is ``6*floor(n/2) == 3*n``?), ``jnp.split(x, 2)`` (does 2 divide ``n``?),
``n // 2`` against ``m`` in a broadcast. The dims themselves stay symbolic: the kernels
take ``floor(s0/2)`` as a run-time size. A program serves only sizes whose answers all
agree with its guards; a size that answers otherwise is traced again, symbolically, into
one more program of the family (at most ``MAX_PROGRAMS``: ``n % 2 == 0`` gives one per
parity), and beyond that gets a program for its exact shapes.

A derived dim is never taken for a broadcasting 1 by the symbolic kernels: whether it is
1 is a guard too, and sizes where it is 1 (``n // 2`` at ``n = 3``) get a program for
their exact shapes (``size_questions.SpecializeSizes``), so they broadcast as NumPy does;
the family stays dynamic for the other sizes.

What still falls back to one program per shape (logged, see ``compile_log``): code that
turns a size into a Python int or float (``range(x.shape[0])``, ``int(n)``,
``float(n)``, ``math.sqrt(n)``, ``operator.index``, NumPy on a shape: the constant it
makes cannot be followed by a guard), a comparison of a root of a size or of a fraction
with a size in its denominator (``n ** 0.5 > 2``, ``n / m < 1.5``), a dict or set
lookup keyed by a size (which key matched is not one expression), and any other error of
the symbolic trace. A family that falls back stays per-shape.

On the CUDA backend a binding where a reduction over a symbolic axis keeps few points
(a column sum of a few columns, a full sum) and reads 2^20 elements or more runs a
program compiled for its sizes instead (``devices/cuda_specialize.py``: one pass over a
symbolic axis was 100x slower than the split a concrete program makes).

Why guards evaluated at call time rather than a fallback on any arithmetic on a size:
``x.reshape(b * t, d)`` and ``x.reshape(n, m // 2, 2)`` are common and stay dynamic, and
only code that branches on a size pays, by the sizes that branch the other way. A
program's guards are compiled into one Python function of its sizes (``Pattern.bind``):
a size missing from the exact-shape cache pays ~1 us for it (``bench_dynamic_shapes.py
--guards-only``: ~1.0 us for a first guard, ~0.15 us a further one).
"""

import contextlib
import operator
import os
import sys
import traceback

from tjit._sympy import sympy, when_loaded
from tjit.tracing.shapes import shape_str
from tjit.tracing.size_questions import GuardingQuestions, RefusingQuestions
from tjit.xla_like.plan import concrete

#: ``TJIT_DYNAMIC_SHAPES=0`` turns automatic dynamic shapes off for every new ``jit``.
ENV_VAR = "TJIT_DYNAMIC_SHAPES"

# A family keeps at most this many sizes in the exact-shape cache; later sizes are
# matched against the pattern on every call (a few microseconds).
MAX_CACHED_SIZES = 1024

# A family keeps at most this many dynamic programs of the same dims, one per set of
# answers its guards got (``n % 2 == 0``: two); sizes answering otherwise are specialized.
MAX_PROGRAMS = 4


# sympy imports some modules the first time it meets a kind of expression (Add.flatten:
# sympy.tensor.tensor with sympy.combinatorics; lambdify: sympy.codegen): ~85 ms on an
# idle machine, 0.24 s on the H100 image (no .pyc there), paid once per process by the
# first symbolic trace. They are not imported ahead on a background thread: a concrete
# trace never needs them, and the importing thread holds the GIL (bytecode compiles)
# and module locks, so it stalled every process's *first* jit call (CuPy's first
# transfer imports modules too): 294 ms on the H100 instead of ~60.


def enabled_by_default():
    return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no", "off")


_AutoDim = None     # the class AutoDim, made when sympy is imported


@when_loaded
def _define_auto_dim():
    global _AutoDim

    class AutoDim(sympy.Symbol):
        """A size symbol made by automatic dynamic shapes (a positive integer, >= 2 in
        every program that uses it). What the user's code asks about it while tracing is
        answered by ``tracing.size_questions`` (see the module docstring)."""

        def __new__(cls, name):
            return super().__new__(cls, name, integer=True, positive=True)

        def __getnewargs_ex__(self):    # (pickled programs: the assumptions are the class's)
            return (self.name,), {}

    AutoDim.__qualname__ = "AutoDim"    # (pickles name it tjit.dynamic_shapes.AutoDim)
    _AutoDim = AutoDim


def auto_dim_class():
    """The class of automatic dynamic shapes' size symbols (imports sympy)."""
    if _AutoDim is None:
        sympy.Symbol    # (importing sympy defines it)
    return _AutoDim


def __getattr__(name):  # (PEP 562: ``tjit.dynamic_shapes.AutoDim``, as pickles ask for it)
    if name == "AutoDim":
        return auto_dim_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def questions_for(pattern, shapes):
    """The context that answers the user's questions about ``pattern``'s symbols during
    its trace, for the call's actual ``shapes``; ``pattern.add_guards`` keeps them."""
    env = {}
    for pat, shp in zip(pattern.dims, shapes):
        for p, v in zip(pat, shp):
            if type(p) is not int:
                env[p] = v
    return GuardingQuestions(env, concrete)


def questions_for_declared(in_avals, fname):
    """The context that refuses the user's undecidable questions about user-declared
    size symbols (``polymorphic_shapes``, symbolic ShapeDtypeStructs) during a trace:
    one program serves every size, so no answer can be guarded."""
    declared = {s for a in in_avals for d in a.shape if type(d) is not int
                for s in d.free_symbols if not isinstance(s, auto_dim_class())}
    return RefusingQuestions(declared, f"jit({fname})") if declared else \
        contextlib.nullcontext()


class Pattern:
    """Per leaf, its dims: ints, or AutoDims for the dynamic positions; ``guards``: the
    answers the traced code relied on (sizes that answer otherwise get other programs)."""

    __slots__ = ("_check", "_check_symbols", "_fixed", "_symbolic", "dims", "guards",
                 "in_specs", "variant")

    def __init__(self, dims):
        self.dims = dims
        # leaves of concrete dims (compared as whole tuples), and the others
        self._fixed = [(i, d) for i, d in enumerate(dims) if all(type(x) is int for x in d)]
        self._symbolic = [(i, d) for i, d in enumerate(dims)
                          if any(type(x) is not int for x in d)]
        self.guards = ()
        self._check, self._check_symbols = None, ()
        self.variant = 0    # (programs of the same dims for other answers: 1, 2, ...)
        # what the backend binds at run time (None for leaves with no symbol)
        self.in_specs = [d if any(type(x) is not int for x in d) else None for d in dims]

    def key(self):
        return tuple(tuple(x if type(x) is int else x.name for x in d) for d in self.dims)

    def program_key(self):
        """What identifies its program among a family's (the dims and the variant)."""
        return self.key(), self.variant

    def bind(self, shapes):
        """{symbol: size} when ``shapes`` (a tuple per leaf) fit this pattern, else None."""
        for i, dims in self._fixed:     # (a model's parameters: one comparison each)
            if shapes[i] != dims:
                return None
        env = {}
        for i, pat in self._symbolic:
            for p, v in zip(pat, shapes[i]):
                if type(p) is int:
                    if p != v:
                        return None
                elif v < 2:
                    return None
                else:
                    old = env.setdefault(p, v)
                    if old != v:
                        return None
        if self._check is not None and not self._check(*[env[s] for s in self._check_symbols]):
            return None
        return env

    def add_guards(self, guards):
        """Keep the answers of this pattern's trace (before the program is published)."""
        self.guards = tuple(guards)
        symbols, self._check = _compile_guards(self.guards)
        # (the dims' own symbol objects: sympy's cache may have built the guards with an
        # equal older one, and a dict lookup by a non-identical key compares with sympy)
        own = {x.name: x for x in self.symbols()}
        self._check_symbols = tuple(own.get(x.name, x) for x in symbols)

    def symbols(self):
        return [x for d in self.dims for x in d if type(x) is not int]


# guard relation -> (its operator, the operator of its negation), in sympy's spelling
_RELATIONS = {operator.eq: ("==", "!="), operator.lt: ("<", ">="), operator.le: ("<=", ">"),
              operator.gt: (">", "<="), operator.ge: (">=", "<")}


def _compile_guards(guards):
    """(symbols, one Python function of their sizes that is True when every guard gets
    its answer): one call per new size, ~0.6 us for a few guards, where evaluating each
    guard's expression on its own (``plan.concrete``) costs ~4 us a guard."""
    if not guards:
        return (), None
    symbols = sorted(set().union(*(g.expr.free_symbols for g in guards)), key=str)
    rels = [sympy.Rel(g.expr, 0, _RELATIONS[g.relation][0 if g.answer else 1],
                      evaluate=False) for g in guards]
    return tuple(symbols), sympy.lambdify(symbols, sympy.And(*rels, evaluate=False),
                                          modules="math")


class Family:
    """What one family of calls has seen: the first shapes, the dynamic programs once
    there are some (their patterns and cache entries: one program per set of answers to
    the guards, all with the same dims), or the reason it specializes per shape."""

    __slots__ = ("cached_sizes", "fallback", "programs", "ref")

    def __init__(self, shapes):
        self.ref = shapes
        self.programs = []
        self.fallback = None
        self.cached_sizes = 0

    @property
    def pattern(self):
        return self.programs[0][0] if self.programs else None

    def lookup(self, shapes):
        """The dynamic entry that serves ``shapes``, else None."""
        for pattern, entry in self.programs:
            if pattern.bind(shapes) is not None:
                return entry
        return None

    def publish(self, pattern, entry):
        """Serve ``pattern``'s sizes with ``entry``: one more program for other answers
        to the same dims' guards, or the program of wider dims that replaces them."""
        if self.programs and pattern.key() == self.programs[0][0].key():
            self.programs.append((pattern, entry))
        else:
            self.programs = [(pattern, entry)]

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
                    groups[k] = auto_dim_class()(f"s{len(groups)}")
                leaf.append(groups[k])
                if type(p) is int:
                    changed.append((li, j))
            dims.append(tuple(leaf))
        pattern = Pattern(tuple(dims))
        if self.pattern is not None and pattern.key() == self.pattern.key():
            # the dims are dynamic already: these sizes answer some guard differently
            what = (f"new shape for arg {_first_leaf(shapes, self.ref, names)}: the "
                    f"function's code asked about its sizes while tracing and this size "
                    f"answers differently (the programs assumed "
                    f"{' | '.join(_guard_text(p) for p, _ in self.programs)})")
            if len(self.programs) >= MAX_PROGRAMS:
                return None, f"{what}, so this size is specialized"
            pattern.variant = len(self.programs)
            return pattern, f"{what}: one more dynamic program for these answers"
        return pattern, _cause(changed, self.ref, shapes, names, pattern)


class Route:
    """The short way from a call's arguments to its family's dynamic programs, for a
    jit whose calls are positional arguments only (no statics, no kwargs): the
    generated flattener of the family's argument structure, then one generated
    function (``_matcher``) that checks each leaf's type, dtype, weak type and shape
    against the family's programs, binds the sizes and evaluates the guards. A call at
    a size this jit has not cached takes it instead of building a treedef, a signature
    and a cache key that it would only use to find the same family (jit's part of a new
    size ~80 -> ~25 us in situ, bench_dynamic_shapes.py). None where anything differs:
    the caller takes the full path, which retraces or explains as before."""

    __slots__ = ("_match", "_programs", "family", "flat", "kinds", "treedef", "version")

    def __init__(self, family, flat, treedef, kinds, version):
        self.family = family
        self.flat = flat            # args -> leaves, or None when the structure differs
        self.treedef = treedef      # (the structure of the args: the caller's _last)
        self.kinds = kinds          # per leaf (rank, dtype, weak), as the family key's
        self.version = version      # config.version the family was keyed with
        self._programs, self._match = None, None

    def match(self, leaves, array_type):
        """(entry, leaves, raw values, a tuple of per-leaf (shape, dtype, weak)) of the
        dynamic program that serves a call's ``leaves`` (``self.flat``'s), else None."""
        if len(leaves) != len(self.kinds):
            return None
        programs = self.family.programs
        if self._programs != (programs, len(programs)):   # (widened, or one more variant)
            self._match = _matcher(self.kinds, list(programs), array_type)
            self._programs = (programs, len(programs))
        return self._match(leaves)


def _matcher(kinds, programs, array_type):
    """One generated function ``leaves -> (entry, leaves, raw, sig) or None`` for a
    family of leaf ``kinds`` served by ``programs`` ((pattern, entry) pairs, tried in
    order as ``Family.lookup`` does): straight-line code, as a new size's cost in situ is
    mostly cold caches of the Python code and objects it touches."""
    consts = {"_A": array_type}
    n = len(kinds)
    lines = ["def match(leaves):", f"    {', '.join(f'x{i}' for i in range(n))}, = leaves"
             if n else "    pass"]
    for i, (_, dtype, weak) in enumerate(kinds):
        consts[f"_d{i}"] = dtype
        lines += [f"    if type(x{i}) is not _A or x{i}._weak != {bool(weak)}: return None",
                  f"    v{i} = x{i}._value",
                  f"    d{i}, s{i} = v{i}.dtype, v{i}.shape",
                  # (dtypes of one kind are one object: ``is`` first, as == is slow)
                  f"    if d{i} is not _d{i} and d{i} != _d{i}: return None"]
    found = (f"(_e{{k}}, leaves, [{', '.join(f'v{i}' for i in range(n))}], "
             f"({''.join(f'(s{i}, _d{i}, {bool(w)}), ' for i, (_, _, w) in enumerate(kinds))}))")
    for k, (pattern, entry) in enumerate(programs):
        consts[f"_e{k}"] = entry
        tests, where = [], {}
        for i, dims in enumerate(pattern.dims):
            if all(type(d) is int for d in dims):
                consts[f"_f{k}_{i}"] = dims
                tests.append(f"s{i} == _f{k}_{i}")
                continue
            tests.append(f"len(s{i}) == {len(dims)}")
            for j, d in enumerate(dims):
                at = f"s{i}[{j}]"
                if type(d) is int:
                    tests.append(f"{at} == {d}")
                elif d.name in where:
                    tests.append(f"{at} == {where[d.name]}")
                else:
                    where[d.name] = at
                    tests.append(f"{at} >= 2")     # (sizes 0 and 1 are never symbolic)
        if pattern._check is not None:
            consts[f"_g{k}"] = pattern._check
            tests.append(f"_g{k}({', '.join(where[x.name] for x in pattern._check_symbols)})")
        lines += [f"    if {' and '.join(tests) or 'True'}:",
                  f"        return {found.format(k=k)}"]
    lines.append("    return None")
    exec("\n".join(lines), consts)  # noqa: S102 (generated from the patterns; names only constants)
    return consts["match"]


def _first_leaf(shapes, ref, names):
    for n, s, r in zip(names, shapes, ref):
        if s != r:
            return f"{n}: {shape_str(r)} → {shape_str(s)}"
    return names[0] if names else "?"


def _guard_text(pattern):
    return "; ".join(g.text for g in pattern.guards)


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


def explain_new_family(fam_key, others, names, statics_names):
    """Why a call matched no family seen before ("first call", "static arg n changed",
    "dtype of arg x changed", ...): every difference from the family seen before that
    differs least (the most recent of those), as JAX's explain_cache_misses."""
    if not others:
        return "first call"
    diffs = closest_differences(
        [family_differences(fam_key, o, names, statics_names) for o in others])
    return "; ".join(diffs) or "new backend or device"


def closest_differences(candidates):
    """The shortest of ``candidates`` (lists of differences, oldest first; the latest
    wins a tie)."""
    return min(reversed(candidates), key=len)


def family_differences(fam_key, other, names, statics_names):
    """What differs between two family keys, one phrase per difference."""
    treedef, leaves, statics, version, _, _ = fam_key
    o_treedef, o_leaves, o_statics, o_version, _, _ = other
    out = []
    if version != o_version:
        out.append("config changed (tjit.config.update)")
    if statics != o_statics:
        old, new = dict(o_statics), dict(statics)
        diff = [k for k in new if k not in old or old[k] != new[k]]
        which = ", ".join(statics_names(k) for k in diff) or "?"
        shown = "; ".join(f"{statics_names(k)}: {_short(old.get(k))} → {_short(new[k])}"
                          for k in diff)
        out.append(f"static arg {which} changed ({shown})")
    if treedef != o_treedef:
        out.append(f"new pytree structure of the arguments: {o_treedef} → {treedef}")
        return out     # (the leaves do not line up)
    for n, (r, d, w), (o_r, o_d, o_w) in zip(names, leaves, o_leaves):
        if d != o_d or w != o_w:
            out.append(f"dtype of arg {n} changed: {o_d.name}{' (weak)' if o_w else ''} → "
                       f"{d.name}{' (weak)' if w else ''}")
        if r != o_r:
            out.append(f"rank of arg {n} changed: {o_r} → {r}")
    return out


def _short(static):
    return "?" if static is None else f"{static.value!r:.40}"


def fallback_reason(error):
    """Why a symbolic trace failed, with the user's line that needed a concrete size."""
    library_dirs = tuple(os.path.dirname(os.path.abspath(sys.modules[m].__file__)) + os.sep
                         for m in ("sympy", "tjit"))
    frame = None
    for fr in traceback.extract_tb(error.__traceback__):
        if not os.path.abspath(fr.filename).startswith(library_dirs):
            frame = fr
    at = f" at {os.path.basename(frame.filename)}:{frame.lineno} ({frame.line})" \
        if frame is not None and frame.line else ""
    return (f"the function's Python code needs a concrete size{at}: "
            f"{type(error).__name__}: {str(error)[:200]}")
