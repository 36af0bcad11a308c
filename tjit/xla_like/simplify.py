"""Algebraic simplification and clean-up of an :class:`~tjit.xla_like.hlo.HloModule`.

:func:`simplify` runs three passes to a fixed point (bounded): the rewrite rules below,
common-subexpression elimination (CSE) and dead-code elimination (DCE). A pass never
mutates an Instr: it rebuilds the graph through a value map, reusing untouched Instrs,
so the input module stays valid. Parameters keep their objects and order; outputs keep
their order.

Rules are exact (bit-for-bit, NaN and -0.0 included) for every input unless marked
"rounding": those return a value within a few ulp of the original composition's, which
itself carried a few ulp of error (at the very ends of the range the composition may
have rounded over to inf or down to 0 where the rewrite is finite); they never change
which results are NaN. Notation: ``c`` is a "scalar constant": a rank-0 constant, a
broadcast of one, or a constant array whose elements all have the same bits.

====================================  ========================================================
rule                                  why it is valid
====================================  ========================================================
fold ``op(c1, c2, ...)``              elementwise op of scalar constants, evaluated with the
                                      primitive's reference impl at the op's dtype; only ops
                                      whose result every backend rounds the same way
                                      (IEEE arithmetic, sqrt, compares, bit ops, converts,
                                      select); transcendental functions are not folded
constant array of equal elements      -> broadcast(rank-0 constant): fusion inlines it
``x * 1``, ``1 * x`` -> ``x``         exact in every dtype (-0.0, inf, NaN included)
``x * 0`` -> ``0``                    integers and bool only (floats: inf*0 = NaN, -x*0 = -0)
``x + 0``, ``0 + x`` -> ``x``         integers/bool; floats only for the constant -0.0
                                      (``-0.0 + 0.0`` is +0.0, so ``x + 0.0`` is not ``x``)
``x - 0`` -> ``x``                    integers; floats only for +0.0 (``-0.0 - 0.0 = -0.0``)
``0 - x`` -> ``neg(x)``               integers (wrapping); floats only for -0.0
``x - x`` -> ``0``                    integers only (floats: inf - inf = NaN)
``x / 1`` -> ``x``                    integers (truncating division by 1)
``x rem 1`` -> ``0``                  integers
``and(x, ~0)``, ``or/xor(x, 0)`` -> x  integers and bool (and ``and(x, 0)`` -> 0,
                                      ``or(x, ~0)`` -> ~0); the lowering of ``//`` has these
``ne(x, False)``, ``eq(x, True)``     -> ``x`` for bool x
``x / c`` -> ``x * (1/c)``            floats, ``c = ±2**k`` with ``1/c`` representable: both
                                      are the correctly rounded value of the same real
                                      number (subnormal results included). Other ``c`` are left alone (XLA multiplies by
                                      any reciprocal; that changes rounding)
``x / select(p, c1, c2)``             -> ``x * select(p, 1/c1, 1/c2)`` on the same terms
                                      (the maximum/relu gradient's tie split)
``neg(neg(x))``, ``not(not(x))``      involutions (``not`` is bitwise on integers)
``select(p, x, x)`` -> ``x``
``select(c, a, b)`` -> ``a`` or ``b``  constant predicate
``convert(x)`` to x's dtype -> ``x``
``convert(convert(x, B), C)``         -> ``convert(x, C)`` when ``A -> B`` is lossless and the
                                      ``B -> C`` conversion means what ``A -> C`` means for
                                      ``A``'s values (see :func:`_convert_chain_ok`); e.g. a
                                      widen-narrow round trip is the identity
``transpose(transpose(x))``           composed; an identity permutation is dropped
``transpose(reshape(transpose(x)))``  and any reshape/transpose chain with 2+ transposes ->
                                      reshape, one transpose, reshape where the chain's
                                      reshapes nest (it permutes blocks of elements:
                                      ``layout_chains``); fewer copy kernels
``reshape(reshape(x))``               one reshape (row-major order is kept by both); dropped
                                      when the shape is unchanged
``broadcast(broadcast(x))``           composed dims; an identity broadcast is dropped
``broadcast(reshape(x))``             -> ``broadcast(x)`` when the reshape only inserts or
                                      removes 1-dims (keepdims reductions): x's 1-dims
                                      are expanded instead
reshape/transpose/slice/broadcast     of a rank-0 value or a broadcast of one ->
                                      ``broadcast(scalar)``: keeps scalars rank-0
slice of the whole array, reduce      -> ``x``
over no axes
``exp(log(x))``                       -> ``select(x >= 0, abs(x), NaN)``. log of a negative or
                                      NaN is NaN; ``log(±0) = -inf`` and ``exp(-inf) = +0``
                                      (``abs`` maps -0.0 to +0.0); inf stays inf. Rounding:
                                      positive finite x come back exactly instead of within
                                      about ``|log x|`` ulp (exp(log(FLT_MAX)) was inf)
``log(exp(x))``                       -> ``select(x > hi, inf, select(x < lo, -inf, x + 0))``
                                      where ``exp`` overflows above ``hi`` and is 0 below
                                      ``lo`` (thresholds measured with NumPy at the dtype),
                                      so overflow gives inf as before (XLA's unconditional
                                      ``-> x`` would give 100 for log(exp(100f)) instead of
                                      inf). ``+ 0`` turns -0.0 into +0.0 like ``log(1)``.
                                      Rounding: in range the exact x is returned (and in
                                      exp's subnormal range x, where the composition only
                                      approximates x); at the thresholds the backend's exp
                                      may differ from NumPy's by an ulp of x
``tanh(softplus(x))`` (Mish)          -> ``select(x > T, 1, n / (n + 2))`` with
                                      ``e = exp(x)``, ``n = e * (e + 2)``; T = 20 (float32),
                                      40 (float64). softplus is matched as ``log1p(exp(x))``
                                      and as ``logaddexp(x, 0)`` = ``max(x, 0) +
                                      log1p(exp(-|x|))``, optionally under its NaN guard
                                      ``select(x != x, x + 0, ...)``. Exact identity
                                      ``tanh(log(1+e)) = ((1+e)^2-1)/((1+e)^2+1)``; above T
                                      the quotient rounds to 1 already and n would overflow
                                      later. NaN -> NaN, -inf -> 0, +inf -> 1. Rounding:
                                      within 4 ulp of a float64 reference everywhere
                                      (tested; as good as the composition with NumPy's
                                      functions, better than with the kernels' 5.5-ulp
                                      tanh) and 2.4x faster (shared/PERF_NOTES.md)
``reshape(op(a, b))``                 -> ``op(reshape(a), reshape(b))`` for an elementwise op
                                      with no other use and a reshape that regroups dims:
                                      kernels load a reshaped buffer but cannot inline a
                                      producer through such a reshape
``reshape(iota(n))``                 -> ``sum_d stride_d * iota(dim d)`` of the new shape
                                      (integers, concrete sizes; exact): kernels compute
                                      the index instead of reading a written iota
``transpose(dot(a, b))``              -> ``dot(b, a)`` when the transpose only swaps the two
                                      free-dim groups and the dot has no other use (the
                                      weight gradient of ``x @ w``): BLAS writes the layout
                                      the consumer reads. Exact up to BLAS's blocking
``dot(transpose(a), b)``              -> the permutation folded into the dimension numbers
                                      when it keeps the free dims in order: BLAS reads the
                                      operand strided (transposed) instead of a copy
sum of an integer scalar constant     ``reduce_sum(c)`` over axes of ``n`` elements in all ->
                                      ``c * n`` (wrapping, as the sum wraps): a constant, or
                                      for a symbolic ``n`` a ``size`` op, the value of the
                                      size expression that kernels read from their run-time
                                      sizes (``x.shape[0]`` used as a value: ``dim_value``'s
                                      sum of ones, ``mean``'s count) instead of a reduction
full reduction of a large array       ``reduce(x, all axes)`` -> ``reduce(reduce(x, trailing
                                      axes), 0)`` (rank 1: reshaped to rows first, when the
                                      size has a suitable divisor), so the big pass is a row
                                      reduction split across threads. Rounding for float
                                      sums/products: a different association (per-row
                                      partials, more accurate than one running sum); exact
                                      for max/min/integers/bool. The split depends only on
                                      the shape, never on the thread count
column reduction of a tall array      ``reduce(x, 0)`` -> ``reduce(reduce(reshape(x, (P, R/P,
                                      ...)), 1), 0)`` where the target asks for it
                                      (``TargetInfo.split_columns``: GPUs, whose column
                                      kernels would otherwise run one block per few columns);
                                      P partials per column, folded in order. Float sums:
                                      another association; exact for max/min/integers/bool
====================================  ========================================================

Not rewritten: ``x * 0`` and ``x - x`` for floats (NaN, inf, -0.0), ``x + 0.0`` for
floats, division by constants that are not powers of two, ``library`` ops (never merged
by CSE; dropped by DCE only when none of their results is used and they have results).
"""

