"""User-facing entry points: ``jit``, ``make_jaxpr``, ``eval_shape``.

``jit(f)`` traces ``f`` once per input signature (pytree structure, abstract values,
static arguments, x64 mode), simplifies the jaxpr, and hands it to a backend that
returns an :class:`~tjit.devices.executable.Executable`; later calls with the same
signature go straight to the executable. Under another transformation (or an enclosing
trace) a jitted function's jaxpr, traced once per signature with its dead code dropped,
is evaluated by that transformation (``transforms/inline_call.py``); a call of
``grad``/``vmap``/``jvp``/... of ``jit(f)`` runs the jit of that transformation: compiled
once per signature when eager, its traced jaxpr evaluated under a trace
(``transforms/jit_of_transform.py``).

Shapes: a call whose shapes differ from an earlier call's only in some dims is served
by a program with those dims symbolic, traced and compiled once (automatic dynamic
shapes, ``dynamic_shapes.py``; a *family* is the calls that agree on everything but the
sizes). Every trace and compile is logged with its cause (``compile_log.py``).

Threads: the first calls of one signature made at once trace and compile it once (the
others wait for that compile and share its result or its error); different signatures
trace and compile at the same time. ``clear_caches()`` drops every compiled signature
and the kernels no live program uses (they are freed); the options that pick arguments
(``static_argnums``, ...) are checked when ``jit`` is applied (``tracing/argnums.py``).

Donation (``donate_argnums``/``donate_argnames``, JAX semantics): every leaf of a
donated argument may have its buffer reused for an output of the same shape and dtype.
The backend decides which (``Executable.donation()``) when it compiles; donated
arguments it cannot use are named in a "Some donated buffers were not usable" warning.
After a call, each donated tjit Array the program uses is deleted (``is_deleted()``;
any later use raises). A buffer is only written when nothing else can observe it: the
leaf is a tjit Array that solely owns a writeable, C-contiguous NumPy buffer (no views
of it, no second Array on it, no array handed out by ``np.asarray``). NumPy inputs are
never written (warning). The interpreter backend ignores donation (warning), as JAX
did on backends without donation support, and deletes nothing.
"""

import collections
import contextlib
import functools
import inspect
import operator
import os
import sys
import threading
import warnings
import weakref

import numpy as np

from tjit import compile_log
from tjit._sympy import is_expr
from tjit import dynamic_shapes as _dyn
from tjit.config import config
from tjit import jit_debug as _jit_debug
from tjit import key_reuse as _key_reuse
# The default backend (and llvmlite) loads with tjit, as JAX loads XLA at import: a new
# process's first jitted call then costs tracing plus a disk-cache lookup, not ~50 ms of
# importing the compiler.
from tjit.devices import cpu as _default_backend  # noqa: F401
from tjit.devices import backend as _backends
from tjit.devices.backend import compile_jaxpr
from tjit.devices import kernel_cache
from tjit.devices.visualize import ProgramView
from tjit.tracing.traceback_util import api_boundary
from tjit.tracing import argnums as _argnums
from tjit.tracing.axis_env import extend_axis_env
from tjit.tracing import transfer_guard as _transfer_guard
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import (
    Array, Tracer, current_trace, is_device_value, is_eager, to_host)
from tjit.tracing.core import _DEVICE_ARRAYS   # (empty until a device backend is used)
from tjit.tracing.errors import (
    ConcretizationTypeError, InconclusiveDimensionError, traced_static_error)
from tjit.tracing.basearray import refusal_hint
from tjit.tracing.extended_dtypes import ExtendedArray, ExtendedDType
from tjit.tracing.jaxpr import eqn_texts
from tjit.tracing.jaxpr_trace import trace_to_jaxpr
from tjit.tracing.refs import Ref, RefNotThreaded
from tjit.tracing.shapes import check_spec, parse_spec, shape_str, symbol
from tjit.tracing.target_platform import set_default_platform, tracing_for
from tjit.tracing.size_questions import SpecializeSizes
from tjit.tracing.static_keys import KEYED_AS_IS, static_key, typed_key
from tjit.tracing.tree_matchers import flattener, unflattener
from tjit.tracing.tree_util import tree_flatten, tree_map, tree_unflatten
from tjit.transforms import loop_remat, passes
from tjit.transforms import inline_call as _inline_call
from tjit.transforms.float0 import hide_float0
from tjit.state import jit_refs as _jit_refs
from tjit.xla_like import remat as _remat
from tjit.xla_like.compile import gc_paused

_SCALAR_TYPES = (bool, int, float, complex)
# a trace outside jit (eager, make_jaxpr) is for the default backend (lax.platform_dependent)
set_default_platform(_backends.default_backend)


#: The default ``memory_budget`` of every new ``jit`` (bytes, "2GB", "512MiB", ...).
MEMORY_BUDGET_ENV = "TJIT_MEMORY_BUDGET"


def _is_float0_dtype(dtype):
    return isinstance(dtype, np.dtype) and dtype == dtypes.float0


def _shape_structs(out_tree, avals, weak=False):
    """ShapeDtypeStructs for a traced program's outputs (its float0 ones included, which
    its out_tree holds, as JAX's eval_shape gives them); ``weak``: with the outputs' weak
    types, as JAX's eval_shape and make_jaxpr(return_shape=True) (a lowered program's
    out_info has none, as JAX's)."""
    out = tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak and a.weak_type)
                                    for a in avals])
    # float0 leaves and key arrays (over their data's structs) as structs of their dtype
    return tree_map(lambda x: ShapeDtypeStruct(x.shape, x.dtype)
                    if dtypes.is_float0(x) or isinstance(x, ExtendedArray) else x,
                    out, is_leaf=lambda x: isinstance(x, ExtendedArray))


class ShapeDtypeStruct:
    """A shape and dtype standing for an array (for make_jaxpr / eval_shape / lower)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, weak_type=False, *, sharding=None):
        # sharding: JAX's (a Sharding or a PartitionSpec, kept for the caller: lower and
        # eval_shape trace by shape and dtype)
        self.sharding = sharding
        self.shape = tuple(shape)
        if isinstance(dtype, ExtendedDType):   # a key dtype (key<fry>), as JAX
            self.dtype = dtype
        else:
            self.dtype = dtypes.float0 if _is_float0_dtype(dtype) else \
                dtypes.canonicalize(dtypes.check_dtype(dtype))
        self.weak_type = weak_type

    @classmethod
    def like(cls, x):
        """The shape, dtype and weak type of ``x`` (an array, scalar, tracer or
        ShapeDtypeStruct), as ``jax.ShapeDtypeStruct.like``."""
        aval, _ = _leaf_aval_and_value(x, "ShapeDtypeStruct.like")
        return cls(aval.shape, aval.dtype, aval.weak_type)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        name = "float0" if self.dtype == dtypes.float0 else self.dtype.name
        sharding = "" if self.sharding is None else f", sharding={self.sharding!r}"
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={name}{sharding}{weak})"

    def __eq__(self, other):   # (the weak type counts, as JAX's)
        return isinstance(other, ShapeDtypeStruct) and (
            self.shape, self.dtype, self.sharding, bool(self.weak_type)) == (
                other.shape, other.dtype, other.sharding, bool(other.weak_type))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.sharding, bool(self.weak_type)))


def _sharded_structs(out_tree, avals, shardings):
    """ShapeDtypeStructs of a program's outputs, each with its sharding (``shardings``:
    the outputs' pytree of them)."""
    return tree_unflatten(out_tree, [
        ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
        for a, s in zip(avals, tree_flatten(shardings)[0])])


def _leaf_aval_and_value(x, fname):
    """(aval, raw value or None) of one argument leaf."""
    t = type(x)
    if t is Array:
        return ShapedArray(x._value.shape, x._value.dtype, x._weak), x._value
    if t in _SCALAR_TYPES:
        dt = dtypes.dtype_of_python_scalar(x)
        return ShapedArray((), dt, t is not bool), np.asarray(x, dt)
    if isinstance(x, (np.ndarray, np.generic)):
        dt = dtypes.canonicalize(dtypes.check_dtype(x.dtype, fname))
        v = np.asarray(x)
        return ShapedArray(v.shape, dt), (v if v.dtype == dt else v.astype(dt))
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type), None
    if isinstance(x, Tracer):
        return x.aval, None
    if isinstance(x, Array):
        return x.aval, x._value
    if isinstance(x, Ref):   # (a jit call threads it: state/jit_refs.py)
        raise RefNotThreaded(x, None)
    hint = refusal_hint(x) or ("; pass arrays, scalars or pytrees of them, or mark the "
                               "argument static with static_argnums/static_argnames")
    raise TypeError(
        f"{fname}: argument of type {t.__name__} is not a valid array ({x!r:.60}){hint}")


def _leaf_value_and_weak(x, fname):
    aval, value = _leaf_aval_and_value(x, fname)
    if value is None:
        raise TypeError(f"{fname}: argument {x!r:.60} has no value to compute with")
    return value, aval.weak_type


def _same_avals(leaves, avals):
    """The raw values of ``leaves`` when each is a tjit Array of exactly the
    ``(shape, dtype, weak)`` in ``avals``, else None."""
    raw = []
    for x, (shape, dtype, weak) in zip(leaves, avals):
        if type(x) is not Array:
            return None
        v = x._value
        dt = v.dtype
        # (dtypes of one kind are one object: ``is`` first, as == on dtypes is slow)
        if v.shape != shape or (dt is not dtype and dt != dtype) or x._weak != weak:
            return None
        raw.append(v)
    return raw


def _fun_name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def _no_tracing_error(fun, cause):
    """``tjit.no_tracing()``'s error: JAX's message, with why the trace was needed."""
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    where = "" if code is None else f" at {code.co_filename}:{code.co_firstlineno}"
    return RuntimeError(f"re-tracing function {_fun_name(fun)}{where} for `jit`, but "
                        f"'no_tracing' is set (cause: {cause}). A program that must not "
                        f"trace again needs the same shapes, dtypes and static arguments "
                        f"as a call made before the tjit.no_tracing() block")


class _Signature:
    """How a jitted function's arguments split into static and dynamic parts; checks the
    options that pick arguments (see ``tracing/argnums.py``)."""

    def __init__(self, fun, static_argnums, static_argnames, where, fname):
        self.params = _argnums.Params(fun)
        self.pos_names = self.params.pos_names
        self.where, self.fname = where, fname
        self.static_argnums, self.static_argnames = self.option(
            static_argnums, static_argnames, "static")

    def option(self, nums, names, kind):
        """Checked ``(positions, names)`` of the ``<kind>_argnums``/``<kind>_argnames``
        pair, each completed from the other."""
        w, f = self.where, self.fname
        nums = _argnums.normalize_argnums(
            _argnums.as_index_tuple(nums, f"{kind}_argnums", w), self.params,
            f"{kind}_argnums", w, f)
        names = _argnums.as_name_tuple(names, f"{kind}_argnames", w)
        _argnums.check_argnames(names, self.params, f"{kind}_argnames", w, f)
        return self._link(nums, names)

    def _link(self, argnums, argnames):
        """argnums also name their parameters and names their positions, as in JAX."""
        nums, names = set(argnums), set(argnames)
        for n in list(nums):
            if 0 <= n < len(self.pos_names):
                names.add(self.pos_names[n])
        for n in list(names):
            if n in self.pos_names:
                nums.add(self.pos_names.index(n))
        return frozenset(nums), frozenset(names)

    def arg_name(self, i):
        return self.pos_names[i] if i < len(self.pos_names) else f"args[{i}]"


class _Pending:
    """A signature being traced and compiled by one thread; others wait for its result."""

    __slots__ = ("done", "entry", "error")

    def __init__(self):
        self.done = threading.Event()
        self.entry = self.error = None

    def result(self):
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.entry


