"""``tjit.extend.core`` (as ``jax.extend.core``): the jaxpr types a custom interpreter
walks (``ClosedJaxpr.jaxpr``, its ``invars``/``constvars``/``eqns``/``outvars``, a
``Literal``'s ``val``, an equation's ``primitive``, ``params``, ``invars``,
``outvars``), ``jaxpr_as_fun``, and :class:`Primitive` for user-defined operations
(JAX's "How JAX primitives work" page): ``def_impl``, ``def_abstract_eval``, ``bind``;
its jvp, transpose, batching and lowering rules are registered through
``tjit.interpreters.ad`` / ``batching`` / ``mlir``."""

import threading
import weakref

import numpy as np

from tjit.tracing import core as _core
from tjit.tracing import dtypes as _dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import get_aval
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr

#: marks the impl of a user primitive as outside tjit, so the disk cache of compiled
#: programs never keys a program on a user primitive's name (two scripts may define
#: different "multiply_add"s)
_USER_MODULE = "<user primitive>"


class _EagerCalls(threading.local):
    """The user primitives in an eager bind whose impl has not started yet (per thread)."""

    def __init__(self):
        self.prims = set()


_EAGER_CALLS = _EagerCalls()


def jaxpr_as_fun(closed_jaxpr):
    """The function a ClosedJaxpr computes: ``jaxpr_as_fun(c)(*args)`` returns the list
    of its outputs (primitives bound again, so it can be traced and transformed)."""
    def fun(*args):
        return eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)
    return fun


