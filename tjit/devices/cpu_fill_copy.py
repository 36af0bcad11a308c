"""Kernels that only fill or copy memory, run by NumPy instead of compiled.

Fusion leaves some kernels that compute nothing: a contiguous copy (a reshape or layout
change the consumer could not read in place, e.g. a convolution's input before its
patches are gathered), a constant fill (``jnp.ones``), one scalar broadcast over an
array, or a small strided copy (a convolution weight's transpose). Compiled, each costs
LLVM ~10-75 ms on the first call (a third of a small CNN's kernels were copies) for a
loop no faster than ``memcpy``/``memset``. Here they are a
NumPy ``copyto``/``fill`` of the flat buffers (a strided view of the input for a strided
copy): the same bytes (no arithmetic, no conversion), no compile.

Kept compiled: a loop body's kernels (``many_calls``: ``native_loop`` calls every
kernel of a body natively), and copies or fills big enough to be split across threads
(``_SPLIT_POINTS``), where two cores move memory faster than NumPy's one.
"""

import math

import numpy as np

from tjit.lower.llvm.split import split_axis
from tjit.xla_like import kernel_ir as K

#: Iteration points from which the runtime may split a copy across threads
#: (``cpu.PARALLEL_MIN_WORK`` for a kernel of work 1 a point).
_SPLIT_POINTS = 1 << 19
#: Largest strided copy (a transpose, a broadcast of rows, a strided slice) run by NumPy.
#: Measured (float32, CNN weight and activation layouts): up to 9216 points NumPy's
#: strided copy took 0.8-1.4x the compiled kernel's time (1-5 us) where the kernel cost
#: LLVM 25-75 ms (a transposing kernel is tiled, ``codegen._transpose_tile``); from
#: 262144 points a real transpose took NumPy 4x as long (570 vs 138 us).
STRIDED_MAX_POINTS = 1 << 14


def plain_fill_or_copy(k):
    """What kernel ``k`` does, when it only fills or copies memory, else None:

    * ``("fill", value)``: the first ``n`` elements of the output are ``value``;
    * ``("copy", arg, offset)``: they are elements ``offset .. offset + n`` of input
      ``arg``;
    * ``("broadcast", arg, offset)``: they are all element ``offset`` of input ``arg``;
    * ``("strided", arg, offset, coefs)``: they are input ``arg``'s elements at
      ``offset + sum(coefs[a] * i[a])`` over the iteration space in row-major order
      (at most ``STRIDED_MAX_POINTS`` of them);

    ``n`` being the kernel's point count. The answer is kept on the (immutable) kernel."""
    if "_plain_fill_or_copy" not in k.__dict__:
        object.__setattr__(k, "_plain_fill_or_copy", _classify(k))
    return k.__dict__["_plain_fill_or_copy"]


def _classify(k):
    shape = k.shape
    if (k.reduce_axes or k.stages or k.inplace or k.hyperplane is not None
            or k.size_symbols or len(k.stores) != 1
            or not all(isinstance(d, int) for d in shape)):
        return None
    points = math.prod(shape)
    ax = split_axis(k)
    if ax is not None and shape[ax] >= 2 and points >= _SPLIT_POINTS:
        return None     # (the runtime would split it across threads)
    (st,) = k.stores
    out = k.args[st.arg]
    if out.role != "out" or not _contiguous(st.index, shape):
        return None
    e = st.expr
    if isinstance(e, K.Const) and np.dtype(e.dtype) == np.dtype(out.dtype):
        return ("fill", e.value)
    if not (isinstance(e, K.Load) and isinstance(e.index.offset, int)
            and k.args[e.arg].role == "in"
            and np.dtype(e.dtype) == np.dtype(out.dtype) == np.dtype(k.args[e.arg].dtype)):
        return None
    if all(c == 0 or d == 1 for c, d in zip(e.index.coefs, shape)):
        return ("broadcast", e.arg, e.index.offset)
    if _contiguous(K.Affine(0, e.index.coefs), shape):
        return ("copy", e.arg, e.index.offset)
    if points <= STRIDED_MAX_POINTS and \
            all(isinstance(c, int) for c in e.index.coefs):   # (< 0: a flip)
        return ("strided", e.arg, e.index.offset, tuple(e.index.coefs))
    return None


def _contiguous(index, shape):
    """Whether ``index`` is the row-major linear index of ``shape`` (from 0)."""
    if index.offset != 0:
        return False
    stride = 1
    for c, d in zip(reversed(index.coefs), reversed(shape)):
        if d != 1 and c != stride:
            return False
        stride *= d
    return True


def runs_in_numpy(k, many_calls=False):
    """Whether the CPU runtime runs kernel ``k`` with NumPy (not compiled):
    ``many_calls``: ``k`` belongs to a loop body."""
    return not many_calls and plain_fill_or_copy(k) is not None


def step(k):
    """``run(in_arrays, out_array)`` doing what ``k`` does (``plain_fill_or_copy``):
    ``in_arrays`` holds the kernel's arguments before its output (those the step reads),
    and the output array's first ``n`` elements are written."""
    what = plain_fill_or_copy(k)
    n = math.prod(k.shape)
    if n == 0:      # (a zero-size input may have no buffer to view or index)
        return lambda arrays, o: None
    kind = what[0]
    if kind == "fill":
        value = np.dtype(k.args[k.stores[0].arg].dtype).type(what[1])

        def run(arrays, o):
            o.reshape(-1)[:n].fill(value)
        return run
    j, offset = what[1], what[2]
    if kind == "strided":
        shape, itemsize = k.shape, np.dtype(k.args[j].dtype).itemsize
        strides = tuple(c * itemsize for c in what[3])

        def run(arrays, o):
            # (np.ndarray checks that the view stays inside the input's buffer)
            view = np.ndarray(shape, o.dtype, arrays[j], offset * itemsize, strides)
            np.copyto(o.reshape(-1)[:n].reshape(shape), view)
        return run
    if kind == "broadcast":
        def run(arrays, o):
            o.reshape(-1)[:n].fill(arrays[j].reshape(-1)[offset])
        return run

    def run(arrays, o):
        np.copyto(o.reshape(-1)[:n], arrays[j].reshape(-1)[offset:offset + n])
    return run
