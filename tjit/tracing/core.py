"""The interpreter stack: primitives, traces, tracers, and the eager evaluation trace.

How a primitive runs (read this first):

* ``prim.bind(*args, **params)`` hands the call to the *current trace*, which lives in
  a thread-local context (``trace_ctx.trace``), as in current JAX: no global list of
  numbered levels. Each transformation's trace knows its ``parent`` and, when it
  processes a primitive, it unwraps its own tracers and binds again under the parent.
* At the bottom is :class:`EvalTrace`: it runs the primitive's reference
  implementation on concrete values and wraps the result as a ``tjit.Array``: on NumPy,
  or, when an operand lives on a device (a CuPy array), on that device's array
  namespace (``register_device_arrays``: tracing itself imports no device library).
* A trace that has finished is marked invalid; a tracer of it that escapes and is used
  later raises :class:`UnexpectedTracerError`.
"""

import itertools
import threading
import typing

import numpy as np

from tjit.config import config
from tjit.tracing import dtypes, transfer_guard
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.fp_quiet import quiet_call, quiet_run
from tjit.tracing.traceback_util import filter_at_entry
from tjit.tracing.errors import (
    ConcretizationTypeError, TracerBoolConversionError, TracerIntegerConversionError,
    TracerArrayConversionError, UnexpectedTracerError, user_location)


# -- primitives ----------------------------------------------------------------------------
class Primitive:
    """A named operation and all of its rules, defined together in one primitives/ file.

    Slots:
      impl(xp, *values, **params)         reference implementation over array namespace xp
      abstract_eval(*avals, **params)     -> ShapedArray (or list if multiple_results)
      weak_type_rule(*weak, **params)     -> bool; default: all inputs weak
      jvp, transpose, batch, lowering     filled by the transformation / compiler issues
    """

    def __init__(self, name, multiple_results=False):
        self.name = name
        self.multiple_results = multiple_results
        self.impl = None
        self.abstract_eval = None
        self.weak_type_rule = _all_weak
        self.jvp = None
        self.transpose = None
        self.batch = None
        self.lowering = None
        self.partial_eval = None  # optional custom split for reverse mode (control flow)
        # Say explicitly when a rule is intentionally missing (e.g. not differentiable).
        self.not_differentiable = False
        self.effectful = False
        # False: never evaluated at trace time by constant folding (host callbacks, whose
        # calls the user sees and counts).
        self.foldable = True
        # The NumPy ufunc the impl is, on NumPy operands (set for plain elementwise ops):
        # the eager fast lane calls it directly once a signature is known.
        self.eager_ufunc = None
        # ``eager_numpy(*dtypes) -> fn or None``: a call ``fn(*values) -> ndarray`` on NumPy
        # operands of these dtypes that gives the impl's values and never warns, where
        # the impl is more than one ufunc on them (shifts through views, IEEE max/min):
        # the fast lane calls it instead of the impl, without the warning switch-off.
        self.eager_numpy = None
        # Why the impl computes on NumPy only (LAPACK through SciPy, a SciPy function
        # CuPy lacks), or None: device runtimes run such a primitive on host copies of
        # its operands and copy the results back (a counted round trip).
        self.host_only = None
        # ``pp_params(params) -> [(name, value)]``: the parameters the jaxpr printer
        # shows, in order, where they are not all of them sorted (JAX's pp_eqn_rules:
        # values the result's type implies left out, ``name`` first).
        self.pp_params = None

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        return trace_ctx.trace.process_primitive(self, args, params)

    # decorators ---------------------------------------------------------------------
    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_abstract_eval(self, fn):
        self.abstract_eval = fn
        return fn

    def def_weak_type(self, fn):
        self.weak_type_rule = fn
        return fn


def _all_weak(*weak, **params):
    return all(weak) if weak else False


def never_weak(*weak, **params):
    return False


# -- traces --------------------------------------------------------------------------------
class Trace:
    """Base class: a way of interpreting primitives. Subclasses override
    ``process_primitive`` (and later the call/custom-rule hooks)."""

    parent = None
    is_valid = True
    name = "trace"

    def process_primitive(self, prim, args, params):
        raise NotImplementedError

    def invalidate(self):
        self.is_valid = False


class EvalTrace(Trace):
    """Runs primitives eagerly on NumPy values."""

    name = "eval"

    def process_primitive(self, prim, args, params):
        # Fast lane: every operand a NumPy-backed Array whose signature was checked before
        # (the common notebook call); anything else takes the general path below.
        out = eager_fast(prim, args, params)
        if out is None:
            out = self._process_general(prim, args, params)
            _remember_fast(prim, args, params, out)
        return out

    def _process_general(self, prim, args, params):
        vals = []
        weaks = []
        on = None   # the device arrays' hooks, when an operand lives on a device
        laid_out = False   # an operand is committed to a mesh layout (LaidOutValue)
        for a in args:
            t = type(a)
            if t is Array:
                v = a._value
                if type(v) is not np.ndarray:
                    if type(v) is LaidOutValue:
                        v, laid_out = v.view(np.ndarray), True
                    elif type(v) in _DEVICE_ARRAYS:
                        on = _DEVICE_ARRAYS[type(v)]
                vals.append(v)
                weaks.append(a._weak)
            elif isinstance(a, Tracer):
                raise escaped_tracer_error(a, prim)
            elif t is float or t is int or t is complex:
                vals.append(a)
                weaks.append(True)
            else:
                vals.append(a)
                weaks.append(False)
        laid_key = None
        if laid_out and on is None:   # (a signature with these layouts seen: its run)
            laid_key = _laid_out_key(prim, args, params)
            got = _laid_out_runs.get(laid_key) if laid_key is not None else None
            if got is not None:
                out = got[0](*vals, **params)
                for o, s in zip(out if got[3] else (out,), got[1]):
                    if s is not None:
                        set_layout(o, s)
                return out
        # The abstract rule checks shapes and dtypes (and gives tjit's messages); a
        # signature it accepted once is remembered, so eager calls stay cheap.
        key = (prim, tuple((getattr(v, "shape", ()), getattr(v, "dtype", type(v)))
                           for v in vals), tuple(params.items()) if params else ())
        try:
            seen = key in _checked
        except TypeError:  # unhashable params: check every time
            seen, key = False, None
        if not seen:
            prim.abstract_eval(*[aval_of_value(a) for a in args], **params)
            if key is not None:
                remember(_checked, key, True)
        if on is not None:
            return on.run(prim, vals, weaks, params)
        out = prim.impl(np, *vals, **params)
        out = wrap_outputs(prim, out, prim.weak_type_rule(*weaks, **params))
        if not laid_out:
            return out
        out = _EAGER_LAYOUT[0](prim, args, params, out)
        if laid_key is not None:
            _remember_laid_out(laid_key, prim, args, vals, params, out)
        return out


