"""Per-operator cost of pipelined HLS operators on AMD/Xilinx UltraScale+ at ~300 MHz.

``COSTS[(op, kind)] = Cost(latency, dsp, lut, ff)``: the pipeline latency in cycles of
one fully pipelined operator (II=1) and the resources of one instance. ``kind`` is
"f32", "f64" or "int" (integer ops of up to 64 bits; narrower ones cost less, the table
takes 32/64-bit figures).

**Source.** The floating-point rows follow AMD's Floating-Point Operator v7.1 product
guide (PG060, resource tables for UltraScale+, "full DSP" multiplier usage, latency
set for ~300 MHz) and the operator lines of Vitis HLS 2022.2 synthesis reports for
xcu280 at 3.33 ns (``fadd``/``fmul``/``fdiv``/``fsqrt``/``fexp``/``flog`` and their
``d`` forms), rounded; the transcendentals that ``hls_math.h`` builds from several
cores (tanh, erf, pow, the trigonometric functions, ...) are costed as the cores they
use. These are estimates for planning, not a synthesis result: a real run of
``make csynth`` (``tjit.fpga.export``) gives the tool's numbers.
"""

import dataclasses

import numpy as np

from tjit.xla_like import kernel_ir as K

__all__ = ["COSTS", "PARTS", "Cost", "Part", "combine_cost", "cost", "path_cost"]


@dataclasses.dataclass(frozen=True)
class Cost:
    latency: int
    dsp: int
    lut: int
    ff: int


_F32 = {
    "add": Cost(4, 2, 390, 205), "sub": Cost(4, 2, 390, 205),
    "mul": Cost(3, 3, 80, 145), "div": Cost(12, 0, 760, 1080),
    "sqrt": Cost(12, 0, 460, 700), "rsqrt": Cost(24, 0, 1220, 1780),
    "exp": Cost(10, 7, 920, 810), "exp2": Cost(10, 7, 920, 810),
    "expm1": Cost(14, 9, 1310, 1015), "log": Cost(12, 14, 1240, 1100),
    "log1p": Cost(16, 16, 1630, 1305), "logistic": Cost(26, 9, 2070, 2095),
    "tanh": Cost(30, 9, 2460, 2300), "erf": Cost(36, 16, 3100, 2900),
    "sin": Cost(24, 12, 2800, 2400), "cos": Cost(24, 12, 2800, 2400),
    "tan": Cost(36, 12, 3560, 3480), "pow": Cost(28, 21, 2240, 2055),
    "atan2": Cost(40, 12, 4200, 3800), "cbrt": Cost(30, 14, 2600, 2400),
    "rem": Cost(20, 0, 1800, 2100),
    "cmp": Cost(1, 0, 66, 0), "minmax": Cost(1, 0, 100, 0), "cheap": Cost(0, 0, 40, 0),
    "convert": Cost(4, 0, 240, 220), "round": Cost(2, 0, 180, 120),
}
_F64 = {
    "add": Cost(5, 3, 700, 600), "sub": Cost(5, 3, 700, 600),
    "mul": Cost(6, 10, 200, 320), "div": Cost(30, 0, 3200, 3100),
    "sqrt": Cost(30, 0, 1700, 1900), "rsqrt": Cost(60, 0, 4900, 5000),
    "exp": Cost(20, 26, 2500, 2300), "exp2": Cost(20, 26, 2500, 2300),
    "expm1": Cost(25, 29, 3200, 2900), "log": Cost(25, 40, 3300, 3000),
    "log1p": Cost(30, 43, 4000, 3600), "logistic": Cost(55, 26, 5700, 5400),
    "tanh": Cost(60, 29, 6400, 6000), "erf": Cost(70, 46, 8000, 7500),
    "sin": Cost(50, 36, 7000, 6500), "cos": Cost(50, 36, 7000, 6500),
    "tan": Cost(80, 36, 10200, 9600), "pow": Cost(55, 66, 6000, 5600),
    "atan2": Cost(80, 36, 11000, 10000), "cbrt": Cost(60, 40, 7000, 6500),
    "rem": Cost(40, 0, 5000, 5200),
    "cmp": Cost(1, 0, 130, 0), "minmax": Cost(1, 0, 200, 0), "cheap": Cost(0, 0, 70, 0),
    "convert": Cost(5, 0, 400, 380), "round": Cost(3, 0, 300, 200),
}
_INT = {
    "add": Cost(1, 0, 64, 64), "sub": Cost(1, 0, 64, 64), "mul": Cost(3, 4, 40, 120),
    "div": Cost(36, 0, 2300, 2600), "rem": Cost(36, 0, 2300, 2600),
    "cmp": Cost(0, 0, 32, 0), "minmax": Cost(1, 0, 64, 0), "cheap": Cost(0, 0, 32, 0),
    "convert": Cost(0, 0, 0, 0),
}
COSTS = {(op, kind): c for kind, t in (("f32", _F32), ("f64", _F64), ("int", _INT))
         for op, c in t.items()}

