"""LLVM code generation for kernel IR (tjit/lower/llvm/codegen.py).

Every kernel is compiled, run through the ctypes ABI and compared with
``kernel_ir.evaluate`` using tjit's primitive reference implementations as the op
semantics: bit for bit (NaNs compare equal to NaNs) for everything except the
transcendentals, which must be within a few ulp. Kernels batch many stores so that
compile time (which dominates) stays small.
"""

import ctypes

import numpy as np
import pytest
import sympy

from tjit.lower.llvm import codegen, target
from tjit.lower.llvm.split import split_axis
from tjit.xla_like import kernel_ir as K
from tjit.xla_like import kernel_semantics

F32, F64, BOOL, I32, I64 = (np.dtype(d) for d in ("float32", "float64", "bool", "int32",
                                                   "int64"))
INTS = [np.dtype(d) for d in ("int8", "int16", "int32", "int64")]
UINTS = [np.dtype(d) for d in ("uint8", "uint16", "uint32", "uint64")]
FLOATS = [F32, F64]
ALL = FLOATS + INTS + UINTS + [BOOL]
MATH = sorted(codegen.ops.MATH_OPS)


# ----------------------------------------------------------------------------------------
# Reference semantics: tjit's primitive impls (xla_like/kernel_semantics.py).

OP_IMPLS = kernel_semantics.op_impls()


def test_op_impls_cover_vocabulary():
    assert set(OP_IMPLS) == set(K.UNARY_OPS) | set(K.BINARY_OPS) | set(K.OTHER_OPS)


# ----------------------------------------------------------------------------------------
# Compile and call through the ABI.

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)


def split_extent(k, sizes=None):
    """The extent of the axis the CPU splits ``k`` along (1 when it runs whole)."""
    ax = split_axis(k)
    if ax is None:
        return 1
    env = {sympy.Symbol(s, integer=True, positive=True): v for s, v in (sizes or {}).items()}
    return int(sympy.sympify(k.shape[ax]).subs(env))


def build(k):
    """Compile kernel ``k``; returns a callable ``f(buffers, sizes=None, start=0, end=None)``
    (``end`` None: the whole split axis)."""
    name = "test_" + K.kernel_hash(k)[:24]
    text = codegen.kernel_to_llvm_ir(k, name)
    fn = _FN(target.compile_ir(text, [name])[name])

    def call(buffers, sizes=None, start=0, end=None):
        end = split_extent(k, sizes) if end is None else end
        ptrs = (ctypes.c_void_p * len(buffers))(*[b.ctypes.data for b in buffers])
        szs = [sizes[s] for s in k.size_symbols]
        arr = (ctypes.c_int64 * max(1, len(szs)))(*szs)
        fn(ptrs, arr, start, end)

    call.text = text
    return call


def run_both(k, inputs, sizes=None, ranges=None):
    """Run ``k`` compiled and with ``kernel_ir.evaluate``; returns (got, want) outputs."""
    env = {sympy.Symbol(s, integer=True, positive=True): v for s, v in (sizes or {}).items()}
    lens = _out_lens(k, env)
    got = _buffers(k, inputs, lens, fill=True)
    want = _buffers(k, inputs, lens, fill=True)
    f = build(k)
    if split_axis(k) is None:
        f(got, sizes)
    else:
        for lo, hi in ranges or [(0, split_extent(k, sizes))]:
            f(got, sizes, lo, hi)
    with np.errstate(all="ignore"):  # inf - inf etc. in NumPy's reductions
        K.evaluate(k, want, sizes, OP_IMPLS)
    outs = [i for i, a in enumerate(k.args) if a.role == "out"]
    return [got[i] for i in outs], [want[i] for i in outs]


def _out_lens(k, env):
    lens = {}
    shape = [int(sympy.sympify(d).subs(env)) for d in k.shape]
    for st in k.stores:
        hi = int(sympy.sympify(st.index.offset).subs(env))
        for c, n in zip(st.index.coefs, shape):
            hi += max(0, int(sympy.sympify(c).subs(env)) * (n - 1))
        lens[st.arg] = max(lens.get(st.arg, 0), hi + 1)
    return lens


def _buffers(k, inputs, lens, fill):
    bufs = []
    it = iter(inputs)
    for i, a in enumerate(k.args):
        if a.role == "in":
            bufs.append(np.ascontiguousarray(next(it)))
        else:  # a sentinel fill shows elements that should not have been written
            bufs.append(np.full(lens[i], 77, a.dtype))
    return bufs


def assert_bits_equal(got, want, what=""):
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        bits = f"u{got.dtype.itemsize}"
        bad = (got.view(bits) != want.view(bits)) & ~both_nan
    else:
        bad = got != want
    if bad.any():
        i = np.flatnonzero(bad)[:5]
        raise AssertionError(f"{what}: {bad.sum()} mismatches, e.g. at {i}: got {got[i]}, "
                             f"want {want[i]}")


def ulp_diff(got, want):
    """Distance in units in the last place (NaN==NaN and inf==inf count as 0; opposite
    signs count as infinitely far)."""
    nbits = 8 * got.dtype.itemsize
    bits = np.dtype(f"i{got.dtype.itemsize}")
    mask = np.int64((1 << (nbits - 1)) - 1)
    g, w = (a.view(bits).astype(np.int64) for a in (got, want))
    g, w = (np.where(a < 0, -(a & mask), a) for a in (g, w))
    d = np.where((g < 0) != (w < 0), np.inf, np.abs(g - w).astype(np.float64))
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    return np.where(same, 0.0, d)


# ----------------------------------------------------------------------------------------
# Edge values.

