"""Loops whose bodies are kernels and gemms as one native call: no Python between
iterations.

A ``while``/``scan`` step whose bodies are sequences of kernels, BLAS gemms, library
steps with a native call of the same ABI (``cpu_lapack``: small solves and
factorizations) and conds over such programs (no other library calls, no nested loops)
is run by a generic driver written in LLVM IR (``_IR``, compiled once and kept in the disk cache):
it calls the kernels and the gemm shim (``blas``: same ABI) of the cond and body
programs through their function pointers, over argument arrays prepared here, until
the predicate is false (``while``) or ``length`` iterations have run (``scan``). An
iteration then costs a few indirect calls instead of a few microseconds of Python
(``runner.run``), which is what dominates loops over scalars or small arrays.

Steps split across threads (big kernels, gemms in blocks) are entries of
``tjit_par_for``, which calls the thread runtime's native parallel-for
(``threads.native_run_entry``) with the blocks ``parallel_for`` would make, on the
pool the loop holds for its call (``ThreadPool.hold_native``); when another caller
holds the pool they run whole on the loop's thread (same bits: the blocks do not
depend on the threads). Measured on ``bench_models``' GRU at batch 32 (load ~8, ms of
wall / process CPU time per call): both scans in the Python loop 87.7 / 45.8, native
75.8 / 38.5. Without the native runtime such bodies keep the Python loop.

Buffers. Each loop carry has two buffers, A and B, and the argument arrays come in two
parities: even iterations read A and write B, odd ones read B and write A, so no pointer
is rewritten per iteration. A carry the body updates in place (its parameter is donated
to the same carry's output, see ``plan``) or passes through unchanged has one buffer;
outputs that repeat, swap or pass values through are copied into place (``tjit_copy``,
same ABI): a parameter before the body's kernels, a computed value after them. Carries
that swap or rotate places (``h, h_old = f(h), h``) thus run natively too: the plan's
aliases between different carries, which hand buffers around in the Python loop, are
dropped here (``_carry_aliases``). A scanned-over input slice and
a stacked output row are pointers into the whole array, set per iteration from a table
of (argument slot, base, stride). The driver stops every ``BURST`` iterations so that
Ctrl-C (``KeyboardInterrupt``) is seen between bursts of a loop that never ends. A call
sets every pointer that depends on its arrays (carry buffers, constants, slot bases) with
one native call (``tjit_fill_at``, reading each array's data pointer from the object as
``array_args`` does). A forward scan may stop early at a false bool row
(``stop_at_false``: ``while_transpose``'s forward sweep, whose trip count is unknown).

A cond is one entry of the call table: ``tjit_switch`` reads the branch index and runs
that branch's own table, whose parameters point at the cond's operands and whose results
are written where the cond's results are read (a carry's next buffer, a stacked row, or
a scratch array of this loop).

Anything else (big bodies, library calls, nested loops) keeps the Python loop of
``control_flow``, which handles every program.
"""

import ctypes

import numpy as np

from tjit.devices import disk_cache, threads
from tjit.devices.array_args import data_offset
from tjit.devices.array_args import data_pointer as _ptr
from tjit.devices.call_tables import WALKER_IR, table
from tjit.devices.lazy import Lazy
from tjit.xla_like.plan import ControlStep, DotStep, KernelStep, concrete

#: Iterations per native call (a KeyboardInterrupt is checked between calls).
BURST = 1 << 16

