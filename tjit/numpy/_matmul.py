"""Products for ``tjit.numpy``: matmul, dot, vdot, vecdot, matvec, vecmat, tensordot,
inner, outer, kron, einsum and einsum_path.

Each is written as ``dot_general`` calls (one BLAS call per contraction) after JAX's
dtype promotion. ``matmul`` broadcasts batch dims without materializing: a batch dim
that is 1 on one side becomes a free dim of the other operand instead. ``einsum``
parses its subscripts here, takes its contraction order from ``opt_einsum`` and runs
each pairwise contraction as one ``dot_general`` (labels that only one operand has are
summed first with ``reduce_sum``).
"""

import numpy as np
import opt_einsum

from tjit._sympy import sympy
from tjit.tracing import dtypes
from tjit.tracing.core import Array, remember
from tjit.tracing.errors import (
    ContractionShapeError, InconclusiveDimensionError, ShapeError, static_index)
from tjit.tracing.shapes import (
    broadcast_shapes, definitely_equal, is_one, normalize_axis, shape_str, size)
from tjit.primitives.reductions import reduce_or_p, reduce_sum_p
from tjit import lax
from tjit.lax._dot import operand_dtype
from tjit.numpy import _dot_lane
from tjit.numpy._core import asarray, check_arraylike, promote_dtypes, takes_out_sharding
from tjit.numpy._ufuncs import multiply

_EINSUM_AUTO = "auto"
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# -- helpers -------------------------------------------------------------------------------
def _check_contracting(fname, a_shape, b_shape, da, db, error=ContractionShapeError):
    # ContractionShapeError is a TypeError as JAX's dot_general error (and a ShapeError);
    # vecdot passes ShapeError, as JAX raises ValueError there
    try:
        same = definitely_equal(da, db)
    except InconclusiveDimensionError:
        raise InconclusiveDimensionError(
            f"{fname}: cannot decide whether contracting dims {da} and {db} are equal, for "
            f"shapes {shape_str(a_shape)} and {shape_str(b_shape)}; use the same size symbol "
            f"for both") from None
    if not same:
        raise error(f"{fname}: contracting dims must match, got shapes "
                    f"{shape_str(a_shape)} and {shape_str(b_shape)} ({da} vs {db})")


def _promote(fname, *args, preferred=None):
    """The operands in their promoted dtype; with a ``preferred`` element type and
    operands of different dtypes, in that type instead (JAX hands them unpromoted to
    ``lax.dot_general``, which computes them in the preferred type)."""
    check_arraylike(fname, *args)
    if preferred is not None:
        arrays = [asarray(x) for x in args]
        if len({x.dtype for x in arrays}) > 1:
            pref = dtypes.canonicalize(dtypes.check_dtype(preferred, fname))
            first, *rest = arrays
            for other in rest:  # (checks that the type does not narrow the product)
                operand_dtype(first.dtype, other.dtype, pref, fname)
            return [lax.convert_element_type(x, pref) for x in arrays]
    return promote_dtypes(*args)


def _dot(a, b, contract, batch, precision, preferred):
    """JAX's products hand dot_general the result type when none is asked for (its
    jaxprs print ``preferred_element_type=float32``; the same product) and keep the
    product of two weakly typed operands weak."""
    if preferred is not None:
        return lax.dot_general(a, b, (contract, batch), precision=precision,
                               preferred_element_type=preferred)
    out = lax.dot_general(a, b, (contract, batch), precision=precision,
                          preferred_element_type=a.dtype)   # (a, b promoted: one dtype)
    if getattr(a, "weak_type", False) and getattr(b, "weak_type", False):
        return lax.convert_element_type(out, out.dtype, weak_type=True)
    return out


def _ravel(x):
    return x if x.ndim == 1 else lax.reshape(x, (size(x.shape),))


def _conj(x):
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x


def _reduce_sum(x, axes):
    """Sum over ``axes`` (logical or for bools, as NumPy's einsum)."""
    if not axes:
        return x
    prim = reduce_or_p if dtypes.is_bool(x.dtype) else reduce_sum_p
    return prim.bind(x, axes=tuple(sorted(axes)))


