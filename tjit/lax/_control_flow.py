"""``tjit.lax`` structured control flow: cond, switch, while_loop, fori_loop, scan, map.

Each function traces its Python callables into sub-jaxprs over the flattened pytree
avals of their arguments, hoists what the callables close over (arrays and tracers of
an enclosing transformation) into explicit leading operands, and binds one primitive
of ``tjit/primitives/control_flow.py``. Eager calls take the same path (trace, then
bind), so eager, ``jit`` and ``make_jaxpr`` share one semantics.

Loop carries must keep their type (shape and dtype) from one iteration to the next.
As in JAX, a weakly typed init (a Python scalar) whose dtype differs from the body's
output is promoted to the common dtype and the body is traced again, so
``fori_loop(0, n, lambda i, x: x + 1.5, 0)`` runs in float32.
"""

import collections

import numpy as np

from tjit._sympy import is_expr
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing.errors import static_index
from tjit.tracing.jaxpr import ClosedJaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
from tjit.tracing.refs import Ref, RefError, thread_refs
from tjit.tracing.shapes import definitely_equal, dim_str
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.primitives.control_flow import (
    check_carry, cond_p, join_branch_consts, scan_p, while_p)
from tjit.transforms import loop_remat
from tjit.lax._structural import reshape
from tjit.lax import _python_control_flow as _python
from tjit.lax._elementwise import add, asarray_for_lax, clamp, convert_element_type, lt, ne

_NO_OPERAND = object()


# -- helpers -------------------------------------------------------------------------------
def _as_operand(x, op):
    """A pytree leaf as something bindable: Array/Tracer kept, scalars/NumPy converted."""
    if isinstance(x, (Array, Tracer)):
        return x
    if isinstance(x, Ref):
        raise TypeError(f"{op}: a mutable array reference ({x.type_str()}) cannot be an "
                        f"operand or carry; close over it instead (the functions may read "
                        f"and write it), or pass its value, ref[...]")
    try:
        return asarray_for_lax(x)
    except TypeError:
        raise TypeError(f"{op}: pytree leaf of type {type(x).__name__} ({x!r:.60}) is not an "
                        f"array or scalar; operands and carries must be pytrees of arrays"
                        ) from None


def _fun_name(f, default):
    return getattr(f, "__name__", default)


def _trace_flat(flat_fun, avals, name):
    """Trace ``flat_fun`` and hoist its consts: (ClosedJaxpr without consts, consts)."""
    closed = trace_to_jaxpr(flat_fun, avals, name)
    jaxpr, consts = convert_constvars_jaxpr(closed)
    return ClosedJaxpr(jaxpr, []), consts


def _trace_tree_fun(fun, in_tree, avals, name, star=False):
    """Trace ``fun(arg)`` (``fun(*arg)`` if ``star``) where ``arg`` unflattens from
    ``in_tree``; returns (closed, consts, out_tree)."""
    store = {}

    def flat_fun(*args):
        arg = tree_unflatten(in_tree, args)
        out = fun(*arg) if star else fun(arg)
        flat, store["tree"] = tree_flatten(out)
        return flat

    closed, consts = _trace_flat(flat_fun, avals, name)
    return closed, consts, store["tree"]


def _leaf_paths(treedef, prefix):
    """``init_val[0]['w']``-style names of a treedef's leaves (for error messages)."""
    out = []

    def walk(td, path):
        t = td.node_type
        if t is None:
            out.append(path)
            return
        if t in (dict, collections.OrderedDict):
            keys = td.aux
        elif t is collections.defaultdict:
            keys = td.aux[1]
        else:
            keys = None
        fields = getattr(t, "_fields", None)
        for i, child in enumerate(td.child_defs):
            if keys is not None:
                walk(child, f"{path}[{keys[i]!r}]")
            elif fields is not None:
                walk(child, f"{path}.{fields[i]}")
            else:
                walk(child, f"{path}[{i}]")

    walk(treedef, prefix)
    return out


def _promote_weak(carry, out_avals):
    """Weakly typed carry inputs whose dtype differs from the body's output: convert to
    the promoted dtype, strongly typed, to trace the body again. A difference in weak
    type alone is kept, as JAX (its typematch ignores weak types): the body sees a weak
    carry and the loop's final carry takes the body output's (strong) type, so
    ``scan(lambda c, x: (c + x, c), 0.0, f32_xs)`` gives a strong final carry and weak ys.
    Returns (new_carry, changed)."""
    new, changed = list(carry), False
    for i, (c, o) in enumerate(zip(carry, out_avals)):
        a = get_aval(c)
        if a.weak_type and a.dtype != o.dtype:
            dt, _ = dtypes.result_type((a.dtype, True), (o.dtype, o.weak_type))
            new[i] = convert_element_type(c, dt)
            changed = True
    return new, changed


