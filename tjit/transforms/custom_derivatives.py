"""User-defined derivatives: ``custom_jvp`` and ``custom_vjp`` (as ``jax.custom_jvp`` /
``jax.custom_vjp``).

How a call runs depends on the trace that processes it (the current trace):

* eager: the Python function runs as is;
* jvp (including the jvp inside ``grad``): the user's rule runs on the primal values
  under the parent trace, so it is itself differentiated by outer transformations;
* anything else (``jit``, ``vmap``, ``make_jaxpr``, a checkpoint body, a scan body):
  the function is traced into a jaxpr and bound as ``custom_jvp_call_p`` /
  ``custom_vjp_call_p`` (``tjit/primitives/ad_prims.py``), whose params keep flat
  versions of the rules, so differentiating that jaxpr later still uses them.

For ``custom_vjp`` under jvp, ``fwd`` runs and the output tangents come from a
``custom_lin`` equation; reverse mode transposes it by calling ``bwd``; plain forward
mode cannot (JAX's "can't apply forward-mode autodiff (jvp) to a custom_vjp function").

Zero tangents and cotangents stay symbolic inside (nothing is computed for them); the
rules see instantiated zeros unless they ask for ``symbolic_zeros=True``, in which case
they receive :class:`SymbolicZero` objects and may return them.

This module also attaches the batching rules of the two call primitives and exports
the small vmap helpers (:func:`vmap_flat`, :func:`batch_jaxpr`) that
``tjit/transforms/checkpoint.py`` uses.
"""

import functools
import inspect
import weakref

import numpy as np

from tjit.tracing import argnums as _argnums
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.axis_env import mesh_bindings, rebind
from tjit.tracing.core import (
    Array, EvalTrace, Tracer, current_trace, get_aval, set_current_trace)
from tjit.tracing.jaxpr import ClosedJaxpr, eval_jaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
from tjit.tracing.refs import Ref
from tjit.tracing.traceback_util import eager_boundary
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.primitives.ad_prims import custom_jvp_call_p, custom_vjp_call_p
from tjit.primitives.elementwise import add_p, convert_element_type_p
from tjit.primitives.reductions import reduce_sum_p
from tjit.primitives.rules import (
    Zero, bdim_at_front, instantiate, is_undefined_primal, moveaxis, tangent_aval)
from tjit.transforms.ad import JVPTrace, _to_array, backward_pass_closed
from tjit.transforms.batching import BatchTrace, BatchTracer, batching_axis_name
from tjit.transforms.float0 import rule_tangent_in, tangent_dtype
from tjit.transforms.partial_eval import LinearizeTrace
from tjit.transforms import custom_vjp_refs as _vjp_refs


# -- public helper types -------------------------------------------------------------------
class SymbolicZero:
    """A zero tangent/cotangent handed to rules defined with ``symbolic_zeros=True``.

    Has the ``shape``/``dtype``/``aval`` of the zero; ``instantiate()`` makes the array.
    A rule may also return one for an output tangent that is zero.
    """

    def __init__(self, aval):
        self.aval = tangent_aval(aval)

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: tangent_dtype(self.aval.dtype))  # float0 for ints
    ndim = property(lambda self: len(self.aval.shape))

    def instantiate(self):
        return rule_tangent_in(self.aval, Zero(self.aval))

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


class CustomVJPPrimal:
    """An input of a ``custom_vjp`` fwd rule defined with ``symbolic_zeros=True``:
    ``value`` and whether it is ``perturbed`` (has a non-zero tangent)."""

    def __init__(self, value, perturbed):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def zero_from_primal(x, symbolic_zeros=False):
    """A zero tangent for the pytree ``x`` (symbolic or instantiated)."""
    def one(v):
        z = SymbolicZero(get_aval(_to_array(v)))
        return z if symbolic_zeros else z.instantiate()
    return tree_unflatten(tree_flatten(x)[1], [one(v) for v in tree_flatten(x)[0]])


# -- shared helpers ------------------------------------------------------------------------
def _name(f):
    return getattr(f, "__name__", type(f).__name__)


def resolve_kwargs(fun, args, kwargs, what):
    """Keyword arguments moved to their positions and defaults filled in (custom rules
    see all arguments, positionally), as JAX does."""
    if not kwargs and _plain_arity(fun) == len(args):
        return tuple(args)   # (every parameter given, by position: nothing to resolve)
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):  # builtins without a signature
        if kwargs:
            raise TypeError(f"{what} function {_name(fun)}: cannot resolve keyword "
                            f"arguments {sorted(kwargs)}; pass them positionally") from None
        return tuple(args)
    try:
        ba = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{what} function {_name(fun)}: {e}") from None
    ba.apply_defaults()
    if ba.kwargs:
        raise TypeError(f"{what} function {_name(fun)}: keyword arguments "
                        f"{sorted(ba.kwargs)} could not be resolved to positions; pass "
                        f"them positionally")
    return ba.args