_IR = r"""
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; the kernel ABI around a memcpy: args = (src, dst), sizes = (bytes)
define void @tjit_copy(ptr noalias %args, ptr noalias %sizes, i64 %start, i64 %end) {
entry:
  %src = load ptr, ptr %args
  %p1 = getelementptr ptr, ptr %args, i64 1
  %dst = load ptr, ptr %p1
  %n = load i64, ptr %sizes
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}

; pointers into slots anywhere: ctx (i64 words) = 0 objects (NumPy array objects),
; 1 destinations (addresses), 2 their sources (index into objects), 3 count, 4 the
; byte offset of the data pointer in an array object (array_args.data_offset)
define void @tjit_fill_at(ptr noalias %ctx) {
entry:
  %objs = load ptr, ptr %ctx
  %p1 = getelementptr i64, ptr %ctx, i64 1
  %dsts = load ptr, ptr %p1
  %p2 = getelementptr i64, ptr %ctx, i64 2
  %srcs = load ptr, ptr %p2
  %p3 = getelementptr i64, ptr %ctx, i64 3
  %count = load i64, ptr %p3
  %p4 = getelementptr i64, ptr %ctx, i64 4
  %off = load i64, ptr %p4
  %any = icmp sgt i64 %count, 0
  br i1 %any, label %fill, label %done
fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %sp = getelementptr i64, ptr %srcs, i64 %i
  %s = load i64, ptr %sp
  %objp = getelementptr ptr, ptr %objs, i64 %s
  %obj = load ptr, ptr %objp
  %datap = getelementptr i8, ptr %obj, i64 %off
  %data = load ptr, ptr %datap
  %dp = getelementptr ptr, ptr %dsts, i64 %i
  %dst = load ptr, ptr %dp
  store ptr %data, ptr %dst
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %count
  br i1 %more, label %fill, label %done
done:
  ret void
}

; a cond in a loop body, with the kernel ABI: args = (index (i32*), table 0 .. table
; end-1), sizes = (count 0 .. count end-1); runs the calls of branch clamp(index)
define void @tjit_switch(ptr noalias %args, ptr noalias %sizes, i64 %start, i64 %end) {
entry:
  %ip = load ptr, ptr %args
  %i32 = load i32, ptr %ip
  %i = sext i32 %i32 to i64
  %last = sub i64 %end, 1
  %neg = icmp slt i64 %i, 0
  %big = icmp sgt i64 %i, %last
  %lo = select i1 %neg, i64 0, i64 %i
  %b = select i1 %big, i64 %last, i64 %lo
  %at = add i64 %b, 1
  %tp = getelementptr ptr, ptr %args, i64 %at
  %tab = load ptr, ptr %tp
  %np = getelementptr i64, ptr %sizes, i64 %b
  %n = load i64, ptr %np
  call void @run_calls(ptr %tab, i64 0, i64 %n)
  ret void
}

; a step split across threads, with the kernel ABI: args = (the runtime's tjit_rt_run,
; the pool's call header (null: the pool is not held, so the whole range runs here),
; the kernel, its argv, its sizes), sizes = (threads, extent, most blocks, blocks per
; thread, the caller's spin in ticks)
define void @tjit_par_for(ptr noalias %args, ptr noalias %sizes, i64 %start, i64 %end) {
entry:
  %run = load ptr, ptr %args
  %a1 = getelementptr ptr, ptr %args, i64 1
  %hdr = load ptr, ptr %a1
  %a2 = getelementptr ptr, ptr %args, i64 2
  %fn = load ptr, ptr %a2
  %a3 = getelementptr ptr, ptr %args, i64 3
  %kargs = load ptr, ptr %a3
  %a4 = getelementptr ptr, ptr %args, i64 4
  %ksizes = load ptr, ptr %a4
  %nthreads = load i64, ptr %sizes
  %s1 = getelementptr i64, ptr %sizes, i64 1
  %n = load i64, ptr %s1
  %s2 = getelementptr i64, ptr %sizes, i64 2
  %most = load i64, ptr %s2
  %s3 = getelementptr i64, ptr %sizes, i64 3
  %per = load i64, ptr %s3
  %s4 = getelementptr i64, ptr %sizes, i64 4
  %spin = load i64, ptr %s4
  %alone = icmp eq ptr %hdr, null
  br i1 %alone, label %here, label %split
here:
  call void %fn(ptr %kargs, ptr %ksizes, i64 0, i64 %n)
  ret void
split:
  call void %run(ptr %hdr, i64 %nthreads, ptr %fn, ptr %kargs, ptr %ksizes, i64 %n,
                 i64 %most, i64 %per, i64 %spin)
  ret void
}

; slots: entries of 3 words (address of an argument slot, base, stride in bytes):
; *slot = base + i * stride
define internal void @set_slots(ptr %tab, i64 %n, i64 %i) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %b0 = mul i64 %k, 3
  %p0 = getelementptr i64, ptr %tab, i64 %b0
  %slot = load ptr, ptr %p0
  %b1 = add i64 %b0, 1
  %p1 = getelementptr i64, ptr %tab, i64 %b1
  %base = load i64, ptr %p1
  %b2 = add i64 %b0, 2
  %p2 = getelementptr i64, ptr %tab, i64 %b2
  %stride = load i64, ptr %p2
  %off = mul i64 %i, %stride
  %addr = add i64 %base, %off
  store i64 %addr, ptr %slot
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

; ctx (i64 words): 0 mode (0 while, 1 scan), 1 length, 2 reverse, 3 predicate (i8*),
; 4/5 cond calls for parity 0/1, 6 their count, 7/8 body calls for parity 0/1, 9 their
; count, 10 slot table, 11 its count, 12 iterations run so far (in and out),
; 13 iterations allowed in this call, 14 (out) 1 when the loop has finished, 15/16
; a scan's stop rows (bool, base address and stride in bytes; base 0: none): the scan
; stops after the iteration whose row it has just written is false, and a scan with
; stop rows and cond calls runs them before its first iteration and stops if false
define void @tjit_loop(ptr noalias %ctx) {
entry:
  %mode = load i64, ptr %ctx
  %f1 = getelementptr i64, ptr %ctx, i64 1
  %length = load i64, ptr %f1
  %f2 = getelementptr i64, ptr %ctx, i64 2
  %reverse = load i64, ptr %f2
  %f3 = getelementptr i64, ptr %ctx, i64 3
  %pred = load ptr, ptr %f3
  %f4 = getelementptr i64, ptr %ctx, i64 4
  %cond0 = load ptr, ptr %f4
  %f5 = getelementptr i64, ptr %ctx, i64 5
  %cond1 = load ptr, ptr %f5
  %f6 = getelementptr i64, ptr %ctx, i64 6
  %ncond = load i64, ptr %f6
  %f7 = getelementptr i64, ptr %ctx, i64 7
  %body0 = load ptr, ptr %f7
  %f8 = getelementptr i64, ptr %ctx, i64 8
  %body1 = load ptr, ptr %f8
  %f9 = getelementptr i64, ptr %ctx, i64 9
  %nbody = load i64, ptr %f9
  %f10 = getelementptr i64, ptr %ctx, i64 10
  %slots = load ptr, ptr %f10
  %f11 = getelementptr i64, ptr %ctx, i64 11
  %nslots = load i64, ptr %f11
  %f12 = getelementptr i64, ptr %ctx, i64 12
  %t0 = load i64, ptr %f12
  %f13 = getelementptr i64, ptr %ctx, i64 13
  %budget = load i64, ptr %f13
  %f14 = getelementptr i64, ptr %ctx, i64 14
  %f15 = getelementptr i64, ptr %ctx, i64 15
  %until = load i64, ptr %f15
  %f16 = getelementptr i64, ptr %ctx, i64 16
  %until_stride = load i64, ptr %f16
  %has_until = icmp ne i64 %until, 0
  %stop = add i64 %t0, %budget
  %is_scan = icmp eq i64 %mode, 1
  %last = sub i64 %length, 1
  %rev = icmp ne i64 %reverse, 0
  br label %head
head:
  %t = phi i64 [ %t0, %entry ], [ %t1, %body ], [ %t1, %until_check ]
  %odd = trunc i64 %t to i1
  %in_burst = icmp slt i64 %t, %stop
  br i1 %in_burst, label %check, label %paused
check:
  br i1 %is_scan, label %scan_check, label %cond
scan_check:
  %more = icmp slt i64 %t, %length
  br i1 %more, label %scan_first, label %finished
scan_first:
  %first = icmp eq i64 %t, 0
  %has_cond = icmp ne i64 %ncond, 0
  %first_cond = and i1 %first, %has_cond
  %check_first = and i1 %first_cond, %has_until
  br i1 %check_first, label %cond, label %body
cond:
  %ctab = select i1 %odd, ptr %cond1, ptr %cond0
  call void @run_calls(ptr %ctab, i64 0, i64 %ncond)
  %pv = load i8, ptr %pred
  %go = icmp ne i8 %pv, 0
  br i1 %go, label %body, label %finished
body:
  %back = sub i64 %last, %t
  %i = select i1 %rev, i64 %back, i64 %t
  call void @set_slots(ptr %slots, i64 %nslots, i64 %i)
  %btab = select i1 %odd, ptr %body1, ptr %body0
  call void @run_calls(ptr %btab, i64 0, i64 %nbody)
  %t1 = add i64 %t, 1
  br i1 %has_until, label %until_check, label %head
until_check:
  %uoff = mul i64 %i, %until_stride
  %uaddr = add i64 %until, %uoff
  %urow = inttoptr i64 %uaddr to ptr
  %uv = load i8, ptr %urow
  %ugo = icmp ne i8 %uv, 0
  br i1 %ugo, label %head, label %stopped
stopped:
  store i64 %t1, ptr %f12
  store i64 1, ptr %f14
  ret void
finished:
  store i64 %t, ptr %f12
  store i64 1, ptr %f14
  ret void
paused:
  store i64 %t, ptr %f12
  store i64 0, ptr %f14
  ret void
}
"""

