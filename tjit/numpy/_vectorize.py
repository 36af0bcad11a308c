"""Vectorizing wrappers of ``tjit.numpy``: ``vectorize`` (NumPy's ``np.vectorize`` with
generalized-ufunc signatures), ``apply_along_axis`` and ``apply_over_axes``.

As in JAX these are built on :func:`tjit.vmap`, not a Python loop: the wrapped function is
traced once with batched values, so the result is one vectorized computation that also
works under ``jit``, ``grad`` and with symbolic shapes.

``vectorize`` maps every *loop dimension* (the leading dimensions in front of an
argument's core dimensions) with its own ``vmap``. Broadcasting happens inside vmap: an
argument whose loop dimension has size 1 (or that lacks the dimension) is not mapped
along it, so nothing is materialized at the full broadcast shape.
"""

import functools
import re

import numpy as np

from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import (
    broadcast_shapes, definitely_equal, dim_str, is_one, normalize_axis, shape_str)
from tjit.tracing.tree_util import tree_map
from tjit.transforms.batching import vmap
from tjit.numpy._core import asarray
from tjit.numpy._shape import expand_dims, squeeze

# generalized-ufunc signatures, as numpy.lib._function_base_impl parses them
_DIM = r"\w+"
_CORE_DIMS = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE_DIMS}\)"
_ARG_LIST = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = re.compile(rf"^{_ARG_LIST}->{_ARG_LIST}$")


def _parse_signature(signature):
    """``'(m,n),(n)->(m)'`` -> ``([('m', 'n'), ('n',)], [('m',)])``."""
    if not isinstance(signature, str):
        raise TypeError(f"vectorize: signature must be a string like '(m,n),(n)->(m)', got "
                        f"{signature!r}")
    sig = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(sig):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}; expected "
                         f"comma-separated parenthesized core dimensions on both sides of "
                         f"'->', e.g. '(n),(n)->()' or '(m,n)->(n),()'")
    ins, outs = sig.split("->")
    return ([tuple(re.findall(_DIM, a)) for a in re.findall(_ARG, ins)],
            [tuple(re.findall(_DIM, a)) for a in re.findall(_ARG, outs)])


def _fmt_core(core):
    return "(" + ",".join(core) + ")"


def _bind_static(fun, static, args, kwargs, labels=None):
    """Split a call into the values to vectorize and a function of just those.

    Positions (ints) and keyword names (strs) in ``static`` are passed to ``fun``
    unchanged; the other positional arguments and then the other keyword arguments (in
    call order, as ``np.vectorize``) become the positional arguments of the result.
    Returns ``(func, values, labels)``; labels name the values in error messages.
    """
    pos = [i for i in range(len(args)) if i not in static]
    names = [k for k in kwargs if k not in static]
    if labels is None:
        labels = ([f"argument {i}" for i in range(len(args))], {k: f"argument {k!r}"
                                                                for k in kwargs})
    else:
        labels = (labels, {})

    def func(*vals):
        full = list(args)
        for i, v in zip(pos, vals):
            full[i] = v
        kw = dict(kwargs)
        kw.update(zip(names, vals[len(pos):]))
        return fun(*full, **kw)
    values = [args[i] for i in pos] + [kwargs[k] for k in names]
    return func, values, [labels[0][i] for i in pos] + [labels[1][k] for k in names]


class _Context:
    """What error messages say about the vectorized function."""

    def __init__(self, pyfunc, excluded, signature):
        self.text = (f"(in vectorize of {getattr(pyfunc, '__name__', 'the function')} with "
                     f"signature={signature!r}, excluded={set(excluded) or '{}'})")


def _same_dim(a, b):
    try:
        return definitely_equal(a, b)
    except InconclusiveDimensionError:
        return False  # treated as a mismatch: the message names both symbolic sizes


def _record_core_sizes(sizes, core, shape, where, ctx):
    """Check ``shape``'s trailing dims against the sizes already bound to ``core``'s names."""
    tail = shape[len(shape) - len(core):] if core else ()
    for name, d in zip(core, tail):
        if name not in sizes:
            sizes[name] = (d, where)
        elif not _same_dim(d, sizes[name][0]):
            prev, prev_where = sizes[name]
            raise ShapeError(f"vectorize: inconsistent size for core dimension {name!r}: "
                             f"{dim_str(d)} in {where} vs {dim_str(prev)} in {prev_where} "
                             f"{ctx.text}; the arrays must agree on every named core "
                             f"dimension")


