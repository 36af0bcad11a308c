"""A persistent cache of whole compiled programs: a new process that jits a function it
(or another process) compiled before skips lowering, simplification, fusion and buffer
planning (``compile_program``), and its backend skips what it keys on the program
(the CUDA backend: rendering and NVRTC, ``devices/cuda_compile.unit_for``).

**Key** (:func:`program_key`): sha256 of

* the traced program, structurally: every equation's primitive and parameters (of a
  call the compiler inlines, ``custom_jvp_call`` say, only its body), every variable's
  shape (size symbols with their class and assumptions), dtype and weak type, literal
  and constant values (their bytes), nested jaxprs likewise;
* the target (every field of its ``TargetInfo``), the donated positions, the memory
  budget (``remat``);
* tjit's version, Python's, NumPy's and sympy's, and a digest of the compiler's source
  files (size and modification time of every file under ``tjit/xla_like``,
  ``tjit/primitives``, ``tjit/tracing``, as they were when tjit was imported, and of each
  module defining a primitive's rules), so an edited or upgraded compiler never reads an
  old program.

A program the key cannot describe faithfully is not cached: a parameter that is a
closure, lambda or user object (a callback, say), a primitive whose rules live outside
tjit, constants over ``MAX_CONST_BYTES``. Either costs only the attempt.

**Library steps** (sort, fft, linalg, gathers: ``LibraryStep.fn`` is a closure) are
stored as data: a function made by ``hlo.rebuildable(factory, *args)`` is written as
its factory (a module-level function, by name) and the factory's arguments (the
primitive and its static parameters), and loading calls the same factory on them, so
the loaded step runs the same code on the same parameters as a freshly compiled one
(bit-identical results). Primitives are written by reference (the tjit module
attribute that holds them), so a loaded step holds the process's own primitive object.
A step whose function has no recipe (collectives, which hold a process's
communicators; user callbacks) keeps its program out of the cache: ``NOT_STORED``
counts why, per reason, as ``STATS["not_stored"]`` counts how often.

**Storage** is the backends' disk cache (``devices/disk_cache`` registers itself with
:func:`set_store`: this layer may not import devices): checksummed entries written
atomically, so concurrent processes writing one entry are safe (last one wins). An
entry that does not unpickle to a Program is reported with a warning and compiled
afresh (and replaced).

``TJIT_PROGRAM_CACHE=0`` turns it off (read at each compile). The test suite turns it
off by default (``tests/conftest.py``): tests monkeypatch compiler constants, which no
key can see.
"""

import collections
import dataclasses
import enum
import hashlib
import importlib
import io
import os
import pickle
import sys
import types
import warnings

import numpy as np

from tjit import _sympy
from tjit._sympy import sympy
from tjit.primitives.ad_prims import CALL_JAXPR_PARAM
from tjit.tracing import dtypes
from tjit.tracing.core import Primitive
from tjit.tracing.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var
from tjit.xla_like.hlo import rebuildable

ENV_VAR = "TJIT_PROGRAM_CACHE"
#: Programs whose constants hold more bytes than this are not cached (hashing and
#: storing them would cost more than compiling; entries stay small).
MAX_CONST_BYTES = 4 << 20
#: Pickled programs larger than this are not stored.
MAX_ENTRY_BYTES = 32 << 20
#: Counters for tests and benchmarks.
STATS = {"hits": 0, "misses": 0, "stored": 0, "not_keyed": 0, "not_stored": 0,
         "bad_entries": 0}
#: Why programs were not stored: reason -> count (``STATS["not_stored"]`` in all).
NOT_STORED = collections.Counter()
#: Bumped when the entry's layout changes.
FORMAT = 3

_STORE = []     # [(get, put)]: set by devices/disk_cache
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # .../tjit
_COMPILER_DIRS = ("xla_like", "primitives", "tracing")
_DIGESTS = {}


def set_store(get, put):
    """Where entries live: ``get(key) -> bytes | None`` and ``put(key, bytes)``, keys
    of 64 hex digits."""
    _STORE[:] = [(get, put)]


