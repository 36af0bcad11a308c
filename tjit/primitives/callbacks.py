"""Host callbacks: primitives that call Python functions on NumPy arrays at run time
(JAX's ``debug_callback``, ``pure_callback`` and ``io_callback``).

* ``debug_callback_p`` (``tjit.debug.callback``/``print``): no results; effectful, so
  it is never removed as dead code or merged with its twin. Its jvp calls it on the
  primals (a print under ``grad`` shows the primal values); under ``vmap`` it is called
  once per batch element, as JAX's, through a ``scan`` over the batch.
* ``pure_callback_p``: results of the shapes and dtypes it declares; pure, so an unused
  one is dead code (as in JAX). Not differentiable (JAX's errors: wrap it in
  ``custom_jvp``); batched by its ``vmap_method``.
* ``io_callback_p``: like ``pure_callback`` but effectful (never removed); an ordered
  one cannot be batched (JAX refuses too), an unordered one runs per batch element.

Every callback is a host step of the compiled plan: the compiler's generic route for a
primitive without a lowering (``xla_like/lowering.library_call``) runs this file's
implementation on the runtime's array namespace, which copies the operands to NumPy
(a compiled plan reuses its buffers, and a callback may keep what it is given), calls
the function and checks the results against the declared shapes and dtypes before they
go back (``xp.asarray``: CuPy on CUDA). None of these is constant-folded at trace time
(``foldable``): the user counts their calls.
"""

import dataclasses

import numpy as np

from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive
from tjit.primitives.control_flow import scan_p
from tjit.primitives.structural import broadcast_in_dim_p
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import get_aval, is_device_value, never_weak, to_host
from tjit.tracing.errors import TjitError
from tjit.tracing.jaxpr import ClosedJaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
from tjit.tracing.tree_util import tree_leaves, tree_unflatten

#: ``pure_callback``'s ``vmap_method`` values (JAX's list).
VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None)


class CallbackResultError(TjitError, RuntimeError):
    """A callback returned values that do not match its declared result shapes/dtypes
    (a RuntimeError, as JAX's XlaRuntimeError)."""


@dataclasses.dataclass(frozen=True)
class FlatCallback:
    """``callback_func`` called with flat operands: they unflatten to ``(args, kwargs)``
    through ``in_tree``, with ``static`` ((flat position, value) pairs: the leaves that
    are not arrays, kept out of the IR) put back in place. Returns the flat leaves of
    the result. Equal for the same function and argument structure (the jit cache and
    CSE compare params)."""
    callback_func: object
    in_tree: object
    static: tuple = ()

    def __call__(self, *flat):
        if self.static:
            leaves, dyn = [None] * (len(flat) + len(self.static)), iter(flat)
            where = dict(self.static)
            for i in range(len(leaves)):
                leaves[i] = where[i] if i in where else next(dyn)
            flat = leaves
        args, kwargs = tree_unflatten(self.in_tree, list(flat))
        return tree_leaves(self.callback_func(*args, **kwargs))

    @property
    def name(self):
        f = self.callback_func
        return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)

    def __str__(self):   # (how the jaxpr printer shows the param)
        return self.name


# -- the host call shared by the three primitives --------------------------------------------
def _to_host(a):
    """A NumPy copy of an operand that the callback may keep (read-only, as JAX's
    arrays): a compiled plan reuses the buffer it came from; a device array (CuPy)
    comes to the host through its registered hooks."""
    out = np.asarray(to_host(a)) if is_device_value(a) else np.array(a, copy=True)
    out.flags.writeable = False
    return out


def _check_results(op, callback, out, result_types):
    """The callback's leaves as NumPy arrays of the declared ``(shape, dtype)`` types
    (JAX's checks; 64-bit values narrow as JAX's canonicalization does without x64)."""
    if len(out) != len(result_types):
        raise CallbackResultError(
            f"{op}: callback {callback.name} returned {len(out)} values, expected "
            f"{len(result_types)} (Mismatched number of outputs from callback); return a "
            f"pytree that matches result_shape_dtypes")
    checked = []
    for i, (o, (shape, dtype)) in enumerate(zip(out, result_types)):
        a = np.asarray(o)  # (copied: the callback may keep and change what it returns)
        a = a.astype(dtypes.canonicalize(a.dtype), copy=True)
        if a.shape != tuple(shape):
            raise CallbackResultError(
                f"{op}: callback {callback.name}: Incorrect output shape for return value "
                f"#{i}: Expected: {tuple(shape)}, Actual: {a.shape}; return arrays of "
                f"the shapes result_shape_dtypes declares")
        if a.dtype != dtype:
            raise CallbackResultError(
                f"{op}: callback {callback.name}: Incorrect output dtype for return value "
                f"#{i}: Expected: {dtype}, Actual: {a.dtype}; convert with "
                f".astype({dtype}) in the callback")
        checked.append(a)
    return checked


def _call(op, xp, args, callback, result_types):
    out = callback(*[_to_host(a) for a in args])
    out = _check_results(op, callback, out, result_types)
    return out if xp is np else [xp.asarray(o) for o in out]


def _results_abstract(*avals, result_types, **_):
    return [ShapedArray(shape, dtype) for shape, dtype in result_types]


def _no_results_abstract(*avals, **_):
    return []


# -- debug_callback ------------------------------------------------------------------------------
debug_callback_p = new_primitive("debug_callback", multiple_results=True)
debug_callback_p.effectful = True
debug_callback_p.foldable = False
debug_callback_p.def_abstract_eval(_no_results_abstract)


