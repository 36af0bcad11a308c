"""``custom_vmap`` (as ``jax.custom_batching.custom_vmap``): a function whose batching
under ``vmap`` is a rule the user states instead of the batched form of its body.

    @custom_vmap
    def f(x, y): ...

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):   # in_batched: a list, one pytree of
        return out, out_batched                 # bools per argument, like the arguments

Outside ``vmap`` the function runs as written. Any other trace (jit, make_jaxpr, jvp)
traces it into ``custom_vmap_call_p``'s ``call`` jaxpr, with the rule as a flat Python
function in the ``rule`` param; the primitive's batching rule calls it with every
batched argument's batch axis first. Forward mode works as in JAX: the jvp binds the
primitive again over (primals, tangents), with the jvp of ``call`` as its body and the
jvp of the rule as its rule. Reverse mode is refused as in JAX (put a ``custom_vjp``
outside the ``custom_vmap`` to give it one).

Where JAX's jvp-of-rule tells the rule that a primal is unbatched while its tangent is
batched (and maps over the difference), here both are broadcast to batched and the rule
sees them batched: the values are the same.
"""

import functools

from tjit.primitives.ad_prims import closure_tangent_error, custom_vmap_call_p
from tjit.primitives.rules import Zero, bdim_at_front, instantiate, moveaxis
from tjit.tracing import dtypes
from tjit.tracing.core import EvalTrace, current_trace, get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr_trace import JaxprTrace
from tjit.tracing.traceback_util import eager_boundary
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.transforms.ad import _to_array, jvp_flat
from tjit.transforms.custom_derivatives import (
    _leaf_array,
    _name,
    forward_attr,
    resolve_kwargs,
    trace_flat,
)

REVERSE_MODE_ERROR = (
    "custom_vmap function {name}: reverse-mode differentiation (grad, vjp, linearize) of "
    "a custom_vmap function is not supported, as in JAX; to give it a reverse-mode rule, "
    "wrap it in a custom_vjp (custom_vjp outside: @custom_vjp @custom_vmap def f...)")


class custom_vmap:
    """Customize how a function is batched by ``vmap`` (``jax.custom_batching.custom_vmap``).

    Args:
      fun: the function; it runs as written everywhere except under ``vmap``.

    Define the rule with ``f.def_vmap(rule)``: ``rule(axis_size, in_batched, *args)``
    gets the batch size, a list with one pytree of bools per argument (is that leaf
    batched?) and the arguments, batched leaves with their batch axis first; it returns
    ``(out, out_batched)``, ``out_batched`` a pytree of bools of ``out``'s structure.
    """

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def def_vmap(self, vmap_rule):
        """Set the rule ``vmap_rule(axis_size, in_batched, *args) -> (out, out_batched)``;
        returns it unchanged (so it can decorate)."""
        if not callable(vmap_rule):
            raise TypeError(f"custom_vmap({_name(self.fun)}).def_vmap: the rule must be a "
                            f"callable, got {type(vmap_rule).__name__} {vmap_rule!r:.60}")
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        fname = _name(self.fun)
        args = resolve_kwargs(self.fun, args, kwargs, "custom_vmap")
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function {fname} "
                                 f"using def_vmap.")
        leaves, in_tree = tree_flatten(args)
        leaves = [_leaf_array(x, "custom_vmap", fname, i) for i, x in enumerate(leaves)]
        if isinstance(current_trace(), EvalTrace):
            return self.fun(*tree_unflatten(in_tree, leaves))
        store = {}

        def flat_fun(*xs):
            outs, store["tree"] = tree_flatten(self.fun(*tree_unflatten(in_tree, list(xs))))
            return outs
        call, consts = trace_flat(flat_fun, [get_aval(x) for x in leaves], fname)
        rule = _flat_rule(self.vmap_rule, in_tree, store["tree"], call, fname)
        outs = custom_vmap_call_p.bind(*consts, *leaves, call=call, rule=rule,
                                       num_consts=len(consts), differentiated=False,
                                       name=fname)
        return tree_unflatten(store["tree"], outs)


def _flat_rule(user_rule, in_tree, out_tree, call, fname):
    """The user's rule as ``rule(axis_size, in_batched, args) -> (outs, out_batched)`` on
    flat lists (args without the call's consts), its outputs checked against ``call``'s."""
    rname = _name(user_rule)

    def rule(axis_size, in_batched, args):
        out, out_batched = _pair(user_rule(axis_size, list(tree_unflatten(in_tree, in_batched)),
                                           *tree_unflatten(in_tree, list(args))), rname)
        outs, tree = tree_flatten(out)
        flags, flags_tree = tree_flatten(out_batched)
        if tree != flags_tree:
            raise ValueError(f"structure of output value and output batching specification "
                             f"returned by custom vmap rule ({rname}) do not match.\n"
                             f"Output values: {tree}\nBatching spec: {flags_tree}")
        if tree != out_tree:
            raise ValueError(f"structure of output returned by custom vmap rule ({rname}) "
                             f"does not match that of original custom-vmapped function "
                             f"{fname}.\nOriginal output: {out_tree}\nRule output: {tree}")
        return [_check_out(o, bool(b), a, axis_size, rname, i) for i, (o, b, a) in
                enumerate(zip(outs, flags, call.out_avals))], [bool(b) for b in flags]
    return rule