def _check_inputs(arrays, labels, cores, ctx):
    """Returns the broadcast loop shape and the sizes of the named core dimensions."""
    sizes, loops = {}, []
    for a, label, core in zip(arrays, labels, cores):
        shape = tuple(a.shape)
        where = f"{label} of shape {shape_str(shape)}"
        if len(shape) < len(core):
            raise ShapeError(f"vectorize: {where} does not have enough dimensions for its "
                             f"core dimensions {_fmt_core(core)} {ctx.text}; it needs at "
                             f"least {len(core)} dimension(s)")
        _record_core_sizes(sizes, core, shape, where, ctx)
        loops.append(shape[:len(shape) - len(core)])
    if not loops:
        return (), sizes
    try:
        loop_shape = broadcast_shapes(*loops, op="vectorize")
    except ShapeError as e:
        detail = ", ".join(f"{lab} {shape_str(tuple(a.shape))} -> loop dims {shape_str(lp)}"
                           for a, lab, lp in zip(arrays, labels, loops))
        raise type(e)(f"vectorize: the loop (non-core) dimensions do not broadcast: {detail} "
                      f"{ctx.text}") from None
    return loop_shape, sizes


def _shape_of(x):
    return tuple(x.shape) if isinstance(x, (Array, Tracer)) else np.shape(x)


def _check_outputs(func, sizes, out_cores, ctx):
    """Wrap ``func`` so that each call checks its outputs against the signature."""
    def checked(*vals):
        out = func(*vals)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_cores) > 1 and not isinstance(out, tuple):
            raise TypeError(f"vectorize: the function must return a tuple of "
                            f"{len(out_cores)} outputs, got a single value of shape "
                            f"{shape_str(_shape_of(out))} {ctx.text}")
        if len(outs) != len(out_cores):
            raise TypeError(f"vectorize: wrong number of outputs: the signature has "
                            f"{len(out_cores)}, the function returned {len(outs)} {ctx.text}")
        known = dict(sizes)
        for k, (o, core) in enumerate(zip(outs, out_cores)):
            shape = _shape_of(o)
            where = f"output {k} of shape {shape_str(shape)}"
            if len(shape) != len(core):
                raise ShapeError(f"vectorize: {where} does not match its core dimensions "
                                 f"{_fmt_core(core)} {ctx.text}; each call must return "
                                 f"exactly the core shape")
            _record_core_sizes(known, core, shape, where, ctx)
        return out
    return checked


def _vmap_loop_dims(func, arrays, cores, loop_shape):
    """Apply ``func`` over the broadcast loop dims, one vmap per loop dimension."""
    nloop = len(loop_shape)
    squeezed, filled = [], []
    for a, core in zip(arrays, cores):
        lead = tuple(a.shape)[:a.ndim - len(core)]
        filled.append((1,) * (nloop - len(lead)) + lead)
        ones = tuple(i for i, d in enumerate(lead) if is_one(d))
        squeezed.append(squeeze(a, ones) if ones else a)
    f, expand = func, []
    for k in reversed(range(nloop)):  # innermost first: the last vmap maps dim 0
        in_axes = tuple(None if is_one(s[k]) else 0 for s in filled)
        if all(ax is None for ax in in_axes):
            expand.append(k)  # size 1 everywhere: add the axis back afterwards
        else:
            f = vmap(f, in_axes=in_axes)
    out = f(*squeezed)
    if expand:
        axes = tuple(sorted(expand))
        out = tree_map(lambda o: expand_dims(o, axes), out)
    return out