def _driver():
    """(loop function, copy address, switch address, pointer filler, split-step
    address), or None where unavailable."""
    return _DRIVER.get() or None


def _load_driver():
    try:
        addrs = disk_cache.load_or_compile(
            WALKER_IR + _IR,
            ["tjit_loop", "tjit_copy", "tjit_switch", "tjit_fill_at", "tjit_par_for"],
            "loop-driver", profile="light")    # (hand-written: target.PROFILES)
    except (ValueError, RuntimeError, OSError):  # pragma: no cover
        return False
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    return fn(addrs["tjit_loop"]), addrs["tjit_copy"], addrs["tjit_switch"], \
        fn(addrs["tjit_fill_at"]), addrs["tjit_par_for"]


_DRIVER = Lazy(_load_driver)


class _Calls:
    """The calls of one program at one parity: a table for the driver, and the argument
    slots whose pointers are set per loop call or per iteration. ``specs``: per call,
    (function address, argument sources, sizes array, end, split across threads?); a
    split call is an entry of ``tjit_par_for`` over the call (``split``: its
    :class:`_Split`), whose header slot ``split_argvs`` the loop sets per call."""

    def __init__(self, specs, nested=(), split=None):
        entries = []
        self.keep = list(nested)    # argv and sizes arrays the table points into, and
        self.nested = list(nested)  # the tables of conds' branches (run by tjit_switch)
        self.per_call = []          # (argv, position, source)
        self.per_iter = []          # (slot address, source)
        self.split_argvs = []       # tjit_par_for's argument arrays (slot 1: the header)
        for fn, sources, sizes, end, parallel in specs:
            argv = (ctypes.c_void_p * max(1, len(sources)))()
            for pos, src in enumerate(sources):
                if src[0] == "fixed":
                    argv[pos] = _ptr(src[1])
                elif src[0] == "raw":       # an address (a branch's call table)
                    argv[pos] = src[1]
                elif src[0] in ("x", "y"):
                    self.per_iter.append((ctypes.addressof(argv) + 8 * pos, src))
                else:
                    self.per_call.append((argv, pos, src))
            self.keep += [argv, sizes]
            if parallel:
                fn, argv, sizes, end = split.entry(fn, argv, sizes, end)
                self.split_argvs.append(argv)
                self.keep += [argv, sizes]
            entries.append((fn, ctypes.addressof(argv), ctypes.addressof(sizes), end))
        self.table = table(entries)
        self.count = len(specs)

    def flat(self):
        """This table and, depth first, its branches' tables."""
        out = [self]
        for c in self.nested:
            out += c.flat()
        return out


