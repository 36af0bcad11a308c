"""``jnp.ufunc``: NumPy-style universal-function objects, as ``jax.numpy.ufunc``, with
``at``, ``reduce``, ``accumulate``, ``outer``, ``reduceat`` and ``nin``/``nout``/
``nargs``/``identity``.

JAX's ufuncs (``add``, ``subtract``, ``multiply``, ``maximum``, ``minimum``,
``logaddexp``, ``logaddexp2``, ``logical_and/or/xor``, ``bitwise_and/or/xor``,
``negative``) stay the plain functions of ``_ufuncs.py`` so that ``jnp.add(a, b)``
costs exactly what it did (a call through an object's ``__call__`` measured 100-200 ns
more per call); each carries its ``ufunc``'s methods and attributes, and
``isinstance(jnp.add, jnp.ufunc)`` is True. ``jnp.ufunc(func, nin, nout)`` and
``jnp.frompyfunc`` build ufunc objects from any function of arrays.

Methods follow JAX's semantics: arrays are immutable, so ``at`` needs
``inplace=False`` and returns the updated array; ``reduce`` defaults to ``axis=0``;
reductions with a fast library path (``add`` -> ``sum``, ...) use it, the others apply
the function step by step along the axis (``lax.scan``), so user ufuncs reduce too.
``reduceat`` slices concrete indices and folds traced ones in one pass (JAX's way).
``out=`` is not supported (NotImplementedError).
"""

import numpy as np

from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import concrete_value, is_concrete
from tjit.tracing.errors import AxisError, static_index
from tjit.numpy import _reductions as red
from tjit.numpy import _ufuncs as uf
from tjit.numpy._core import asarray, check_arraylike
from tjit.numpy._misc import where as _where
from tjit.numpy._index_routines import take
from tjit.numpy._shape import broadcast_to, moveaxis, reshape