def _scalar_product(a, b, preferred):
    out = multiply(a, b)
    return out if preferred is None else lax.convert_element_type(out, preferred)


# -- matmul ---------------------------------------------------------------------------------
def _matmul_batch_plan(a_batch, b_batch):
    """Classify output batch positions: paired batch dims, or free dims of one side
    (the other side's 1 is squeezed or absent). Returns (out_batch, pairs, a_free,
    b_free, a_squeeze, b_squeeze) with operand axes and output positions."""
    out_batch = broadcast_shapes(a_batch, b_batch, op="matmul")
    nb = len(out_batch)
    a_off, b_off = nb - len(a_batch), nb - len(b_batch)
    pairs, a_free, b_free, a_sq, b_sq = [], [], [], [], []
    for i in range(nb):
        ia = i - a_off if i >= a_off else None
        ib = i - b_off if i >= b_off else None
        if ia is not None and ib is not None:
            one_a, one_b = is_one(a_batch[ia]), is_one(b_batch[ib])
            if one_a and not one_b:
                a_sq.append(ia)
                b_free.append((ib, i))
            elif one_b and not one_a:
                b_sq.append(ib)
                a_free.append((ia, i))
            else:
                pairs.append((ia, ib, i))
        elif ia is not None:
            a_free.append((ia, i))
        else:
            b_free.append((ib, i))
    return out_batch, pairs, a_free, b_free, a_sq, b_sq


@takes_out_sharding("matmul")
def matmul(a, b, *, precision=None, preferred_element_type=None):
    """Matrix product with NumPy's rules: batch dims broadcast, a 1-d ``a`` is a row
    vector and a 1-d ``b`` a column vector (their dim is dropped from the result).

    Args:
      a, b: arrays of rank >= 1.
      precision, preferred_element_type: as in ``lax.dot_general``.

    Returns:
      The product, of the promoted dtype (or ``preferred_element_type``).
    """
    if precision is None and preferred_element_type is None:
        out = _plain_product(a, b)
        if out is not None:
            return out
    a, b = _promote("matmul", a, b, preferred=preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: operands must have rank >= 1, got shapes "
                         f"{shape_str(a.shape)} and {shape_str(b.shape)}; use multiply "
                         f"(or *) for scalars")
    key = (tuple(a.shape), tuple(b.shape))
    plan = _matmul_plans.get(key)
    if plan is None:
        plan = remember(_matmul_plans, key, _matmul_plan(*key))
    a_sq, b_sq, contract, batch, perm = plan
    if a_sq:
        a = lax.squeeze(a, a_sq)
    if b_sq:
        b = lax.squeeze(b, b_sq)
    out = _dot(a, b, contract, batch, precision, preferred_element_type)
    return out if perm is None else lax.transpose(out, perm)


#: (a's shape, b's shape) -> matmul's :func:`_matmul_plan` (pure shape arithmetic, the
#: same under any trace; only shapes it accepted are kept, so its errors recur)
_matmul_plans = {}


def _plain_product(a, b):
    """``a @ b`` of two Arrays by the eager dot lane, when the plan kept for their shapes
    has nothing to squeeze or permute (one dot_general), or None."""
    if type(a) is not Array or type(b) is not Array:
        return None
    plan = _matmul_plans.get((a.shape, b.shape))
    if plan is None:
        return None
    a_sq, b_sq, contract, batch, perm = plan
    if a_sq or b_sq or perm is not None:
        return None
    return _dot_lane.dot_general(a, b, (contract, batch))