class _Split:
    """How a loop body runs its steps split across threads: through ``tjit_par_for``,
    which calls the thread runtime's parallel-for (``threads.native_run_entry``) on the
    pool the loop holds for each call (``ThreadPool.hold_native``), with the blocks
    ``parallel_for`` would make, or runs the whole range on the loop's thread when the
    pool is not held (busy with another thread's call)."""

    def __init__(self, nthreads):
        self.nthreads = nthreads

    def entry(self, fn, argv, sizes, end):
        """The call table entry running ``fn(argv, sizes, 0, end)`` split (the runtime
        is there: ``_supported`` let a split step in only with it)."""
        run, spin, per_thread = threads.native_run_entry()
        split_argv = (ctypes.c_void_p * 5)(run, None, fn, ctypes.addressof(argv),
                                           ctypes.addressof(sizes))
        split_sizes = (ctypes.c_int64 * 5)(min(self.nthreads, end), end, end,
                                           per_thread, spin)
        return _driver()[4], split_argv, split_sizes, 1


def _can_split():
    """Whether loops may run split steps (asked only where one is: it builds the thread
    runtime, which a loop without split steps does not need)."""
    return threads.native_run_entry() is not None


def _supported(runner):
    """Only kernels, BLAS gemms the shim reads in place (split across threads only
    with the native thread runtime), library steps with a native call (the CPU runner's
    ``native_calls``), and conds whose branches are such programs."""
    for s in runner.prog.steps:
        if isinstance(s, KernelStep):
            if runner.launch(s.kernel)[2] and not _can_split():
                return False
        elif isinstance(s, DotStep):
            gemm = runner.gemms[id(s)]
            if gemm is None or (gemm.parallel and not _can_split()) or \
                    gemm.copies != [None, None] or not _alpha_fixed(runner, s):
                return False
        elif isinstance(s, ControlStep) and s.name == "cond":
            if runner.dtype[s.ins[0]] != np.int32 or \
                    not all(_supported(r) for r in runner.control_runners[id(s)]):
                return False
        elif id(s) not in getattr(runner, "native_calls", {}):  # (other library steps)
            return False
    return True