__all__ = ["ufunc", "frompyfunc", "add", "subtract", "multiply", "maximum", "minimum",
           "logaddexp", "logaddexp2", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor", "negative"]


class _UfuncType(type):
    """``isinstance(jnp.add, jnp.ufunc)``: JAX's ufuncs are functions carrying one."""

    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or \
            type.__instancecheck__(cls, getattr(obj, "_ufunc", None))


class ufunc(metaclass=_UfuncType):  # noqa: N801  (NumPy's and JAX's name)
    """A universal function: ``func`` applied elementwise with broadcasting, plus the
    ufunc methods.

    Args:
      func: a function of ``nin`` arrays returning ``nout`` arrays (elementwise).
      nin, nout: numbers of inputs and outputs.
      name: its ``__name__`` (default ``func.__name__``).
      nargs: defaults to ``nin``.
      identity: the reduction identity (None: reductions of empty arrays fail).
      call, reduce, accumulate, at, reduceat: optional faster implementations.

    Example: ``jnp.ufunc(lambda x, y: x * y + 1, 2, 1).outer(jnp.arange(2), jnp.arange(3))``.
    """

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):
        self._func = func
        # commutative and associative, so it reduces over several axes at once: set by
        # _make for jnp's own ufuncs; unknown (False) for a user's, as NumPy's frompyfunc
        self._reorderable = False
        self._call = call or func
        self.nin, self.nout = int(nin), int(nout)
        self.nargs = self.nin if nargs is None else int(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self.__doc__ = getattr(func, "__doc__", None)
        self._fast = {"reduce": reduce, "accumulate": accumulate, "at": at,
                      "reduceat": reduceat}

    def __call__(self, *args, out=None, where=None):
        if out is not None or where is not None:
            uf._no_out(self.__name__, out, where)
        if len(args) != self.nin:
            raise TypeError(f"{self} takes {self.nin} arguments, got {len(args)}")
        return self._call(*args)

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __eq__(self, other):
        return isinstance(other, ufunc) and getattr(other, "_ufunc", other) is self

    def __hash__(self):
        return id(self)

    # -- methods --------------------------------------------------------------------------
    def _binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs; {self} takes "
                             f"{self.nin} input(s)")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single "
                             f"value; {self} returns {self.nout}")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """Reduce ``a`` along ``axis`` (default 0; None: all axes) by applying the ufunc
        step by step, as ``numpy.ufunc.reduce``. ``where`` masks elements out (needs an
        identity or ``initial``)."""
        self._binary("reduce")
        check_arraylike(f"{self.__name__}.reduce", a)
        _no_out(self, "reduce", out)
        if where is not None:
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 f"identity, so to use a where mask one has to specify "
                                 f"'initial'")
            if not dtypes.is_bool(asarray(where).dtype):
                raise ValueError(f"where argument must have dtype=bool; got dtype="
                                 f"{asarray(where).dtype}")
        fast = self._fast["reduce"]
        if fast is not None:
            return fast(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                        where=where)
        return self._reduce_via_scan(asarray(a), axis, dtype, keepdims, initial, where)

    def _reduce_via_scan(self, a, axis, dtype, keepdims, initial, where):
        if where is not None:
            where = broadcast_to(asarray(where), a.shape)
        axes = self._reduced_axes(axis, a.ndim)
        kept = [d for d in range(a.ndim) if d not in axes]
        final = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim)) if keepdims \
            else tuple(a.shape[d] for d in kept)
        # the reduced axes merged into one leading axis (of length 1 for axis=())
        merged = 1
        for d in axes:
            merged = merged * a.shape[d]
        lead = (merged,) + tuple(a.shape[d] for d in kept)
        a = reshape(a.transpose(axes + kept), lead)
        where = None if where is None else reshape(where.transpose(axes + kept), lead)
        dt = dtypes.check_dtype(dtype, f"{self.__name__}.reduce") if dtype is not None \
            else _result_dtype(self, a)
        if initial is None:
            initial = self.identity
        if initial is None and a.shape[0] == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             f"has no identity")
        a = a.astype(dt)
        if initial is None:
            start, xs = a[0], a[1:]
            ws = None if where is None else where[1:]
        else:
            start, xs, ws = broadcast_to(asarray(initial).astype(dt), a.shape[1:]), a, where

        def step(carry, x):
            if ws is None:
                return self._call(carry, x).astype(dt), None
            xi, wi = x
            return _where(wi, self._call(carry, xi).astype(dt), carry), None
        result, _ = lax.scan(step, start, xs if ws is None else (xs, ws))
        return reshape(result, final)

    def _reduced_axes(self, axis, ndim):
        """``axis`` as a list of distinct non-negative axes; a tuple of several only for a
        ufunc whose reduction may run in any order (NumPy's rule)."""
        if axis is None:  # the raveled array, in order (JAX's; NumPy refuses subtract's)
            return list(range(ndim))
        if not isinstance(axis, (tuple, list)):
            return [_axis(self, "reduce", axis, ndim)]
        axes = [_axis(self, "reduce", ax, ndim) for ax in axis]
        if len(set(axes)) != len(axes):
            raise ValueError(f"{self.__name__}.reduce: duplicate value in 'axis': {axis}")
        if len(axes) > 1 and not self._reorderable:
            raise ValueError(f"reduction operation {self.__name__!r} is not reorderable, so "
                             f"at most one axis may be specified (reduce one axis at a time)")
        return axes

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """Running reduction along ``axis``: ``out[i] = f(out[i-1], a[i])``, as
        ``numpy.ufunc.accumulate``."""
        self._binary("accumulate")
        check_arraylike(f"{self.__name__}.accumulate", a)
        _no_out(self, "accumulate", out)
        a = asarray(a)
        fast = self._fast["accumulate"]
        if fast is not None:
            return fast(a, axis=axis, dtype=dtype)
        axis = _axis(self, "accumulate", 0 if axis is None else axis, a.ndim)
        dt = dtypes.check_dtype(dtype, f"{self.__name__}.accumulate") if dtype is not None \
            else _result_dtype(self, a)
        moved = moveaxis(a, axis, 0).astype(dt)
        if moved.shape[0] == 0:
            return a.astype(dt)

        def step(carry, x):
            nxt = self._call(carry, x).astype(dt)
            return nxt, nxt
        _, rest = lax.scan(step, moved[0], moved[1:])
        return moveaxis(lax.concatenate([moved[:1], rest], 0), 0, axis)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with the ufunc applied at ``indices`` (repeated indices apply again), as
        ``numpy.ufunc.at``. tjit arrays are immutable: pass ``inplace=False`` and use the
        returned array (as JAX requires)."""
        if inplace:
            raise NotImplementedError(
                "tjit arrays are immutable, so jnp.ufunc.at() cannot operate in place like "
                "np.ufunc.at(); pass inplace=False and use the result, e.g. "
                "arr = jnp.add.at(arr, ind, val, inplace=False)")
        if b is None and self.nin != 1 or b is not None and self.nin != 2:
            raise ValueError(f"{self}.at takes {self.nin - 1} value argument(s) after the "
                             f"indices")
        a = asarray(a)
        fast = self._fast["at"]
        if fast is not None:
            return fast(a, indices) if b is None else fast(a, indices, b)
        return self._at_via_scan(a, indices, b)

    def _at_via_scan(self, a, indices, b):
        """One update per selected element, in order, on the flattened array."""
        positions = reshape(lax.iota(np.int32, a.size), a.shape)[indices]
        flat_pos = reshape(positions, (-1,))
        flat = reshape(a, (-1,))
        if b is None:
            def step(arr, p):
                return arr.at[p].set(self._call(arr[p]).astype(a.dtype)), None
            flat, _ = lax.scan(step, flat, flat_pos)
        else:
            vals = reshape(broadcast_to(asarray(b), positions.shape), (-1,))

            def step(arr, pv):
                p, v = pv
                return arr.at[p].set(self._call(arr[p], v).astype(a.dtype)), None
            flat, _ = lax.scan(step, flat, (flat_pos, vals))
        return reshape(flat, a.shape)

    def outer(self, A, B, /):  # noqa: N803  (NumPy's names)
        """``f(A[i...], B[j...])`` for every pair: shape ``A.shape + B.shape``."""
        self._binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = asarray(A), asarray(B)
        return self._call(reshape(A, A.shape + (1,) * B.ndim), B)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions over the slices ``a[indices[i]:indices[i+1]]`` along ``axis``
        (``a[indices[i]]`` where ``indices[i] >= indices[i+1]``; the last slice runs to
        the end), as ``numpy.ufunc.reduceat``. ``indices`` may be traced (under jit); concrete
        ones are bounds-checked, traced ones clamped."""
        self._binary("reduceat")
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        _no_out(self, "reduceat", out)
        a = asarray(a)
        axis = _axis(self, "reduceat", axis, a.ndim)
        indices = asarray(indices)
        if indices.ndim != 1 or not dtypes.is_int(indices.dtype):
            raise ValueError(f"{self.__name__}.reduceat: indices must be a 1-D integer "
                             f"array, got {indices.dtype} of shape {indices.shape}")
        if not is_concrete(indices):
            return self._reduceat_traced(a, indices, axis, dtype)
        idx = np.asarray(concrete_value(indices))
        n = a.shape[axis]
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"{self.__name__}.reduceat: indices {idx.tolist()} out of "
                             f"bounds for an axis of size {n}")
        moved = moveaxis(a, axis, 0)
        parts = []
        for k, start in enumerate(idx.tolist()):
            stop = idx[k + 1] if k + 1 < idx.size else n
            part = moved[start:stop] if start < stop else moved[start:start + 1]
            parts.append(self.reduce(part, axis=0, dtype=dtype))
        if not parts:
            return moveaxis(moved[:0].astype(dtype or moved.dtype), 0, axis)
        return moveaxis(lax.concatenate([lax.expand_dims(p, (0,)) for p in parts], 0), 0,
                        axis)

    def _reduceat_traced(self, a, idx, axis, dtype):
        """reduceat along ``axis`` with traced ``idx`` (as JAX's): each output slice starts
        as ``a[idx[k]]``, then one pass over the axis folds slice ``i`` into every segment
        with ``idx[k] < i < idx[k + 1]`` (the last segment ends at the end; an empty or
        decreasing pair leaves ``a[idx[k]]``). Indices out of bounds are clamped. The axis
        stays in place (no transposed copy for the loop to read)."""
        from tjit.api import eval_shape, ShapeDtypeStruct
        dt = eval_shape(lambda p: self.reduce(p, axis=axis, dtype=dtype),
                        ShapeDtypeStruct(a.shape, a.dtype)).dtype
        x = a.astype(dt)
        n, k = a.shape[axis], idx.shape[0]
        idx = lax.clamp(0, idx, max(n - 1, 0))
        ends = lax.concatenate([idx[1:], lax.full((1,), n, idx.dtype)], 0)
        along = tuple(k if d == axis else 1 for d in range(a.ndim))
        starts, ends = reshape(idx, along), reshape(ends, along)

        def fold(i, out):
            inside = lax.bitwise_and(lax.lt(starts, i), lax.lt(i, ends))
            row = lax.dynamic_index_in_dim(x, i, axis, keepdims=True)
            return _where(inside, self._call(out, row).astype(dt), out)
        return lax.fori_loop(0, n, fold, take(x, idx, axis=axis))


