"""A parallel-for over compiled kernels, on persistent worker threads.

Compiled kernels have the C signature ``void f(void **args, int64_t *sizes, int64_t start,
int64_t end)`` and compute the index range ``[start, end)`` of their parallel axis.
``parallel_for(fn, args, sizes, n)`` covers ``[0, n)`` with disjoint contiguous ranges run
on several threads at once, the calling thread included.

Two implementations, one interface:

* **native** (Linux on x86-64 and AArch64; the default there): a small runtime written
  in LLVM IR (``_NATIVE_IR``), compiled once per process (~5 ms) or loaded from the
  kernel disk cache. Each worker is a Python thread that enters the native worker loop
  once through ctypes, so it never holds the GIL; a call is one ctypes call. The range
  is cut into ``BLOCKS_PER_THREAD`` balanced blocks per thread, which the threads take
  from a shared atomic counter, so a thread slowed by a busy machine just takes fewer;
  an invited worker that has not woken up by the time the blocks are gone is not
  waited for. Waiting spins briefly (timed by the CPU's tick counter, with ``pause``,
  and a ``sched_yield`` every 64 rounds so a spinning worker never starves a caller
  that shares its CPU; see ``WORKER_SPIN_S``) and then sleeps on a futex: back-to-back
  kernels are handed over in a few microseconds and idle workers cost no CPU. A caller
  about to do Python work longer than the spin before its next parallel call (a runner
  re-bound to a new size) wakes the workers first without waiting (``prewake``), so
  their futex wake-up (~25 us here) overlaps that work instead of delaying the call.
* **python** (elsewhere, or ``ThreadPool(n, native=False)``): one contiguous chunk per
  thread; one ``threading.Lock`` per worker as a wake-up semaphore and one for "done".
  ctypes releases the GIL in the kernel call, so chunks still run in parallel, but every
  hand-off wakes a sleeping thread and passes the GIL around.

Measured on the 2-vCPU development VM, which other jobs share (medians): a direct
ctypes call 0.8 us; overhead of a 2-thread call on a tiny range: native 2-6 us (spin
off, ``TJIT_SPIN_US=0``: 13-20 us), python 17-25 us, a ``ThreadPoolExecutor`` 28-36
us. When the other vCPU is busy the native path degrades to the caller doing all
blocks (serial time + ~4 us), the python path to waiting for the slow worker.
``benchmarks/bench_threads.py`` prints this machine's numbers.

Threads: ``TJIT_NUM_THREADS`` sets the default thread count, else the CPUs this process
may use (``cpu_budget.available_cpus``: the CPU count narrowed by the affinity mask and
a cgroup CPU quota, so a pinned or CPU-limited process does not queue workers behind
each other).
A pool serves one call at a time; a second Python thread calling while it is busy runs
its whole range serially on its own thread instead of waiting.

Interrupts: the native call is one foreign call, so Ctrl-C is handled after it returns.
On the python path, if anything raises while chunks are in flight, the caller still
waits for every chunk that started (they write into buffers the caller may free), then
retires the workers; fresh ones start on the next call. Neither can deadlock.
"""

import ctypes
import functools
import os
import platform
import sys
import threading
import time
import warnings
import weakref

from tjit.devices import cpu_budget, disk_cache

__all__ = ["KERNEL_FUNCTYPE", "ThreadPool", "as_kernel", "default_num_threads",
           "get_pool", "native_available", "native_run_entry", "parallel_for"]

#: ctypes prototype of the kernel ABI.
KERNEL_FUNCTYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_int64)
_CFUNCPTR = KERNEL_FUNCTYPE.__mro__[1]   # ctypes' base class of all C function pointers
_FN_CACHE = {}

#: Native runtime: how long a worker spins for its next chunk after finishing one
#: (covers the Python gap between back-to-back kernels), and how long the caller spins
#: for the workers, before sleeping on a futex. ``$TJIT_SPIN_US`` overrides the worker's
#: spin (the caller spins twice as long); 0 always sleeps (kindest to a busy machine).
WORKER_SPIN_S = 50e-6
CALLER_SPIN_S = 100e-6

#: How long a worker woken ahead of a call (``ThreadPool.prewake``) spins for it before
#: sleeping again: longer than the Python work a caller does between the pre-wake and
#: its first parallel call (re-binding a runner to a new size: ~50-150 us in situ).
PREWAKE_SPIN_S = 300e-6