#: function -> how many parameters it has when all are plain positional ones (no
#: ``*args``, keyword-only or ``**kwargs``), else -1: ``inspect.signature`` costs ~10 us,
#: and a custom_jvp function runs this on every call (weak keys: closures come and go)
_arities = weakref.WeakKeyDictionary()

_PLAIN_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _plain_arity(fun):
    try:
        return _arities[fun]
    except (KeyError, TypeError):   # (TypeError: not weakly referable)
        pass
    try:
        params = inspect.signature(fun).parameters.values()
        n = len(params) if all(p.kind in _PLAIN_KINDS for p in params) else -1
    except (TypeError, ValueError):  # no signature: resolve_kwargs's own path decides
        n = -1
    try:
        _arities[fun] = n
    except TypeError:
        pass
    return n


def _leaf_array(x, what, fname, i):
    if isinstance(x, (Array, Tracer)):
        return x
    try:
        return _to_array(x)
    except TypeError:
        raise TypeError(f"{what} function {fname}: argument {i} contains a leaf of type "
                        f"{type(x).__name__} ({x!r:.60}) that is not an array; list "
                        f"non-array arguments in nondiff_argnums") from None


def trace_flat(flat_fun, avals, name):
    """Trace ``flat_fun`` and hoist its consts: (ClosedJaxpr without consts, consts)."""
    jaxpr, consts = convert_constvars_jaxpr(trace_to_jaxpr(flat_fun, avals, name))
    return ClosedJaxpr(jaxpr, []), consts


def _is_array_leaf(x):
    return isinstance(x, (Array, Tracer, np.ndarray))


class _ArgSplit:
    """The positional arguments split into nondiff ones (whose array leaves are dynamic
    operands and other leaves static) and differentiable pytrees of arrays."""

    def __init__(self, args, nondiff_argnums, what, fname):
        n = len(args)
        self.nondiff = tuple(sorted(nondiff_argnums))  # resolved by _nondiff_at_call
        self.n = n
        self.diff = tuple(i for i in range(n) if i not in self.nondiff)
        self.nd_trees, self.nd_static, nd_dyn = [], [], []
        for i in self.nondiff:
            leaves, tree = tree_flatten(args[i])
            self.nd_trees.append(tree)
            self.nd_static.append([None if _is_array_leaf(x) else x for x in leaves])
            nd_dyn.extend(_to_array(x) for x in leaves if _is_array_leaf(x))
        self.nd_dyn = nd_dyn
        diff_args = tuple(args[i] for i in self.diff)
        leaves, self.diff_tree = tree_flatten(diff_args)
        self.diff_leaves = [_leaf_array(x, what, fname, i) for x, i in
                            zip(leaves, _leaf_positions(diff_args, self.diff))]
        self.diff_avals = [get_aval(x) for x in self.diff_leaves]

    def nondiff_values(self, dyn):
        it, out = iter(dyn), []
        for tree, static in zip(self.nd_trees, self.nd_static):
            out.append(tree_unflatten(tree, [next(it) if s is None else s for s in static]))
        return out

    def diff_values(self, leaves):
        return tree_unflatten(self.diff_tree, list(leaves))

    def rebuild(self, dyn, leaves):
        full = [None] * self.n
        for i, v in zip(self.nondiff, self.nondiff_values(dyn)):
            full[i] = v
        for i, v in zip(self.diff, self.diff_values(leaves)):
            full[i] = v
        return full


def _nondiff_argnums(fun, nondiff_argnums, what):
    """``nondiff_argnums`` checked when the rule is applied: their type, and their range
    when the signature fixes the number of positional arguments (the usual case)."""
    fname = _name(fun)
    where = f"{what}({fname})"
    params = _argnums.Params(fun)
    nums = _argnums.as_index_tuple(nondiff_argnums, "nondiff_argnums", where)
    if params.fixed_arity:
        nums = _argnums.normalize_argnums(nums, params, "nondiff_argnums", where, fname,
                                          by_name=False)
    return nums, params


def _check_rules(fun, what, method, **rules):
    for name, rule in rules.items():
        if not callable(rule):
            raise TypeError(f"{what}({_name(fun)}).{method}: the {name} rule must be a "
                            f"callable, got {type(rule).__name__} {rule!r:.60}")


def _nondiff_at_call(f, args, what):
    """The non-negative nondiff positions for a call (``*args`` functions are checked
    here); ``args`` are all positional, keywords resolved."""
    fname = _name(f.fun)
    return _argnums.resolve_at_call(f.nondiff_argnums, len(args), "nondiff_argnums",
                                    f"{what}({fname})", fname, f._params)


def _leaf_positions(diff_args, positions):
    out = []
    for a, i in zip(diff_args, positions):
        out.extend([i] * len(tree_flatten(a)[0]))
    return out


def _check_out_leaves(leaves, avals, what, fname, rule):
    """Rule outputs must have the function's output shapes and dtypes."""
    out = []
    for i, (x, a) in enumerate(zip(leaves, avals)):
        x = _to_array(x)
        b = get_aval(x)
        if tuple(b.shape) != tuple(a.shape) or (b.dtype != a.dtype and not b.weak_type):
            raise TypeError(f"{what} rule {rule} for function {fname} must produce primal "
                            f"outputs with the function's shapes and dtypes, but output {i} "
                            f"is {b.str_short()} where the function gives {a.str_short()}")
        out.append(x)
    return out