class LaidOutValue(np.ndarray):
    """The host buffer of an Array committed to a mesh layout (``Array._sharding``). A
    NumPy subclass so that the eager fast lanes, which take plain ndarrays only, leave
    such operands to the general path, which lays out the results (JAX's sharding in
    types): plain Arrays pay nothing for layouts."""


def set_layout(array, layout):
    """Record on the fresh Array ``array`` that it is laid out as ``layout`` (a
    NamedSharding, ``tjit.sharding``); its host buffer becomes a LaidOutValue view, which
    the eager fast lanes leave to the path that lays out results."""
    array._sharding = layout
    if type(array._value) is np.ndarray:
        array._value = array._value.view(LaidOutValue)


def remember(table, key, value):
    """``table[key] = value``, returned. The eager memo tables (checked signatures, fast
    runners, plans) are cleared past 4096 entries: a bound on memory, not an eviction
    policy."""
    if len(table) > 4096:
        table.clear()
    table[key] = value
    return value


#: (primitive, per operand (shape, dtype, weak, id of its layout or 0), params) ->
#: (run, the outputs' layouts, the operands' layouts, multiple results): an eager call
#: with an operand committed to a mesh layout whose signature and layouts were seen,
#: run as the fast lane runs it (checked and laid out once). The operands' layouts are
#: kept with it so that their ids stay theirs.
_laid_out_runs = {}


def layout_signature(key, args):
    """``key`` (a list) extended by each argument's shape, dtype, weak type and layout
    (the id of its sharding, 0 for none), or None unless every argument is an Array on a
    host buffer: the key of a call whose layouts were worked out once."""
    for a in args:
        if type(a) is not Array:
            return None
        v = a._value
        t = type(v)
        if t is LaidOutValue:
            key += (v.shape, v.dtype, a._weak, id(getattr(a, "_sharding", None)))
        elif t is np.ndarray:
            key += (v.shape, v.dtype, a._weak, 0)
        else:
            return None
    return key


def _laid_out_key(prim, args, params):
    """The :data:`_laid_out_runs` key of an eager call whose operands are all Arrays on
    host buffers, else None."""
    key = layout_signature([prim], args)
    if key is None:
        return None
    key = (tuple(key), tuple(params.items())) if params else tuple(key)
    try:
        hash(key)
    except TypeError:   # unhashable params
        return None
    return key


def _remember_laid_out(key, prim, args, vals, params, out):
    """Record how the general path ran and laid out a call (:data:`_laid_out_runs`)."""
    many = isinstance(out, (list, tuple))
    outs = out if many else (out,)
    if not all(type(o) is Array for o in outs):
        return
    weak = [o._weak for o in outs] if many else out._weak
    ufunc, quiet = _direct_ufunc(prim, vals, params, out)
    remember(_laid_out_runs, key, (
        _runner(prim, weak, ufunc, quiet, len(vals)),
        [getattr(o, "_sharding", None) for o in outs],
        [getattr(a, "_sharding", None) for a in args], many))


#: ``layout(prim, args, params, out) -> out`` laid out from the operands' layouts
#: (installed by ``tjit._eager_layout`` once a mesh layout exists)
_EAGER_LAYOUT = [lambda prim, args, params, out: out]


def set_eager_layout(layout):
    """Install what lays out an eager result with an operand committed to a mesh."""
    _EAGER_LAYOUT[0] = layout


def wrap_outputs(prim, out, weak, wrap=None):
    """``prim``'s eager result(s) as Array(s) (``wrap(value, weak)``: default NumPy)."""
    wrap = wrap or _wrap
    if prim.multiple_results:
        if isinstance(weak, (list, tuple)):  # one weak flag per output (control flow)
            return [wrap(o, w) for o, w in zip(out, weak)]
        return [wrap(o, weak) for o in out]
    return wrap(out, weak)


#: Array value type of a device library (cupy.ndarray) -> its hooks: ``run(prim, vals,
#: weaks, params)`` (an eager primitive with such an operand), ``to_host(v)``,
#: ``device(v)``, ``sync(v)``. Installed by the devices layer (``register_device_arrays``).
_DEVICE_ARRAYS = {}


def register_device_arrays(array_type, hooks):
    """Let ``Array`` hold values of ``array_type`` (a device library's array, e.g.
    ``cupy.ndarray``); ``hooks`` supplies ``run``, ``to_host``, ``device`` and ``sync``."""
    _DEVICE_ARRAYS[array_type] = hooks


def is_device_value(v):
    """Whether ``v`` is a registered device library's array (not host memory)."""
    return type(v) in _DEVICE_ARRAYS


def to_host(v):
    """``v`` as host memory (a NumPy array; device arrays are copied, which waits for
    the device)."""
    if type(v) is np.ndarray:
        return v
    hooks = _DEVICE_ARRAYS.get(type(v))
    if hooks is None:
        return np.asarray(v)
    _guard_device_read(v)
    return hooks.to_host(v)


