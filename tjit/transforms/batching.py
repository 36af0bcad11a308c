"""Vectorizing map: ``vmap``.

A :class:`BatchTracer` holds a value with one extra axis (``batch_dim``) or, where a
value does not depend on the mapped inputs, the plain value. For each primitive the
trace binds the primitive's batching rule under its parent trace; rules fold the batch
axis into the operation (``dot_general`` adds a batch dimension, reductions shift
their axes...), so nothing runs as a Python loop.
"""

import contextlib
import functools
import threading

import numpy as np

from tjit._sympy import is_expr
from tjit.tracing.traceback_util import api_boundary
from tjit.tracing import argnums as _argnums
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.axis_env import extend_axis_env
from tjit.tracing.core import (
    Trace, Tracer, current_trace, escaped_tracer_error, get_aval, set_current_trace)
from tjit.tracing.errors import ShapeError, static_index
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.jaxpr import Jaxpr
from tjit.tracing.shapes import dim_str, dims_equal
from tjit.tracing.tree_util import (
    DictKey, SequenceKey, keystr, tree_flatten, tree_flatten_with_path, tree_unflatten)
from tjit.primitives.elementwise import convert_element_type_p
from tjit.primitives.reductions import reduce_sum_p
from tjit.primitives.rules import bdim_at_front, moveaxis
from tjit.tracing.refs import Ref
from tjit.transforms.jit_of_transform import routed

not_mapped = None


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        a = get_aval(self.val)
        d = self.batch_dim
        return ShapedArray(a.shape[:d] + a.shape[d + 1:], a.dtype, a.weak_type)

    def _describe(self):
        return "a value batched by vmap"

    def __repr__(self):  # JAX 0.10.2's form
        return f"VmapTracer(aval={self.aval}, batched={get_aval(self.val)})"


class BatchTrace(Trace):
    name = "vmap"

    def __init__(self, parent, axis_size, axis_name=None, fun_name="<function>"):
        self.parent = parent
        self.axis_size = axis_size
        self.axis_name = axis_name
        self.fun_name = fun_name

    def to_batched(self, x):
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        if isinstance(x, Tracer) and not x._trace.is_valid:
            raise escaped_tracer_error(x)
        return x, not_mapped

    def wrap(self, val, dim):
        return val if dim is not_mapped else BatchTracer(self, val, dim)

    def process_primitive(self, prim, args, params):
        vals, dims = zip(*[self.to_batched(a) for a in args]) if args else ((), ())
        axis_batch = getattr(prim, "axis_batch", None)
        if axis_batch is not None and self.axis_name is not None and \
                self.axis_name in params["axes"] and \
                self.axis_name not in getattr(params.get("comms"), "sizes", ()):
            # (a name a shard_map over processes bound inside this vmap is the mesh's)
            # a collective over this vmap's axis: its members are the batch's slices, so it
            # becomes array ops (even when nothing is batched: psum(x) is size * x)
            with set_current_trace(self.parent):
                out, out_dim = axis_batch(self.axis_size, self.axis_name, list(vals),
                                          list(dims), **params)
            return self.wrap(out, out_dim)
        if all(d is not_mapped for d in dims):
            if not (self.axis_name is not None and vals and
                    _body_uses_axis(params, self.axis_name)):
                with set_current_trace(self.parent):
                    return prim.bind(*vals, **params)
            # a body (cond/scan/while...) runs a collective over this axis: batch it, with
            # its first operand broadcast to carry the batch axis
            with set_current_trace(self.parent):
                first = bdim_at_front(vals[0], None, self.axis_size)
            vals, dims = (first,) + tuple(vals[1:]), (0,) + tuple(dims[1:])
        if prim.batch is None:
            raise NotImplementedError(f"Batching rule for '{prim.name}' not implemented")
        with set_current_trace(self.parent), _rule_of(self):
            out, out_dim = prim.batch(list(vals), list(dims), **params)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim)]
        return self.wrap(out, out_dim)


