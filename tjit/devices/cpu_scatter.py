"""Row scatters on the CPU as compiled loops instead of NumPy steps.

A library step whose function carries a ``row_scatter`` description (a
``primitives.indexing.RowScatter``: the scatter writes whole rows of the operand's
leading axis, one per id: ``segment_sum``, an embedding lookup's gradient,
``x.at[ids].add(v)``) runs here as one call of ``lower/llvm/scatter_rows``' loop over
the ids, which applies each row's updates in id order, the bits of the NumPy path it
replaces (and of a Python loop). NumPy needs a stable sort of the ids, rounds of fancy
indexing and ``ufunc.accumulate`` folds of repeated rows for that order; the loop is
one pass (k-means' ``segment_sum`` of 8192 x 32 into 64 rows: 3.6 ms -> ~0.03 ms).
Steps the compiled form does not cover (dtypes, an unused result) keep the NumPy
function.
"""

import functools
import math

import numpy as np

from tjit.devices import disk_cache
from tjit.devices.array_args import c_contiguous, data_pointer
from tjit.devices.lazy import LazyByKey
from tjit.lower.llvm import scatter_rows

#: compiles a row scatter's IR, or loads its object code from the kernel disk cache
_load = functools.partial(disk_cache.load_or_compile, tag="scatter_rows")
#: the compiled row scatter of each (combine, dtype, index dtype, mode): compiled (or
#: loaded from the kernel disk cache) once per process
_FUNCTIONS = LazyByKey(lambda key: scatter_rows.function(*key, _load))


def row_scatter_step(runner, s):
    """The closure ``run(vals)`` of library step ``s`` as a compiled row scatter on
    ``runner`` (a CPU ``ProgramRunner`` at a size binding), or None when ``s`` is not one
    or has no compiled form."""
    form = getattr(s.fn, "row_scatter", None)
    if form is None or len(s.outs) != 1 or s.outs[0] is None:
        return None
    out_v = s.outs[0]
    ids_v, upd_v = s.ins[-2:]
    shape, dtype = runner.shape[out_v], runner.dtype[out_v]
    ids_dtype = runner.dtype[ids_v]
    if runner.dtype[upd_v] != dtype or not scatter_rows.supported(form.combine, dtype,
                                                                 ids_dtype):
        return None
    fn = _FUNCTIONS.get((form.combine, np.dtype(dtype), np.dtype(ids_dtype),
                         "clip" if form.clip else "drop"))
    index = runner.index
    k_out, k_ids, k_upd = index[out_v], index[ids_v], index[upd_v]
    k_operand = None if form.into_zeros else index[s.ins[0]]
    n_rows, width = shape[0], math.prod(shape[1:])
    n_ids = math.prod(runner.shape[ids_v][:-1])
    work = n_ids > 0 and n_rows > 0 and width > 0

    def run(vals):
        if k_operand is None:
            out = np.zeros(shape, dtype)
        else:
            out = np.array(vals[k_operand], dtype, order="C")   # (a copy: ours to write)
        if work:
            ids, upd = c_contiguous(vals[k_ids]), c_contiguous(vals[k_upd])
            fn(data_pointer(ids), data_pointer(upd), data_pointer(out), n_ids, n_rows, width)
        vals[k_out] = out
    return run