def _pair(out, rname):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"custom vmap rule {rname} must return a pair (out, out_batched), "
                        f"got {out!r:.80}")
    return out


def _check_out(o, batched, aval, size, rname, i):
    o = _to_array(o)
    got = get_aval(o)
    want = ((size,) if batched else ()) + tuple(aval.shape)
    if tuple(got.shape) != want or got.dtype != aval.dtype:
        raise ValueError(f"custom vmap rule {rname}: output {i} is {got.str_short()}, but "
                         f"the function's output {i} is {aval.str_short()}"
                         f"{f' batched over {size} (expected shape {want})' if batched else ''}"
                         f"; return outputs of the function's dtypes, with the batch axis "
                         f"first where out_batched is True")
    return o


# -- the primitive's rules -------------------------------------------------------------------
def _batch(args, dims, *, call, rule, num_consts, differentiated, name):
    if any(d is not None for d in dims[:num_consts]):
        raise ValueError(f"custom_vmap function {name} closes over a value that vmap "
                         f"batches; pass that value as an argument of the function so its "
                         f"rule sees it")
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    xs = [a if d is None else moveaxis(a, d, 0)
          for a, d in zip(args[num_consts:], dims[num_consts:])]
    outs, out_batched = rule(size, [d is not None for d in dims[num_consts:]], xs)
    return list(outs), [0 if b else None for b in out_batched]


def _jvp(primals, tangents, *, call, rule, num_consts, differentiated, name):
    for t in tangents[:num_consts]:
        if type(t) is not Zero:
            raise closure_tangent_error("custom_vmap", name, get_aval(t))
    consts, ps = list(primals[:num_consts]), list(primals[num_consts:])
    # tangents of integer arguments are zero: only inexact ones become operands
    nz = [dtypes.is_inexact(get_aval(p).dtype) for p in ps]
    ts = [instantiate(t) for t, z in zip(tangents[num_consts:], nz) if z]
    out_nz = [dtypes.is_inexact(a.dtype) for a in call.out_avals]

    def jvp_of_call(*vals):
        p, it = vals[:len(ps)], iter(vals[len(ps):])
        t_in = [next(it) if z else Zero.from_value(x) for x, z in zip(p, nz)]
        outs, t_outs = jvp_flat(lambda *a: eval_jaxpr(call.jaxpr, call.consts, *consts, *a),
                                list(p), t_in, name)
        return list(outs) + [instantiate(t) for t, z in zip(t_outs, out_nz) if z]
    jcall, jconsts = trace_flat(jvp_of_call, [get_aval(x) for x in ps + ts], name + "_jvp")
    outs = custom_vmap_call_p.bind(*jconsts, *ps, *ts, call=jcall,
                                   rule=_jvp_rule(rule, nz, out_nz, name),
                                   num_consts=len(jconsts), differentiated=True, name=name)
    n = len(call.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else Zero.from_value(o) for o, z in zip(outs[:n], out_nz)]


def _jvp_rule(rule, nz, out_nz, name):
    """The rule of the jvp'd call: the jvp of ``rule``, primals and tangents batched alike
    (an unbatched one of a pair is broadcast)."""
    def jvp_rule(axis_size, in_batched, vals):
        n = len(nz)
        ps, ts = list(vals[:n]), list(vals[n:])
        t_batched = iter(in_batched[n:])
        batched = [pb or (next(t_batched) if z else False)
                   for pb, z in zip(in_batched[:n], nz)]
        ps = [bdim_at_front(p, None, axis_size) if b and not pb else p
              for p, b, pb in zip(ps, batched, in_batched[:n])]
        t_b = iter(in_batched[n:])
        ts = [bdim_at_front(t, None, axis_size) if b and not next(t_b) else t
              for t, b in zip(ts, [b for b, z in zip(batched, nz) if z])]
        store = {}

        def primal_rule(*p):
            outs, store["batched"] = rule(axis_size, batched, list(p))
            return outs
        it = iter(ts)
        t_in = [next(it) if z else Zero.from_value(p) for p, z in zip(ps, nz)]
        outs, t_outs = jvp_flat(primal_rule, ps, t_in, name)
        ob = store["batched"]
        # a tangent the rule's jvp leaves symbolic is zeros of its primal's shape
        t_outs = [instantiate(Zero.from_value(o)) if type(t) is Zero else t
                  for t, o, z in zip(t_outs, outs, out_nz) if z]
        return list(outs) + t_outs, list(ob) + [b for b, z in zip(ob, out_nz) if z]
    return jvp_rule


def _partial_eval(trace, args, params):
    if params["differentiated"]:  # a jvp's tangents are unknown: reverse mode
        raise TypeError(REVERSE_MODE_ERROR.format(name=params["name"]))
    return JaxprTrace.process_primitive(trace, custom_vmap_call_p, args, params)


custom_vmap_call_p.batch = _batch
custom_vmap_call_p.jvp = _jvp
custom_vmap_call_p.partial_eval = _partial_eval

# calling a custom_vmap function is a public entry point: errors end in the user's code
custom_vmap.__call__ = eager_boundary(custom_vmap.__call__, "")
custom_vmap.__getattr__ = forward_attr  # custom_vmap(custom_jvp(f)).defjvp, as in JAX

__all__ = ["REVERSE_MODE_ERROR", "custom_vmap"]
