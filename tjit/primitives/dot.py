"""``dot_general``: the contraction primitive behind ``jnp.matmul``, ``einsum``,
``tensordot`` and every batched matrix product, with its transformation rules.

It is a library call (DESIGN.md, "library calls where libraries win"): the operands
are transposed and reshaped into one batched matrix product and handed to
``xp.matmul`` (BLAS on NumPy, cuBLAS on CuPy). Output dims: batch dims, then lhs free
dims, then rhs free dims (as ``jax.lax.dot_general``).

Rules: the jvp is bilinear; the transpose in either operand is another
``dot_general`` followed by a transpose (JAX's ``_dot_general_transpose_lhs/rhs``);
batching folds the mapped axis into the dimension numbers (both operands mapped: a new
batch dim; one operand mapped: a free dim of that operand), so no Python loop runs.
"""

import enum

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import ContractionShapeError, InconclusiveDimensionError
from tjit.tracing.shapes import definitely_equal, dim_str, shape_str
from tjit.primitives.base import new_primitive, same_dtypes
from tjit.primitives.elementwise import _convert_impl, _quiet


class Precision(enum.Enum):
    """Precision of a contraction (as ``jax.lax.Precision``). The NumPy reference
    always computes at full precision; backends may use it to pick faster paths."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self):
        return f"Precision.{self.name}"

    __str__ = __repr__


# -- dot_general ----------------------------------------------------------------------------
dot_general_p = new_primitive("dot_general")


# every dimension_numbers/shape misfit below is a ContractionShapeError: a TypeError as
# in JAX (which raises TypeError for all of them) and a ShapeError (ValueError) as before
def _check_dim_list(name, which, dims, ndim, shape):
    for d in dims:
        if type(d) is not int or not 0 <= d < ndim:
            raise ContractionShapeError(f"{name}: {which} dimension {d!r} is out of range "
                                        f"for an operand of shape {shape_str(shape)}")
    if len(set(dims)) != len(dims):
        raise ContractionShapeError(f"{name}: repeated {which} dimensions {tuple(dims)} "
                                    f"for an operand of shape {shape_str(shape)}")


def _check_pairs(name, kind, lhs, rhs, ldims, rdims):
    """Sizes of paired (batch or contracting) dims must be equal."""
    for l, r in zip(ldims, rdims):
        try:
            same = definitely_equal(lhs.shape[l], rhs.shape[r])
        except InconclusiveDimensionError:
            raise InconclusiveDimensionError(
                f"{name}: cannot decide whether {kind} dims {dim_str(lhs.shape[l])} "
                f"(lhs dim {l}) and {dim_str(rhs.shape[r])} (rhs dim {r}) are equal, for "
                f"shapes {shape_str(lhs.shape)} and {shape_str(rhs.shape)}; use the same "
                f"size symbol for both") from None
        if not same:
            raise ContractionShapeError(
                f"{name}: {kind} dims must have equal sizes, got lhs shape "
                f"{shape_str(lhs.shape)} {kind} dims {tuple(ldims)} and rhs shape "
                f"{shape_str(rhs.shape)} {kind} dims {tuple(rdims)} (size "
                f"{dim_str(lhs.shape[l])} vs {dim_str(rhs.shape[r])})")


def unpack_dimension_numbers(dimension_numbers, name="dot_general"):
    """``((lc, rc), (lb, rb))`` from ``dimension_numbers``, or a TypeError naming ``name``."""
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"{name}: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from None
    return (lc, rc), (lb, rb)


def dot_general_shape(lhs, rhs, dimension_numbers, name="dot_general"):
    """Output shape of ``dot_general`` for avals ``lhs``, ``rhs`` (checks every rule)."""
    (lc, rc), (lb, rb) = unpack_dimension_numbers(dimension_numbers, name)
    lc, rc, lb, rb = (tuple(x) for x in (lc, rc, lb, rb))
    for which, dims, op in (("lhs contracting", lc, lhs), ("rhs contracting", rc, rhs),
                            ("lhs batch", lb, lhs), ("rhs batch", rb, rhs)):
        _check_dim_list(name, which, dims, op.ndim, op.shape)
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ContractionShapeError(
            f"{name}: lhs and rhs need as many contracting dims and as many batch dims, got "
            f"dimension_numbers {dimension_numbers} for shapes {shape_str(lhs.shape)} and "
            f"{shape_str(rhs.shape)}")
    for side, c, b, op in (("lhs", lc, lb, lhs), ("rhs", rc, rb, rhs)):
        if set(c) & set(b):
            raise ContractionShapeError(f"{name}: {side} dims {sorted(set(c) & set(b))} are "
                                        f"both batch and contracting dims (shape "
                                        f"{shape_str(op.shape)})")
    _check_pairs(name, "batch", lhs, rhs, lb, rb)
    _check_pairs(name, "contracting", lhs, rhs, lc, rc)
    lfree = [lhs.shape[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
    rfree = [rhs.shape[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    return tuple(lhs.shape[i] for i in lb) + tuple(lfree) + tuple(rfree)


def dot_general_dtype(lhs, rhs, preferred_element_type, name="dot_general"):
    """Output dtype: the common input dtype, or ``preferred_element_type`` when given
    (XLA's MaybeUpcast, as JAX: any type for a float product, which is converted to it
    (float -> int truncates and saturates); an integer, bool or complex product may not
    be narrowed)."""
    dt = same_dtypes(name, (lhs, rhs))
    pref = preferred_element_type
    if pref is None or np.dtype(pref) == dt:
        return dt
    pref = np.dtype(pref)
    if not dtypes.is_float(dt) and _bit_width(pref) < _bit_width(dt):
        raise TypeError(f"{name}: preferred_element_type {pref} must not be narrower than "
                        f"the {dt} result of a product of {dt} operands; choose a type at "
                        f"least as wide, or convert the operands first")
    return pref


def _bit_width(dt):
    """JAX's: a complex type counts the bits of one of its parts, bool 1."""
    if dtypes.is_inexact(dt):
        return dtypes.finfo(dt).bits
    return 1 if dtypes.is_bool(dt) else np.dtype(dt).itemsize * 8