def _carry_aliases(prog, first_carry, n_carry):
    """``(inplace, prefills)`` from the plan's aliases of a loop body: ``{carry k: output
    value}`` for a carry parameter donated to its own output (one buffer, updated in
    place), and ``[(parameter, output value)]`` for an output whose (rewritten) kernel
    reads another parameter's data through its buffer (``inplace_outputs``).

    Any other alias (carries that swap or rotate places, an output written over a
    constant's or another carry's buffer) is the plan's buffer reuse for the Python
    loop, where buffers change hands each trip; the driver keeps fixed pointers and two
    buffers per carry instead, so it drops the alias, and a prefill gives an in-place
    kernel the parameter's data it expects."""
    inplace, prefills = {}, []
    for pos, out in prog.aliases.items():
        k = pos - first_carry
        if 0 <= k < n_carry and prog.outputs[k] == out:
            inplace[k] = out
        elif out in prog.inplace_outputs:
            prefills.append((prog.params[pos], out))
    return inplace, prefills


class _Placement:
    """Where the driver wants each output of a program (``locations``: per output, a
    carry's next buffer ``("next", k)``, a stacked row ``("y", j)`` or a fixed array),
    which output position each kernel-written value is written to, and the copies that
    put every other output in place around the program's kernels.

    ``single``: {carry k: its parameter} for carries passed through unchanged in one
    buffer; ``inplace``: {carry k: output value} for carries updated in one buffer (that
    value is written there, wherever else it is returned); ``prefills``: (parameter,
    output value) whose location must hold the parameter's data before the kernels.
    Copies of a parameter (a carry returned in another carry's place, a scanned slice
    stacked as a row) run before the kernels, from the values the iteration starts with,
    so a kernel that updates a carry in place never changes what they read; their
    destinations (next buffers, rows) are read by nothing in the iteration. Copies of
    computed values and constants run after the kernels."""

    def __init__(self, prog, locations, single, inplace=None, prefills=()):
        written = {v for s in prog.steps for v in s.outs}
        params = set(prog.params)
        self.target = {v: ("next", k) for k, v in (inplace or {}).items()}
        self.before = []            # (value, destination location): parameters' copies
        self.after = []             # (value, destination location)
        for v, loc in zip(prog.outputs, locations):
            if self.target.get(v) == loc:
                continue
            if v in written and v not in self.target:
                self.target[v] = loc
            elif loc[0] == "next" and loc[1] in single and v == single[loc[1]]:
                continue            # a carry passed through unchanged in its own buffer
            elif v in params:
                self.before.append((v, loc))
            elif v in written or prog.values[v].kind == "const":
                self.after.append((v, loc))
            else:
                raise _Unsupported(f"output %{v} is computed outside kernels")
        for p, out in prefills:
            if out in self.target:
                self.before.append((p, self.target[out]))


class _Unsupported(Exception):
    pass


def _alpha_fixed(runner, s):
    """Whether the driver may run dot step ``s``'s gemm with the ``alpha`` bound now at
    every iteration: no 0-d value factors (the runner's own step reads them per call),
    and run-time size factors whose product BLAS may apply at this binding (else the
    runner's step computes the unfolded formula: at alpha 0 BLAS would skip the product
    and drop its NaNs; ``DotStep.alpha_usable``)."""
    if not (s.scale or s.parts):
        return True
    return not s.scalar_ids and s.alpha_usable(runner.env, None, runner.dtype[s.outs[0]])