_ALIASES = {"eq": "cmp", "ne": "cmp", "lt": "cmp", "le": "cmp", "gt": "cmp", "ge": "cmp",
            "is_finite": "cmp", "max": "minmax", "min": "minmax", "floor": "round",
            "ceil": "round", "round_even": "round", "neg": "cheap", "abs": "cheap",
            "sign": "cmp", "select": "cheap", "and": "cheap", "or": "cheap",
            "xor": "cheap", "not": "cheap", "shift_left": "cheap",
            "shift_right_arithmetic": "cheap", "shift_right_logical": "cheap",
            # (not measured: priced as the function each is built from or most like)
            "asin": "atan2", "acos": "atan2", "atan": "atan2", "sinh": "tanh",
            "cosh": "tanh", "asinh": "log1p", "acosh": "log1p", "atanh": "log1p",
            "erfc": "erf", "lgamma": "atan2", "digamma": "atan2"}


def cost(op, dtype):
    """The :class:`Cost` of one ``op`` (kernel-IR op name) on ``dtype`` (numpy dtype)."""
    kind = {"f4": "f32", "f8": "f64"}.get(f"{dtype.kind}{dtype.itemsize}", "int")
    op = _ALIASES.get(op, op)
    table = {"f32": _F32, "f64": _F64, "int": _INT}[kind]
    return table.get(op) or table.get("cheap")


def path_cost(roots):
    """``(latency of the longest path, dsp, lut, ff)`` of the op nodes under the kernel
    IR expressions ``roots`` (each node once)."""
    seen, nodes = set(), []
    for r in roots:
        nodes += K.walk(r, seen)
    depth, res = {}, [0, 0, 0]
    for n in nodes:
        args = getattr(n, "args", ()) if isinstance(n, K.Op) else ()
        if isinstance(n, K.IndexedLoad):
            args = (n.offset,)
        start = max((depth.get(id(a), 0) for a in args), default=0)
        lat = 0
        if isinstance(n, K.Op):
            dt = np.dtype(n.args[0].dtype if n.op in K.COMPARE_OPS or n.op == "convert"
                          else n.dtype)
            c = cost(n.op, dt)
            lat = c.latency
            res[0] += c.dsp
            res[1] += c.lut
            res[2] += c.ff
        depth[id(n)] = start + lat
    return max(depth.values(), default=0), *res


def combine_cost(monoid, dtype):
    """The :class:`Cost` of one combine of reduction ``monoid`` on ``dtype``."""
    return cost({"sum": "add", "prod": "mul", "max": "max", "min": "min"}.get(monoid, "and"),
                np.dtype(dtype))


@dataclasses.dataclass(frozen=True)
class Part:
    """An FPGA card: its device's resources and its memory bandwidth."""
    name: str
    device: str
    dsp: int
    bram18k: int
    uram: int
    lut: int
    ff: int
    mem_gbs: float          # peak bandwidth of its global memory, GB/s
    memory: str


#: Alveo cards (AMD data sheets DS963 and the U280/U250 product briefs).
PARTS = {
    "u280": Part("Alveo U280", "xcu280-fsvh2892-2L-e", 9024, 4032, 960, 1_303_680,
                 2_607_360, 460.0, "HBM2 8 GB"),
    "u250": Part("Alveo U250", "xcu250-figd2104-2L-e", 12_288, 5376, 1280, 1_728_000,
                 3_456_000, 77.0, "DDR4 64 GB"),
}