def converts_result(in_dtype, out_dtype):
    """Whether a product in ``in_dtype`` is computed in its own dtype and then converted
    to ``out_dtype`` (a float/complex product for an integer, bool or real result, or a
    narrower one) rather than accumulated in ``out_dtype``."""
    return in_dtype != out_dtype and dtypes.is_inexact(in_dtype) and (
        np.promote_types(in_dtype, out_dtype) != out_dtype)


@dot_general_p.def_abstract_eval
def _dot_general_abstract(lhs, rhs, *, dimension_numbers, precision=None,
                          preferred_element_type=None):
    shape = dot_general_shape(lhs, rhs, dimension_numbers)
    return ShapedArray(shape, dot_general_dtype(lhs, rhs, preferred_element_type))


@dot_general_p.def_weak_type
def _dot_general_weak(lw, rw, *, preferred_element_type=None, **_):
    return lw and rw and preferred_element_type is None


def _prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _dot_general_impl(xp, lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = xp.asarray(lhs), xp.asarray(rhs)
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(
        preferred_element_type)
    if not lb and lc == (lhs.ndim - 1,) and rc == (0,) and lhs.dtype == out_dtype and \
            rhs.dtype == out_dtype and not dtypes.is_small(out_dtype):
        # the plain product (lhs's last dim with rhs's first): the 2-d matmul below with
        # its transposes the identity, without the bookkeeping
        k = rhs.shape[0]
        out = xp.matmul(lhs if lhs.ndim == 2 else lhs.reshape(_prod(lhs.shape[:-1]), k),
                        rhs if rhs.ndim == 2 else rhs.reshape(k, _prod(rhs.shape[1:])))
        out = out.reshape(lhs.shape[:-1] + rhs.shape[1:])
        return out if out.dtype == out_dtype else out.astype(out_dtype)
    if dtypes.is_small(lhs.dtype):
        # float8s/int4s: ml_dtypes' matmul is a generic loop (and returns float32/int8);
        # BLAS in float32 (int32) holds their products exactly, and the result is
        # rounded (wrapped) once, as XLA's CPU dot of float8s accumulates in float32
        wide = np.dtype(np.float32 if dtypes.is_float(lhs.dtype) else np.int32)
        out = _dot_general_impl(xp, lhs.astype(wide), rhs.astype(wide),
                                dimension_numbers=dimension_numbers)
        if dtypes.is_float(lhs.dtype) and not dtypes.is_inexact(out_dtype):
            out = _convert_impl(xp, out, new_dtype=lhs.dtype)  # (a float product first)
        return _convert_impl(xp, out, new_dtype=out_dtype)
    if converts_result(lhs.dtype, out_dtype):
        out = _dot_general_impl(xp, lhs, rhs, dimension_numbers=dimension_numbers)
        return _convert_impl(xp, out, new_dtype=out_dtype)  # saturating, NaN -> 0
    if out_dtype != lhs.dtype:
        # Accumulate in the preferred type: it is wider (int8 x int8 -> int32 must not
        # wrap) or inexact (int inputs, float result).
        lhs, rhs = lhs.astype(out_dtype), rhs.astype(out_dtype)
    lf = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
    rf = [i for i in range(rhs.ndim) if i not in rc and i not in rb]
    lt = xp.transpose(lhs, tuple(lb) + tuple(lf) + tuple(lc))
    rt = xp.transpose(rhs, tuple(rb) + tuple(rc) + tuple(rf))
    if not lc:
        # Nothing contracted: each element is one product, as the elementwise multiply
        # gives it (a matmul with k = 1 adds it to +0.0, losing the sign of -0.0).
        nb, nl, nr = len(lb), len(lf), len(rf)
        out = lt.reshape(lt.shape + (1,) * nr) * rt.reshape(
            rt.shape[:nb] + (1,) * nl + rt.shape[nb:])
        out = xp.asarray(out)
        return out if out.dtype == out_dtype else out.astype(out_dtype)
    bshape = lt.shape[:len(lb)]
    mshape = lt.shape[len(lb):len(lb) + len(lf)]
    nshape = rt.shape[len(rb) + len(rc):]
    k = _prod(lt.shape[len(lb) + len(lf):])
    m, n = _prod(mshape), _prod(nshape)
    if lb:
        out = xp.matmul(lt.reshape(_prod(bshape), m, k), rt.reshape(_prod(bshape), k, n))
    else:  # a plain 2-d product takes BLAS's fastest path
        out = xp.matmul(lt.reshape(m, k), rt.reshape(k, n))
    out = out.reshape(tuple(bshape) + tuple(mshape) + tuple(nshape))
    return out if out.dtype == out_dtype else out.astype(out_dtype)


# overflow and inf * 0 give inf/NaN without a NumPy warning, as in JAX
dot_general_p.def_impl(_quiet(_dot_general_impl))


def _dot_general_pp(params):
    """As JAX prints it: None values left out, dimension_numbers as lists (shorter), a
    precision as JAX's canonical pair (one per operand: ``Precision.HIGH`` prints as
    ``(Precision.HIGH, Precision.HIGH)``)."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    shown = dict(params, dimension_numbers=((list(lc), list(rc)), (list(lb), list(rb))))
    if isinstance(shown.get("precision"), Precision):
        shown["precision"] = (shown["precision"],) * 2
    return sorted((k, v) for k, v in shown.items() if v is not None)


dot_general_p.pp_params = _dot_general_pp


# -- transformation rules ----------------------------------------------------------------------
from tjit.primitives import rules as _r  # noqa: E402
from tjit.primitives.elementwise import convert_element_type_p  # noqa: E402
from tjit.primitives.structural import transpose_p  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402


def _ranges_like(*xs):
    """Consecutive ranges with the lengths of ``xs``: (0..len(x0)), (len(x0)..), ..."""
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(n, *removed):
    gone = set().union(*map(set, removed))
    return tuple(i for i in range(n) if i not in gone)


def _astype(x, dtype):
    if _aval(x).dtype == dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False)


def _transpose_lhs(ct, x_aval, y, dimension_numbers, precision, swap_ans=False):
    """Cotangent of the lhs ``x`` of ``dot_general(x, y)`` (of the rhs when ``swap_ans``:
    the caller swaps the operands and the dimension numbers)."""
    (xc, yc), (xb, yb) = dimension_numbers
    x_kept = _remaining(len(x_aval.shape), xc, xb)
    y_kept = _remaining(len(_aval(y).shape), yc, yb)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(xb, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(xb, x_kept, y_kept)
    dims = ((ans_y, y_kept), (ans_batch, tuple(yb)))
    x_contract_sorted_by_y = [xc[i] for i in np.argsort(yc)]
    out_axes = tuple(int(i) for i in np.argsort(list(xb) + list(x_kept) +
                                                x_contract_sorted_by_y))
    ct = _astype(ct, _aval(y).dtype)  # a preferred_element_type result
    out = dot_general_p.bind(ct, y, dimension_numbers=dims, precision=precision,
                             preferred_element_type=None)
    if out_axes != tuple(range(len(out_axes))):
        out = transpose_p.bind(out, permutation=out_axes)
    return _astype(out, x_aval.dtype)


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision=None,
                           preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    l_undef, r_undef = _r.is_undefined_primal(lhs), _r.is_undefined_primal(rhs)
    if l_undef and r_undef:
        raise ValueError("dot_general is bilinear, not linear: cannot transpose with respect "
                         "to both operands at once")
    if type(ct) is _r.Zero:
        return [_r.Zero(lhs.aval) if l_undef else None, _r.Zero(rhs.aval) if r_undef else None]
    if l_undef:
        return [_transpose_lhs(ct, lhs.aval, rhs, dimension_numbers, precision), None]
    swapped = ((rc, lc), (rb, lb))
    return [None, _transpose_lhs(ct, rhs.aval, lhs, swapped, precision, swap_ans=True)]


def _tangent(lhs, rhs, **params):
    """The product of a tangent with the other operand; none for an integer or bool
    result (a float product converted to it is piecewise constant)."""
    out = dot_general_p.bind(lhs, rhs, **params)
    return out if dtypes.is_inexact(_aval(out).dtype) else _r.Zero.from_value(out)


_r.defjvp(dot_general_p,
          lambda g, lhs, rhs, **params: _tangent(g, rhs, **params),
          lambda g, lhs, rhs, **params: _tangent(lhs, g, **params))
dot_general_p.transpose = _dot_general_transpose


def _bump(dims, at):
    """Dims of an operand after a new axis is inserted at ``at``."""
    return tuple(d + (d >= at) for d in dims)


def _dot_general_batch(args, dims, *, dimension_numbers, precision=None,
                       preferred_element_type=None):
    lhs, rhs = args
    ld, rd = dims
    (lc, rc), (lb, rb) = (tuple(map(tuple, p)) for p in dimension_numbers)
    params = dict(precision=precision, preferred_element_type=preferred_element_type)
    if ld is not None and rd is not None:  # a new (leading) batch dim
        lhs, rhs = _r.moveaxis(lhs, ld, 0), _r.moveaxis(rhs, rd, 0)
        dn = ((_bump(lc, 0), _bump(rc, 0)), ((0,) + _bump(lb, 0), (0,) + _bump(rb, 0)))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), 0
    # One operand mapped: its mapped axis stays where it is, as one more free dim.
    l_free = _remaining(len(_aval(lhs).shape) - (ld is not None), lc, lb)
    if ld is not None:
        dn = ((_bump(lc, ld), rc), (_bump(lb, ld), rb))
        out_dim = len(lb) + sum(1 for d in l_free if d < ld)
    else:
        r_free = _remaining(len(_aval(rhs).shape) - 1, rc, rb)
        dn = ((lc, _bump(rc, rd)), (lb, _bump(rb, rd)))
        out_dim = len(lb) + len(l_free) + sum(1 for d in r_free if d < rd)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), out_dim


dot_general_p.batch = _dot_general_batch


# -- lowering to the HLO-like graph: a library (BLAS) op ------------------------------------
def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision=None,
                          preferred_element_type=None):
    out = ctx.avals_out[0]
    (lc, rc), (lb, rb) = dimension_numbers
    if not lc:
        return _outer_product_lowering(ctx, lhs, rhs, lb, rb, out)
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    if converts_result(lhs.dtype, out.dtype):  # as the reference impl
        prod = ctx.add("dot", (lhs, rhs), out.shape, lhs.dtype, dimension_numbers=dn)
        return ctx.convert(prod, out.dtype)
    return ctx.add("dot", (lhs, rhs), out.shape, out.dtype, dimension_numbers=dn)


def _outer_product_lowering(ctx, lhs, rhs, lb, rb, out):
    """No contracting dims: a broadcast multiply (fusible; no gemm adds the products to
    +0.0), in the dtype the reference impl multiplies in."""
    dt = lhs.dtype
    if out.dtype != dt and not converts_result(dt, out.dtype):
        lhs, rhs, dt = ctx.convert(lhs, out.dtype), ctx.convert(rhs, out.dtype), out.dtype
    nb = len(lb)
    lf = [i for i in range(lhs.ndim) if i not in lb]
    rf = [i for i in range(rhs.ndim) if i not in rb]
    nl, nr = len(lf), len(rf)

    def batch_first(x, perm):
        if list(perm) == list(range(x.ndim)):
            return x
        shape = tuple(x.shape[p] for p in perm)
        return ctx.add("transpose", (x,), shape, x.dtype, perm=tuple(perm))
    lt = batch_first(lhs, list(lb) + lf)
    rt = batch_first(rhs, list(rb) + rf)
    lt = ctx.broadcast(lt, out.shape, tuple(range(nb + nl)))
    rt = ctx.broadcast(rt, out.shape, tuple(range(nb)) + tuple(range(nb + nl, nb + nl + nr)))
    return ctx.convert(ctx.elementwise("mul", [lt, rt], dt), out.dtype)


dot_general_p.lowering = _dot_general_lowering