@debug_callback_p.def_impl
def _debug_callback_impl(xp, *args, callback, ordered):
    callback(*[_to_host(a) for a in args])  # (what it returns is ignored, as in JAX)
    return []


def _debug_callback_jvp(primals, tangents, **params):
    """Calls back with the primals; tangents are no business of a print."""
    return debug_callback_p.bind(*primals, **params), []


def _debug_callback_transpose(ct, *args, **params):
    return [None] * len(args)


debug_callback_p.jvp = _debug_callback_jvp
debug_callback_p.transpose = _debug_callback_transpose


# -- pure_callback -------------------------------------------------------------------------------
pure_callback_p = new_primitive("pure_callback", multiple_results=True)
pure_callback_p.foldable = False
pure_callback_p.def_abstract_eval(_results_abstract)
pure_callback_p.def_weak_type(never_weak)


@pure_callback_p.def_impl
def _pure_callback_impl(xp, *args, callback, result_types, vmap_method):
    return _call("pure_callback", xp, args, callback, result_types)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` "
                     "(tjit.custom_jvp) to use callbacks while taking gradients.")


def _pure_callback_transpose(ct, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` "
                     "(tjit.custom_vjp) to use callbacks while taking gradients.")


pure_callback_p.jvp = _pure_callback_jvp
pure_callback_p.transpose = _pure_callback_transpose


# -- io_callback ---------------------------------------------------------------------------------
io_callback_p = new_primitive("io_callback", multiple_results=True)
io_callback_p.effectful = True
io_callback_p.foldable = False
io_callback_p.def_abstract_eval(_results_abstract)
io_callback_p.def_weak_type(never_weak)


@io_callback_p.def_impl
def _io_callback_impl(xp, *args, callback, result_types, ordered):
    return _call("io_callback", xp, args, callback, result_types)


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_transpose(ct, *args, **params):
    raise ValueError("IO callbacks do not support transpose.")


io_callback_p.jvp = _io_callback_jvp
io_callback_p.transpose = _io_callback_transpose


# -- batching ------------------------------------------------------------------------------------
def _axis_size(args, dims):
    return next(get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)


def _sequential(prim, args, dims, params):
    """``prim`` called once per batch element, in order: a ``scan`` over the batched
    operands (moved to the front) whose body binds ``prim`` on one element of each;
    unbatched operands are the body's constants. Results stack along axis 0."""
    size = _axis_size(args, dims)
    batched = [_r.moveaxis(a, d, 0) for a, d in zip(args, dims) if d is not None]
    unbatched = [a for a, d in zip(args, dims) if d is None]

    def body(*xs):
        xs, fixed = iter(xs), iter(unbatched)
        merged = [next(fixed) if d is None else next(xs) for d in dims]
        return prim.bind(*merged, **params)

    x_avals = [ShapedArray(tuple(get_aval(b).shape[1:]), get_aval(b).dtype) for b in batched]
    jaxpr, consts = convert_constvars_jaxpr(trace_to_jaxpr(body, x_avals, f"{prim.name}_vmap"))
    outs = scan_p.bind(*consts, *batched, jaxpr=ClosedJaxpr(jaxpr, []), length=size,
                       reverse=False, num_consts=len(consts), num_carry=0, unroll=1)
    return list(outs), [0] * len(outs)


def _batched_types(size, result_types):
    return tuple(((size,) + tuple(shape), dtype) for shape, dtype in result_types)


def _debug_callback_batch(args, dims, **params):
    return _sequential(debug_callback_p, args, dims, params)


def _pure_callback_batch(args, dims, *, callback, result_types, vmap_method):
    params = {"callback": callback, "result_types": result_types, "vmap_method": vmap_method}
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential(pure_callback_p, args, dims, params)
    size = _axis_size(args, dims)
    moved = [a if d is None else _r.moveaxis(a, d, 0) for a, d in zip(args, dims)]
    if vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        moved = [_lead(a, n) if d is None else a for a, d in zip(moved, dims)]
    elif vmap_method != "legacy_vectorized":
        raise NotImplementedError(
            f"vmap is only supported for the pure_callback primitive when vmap_method is "
            f"one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', "
            f"or 'legacy_vectorized'. Got vmap_method={vmap_method!r} (callback "
            f"{callback.name}); pass vmap_method= to pure_callback")
    params["result_types"] = _batched_types(size, result_types)
    outs = pure_callback_p.bind(*moved, **params)
    return list(outs), [0] * len(outs)


def _lead(x, n):
    """``x`` with a new leading axis of size ``n`` (a broadcast)."""
    shape = tuple(get_aval(x).shape)
    return broadcast_in_dim_p.bind(x, shape=(n,) + shape,
                                   broadcast_dimensions=tuple(range(1, len(shape) + 1)))


def _io_callback_batch(args, dims, *, callback, result_types, ordered):
    if ordered:
        raise ValueError(f"Cannot `vmap` ordered IO callback (callback {callback.name}); "
                         f"use ordered=False, or call io_callback outside vmap")
    return _sequential(io_callback_p, args, dims,
                       {"callback": callback, "result_types": result_types, "ordered": False})


debug_callback_p.batch = _debug_callback_batch
pure_callback_p.batch = _pure_callback_batch
io_callback_p.batch = _io_callback_batch