def as_kernel(fn):
    """A ctypes callable for a kernel given as an address (int) or a ctypes function."""
    if isinstance(fn, _CFUNCPTR):
        return fn
    if isinstance(fn, int) and not isinstance(fn, bool):
        k = _FN_CACHE.get(fn)
        if k is None:
            if fn == 0:
                raise ValueError("parallel_for: kernel address is 0 (NULL); pass the "
                                 "address returned by target.compile_ir")
            k = _FN_CACHE.setdefault(fn, KERNEL_FUNCTYPE(fn))
        return k
    raise TypeError(f"parallel_for: expected a kernel address (int) or a ctypes function "
                    f"(e.g. threads.KERNEL_FUNCTYPE(address)), got {type(fn).__name__}")


def default_num_threads():
    """``$TJIT_NUM_THREADS`` if set, else the CPUs this process may use
    (``cpu_budget.available_cpus``). Read on every call (a
    change of the variable takes effect at once), but parsed once per value: a parallel
    call asks for it (``get_pool``), and ``os.environ.get`` alone costs ~0.8 us."""
    global _parsed
    raw = _ENV_DATA.get(_ENV_KEY) if _ENV_DATA is not None else \
        os.environ.get("TJIT_NUM_THREADS")
    parsed = _parsed
    if raw == parsed[0]:
        return parsed[1]
    n = _num_threads(os.environ.get("TJIT_NUM_THREADS", ""))
    _parsed = (raw, n)
    return n


# os.environ's own mapping of encoded names (CPython): a lookup there is ~20 ns where
# os.environ.get encodes the name first; where it is missing, os.environ.get serves
_ENV_DATA = getattr(os.environ, "_data", None)
try:
    _ENV_KEY = os.environ.encodekey("TJIT_NUM_THREADS")
except AttributeError:
    _ENV_DATA = None
_parsed = (object(), None)  # (the variable's raw value, or None when unset; its count)


def _num_threads(env):
    env = env.strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"TJIT_NUM_THREADS must be a positive integer, got {env!r}; "
                             "unset it to use one thread per CPU.")
        return n
    return cpu_budget.available_cpus()


@functools.lru_cache(maxsize=None)
def cpu_count():
    """``os.cpu_count()``, read once (it costs ~25 us, and kernel launches and BLAS
    plans ask for it on every call or new size). The machine's count, not the
    process's budget (``cpu_budget``): gemm blocks are cut from it (``blas``), as
    before the budget existed."""
    return os.cpu_count() or 1


def _split(n, chunks):
    """``chunks`` contiguous ranges covering ``[0, n)``, sizes differing by at most one
    (the first ``n % chunks`` one longer; the native runtime splits the same way)."""
    q, r = divmod(n, chunks)
    bounds, start = [], 0
    for c in range(chunks):
        end = start + q + (c < r)
        bounds.append((start, end))
        start = end
    return bounds


# ----------------------------------------------------------------------------------------
# The native runtime. Memory: one 128-byte call header, then one 128-byte slot per worker
# (128-aligned, so no two threads write one cache line):
#   header:  0 i64 next = gen << 32 | block    8 i32 done_blocks   12 i32 caller_sleeping
#           16 i64 nblocks   24 i64 q   32 i64 r   40 ptr fn   48 ptr args   56 ptr sizes
#           64 i32 gen (the caller's call counter, 1 .. 2^30 - 1)   68 i32 prewakes
#           72 i64 prewake_spin (ticks)
#   slot:    0 i32 job_seq (the gen it is invited to, or a pre-wake: bit 30 set)
#            4 i32 worker_sleeping   8 i32 stop
# A call (generation `gen`) cuts [0, n) into `nblocks` balanced contiguous blocks. Every
# thread, the caller included, takes blocks by compare-and-swap on `next`, which names
# the generation, so a worker that wakes up late (asleep, descheduled) finds nothing of
# an old call to take; the caller returns when `done_blocks` == nblocks, i.e. it waits
# only for blocks in progress, never for a worker that has not started one. The header
# fields are guarded seqlock-style: the caller first sets `next` to (gen, WRITING), then
# writes them, then publishes (gen, 0); a worker reads them between loading `next` and
# its compare-and-swap, which fails if they may have changed. Sleeping: a waiter sets
# its flag before re-checking the word and calling FUTEX_WAIT; a poster changes the
# word before reading the flag (both seq_cst), so no wake-up is lost. A pre-wake
# (``ThreadPool.prewake``) writes a job_seq with bit 30 set, which no call's gen has:
# the worker takes no blocks for it and spins ``prewake_spin`` ticks for the next call.

_SLOT = 128
#: Native runtime: blocks per participating thread (dynamic load balancing).
BLOCKS_PER_THREAD = 4