def _tangent_leaf(t, primal, what, fname, i):
    """A rule's output tangent as a Zero or an array of the primal's tangent type."""
    pa = tangent_aval(get_aval(primal))
    if isinstance(t, SymbolicZero) or t is None:
        return Zero(pa)
    if not dtypes.has_tangent_space(pa.dtype):  # an integer output: a float0 tangent
        if not dtypes.is_float0(t) or tuple(np.shape(t)) != tuple(pa.shape):
            got = ("float0" + str(list(np.shape(t))).replace(" ", "")
                   if dtypes.is_float0(t) else get_aval(_to_array(t)).str_short())
            raise TypeError(f"Custom JVP rule for {what} function {fname} must produce primal "
                            f"and tangent outputs with corresponding shapes and dtypes, but "
                            f"output {i} is primal {pa.str_short()} with tangent {got}, "
                            f"expecting tangent float0{list(pa.shape)}; return "
                            f"np.zeros({tuple(pa.shape)}, tjit.dtypes.float0) (or None)")
        return Zero(pa)
    if dtypes.is_float0(t):
        raise TypeError(f"Custom JVP rule for {what} function {fname}: output {i} is primal "
                        f"{pa.str_short()} with a float0 tangent; float0 tangents are for "
                        f"integer or boolean outputs only")
    t = _to_array(t)
    ta = get_aval(t)
    if tuple(ta.shape) != tuple(pa.shape):
        raise TypeError(f"Custom JVP rule for {what} function {fname} must produce primal and "
                        f"tangent outputs with corresponding shapes and dtypes, but output "
                        f"{i} has primal type {pa.str_short()} and tangent type "
                        f"{ta.str_short()}")
    if ta.dtype != pa.dtype:
        if not ta.weak_type:
            raise TypeError(f"Custom JVP rule for {what} function {fname} must produce "
                            f"tangent outputs of the primal dtype, but output {i} has "
                            f"primal type {pa.str_short()} and tangent type {ta.str_short()}"
                            f"; cast the tangent with .astype({pa.dtype.name})")
        t = convert_element_type_p.bind(t, new_dtype=pa.dtype, weak_type=False)
    return t


def _zero_for_rule(t, symbolic_zeros):
    """A tangent or cotangent as a rule sees it: zeros (float0 ones for an integer or
    boolean value, whose tangents are always zero) or SymbolicZeros."""
    if type(t) is not Zero and dtypes.has_tangent_space(get_aval(t).dtype):
        return t
    z = Zero(tangent_aval(get_aval(t) if type(t) is not Zero else t.aval))
    return SymbolicZero(z.aval) if symbolic_zeros else rule_tangent_in(z.aval, z)