def _guard_device_read(v):
    """The device-to-host transfer guard on reading device array ``v`` on the host."""
    if config.transfer_guard_device_to_host not in (None, "allow"):
        transfer_guard.check("device_to_host", lambda: f"aval={aval_of_value(v)!r}")


def _refuse_sympify(x):
    """(``Array._sympy_``, ``Tracer._sympy_``) ``dim * x`` with a symbolic dim on the left:
    sympy's operator first tries to make a sympy value of ``x`` (through float());
    refusing makes Python call ``x.__rmul__``, which computes with the dim's value, as
    JAX does."""
    from sympy import SympifyError
    raise SympifyError(x)


#: Host value types (NumPy subclasses) that record the devices that computed them, e.g.
#: a pmap result on N CPU devices -> ``devices(value)``: what ``Array.devices()`` returns.
#: They are host arrays to every other path (not device arrays: nothing is copied).
_MULTI_DEVICE_VALUES = {}
_VALUE_SHARDINGS = {}     # value type -> its sharding (a multi-device value's own layout)
_SINGLE_DEVICE_SHARDING = [None]   # device -> its sharding (set by the devices layer)


def register_multi_device_values(value_type, devices):
    """``Array.devices()`` of an Array holding a ``value_type`` is ``devices(value)``."""
    _MULTI_DEVICE_VALUES[value_type] = devices


def register_value_sharding(value_type, sharding):
    """``Array.sharding`` of an Array holding a ``value_type`` is ``sharding(value)``."""
    _VALUE_SHARDINGS[value_type] = sharding


def set_single_device_sharding(make):
    """Install ``make(device)``: the ``.sharding`` of an Array on one device."""
    _SINGLE_DEVICE_SHARDING[0] = make


#: The host device object (set by ``tjit.devices.backend``: tracing knows no devices).
_HOST_DEVICE = ["cpu"]


def set_host_device(device):
    """Install the object ``Array.device`` returns (called once by the devices layer)."""
    _HOST_DEVICE[0] = device


_checked = {}  # (primitive, input shapes/dtypes) already validated by abstract_eval

#: (primitive, (shape, dtype, weak) of each NumPy-backed operand, params) -> the call
#: that runs it (:func:`_runner`): the abstract rule accepted this signature and the
#: weak-type rule gave the output's weak flag(s), so neither runs again for it; the call
#: is the primitive's NumPy ufunc itself where that gives the same (:func:`_direct_ufunc`).
_fast_runs = {}


def _fast_key(prim, args, params):
    """``(key, values)`` of a call for :data:`_fast_runs`, or None when an operand is
    not a NumPy-backed Array (1 and 2 operands, the common cases, are spelled out)."""
    n = len(args)
    if n == 2:
        x, y = args
        if type(x) is not Array or type(y) is not Array:
            return None
        vx, vy = x._value, y._value
        if type(vx) is not np.ndarray or type(vy) is not np.ndarray:
            return None
        key, vals = (prim, vx.shape, vx.dtype, x._weak, vy.shape, vy.dtype, y._weak), args
    elif n == 1:
        x = args[0]
        vx = x._value if type(x) is Array else None
        if type(vx) is not np.ndarray:
            return None
        key, vals = (prim, vx.shape, vx.dtype, x._weak), args
    else:
        key, vals = [prim], []
        for a in args:
            if type(a) is not Array or type(a._value) is not np.ndarray:
                return None
            key += (a._value.shape, a._value.dtype, a._weak)
            vals.append(a._value)
        key = tuple(key)
    if vals is args:
        vals = (vx, vy) if n == 2 else (vx,)
    return ((key, tuple(params.items())) if params else key), vals


#: ufuncs that never raise a floating-point flag on integer and bool operands (integer
#: add/multiply wrap silently), so they need no warning switch-off there
_SILENT_ON_INTS = frozenset([
    np.add, np.subtract, np.multiply, np.negative, np.abs, np.equal, np.not_equal,
    np.less, np.less_equal, np.greater, np.greater_equal, np.bitwise_and, np.bitwise_or,
    np.bitwise_xor, np.invert, np.conj])


def eager_fast(prim, args, params):
    """``prim`` run eagerly on NumPy-backed Arrays whose signature was seen before
    (checked by the abstract rule then), else None: the general path must run."""
    if not params:  # the common cases, spelled out
        n = len(args)
        if n == 2:
            return eager_fast2(prim, args[0], args[1])
        if n == 1:
            return eager_fast1(prim, args[0])
    kv = _fast_key(prim, args, params)
    if kv is None:
        return None
    try:
        run = _fast_runs.get(kv[0])
    except TypeError:  # unhashable params
        return None
    return None if run is None else run(*kv[1], **params)


def fast_runner(prim, args, params):
    """The fast lane's ``run(*values, **params) -> Array`` for ``prim`` on the Arrays
    ``args`` with ``params`` (e.g. ``integer_pow``'s ``y``), or None (not NumPy-backed,
    a signature not seen yet, unhashable params). For callers that keep it per
    signature themselves, as :func:`fast_runner2`."""
    kv = _fast_key(prim, args, params)
    if kv is None:
        return None
    try:
        return _fast_runs.get(kv[0])
    except TypeError:  # unhashable params
        return None


def eager_fast2(prim, x, y):
    """:func:`eager_fast` of a primitive with two operands and no params."""
    run = fast_runner2(prim, x, y)
    return None if run is None else run(x._value, y._value)


def eager_fast1(prim, x):
    """:func:`eager_fast` of a primitive with one operand and no params."""
    run = fast_runner1(prim, x)
    return None if run is None else run(x._value)


def fast_runner1(prim, x):
    """:func:`fast_runner2` of a primitive with one operand."""
    if type(x) is not Array:
        return None
    vx = x._value
    if type(vx) is not np.ndarray:
        return None
    return _fast_runs.get((prim, vx.shape, vx.dtype, x._weak))