def _trace_loop_body(trace_body, carry):
    """Trace ``trace_body(carry_avals)`` until weak-type promotion of the carry settles.
    Returns (carry, trace_body's result)."""
    for _ in range(len(carry) + 1):
        res = trace_body([get_aval(c) for c in carry])
        carry, changed = _promote_weak(carry, res[0].out_avals)
        if not changed:
            return carry, res
    return carry, trace_body([get_aval(c) for c in carry])


def _check_tree(op, what, in_tree, out_tree):
    if in_tree != out_tree:
        raise TypeError(f"{op}: {what} carry input and carry output must have the same pytree "
                        f"structure, but they differ: input {in_tree} vs output {out_tree}")


# -- cond / switch -------------------------------------------------------------------------
def _cond_or_switch(op, index, funs, names, operands):
    """cond/switch, threading the refs the branches close over (tracing/refs.py) as an
    extra operand and output of every branch."""
    def go(t):
        if not t.refs:
            return _cond_pure(op, index, [t.watch(f) for f in funs], names, operands)
        out, finals = _cond_pure(op, index, [t.body(f) for f in funs], names,
                                 (t.values(),) + tuple(operands))
        t.write_back(finals)
        return out
    return thread_refs(go)


def _cond_pure(op, index, funs, names, operands):
    ops_flat, ops_tree = tree_flatten(tuple(operands))
    ops_flat = [_as_operand(x, op) for x in ops_flat]
    avals = [get_aval(x) for x in ops_flat]
    traced, trees = [], []
    for f, name in zip(funs, names):
        closed, consts, tree = _trace_tree_fun(f, ops_tree, avals, _fun_name(f, name),
                                               star=True)
        traced.append((closed, consts))
        trees.append(tree)
    for i, t in enumerate(trees):
        if t != trees[0]:
            a, b = (trees[1], trees[0]) if len(funs) == 2 else (trees[0], t)
            what = "true_fun and false_fun" if len(funs) == 2 else f"branches 0 and {i}"
            raise TypeError(f"{op}: {what} output must have same type structure, got {a} "
                            f"and {b}")
    branches, consts = join_branch_consts(traced)
    outs = cond_p.bind(index, *consts, *ops_flat, branches=branches)
    return tree_unflatten(trees[0], outs)


def _scalar_operand(x, op, what):
    if x is None:
        raise TypeError(f"{op}: {what} is None; pass a boolean or integer scalar")
    if isinstance(x, (list, tuple)):
        raise TypeError(f"{op}: {what} must be a scalar, got a {type(x).__name__}")
    x = _as_operand(x, op)
    if x.shape != ():
        raise TypeError(f"{op}: {what} must be a scalar, got {x.aval.str_short()} of shape "
                        f"{tuple(x.shape)}; reduce it first (jnp.any / jnp.all), or use "
                        f"jnp.where to select elementwise")
    return x


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """Call ``true_fun(*operands)`` if ``pred`` is true, else ``false_fun(*operands)``.

    Both functions are traced; they must return pytrees of the same structure and
    types. Works with a traced ``pred`` (unlike a Python ``if``).

    Args:
      pred: boolean or real number scalar (nonzero means true).
      true_fun, false_fun: callables on ``*operands``.
      operands: pytrees of arrays passed to the selected function (the legacy
        ``operand=`` keyword is accepted too).

    Returns:
      The selected function's output.
    """
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("lax.cond: pass operands positionally or with operand=, not both")
        operands = (operand,)
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    p = _scalar_operand(pred, "lax.cond", "pred")
    # any real number is a predicate (nonzero: true), as in JAX (floats included)
    if dtypes.is_int(p.dtype) or (dtypes.is_inexact(p.dtype) and not dtypes.is_complex(p.dtype)):
        p = ne(p, 0)
    elif not dtypes.is_bool(p.dtype):
        raise TypeError(f"lax.cond: pred must be a boolean or real number scalar, got "
                        f"{p.aval.str_short()}; compare it first (e.g. abs(z) > 0)")
    if _python.applies(p, operands):
        return (true_fun if bool(p) else false_fun)(*operands)
    index = convert_element_type(p, np.int32)
    return _cond_or_switch("lax.cond", index, (false_fun, true_fun),
                           ("false_fun", "true_fun"), operands)