_NATIVE_IR = r"""
declare i64 @syscall(i64, ...)
declare i32 @sched_yield()
declare i64 @llvm.smin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
{counter_decl}
{spin_decl}

define i64 @tjit_rt_cycles() {
  %c = call i64 {counter}
  ret i64 %c
}

; Wait while *addr == val: spin up to `spin` ticks (yielding the CPU now and then: on a
; busy machine the thread we wait for may share ours), then sleep on a futex.
define internal void @wait_while_eq(ptr %addr, i32 %val, ptr %sleeping, i64 %spin) {
entry:
  %t0 = call i64 {counter}
  br label %spin_loop
spin_loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %spin_body ], [ %k1, %yield ]
  %v = load atomic i32, ptr %addr acquire, align 4
  %same = icmp eq i32 %v, %val
  br i1 %same, label %spin_check, label %out
spin_check:
  %t = call i64 {counter}
  %dt = sub i64 %t, %t0
  %more = icmp ult i64 %dt, %spin
  br i1 %more, label %spin_body, label %sleep
spin_body:
  {spin_call}
  %k1 = add i32 %k, 1
  %k_low = and i32 %k1, 63
  %give = icmp eq i32 %k_low, 0
  br i1 %give, label %yield, label %spin_loop
yield:
  ; let a thread that shares this CPU (the caller, on a busy machine) run
  %y = call i32 @sched_yield()
  br label %spin_loop
sleep:
  store atomic i32 1, ptr %sleeping seq_cst, align 4
  br label %sleep_loop
sleep_loop:
  %v2 = load atomic i32, ptr %addr seq_cst, align 4
  %same2 = icmp eq i32 %v2, %val
  br i1 %same2, label %do_wait, label %woke
do_wait:
  %val64 = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 {sys_futex}, ptr %addr, i64 128, i64 %val64, ptr null)
  br label %sleep_loop
woke:
  store atomic i32 0, ptr %sleeping seq_cst, align 4
  br label %out
out:
  ret void
}

; FUTEX_WAKE waiters on addr if the sleeping flag says there may be one (call this after
; a seq_cst change of *addr).
define internal void @wake(ptr %addr, ptr %sleeping) {
entry:
  %s = load atomic i32, ptr %sleeping seq_cst, align 4
  %asleep = icmp ne i32 %s, 0
  br i1 %asleep, label %do_wake, label %done
do_wake:
  %r = call i64 (i64, ...) @syscall(i64 {sys_futex}, ptr %addr, i64 129, i64 2147483647)
  br label %done
done:
  ret void
}

; Take blocks of call `gen` until none are left; block b is
; [b*q + min(b, r), that + q + (b < r)).
define internal void @run_blocks(ptr %hdr, i32 %gen) {
entry:
  %done_p = getelementptr inbounds i8, ptr %hdr, i64 8
  %csleep_p = getelementptr inbounds i8, ptr %hdr, i64 12
  %nb_p = getelementptr inbounds i8, ptr %hdr, i64 16
  %q_p = getelementptr inbounds i8, ptr %hdr, i64 24
  %r_p = getelementptr inbounds i8, ptr %hdr, i64 32
  %fn_p = getelementptr inbounds i8, ptr %hdr, i64 40
  %args_p = getelementptr inbounds i8, ptr %hdr, i64 48
  %sizes_p = getelementptr inbounds i8, ptr %hdr, i64 56
  br label %loop
loop:
  %v = load atomic i64, ptr %hdr acquire, align 8
  %v_hi = lshr i64 %v, 32
  %v_gen = trunc i64 %v_hi to i32
  %ours = icmp eq i32 %v_gen, %gen
  br i1 %ours, label %fields, label %out
fields:
  %b = and i64 %v, 4294967295
  %nblocks = load atomic i64, ptr %nb_p monotonic, align 8
  %q = load atomic i64, ptr %q_p monotonic, align 8
  %r = load atomic i64, ptr %r_p monotonic, align 8
  %fn = load atomic ptr, ptr %fn_p monotonic, align 8
  %args = load atomic ptr, ptr %args_p monotonic, align 8
  %sizes = load atomic ptr, ptr %sizes_p monotonic, align 8
  %left = icmp slt i64 %b, %nblocks
  br i1 %left, label %take, label %out
take:
  %v1 = add i64 %v, 1
  %cx = cmpxchg ptr %hdr, i64 %v, i64 %v1 acq_rel acquire, align 8
  %taken = extractvalue { i64, i1 } %cx, 1
  br i1 %taken, label %body, label %loop
body:
  %lo_r = call i64 @llvm.smin.i64(i64 %b, i64 %r)
  %bq = mul i64 %b, %q
  %start = add i64 %bq, %lo_r
  %extra_b = icmp slt i64 %b, %r
  %extra = zext i1 %extra_b to i64
  %len = add i64 %q, %extra
  %end = add i64 %start, %len
  call void %fn(ptr %args, ptr %sizes, i64 %start, i64 %end)
  %d = atomicrmw add ptr %done_p, i32 1 seq_cst, align 4
  %d1 = add i32 %d, 1
  %d1_64 = zext i32 %d1 to i64
  %last = icmp eq i64 %d1_64, %nblocks
  br i1 %last, label %signal, label %loop
signal:
  call void @wake(ptr %done_p, ptr %csleep_p)
  br label %loop
out:
  ret void
}

; A worker thread's whole life: join every call it is invited to, until stopped.
define void @tjit_rt_worker(ptr %hdr, ptr %slot, i64 %spin) {
entry:
  %wsleep_p = getelementptr inbounds i8, ptr %slot, i64 4
  %stop_p = getelementptr inbounds i8, ptr %slot, i64 8
  ; job_seq starts at 0, so a thread that starts late still joins the call it was
  ; invited to; and it checks the stop flag before its first wait
  %stop0 = load atomic i32, ptr %stop_p seq_cst, align 4
  %stopped0 = icmp ne i32 %stop0, 0
  br i1 %stopped0, label %exit, label %loop
loop:
  %last = phi i32 [ 0, %entry ], [ %gen, %run ], [ %gen, %prewoken ]
  %spin_now = phi i64 [ %spin, %entry ], [ %spin, %run ], [ %prespin, %prewoken ]
  call void @wait_while_eq(ptr %slot, i32 %last, ptr %wsleep_p, i64 %spin_now)
  %gen = load atomic i32, ptr %slot acquire, align 4
  %stop = load atomic i32, ptr %stop_p acquire, align 4
  %stopping = icmp ne i32 %stop, 0
  br i1 %stopping, label %exit, label %which
which:
  %pw_bit = and i32 %gen, 1073741824
  %is_pw = icmp ne i32 %pw_bit, 0
  br i1 %is_pw, label %prewoken, label %run
prewoken:
  ; woken ahead of a call: no blocks to take; wait for it spinning a longer while
  %prespin_p = getelementptr inbounds i8, ptr %hdr, i64 72
  %prespin = load atomic i64, ptr %prespin_p monotonic, align 8
  br label %loop
run:
  call void @run_blocks(ptr %hdr, i32 %gen)
  br label %loop
exit:
  ret void
}

; Ask a worker to leave its loop (after the block it may be running).
define void @tjit_rt_stop(ptr %slot) {
entry:
  %wsleep_p = getelementptr inbounds i8, ptr %slot, i64 4
  %stop_p = getelementptr inbounds i8, ptr %slot, i64 8
  store atomic i32 1, ptr %stop_p seq_cst, align 4
  %old = load atomic i32, ptr %slot monotonic, align 4
  %bumped = xor i32 %old, -2147483648
  store atomic i32 %bumped, ptr %slot seq_cst, align 4
  call void @wake(ptr %slot, ptr %wsleep_p)
  ret void
}

; Wake the `nworkers` workers ahead of a call (without waiting for them): each is
; given a pre-wake job_seq and then spins `spin` ticks for the call (the caller holds
; the pool, so no call runs meanwhile).
define void @tjit_rt_prewake(ptr %hdr, i64 %nworkers, i64 %spin) {
entry:
  %prespin_p = getelementptr inbounds i8, ptr %hdr, i64 72
  store atomic i64 %spin, ptr %prespin_p monotonic, align 8
  %count_p = getelementptr inbounds i8, ptr %hdr, i64 68
  %count = load i32, ptr %count_p, align 4
  %count1 = add i32 %count, 1
  store i32 %count1, ptr %count_p, align 4
  %low = and i32 %count1, 1073741823
  %mark = or i32 %low, 1073741824
  %slots = getelementptr inbounds i8, ptr %hdr, i64 128
  br label %next
next:
  %w = phi i64 [ 0, %entry ], [ %w1, %body ]
  %more = icmp slt i64 %w, %nworkers
  br i1 %more, label %body, label %done
body:
  %off = mul i64 %w, 128
  %slot = getelementptr inbounds i8, ptr %slots, i64 %off
  store atomic i32 %mark, ptr %slot seq_cst, align 4
  %wsleep_p = getelementptr inbounds i8, ptr %slot, i64 4
  call void @wake(ptr %slot, ptr %wsleep_p)
  %w1 = add i64 %w, 1
  br label %next
done:
  ret void
}

; One parallel-for with `nthreads` threads (the caller and nthreads - 1 workers):
; nblocks = min(nthreads * per_thread, max_blocks) (1 when alone); publish the call,
; invite the workers, take blocks, wait until every block is done.
define void @tjit_rt_run(ptr %hdr, i64 %nthreads, ptr %fn, ptr %args, ptr %sizes, i64 %n,
                         i64 %max_blocks, i64 %per_thread, i64 %spin) {
entry:
  %done_p = getelementptr inbounds i8, ptr %hdr, i64 8
  %csleep_p = getelementptr inbounds i8, ptr %hdr, i64 12
  %gen_p = getelementptr inbounds i8, ptr %hdr, i64 64
  %want_blocks = mul i64 %nthreads, %per_thread
  %nb0 = call i64 @llvm.smin.i64(i64 %want_blocks, i64 %max_blocks)
  %nb1 = call i64 @llvm.smax.i64(i64 %nb0, i64 1)
  %alone = icmp sle i64 %nthreads, 1
  %nblocks = select i1 %alone, i64 1, i64 %nb1
  %q = sdiv i64 %n, %nblocks
  %r = srem i64 %n, %nblocks
  %old_gen = load i32, ptr %gen_p, align 4
  %gen_next = add i32 %old_gen, 1
  %gen_low = and i32 %gen_next, 1073741823      ; (bit 30 marks pre-wakes, bit 31 stops)
  %gen_zero = icmp eq i32 %gen_low, 0
  %gen = select i1 %gen_zero, i32 1, i32 %gen_low   ; (0: a worker's job word at start)
  store i32 %gen, ptr %gen_p, align 4
  %gen64 = zext i32 %gen to i64
  %gen_hi = shl i64 %gen64, 32
  %writing = or i64 %gen_hi, 4294967295
  store atomic i64 %writing, ptr %hdr seq_cst, align 8
  %nb_p = getelementptr inbounds i8, ptr %hdr, i64 16
  store atomic i64 %nblocks, ptr %nb_p monotonic, align 8
  %q_p = getelementptr inbounds i8, ptr %hdr, i64 24
  store atomic i64 %q, ptr %q_p monotonic, align 8
  %r_p = getelementptr inbounds i8, ptr %hdr, i64 32
  store atomic i64 %r, ptr %r_p monotonic, align 8
  %fn_p = getelementptr inbounds i8, ptr %hdr, i64 40
  store atomic ptr %fn, ptr %fn_p monotonic, align 8
  %args_p = getelementptr inbounds i8, ptr %hdr, i64 48
  store atomic ptr %args, ptr %args_p monotonic, align 8
  %sizes_p = getelementptr inbounds i8, ptr %hdr, i64 56
  store atomic ptr %sizes, ptr %sizes_p monotonic, align 8
  store atomic i32 0, ptr %done_p monotonic, align 4
  store atomic i64 %gen_hi, ptr %hdr release, align 8
  %slots = getelementptr inbounds i8, ptr %hdr, i64 128
  br label %invite_loop
invite_loop:
  %w = phi i64 [ 1, %entry ], [ %w1, %invite_body ]
  %inviting = icmp slt i64 %w, %nthreads
  br i1 %inviting, label %invite_body, label %own
invite_body:
  %wm1 = sub i64 %w, 1
  %off = mul i64 %wm1, 128
  %slot = getelementptr inbounds i8, ptr %slots, i64 %off
  store atomic i32 %gen, ptr %slot seq_cst, align 4
  %wsleep_p = getelementptr inbounds i8, ptr %slot, i64 4
  call void @wake(ptr %slot, ptr %wsleep_p)
  %w1 = add i64 %w, 1
  br label %invite_loop
own:
  call void @run_blocks(ptr %hdr, i32 %gen)
  %nb32 = trunc i64 %nblocks to i32
  br label %wait_loop
wait_loop:
  %d = load atomic i32, ptr %done_p acquire, align 4
  %all = icmp eq i32 %d, %nb32
  br i1 %all, label %exit, label %wait
wait:
  call void @wait_while_eq(ptr %done_p, i32 %d, ptr %csleep_p, i64 %spin)
  br label %wait_loop
exit:
  ret void
}
"""

