"""``lax.top_k`` along the last axis on the CPU as a compiled selection pass per row.

A library step whose function carries ``top_k_rows`` (the k of a top_k along the last
axis, ``primitives/reductions.py``) runs here as ``lower/llvm/top_k``'s function over
the rows, split across the thread pool: one vector pass over each row for its blocks'
maxima, then a look at the few blocks that can hold the top k, instead of NumPy's
partition, compares, ``nonzero`` and argsort of the candidates ((1024, 1024) float32,
k = 8: ~4.2 -> ~1.1 ms of CPU on one thread; its first use in a process compiles it,
~13 ms of LLVM, unless the disk cache holds it). The results are the NumPy impl's, index
for index (ties to the lower index, NaN above +inf, -0.0 equal to +0.0). Dtypes
without a compiled form (float16), k = 0 and k > ``top_k.MAX_K`` keep the NumPy
function.
"""

import ctypes
import functools
import math

import numpy as np

from tjit.devices import disk_cache
from tjit.devices.array_args import c_contiguous, data_pointer
from tjit.devices.lazy import LazyByKey
from tjit.devices.threads import parallel_for
from tjit.lower.llvm import top_k

#: Elements of work below which a chunk of rows is not worth handing to another thread.
MIN_CHUNK_ELEMENTS = 32768


#: compiles top_k's IR, or loads its object code from the kernel disk cache
_load = functools.partial(disk_cache.load_or_compile, tag="top_k")
#: the compiled top_k of each dtype: compiled (or loaded from the kernel disk cache) once
#: per process
_FUNCTIONS = LazyByKey(lambda dtype: top_k.function(dtype, _load))


def built(dtype):
    """Whether this process has the compiled top_k of ``dtype`` already."""
    return _FUNCTIONS.made(np.dtype(dtype))


def _rows_plan(step, shape, dtype):
    """``(k, n, rows, min_chunk)`` of library step ``step`` on an input of ``shape`` and
    ``dtype`` when it runs as the compiled top_k, else None: the one rule
    :func:`top_k_step` runs by and :func:`foreseen` foresees by."""
    k = getattr(step.fn, "top_k_rows", None)
    if k is None or not 0 < k <= top_k.MAX_K or not shape or not top_k.supported(dtype):
        return None
    n = shape[-1]
    return k, n, math.prod(shape[:-1]), max(1, MIN_CHUNK_ELEMENTS // max(n, 1))


def foreseen(step, shape, dtype, nthreads):
    """For ``helpers_ahead``: ``(builds its function, will split across threads)`` of
    library step ``step`` whose input has ``shape`` (ints) and ``dtype``, as
    :func:`top_k_step` will decide; None when ``step`` is no compiled top_k."""
    plan = _rows_plan(step, shape, dtype)
    if plan is None:
        return None
    _, _, rows, min_chunk = plan
    # (parallel_for splits when at least two chunks of min_chunk rows fit)
    return (functools.partial(_FUNCTIONS.get, np.dtype(dtype)),
            nthreads > 1 and rows >= 2 * min_chunk)


def top_k_step(runner, s):
    """The closure ``run(vals)`` of library step ``s`` as the compiled top_k on ``runner``
    (a CPU ``ProgramRunner`` at a size binding), or None when ``s`` is not one or has no
    compiled form."""
    if len(s.ins) != 1:
        return None     # (another library step: top_k has one input)
    (x_v,) = s.ins
    shape, dtype = runner.shape[x_v], runner.dtype[x_v]
    plan = _rows_plan(s, shape, dtype)
    if plan is None:
        return None
    k, n, rows, min_chunk = plan
    out_shape = tuple(shape[:-1]) + (k,)
    addr = _FUNCTIONS.get(np.dtype(dtype))
    sizes = (ctypes.c_int64 * 2)(n, k)
    argv = (ctypes.c_void_p * 3)()
    k_x = runner.index[x_v]
    k_vals, k_idx = (None if v is None else runner.index[v] for v in s.outs)
    nthreads = runner.nthreads

    def run(vals):
        x = c_contiguous(vals[k_x])
        values, indices = np.empty(out_shape, dtype), np.empty(out_shape, np.int32)
        if rows:
            argv[0], argv[1], argv[2] = (data_pointer(x), data_pointer(values),
                                         data_pointer(indices))
            parallel_for(addr, argv, sizes, rows, nthreads, min_chunk)
        if k_vals is not None:
            vals[k_vals] = values
        if k_idx is not None:
            vals[k_idx] = indices
    return run
