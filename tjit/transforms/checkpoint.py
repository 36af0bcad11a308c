"""Gradient checkpointing (rematerialization): ``checkpoint`` / ``remat`` with JAX's
policies, ``checkpoint_name`` and ``print_saved_residuals``.

``checkpoint(f)`` traces ``f`` into a jaxpr and binds ``checkpoint_p`` on it. Its rules:

* jvp: the body's jvp, traced into a jaxpr, inside a new ``checkpoint_p`` (so reverse
  mode still sees the boundary);
* partial eval (reverse mode, the ``LinearizeTrace`` hook): the body runs under a
  :class:`RematTrace`. Known (primal) equations are computed now, in the parent trace;
  for each, ``policy(prim, *in_avals, **params)`` says whether its outputs may be saved.
  Equations with unknown (tangent) inputs are recorded into a staged jaxpr, and when one
  reads a known value the policy did not save, the equations that compute it are
  recorded there too (recomputation), reading only saved values and the checkpoint's
  inputs. The staged jaxpr becomes one ``checkpoint_p`` equation of the linear jaxpr,
  its saved values its residual operands.
* transpose: the staged body's known equations (the recomputation, inside its own
  ``checkpoint_p`` when ``prevent_cse`` so that jit's CSE cannot merge it with the
  forward pass) run first, then the linear equations are transposed with
  :func:`~tjit.transforms.ad.backward_pass`. Recomputation thus happens in the backward
  pass, right where the values are needed.
* batching: the body batched into a new ``checkpoint_p``.

A nested checkpoint inside a checkpointed function applies both policies: a value is
saved only when the innermost policy saves it and the enclosing ones do too. Policies
are not applied inside control-flow bodies (cond/scan/while) within a checkpoint: their
partial evaluation saves what it needs.
"""

import functools
import inspect
import types
import weakref

from tjit.tracing.traceback_util import api_boundary
from tjit.tracing import argnums as _argnums
from tjit.tracing.core import Trace, Tracer, get_aval, is_eager, set_current_trace
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Literal, eval_jaxpr
from tjit.tracing.jaxpr_trace import JaxprTrace, trace_to_jaxpr
from tjit.tracing import source_info
from tjit.tracing.static_keys import static_key, typed_key
from tjit.tracing.tree_util import tree_flatten, tree_map, tree_unflatten
from tjit.primitives.ad_prims import checkpoint_name_p, checkpoint_p
from tjit.primitives.base import REGISTRY
from tjit.primitives.rules import Zero, is_undefined_primal, tangent_aval
from tjit.transforms.ad import _to_array, backward_pass, jvp_flat, linearize_flat
from tjit.transforms.custom_derivatives import batch_jaxpr, batch_size_and_front, trace_flat
from tjit.transforms.inline_call import signature, trace_context
from tjit.transforms.partial_eval import LinearizeTrace
from tjit.transforms.passes import dce


# -- policies --------------------------------------------------------------------------------
# A policy is ``policy(prim, *in_avals, **params) -> bool``: may this equation's output be
# saved for the backward pass (True) or must it be recomputed (False)?
def everything_saveable(*_, **__):
    """Save every intermediate value (no recomputation)."""
    return True


def nothing_saveable(*_, **__):
    """Save nothing but the checkpoint's inputs; recompute everything (the default)."""
    return False


_DOT_NAMES = ("dot_general", "conv_general_dilated")


