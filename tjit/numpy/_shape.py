"""Shape manipulation for ``tjit.numpy``: reshaping, transposing, joining, splitting,
tiling, repeating, flipping and rolling, with NumPy's semantics (and JAX's where they
differ: results never alias their inputs, and arrays are immutable).

Everything is composed from the structural ``lax`` operations (reshape, transpose,
broadcast_in_dim, squeeze/expand_dims, concatenate, slice, pad, rev, dynamic_slice), so
it traces under ``jit`` and keeps symbolic dims symbolic where the operation allows.
Indices that decide output shapes (split points, repeat counts) must be concrete, as in
JAX. Padding, differences, diagonals, resize and insert/delete are in ``_padding.py``.
"""

import operator

import numpy as np

from tjit._sympy import is_expr, sympy
from tjit import lax
from tjit import numpy as jnp  # sibling modules (sum, take, subtract) looked up at call time
from tjit.tracing import dtypes
from tjit.tracing import shapes as sh
from tjit.tracing.core import (
    Array, EvalTrace, Tracer, concrete_value, fast_runner, trace_ctx)
from tjit.tracing.errors import (AxisError, ConcretizationTypeError, NegativeDimensionError,
                                 OperandShapeError, ShapeError, static_index)
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.size_questions import SpecializeSizes
from tjit.primitives import structural as st
from tjit.numpy._dtypes import named_dtype
from tjit.numpy._core import check_arraylike, ensure_array, promote_dtypes, takes_out_sharding
from tjit.numpy._creation import dim_value

_ARRAYS = (Array, Tracer, np.ndarray)


# -- small helpers ------------------------------------------------------------------------
def _dtype_arg(dtype, fname):
    return dtypes.canonicalize_user_dtype(named_dtype(dtype), fname)


def _is_int_like(x):
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, _ARRAYS):
        return x.ndim == 0 and dtypes.is_int(np.dtype(x.dtype)) and not isinstance(x, Tracer)
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


def _replace(shape, axis, d):
    return tuple(shape[:axis]) + (d,) + tuple(shape[axis + 1:])


def _slice_axis(x, start, stop, axis):
    """``x[..., start:stop, ...]`` along ``axis`` (bounds already in range)."""
    if sh.dims_equal(start, 0) and sh.dims_equal(stop, x.shape[axis]):
        return x
    starts, limits = [0] * x.ndim, list(x.shape)
    starts[axis], limits[axis] = start, stop
    return lax.slice(x, tuple(starts), tuple(limits))


def _zero(dtype):
    return Array(np.zeros((), dtype), False)


def _concrete_int_dim(d, fname, what="this axis"):
    if type(d) is not int:
        raise ShapeError(f"{fname}: {what} has symbolic size {sh.dim_str(d)}, but this "
                         f"operation needs a concrete size; trace with a concrete shape")
    return d


# -- reshaping ------------------------------------------------------------------------------
@takes_out_sharding("reshape")
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """Give ``a`` a new shape without changing its data.

    Args:
      a: array to reshape.
      shape: the new shape; one entry may be -1 (inferred). Symbolic dims are allowed.
      order: "C" (row-major) or "F" (column-major) element order; "A" is "F" for an
        input laid out in Fortran order and "C" otherwise (tjit arrays are C-ordered).

    Returns:
      The reshaped array.
    """
    if newshape is not None:
        if shape is not None:
            raise TypeError("reshape: pass the new shape as `shape` only, not also `newshape`")
        shape = newshape
    if shape is None:
        raise TypeError("reshape: missing the new `shape`")
    order = _memory_order(a, order)
    a = ensure_array("reshape", a)
    shape = _static_shape(shape, "reshape")
    if order == "C":
        return lax.reshape(a, shape)
    if order == "F":
        new = sh.reshape_shape(a.shape, shape, "reshape")
        rev_in, rev_out = tuple(range(a.ndim))[::-1], tuple(range(len(new)))[::-1]
        return lax.transpose(lax.reshape(lax.transpose(a, rev_in), new[::-1]), rev_out)
    raise ValueError(f"reshape: order must be 'C', 'F' or 'A', got {order!r}")


def _memory_order(a, order):
    """NumPy's ``order='A'`` resolved for ``a``: 'F' for a NumPy array laid out in Fortran
    order only, else 'C' (tjit arrays and scalars are C-ordered); other orders unchanged.
    (JAX raises NotImplementedError for 'A' on its arrays; NumPy's meaning is the one
    that keeps ported NumPy code working, and agrees with JAX's for NumPy inputs.)"""
    if order != "A":
        return order
    fortran = isinstance(a, np.ndarray) and a.flags.f_contiguous and not a.flags.c_contiguous
    return "F" if fortran else "C"