_ALL_JITTED = weakref.WeakSet()   # for clear_caches()
_ALL_LOCK = threading.Lock()      # (a WeakSet cannot be iterated while another thread adds)


def clear_caches():
    """Clear every jitted function's compiled signatures and the compiled-kernel table,
    as ``jax.clear_caches``. Kernels no live program uses are freed; the next call of a
    jitted function traces and compiles again (the disk cache is kept, so compiling is
    mostly loading). Programs running meanwhile finish unharmed."""
    with _ALL_LOCK:
        jitted = list(_ALL_JITTED)
    for f in jitted:
        f.clear_cache()
    with _SHARED_LOCK:   # (the caches of wrappers already collected, too)
        _SHARED.clear()
    kernel_cache.clear()


# jit(f) applied again to the same function with the same options shares the first
# wrapper's compiled signatures, as JAX's cache keyed by the function does: `jit(f)(x)`
# written inline traces once, not at every call. Keyed weakly by the function, and the
# shared dicts never hold it, so a collected function takes its entries with it.
_SHARED = weakref.WeakKeyDictionary()   # fun -> {options: the shared attributes' values}
_SHARED_LOCK = threading.Lock()
_SHARED_ATTRS = ("_cache", "_fast_cache", "_pending", "_lock", "_families", "_budgeted",
                 "_inline", "_transformed", "_eager_calls")


def _share_caches(jitted, fun, options):
    """Point ``jitted``'s caches at those of the first jit of ``fun`` with ``options``
    (its own stay when ``fun`` or the options cannot be keyed)."""
    mine = tuple(getattr(jitted, a) for a in _SHARED_ATTRS)
    try:
        with _SHARED_LOCK:
            # (with ``fun``'s typed key: two callables equal by ``==`` with fields of
            # other types, Scale(2) and Scale(2.0), trace to different programs; a key
            # that is ``fun`` itself is left out, as it would keep ``fun`` alive)
            fun_key = typed_key(fun)
            fun_key = None if fun_key[1] is fun else fun_key
            first = _SHARED.setdefault(fun, {}).setdefault((fun_key, options), mine)
    except (TypeError, ValueError):  # unhashable, no weak reference, or an odd __eq__
        return
    for name, value in zip(_SHARED_ATTRS, first):
        setattr(jitted, name, value)


def _frozen(x):
    """``x`` with lists made tuples and dicts sorted item tuples (a hashable key)."""
    if isinstance(x, (list, tuple)):
        return tuple(_frozen(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in x.items()))
    return x


# a cache miss is explained against this many signatures compiled last (the closest)
_EXPLAIN_AGAINST = 64


class _CacheEntry:
    __slots__ = ("executable", "out_tree", "out_avals", "closed_jaxpr", "donation",
                 "in_specs", "unflatten", "out_kinds", "peak", "pattern", "layouts")

    def __init__(self, executable, out_tree, out_avals, closed_jaxpr, donation=None,
                 in_specs=None):
        self.executable = executable
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.closed_jaxpr = closed_jaxpr
        self.donation = donation  # a _Donation, or None when nothing is donated
        self.in_specs = in_specs  # per flat input, its symbolic dims (or None)
        self.unflatten = unflattener(out_tree)  # flat outputs -> the output pytree
        self.out_kinds = [(a.dtype, a.weak_type) for a in out_avals]
        self.peak = None    # (a dynamic program's peak bytes per size, see _peak_at)
        self.pattern = None  # (a dynamic program's dims and the guards its trace recorded)
        self.layouts = None  # (the output layout hook's memo: argument layouts -> layout)