# -- custom_jvp ----------------------------------------------------------------------------
class custom_jvp:
    """Give a function a custom forward-mode derivative rule (``jax.custom_jvp``).

    Args:
      fun: the primal function.
      nondiff_argnums: positions of arguments that are not differentiated (e.g. Python
        callables or ints); they are passed first to the jvp rule.

    Define the rule with ``f.defjvp(rule)`` where ``rule(*nondiff, primals, tangents)``
    returns ``(primal_out, tangent_out)``, or with ``f.defjvps(*fns)`` where
    ``fns[i](g_i, ans, *primals)`` is argument i's contribution (None: no contribution).
    Reverse mode works too: the rule is linearized and transposed.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums, self._params = _nondiff_argnums(fun, nondiff_argnums,
                                                              "custom_jvp")
        self.jvp = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defjvp(self, jvp, symbolic_zeros=False):
        """Set the jvp rule ``jvp(*nondiff_args, primals, tangents) -> (out, t_out)``.
        With ``symbolic_zeros=True`` zero tangents arrive as :class:`SymbolicZero`."""
        _check_rules(self.fun, "custom_jvp", "defjvp", jvp=jvp)
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument: ``jvps[i](g, ans, *primals)`` is the output tangent's
        part from argument i's tangent ``g`` (None: argument i does not contribute)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            ans = self(*primals)
            total = None
            for fn, t in zip(jvps, tangents):
                t_leaves, t_tree = tree_flatten(t, is_leaf=_is_symbolic)
                if fn is None or all(isinstance(x, SymbolicZero) for x in t_leaves):
                    continue
                t = tree_unflatten(t_tree, [x.instantiate() if isinstance(x, SymbolicZero)
                                            else x for x in t_leaves])
                part = fn(t, ans, *primals)
                total = part if total is None else _tree_add(total, part)
            return ans, (zero_from_primal(ans, True) if total is None else total)
        self.defjvp(jvp, symbolic_zeros=True)  # returns None, as JAX's defjvps

    def __call__(self, *args, **kwargs):
        fname = _name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {fname} using "
                                 f"defjvp.")
        args = resolve_kwargs(self.fun, args, kwargs, "custom_jvp")
        nondiff = _nondiff_at_call(self, args, "custom_jvp")
        trace = current_trace()
        if _all_known(trace, args):
            with set_current_trace(trace.parent):
                return self(*args)
        if isinstance(trace, EvalTrace):  # the function runs on arrays, as under jit
            return _eager_call(self.fun, args, nondiff, "custom_jvp", fname)
        split = _ArgSplit(args, nondiff, "custom_jvp", fname)
        store = {}
        flat_jvp = self._flat_jvp(split, store, fname)
        nd, leaves = split.nd_dyn, split.diff_leaves
        if isinstance(trace, JVPTrace) and _has_tangent(trace, leaves):
            return self._jvp_now(trace, split, store, flat_jvp, nd, leaves)

        def flat_fun(*operands):
            out = self.fun(*split.rebuild(operands[:len(nd)], operands[len(nd):]))
            outs, store["tree"] = tree_flatten(out)
            store["avals"] = [get_aval(_to_array(o)) for o in outs]
            return outs
        closed, consts = trace_flat(flat_fun, [get_aval(x) for x in nd + leaves], fname)
        outs = custom_jvp_call_p.bind(*consts, *nd, *leaves, call_jaxpr=closed, jvp=flat_jvp,
                                      num_consts=len(consts), num_nondiff=len(nd),
                                      symbolic_zeros=self.symbolic_zeros, name=fname)
        return tree_unflatten(store["tree"], outs)

    def _jvp_now(self, trace, split, store, flat_jvp, nd, leaves):
        """Under a JVPTrace with some non-zero tangent: run the rule directly (no need to
        trace the primal function)."""
        nd_p = [trace.to_pair(x)[0] for x in nd]  # nondiff tangents are dropped
        pairs = [trace.to_pair(x) for x in leaves]
        with set_current_trace(trace.parent):
            outs, t_outs = flat_jvp(nd_p, [p for p, _ in pairs], [t for _, t in pairs])
        return tree_unflatten(store["tree"], [trace.wrap(o, t) for o, t in zip(outs, t_outs)])

    def _flat_jvp(self, split, store, fname):
        rule = _name(self.jvp)
        symbolic = self.symbolic_zeros

        def flat_jvp(nondiff_dyn, primals, tangents):
            nondiff = split.nondiff_values(nondiff_dyn)
            p_args = split.diff_values(primals)
            t_args = split.diff_values([_zero_for_rule(t, symbolic) for t in tangents])
            out = self.jvp(*nondiff, tuple(p_args), tuple(t_args))
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"Custom JVP rule {rule} for function {fname} must produce a "
                                f"pair (list or tuple of length two) representing primal and "
                                f"tangent outputs, but got {out!r:.80}")
            p_out, t_out = out
            p_leaves, p_tree = tree_flatten(p_out)
            t_leaves, t_tree = tree_flatten(t_out, is_leaf=_is_symbolic)
            if "tree" in store and p_tree != store["tree"]:
                raise TypeError(f"Custom JVP rule {rule} for function {fname} must produce "
                                f"primal outputs with the same container (pytree) structure "
                                f"as the function, got {p_tree} where the function gives "
                                f"{store['tree']}")
            if p_tree != t_tree:
                raise TypeError(f"Custom JVP rule {rule} for function {fname} must produce "
                                f"primal and tangent outputs with equal container (pytree) "
                                f"structures, but got {p_tree} and {t_tree} respectively.")
            store.setdefault("tree", p_tree)
            avals = store.get("avals") or [get_aval(_to_array(x)) for x in p_leaves]
            p_leaves = _check_out_leaves(p_leaves, avals, "Custom JVP", fname, rule)
            t_leaves = [_tangent_leaf(t, p, "custom_jvp", fname, i)
                        for i, (t, p) in enumerate(zip(t_leaves, p_leaves))]
            return p_leaves, t_leaves
        flat_jvp.__name__ = rule   # (the jaxpr printer shows the user's rule)
        return flat_jvp


def _eager_call(fun, args, nondiff, what, fname):
    """``fun`` on ``args`` outside any transformation, as JAX runs it: each leaf as given
    (a Python scalar stays one, so ``f(1.0)`` may return the Python float ``x ** 2``
    computes), NumPy arrays with their dtype canonicalized (float64 -> float32 without
    x64), once every differentiable leaf is checked to be an array or a scalar."""
    leaves, tree = tree_flatten(args)
    if all(type(x) is Array for x in leaves):  # the usual case: as is
        return fun(*args)
    _ArgSplit(args, nondiff, what, fname)   # (raises for a leaf that is not an array)
    return fun(*tree_unflatten(tree, [canonical_numpy(x) for x in leaves]))


def canonical_numpy(x):
    """``x`` as JAX hands it to a function called eagerly: a NumPy leaf with its dtype
    canonicalized (float64 -> float32 without x64), anything else as it is."""
    if isinstance(x, (np.ndarray, np.generic)):
        dt = dtypes.canonicalize(x.dtype)
        return x if x.dtype == dt else x.astype(dt)
    return x


def _all_known(trace, args):
    """Under linearization with every argument known (e.g. ``f(x)`` called inside a jvp rule
    under ``grad``): the call belongs to the parent trace, as in JAX's partial evaluation
    (JaxprTrace.process_custom_jvp_call), so at concrete points the function and its
    rules may branch on values in Python."""
    return isinstance(trace, LinearizeTrace) and \
        not any(trace.is_unknown(x) for x in tree_flatten(args)[0])


def _has_tangent(trace, leaves):
    # Without one, the traced path runs: it also catches closures over differentiated
    # values (they become operands of the call primitive, with non-zero tangents).
    return any(type(trace.to_pair(x)[1]) is not Zero for x in leaves)


def _is_symbolic(x):
    return isinstance(x, SymbolicZero) or x is None


def _tree_add(a, b):
    la, ta = tree_flatten(a, is_leaf=_is_symbolic)
    lb, tb = tree_flatten(b, is_leaf=_is_symbolic)
    if ta != tb:
        raise TypeError(f"custom_jvp defjvps: the rules' outputs have different structures "
                        f"{ta} and {tb}")
    out = []
    for x, y in zip(la, lb):
        if _is_symbolic(x):
            out.append(y)
        elif _is_symbolic(y):
            out.append(x)
        else:
            out.append(add_p.bind(_to_array(x), _to_array(y)))
    return tree_unflatten(ta, out)


# -- custom_vjp ----------------------------------------------------------------------------
class custom_vjp:
    """Give a function a custom reverse-mode derivative rule (``jax.custom_vjp``).

    Args:
      fun: the primal function.
      nondiff_argnums: positions of non-array arguments (callables, ints...); they are
        passed to ``fwd`` in place and first to ``bwd``. They must not be traced values.

    Define the rule with ``f.defvjp(fwd, bwd)``: ``fwd(*args) -> (out, residuals)`` and
    ``bwd(*nondiff, residuals, out_cotangent) -> tuple`` with one cotangent per
    (differentiable) argument (None for a zero cotangent). Forward mode (jvp, jacfwd)
    is not available for such a function, as in JAX.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums, self._params = _nondiff_argnums(fun, nondiff_argnums,
                                                              "custom_vjp")
        self.fwd = self.bwd = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Set the rules. With ``symbolic_zeros=True`` ``fwd`` receives
        :class:`CustomVJPPrimal` leaves and ``bwd`` may receive :class:`SymbolicZero`
        cotangents."""
        _check_rules(self.fun, "custom_vjp", "defvjp", fwd=fwd, bwd=bwd)
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = symbolic_zeros

    def __call__(self, *args, **kwargs):
        fname = _name(self.fun)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {fname} using "
                                 f"defvjp.")
        args = resolve_kwargs(self.fun, args, kwargs, "custom_vjp")
        if any(type(a) is Ref for a in args):   # plumbing refs: custom_vjp_refs.py
            return _vjp_refs.call(self, args)
        nondiff = _nondiff_at_call(self, args, "custom_vjp")
        _check_nondiff_not_traced(args, nondiff, fname)
        trace = current_trace()
        if _all_known(trace, args):
            with set_current_trace(trace.parent):
                return self(*args)
        if isinstance(trace, EvalTrace):  # the function runs on arrays, as under jit
            return _eager_call(self.fun, args, nondiff, "custom_vjp", fname)
        split = _ArgSplit(args, nondiff, "custom_vjp", fname)
        store = {}
        fwd = self._flat_fwd(split, store, fname)
        bwd = self._flat_bwd(split, store, fname, mesh_bindings())
        leaves = split.diff_leaves
        nd = split.nd_dyn
        if isinstance(trace, JVPTrace) and _has_tangent(trace, leaves):
            pairs = [trace.to_pair(x) for x in leaves]
            with set_current_trace(trace.parent):
                outs, t_outs = custom_vjp_call_p.jvp(
                    [p for p, _ in pairs], [t for _, t in pairs], call_jaxpr=None, fwd=fwd,
                    bwd=bwd, num_consts=0, symbolic_zeros=self.symbolic_zeros, name=fname)
            return tree_unflatten(store["tree"], [trace.wrap(o, t)
                                                  for o, t in zip(outs, t_outs)])

        def flat_fun(*ls):
            outs, store["tree"] = tree_flatten(self.fun(*split.rebuild(nd, ls)))
            store["avals"] = [get_aval(_to_array(o)) for o in outs]
            return outs
        closed, consts = trace_flat(flat_fun, split.diff_avals, fname)
        outs = custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=closed, fwd=fwd, bwd=bwd,
                                      num_consts=len(consts),
                                      symbolic_zeros=self.symbolic_zeros, name=fname)
        return tree_unflatten(store["tree"], outs)

    def _flat_fwd(self, split, store, fname):
        rule = _name(self.fwd)

        def flat_fwd(leaves, perturbed):
            if self.symbolic_zeros:
                leaves = [CustomVJPPrimal(x, p) for x, p in zip(leaves, perturbed)]
            out = self.fwd(*split.rebuild(split.nd_dyn, leaves))
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(
                    f"Custom VJP fwd rule {rule} for function {fname} must produce a pair "
                    f"(list or tuple of length two) where the first element represents the "
                    f"primal output (equal to the output of the custom_vjp-decorated "
                    f"function {fname}) and the second element represents residuals, but "
                    f"instead the fwd rule produced {out!r:.80}")
            p_out, res = out
            p_leaves, p_tree = tree_flatten(p_out)
            if "tree" in store and p_tree != store["tree"]:
                raise TypeError(f"Custom VJP fwd rule {rule} for function {fname} must "
                                f"produce a primal output with the same container (pytree) "
                                f"structure as the function: got {p_tree} where the "
                                f"function gives {store['tree']}")
            store.setdefault("tree", p_tree)
            avals = store.get("avals") or [get_aval(_to_array(x)) for x in p_leaves]
            store.setdefault("avals", avals)
            p_leaves = _check_out_leaves(p_leaves, avals, "Custom VJP fwd", fname, rule)
            res_leaves, store["res_tree"] = tree_flatten(res)
            res_leaves = [_residual(r, rule, fname) for r in res_leaves]
            return p_leaves, res_leaves
        flat_fwd.__name__ = rule   # (the jaxpr printer shows the user's rule)
        return flat_fwd

    def _flat_bwd(self, split, store, fname, axes_in_scope):
        rule = _name(self.bwd)

        def flat_bwd(res_leaves, cts):
            res = tree_unflatten(store["res_tree"], list(res_leaves))
            cts = [_zero_for_rule(c, self.symbolic_zeros) for c in cts]
            ct = tree_unflatten(store["tree"], cts)
            # (transposed after the call's scope closed: its mesh axes, bound again, keep
            # serving the collectives bwd runs)
            with rebind(axes_in_scope):
                out = self.bwd(*split.nondiff_values(split.nd_dyn), res, ct)
            return _bwd_cotangents(out, split, rule, fname)
        flat_bwd.__name__ = rule   # (the jaxpr printer shows the user's rule)
        return flat_bwd


def _residual(r, rule, fname):
    try:
        return _to_array(r)
    except TypeError:
        raise TypeError(f"Custom VJP fwd rule {rule} for function {fname}: residuals must be "
                        f"arrays (or pytrees of arrays), got a {type(r).__name__} "
                        f"({r!r:.60}); close over static values in bwd instead") from None


def _bwd_cotangents(out, split, rule, fname):
    """Flatten bwd's output to one cotangent (or Zero) per differentiable leaf."""
    n = len(split.diff)
    if isinstance(out, list):
        out = tuple(out)
    if not isinstance(out, tuple) or len(out) != n:
        got = f"a tuple of length {len(out)}" if isinstance(out, tuple) else \
            f"a {type(out).__name__}"
        raise TypeError(f"Custom VJP bwd rule {rule} for function {fname} must produce a "
                        f"tuple of length equal to the number of differentiable arguments "
                        f"of the primal function ({n}), but got {got}")
    primal_args = split.diff_values(split.diff_avals)
    flat = []
    for k, (ct, arg) in enumerate(zip(out, primal_args)):
        a_leaves, a_tree = tree_flatten(arg, is_leaf=lambda x: isinstance(x, ShapedArray))
        if ct is None:
            flat.extend(Zero(tangent_aval(a)) for a in a_leaves)
            continue
        # JAX's rule: a None (or symbolic zero) anywhere in bwd's output is a zero
        # cotangent for the whole subtree of the argument there, so the output's structure
        # need only be a prefix of the argument's down to those Nones
        c_leaves, c_tree = tree_flatten(ct, is_leaf=_is_symbolic)
        try:
            subtrees = c_tree.flatten_up_to(arg)
        except ValueError:
            subtrees = None
        if subtrees is None or any(not _is_symbolic(c) and not isinstance(a, ShapedArray)
                                   for c, a in zip(c_leaves, subtrees)):
            raise TypeError(f"Custom VJP bwd rule {rule} for function {fname} must produce "
                            f"an output with the same container (pytree) structure as the "
                            f"args tuple of the primal function, but for argument {k} it "
                            f"gave {c_tree} where the argument is {a_tree} (None stands "
                            f"for a zero cotangent of any subtree)")
        for c, a in zip(c_leaves, subtrees):
            if _is_symbolic(c):
                flat.extend(Zero(tangent_aval(x)) for x in tree_flatten(
                    a, is_leaf=lambda x: isinstance(x, ShapedArray))[0])
            else:
                flat.append(_cotangent_leaf(c, a, rule, fname, k))
    return flat


