"""Copies of many device byte ranges in one kernel launch, their addresses read from a
device-side table: how a CUDA graph replay (``cuda_graphs``) gathers its arguments into
its fixed input buffers and scatters its outputs into fresh allocations.

Why: one ``cudaMemcpyAsync`` per argument and per output (15 for the MLP training step)
costs each a host call of ~2 us and a separate copy on the GPU of ~2-3 us plus the gap
between them, before and after the graph: most of what a replay of that step took over
JAX's latency on an H100. Here a call writes the table's changing column (the arguments'
and the new outputs' addresses) into a host array, sends it with one small
host-to-device copy, and the graph's first node (gather) and last node (scatter) copy
every range at once.

The table is int64, one row per range: (source address, destination address, bytes). A
launch of :data:`ENTRY` on a grid of (x, rows) blocks of :data:`BLOCK` threads copies
rows ``first .. first + rows - 1``: block row ``blockIdx.y``, the blocks along x striding
over its bytes (16 bytes at a time when both addresses and the length allow it). A row
whose source is its destination (an argument that already is its input buffer) or of
0 bytes copies nothing. Ranges of one launch must not overlap (a replay's never do:
fixed buffers are its own).
"""

import threading

from tjit.devices import cuda_compile

ENTRY = "tjit_copy_rows"
#: Threads per block; blocks per row at most :data:`MAX_BLOCKS_PER_ROW`.
BLOCK = 256
MAX_BLOCKS_PER_ROW = 1024
#: Int64 entries per table row.
ROW = 3

SOURCE = r"""
extern "C" __global__ void tjit_copy_rows(const long long* __restrict__ table, int first)
{
    const long long* row = table + 3 * ((long long)first + blockIdx.y);
    const char* src = (const char*)row[0];
    char* dst = (char*)row[1];
    const long long n = row[2];
    if (src == dst || n <= 0) return;
    const long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    const unsigned long long bits = (unsigned long long)src | (unsigned long long)dst |
                                    (unsigned long long)n;
    if ((bits & 15) == 0) {
        const uint4* s = (const uint4*)src;
        uint4* d = (uint4*)dst;
        for (long long i = start; i < n / 16; i += step) d[i] = s[i];
    } else if ((bits & 3) == 0) {
        const unsigned int* s = (const unsigned int*)src;
        unsigned int* d = (unsigned int*)dst;
        for (long long i = start; i < n / 4; i += step) d[i] = s[i];
    } else {
        for (long long i = start; i < n; i += step) dst[i] = src[i];
    }
}
"""


def grid(row_bytes):
    """The launch grid ``(x, rows)`` for rows of ``row_bytes`` bytes each."""
    widest = max(row_bytes, default=0)
    x = max(1, min(MAX_BLOCKS_PER_ROW, -(-widest // (16 * BLOCK))))
    return (x, len(row_bytes))


_FUNCTIONS = {}     # (arch, device id) -> the loaded function
_LOCK = threading.Lock()


def load(arch, device_id):
    """The loaded copy kernel (a CuPy ``Function``) for ``arch`` on device ``device_id``:
    compiled by NVRTC with the CUDA dialect's options, cached on disk like tjit's
    kernels, loaded once per process and device."""
    key = (arch, device_id)
    with _LOCK:
        fn = _FUNCTIONS.get(key)
        if fn is None:
            module = cuda_compile.load_module(cuda_compile.cubin_for(SOURCE, arch))
            fn = module.get_function(ENTRY)
            # (RawKernel's Function, loaded now: nothing is looked up during a capture)
            fn = _FUNCTIONS[key] = getattr(fn, "kernel", fn)
        return fn
