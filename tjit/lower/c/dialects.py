"""The C-family dialects: what differs between C, OpenCL C and CUDA C, as attributes.

One renderer (``renderer.py``) writes every dialect; a :class:`Dialect` only names
things (tinygrad's ``CStyleLanguage`` idea): the kernel qualifier, the buffer address
space, the restrict keyword, type spellings, the thread/group index builtins (None:
plain loops, no threads), the barrier, the shared-memory qualifier, math function
names and the compile options that keep tjit's accuracy contract (no FMA contraction,
no flush-to-zero, correctly rounded division and square root, no fast math).

Vector types (``vectors``: dtype name -> (spelling, lanes), 16 bytes each) with their
load/store/construct spellings let pointwise kernels move 16 bytes per access; the
renderer checks each address's alignment at run time (see ``renderer.py``).
``chunk_vectors`` and ``chunk_unroll`` give a thread more vectors per grid-stride step
(adjacent ones, or chunks a grid apart); both 1 in every dialect here, a launch choice
the CUDA runtime can make (``devices/cuda.py``, ``TJIT_CUDA_POINTWISE``).

``HLS`` (Vitis HLS C++, ``hls_dialect.py``) is a ``dataclasses.replace`` of ``C`` plus
its hooks: ``loop_pragmas(innermost, trip)`` returns the lines that open each loop
body (``trip``: the loop's trip count, an int or a sympy expression over size symbols;
``innermost``: no loop inside it), ``interface_pragmas(params)`` the lines that open a
top function (its AXI ports); both return nothing for c, opencl and cuda. ``partials``
> 1 folds float sums/products into that many interleaved accumulators (a pipelined
loop keeps II=1 despite the adder's latency); ``reuse_stores`` lets a row-style kernel
leave a value in an output and read it back (GPUs: a load is cheaper than an ``exp``;
an FPGA recomputes instead of adding a memory round trip); ``stream_type`` spells a
stream argument (``render(io=...)``).
"""

import dataclasses

import numpy as np

from tjit.lower.c import hls_dialect

__all__ = ["CUDA", "DIALECTS", "HLS", "OPENCL", "OPENCL_SWI", "C", "Dialect", "get",
           "no_pragmas"]

#: dtype name -> C99 spelling (``<stdint.h>``)
_C_TYPES = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
            "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
            "uint32": "uint32_t", "uint64": "uint64_t", "float32": "float",
            "float64": "double", "float16": "float"}
_CL_TYPES = {"bool": "bool", "int8": "char", "int16": "short", "int32": "int",
             "int64": "long", "uint8": "uchar", "uint16": "ushort", "uint32": "uint",
             "uint64": "ulong", "float32": "float", "float64": "double",
             "float16": "float"}
# NVRTC has no <stdint.h>: the built-in spellings (LP64 is not assumed: long long)
_CUDA_TYPES = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int",
               "int64": "long long", "uint8": "unsigned char", "uint16": "unsigned short",
               "uint32": "unsigned int", "uint64": "unsigned long long",
               "float32": "float", "float64": "double", "float16": "float"}

#: kernel-IR op (or helper use) -> C math function base name (float64 spelling)
MATH_NAMES = {"exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
              "log1p": "log1p", "tanh": "tanh", "sin": "sin", "cos": "cos", "tan": "tan",
              "erf": "erf", "pow": "pow", "atan2": "atan2", "cbrt": "cbrt", "sqrt": "sqrt",
              "floor": "floor", "ceil": "ceil", "round": "round", "round_even": "rint",
              "abs": "fabs", "rem": "fmod", "asin": "asin", "acos": "acos", "atan": "atan",
              "sinh": "sinh", "cosh": "cosh", "asinh": "asinh", "acosh": "acosh",
              "atanh": "atanh", "erfc": "erfc", "lgamma": "lgamma", "nextafter": "nextafter",
              "fma": "fma"}

_C_PRELUDE = """#include <stdint.h>
#include <stdbool.h>
#include <math.h>
#define TJ_INF_F32 ((float)INFINITY)
#define TJ_NAN_F32 ((float)NAN)
#define TJ_INF_F64 ((double)INFINITY)
#define TJ_NAN_F64 ((double)NAN)"""

_CL_PRELUDE = """#define TJ_INF_F32 INFINITY
#define TJ_NAN_F32 NAN
#define TJ_INF_F64 ((double)INFINITY)
#define TJ_NAN_F64 ((double)NAN)"""