def _cotangent_leaf(c, a, rule, fname, k):
    ta = tangent_aval(a)
    if _is_symbolic(c):
        return Zero(ta)
    if not dtypes.has_tangent_space(ta.dtype):
        # an integer or boolean argument: any zero of its shape is taken, float0 included
        # (JAX's rule); what bwd computed for it is dropped
        shape = np.shape(c) if dtypes.is_float0(c) else tuple(get_aval(_to_array(c)).shape)
        if tuple(shape) != tuple(ta.shape):
            raise ValueError(f"Custom VJP bwd rule {rule} for function {fname} must produce "
                             f"an output with the same shapes as the args tuple of the "
                             f"primal function, but for argument {k} the bwd rule produced "
                             f"an output of shape {tuple(shape)} corresponding to an input "
                             f"of shape/dtype {ta.str_short()}")
        return Zero(ta)
    if dtypes.is_float0(c):
        raise ValueError(f"Custom VJP bwd rule {rule} for function {fname}: for argument {k} "
                         f"(shape/dtype {ta.str_short()}) the bwd rule produced a float0 "
                         f"cotangent; float0 is for integer or boolean arguments only")
    c = _to_array(c)
    ca = get_aval(c)
    if tuple(ca.shape) != tuple(ta.shape) or (ca.dtype != ta.dtype and not ca.weak_type):
        raise ValueError(f"Custom VJP bwd rule {rule} for function {fname} must produce an "
                         f"output with the same shape/dtypes as the args tuple of the primal "
                         f"function, but for argument {k} the bwd rule produced an output "
                         f"of shape/dtype {ca.str_short()} corresponding to an input of "
                         f"shape/dtype {ta.str_short()}")
    if ca.dtype != ta.dtype:
        c = convert_element_type_p.bind(c, new_dtype=ta.dtype, weak_type=False)
    return c


