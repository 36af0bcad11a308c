"""Structured control flow: ``cond``, ``while`` and ``scan`` plan steps, driven from the host.

Each body of a :class:`~tjit.xla_like.plan.ControlStep` is a Program of its own (fused
kernels, dots, library calls, nested control flow), prepared once per size binding as
a runner (the same runner the top level uses), so an iteration costs one runner call:
no interpretation of the body's equations, no compilation for a new trip count. Loops
over small kernel-only bodies skip even that: ``native_loop`` runs all their iterations
in one native call; this module's Python loops serve every other body. On a device
(CUDA: ``xp`` is CuPy) the same loops launch the body runners; where the host must see
a device value it waits: a ``while`` predicate once per trip, a ``cond`` index once per
call; ``scan`` needs no synchronization (its trip count is static).

``while_transpose`` (the reverse sweep of a ``while``, for ``grad``) runs its body
(fused with the next predicate: one call per trip) forward and its backward program
over the recorded residuals through ``primitives/loop_tape.py``, the same tape
(doubling buffers of ``xp``) or Revolve schedule as its reference implementation. On
the CPU, when both programs qualify for ``native_loop``, both sweeps are native scans
instead (:class:`_NativeSweep`): the forward one writes each trip's record and the
predicate at its new state as rows, and the driver stops it after the first false
predicate, so no trip runs past the loop's end; its rows are allocated for as many
trips as the previous call ran (more continue in a longer scan).

Buffers. A loop body's carry parameters are donated to its outputs (see ``plan``): an
iteration writes the new carry into the buffer of the previous one whenever this loop
owns that buffer, i.e. it was freshly written by the previous iteration's kernel or
BLAS call, or it is a donated argument the caller gave up. The loop's other inputs (the
caller's arrays, other steps' buffers) and values a body passes through unchanged or
returns twice are never given up. For the same reason a result the step returns is
always an array it owns: a pass-through is copied.
"""

import types

import numpy as np

from tjit.devices.native_loop import NativeLoop
from tjit.primitives import loop_tape
from tjit.primitives.loop_tape import note_sweep, reverse_sweep
from tjit.xla_like import sweep_memory
from tjit.xla_like.plan import DotStep, KernelStep, concrete


def fresh_outputs(prog):
    """Per output of ``prog``: True when each call writes it into a new buffer (a kernel
    or BLAS result, or a donated buffer the caller gave up), not a pass-through of an
    argument, a constant or a library call's result (which may be an argument)."""
    written = {v for s in prog.steps if isinstance(s, (KernelStep, DotStep)) for v in s.outs}
    return [prog.values[v].kind == "output" and v in written for v in prog.outputs]


class Body:
    """One body program at one size binding: ``run(args, donated) -> outputs``, plus
    which outputs are fresh buffers."""

    def __init__(self, runner):
        self.runner = runner
        self.run = runner.run
        self.fresh = fresh_outputs(runner.prog)

    def owned(self, outs):
        """Per output: fresh and not the same array as another output."""
        counts = {}
        for o in outs:
            counts[id(o)] = counts.get(id(o), 0) + 1
        return [f and counts[id(o)] == 1 for o, f in zip(outs, self.fresh)]


def _owned_copies(values, owned):
    return [v if o else v.copy() for v, o in zip(values, owned)]   # (C order)


def build(step, make_runner, env, xp=np):
    """``run(args, given) -> results`` for ``step`` at the size binding ``env``;
    ``given``: the carries whose initial value the loop may update in place (a donated
    argument). ``make_runner(program)`` prepares a body program (its runner); ``xp``
    is the array namespace of its buffers. Loops over small bodies on the CPU run
    natively (``native_loop``)."""
    runners = [make_runner(b) for b in step.bodies]
    run = NativeLoop.build(step, runners, env) if xp is np else None
    if run is None:
        build_kind = {"cond": _cond, "while": _while, "scan": _scan,
                      "while_transpose": _while_transpose}[step.name]
        run = build_kind(step, [Body(r) for r in runners], env, xp)
    run.runners = runners   # (a loop around this step may run them natively)
    return run


def _cond(step, branches, env, xp):
    last = len(branches) - 1

    def run(args, given=()):
        branch = branches[min(max(int(args[0]), 0), last)]  # clamped, like lax.switch
        outs = branch.run(args[1:])
        return _owned_copies(outs, branch.owned(outs))
    return run


def _while(step, bodies, env, xp):
    cond, body = bodies
    n_cond, n_body = step.attrs["cond_nconsts"], step.attrs["body_nconsts"]

    def run(args, given=()):
        cond_consts = list(args[:n_cond])
        body_consts = list(args[n_cond:n_cond + n_body])
        carry = list(args[n_cond + n_body:])
        owned = [k in given for k in range(len(carry))]
        while bool(cond.run(cond_consts + carry)[0]):   # (a device waits here)
            donated = tuple(n_body + k for k, o in enumerate(owned) if o)
            carry = body.run(body_consts + carry, donated)
            owned = body.owned(carry)
        return _owned_copies(carry, owned)
    return run