_CUDA_PRELUDE = """#define TJ_INF_F32 __int_as_float(0x7f800000)
#define TJ_NAN_F32 __int_as_float(0x7fc00000)
#define TJ_INF_F64 __longlong_as_double(0x7ff0000000000000LL)
#define TJ_NAN_F64 __longlong_as_double(0x7ff8000000000000LL)"""


def no_pragmas(innermost, trip):
    """The ``loop_pragmas`` of dialects without loop pragmas."""
    return ()


def no_interface(params):
    """The ``interface_pragmas`` of dialects without port pragmas."""
    return ()


# float16: a register value is a float holding a half value (every op computes in float
# and rounds once to half, as NumPy's float16 loops do: ``scalar.py``); memory holds
# IEEE binary16 bits, read and written by three helpers: ``tj_h2f`` (bits -> float),
# ``tj_f2h`` / ``tj_d2h`` (float / double -> bits, round to nearest even). A NaN keeps
# the top bits of its payload both ways, as NumPy's conversions do (hardware gives a
# canonical NaN); other values go through the target's own conversion.
def _half_helpers(u16, u32, u64, f2u, u2f, d2u, h2f_fin, f2h_fin, d2h_fin):
    """The three helpers' definitions; the spellings: ``u16/u32/u64`` unsigned types,
    ``f2u``/``u2f``/``d2u`` bit casts (format(x=)), ``*_fin`` the finite conversions
    (format(h=) / format(x=), statements ending in a return)."""
    nan_bits = ("{u32} m = ({u32})((b & {mask}) >> {shift}); return ({u16})(((b >> {sgn}) "
                "& 0x8000u) | 0x7c00u | (m ? m : 1u));")
    return {
        "tj_h2f": f"float tj_h2f({u16} h) {{ if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) "
                  f"return {u2f.format(x=f'(({u32})(h & 0x8000u) << 16) | 0x7f800000u | (({u32})(h & 0x3ffu) << 13)')}; "
                  f"{h2f_fin} }}",
        "tj_f2h": f"{u16} tj_f2h(float x) {{ if (x != x) {{ {u32} b = {f2u.format(x='x')}; "
                  + nan_bits.format(u32=u32, u16=u16, mask="0x7fffffu", shift=13, sgn=16)
                  + f" }} {f2h_fin} }}",
        "tj_d2h": f"{u16} tj_d2h(double x) {{ if (x != x) {{ {u64} b = {d2u.format(x='x')}; "
                  + nan_bits.format(u32=u32, u16=u16, mask=f"({u64})0xfffffffffffff", shift=42,
                                    sgn=48)
                  + f" }} {d2h_fin} }}"}


def _half(u16, funcs, ptr_cast=""):
    load = "tj_h2f(" + (f"(({ptr_cast}){{ptr}})" if ptr_cast else "{ptr}") + "[{at}])"
    store = (f"(({ptr_cast.replace('const ', '')}){{ptr}})" if ptr_cast else "{ptr}") + \
        "[{at}] = tj_f2h({value});"
    return dict(half_load=load, half_store=store, half_round="tj_h2f(tj_f2h({x}))",
                half_from_f64="tj_h2f(tj_d2h({x}))", half_funcs=funcs)


_C_HALF = dict(half_mem="uint16_t", **_half("uint16_t", _half_helpers(
    "uint16_t", "uint32_t", "uint64_t",
    "tj_bits32({x})", "tj_float32({x})", "tj_bits64({x})",
    "_Float16 v; __builtin_memcpy(&v, &h, 2); return (float)v;",
    "_Float16 v = (_Float16)x; uint16_t h; __builtin_memcpy(&h, &v, 2); return h;",
    "_Float16 v = (_Float16)x; uint16_t h; __builtin_memcpy(&h, &v, 2); return h;")))
_C_HALF["half_funcs"] = {
    "tj_bits32": "uint32_t tj_bits32(float x) { uint32_t b; __builtin_memcpy(&b, &x, 4); "
                 "return b; }",
    "tj_float32": "float tj_float32(uint32_t b) { float x; __builtin_memcpy(&x, &b, 4); "
                  "return x; }",
    "tj_bits64": "uint64_t tj_bits64(double x) { uint64_t b; __builtin_memcpy(&b, &x, 8); "
                 "return b; }",
    **_C_HALF["half_funcs"]}