class Jitted:
    """A function compiled per input signature. Call it like the original."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(),
                 donate_argnames=(), polymorphic_shapes=None, backend=None, op="jit",
                 device=None, dynamic_shapes=None, memory_budget=None):
        if not callable(fun):
            raise TypeError(f"{op}: expected a callable, got {type(fun).__name__}")
        functools.update_wrapper(self, fun)
        if not hasattr(self, "__name__"):  # e.g. functools.partial objects
            self.__name__ = _fun_name(getattr(fun, "func", fun))
        self.fun = fun
        where = f"{op}({self.__name__})"
        self.sig = _Signature(fun, static_argnums, static_argnames, where, self.__name__)
        self.donate_argnums, self.donate_argnames = self.sig.option(donate_argnums,
                                                                    donate_argnames, "donate")
        both = sorted(self.donate_argnums & self.sig.static_argnums) or \
            sorted(self.donate_argnames & self.sig.static_argnames)
        if both:
            raise ValueError(f"{where}: argument(s) {both} are both static and donated; a "
                             f"static argument is a Python value with no buffer to donate: "
                             f"remove it from donate_argnums/donate_argnames")
        # indices a call must reach (checked per call when *args makes the arity open)
        self._call_argnums = () if self.sig.params.fixed_arity else \
            tuple(sorted(self.sig.static_argnums | self.donate_argnums))
        # (make_jaxpr compiles nothing: it needs no backend, and no usable one)
        self.backend = _backends.resolve(backend, device, where) if op == "jit" else None
        self.device = device
        # with neither given, the default_device/platforms options choose, per call
        self._placed_by_config = op == "jit" and backend is None and device is None
        self._placement_version = -1   # (resolved again at the first call)
        self._where = where
        _check_polymorphic_shapes(polymorphic_shapes, self.sig, where)
        self.polymorphic_shapes = polymorphic_shapes
        # (spec, rank) -> its parsed dims: sympy parses a spec in ~0.3 ms, which every
        # call paid (~10x a small program's own time)
        self._spec_dims = {}
        self._cache = {}
        self._fast_cache = {}  # positional-Arrays-only signatures -> same entries
        # (flattener of the args treedef, per-leaf (shape, dtype, weak), config.version,
        # entry) of the last pytree call of tjit Arrays: the next call with that
        # structure and those avals is checked leaf by leaf, with no treedef built and
        # no key hashed
        self._last = None
        self._pending = {}     # signature key -> _Pending, while one thread compiles it
        self._lock = threading.Lock()
        with _ALL_LOCK:
            _ALL_JITTED.add(self)
        self._has_static = bool(self.sig.static_argnums or self.sig.static_argnames)
        # (from the parsed statics: a bare ``static_argnums=0`` is falsy, yet static)
        self._simple = not self._has_static and polymorphic_shapes is None
        # calls with static arguments have their own fast path (``_static_fast_key``)
        self._static_fast = self._has_static and polymorphic_shapes is None
        self._routable = op == "jit" and self._simple and not (
            self.donate_argnums or self.donate_argnames)
        if dynamic_shapes is None:
            dynamic_shapes = _dyn.enabled_by_default()
        # bytes, or None (xla_like/remat.py): a dynamic program serves the sizes where its
        # plain plan's peak fits (checked per new size), larger ones the same program
        # planned within the budget at their sizes (``_within_budget``)
        self.memory_budget = _memory_budget(memory_budget, polymorphic_shapes, self.backend,
                                            where) if op == "jit" else None
        # automatic dynamic shapes (dynamic_shapes.py); explicit polymorphic_shapes win
        self._dynamic = bool(dynamic_shapes) and polymorphic_shapes is None and op == "jit"
        self._families = {}    # family key (all but the sizes) -> _dyn.Family
        self._route = None     # _dyn.Route of the last dynamic family called, or None
        # id(dynamic entry) -> its programs planned within memory_budget at larger sizes
        self._budgeted = {}
        # signature and trace context -> the function's trace (inline_call.InlineEntry),
        # for calls under a transformation or an enclosing trace
        self._inline = {}
        # (transformation, options) -> the jit of that transformation of ``fun``, which
        # serves its eager calls (``_jit_of_transform``)
        self._transformed = {}
        # (inline key, plan key) -> (the jit of what serves calls under an eager grad or
        # vmap, what the plan needs besides it): ``inline_call.eager_plan``
        self._eager_calls = {}
        self._placement_args = (backend, device)
        self.trace_count = 0
        self.compile_count = 0
        if op == "jit":
            _share_caches(self, fun, (
                frozenset(self.sig.static_argnums), frozenset(self.sig.static_argnames),
                frozenset(self.donate_argnums), frozenset(self.donate_argnames),
                _frozen(polymorphic_shapes), backend, device, self._dynamic,
                self.memory_budget))

    def __get__(self, obj, objtype=None):  # jit on methods
        if obj is None:
            return self
        return functools.partial(self, obj)

    # -- argument handling -------------------------------------------------------------
    def _split(self, args, kwargs):
        if not self._has_static:
            return args, kwargs, ()
        dyn_args, statics = [], []
        for i, a in enumerate(args):
            if i in self.sig.static_argnums:
                statics.append((i, _hashable_static(a, self.sig.arg_name(i), self.__name__)))
            else:
                dyn_args.append(a)
        dyn_kwargs, named = {}, []
        for k, v in kwargs.items():
            if k in self.sig.static_argnames:
                named.append((k, _hashable_static(v, k, self.__name__)))
            else:
                dyn_kwargs[k] = v
        # (by name: f(x, a=1, b=2) and f(x, b=2, a=1) share one program, as in JAX)
        statics.extend(sorted(named, key=operator.itemgetter(0)))
        return tuple(dyn_args), dyn_kwargs, tuple(statics)

    def _rebuild(self, dyn_args, dyn_kwargs, statics):
        if not statics:
            return dyn_args, dyn_kwargs
        args, kwargs = [], dict(dyn_kwargs)
        it = iter(dyn_args)
        static_pos = {k: v for k, v in statics if isinstance(k, int)}
        n = len(dyn_args) + len(static_pos)
        for i in range(n):
            args.append(static_pos[i].value if i in static_pos else next(it))
        for k, v in statics:
            if isinstance(k, str):
                kwargs[k] = v.value
        return tuple(args), kwargs

    def _call_inline(self, args, kwargs):
        """``fun`` on the arguments under the current trace, evaluated from its jaxpr
        traced once per signature and trace context, dead code dropped (as JAX's jit,
        which caches its trace and does not differentiate unused code). The arguments'
        NumPy and Python leaves are made Arrays of jit's types (a float64 ndarray would
        otherwise be computed on in float64, where the compiled call gives float32)."""
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        leaves, tree = tree_flatten((dyn_args, dyn_kwargs))
        if any(dtypes.is_float0(x) for x in leaves):  # no data: into the structure
            return self._call_inline(*hide_float0((args, kwargs)))
        leaves = [x if isinstance(x, (Tracer, Array)) else
                  Array(*_leaf_value_and_weak(x, self.__name__)) for x in leaves]
        sig = None if config.disable_jit else _inline_call.signature(leaves)
        # (as a compiled signature's key, with the trace's context for where it runs)
        key = None if sig is None else (tree, sig, statics, _inline_call.trace_context())
        entry = None if key is None else self._inline.get(key)
        if entry is None:
            if key is None and not _inline_call.differentiates(current_trace()):
                # (symbolic sizes or disable_jit: the function runs as written)
                a, kw = self._rebuild(*tree_unflatten(tree, leaves), statics)
                return self.fun(*a, **kw)
            entry = self._trace_inline(tree, leaves, statics)
            if key is None or not entry.reusable:
                return tree_unflatten(entry.out_tree, entry(leaves))
            self._inline[key] = entry
        trace = current_trace()
        plan = _inline_call.eager_plan(trace, leaves)
        outs = entry(leaves) if plan is None else \
            self._call_planned(key, entry, plan, trace, leaves)
        return tree_unflatten(entry.out_tree, outs)

    def _call_planned(self, key, entry, plan, trace, leaves):
        """``entry``'s outputs under an eager grad or vmap (``inline_call.eager_plan``),
        from a program compiled once per signature and plan."""
        hit = self._eager_calls.get((key, plan.key))
        if hit is None:
            backend, device = self._placement_args

            def compile(fn):
                return Jitted(fn, backend=backend, device=device, dynamic_shapes=False)
            fun, state = plan.build(entry, self.__name__, compile)
            hit = self._eager_calls.setdefault((key, plan.key), (compile(fun), state))
        return plan.run(*hit, trace, leaves)

    def _trace_inline(self, tree, leaves, statics):
        if config.no_tracing:
            raise _no_tracing_error(self.fun, "new signature under a transformation")
        store = {}

        def flat_fun(*xs):
            a, kw = self._rebuild(*tree_unflatten(tree, xs), statics)
            outs, store["tree"] = tree_flatten(hide_float0(self.fun(*a, **kw)))
            return outs
        return _inline_call.trace_without_dead_code(flat_fun, leaves, self.__name__, store)

    def _jit_of_transform(self, key, make):
        """The jitted ``make(fun)`` (``key``: the transformation and its options), which
        serves a call of that transformation of this jitted function: traced, transformed
        and compiled once per signature for an eager call, traced and transformed once
        per signature and trace context under a trace (``transforms/jit_of_transform.py``).
        None where the call should run the transformation itself: with disable_jit or the
        float checks on, or with options that pick arguments (static, donated,
        polymorphic), which the transformation's own arguments do not keep."""
        if not self._routable or config.disable_jit or config.checks_floats:
            return None
        try:
            hit = self._transformed.get(key)
        except TypeError:   # (unhashable options: a dict in in_axes, ...)
            return None
        if hit is None:
            # the transformation calls jit(f) as a transformation under a trace does (the
            # trace cached, dead code dropped), sharing this function's cached traces
            fun = _held_weakly(self.fun)
            inner = Jitted(fun, op="inline")
            inner._inline = self._inline
            backend, device = self._placement_args
            hit = self._transformed.setdefault(key, (Jitted(
                make(inner), backend=backend, device=device,
                dynamic_shapes=self._dynamic, memory_budget=self.memory_budget), fun))
        if type(hit[1]) is _WeakFunction:
            hit[1].hold(self.fun)
        return hit[0]

    def _follow_config_placement(self):
        """Re-resolve the backend after ``default_device``/``platforms`` changed (both
        bump config.version, which every compiled program's key holds)."""
        if self._placed_by_config and self._placement_version != config.version:
            self._placement_version = config.version
            device = _backends.configured_device()
            self.backend = _backends.resolve(None, device, self._where)
            self.device = device

    # -- calling ---------------------------------------------------------------------------
    @api_boundary
    def __call__(self, *args, **kwargs):
        if not is_eager():  # nested under a transformation: inline, on arrays as compiled
            try:
                return self._call_inline(args, kwargs)
            except RefNotThreaded:  # takes or closes over refs: run as written (refs.py)
                return self.fun(*args, **kwargs)
        if config.jit_hooks:   # disable_jit, debug_nans, debug_infs
            return _jit_debug.call(self, args, kwargs)
        if not kwargs and self._simple:  # fast path: positional tjit Arrays only
            sig = []
            for x in args:
                if type(x) is not Array:
                    break
                v = x._value
                sig.append((v.shape, v.dtype, x._weak))
            else:
                entry = self._fast_cache.get((tuple(sig), config.version))
                if entry is not None:
                    v = None  # (drop the reference: donation checks who holds a buffer)
                    return self._run(entry, [x._value for x in args], args)
            last, route, leaves = self._last, self._route, None
            if last is not None and last[2] == config.version:
                leaves = last[0](args)
                if leaves is not None:
                    raw = _same_avals(leaves, last[1])
                    if raw is not None:
                        return self._run(last[3], raw, leaves)
            # a size not cached of a dynamic family: straight to its programs
            if route is not None and route.version == config.version:
                if leaves is None or last[0] is not route.flat:
                    leaves = route.flat(args)
                hit = route.match(leaves, Array) if leaves is not None else None
                if hit is not None:
                    return self._run_new_size(route, hit, args)
        elif self._static_fast:  # fast path: static arguments and positional tjit Arrays
            key, dyn, raw = self._static_fast_key(args, kwargs)
            entry = self._fast_cache.get(key) if key is not None else None
            if entry is None:   # (pytrees of Arrays: the last such call's structure)
                entry, dyn, raw = self._static_as_last(args, kwargs)
            if entry is not None:
                return self._run(entry, raw, dyn)
        v = None  # (drop the fast path's reference: donation checks who holds a buffer)
        if "_ref_jit" in self.__dict__:   # takes or closes over refs: state/jit_refs.py
            return _jit_refs.call(self, args, kwargs)
        try:
            return self._call_compiled(args, kwargs)
        except RefNotThreaded:
            return _jit_refs.call(self, args, kwargs)

    def _call_compiled(self, args, kwargs):
        """The general call path: key the arguments, compile if new, run."""
        self._follow_config_placement()
        if self._call_argnums and self._call_argnums[-1] >= len(args):
            self._check_call_arity(args)
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        if dyn_kwargs:
            leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        else:  # cheaper key; the full (args, kwargs) structure is rebuilt when tracing
            leaves, treedef = tree_flatten(dyn_args)
        sig, raw = [], []
        for x in leaves:
            if type(x) is Array:
                v = x._value
                sig.append((v.shape, v.dtype, x._weak))
                raw.append(v)
            else:
                if dtypes.is_float0(x):  # it holds no data: its shape joins the structure
                    return self._call_compiled(*hide_float0((args, kwargs)))
                aval, v = _leaf_aval_and_value(x, f"jit({self.__name__})")
                if v is None:
                    raise TypeError(f"jit({self.__name__}): cannot call with abstract value "
                                    f"{x!r}; use .lower(...) or make_jaxpr")
                sig.append((aval.shape, aval.dtype, aval.weak_type))
                raw.append(v)
        v = None  # (drop the reference: donation checks who holds a buffer)
        if self.polymorphic_shapes is not None:
            full = treedef if dyn_kwargs else tree_flatten((dyn_args, {}))[1]
            sig = self._polymorphic_sig(full, sig)
        key = self._key(treedef, tuple(sig), statics)
        entry = self._cache.get(key)
        if entry is None:
            how = (dyn_args, dyn_kwargs, statics, treedef, sig)
            entry = self._compile_dynamic(key, *how) if self._dynamic else \
                self._compile_once(key, *how)
        if self._simple and not dyn_kwargs and all(type(x) is Array for x in leaves) \
                and len(leaves) == len(dyn_args) and key in self._cache:
            # (not every size a dynamic program serves is kept: MAX_CACHED_SIZES)
            self._fast_cache[(tuple(sig), config.version)] = entry
        elif self._simple and not dyn_kwargs and key in self._cache and \
                all(type(x) is Array for x in leaves):
            last = self._last
            # (one generated flattener per structure, not per size: compiling it is ~30 us)
            flat = last[0] if last is not None and last[4] == treedef else \
                flattener(treedef)
            self._last = (flat, tuple(sig), config.version, entry, treedef)
        elif self._static_fast and not dyn_kwargs and key in self._cache and \
                all(type(x) is Array for x in leaves):
            if len(leaves) == len(dyn_args):
                self._fast_cache[self._static_fast_key_of(args, kwargs, statics, sig)] = entry
            else:
                last = self._last
                flat = last[0] if last is not None and last[4] == treedef else \
                    flattener(treedef)
                self._last = (flat, tuple(sig), config.version, entry, treedef,
                              self._static_last_keys(args, kwargs, statics))
        return self._run(entry, raw, leaves)

    def _static_fast_key(self, args, kwargs):
        """``(key, the dynamic Arrays, their buffers)`` of a call with static arguments
        whose other arguments are positional tjit Arrays, for ``_fast_cache``: per
        positional argument its static key (``static_keys.static_key``: typed, remembered
        for an unchangeable value) or its ``(shape, dtype, weak)``, then the keyword
        statics' ``(name, key)`` pairs in call order, then ``config.version``. The key is
        None for other calls (an array of another type, a dynamic keyword, an unhashable
        static), which the general path serves or explains."""
        statics, sig, dyn, raw = self.sig.static_argnums, [], [], []
        for i, x in enumerate(args):
            if i in statics:
                t = type(x)
                if t in KEYED_AS_IS:   # (static_key's key for these, without a call)
                    sig.append((t, x))
                    continue
                try:
                    sig.append(static_key(x)[0])
                except TypeError:
                    return None, None, None
            elif type(x) is Array:
                v = x._value
                sig.append((v.shape, v.dtype, x._weak))
                dyn.append(x)
                raw.append(v)
            else:
                return None, None, None
        named = []
        if kwargs:
            names = self.sig.static_argnames
            for k, v in kwargs.items():
                t = type(v)
                if k not in names:
                    return None, None, None
                if t in KEYED_AS_IS:
                    named.append((k, (t, v)))
                    continue
                try:
                    named.append((k, static_key(v)[0]))
                except TypeError:
                    return None, None, None
        return (tuple(sig), tuple(named), config.version), dyn, raw

    def _static_as_last(self, args, kwargs):
        """``(entry, leaves, buffers)`` of a call with static arguments whose others are
        pytrees of tjit Arrays, when its statics (keyed as ``_static_last_keys``), its
        argument structure and avals are those of the last such call (``self._last``);
        else Nones."""
        last = self._last
        if last is None or last[2] != config.version:
            return None, None, None
        statics, keys, dyn = self.sig.static_argnums, [], []
        try:
            for i, a in enumerate(args):
                if i in statics:
                    keys.append((i, static_key(a)[0]))
                else:
                    dyn.append(a)
            if kwargs:
                names = self.sig.static_argnames
                for k, v in kwargs.items():
                    if k not in names:
                        return None, None, None
                    keys.append((k, static_key(v)[0]))
        except TypeError:
            return None, None, None
        if tuple(keys) != last[5]:
            return None, None, None
        leaves = last[0](tuple(dyn))
        raw = None if leaves is None else _same_avals(leaves, last[1])
        return (None, None, None) if raw is None else (last[3], leaves, raw)

    @staticmethod
    def _static_last_keys(args, kwargs, statics):
        """The statics' keys ``_static_as_last`` compares: ``(position, key)`` in order,
        then ``(name, key)`` in call order."""
        keys = {k: s._key for k, s in statics}
        return tuple([(i, keys[i]) for i in range(len(args)) if i in keys]
                     + [(k, keys[k]) for k in kwargs])

    @staticmethod
    def _static_fast_key_of(args, kwargs, statics, sig):
        """The ``_static_fast_key`` of a call the general path compiled (its statics
        split out, every dynamic argument one Array with ``sig``'s entry)."""
        keys = {k: s._key for k, s in statics}
        dyn = iter(sig)
        pos = tuple([keys[i] if i in keys else next(dyn) for i in range(len(args))])
        return pos, tuple([(k, keys[k]) for k in kwargs]), config.version

    def _key(self, treedef, sig, statics):
        """The cache key of a signature: the arguments' structure, per leaf ``(shape,
        dtype, weak)`` (a tuple), the static arguments, the config options programs
        depend on, and where it runs."""
        return (treedef, sig, statics, config.version, self.backend, self.device)

    def _run_new_size(self, route, hit, args):
        """Run the dynamic program ``route`` found, and keep these sizes where the next
        call at them looks first (what the full path would have cached)."""
        entry, leaves, raw, sig = hit
        if len(leaves) == len(args) and all(type(x) is Array for x in args):
            fam = route.family
            if fam.cached_sizes < _dyn.MAX_CACHED_SIZES:
                fam.cached_sizes += 1
                self._fast_cache[(tuple(sig), route.version)] = entry
        else:
            self._last = (route.flat, tuple(sig), route.version, entry, route.treedef)
        return self._run(entry, raw, leaves)

    @staticmethod
    def _run(entry, raw, leaves):
        layout = _OUTPUT_LAYOUT[0]
        if layout is not None:  # (read before the call, which deletes donated arguments)
            layout = layout(leaves, entry, raw)
        if _DEVICE_ARRAYS and not getattr(entry.executable, "device_arrays", False):
            _on_host(raw)     # GPU Arrays given to a host program are copied over
        if entry.donation is None:
            outs = entry.executable.call(raw)
        else:
            outs = entry.donation.call(entry.executable, raw, leaves)
        wrapped = []
        for o, (dtype, weak) in zip(outs, entry.out_kinds):
            t = type(o)     # (a NumPy or device array of the right dtype is taken as it is)
            if (t is not np.ndarray and t not in _DEVICE_ARRAYS) or o.dtype != dtype:
                o = _as_output(o, dtype)
            wrapped.append(Array(o, weak))
        if layout is not None:
            layout(wrapped)
        return entry.unflatten(wrapped)

    def _specs_for_leaves(self, treedef):
        """Per-leaf polymorphic spec strings (None where not polymorphic)."""
        specs = self.polymorphic_shapes
        if isinstance(specs, str):
            specs = (specs,)
        n_dyn = len(treedef.child_defs[0].child_defs)
        dyn_positions = [i for i in range(n_dyn + len(self.sig.static_argnums))
                         if i not in self.sig.static_argnums][:n_dyn]
        out = []
        for pos, sub in zip(dyn_positions, treedef.child_defs[0].child_defs):
            spec = specs[pos] if pos < len(specs) else None
            if isinstance(spec, (list, tuple)) and not isinstance(spec, str):
                leaves_spec, _ = tree_flatten(spec)
                if len(leaves_spec) != sub.num_leaves:
                    raise ValueError(f"jit: polymorphic_shapes[{pos}] has {len(leaves_spec)} "
                                     f"entries but the argument has {sub.num_leaves} leaves")
                out.extend(leaves_spec)
            else:
                out.extend([spec] * sub.num_leaves)
        out.extend([None] * treedef.child_defs[1].num_leaves)
        return out

    def _polymorphic_sig(self, treedef, sig):
        specs = self._specs_for_leaves(treedef)
        new = []
        for spec, (shape, dt, weak) in zip(specs, sig):
            if spec is None:
                new.append((shape, dt, weak, None))
                continue
            dims = self._spec_dims.get((spec, len(shape)))
            if dims is None:
                try:
                    dims = parse_spec(spec, len(shape))
                except ValueError as e:
                    raise ValueError(f"jit({self.__name__}): {e}") from None
                self._spec_dims[spec, len(shape)] = dims
            if len(dims) != len(shape):
                raise ValueError(f"jit({self.__name__}): polymorphic spec {spec!r} has rank "
                                 f"{len(dims)} but the argument has shape {shape}")
            sym = tuple(a if d is None else d for d, a in zip(dims, shape))
            new.append((sym, dt, weak, tuple(dims)))
        return new

    def _check_call_arity(self, args):
        where = f"jit({self.__name__})"
        for kind, nums in (("static", self.sig.static_argnums), ("donate", self.donate_argnums)):
            _argnums.check_call_arity(tuple(sorted(nums)), len(args), f"{kind}_argnums", where,
                                      self.__name__)

    def _compile_once(self, key, *how):  # how: _trace_and_compile's arguments
        """Trace and compile signature ``key`` once: threads that need it meanwhile wait
        for that compile and share its result, or its error. Other signatures are not
        held up (no lock is held while tracing or compiling)."""
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                return entry
            pending = self._pending.get(key)
            first = pending is None
            if first:
                pending = self._pending[key] = _Pending()
        if not first:
            return pending.result()
        try:
            pending.entry = self._trace_and_compile(key, *how)
        except BaseException as e:
            pending.error = e
            raise
        finally:
            with self._lock:
                del self._pending[key]
            pending.done.set()
        return pending.entry

    def _trace_and_compile(self, key, dyn_args, dyn_kwargs, statics, treedef, sig,
                           cause=None, pattern=None):
        """Trace and compile one signature (``pattern``: a dynamic program's symbolic
        dims, whose guards the trace records), logged with ``cause`` (compile_log)."""
        if not dyn_kwargs:  # the key used the args-only structure; tracing needs both
            treedef = tree_flatten((dyn_args, {}))[1]
        in_specs = None
        if self.polymorphic_shapes is not None:
            in_specs = [s[0] if s[3] is not None else None for s in sig]
        elif pattern is not None:
            in_specs, shapes = pattern.in_specs, [s[0] for s in sig]
            sig = [(dims, s[1], s[2]) for dims, s in zip(pattern.dims, sig)]
        if cause is None:
            cause = self._explain_miss(key, dyn_args, dyn_kwargs)
        stats = dict(kernel_cache.STATS)
        with compile_log.recording(self.__name__, cause) as rec:
            rec.what.append("trace")
            if pattern is not None:
                with _dyn.questions_for(pattern, shapes) as asked:
                    closed, out_tree = self._trace(dyn_args, dyn_kwargs, statics, treedef,
                                                   sig)
                pattern.add_guards(asked.guards)
            else:
                closed, out_tree = self._trace(dyn_args, dyn_kwargs, statics, treedef, sig)
            rec.what.append("compile")
            donated = self._donated_leaves(treedef)
            with rec.stage("compile"):
                budget = self.memory_budget if pattern is None else None
                exe, closed = _compile_within(
                    budget, self.__name__, closed, self.backend, in_specs, donated,
                    self.device, self._retracer(dyn_args, dyn_kwargs, statics, treedef, sig))
            self.compile_count += 1
            rec.notes.append(_kernel_note(stats))
        donation = _Donation.setup(exe, donated, closed,
                                   self._leaf_paths(dyn_args, dyn_kwargs),
                                   self.__name__) if donated else None
        entry = _CacheEntry(exe, out_tree, closed.out_avals, closed, donation, in_specs)
        entry.pattern = pattern
        self._cache[key] = entry
        return entry

    def _retracer(self, dyn_args, dyn_kwargs, statics, treedef, sig):
        """A function that traces the signature again with every scan body checkpointed
        (``chunks``: and split into checkpointed chunks), for a memory budget that the
        saved residuals of loops exceed (loop_remat.py)."""
        def retrace(chunks):
            with loop_remat.rematerialized_scan_bodies(chunks):
                return self._trace(dyn_args, dyn_kwargs, statics, treedef, sig)[0]
        return retrace

    # -- automatic dynamic shapes (dynamic_shapes.py) ----------------------------------
    def _family_key(self, key):
        treedef, sig, statics, version, backend, device = key
        leaves = tuple((len(s[0]), s[1], s[2]) for s in sig)
        return (treedef, leaves, statics, version, backend, device)

    def _compile_dynamic(self, key, dyn_args, dyn_kwargs, statics, treedef, sig):
        """The entry for signature ``key`` of a jit with automatic dynamic shapes: its
        family's dynamic program when that serves these sizes, else a new (wider)
        dynamic program, else (sizes 0/1, a failed guard, a fallback family) a program
        for these exact shapes."""
        how = (dyn_args, dyn_kwargs, statics, treedef, sig)
        fkey = self._family_key(key)
        shapes = [s[0] for s in sig]
        entry = None
        with self._lock:
            fam = self._families.get(fkey)
            if fam is None:
                others = list(self._families)
                fam = self._families[fkey] = _dyn.Family(shapes)
            else:
                others = None
                entry = fam.lookup(shapes)
                over = entry and _over_budget(self.memory_budget, entry, shapes)
                if entry is not None and not over:
                    if fam.cached_sizes < _dyn.MAX_CACHED_SIZES:
                        fam.cached_sizes += 1
                        self._cache[key] = entry
                    self._set_route(fam, fkey, dyn_kwargs)
                    return entry
        if entry is not None:   # (its peak at these sizes is over the memory budget)
            return self._within_budget(key, entry, shapes, how, over)
        names = self._leaf_paths(dyn_args, dyn_kwargs)
        if others is not None or shapes == fam.ref:   # the family's first shapes
            cause = _dyn.explain_new_family(fkey, others or [], names, self._static_name)
            try:
                return self._compile_once(key, *how, cause)
            except BaseException:
                with self._lock:    # (a failed first call leaves no family behind)
                    if self._families.get(fkey) is fam and key not in self._cache:
                        del self._families[fkey]
                raise
        if fam.fallback is not None:
            return self._compile_once(key, *how, f"new shape; per-shape specialization "
                                                 f"since {fam.fallback}")
        with self._lock:
            pattern, cause = fam.widen(shapes, names)
        if pattern is None:
            return self._compile_once(key, *how, cause)
        try:
            pattern, entry = self._compile_pattern(fam, fkey, pattern, how, cause, names)
        except SpecializeSizes as e:   # (these sizes only: the family stays dynamic)
            return self._compile_once(key, *how, f"{cause}; these sizes are specialized: {e}")
        except Exception as e:   # noqa: BLE001 (any failure of the symbolic trace)
            return self._fall_back(fam, key, how, e)
        with self._lock:
            fam.publish(pattern, entry)
            served = fam.lookup(shapes) is entry
            over = served and _over_budget(self.memory_budget, entry, shapes)
            if served and not over:
                self._cache[key] = entry
                self._set_route(fam, fkey, dyn_kwargs)
        if not served:  # (its guards hold at the traced sizes; a racing wider one may not)
            return self._compile_once(key, *how, cause)
        if over:
            return self._within_budget(key, entry, shapes, how, f"{cause}; {over}")
        return entry

    def _set_route(self, fam, fkey, dyn_kwargs):
        """Let later calls of ``fam``'s structure at sizes not cached go straight to its
        dynamic programs (``_dyn.Route``), where calls are positional only and no memory
        budget picks programs by size. Under ``self._lock``."""
        route = self._route
        if (route is not None and route.family is fam) or not self._simple or dyn_kwargs \
                or self.memory_budget is not None:
            return
        treedef, kinds, _, version, _, _ = fkey
        flat = route.flat if route is not None and route.treedef == treedef else \
            flattener(treedef)
        self._route = _dyn.Route(fam, flat, treedef, kinds, version)

    def _within_budget(self, key, dynamic, shapes, how, cause):
        """The entry for ``shapes``, over the memory budget in the ``dynamic`` program:
        a program of the same dims planned within the budget (recomputation chosen at the
        sizes that first needed it), which serves every size where its peak fits; else a
        program for these exact shapes."""
        with self._lock:
            served = next((e for e in self._budgeted.get(id(dynamic), ())
                           if not _over_budget(self.memory_budget, e, shapes)), None)
        if served is None:
            served = self._plan_within_budget(dynamic, shapes, how, cause)
        if served is None:
            return self._compile_once(key, *how, f"{cause}: a program for these shapes, "
                                                 f"planned within the budget")
        with self._lock:
            self._cache[key] = served
        return served

    def _plan_within_budget(self, dynamic, shapes, how, cause):
        """``dynamic``'s program planned within the budget at ``shapes`` (a new entry
        kept for the sizes it fits), or None when no plan of it fits there."""
        dyn_args, dyn_kwargs, _, treedef, _ = how
        if not dyn_kwargs:
            treedef = tree_flatten((dyn_args, {}))[1]
        donated = self._donated_leaves(treedef)
        closed, in_specs = dynamic.closed_jaxpr, dynamic.in_specs
        try:
            with compile_log.recording(self.__name__, f"{cause}: the dynamic program planned "
                                                      f"within the budget at these sizes") as rec:
                rec.what.append("compile")
                with rec.stage("compile"):
                    exe, _ = _compile_within(self.memory_budget, self.__name__, closed,
                                             self.backend, in_specs, donated, self.device,
                                             sizes=_size_env(in_specs, shapes))
                self.compile_count += 1
        except _remat.MemoryBudgetError:
            return None     # (the per-shape program, retraced, says how far it gets)
        donation = _Donation.setup(exe, donated, closed,
                                   self._leaf_paths(dyn_args, dyn_kwargs),
                                   self.__name__) if donated else None
        entry = _CacheEntry(exe, dynamic.out_tree, closed.out_avals, closed, donation,
                            in_specs)
        if _over_budget(self.memory_budget, entry, shapes):
            return None
        with self._lock:
            self._budgeted.setdefault(id(dynamic), []).append(entry)
        return entry

    def _compile_pattern(self, fam, fkey, pattern, how, cause, names):
        """(pattern, entry) of the dynamic program for ``pattern``; when the symbolic
        trace cannot decide a shape rule, once more with dims of equal size sharing a
        symbol. Raises what the trace raised when neither works."""
        # A program found in the cache (these dims were dynamic before) comes with the
        # pattern its trace guarded: ``pattern``, derived anew, has no guards yet.
        try:
            entry = self._compile_once((fkey, pattern.program_key()), *how, cause, pattern)
            return entry.pattern or pattern, entry
        except SpecializeSizes:
            raise
        except InconclusiveDimensionError:
            with self._lock:
                merged, cause = fam.widen([s[0] for s in how[4]], names, by_value=True)
            if merged is None or merged.key() == pattern.key():
                raise
        entry = self._compile_once((fkey, merged.program_key()), *how, cause, merged)
        return entry.pattern or merged, entry

    def _fall_back(self, fam, key, how, e):
        """Compile ``key`` for its exact shapes after the symbolic trace failed with
        ``e``; the family specializes per shape from now on (unless this fails too)."""
        reason = _dyn.fallback_reason(e)
        # a concrete trace that fails too is the user's error: raise that one
        entry = self._compile_once(key, *how, f"fell back to per-shape specialization "
                                              f"because {reason}")
        with self._lock:
            fam.fallback = reason
        return entry

    def _explain_miss(self, key, dyn_args, dyn_kwargs):
        """Why signature ``key`` (of a jit without automatic dynamic shapes) missed the
        cache: every difference from the closest of the signatures compiled last."""
        seen = [k for k in list(self._cache) if len(k) == 6 and k is not key]
        if not seen or self.polymorphic_shapes is not None:
            return "first call" if not seen else "new input signature"
        names = self._leaf_paths(dyn_args, dyn_kwargs)
        fkey = self._family_key(key)
        candidates = []
        for old in seen[-_EXPLAIN_AGAINST:]:
            diffs = _dyn.family_differences(fkey, self._family_key(old), names,
                                            self._static_name)
            if key[0] == old[0]:     # (same structure: the leaves line up)
                diffs += [f"new shape for arg {n}: {shape_str(o[0])} → {shape_str(s[0])} "
                          f"(automatic dynamic shapes are off)"
                          for n, s, o in zip(names, key[1], old[1])
                          if s[0] != o[0] and len(s[0]) == len(o[0])]
            candidates.append(diffs)
        return "; ".join(_dyn.closest_differences(candidates)) or "new input signature"

    def _leaf_paths(self, dyn_args, dyn_kwargs):
        n_dyn = len(dyn_args)
        dyn_pos = [i for i in range(n_dyn + len(self.sig.static_argnums))
                   if i not in self.sig.static_argnums][:n_dyn]
        # (flattening order: the positional arguments, then the keywords sorted)
        return _argnums.leaf_names(
            [(self.sig.arg_name(p), a) for p, a in zip(dyn_pos, dyn_args)]
            + [(str(k), dyn_kwargs[k]) for k in sorted(dyn_kwargs)])

    def _static_name(self, k):
        return self.sig.arg_name(k) if isinstance(k, int) else k

    def _dynamic_entry(self, key):
        """The dynamic program that serves signature ``key``, if one was compiled."""
        if not self._dynamic:
            return None
        fam = self._families.get(self._family_key(key))
        entry = None if fam is None else fam.lookup([s[0] for s in key[1]])
        if entry is not None and _over_budget(self.memory_budget, entry, [s[0] for s in key[1]]):
            return None     # (calls of these sizes run a program planned within the budget)
        return entry

    def _donated_leaves(self, treedef):
        """Flat positions of the leaves of donated arguments (``treedef``: the
        structure of ``(dynamic args, dynamic kwargs)``)."""
        if not (self.donate_argnums or self.donate_argnames):
            return ()
        args_def, kwargs_def = treedef.child_defs
        n_static = len(self.sig.static_argnums)
        dyn_pos = [i for i in range(len(args_def.child_defs) + n_static)
                   if i not in self.sig.static_argnums]
        subtrees = [(pos in self.donate_argnums, sub)
                    for pos, sub in zip(dyn_pos, args_def.child_defs)]
        subtrees += [(k in self.donate_argnames, sub)
                     for k, sub in zip(kwargs_def.aux or (), kwargs_def.child_defs)]
        out, n = [], 0
        for donated, sub in subtrees:
            if donated:
                out.extend(range(n, n + sub.num_leaves))
            n += sub.num_leaves
        return tuple(out)

    def _abstract_signature(self, dyn_args, dyn_kwargs, fname):
        """(treedef, per-leaf (shape, dtype, weak[, spec])) for arrays or ShapeDtypeStructs."""
        leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        sig = []
        for x in leaves:
            aval, _ = _leaf_aval_and_value(x, fname)
            sig.append((aval.shape, aval.dtype, aval.weak_type))
        if self.polymorphic_shapes is not None:
            sig = self._polymorphic_sig(treedef, sig)
        return treedef, sig

    def _trace(self, dyn_args, dyn_kwargs, statics, treedef, sig, simplify=True):
        if config.no_tracing:
            rec = compile_log.current()
            raise _no_tracing_error(self.fun, "trace" if rec is None else rec.cause)
        in_avals = [ShapedArray(s[0], s[1], s[2]) for s in sig]
        names = self._leaf_paths(dyn_args, dyn_kwargs)
        out_store = {}

        def flat_fun(*tracers):
            dyn = tree_unflatten(treedef, tracers)
            a, kw = self._rebuild(*dyn, statics)
            out = self.fun(*a, **kw)
            if config.debug_key_reuse:   # (which key arguments it consumed)
                _key_reuse.note_trace(dyn)
            flat, out_store["tree"] = tree_flatten(hide_float0(out))  # (float0: no data)
            return [_dim_output(o) for o in flat]

        # the collector would keep walking the trace's many live objects (gc_paused says
        # how much that costs); what becomes garbage is collected after the block
        with gc_paused():
            with compile_log.stage("trace"), tracing_for(self.backend), \
                    _dyn.questions_for_declared(in_avals, self.__name__):
                # (make_jaxpr's unsimplified jaxpr keeps its dead code: not shared)
                # (debug_key_reuse: each trace runs ``fun``, to see which keys it uses)
                shared = self._shared_trace_key(treedef, sig, statics) \
                    if simplify and not config.debug_key_reuse else None
                known = None if shared is None else self._inline.get(shared)
                if known is not None:   # (the same trace, dead code dropped)
                    closed, out_store["tree"] = known.closed, known.out_tree
                else:
                    self.trace_count += 1
                    closed = trace_to_jaxpr(flat_fun, in_avals, self.__name__, names)
                    entry = _inline_call.InlineEntry(passes.dce(closed), out_store["tree"]) \
                        if shared is not None else None
                    if entry is not None and entry.reusable:
                        self._inline.setdefault(shared, entry)
            if simplify:
                with compile_log.stage("simplify"):
                    closed = passes.simplify(closed)
        return closed, out_store["tree"]

    def _shared_trace_key(self, treedef, sig, statics):
        """The key under which a call of this signature under a transformation, here,
        finds its trace (``_call_inline``), so that compiled and transformed calls trace
        ``fun`` once; None where they cannot share it (symbolic sizes, whose trace
        records guards, or polymorphic_shapes, whose signature has specs)."""
        if self.polymorphic_shapes is not None or \
                any(type(d) is not int for s in sig for d in s[0]):
            return None
        return (treedef, tuple(sig), statics, _inline_call.trace_context())

    # -- inspection ----------------------------------------------------------------------
    @api_boundary
    def lower(self, *args, **kwargs):
        """Trace for these arguments (arrays or ShapeDtypeStructs) without running."""
        self._follow_config_placement()
        args, kwargs = _key_structs_as_data(args, kwargs)
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        treedef, sig = self._abstract_signature(dyn_args, dyn_kwargs,
                                                f"jit({self.__name__}).lower")
        names = self._leaf_paths(dyn_args, dyn_kwargs)
        donated = self._donated_leaves(treedef)
        # a call signature's key uses the args-only structure when there are no kwargs
        key_def = treedef if dyn_kwargs else tree_flatten(dyn_args)[1]
        entry = self._dynamic_entry(self._key(key_def, tuple(sig), statics))
        if entry is not None:   # the program calls of these sizes run (within any budget)
            return _with_arguments(Lowered(
                entry.closed_jaxpr, entry.out_tree, self.backend, entry.in_specs,
                self.__name__, donated, names, None, self.device), dyn_args, dyn_kwargs)
        with compile_log.recording(self.__name__, "lower()") as rec:
            rec.what.append("trace")
            try:
                closed, out_tree = self._trace(dyn_args, dyn_kwargs, statics, treedef, sig)
            except RefNotThreaded:   # closes over refs: the pure program a call would run
                closed, out_tree = _jit_refs.trace(self, args, kwargs)
                return _RefsLowered(closed, out_tree, self.backend, None, self.__name__,
                                    device=self.device)
        in_specs = [s[0] if s[3] is not None else None for s in sig] \
            if self.polymorphic_shapes is not None else None
        lowered = Lowered(closed, out_tree, self.backend, in_specs, self.__name__, donated,
                          names, self.memory_budget, self.device)
        lowered.retrace = self._retracer(dyn_args, dyn_kwargs, statics, treedef, sig)
        return _with_arguments(lowered, dyn_args, dyn_kwargs)

    def trace(self, *args, **kwargs):
        return self.lower(*args, **kwargs)

    def eval_shape(self, *args, **kwargs):
        return eval_shape(self.fun, *args, **kwargs)

    def _cache_size(self):
        """How many programs are compiled (a dynamic one serves many signatures)."""
        return len({id(e) for e in list(self._cache.values())})

    def clear_cache(self):
        """Drop the compiled signatures (calls in flight finish; the next one recompiles)."""
        with self._lock:
            self._cache.clear()
            self._fast_cache.clear()
            self._last = None
            self._route = None
            self._families.clear()
            self._budgeted.clear()
            self._inline.clear()
            self._transformed.clear()
            self._eager_calls.clear()

    def __repr__(self):
        return f"<jitted function {self.__name__}>"