import functools

import numpy as np

from tjit.primitives.base import REGISTRY
from tjit.tracing import dtypes
from tjit.xla_like import hlo, layout_chains
from tjit.xla_like.fusion import unit_only_reshape
from tjit.xla_like.target import CPU, SPLIT_REDUCE_MIN_ROW

#: opcode -> rule functions ``(instr, rewriter) -> replacement Instr or None``, in order.
RULES = {}
MAX_ROUNDS = 32
#: Constants up to this many bytes are compared by value in CSE (larger: by identity).
CSE_BYTES = 1 << 16


def rule(*opcodes):
    """Register the decorated function as a rewrite rule for ``opcodes``."""
    def register(fn):
        for op in opcodes:
            RULES.setdefault(op, []).append(fn)
        return fn
    return register


# ----------------------------------------------------------------------------------------
# Driver.

def simplify(module, target=CPU):
    """Rewrite rules, CSE and DCE applied to ``module`` until nothing changes.

    Args:
      module: an HloModule (left unchanged).
      target: the ``TargetInfo`` (kernel dtypes, how full reductions split).

    Returns:
      An HloModule computing the same outputs (see the module docstring for the rules
      that may change rounding), or ``module`` itself when no pass changed anything.
    """
    current = module
    for _ in range(MAX_ROUNDS):
        changed = False
        for step in (cse, functools.partial(rewrite, target=target), dce):
            current, c = step(current)      # (CSE first: rules see true use counts)
            changed |= c
        if not changed:
            break
    return current


def _rebuild(module, instrs, vmap):
    outs = [vmap.get(o.id, o) for o in module.outputs]
    return hlo.HloModule(module.name, module.params, instrs, outs)


def _with_operands(i, ops):
    if all(a is b for a, b in zip(ops, i.operands)):
        return i
    new = hlo.Instr(i.opcode, ops, i.shape, i.dtype, **i.attrs)
    new.origin = i.origin
    return new


def _credit(old, built):
    """The instructions a rule built compute ``old``'s equations and those of the
    operands it absorbed (``transpose(dot(a, b))`` -> ``dot(b, a)``: the dot's too)."""
    kept = {id(o) for i in built for o in i.operands}
    origin = set(old.origin)
    for o in old.operands:
        if id(o) not in kept and all(o is not i for i in built):
            origin.update(o.origin)
    origin = tuple(sorted(origin))
    for i in built:
        if not i.origin:
            i.origin = origin