# OpenCL C without cl_khr_fp16: ``half`` only as a pointer, so buffers are read and
# written as ushort bits converted in integer arithmetic (exact, round to nearest even
# at bit 13 / 42; subnormals scaled by 2^24 and rounded by rint). (vload_half /
# vstore_half_rte through a private ushort gave wrong sums in PoCL's row kernels with
# barriers, and a canonical NaN.)
_CL_HALF = dict(half_mem="half", **_half("ushort", {
    "tj_h2f": "float tj_h2f(ushort h) { uint s = (uint)(h & 0x8000u) << 16; "
              "uint e = (h >> 10) & 0x1fu; uint m = h & 0x3ffu; "
              "if (e == 0x1fu) return as_float(s | 0x7f800000u | (m << 13)); "
              "if (e == 0) return as_float(s | as_uint((float)m * 5.9604644775390625e-8f)); "
              "return as_float(s | ((e + 112u) << 23) | (m << 13)); }",
    "tj_f2h": "ushort tj_f2h(float x) { uint b = as_uint(x); ushort s = (b >> 16) & 0x8000u; "
              "uint a = b & 0x7fffffffu; if (a > 0x7f800000u) { uint m = (a & 0x7fffffu) >> 13; "
              "return s | 0x7c00u | (m ? m : 1u); } if (a >= 0x477ff000u) return s | 0x7c00u; "
              "if (a < 0x38800000u) return s | (ushort)rint(as_float(a) * 16777216.0f); "
              "uint r = a + 0xfffu + ((a >> 13) & 1u); "
              "return s | (ushort)((r >> 13) - (112u << 10)); }",
    "tj_d2h": "ushort tj_d2h(double x) { ulong b = as_ulong(x); ushort s = (b >> 48) & 0x8000u; "
              "ulong a = b & 0x7fffffffffffffffUL; if (a > 0x7ff0000000000000UL) { "
              "uint m = (uint)((a & 0xfffffffffffffUL) >> 42); "
              "return s | 0x7c00u | (m ? m : 1u); } "
              "if (a >= 0x40effe0000000000UL) return s | 0x7c00u; "
              "if (a < 0x3f10000000000000UL) return s | (ushort)rint(as_double(a) * 16777216.0); "
              "ulong r = a + 0x1ffffffffffUL + ((a >> 42) & 1UL); "
              "return s | (ushort)((r >> 42) - (1008u << 10)); }"},
    ptr_cast="__global const ushort *"))
# CUDA: binary16 as unsigned short converted by PTX's cvt (what cuda_fp16.h's
# __half2float / __float2half_rn / __double2half compile to; NVRTC ships no
# cuda_fp16.h without the toolkit's headers on its include path); cvt without .ftz
# keeps subnormals
_CUDA_HALF = dict(half_mem="unsigned short", **_half("unsigned short", _half_helpers(
    "unsigned short", "unsigned int", "unsigned long long", "__float_as_uint({x})",
    "__uint_as_float({x})", "(unsigned long long)__double_as_longlong({x})",
    'float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;',
    'unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h;',
    'unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x)); return h;')))

_VEC_CL = {"float32": ("float4", 4), "int32": ("int4", 4), "uint32": ("uint4", 4),
           "float64": ("double2", 2), "int64": ("long2", 2), "uint64": ("ulong2", 2)}
_VEC_CUDA = {"float32": ("float4", 4), "int32": ("int4", 4), "uint32": ("uint4", 4),
             "float64": ("double2", 2), "int64": ("longlong2", 2),
             "uint64": ("ulonglong2", 2)}


_DTYPE_NAMES = {}


def dtype_name(dt):
    """``np.dtype(dt).name``, remembered per ``dt`` (NumPy computes the name in Python,
    ~2 us: a fifth of rendering a large kernel, which spells a type per line)."""
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = np.dtype(dt).name
    return name