def fast_runner2(prim, x, y):
    """The fast lane's ``run(x._value, y._value) -> Array`` for ``prim`` on Arrays ``x``
    and ``y`` (no params), or None (not NumPy-backed, or a signature not seen yet).
    Callers that recognise the signature themselves (tjit.numpy's functions) keep it."""
    if type(x) is not Array or type(y) is not Array:
        return None
    vx, vy = x._value, y._value
    if type(vx) is not np.ndarray or type(vy) is not np.ndarray:
        return None
    return _fast_runs.get((prim, vx.shape, vx.dtype, x._weak, vy.shape, vy.dtype, y._weak))


def _runner(prim, weak, ufunc, quiet, n):
    """``run(*values, **params) -> Array(s)`` for one signature of ``n`` operands:
    ``ufunc`` called directly (with NumPy's warnings off where ``quiet``), or else the
    primitive's impl."""
    if ufunc is None:
        impl = prim.impl

        def run(*vals, **params):
            out = impl(np, *vals, **params)
            if type(out) is np.ndarray:
                return Array(out, weak)
            if prim.multiple_results:
                return wrap_outputs(prim, out, weak)
            return Array(np.asarray(out), weak)
    elif quiet and n == 2:
        def run(vx, vy):
            try:
                out = quiet_run(ufunc, vx, vy)
            except RuntimeError:  # its context in use (fp_quiet.quiet_run)
                out = quiet_call(ufunc, vx, vy)
            return Array(out if type(out) is np.ndarray else np.asarray(out), weak)
    elif quiet:
        def run(vx):
            try:
                out = quiet_run(ufunc, vx)
            except RuntimeError:  # its context in use (fp_quiet.quiet_run)
                out = quiet_call(ufunc, vx)
            return Array(out if type(out) is np.ndarray else np.asarray(out), weak)
    elif n == 2:  # integer/bool operands of a ufunc that cannot warn on them, or a
        def run(vx, vy):   # primitive's eager_numpy call (two operands: no *args)
            out = ufunc(vx, vy)
            return Array(out if type(out) is np.ndarray else np.asarray(out), weak)
    else:
        def run(*vals):
            out = ufunc(*vals)
            return Array(out if type(out) is np.ndarray else np.asarray(out), weak)
    if ufunc is not None:  # what it calls, for callers that fuse it into their own call
        run.direct = DirectCall(ufunc, quiet, weak)
    return run


#: (shape, dtype, weak) of a NumPy-backed Array -> its signature id (:func:`signature`).
#: Ids are never reused (a counter), so the table may be cleared when it grows: an Array
#: that still holds an old id keeps a correct key, and a new id for the same signature
#: only costs a plan more
_signature_ids = {}
_next_signature_id = itertools.count(1).__next__


def signature(x):
    """The signature id of the Array ``x``: a small int naming its (shape, dtype, weak)
    when its value is a NumPy array, else None. Computed once per Array (kept in its
    ``_sig`` slot): eager lanes key their per-signature plans with it, since hashing
    one int is cheaper than hashing the shape, the dtype and the flag on every call."""
    v = x._value
    if type(v) is not np.ndarray:
        return None
    key = (v.shape, v.dtype, x._weak)
    sig = _signature_ids.get(key)
    if sig is None:
        if len(_signature_ids) > 65536:
            _signature_ids.clear()
        sig = _signature_ids.setdefault(key, _next_signature_id())
    x._sig = sig
    return sig


class DirectCall(typing.NamedTuple):
    """What a fast-lane call made by :func:`_runner` does: ``fn(*values)`` (a NumPy ufunc
    or a primitive's ``eager_numpy`` call), with NumPy's warnings off where ``quiet``,
    wrapped as an Array of weak flag ``weak``. Read by lanes that fuse it into their
    own call (tjit.numpy's Python-number lane)."""
    fn: object
    quiet: bool
    weak: bool


def quiet_ufunc_runner(ufunc, weak, n=2):
    """``run(*values) -> Array`` of ``n`` operands: NumPy's ``ufunc`` called directly
    with its floating-point warnings off (the fast lanes' form of a direct ufunc)."""
    return _runner(None, weak, ufunc, True, n)


def _direct_ufunc(prim, vals, params, out):
    """``(ufunc, quiet)`` when ``prim`` on ``vals`` is its plain NumPy ufunc giving the
    dtype the impl gave (``out``), so the fast lane may call the ufunc itself (``quiet``:
    whether NumPy's warnings must be off around it), or its ``eager_numpy`` call for
    these dtypes (never quiet); ``(None, False)`` otherwise."""
    ufunc = prim.eager_ufunc
    if params or not isinstance(out, Array):
        return None, False
    if any(dtypes.is_one_byte(v.dtype) for v in vals):
        return None, False   # float8s/int4s: the impl's table lookup beats ml_dtypes' ufuncs
    if prim.eager_numpy is not None:
        fn = prim.eager_numpy(*(v.dtype for v in vals))
        if fn is not None:
            return fn, False
    if ufunc is None:
        return None, False
    try:
        got = ufunc.resolve_dtypes(tuple(v.dtype for v in vals) + (None,) * ufunc.nout)
    except Exception:  # noqa: BLE001 - a dtype NumPy cannot resolve: keep the impl
        return None, False
    if got[-1] != out._value.dtype:
        return None, False
    quiet = not (ufunc in _SILENT_ON_INTS and all(v.dtype.kind in "biu" for v in vals))
    return ufunc, quiet


def _remember_fast(prim, args, params, out):
    """Record the output weak flag(s) of a call the general path just ran, and the
    ufunc the fast lane may call for it."""
    kv = _fast_key(prim, args, params)
    if kv is None:
        return
    if isinstance(out, Array):
        if type(out._value) is not np.ndarray:
            return
        weak = out._weak
    elif isinstance(out, (list, tuple)) and all(
            isinstance(o, Array) and type(o._value) is np.ndarray for o in out):
        weak = [o._weak for o in out]
    else:
        return
    try:
        hash(kv[0])
    except TypeError:  # unhashable params
        return
    ufunc, quiet = _direct_ufunc(prim, kv[1], params, out)
    remember(_fast_runs, kv[0], _runner(prim, weak, ufunc, quiet, len(kv[1])))