def _matmul_plan(a_shape, b_shape):
    """``(a_squeeze, b_squeeze, contract, batch, perm)`` of matmul on these shapes: the
    dims to squeeze, dot_general's dimension numbers and the transpose of its result
    (None when it is the identity)."""
    a_nd, b_nd = len(a_shape), len(b_shape)
    a_vec, b_vec = a_nd == 1, b_nd == 1
    kb_axis = 0 if b_vec else b_nd - 2
    _check_contracting("matmul", a_shape, b_shape, a_shape[-1], b_shape[kb_axis])
    a_batch = () if a_vec else tuple(a_shape[:-2])
    b_batch = () if b_vec else tuple(b_shape[:-2])
    try:
        out_batch, pairs, a_free, b_free, a_sq, b_sq = _matmul_batch_plan(a_batch, b_batch)
    except ShapeError as e:
        raise type(e)(f"matmul: batch dims of shapes {shape_str(a_shape)} and "
                      f"{shape_str(b_shape)} cannot be broadcast together ({e})") from None
    nb = len(out_batch)
    # Output slots of dot_general, each tagged with its final position.
    a_axes = [(ia, pos) for ia, _, pos in pairs]
    lhs_free = sorted(a_free) + ([] if a_vec else [(a_nd - 2, nb)])
    rhs_free = sorted(b_free) + ([] if b_vec else [(b_nd - 1, nb + (0 if a_vec else 1))])
    targets = [pos for _, _, pos in pairs] + [p for _, p in lhs_free] + [p for _, p in rhs_free]
    a_keep = [i for i in range(a_nd) if i not in a_sq]
    b_keep = [i for i in range(b_nd) if i not in b_sq]
    contract = ((a_keep.index(a_nd - 1),), (b_keep.index(kb_axis),))
    batch = (tuple(a_keep.index(ia) for ia, _ in a_axes),
             tuple(b_keep.index(ib) for _, ib, _ in pairs))
    perm = tuple(sorted(range(len(targets)), key=lambda i: targets[i]))
    if perm == tuple(range(len(perm))):
        perm = None
    return tuple(a_sq), tuple(b_sq), contract, batch, perm


def matvec(x1, x2, /):
    """Matrix-vector product ``x1 (..., m, n) @ x2 (..., n) -> (..., m)`` (batch dims
    broadcast)."""
    x1, x2 = _promote("matvec", x1, x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: need a matrix and a vector, got shapes "
                         f"{shape_str(x1.shape)} and {shape_str(x2.shape)}")
    out = matmul(x1, lax.expand_dims(x2, (x2.ndim,)))
    return lax.squeeze(out, (out.ndim - 1,))


