"""What the ``hls`` dialect (Vitis HLS C++) adds to C: its prelude and its pragmas.

``dialects.HLS`` is C's dialect with these hooks (kept here so that ``dialects.py``
stays a table):

* every innermost loop is ``#pragma HLS PIPELINE II=1``; a loop whose trip count is a
  size expression gets ``#pragma HLS LOOP_TRIPCOUNT`` with the count at
  ``TRIPCOUNT_HINT`` for every size symbol (a hint for the tool's latency report only);
* a top-level kernel's buffers are ``m_axi`` ports, each in its own bundle
  (``gmem<i>``) so they burst independently, with ``max_widen_bitwidth=512`` (Vitis
  widens contiguous pipelined accesses to 512-bit beats, 16 float32 lanes); sizes and
  the return are ``s_axilite`` registers. Dataflow designs (``tjit/fpga``) read and
  write DRAM through explicit 512-bit reader/writer stages instead;
* float sums and products fold into ``PARTIALS`` interleaved accumulators (point t of
  the loop into accumulator ``t % PARTIALS``) so a pipelined loop starts an iteration
  every cycle although a float add takes several; the accumulators are folded
  pairwise at the end: ``((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))``, a fixed
  order, so results are reproducible (and differ from a sequential sum only by
  reassociation); a W-lane stage (``lanes.py``) first folds its W lanes of a step
  pairwise in lane order, then adds that to the step's accumulator;
* math through ``hls_math.h`` (``hls::exp``...); in C simulation tjit's own
  ``hls_math.h`` maps them to ``<cmath>`` (Vitis' versions of exp/log/... are within a
  few ulp of the C library; the tests allow the renderer's math tolerance).

**Why hls_math and not tjit's own polynomials** (BACKENDS.md proposed the latter, for
bit-identical results across backends): kept hls_math, because

* cost: ``hls::exp`` float32 is a vendor core of ~7 DSPs and ~10 cycles
  (``fpga/op_costs.py``); tjit's float32 exp as rendered C (range reduction and a
  degree-6 polynomial in FMAs, which UltraScale+ builds from a multiply and an add) is
  ~15 float operators, ~35 DSPs and ~50 cycles of pipeline, per lane: times 16 lanes
  of a 512-bit beat (``lanes.py``) that is ~450 more DSPs per exp in a design;
* verification: the vendor cores are verified against the hardware they become, and
  Vitis' own C simulation of an exported project (``make csim``) runs their bit-accurate
  models, so the user's simulation and the card agree bit for bit; only tjit's
  in-process simulation (``<cmath>``) differs, within the ulp table that already lets
  CUDA and OpenCL use their native functions (the accuracy contract promises ulp
  bounds, not the same bits on every backend);
* the polynomials do not yet render to C: mathlib's ``_Ops`` seam has ~45 direct
  llvmlite calls left. Switching is worth it only if a user needs the same bits as
  the CPU backend; then render mathlib through that seam with ``math="tjit"``.
"""

from tjit._sympy import sympy

__all__ = ["CSIM_OPTIONS", "PARTIALS", "PRELUDE", "TRIPCOUNT_HINT", "interface_pragmas",
           "loop_pragmas", "trip_hint"]

#: Interleaved accumulators of a float sum/product: >= the latency of a float64 add
#: at 300 MHz on UltraScale+ (fadd 3-7 cycles, dadd up to 8), a power of two.
PARTIALS = 8
#: The value assumed for every size symbol in LOOP_TRIPCOUNT hints (and the estimate).
TRIPCOUNT_HINT = 1024

PRELUDE = """#include <stdint.h>
#include <math.h>
#include <hls_stream.h>
#include <hls_vector.h>
#include <hls_math.h>
#define TJ_INF_F32 ((float)INFINITY)
#define TJ_NAN_F32 ((float)NAN)
#define TJ_INF_F64 ((double)INFINITY)
#define TJ_NAN_F64 ((double)NAN)"""

#: g++ for C simulation: the pragmas are unknown there (-Wno-unknown-pragmas), warnings
#: are errors; no contraction, no fast math (tjit's accuracy contract).
CSIM_OPTIONS = ("-std=c++17", "-O1", "-Wall", "-Werror", "-Wno-unknown-pragmas",
                "-ffp-contract=off", "-fno-math-errno", "-fPIC", "-shared", "-pthread")


def trip_hint(trip):
    """A loop's trip count as an int: sizes symbols at ``TRIPCOUNT_HINT``."""
    if isinstance(trip, int):
        return trip
    e = sympy.sympify(trip)
    return int(e.subs({s: TRIPCOUNT_HINT for s in e.free_symbols}))


def loop_pragmas(innermost, trip):
    lines = []
    if innermost:
        lines.append("#pragma HLS PIPELINE II=1")
    if not isinstance(trip, int):
        n = max(trip_hint(trip), 1)
        lines.append(f"#pragma HLS LOOP_TRIPCOUNT min=1 max={n} avg={n}")
    return lines


def interface_pragmas(params):
    lines = []
    for n, p in enumerate(params):
        if p.kind == "buffer":
            lines.append(f"#pragma HLS INTERFACE m_axi port={p.name} bundle=gmem{n} "
                         "offset=slave max_widen_bitwidth=512")
        elif p.kind == "size":
            lines.append(f"#pragma HLS INTERFACE s_axilite port={p.name}")
    lines.append("#pragma HLS INTERFACE s_axilite port=return")
    return lines