def _check_nondiff_not_traced(args, nondiff_argnums, fname):
    for i in nondiff_argnums:
        if any(isinstance(x, Tracer) for x in tree_flatten(args[i])[0]):
            raise TypeError(
                f"Found a traced value passed as argument {i} to the custom_vjp function "
                f"{fname}, a position indicated by nondiff_argnums as non-differentiable. "
                f"Traced values cannot be passed as non-differentiable arguments to "
                f"custom_vjp functions; nondiff_argnums should only be used for arguments "
                f"that can't be or contain arrays being transformed, e.g. function-valued "
                f"arguments. Pass array-valued arguments as ordinary arguments.")


# -- vmap helpers (also used by checkpoint) -----------------------------------------------------
def vmap_flat(fn, args, dims, size, force=True, name="vmap"):
    """Run ``fn(*args)`` (flat lists) batched: ``dims[i]`` is the batch axis of
    ``args[i]`` or None. Returns ``(outs, out_dims)``; batched outputs have their batch
    axis first, and with ``force`` unbatched ones are broadcast (so all dims are 0)."""
    trace = BatchTrace(current_trace(), size, batching_axis_name(), name)
    ins = [a if d is None else BatchTracer(trace, a, d) for a, d in zip(args, dims)]
    try:
        with set_current_trace(trace):
            outs = fn(*ins)
        pairs = [trace.to_batched(o) for o in outs]
    finally:
        trace.invalidate()
    res, out_dims = [], []
    for val, d in pairs:
        if d is None and not force:
            res.append(val)
            out_dims.append(None)
        else:
            res.append(bdim_at_front(_to_array(val), d, size))
            out_dims.append(0)
    return res, out_dims


