"""OpenBLAS threads around the LAPACK/BLAS calls of the linalg primitives' reference
implementations (eager calls, and the library steps of compiled programs on the CPU).

NumPy's and SciPy's wheels each ship their own OpenBLAS (pthreads), each with a pool of
one thread per CPU. OpenBLAS splits even small problems across it (a triangular solve
from 8 x 8 on), and its idle workers spin before they sleep. A loop of small
factorizations and solves (``lax.linalg.qdwh``: a ``while_loop`` of 64 x 48 QR steps,
Cholesky factors and triangular solves) thus keeps those workers spinning against the
caller; on a busy machine the caller then waits for a preempted worker's share. Measured
on the 2-vCPU development VM with two busy loops beside it: one jitted qdwh took 45-66
ms of wall and 22 ms of CPU time per call, 0.6 ms with OpenBLAS on one thread (NumPy's
alone on one thread: 15 ms; SciPy's alone: 0.8 ms). Unloaded, two threads gain at most 1.7x on
these sizes (a 128 x 128 triangular solve with 128 right-hand sides).

So a call whose work per matrix (multiply-adds, to the order: ``m * n * min(m, n)`` for
a factorization, ``m * m * k`` for a triangular solve) is below
:data:`SINGLE_THREAD_BELOW` runs with the OpenBLAS of the library it calls (NumPy's or
SciPy's: limiting only that one halves the cost, ~2-5 us a call) on one thread
(``openblas_set_num_threads_local``, restored afterwards; in the wheels' pthreads builds
the count is process-wide, so a NumPy call of another Python thread during such a call
runs on one thread too). A batch counts per matrix: OpenBLAS threads each matrix's call
on its own, so a batch of small matrices gains nothing from the pool. Larger
problems keep the libraries' own threading. Where the symbol is not found (another
BLAS), nothing changes.

Limiting the thread count did not change results' bits in the checks made
(``tests/primitives/test_lapack_threads.py``: cholesky, qr, lu, eigh, svd and
triangular_solve at several sizes, against the libraries at their default threads).
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

#: SciPy's extension module that links SciPy's OpenBLAS.
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


@functools.cache
def setters(library):
    """The thread-count setters of ``library`` ("numpy": NumPy's OpenBLAS; "scipy":
    SciPy's, imported here if need be) as a tuple: empty where it was not found."""
    if library == "numpy":
        lib = numpy_openblas()
    else:
        import scipy.linalg  # noqa: F401  (what the caller is about to use)
        lib = _load(sys.modules[_SCIPY_BLAS_MODULE].__file__)
    fn = _set_threads_local(lib)
    return (fn,) if fn is not None else ()


def libraries_found():
    """How many distinct OpenBLAS libraries NumPy and SciPy use (0: another BLAS)."""
    return len({ctypes.cast(fn, ctypes.c_void_p).value
                for lib in ("numpy", "scipy") for fn in setters(lib)})


class _OneThread:
    """One library's OpenBLAS on one thread for the duration of the ``with`` block. The
    setting is process-wide in pthreads builds (the wheels'; ``_local`` only holds for
    OpenMP builds), so blocks of several Python threads share one limit: the first to
    enter saves the count and sets 1, the last to leave restores it (unless it was 1).
    Once a native shim of the library is loaded, the blocks together take part in the
    shims' guard (:func:`share_guard`, from ``devices/one_thread.py``) as one call
    inside it, so neither side restores the count while the other is inside a call
    (OpenBLAS's bits depend on it). (A NumPy call of another thread meanwhile runs on
    one thread too.)"""

    def __init__(self, library):
        self._library = library
        self._set = None          # the library's setter (looked up on first use)
        self._lock = threading.Lock()
        self._depth = 0
        self._saved = 1
        self._guard = None        # the shims' (enter, leave), once shared
        self._in_guard = False    # the blocks inside entered it (else: saved the count)

    def __enter__(self):
        with self._lock:
            if self._depth == 0:
                if self._set is None:
                    self._set = (setters(self._library) or (_unchanged,))[0]
                    self._guard = _shared_guard(self._set)
                self._in_guard = self._guard is not None
                if self._in_guard:
                    self._guard[0]()
                else:
                    self._saved = self._set(1)
            self._depth += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                if self._in_guard:
                    self._guard[1]()
                elif self._saved != 1:
                    self._set(self._saved)
        return False

    def _share(self, setter, guard):
        """Take part in the shims' guard ``(enter, leave, hand_over)`` of ``setter``'s
        library, if it is this one's."""
        with self._lock:
            if self._set is None or self._guard is not None or \
                    ctypes.cast(self._set, ctypes.c_void_p).value != setter:
                return
            self._guard = guard[:2]
            if self._depth > 0:       # blocks inside: the guard takes over their count
                guard[2](self._saved)
                self._in_guard = True


_SHARED = {}                       # setter address -> (enter, leave, hand_over, keep)
_SHARED_LOCK = threading.Lock()


def share_guard(setter, enter, leave, hand_over, keep=None):
    """From now on, one-thread blocks of the library whose
    ``openblas_set_num_threads_local`` is at ``setter`` enter and leave the native
    shims' guard (``enter()``, ``leave()``); ``hand_over(saved)`` makes blocks inside
    at this moment one call inside the guard, ``saved`` the count found before them.
    Only the first guard shared for a library counts. (``keep``: alive as long.)"""
    with _SHARED_LOCK:
        if setter in _SHARED:
            return
        _SHARED[setter] = (enter, leave, hand_over, keep)
    for limit in _LIMITS.values():
        limit._share(setter, (enter, leave, hand_over))


def _shared_guard(fn):
    """The shared (enter, leave) of the setter ``fn``'s library, or None."""
    if fn is _unchanged:
        return None
    with _SHARED_LOCK:
        shared = _SHARED.get(ctypes.cast(fn, ctypes.c_void_p).value)
    return None if shared is None else shared[:2]


def _unchanged(count):
    return 1


_LIMITS = {library: _OneThread(library) for library in ("numpy", "scipy")}
_NO_LIMIT = contextlib.nullcontext()


def single_threaded(work):
    """Whether a call of ``work`` multiply-adds per matrix runs on the calling thread."""
    return work < SINGLE_THREAD_BELOW


def blas_threads(xp, work, library="numpy"):
    """A context for one LAPACK/BLAS call of ``work`` multiply-adds per matrix on the
    array namespace ``xp``, made through ``library`` ("numpy": ``np.linalg``; "scipy":
    ``scipy.linalg``): its OpenBLAS on one thread where the work is small and ``xp`` is
    NumPy, else the library's threads."""
    if xp is np and single_threaded(work):
        return _LIMITS[library]
    return _NO_LIMIT


def factorization_work(shape, *other_shapes):
    """Work per matrix of a factorization of the (..., m, n) ``shape`` (the first
    operand's; the others, e.g. Householder scalars, do not count)."""
    m, n = shape[-2], shape[-1]
    return m * n * min(m, n)


def solve_work(a_shape, b_shape):
    """Work per matrix of a triangular solve of the (..., m, m) ``a`` against ``b``
    (either side): ``m * m`` per right-hand side."""
    return a_shape[-1] * b_shape[-2] * b_shape[-1]


def with_blas_threads(work, library="numpy"):
    """Decorator of a reference implementation ``impl(xp, *operands, **params)`` whose
    LAPACK calls go through ``library`` on NumPy: it runs in :func:`blas_threads` of
    ``work(*operand shapes)``."""
    def decorate(impl):
        @functools.wraps(impl)
        def run(xp, *operands, **params):
            if xp is not np:
                return impl(xp, *operands, **params)
            with blas_threads(xp, work(*(np.shape(x) for x in operands)), library):
                return impl(xp, *operands, **params)
        return run
    return decorate
