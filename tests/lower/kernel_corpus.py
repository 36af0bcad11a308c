"""The cross-backend conformance kernels: every backend's output against
``kernel_ir.evaluate`` (the IR's definition).

The kernels of ``tests/lower/test_codegen.py`` (its builders are imported, not copied:
every op x dtype on edge values, every monoid in both loop styles, symbolic sizes,
gathers, hyperplane updates, the transcendentals) plus the kernels of real jitted
programs (softmax, layernorm forward and backward, Mish grad, an MLP training step,
a batch-polymorphic program, a gather). ``case_names()`` is cheap (for test
parametrization); ``cases(name)`` builds that name's :class:`Case` list on first use.

``check(case, got, want)`` compares one case's outputs: ``"exact"`` bit for bit (NaN
equals NaN), ``"close"`` within rtol/atol (float sums reassociate, transcendentals
differ by ulps), ``"math"`` within test_codegen's ulp bounds of the float64 reference
(the backend's accurate math functions).
"""

import dataclasses
import functools

import numpy as np
import sympy

from tests.lower import test_codegen as T
from tjit.lower.c.columns import column_split
from tjit.lower.loops import prod
from tjit.xla_like import kernel_ir as K

F32, F64, I32, I64, BOOL = T.F32, T.F64, T.I32, T.I64, T.BOOL
#: float32 sums of a few hundred terms in another order, and ulps of exp/tanh/...
RTOL = {F32: 2e-5, F64: 1e-12, np.dtype("float16"): 4e-3}


@dataclasses.dataclass
class Case:
    """One kernel run: ``inputs`` one array per input argument, ``sizes`` the size
    symbols' values, ``init`` initial contents of output arguments (in-place updates;
    other outputs start as a sentinel), ``mode`` how outputs are compared."""
    name: str
    kernel: K.Kernel
    inputs: list
    sizes: dict = None
    init: dict = dataclasses.field(default_factory=dict)
    mode: str = "exact"             # "exact" | "close" | "math"
    reference: object = None        # "math": inputs -> expected outputs


def output_args(k):
    return [i for i, a in enumerate(k.args) if a.role == "out"]


def buffers(case):
    """Fresh flat buffers, one per kernel argument (outputs: init or sentinel 77)."""
    k = case.kernel
    env = {sympy.Symbol(s, integer=True, positive=True): v
           for s, v in (case.sizes or {}).items()}
    lens = T._out_lens(k, env)
    it = iter(case.inputs)
    out = []
    for i, a in enumerate(k.args):
        if a.role == "in":
            out.append(np.ascontiguousarray(next(it)).copy())
        elif i in case.init:
            out.append(np.array(case.init[i], a.dtype))
        else:
            out.append(np.full(lens[i], 77, a.dtype))
    return out


def expected(case):
    """``kernel_ir.evaluate``'s outputs for ``case`` (or the math reference)."""
    bufs = buffers(case)
    with np.errstate(all="ignore"):
        K.evaluate(case.kernel, bufs, case.sizes, T.OP_IMPLS)
    outs = [bufs[i] for i in output_args(case.kernel)]
    if case.reference is not None:
        outs = case.reference(case.inputs)
    return outs


def check(case, got, want):
    """Raise AssertionError where ``got`` breaks ``case.mode`` against ``want``."""
    for n, (g, w) in enumerate(zip(got, want)):
        what = f"{case.name} output {n}"
        if case.mode == "exact" or g.dtype.kind != "f":
            T.assert_bits_equal(g, w, what)
        elif case.mode == "math":
            err = T.ulp_diff(g, w)
            bound = case.reference.ulp[n]
            assert err.max() <= bound, f"{what}: {err.max()} ulp > {bound}"
        else:   # as precise as the narrowest float the kernel computes in
            tol = max(RTOL[g.dtype], max((RTOL[np.dtype(n.dtype)] for n in
                                          K.all_nodes(case.kernel)
                                          if np.dtype(n.dtype).kind == "f"), default=0))
            assert g.shape == w.shape, what
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=what)


def mode_for(k):
    """exact unless the kernel has transcendentals or reassociated float sums."""
    nodes = K.all_nodes(k)
    if any(isinstance(n, K.Op) and n.op in T.codegen.ops.MATH_OPS for n in nodes):
        return "close"
    # row-style float sums/products reassociate; accumulate-style ones over one axis
    # fold in iteration order on every target, as evaluate's NumPy reduction does,
    # unless threaded targets split the reduced points over thread slices
    red = [d for a, d in enumerate(k.shape) if a in k.reduce_axes]
    kept = [d for a, d in enumerate(k.shape) if a not in k.reduce_axes]
    in_order = not k.row_style and len(k.reduce_axes) == 1 and \
        column_split(prod(kept), prod(red), 64)[1] == 1
    if not in_order and any(s.monoid in ("sum", "prod") and np.dtype(s.dtype).kind == "f"
                            and k.reduce_axes for s in k.stages):
        return "close"
    return "exact"