def _scan(step, bodies, env, xp):
    (body,) = bodies
    a = step.attrs
    length, reverse = concrete(a["length"], env), a["reverse"]
    n_consts, n_carry = a["num_consts"], a["num_carry"]
    ys_avals = [(tuple(concrete(d, env) for d in shape), dtype)
                for shape, dtype in step.out_avals[n_carry:]]

    def run(args, given=()):
        consts = list(args[:n_consts])
        carry = list(args[n_consts:n_consts + n_carry])
        xs = args[n_consts + n_carry:]
        ys = [xp.empty(shape, dtype) for shape, dtype in ys_avals]
        owned = [k in given for k in range(n_carry)]
        for t in range(length):
            i = length - 1 - t if reverse else t
            donated = tuple(n_consts + k for k, o in enumerate(owned) if o)
            outs = body.run(consts + carry + [x[i, ...] for x in xs], donated)
            carry = outs[:n_carry]
            owned = body.owned(outs)[:n_carry]
            for buf, y in zip(ys, outs[n_carry:]):
                buf[i] = y
        return _owned_copies(carry, owned) + ys
    return run


def _while_transpose(step, bodies, env, xp):
    # bodies (see lowering): the predicate; the body fused with the predicate at the new
    # state (cond consts + body consts + state -> state + record + [predicate]), so a
    # forward trip is one call; the backward step as a scan body (bwd consts + acc +
    # record -> acc)
    cond, body, bwd = bodies
    a = step.attrs
    nc, nb, nw, ns = a["cond_nconsts"], a["body_nconsts"], a["bwd_nconsts"], a["n_state"]
    native = _NativeSweep.build(step, [b.runner for b in bodies], env) if xp is np else None
    # (a tape limit, Revolve's snapshots and its scans' rows within a memory budget's
    # allowance)
    tape_limit, checkpoints, burst_bytes = sweep_memory.schedule(
        step, lambda d: concrete(d, env))
    if native is not None and burst_bytes is not None:
        native.burst = max(1, min(native.burst, 1 + burst_bytes // max(1, native.row_bytes)))

    def run(args, given=()):
        cc, bc, wc = list(args[:nc]), list(args[nc:nc + nb]), list(args[nc + nb:nc + nb + nw])
        init, acc = list(args[nc + nb + nw:nc + nb + nw + ns]), list(args[nc + nb + nw + ns:])
        taped = None
        if native is not None and checkpoints is None:
            return native(cc, bc, wc, init, acc)[1]
        if native is not None and tape_limit is not None:
            done, taped = native(cc, bc, wc, init, acc, tape_limit)
            if done:
                return taped
        last = [None, None]   # the latest state stepped to, and the predicate there

        def more(state):
            if state is last[0]:
                return last[1]
            return bool(cond.run(cc + state)[0])   # (a device waits here)

        def step(state):
            outs = body.run(cc + bc + state)
            last[0], last[1] = outs[:ns], bool(outs[-1])
            return last[0], outs[ns:-1]

        def advance(state, m):   # a native call costs about a few trips' Python calls
            if m >= _NATIVE_ADVANCE_MIN:
                return native.advance(cc, bc, state, m)
            for _ in range(m):
                state = step(state)[0]
            return state, m

        fast = {} if native is None else {
            "count": lambda s: native.count(cc, bc, s), "advance": advance}
        if taped is not None:   # (the native tape outgrew its limit: Revolve, counting on)
            fast["count"] = _counting_on(native, cc, bc, *taped)
        acc = reverse_sweep(more, step, lambda r, acc: bwd.run(wc + acc + list(r)),
                            init, acc, xp, checkpoints, **fast,
                            tape_limit=None if taped is not None else tape_limit)
        if taped is not None:
            _note_overflow(native.last_tape_bytes)
        return [x.copy() for x in acc]   # (may be the caller's arrays: zero trips)
    return run


def _counting_on(native, cc, bc, state, trips):
    """Revolve's trip count after a native tape that outgrew its limit: the ``trips``
    it ran to ``state`` plus the rest, counted natively from there (not from the
    initial state Revolve asks about)."""
    def count(_init):
        rest, ran = native.count(cc, bc, state)
        return trips + rest, trips + ran
    return count


def _note_overflow(tape_bytes):
    stats = loop_tape.last_stats
    stats.overflowed = True
    stats.peak_bytes = max(stats.peak_bytes, tape_bytes)


#: Revolve advances of fewer trips run as Python calls of the body (measured: a native
#: call's set-up costs about as much as a handful of trips)
_NATIVE_ADVANCE_MIN = 8


def _scan_step(num_consts, num_carry, reverse, cond_nconsts=0):
    """A stand-in scan step for NativeLoop.build (its length is set per call)."""
    return types.SimpleNamespace(name="scan", attrs={
        "num_consts": num_consts, "num_carry": num_carry, "length": 1, "reverse": reverse,
        "cond_nconsts": cond_nconsts})


class _NativeSweep:
    """A taped ``while_transpose`` on the CPU with both sweeps native (``native_loop``):
    the forward sweep as a scan whose rows are the trips' records and the predicate at
    each new state, stopped by the driver after the first false predicate (no trip runs
    past the loop's end); its tape holds as many trips as the last call ran (a jit'd
    gradient called again usually runs as many), so one native call serves the whole
    sweep, and a loop that runs longer continues in scans of doubling length. The
    backward step is one reversed scan over the records. Under Revolve
    (``checkpoints``) it counts the trips and advances states natively. None when a
    program does not qualify."""

    @classmethod
    def build(cls, step, runners, env):
        a = step.attrs
        n_acc = len(runners[2].prog.outputs)
        fwd = NativeLoop.build(_scan_step(a["cond_nconsts"] + a["body_nconsts"],
                                          a["n_state"], False, a["cond_nconsts"]),
                               runners[:2], env)
        bwd = NativeLoop.build(_scan_step(a["bwd_nconsts"], n_acc, True), runners[2:], env)
        return None if fwd is None or bwd is None else cls(runners[0], fwd, bwd, a["n_state"])

    def __init__(self, cond, fwd, bwd, n_state):
        self.cond, self.fwd, self.bwd, self.ns = cond, fwd, bwd, n_state
        fwd.stop_at_false(len(fwd.ys_specs) - 1)   # (the predicate: the last row)
        self.capacity = 16    # trips of the first scan: the trip count of the last call
        # bytes of one trip's rows (its record and the predicate at its new state)
        self.row_bytes = sum(int(np.prod(shape[1:], dtype=np.int64)) * np.dtype(dt).itemsize
                             for shape, dt in fwd.ys_specs)
        self.last_tape_bytes = 0
        self.burst = self.DROP_BURST

    #: most trips per native call when the records are dropped (Revolve): the rows a
    #: call writes stay O(1), not O(trips); fewer under a memory budget (``burst``)
    DROP_BURST = 256

    def _scan(self, cc, bc, state, length):
        """One forward scan of at most ``length`` trips from ``state``, stopped at the
        loop's end (it checks the predicate at ``state`` first): (records, trips run,
        the state reached, whether the loop goes on)."""
        ns = self.ns
        self.fwd.set_length(length)
        outs = self.fwd(cc + bc + state)
        k = self.fwd.trips
        return outs[ns:-1], k, outs[:ns], k == length and bool(outs[-1][k - 1])

    def count(self, cc, bc, state):
        """(trips of the loop from ``state``, forward steps run)."""
        n, more, state = 0, True, list(state)
        while more:   # (each scan's rows dropped before the next one runs)
            k, state, more = self._scan(cc, bc, state, self.burst)[1:]
            n += k
        return n, n

    def advance(self, cc, bc, state, m):
        """(the state after ``m`` trips from ``state``, forward steps run)."""
        state, left = list(state), m
        self.fwd.until = None     # (m trips, wherever the predicate turns false)
        try:
            while left:
                self.fwd.set_length(min(left, self.burst))
                state = self.fwd(cc + bc + state)[:self.ns]
                left -= min(left, self.burst)
        finally:
            self.fwd.stop_at_false(len(self.fwd.ys_specs) - 1)
        return state, m

    def __call__(self, cc, bc, wc, init, acc, limit=None):
        """``(True, final acc)``; with a byte ``limit`` on the tape (the rows the forward
        scans write: records and predicates), ``(False, (state, trips run))`` when the
        loop outruns it (its scans stop short of the limit, doubling as they can)."""
        room = None if limit is None else limit // max(1, self.row_bytes)  # (in trips)
        length = self.capacity if room is None else min(self.capacity, room)
        chunks, n, rows, state, more = [], 0, 0, list(init), True
        while more:
            if length < 1:
                self.last_tape_bytes = rows * self.row_bytes
                return False, (state, n)
            records, k, state, more = self._scan(cc, bc, state, length)
            chunks.append((k, [r[:k] for r in records]))
            n, rows = n + k, rows + length
            length = 2 * length if room is None else min(2 * length, room - rows)
        self.last_tape_bytes = rows * self.row_bytes
        if n == 0:
            note_sweep(None, trips=0, forward_steps=0)
            return True, [np.array(x, copy=True) for x in acc]
        self.capacity = n
        note_sweep(None, trips=n, forward_steps=n, backward_steps=n, peak_saved=n,
                   peak_bytes=self.last_tape_bytes)
        for k, records in reversed(chunks):    # (each scan's rows, last trip first)
            if k:
                self.bwd.set_length(k)
                acc = self.bwd(wc + acc + records)
        return True, acc