# machine -> (spin-wait hint declaration, its call, SYS_futex number, tick counter
# declaration, its callee): rdtsc on x86-64; on AArch64 the virtual counter CNTVCT_EL0
# through inline asm (LLVM's readcyclecounter reads PMCCNTR_EL0 there, which user space
# usually may not, and its readsteadycounter folded to 0 when tried).
_PLATFORMS = {
    "x86_64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()", 202,
               "declare i64 @llvm.readcyclecounter()", "@llvm.readcyclecounter()"),
    "aarch64": ("declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)",
                98, "", 'asm sideeffect "mrs $0, cntvct_el0", "=r"()'),
}
_MACHINE_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}
_RT_NAMES = ("tjit_rt_run", "tjit_rt_worker", "tjit_rt_stop", "tjit_rt_prewake",
             "tjit_rt_cycles")


def _native_ir():
    """The runtime's IR for this platform, or None where there is no native runtime."""
    machine = platform.machine().lower()
    spec = _PLATFORMS.get(_MACHINE_ALIASES.get(machine, machine))
    if not sys.platform.startswith("linux") or spec is None:
        return None
    decl, call, sys_futex, counter_decl, counter = spec
    return (_NATIVE_IR.replace("{spin_decl}", decl).replace("{spin_call}", call)
            .replace("{sys_futex}", str(sys_futex)).replace("{counter_decl}", counter_decl)
            .replace("{counter}", counter))