# ----------------------------------------------------------------------------------------
# test_codegen's kernels.

def _pairs(dt):
    unary, binary = T.ops_for(dt)
    extra = [T._select] + [lambda x, y, d=d: K.Op("convert", (x,), d) for d in T.ALL] + \
        T.bitcasts(dt) + T.product_errors(dt)
    k, _ = T.pairs_kernel(dt, unary, binary, extra)
    return [Case(f"pairs_{dt.name}", k, [T.edge_values(dt)])]


def _fma(dt):
    """fma(a, b, c) and a*b + c on triples where one rounding and two differ: the fma
    rounds once, and the mul and add are not contracted into one."""
    inputs = list(T.fma_triples(dt, 500))
    return [Case(f"fma_{dt.name}", T.fma_kernel(dt, len(inputs[0])), inputs)]


def _reductions(dt, style):
    R, C = 9, 37
    k, _ = T.reduction_kernel(dt, R, C, style)
    return [Case(f"red_{style}_{dt.name}", k, [T.reduction_data(dt, R, C).ravel()],
                 mode=mode_for(k))]


def _maps():
    rng = np.random.default_rng(0)
    A, B = 7, 5
    i8 = np.dtype("int8")
    xt = K.Load(0, K.Affine(0, (1, A)), F32)
    zs = K.Load(1, K.Affine(3 * B + 2, (2 * 3 * B, 3)), F32)
    rb = K.Load(2, K.Affine(0, (0, 1)), F32)
    s = K.Load(3, K.Affine(0, (0, 0)), F32)
    e1 = K.Op("add", (K.Op("mul", (xt, rb), F32), zs), F32)
    e2 = K.Op("sub", (K.IndexValue(K.Affine(5, (B, 1)), F32), s), F32)
    flat = K.Affine(0, (B, 1))
    args = tuple(K.Arg(F32, "in") for _ in range(4)) + (
        K.Arg(F32, "out"), K.Arg(F32, "out"), K.Arg(i8, "out"))
    stores = (K.Store(4, flat, e1), K.Store(4, K.Affine(A * B, (1, A)), e2),
              K.Store(5, K.Affine(0, (1, A)), e1),
              K.Store(6, flat, K.IndexValue(K.Affine(100, (B * 9, 7)), i8)))
    k = K.Kernel("maps", (A, B), args, stores=stores)
    ins = [rng.standard_normal(n).astype(F32) for n in (B * A, (2 * A + 1) * 3 * B, B)]
    return [Case("maps", k, ins + [np.array([0.25], F32)])]


def _symbolic():
    n, m = sympy.symbols("n m", integer=True, positive=True)
    x = K.Load(0, K.Affine(2, (1, n + 2)), F64)
    e = K.Op("mul", (x, K.IndexValue(K.Affine(0, (m, 1)), F64)), F64)
    k = K.Kernel("sym", (n, m), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(F64, "out")),
                 stages=(K.Reduction(e, "sum", F64),),
                 stores=(K.Store(1, K.Affine(0, (m, 1)), e),
                         K.Store(2, K.Affine(0, (1, 0)), K.Stage(0, F64), "outer")),
                 reduce_axes=(1,), size_symbols=("n", "m"))
    out = []
    for nv, mv in [(3, 5), (17, 2), (40, 33)]:
        xv = np.random.default_rng(nv).standard_normal((mv, nv + 2))
        out.append(Case(f"sym_{nv}x{mv}", k, [xv.ravel()], {"n": nv, "m": mv}, mode="close"))
    half = sympy.floor(n / 2)
    x = K.Load(0, K.Affine(n ** 2 - 1, (-2,)), I64)
    k2 = K.Kernel("fl", (half,), (K.Arg(I64, "in"), K.Arg(I64, "out")),
                  stores=(K.Store(1, K.Affine(0, (1,)), x),), size_symbols=("n",))
    out += [Case(f"floor_{nv}", k2, [np.arange(nv * nv, dtype=I64)], {"n": nv})
            for nv in (3, 4, 9)]
    return out