def _static_shape(shape, fname):
    """``shape`` as a tuple; 0-d integer arrays count as ints, traced entries raise."""
    if isinstance(shape, (Array, Tracer, np.ndarray, np.generic)) and shape.ndim == 0:
        shape = (shape,)
    elif isinstance(shape, np.ndarray):
        shape = tuple(shape.tolist())
    for d in (shape if isinstance(shape, (tuple, list)) else (shape,)):
        if isinstance(d, Tracer):
            raise ConcretizationTypeError(
                f"{fname}: shapes must be static, but the argument contains a traced value "
                f"{d.aval.str_short()}. Fix: compute the shape from static values (e.g. "
                f"x.shape[0] * 2, or a static argument via jit(..., static_argnums=...)).")
    if isinstance(shape, (tuple, list)):
        return tuple(static_index(d, "shape", fname)
                     if isinstance(d, (Array, np.generic, np.ndarray)) else d for d in shape)
    return shape


@takes_out_sharding("ravel")
def ravel(a, order="C"):
    """Flatten ``a`` to 1-D (``order`` "C", "F" or "A", as in :func:`reshape`)."""
    order = _memory_order(a, order)
    a = ensure_array("ravel", a)
    if a.ndim == 1 and order in ("C", "F"):
        return a
    return reshape(a, (sh.size(a.shape),), order)


def transpose(a, axes=None):
    """Permute the axes of ``a`` (reverse them when ``axes`` is None)."""
    if axes is None and type(a) is Array and type(trace_ctx.trace) is EvalTrace:
        # ``a.T`` eagerly: the transpose's kept runner for this signature, if any
        perm = _reversed(a.ndim)
        run = fast_runner(st.transpose_p, (a,), {"permutation": perm})
        if run is not None:
            return run(a._value, permutation=perm)
    a = ensure_array("transpose", a)
    if axes is None:
        return lax.transpose(a, tuple(range(a.ndim))[::-1])
    axes = sh.normalize_axes(tuple(axes), a.ndim, "transpose")
    if len(axes) != a.ndim:
        raise OperandShapeError(f"transpose: axes {tuple(axes)} don't match an array of shape "
                                f"{sh.shape_str(a.shape)}; give one entry per dimension")
    return lax.transpose(a, axes)


#: the reversing permutations of the common ranks, built once (``a.T`` runs eagerly often)
_REVERSALS = tuple(tuple(range(n))[::-1] for n in range(8))


def _reversed(ndim):
    """The reversing permutation of ``ndim`` axes."""
    return _REVERSALS[ndim] if ndim < len(_REVERSALS) else tuple(range(ndim))[::-1]