@dataclasses.dataclass(frozen=True)
class Dialect:
    """What one C-family target spells differently. Index builtins are C expressions;
    ``global_id`` None means the target has no threads: the renderer writes loops."""
    name: str
    prelude: str                   # includes/macros once per translation unit
    f64_prelude: str               # added when a kernel uses float64
    kernel_prefix: str             # before ``void``
    func_prefix: str               # helper functions
    buffer_qual: str               # address space of buffer parameters
    restrict: str
    types: dict                    # dtype name -> spelling
    u64_suffix: str                # suffix of a 64-bit unsigned literal
    math_suffix_f32: str           # expf vs exp (OpenCL overloads one name)
    global_id: object = None       # first global work-item index (int64 expression)
    global_size: object = None     # number of work-items in the grid
    local_id: object = None
    group_id: object = None
    num_groups: object = None
    barrier: str = ""
    shared_qual: str = ""
    local_size: int = 1            # work-group size of row-style kernels (power of two)
    warp_size: int = 0             # lanes that shuffle_down reaches (0: no shuffles)
    shuffle_down: str = ""         # format(value=, offset=): a lane's value from lane + offset
    #: format(value=, offset=, width=): ``shuffle_down`` within segments of ``width`` lanes
    shuffle_down_width: str = ""
    shuffle_first: str = ""        # format(value=, width=): the value of its segment's lane 0
    unroll: str = ""               # the line before a loop of constant trip to unroll
    compile_options: tuple = ()
    #: (innermost, trip) -> lines opening a loop body (HLS: PIPELINE, LOOP_TRIPCOUNT)
    loop_pragmas: object = no_pragmas
    #: (params) -> lines opening a top-level function (HLS: m_axi / s_axilite ports)
    interface_pragmas: object = no_interface
    math_prefix: str = ""          # namespace of the math functions (HLS: ``hls::``)
    #: the population count of a 32-bit / 64-bit unsigned value
    popcount: tuple = ("__builtin_popcount", "__builtin_popcountll")
    partials: int = 1              # interleaved accumulators of a float sum/product
    reuse_stores: bool = True      # row style may round-trip a value through an output
    stream_type: str = ""          # format(t=): a stream argument's type (HLS)
    static_prefix: str = "static"  # before ``void`` of a function that is not a top
    tiled_dots: bool = False       # dots as the tiled template / tiling (``tiled_dot.py``)
    #: dtype name -> (vector type, lanes): 16-byte vectors ({}: scalar accesses only)
    vectors: dict = dataclasses.field(default_factory=dict)
    #: vectorized pointwise kernels: adjacent 16-byte vectors per chunk (a chunk is
    #: ``chunk_vectors * lanes`` consecutive points) ...
    chunk_vectors: int = 1
    #: ... and chunks a thread takes per grid-stride step, a grid apart (all their loads
    #: issued before their stores): more loads in flight per thread (``vectors.py``)
    chunk_unroll: int = 1
    vload: str = ""                # format(vt=, n=, ptr=): a vector from aligned ptr
    vstore: str = ""               # format(vt=, n=, ptr=, value=): a statement
    vmake: str = ""                # format(vt=, args=): a vector from its lanes
    lanes: tuple = ("x", "y", "z", "w")
    half_mem: str = ""             # a float16 element in memory ("": no float16 kernels)
    half_load: str = ""            # format(ptr=, at=): the float value of ptr[at]
    half_store: str = ""           # format(ptr=, at=, value=): a statement
    half_round: str = ""           # format(x=): float x rounded to half (a float)
    half_from_f64: str = ""        # format(x=): double x rounded once to half (a float)
    half_funcs: dict = dataclasses.field(default_factory=dict)   # name -> definition

    @property
    def threaded(self):
        return self.global_id is not None

    def type(self, dt):
        """The spelling of a register value of dtype ``dt``."""
        return self.types[dtype_name(dt)]

    def mem_type(self, dt):
        """The spelling of an element in memory (bool is one byte)."""
        name = dtype_name(dt)
        if name == "float16":
            return self.half_mem
        return self.types["uint8" if name == "bool" else name]

    def shared_type(self, dt):
        """The spelling of an element of shared/local memory: as in global memory, but
        float16 partials stay floats (they are sums not yet rounded, and OpenCL has no
        half arithmetic)."""
        return self.type(dt) if dtype_name(dt) == "float16" else self.mem_type(dt)

    def math_name(self, op, dt):
        """The accurate math function for ``op`` on float dtype ``dt``."""
        base = self.math_prefix + MATH_NAMES[op]
        return base + self.math_suffix_f32 if np.dtype(dt).itemsize <= 4 else base


C = Dialect(
    name="c", prelude=_C_PRELUDE, f64_prelude="", kernel_prefix="",
    func_prefix="static inline", buffer_qual="", restrict="restrict", types=_C_TYPES,
    u64_suffix="ULL", math_suffix_f32="f",
    # no -ffast-math: IEEE specials, no FTZ; no contraction of a*b+c into an FMA
    compile_options=("-std=c99", "-O2", "-ffp-contract=off", "-fno-math-errno", "-fPIC",
                     "-shared"), **_C_HALF)