def _stages():
    out = []
    R, C = 13, 300
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((R, C)) * 2 + 1).astype(F32)
    g, b = rng.standard_normal(C).astype(F32), rng.standard_normal(C).astype(F32)
    out.append(Case("layernorm", T.layernorm_kernel(R, C), [x.ravel(), g, b], mode="close"))
    B, H, C = 3, 4, 257
    x = (np.random.default_rng(4).standard_normal((B, H, C)) * 5).astype(F32)
    x[1, 2, 7] = np.nan
    x[2, 0, :] = -np.inf
    x[2, 0, 3] = 1.0
    out.append(Case("softmax", T.softmax_kernel(B, H, C), [x.ravel()], mode="close"))
    A, B, C = 4, 6, 5
    x = np.random.default_rng(1).standard_normal((A, B, C)).astype(F64)
    ld = K.Load(0, K.Affine(0, (B * C, C, 1)), F64)
    k = K.Kernel("acc3", (A, B, C), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(F64, "out")),
                 stages=(K.Reduction(K.Op("mul", (ld, ld), F64), "sum", F64),
                         K.Reduction(ld, "max", F64)),
                 stores=(K.Store(1, K.Affine(0, (0, 1, 0)), K.Stage(0, F64)),
                         K.Store(2, K.Affine(0, (0, 1, 0)), K.Stage(1, F64))),
                 reduce_axes=(0, 2))
    out.append(Case("acc3", k, [x.ravel()], mode="close"))
    x = np.random.default_rng(8).standard_normal((6, 7))
    ld = K.Load(0, K.Affine(0, (7, 1)), F64)
    full = K.Kernel("full", (6, 7), (K.Arg(F64, "in"), K.Arg(F64, "out"), K.Arg(I32, "out")),
                    stages=(K.Reduction(ld, "max", F64),
                            K.Reduction(K.Op("gt", (ld, K.Const(0.0, F64)), BOOL), "sum", I32)),
                    stores=(K.Store(1, K.Affine(0, (0, 0)), K.Stage(0, F64), "outer"),
                            K.Store(2, K.Affine(0, (0, 0)), K.Stage(1, I32), "outer")),
                    reduce_axes=(0, 1))
    out.append(Case("full", full, [x.ravel()]))
    scalar = K.Kernel("scalar", (), (K.Arg(F64, "in"), K.Arg(F64, "out")),
                      stores=(K.Store(1, K.Affine(1, ()),
                                      K.Op("neg", (K.Load(0, K.Affine(2, ()), F64),), F64)),))
    out.append(Case("scalar", scalar, [x.ravel()]))
    # exp in the store loop where the output cannot cache it (broadcast store, f64 out)
    B, C = 2, 33
    x = K.Load(0, K.Affine(0, (C, 1)), F32)
    e = K.Op("exp", (K.Op("sub", (x, K.Stage(0, F32)), F32),), F32)
    xs = np.random.default_rng(1).standard_normal(B * C).astype(F32)
    for n, st in enumerate((
            K.Store(1, K.Affine(0, (1, 0)), K.Op("div", (e, K.Stage(1, F32)), F32)),
            K.Store(1, K.Affine(0, (C, 1)),
                    K.Op("convert", (K.Op("div", (e, K.Stage(1, F32)), F32),), F64)))):
        dt = np.dtype(st.expr.dtype)
        k = K.Kernel("nocache", (B, C), (K.Arg(F32, "in"), K.Arg(dt, "out")),
                     stages=(K.Reduction(x, "max", F32), K.Reduction(e, "sum", F32)),
                     stores=(st,), reduce_axes=(1,))
        out.append(Case(f"nocache_{n}", k, [xs], mode="close"))
    return out


def _gathers():
    n = sympy.Symbol("n", integer=True, positive=True)
    rows, cols, batch = 9, 5, 13
    raw = [-3, -1, 0, 1, 4, 8, 9, 10, 127, 2, 5, 7, 3]
    out = []
    for idt in map(np.dtype, ("int8", "uint32", "int64", "uint64")):
        for fill in (None, -7.5):
            idx = K.Load(0, K.Affine(0, (1, 0)), idt)
            g = K.IndexedLoad(1, K.Affine(0, (0, 1)), idx, cols, n, fill, F32)
            k = K.Kernel("take", (batch, cols),
                         (K.Arg(idt, "in"), K.Arg(F32, "in"), K.Arg(F32, "out")),
                         stores=(K.Store(2, K.Affine(0, (cols, 1)),
                                         K.Op("mul", (g, K.Const(2.0, F32)), F32)),), size_symbols=("n",))
            ids = np.array(raw, np.int64).astype(idt)
            if idt == np.uint64:
                ids[0] = np.uint64(2**63 + 5)   # beyond int64: out of range (evaluate)
            x = np.arange(rows * cols, dtype=F32) + 0.5
            out.append(Case(f"take_{idt.name}_{'clip' if fill is None else 'fill'}", k,
                            [ids, x], {"n": rows}))
    return out