def _body_uses_axis(params, name):
    """Whether a jaxpr among ``params`` (a control-flow body) has a collective over the
    axis ``name``, at any depth."""
    for p in params.values():
        for j in (p if isinstance(p, tuple) else (p,)):
            j = getattr(j, "jaxpr", j)
            if isinstance(j, Jaxpr) and any(
                    name in e.params.get("axes", ()) or _body_uses_axis(e.params, name)
                    for e in j.eqns if isinstance(e.params.get("axes", ()), tuple)):
                return True
    return False


class _RuleContext(threading.local):
    def __init__(self):
        self.traces = []     # the BatchTraces whose batching rules are running


_rules = _RuleContext()


@contextlib.contextmanager
def _rule_of(trace):
    _rules.traces.append(trace)
    try:
        yield
    finally:
        _rules.traces.pop()


def batching_axis_name():
    """The axis name of the vmap whose batching rule is running (None: unnamed, or no
    rule running). Rules that batch a body of their own (cond, scan, while, custom
    rules) give their BatchTrace this name, so collectives in the body still see it."""
    return _rules.traces[-1].axis_name if _rules.traces else None


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None,
         sum_match=False):
    """Vectorize ``fun`` over a leading (or ``in_axes``) axis of its inputs.

    Args:
      in_axes: int, None, or a tuple with one entry per positional argument, each an
        int, None or a pytree prefix of that argument, giving the mapped axis of each
        input (None: not mapped). A list is read as a tuple at the top level only, as in
        JAX. Keyword arguments are mapped along axis 0.
      out_axes: int, None, or a pytree prefix of the output.
      axis_size: the size of the mapped axis; needed when no input is mapped.
      axis_name: a name for the mapped axis, so that collectives inside ``fun``
        (``lax.psum(x, axis_name)``, ``all_gather``, ``axis_index``...) run over it; each
        slice of the batch is one member (JAX's semantics).
      sum_match: an output that depends on the mapped inputs but whose out_axes entry is
        None is summed over the mapped axis (instead of an error), as JAX's.
    """
    if not callable(fun):
        raise TypeError(f"vmap: expected a callable as the function to vectorize, got "
                        f"{type(fun).__name__} {fun!r:.60}")
    # (spmd_axis_name names a mesh axis for sharding, which tjit does not do: the
    # program does not depend on it, so neither does its key)
    sum_match = bool(sum_match)
    return routed(fun, ("vmap", in_axes, out_axes, axis_name, axis_size, sum_match),
                  lambda f: _vmap(f, in_axes, out_axes, axis_name, axis_size, sum_match))