def batch_jaxpr(closed, args, dims, size, force=False, name="batched"):
    """Trace ``closed`` batched over ``args`` (batch axes ``dims``).

    Returns ``(batched ClosedJaxpr without consts, consts, out_dims)``; the batched
    jaxpr takes ``*consts, *args``.
    """
    store = {}

    def flat(*vals):
        outs, store["dims"] = vmap_flat(
            lambda *a: eval_jaxpr(closed.jaxpr, closed.consts, *a), vals, dims, size,
            force, name)
        return outs
    new, consts = trace_flat(flat, [get_aval(a) for a in args], name)
    return new, consts, store["dims"]


def batch_size_and_front(args, dims):
    """The batch size, and ``args`` with every batch axis moved to the front."""
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    moved = [a if d is None else moveaxis(a, d, 0) for a, d in zip(args, dims)]
    return size, moved, [None if d is None else 0 for d in dims]


# -- batching rules of the call primitives -------------------------------------------------------
def _custom_jvp_call_batch(args, dims, *, call_jaxpr, jvp, num_consts, num_nondiff,
                           symbolic_zeros, name):
    size, args, dims = batch_size_and_front(args, dims)
    new, consts, _ = batch_jaxpr(call_jaxpr, args, dims, size, force=True, name=name)
    k = num_consts + num_nondiff
    nd_dims, p_dims = dims[num_consts:k], dims[k:]
    n_out = len(call_jaxpr.out_avals)

    def batched_jvp(nondiff, primals, tangents):
        nz = [type(t) is not Zero for t in tangents]
        t_nz = [t for t in tangents if type(t) is not Zero]
        store = {}

        def inner(*flat):
            nd, ps = flat[:len(nondiff)], flat[len(nondiff):len(nondiff) + len(primals)]
            it = iter(flat[len(nondiff) + len(primals):])
            ts = [next(it) if z else Zero.from_value(p) for p, z in zip(ps, nz)]
            outs, t_outs = jvp(list(nd), list(ps), ts)
            store["zero"] = [type(t) is Zero for t in t_outs]
            return list(outs) + [t for t in t_outs if type(t) is not Zero]
        t_dims = [d for d, z in zip(p_dims, nz) if z]
        res, _ = vmap_flat(inner, list(nondiff) + list(primals) + t_nz,
                           list(nd_dims) + list(p_dims) + t_dims, size, name=name)
        outs, it = res[:n_out], iter(res[n_out:])
        return outs, [Zero.from_value(o) if z else next(it)
                      for o, z in zip(outs, store["zero"])]

    outs = custom_jvp_call_p.bind(*consts, *args, call_jaxpr=new, jvp=batched_jvp,
                                  num_consts=len(consts) + num_consts, num_nondiff=num_nondiff,
                                  symbolic_zeros=symbolic_zeros, name=name)
    return outs, [0] * len(outs)