def edge_values(dt):
    dt = np.dtype(dt)
    rng = np.random.default_rng(dt.itemsize * 7 + ord(dt.kind))
    if dt.kind == "f":
        fi = np.finfo(dt)
        half_below = np.nextafter(dt.type(0.5), dt.type(0))
        v = [0.0, -0.0, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, half_below, np.inf, -np.inf,
             np.nan, fi.smallest_subnormal, -fi.smallest_normal, fi.max, -fi.max, 3.7, -3.7,
             1e10, -1e10, 2.0**24 + 2, 127.5, 255.9, -129.4, 2.0**31, -2.0**31 - 1024,
             3e9, 2.0**63, 1e20, -1e20, 2.0**64, 65536.7]
        v += list(rng.standard_normal(6) * 10)
        return np.array(v, dt)
    if dt.kind == "b":
        return np.array([False, True, True, False], dt)
    info = np.iinfo(dt)
    bits = 8 * dt.itemsize
    v = [0, 1, 2, 3, 7, bits - 1, bits, bits + 1, 100, info.max, info.max - 1, info.min]
    if dt.kind == "i":
        v += [-1, -2, -7, -100, info.min + 1, -bits]
    else:
        v += [info.max // 2 + 1]
    v += list(rng.integers(info.min, info.max, 6, dtype=dt, endpoint=True))
    return np.array(v, dt)


def ops_for(dt):
    """(unary, binary) ops of the vocabulary that apply to dtype ``dt`` (no math)."""
    kinds = {"f": ("float", "number", "any"), "i": ("number", "int", "intbool", "any"),
             "u": ("number", "int", "intbool", "any"), "b": ("intbool", "any")}[dt.kind]
    un = [o for o, kd in K.UNARY_OPS.items() if kd in kinds and o not in MATH]
    bi = [o for o, kd in K.BINARY_OPS.items() if kd in kinds and o not in MATH]
    return un, bi


def pairs_kernel(dt, unary, binary, extra=(), n=None):
    """A kernel over all pairs (x, y) of a vector of n values: one output per op."""
    n = len(edge_values(dt)) if n is None else n
    x = K.Load(0, K.Affine(0, (1, 0)), dt)
    y = K.Load(0, K.Affine(0, (0, 1)), dt)
    exprs = [K.Op(o, (x,), BOOL if o == "is_finite" else dt) for o in unary]
    exprs += [K.Op(o, (x, y), BOOL if o in K.COMPARE_OPS else dt) for o in binary]
    exprs += [e(x, y) for e in extra]
    out = K.Affine(0, (n, 1))
    args = (K.Arg(dt, "in"),) + tuple(K.Arg(np.dtype(e.dtype), "out") for e in exprs)
    stores = tuple(K.Store(i + 1, out, e) for i, e in enumerate(exprs))
    return K.Kernel(f"pairs_{dt.name}", (n, n), args, stores=stores), exprs


def _select(x, y):
    pred = x if x.dtype == BOOL else K.Op("lt", (x, y), BOOL)
    return K.Op("select", (pred, x, y), x.dtype)


def bitcast_targets(dt):
    """The dtypes ``dt`` bitcasts to in the kernel IR: the others of its width (not bool)."""
    if dt == BOOL:
        return []
    return [d for d in ALL if d != BOOL and d != dt and d.itemsize == dt.itemsize]


def bitcasts(dt):
    return [lambda x, y, d=d: K.Op("bitcast", (x,), d) for d in bitcast_targets(dt)]


def product_errors(dt):
    """On float dtypes, ``fma(x, y, -(x*y))``: the exact rounding error of ``x*y``, where
    ``x*y + c`` rounded twice gives 0 (and NaN/inf where the product overflows)."""
    if dt.kind != "f":
        return []
    return [lambda x, y: K.Op("fma", (x, y, K.Op("neg", (K.Op("mul", (x, y), dt),), dt)), dt)]


def fma_triples(dt, n=4096, seed=0):
    """(a, b, c) arrays of ``dt`` where ``a*b + c`` rounded once and rounded twice often
    differ: c cancels the product's leading bits to some depth, sits near half an ulp of
    it, or is unrelated; plus special values and a float32 double-rounding trap."""
    dt = np.dtype(dt)
    rng = np.random.default_rng(seed)
    nbits = np.finfo(dt).nmant + 1
    a = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))).astype(dt)
    b = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))).astype(dt)
    p = a.astype(np.float64) * b.astype(np.float64)
    depth = np.exp2(-rng.integers(0, nbits + 8, n).astype(np.float64))
    kind = rng.integers(0, 3, n)
    c = np.where(kind == 0, -p * (1 + rng.standard_normal(n) * depth),
                 np.where(kind == 1, p * depth * (0.5 + rng.random(n)),
                          rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))))
    special = np.array([
        [1 + 2.0**-18, 2.0**-24 * (1 - 2.0**-18), 1 + 2.0**-23],  # float32: two roundings
        [1 + 2.0**-27, 1 + 2.0**-27, -1.0], [3.0, 1 / 3, -1.0], [0.0, -1.0, -0.0],
        [-0.0, 1.0, -0.0], [np.inf, 0.0, 1.0], [np.inf, 1.0, -np.inf], [np.nan, 1.0, 0.0],
        [np.finfo(dt).max, 2.0, -np.inf], [np.finfo(dt).max, 2.0, -np.finfo(dt).max],
        [np.finfo(dt).smallest_subnormal, 0.5, 0.0],
        [np.finfo(dt).smallest_normal, 2.0**-3, -np.finfo(dt).smallest_subnormal]], dt)
    with np.errstate(all="ignore"):
        cols = [np.concatenate([v.astype(dt), special[:, i]]) for i, v in enumerate((a, b, c))]
    return tuple(cols)


def fma_kernel(dt, n):
    """Over ``n`` points of three ``dt`` inputs, stores ``fma(a, b, c)`` and ``a*b + c``."""
    a, b, c = (K.Load(i, K.Affine(0, (1,)), dt) for i in range(3))
    fused = K.Op("fma", (a, b, c), dt)
    twice = K.Op("add", (K.Op("mul", (a, b), dt), c), dt)
    at = K.Affine(0, (1,))
    args = (K.Arg(dt, "in"),) * 3 + (K.Arg(dt, "out"),) * 2
    return K.Kernel(f"fma_{dt.name}", (n,), args,
                    stores=(K.Store(3, at, fused), K.Store(4, at, twice)))