def escaped_tracer_error(tracer, prim=None):
    where = f" (used by '{prim.name}')" if prim is not None else ""
    return UnexpectedTracerError(
        f"Encountered an unexpected tracer{where}: {tracer!r} was created inside a "
        f"transformation ({tracer._trace.name} of {getattr(tracer._trace, 'fun_name', '?')}) "
        f"that has already finished, and escaped it (e.g. stored in a global, a list or "
        f"an attribute). Return the value from the transformed function instead.\n"
        f"Used at {user_location()}")


#: The eager trace type of threads started from now on (tracing/float_checks.py sets
#: its checking trace here while the debug options are on).
root_trace_type = [EvalTrace]


class _TraceContext(threading.local):
    def __init__(self):
        self.trace = root_trace_type[0]()


trace_ctx = _TraceContext()
eval_trace = trace_ctx.trace


class set_current_trace:  # noqa: N801 - used as a function: ``with set_current_trace(t):``
    """Make ``trace`` current for a ``with`` block (the previous one is back after it,
    also on an exception). A class, not a generator context manager: every primitive
    bound under a transformation enters one, and a generator's costs ~3x as much."""

    __slots__ = ("_trace", "_prev")

    def __init__(self, trace):
        self._trace = trace

    def __enter__(self):
        self._prev = trace_ctx.trace
        trace_ctx.trace = self._trace
        return self._trace

    def __exit__(self, *exc):
        trace_ctx.trace = self._prev
        return False


def current_trace():
    return trace_ctx.trace


def is_eager():
    return isinstance(trace_ctx.trace, EvalTrace)