def enabled():
    return bool(_STORE) and os.environ.get(ENV_VAR, "1").strip().lower() not in (
        "0", "false", "no", "off")


class _NotKeyable(Exception):
    """Something in the program the key cannot describe faithfully."""


def program_key(closed_jaxpr, target, donated=(), budget=None):
    """The cache key of compiling ``closed_jaxpr`` for ``target`` (64 hex digits), or
    None when the program cannot be keyed faithfully or the cache is off."""
    if not enabled():
        return None
    enc = _Encoder()
    try:
        enc.closed(closed_jaxpr)
        enc.value(target)
    except Exception:  # noqa: BLE001 (_NotKeyable; anything unforeseen: no cache, never
        STATS["not_keyed"] += 1     # a failed compile)
        return None
    head = (f"tjit-program:{FORMAT}:{_versions()}:{_source_digest(enc.modules)}:"
            f"{tuple(sorted(donated))}:{budget!r}:")
    h = hashlib.sha256(head.encode())
    h.update(enc.digest())
    return h.hexdigest()


def load(key):
    """The Program stored under ``key``, or None (a miss, a bad entry: reported)."""
    if key is None:
        return None
    payload = _STORE[0][0](key)
    if payload is None:
        STATS["misses"] += 1
        return None
    from tjit.xla_like.plan import Program
    try:
        program, by_position = pickle.loads(payload)
        if not isinstance(program, Program):
            raise TypeError(f"it holds a {type(program).__name__}, not a Program")
        _rekey(program, by_position)
    except Exception as e:  # noqa: BLE001 (anything a damaged pickle raises)
        STATS["bad_entries"] += 1
        warnings.warn(f"tjit: compiled-program cache entry {key[:16]}... is unusable "
                      f"({type(e).__name__}: {e}); compiling the program again",
                      RuntimeWarning, stacklevel=3)
        return None
    STATS["hits"] += 1
    return program


def store(key, program):
    """Store ``program`` under ``key`` when every step can be written as data and the
    entry is not too big; otherwise count why in ``NOT_STORED``."""
    if key is None:
        return False
    reason = _closure_step(program)
    if reason is not None:
        return _not_stored(reason)
    try:
        payload = dumps((program, _by_position(program)))
    except _NotStorable as e:
        return _not_stored(str(e))
    except (pickle.PicklingError, AttributeError, TypeError, RecursionError) as e:
        return _not_stored(f"does not pickle ({type(e).__name__})")
    if len(payload) > MAX_ENTRY_BYTES:
        return _not_stored("entry too big")
    stored = _STORE[0][1](key, payload)
    STATS["stored"] += bool(stored)
    return stored


def _not_stored(reason):
    STATS["not_stored"] += 1
    NOT_STORED[reason] += 1
    return False


def _closure_step(program):
    """Why a library step of ``program`` cannot be written as data (its function is a
    closure without a recipe), or None."""
    for p in _programs(program):
        for s in p.steps:
            fn = getattr(s, "fn", None)
            if (isinstance(fn, types.FunctionType) and getattr(fn, "recipe", None) is None
                    and "<" in fn.__qualname__):
                return f"library step {s.name} holds a closure"
    return None


class _NotStorable(Exception):
    """Something in the compiled program that cannot be written as data."""


def dumps(obj):
    """``obj`` pickled with library-step functions written as their recipes and
    primitives by reference (see the module docstring); raises ``_NotStorable``."""
    buf = io.BytesIO()
    _ProgramPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


class _ProgramPickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Primitive):
            return _primitive_named, _primitive_ref(obj)
        if isinstance(obj, types.FunctionType):
            recipe = getattr(obj, "recipe", None)
            if recipe is not None:
                factory, args = recipe
                if "<" in factory.__qualname__:
                    raise _NotStorable(f"library function factory {factory.__qualname__} "
                                       "is not a module-level function")
                return rebuildable, (factory, *args)
            if "<" in obj.__qualname__:       # a closure or lambda: pickle cannot name it
                raise _NotStorable(f"closure {obj.__qualname__.split('.<locals>')[0]}")
        return NotImplemented