@pytest.mark.parametrize("dt", ALL, ids=lambda d: d.name)
def test_elementwise_ops_bit_exact(dt):
    unary, binary = ops_for(dt)
    extra = [_select] + [lambda x, y, d=d: K.Op("convert", (x,), d) for d in ALL] + \
        bitcasts(dt) + product_errors(dt)
    k, _ = pairs_kernel(dt, unary, binary, extra)
    got, want = run_both(k, [edge_values(dt)])
    names = unary + binary + ["select"] + [f"convert->{d.name}" for d in ALL] + \
        [f"bitcast->{d.name}" for d in bitcast_targets(dt)] + \
        ["fma(x, y, -x*y)"] * len(product_errors(dt))
    for g, w, nm in zip(got, want, names):
        assert_bits_equal(g, w, f"{nm} on {dt.name}")


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_fma_rounds_once_and_nothing_else_contracts(dt):
    """fma is one rounding (against the evaluator, which the primitive tests hold to
    exact rationals), and a mul feeding an add stays two roundings on a target with
    FMA instructions; where the host has them, llvm.fma is one."""
    n = 600
    a, b, c = fma_triples(dt, n - 12)
    k = fma_kernel(dt, n)
    (g_fused, g_twice), (w_fused, w_twice) = run_both(k, [a, b, c])
    assert_bits_equal(g_fused, w_fused, f"fma on {dt.name}")
    assert_bits_equal(g_twice, w_twice, f"a*b + c on {dt.name}")
    assert (w_fused != w_twice).sum() > n // 4     # (the cases do tell them apart)
    if "+fma" in target._host().features:
        asm = target.assembly(codegen.kernel_to_llvm_ir(k, "fma_asm"))
        assert "vfmadd" in asm and "call" not in asm.split("fma_asm:")[1].split("ret")[0]


def test_bad_ops_raise():
    x = K.Load(0, K.Affine(0, (1,)), I32)
    for op, dt, exc, match in [("exp", I32, TypeError, "exp.*int32"),
                               ("neg", BOOL, TypeError, "neg.*bool"),
                               ("add", np.dtype("float16"), NotImplementedError, "float16"),
                               ("fma", I32, TypeError, "fma.*int32"),
                               ("mul", np.dtype("complex64"), NotImplementedError,
                                "complex64")]:
        xv = K.Load(0, K.Affine(0, (1,)), dt)
        k = K.Kernel("bad", (4,), (K.Arg(dt, "in"), K.Arg(dt, "out")),
                     stores=(K.Store(1, K.Affine(0, (1,)), K.Op(op, (xv,) * K.op_arity(op),
                                                               dt)),))
        with pytest.raises(exc, match=match):
            codegen.kernel_to_llvm_ir(k, "bad")
    k = K.Kernel("mixed", (4,), (K.Arg(I32, "in"), K.Arg(I32, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), K.Op("add", (x, K.Const(1, I64)),
                                                            I32)),))
    with pytest.raises(TypeError, match="one dtype"):
        codegen.kernel_to_llvm_ir(k, "mixed")


# ----------------------------------------------------------------------------------------
# Index maps, iota, several outputs.

def test_broadcast_transpose_slice_iota_multi_output():
    rng = np.random.default_rng(0)
    A, B = 7, 5
    x = rng.standard_normal(B * A).astype(F32)           # x: (B, A), read transposed
    z = rng.standard_normal((2 * A + 1) * 3 * B).astype(F32)  # z: (2A+1, 3B), sliced
    row = rng.standard_normal(B).astype(F32)             # broadcast along axis 0
    xt = K.Load(0, K.Affine(0, (1, A)), F32)             # x.T[i, j] = x[j, i]
    zs = K.Load(1, K.Affine(3 * B + 2, (2 * 3 * B, 3)), F32)  # z[1::2, 2::3]
    rb = K.Load(2, K.Affine(0, (0, 1)), F32)
    s = K.Load(3, K.Affine(0, (0, 0)), F32)              # a scalar
    iota_f = K.IndexValue(K.Affine(5, (B, 1)), F32)
    iota_i8 = K.IndexValue(K.Affine(100, (B * 9, 7)), np.dtype("int8"))  # wraps past 127
    e1 = K.Op("add", (K.Op("mul", (xt, rb), F32), zs), F32)
    e2 = K.Op("sub", (iota_f, s), F32)
    flat = K.Affine(0, (B, 1))
    args = tuple(K.Arg(F32, "in") for _ in range(4)) + (
        K.Arg(F32, "out"), K.Arg(F32, "out"), K.Arg(np.dtype("int8"), "out"))
    stores = (K.Store(4, flat, e1), K.Store(4, K.Affine(A * B, (1, A)), e2),  # 2 regions
              K.Store(5, K.Affine(0, (1, A)), e1),                           # transposed
              K.Store(6, flat, iota_i8))
    k = K.Kernel("maps", (A, B), args, stores=stores)
    got, want = run_both(k, [x, z, row, np.array([0.25], F32)])
    for g, w in zip(got, want):
        assert_bits_equal(g, w, "maps")
    np.testing.assert_array_equal(want[0][:A * B].reshape(A, B),
                                  x.reshape(B, A).T * row + z.reshape(2 * A + 1, 3 * B)
                                  [1::2, 2::3])
    assert want[2].min() < 0  # the int8 iota wrapped


def test_plan_collapses_linear_axes_only():
    flat = K.Load(0, K.Affine(0, (12, 3, 1)), F32)
    k = K.Kernel("c", (10, 4, 3), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stores=(K.Store(1, K.Affine(0, (12, 3, 1)), flat),))
    assert codegen.plan_axes(k).groups == ((0, 1, 2),)
    # a row vector broadcast (coefs (0, 0, 1)) keeps the last axis separate
    row = K.Load(2, K.Affine(0, (0, 0, 1)), F32)
    k2 = K.Kernel("c", (10, 4, 3), (K.Arg(F32, "in"), K.Arg(F32, "out"), K.Arg(F32, "in")),
                  stores=(K.Store(1, K.Affine(0, (12, 3, 1)), K.Op("add", (flat, row), F32)),))
    assert codegen.plan_axes(k2).groups == ((0, 1), (2,))
    # never across the reduce boundary; extent-1 axes are dropped
    k3 = K.Kernel("c", (10, 1, 4, 3), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                  stages=(K.Reduction(K.Load(0, K.Affine(0, (12, 0, 3, 1)), F32), "sum", F32),),
                  stores=(K.Store(1, K.Affine(0, (1, 0, 0, 0)), K.Stage(0, F32), "outer"),),
                  reduce_axes=(2, 3))
    p = codegen.plan_axes(k3)
    assert p.groups == ((0,), (2, 3)) and p.reduce == (False, True) and p.parallel == 0
    # symbolic strides are compared with sympy
    n, m = sympy.symbols("n m", integer=True, positive=True)
    k4 = K.Kernel("c", (n, m), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                  stores=(K.Store(1, K.Affine(0, (m, 1)), K.Load(0, K.Affine(1, (m, 1)), F32)),),
                  size_symbols=("n", "m"))
    assert codegen.plan_axes(k4).groups == ((0, 1),)