class _WeakFunction:
    """Calls a function held by a weak reference: a transformation of ``jit(f)`` kept
    beside jit's caches (which live as long as ``f``, ``_SHARED``) must not keep ``f``
    alive."""

    def __init__(self, fun):
        self._ref = weakref.ref(fun)
        self.__name__ = _fun_name(getattr(fun, "func", fun))
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        try:   # (argnums errors name the parameters)
            self.__signature__ = inspect.signature(fun)
        except (TypeError, ValueError):
            pass

    def hold(self, fun):
        """Call ``fun`` once the function held is gone (an equal one, whose jit found
        these caches: bound methods of one object compare equal)."""
        if self._ref() is None:
            self._ref = weakref.ref(fun)

    def __call__(self, *args, **kwargs):
        return self._ref()(*args, **kwargs)


def _held_weakly(fun):
    try:
        return _WeakFunction(fun)
    except TypeError:   # (no weak reference: jit's caches are its own, not shared)
        return fun


class _Static:
    """A static argument in a cache key: equal to another only when equal with the same
    types all the way down (``typed_key``: ``(2, 3)`` and ``(2.0, 3)`` trace apart)."""
    __slots__ = ("value", "_key", "_hash")

    def __init__(self, value):
        self.value = value
        self._key, self._hash = static_key(value)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return type(other) is _Static and bool(self._key == other._key)