# -- concrete arrays -----------------------------------------------------------------------
class Array:
    """An immutable array: a NumPy buffer, a dtype and a weak-type flag.

    Operators and methods (``+``, ``@``, ``.sum()``, ``.at``...) are attached by
    ``tjit.numpy`` so that Array and Tracer share one definition.
    """

    # _sig: the signature id of a NumPy-backed Array (:func:`signature`), or None until
    # an eager lane asks for it; whoever builds an Array without __init__ sets all three.
    # _sharding: set only on an Array committed to a mesh layout (device_put(x,
    # NamedSharding), jit's out_shardings); unset on every other Array (read by getattr)
    __slots__ = ("_value", "_weak", "_sig", "_sharding", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value, weak_type=False):
        self._value = value
        self._weak = weak_type
        self._sig = None

    _sympy_ = _refuse_sympify

    @property
    def aval(self):
        v = self._value
        return ShapedArray(v.shape, v.dtype, self._weak)

    @property
    def shape(self):
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    @property
    def weak_type(self):
        return self._weak

    # The conversions and protocols below are entry points a user calls (float(x),
    # len(x), np.asarray(x)): what they raise ends in the user's code (filter_at_entry;
    # a try block costs nothing until something raises)
    def __array__(self, dtype=None, copy=None):
        try:
            a = to_host(self._value)
            if dtype is not None and a.dtype != dtype:
                return a.astype(dtype)
            if copy:
                return a.copy()
            if a.flags.writeable and a.ndim:  # views too: a slice shares its source
                a = a.view()
                a.flags.writeable = False  # an Array is immutable; so is the view handed out
            return a
        except Exception as e:
            filter_at_entry(e)
            raise

    def __len__(self):
        try:
            if self.ndim == 0:
                raise TypeError("len() of unsized object (a 0-d tjit Array)")
            return self._value.shape[0]
        except Exception as e:
            filter_at_entry(e)
            raise

    def __iter__(self):
        try:
            if self.ndim == 0:
                raise TypeError("iteration over a 0-d tjit Array")
            w = self._weak
            return (Array(v, w) for v in to_host(self._value))
        except Exception as e:
            filter_at_entry(e)
            raise

    def __contains__(self, value):
        if isinstance(value, (list, tuple)):  # array_like, as NumPy takes it (`row in x`)
            value = np.asarray(value)
        return bool((self == value).any())  # NumPy's `in`: any element equal

    def __buffer__(self, flags):
        """The buffer protocol (PEP 688, Python 3.12+: ``memoryview(x)``), read-only
        because an Array is immutable.

        Before Python 3.12 a class written in Python cannot export a buffer: CPython
        reads only the C slot ``tp_as_buffer``, which ``__buffer__`` fills from 3.12 on.
        Filling it earlier would take a C extension type or an Array that subclasses
        ``numpy.ndarray`` (which would change what ``isinstance`` and NumPy's functions
        do with it, unlike ``jax.Array``), so there ``memoryview(np.asarray(x))`` is the
        way; ``np.asarray`` shares the buffer without a copy."""
        a = to_host(self._value)
        try:
            return memoryview(a if a.flags.c_contiguous else a.copy()).toreadonly()
        except ValueError:  # bfloat16 has no buffer format code (NumPy's limit as well)
            raise TypeError(f"memoryview: a {self.dtype.name} tjit Array has no buffer "
                            f"format; convert first (x.astype(float32), or "
                            f"x.view(uint16) for its bits)") from None

    def __bool__(self):
        try:
            if type(self._value) is not np.ndarray:
                _guard_device_read(self._value)
            return bool(self._value)
        except Exception as e:
            filter_at_entry(e)
            raise

    def __int__(self):
        try:
            if type(self._value) is not np.ndarray:
                _guard_device_read(self._value)
            return int(self._value)
        except Exception as e:
            filter_at_entry(e)
            raise

    def __float__(self):
        try:
            if type(self._value) is not np.ndarray:
                _guard_device_read(self._value)
            return float(self._value)
        except Exception as e:
            filter_at_entry(e)
            raise

    def __complex__(self):
        try:
            if type(self._value) is not np.ndarray:
                _guard_device_read(self._value)
            return complex(self._value)
        except Exception as e:
            filter_at_entry(e)
            raise

    def __index__(self):
        try:
            if not dtypes.is_int(self.dtype):  # bool too, as NumPy's and JAX's
                raise TypeError(f"only integer scalar arrays can be converted to an index "
                                f"(operator.index, range(), a list index), got dtype "
                                f"{self.dtype}; convert first, e.g. int(x) or "
                                f"x.astype(int)")
            return int(self._value)
        except Exception as e:
            filter_at_entry(e)
            raise

    def __hash__(self):
        # Unhashable like NumPy's and JAX's arrays: == is elementwise, so an identity hash
        # would make set(x) / Counter(x) count equal values as distinct.
        raise TypeError(f"unhashable type: 'tjit Array' ({self.dtype.name}{list(self.shape)})"
                        f"; hash() of an array is undefined. Fix: use x.item() / x.tolist() "
                        f"for hashable Python values, or id(x) to key by identity")

    def __repr__(self):
        if type(self._value) is _DeletedBuffer:
            return f"Array(<deleted {self._value._desc()}>)"
        body = np.array2string(to_host(self._value), separator=", ", prefix="Array(")
        extra = f", dtype={self.dtype.name}"
        if self._value.size == 0:      # as JAX ("[]" alone loses the shape)
            extra = f", shape={self._value.shape}{extra}"
        if self._weak:
            extra += ", weak_type=True"
        return f"Array({body}{extra})"

    def __str__(self):
        return str(to_host(self._value))

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value.item(), spec)
        if not spec:
            return str(self)
        # as NumPy's ndarray.__format__ (and JAX's): a spec such as '.3f' is for scalars
        raise TypeError(
            f"unsupported format string {spec!r} passed to Array.__format__ for an array "
            f"of shape {self.shape}: format specs apply to 0-d arrays; format the elements, "
            f"e.g. [f'{{v:{spec}}}' for v in x.tolist()], or use "
            f"numpy.array2string(numpy.asarray(x), precision=...)")

    def __reduce__(self):
        return (Array, (to_host(self._value), self._weak))

    def item(self, *args):
        try:
            return to_host(self._value).item(*args)
        except Exception as e:
            filter_at_entry(e)
            raise

    def tolist(self):
        return to_host(self._value).tolist()

    def block_until_ready(self):
        """Wait until the device has computed this array (host arrays: at once)."""
        v = self._value
        if type(v) is not np.ndarray and type(v) in _DEVICE_ARRAYS:
            _DEVICE_ARRAYS[type(v)].sync(v)
        return self

    def delete(self):
        """Release this array's buffer (as ``jax.Array.delete``): any later use raises
        ``RuntimeError``. ``jit`` calls it on arguments donated with ``donate_argnums``."""
        v = self._value
        if type(v) is not _DeletedBuffer:
            self._value = _DeletedBuffer(v.shape, v.dtype)
            self._sig = None  # no longer NumPy-backed: the eager lanes must not serve it

    def is_deleted(self):
        """True once :meth:`delete` ran (e.g. after the array was donated to a jit call)."""
        return type(self._value) is _DeletedBuffer

    def copy_to_host_async(self):
        pass

    def is_ready(self):
        """True once the array's value is computed (as ``jax.Array.is_ready``): at once
        for host arrays; a device array is waited for first."""
        self.block_until_ready()
        return True

    @property
    def is_fully_replicated(self):
        return True

    @property
    def is_fully_addressable(self):
        """True: every part of this array is held by this process (as JAX's)."""
        return True

    def on_device_size_in_bytes(self):
        """Bytes this array's buffer holds on its device."""
        return int(self._value.nbytes)

    def unsafe_buffer_pointer(self):
        """The address of this array's buffer (host arrays; CuPy arrays: the device
        pointer). It is valid while the array is alive and not donated."""
        v = self._value
        if type(v) is np.ndarray:
            return v.ctypes.data
        data = getattr(v, "data", None)
        if hasattr(data, "ptr"):
            return int(data.ptr)
        raise TypeError(f"unsafe_buffer_pointer: {type(v).__name__} buffers have no "
                        f"address tjit can give")

    @property
    def addressable_shards(self):
        """The parts of this array on this process's devices (``jax.Array``'s): one
        :class:`Shard` per device, with its index into the array and its data."""
        index_map = self.sharding.devices_indices_map(tuple(self.shape))
        return [Shard(device, index, 0, self[index]) for device, index in index_map.items()]

    @property
    def global_shards(self):
        """Every process's shards: this process's (a tjit Array lives in one)."""
        return self.addressable_shards

    def addressable_data(self, index):
        """The data of ``addressable_shards[index]``."""
        return self.addressable_shards[index].data

    @property
    def device(self):
        """The device holding this array: the host for NumPy-backed arrays, else the
        device its buffer lives on (e.g. a CUDA GPU)."""
        v = self._value
        if type(v) is not np.ndarray and type(v) in _DEVICE_ARRAYS:
            return _DEVICE_ARRAYS[type(v)].device(v)
        return _HOST_DEVICE[0]

    def devices(self):
        """The set of devices holding this array, as ``jax.Array.devices()``."""
        several = _MULTI_DEVICE_VALUES.get(type(self._value))
        if several is not None:     # a host buffer computed on several devices (pmap)
            return several(self._value)
        return {self.device}

    @property
    def sharding(self):
        """How this array is laid out on devices, as ``jax.Array.sharding``: a pmap
        result's ``PmapSharding``, the sharding it was committed to (``device_put`` with
        a ``NamedSharding``, jit's ``out_shardings``), else the ``SingleDeviceSharding``
        of its device."""
        committed = getattr(self, "_sharding", None)
        if committed is not None:
            return committed
        of = _VALUE_SHARDINGS.get(type(self._value))
        if of is not None:
            return of(self._value)
        make = _SINGLE_DEVICE_SHARDING[0]
        if make is None:
            raise AttributeError("Array.sharding: no device layer is loaded (import tjit)")
        return make(self.device)