def _no_out(u, method, out):
    if out is not None:
        raise NotImplementedError(f"out argument of {u}.{method}(): tjit arrays are "
                                  f"immutable; use the returned value")


def _axis(u, method, axis, ndim):
    axis = static_index(axis, "axis", f"{u.__name__}.{method}")
    if not -ndim <= axis < max(ndim, 1):
        raise AxisError(f"{u.__name__}.{method}: axis {axis} is out of bounds for an array "
                        f"of rank {ndim}")
    return axis % max(ndim, 1)


def _result_dtype(u, a):
    """The dtype ``u`` gives for two elements of ``a`` (an abstract evaluation)."""
    from tjit.api import eval_shape, ShapeDtypeStruct
    one = ShapeDtypeStruct((), a.dtype)
    return eval_shape(u._call, one, one).dtype


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A :class:`ufunc` from ``func`` (a function of arrays, applied with broadcasting;
    unlike NumPy's it is not called per element, and results are tjit arrays).

    Example::

        >>> f = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)
        >>> f(jnp.arange(3), 2)
        Array([1, 3, 5], dtype=int32)
        >>> f.nin, f.nout
        (2, 1)
    """
    return ufunc(func, nin, nout, identity=identity)


# -- JAX's ufuncs: the functions themselves carry their ufunc --------------------------------
def _sum_reduce(a, axis, dtype, keepdims, initial, where):
    return red.sum(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def _prod_reduce(a, axis, dtype, keepdims, initial, where):
    return red.prod(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def _max_reduce(a, axis, dtype, keepdims, initial, where):
    out = red.max(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return out if dtype is None else out.astype(dtype)


def _min_reduce(a, axis, dtype, keepdims, initial, where):
    out = red.min(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return out if dtype is None else out.astype(dtype)


def _cumulative(fn):
    def acc(a, axis, dtype):
        return fn(a, axis=0 if axis is None and a.ndim else axis, dtype=dtype)
    return acc


def _cum_lax(lax_fn):
    def acc(a, axis, dtype):
        ax = _axis_plain(0 if axis is None else axis, a.ndim)
        a = a if dtype is None else a.astype(dtype)
        return lax_fn(a, ax)
    return acc


def _axis_plain(axis, ndim):
    axis = static_index(axis, "axis", "accumulate")
    if not -ndim <= axis < ndim:
        raise AxisError(f"accumulate: axis {axis} is out of bounds for rank {ndim}")
    return axis % ndim


def _at(method):
    def at(a, indices, b):
        return getattr(a.at[indices], method)(b)
    return at


def _subtract_at(a, indices, b):
    return a.at[indices].add(uf.negative(asarray(b)))


def _attach(func, u):
    """Give the function ``func`` the ufunc ``u``'s methods and attributes."""
    for name in ("at", "reduce", "accumulate", "outer", "reduceat", "nin", "nout", "nargs",
                 "identity"):
        setattr(func, name, getattr(u, name))
    func._ufunc = u
    return func