def _hyperplanes():
    n = sympy.Symbol("n", integer=True, positive=True)
    rows, cols = 7, 5
    i32 = np.dtype(np.int32)
    where = K.Load(0, K.Affine(0, (0, 0)), i32)
    old = K.Load(3, K.Affine(0, (cols, 1)), F32)
    bump = K.Load(1, K.Affine(0, (0, 1)), F32)
    row_no = K.Op("convert", (K.IndexValue(K.Affine(0, (1, 0)), I64),), F32)
    new = K.Op("mul", (K.Op("add", (old, bump), F32), row_no), F32)
    k = K.Kernel("plane", (1, cols), (K.Arg(i32, "in"), K.Arg(F32, "in"), K.Arg(F32, "in"),
                                      K.Arg(F32, "out")),
                 stores=(K.Store(3, K.Affine(0, (cols, 1)), new),), size_symbols=("n",),
                 inplace=((2, 3),), hyperplane=(0, where, n))
    x = np.arange(rows * cols, dtype=F32) * 0.25
    v = np.linspace(-1, 1, cols).astype(F32)
    return [Case(f"plane_{p}", k, [np.array([p], i32), v, np.zeros(0, F32)], {"n": rows},
                 init={3: x}) for p in (-1, 0, 3, 6, 7, 100)]


def _logical_monoids():
    """``and``/``or`` reductions of integer dtypes: bitwise, as lax.reduce_and/reduce_or
    (kernel_semantics; float dtypes have no and/or monoid)."""
    R, C = 5, 6
    out = []
    for dt in (I32, np.dtype("uint8")):
        x = np.arange(1, R * C + 1).reshape(R, C).astype(dt)
        x[1, 2] = x[3, :] = x[:, 4] = 0
        for style, red, out_map in (("row", (1,), K.Affine(0, (1, 0))),
                                    ("acc", (0,), K.Affine(0, (0, 1)))):
            ld = K.Load(0, K.Affine(0, (C, 1)), dt)
            lvl = "outer" if style == "row" else "inner"
            k = K.Kernel(f"logical_{style}", (R, C), (K.Arg(dt, "in"),) + (K.Arg(dt, "out"),) * 2,
                         stages=(K.Reduction(ld, "and", dt), K.Reduction(ld, "or", dt)),
                         stores=(K.Store(1, out_map, K.Stage(0, dt), lvl),
                                 K.Store(2, out_map, K.Stage(1, dt), lvl)),
                         reduce_axes=red)
            out.append(Case(f"logical_{style}_{dt.name}", k, [x.ravel()]))
    return out


class _MathRef:
    """test_codegen's float64 reference for transcendental outputs, with ulp bounds."""

    def __init__(self, ops, pairs=False, n=None):
        self.ops, self.pairs, self.n = ops, pairs, n
        self.ulp = [T.ULP[o] for o in ops]

    def __call__(self, inputs):
        xs = inputs[0]
        dt = xs.dtype
        if self.pairs:
            xx, yy = np.meshgrid(xs, xs, indexing="ij")
            return [T._reference(o, [xx.ravel(), yy.ravel()], dt) for o in self.ops]
        return [T._reference(o, [xs], dt) for o in self.ops]


def _math(dt):
    # (erfc/lgamma/digamma: their own C-family cases in test_kernel_special_ops.py)
    unary = [o for o in T.MATH if K.op_arity(o) == 1 and o not in T.SPECIAL]
    xs = T._math_inputs(dt)
    x = K.Load(0, K.Affine(0, (1,)), dt)
    k = K.Kernel("math1", (len(xs),), (K.Arg(dt, "in"),) + (K.Arg(dt, "out"),) * len(unary),
                 stores=tuple(K.Store(i + 1, K.Affine(0, (1,)), K.Op(o, (x,), dt))
                              for i, o in enumerate(unary)))
    vals = np.concatenate([T.edge_values(dt), np.linspace(-6, 6, 25).astype(dt)])
    k2, _ = T.pairs_kernel(dt, [], ["pow", "atan2"], n=len(vals))
    return [Case(f"math1_{dt.name}", k, [xs], mode="math", reference=_MathRef(unary)),
            Case(f"math2_{dt.name}", k2, [vals], mode="math",
                 reference=_MathRef(["pow", "atan2"], pairs=True)),
            _special_math(dt)]