def rewrite(module, target=CPU):
    """One sweep of the rules in topological order. Returns ``(module, changed)``."""
    b = Rewriter(target)
    for i in module.instrs:
        for o in i.operands:
            b.uses[o.id] = b.uses.get(o.id, 0) + 1
            b.users.setdefault(o.id, []).append(i)
    for o in module.outputs:
        b.uses[o.id] = b.uses.get(o.id, 0) + 1
        b.users.setdefault(o.id, []).append(None)
    vmap = {}
    changed = False
    for i in module.instrs:
        cur = _with_operands(i, tuple(vmap.get(o.id, o) for o in i.operands))
        first, before = len(b.instrs), cur
        if cur is not i and i.id in b.users:
            b.users[cur.id] = b.users[i.id]     # (the same value, new operands)
        # dtypes kernels cannot compute (float16, complex) stay in library calls untouched;
        # so does arithmetic on float8/int4: the rules' algebra (x + 0 -> x, lossless
        # converts) is that of NumPy's own dtypes, not of a type that rounds every result
        # (layout rules move bits, whatever they mean: a split reduction's reshape still
        # sinks through a float8 quantize step to the parameter)
        if i.opcode != "parameter" and cur.dtype in target.kernel_dtypes and (
                cur.opcode in _LAYOUT_OPCODES or not (
                    cur.dtype in hlo.NARROW_KERNEL_DTYPES
                    or any(o.dtype in hlo.NARROW_KERNEL_DTYPES for o in cur.operands))):
            for fn in RULES.get(cur.opcode, ()):
                new = fn(cur, b)
                if new is not None:
                    cur, changed = new, True
                    break
        if cur is not i:
            changed = True  # operands were replaced
        if cur.id not in b.ids:
            b.append(cur)
        if cur is not before:
            _credit(before, b.instrs[first:])
        vmap[i.id] = cur
    if not changed:
        return module, False
    return _rebuild(module, b.instrs, vmap), True


def cse(module):
    """Merge instructions with equal opcode, operands, shape, dtype and attrs."""
    seen, vmap, instrs = {}, {}, []
    changed = False
    for i in module.instrs:
        cur = _with_operands(i, tuple(vmap.get(o.id, o) for o in i.operands))
        key = _cse_key(cur)
        if key is not None and key in seen:
            vmap[i.id] = seen[key]
            changed = True
            continue
        if key is not None:
            seen[key] = cur
        changed |= cur is not i
        vmap[i.id] = cur
        instrs.append(cur)
    if not changed:
        return module, False
    return _rebuild(module, instrs, vmap), True


def _cse_key(i):
    if i.opcode in ("parameter", "library") or "fn" in i.attrs:
        return None
    attrs = []
    for k in sorted(i.attrs):
        v = i.attrs[k]
        if k == "value":
            v = np.asarray(v)
            # big arrays are only merged with themselves: no copy of their bytes per round
            v = (dtypes.key(v.dtype), v.shape,
                 v.tobytes() if v.nbytes <= CSE_BYTES else id(v))
        attrs.append((k, v))
    key = (i.opcode, tuple(o.id for o in i.operands), i.shape, dtypes.key(i.dtype),
           tuple(attrs))
    try:
        hash(key)
    except TypeError:  # an attr we cannot compare safely
        return None
    return key


def dce(module):
    """Drop instructions no output depends on (parameters are always kept)."""
    live = {o.id for o in module.outputs}
    for i in reversed(module.instrs):
        keep = i.id in live or i.opcode == "parameter" or hlo.has_effect(i)
        if keep:
            live.add(i.id)
            live.update(o.id for o in i.operands)
    instrs = [i for i in module.instrs if i.id in live]
    if len(instrs) == len(module.instrs):
        return module, False
    return hlo.HloModule(module.name, module.params, instrs, module.outputs), True


class Rewriter(hlo.Builder):
    """The builder rules emit into, with helpers for scalars and elementwise ops."""

    def __init__(self, target=CPU):
        super().__init__()
        self.target = target    # (rules read what the target can do)
        self.ids = set()
        self.uses = {}   # instr id -> number of uses in the module being rewritten
        self.users = {}  # instr id -> the instructions using it (None: a module output)

    def only_use(self, i):
        """True if ``i`` (an instruction of the module being rewritten) has one use."""
        return self.uses.get(i.id, 0) == 1

    def add(self, opcode, operands, shape, dtype, **attrs):
        i = super().add(opcode, operands, shape, dtype, **attrs)
        self.ids.add(i.id)
        return i

    def append(self, i):
        self.instrs.append(i)
        self.ids.add(i.id)

    def full(self, value, like):
        """``value`` (cast to like's dtype) broadcast to ``like``'s shape."""
        return self.broadcast(self.constant(np.asarray(value, like.dtype)), like.shape, ())

    def op(self, name, *operands, dtype=None):
        """Elementwise op of same-shape operands (dtype: last operand's, bool for compares)."""
        if dtype is None:
            dtype = np.bool_ if name in hlo.kernel_ir.COMPARE_OPS else operands[-1].dtype
        return self.add(name, operands, operands[0].shape, dtype)


# ----------------------------------------------------------------------------------------
# Matching helpers.