def _custom_vjp_call_batch(args, dims, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros,
                           name):
    size, args, dims = batch_size_and_front(args, dims)
    new, consts, _ = batch_jaxpr(call_jaxpr, args, dims, size, force=True, name=name)
    a_dims = dims[num_consts:]
    a_avals = [get_aval(a) for a in args[num_consts:]]
    n_out = len(call_jaxpr.out_avals)
    store = {}

    def batched_fwd(leaves, perturbed):
        def inner(*a):
            outs, res = fwd(list(a), perturbed)
            store["n_res"] = len(res)
            return list(outs) + list(res)
        r, _ = vmap_flat(inner, list(leaves), a_dims, size, name=name)
        return r[:n_out], r[n_out:]

    def batched_bwd(res, cts):
        nz = [type(c) is not Zero for c in cts]
        zero = {}

        def inner(*flat):
            rs, it = flat[:len(res)], iter(flat[len(res):])
            cs = [next(it) if z else Zero(ShapedArray(c.aval.shape[1:], c.aval.dtype))
                  for c, z in zip(cts, nz)]
            out = bwd(list(rs), cs)
            zero["mask"] = [type(c) is Zero for c in out]
            return [c for c in out if type(c) is not Zero]
        c_nz = [c for c in cts if type(c) is not Zero]
        r, _ = vmap_flat(inner, list(res) + c_nz, [0] * (len(res) + len(c_nz)), size,
                         name=name)
        it, out = iter(r), []
        for z, d, a in zip(zero["mask"], a_dims, a_avals):
            if z:
                out.append(Zero(tangent_aval(a)))
            elif d is None:  # an unbatched input: its cotangent sums over the batch
                out.append(reduce_sum_p.bind(next(it), axes=(0,)))
            else:
                out.append(next(it))
        return out

    outs = custom_vjp_call_p.bind(*consts, *args, call_jaxpr=new, fwd=batched_fwd,
                                  bwd=batched_bwd, num_consts=len(consts) + num_consts,
                                  symbolic_zeros=symbolic_zeros, name=name)
    return outs, [0] * len(outs)


custom_jvp_call_p.batch = _custom_jvp_call_batch


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, jvp, num_consts, num_nondiff,
                               symbolic_zeros, name):
    """A custom_jvp call on linear operands (a rule's tangent output that calls a
    custom_jvp function, e.g. custom_linear_solve's tangent solve under grad): in a linear
    context the rule is no longer needed and the function itself is transposed, as JAX's
    partial evaluation inlines it (JaxprTrace.process_custom_jvp_call)."""
    lin_mask = [is_undefined_primal(a) for a in args]
    known_vals = [a for a, u in zip(args, lin_mask) if not u]
    cts_in = iter(backward_pass_closed(call_jaxpr, lin_mask, known_vals, list(cts)))
    return [next(cts_in) if u else None for u in lin_mask]


custom_jvp_call_p.transpose = _custom_jvp_call_transpose

custom_vjp_call_p.batch = _custom_vjp_call_batch

# calling a custom_jvp/custom_vjp function is a public entry point (JAX: api_boundary on
# __call__): what it raises ends in the user's code
custom_jvp.__call__ = eager_boundary(custom_jvp.__call__, "")
custom_vjp.__call__ = eager_boundary(custom_vjp.__call__, "")


def forward_attr(self, name):
    """An attribute the wrapper lacks comes from the wrapped function (JAX's
    ``forward_attr``), so stacked decorators compose: ``custom_vjp(custom_vmap(f))``
    still has ``def_vmap``."""
    fun = self.__dict__.get("fun")
    if fun is None:  # not set up yet (e.g. while copying)
        raise AttributeError(name)
    return getattr(fun, name)


custom_jvp.__getattr__ = custom_vjp.__getattr__ = forward_attr

__all__ = ["custom_jvp", "custom_vjp", "SymbolicZero", "CustomVJPPrimal", "zero_from_primal",
           "vmap_flat", "batch_jaxpr", "trace_flat", "resolve_kwargs", "forward_attr"]