def _vmap(fun, in_axes, out_axes, axis_name, axis_size, sum_match=False):
    fname = getattr(fun, "__name__", type(fun).__name__)
    where = f"vmap({fname})"
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # as JAX (jax-ml/jax#2367); lists further down stay lists
    _check_axes_types(in_axes, out_axes, axis_size, where)
    in_spec, out_spec = _AxesSpec(in_axes), _AxesSpec(out_axes)

    @api_boundary
    @functools.wraps(fun)
    def vmapped(*args, **kwargs):
        if type(in_axes) is tuple and len(in_axes) != len(args):
            raise ValueError(
                f"{where}: in_axes must be an int, None, or a tuple of entries corresponding "
                f"to the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}; give one entry per "
                f"positional argument (None for one that is not mapped)")
        leaves, in_tree = tree_flatten((args, kwargs))
        labels = _Labels(fun, (args, kwargs))
        # As in JAX, keyword arguments are always mapped over their leading axis.
        n_kw = len(tree_flatten(kwargs)[0])
        axes = _flatten_axes(in_spec, args, len(leaves) - n_kw, "in_axes", where, labels,
                             "the positional arguments") + [0] * n_kw
        if any(type(x) is Ref for x in leaves):   # refs as arguments: their values mapped
            return _vmap_with_refs(fun, leaves, axes, in_tree, out_axes, axis_name,
                                   axis_size, sum_match)
        leaves = [_mapped_array(x, ax, where, labels, k) if ax is not None else x
                  for k, (x, ax) in enumerate(zip(leaves, axes))]
        size = _axis_size(leaves, axes, axis_size, where, labels)
        trace = BatchTrace(current_trace(), size, axis_name, fname)
        ins = []
        for x, ax in zip(leaves, axes):
            if ax is None:
                ins.append(x)
            elif dtypes.is_float0(x):  # every slice is the same (there is no data)
                ins.append(np.zeros(np.delete(np.shape(x), ax), dtypes.float0))
            else:
                nd = len(get_aval(x).shape)
                ins.append(BatchTracer(trace, x, ax % nd if nd else ax))
        try:
            with set_current_trace(trace), _bind_axis_name(axis_name, size):
                b_args, b_kwargs = tree_unflatten(in_tree, ins)
                out = fun(*b_args, **b_kwargs)
            out_leaves, out_tree = tree_flatten(out)
            out_labels = _Labels(fun, out, output=True)
            oaxes = _flatten_axes(out_spec, out, len(out_leaves), "out_axes", where,
                                  out_labels, "the function's output")
            res = [_finish_output(trace, o, ax, size, where, out_labels, k, sum_match)
                   for k, (o, ax) in enumerate(zip(out_leaves, oaxes))]
        finally:
            trace.invalidate()
        return tree_unflatten(out_tree, res)
    return vmapped


def _vmap_with_refs(fun, leaves, axes, in_tree, out_axes, axis_name, axis_size, sum_match):
    """vmap of ``fun`` on arguments holding refs (JAX's array_refs rules): a ref's value
    is mapped along its in_axes entry; ``fun`` gets a fresh ref of the batched value
    (an unmapped ref's belongs to the enclosing trace, so writing a mapped value into
    it fails, as in JAX), and the final values go back into the refs along that axis."""
    is_ref = [type(x) is Ref for x in leaves]

    def pure(*vals):
        outer = current_trace().parent
        fresh = []
        for v, r, ax in zip(vals, is_ref, axes):
            if r:
                v = Ref(v)
                if ax is None:
                    v._trace = outer
            fresh.append(v)
        a, kw = tree_unflatten(in_tree, fresh)
        return fun(*a, **kw), [x._value for x in fresh if type(x) is Ref]

    refs = [x for x in leaves if type(x) is Ref]
    vals = [x._get() if r else x for x, r in zip(leaves, is_ref)]
    ref_axes = [ax for ax, r in zip(axes, is_ref) if r]
    out, finals = vmap(pure, tuple(axes), (out_axes, ref_axes), axis_name, axis_size,
                       sum_match=sum_match)(*vals)
    for r, v in zip(refs, finals):
        r._set(v)
    return out


def _bind_axis_name(axis_name, size):
    """Collectives may name ``axis_name`` while ``fun`` runs (no name: nothing bound)."""
    if axis_name is None:
        return contextlib.nullcontext()
    return extend_axis_env(axis_name, size)


# -- checking and flattening the axes options ------------------------------------------------
# As JAX: the types of in_axes/out_axes are checked when vmap is applied (TypeError); their
# structure, ranks and sizes against each call's arguments and outputs (ValueError). Each
# message names vmap(<function>), the argument (by parameter name and pytree path), its
# shape, the axis and the fix.

def _is_axis(x):
    return _argnums.is_index(x)