def test_flat_elementwise_vectorizes():
    """(N, 3) collapses to one loop; the float32 body uses vector registers."""
    x = K.Load(0, K.Affine(0, (3, 1)), F32)
    e = K.Op("max", (K.Op("mul", (x, x), F32), K.Const(0.5, F32)), F32)
    k = K.Kernel("vec", (1000, 3), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stores=(K.Store(1, K.Affine(0, (3, 1)), e),))
    text = codegen.kernel_to_llvm_ir(k, "vec_check")
    asm = target.assembly(text)
    assert ("zmm" if target.prefers_512() else "ymm") in asm
    assert ('"prefer-vector-width"="512"' in text) == target.prefers_512()
    assert "nounwind" in text
    assert "noalias" in text and "inbounds" in text and "nuw nsw" in text
    assert "reassoc" not in text and "fast" not in text  # no fast-math on elementwise code


# ----------------------------------------------------------------------------------------
# Reductions: every monoid x dtype, both loop styles.

def _monoids(dt):
    if dt.kind in "biu":    # and/or: logical on bool, bitwise on integers
        return ["sum", "prod", "max", "min", "and", "or"]
    return ["sum", "prod", "max", "min"]


def reduction_data(dt, R, C):
    rng = np.random.default_rng(3)
    if dt.kind == "f":
        x = rng.uniform(0.5, 1.5, (R, C)) * rng.choice([-1, 1], (R, C))
        x[1, 1], x[3, 3], x[4, 4], x[4, 5] = np.nan, np.inf, np.inf, -np.inf
        x[6, :] = -np.inf  # max of an all -inf row/col
        x[:, 6] = np.inf
        return x.astype(dt)
    if dt.kind == "b":
        x = rng.random((R, C)) < 0.5
        x[2, :], x[:, 3] = True, False
        return x
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, (R, C), dtype=dt, endpoint=True)


def reduction_kernel(dt, R, C, style):
    """All monoids of ``dt`` over rows (row style) or columns (accumulate style)."""
    x = K.Load(0, K.Affine(0, (C, 1)), dt)
    ms = _monoids(dt)
    stages = tuple(K.Reduction(x, m, dt) for m in ms)
    if style == "row":
        out = K.Affine(0, (1, 0))
        stores = tuple(K.Store(j + 1, out, K.Stage(j, dt), "outer") for j in range(len(ms)))
        red = (1,)
    else:
        out = K.Affine(0, (0, 1))
        stores = tuple(K.Store(j + 1, out, K.Stage(j, dt)) for j in range(len(ms)))
        red = (0,)
    args = (K.Arg(dt, "in"),) + tuple(K.Arg(dt, "out") for _ in ms)
    return K.Kernel(f"red_{style}", (R, C), args, stages, stores, red), ms


@pytest.mark.parametrize("style", ["row", "acc"])
@pytest.mark.parametrize("dt", ALL, ids=lambda d: d.name)
def test_reductions(dt, style):
    R, C = 9, 37
    k, ms = reduction_kernel(dt, R, C, style)
    got, want = run_both(k, [reduction_data(dt, R, C).ravel()],
                         ranges=[(0, 2), (2, 3), (3, R if style == "row" else C)])
    for g, w, m in zip(got, want, ms):
        if dt.kind == "f" and m in ("sum", "prod") and style == "row":
            # reassociated within the row (vector partial sums): not bit-exact
            np.testing.assert_allclose(g, w, rtol=1e-5 if dt == F32 else 1e-13,
                                       err_msg=f"{m} on {dt.name}")
        elif dt.kind == "f":  # in-order updates / max / min: exact, NaN propagates
            assert_bits_equal(g, w, f"{style} {m} on {dt.name}")
        else:
            assert_bits_equal(g, w, f"{style} {m} on {dt.name}")
    if dt.kind == "f":
        assert np.isnan(got[ms.index("max")][1]) and np.isnan(got[ms.index("min")][1])


@pytest.mark.parametrize("style", ["row", "acc"])
@pytest.mark.parametrize("dt", [F32, F64, BOOL, np.dtype(np.int8), np.dtype(np.uint64)],
                         ids=lambda d: d.name)
def test_reduction_over_empty_axis_writes_identity(dt, style):
    """A reduced axis of extent 0: every kept point gets the monoid's identity, compiled
    and in ``evaluate`` (which once wrote nothing for sum/prod and raised for max/min)."""
    R, C = (5, 0) if style == "row" else (0, 5)
    k, ms = reduction_kernel(dt, R, C, style)
    got, want = run_both(k, [np.zeros(0, dt)], ranges=[(0, 2), (2, 5)])
    for g, w, m in zip(got, want, ms):
        assert_bits_equal(g, w, f"{style} {m} on {dt.name}")
        assert_bits_equal(w, np.full(5, K.identity(m, dt)), f"{m} identity")