def _hashable_static(v, name, fname):
    try:
        return _Static(v)
    except TypeError:
        raise ValueError(
            f"jit({fname}): static argument '{name}' must be hashable, got "
            f"{type(v).__name__} {v!r:.60}; pass a tuple instead of a list, or make it a "
            f"dynamic (array) argument") from None


def _check_polymorphic_shapes(specs, sig, where):
    """A spec per positional argument (or one string for the first); each one parses."""
    if specs is None:
        return
    if isinstance(specs, str):
        specs = (specs,)
    if not isinstance(specs, (tuple, list)):
        raise TypeError(f"{where}: polymorphic_shapes must be a spec string such as "
                        f"'(b, 784)' or a sequence of them (None for a non-polymorphic "
                        f"argument), got {type(specs).__name__} {specs!r:.60}")
    n = len(sig.pos_names)
    if sig.params.fixed_arity and len(specs) > n:
        raise ValueError(f"{where}: polymorphic_shapes has {len(specs)} entries but "
                         f"{sig.params.describe(sig.fname)}; give one spec per positional "
                         f"argument")
    for i, spec in enumerate(specs):
        leaves, _ = tree_flatten(spec)
        for leaf in leaves:
            try:
                check_spec(leaf)
            except (TypeError, ValueError) as e:
                why = str(e).removeprefix("polymorphic_shapes: ")
                raise type(e)(f"{where}: polymorphic_shapes[{i}]: {why}") from None