def _check_axes_types(in_axes, out_axes, axis_size, where):
    if not (in_axes is None or _is_axis(in_axes) or type(in_axes) is tuple):
        raise TypeError(f"{where}: in_axes must be an int, None, or a tuple of entries "
                        f"corresponding to the positional arguments passed to the function, "
                        f"but got {type(in_axes).__name__} {in_axes!r:.80}; e.g. in_axes=0, "
                        f"or in_axes=(0, None) for f(x, y) mapping x only")
    for option, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        bad = [a for a in tree_flatten(axes, is_leaf=lambda x: x is None)[0]
               if a is not None and not _is_axis(a)]
        if bad:
            raise TypeError(f"{where}: {option} must be an int, None, or (nested) container "
                            f"with those types as leaves, but got {bad[0]!r} in "
                            f"{axes!r:.80}; use an int axis, or None for not mapped")
    if axis_size is not None:
        if not (_argnums.is_index(axis_size) or is_expr(axis_size)):
            raise TypeError(f"{where}: axis_size must be an int or None, got "
                            f"{type(axis_size).__name__} {axis_size!r:.60}")
        if _argnums.is_index(axis_size) and axis_size < 0:
            raise ValueError(f"{where}: axis_size={axis_size} is negative; pass the size of "
                             f"the mapped axis")


class _Labels:
    """Names of the leaves of ``(args, kwargs)`` (or of an output) for messages, e.g.
    ``argument x['w']``; computed only when an error is raised."""

    def __init__(self, fun, tree, output=False):
        self.fun, self.tree, self.output = fun, tree, output

    def __getitem__(self, k):
        path = tree_flatten_with_path(self.tree)[0][k][0]
        if self.output:
            return f"output{keystr(path)}" if path else "the output"
        if path[0].idx == 1:
            return f"keyword argument {path[1].key!r}{keystr(path[2:])}"
        return self.argument(path[1].idx) + keystr(path[2:])

    def argument(self, i):
        names = _argnums.Params(self.fun).pos_names
        return f"argument {names[i]}" if i < len(names) else f"args[{i}]"

    def is_keyword(self, k):
        return not self.output and tree_flatten_with_path(self.tree)[0][k][0][0].idx == 1


class _AxesSpec:
    """An in_axes/out_axes value, flattened once (None leaves kept)."""

    def __init__(self, axes):
        self.axes = axes
        self.uniform = axes is None or _is_axis(axes)
        leaves, self.treedef = tree_flatten(axes, is_leaf=lambda x: x is None)
        self.leaves = [None if a is None else static_index(a, "in_axes/out_axes", "vmap")
                       for a in leaves]


def _flatten_axes(spec, value, n_leaves, option, where, labels, what):
    """One axis per leaf of ``value`` (it has ``n_leaves``), ``spec`` (an :class:`_AxesSpec`)
    being a pytree prefix of it (an int or None applies to a whole subtree). Node types
    must agree as in JAX: only a top-level in_axes list is read as a tuple, a list further
    down matches list-valued arguments."""
    if spec.uniform:
        return _leaf_axes(spec.leaves[0], value, option)
    spec_leaves, treedef, spec = spec.leaves, spec.treedef, spec.axes
    try:
        subtrees = treedef.flatten_up_to(value)
    except ValueError:
        raise ValueError(
            f"{where}: {option} specification must be a tree prefix of the corresponding "
            f"value, got specification {spec!r:.100} for {what} with tree structure "
            f"{tree_flatten(value)[1]}{_mismatch(spec, value, (), labels, option)}") from None
    out = []
    for ax, sub in zip(spec_leaves, subtrees):
        out.extend(_leaf_axes(ax, sub, option))
    return out


def _leaf_axes(ax, value, option):
    """``ax`` for each leaf of ``value``. An array of an extended dtype (a typed key array)
    is a node whose data leaf has trailing dims its shape hides, so a negative axis counts
    from the end of the array's own shape (one more for out_axes: the mapped axis is
    added), not of its data's."""
    if ax is None or ax >= 0:
        return [ax] * len(tree_flatten(value)[0])
    out = []
    for sub in tree_flatten(value, is_leaf=lambda x: isinstance(x, ExtendedArray))[0]:
        n = len(tree_flatten(sub)[0])
        if isinstance(sub, ExtendedArray):
            rank = sub.ndim + (option == "out_axes")
            if ax < -rank:
                raise ValueError(
                    f"vmap: axis {ax} in {option} is out of bounds for a key array of "
                    f"{'per-example ' if option == 'out_axes' else ''}shape {sub.shape}; "
                    f"use an axis in [{-rank}, {rank})")
            out.extend([ax + rank] * n)
        else:
            out.extend([ax] * n)
    return out