class _Runtime:
    """ctypes entry points of the compiled runtime, and its cycle-counter rate."""

    def __init__(self, ir_text):
        # 'control': atomics and waits around the kernels it calls (target.PROFILES)
        addrs = disk_cache.load_or_compile(ir_text, _RT_NAMES, "threads-runtime",
                                           profile="control")
        vp, i64 = ctypes.c_void_p, ctypes.c_int64
        self.run = ctypes.CFUNCTYPE(None, vp, i64, vp, vp, vp, i64, i64, i64, i64)(
            addrs["tjit_rt_run"])
        self.run_address = addrs["tjit_rt_run"]   # (native callers: native_loop)
        self.worker = ctypes.CFUNCTYPE(None, vp, vp, i64)(addrs["tjit_rt_worker"])
        self.stop = ctypes.CFUNCTYPE(None, vp)(addrs["tjit_rt_stop"])
        self.prewake = ctypes.CFUNCTYPE(None, vp, i64, i64)(addrs["tjit_rt_prewake"])
        cycles = ctypes.CFUNCTYPE(ctypes.c_int64)(addrs["tjit_rt_cycles"])
        # (asleep: both counters tick at a constant rate, so the 2 ms need no CPU)
        c0, t0 = cycles(), time.perf_counter()
        time.sleep(2e-3)
        rate = (cycles() - c0) / (time.perf_counter() - t0)
        if not rate > 1e5:               # a counter that does not tick would spin forever
            raise RuntimeError(f"the tick counter runs at {rate:.0f} Hz")
        worker_s, caller_s = _spin_seconds()
        self.worker_spin = int(rate * worker_s)
        self.caller_spin = int(rate * caller_s)
        self.rate = rate                 # (ticks per second: pre-wake spins)