OPENCL = Dialect(
    name="opencl", prelude=_CL_PRELUDE,
    f64_prelude="#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
    kernel_prefix="__kernel", func_prefix="static inline", buffer_qual="__global",
    restrict="restrict", types=_CL_TYPES, u64_suffix="UL", math_suffix_f32="",
    popcount=("popcount", "popcount"),
    global_id="(long)get_global_id(0)", global_size="(long)get_global_size(0)",
    local_id="(long)get_local_id(0)", group_id="(long)get_group_id(0)",
    num_groups="(long)get_num_groups(0)", barrier="barrier(CLK_LOCAL_MEM_FENCE);",
    shared_qual="__local", local_size=64, vectors=_VEC_CL, unroll="#pragma unroll",
    tiled_dots=True,
    vload="vload{n}(0, {ptr})", vstore="vstore{n}({value}, 0, {ptr});",
    vmake="({vt})({args})",
    # never -cl-fast-relaxed-math / -cl-mad-enable; division and sqrt correctly rounded
    compile_options=("-cl-fp32-correctly-rounded-divide-sqrt",), **_CL_HALF)

#: Single-work-item OpenCL (Intel's recommended style for FPGA OpenCL compilers): each
#: kernel is one work-item running the loop nest in order, like C (launch 1 x 1); the
#: FPGA compiler pipelines the loops. Runs on any OpenCL device (PoCL in CI).
OPENCL_SWI = dataclasses.replace(
    OPENCL, name="opencl_swi", global_id=None, global_size=None, local_id=None,
    group_id=None, num_groups=None, barrier="", shared_qual="", local_size=1, vectors={},
    unroll="", tiled_dots=False)

CUDA = Dialect(
    name="cuda", prelude=_CUDA_PRELUDE, f64_prelude="", kernel_prefix='extern "C" __global__',
    func_prefix="static __device__ __forceinline__", buffer_qual="", restrict="__restrict__",
    types=_CUDA_TYPES, u64_suffix="ULL", math_suffix_f32="f", popcount=("__popc", "__popcll"),
    global_id="((long long)blockIdx.x * blockDim.x + threadIdx.x)",
    global_size="((long long)gridDim.x * blockDim.x)",
    local_id="((long long)threadIdx.x)", group_id="((long long)blockIdx.x)",
    num_groups="((long long)gridDim.x)", barrier="__syncthreads();",
    shared_qual="__shared__", local_size=256, warp_size=32,
    shuffle_down="__shfl_down_sync(0xffffffffu, {value}, {offset})", vectors=_VEC_CUDA,
    shuffle_down_width="__shfl_down_sync(0xffffffffu, {value}, {offset}, {width})",
    shuffle_first="__shfl_sync(0xffffffffu, {value}, 0, {width})", unroll="#pragma unroll",
    vload="*(const {vt} *)({ptr})", vstore="*({vt} *)({ptr}) = {value};",
    vmake="make_{vt}({args})",
    # two chunks a thread per grid-stride step (``devices/cuda_pointwise.py``): on an
    # H100, 20% faster on rows of 1001 and 4-7% on Mish grad and float64, within 2%
    # of one chunk elsewhere (benchmarks/gpu_variants.py, 2026-11-27)
    chunk_unroll=2,
    # NVRTC: no --use_fast_math / -ftz; --fmad=false (fmad=true changed 948 of 4096
    # float32 a*b+c results on an H200); division and sqrt IEEE-rounded
    compile_options=("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                     "--std=c++17"), **_CUDA_HALF)

#: Vitis HLS C++ (C simulation: g++ with tjit's headers, ``tjit/fpga/include``): C's
#: scalar code with ``hls_math.h`` functions, AXI interface and pipeline pragmas.
HLS = dataclasses.replace(
    C, name="hls", prelude=hls_dialect.PRELUDE, kernel_prefix='extern "C"',
    restrict="__restrict", math_prefix="hls::", math_suffix_f32="",
    loop_pragmas=hls_dialect.loop_pragmas, interface_pragmas=hls_dialect.interface_pragmas,
    partials=hls_dialect.PARTIALS, reuse_stores=False, stream_type="hls::stream<{t}> &",
    tiled_dots=True, half_mem="", half_load="", half_store="", half_round="",
    half_from_f64="",
    compile_options=hls_dialect.CSIM_OPTIONS)

DIALECTS = {d.name: d for d in (C, OPENCL, OPENCL_SWI, CUDA, HLS)}


def get(dialect):
    """A :class:`Dialect` from itself or its name (``"c"``, ``"opencl"``,
    ``"opencl_swi"``, ``"cuda"``, ``"hls"``)."""
    if isinstance(dialect, Dialect):
        return dialect
    try:
        return DIALECTS[dialect]
    except KeyError:
        raise ValueError(f"C renderer: unknown dialect {dialect!r} (known: "
                         f"{', '.join(DIALECTS)})") from None