#: erfc/lgamma/digamma in every backend (C libraries' lgamma and erfc: glibc <= 7 ulp,
#: CUDA <= 6; the C family's own digamma: a recurrence, a few ulp) away from the zeros
SPECIAL_ULP = {"erfc": 7, "lgamma": 8, "digamma": 8}


def _special_math(dt):
    ops = list(T.SPECIAL)
    x = np.concatenate([T.edge_values(dt).astype(np.float64), 10 ** np.linspace(-3, 1.5, 91),
                        np.linspace(-6, 9, 121), -np.arange(0.5, 40, 3.0)])
    with np.errstate(all="ignore"):
        far = (np.abs(T.OP_IMPLS["lgamma"](x, dtype=T.F64)) > 0.25) & \
            (np.abs(T.OP_IMPLS["digamma"](x, dtype=T.F64)) > 0.25)
        xs = x[far | ~np.isfinite(x) | (x == 0)].astype(dt)
    ld = K.Load(0, K.Affine(0, (1,)), dt)
    k = K.Kernel("special1", (len(xs),), (K.Arg(dt, "in"),) + (K.Arg(dt, "out"),) * len(ops),
                 stores=tuple(K.Store(i + 1, K.Affine(0, (1,)), K.Op(o, (ld,), dt))
                              for i, o in enumerate(ops)))
    return Case(f"special_{dt.name}", k, [xs], mode="math", reference=_SpecialRef(ops))


class _SpecialRef:
    """mpmath's values (SciPy's float64 erfc is itself hundreds of ulp off for x > 6)."""

    def __init__(self, ops):
        self.ops = ops
        self.ulp = [SPECIAL_ULP[o] for o in ops]

    def __call__(self, inputs):
        from tests.lower.test_kernel_special_ops import mp_reference
        return [mp_reference(o, inputs[0]) for o in self.ops]


# ----------------------------------------------------------------------------------------
# The threaded renderers' special paths: vector chunks and column tiles.

def _vectors():
    """Pointwise kernels the GPU dialects render with 16-byte vectors: odd lengths (a
    scalar tail), offsets that misalign every chunk or some rows (the run-time
    alignment check), broadcast and per-row operands, iotas, symbolic sizes."""
    n, m = sympy.symbols("n m", integer=True, positive=True)
    rng = np.random.default_rng(11)
    out = []
    for xo, so in ((0, 0), (1, 0), (4, 3)):    # load/store offsets: aligned, misaligned
        x = K.Load(0, K.Affine(xo, (1,)), F32)
        y = K.Load(1, K.Affine(0, (1,)), F32)
        e = K.Op("add", (K.Op("mul", (x, K.Const(2.5, F32)), F32), y), F32)
        k = K.Kernel(f"axpy_{xo}_{so}", (n,), (K.Arg(F32, "in"), K.Arg(F32, "in"),
                                              K.Arg(F32, "out")),
                     stores=(K.Store(2, K.Affine(so, (1,)), e),), size_symbols=("n",))
        for nv in (1, 3, 4, 5, 1027):
            xs = rng.standard_normal(nv + xo).astype(F32)
            out.append(Case(f"vec_axpy_{xo}_{so}_{nv}", k, [xs, rng.standard_normal(nv)
                                                             .astype(F32)], {"n": nv}))
    R, C = 13, 37            # rows of 37 floats: some rows start aligned, some do not
    x = K.Load(0, K.Affine(0, (C, 1)), F32)
    b = K.Load(1, K.Affine(0, (0, 1)), F32)
    sc = K.Load(2, K.Affine(0, (1, 0)), F32)
    iota = K.IndexValue(K.Affine(0, (C, 1)), F32)
    e = K.Op("add", (K.Op("mul", (x, sc), F32), K.Op("sub", (b, iota), F32)), F32)
    k = K.Kernel("rows2d", (R, C), (K.Arg(F32, "in"),) * 3 + (K.Arg(F32, "out"),) * 2,
                 stores=(K.Store(3, K.Affine(0, (C, 1)), e),
                         K.Store(4, K.Affine(0, (C, 1)), K.Op("exp", (x,), F32))))
    out.append(Case("vec_rows2d", k, [rng.standard_normal(n_).astype(F32)
                                      for n_ in (R * C, C, R)], mode="close"))
    xd = K.Load(0, K.Affine(0, (n, 1)), F64)
    kd = K.Kernel("sym64", (m, n), (K.Arg(F64, "in"), K.Arg(F64, "out")),
                  stores=(K.Store(1, K.Affine(0, (n, 1)), K.Op("sub", (K.Op(
                      "mul", (xd, xd), F64), K.Const(0.5, F64)), F64)),),
                  size_symbols=("m", "n"))
    xi = K.Load(0, K.Affine(0, (n, 1)), I64)
    ki = K.Kernel("symi64", (m, n), (K.Arg(I64, "in"), K.Arg(I64, "out")),
                  stores=(K.Store(1, K.Affine(0, (n, 1)), K.Op("mul", (
                      xi, K.IndexValue(K.Affine(0, (n, 1)), I64)), I64)),),
                  size_symbols=("m", "n"))
    for mv, nv in ((3, 5), (2, 2), (4, 64), (1, 9)):
        env = {"m": mv, "n": nv}
        out.append(Case(f"vec_sym64_{mv}x{nv}", kd, [rng.standard_normal(mv * nv)], env))
        out.append(Case(f"vec_symi64_{mv}x{nv}", ki,
                        [rng.integers(-2**40, 2**40, mv * nv)], env))
    return out