def _check_excluded(excluded):
    if any(not isinstance(e, (int, str)) or isinstance(e, bool) for e in excluded):
        raise TypeError(f"vectorize: excluded may only hold argument positions (int) and "
                        f"keyword names (str), got excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"vectorize: excluded={excluded!r} contains negative positions; use "
                         f"non-negative positional indices")


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """Define a vectorized function with broadcasting, like ``np.vectorize``, via ``vmap``.

    Args:
      pyfunc: the function to vectorize. Without ``signature`` it is called on 0-d arrays
        (and may return any shape, stacked behind the loop dims); with one it is called
        on arrays of the core shapes.
      excluded: positions (int) and keyword names (str) of arguments passed to
        ``pyfunc`` unchanged, not vectorized. Other keyword arguments are vectorized
        like positional ones (after them, in call order), as in NumPy.
      signature: generalized-ufunc signature such as ``'(n),(n)->()'`` or
        ``'(m,n)->(n)'``; leading (loop) dimensions of the arguments broadcast.

    Returns:
      The vectorized function. A signature with several outputs returns a tuple.

    Example::

        >>> f = jnp.vectorize(lambda a, b: a + 2 * b)
        >>> f(jnp.arange(3), 1)
        Array([2, 3, 4], dtype=int32)
        >>> row_sums = jnp.vectorize(jnp.sum, signature='(n)->()')
        >>> row_sums(jnp.ones((2, 3)))
        Array([3., 3.], dtype=float32)
    """
    excluded = frozenset(excluded)
    _check_excluded(excluded)
    in_cores, out_cores = (None, None) if signature is None else _parse_signature(signature)
    ctx = _Context(pyfunc, excluded, signature)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        func, values, labels = _bind_static(pyfunc, excluded, args, kwargs)
        cores = [()] * len(values) if in_cores is None else list(in_cores)
        if len(cores) != len(values):
            raise TypeError(f"vectorize: wrong number of vectorized arguments: the signature "
                            f"has {len(cores)} inputs, got {len(values)} ({', '.join(labels)}"
                            f") {ctx.text}; pass one value per signature input and list "
                            f"static arguments in excluded=")
        nones = {i for i, v in enumerate(values) if v is None}
        if nones:  # None is passed through (as JAX), where the signature allows a scalar
            bad = [labels[i] for i in sorted(nones) if cores[i]]
            if bad:
                raise ValueError(f"vectorize: cannot pass None for {', '.join(bad)}, which "
                                 f"has core dimensions in the signature {ctx.text}")
            func, values, labels = _bind_static(func, nones, values, {}, labels)
            cores = [c for i, c in enumerate(cores) if i not in nones]
        arrays = [asarray(v) for v in values]
        loop_shape, sizes = _check_inputs(arrays, labels, cores, ctx)
        if out_cores is not None:
            func = _check_outputs(func, sizes, out_cores, ctx)
        return _vmap_loop_dims(func, arrays, cores, loop_shape)
    return wrapped


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Apply ``func1d`` to the 1-d slices of ``arr`` along ``axis`` (vectorized by vmap).

    Args:
      func1d: called as ``func1d(a, *args, **kwargs)`` on each 1-d slice ``a``.
      axis: the axis the slices run along.
      arr: the input array.

    Returns:
      An array of shape ``arr.shape[:axis] + out.shape + arr.shape[axis + 1:]``, where
      ``out`` is what ``func1d`` returns for one slice.
    """
    arr = asarray(arr)
    if arr.ndim == 0:
        raise ShapeError("apply_along_axis: arr must have at least 1 dimension (got a 0-d "
                         "array); reshape it to (1,) first")
    nd = arr.ndim
    axis = normalize_axis(axis, nd, "apply_along_axis")

    def func(a):
        return func1d(a, *args, **kwargs)
    # trailing axes first: each maps an axis after ``axis`` and puts it after the output
    for i in range(1, nd - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """Apply ``func(a, axis)`` repeatedly over ``axes``, keeping the number of dimensions.

    Args:
      func: called as ``func(a, axis)``; must return an array of the same rank as ``a``
        or of one less (then the reduced axis is re-inserted with size 1).
      a: the input array.
      axes: an axis or a sequence of axes, applied in order.

    Returns:
      An array with as many dimensions as ``a``.
    """
    val = asarray(a)
    nd = val.ndim
    for axis in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        axis = normalize_axis(axis, nd, "apply_over_axes")
        res = asarray(func(val, axis))
        if res.ndim == val.ndim:
            val = res
        elif res.ndim == val.ndim - 1:
            val = expand_dims(res, axis)
        else:
            raise ShapeError(f"apply_over_axes: func returned an array of shape "
                             f"{shape_str(tuple(res.shape))} for an input of shape "
                             f"{shape_str(tuple(val.shape))} along axis {axis}; it must keep "
                             f"the rank or reduce exactly that one axis")
    return val


__all__ = ["vectorize", "apply_along_axis", "apply_over_axes"]