def _make(func, nin, identity=None, reorderable=True, **fast):
    u = ufunc(func, nin, 1, name=func.__name__, identity=identity, **fast)
    u._reorderable = reorderable
    try:
        return _attach(func, u)
    except AttributeError:  # a callable without a __dict__: the ufunc object itself
        return u


add = _make(uf.add, 2, 0, reduce=_sum_reduce, accumulate=_cumulative(red.cumsum),
            at=_at("add"))
subtract = _make(uf.subtract, 2, None, reorderable=False, at=_subtract_at)
multiply = _make(uf.multiply, 2, 1, reduce=_prod_reduce,
                 accumulate=_cumulative(red.cumprod), at=_at("multiply"))
maximum = _make(uf.maximum, 2, None, reduce=_max_reduce, accumulate=_cum_lax(lax.cummax),
                at=_at("max"))
minimum = _make(uf.minimum, 2, None, reduce=_min_reduce, accumulate=_cum_lax(lax.cummin),
                at=_at("min"))
logaddexp = _make(uf.logaddexp, 2, -np.inf)
logaddexp2 = _make(uf.logaddexp2, 2, -np.inf)
logical_and = _make(uf.logical_and, 2, True)
logical_or = _make(uf.logical_or, 2, False)
logical_xor = _make(uf.logical_xor, 2, False)
bitwise_and = _make(uf.bitwise_and, 2, -1)
bitwise_or = _make(uf.bitwise_or, 2, 0)
bitwise_xor = _make(uf.bitwise_xor, 2, 0)
negative = _make(uf.negative, 1)