def _columns():
    """Accumulate-style kernels (column sums) with many reduced points: the threaded
    dialects split them over thread slices and a tree (float sums close, integer sums
    and max exact); partial tiles (kept counts not a multiple of the tile), reduced
    axes on both sides of a kept one, symbolic sizes, and many kept points (one slice,
    in order: exact)."""
    n, m = sympy.symbols("n m", integer=True, positive=True)
    rng = np.random.default_rng(12)
    out = []

    def colsum(name, shape, red, dt, xs, sizes=None, syms=()):
        coefs, st = [], 1
        for d in reversed(shape):
            coefs.insert(0, st)
            st = st * d
        x = K.Load(0, K.Affine(0, tuple(coefs)), dt)
        ocoefs, st = [0] * len(shape), 1
        for a in reversed(range(len(shape))):
            if a not in red:
                ocoefs[a] = st
                st = st * shape[a]
        om = K.Affine(0, tuple(ocoefs))
        pos = K.Op("gt", (x, K.Const(0, dt)), BOOL)
        k = K.Kernel(name, shape, (K.Arg(dt, "in"), K.Arg(dt, "out"), K.Arg(dt, "out"),
                                   K.Arg(I32, "out")),
                     stages=(K.Reduction(x, "sum", dt), K.Reduction(x, "max", dt),
                             K.Reduction(pos, "sum", I32)),
                     stores=(K.Store(1, om, K.Stage(0, dt)), K.Store(2, om, K.Stage(1, dt)),
                             K.Store(3, om, K.Stage(2, I32))),
                     reduce_axes=red, size_symbols=syms)
        return Case(name, k, [xs], sizes, mode=mode_for(k))

    out.append(colsum("col_f32", (1000, 37), (0,), F32,
                      rng.standard_normal(37000).astype(F32)))
    out.append(colsum("col_i32_3d", (40, 7, 9), (0, 2), I32,
                      rng.integers(-1000, 1000, 40 * 63).astype(I32)))
    out.append(colsum("col_many_kept", (3, 70000), (0,), F32,
                      rng.standard_normal(210000).astype(F32)))
    for nv, mv in ((5, 1), (300, 13), (2000, 70)):
        out.append(colsum(f"col_sym_{nv}x{mv}", (n, m), (0,), F64,
                          rng.standard_normal(nv * mv), {"n": nv, "m": mv}, ("n", "m")))
    return out


def row_kernel(R, n, dt, x_at=0):
    """Row-style kernel over (R, n): stages max(x), a float sum of exp((x - max) * s_r)
    (integers: sum(x * w)) and sum(x * w); per-row stores of the stages, a per-point
    store using a per-row scalar s_r, a per-column w_c and the column's iota. ``x_at``:
    x's offset (1: every row misaligned for 16-byte loads)."""
    x = K.Load(0, K.Affine(x_at, (n, 1)), dt)
    w = K.Load(1, K.Affine(0, (0, 1)), dt)
    sr = K.Load(2, K.Affine(0, (1, 0)), dt)
    iota = K.IndexValue(K.Affine(0, (0, 1)), dt)
    op = lambda name, *a: K.Op(name, a, dt)
    m = K.Stage(0, dt)
    if dt.kind == "f":
        e = op("exp", op("mul", op("sub", x, m), sr))
        stages = (K.Reduction(x, "max", dt), K.Reduction(e, "sum", dt),
                  K.Reduction(op("mul", x, w), "sum", dt))
        point = op("add", op("div", e, K.Stage(1, dt)), op("mul", w, iota))
    else:
        stages = (K.Reduction(x, "max", dt), K.Reduction(op("mul", x, w), "sum", dt),
                  K.Reduction(op("sub", x, sr), "min", dt))
        point = op("add", op("sub", x, m), op("mul", K.Stage(1, dt), iota))
    outs = (K.Arg(dt, "out"),) * 3
    return K.Kernel(f"rows_{R}x{n}_{dt.name}" + (f"_at{x_at}" if x_at else ""), (R, n),
                    (K.Arg(dt, "in"),) * 3 + outs,
                    stages=stages,
                    stores=(K.Store(3, K.Affine(0, (1, 0)), op("add", m, K.Stage(2, dt)),
                                    "outer"),
                            K.Store(4, K.Affine(0, (1, 0)), K.Stage(1, dt), "outer"),
                            K.Store(5, K.Affine(0, (n, 1)), point)),
                    reduce_axes=(1,))