class Lowered:
    """A traced program: ``.as_text()`` prints it, ``.compile()`` builds it."""

    def __init__(self, closed_jaxpr, out_tree, backend, in_specs, name, donated=(),
                 leaf_names=None, memory_budget=None, device=None):
        self.jaxpr = closed_jaxpr
        self.device = device            # (jit(device=): where compile() places it)
        self.out_tree = out_tree
        self.backend = backend
        self.in_specs = in_specs
        self.name = name
        self.donated = tuple(donated)   # flat positions of donated leaves
        self.leaf_names = leaf_names
        self.memory_budget = memory_budget
        self.retrace = None     # (Jitted.lower's: the trace with scan bodies checkpointed)

    def as_text(self):
        return str(self.jaxpr)

    def lower(self, *, lowering_platforms=None, _private_parameters=None):
        """JAX's Traced -> Lowered stage (``jit(f).trace(x).lower()``): tjit's traced
        program is already its lowered one, so this is ``self``."""
        return self

    def _repr_html_(self):
        """Jupyter: the plan this program compiles to, as a picture (compiled once)."""
        if getattr(self, "_compiled", None) is None:
            self._compiled = self.compile()
        return self._compiled._repr_html_()

    @api_boundary
    def compile(self, backend=None):
        """The compiled program, for the jit's backend or (tjit extension) ``backend``
        (e.g. ``"hls"``: the FPGA design in C simulation, with ``hls_report()``)."""
        with compile_log.recording(self.name, "Lowered.compile()") as rec:
            rec.what.append("compile")
            with rec.stage("compile"):
                exe, _ = _compile_within(self.memory_budget, self.name, self.jaxpr,
                                         backend or self.backend, self.in_specs, self.donated,
                                         self.device if backend is None else None,
                                         self.retrace)
        return Compiled(exe, self)

    @property
    def out_info(self):
        """The outputs' ShapeDtypeStructs; with the sharding a call gives them where an
        argument is laid out on a mesh, as JAX's."""
        if any(hasattr(s, "mesh") for s in getattr(self, "arg_layouts", ())):  # (named)
            from tjit._sharded_jit import compiled_shardings
            return _sharded_structs(self.out_tree, self.jaxpr.out_avals,
                                    compiled_shardings(self)[1])
        return _shape_structs(self.out_tree, self.jaxpr.out_avals)

    @property
    def args_info(self):
        """``(args, kwargs)`` of ``tjit.stages.ArgInfo`` (type, donated), as JAX's."""
        from tjit.stages import args_info
        return args_info(self)

    @property
    def donate_argnums(self):
        """The flat indices of the donated argument leaves, as JAX's."""
        return tuple(sorted(self.donated))

    def cost_analysis(self):
        """``Compiled.cost_analysis``'s estimate, read from the traced program."""
        from tjit.cost_analysis import cost_analysis
        return cost_analysis(self.jaxpr)

    @property
    def in_avals(self):
        """The arguments' types ``(args, kwargs)``, as JAX's (an argument laid out on a
        mesh shows its layout: ``float32[8@X]``)."""
        from tjit._eager_layout import typed_aval
        return tree_unflatten(self.in_tree, [
            typed_aval(a, s) if hasattr(s, "mesh") else a   # (a NamedSharding)
            for a, s in zip(self.jaxpr.in_avals, self.arg_layouts)])


def _with_arguments(lowered, dyn_args, dyn_kwargs):
    """``lowered`` with JAX's ``in_tree`` (of the dynamic ``(args, kwargs)``) and each
    argument leaf's layout (``arg_layouts``: a NamedSharding it is committed to or
    carries as a ShapeDtypeStruct, "scalar" for a Python number, else None), which
    ``Compiled.input_shardings``/``output_shardings`` read."""
    leaves, lowered.in_tree = tree_flatten((dyn_args, dyn_kwargs))
    lowered.arg_layouts = [
        "scalar" if type(x) in (bool, int, float, complex) else
        getattr(x, "_sharding", None) if type(x) is Array else
        getattr(x, "sharding", None) if isinstance(x, ShapeDtypeStruct) else None
        for x in leaves]
    return lowered


class _RefsLowered(Lowered):
    """``jit(f).trace()``/``lower()`` of a function that closes over mutable array
    references: its jaxpr is the pure program a call runs (the refs' values are leading
    inputs, their final values extra outputs), printed as JAX's pages print it. A call of
    the jit threads the refs; a program compiled ahead of time could not, so it refuses."""

    @api_boundary
    def compile(self, backend=None):
        raise NotImplementedError(
            f"jit({self.name}).lower(...).compile(): {self.name} closes over mutable array "
            f"references, whose values a compiled program cannot read or update in place. "
            f"Fix: call jit({self.name})(...) directly, which threads the refs.")


class Compiled:
    """A compiled program; call it with arrays of the lowered signature (flattened in
    the same pytree structure)."""

    def __init__(self, executable, lowered):
        self.executable = executable
        self.lowered = lowered
        self._donation = _Donation.setup(
            executable, lowered.donated, lowered.jaxpr, lowered.leaf_names,
            lowered.name) if lowered.donated else None

    @api_boundary
    def __call__(self, *args, **kwargs):
        leaves, _ = tree_flatten((args, kwargs))
        if config.jit_hooks:   # (the AOT path of jit_debug's checks)
            _jit_debug.check_call(f"jit({self.lowered.name})", leaves)
        where = f"compiled {self.lowered.name}"
        raw, avals = [], []
        for x in leaves:   # (no second list of the values: donation counts references)
            aval, value = _leaf_aval_and_value(x, where)
            if value is None and isinstance(x, Tracer):
                raise TypeError(
                    f"{where}: cannot apply transformations (vmap, grad, jit, ...) to a "
                    f"function lowered and compiled for a particular signature; got an "
                    f"argument of {type(x).__name__} type. Transform the function before "
                    f"jit, e.g. jit(vmap(f)).lower(...).compile(), or call jit(f) instead")
            raw.append(value)
            avals.append(aval)
        value = None
        expected = self.lowered.jaxpr.in_avals
        if len(raw) != len(expected):
            raise TypeError(f"{where}: expected {len(expected)} array "
                            f"arguments, got {len(raw)}")
        _check_compiled_signature(where, expected, avals, self.lowered.leaf_names)
        if _DEVICE_ARRAYS and not getattr(self.executable, "device_arrays", False):
            _on_host(raw)
        if self._donation is None:
            outs = self.executable.call(raw)
        else:
            outs = self._donation.call(self.executable, raw, leaves)
        return tree_unflatten(self.lowered.out_tree, [
            Array(_as_output(o, a.dtype), a.weak_type)
            for o, a in zip(outs, self.lowered.jaxpr.out_avals)])

    @property
    def in_tree(self):
        return self.lowered.in_tree

    @property
    def out_tree(self):
        return self.lowered.out_tree

    args_info = property(lambda self: self.lowered.args_info)
    in_avals = property(lambda self: self.lowered.in_avals)
    donate_argnums = property(lambda self: self.lowered.donate_argnums)

    @property
    def out_info(self):
        """The outputs' ShapeDtypeStructs with their shardings, as JAX's."""
        return _sharded_structs(self.lowered.out_tree, self.lowered.jaxpr.out_avals,
                                self.output_shardings)

    @property
    def input_shardings(self):
        """Each argument's sharding, as JAX's: ``(args, kwargs)`` of shardings."""
        from tjit._sharded_jit import compiled_shardings
        return compiled_shardings(self.lowered)[0]

    @property
    def output_shardings(self):
        """Each output's sharding (the outputs' pytree), as JAX's."""
        from tjit._sharded_jit import compiled_shardings
        return compiled_shardings(self.lowered)[1]

    def as_text(self, source=False, llvm=False):
        """The fused program and each kernel's IR; ``source=True`` adds each kernel's
        backend source (LLVM IR on the CPU, CUDA or OpenCL C); ``llvm=`` is its old name."""
        return self.executable.as_text(source=source or llvm)

    def cost_analysis(self):
        """An estimate of the program's cost as JAX's dict: ``flops``,
        ``transcendentals`` and ``bytes accessed``, counted on the traced program (see
        ``tjit.cost_analysis``)."""
        from tjit.cost_analysis import cost_analysis
        return cost_analysis(self.lowered.jaxpr)

    def memory_analysis(self, **sizes):
        """Argument, output and temporary bytes (``sizes``: values for size symbols of a
        polymorphic program, e.g. ``memory_analysis(b=64)``)."""
        own = {s.name: s for s in getattr(self.executable, "symbols", ())}  # (AutoDims too)
        return self.executable.memory_analysis({own.get(k) or symbol(k): v
                                                for k, v in sizes.items()})

    def view(self):
        """tjit extension: the plan as a picture (``devices.visualize.ProgramView``)."""
        return ProgramView(self.executable, self.lowered.name, self.lowered.as_text(),
                           self.lowered.donated, eqn_texts(self.lowered.jaxpr.jaxpr))

    def _repr_html_(self):
        return self.view()._repr_html_()

    def visualize(self, path):
        """tjit extension: write the plan as a standalone HTML page (no network needed:
        inline CSS, SVG and JS) to ``path``; returns ``path``."""
        return self.view().save(path)

    def fusion_summary(self):
        """tjit extension: the plan as data, for tests and tooling: a list of
        ``(kind, name)`` per step, kind in ``"kernel"``, ``"dot"``, ``"library"``."""
        return self.executable.step_summary()

    def kernels(self):
        """tjit extension: the kernel IR objects (``tjit.xla_like.kernel_ir.Kernel``)."""
        return self.executable.kernels()

    def hls_report(self, **kw):
        """tjit extension, for ``backend="hls"``: the FPGA designs' estimate (stages'
        trip counts, II, depth, cycles, DSP/BRAM/LUT/FF; latency and the card's memory
        bound; see ``tjit.fpga.estimate.report`` for the options)."""
        report = getattr(self.executable, "hls_report", None)
        if report is None:
            raise ValueError(f"compiled {self.lowered.name}: hls_report() needs a program "
                             f"compiled for the hls backend (this one is for "
                             f"{self.executable.backend!r}); use "
                             f"jit(f).lower(*args).compile(backend='hls')")
        return report(**kw)


def _dim_output(x):
    """A jitted function's output leaf; a symbolic dim (``return x.shape[0]``, ``5. +
    x.shape[0]``) or a NumPy object array of them becomes an array of its value, as in
    JAX."""
    if is_expr(x) or (type(x) is np.ndarray and x.dtype == object):
        from tjit.numpy import asarray
        return asarray(x)
    return x