class Primitive(_core.Primitive):
    """A user-defined operation, as JAX's ``jax.extend.core.Primitive``.

    ``def_impl(fn)``: ``fn(*values, **params)`` computes it eagerly on NumPy values
    (and, under ``jit``, as a host step of the compiled program);
    ``def_abstract_eval(fn)``: ``fn(*avals, **params)`` returns a ``ShapedArray`` (a
    list of them when ``multiple_results``); ``bind(*args, **params)`` applies it.
    Differentiation, batching and lowering rules are registered in
    ``tjit.interpreters.ad``, ``batching`` and ``mlir``.

    Args:
      name: the name printed in jaxprs and error messages.
    """

    def __init__(self, name):
        super().__init__(name)
        # user impls are written against NumPy (JAX hands them host values): device
        # runtimes run them on host copies of the operands
        self.host_only = "a user primitive's impl computes on NumPy values"
        self.user_impl = None
        self.user_abstract_eval = None
        self._declared_memo = {}   # operand avals, params -> declared result aval(s)
        self.lower_funs = {}  # platform (None: any) -> (fun, multiple_results): mlir.py
        self.impl = self._run_impl
        self.abstract_eval = self._run_abstract_eval
        self.weak_type_rule = _core.never_weak  # JAX: ShapedArray(...) is not weak
        _USER_PRIMITIVES.add(self)

    def bind(self, *args, **params):
        """Apply the primitive. An eager call (no transformation active) runs the impl
        alone, as JAX's: no abstract evaluation, whose rule the user may print or count
        (JAX's "How primitives work" page does); under jit the impl's results are held
        to the declared types (``_run_impl``)."""
        trace = _core.trace_ctx.trace
        if type(trace) is not _core.EvalTrace:
            return trace.process_primitive(self, args, params)
        calls = _EAGER_CALLS.prims
        calls.add(self)
        try:
            return trace.process_primitive(self, args, params)
        finally:
            calls.discard(self)

    def def_impl(self, fn):
        self.user_impl = fn
        return fn

    def def_abstract_eval(self, fn):
        self.user_abstract_eval = fn
        self._declared_memo.clear()
        return fn

    def def_effectful_abstract_eval(self, fn):
        """``fn`` returns ``(aval(s), effects)``; tjit keeps the avals (a user primitive
        with effects is not reordered or folded: it is marked effectful)."""
        self.effectful = True
        self.foldable = False
        self.user_abstract_eval = lambda *a, **p: fn(*a, **p)[0]
        self._declared_memo.clear()
        return fn

    # -- the slots tjit's machinery calls ----------------------------------------------
    def _run_abstract_eval(self, *avals, **params):
        if self in _EAGER_CALLS.prims:
            return None   # an eager call: JAX runs the impl without abstract evaluation
        return self._user_avals(*avals, **params)

    def _user_avals(self, *avals, **params):
        if self.user_abstract_eval is None:
            if type(_core.trace_ctx.trace) is _core.EvalTrace:
                return None   # (a host step of a program traced without one: no check)
            raise NotImplementedError(
                f"Abstract evaluation for '{self.name}' not implemented: define it with "
                f"{self.name}_p.def_abstract_eval(fn), fn(*avals, **params) returning "
                f"ShapedArray(shape, dtype)")
        out = self.user_abstract_eval(*avals, **params)
        if self.multiple_results:
            if not isinstance(out, (list, tuple)):
                raise TypeError(f"abstract evaluation of '{self.name}' (multiple_results="
                                f"True) must return a list of ShapedArrays, got {out!r}")
            return [self._as_aval(o) for o in out]
        return self._as_aval(out)

    def _as_aval(self, a):
        if not (hasattr(a, "shape") and hasattr(a, "dtype")):
            raise TypeError(f"abstract evaluation of '{self.name}' must return a ShapedArray "
                            f"(or an object with shape and dtype), got {a!r}")
        if type(a) is ShapedArray:
            return a
        return ShapedArray(tuple(a.shape), _dtypes.canonicalize(np.dtype(a.dtype)))

    def _run_impl(self, xp, *values, **params):
        # (read and cleared first: a jitted program the impl calls runs its own host
        # steps of this primitive, which are held to the declared types)
        calls = _EAGER_CALLS.prims
        eager = self in calls
        calls.discard(self)
        fn = self.user_impl
        if fn is None:
            fn = _impl_from_lowering(self)
        out = fn(*values, **params)
        want = None if eager else self._declared_avals(values, params)
        if want is None:   # eager: the impl's values, of a dtype tjit has (x64 or not)
            return [_canonical(o) for o in out] if self.multiple_results else _canonical(out)
        return self._held_to(out, want)

    _run_impl.__module__ = _USER_MODULE

    def impl_declared(self, xp, results, *values, **params):
        """The impl as a host step of a compiled program, its results held to
        ``results``, the avals the program was traced with (JAX evaluates abstractly
        once, when tracing)."""
        fn = self.user_impl
        if fn is None:
            fn = _impl_from_lowering(self)
        out = fn(*values, **params)
        return self._held_to(out, results if self.multiple_results else results[0])

    impl_declared.__module__ = _USER_MODULE

    def _held_to(self, out, want):
        """The impl's ``out`` cast to the declared aval(s) ``want``."""
        if self.multiple_results:
            if not isinstance(out, (list, tuple)) or len(out) != len(want):
                raise TypeError(f"impl of '{self.name}' returned {type(out).__name__}; its "
                                f"abstract evaluation declares {len(want)} results (a list)")
            return [self._as_declared(o, w) for o, w in zip(out, want)]
        return self._as_declared(out, want)

    def _declared_avals(self, values, params):
        """The abstract evaluation's result for these operands (remembered per operand
        types and hashable params, so a host step under jit does not re-run it)."""
        avals = [_value_aval(v) for v in values]
        try:
            key = (tuple(avals), tuple(sorted(params.items())))
            hash(key)
        except TypeError:
            return self._user_avals(*avals, **params)
        if key not in self._declared_memo:
            if len(self._declared_memo) > 256:
                self._declared_memo.clear()
            self._declared_memo[key] = self._user_avals(*avals, **params)
        return self._declared_memo[key]

    def _as_declared(self, out, aval):
        """``out`` as a NumPy array of the type the abstract evaluation declares: the
        dtype is cast (an impl on Python scalars computes in float64), a wrong shape is
        an error (it would be a wrong answer under jit)."""
        out = np.asarray(out)
        if tuple(out.shape) != tuple(aval.shape):
            raise ValueError(f"impl of '{self.name}' returned shape {out.shape}, but its "
                             f"abstract evaluation declares {aval.str_short()}; make the "
                             f"two agree")
        return out if out.dtype == aval.dtype else out.astype(aval.dtype)


def _canonical(out):
    """An eager impl's result as a NumPy array of a dtype tjit has: float64 (an impl on
    Python scalars, or promoting by a float64 constant) is float32 unless x64 is on, as
    JAX's next operation would read it."""
    out = np.asarray(out)
    dt = _dtypes.canonicalize(out.dtype)
    return out if dt == out.dtype else out.astype(dt)


def _value_aval(v):
    a = get_aval(v)
    return ShapedArray(a.shape, a.dtype, getattr(a, "weak_type", False))


def _impl_from_lowering(prim):
    """Without ``def_impl``, a registered ``mlir.lower_fun`` function computes it (as in
    JAX, where eager calls run the lowering)."""
    entry = prim.lower_funs.get(None) or prim.lower_funs.get("cpu")
    if entry is None:
        raise NotImplementedError(
            f"Evaluation rule for '{prim.name}' not implemented: define it with "
            f"{prim.name}_p.def_impl(fn) (fn(*numpy_values, **params)) or register "
            f"mlir.lower_fun(fn) with mlir.register_lowering")
    fun, multiple = entry

    def run(*values, **params):
        out = fun(*values, **params)
        if multiple and not prim.multiple_results:   # JAX's lowerings return lists
            (out,) = out
        return out
    return run


#: every user Primitive made (the rule tables of tjit.interpreters iterate over them)
_USER_PRIMITIVES = weakref.WeakSet()

__all__ = ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Primitive", "Var",
           "get_aval", "jaxpr_as_fun"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
