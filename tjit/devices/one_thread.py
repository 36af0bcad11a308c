"""OpenBLAS on one thread around the native shims' library calls (``blas.py``'s gemm
blocks, ``cpu_lapack.py``'s factorizations and solves), whichever threads run them.

Two facts make this a shared guard rather than a per-call setting:

- ``openblas_set_num_threads_local`` is process-wide in the wheels' pthreads builds
  (``_local`` holds for OpenMP builds only).
- OpenBLAS's results depend on its thread count: a 64 x 160 x 128 float32 ``sgemm``
  differs by up to 1.5e-5 between 1 and 2 threads (another kernel path), so a block
  must never run while another thread's block has put the count back.

Each shim used to set 1 on entry and restore the old count on exit unless it was 1. Two
blocks overlapping on two threads then raced: the first to finish restored the count
while the other was still inside its call, and that call ran at the library's full count
with other bits. Whether it happened depended on timing, so on machine load
(``tests/devices/test_blas.py`` saw a grouped gemm differ from a lone one by 1.5e-5).

Now all shims of one library share one guard (its state: a spin lock, how many calls are
inside, the count found by the first): the first call in saves the count and sets 1, the
last one out restores it (unless it was 1), and nothing in between changes it. Eager
calls of ``primitives/lapack_threads`` take the same guard once a shim of the library is
loaded (:func:`share_with_eager_calls`; until then no shim can be inside), so they cannot
restore the count under a shim either.
"""

import ctypes
import os
import threading

import numpy as np

from tjit.primitives import lapack_threads

# The state, 64-byte aligned, as int64 fields: the lock (its low 32 bits), the calls
# inside, the count the first of them found, the setter's address.
_LOCK, _DEPTH, _SAVED, _SETTER = 0, 1, 2, 3
_STATE_WORDS = 8

#: Functions every module of shims that call the library defines (internal copies: the
#: state they work on is shared). ``%g``: the guard's state.
GUARD_IR = r"""
declare i32 @sched_yield()

define internal void @tjit_guard_lock(ptr %g) {
entry:
  br label %try
try:
  %cx = cmpxchg ptr %g, i32 0, i32 1 acquire monotonic
  %got = extractvalue { i32, i1 } %cx, 1
  br i1 %got, label %done, label %wait
wait:
  %y = call i32 @sched_yield()
  br label %try
done:
  ret void
}

define internal void @tjit_one_thread_enter(ptr %g) {
entry:
  call void @tjit_guard_lock(ptr %g)
  %dp = getelementptr i64, ptr %g, i64 1
  %d = load i64, ptr %dp
  %first = icmp eq i64 %d, 0
  br i1 %first, label %set, label %count
set:
  %sp = getelementptr i64, ptr %g, i64 3
  %s = load i64, ptr %sp
  %setl = inttoptr i64 %s to ptr
  %old = call i32 %setl(i32 1)
  %old64 = sext i32 %old to i64
  %savp = getelementptr i64, ptr %g, i64 2
  store i64 %old64, ptr %savp
  br label %count
count:
  %d1 = add i64 %d, 1
  store i64 %d1, ptr %dp
  store atomic i32 0, ptr %g release, align 8
  ret void
}

define internal void @tjit_one_thread_leave(ptr %g) {
entry:
  call void @tjit_guard_lock(ptr %g)
  %dp = getelementptr i64, ptr %g, i64 1
  %d = load i64, ptr %dp
  %inside = icmp sgt i64 %d, 0          ; (none inside: an eager block across a fork)
  br i1 %inside, label %out, label %unlock
out:
  %d1 = sub i64 %d, 1
  store i64 %d1, ptr %dp
  %last = icmp eq i64 %d1, 0
  %savp = getelementptr i64, ptr %g, i64 2
  %saved64 = load i64, ptr %savp
  %saved = trunc i64 %saved64 to i32
  %was_one = icmp eq i32 %saved, 1
  %last_not = xor i1 %last, true
  %keep = or i1 %was_one, %last_not
  br i1 %keep, label %unlock, label %restore
restore:
  %sp = getelementptr i64, ptr %g, i64 3
  %s = load i64, ptr %sp
  %setl = inttoptr i64 %s to ptr
  %r = call i32 %setl(i32 %saved)
  br label %unlock
unlock:
  store atomic i32 0, ptr %g release, align 8
  ret void
}
"""

#: A shim's first and last lines around its library calls; its sizes field ``one_thread``
#: holds :func:`guard`'s address.
ONE_THREAD_ENTER = """  %guard = inttoptr i64 %f_one_thread to ptr
  call void @tjit_one_thread_enter(ptr %guard)"""
ONE_THREAD_LEAVE = "  call void @tjit_one_thread_leave(ptr %guard)"

_GUARDS = {}              # setter address -> state array (kept alive here)
_GUARDS_LOCK = threading.Lock()


def guard(set_threads):
    """The address of the guard of the library whose ``openblas_set_num_threads_local``
    is at ``set_threads`` (one per library, made on first use)."""
    with _GUARDS_LOCK:
        state = _GUARDS.get(set_threads)
        if state is None:
            raw = np.zeros(_STATE_WORDS + 8, np.int64)
            state = raw[(-raw.ctypes.data % 64) // 8:][:_STATE_WORDS]
            state[_SETTER] = set_threads
            state[_SAVED] = 1
            _GUARDS[set_threads] = state
        return state.ctypes.data


def exported_ir(prefix):
    """IR of ``{prefix}_guard_enter`` and ``{prefix}_guard_leave`` (the guard's entry
    and exit, exported for :func:`share_with_eager_calls`), for a module with
    :data:`GUARD_IR`: each shim module exports its own (no second compile)."""
    return "".join(f"""
define void @{prefix}_guard_{end}(ptr %g) {{
entry:
  call void @tjit_one_thread_{end}(ptr %g)
  ret void
}}
""" for end in ("enter", "leave"))


def exported_names(prefix):
    """The names :func:`exported_ir` defines."""
    return [f"{prefix}_guard_enter", f"{prefix}_guard_leave"]


def share_with_eager_calls(guard_address, addresses):
    """Let eager LAPACK calls (``primitives/lapack_threads``) take the guard at
    ``guard_address`` (:func:`guard`'s) through a loaded shim module's exported entry
    and exit (``addresses``: of :func:`exported_names`). Called by the shims' loaders
    before they hand a shim out, so no shim of that library has run yet."""
    with _GUARDS_LOCK:
        set_threads, state = next((setter, state) for setter, state in _GUARDS.items()
                                  if state.ctypes.data == guard_address)
    kind = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    enter, leave = (kind(a) for a in addresses)
    address = state.ctypes.data

    def hand_over(saved):
        """Eager blocks inside already (the count at 1, ``saved`` before): they count
        as one call inside the guard, and leave it as one."""
        state[_SAVED], state[_DEPTH] = saved, 1

    lapack_threads.share_guard(set_threads, (lambda: enter(address)),
                               (lambda: leave(address)), hand_over, (enter, leave))


def _after_fork_in_child():
    """Calls that other threads were inside at the fork never leave in the child (those
    threads do not exist there): free the lock, and give the library back the count
    found before them."""
    for setter, state in _GUARDS.items():
        was_inside = state[_DEPTH] != 0
        state[_LOCK] = state[_DEPTH] = 0
        if was_inside and state[_SAVED] != 1:
            fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(setter)
            fn(int(state[_SAVED]))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