def _mismatch(spec, value, path, labels, option):
    """Where a specification stops being a prefix of a value, and the fix."""
    def at():
        if labels.output:
            return f"output{keystr(path)}" if path else "the output"
        return labels.argument(path[0].idx) + keystr(path[1:]) if path else "the arguments"
    if spec is None or _is_axis(spec):
        return ""
    if type(spec) is not type(value):
        if isinstance(spec, list) and isinstance(value, tuple):
            fix = "; use a tuple where the value is a tuple" + (
                " (only a top-level in_axes list is read as a tuple, as in JAX)"
                if option == "in_axes" else "")
        else:
            fix = ("; make the specification's containers match the value's, or give one "
                   "int (or None) for the whole value")
        return (f": at {at()} the specification has a {type(spec).__name__} where the value "
                f"is a {type(value).__name__}{fix}")
    if isinstance(spec, dict):
        if set(spec) != set(value):
            return (f": at {at()} the specification has keys {sorted(spec)} where the "
                    f"value has {sorted(value)}; give an entry for each key")
        kids = [(spec[k], value[k], DictKey(k)) for k in sorted(spec)]
    elif isinstance(spec, (tuple, list)):
        if len(spec) != len(value):
            return (f": at {at()} the specification has {len(spec)} entries where the value "
                    f"has {len(value)}; give one entry per element")
        kids = [(a, v, SequenceKey(i)) for i, (a, v) in enumerate(zip(spec, value))]
    else:
        return ""
    return next((m for m in (_mismatch(a, v, path + (key,), labels, option)
                             for a, v, key in kids) if m), "")


def _mapped_array(x, ax, where, labels, k):
    from tjit.transforms.ad import _to_array
    if dtypes.is_float0(x):  # a NumPy array without data (JAX's float0 tangents)
        return x
    try:
        return _to_array(x)
    except TypeError:
        raise TypeError(f"{where}: {labels[k]} is a {type(x).__name__} ({x!r:.60}), not an "
                        f"array, but in_axes maps it along axis {ax}; pass None in in_axes "
                        f"for an argument that is not an array") from None


def _axis_size(leaves, axes, axis_size, where, labels):
    sizes = []  # (size, leaf index, axis)
    for k, (x, ax) in enumerate(zip(leaves, axes)):
        if ax is None:
            continue
        shape = tuple(np.shape(x) if dtypes.is_float0(x) else get_aval(x).shape)
        if not -len(shape) <= ax < len(shape):
            if labels.is_keyword(k):
                fix = ("keyword arguments are always mapped along axis 0, as in JAX; pass it "
                       "positionally to give it an in_axes entry (None: not mapped)")
            elif shape:
                fix = (f"use an axis in [{-len(shape)}, {len(shape)}), or None in in_axes to "
                       f"pass it unmapped")
            else:
                fix = "it has no axis to map: pass None in in_axes for it (not mapped)"
            raise ValueError(
                f"{where}: axis {ax} in in_axes is out of bounds for {labels[k]} of shape "
                f"{shape}: vmap was requested to map it along axis {ax}, which implies that "
                f"its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only "
                f"{len(shape)}; {fix}")
        sizes.append((shape[ax], k, ax))
    if not sizes:
        if axis_size is None:
            raise ValueError(f"{where} must have at least one non-None value in in_axes, or "
                             f"be given axis_size: no argument is mapped, so the size of the "
                             f"mapped axis is unknown")
        return axis_size
    if axis_size is not None:
        for s, k, ax in sizes:
            if not dims_equal(s, axis_size):
                raise ShapeError(
                    f"{where}: axis_size={dim_str(axis_size)} but axis {ax} of {labels[k]} "
                    f"(shape {_shape(leaves[k])}) has size {dim_str(s)}; pass "
                    f"axis_size={dim_str(s)}, drop axis_size, or leave that argument "
                    f"unmapped (None in in_axes)")
        return axis_size
    groups = []  # [size, [(leaf index, axis), ...]], most frequent size first
    for s, k, ax in sizes:
        g = next((g for g in groups if dims_equal(g[0], s)), None)
        if g is None:
            groups.append([s, []])
            g = groups[-1]
        g[1].append((k, ax))
    if len(groups) == 1:
        return groups[0][0]
    groups.sort(key=lambda g: -len(g[1]))
    lines = []
    for n, (s, members) in enumerate(groups):
        k, ax = members[0]
        ex = f"axis {ax} of {labels[k]} of type {get_aval(leaves[k]).str_short()}"
        if len(members) == 1:
            lines.append(f"  * one axis had size {dim_str(s)}: {ex}")
        else:
            most = "most" if n == 0 else "some"
            lines.append(f"  * {most} axes ({len(members)} of them) had size {dim_str(s)}, "
                         f"e.g. {ex}")
    raise ShapeError(f"{where} got inconsistent sizes for array axes to be mapped:\n"
                     + ";\n".join(lines) + "\nmap axes of one size, or pass an argument "
                     "that should not be mapped with None in in_axes")