_PRIMITIVE_REFS = {}    # Primitive -> (module name, attribute) where tjit defines it


def _primitive_ref(p):
    ref = _PRIMITIVE_REFS.get(p)
    if ref is None:
        ref = _PRIMITIVE_REFS[p] = _own_name_ref(p) or _scanned_ref(p)
    return ref


def _own_name_ref(p):
    """Where ``p`` is its own ``name_p``, or None: one dict lookup per tjit module (no
    module ``__getattr__`` runs) instead of a scan of all their attributes (~2 ms of
    CPU, paid by a process's first stored program while its helpers compile)."""
    attr = f"{p.name}_p"
    for name, mod in list(sys.modules.items()):
        if mod is not None and _tjit_module(name) and vars(mod).get(attr) is p:
            return name, attr
    return None


def _scanned_ref(p):
    """``(module, attribute)`` of ``p`` from a scan of every tjit module's attributes
    (a primitive whose variable is not named after it), recording every primitive it
    passes; raises ``_NotStorable``."""
    for name, mod in list(sys.modules.items()):
        if mod is not None and _tjit_module(name):
            for attr, v in list(vars(mod).items()):
                if isinstance(v, Primitive) and (    # (its own ``name_p`` first)
                        v not in _PRIMITIVE_REFS or attr == f"{v.name}_p"):
                    _PRIMITIVE_REFS[v] = (name, attr)
    ref = _PRIMITIVE_REFS.get(p)
    if ref is None:
        raise _NotStorable(f"primitive {p.name} is not a module attribute of tjit")
    return ref


def _primitive_named(module, attr):
    """The primitive ``module.attr`` (unpickling a reference written by ``_primitive_ref``)."""
    p = getattr(importlib.import_module(module), attr)
    if not isinstance(p, Primitive):
        raise TypeError(f"{module}.{attr} is a {type(p).__name__}, not a primitive")
    return p


#: Program attributes keyed by ``id(step)``: stored keyed by the step's position (the
#: ids of unpickled steps differ) and keyed by the new steps' ids again on loading.
_KEYED_BY_STEP = ("loop_donations",)


def _programs(program):
    return [program] + list(program.sub_programs())


def _by_position(program):
    out = []
    for p in _programs(program):
        at = {id(s): n for n, s in enumerate(p.steps)}
        out.append({name: {at[k]: v for k, v in getattr(p, name).items()}
                    for name in _KEYED_BY_STEP})
    return out


def _rekey(program, by_position):
    programs = _programs(program)
    if len(programs) != len(by_position):
        raise ValueError("the entry's step tables do not match its programs")
    for p, tables in zip(programs, by_position):
        for name in _KEYED_BY_STEP:
            setattr(p, name, {id(p.steps[n]): v for n, v in tables[name].items()})


# ----------------------------------------------------------------------------------------
# What the key is made of.

def _versions():
    v = sys.version_info
    from tjit import __version__
    return f"tjit{__version__}:py{v.major}.{v.minor}:np{np.__version__}:sympy{_sympy.version()}"


def _source_digest(modules):
    """Digest of the compiler's sources and of ``modules``' files (see the docstring)."""
    key = frozenset(modules)
    d = _DIGESTS.get(key)
    if d is None:
        files = sorted({sys.modules[m].__file__ for m in modules
                        if getattr(sys.modules.get(m), "__file__", None)})
        base = "".join(files_digest(os.path.join(_PKG, sub)) for sub in _COMPILER_DIRS)
        d = _DIGESTS[key] = hashlib.sha256((base + _stat_lines(files)).encode()).hexdigest()
    return d[:32]