def _check_compiled_signature(where, expected, got, names):
    """A compiled program runs only on the shapes and dtypes it was compiled for (as
    JAX's ``Compiled``); anything else would read its buffers wrongly. Symbolic dims
    of a polymorphic program match any size."""
    bad = []
    for i, (e, g) in enumerate(zip(expected, got)):
        dims_ok = len(e.shape) == len(g.shape) and all(
            not isinstance(d, int) or d == h for d, h in zip(e.shape, g.shape))
        if not dims_ok or e.dtype != g.dtype:
            name = names[i] if names and i < len(names) else f"#{i}"
            bad.append(f"Argument '{name}' compiled with {e.str_short()} and called with "
                       f"{g.str_short()}")
    if bad:
        raise TypeError(f"{where}: argument types differ from the types for which this "
                        f"computation was compiled; lower and compile again for the new "
                        f"types, or call jit(f) (which compiles per signature). The "
                        f"mismatches are:\n" + "\n".join(bad))


def _kernel_note(before):
    """Where a compile's kernels came from (``kernel_cache.STATS`` against ``before``;
    approximate while other threads compile)."""
    d = {k: kernel_cache.STATS[k] - before[k] for k in ("compiled", "disk_hits", "memory_hits")}
    if d["disk_hits"] and not d["compiled"]:
        return f"cache hit on disk ({d['disk_hits']} kernels loaded)"
    return (f"kernels: {d['compiled']} compiled, {d['disk_hits']} from disk, "
            f"{d['memory_hits']} in memory")


def _on_host(raw):
    """Replace the device values (CuPy arrays) of the list ``raw`` by host copies, for
    an executable that runs on host memory (as JAX copies arrays to the device a jit
    runs on). In place: a copied list would leave the caller's list holding a second
    reference to every host buffer, which donation reads as "not the sole owner"."""
    for i, v in enumerate(raw):
        if is_device_value(v):
            raw[i] = to_host(v)


def _as_output(o, dtype):
    """An executable's raw output as an Array value of ``dtype``: device arrays (CuPy)
    stay on their device."""
    if is_device_value(o):
        return o if o.dtype == dtype else o.astype(dtype)
    return np.asarray(o, dtype)


def _memory_budget(value, polymorphic_shapes, backend, where):
    """``jit(memory_budget=)`` in bytes, else ``TJIT_MEMORY_BUDGET``'s, else None."""
    if value is None:
        env = os.environ.get(MEMORY_BUDGET_ENV, "").strip()
        # (a polymorphic program has no one peak, the interpreter no buffer plan: the
        # default does not apply to them)
        if not env or polymorphic_shapes is not None or backend == "interpreter":
            return None
        return _remat.parse_budget(env, f"{MEMORY_BUDGET_ENV}={env!r}")
    if polymorphic_shapes is not None:
        raise ValueError(f"{where}: memory_budget needs concrete shapes (the peak of a "
                         f"polymorphic program depends on its sizes); drop "
                         f"polymorphic_shapes or memory_budget")
    if backend == "interpreter":
        raise ValueError(f"{where}: memory_budget needs a backend that plans buffers "
                         f"(cpu, gpu, opencl, hls); the interpreter runs the jaxpr as it "
                         f"is: drop backend='interpreter' or memory_budget")
    return _remat.parse_budget(value, f"{where}: memory_budget")


def _over_budget(budget, entry, shapes):
    """Why the dynamic program ``entry`` may not serve ``shapes`` under the memory
    ``budget`` (its plain plan's peak there exceeds it, or is unknown), else None."""
    if budget is None:
        return None
    peak = _peak_at(entry, _size_env(entry.in_specs, shapes))
    if peak is not None and peak <= budget:
        return None
    peak = "unknown" if peak is None else "unbounded: a while loop's tape" \
        if peak >= _remat.INF else f"{peak} bytes"
    return (f"the dynamic program's peak at these sizes ({peak}) is over memory_budget="
            f"{budget}")


def _size_env(in_specs, shapes):
    """{size symbol: int} of the symbolic dims ``in_specs`` at ``shapes``."""
    return {p: v for spec, shp in zip(in_specs or (), shapes) if spec is not None
            for p, v in zip(spec, shp) if type(p) is not int}


def _peak_at(entry, env):
    """Peak bytes of ``entry``'s program at the sizes ``env`` (None: unknown), from its
    peak compiled into one function of the sizes the first time it is asked."""
    if entry.peak is None:
        program = getattr(entry.executable, "program", None)
        entry.peak = _remat.peak_function(program) if program is not None else False
    if entry.peak is not False:
        symbols, peak = entry.peak
        try:
            return int(peak(*[env[s] for s in symbols]))
        except (KeyError, TypeError, ValueError):
            pass    # (a size it cannot bind: memory_analysis says it, or not)
    stats = entry.executable.memory_analysis(env)
    return None if stats is None else stats.peak_memory_in_bytes


def _compile_within(budget, name, closed, backend, in_specs, donated, device=None,
                    retrace=None, sizes=None):
    """(executable, its closed jaxpr): ``compile_jaxpr`` with the program planned within
    ``budget`` bytes (None: none). When no plan of ``closed`` fits and it has a scan,
    ``retrace(chunks)`` gives the program with its scan bodies checkpointed (each
    iteration's residuals recomputed in the backward loop, loop_remat.py), then also
    split into checkpointed chunks, each planned within the budget in turn. ``sizes``: where a program with size symbols is planned (remat.budget_scope)."""
    if budget is None:
        return compile_jaxpr(closed, backend, in_specs, donated, device), closed
    try:
        with _remat.budget_scope(budget, sizes):
            return compile_jaxpr(closed, backend, in_specs, donated, device), closed
    except _remat.MemoryBudgetError as e:
        error = e
    has_scan = any(e.primitive.name == "scan" for e in closed.jaxpr.eqns)
    for chunks in (False, True) if retrace is not None and has_scan else ():
        remat_closed = retrace(chunks)
        try:
            with _remat.budget_scope(budget):
                exe = compile_jaxpr(remat_closed, backend, in_specs, donated, device)
        except _remat.MemoryBudgetError as e:
            error = min(error, e, key=lambda x: x.smallest_peak)
            continue
        if compile_log.current() is not None:
            compile_log.current().notes.append(
                f"scan bodies recomputed per iteration{' in chunks' if chunks else ''} "
                f"for the memory budget")
        return exe, remat_closed
    counts = collections.Counter(shape_str(a.shape) for a in closed.in_avals)
    shapes = ", ".join(s + (f" x{n}" if n > 1 else "") for s, n in counts.items())
    raise _remat.MemoryBudgetError(f"jit({name}): {error} (input shapes {shapes})",
                                   error.smallest_peak) from None


class _Donation:
    """Donation at run time for one compiled signature: which buffers to hand over,
    which Arrays to delete, the warnings."""

    __slots__ = ("aliased", "delete", "fname", "names")

    def __init__(self, aliased, delete, names, fname):
        self.aliased = aliased    # flat positions the program may write into
        self.delete = delete      # flat positions whose donation is used
        self.names = names
        self.fname = fname

    @classmethod
    def setup(cls, exe, donated, closed, names, fname):
        aliases, usable = exe.donation()
        bad = [i for i in donated if i not in usable]
        if bad:
            avals = closed.in_avals
            what = ", ".join(f"{names[i] if names else i}: ShapedArray("
                             f"{avals[i].dtype.name}{list(avals[i].shape)})" for i in bad)
            why = ("donation is not implemented for the interpreter backend"
                   if exe.backend == "interpreter" else
                   "a donated buffer is reused only for an output of exactly its shape "
                   "and dtype that is computed once the argument is no longer needed")
            warnings.warn(f"jit({fname}): Some donated buffers were not usable: {what} "
                          f"({why}). Drop them from donate_argnums/donate_argnames to "
                          f"silence this warning.", UserWarning, stacklevel=4)
        if not usable:
            return None
        return cls(tuple(sorted(aliases)), tuple(sorted(usable)), names, fname)

    def call(self, exe, raw, leaves):
        given = []
        for i in self.aliased:
            x = leaves[i]
            if type(x) is Array:
                if _sole_owner(x):
                    given.append(i)
            elif isinstance(x, (np.ndarray, np.generic)):
                name = self.names[i] if self.names else i
                warnings.warn(
                    f"jit({self.fname}): Some donated buffers were not usable: {name} is a "
                    f"NumPy array, which tjit never writes into; donate a tjit Array "
                    f"(jnp.asarray(x)) to reuse its buffer.", UserWarning, stacklevel=4)
        run = exe.prepare(raw)  # (argument errors leave every argument intact)
        try:
            outs = run(raw, given)
        except BaseException:
            for i in given:  # the program may have written into them already
                leaves[i].delete()
            raise
        for i in self.delete:
            x = leaves[i]
            if type(x) is Array:
                x.delete()
        return outs


def _buffer_refs(x):
    v = x._value
    return sys.getrefcount(v)


def _calibrate_refs():
    """References to a buffer held by one Array and one argument list, as counted
    by :func:`_buffer_refs` (interpreter versions count borrowed references
    differently, so measure instead of assuming)."""
    x = Array(np.empty(2))
    raw = [x._value]
    n = _buffer_refs(x)
    del raw
    return n


_SOLE_REFS = _calibrate_refs()


def _sole_owner(x):
    """Whether writing into ``x``'s buffer cannot be seen through anything but ``x``:
    it owns a writeable, aligned, C-contiguous NumPy buffer that nothing else
    references (no views, no second Array, no array from ``np.asarray(x)``) beyond
    the call's argument list."""
    v = x._value
    if type(v) is not np.ndarray and is_device_value(v):   # a device buffer (CuPy)
        if v.base is not None or not v.flags.c_contiguous:
            return False
        v = None
        return _buffer_refs(x) <= _SOLE_REFS
    if type(v) is not np.ndarray or v.base is not None:
        return False
    f = v.flags
    if not (f.writeable and f.c_contiguous and f.aligned):
        return False
    v = f = None  # (a flags object references its array too)
    return _buffer_refs(x) <= _SOLE_REFS


class _Unspecified:
    """jit's default ``in_shardings``/``out_shardings``: no layout asked for."""

    def __repr__(self):
        return "UNSPECIFIED"


UNSPECIFIED = _Unspecified()

#: set by tjit._sharded_jit once an Array is committed to a mesh or a mesh is set:
#: ``layout(input leaves, cache entry, their raw values)`` is None or a function that
#: gives the call's output Arrays JAX's ``.sharding``
_OUTPUT_LAYOUT = [None]


def set_output_layout(layout):
    """Install how a jit call lays out its outputs (``tjit/_sharded_jit.py``)."""
    _OUTPUT_LAYOUT[0] = layout


