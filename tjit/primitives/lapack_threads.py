"""OpenBLAS threads around the LAPACK/BLAS calls of the linalg primitives' reference
implementations (eager calls, and the library steps of compiled programs on the CPU).

NumPy's and SciPy's wheels each ship their own OpenBLAS (pthreads), each with a pool of
one thread per CPU. OpenBLAS splits even small problems across it (a triangular solve
from 8 x 8 on), and its idle workers spin before they sleep. A loop of small
factorizations and solves (``lax.linalg.qdwh``: a ``while_loop`` of 64 x 48 QR steps,
Cholesky factors and triangular solves) thus keeps those workers spinning against the
caller; on a busy machine the caller then waits for a preempted worker's share. Measured
on the 2-vCPU development VM with two busy loops beside it: one jitted qdwh took 45-66
ms of wall and 22 ms of CPU time per call, 0.6 ms with OpenBLAS on one thread (SciPy's
pool alone: 15 ms; both pools: 0.6 ms). Unloaded, two threads gain at most 1.7x on
these sizes (a 128 x 128 triangular solve with 128 right-hand sides).

So a call whose work per matrix (multiply-adds, to the order: ``m * n * min(m, n)`` for
a factorization, ``m * m * k`` for a triangular solve) is below
:data:`SINGLE_THREAD_BELOW` runs with both libraries limited to the calling thread
(``openblas_set_num_threads_local``, restored afterwards; in the wheels' pthreads builds the
count is process-wide, so a NumPy call of another Python thread during such a call runs
on one thread too). A batch counts per matrix: OpenBLAS threads each matrix's
call on its own, so a batch of small matrices gains nothing from the pool. Larger
problems keep the libraries' own threading. Where the symbol is not found (another
BLAS), nothing changes.

The thread count never changes results' bits here: OpenBLAS's threaded trsm, getrf and
gemm split independent blocks (``tests/primitives/test_lapack_threads.py`` checks the
results against the unlimited libraries).
"""

import contextlib
import ctypes
import functools
import sys
import threading

import numpy as np

#: Work per matrix (multiply-adds, to the order) from which a LAPACK/BLAS call may use the
#: library's thread pool: 128^3, the same bar as a gemm split across tjit's own pool
#: (``devices/blas.PARALLEL_MIN_MACS``).
SINGLE_THREAD_BELOW = 1 << 21

#: SciPy's extension module that links SciPy's OpenBLAS (looked up once it is imported:
#: the primitives import scipy.linalg only when they first need it).
_SCIPY_BLAS_MODULE = "scipy.linalg._fblas"


def _load(path):
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


@functools.cache
def numpy_openblas():
    """NumPy's OpenBLAS as a ``ctypes.CDLL`` (through the extension module that links it:
    its symbols resolve there), or None where NumPy has no such module."""
    try:
        from numpy._core import _multiarray_umath
    except ImportError:
        return None
    return _load(_multiarray_umath.__file__)


def _set_threads_local(lib):
    """The library's ``openblas_set_num_threads_local`` (int -> previous int), or None."""
    fn = getattr(lib, "openblas_set_num_threads_local", None) if lib is not None else None
    if fn is None:
        return None
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
    return fn


class _Setters:
    """The per-thread thread-count setters of NumPy's and SciPy's OpenBLAS, one per
    distinct library (a system build may share one between them)."""

    def __init__(self):
        self._found = None        # the setters found so far
        self._scipy_done = False  # SciPy's looked up (it is looked up once imported)

    def get(self):
        if self._found is None:
            self._found = self._dedup([_set_threads_local(numpy_openblas())])
        if not self._scipy_done and _SCIPY_BLAS_MODULE in sys.modules:
            self._scipy_done = True
            lib = _load(sys.modules[_SCIPY_BLAS_MODULE].__file__)
            self._found = self._dedup(self._found + [_set_threads_local(lib)])
        return self._found

    @staticmethod
    def _dedup(fns):
        seen, out = set(), []
        for fn in fns:
            addr = fn and ctypes.cast(fn, ctypes.c_void_p).value
            if addr and addr not in seen:
                seen.add(addr)
                out.append(fn)
        return out


_SETTERS = _Setters()


def libraries_found():
    """How many OpenBLAS libraries this module limits (0 where none was found)."""
    return len(_SETTERS.get())


class _OneThread:
    """OpenBLAS on one thread for the duration of the ``with`` block. The setting is
    process-wide in pthreads builds (the wheels'; ``_local`` only holds for OpenMP
    builds), so blocks of several Python threads share one limit: the first to enter
    saves the libraries' counts and sets 1, the last to leave restores them, unless a
    count was 1 already: then it is the user's, or that of a gemm block of
    ``devices/blas.py`` running on another thread, which restores its own, so no
    interleaving leaves a library at one thread. (A NumPy call of another thread
    meanwhile runs on one thread too.)"""

    __slots__ = ()
    _lock = threading.Lock()
    _depth = 0
    _saved = ()

    def __enter__(self):
        cls = _OneThread
        with cls._lock:
            if cls._depth == 0:
                cls._saved = [(fn, fn(1)) for fn in _SETTERS.get()]
            cls._depth += 1
        return self

    def __exit__(self, *exc):
        cls = _OneThread
        with cls._lock:
            cls._depth -= 1
            if cls._depth == 0:
                for fn, old in reversed(cls._saved):
                    if old != 1:       # 1: the user's, or a gemm block's (devices/blas.py)
                        fn(old)        # that restores its own count
                cls._saved = ()
        return False


def single_threaded(work):
    """Whether a call of ``work`` multiply-adds per matrix runs on the calling thread."""
    return work < SINGLE_THREAD_BELOW


def blas_threads(xp, work):
    """A context for one LAPACK/BLAS call of ``work`` multiply-adds per matrix on the
    array namespace ``xp``: OpenBLAS on one thread where the work is small and ``xp`` is
    NumPy (whose calls run NumPy's and SciPy's OpenBLAS), else the library's threads."""
    if xp is np and single_threaded(work):
        return _OneThread()
    return contextlib.nullcontext()


def factorization_work(shape):
    """Work per matrix of a factorization of the (..., m, n) ``shape``."""
    m, n = shape[-2], shape[-1]
    return m * n * min(m, n)


def solve_work(a_shape, b_shape):
    """Work per matrix of a triangular solve of the (..., m, m) ``a`` against ``b``
    (either side): ``m * m`` per right-hand side."""
    return a_shape[-1] * b_shape[-2] * b_shape[-1]


def with_blas_threads(work):
    """Decorator of a reference implementation ``impl(xp, *operands, **params)``: it runs
    in :func:`blas_threads` of ``work(*operand shapes)``."""
    def decorate(impl):
        @functools.wraps(impl)
        def run(xp, *operands, **params):
            if xp is not np:
                return impl(xp, *operands, **params)
            with blas_threads(xp, work(*(np.shape(x) for x in operands))):
                return impl(xp, *operands, **params)
        return run
    return decorate
