"""W-lane pointwise stages of HLS dataflow designs: W points per pipelined step.

A pointwise kernel whose every argument is a stream (or a discarded output) and whose
point count is a concrete multiple of W handles W consecutive points (row-major) per
iteration of its pipelined loop (``kernel_lanes``): each input stream delivers one
packet of W lanes (``hls::vector<T, W>``), the loop body is unrolled over the lanes,
and each output stream takes one packet. W is 512 bits over the widest streamed
element (16 float32 lanes, 8 float64: a 512-bit beat of the memory ports), so the
reader and writer stages that feed the design move one beat a cycle.

Lane l of step f is point ``W*f + l``: the scalar loop's points in its order, and a
pointwise kernel folds nothing, so the results are bit-identical to one point a step.
Kernels that do not qualify (a memory read or write, a reduction, a symbolic count or
one that is not a multiple of W: no remainder loop, the packets would straddle it)
keep one point a step, and so do the streams into and out of them.
"""

import numpy as np

from tjit.lower.loops import prod
from tjit.xla_like import kernel_ir as K

__all__ = ["BEAT_BITS", "beat_lanes", "kernel_lanes", "packet_type", "render"]

#: The width of a memory beat and of a wide stream's packet.
BEAT_BITS = 512


def beat_lanes(dtype):
    """Elements of ``dtype`` in one 512-bit beat."""
    return max(1, BEAT_BITS // (8 * np.dtype(dtype).itemsize))


def packet_type(dialect, dtype, lanes):
    """The C++ type of a stream element: ``T`` or ``hls::vector<T, lanes>``."""
    t = dialect.mem_type(dtype)
    return t if lanes == 1 else f"hls::vector<{t}, {lanes}>"


def kernel_lanes(k, io):
    """The lanes a pointwise kernel with ``io`` (``{arg: "stream" | "discard"}``, others
    in memory) can handle a step: W (see the module docstring), else 1."""
    if k.reduce_axes or not k.row_style or k.hyperplane is not None or k.inplace:
        return 1
    if any(io.get(i) not in ("stream", "discard") for i in range(len(k.args))):
        return 1
    streamed = [a.dtype for i, a in enumerate(k.args) if io.get(i) == "stream"]
    if not streamed:
        return 1
    w = min(beat_lanes(dt) for dt in streamed)
    n = prod(k.shape)
    if not isinstance(n, (int, np.integer)) or n % w:
        return 1
    return w


def render(r):
    """The W-lane loop of renderer ``r`` (``renderer._Renderer`` with ``r.lanes`` > 1)."""
    k, w = r.k, r.lanes
    axes = list(range(len(r.plan.groups)))
    total = prod(r.plan.extents)
    f = r.var("f")
    with r.block(f"for ({r.i64} {f} = 0; {f} < {total}; {f} += {w})"):
        r.pragmas(True, total // w)
        packets = {}
        for i, a in enumerate(k.args):
            if r.io.get(i) != "stream":
                continue
            packets[i] = r.var("pk")
            t = packet_type(r.d, a.dtype, w)
            if a.role == "in":
                r.emit(f"const {t} {packets[i]} = a{i}.read();")
            else:
                r.emit(f"{t} {packets[i]}{{}};")
        with r.block(f"for (int ln = 0; ln < {w}; ln++)"):
            r.emit("#pragma HLS UNROLL")
            if any(isinstance(n, K.IndexValue) for n in K.all_nodes(k)):
                r.decompose(f"({f} + ln)", axes, r.plan.extents)   # (only iota needs them)
            r.lane = {i: f"{p}[ln]" for i, p in packets.items()}
            r.point_body(axes)
        r.lane = {}
        for i, p in packets.items():
            if k.args[i].role != "in":
                r.emit(f"a{i}.write({p});")
    return total