def vecmat(x1, x2, /):
    """Vector-matrix product ``conj(x1) (..., m) @ x2 (..., m, n) -> (..., n)``."""
    x1, x2 = _promote("vecmat", x1, x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: need a vector and a matrix, got shapes "
                         f"{shape_str(x1.shape)} and {shape_str(x2.shape)}")
    out = matmul(lax.expand_dims(_conj(x1), (x1.ndim - 1,)), x2)
    return lax.squeeze(out, (out.ndim - 2,))


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Vector dot product ``sum(conj(x1) * x2, axis)`` with broadcasting of the other
    dims (NumPy 2 / array API ``vecdot``)."""
    x1, x2 = _promote("vecdot", x1, x2, preferred=preferred_element_type)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: operands must have rank >= 1, got shapes "
                         f"{shape_str(x1.shape)} and {shape_str(x2.shape)}")
    a1 = normalize_axis(axis, x1.ndim, "vecdot")
    a2 = normalize_axis(axis, x2.ndim, "vecdot")
    _check_contracting("vecdot", x1.shape, x2.shape, x1.shape[a1], x2.shape[a2],
                       error=ShapeError)
    x1 = lax.transpose(x1, [i for i in range(x1.ndim) if i != a1] + [a1])
    x2 = lax.transpose(x2, [i for i in range(x2.ndim) if i != a2] + [a2])
    out = matmul(lax.expand_dims(_conj(x1), (x1.ndim - 1,)),
                 lax.expand_dims(x2, (x2.ndim,)), precision=precision,
                 preferred_element_type=preferred_element_type)
    return lax.squeeze(out, (out.ndim - 2, out.ndim - 1))


# -- dot family -----------------------------------------------------------------------------
@takes_out_sharding("dot")
def dot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's ``dot``: scalars multiply; otherwise contract the last dim of ``a`` with
    the only dim of a 1-d ``b`` or the second-to-last dim of ``b``.

    Returns:
      Shape ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``.
    """
    if precision is None and preferred_element_type is None:
        out = _dot_lane.dot(a, b)
        if out is not None:
            return out
    a, b = _promote("dot", a, b, preferred=preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        return _scalar_product(a, b, preferred_element_type)
    kb = 0 if b.ndim == 1 else b.ndim - 2
    _check_contracting("dot", a.shape, b.shape, a.shape[-1], b.shape[kb])
    return _dot(a, b, ((a.ndim - 1,), (kb,)), ((), ()), precision, preferred_element_type)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating ``a``."""
    a, b = _promote("vdot", a, b, preferred=preferred_element_type)
    a, b = _ravel(_conj(a)), _ravel(b)
    _check_contracting("vdot", a.shape, b.shape, a.shape[0], b.shape[0])
    return _dot(a, b, ((0,), (0,)), ((), ()), precision, preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Sum product over the last dims: shape ``a.shape[:-1] + b.shape[:-1]``."""
    a, b = _promote("inner", a, b, preferred=preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        return _scalar_product(a, b, preferred_element_type)
    _check_contracting("inner", a.shape, b.shape, a.shape[-1], b.shape[-1])
    return _dot(a, b, ((a.ndim - 1,), (b.ndim - 1,)), ((), ()), precision,
                preferred_element_type)


def outer(a, b, out=None):
    """Outer product of the flattened arrays: ``out[i, j] = a[i] * b[j]``."""
    if out is not None:
        raise NotImplementedError("outer: the 'out' argument is not supported (arrays are "
                                  "immutable)")
    a, b = _promote("outer", a, b)
    # NumPy's outer is an elementwise multiply, so zeros keep their IEEE sign (a dot with
    # nothing to contract would add each product to +0).
    return multiply(lax.expand_dims(_ravel(a), (1,)), lax.expand_dims(_ravel(b), (0,)))


def _tensordot_axes(axes, a, b):
    # A scalar (an int, NumPy integer or 0-d array; a tracer has __len__ but ndim 0).
    if isinstance(axes, int) or getattr(axes, "ndim", None) == 0 or (
            hasattr(axes, "__index__") and not hasattr(axes, "__len__")):
        n = static_index(axes, "axes", "tensordot")
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ContractionShapeError(
                f"tensordot: axes={n} must be in [0, min(a.ndim, b.ndim)] for "
                f"shapes {shape_str(a.shape)} and {shape_str(b.shape)}")
        return tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    try:
        ax_a, ax_b = axes
    except (TypeError, ValueError):
        raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got "
                        f"{axes!r}") from None
    ax_a = (ax_a,) if isinstance(ax_a, int) else tuple(ax_a)
    ax_b = (ax_b,) if isinstance(ax_b, int) else tuple(ax_b)
    if len(ax_a) != len(ax_b):
        raise ValueError(f"tensordot: axes lists must have equal lengths, got {ax_a} and "
                         f"{ax_b}")
    return (tuple(normalize_axis(x, a.ndim, "tensordot") for x in ax_a),
            tuple(normalize_axis(x, b.ndim, "tensordot") for x in ax_b))


@takes_out_sharding("tensordot")
def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Sum products over ``axes``: an int N (last N dims of ``a`` with first N of ``b``)
    or a pair ``(axes_a, axes_b)``.

    Returns:
      a's remaining dims followed by b's remaining dims.
    """
    a, b = _promote("tensordot", a, b, preferred=preferred_element_type)
    ax_a, ax_b = _tensordot_axes(axes, a, b)
    for i, j in zip(ax_a, ax_b):
        _check_contracting("tensordot", a.shape, b.shape, a.shape[i], b.shape[j])
    return _dot(a, b, (ax_a, ax_b), ((), ()), precision, preferred_element_type)


def kron(a, b):
    """Kronecker product: blocks ``a[i, j] * b``."""
    a, b = _promote("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = lax.broadcast_to_rank(a, nd)
    b = lax.broadcast_to_rank(b, nd)
    # Interleave dims: a -> (a0, 1, a1, 1, ...), b -> (1, b0, 1, b1, ...).
    a2 = lax.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    b2 = lax.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    out = multiply(a2, b2)
    return lax.reshape(out, tuple(x * y for x, y in zip(a.shape, b.shape)))


# -- einsum ---------------------------------------------------------------------------------
def _interleaved_to_subscripts(args):
    """``einsum(op0, sublist0, op1, sublist1, ..., [sublist_out])`` -> (str, operands)."""
    operands, terms = list(args[0::2]), list(args[1::2])
    out = None
    if len(operands) > len(terms):  # a trailing output sublist follows the last pair
        out = operands.pop()

    def term(sub):
        parts = []
        for s in sub:
            if s is Ellipsis:
                parts.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                parts.append(opt_einsum.get_symbol(s))
            else:
                raise ValueError(f"einsum: sublist entries must be ints in [0, 52) or "
                                 f"Ellipsis, got {s!r}")
        return "".join(parts)

    subs = ",".join(term(t) for t in terms)
    if out is not None:
        subs += "->" + term(out)
    return subs, operands


def _parse_einsum(subscripts, shapes):
    """Expand '...' and the implicit output. Returns (input label strings, output)."""
    subscripts = subscripts.replace(" ", "")
    ins, arrow, out = subscripts.partition("->")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operands but "
                         f"{len(shapes)} were given")
    for t in terms + [out]:
        bad = set(t.replace("...", "")) - _LETTERS
        if bad or t.replace("...", "").count(".") or t.count("...") > 1:
            raise ValueError(f"einsum: invalid subscript term {t!r} in {subscripts!r}; use "
                             f"letters and at most one '...' per term")
    n_ell = []
    for i, (t, shape) in enumerate(zip(terms, shapes)):
        named = len(t.replace("...", ""))
        if ("..." in t and named > len(shape)) or ("..." not in t and named != len(shape)):
            raise ValueError(f"einsum: operand {i} has shape {shape_str(shape)} (rank "
                             f"{len(shape)}) but its subscripts {t!r} name {named} dims")
        n_ell.append(len(shape) - named if "..." in t else 0)
    max_ell = max(n_ell, default=0)
    ell = "".join(opt_einsum.get_symbol(52 + i) for i in range(max_ell))  # not letters
    terms = [t.replace("...", ell[max_ell - k:]) for t, k in zip(terms, n_ell)]
    if not arrow:
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    all_labels = set("".join(terms))
    for c in out:
        if c not in all_labels or out.count(c) > 1:
            why = "appears more than once" if out.count(c) > 1 else "is not in any input"
            raise ValueError(f"einsum: output label {c!r} {why} in {subscripts!r}")
    return terms, out


def _label_sizes(terms, shapes):
    """The size of each label (a 1 broadcasts against any size, as in NumPy)."""
    sizes, where = {}, {}
    for i, (t, shape) in enumerate(zip(terms, shapes)):
        for c, d in zip(t, shape):
            if c not in sizes or is_one(sizes[c]):
                sizes[c], where[c] = d, i
            elif not is_one(d) and not _einsum_dims_equal(c, d, sizes[c], shapes):
                raise ShapeError(f"einsum: size of label {c!r} is {sizes[c]} in operand "
                                 f"{where[c]} but {d} in operand {i} (shapes "
                                 f"{', '.join(shape_str(s) for s in shapes)})")
    return sizes


def _einsum_dims_equal(label, d, e, shapes):
    try:
        return definitely_equal(d, e)
    except InconclusiveDimensionError:
        raise InconclusiveDimensionError(
            f"einsum: cannot decide whether the sizes {d} and {e} of label {label!r} are "
            f"equal (shapes {', '.join(shape_str(s) for s in shapes)}); use the same size "
            f"symbol for both") from None


def _take_diagonal(x, labels):
    """Collapse repeated labels of one operand onto their diagonal."""
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        rows = lax.broadcasted_iota(dtypes.int32, x.shape, i)
        cols = lax.broadcasted_iota(dtypes.int32, x.shape, j)
        # select (not multiply by an identity) so that infs off the diagonal do no harm
        x = lax.select(lax.eq(rows, cols), x, lax.full_like(x, 0))
        x = _reduce_sum(x, (j,))
        labels = labels[:j] + labels[j + 1:]


def _einsum_prepare(operands, terms, out, sizes):
    """Per operand: diagonals, squeeze broadcast 1s, sum labels nobody else needs."""
    ops, labs = [], []
    for k, (x, t) in enumerate(zip(operands, terms)):
        x, t = _take_diagonal(x, t)
        sq = [i for i, c in enumerate(t) if is_one(x.shape[i]) and not is_one(sizes[c])]
        if sq:
            x = lax.squeeze(x, sq)
            t = "".join(c for i, c in enumerate(t) if i not in sq)
        others = set(out).union(*(terms[m] for m in range(len(terms)) if m != k))
        lone = [i for i, c in enumerate(t) if c not in others]
        x = _reduce_sum(x, lone)
        t = "".join(c for i, c in enumerate(t) if i not in lone)
        ops.append(x)
        labs.append(t)
    return ops, labs


def _planning_size(d):
    # Symbolic dims get a representative size: the path only affects speed.
    if type(d) is int:
        return d
    return int(sympy.sympify(d).subs({s: 64 for s in d.free_symbols}))


def _contraction_path(labs, out, shapes, optimize):
    n = len(labs)
    if n <= 1:
        return [tuple(range(n))] if n else []
    if optimize is False:  # left to right, each result joins the next operand
        return [(0, 1)] + [(0, n - 2 - i) for i in range(n - 2)]
    if isinstance(optimize, (list, tuple)):
        path = [p for p in optimize if p != "einsum_path"]
        return [tuple(p) for p in path]
    strategy = _EINSUM_AUTO if optimize is True else optimize
    eq = ",".join(labs) + "->" + out
    plan_shapes = [tuple(_planning_size(d) for d in s) for s in shapes]
    path, _ = opt_einsum.contract_path(eq, *plan_shapes, shapes=True, optimize=strategy)
    return path


def _contract_pair(x, xl, y, yl, keep, precision, dot_general=lax.dot_general):
    """One dot_general: shared labels kept are batch dims, the other shared ones are
    contracted; labels of only one side that are not kept are summed first."""
    x_only = [i for i, c in enumerate(xl) if c not in yl and c not in keep]
    y_only = [i for i, c in enumerate(yl) if c not in xl and c not in keep]
    x, xl = _reduce_sum(x, x_only), "".join(c for i, c in enumerate(xl) if i not in x_only)
    y, yl = _reduce_sum(y, y_only), "".join(c for i, c in enumerate(yl) if i not in y_only)
    batch = [c for c in xl if c in yl and c in keep]
    contract = [c for c in xl if c in yl and c not in keep]
    dn = ((tuple(xl.index(c) for c in contract), tuple(yl.index(c) for c in contract)),
          (tuple(xl.index(c) for c in batch), tuple(yl.index(c) for c in batch)))
    out = dot_general(x, y, dn, precision)
    out_l = ("".join(batch) + "".join(c for c in xl if c not in yl)
             + "".join(c for c in yl if c not in xl))
    return out, out_l


def _run_path(ops, labs, out, path, precision, dot_general=lax.dot_general):
    ops, labs = list(ops), list(labs)
    for step in path:
        picked = sorted(step, reverse=True)
        group = [(ops.pop(i), labs.pop(i)) for i in picked][::-1]
        rest = set(out).union(*labs)
        x, xl = group[0]
        for k, (y, yl) in enumerate(group[1:], start=1):
            keep = rest.union(*(l for _, l in group[k + 1:]))
            x, xl = _contract_pair(x, xl, y, yl, keep, precision, dot_general)
        if len(group) == 1:
            drop = [i for i, c in enumerate(xl) if c not in rest]
            x, xl = _reduce_sum(x, drop), "".join(c for c in xl if c in rest)
        ops.append(x)
        labs.append(xl)
    return ops, labs


def _converts_exactly(dt, pref):
    """Whether ``dt`` promotes to ``pref`` (the narrow types promote to nothing: there,
    whether NumPy calls the cast safe, as float8 to float32 or int4 to int32 is)."""
    if dtypes.is_small(dt):
        return np.can_cast(dt, pref, "safe")
    return dtypes.result_type((dt, False), (pref, False))[0] == pref


@takes_out_sharding("einsum")
def einsum(subscripts, *operands, out=None, optimize=_EINSUM_AUTO, precision=None,
           preferred_element_type=None, _dot_general=lax.dot_general):
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', x, y)``.

    Args:
      subscripts: comma-separated labels per operand, optional ``->output``; ``...``
        stands for broadcast leading dims. Without ``->`` the output is the labels that
        occur once, in alphabetical order. The interleaved form
        ``einsum(x, [0, 1], y, [1, 2], [0, 2])`` is accepted too.
      optimize: ``'auto'`` (default), ``'greedy'``, ``'optimal'``, other opt_einsum
        strategies, ``True`` (= ``'auto'``), ``False`` (left to right) or an explicit
        path such as the first result of :func:`einsum_path`.
      precision, preferred_element_type: as in ``lax.dot_general``.
      _dot_general: JAX's hook (used by Flax's Einsum): the function called as
        ``_dot_general(lhs, rhs, dimension_numbers, precision)`` for each contraction.

    Returns:
      The contraction, computed as one ``dot_general`` per pairwise contraction.
    """
    if out is not None:
        raise NotImplementedError("einsum: the 'out' argument is not supported (arrays are "
                                  "immutable)")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_to_subscripts((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    operands = _promote("einsum", *operands, preferred=preferred_element_type)
    pref = None if preferred_element_type is None else dtypes.canonicalize(
        dtypes.check_dtype(preferred_element_type, "einsum"))
    if pref is not None and pref != operands[0].dtype and \
            _converts_exactly(operands[0].dtype, pref):
        # Accumulating in the wider type equals converting the operands up front.
        operands = [lax.convert_element_type(x, pref) for x in operands]
    shapes = [tuple(x.shape) for x in operands]
    terms, out_l = _parse_einsum(subscripts, shapes)
    sizes = _label_sizes(terms, shapes)
    ops, labs = _einsum_prepare(operands, terms, out_l, sizes)
    path = _contraction_path(labs, out_l, [x.shape for x in ops], optimize)
    ops, labs = _run_path(ops, labs, out_l, path, precision, _dot_general)
    if len(ops) != 1:
        raise ValueError(f"einsum: the contraction path {path} leaves {len(ops)} operands; "
                         f"it must combine all {len(terms)}")
    result, rl = ops[0], labs[0]
    result = lax.transpose(result, [rl.index(c) for c in out_l])
    if pref is not None and result.dtype != pref:
        result = lax.convert_element_type(result, pref)
    return result


def einsum_path(subscripts, *operands, optimize=_EINSUM_AUTO):
    """The contraction order opt_einsum picks: ``(path, info)`` as
    ``opt_einsum.contract_path`` returns them (``path`` can be passed to ``einsum``'s
    ``optimize``).

    Example::

        >>> jnp.einsum_path('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((3, 4)))[0]
        [(0, 1)]
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_to_subscripts((subscripts,) + operands)
    shapes = [tuple(_planning_size(d) for d in getattr(x, "shape", ())) for x in operands]
    strategy = _EINSUM_AUTO if optimize is True else optimize
    return opt_einsum.contract_path(subscripts, *shapes, shapes=True, optimize=strategy)


__all__ = ["matmul", "matvec", "vecmat", "vecdot", "dot", "vdot", "inner", "outer",
           "tensordot", "kron", "einsum", "einsum_path"]