def jit(fun=None, *, in_shardings=UNSPECIFIED, out_shardings=UNSPECIFIED, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None,
        polymorphic_shapes=None, backend=None, device=None, dynamic_shapes=None,
        memory_budget=None, **unsupported):
    """Trace ``fun`` once per input signature and run the traced program.

    Args:
      fun: the function to compile (arrays and pytrees of arrays in and out).
      in_shardings / out_shardings: JAX's: a sharding (``NamedSharding``,
        ``SingleDeviceSharding``), a PartitionSpec (with ``jax.set_mesh``) or None per
        subtree of the positional arguments / the outputs (pytree prefixes). Arguments
        are checked and placed, outputs committed (``y.sharding``); a sharding over
        several devices raises NotImplementedError (``tjit/_sharded_jit.py``).
      static_argnums / static_argnames: arguments that are Python values (hashable);
        a new value re-traces.
      donate_argnums / donate_argnames: arguments whose buffers the program may reuse
        for outputs of the same shape and dtype (every leaf of a pytree argument).
        Donated tjit Arrays that the program uses are deleted by the call; use the
        results instead (see the module docstring).
      polymorphic_shapes: one spec per positional argument, e.g. ``["(b, 784)"]``: the
        function is traced once for every size ``b``.
      backend: a registered backend's name: ``"cpu"`` (fused kernels compiled with
        LLVM, BLAS for dots), ``"gpu"``/``"cuda"`` (NVIDIA GPUs through CuPy) or
        ``"interpreter"`` (the primitives' reference implementations, the test oracle);
        default: ``tjit.default_backend()``. An unknown name raises ValueError naming
        the available ones. Arguments on another device are copied to this one.
      device: a device from ``tjit.devices()``: the program runs there (with
        ``backend``, the device must be one of that backend's).
      dynamic_shapes: tjit extension. True (the default unless ``TJIT_DYNAMIC_SHAPES=0``):
        a call whose shapes differ from an earlier call's only in some dims traces once
        more with those dims symbolic, and later sizes of them run with no trace and no
        compile (sizes 0 and 1 are specialized; see ``tjit/dynamic_shapes.py``). False:
        one trace and compile per input shape, as JAX. Ignored with polymorphic_shapes.
      memory_budget: tjit extension. Bytes (an int, or a string such as ``"2GB"``,
        ``"512MiB"``) that the program's peak memory
        (``memory_analysis().peak_memory_in_bytes``) must not exceed: the compiler
        recomputes forward values in the backward pass instead of keeping them, with
        the fewest recomputed flops that fit (``tjit/xla_like/remat.py``); a budget
        that cannot be met raises ``MemoryBudgetError`` (a ValueError) with the
        smallest peak reachable. Default: ``TJIT_MEMORY_BUDGET`` when set (not for
        polymorphic_shapes), else none (plans unchanged). With automatic dynamic
        shapes the budget holds at every size: the dynamic program serves the sizes
        where its peak fits, the same program planned within the budget at a larger
        size serves the sizes where its peak fits, and a size neither fits gets a
        program of its own. When the saved residuals of ``lax.scan``/``fori_loop``
        exceed the budget, their bodies are checkpointed (recomputed per iteration),
        and if that is not enough they run in checkpointed chunks of ~sqrt(length).
        Reverse mode through ``while_loop`` (and ``fori_loop`` with traced bounds)
        stays within the budget for any trip count: each loop's reverse sweep tapes
        records while they fit what the rest of the program leaves, and a longer loop
        is reversed by Revolve from as many loop states as fit
        (``tjit/xla_like/sweep_memory.py``); the peak counts that allowance.
    """
    if unsupported:
        bad = ", ".join(sorted(unsupported))
        if set(unsupported) - {"inline", "keep_unused", "abstracted_axes"}:
            raise TypeError(f"jit: unexpected keyword argument(s) {bad}")
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 polymorphic_shapes=polymorphic_shapes, backend=backend,
                                 device=device, dynamic_shapes=dynamic_shapes,
                                 memory_budget=memory_budget)
    jitted = Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                    polymorphic_shapes, backend, device=device, dynamic_shapes=dynamic_shapes,
                    memory_budget=memory_budget)
    if in_shardings is UNSPECIFIED and out_shardings is UNSPECIFIED:
        return jitted
    from tjit._sharded_jit import ShardedJit  # (above the scale-out layer)
    return ShardedJit(jitted, in_shardings, out_shardings)


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False,
               polymorphic_shapes=None):
    """``make_jaxpr(f)(*args)`` returns the ClosedJaxpr of ``f`` at those arguments.

    ``axis_env``: ``(name, size)`` pairs bound while tracing, so that collectives over
    those axis names (``psum``, ``axis_index``) trace as they would under vmap/pmap, as
    JAX's."""
    jitted = Jitted(fun, static_argnums, (), (), (), polymorphic_shapes, None, "make_jaxpr")
    axes = _axis_env_pairs(axis_env)

    @api_boundary
    @functools.wraps(fun)
    def make(*args, **kwargs):
        args, kwargs = _key_structs_as_data(args, kwargs)
        dyn_args, dyn_kwargs, statics = jitted._split(args, kwargs)
        with contextlib.ExitStack() as env, \
                compile_log.recording(jitted.__name__, "make_jaxpr") as rec:
            for name, size in axes:
                env.enter_context(extend_axis_env(name, size))
            rec.what.append("trace")
            try:
                treedef, sig = jitted._abstract_signature(dyn_args, dyn_kwargs, "make_jaxpr")
                closed, out_tree = jitted._trace(dyn_args, dyn_kwargs, statics, treedef,
                                                 sig, simplify=False)
            except RefNotThreaded:  # takes or closes over refs: their values are inputs
                closed, out_tree = _jit_refs.trace(jitted, args, kwargs)
        leaves = tree_flatten((dyn_args, dyn_kwargs))[0]
        if any(getattr(x, "_sharding", None) is not None for x in leaves):
            from tjit._eager_layout import typed_jaxpr   # (a:f32[8@X], as JAX prints)
            closed = typed_jaxpr(closed, leaves)
        if return_shape:
            shapes = _shape_structs(out_tree, closed.out_avals, weak=True)
            return closed, shapes
        return closed
    return make


def _axis_env_pairs(axis_env):
    """make_jaxpr's ``axis_env`` as a list of (name, int size) pairs."""
    pairs = []
    for item in axis_env or ():
        try:
            name, size = item
            size = operator.index(size)
        except ConcretizationTypeError:
            raise traced_static_error(size, "axis_env size", "make_jaxpr") from None
        except (TypeError, ValueError):
            raise TypeError(f"make_jaxpr: axis_env must be a sequence of (axis_name, size) "
                            f"pairs with an int size, got the entry {item!r:.60}") from None
        if size < 0:
            raise ValueError(f"make_jaxpr: axis_env size of {name!r} must be >= 0, got {size}")
        pairs.append((name, size))
    return pairs


def show(fun, *args, backend=None, **kwargs):
    """tjit extension: compile ``fun`` for these arguments and return the
    :class:`Compiled` program, which renders as a picture of its plan in Jupyter
    (fused kernels, gemms, library and control steps, buffers; each kernel's source one
    click away); ``.visualize("out.html")`` writes the same page. ``fun`` may already be
    jitted (its static and donated arguments apply); ``backend``: compile for another
    backend than the jit's.

    Example::

        tjit.show(tjit.grad(lambda x: jnp.sum(jnp.tanh(x) * x)), jnp.ones(1000))
    """
    jitted = fun if isinstance(fun, Jitted) else jit(fun)
    return jitted.lower(*args, **kwargs).compile(backend)


@api_boundary
def eval_shape(fun, *args, **kwargs):
    """Output shapes/dtypes of ``fun`` as ShapeDtypeStructs, without computing."""
    _, shapes = make_jaxpr(lambda *a, **k: fun(*a, **k), return_shape=True)(*args, **kwargs)
    return shapes


def _key_structs_as_data(args, kwargs):
    """ShapeDtypeStructs of a key dtype (``key<fry>``) among the arguments as key arrays
    of their data's structs, which tracing sees (it traces the data of key arrays)."""
    def is_struct(x):
        return isinstance(x, ShapeDtypeStruct)

    def as_data(x):
        if is_struct(x) and isinstance(x.dtype, ExtendedDType):
            dt = x.dtype
            return dt.array_type(ShapeDtypeStruct(x.shape + dt.data_shape, dt.data_dtype))
        return x

    leaves, _ = tree_flatten((args, kwargs), is_struct)
    if not any(is_struct(x) and isinstance(x.dtype, ExtendedDType) for x in leaves):
        return args, kwargs
    return tree_map(as_data, (args, kwargs), is_leaf=is_struct)


def typeof(x):
    """The abstract value of ``x`` (shape, dtype, weak type) as a ShapedArray, as
    ``jax.typeof``: for an array, a tracer inside a transformation, or a scalar (a Python
    number gives a weakly typed one).

    Args:
      x: an array, tracer, or Python/NumPy scalar.
    """
    from tjit.lax._elementwise import asarray_for_lax
    from tjit.tracing.core import get_aval
    if isinstance(x, ExtendedArray):   # a key array: ShapedArray(key<fry>[...])
        return x.aval
    if isinstance(x, Ref):   # a mutable array reference: Ref{float32[3]}, as JAX's
        return x.type()
    if getattr(x, "_sharding", None) is not None:   # committed to a mesh: f32[8@X]
        from tjit._eager_layout import typeof_laid_out
        return typeof_laid_out(x)
    return get_aval(x if isinstance(x, (Array, Tracer)) else asarray_for_lax(x))


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put each leaf of ``x`` on ``device`` as a tjit Array, as ``jax.device_put``.

    Args:
      x: an array, scalar or pytree of them (host or device arrays).
      device: a device from ``tjit.devices(...)`` (e.g. ``tjit.devices("gpu")[0]``);
        None: the default backend's first device.
      src, donate, may_alias: JAX's (one value each, or a pytree prefix of ``x``):
        ``may_alias=False`` gives a copy sharing no buffer with ``x``; ``donate=True``
        lets ``x``'s buffer be reused (not with ``may_alias=True``); ``src`` (where
        ``x`` is) must be a device or sharding. See ``tjit/_put_options.py``.
    Returns:
      ``x``'s structure with tjit Arrays on ``device`` (copied there when elsewhere).
    Raises:
      RuntimeError: the device's backend cannot run here (it says what is missing and
        how to install it, e.g. ``pip install "tjit[cuda]"``).
    """
    from tjit.tracing.tree_util import tree_flatten, tree_unflatten
    from tjit.numpy import asarray
    from tjit.sharding import commit, placement_device  # (scale-out layer, loaded after api)
    from tjit import _placement, _put_options
    if not _placement.is_placement(device):   # a pytree prefix of x: a placement per subtree
        return _placement.put_per_leaf(x, device, device_put, src=src, donate=donate,
                                       may_alias=may_alias)
    across = _placement.spans_devices(device)
    if across is not None:   # (several devices: GlobalArrays of their blocks)
        return _placement.put_across_devices(x, across)
    named = _placement.named_placement(device)   # (the layout the results are committed to)
    copies = _put_options.copy_flags(x, donate, may_alias)
    _put_options.check_src(x, src, lambda s, leaf: _backends.resolve(
        None, placement_device(leaf, s, "device_put (src)"), "device_put (src)"))
    device = placement_device(x, device, "device_put")
    name = _backends.resolve(None, device, "device_put")
    b = _backends.get_backend(name)
    put = getattr(b, "put", None)
    if put is None:     # a host backend: NumPy-backed Arrays
        def put_one(a):
            return Array(to_host(a._value), a._weak) if isinstance(a, Array) and \
                is_device_value(a._value) else asarray(a)
    else:
        device = device if device is not None else b.devices()[0]

        def put_one(a):
            return put(a, device)
    leaves, tree = tree_flatten(x)
    with _transfer_guard.explicit():
        outs = [put_one(a) for a in leaves]
    # may_alias=False: a result that still shares the input's buffer gets its own
    outs = [Array(o._value.copy(), o._weak) if c and isinstance(o, Array) and
            isinstance(a, Array) and o._value is a._value else o
            for a, o, c in zip(leaves, outs, copies)]
    if named is not None or device is not None:   # (None keeps each array's layout)
        outs = [commit(o, named) for o in outs]
    return tree_unflatten(tree, outs)


def device_get(x):
    """``x`` with every tjit Array copied to a host NumPy array (waits for devices)."""
    from tjit.tracing.tree_util import tree_map
    with _transfer_guard.explicit():
        return tree_map(lambda a: np.asarray(a) if isinstance(a, Array) else a, x)


def block_until_ready(x):
    """Wait until every tjit Array in the pytree ``x`` is computed; returns ``x``."""
    from tjit.tracing.tree_util import tree_leaves
    for a in tree_leaves(x):
        if isinstance(a, Array):
            a.block_until_ready()
    return x