class Shard:
    """One device's part of an array (``jax.Shard``): its ``device``, its ``index``
    (a tuple of slices/ints into the whole array), ``replica_id`` and ``data``."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data!r})")


class _DeletedBuffer:
    """Stands in for the NumPy buffer of a deleted Array: every use raises.

    An Array is deleted when it was donated to a jitted function (whose output may now
    live in its buffer) or by ``Array.delete()``. Swapping the buffer for this object
    makes every path that reads ``Array._value`` (operators, NumPy conversion, jit
    arguments, tracing) fail with one clear message instead of reading stale memory.
    """

    __slots__ = ("_dtype", "_shape")

    def __init__(self, shape, dtype):
        object.__setattr__(self, "_shape", shape)
        object.__setattr__(self, "_dtype", dtype)

    def _desc(self):
        return f"{self._dtype.name}{list(self._shape)}"

    def _fail(self, *args, **kwargs):
        raise RuntimeError(
            f"Array has been deleted with shape={self._desc()}. It was donated to a jitted "
            f"function (donate_argnums/donate_argnames: the output may now live in its "
            f"buffer) or .delete() was called. Use the function's result instead, or "
            f"pass a copy (x.copy()) / stop donating this argument to keep using it.")

    def __getattr__(self, name):
        self._fail()

    __array__ = __len__ = __iter__ = __getitem__ = __bool__ = _fail
    __int__ = __float__ = __complex__ = __index__ = __buffer__ = _fail


def _register_leaves():
    import numpy
    from tjit.tracing.tree_util import register_leaf_type
    for t in (Array, numpy.ndarray):
        register_leaf_type(t)


def _wrap(out, weak):
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    return Array(out, weak)


# -- tracers -------------------------------------------------------------------------------
class Tracer:
    """A stand-in for an array during a transformation. Subclasses hold an ``aval``."""

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    @property
    def aval(self):
        raise NotImplementedError

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return len(self.aval.shape)

    @property
    def size(self):
        return self.aval.size

    @property
    def weak_type(self):
        return self.aval.weak_type

    def _describe(self):
        return "a traced array"

    _sympy_ = _refuse_sympify

    def _concretization_error(self, cls, what, fix, verb="was called on"):
        """``cls`` saying "{what} {verb} <this value>", where it was traced, and ``fix``."""
        trace = self._trace
        fun = getattr(trace, "fun_name", None)
        in_fun = f" while tracing function '{fun}'" if fun else ""
        return cls(
            f"{what} {verb} {self._describe()} with shape/dtype {self.aval.str_short()}"
            f"{in_fun} ({trace.name} transformation). Its value is not known at trace "
            f"time.\nAt {user_location()}\n{fix}")

    def __bool__(self):
        raise self._concretization_error(
            TracerBoolConversionError, "bool() (an `if`, `while`, `and`/`or` or `assert`)",
            "Fix: use tjit.lax.cond / tjit.numpy.where for branches and tjit.lax.while_loop "
            "or fori_loop for loops; or mark the argument static with "
            "jit(..., static_argnums=...) / static_argnames.")

    def __int__(self):
        raise self._concretization_error(
            TracerIntegerConversionError, "int()",
            "Fix: keep the value as an array (e.g. x.astype(jnp.int32)), or mark the "
            "argument static with jit(..., static_argnums=...).")

    def __float__(self):
        raise self._concretization_error(
            ConcretizationTypeError, "float()",
            "Fix: keep the value as an array (x.astype(jnp.float32)), or mark the "
            "argument static with jit(..., static_argnums=...).")

    def __complex__(self):
        raise self._concretization_error(
            ConcretizationTypeError, "complex()",
            "Fix: keep the value as an array, or mark the argument static.")

    def __index__(self):
        raise self._concretization_error(
            TracerIntegerConversionError, "__index__ (use as a Python int, e.g. in range() "
            "or as a shape)", "Fix: mark the argument static with jit(..., static_argnums=...)"
            ", or use lax.dynamic_slice / lax.fori_loop with traced bounds.")

    def __array__(self, dtype=None, copy=None):
        raise self._concretization_error(
            TracerArrayConversionError, "numpy.asarray() / __array__",
            "Fix: use tjit.numpy functions inside traced code instead of NumPy ones, or "
            "return the value and convert it outside the transformation.")

    def item(self, *args):
        raise self._concretization_error(
            ConcretizationTypeError, ".item()", "Fix: return the array from the function "
            "and call .item() outside the transformation.")

    def tolist(self):
        raise self._concretization_error(
            ConcretizationTypeError, ".tolist()", "Fix: call .tolist() outside.")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        n = self.shape[0]
        if not isinstance(n, int):
            raise TypeError(f"len() of a traced array whose leading dim {n} is symbolic "
                            f"(polymorphic shapes); use x.shape[0], which works as a size")
        return n

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d traced array")
        n = self.shape[0]
        if not isinstance(n, int):
            raise ConcretizationTypeError(
                f"cannot iterate over a traced array whose leading dim {n} is symbolic; "
                f"use lax.scan or lax.fori_loop")
        return (self[i] for i in range(n))

    def __hash__(self):
        raise TypeError(f"unhashable type: traced array {self.aval.str_short()} "
                        f"({self._trace.name} tracer); hash() of an array is undefined, so it "
                        f"cannot be a set element, dict key or static argument. Fix: key by "
                        f"id(x), or pass hashable values as jit(..., static_argnums=...)")

    def __repr__(self):
        if self._trace.name == "jit":  # JAX 0.10.2's form: JitTracer(~float32[3])
            return f"JitTracer({self.aval})"
        return f"Traced<{self.aval.str_short()}>with<{self._trace.name}>"

    def __reduce__(self):  # pickle.dumps would otherwise save the tracer's internals
        raise self._concretization_error(
            ConcretizationTypeError, "pickle (__reduce__)", "Fix: return the value from "
            "the transformed function and pickle the result.")

    def __copy__(self):  # a traced value is immutable: it is its own copy
        return self

    def __deepcopy__(self, memo):  # (copy.deepcopy of a pytree of params inside jit)
        return self


#: members of a computed Array that a traced value cannot answer: reading one raises
#: ConcretizationTypeError naming the transformation (as JAX's tracers do), not
#: AttributeError; (name, is_property)
_NEEDS_VALUE = [("delete", False), ("devices", False), ("is_deleted", False),
                ("on_device_size_in_bytes", False), ("unsafe_buffer_pointer", False),
                ("addressable_data", False), ("__dlpack__", False),
                ("addressable_shards", True), ("global_shards", True),
                ("is_fully_addressable", True), ("is_fully_replicated", True)]
#: attributes a traced value has no meaning for (AttributeError with the reason, as JAX)
_CONCRETE_ONLY_ATTRIBUTES = {"device", "sharding", "block_until_ready",
                             "copy_to_host_async", "is_ready", "__dlpack_device__"}


def _refuse_without_value(name, is_property):
    what = f".{name}" if is_property else f".{name}()"

    def refuse(self, *args, **kwargs):
        raise self._concretization_error(
            ConcretizationTypeError, what, f"Fix: {what} reads a computed array: call it "
            f"on the function's result, outside the transformation.")
    return property(refuse) if is_property else refuse


def _no_meaning_traced(name):
    """A property that raises AttributeError with the reason. (Not a ``__getattr__`` on
    Tracer: defining one makes CPython route every attribute read of every tracer
    through a slower hook, ~7% of tracing a 1000-equation function.)"""
    def refuse(self):
        raise AttributeError(
            f"'{name}' is not available on {self._describe()} with shape/dtype "
            f"{self.aval.str_short()} ({self._trace.name} transformation): it belongs "
            f"to a computed array. Fix: use it on the function's result, outside the "
            f"transformation")
    return property(refuse)


for _name, _is_property in _NEEDS_VALUE:
    setattr(Tracer, _name, _refuse_without_value(_name, _is_property))
for _name in _CONCRETE_ONLY_ATTRIBUTES:
    setattr(Tracer, _name, _no_meaning_traced(_name))


class PrimalTracer(Tracer):
    """A tracer that carries a primal value beside what it propagates (jvp's tangent in
    transforms/ad.py, jet's Taylor terms), in the attribute ``primal``.

    As in JAX, when the primal is concrete (eager grad or jet, no jit) ``bool``, ``int``,
    ``__index__`` and ``.item()`` read it: ``if x > 0`` and ``range(int(n))`` work (the
    conversion carries no derivative). ``float()`` and ``complex()`` raise, as JAX's do:
    ``x * float(x)`` would otherwise differentiate as ``x * c`` and give a silently wrong
    derivative. A primal that is itself such a tracer (jvp of jet, jet of jvp, jvp of
    jvp) converts through its own primal; under jit the innermost primal is a jit tracer
    and the usual ConcretizationTypeError is raised."""

    __slots__ = ()

    def _concrete_primal(self):
        p = self.primal
        return p if isinstance(p, (Array, PrimalTracer)) else None

    def __bool__(self):
        p = self._concrete_primal()
        return bool(p) if p is not None else super().__bool__()

    def __int__(self):
        p = self._concrete_primal()
        return int(p) if p is not None else super().__int__()

    def __float__(self):
        raise self._derivative_dropped("float()")

    def __complex__(self):
        raise self._derivative_dropped("complex()")

    def _derivative_dropped(self, what):
        if self._concrete_primal() is None:  # under jit: the usual error
            return self._concretization_error(
                ConcretizationTypeError, what, "Fix: keep the value as an array, or mark "
                "the argument static with jit(..., static_argnums=...).")
        return ConcretizationTypeError(
            f"{what} was called on {self._describe()} ({self.aval.str_short()}, "
            f"{self._trace.name} transformation): a Python number carries no derivative, "
            f"so what follows would be differentiated as a constant (JAX refuses it "
            f"too).\nAt {user_location()}\nFix: keep the value as an array; for a "
            f"constant on purpose, {what[:-2]}(lax.stop_gradient(x)).")

    def __index__(self):
        p = self._concrete_primal()
        return p.__index__() if p is not None else super().__index__()

    def item(self, *args):
        p = self._concrete_primal()
        return p.item(*args) if p is not None else super().item(*args)


# -- helpers used by every layer above -----------------------------------------------------
def get_aval(x):
    """The abstract value of an Array, Tracer, NumPy array or Python scalar."""
    if isinstance(x, (Array, Tracer)):
        return x.aval
    return aval_of_value(x)


def is_concrete(x):
    return not isinstance(x, Tracer)


def concrete_value(x, what="value"):
    """NumPy value of ``x``; raises ConcretizationTypeError when ``x`` is traced."""
    if isinstance(x, Tracer):
        raise x._concretization_error(
            ConcretizationTypeError, f"{what} needs a concrete value, but",
            "Fix: pass this value as a static argument (jit(..., static_argnums=...)).",
            verb="got")
    if isinstance(x, Array):
        return x._value
    return x


def new_array(value, weak_type=False):
    """Wrap a NumPy value as an Array with its canonical dtype."""
    value = np.asarray(value)
    dt = dtypes.canonicalize(value.dtype)
    if dt != value.dtype:
        value = value.astype(dt)
    return Array(value, weak_type)


_register_leaves()

__all__ = ["Primitive", "Trace", "EvalTrace", "Tracer", "PrimalTracer", "Array", "ShapedArray",
           "trace_ctx", "set_current_trace", "current_trace", "get_aval", "never_weak",
           "concrete_value", "new_array", "is_eager"]
