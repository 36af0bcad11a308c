"""Vectorizing map: ``vmap``.

A :class:`BatchTracer` holds a value with one extra axis (``batch_dim``) or, where a
value does not depend on the mapped inputs, the plain value. For each primitive the
trace binds the primitive's batching rule under its parent trace; rules fold the batch
axis into the operation (``dot_general`` adds a batch dimension, reductions shift
their axes...), so nothing runs as a Python loop.
"""

import functools

from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import (
    Trace, Tracer, current_trace, escaped_tracer_error, get_aval, set_current_trace)
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import dim_str, dims_equal
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.primitives.rules import bdim_at_front, moveaxis

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
        if all(d is not_mapped for d in dims):
            with set_current_trace(self.parent):
                return prim.bind(*vals, **params)
        if prim.batch is None:
            raise NotImplementedError(f"Batching rule for '{prim.name}' not implemented")
        with set_current_trace(self.parent):
            out, out_dim = prim.batch(list(vals), list(dims), **params)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim)]
        return self.wrap(out, out_dim)


def _broadcast_prefix(prefix, tree, what):
    """Expand an axes spec (an int/None or a pytree prefix of ``tree``) to leaves."""
    leaves, treedef = tree_flatten(tree)
    if prefix is None or isinstance(prefix, int):
        return [prefix] * len(leaves)
    bad = [p for p in tree_flatten(prefix, is_leaf=lambda x: x is None)[0]
           if p is not None and not isinstance(p, int)]
    if bad:
        raise TypeError(f"vmap {what} must be an int, None, or (nested) container with those "
                        f"types as leaves, but got {bad[0]!r} in {prefix!r}")
    out = []

    def walk(p, sub):
        if p is None or isinstance(p, int):
            out.extend([p] * len(tree_flatten(sub)[0]))
            return
        p_leaves, p_def = tree_flatten(p, is_leaf=lambda x: x is None)
        if type(p) is not type(sub) and not (isinstance(p, (tuple, list)) and
                                             isinstance(sub, (tuple, list))):
            raise ValueError(f"vmap {what} specification must be a tree prefix of the "
                             f"corresponding value, got {prefix!r} for a value with "
                             f"structure {treedef}")
        if isinstance(p, dict):
            if set(p) != set(sub):
                raise ValueError(f"vmap {what}: dict keys {sorted(p)} do not match "
                                 f"{sorted(sub)}")
            for k in sorted(sub):
                walk(p[k], sub[k])
        else:
            if len(p) != len(sub):
                raise ValueError(f"vmap {what} specification {prefix!r} has {len(p)} "
                                 f"entries but the value has {len(sub)}")
            for pp, ss in zip(p, sub):
                walk(pp, ss)
    walk(prefix, tree)
    return out


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorize ``fun`` over a leading (or ``in_axes``) axis of its inputs.

    Args:
      in_axes: int, None, or a pytree prefix of the arguments (tuple for positional
        arguments) giving the mapped axis of each input (None: not mapped).
      out_axes: same for the outputs.
      axis_size: the size of the mapped axis when no input is mapped.
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)

    @functools.wraps(fun)
    def vmapped(*args, **kwargs):
        if isinstance(in_axes, tuple):
            if len(in_axes) != len(args):
                raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                                 f"corresponding to the positional arguments passed to the "
                                 f"function, but got len(in_axes)={len(in_axes)}, "
                                 f"len(args)={len(args)}")
            spec = in_axes
        else:
            spec = (in_axes,) * len(args)
        # As in JAX, keyword arguments are always mapped over their leading axis.
        leaves, in_tree = tree_flatten((args, kwargs))
        axes = _broadcast_prefix(spec, args, "in_axes") + [0] * len(tree_flatten(kwargs)[0])
        from tjit.transforms.ad import _to_array
        leaves = [_to_array(x) if ax is not None else x for x, ax in zip(leaves, axes)]
        size = _axis_size(leaves, axes, axis_size, fun)
        trace = BatchTrace(current_trace(), size, axis_name, getattr(fun, "__name__", "fn"))
        ins = []
        for x, ax in zip(leaves, axes):
            if ax is None:
                ins.append(x)
            else:
                nd = len(get_aval(x).shape)
                ins.append(BatchTracer(trace, x, ax % nd if nd else ax))
        try:
            with set_current_trace(trace):
                b_args, b_kwargs = tree_unflatten(in_tree, ins)
                out = fun(*b_args, **b_kwargs)
            out_leaves, out_tree = tree_flatten(out)
            oaxes = _broadcast_prefix(out_axes, out, "out_axes")
            res = [_finish_output(trace, o, ax, size) for o, ax in zip(out_leaves, oaxes)]
        finally:
            trace.invalidate()
        return tree_unflatten(out_tree, res)
    return vmapped


def _axis_size(leaves, axes, axis_size, fun):
    sizes = []
    for x, ax in zip(leaves, axes):
        if ax is None:
            continue
        shape = get_aval(x).shape
        if not shape:
            raise ValueError(f"vmap was requested to map its argument along axis {ax}, which "
                             f"implies that its rank should be at least {ax + 1 if ax >= 0 else -ax}"
                             f", but is only 0 (its shape is ())")
        if not -len(shape) <= ax < len(shape):
            raise ValueError(f"vmap: in_axes {ax} is out of bounds for an argument of shape "
                             f"{tuple(shape)}")
        sizes.append((shape[ax], tuple(shape), ax))
    if not sizes:
        if axis_size is None:
            raise ValueError("vmap must have at least one non-None value in in_axes, or be "
                             "given axis_size")
        return axis_size
    first = sizes[0][0]
    for s, shape, ax in sizes[1:]:
        if not dims_equal(s, first):
            desc = "; ".join(f"argument of shape {sh} mapped along axis {a} (size "
                             f"{dim_str(z)})" for z, sh, a in sizes)
            raise ShapeError(f"vmap got inconsistent sizes for array axes to be mapped: {desc}")
    if axis_size is not None and not dims_equal(axis_size, first):
        raise ShapeError(f"vmap: axis_size={axis_size} but the mapped axes have size {first}")
    return first


def _finish_output(trace, out, out_axis, size):
    from tjit.transforms.ad import _to_array
    val, dim = trace.to_batched(out)
    if out_axis is None:
        if dim is not None:
            raise ValueError("vmap has mapped output but out_axes is None; use out_axes=0 or "
                             "return a value that does not depend on the mapped inputs")
        return val
    val = _to_array(val)
    nd = len(get_aval(val).shape) + (dim is None)  # rank of the batched result
    if not -nd <= out_axis < nd:
        # JAX rejects these; wrapping them around would silently put the axis elsewhere
        shape = tuple(get_aval(val).shape)
        shape = shape if dim is None else shape[:dim] + shape[dim + 1:]
        raise ValueError(f"vmap out_axes={out_axis} is out of bounds for an output of rank "
                         f"{nd} (the function's output has shape {shape} plus the mapped "
                         f"axis); use an axis in [{-nd}, {nd - 1}]")
    out_axis = out_axis % nd
    if dim is None:
        return moveaxis(bdim_at_front(val, None, size), 0, out_axis)
    return moveaxis(val, dim, out_axis)


__all__ = ["vmap", "BatchTrace", "BatchTracer", "not_mapped"]