def files_digest(folder):
    """sha256 over the relative path, size and modification time of every ``.py`` file
    under ``folder`` (computed once a process: ~5 us a file): an edited or reinstalled
    source changes it."""
    d = _DIGESTS.get(folder)
    if d is None:
        paths = []
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
        d = _DIGESTS[folder] = hashlib.sha256(_stat_lines(paths).encode()).hexdigest()
    return d


def _stat_lines(paths):
    lines = []
    for p in paths:
        try:
            st = os.stat(p)
            lines.append(f"{p[len(_PKG):]}:{st.st_size}:{st.st_mtime_ns}\n")
        except OSError:
            lines.append(f"{p}:missing\n")
    return "".join(lines)


# The compiler's sources as this process loaded them (taken with tjit's import, not at
# the first compile): files edited or upgraded while the process runs must not lend
# their key to programs compiled by the code it loaded, which a new process would read.
for _sub in _COMPILER_DIRS:
    files_digest(os.path.join(_PKG, _sub))


def _tjit_module(name):
    return name == "tjit" or name.startswith("tjit.")


class _Encoder:
    """Writes a program as a sequence of tokens: equal tokens, equal programs."""

    def __init__(self):
        self.h = hashlib.sha256()
        self.parts = []
        self.vars = {}
        self.modules = set()      # modules defining the program's primitives' rules
        self.const_bytes = 0
        self.put = self.parts.append
        self.avals = {}           # aval -> its tokens (a program repeats a few avals)
        self.prims = {}           # primitive -> its token, once checked

    def digest(self):
        self.h.update("\x1f".join(self.parts).encode())
        return self.h.digest()

    # -- jaxprs -----------------------------------------------------------------------
    def closed(self, c):
        self.put("closed")
        for x in c.consts:
            self.array(np.asarray(getattr(x, "_value", x)))
        self.jaxpr(c.jaxpr)

    def jaxpr(self, j):
        self.put(f"jaxpr:{len(j.constvars)}:{len(j.invars)}:{len(j.eqns)}")
        for v in list(j.constvars) + list(j.invars):
            self.var(v)
        for e in j.eqns:
            self.primitive(e.primitive)
            self.put(f"in{len(e.invars)}")
            for v in e.invars:
                self.atom(v)
            self.put(f"out{len(e.outvars)}")
            for v in e.outvars:
                self.var(v)
            body = CALL_JAXPR_PARAM.get(e.primitive)
            # (a call the compiler inlines: only its body matters, not its jvp/bwd rules)
            self.params(e.params if body is None else {body: e.params[body]})
        self.put(f"outs{len(j.outvars)}")
        for v in j.outvars:
            self.atom(v)

    def var(self, v):
        if isinstance(v, DropVar):
            self.put("_")
            self.aval(v.aval)
            return
        n = self.vars.get(v)
        if n is None:
            n = self.vars[v] = len(self.vars)
            self.put(f"v{n}")
            self.aval(v.aval)
        else:
            self.put(f"v{n}")

    def atom(self, v):
        if isinstance(v, Literal):
            self.put("lit")
            self.value(v.val)
            self.aval(v.aval)
        elif isinstance(v, Var):
            self.var(v)
        else:
            raise _NotKeyable(type(v).__name__)

    def aval(self, a):
        t = self.avals.get(a)
        if t is None:
            t = self.avals[a] = f"{dtypes.key(a.dtype)}:{int(a.weak_type)}:" + ",".join(
                str(d) if type(d) is int else self.dim(d) for d in a.shape)
        self.put(t)

    def dim(self, d):
        if isinstance(d, (int, np.integer)):
            return str(int(d))
        if not isinstance(d, sympy.Basic):
            raise _NotKeyable(f"dim {d!r}")
        syms = sorted(d.free_symbols, key=lambda s: s.name)
        return f"{sympy.srepr(d)}|" + ";".join(
            f"{type(s).__module__}.{type(s).__qualname__}:{s.name}:"
            f"{sorted(s.assumptions0.items())}" for s in syms)

    def primitive(self, p):
        t = self.prims.get(p)
        if t is not None:
            self.put(t)
            return
        for rule in (p.lowering, p.impl):
            mod = getattr(rule, "__module__", None)
            if rule is not None and (mod is None or not _tjit_module(mod)):
                raise _NotKeyable(f"primitive {p.name} has rules outside tjit")
            if mod is not None:
                self.modules.add(mod)
        t = self.prims[p] = f"p:{p.name}"
        self.put(t)

    def params(self, params):
        self.put(f"params{len(params)}")
        for k in sorted(params):
            self.put(str(k))
            self.value(params[k])

    # -- parameter values ---------------------------------------------------------------
    def array(self, a):
        if a.dtype.hasobject:
            raise _NotKeyable("object array")
        self.const_bytes += a.nbytes
        if self.const_bytes > MAX_CONST_BYTES:
            raise _NotKeyable("constants too big")
        a = np.ascontiguousarray(a)
        self.put(f"arr:{dtypes.key(a.dtype)}:{a.shape}:" +
                 hashlib.sha256(a.view(np.uint8).reshape(-1) if a.size else b"").hexdigest())

    def value(self, v):
        t = type(v)
        if v is None or t in (bool, int, float, complex, str, bytes):
            self.put(f"{t.__name__}:{v!r}")
        elif isinstance(v, (np.ndarray, np.generic)):
            self.array(np.asarray(v))
        elif isinstance(v, np.dtype):
            self.put(f"dtype:{dtypes.key(v)}")   # (v.str is '|V1' for every float8)
        elif isinstance(v, type) and issubclass(v, np.generic):
            self.put(f"dtype:{dtypes.key(v)}")
        elif isinstance(v, (Jaxpr, ClosedJaxpr)):
            self.closed(v) if isinstance(v, ClosedJaxpr) else self.jaxpr(v)
        elif _sympy.loaded() and isinstance(v, sympy.Basic):
            self.put("sym:" + self.dim(v))
        elif isinstance(v, Primitive):
            self.primitive(v)
        elif isinstance(v, enum.Enum):
            self.put(f"enum:{self.type_name(t)}.{v.name}")
        elif isinstance(v, slice):
            self.put("slice")
            for x in (v.start, v.stop, v.step):
                self.value(x)
        elif isinstance(v, (tuple, list, frozenset, set)):
            items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else v
            self.put(f"{self.type_name(t)}:{len(items)}")
            if hasattr(v, "_fields"):           # a namedtuple: its field names too
                self.put(",".join(v._fields))
            for x in items:
                self.value(x)
        elif isinstance(v, (dict, types.MappingProxyType)):
            self.put(f"{self.type_name(t)}:{len(v)}")
            for k in sorted(v, key=repr):
                self.value(k)
                self.value(v[k])
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            self.put(f"dc:{self.type_name(t)}")
            for f in dataclasses.fields(v):
                self.put(f.name)
                self.value(getattr(v, f.name))
        elif isinstance(v, (types.FunctionType, types.BuiltinFunctionType, type)):
            self.put(f"fn:{self.function_name(v)}")
        elif hasattr(v, "_value") and hasattr(v, "aval"):     # a tjit Array
            self.array(np.asarray(v._value))
        else:
            raise _NotKeyable(f"parameter of type {t.__qualname__}")

    def type_name(self, t):
        mod = t.__module__
        if mod != "builtins" and not _tjit_module(mod):
            raise _NotKeyable(f"parameter of type {mod}.{t.__qualname__}")
        return f"{mod}.{t.__qualname__}"

    @staticmethod
    def function_name(f):
        """A module-level function of tjit, NumPy or the builtins, by name; anything
        else (closures, lambdas, user code) cannot be named across processes."""
        mod = getattr(f, "__module__", None) or ""
        qual = getattr(f, "__qualname__", "")
        if "<" in qual or not qual or not (
                _tjit_module(mod) or mod in ("builtins", "math", "operator") or
                mod == "numpy" or mod.startswith("numpy.")):
            raise _NotKeyable(f"function {mod}.{qual}")
        return f"{mod}.{qual}"