class NativeLoop:
    """``run(args) -> results`` of a while/scan step through the native driver."""

    @classmethod
    def build(cls, step, runners, env):
        """A NativeLoop for ``step``, or None when it does not qualify (see the module
        docstring). ``runners``: per body program, its runner."""
        if step.name not in ("while", "scan") or _driver() is None or \
                not all(_supported(r) for r in runners):
            return None
        try:
            return cls(step, runners, env)
        except _Unsupported:
            return None

    def __init__(self, step, runners, env):
        self.kind, a = step.name, step.attrs
        body_runner = runners[-1]
        body = body_runner.prog
        if self.kind == "while":
            self.n_cond, self.n_body = a["cond_nconsts"], a["body_nconsts"]
            self.n_carry = len(body.params) - self.n_body
            self.length, self.reverse = 0, False
        else:
            self.n_cond, self.n_body = 0, a["num_consts"]
            self.n_carry = a["num_carry"]
            self.length, self.reverse = concrete(a["length"], env), bool(a["reverse"])
        n_body, n_carry = self.n_body, self.n_carry
        inplace, prefills = _carry_aliases(body, n_body, n_carry)
        passed = {k: body.params[n_body + k] for k in range(n_carry)
                  if body.outputs[k] == body.params[n_body + k]}
        self.single = set(inplace) | set(passed)      # carries kept in one buffer
        self.carry_specs = [(body_runner.shape[v], body_runner.dtype[v])
                            for v in body.outputs[:n_carry]]
        self.ys_specs = [((self.length,) + body_runner.shape[v], body_runner.dtype[v])
                         for v in body.outputs[n_carry:]]
        self.pred = np.zeros((), np.bool_)
        self.keep = runners        # their temporaries, constants, sizes and gemm calls
        self.scratch = {}          # (id(runner), value) -> array, for conds' results
        copy_fn = _driver()[1]
        self.split = _Split(body_runner.nthreads)
        self.calls = [None, None]                # cond parity 0/1, body parity 0/1
        if len(runners) == 2:    # a while's cond, or the predicate a stopping scan
            cond = runners[0]    # checks before its first iteration (stop_at_false)
            if len(cond.prog.outputs) != 1:
                raise _Unsupported("cond has several outputs")
            place = _Placement(cond.prog, [("fixed", self.pred)], {})
            n_cc = self.n_cond if self.kind == "while" else a["cond_nconsts"]
            self.calls = [self._calls(cond, place, 0, n_cc, p, copy_fn) for p in (0, 1)]
        locations = [("next", k) for k in range(n_carry)] + \
            [("y", j) for j in range(len(body.outputs) - n_carry)]
        place = _Placement(body, locations, passed, inplace, prefills)
        self.calls += [self._calls(body_runner, place, self.n_cond, n_body, p, copy_fn)
                       for p in (0, 1)]
        self._build_ctx()

    # -- where each value's pointer comes from ----------------------------------------
    def _calls(self, runner, place, const_base, n_consts, parity, copy_fn):
        """The kernel calls of one program at one parity, then its copies."""
        prog = runner.prog
        param_of = {v: j for j, v in enumerate(prog.params)}

        def location(loc):
            return self._carry(loc[1], 1 - parity) if loc[0] == "next" else loc

        def source(v):
            """("fixed", array), ("const", arg index), ("carry", k, buffer), ("x"/"y", j)"""
            if v in place.target:
                return location(place.target[v])
            j = param_of.get(v)
            if j is None:
                return self._fixed(runner, v)
            if j < n_consts:
                return ("const", const_base + j)
            if j < n_consts + self.n_carry:
                return self._carry(j - n_consts, parity)
            return ("x", j - n_consts - self.n_carry)
        return self._program_calls(runner, source, location, place, copy_fn)

    def _program_calls(self, runner, source, location, place, copy_fn):
        """The calls of ``runner``'s steps over the pointers ``source`` gives, then the
        copies of ``place``. A cond is one call of ``tjit_switch`` over its branches'
        tables, whose parameters read the cond's operands where they are and whose
        results are written where the cond's results are read."""
        specs, nested = [], []
        self._copy_specs(runner, place.before, source, location, copy_fn, specs)
        for s in runner.prog.steps:
            if isinstance(s, ControlStep):      # a cond (see _supported)
                branches = []
                for r in runner.control_runners[id(s)]:
                    outs = [source(o) if o is not None else self._fixed(r, r.prog.outputs[k])
                            for k, o in enumerate(s.outs)]
                    branches.append(self._branch_calls(r, [source(v) for v in s.ins[1:]],
                                                       outs, copy_fn))
                nested += branches
                sizes = (ctypes.c_int64 * len(branches))(*[b.count for b in branches])
                args = [source(s.ins[0])] + [("raw", ctypes.addressof(b.table))
                                             for b in branches]
                specs.append((_driver()[2], args, sizes, len(branches), False))
                continue
            call = getattr(runner, "native_calls", {}).get(id(s))
            if call is not None:        # a library step's shim, same ABI: (ins, outs)
                args = [source(v) for v in s.ins] + [
                    source(v) if v is not None else ("fixed", call.scratch[j])
                    for j, v in enumerate(s.outs)]   # (results nobody reads: scratch)
                specs.append((call.fn, args, call.sizes, call.end, False))
                continue
            args = [source(v) for v in list(s.ins) + list(s.outs)]
            if isinstance(s, DotStep):   # the gemm shim has the kernel ABI: (lhs, rhs, out)
                gemm = runner.gemms[id(s)]
                fn = ctypes.cast(gemm.shim, ctypes.c_void_p).value
                specs.append((fn, args, gemm.sizes, gemm.n_units, gemm.parallel))
                continue
            sizes, end, parallel = runner.launch(s.kernel)
            fn = ctypes.cast(runner.fns[s.kernel.name], ctypes.c_void_p).value
            specs.append((fn, args, sizes, end, parallel))
        self._copy_specs(runner, place.after, source, location, copy_fn, specs)
        return _Calls(specs, nested, self.split)

    @staticmethod
    def _copy_specs(runner, copies, source, location, copy_fn, specs):
        for v, loc in copies:
            nbytes = int(np.prod(runner.shape[v], dtype=np.int64)) * runner.dtype[v].itemsize
            specs.append((copy_fn, [source(v), location(loc)],
                          (ctypes.c_int64 * 1)(nbytes), 1, False))

    def _branch_calls(self, runner, ins, outs, copy_fn):
        """A cond branch's calls: parameters at ``ins``, results to ``outs`` (sources)."""
        prog = runner.prog
        src_of = dict(zip(prog.params, ins))
        place = _Placement(prog, outs, {})

        def source(v):
            if v in place.target:
                return place.target[v]
            if v in src_of:
                return src_of[v]
            return self._fixed(runner, v)
        return self._program_calls(runner, source, lambda loc: loc, place, copy_fn)

    def _fixed(self, runner, v):
        """A value's own array: its temporary slot or constant, or (a cond's result:
        control steps have no slots, their results are fresh arrays) a scratch array
        this loop keeps."""
        a = runner.fixed[runner.index[v]]
        if a is None:
            a = self.scratch.get((id(runner), v))
            if a is None:
                a = self.scratch[(id(runner), v)] = np.empty(runner.shape[v],
                                                             runner.dtype[v])
        return ("fixed", a)

    def _carry(self, k, buf):
        return ("carry", k, 0 if k in self.single else buf)

    def _tables(self):
        """Every call table (cond and body per parity, and their branches')."""
        return [t for c in self.calls if c for t in c.flat()]

    def _build_ctx(self):
        per_iter = [(slot, src) for c in self._tables() for slot, src in c.per_iter]
        self.slots = (ctypes.c_int64 * (3 * max(1, len(per_iter))))()
        slot_sources = {}
        for n, (slot, src) in enumerate(per_iter):
            self.slots[3 * n] = slot
            slot_sources.setdefault(src, []).append(3 * n + 1)
        # per distinct source, every place its pointer goes: a call reads each pointer
        # once (an array's address costs ~0.5 us; a body repeats a few sources a lot)
        self.slot_sources = list(slot_sources.items())
        per_call = {}
        for c in self._tables():
            for argv, pos, src in c.per_call:
                per_call.setdefault(src, []).append((argv, pos))
        self.per_call = list(per_call.items())
        # steps split across threads: the pool is held for each call of the loop
        self.split_argvs = [a for c in self._tables() for a in c.split_argvs]
        self.pool = threads.get_pool(self.split.nthreads) if self.split_argvs else None
        self._build_fill()
        self.until = None
        cond0, cond1, body0, body1 = self.calls
        self.ctx = (ctypes.c_int64 * 17)(
            1 if self.kind == "scan" else 0, self.length, int(self.reverse),
            _ptr(self.pred),
            ctypes.addressof(cond0.table) if cond0 else 0,
            ctypes.addressof(cond1.table) if cond1 else 0, cond0.count if cond0 else 0,
            ctypes.addressof(body0.table), ctypes.addressof(body1.table), body0.count,
            ctypes.addressof(self.slots), len(per_iter), 0, BURST, 0, 0, 0)

    def _build_fill(self):
        """The native filler's tables (``tjit_fill_at``): every per-call argument slot
        and every per-iteration slot base, each from one distinct source array; None
        where an array's data offset is unknown (``_ptr`` per source instead)."""
        off = data_offset()
        self.fill_ctx = None
        if off is None:
            return
        sources = [src for src, _ in self.per_call] + [src for src, _ in self.slot_sources]
        dsts, idx = [], []
        for j, (_, places) in enumerate(self.per_call):
            for argv, pos in places:
                dsts.append(ctypes.addressof(argv) + 8 * pos)
                idx.append(j)
        base = ctypes.addressof(self.slots)
        for j, (_, ats) in enumerate(self.slot_sources, start=len(self.per_call)):
            for at in ats:
                dsts.append(base + 8 * at)
                idx.append(j)
        self.fill_sources = sources
        self.fill_objs = (ctypes.c_void_p * max(1, len(sources)))()
        self.fill_dsts = (ctypes.c_void_p * max(1, len(dsts)))(*dsts)
        self.fill_idx = (ctypes.c_int64 * max(1, len(idx)))(*idx)
        self.fill_ctx = (ctypes.c_int64 * 5)(
            ctypes.addressof(self.fill_objs), ctypes.addressof(self.fill_dsts),
            ctypes.addressof(self.fill_idx), len(dsts), off)

    def set_length(self, length):
        """Run a scan of ``length`` iterations from the next call on (the driver reads
        the length at run time: no rebuild; ``while_transpose`` sweeps set it per call)."""
        if length == self.length:
            return
        self.length = self.ctx[1] = int(length)
        self.ys_specs = [((self.length,) + tuple(shape[1:]), dtype)
                         for shape, dtype in self.ys_specs]

    def stop_at_false(self, j):
        """From the next call on, a (forward) scan stops after the iteration whose row of
        stacked output ``j`` (bool) is false: the rows past it are left unwritten, and
        ``trips`` says how many iterations ran (``while_transpose``'s forward sweep,
        whose rows are the predicates at each trip's new state). A scan built with a
        predicate program (two runners; ``cond_nconsts`` of its consts are the
        predicate's) checks it at the initial state first: false runs no iteration."""
        if self.kind != "scan" or self.reverse or self.ys_specs[j][1] != np.bool_:
            raise ValueError("stop_at_false: a forward scan's bool output only")
        self.until = j

    # -- running ----------------------------------------------------------------------
    def __call__(self, args, owned=()):
        """``owned``: carries whose initial array (a donated argument) becomes their
        first buffer instead of a copy."""
        first = self.n_cond + self.n_body
        buffers = []
        for k, (shape, dtype) in enumerate(self.carry_specs):
            a = args[first + k]
            if k in owned:
                pass
            elif type(a) is np.ndarray and a.dtype == dtype and a.shape == shape:
                a = a.copy()     # (C order; ~0.4 us cheaper than the general form)
            else:
                a = np.array(a, dtype=dtype, order="C", copy=True).reshape(shape)
            buffers.append((a, a if k in self.single else np.empty(shape, dtype)))
        xs = [np.ascontiguousarray(x) for x in args[first + self.n_carry:]]
        ys = [np.empty(shape, dtype) for shape, dtype in self.ys_specs]
        consts = [a if a.flags.c_contiguous else np.array(a, order="C")
                  for a in args[:first]]
        slots = self.slots
        if self.fill_ctx is not None:     # every pointer in one native call
            objs = self.fill_objs
            for j, src in enumerate(self.fill_sources):
                kind = src[0]
                a = consts[src[1]] if kind == "const" else buffers[src[1]][src[2]] \
                    if kind == "carry" else xs[src[1]] if kind == "x" else ys[src[1]]
                objs[j] = id(a)
            _driver()[3](self.fill_ctx)
            for src, ats in self.slot_sources:
                stride = (xs if src[0] == "x" else ys)[src[1]].strides[0]
                for at in ats:
                    slots[at + 1] = stride
        else:
            for src, places in self.per_call:
                p = _ptr(consts[src[1]]) if src[0] == "const" else \
                    _ptr(buffers[src[1]][src[2]])
                for argv, pos in places:
                    argv[pos] = p
            for src, ats in self.slot_sources:
                arr = xs[src[1]] if src[0] == "x" else ys[src[1]]
                p, stride = _ptr(arr), arr.strides[0]
                for at in ats:
                    slots[at], slots[at + 1] = p, stride
        if self.until is not None:
            rows = ys[self.until]
            self.ctx[15], self.ctx[16] = (_ptr(rows), rows.strides[0]) if rows.size else (0, 0)
        else:
            self.ctx[15] = 0
        self.ctx[12] = 0
        pool = self.pool
        header = pool.hold_native() if pool is not None else None
        try:
            for argv in self.split_argvs:   # (no header: split steps run on this thread)
                argv[1] = header
            run = _driver()[0]
            while True:          # bursts of BURST iterations: Ctrl-C is seen in between
                run(self.ctx)
                if self.ctx[14]:
                    break
        finally:
            if header is not None:
                pool.release_native()
        t = self.trips = self.ctx[12]
        carry = [bufs[t & 1] for bufs in buffers]  # after t iterations: read side of t
        return carry + ys