@pytest.mark.parametrize("dt", INTS + UINTS, ids=lambda d: d.name)
def test_integer_and_or_reductions_are_bitwise(dt):
    """reduce_and/reduce_or on integers are bitwise (lax, as XLA), not logical."""
    x = np.array([[0b1101, 0b0111, 0b0101], [6, 3, 0]]).astype(dt)
    k, ms = reduction_kernel(dt, 2, 3, "row")
    got, want = run_both(k, [x.ravel()])
    for m, want_row in (("and", [0b0101, 0]), ("or", [0b1111, 7])):
        assert_bits_equal(got[ms.index(m)], np.array(want_row, dt), m)
        assert_bits_equal(want[ms.index(m)], np.array(want_row, dt), m)
    assert K.identity("and", dt) == np.array(-1).astype(dt)


def test_float32_sum_accumulation_accuracy():
    """float32 sums accumulate in float32 with reassociation: vector partial sums keep the
    error of 2**20 terms far below a sequential float32 loop's."""
    n = 1 << 20
    x = np.random.default_rng(5).random(n).astype(F32)
    k = K.Kernel("big_sum", (1, n), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stages=(K.Reduction(K.Load(0, K.Affine(0, (n, 1)), F32), "sum", F32),),
                 stores=(K.Store(1, K.Affine(0, (1, 0)), K.Stage(0, F32), "outer"),),
                 reduce_axes=(1,))
    out = np.zeros(1, F32)
    f = build(k)
    assert "fadd reassoc contract float" in f.text
    f([x, out])
    exact = x.astype(np.float64).sum()
    seq = np.cumsum(x, dtype=F32)[-1]  # what a strict in-order float32 loop gives
    err = abs(float(out[0]) - exact) / exact
    assert err < 1e-5 and err < abs(float(seq) - exact) / exact / 4


def test_accumulate_style_three_axes():
    """Reduced axes 0 and 2 around a kept axis 1, parallel over it."""
    A, B, C = 4, 6, 5
    x = np.random.default_rng(1).standard_normal((A, B, C)).astype(F64)
    ld = K.Load(0, K.Affine(0, (B * C, C, 1)), F64)
    sq = K.Op("mul", (ld, ld), F64)
    k = K.Kernel("acc3", (A, B, C), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(F64, "out")),
                 stages=(K.Reduction(sq, "sum", F64), K.Reduction(ld, "max", F64)),
                 stores=(K.Store(1, K.Affine(0, (0, 1, 0)), K.Stage(0, F64)),
                         K.Store(2, K.Affine(0, (0, 1, 0)), K.Stage(1, F64))),
                 reduce_axes=(0, 2))
    got, want = run_both(k, [x.ravel()], ranges=[(0, 1), (1, 4), (4, 6)])
    np.testing.assert_allclose(got[0], (x * x).sum(axis=(0, 2)), rtol=1e-13)
    assert_bits_equal(got[1], want[1])


def test_parallel_range_writes_only_its_part():
    R, C = 8, 16
    k, ms = reduction_kernel(I32, R, C, "acc")
    data = reduction_data(I32, R, C)
    f = build(k)
    outs = [np.full(C, 77, I32) for _ in ms]
    f([data.ravel()] + outs, None, 3, 9)
    for o, m in zip(outs, ms):
        assert (o[:3] == 77).all() and (o[9:] == 77).all()
        want = {"sum": data.sum(0, dtype=I32), "prod": data.prod(0, dtype=I32),
                "max": data.max(0), "min": data.min(0),
                "and": np.bitwise_and.reduce(data, 0), "or": np.bitwise_or.reduce(data, 0)}[m]
        np.testing.assert_array_equal(o[3:9], want[3:9])


# ----------------------------------------------------------------------------------------
# Row-style kernels with several stages.

def layernorm_kernel(R, C, eps=1e-5, dt=F32):
    x = K.Load(0, K.Affine(0, (C, 1)), dt)
    g = K.Load(1, K.Affine(0, (0, 1)), dt)
    bta = K.Load(2, K.Affine(0, (0, 1)), dt)
    s0, s1 = K.Stage(0, dt), K.Stage(1, dt)
    inv_c = K.Const(1.0 / C, dt)
    mean = K.Op("mul", (s0, inv_c), dt)
    var = K.Op("sub", (K.Op("mul", (s1, inv_c), dt), K.Op("mul", (mean, mean), dt)), dt)
    rstd = K.Op("rsqrt", (K.Op("add", (var, K.Const(eps, dt)), dt),), dt)
    y = K.Op("add", (K.Op("mul", (K.Op("mul", (K.Op("sub", (x, mean), dt), rstd), dt), g),
                          dt), bta), dt)
    args = (K.Arg(dt, "in"),) * 3 + (K.Arg(dt, "out"), K.Arg(dt, "out"))
    return K.Kernel("layernorm", (R, C), args,
                    stages=(K.Reduction(x, "sum", dt),
                            K.Reduction(K.Op("mul", (x, x), dt), "sum", dt)),
                    stores=(K.Store(3, K.Affine(0, (C, 1)), y),
                            K.Store(4, K.Affine(0, (1, 0)), mean, "outer")),
                    reduce_axes=(1,))


def test_layernorm_row_style():
    R, C = 13, 300
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((R, C)) * 2 + 1).astype(F32)
    g, b = rng.standard_normal(C).astype(F32), rng.standard_normal(C).astype(F32)
    k = layernorm_kernel(R, C)
    got, want = run_both(k, [x.ravel(), g, b], ranges=[(0, 5), (5, 6), (6, R)])
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(got[0].reshape(R, C), ref, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(got[1], x64.mean(1), rtol=1e-5)


def test_symbolic_sizes_one_function():
    """One compiled kernel serves (n, m) = three sizes: transpose + row sums."""
    n, m = sympy.symbols("n m", integer=True, positive=True)
    x = K.Load(0, K.Affine(2, (1, n + 2)), F64)   # x: (m, n + 2), read x[j, i + 2]
    e = K.Op("mul", (x, K.IndexValue(K.Affine(0, (m, 1)), F64)), F64)
    k = K.Kernel("sym", (n, m), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(F64, "out")),
                 stages=(K.Reduction(e, "sum", F64),),
                 stores=(K.Store(1, K.Affine(0, (m, 1)), e),
                         K.Store(2, K.Affine(0, (1, 0)), K.Stage(0, F64), "outer")),
                 reduce_axes=(1,), size_symbols=("n", "m"))
    f = build(k)
    for nv, mv in [(3, 5), (17, 2), (40, 33)]:
        xv = np.random.default_rng(nv).standard_normal((mv, nv + 2))
        o1, o2 = np.zeros(nv * mv), np.zeros(nv)
        f([xv.ravel(), o1, o2], {"n": nv, "m": mv}, 0, nv)
        ref = xv[:, 2:].T * np.arange(nv * mv).reshape(nv, mv)
        np.testing.assert_array_equal(o1, ref.ravel())
        np.testing.assert_allclose(o2, ref.sum(1), rtol=1e-13)


