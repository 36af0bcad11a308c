"""float16 cases of the C-family conformance corpus (kept apart from ``kernel_corpus``:
the HLS dialect renders no float16). Each is compared with ``kernel_ir.evaluate``
(tjit's NumPy float16 semantics) bit for bit, or within the corpus' math/"close" modes
where the kernel calls transcendentals or sums in another order."""

import functools

import numpy as np

from tests.lower import kernel_corpus as corpus
from tests.lower import test_codegen as T
from tjit.xla_like import kernel_ir as K

F16 = np.dtype("float16")
_ROW = K.Affine(0, (1,))


def edge_values():
    """Halves that probe rounding: subnormals (smallest, largest, halfway between two),
    normals next to them, the largest finite and the values that overflow to inf, ties
    to even, inf, NaN, signed zeros, and random ones."""
    bits = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x0401, 0x83FF, 0x7BFF, 0xFBFF,
            0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00, 0x3C01, 0x3800, 0x4000, 0x4200, 0x4900,
            0x0002, 0x1400, 0x5BFF, 0x7800, 0x7C01, 0xFD55]   # (NaN payloads last)
    rng = np.random.default_rng(16)
    v = np.concatenate([np.array(bits, np.uint16).view(F16),
                        (rng.standard_normal(8) * 30).astype(F16)])
    return v


def _pairs():
    unary, binary = T.ops_for(F16)
    extra = [T._select] + [lambda x, y, d=d: K.Op("convert", (x,), d) for d in T.ALL]
    k, _ = T.pairs_kernel(F16, unary, binary, extra, n=len(edge_values()))
    return corpus.Case("pairs_float16", k, [edge_values()])


def _into_half():
    """Every dtype's edge values (ints past 65504, float64 halfway between two halves:
    rounded once, not through float32) converted to float16."""
    cases = []
    for dt in T.ALL:
        vals = T.edge_values(dt)
        if dt == np.float64:    # 1 + 2^-11 + 2^-40: float32 would round it to a tie
            vals = np.concatenate([vals, [1 + 2.0**-11 + 2.0**-40, 65519.99, 65520.0,
                                          2.0**-25, 2.0**-25 + 2.0**-50, 3 * 2.0**-26]])
        if dt.kind == "f":      # NaNs with payloads (NumPy keeps the top bits)
            bits = [0x7F800001, 0xFFA00000, 0x7FC02000] if dt.itemsize == 4 else \
                [0x7FF0000000000001, 0xFFF4000000000000, 0x7FF8040000000000]
            nans = np.array(bits, f"u{dt.itemsize}").view(dt)
            vals = np.concatenate([vals, nans])
        x = K.Load(0, _ROW, dt)
        k = K.Kernel(f"to_half_{dt.name}", (len(vals),), (K.Arg(dt, "in"), K.Arg(F16, "out")),
                     stores=(K.Store(1, _ROW, K.Op("convert", (x,), F16)),))
        cases.append(corpus.Case(f"to_half_{dt.name}", k, [vals]))
    return cases


def _half_steps():
    """rsqrt and logistic: tjit's float16 impls round after each NumPy step."""
    xs = np.arange(0x0000, 0x7C00, 7, dtype=np.uint16).view(F16)
    xs = np.concatenate([xs, -xs])
    x = K.Load(0, _ROW, F16)
    k = K.Kernel("half_steps", (len(xs),), (K.Arg(F16, "in"),) + (K.Arg(F16, "out"),) * 3,
                 stores=(K.Store(1, _ROW, K.Op("rsqrt", (x,), F16)),
                         K.Store(2, _ROW, K.Op("sqrt", (x,), F16)),
                         K.Store(3, _ROW, K.Op("div", (x, K.Const(3.0, F16)), F16))))
    return corpus.Case("half_steps", k, [xs])


def _sums():
    """Reductions of float16: row-style and accumulate-style sums, products, max/min
    (NaN and -inf rows among them), rows of 3000 (a half accumulator would stall at
    2048; the float one matches NumPy's float16 sum) and row kernels with per-point
    stages."""
    cases = []
    for style in ("row", "acc"):
        k, _ = T.reduction_kernel(F16, 9, 37, style)
        data = T.reduction_data(F16, 9, 37).ravel()
        cases.append(corpus.Case(f"red_{style}_float16", k, [data],
                                 mode=corpus.mode_for(k)))
    for R, n in ((5, 7), (3, 3000), (40, 100)):
        k = corpus.row_kernel(R, n, F16)
        inputs = corpus.random_inputs(k, {})
        cases.append(corpus.Case(f"rows_{R}x{n}_float16", k, inputs, mode="close"))
    return cases


@functools.cache
def cases():
    """Every float16 case (built once: runners key sources by kernel id)."""
    return tuple( [_pairs(), _half_steps()] + _into_half() + _sums())