def _shape(x):
    return tuple(get_aval(x).shape)


def _finish_output(trace, out, out_axis, size, where, labels, k, sum_match=False):
    from tjit.transforms.ad import _to_array
    if dtypes.is_float0(out):  # no data: the batched one is the float0 array of that shape
        return _batched_float0(out, out_axis, size, where)
    val, dim = trace.to_batched(out)
    if out_axis is None:
        if dim is not None and sum_match:
            return _sum_mapped(val, dim)
        if dim is not None:
            raise ValueError(f"{where}: vmap has mapped output but out_axes is None for "
                             f"{labels[k]}; use out_axes=0, or return a value that does not "
                             f"depend on the mapped inputs there")
        return val
    val = _to_array(val)
    nd = len(get_aval(val).shape) + (dim is None)  # rank of the batched result
    if not -nd <= out_axis < nd:
        # JAX rejects these; wrapping them around would silently put the axis elsewhere
        shape = tuple(get_aval(val).shape)
        shape = shape if dim is None else shape[:dim] + shape[dim + 1:]
        raise ValueError(f"{where}: out_axes={out_axis} is out of bounds for an output of "
                         f"rank {nd} ({labels[k]} has shape {shape} plus the mapped axis); "
                         f"use an axis in [{-nd}, {nd - 1}]")
    out_axis = out_axis % nd
    if dim is None:
        return moveaxis(bdim_at_front(val, None, size), 0, out_axis)
    return moveaxis(val, dim, out_axis)


def _sum_mapped(val, dim):
    """``sum_match``: a mapped output summed over its mapped axis (booleans as default
    ints, as ``x.sum()`` in JAX)."""
    if dtypes.is_bool(get_aval(val).dtype):
        val = convert_element_type_p.bind(val, new_dtype=dtypes.default_int(),
                                          weak_type=False)
    return reduce_sum_p.bind(val, axes=(dim,))


def _batched_float0(out, out_axis, size, where):
    shape = list(np.shape(out))
    if out_axis is None:
        return out
    if not -len(shape) - 1 <= out_axis <= len(shape):
        raise ValueError(f"{where}: out_axes={out_axis} is out of bounds for a float0 output "
                         f"of rank {len(shape) + 1} (shape {tuple(shape)} plus the mapped "
                         f"axis)")
    shape.insert(out_axis % (len(shape) + 1), size)
    return np.zeros(tuple(shape), dtypes.float0)


__all__ = ["BatchTrace", "BatchTracer", "batching_axis_name", "not_mapped", "vmap"]