def switch(index, branches, *operands, operand=_NO_OPERAND):
    """Call ``branches[index](*operands)``; ``index`` is clamped into range.

    Args:
      index: integer scalar.
      branches: sequence of callables returning pytrees of identical types.
      operands: pytrees of arrays passed to the selected branch.

    Returns:
      The selected branch's output.
    """
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("lax.switch: pass operands positionally or with operand=, "
                            "not both")
        operands = (operand,)
    branches = tuple(branches)
    if not branches:
        raise ValueError("lax.switch: empty branch sequence")
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    idx = _scalar_operand(index, "lax.switch", "branch index")
    if not dtypes.is_int(idx.dtype):
        raise TypeError(f"lax.switch: index type must be an integer, got "
                        f"{idx.aval.str_short()}; convert with x.astype(jnp.int32)")
    if len(branches) == 1:
        return branches[0](*operands)
    idx = clamp(0, convert_element_type(idx, np.int32), len(branches) - 1)
    if _python.applies(idx, operands):
        return branches[int(idx)](*operands)
    names = tuple(f"branch_{i}" for i in range(len(branches)))
    return _cond_or_switch("lax.switch", idx, branches, names, operands)


# -- while / fori --------------------------------------------------------------------------
def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``.

    Args:
      cond_fun: carry -> boolean scalar.
      body_fun: carry -> carry of the same pytree structure, shapes and dtypes.
      init_val: the initial carry (pytree of arrays/scalars).

    Returns:
      The final carry.
    """
    return _while("lax.while_loop", cond_fun, body_fun, init_val, "init_val")


def _while(op, cond_fun, body_fun, init_val, prefix, paths=None):
    """while_loop, threading the refs cond_fun and body_fun close over (tracing/refs.py)
    as an extra part of the carry."""
    def go(t):
        if not t.refs:
            return _while_pure(op, t.watch(cond_fun), t.watch(body_fun), init_val, prefix,
                               paths)
        cond_b, body_b = t.body(cond_fun), t.body(body_fun)

        def cond(c):
            pred, finals = cond_b(c[1], c[0])
            if any(f is not v for f, v in zip(finals, c[1])):
                raise RefError(f"{op}: cond_fun wrote into a mutable array reference it "
                               f"closes over; cond_fun may read refs, and body_fun may "
                               f"write them")
            return pred
        init = (init_val, t.values())
        ref_paths = [f"a closed-over ref of type {r.type_str()}" for r in t.refs]
        out, finals = _while_pure(
            op, cond, lambda c: body_b(c[1], c[0]), init,
            prefix, (paths or _leaf_paths(tree_flatten(init_val)[1], prefix)) + ref_paths)
        t.write_back(finals)
        return out
    return thread_refs(go)


def _while_pure(op, cond_fun, body_fun, init_val, prefix, paths=None):
    if not (callable(cond_fun) and callable(body_fun)):
        raise TypeError(f"{op}: cond_fun and body_fun arguments should be callable.")
    if _python.applies(init_val):
        return _python.while_loop(cond_fun, body_fun, init_val,
                                  lambda x: _as_operand(x, op))
    init, in_tree = tree_flatten(init_val)
    init = [_as_operand(x, op) for x in init]
    bname = _fun_name(body_fun, "body_fun")

    def trace_body(avals):
        closed, consts, tree = _trace_tree_fun(body_fun, in_tree, avals, bname)
        _check_tree(op, "body_fun", in_tree, tree)
        return closed, consts

    init, (body, bconsts) = _trace_loop_body(trace_body, init)
    avals = [get_aval(c) for c in init]
    check_carry(op, "body_fun", avals, body.out_avals[:len(avals)],
                paths or _leaf_paths(in_tree, prefix))
    cnd, cconsts, ctree = _trace_tree_fun(cond_fun, in_tree, avals,
                                          _fun_name(cond_fun, "cond_fun"))
    out = cnd.out_avals
    if ctree.num_leaves != 1 or out[0].dtype != dtypes.bool_ or out[0].shape != ():
        got = ", ".join(a.str_short() for a in out) or "nothing"
        raise TypeError(f"{op}: cond_fun must return a boolean scalar, but got output "
                        f"type(s) {got}; e.g. return jnp.all(x < n)")
    outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cnd, body_jaxpr=body,
                        cond_nconsts=len(cconsts), body_nconsts=len(bconsts))
    return tree_unflatten(in_tree, outs)


def _loop_bounds(lower, upper):
    lo = _scalar_operand(lower, "lax.fori_loop", "lower")
    hi = _scalar_operand(upper, "lax.fori_loop", "upper")
    for x in (lo, hi):
        if not dtypes.is_int(x.dtype):
            raise TypeError(f"lax.fori_loop: lower and upper must be integer scalars, got "
                            f"{lo.aval.str_short()} and {hi.aval.str_short()}")
    if lo.dtype != hi.dtype:
        dt, _ = dtypes.result_type((lo.dtype, lo.weak_type), (hi.dtype, hi.weak_type))
        lo, hi = convert_element_type(lo, dt), convert_element_type(hi, dt)
    return lo, hi


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``; returns ``val``.

    With concrete bounds (Python ints or concrete arrays) this is a ``scan`` of
    ``upper - lower`` steps (reverse-differentiable); with traced bounds a
    ``while_loop``.

    Args:
      lower, upper: integer scalars.
      body_fun: (i, carry) -> carry of the same types.
      init_val: the initial carry.
      unroll: scan unroll factor (concrete bounds only).
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    if is_expr(upper) and isinstance(lower, int):
        # a symbolic size (e.g. x.shape[0] under polymorphic shapes): a scan whose
        # length is that size, so one trace serves every size
        def sym_step(carry, _):
            i, x = carry
            return (add(i, 1), body_fun(i, x)), None
        start = convert_element_type(lower, dtypes.default_int())
        (_, out), _ = _scan("lax.fori_loop", "body_fun", sym_step, (start, init_val), None,
                            upper - lower, False, 1 if unroll is None else unroll,
                            ["the loop index"] + _leaf_paths(tree_flatten(init_val)[1],
                                                             "init_val"))
        return out
    lo, hi = _loop_bounds(lower, upper)
    tree = tree_flatten(init_val)[1]
    paths = ["the loop index"] + _leaf_paths(tree, "init_val")
    if not isinstance(lo, Tracer) and not isinstance(hi, Tracer):
        n = max(int(hi) - int(lo), 0)

        def step(carry, _):
            i, x = carry
            return (add(i, 1), body_fun(i, x)), None

        (_, out), _ = _scan("lax.fori_loop", "body_fun", step, (lo, init_val), None, n,
                            False, 1 if unroll is None else unroll, paths)
        return out
    if unroll is not None:
        raise ValueError("lax.fori_loop: unroll requires concrete (non-traced) loop bounds")

    def body(carry):
        i, u, x = carry
        return add(i, 1), u, body_fun(i, x)

    paths = paths[:1] + ["upper"] + paths[1:]
    return _while("lax.fori_loop", lambda c: lt(c[0], c[1]), body, (lo, hi, init_val),
                  "carry", paths)[2]


# -- scan / map ----------------------------------------------------------------------------
def _scan_length(xs_flat, length):
    if length is not None and not is_expr(length):
        length = static_index(length, "length", "lax.scan")
        if length < 0:
            raise ValueError(f"lax.scan: length must be non-negative, got {length}")
    for x in xs_flat:
        if x.ndim == 0:
            raise ValueError(f"lax.scan: scanned-over value {x.aval.str_short()} has no "
                             f"leading axis to scan over")
    lengths = [x.shape[0] for x in xs_flat]
    if not lengths:
        if length is None:
            raise ValueError("lax.scan: got no values to scan over and `length` not "
                             "provided.")
        return length
    ref = length if length is not None else lengths[0]
    if not all(definitely_equal(n, ref) for n in lengths):
        shown = ", ".join(dim_str(n) for n in lengths)
        if length is not None:
            raise ValueError(f"lax.scan: got `length` argument of {length} which disagrees "
                             f"with leading axis sizes [{shown}].")
        raise ValueError(f"lax.scan: got values with different leading axis sizes: {shown}.")
    return ref


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``, stacking ``y``.

    Equivalent to::

        ys = []
        for x in xs:  # or for i in range(length) when xs is None (x = None)
            carry, y = f(carry, x)
            ys.append(y)
        return carry, stack(ys)

    Args:
      f: (carry, x) -> (carry, y); carry keeps its pytree structure and types.
      init: the initial carry.
      xs: pytree of arrays with a common leading axis, or None.
      length: number of iterations (required when ``xs`` is None).
      reverse: run from the last element to the first (ys stay aligned with xs).
      unroll: accepted for compatibility (a hint for the compiler).

    Returns:
      ``(final_carry, stacked_ys)``.
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be callable.")
    return _scan("lax.scan", "the body function", f, init, xs, length, reverse, unroll)


def _check_unroll(unroll):
    if isinstance(unroll, (bool, np.bool_)):
        return bool(unroll)
    u = static_index(unroll, "unroll (an int or bool)", "lax.scan")
    if u < 0:
        raise ValueError(f"lax.scan: unroll must be non-negative, got {u}")
    return u


def _scan(op, fname, f, init, xs, length, reverse, unroll, paths=None, chunked=True):
    """scan, threading the refs ``f`` closes over (tracing/refs.py) as an extra part of
    the carry."""
    def go(t):
        if not t.refs:
            return _scan_pure(op, fname, t.watch(f), init, xs, length, reverse, unroll,
                              paths, chunked)
        body = t.body(f)

        def step(carry, x):
            (c, y), finals = body(carry[1], carry[0], x)
            return (c, finals), y
        ref_paths = [f"a closed-over ref of type {r.type_str()}" for r in t.refs]
        (c, finals), ys = _scan_pure(
            op, fname, step, (init, t.values()), xs, length, reverse, unroll,
            (paths or _leaf_paths(tree_flatten(init)[1], "init")) + ref_paths, chunked)
        t.write_back(finals)
        return c, ys
    return thread_refs(go)


def _scan_pure(op, fname, f, init, xs, length, reverse, unroll, paths=None, chunked=True):
    xs_flat, xs_tree = tree_flatten(xs)
    xs_flat = [_as_operand(x, op) for x in xs_flat]
    length = _scan_length(xs_flat, length)
    if _python.applies(init, xs_flat):
        return _python.scan(op, f, init, xs_flat, xs_tree, length, reverse)
    m = loop_remat.chunk_length(length) if chunked else None
    if m is not None:
        return _chunked_scan(op, fname, f, init, xs_flat, xs_tree, length, m, reverse,
                             unroll, paths)
    f = loop_remat.scan_body(f)     # (checkpointed under a memory budget that needs it)
    init_flat, init_tree = tree_flatten(init)
    init_flat = [_as_operand(x, op) for x in init_flat]
    x_avals = [ShapedArray(x.shape[1:], x.dtype, x.weak_type) for x in xs_flat]
    n = len(init_flat)
    store = {}

    def flat_fun(*args):
        out = f(tree_unflatten(init_tree, args[:n]), tree_unflatten(xs_tree, args[n:]))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"{op}: {fname} must return a pair (carry, y), got "
                            f"{type(out).__name__} {out!r:.80}")
        cflat, ctree = tree_flatten(out[0])
        _check_tree(op, fname, init_tree, ctree)
        yflat, store["ys"] = tree_flatten(out[1])
        return cflat + yflat

    def trace_body(avals):
        return _trace_flat(flat_fun, avals + x_avals, _fun_name(f, "scan_body"))

    init_flat, (body, consts) = _trace_loop_body(trace_body, init_flat)
    carry_avals = [get_aval(c) for c in init_flat]
    check_carry(op, fname, carry_avals, body.out_avals[:n],
                paths or _leaf_paths(init_tree, "init"))
    outs = scan_p.bind(*consts, *init_flat, *xs_flat, jaxpr=body, length=length,
                       reverse=bool(reverse), num_consts=len(consts), num_carry=n,
                       unroll=_check_unroll(unroll))
    return tree_unflatten(init_tree, outs[:n]), tree_unflatten(store["ys"], outs[n:])


def _chunked_scan(op, fname, f, init, xs_flat, xs_tree, length, m, reverse, unroll, paths):
    """The scan of ``length = k * m`` iterations as a checkpointed scan over ``k`` chunks
    of an inner scan of ``m`` (a memory budget, loop_remat.py): the same carry and ys."""
    k = length // m
    chunks = [reshape(x, (k, m) + tuple(x.shape[1:])) for x in xs_flat]

    def chunk(carry, xs_chunk):
        return _scan(op, fname, f, carry, tree_unflatten(xs_tree, xs_chunk), m, reverse,
                     unroll, paths, chunked=False)

    # (both loops' bodies are checkpointed by loop_remat.scan_body)
    carry, ys = _scan(op, fname, chunk, init, chunks, k, reverse, unroll, paths,
                      chunked=False)
    ys_flat, ys_tree = tree_flatten(ys)
    ys_flat = [reshape(y, (length,) + tuple(y.shape[2:])) for y in ys_flat]
    return carry, tree_unflatten(ys_tree, ys_flat)


def map(f, xs, *, batch_size=None):  # noqa: A001  (jax.lax.map)
    """``stack([f(x) for x in xs])`` over the leading axis of the pytree ``xs``.

    ``batch_size`` is accepted for JAX compatibility (0 means one full batch, as in
    JAX); it only changes how JAX vectorizes, not the result, and is ignored here (the
    loop is sequential).
    """
    if batch_size is not None and static_index(batch_size, "batch_size", "lax.map") < 0:
        raise ValueError(f"lax.map: batch_size must be a non-negative int, got {batch_size}")
    _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
    return ys


__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]