def test_symbolic_floor_and_slices():
    """Size expressions with floor division and powers in strides and extents."""
    n = sympy.Symbol("n", integer=True, positive=True)
    half = sympy.floor(n / 2)
    x = K.Load(0, K.Affine(n ** 2 - 1, (-2,)), I64)   # x[n*n - 1 - 2*i]: reversed stride 2
    k = K.Kernel("fl", (half,), (K.Arg(I64, "in"), K.Arg(I64, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), x),), size_symbols=("n",))
    f = build(k)
    for nv in (3, 4, 9):
        xv = np.arange(nv * nv, dtype=I64)
        out = np.full(nv // 2 + 1, -5, I64)
        f([xv, out], {"n": nv})
        np.testing.assert_array_equal(out[:nv // 2], xv[::-1][::2][:nv // 2])
        assert out[nv // 2] == -5


# ----------------------------------------------------------------------------------------
# Transcendentals (mathlib) inside kernels.

def _math_inputs(dt):
    rng = np.random.default_rng(11)
    mag = np.logspace(-30, 30, 300)
    v = np.concatenate([edge_values(dt).astype(np.float64), np.linspace(-20, 20, 801),
                        mag, -mag, rng.standard_normal(200) * 100, [88.5, 89.0, -87.0,
                        -104.0, 709.0, -745.0, 1e-8, -1e-8, 0.3, -0.3, 1e4, -1e4]])
    return v.astype(dt)


# max ulp error allowed per op: mathlib's documented bounds plus 1 (the float32
# reference is the float64 result rounded, itself up to 1/2 ulp off)
ULP = {"exp": 2, "exp2": 2, "expm1": 2, "log": 2, "log1p": 3, "tanh": 3, "logistic": 2,
       "sin": 2, "cos": 2, "tan": 3, "erf": 3, "pow": 3, "atan2": 3, "cbrt": 2,
       **dict.fromkeys(["atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh"],
                       4)}


SPECIAL = ("erfc", "lgamma", "digamma")


def _reference(op, args, dt):
    """Float64 evaluation of the reference impl, rounded to ``dt`` (float32) or the
    reference impl itself (float64)."""
    with np.errstate(all="ignore"):
        if dt == F64:
            return np.asarray(OP_IMPLS[op](*args, dtype=dt))
        wide = [a.astype(np.float64) for a in args]
        return np.asarray(OP_IMPLS[op](*wide, dtype=F64)).astype(dt)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_transcendentals(dt):
    # (erfc, lgamma, digamma: tests/lower/test_kernel_special_ops.py, against mpmath: the
    # float64 reference here, SciPy, is itself 500 ulp off in erfc's tail, and lgamma and
    # digamma have zeros on the negative axis that an ulp bound cannot cover)
    unary = [o for o in MATH if K.op_arity(o) == 1 and o not in SPECIAL]
    xs = _math_inputs(dt)
    n = len(xs)
    x = K.Load(0, K.Affine(0, (1,)), dt)
    k = K.Kernel("math1", (n,), (K.Arg(dt, "in"),) + (K.Arg(dt, "out"),) * len(unary),
                 stores=tuple(K.Store(i + 1, K.Affine(0, (1,)), K.Op(o, (x,), dt))
                              for i, o in enumerate(unary)))
    f = build(k)
    assert "llvm.loop.interleave.count" in f.text and "distinct" in f.text
    outs = [np.zeros(n, dt) for _ in unary]
    f([xs] + outs)
    for o, got in zip(unary, outs):
        want = _reference(o, [xs], dt)
        err = ulp_diff(got, want)
        assert err.max() <= ULP[o], (o, dt.name, xs[err.argmax()], got[err.argmax()],
                                     want[err.argmax()], err.max())
    # binary ones over all pairs of edge values plus a grid
    vals = np.concatenate([edge_values(dt), np.linspace(-6, 6, 25).astype(dt)])
    k2, _ = pairs_kernel(dt, [], ["pow", "atan2"], n=len(vals))
    got, _ = run_both(k2, [vals])
    xx, yy = np.meshgrid(vals, vals, indexing="ij")
    for o, g in zip(["pow", "atan2"], got):
        want = _reference(o, [xx.ravel(), yy.ravel()], dt)
        err = ulp_diff(g, want)
        assert err.max() <= ULP[o], (o, dt.name, xx.ravel()[err.argmax()],
                                     yy.ravel()[err.argmax()], g[err.argmax()],
                                     want[err.argmax()])


def softmax_kernel(B, H, C, dt=F32):
    """3 stages: s0 = max(x); s1 = sum(exp(x - s0)); out = exp(x - s0) / s1."""
    x = K.Load(0, K.Affine(0, (H * C, C, 1)), dt)
    e = K.Op("exp", (K.Op("sub", (x, K.Stage(0, dt)), dt),), dt)
    return K.Kernel("softmax", (B, H, C), (K.Arg(dt, "in"), K.Arg(dt, "out")),
                    stages=(K.Reduction(x, "max", dt), K.Reduction(e, "sum", dt)),
                    stores=(K.Store(1, K.Affine(0, (H * C, C, 1)),
                                    K.Op("div", (e, K.Stage(1, dt)), dt)),),
                    reduce_axes=(2,))


def test_softmax_row_style():
    B, H, C = 3, 4, 257
    x = (np.random.default_rng(4).standard_normal((B, H, C)) * 5).astype(F32)
    x[1, 2, 7] = np.nan  # that row is NaN (max propagates NaN)
    x[2, 0, :] = -np.inf
    x[2, 0, 3] = 1.0    # one finite value among -inf: exactly one 1.0
    k = softmax_kernel(B, H, C)
    # deterministic text: the compile caches key on it
    assert codegen.kernel_to_llvm_ir(k, "a") == codegen.kernel_to_llvm_ir(k, "a")
    assert codegen.plan_axes(k).groups == ((0, 1), (2,))  # B and H merged, parallel kept
    # exp(x - max) is computed once: the sum loop leaves it in the output, where the
    # store loop loads it (so only the sum loop calls exp and gets interleave 4)
    text = codegen.kernel_to_llvm_ir(k, "sm")
    assert text.count("0x3ff7154760000000") == 1      # log2(e): one inlined exp
    assert text.count("!llvm.loop") == 1
    got, want = run_both(k, [x.ravel()], ranges=[(0, 1), (1, 3)])
    out = got[0].reshape(B, H, C)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        ref = np.exp(x64 - x64.max(-1, keepdims=True))
        ref /= ref.sum(-1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)
    assert np.isnan(out[1, 2]).all() and not np.isnan(out[1, 1]).any()
    assert out[2, 0, 3] == 1.0 and (out[2, 0, :3] == 0).all()
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-7)


def test_cached_value_skips_outputs_it_cannot_hold():
    """No caching when the output is written at several inner points with one index
    (a broadcast store) or holds another dtype: exp is then computed in both loops."""
    B, C = 2, 33
    x = K.Load(0, K.Affine(0, (C, 1)), F32)
    e = K.Op("exp", (K.Op("sub", (x, K.Stage(0, F32)), F32),), F32)
    for store in (K.Store(1, K.Affine(0, (1, 0)), K.Op("div", (e, K.Stage(1, F32)), F32)),
                  K.Store(1, K.Affine(0, (C, 1)),
                          K.Op("convert", (K.Op("div", (e, K.Stage(1, F32)), F32),), F64))):
        dt = F32 if store.expr.dtype == F32 else F64
        k = K.Kernel("nocache", (B, C), (K.Arg(F32, "in"), K.Arg(dt, "out")),
                     stages=(K.Reduction(x, "max", F32), K.Reduction(e, "sum", F32)),
                     stores=(store,), reduce_axes=(1,))
        assert codegen.kernel_to_llvm_ir(k, "nc").count("0x3ff7154760000000") == 2
        xs = np.random.default_rng(1).standard_normal(B * C).astype(F32)
        got, want = run_both(k, [xs])
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


def test_scalar_and_full_reductions():
    x = np.random.default_rng(8).standard_normal((6, 7))
    ld = K.Load(0, K.Affine(0, (7, 1)), F64)
    full = K.Kernel("full", (6, 7), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(I32, "out")),
                    stages=(K.Reduction(ld, "max", F64),
                            K.Reduction(K.Op("gt", (ld, K.Const(0.0, F64)), BOOL), "sum", I32)),
                    stores=(K.Store(1, K.Affine(0, (0, 0)), K.Stage(0, F64), "outer"),
                            K.Store(2, K.Affine(0, (0, 0)), K.Stage(1, I32), "outer")),
                    reduce_axes=(0, 1))
    assert codegen.plan_axes(full).groups == ((0, 1),)
    got, _ = run_both(full, [x.ravel()])
    assert got[0][0] == x.max() and got[1][0] == (x > 0).sum()
    scalar = K.Kernel("scalar", (), (K.Arg(F64, "in"), K.Arg(F64, "out")),
                      stores=(K.Store(1, K.Affine(1, ()),
                                      K.Op("neg", (K.Load(0, K.Affine(2, ()), F64),), F64)),))
    got, want = run_both(scalar, [x.ravel()])
    assert got[0][1] == -x.ravel()[2] and got[0][0] == 77
    assert_bits_equal(got[0], want[0])


def test_accumulate_store_must_follow_the_split_axis():
    ld = K.Load(0, K.Affine(0, (4, 1)), F32)
    k = K.Kernel("bad_par", (3, 4), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stages=(K.Reduction(ld, "sum", F32),),
                 stores=(K.Store(1, K.Affine(0, (0, 0)), K.Stage(0, F32)),),
                 reduce_axes=(0,))
    with pytest.raises(ValueError, match="does not depend on kept axis 1"):
        codegen.kernel_to_llvm_ir(k, "bad_par")


def test_split_axis_is_the_first_kept_axis():
    x = K.Load(0, K.Affine(0, (12, 4, 1)), F32)
    args = (K.Arg(F32, "in"), K.Arg(F32, "out"))
    ew = K.Kernel("ew", (2, 3, 4), args, stores=(K.Store(1, K.Affine(0, (12, 4, 1)), x),))
    col = K.Kernel("col", (2, 3, 4), args, stages=(K.Reduction(x, "sum", F32),),
                   stores=(K.Store(1, K.Affine(0, (0, 1, 0)), K.Stage(0, F32)),),
                   reduce_axes=(0, 2))
    full = K.Kernel("full", (2, 3, 4), args, stages=(K.Reduction(x, "sum", F32),),
                    stores=(K.Store(1, K.Affine(0, (0, 0, 0)), K.Stage(0, F32), "outer"),),
                    reduce_axes=(0, 1, 2))
    assert [split_axis(k) for k in (ew, col, full)] == [0, 1, None]
    assert "parallel" not in K.kernel_text(ew)


@pytest.mark.parametrize("idt", [np.int8, np.uint32, np.int64])
@pytest.mark.parametrize("fill", [None, -7.5])
def test_indexed_load_clamps_or_fills(idt, fill):
    """out[b, j] = x[clamp(idx[b]), j] over a symbolic row count: the compiled gather
    against the kernel IR evaluator, with indices below, inside and beyond the rows."""
    n = sympy.Symbol("n", integer=True, positive=True)
    rows, cols, batch = 9, 5, 13
    idt = np.dtype(idt)
    idx = K.Load(0, K.Affine(0, (1, 0)), idt)
    g = K.IndexedLoad(1, K.Affine(0, (0, 1)), idx, cols, n, fill, F32)
    k = K.Kernel("take", (batch, cols), (K.Arg(idt, "in"), K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stores=(K.Store(2, K.Affine(0, (cols, 1)), K.Op("mul", (g, K.Const(2.0, F32)),
                                                                 F32)),), size_symbols=("n",))
    raw = [-3, -1, 0, 1, 4, 8, 9, 10, 127, 2, 5, 7, 3]
    ids = np.array(raw, np.int64).astype(idt)  # uint32 wraps negatives: far out of range
    x = np.arange(rows * cols, dtype=F32) + 0.5
    got, want = run_both(k, [ids, x], sizes={"n": rows}, ranges=[(0, 6), (6, batch)])
    assert_bits_equal(got[0], want[0])
    out = got[0].reshape(batch, cols)
    for b, i in enumerate(ids.astype(np.int64)):
        row = x.reshape(rows, cols)[min(max(i, 0), rows - 1)]
        if fill is not None and not 0 <= i < rows:
            row = np.full(cols, fill, F32)
        np.testing.assert_array_equal(out[b], row * 2)


@pytest.mark.parametrize("fill", [None, -7.5])
def test_uint64_gather_index_beyond_int64(fill):
    """A uint64 index >= 2**63 is a huge index, not a negative one: clip mode takes the
    last row (as ``evaluate``; LLVM once wrapped it to int64 and took row 0), fill mode
    the fill value."""
    rows, cols = 4, 3
    u64 = np.dtype(np.uint64)
    idx = K.Load(0, K.Affine(0, (1, 0)), u64)
    g = K.IndexedLoad(1, K.Affine(0, (0, 1)), idx, cols, rows, fill, F32)
    k = K.Kernel("take_u64", (5, cols), (K.Arg(u64, "in"), K.Arg(F32, "in"),
                                         K.Arg(F32, "out")),
                 stores=(K.Store(2, K.Affine(0, (cols, 1)), g),))
    ids = np.array([1, 2**63, 2**64 - 1, 2**63 - 1, 3], u64)
    x = np.arange(rows * cols, dtype=F32)
    got, want = run_both(k, [ids, x])
    assert_bits_equal(got[0], want[0])
    out = got[0].reshape(5, cols)
    far = x[-cols:] if fill is None else np.full(cols, fill, F32)
    for b in (1, 2, 3):
        np.testing.assert_array_equal(out[b], far)
    np.testing.assert_array_equal(out[4], x[-cols:])


def test_outer_store_reading_a_reduced_axis_is_rejected():
    """An outer store runs once per outer point: its value may use stages but not read
    the reduced axis (which index would it be?)."""
    x = K.Load(0, K.Affine(0, (4, 1)), F32)
    k = K.Kernel("bad_outer", (3, 4), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stages=(K.Reduction(x, "sum", F32),),
                 stores=(K.Store(1, K.Affine(0, (1, 0)),
                                 K.Op("add", (K.Stage(0, F32), x), F32), "outer"),),
                 reduce_axes=(1,))
    with pytest.raises(ValueError, match="outer store's value reads a reduced axis"):
        K.check_kernel(k)


@pytest.mark.parametrize("plane", [-1, 0, 3, 6, 7, 100])
def test_hyperplane_kernel_visits_one_row(plane):
    """``Kernel.hyperplane``: an in-place kernel on the row ``i0 = idx[0]`` of a
    symbolic row count (iota along the plane axis included); a row out of range leaves
    everything as it was. Compiled against the kernel IR evaluator and NumPy."""
    n = sympy.Symbol("n", integer=True, positive=True)
    rows, cols = 7, 5
    i32, i64 = np.dtype(np.int32), np.dtype(np.int64)
    where = K.Load(0, K.Affine(0, (0, 0)), i32)
    old = K.Load(3, K.Affine(0, (cols, 1)), F32)            # the row, through the output
    bump = K.Load(1, K.Affine(0, (0, 1)), F32)
    row_no = K.Op("convert", (K.IndexValue(K.Affine(0, (1, 0)), i64),), F32)
    new = K.Op("mul", (K.Op("add", (old, bump), F32), row_no), F32)
    k = K.Kernel("plane", (1, cols), (K.Arg(i32, "in"), K.Arg(F32, "in"), K.Arg(F32, "in"),
                                      K.Arg(F32, "out")),
                 stores=(K.Store(3, K.Affine(0, (cols, 1)), new),), size_symbols=("n",),
                 inplace=((2, 3),), hyperplane=(0, where, n))
    K.check_kernel(k)
    x = np.arange(rows * cols, dtype=F32) * 0.25
    v = np.linspace(-1, 1, cols).astype(F32)
    idx = np.array([plane], i32)
    got = [idx, v, np.zeros(0, F32), x.copy()]
    build(k)(got, {"n": rows})
    want = [idx, v, np.zeros(0, F32), x.copy()]
    K.evaluate(k, want, {"n": rows}, OP_IMPLS)
    ref = x.reshape(rows, cols).copy()
    if 0 <= plane < rows:
        ref[plane] = (ref[plane] + v) * np.float32(plane)
    assert_bits_equal(got[3], want[3])
    np.testing.assert_array_equal(got[3].reshape(rows, cols), ref)


def test_and_or_monoids_need_integer_or_bool():
    x = K.Load(0, K.Affine(0, (1,)), F32)
    k = K.Kernel("float_and", (4,), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stages=(K.Reduction(x, "and", F32),),
                 stores=(K.Store(1, K.Affine(0, (0,)), K.Stage(0, F32), "outer"),),
                 reduce_axes=(0,))
    with pytest.raises(ValueError, match="monoid 'and' needs an integer or bool dtype"):
        K.check_kernel(k)


def test_as_text_source_shows_the_backend_kernel_source():
    """``as_text(source=True)`` adds each kernel's source (LLVM IR on the CPU);
    ``llvm=True`` is the same, by its old name."""
    import tjit
    c = tjit.jit(lambda x: x * 2.0 + 1.0).lower(np.ones(8, np.float32)).compile()
    text = c.as_text(source=True)
    assert "LLVM IR of" in text and "define" in text and "define" not in c.as_text()
    assert c.as_text(llvm=True) == text