def _spin_seconds():
    env = os.environ.get("TJIT_SPIN_US", "").strip()
    if not env:
        return WORKER_SPIN_S, CALLER_SPIN_S
    try:
        us = float(env)
    except ValueError:
        us = -1.0
    if not us >= 0:
        raise ValueError(f"TJIT_SPIN_US must be a number of microseconds >= 0, got {env!r}")
    return us * 1e-6, 2 * us * 1e-6


_RUNTIME = None          # None: not built yet; False: unavailable here
_RUNTIME_LOCK = threading.Lock()


def _runtime():
    global _RUNTIME
    if _RUNTIME is None:
        with _RUNTIME_LOCK:
            if _RUNTIME is None:
                ir_text = _native_ir()
                try:
                    _RUNTIME = _Runtime(ir_text) if ir_text else False
                except Exception as e:  # noqa: BLE001  (any failure: fall back, say why)
                    warnings.warn(f"tjit: could not build the native thread runtime ({e}); "
                                  "using Python threads (slower hand-offs).", RuntimeWarning)
                    _RUNTIME = False
    return _RUNTIME or None


def runtime_ready():
    """Whether the native runtime's build was tried in this process (made or not)."""
    return _RUNTIME is not None


def native_available():
    """True when the native parallel-for runtime works on this platform."""
    return _runtime() is not None


def native_run_entry():
    """``(address of tjit_rt_run, the caller's spin in ticks, blocks per thread)`` for
    native code calling the runtime's parallel-for itself (with a header from
    :meth:`ThreadPool.hold_native`), or None without the native runtime."""
    rt = _runtime()
    return None if rt is None else (rt.run_address, rt.caller_spin, BLOCKS_PER_THREAD)


# ----------------------------------------------------------------------------------------
# Pools.