def scalar_value(i):
    """The 0-d array every element of ``i`` equals, if ``i`` is a scalar constant."""
    if i.opcode == "broadcast" and i.operands[0].ndim == 0:
        i = i.operands[0]
    if i.opcode != "constant":
        return None
    v = np.asarray(i.attrs["value"])
    if v.ndim == 0:
        return v
    if v.size == 0:
        return None
    flat = np.ascontiguousarray(v).reshape(-1)
    raw = flat.view(np.uint8).reshape(flat.size, flat.itemsize)
    probe = raw[[0, flat.size // 2, -1]]
    if not (probe == raw[0]).all() or not (raw == raw[0]).all():  # probe: fail fast
        return None
    return np.array(flat[0])


def is_value(i, value):
    """True if every element of ``i`` has the bits of ``value`` in i's dtype."""
    v = scalar_value(i)
    return v is not None and v.tobytes() == np.asarray(value, i.dtype).tobytes()


def is_zero(i):
    """Scalar constant +0 or -0 (any dtype)."""
    v = scalar_value(i)
    return v is not None and not v.any()


#: opcodes whose rules only move values (no arithmetic): they apply to every dtype
_LAYOUT_OPCODES = frozenset(("reshape", "transpose", "broadcast", "slice", "rev", "constant"))


def _kind(dt):
    return "f" if dt.kind == "f" else "i"  # bool, signed and unsigned: integer-like


def scalar_source(i):
    """The rank-0 value ``i`` is a broadcast of (``i`` itself when rank 0), else None."""
    if i.ndim == 0:
        return i
    if i.opcode == "broadcast" and i.operands[0].ndim == 0:
        return i.operands[0]
    return None


def _is_one(d):
    return type(d) is int and d == 1


def _same_shape(a, b):
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


# ----------------------------------------------------------------------------------------
# Constant folding and canonical scalars.

#: Ops folded at compile time: their results do not depend on a backend's math library.
FOLDABLE = ("neg", "abs", "sign", "floor", "ceil", "round", "round_even", "sqrt",
            "is_finite", "not", "add", "sub", "mul", "div", "rem", "max", "min", "and", "or",
            "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "eq", "ne",
            "lt", "le", "gt", "ge", "select", "convert", "fma")


@rule(*FOLDABLE)
def fold_constants(i, b):
    """op(c1, c2, ...) -> broadcast(constant) using the primitive's reference impl."""
    vals = [scalar_value(o) for o in i.operands]
    if any(v is None for v in vals):
        return None
    r = eval_scalar(i.opcode, vals, i.dtype)
    return None if r is None else b.full(r, i)


def eval_scalar(op, vals, dtype):
    """Elementwise ``op`` on 0-d arrays with tjit's semantics; None if unsure."""
    try:
        with np.errstate(all="ignore"):
            if op in ("round", "round_even"):
                r = REGISTRY["round"].impl(np, vals[0], rounding_method=int(op == "round_even"))
            elif op == "select":
                r = REGISTRY["select_n"].impl(np, vals[0], vals[2], vals[1])
            elif op == "convert":
                r = REGISTRY["convert_element_type"].impl(np, vals[0], new_dtype=dtype)
            else:
                r = REGISTRY[op].impl(np, *vals)
    except Exception:  # noqa: BLE001 - an op we cannot evaluate here is simply not folded
        return None
    r = np.asarray(r)
    return r if r.dtype == dtype and r.shape == () else None


@rule("constant")
def uniform_constant(i, b):
    """A constant array of identical elements -> broadcast of a rank-0 constant."""
    if i.ndim == 0:
        return None
    v = scalar_value(i)
    return None if v is None else b.broadcast(b.constant(v), i.shape, ())


# ----------------------------------------------------------------------------------------
# Arithmetic identities.

@rule("mul")
def mul_by_one(i, b):
    x, y = i.operands
    if is_value(y, 1):
        return x
    return y if is_value(x, 1) else None


@rule("mul")
def int_mul_by_zero(i, b):
    x, y = i.operands
    if _kind(i.dtype) == "i" and (is_zero(x) or is_zero(y)):
        return b.full(0, i)
    return None


@rule("add")
def add_zero(i, b):
    x, y = i.operands
    zero = -0.0 if i.dtype.kind == "f" else 0  # x + (+0.0) maps -0.0 to +0.0
    if is_value(y, zero):
        return x
    return y if is_value(x, zero) else None


@rule("sub")
def sub_zero(i, b):
    x, y = i.operands
    return x if is_value(y, 0) else None  # floats: +0.0 only


@rule("sub")
def zero_sub(i, b):
    x, y = i.operands
    return b.op("neg", y) if is_value(x, -0.0 if i.dtype.kind == "f" else 0) else None


@rule("sub")
def int_sub_self(i, b):
    x, y = i.operands
    return b.full(0, i) if x is y and _kind(i.dtype) == "i" else None


@rule("div")
def int_div_by_one(i, b):
    x, y = i.operands
    return x if _kind(i.dtype) == "i" and is_value(y, 1) else None


@rule("div")
def div_by_power_of_two(i, b):
    x, y = i.operands
    if i.dtype.kind != "f":
        return None
    c = scalar_value(y)
    r = None if c is None else exact_reciprocal(c)
    return None if r is None else b.op("mul", x, b.full(r, x))


@rule("div")
def div_by_select_of_powers_of_two(i, b):
    """``x / select(p, c1, c2)`` with constants ``c1``, ``c2`` = ±2^k -> ``x * select(p,
    1/c1, 1/c2)`` (exact: the gradient of maximum/relu divides by ``select(tie, 2, 1)``)."""
    x, y = i.operands
    if i.dtype.kind != "f" or y.opcode != "select":
        return None
    p, t, f = y.operands
    rt, rf = (None if c is None else exact_reciprocal(c) for c in map(scalar_value, (t, f)))
    if rt is None or rf is None:
        return None
    return b.op("mul", x, b.op("select", p, b.full(rt, x), b.full(rf, x)))


def exact_reciprocal(c):
    """``1/c`` in c's dtype if it is exact (c = ±2**k, 1/c representable), else None."""
    with np.errstate(all="ignore"):
        if not np.isfinite(c) or c == 0 or abs(np.frexp(c)[0]) != 0.5:
            return None
        r = np.asarray(c.dtype.type(1) / c)
    if not np.isfinite(r) or r == 0 or float(r) * float(c) != 1.0:
        return None
    return r


@rule("rem")
def int_rem_by_one(i, b):
    _, y = i.operands
    return b.full(0, i) if _kind(i.dtype) == "i" and is_value(y, 1) else None


def _all_ones(dtype):
    return True if dtype == np.bool_ else np.array(-1).astype(dtype)


@rule("and", "or", "xor")
def bitwise_identities(i, b):
    """and(x, ~0) = or(x, 0) = xor(x, 0) = x; and(x, 0) = 0; or(x, ~0) = ~0."""
    ones = _all_ones(i.dtype)
    for x, c in (i.operands, i.operands[::-1]):
        if is_zero(c):
            return b.full(0, i) if i.opcode == "and" else x
        if is_value(c, ones) and i.opcode != "xor":
            return x if i.opcode == "and" else b.full(ones, i)
    return None


@rule("ne", "eq")
def bool_compare_identity(i, b):
    """For bool x: ne(x, False) = eq(x, True) = x."""
    keep = i.opcode == "eq"
    for x, c in (i.operands, i.operands[::-1]):
        if x.dtype == np.bool_ and is_value(c, keep):
            return x
    return None


@rule("eq")
def eq_of_max_or_min(i, b):
    """eq(x, max(x, y)) = ge(x, y) and eq(x, min(x, y)) = le(x, y) (either operand
    order): exact, NaN included (both false) and signed zeros (both true). This is
    the gradient of relu, maximum(h, 0): its tie test then reads the pre-activation
    only, not the materialized relu output as well."""
    for u, m in (i.operands, i.operands[::-1]):
        if m.opcode not in ("max", "min") or m.dtype != u.dtype:
            continue
        cmp = "ge" if m.opcode == "max" else "le"
        x, y = m.operands
        if _same_value(u, x):
            return b.op(cmp, x, y)
        if _same_value(u, y):
            return b.op(cmp, y, x)
    return None


def _same_value(a, c):
    """The same instruction, or scalar constants that compare equal (and are not NaN)."""
    if a is c:
        return True
    va, vc = scalar_value(a), scalar_value(c)
    return va is not None and vc is not None and bool(va == vc)


@rule("neg", "not")
def involution(i, b):
    """neg(neg(x)) and not(not(x)) -> x."""
    x, = i.operands
    return x.operands[0] if x.opcode == i.opcode else None


@rule("select")
def select_same(i, b):
    _, t, f = i.operands
    return t if t is f else None


@rule("select")
def select_constant_pred(i, b):
    p, t, f = i.operands
    v = scalar_value(p)
    return None if v is None else (t if v else f)


# ----------------------------------------------------------------------------------------
# Conversions.

@rule("convert")
def convert_noop(i, b):
    x, = i.operands
    return x if x.dtype == i.dtype else None


@rule("convert")
def convert_chain(i, b):
    x, = i.operands
    if x.opcode != "convert" or not _convert_chain_ok(x.operands[0].dtype, x.dtype, i.dtype):
        return None
    return b.convert(x.operands[0], i.dtype)


def lossless(a, c):
    """True if every value of dtype ``a`` converts to dtype ``c`` exactly."""
    a, c = np.dtype(a), np.dtype(c)
    if a == c or a == np.bool_:
        return True
    if a in hlo.NARROW_KERNEL_DTYPES or c in hlo.NARROW_KERNEL_DTYPES:
        return False     # (NumPy's finfo/iinfo do not know them; no rewrite is needed)
    if a.kind in "iu" and c.kind in "iu":
        return np.iinfo(c).min <= np.iinfo(a).min and np.iinfo(a).max <= np.iinfo(c).max
    if a.kind in "iu" and c.kind == "f":
        return max(-int(np.iinfo(a).min), int(np.iinfo(a).max)) <= 2 ** (np.finfo(c).nmant + 1)
    if a.kind == "f" and c.kind == "f":
        return np.finfo(c).nmant >= np.finfo(a).nmant and np.finfo(c).maxexp >= np.finfo(a).maxexp
    return False


def _convert_chain_ok(a, mid, c):
    """convert(convert(x: a, mid), c) == convert(x, c) for every x.

    ``a -> mid`` must keep the value; then ``mid -> c`` equals ``a -> c`` when the
    conversion to ``c`` depends on the value only (c float: rounding; c bool: x != 0),
    when the value fits ``c`` anyway, or when ``a`` and ``mid`` are both integer-like
    (modular) or both floats (saturating, NaN -> 0): float->int saturates while
    int->int wraps, so int -> float -> narrower int is not rewritten.
    """
    if not lossless(a, mid):
        return False
    return (c.kind == "f" or c == np.bool_ or lossless(a, c) or _kind(a) == _kind(mid))


# ----------------------------------------------------------------------------------------
# Layout ops.

@rule("transpose")
def transpose_identity(i, b):
    return i.operands[0] if tuple(i.attrs["perm"]) == tuple(range(i.ndim)) else None


@rule("transpose")
def transpose_of_transpose(i, b):
    x, = i.operands
    if x.opcode != "transpose":
        return None
    perm = tuple(x.attrs["perm"][p] for p in i.attrs["perm"])
    y = x.operands[0]
    if perm == tuple(range(i.ndim)):
        return y
    return b.add("transpose", (y,), i.shape, i.dtype, perm=perm)


@rule("transpose")
def transpose_chain(i, b):
    """A chain of reshapes and transposes holding two or more transposes -> reshape,
    one transpose, reshape (``layout_chains.compose``: the chain permutes blocks of
    elements); each transpose of the chain that a reshape regrouped was a copy kernel.
    Concrete, non-empty shapes whose reshapes nest."""
    chain, v = [], i
    while v.opcode in ("transpose", "reshape"):
        chain.append(v)
        v = v.operands[0]
    if sum(c.opcode == "transpose" for c in chain) < 2 or any(
            type(d) is not int or d == 0 for c in chain + [v] for d in c.shape):
        return None
    ops = [("transpose", tuple(c.attrs["perm"])) if c.opcode == "transpose" else
           ("reshape", tuple(c.shape)) for c in reversed(chain)]
    found = layout_chains.compose(tuple(v.shape), ops)
    if found is None:
        return None
    atom_shape, perm = found
    x = v if _same_shape(v.shape, atom_shape) else b.add("reshape", (v,), atom_shape,
                                                         v.dtype)
    if perm != tuple(range(len(perm))):
        x = b.add("transpose", (x,), tuple(atom_shape[p] for p in perm), x.dtype, perm=perm)
    return x if _same_shape(x.shape, i.shape) else b.add("reshape", (x,), i.shape, i.dtype)


@rule("rev")
def rev_of_rev(i, b):
    """rev(rev(x)) reverses the dims reversed once (none: x); rev over size-1 dims only
    is x."""
    x, = i.operands
    dims = {d for d in i.attrs["dims"] if i.shape[d] != 1}
    if x.opcode == "rev":
        dims ^= {d for d in x.attrs["dims"] if x.shape[d] != 1}
        x = x.operands[0]
    elif dims == set(i.attrs["dims"]):
        return None
    if not dims:
        return x
    return b.add("rev", (x,), i.shape, i.dtype, dims=tuple(sorted(dims)))


@rule("transpose")
def transpose_of_dot(i, b):
    """transpose(dot(a, b)) -> dot(b, a) when the transpose only swaps the two free-dim
    groups (the weight gradient of ``x @ w``): BLAS writes the result in the layout its
    consumers read, instead of a kernel reading it at a stride of a whole row."""
    d, = i.operands
    if d.opcode != "dot" or not b.only_use(d):
        return None
    lhs, rhs = d.operands
    (lc, rc), (lb, rb) = d.attrs["dimension_numbers"]
    if tuple(i.attrs["perm"]) != _free_swap(d):
        return None
    return b.add("dot", (rhs, lhs), i.shape, i.dtype,
                 dimension_numbers=((tuple(rc), tuple(lc)), (tuple(rb), tuple(lb))))


def _free_swap(d):
    """The permutation of dot ``d``'s output that swaps its two free-dim groups."""
    lhs, rhs = d.operands
    (lc, rc), (lb, rb) = d.attrs["dimension_numbers"]
    nb = len(lb)
    nl, nr = lhs.ndim - nb - len(lc), rhs.ndim - nb - len(rc)
    return (*range(nb), *range(nb + nl, nb + nl + nr), *range(nb, nb + nl))


@rule("dot")
def dot_of_transpose(i, b):
    """Fold an operand's transpose into the dimension numbers (free dims stay in order)."""
    (lc, rc), (lb, rb) = i.attrs["dimension_numbers"]
    ops, dims = list(i.operands), [[lc, lb], [rc, rb]]
    changed = False
    for side, x in enumerate(ops):
        if x.opcode != "transpose":
            continue
        perm = x.attrs["perm"]
        contract, batch = dims[side]
        free = [perm[d] for d in range(x.ndim) if d not in contract and d not in batch]
        if free != sorted(free):
            continue  # the output would list the free dims in another order
        ops[side] = x.operands[0]
        dims[side] = [tuple(perm[d] for d in contract), tuple(perm[d] for d in batch)]
        changed = True
    if not changed:
        return None
    (lc, lb), (rc, rb) = dims
    return b.add("dot", tuple(ops), i.shape, i.dtype, dimension_numbers=((lc, rc), (lb, rb)))


@rule("dot")
def dot_as_reduce(i, b):
    """dot -> reduce_sum(mul(lhs', rhs')) on targets with no gemm for the dtype
    (``TargetInfo.dot_kernels``): both operands transposed to (batch, free, contract)
    and broadcast into the space ``out.shape + contract``, so fusion makes one row-style
    kernel with the contraction as its reduce axes and batch/free dims kept. Products
    in the dtype the reference impl multiplies in (the preferred type when wider, or
    for integer operands), converted to the result's. Rounding: a reassociated float
    sum, like any gemm's. Bool dots stay dots (the runtime's matmul). A dot read only
    through a transpose that ``transpose_of_dot`` folds waits for that rule (the weight
    gradient then comes out in its parameter's layout, and an SGD update of it fuses
    into the dot's kernel instead of reading the product transposed)."""
    t = b.target
    if not t.dot_kernels or i.dtype in t.gemm_dtypes:
        return None
    users = b.users.get(i.id, ())
    if len(users) == 1 and users[0] is not None and users[0].opcode == "transpose" and \
            tuple(users[0].attrs["perm"]) == _free_swap(i):
        return None     # transpose_of_dot first: the kernel then writes what is read
    lhs, rhs = i.operands
    (lc, rc), (lb, rb) = i.attrs["dimension_numbers"]
    dt = lhs.dtype
    if i.dtype != dt and (np.promote_types(dt, i.dtype) == i.dtype or dt.kind not in "fc"):
        dt = i.dtype
    if not lc or dt == np.bool_ or i.dtype == np.bool_:
        return None
    if dt == np.float16:
        dt = np.dtype(np.float32)    # (NumPy's and cuBLAS's half matmuls compute in float)
    lf = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
    rf = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    nb, nl, nr, nc = len(lb), len(lf), len(rf), len(lc)
    full = tuple(i.shape) + tuple(lhs.shape[d] for d in lc)
    contract = tuple(range(nb + nl + nr, nb + nl + nr + nc))

    def arrange(x, perm, dims):
        if tuple(perm) != tuple(range(x.ndim)):
            x = b.add("transpose", (x,), tuple(x.shape[p] for p in perm), x.dtype,
                      perm=tuple(perm))
        return b.broadcast(b.convert(x, dt), full, dims)
    lt = arrange(lhs, (*lb, *lf, *lc), (*range(nb + nl), *contract))
    rt = arrange(rhs, (*rb, *rf, *rc), (*range(nb), *range(nb + nl, nb + nl + nr), *contract))
    prod = b.add("mul", (lt, rt), full, dt)
    red = b.add("reduce", (prod,), tuple(i.shape), dt, axes=contract, monoid="sum")
    return b.convert(red, i.dtype)


@rule("reduce")
def sum_of_int_constant(i, b):
    x, = i.operands
    c = scalar_value(x)
    if i.attrs["monoid"] != "sum" or c is None or x.dtype.kind not in "iu" or \
            i.dtype != x.dtype:
        return None
    n = 1
    for a in i.attrs["axes"]:
        n = n * x.shape[a]
    if type(n) is int:      # (c * n modulo 2**bits, as the sum)
        return b.full(_wrapped(int(c) * n, i.dtype), i)
    count = b.add("size", (), (), i.dtype, size=n)
    if int(c) != 1:
        count = b.op("mul", b.constant(np.asarray(c, i.dtype)), count)
    return b.broadcast(count, i.shape, ()) if i.shape else count


@rule("reduce")
def split_full_reduce(i, b):
    """reduce(x, all axes) -> reduce(reduce(x, trailing axes), 0): a parallel row pass
    (from ``target.split_reduce_min`` elements; rows of ``target.split_reduce``)."""
    x, = i.operands
    if len(i.attrs["axes"]) != x.ndim or x.ndim == 0 or i.ndim != 0:
        return None
    least = b.target.split_reduce_min
    n = _concrete_size(x.shape)
    if least is None or (n is not None and n < least):
        return None
    if x.ndim == 1 or _concrete_size(x.shape[1:]) in range(SPLIT_REDUCE_MIN_ROW):
        rows = b.target.split_reduce(n)
        if rows is None:    # (a size symbol, or no divisor near the aim: a prime)
            if x.ndim != 1:
                return None
            return _ragged_split(i, b, x, 1)
        x = b.add("reshape", (x,), rows, x.dtype)
    elif isinstance(x.shape[0], int) and x.shape[0] < 2:
        return None
    monoid = i.attrs["monoid"]
    partial = b.add("reduce", (x,), (x.shape[0],), i.dtype, axes=tuple(range(1, x.ndim)),
                    monoid=monoid)
    return b.add("reduce", (partial,), (), i.dtype, axes=(0,), monoid=monoid)


@rule("reduce")
def split_column_reduce(i, b):
    """reduce(x, axes=(0,)) of a tall array -> reduce(reduce(reshape(x, (P, R/P, ...)), 1),
    0) where ``target.split_columns(R, kept)`` gives P: the big pass runs over P times
    more independent columns (GPU blocks), the second folds P partials per column."""
    x, = i.operands
    split = b.target.split_columns
    if split is None or tuple(i.attrs["axes"]) != (0,) or x.ndim < 2:
        return None
    kept = _concrete_size(x.shape[1:])
    if kept is None:
        return None
    rows = x.shape[0]
    parts = split(rows, kept) if isinstance(rows, int) else None
    if parts is None:
        return _ragged_split(i, b, x, kept)
    xs = b.add("reshape", (x,), (parts, rows // parts) + tuple(x.shape[1:]), x.dtype)
    monoid = i.attrs["monoid"]
    partial = b.add("reduce", (xs,), (parts,) + tuple(x.shape[1:]), i.dtype, axes=(1,),
                    monoid=monoid)
    return b.add("reduce", (partial,), i.shape, i.dtype, axes=(0,), monoid=monoid)


#: The elementwise op of each reduce monoid (how two partial results combine).
_MONOID_COMBINE = {"sum": "add", "prod": "mul", "max": "max", "min": "min", "and": "and",
                   "or": "or"}


def _ragged_split(i, b, x, kept):
    """reduce(x, axes=(0,)) of R rows where R has no divisor near the aim (a prime, say)
    and ``target.ragged_parts(R, kept)`` gives P: P partials of R // P rows each (slice
    and reshape, fused into the first pass's loads), their reduce, and the last R % P
    rows reduced apart, combined by the monoid's op. Without it such a reduction runs
    one pass with a group per column tile (a full one: one group): a column sum over
    (2^20, 32) float32 in one pass took 5-6.5 ms on an H100/H200, 0.05 ms split."""
    ragged = b.target.ragged_parts
    monoid = i.attrs["monoid"]
    rows, rest = x.shape[0], tuple(x.shape[1:])
    if not isinstance(rows, int):   # (the CUDA runtime compiles large bindings of a
        return None                 # size symbol for their sizes: cuda_specialize.py)
    parts = None if ragged is None else ragged(rows, kept)
    if parts is None or monoid not in _MONOID_COMBINE:
        return None
    per = rows // parts
    main_rows = parts * per
    zeros, ones = (0,) * x.ndim, (1,) * x.ndim
    main = b.add("slice", (x,), (main_rows,) + rest, x.dtype, start=zeros,
                 limit=(main_rows,) + rest, strides=ones)
    xs = b.add("reshape", (main,), (parts, per) + rest, x.dtype)
    partial = b.add("reduce", (xs,), (parts,) + rest, i.dtype, axes=(1,), monoid=monoid)
    folded = b.add("reduce", (partial,), i.shape, i.dtype, axes=(0,), monoid=monoid)
    tail = b.add("slice", (x,), (rows - main_rows,) + rest, x.dtype,
                 start=(main_rows,) + (0,) * len(rest), limit=(rows,) + rest, strides=ones)
    last = b.add("reduce", (tail,), i.shape, i.dtype, axes=(0,), monoid=monoid)
    return b.add(_MONOID_COMBINE[monoid], (folded, last), i.shape, i.dtype)


def _concrete_size(shape):
    n = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        n *= d
    return n


@rule("reshape")
def reshape_of_elementwise(i, b):
    """reshape(op(a, b)) -> op(reshape(a), reshape(b)) for a reshape that regroups dims
    (kernels cannot inline a producer through one; through the operands' loads they can)
    when the elementwise op has no other use."""
    x, = i.operands
    if x.opcode not in hlo.ELEMENTWISE or not b.only_use(x) or unit_only_reshape(i):
        return None
    ops = tuple(b.add("reshape", (o,), i.shape, o.dtype) for o in x.operands)
    return b.add(x.opcode, ops, i.shape, i.dtype, **x.attrs)


@rule("reshape")
def reshape_noop(i, b):
    x, = i.operands
    return x if _same_shape(x.shape, i.shape) else None


@rule("reshape")
def reshape_of_reshape(i, b):
    x, = i.operands
    if x.opcode != "reshape":
        return None
    y = x.operands[0]
    return y if _same_shape(y.shape, i.shape) else b.add("reshape", (y,), i.shape, i.dtype)


def _wrapped(n, dtype):
    """The Python int ``n`` in the integer ``dtype`` modulo 2**bits (two's complement),
    as integer arithmetic in the dtype wraps."""
    return np.asarray(n % (1 << 64), np.uint64).astype(dtype)


@rule("reshape")
def reshape_of_iota(i, b):
    """reshape(iota(n), S) -> sum over the dims d of S of stride_d * iota(S, d): the
    row-major index of each element, which kernels compute from their indices (a
    reshape of a computed value is otherwise written to memory first: every 2-D random
    sample did so with its counters). Integers and concrete sizes only: exact, as every
    partial sum is at most n - 1."""
    x, = i.operands
    if x.opcode != "iota" or x.ndim != 1 or i.dtype.kind not in "iu" or \
            not all(isinstance(d, int) for d in i.shape):
        return None
    total, stride = None, 1
    for d in reversed(range(i.ndim)):
        if i.shape[d] != 1:
            term = b.add("iota", (), i.shape, i.dtype, dimension=d)
            if stride != 1:     # (wrapped: a stride past the dtype, as the iota wraps)
                term = b.op("mul", term, b.full(_wrapped(stride, i.dtype), term))
            total = term if total is None else b.op("add", term, total)
        stride *= i.shape[d]
    return b.full(0, i) if total is None else total


@rule("broadcast")
def broadcast_identity(i, b):
    x, = i.operands
    same = _same_shape(x.shape, i.shape) and tuple(i.attrs["dims"]) == tuple(range(i.ndim))
    return x if same else None


@rule("broadcast")
def broadcast_of_broadcast(i, b):
    x, = i.operands
    if x.opcode != "broadcast":
        return None
    dims = tuple(i.attrs["dims"][d] for d in x.attrs["dims"])
    return b.broadcast(x.operands[0], i.shape, dims)


@rule("broadcast")
def broadcast_of_unit_reshape(i, b):
    """broadcast(reshape(x)) -> broadcast(x) when the reshape only adds/drops 1-dims."""
    r, = i.operands
    if r.opcode != "reshape":
        return None
    x = r.operands[0]
    xs = [k for k, d in enumerate(x.shape) if not _is_one(d)]
    ms = [k for k, d in enumerate(r.shape) if not _is_one(d)]
    if len(xs) != len(ms) or not all(x.shape[a] == r.shape[c] for a, c in zip(xs, ms)):
        return None
    fixed = {a: i.attrs["dims"][c] for a, c in zip(xs, ms)}
    dims, prev = [], -1
    for a in range(x.ndim):  # x's 1-dims go to the next free result dims, in order
        t = fixed.get(a, prev + 1)
        nxt = min([fixed[k] for k in fixed if k > a], default=i.ndim)
        if t <= prev or t >= nxt:
            return None
        dims.append(t)
        prev = t
    return b.broadcast(x, i.shape, tuple(dims))


@rule("reshape", "transpose", "rev", "slice")
def scalar_layout(i, b):
    """Any layout op of a scalar broadcast is a broadcast of the scalar."""
    s = scalar_source(i.operands[0])
    return None if s is None else b.broadcast(s, i.shape, ())


@rule("slice")
def slice_whole(i, b):
    x, = i.operands
    a = i.attrs
    whole = all(s == 0 for s in a["start"]) and all(t == 1 for t in a["strides"]) and \
        _same_shape(a["limit"], x.shape)
    return x if whole else None


@rule("reduce")
def reduce_no_axes(i, b):
    x, = i.operands
    return x if not i.attrs["axes"] and x.dtype == i.dtype else None


# ----------------------------------------------------------------------------------------
# Transcendental compositions (float32/float64).

@rule("exp")
def exp_of_log(i, b):
    """exp(log(x)) -> select(x >= 0, abs(x), NaN)."""
    x, = i.operands
    if x.opcode != "log":
        return None
    y = x.operands[0]
    return b.op("select", b.op("ge", y, b.full(0, y)), b.op("abs", y), b.full(np.nan, y))


@functools.cache
def exp_range(dtype):
    """(lo, hi): exp(x) is 0 for x < lo and inf for x > hi (NumPy at ``dtype``)."""
    t = np.dtype(dtype).type

    def boundary(pred, a, c):  # pred(a) true, pred(c) false: adjacent floats a < c
        while True:
            m = t((float(a) + float(c)) / 2)
            if m == a or m == c:
                return a, c
            a, c = (m, c) if pred(m) else (a, m)

    with np.errstate(all="ignore"):
        hi, _ = boundary(lambda v: np.isfinite(np.exp(v)), t(1), t(1000))
        _, lo = boundary(lambda v: np.exp(v) == 0, t(-2000), t(-1))
    return lo, hi


@rule("log")
def log_of_exp(i, b):
    """log(exp(x)) -> x where exp(x) is finite and nonzero; inf/-inf outside."""
    x, = i.operands
    if x.opcode != "exp" or i.dtype.kind != "f":
        return None
    y = x.operands[0]
    lo, hi = exp_range(i.dtype)
    inner = b.op("select", b.op("lt", y, b.full(lo, y)), b.full(-np.inf, y),
                 b.op("add", y, b.full(0.0, y)))
    return b.op("select", b.op("gt", y, b.full(hi, y)), b.full(np.inf, y), inner)


#: Above this x, tanh(softplus(x)) rounds to 1 (float32: x > 9.1, float64: x > 19.1) and
#: below it n = e*(e+2) cannot overflow (float32: x < 44, float64: x < 354).
MISH_LIMIT = {np.dtype(np.float32): 20.0, np.dtype(np.float64): 40.0}


@rule("tanh")
def tanh_of_softplus(i, b):
    """tanh(softplus(x)) -> select(x > T, 1, n / (n + 2)), n = e * (e + 2), e = exp(x)."""
    limit = MISH_LIMIT.get(i.dtype)
    x = None if limit is None else softplus_arg(i.operands[0])
    if x is None:
        return None
    e = b.op("exp", x)
    two = b.full(2, x)
    n = b.op("mul", e, b.op("add", e, two))
    q = b.op("div", n, b.op("add", n, two))
    return b.op("select", b.op("gt", x, b.full(limit, x)), b.full(1, x), q)


def softplus_arg(s):
    """x if ``s`` computes softplus(x) in one of the forms tjit/JAX write it, else None."""
    if s.opcode == "log1p" and s.operands[0].opcode == "exp":      # log1p(exp(x))
        return s.operands[0].operands[0]
    if s.opcode == "select":            # logaddexp's NaN guard: select(x != x, x + 0, sp)
        p, t, f = s.operands
        x = _logaddexp0_arg(f)
        if x is not None and p.opcode == "ne" and p.operands == (x, x) and (
                t is x or (t.opcode == "add" and x in t.operands and
                           any(is_zero(o) for o in t.operands))):
            return x
        return None
    return _logaddexp0_arg(s)


def _logaddexp0_arg(s):
    """x if ``s`` is max(x, 0) + log1p(exp(-|x|)) (either operand order), else None."""
    if s.opcode != "add":
        return None
    for m, l in (s.operands, s.operands[::-1]):
        if m.opcode != "max" or l.opcode != "log1p":
            continue
        a, c = m.operands
        x = a if is_zero(c) else (c if is_zero(a) else None)
        e = l.operands[0]
        if x is not None and e.opcode == "exp" and e.operands[0].opcode == "neg":
            ab = e.operands[0].operands[0]
            if ab.opcode == "abs" and ab.operands[0] is x:
                return x
    return None