def permute_dims(a, /, axes):
    """Array-API name of :func:`transpose` with explicit ``axes``."""
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes of ``x`` (a stack of matrices)."""
    x = ensure_array("matrix_transpose", x)
    if x.ndim < 2:
        raise ShapeError(f"matrix_transpose requires at least 2 dimensions; got an array of "
                         f"shape {sh.shape_str(x.shape)}")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    """Interchange two axes of ``a``."""
    a = ensure_array("swapaxes", a)
    perm = list(range(a.ndim))
    i, j = (sh.normalize_axis(ax, a.ndim, "swapaxes") for ax in (axis1, axis2))
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    """Move axes ``source`` of ``a`` to positions ``destination``, keeping the others'
    order."""
    a = ensure_array("moveaxis", a)
    src = sh.normalize_axes(source, a.ndim, "moveaxis")
    dst = sh.normalize_axes(destination, a.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: `source` {source} and `destination` {destination} must "
                         f"have the same number of elements")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def rollaxis(a, axis, start=0):
    """Roll ``axis`` backwards until it lies before position ``start`` (NumPy's legacy
    form of :func:`moveaxis`)."""
    a = ensure_array("rollaxis", a)
    n = a.ndim
    axis = sh.normalize_axis(axis, n, "rollaxis")
    start = static_index(start, "start", "rollaxis")
    if not -n <= start <= n:
        raise ShapeError(f"rollaxis: 'start' arg requires {-n} <= start < {n + 1}, got {start}")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return a if axis == start else moveaxis(a, axis, start)


def expand_dims(a, axis):
    """Insert size-1 axes at positions ``axis`` (int or tuple) of the result."""
    a = ensure_array("expand_dims", a)
    axes = sh.axis_tuple(axis)
    axes = sh.normalize_axes(axes, a.ndim + len(axes), "expand_dims")
    return lax.expand_dims(a, axes)


def squeeze(a, axis=None):
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    a = ensure_array("squeeze", a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(a.shape) if type(d) is int and d == 1)
    else:
        axes = sh.axis_tuple(axis)
        if a.ndim == 0 and axes:
            raise AxisError(f"squeeze: axis {axis} is out of bounds for a 0-d array")
        dims = sh.normalize_axes(axes, a.ndim, "squeeze")
        for d in dims:
            if not sh.is_one(a.shape[d]):
                raise ShapeError(
                    f"squeeze: cannot select an axis to squeeze out which has size not equal "
                    f"to one: axis {d} has size {sh.dim_str(a.shape[d])} in an array of shape "
                    f"{sh.shape_str(a.shape)}")
    return lax.squeeze(a, dims)


# -- broadcasting -----------------------------------------------------------------------------
@takes_out_sharding("broadcast_to")
def broadcast_to(array, shape):
    """Broadcast ``array`` to ``shape`` (NumPy's rules; the result does not alias)."""
    if isinstance(array, ExtendedArray):  # key arrays broadcast their data
        return array._broadcast_to(shape)
    a = ensure_array("broadcast_to", array)
    shape = sh.canonical_shape(shape, "broadcast_to")
    if any(type(d) is int and d < 0 for d in shape):  # not "cannot broadcast (4,) to"
        raise NegativeDimensionError(f"broadcast_to: negative dimensions are not allowed, "
                                     f"got shape {sh.shape_str(shape)}")
    nlead = len(shape) - a.ndim
    ok = nlead >= 0
    for i, d in enumerate(a.shape):
        if not ok:
            break
        t = shape[i + nlead]
        ok = sh.is_one(d) or sh.definitely_equal(d, t)
    if not ok:
        raise ShapeError(f"broadcast_to: cannot broadcast an array of shape "
                         f"{sh.shape_str(a.shape)} to the requested shape {sh.shape_str(shape)}; "
                         f"each dim must equal the requested one or be 1, aligned from the "
                         f"right")
    return lax.broadcast_in_dim(a, shape, tuple(range(nlead, len(shape))))


def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to together (a tuple)."""
    shapes = [sh.canonical_shape(s, "broadcast_shapes") for s in shapes]
    if not shapes:
        return ()
    return sh.broadcast_shapes(*shapes, op="broadcast_shapes")


def broadcast_arrays(*args):
    """Broadcast all ``args`` against each other (dtypes unchanged); returns a list."""
    arrs = [ensure_array("broadcast_arrays", a) for a in args]
    if not arrs:
        return []
    shape = sh.broadcast_shapes(*[tuple(a.shape) for a in arrs], op="broadcast_arrays")
    return [broadcast_to(a, shape) for a in arrs]


def _atleast(fname, arys, new_shape):
    out = []
    for x in arys:
        x = ensure_array(fname, x)
        out.append(lax.reshape(x, new_shape(tuple(x.shape))))
    return out[0] if len(out) == 1 else out  # NumPy: one array, else a list


def atleast_1d(*arys):
    """Views of the inputs with at least one dimension (a list when several)."""
    return _atleast("atleast_1d", arys, lambda s: s if len(s) >= 1 else (1,))


def _shape_2d(s):
    return s if len(s) >= 2 else (1,) * (2 - len(s)) + s


def _shape_3d(s):
    return {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s), s)


def atleast_2d(*arys):
    """Inputs with at least two dimensions (leading 1s added)."""
    return _atleast("atleast_2d", arys, _shape_2d)


def atleast_3d(*arys):
    """Inputs with at least three dimensions: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)."""
    return _atleast("atleast_3d", arys, _shape_3d)


# -- joining ----------------------------------------------------------------------------------
def _concat_leading(arr, axis, dtype, fname):
    """Concatenate the slices ``arr[0], arr[1], ...`` along ``axis`` (an array input)."""
    if dtype is not None:
        arr = lax.convert_element_type(arr, _dtype_arg(dtype, fname))
    if arr.ndim == 0 or sh.dims_equal(arr.shape[0], 0):
        raise ValueError(f"{fname}: need at least one array to concatenate")
    if axis is None:
        return ravel(arr)
    if arr.ndim == 1:
        raise ShapeError(f"{fname}: zero-dimensional arrays cannot be concatenated")
    axis = sh.normalize_axis(axis, arr.ndim - 1, fname)
    perm = (*range(1, axis + 1), 0, *range(axis + 1, arr.ndim))
    s = arr.shape
    new = tuple(s[1:axis + 1]) + (s[0] * s[axis + 1],) + tuple(s[axis + 2:])
    return lax.reshape(lax.transpose(arr, perm), new)


def _check_concat_shapes(fname, arrs, axis):
    nd = arrs[0].ndim
    for i, a in enumerate(arrs):
        if a.ndim != nd:
            raise ShapeError(
                f"{fname}: all the input arrays must have same number of dimensions, but the "
                f"array at index 0 has {nd} dimension(s) and the array at index {i} has "
                f"{a.ndim} dimension(s)")
    for i, a in enumerate(arrs[1:], 1):
        for d in range(nd):
            if d != axis and not sh.definitely_equal(a.shape[d], arrs[0].shape[d]):
                raise OperandShapeError(
                    f"{fname}: all the input array dimensions except for the concatenation "
                    f"axis must match exactly, but along dimension {d}, the array at index 0 "
                    f"has shape {sh.shape_str(arrs[0].shape)} and the array at index {i} has "
                    f"shape {sh.shape_str(a.shape)}")


def concatenate(arrays, axis=0, dtype=None):
    """Join a sequence of arrays along an existing axis.

    Args:
      arrays: arrays (or scalars) of equal shape except along ``axis``; an array is
        treated as the sequence of its leading-axis slices.
      axis: the axis to join along; None flattens every input first.
      dtype: dtype of the result (default: the inputs' promoted dtype).

    Returns:
      The concatenated array.
    """
    if isinstance(arrays, _ARRAYS):
        return _concat_leading(ensure_array("concatenate", arrays), axis, dtype, "concatenate")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concatenate: need at least one array to concatenate")
    extended = next((a for a in arrays if isinstance(a, ExtendedArray)), None)
    if extended is not None:  # key arrays join their own way (their data has more axes)
        return type(extended)._join(arrays, axis, False, "concatenate")
    check_arraylike("concatenate", *arrays)
    arrs = promote_dtypes(*arrays)
    if dtype is None and type(axis) is int:
        out = _join_eager(arrs, axis, np.concatenate)
        if out is not None:
            return out
    if dtype is not None:
        dt = _dtype_arg(dtype, "concatenate")
        arrs = [lax.convert_element_type(a, dt) for a in arrs]
    if axis is None:
        arrs, axis = [ravel(a) for a in arrs], 0
    if any(a.ndim == 0 for a in arrs):
        raise ShapeError("concatenate: zero-dimensional arrays cannot be concatenated; use "
                         "stack, or atleast_1d on the inputs")
    axis = sh.normalize_axis(axis, arrs[0].ndim, "concatenate")
    _check_concat_shapes("concatenate", arrs, axis)
    if len(arrs) == 1:
        return arrs[0]
    return lax.concatenate(arrs, axis)


def _join_eager(arrs, axis, join):
    """``join`` (np.concatenate or np.stack) of promoted NumPy-backed Arrays of one dtype
    and one weak flag under the eval trace: one NumPy call instead of the expand_dims and
    concatenate equations. None sends the call to the general path (other operands, 0-d
    ones, shapes or an axis NumPy refuses: the general path's error names them)."""
    if type(trace_ctx.trace) is not EvalTrace or type(arrs[0]) is not Array:
        return None
    weak, vals = arrs[0]._weak, []
    for a in arrs:
        if type(a) is not Array or a._weak is not weak or type(a._value) is not np.ndarray:
            return None
        vals.append(a._value)
    dt = vals[0].dtype
    for v in vals:
        if v.dtype != dt or v.ndim == 0:
            return None
    try:
        out = join(vals, axis)
    except (ValueError, IndexError, TypeError):
        return None
    if out.dtype != dt:
        return None
    return Array(out, weak)  # (concatenate's weak rule: all operands weak)


def concat(arrays, /, *, axis=0):
    """Array-API name of :func:`concatenate`."""
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Join arrays of equal shape along a new axis ``axis`` (negative counts from the
    result's end)."""
    if out is not None:
        raise NotImplementedError("stack: the 'out' argument is not supported (tjit arrays "
                                  "are immutable); use the return value")
    if isinstance(arrays, _ARRAYS):
        arr = ensure_array("stack", arrays)
        if arr.ndim == 0:
            raise ValueError("stack: need at least one array to stack")
        ax = sh.normalize_axis(axis, arr.ndim, "stack")
        return _concat_leading(expand_dims(arr, ax + 1), ax, dtype, "stack")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array to stack")
    extended = next((a for a in arrays if isinstance(a, ExtendedArray)), None)
    if extended is not None:
        return type(extended)._join(arrays, axis, True, "stack")
    check_arraylike("stack", *arrays)
    arrs = promote_dtypes(*arrays)
    if dtype is None and type(axis) is int:
        out = _join_eager(arrs, axis, np.stack)
        if out is not None:
            return out
    s0 = tuple(arrs[0].shape)
    for i, a in enumerate(arrs):
        if len(a.shape) != len(s0) or not all(
                sh.definitely_equal(x, y) for x, y in zip(a.shape, s0)):
            raise ShapeError(f"stack: all input arrays must have the same shape, but the array "
                             f"at index 0 has shape {sh.shape_str(s0)} and the array at index "
                             f"{i} has shape {sh.shape_str(a.shape)}")
    axis = sh.normalize_axis(axis, len(s0) + 1, "stack")
    return concatenate([lax.expand_dims(a, (axis,)) for a in arrs], axis, dtype)


def _join(fname, tup, shape_fn, axis_fn, dtype):
    """Shared body of vstack/hstack/dstack/column_stack: reshape each input with
    ``shape_fn`` then concatenate along ``axis_fn(result ndim)``."""
    if isinstance(tup, _ARRAYS):
        arr = ensure_array(fname, tup)
        if arr.ndim == 0:
            raise ValueError(f"{fname}: need at least one array to concatenate")
        elem = shape_fn(tuple(arr.shape[1:]))
        arr = lax.reshape(arr, (arr.shape[0],) + elem)
        return _concat_leading(arr, axis_fn(len(elem)), dtype, fname)
    tup = list(tup)
    if not tup:
        raise ValueError(f"{fname}: need at least one array to concatenate")
    arrs = [ensure_array(fname, a) for a in tup]
    arrs = [lax.reshape(a, shape_fn(tuple(a.shape))) for a in arrs]
    return concatenate(arrs, axis_fn(arrs[0].ndim), dtype)


def vstack(tup, dtype=None):
    """Stack arrays vertically (along axis 0 after atleast_2d)."""
    return _join("vstack", tup, _shape_2d, lambda n: 0, dtype)


row_stack = vstack


def hstack(tup, dtype=None):
    """Stack arrays horizontally (axis 1, or axis 0 for 1-D inputs)."""
    return _join("hstack", tup, lambda s: s if s else (1,), lambda n: 0 if n == 1 else 1,
                 dtype)


def dstack(tup, dtype=None):
    """Stack arrays depth-wise (along axis 2 after atleast_3d)."""
    return _join("dstack", tup, _shape_3d, lambda n: 2, dtype)


def column_stack(tup):
    """Stack 1-D arrays as columns of a 2-D array (higher-rank inputs along axis 1)."""
    return _join("column_stack", tup, lambda s: {0: (1, 1), 1: s + (1,)}.get(len(s), s),
                 lambda n: 1, None)


def block(arrays):
    """Assemble an array from nested lists of blocks (NumPy's ``block``): the innermost
    lists are joined along the last axis, the next level along the second last, ..."""
    list_ndim, max_ndim = _block_depth(arrays, [])
    ndim = max(list_ndim, max_ndim)

    def rec(x, depth):
        if isinstance(x, list):
            return concatenate([rec(e, depth + 1) for e in x], axis=-(list_ndim - depth))
        x = ensure_array("block", x)
        return lax.reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))
    return rec(arrays, 0)


def _block_depth(x, index):
    """(list depth, max array ndim) of a ``block`` argument, checking consistency."""
    where = "arrays" + "".join(f"[{i}]" for i in index)
    if isinstance(x, tuple):
        raise TypeError(f"block: {where} is a tuple. Only lists can be used to arrange "
                        f"blocks; block does not convert tuples to arrays")
    if not isinstance(x, list):
        return 0, ensure_array("block", x).ndim
    if not x:
        raise ValueError(f"block: lists cannot be empty ({where} is [])")
    depths = [_block_depth(e, index + [i]) for i, e in enumerate(x)]
    for i, (d, _) in enumerate(depths):
        if d != depths[0][0]:
            raise ValueError(f"block: list depths are mismatched: {where}[0] is at depth "
                             f"{depths[0][0] + len(index) + 1} but {where}[{i}] is at depth "
                             f"{d + len(index) + 1}")
    return depths[0][0] + 1, max(n for _, n in depths)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended along ``axis`` (both flattened when None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# -- splitting --------------------------------------------------------------------------------
def _split_bounds(fname, n, ios, axis, even):
    """(start, stop) pairs along an axis of size ``n``."""
    if _is_int_like(ios):
        k = static_index(ios, "indices_or_sections", fname)
        if k <= 0:
            raise ValueError(f"{fname}: number of sections must be larger than 0, got {k}")
        if type(n) is not int:
            if even:
                q = sh.exact_div(n, k, fname)   # (a guard under automatic dynamic shapes)
                return [(i * q, (i + 1) * q) for i in range(k)]
            return _symbolic_sections(fname, n, k)
        q, r = divmod(n, k)
        if r and even:
            raise ValueError(f"{fname}: array split does not result in an equal division: "
                             f"axis {axis} of size {n} cannot be split into {k} equal "
                             f"sections; use array_split for unequal sections")
        sizes = [q + 1] * r + [q] * (k - r)
        starts = np.cumsum([0] + sizes[:-1]).tolist()
        return [(s, s + z) for s, z in zip(starts, sizes)]
    idx = np.asarray(concrete_value(ios, f"the split indices of {fname}"))
    if idx.ndim != 1 or not (idx.dtype.kind in "iu" or idx.size == 0):
        raise TypeError(f"{fname}: indices_or_sections must be an int or a 1-D sequence of "
                        f"ints, got {ios!r:.60}")
    pts = [0] + [int(i) for i in idx] + [n]
    out = []
    for s, e in zip(pts[:-1], pts[1:]):
        if type(n) is int:
            s, e, _ = slice(s, e).indices(n)
            e = max(s, e)
        else:
            s, e = (s + n if type(s) is int and s < 0 else s), (e + n if type(e) is int and
                                                                 e < 0 else e)
        out.append((s, e))
    return out


def _symbolic_sections(fname, n, k):
    """array_split's ``k`` sections of a symbolic size ``n``, as NumPy makes them (the first
    ``n % k`` one longer): size ``n // k + min(1, max(0, n % k - i))`` at start
    ``i * (n // k) + min(i, n % k)``; the kernels take these as run-time sizes. Sizes
    that leave a section empty get a program of their own (a guard decides)."""
    q, r = sympy.floor(n / k), sympy.Mod(n, k)
    out = []
    for i in range(k):
        size = q + sympy.Min(1, sympy.Max(0, r - i))
        if not sh.greater_equal(size, 1):
            raise SpecializeSizes(f"{fname}: section {i} of {k} is empty at these sizes")
        start = i * q + sympy.Min(i, r)
        out.append((start, start + size))
    return out


def _symbolic_points(ios):
    """The split indices when some are size expressions (``[x.shape[0] // 3]``), else
    None."""
    if isinstance(ios, (list, tuple)) and any(
            is_expr(i) and i.free_symbols for i in ios):
        for i in ios:
            if not (is_expr(i) and i.is_integer or _is_int_like(i)):
                raise TypeError(f"split: indices must be ints or size expressions, got "
                                f"{i!r:.60}")
        return [static_index(i, "indices", "split", dims=True) for i in ios]
    return None


def _split(fname, ary, ios, axis, even):
    ary = ensure_array(fname, ary)
    if ary.ndim == 0:
        raise ShapeError(f"{fname}: cannot split a 0-d array")
    axis = sh.normalize_axis(axis, ary.ndim, fname)
    points = _symbolic_points(ios)
    if points is not None:      # (NumPy's split at indices is slicing, clamps included)
        lead = (slice(None),) * axis
        return [ary[(*lead, slice(s, e))] for s, e in zip([None, *points], [*points, None])]
    bounds = _split_bounds(fname, ary.shape[axis], ios, axis, even)
    return [_slice_axis(ary, s, e, axis) for s, e in bounds]


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (an int, which must divide the axis) or at the given
    indices; returns a list of arrays."""
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
    """Like :func:`split`, but an int need not divide the axis: the first sections get
    one extra element."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 for 1-D arrays)."""
    a = ensure_array("hsplit", ary)
    if a.ndim == 0:
        raise ShapeError("hsplit only works on arrays of 1 or more dimensions")
    return _split("hsplit", a, indices_or_sections, 1 if a.ndim > 1 else 0, True)


def vsplit(ary, indices_or_sections):
    """Split along axis 0. As JAX (and its docs' example), a 1-D array splits too (NumPy
    asks for 2 or more dimensions)."""
    a = ensure_array("vsplit", ary)
    if a.ndim < 1:
        raise ShapeError(f"vsplit only works on arrays of 1 or more dimensions, got shape "
                         f"{sh.shape_str(a.shape)}")
    return _split("vsplit", a, indices_or_sections, 0, True)


def dsplit(ary, indices_or_sections):
    """Split along axis 2 (arrays of 3 or more dimensions)."""
    a = ensure_array("dsplit", ary)
    if a.ndim < 3:
        raise ShapeError(f"dsplit only works on arrays of 3 or more dimensions, got shape "
                         f"{sh.shape_str(a.shape)}")
    return _split("dsplit", a, indices_or_sections, 2, True)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = ensure_array("unstack", x)
    if x.ndim == 0:
        raise ShapeError("unstack: input must be at least 1-d, got a 0-d array")
    axis = sh.normalize_axis(axis, x.ndim, "unstack")
    n = _concrete_int_dim(x.shape[axis], "unstack", f"axis {axis}")
    return tuple(lax.squeeze(_slice_axis(x, i, i + 1, axis), (axis,)) for i in range(n))


# -- repetition ---------------------------------------------------------------------------------
def tile(A, reps):
    """Repeat ``A`` ``reps`` times along each axis (reps aligned from the right)."""
    a = ensure_array("tile", A)
    reps = tuple(sh.canonical_shape(_static_shape(reps, "tile"), "tile"))
    if any(type(r) is int and r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative, got {reps}")
    d = max(len(reps), a.ndim)
    reps = (1,) * (d - len(reps)) + reps
    shape = (1,) * (d - a.ndim) + tuple(a.shape)
    a = lax.reshape(a, shape)
    if all(type(r) is int and r == 1 for r in reps):
        return a
    # Broadcast into interleaved (r0, s0, r1, s1, ...) and merge each pair.
    inter = tuple(x for pair in zip(reps, shape) for x in pair)
    out = lax.broadcast_in_dim(a, inter, tuple(range(1, 2 * d, 2)))
    return lax.reshape(out, tuple(r * s for r, s in zip(reps, shape)))


@takes_out_sharding("repeat")
def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat each element of ``a`` along ``axis`` (flattened when None).

    Args:
      a: the array.
      repeats: an int, or one count per element along the axis. Under ``jit`` it must be
        concrete unless ``total_repeat_length`` is given.
      axis: the axis to repeat along.
      total_repeat_length: static length of the output along ``axis``; extra positions
        repeat the last element, a shorter length truncates.

    Returns:
      The repeated array.
    """
    a = ensure_array("repeat", a)
    if axis is None:
        a, axis = ravel(a), 0
    if a.ndim == 0:
        raise AxisError(f"repeat: axis {axis} is out of bounds for a 0-d array")
    axis = sh.normalize_axis(axis, a.ndim, "repeat")
    if total_repeat_length is not None:
        total_repeat_length = static_index(total_repeat_length, "total_repeat_length",
                                           "repeat")
    if isinstance(repeats, Tracer):
        if total_repeat_length is None:
            raise repeats._concretization_error(
                ConcretizationTypeError, "jnp.repeat with traced `repeats`",
                "Fix: pass total_repeat_length=<static int>, or make `repeats` static "
                "(jit(..., static_argnums=...)).")
        return _repeat_traced(a, repeats, axis, total_repeat_length)
    r = _concrete_repeats(repeats, a, axis)
    n = a.shape[axis]
    total = total_repeat_length
    if r.size <= 1 or (r == r.flat[0]).all():
        k = int(r.flat[0]) if r.size else 0
        if total is None or (type(n) is int and total == n * k):
            out = lax.expand_dims(a, (axis + 1,))
            out = lax.broadcast_in_dim(out, _replace(out.shape, axis + 1, k), range(out.ndim))
            return lax.reshape(out, _replace(a.shape, axis, n * k))
        n = _concrete_int_dim(n, "repeat", f"axis {axis}")
        r = np.full(n, k)
    idx = np.repeat(np.arange(n), r)
    if total is not None:  # truncate, or pad with the last element (as JAX does)
        idx = np.concatenate([idx[:total], np.full(max(total - idx.size, 0), max(n - 1, 0))])
    return jnp.take(a, idx.astype(np.int32), axis=axis)


def _concrete_repeats(repeats, a, axis):
    """``repeats`` as a checked NumPy int array (0-d, or one count per element)."""
    r = np.asarray(concrete_value(repeats, "repeats"))
    r = r.astype(np.int64) if r.size == 0 else r
    if r.dtype.kind not in "biu" or r.ndim > 1:
        raise TypeError(f"repeat: repeats must be an int or a 1-D sequence of ints, got "
                        f"{repeats!r:.60}")
    if (r < 0).any():
        raise ValueError(f"repeat: repeats may not contain negative values, got {r.tolist()}")
    if r.ndim == 1 and r.size != 1:
        n = _concrete_int_dim(a.shape[axis], "repeat", f"axis {axis}")
        if r.size != n:
            raise ShapeError(f"repeat: got {r.size} repeats for an axis of size {n} (array "
                             f"shape {sh.shape_str(a.shape)}); give one per element or one")
    return r


def _repeat_traced(a, repeats, axis, total):
    """Repeat with traced counts: output position j takes element #{k : cum[k] <= j},
    where cum is the inclusive running sum of the counts."""
    n = _concrete_int_dim(a.shape[axis], "repeat", f"axis {axis}")
    r = ravel(repeats)
    r = broadcast_to(r, (n,)) if r.shape[0] != n else r
    cum = jnp.cumsum(lax.convert_element_type(r, dtypes.int32))
    pos = lax.iota(dtypes.int32, total)
    counts = jnp.sum(lax.broadcast_in_dim(cum, (total, n), (1,)) <=
                     lax.broadcast_in_dim(pos, (total, n), (0,)), axis=1, dtype=dtypes.int32)
    return jnp.take(a, lax.min(counts, np.int32(max(n - 1, 0))), axis=axis)


# -- reversing and rotating -------------------------------------------------------------------
def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    m = ensure_array("flip", m)
    axes = sh.normalize_axes(axis, m.ndim, "flip")
    return lax.rev(m, axes) if axes else m


def fliplr(m):
    """Reverse along axis 1 (left/right)."""
    m = ensure_array("fliplr", m)
    if m.ndim < 2:
        raise ShapeError(f"fliplr: the input must be at least 2-d, got shape "
                         f"{sh.shape_str(m.shape)}")
    return flip(m, 1)


def flipud(m):
    """Reverse along axis 0 (up/down)."""
    m = ensure_array("flipud", m)
    if m.ndim < 1:
        raise ShapeError("flipud: the input must be at least 1-d, got a 0-d array")
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (from the first axis
    towards the second)."""
    m = ensure_array("rot90", m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got axes={axes}")
    if m.ndim < 2:
        raise ShapeError(f"rot90: the input must be at least 2-d, got shape "
                         f"{sh.shape_str(m.shape)}")
    a0, a1 = (sh.normalize_axis(x, m.ndim, "rot90") for x in axes)
    if a0 == a1:
        raise ValueError(f"rot90: axes must be different, got {axes}")
    k = static_index(k, "k", "rot90") % 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, (a0, a1))
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return lax.transpose(flip(m, a1), perm)
    return flip(lax.transpose(m, perm), a1)


def roll(a, shift, axis=None):
    """Roll elements along ``axis`` by ``shift`` (elements leaving one end re-enter at
    the other). ``shift`` may be traced; ``axis`` None rolls the flattened array."""
    a = ensure_array("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = sh.axis_tuple(axis)
    if isinstance(shift, (Array, Tracer)) and shift.ndim > 0:
        shifts = [lax.reshape(_slice_axis(shift, i, i + 1, 0), ()) for i in
                  range(shift.shape[0])]
    elif isinstance(shift, (tuple, list, np.ndarray)):
        shifts = list(np.asarray(shift).reshape(-1)) if isinstance(shift, np.ndarray) \
            else list(shift)
    else:
        shifts = [shift]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = tuple(axes) * len(shifts)
    if len(axes) != len(shifts):
        raise ValueError(f"roll: 'shift' and 'axis' should be scalars or 1-D sequences of "
                         f"the same length, got {len(shifts)} shifts and axes {axis}")
    for ax, s in zip(axes, shifts):
        a = _roll_axis(a, s, sh.normalize_axis(ax, a.ndim, "roll"))
    return a


def _roll_axis(a, s, axis):
    n = a.shape[axis]
    if is_expr(s) and s.free_symbols:   # (a shift of sizes, x.shape[0] // 2: run time's)
        s = dim_value(s, dtypes.int32)
    if not isinstance(s, Tracer):
        s = static_index(s, "shift", "roll")
        if s == 0 or (type(n) is int and (n == 0 or s % n == 0)):
            return a
        if type(n) is int:
            s %= n
            return lax.concatenate([_slice_axis(a, n - s, n, axis),
                                    _slice_axis(a, 0, n - s, axis)], axis)
    elif type(n) is int and n == 0:
        return a
    return _roll_dynamic(a, s, axis, n)


def _roll_dynamic(a, s, axis, n):
    """Roll by a traced shift, or along a symbolic axis: the window of
    ``concatenate([a, a])`` starting at ``(-s) mod n``, computed at run time."""
    idt = dtypes.int32
    nv = lax.full((), n, idt) if type(n) is int else \
        lax.convert_element_type(dim_value(n), idt)
    s = lax.convert_element_type(s, idt) if isinstance(s, Tracer) else \
        Array(np.asarray(s, idt), False)
    r = lax.rem(s, nv)  # in (-n, n), with the sign of s
    start = lax.select(lax.lt(r, np.int32(0)), lax.neg(r), lax.sub(nv, r))
    twice = lax.concatenate([a, a], axis)
    starts = [start if i == axis else np.int32(0) for i in range(a.ndim)]
    return lax.dynamic_slice(twice, starts, tuple(a.shape), allow_negative_indices=False)


__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes",
    "moveaxis", "rollaxis", "expand_dims", "squeeze", "broadcast_to", "broadcast_shapes",
    "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "concat",
    "stack", "vstack", "row_stack", "hstack", "dstack", "column_stack", "block", "append",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "tile", "repeat",
    "flip", "fliplr", "flipud", "rot90", "roll",
]