class _PyWorker:
    """A Python-path worker: ``wake`` and ``done`` are locks held while idle."""

    __slots__ = ("done", "error", "job", "stop", "thread", "wake")

    def __init__(self, name):
        self.wake = threading.Lock()
        self.done = threading.Lock()
        self.wake.acquire()
        self.done.acquire()
        self.job = None
        self.error = None
        self.stop = False
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop:
            self.wake.acquire()
            job, self.job = self.job, None
            if job is not None:
                try:
                    job[0](*job[1:])
                except BaseException as e:  # noqa: BLE001  (re-raised by the caller)
                    self.error = e
                self.done.release()


def _join_all(threads_):
    """Join threads even through Ctrl-C (re-raised once all have exited)."""
    pending = None
    for t in threads_:
        while t.is_alive():
            try:
                t.join()
            except BaseException as e:  # noqa: BLE001  (re-raised below)
                pending = pending or e
    if pending is not None:
        raise pending


class ThreadPool:
    """``nthreads - 1`` persistent workers plus the calling thread.

    Args:
      nthreads: total threads a call may use (>= 1).
      native: use the native runtime (True), Python locks (False), or the native one
        where available (None).
    """

    def __init__(self, nthreads, native=None):
        if isinstance(nthreads, bool) or not isinstance(nthreads, int) or nthreads < 1:
            raise ValueError(f"ThreadPool: nthreads must be a positive int, got {nthreads!r}")
        if native and not native_available():
            raise RuntimeError("ThreadPool(native=True): the native runtime is not "
                               "available on this platform; pass native=None.")
        self.nthreads = nthreads
        self.native = bool(native_available() if native is None else native)
        self._workers = None             # started on the first parallel call
        self._pid = None                 # workers belong to this process (fork check)
        self._header = None              # native: address of the call header
        self._slot_addrs = []
        self._slot_mem = None            # native: keeps the slot memory alive
        self._finalizer = None
        self._busy = threading.Lock()

    def parallel_for(self, fn, args, sizes, n, min_chunk=1):
        """Run ``fn(args, sizes, start, end)`` over contiguous chunks covering ``[0, n)``.

        Args:
          fn: kernel address (int) or ctypes function with the kernel ABI.
          args: ``void**`` argument array (ctypes array, c_void_p, int address or None).
          sizes: ``int64*`` size array (same forms).
          n: length of the range; ``n <= 0`` calls nothing.
          min_chunk: do not make chunks smaller than this (small ranges use fewer
            threads; a single chunk runs inline with no hand-off).
        """
        kernel = as_kernel(fn)
        n = int(n)
        if n <= 0:
            return
        max_blocks = max(1, n // max(1, int(min_chunk)))
        chunks = min(self.nthreads, max_blocks)
        try:
            if chunks == 1 or not self._busy.acquire(blocking=False):
                kernel(args, sizes, 0, n)    # one chunk, or the pool is busy: run here
                return
            try:
                if self._workers is None or self._pid != os.getpid():
                    self._start()
                if self.native:
                    rt = _RUNTIME
                    rt.run(self._header, chunks, kernel, args, sizes, n, max_blocks,
                           BLOCKS_PER_THREAD, rt.caller_spin)
                else:
                    self._run_python(kernel, args, sizes, _split(n, chunks))
            finally:
                self._busy.release()
        except ctypes.ArgumentError as e:
            raise TypeError(f"parallel_for: bad kernel arguments ({e}); args and sizes must "
                            "be ctypes arrays or pointers, c_void_p, int addresses or "
                            "None.") from None

    def hold_native(self):
        """For native code that runs parallel-fors itself through the runtime's
        ``tjit_rt_run`` (``native_loop``'s split steps): this pool's call header, with
        the pool held for the caller until :meth:`release_native` (workers started), or
        None where it cannot be (a python pool, one thread, or another call holds it);
        the caller then runs its ranges alone, as ``parallel_for`` does when busy."""
        if not self.native or self.nthreads < 2 or not self._busy.acquire(blocking=False):
            return None
        try:
            if self._workers is None or self._pid != os.getpid():
                self._start()
        except BaseException:
            self._busy.release()
            raise
        return self._header

    def release_native(self):
        """End a :meth:`hold_native` that returned a header."""
        self._busy.release()

    def prewake(self, seconds=None):
        """Start waking the workers for a parallel call expected soon, without waiting
        for them: each is asked to spin ``seconds`` (default ``PREWAKE_SPIN_S``) for
        the next call instead of sleeping, so that Python work done meanwhile (a runner
        re-bound to a new size) hides its wake-up. Native pools with started workers
        only; a no-op while another thread runs a call on the pool, and where spinning
        is off (``TJIT_SPIN_US=0``)."""
        rt = _RUNTIME
        if not self.native or self._workers is None or not rt or rt.worker_spin == 0 or \
                self._pid != os.getpid() or not self._busy.acquire(blocking=False):
            return
        try:
            spin = PREWAKE_SPIN_S if seconds is None else seconds
            rt.prewake(self._header, len(self._workers), int(rt.rate * spin))
        finally:
            self._busy.release()

    def _start(self, launch=True):
        """Create the workers; ``launch=False`` leaves native threads unstarted (tests use
        it to play a worker that is slow to wake)."""
        names = [f"tjit-worker-{i}" for i in range(1, self.nthreads)]
        if self.native:
            rt = _runtime()
            # header + one slot per worker, 128-aligned (no shared cache lines)
            self._slot_mem = ctypes.create_string_buffer(_SLOT * (len(names) + 2))
            base = ctypes.addressof(self._slot_mem)
            self._header = base + (-base % _SLOT)
            self._slot_addrs = [self._header + _SLOT * (i + 1) for i in range(len(names))]
            self._workers = [threading.Thread(target=rt.worker,
                                              args=(self._header, a, rt.worker_spin),
                                              name=nm, daemon=True)
                             for a, nm in zip(self._slot_addrs, names)]
            for t in self._workers:      # a running thread keeps the memory it uses alive
                t.tjit_slot_memory = self._slot_mem
            for t in self._workers if launch else ():
                t.start()
        else:
            self._workers = [_PyWorker(nm) for nm in names]
        self._pid = os.getpid()
        # a pool dropped without close() still stops its workers (without waiting)
        self._finalizer = weakref.finalize(self, _stop_workers, self.native,
                                           list(self._slot_addrs), list(self._workers))

    def _run_python(self, fn, args, sizes, bounds):
        used = self._workers[:len(bounds) - 1]
        try:
            for w, (s, e) in zip(used, bounds[1:]):
                w.job = (fn, args, sizes, s, e)
                w.wake.release()
            fn(args, sizes, *bounds[0])
            for w in used:
                w.done.acquire()
        except BaseException:
            self._retire()               # waits for every started chunk, see docstring
            raise
        errors = [w.error for w in used if w.error is not None]
        for w in used:
            w.error = None
        if errors:
            raise errors[0]

    def _retire(self):
        """Stop the workers after their current chunk and wait until they have exited."""
        workers, self._workers = self._workers or [], None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._pid != os.getpid():
            return                       # forked child: the workers never existed here
        if self.native:
            for addr in self._slot_addrs:
                _RUNTIME.stop(addr)
            _join_all(workers)
            self._header, self._slot_addrs, self._slot_mem = None, [], None
            return
        for w in workers:
            w.stop = True
            try:
                w.wake.release()
            except RuntimeError:         # a wake-up is already pending: it will see stop
                pass
        _join_all([w.thread for w in workers])

    def close(self):
        """Stop the workers (a later call starts new ones)."""
        with self._busy:
            self._retire()


def _stop_workers(native, slot_addrs, workers):
    """Ask a dropped pool's workers to exit (finalizer: must not reference the pool)."""
    if native:
        for addr in slot_addrs:
            _RUNTIME.stop(addr)
        return
    for w in workers:
        w.stop = True
        try:
            w.wake.release()
        except RuntimeError:
            pass


_POOLS = {}
_POOLS_LOCK = threading.Lock()


def get_pool(nthreads=None):
    """The process-wide pool with ``nthreads`` threads (default: default_num_threads())."""
    n = default_num_threads() if nthreads is None else nthreads
    pool = _POOLS.get(n)
    if pool is None:
        with _POOLS_LOCK:
            pool = _POOLS.get(n) or _POOLS.setdefault(n, ThreadPool(n))
    return pool


def parallel_for(fn, args, sizes, n, nthreads=None, min_chunk=1):
    """Run a compiled kernel over ``[0, n)`` split across threads.

    Args:
      fn: kernel address (int) or ctypes function, C signature
        ``void f(void **args, int64_t *sizes, int64_t start, int64_t end)``.
      args: ``void**`` argument array (ctypes array, c_void_p, int address or None).
      sizes: ``int64*`` size array (same forms).
      n: the parallel axis' extent; ``n <= 0`` calls nothing.
      nthreads: threads to use (default: ``$TJIT_NUM_THREADS`` or the CPU count).
      min_chunk: smallest chunk worth a thread.
    """
    get_pool(nthreads).parallel_for(fn, args, sizes, n, min_chunk)


def _after_fork_in_child():
    # Worker threads do not survive fork: forget the pools (and a lock a parent thread
    # may have held); pools kept elsewhere restart their workers (pid check).
    global _POOLS_LOCK, _RUNTIME_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()
    _RUNTIME_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