def _rows():
    """Row-style kernels the threaded dialects render as row segments (``lower/c/
    rows.py``): rows shorter than a warp (1, 7, 31), around it (32, 33), one warp with
    the row in registers (100 ... 1024 float32, 512 float64), a group per row (2048,
    3001), the group-per-row loops beyond (9000); row counts that leave the last group
    part empty; empty rows; NaN/inf rows; float64, int32/int64, bool any/all."""
    rng = np.random.default_rng(13)
    out = []
    shapes = {F32: [(5, 1), (70, 7), (9, 31), (33, 32), (3, 33), (13, 100), (4, 257),
                    (6, 512), (3, 1000), (5, 1024), (3, 2048), (2, 3001), (2, 9000)],
              F64: [(11, 9), (4, 300), (3, 512), (2, 600)],
              I32: [(37, 5), (4, 777)], I64: [(9, 64)]}
    for dt, sh in shapes.items():
        for R, n in sh:
            k = row_kernel(R, n, dt)
            if dt.kind == "f":
                x = (rng.standard_normal((R, n)) * 3).astype(dt)
                w, sr = rng.standard_normal(n).astype(dt), rng.random(R).astype(dt) + 0.5
                if R > 2 and n > 2:
                    x[1, n // 2] = np.nan
                    x[2, :] = -np.inf
                    x[2, n - 1] = 2.0
            else:
                x = rng.integers(-50, 50, (R, n)).astype(dt)
                w, sr = rng.integers(-3, 4, n).astype(dt), rng.integers(-5, 5, R).astype(dt)
            out.append(Case(k.name, k, [x.ravel(), w, sr],
                            mode="close" if dt.kind == "f" else "exact"))
    for dt in (F32, F64):             # misaligned rows: vector loads fall back
        k = row_kernel(5, 512, dt, x_at=1)
        x = rng.standard_normal(5 * 512 + 1).astype(dt)
        out.append(Case(k.name, k, [x, rng.standard_normal(512).astype(dt),
                                    rng.random(5).astype(dt) + 0.5], mode="close"))
    k = row_kernel(4, 0, F32)        # empty rows: the stages' identities
    out.append(Case("rows_empty", k, [np.zeros(0, F32), np.zeros(0, F32),
                                      np.ones(4, F32)], mode="close"))
    for n in (5, 40, 3000):           # bool rows: any / all, and a count
        x = K.Load(0, K.Affine(0, (n, 1)), BOOL)
        k = K.Kernel(f"rows_bool_{n}", (6, n), (K.Arg(BOOL, "in"), K.Arg(BOOL, "out"),
                                                K.Arg(BOOL, "out"), K.Arg(I32, "out")),
                     stages=(K.Reduction(x, "or", BOOL), K.Reduction(x, "and", BOOL),
                             K.Reduction(x, "sum", I32)),
                     stores=tuple(K.Store(1 + j, K.Affine(0, (1, 0)), K.Stage(j, dt), "outer")
                                  for j, dt in enumerate((BOOL, BOOL, I32))),
                     reduce_axes=(1,))
        xs = rng.random((6, n)) < 0.5
        xs[0], xs[1] = False, True
        out.append(Case(k.name, k, [xs.ravel()]))
    return out


# ----------------------------------------------------------------------------------------
# Kernels of jitted programs.

def _programs():
    import tjit
    import tjit.numpy as jnp
    from tjit import nn

    def layernorm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5) * g + b

    def ln_loss(x, g, b):
        return (layernorm(x, g, b) ** 2).sum()

    def mish(x):
        return (x * jnp.tanh(nn.softplus(x))).sum()

    def mlp_loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        return ((h @ w2 + b2 - y) ** 2).mean()

    def mlp_step(params, x, y):
        grads = tjit.grad(mlp_loss)(params, x, y)
        return [p - 0.1 * g for p, g in zip(params, grads)]

    def gather(table, ids, s):
        return table[ids] * s + jnp.take(table, ids[::-1], axis=0).sum(-1, keepdims=True)

    rng = np.random.default_rng(7)
    f32 = lambda *s: rng.standard_normal(s).astype(F32)
    x = f32(16, 33)
    params = [f32(12, 24), f32(24), f32(24, 3), f32(3)]
    progs = {
        "prog_softmax": (lambda x: nn.softmax(x, axis=-1), (x * 4,), {}),
        "prog_layernorm": (layernorm, (x, f32(33), f32(33)), {}),
        "prog_layernorm_grad": (tjit.grad(ln_loss, argnums=(0, 1, 2)),
                                (x, f32(33), f32(33)), {}),
        "prog_mish_grad": (tjit.grad(mish), (x * 3,), {}),
        "prog_mlp_step": (mlp_step, (params, f32(10, 12), f32(10, 3)), {}),
        "prog_poly_batch": (lambda x: nn.softmax(x * 2.0, axis=-1) + x.sum(0),
                            (f32(9, 7),), {"polymorphic_shapes": ["(b, 7)"]}),
        "prog_gather": (gather, (f32(6, 4), np.array([0, 5, 2, 2, 9, -1], np.int32),
                                 np.float32(1.5)), {}),
    }
    return progs