def dots_saveable(prim, *_, **__):
    """Save the results of matrix products (dot_general, convolutions) only."""
    return prim.name in _DOT_NAMES and REGISTRY.get(prim.name) is prim


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim, *_, **params):
    """Save the results of dot_general with no batch dimensions only."""
    if prim.name == "dot_general" and REGISTRY.get("dot_general") is prim:
        (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
        return not lhs_b and not rhs_b
    return False


checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def save_only_these_names(*names):
    """Save only values named with ``checkpoint_name`` with one of ``names``."""
    names = frozenset(names)

    def policy(prim, *_, **params):
        return prim is checkpoint_name_p and params["name"] in names
    policy.__name__ = f"save_only_these_names{tuple(sorted(names))}"
    return policy


def save_any_names_but_these(*names):
    """Save named values (``checkpoint_name``) except those in ``names``; nothing else."""
    names = frozenset(names)

    def policy(prim, *_, **params):
        return prim is checkpoint_name_p and params["name"] not in names
    policy.__name__ = f"save_any_names_but_these{tuple(sorted(names))}"
    return policy


def save_anything_except_these_names(*names):
    """Save everything except values named with one of ``names``."""
    names = frozenset(names)

    def policy(prim, *_, **params):
        return not (prim is checkpoint_name_p and params["name"] in names)
    policy.__name__ = f"save_anything_except_these_names{tuple(sorted(names))}"
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst):
    """Save the values named in ``names_which_can_be_saved`` and offload those named in
    ``names_which_can_be_offloaded`` (from memory ``offload_src`` to ``offload_dst``);
    recompute the rest. tjit's devices have one memory space for residuals, so an
    offloaded value is kept where it is, like a saved one: the gradients are JAX's,
    the device memory is not relieved."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(f"The names should be exclusive and should not intersect in "
                         f"`names_which_can_be_saved` and `names_which_can_be_offloaded`. "
                         f"Got intersection={both}")
    policy = save_only_these_names(*(saved | offloaded))
    policy.__name__ = (f"save_and_offload_only_these_names(saved={tuple(sorted(saved))}, "
                       f"offloaded={tuple(sorted(offloaded))}, {offload_src}->{offload_dst})")
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    policy.__name__ = f"save_from_both_policies({_policy_name(policy_1)}, " \
                      f"{_policy_name(policy_2)})"
    return policy


def _policy_name(p):
    return getattr(p, "__name__", repr(p))


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_anything_except_these_names=save_anything_except_these_names,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
    save_from_both_policies=save_from_both_policies)


# -- user API ----------------------------------------------------------------------------------
class _Deprecated:
    """The default of ``concrete``, which JAX removed (v0.10.0) but still accepts unset."""

    def __repr__(self):
        return "Deprecated"


_DEPRECATED = _Deprecated()


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=(), static_argnames=(),
               concrete=_DEPRECATED):
    """Make ``fun`` recompute its intermediate values in the backward pass instead of
    saving them (``jax.checkpoint`` / ``jax.remat``).

    Args:
      fun: the function (pytrees of arrays in and out).
      prevent_cse: keep the recomputation apart from the forward pass under ``jit`` (it
        is placed in its own ``checkpoint`` equation), so it is not merged away.
      policy: ``policy(prim, *avals, **params) -> bool`` deciding which values may be
        saved, e.g. from :data:`checkpoint_policies`; None saves nothing but the inputs.
      static_argnums: positions of arguments that are Python values, not arrays.
      static_argnames: names of such arguments (passed by keyword or by position).
      concrete: removed from JAX in v0.10.0; only its unset default is accepted (use
        static_argnums instead).

    Returns:
      A function with the same values and gradients as ``fun``.
    """
    if not callable(fun):
        raise TypeError(f"checkpoint: expected a callable, got {type(fun).__name__}")
    fname = getattr(fun, "__name__", "checkpointed")
    where = f"checkpoint({fname})"
    if policy is not None and not callable(policy):
        raise TypeError(f"{where}: policy must be None or a callable "
                        f"policy(prim, *avals, **params) -> bool, such as "
                        f"checkpoint_policies.dots_saveable, got {type(policy).__name__} "
                        f"{policy!r:.60}")
    if concrete is not _DEPRECATED:
        raise NotImplementedError(
            "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2 and "
            "removed in v0.10.0; mark Python-valued arguments with static_argnums or "
            "static_argnames instead")
    statics = _argnums.as_index_tuple(static_argnums, "static_argnums", where)
    static_names = _argnums.as_name_tuple(static_argnames, "static_argnames", where)
    params = _argnums.Params(fun)
    if params.fixed_arity:  # an index past the signature can never pick an argument
        _argnums.normalize_argnums(statics, params, "static_argnums", where, fname,
                                   by_name=False)
    _argnums.check_argnames(static_names, params, "static_argnames", where, fname)
    # a static name also picks its parameter when that argument is passed by position
    named_positions = {i for i, k in enumerate(params.pos_names) if k in static_names}

    @api_boundary
    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        # as in JAX, negative indices count from the last positional argument passed
        static = set(_argnums.resolve_at_call(statics, len(args), "static_argnums", where,
                                              fname, params))
        n = len(args)
        static.update(i for i in named_positions if i < n)
        dyn = [a for i, a in enumerate(args) if i not in static]
        static_kw = {k: v for k, v in kwargs.items() if k in static_names}
        leaves, tree = tree_flatten((dyn, {k: v for k, v in kwargs.items()
                                           if k not in static_names}))
        leaves = [_dyn_leaf(x, fname) for x in leaves]
        store = {}

        def call(ls):
            d, kw = tree_unflatten(tree, ls)
            it = iter(d)
            return fun(*[args[i] if i in static else next(it) for i in range(n)], **kw,
                       **static_kw)
        if is_eager():  # nothing is being differentiated: run it on arrays, as under jit
            return call(leaves)

        def flat_fun(*ls):
            outs, store["tree"] = tree_flatten(call(ls))
            return outs
        key = _body_key(fun, tree, leaves, args, static, static_kw)

        def trace():
            # with source lines: the trace is kept and reused, and print_saved_residuals
            # names the line each saved value comes from (JAX's traces keep theirs too)
            with source_info.recording():
                traced = trace_flat(flat_fun, [get_aval(x) for x in leaves], fname)
            return (*traced, store["tree"])
        closed, consts, out_tree = _cached_trace(fun, key, trace)
        outs = checkpoint_p.bind(*consts, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                                 differentiated=False, policy=policy)
        return tree_unflatten(out_tree, outs)
    return fun_remat


remat = checkpoint  # JAX's remat is checkpoint without static_argnames


# -- trace caches ------------------------------------------------------------------------------
# As JAX's (``_trace_to_jaxpr`` under ``weakref_lru_cache``): a checkpointed function is
# traced once per argument structure, avals (shape, dtype, weak type), static arguments
# and trace context (platform, named axes, config such as x64), keyed weakly on the
# function object, so a function that is dropped takes its traces with it. The policy
# and prevent_cse are not in the key: the trace does not depend on them (they are
# params of the bound equation). Like JAX, a Python global or closed-over value that
# the function reads is part of its trace: rebinding it between calls does not
# retrace (a new function object does). Traces that close over a tracer of an
# enclosing transformation, or are at symbolic sizes (guards), are not kept. Each
# function keeps its most recently used traces only (JAX's cache is an LRU too): a
# long-lived function called at ever new shapes would otherwise hold every trace and
# its constants for as long as the function lives.
_TRACES_PER_OWNER = 64
_BODY_TRACES = weakref.WeakKeyDictionary()   # fun -> {key: (closed, consts, out_tree)}
_JVP_TRACES = weakref.WeakKeyDictionary()    # body ClosedJaxpr -> {key: (closed, consts, zeros)}


def _body_key(fun, tree, leaves, args, static, static_kw):
    sig = signature(leaves)
    if sig is None:
        return None
    # typed keys: (2,) and (2.0,) are == but trace apart, as do Scale(2) and Scale(2.0),
    # two callables that share one entry of _BODY_TRACES by == (static_keys.py); a
    # static's key is remembered for the same unchangeable value (not fun's: the memo
    # would keep it, and its traces, alive)
    try:
        statics = (tuple((i, static_key(args[i])[0]) for i in sorted(static)),
                   tuple((k, static_key(v)[0]) for k, v in sorted(static_kw.items())))
        fun_key = typed_key(fun)
    except TypeError:  # an unhashable static argument: trace at each call
        return None
    fun_key = None if fun_key[1] is fun else fun_key   # (fun itself: the table's key)
    return tree, sig, statics, fun_key, trace_context()


def _cached_trace(owner, key, trace, table=_BODY_TRACES):
    """``trace()`` (a tuple whose second item is the consts), remembered for ``owner``
    under ``key`` (None: not remembered)."""
    if key is None:
        return trace()
    try:
        per_owner = table.get(owner)
    except TypeError:  # not weakly referenceable
        return trace()
    if per_owner is not None:
        hit = per_owner.pop(key, None)
        if hit is not None:
            per_owner[key] = hit        # (re-inserted: the most recently used is last)
            return hit
    entry = trace()
    if not any(isinstance(c, Tracer) for c in entry[1]):
        if per_owner is None:
            per_owner = table.setdefault(owner, {})
        while len(per_owner) >= _TRACES_PER_OWNER:
            del per_owner[next(iter(per_owner))]     # the least recently used
        per_owner[key] = entry
    return entry


def _dyn_leaf(x, fname):
    try:
        return x if isinstance(x, Tracer) else _to_array(x)
    except TypeError:
        raise TypeError(f"checkpoint({fname}): argument leaf of type {type(x).__name__} "
                        f"({x!r:.60}) is not an array; mark Python-valued arguments with "
                        f"static_argnums") from None


def checkpoint_name(x, name):
    """Identity on the pytree ``x`` that names its arrays ``name`` for checkpoint
    policies (``save_only_these_names(name)`` & co.)."""
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a string, got {name!r:.60}")
    return tree_map(lambda v: checkpoint_name_p.bind(_to_array(v), name=name), x)


# -- jvp and batching rules ------------------------------------------------------------------
def _checkpoint_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nz = [type(t) is not Zero for t in tangents]
    t_nz = [t for t in tangents if type(t) is not Zero]
    n = len(primals)
    store = {}

    def flat(*args):
        live = dce(jaxpr)  # unused code is not differentiated (a jit inside, as JAX's)
        it = iter(args[n:])
        ts = [next(it) if z else Zero(tangent_aval(a)) for a, z in zip(live.in_avals, nz)]
        outs, t_outs = jvp_flat(lambda *a: eval_jaxpr(live.jaxpr, live.consts, *a),
                                list(args[:n]), ts, "checkpoint")
        store["zero"] = [type(t) is Zero for t in t_outs]
        return list(outs) + [t for t in t_outs if type(t) is not Zero]

    def trace():
        avals = [get_aval(p) for p in primals] + [get_aval(t) for t in t_nz]
        return (*trace_flat(flat, avals, "checkpoint_jvp"), store["zero"])
    # the body's jvp, traced once per body, tangent mask and avals (grad of a cached body)
    sig = signature(list(primals) + t_nz)
    key = None if sig is None else (tuple(nz), sig, trace_context())
    closed, consts, zeros = _cached_trace(jaxpr, key, trace, _JVP_TRACES)
    outs = checkpoint_p.bind(*consts, *primals, *t_nz, jaxpr=closed, prevent_cse=prevent_cse,
                             differentiated=True, policy=policy)
    n_out = len(jaxpr.out_avals)
    it = iter(outs[n_out:])
    return outs[:n_out], [Zero(tangent_aval(a)) if z else next(it)
                          for a, z in zip(jaxpr.out_avals, zeros)]


def _checkpoint_batch(args, dims, *, jaxpr, **params):
    size, args, dims = batch_size_and_front(args, dims)
    new, consts, out_dims = batch_jaxpr(jaxpr, args, dims, size, name="checkpoint")
    return checkpoint_p.bind(*consts, *args, jaxpr=new, **params), out_dims


# -- partial evaluation with a policy --------------------------------------------------------
class _Recipe:
    """How to recompute a known value: the equation that produced it."""

    __slots__ = ("prim", "args", "params")

    def __init__(self, prim, args, params):
        self.prim, self.args, self.params = prim, args, params


class RematTracer(Tracer):
    """A known value the policy did not save: its value (for the forward pass) and the
    recipe that recomputes it inside the staged (backward) jaxpr."""

    __slots__ = ("val", "recipe", "index")

    def __init__(self, trace, val, recipe, index):
        self._trace = trace
        self.val = val
        self.recipe = recipe
        self.index = index

    @property
    def aval(self):
        return get_aval(self.val)

    def _describe(self):
        return "a value being rematerialized by checkpoint"


class RematTrace(LinearizeTrace):
    """A LinearizeTrace that knows which known values it may save (``policy``): the
    others are recomputed in the staged jaxpr from saved values when it reads them.

    Known equations run in ``known_parent``. ``parent`` is a :class:`_KnownPart` so that
    partial-eval rules of other primitives (control flow), which compute their known
    part under ``trace.parent``, get the policy applied to it as well.
    """

    name = "checkpoint"

    def __init__(self, parent, policy, fun_name="checkpoint"):
        super().__init__(_KnownPart(self), fun_name)
        self.known_parent = parent
        self.policy = policy
        self._recomputed = {}  # id(recipe) -> (recipe, [JaxprTracer per output])

    def known_value(self, x):
        return x.val if isinstance(x, RematTracer) and x._trace is self else x

    def process_known(self, prim, args, params):
        """Compute now; wrap the outputs with their recipe unless the policy saves them."""
        vals = [self.known_value(a) for a in args]
        with set_current_trace(self.known_parent):
            out = prim.bind(*vals, **params)
        if self.policy(prim, *[get_aval(v) for v in vals], **params):
            return out
        recipe = _Recipe(prim, list(args), params)
        if prim.multiple_results:
            return [RematTracer(self, o, recipe, i) for i, o in enumerate(out)]
        return RematTracer(self, out, recipe, None)

    def process_primitive(self, prim, args, params):
        if not any(self.is_unknown(a) for a in args):
            return self.process_known(prim, args, params)
        if prim.partial_eval is not None:  # nested checkpoint, control flow
            return prim.partial_eval(self, args, params)
        return JaxprTrace.process_primitive(self, prim, args, params)

    def to_tracer(self, x):
        if isinstance(x, RematTracer) and x._trace is self:
            return self._recompute(x)
        return super().to_tracer(x)

    def _recompute(self, x):
        """Record the equations computing ``x`` (iteratively: chains may be long)."""
        stack = [x.recipe]
        while stack:
            r = stack[-1]
            if id(r) in self._recomputed:
                stack.pop()
                continue
            todo = [a.recipe for a in r.args if isinstance(a, RematTracer) and
                    a._trace is self and id(a.recipe) not in self._recomputed]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            ins = [self.to_tracer(a) for a in r.args]
            outs = JaxprTrace.process_primitive(self, r.prim, ins, r.params)
            self._recomputed[id(r)] = (r, outs if r.prim.multiple_results else [outs])
        outs = self._recomputed[id(x.recipe)][1]
        return outs[x.index or 0]


class _KnownPart(Trace):
    """The ``parent`` a RematTrace shows to partial-eval rules: what they compute there
    is known, and goes through the policy."""

    name = "checkpoint-known"

    def __init__(self, remat_trace):
        self.remat_trace = remat_trace

    def process_primitive(self, prim, args, params):
        return self.remat_trace.process_known(prim, args, params)


def _checkpoint_partial_eval(trace, args, params):
    """Reverse mode through a checkpoint (see the module docstring)."""
    jaxpr, policy = params["jaxpr"], params["policy"] or nothing_saveable
    rt = RematTrace(trace, policy)
    inner = [rt.new_arg(a.aval) if trace.is_unknown(a) else a for a in args]
    try:
        with set_current_trace(rt):
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *inner)
        unknown = [o for o in outs if rt.is_unknown(o)]
        staged = rt.to_jaxpr(unknown) if unknown else None
    finally:
        rt.invalidate()
    known = [rt.known_value(o) for o in outs]
    if staged is None:
        return known
    sj = staged.jaxpr
    body = ClosedJaxpr(Jaxpr([], list(sj.constvars) + list(sj.invars), sj.outvars, sj.eqns), [])
    operands = list(staged.consts) + [a for a in args if trace.is_unknown(a)]
    new_params = dict(params, jaxpr=body, differentiated=True)
    it = iter(JaxprTrace.process_primitive(trace, checkpoint_p, operands, new_params))
    return [next(it) if rt.is_unknown(o) else k for o, k in zip(outs, known)]


def _checkpoint_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    """Recompute the known values the linear equations read, then transpose those.

    Not ad.backward_pass_closed: that evaluates every known equation inline, where a
    checkpoint recomputes only those the linear equations read, under checkpoint_p with
    prevent_cse, so the compiler cannot merge the recomputation with the forward pass."""
    j = jaxpr.jaxpr
    lin_mask = [is_undefined_primal(a) for a in args]
    known_in = [v for v, u in zip(j.invars, lin_mask) if not u]
    known_vals = [a for a, u in zip(args, lin_mask) if not u]
    known = set(j.constvars) | set(known_in)
    fwd, lin = [], []
    for e in j.eqns:
        if all(type(v) is Literal or v in known for v in e.invars):
            fwd.append(e)
            known.update(e.outvars)
        else:
            lin.append(e)
    computed = {v for e in fwd for v in e.outvars}
    needed = list(dict.fromkeys(v for e in lin for v in e.invars
                                if type(v) is not Literal and v in computed))
    fwd = _prune(fwd, needed)
    rec_vals = []
    if needed:
        rec = ClosedJaxpr(Jaxpr(j.constvars, known_in, needed, fwd), jaxpr.consts)
        if prevent_cse:
            rec_vals = checkpoint_p.bind(*known_vals, jaxpr=rec, prevent_cse=True,
                                         differentiated=False, policy=policy)
        else:
            rec_vals = eval_jaxpr(rec.jaxpr, rec.consts, *known_vals)
    linear = Jaxpr(list(j.constvars) + known_in + needed,
                   [v for v, u in zip(j.invars, lin_mask) if u], j.outvars, lin)
    cts_in = iter(backward_pass(linear, list(jaxpr.consts) + known_vals + list(rec_vals),
                                list(cts)))
    return [next(cts_in) if u else None for u in lin_mask]


def _prune(eqns, outvars):
    live, kept = set(outvars), []
    for e in reversed(eqns):
        if any(v in live for v in e.outvars):
            kept.append(e)
            live.update(v for v in e.invars if type(v) is not Literal)
    return kept[::-1]


checkpoint_p.jvp = _checkpoint_jvp
checkpoint_p.batch = _checkpoint_batch
checkpoint_p.partial_eval = _checkpoint_partial_eval
checkpoint_p.transpose = _checkpoint_transpose


# -- inspecting what is saved ------------------------------------------------------------------
def saved_residuals(f, *args, **kwargs):
    """The values reverse mode saves for ``f`` at ``args`` (``jax.ad_checkpoint``'s
    ``saved_residuals``).

    Returns:
      A list of ``(aval, description)``, one per saved array, where the description says
      where it comes from (an argument, a named value, the output of a primitive) and,
      for computed values, the line of the user's code that computed it, as JAX does.
    """
    leaves, tree = tree_flatten((args, kwargs))
    leaves = [_dyn_leaf(x, getattr(f, "__name__", "f")) for x in leaves]
    names = _leaf_names(f, args, kwargs)

    def outer(*tracers):
        def flat_fun(*ls):
            a, kw = tree_unflatten(tree, ls)
            return tree_flatten(f(*a, **kw))[0]
        _, linear, _ = linearize_flat(flat_fun, list(tracers), "saved_residuals")
        return list(linear.consts)
    with source_info.recording():
        closed = trace_to_jaxpr(outer, [get_aval(x) for x in leaves], "saved_residuals")
    return _describe(closed.jaxpr, names)


def _describe(jaxpr, names):
    """JAX's order: literals, the saved arguments in argument order, then the computed
    values in the order they were computed (once each)."""
    saved = [v for v in jaxpr.outvars if type(v) is not Literal]
    saved_set = set(saved)
    out = [(v.aval, "from a literal") for v in jaxpr.outvars if type(v) is Literal]
    out += [(v.aval, "from a constant") for v in jaxpr.constvars if v in saved_set]
    out += [(v.aval, f"from the argument {n}")
            for v, n in zip(jaxpr.invars, names) if v in saved_set]
    for e in jaxpr.eqns:
        for v in e.outvars:
            if v not in saved_set:
                continue
            src = f" from {e.source.summary()}" if e.source is not None else ""
            if e.primitive is checkpoint_name_p:
                out.append((v.aval, f"named '{e.params['name']}'{src}"))
            else:
                out.append((v.aval, f"output of {e.primitive.name}{src}"))
    return out


def _leaf_names(f, args, kwargs):
    """JAX's argument names (``api_util.debug_info``): the parameter's name, then the
    pytree path of each leaf inside it (``params[0]``, ``args[1]``, ``kw['a']``)."""
    try:
        sig = inspect.signature(f)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        sig = bound = None
    if bound is None:   # no signature to read: args[i] / the keyword's name
        named = [(f"args[{i}]", a) for i, a in enumerate(args)]
        named += [(k, kwargs[k]) for k in sorted(kwargs)]
    else:
        named = []
        for name, value in bound.arguments.items():
            kind = sig.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                named += [(f"{name}[{i}]", a) for i, a in enumerate(value)]
            elif kind is inspect.Parameter.VAR_KEYWORD:
                named += [(f"{name}['{k}']", value[k]) for k in sorted(value)]
            else:
                named.append((name, value))
        # flattening order is (args, kwargs) with kwargs sorted: put keywords last
        n_pos = len(args)
        positional, keyword = named[:n_pos], named[n_pos:]
        named = positional + sorted(keyword, key=lambda kv: kv[0])
    return _argnums.leaf_names(named)


def print_saved_residuals(f, *args, **kwargs):
    """Print each value reverse mode saves for ``f`` at ``args``, one line each: its type
    and where it comes from, in JAX's format (``f32[4] output of sin from file:3:9 (g)``).

    Returns None, as JAX's does.
    """
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short()} {src}")


__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
           "print_saved_residuals", "saved_residuals", "RematTrace",
           "everything_saveable", "nothing_saveable", "dots_saveable", "checkpoint_dots",
           "dots_with_no_batch_dims_saveable", "save_only_these_names",
           "save_any_names_but_these", "save_anything_except_these_names",
           "save_and_offload_only_these_names", "save_from_both_policies"]