@functools.cache
def _program_kernels(name):
    import tjit
    f, args, opts = _programs()[name]
    kernels = tjit.jit(f, **opts).lower(*args).compile().kernels()
    sizes = {s: 9 for k in kernels for s in k.size_symbols}
    return kernels, sizes


def random_inputs(k, sizes, seed=0):
    """Inputs for any kernel: lengths from its loads' index maps; normal floats,
    small integers (gather offsets land inside and outside their range)."""
    env = {sympy.Symbol(s, integer=True, positive=True): v for s, v in (sizes or {}).items()}
    sub = lambda d: int(sympy.sympify(d).subs(env))
    shape = [sub(d) for d in k.shape]
    lens = {}
    plane = K.walk(k.hyperplane[1]) if k.hyperplane is not None else []
    for n in K.all_nodes(k) + plane:
        if isinstance(n, (K.Load, K.IndexedLoad)):
            hi = sub(n.index.offset) + sum(max(0, sub(c) * (e - 1))
                                           for c, e in zip(n.index.coefs, shape))
            if isinstance(n, K.IndexedLoad):
                hi += max(0, (sub(n.size) - 1) * sub(n.stride))
            lens[n.arg] = max(lens.get(n.arg, 0), hi + 1)
    rng = np.random.default_rng(seed)
    out = []
    for i, a in enumerate(k.args):
        if a.role != "in":
            continue
        n, dt = lens.get(i, 0), np.dtype(a.dtype)
        if dt.kind == "f":
            out.append((rng.standard_normal(n) * 2).astype(dt))
        elif dt.kind == "b":
            out.append(rng.random(n) < 0.5)
        else:
            out.append(rng.integers(-2, 11, n).astype(dt))
    return out


def _program_cases(name):
    kernels, sizes = _program_kernels(name)
    return [Case(f"{name}_{j}_{k.name}", k, random_inputs(k, sizes, j), sizes or None,
                 mode=mode_for(k)) for j, k in enumerate(kernels)]


# ----------------------------------------------------------------------------------------

_BUILDERS = {}
for _dt in T.ALL:
    _BUILDERS[f"pairs_{_dt.name}"] = functools.partial(_pairs, _dt)
    for _style in ("row", "acc"):
        _BUILDERS[f"red_{_style}_{_dt.name}"] = functools.partial(_reductions, _dt, _style)
for _dt in T.FLOATS:
    _BUILDERS[f"math_{_dt.name}"] = functools.partial(_math, _dt)
    _BUILDERS[f"fma_{_dt.name}"] = functools.partial(_fma, _dt)
_BUILDERS.update(maps=_maps, symbolic=_symbolic, stages=_stages, gathers=_gathers,
                 hyperplanes=_hyperplanes, logical_monoids=_logical_monoids,
                 vectors=_vectors, columns=_columns, rows=_rows)
PROGRAMS = ("prog_softmax", "prog_layernorm", "prog_layernorm_grad", "prog_mish_grad",
            "prog_mlp_step", "prog_poly_batch", "prog_gather")
for _p in PROGRAMS:
    _BUILDERS[_p] = functools.partial(_program_cases, _p)


def case_names():
    """Names of the case groups (cheap: nothing is built)."""
    return list(_BUILDERS)


@functools.cache
def cases(name):
    """The cases of group ``name`` (built once)."""
    return tuple(_BUILDERS[name]())


def all_cases():
    return [c for n in case_names() for c in cases(n)]
