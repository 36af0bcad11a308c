"""The reverse sweep of a ``while`` loop whose trip count is known only at run time.

A loop ``s_{i+1}, r_i = step(s_i)`` runs while ``more(s_i)``; ``r_i`` is what the
backward pass needs of trip ``i`` (its residuals). The reverse sweep applies
``acc = back(r_i, acc)`` for ``i = n-1, ..., 0``. The records are either

* kept on a :class:`Tape` as the loop runs: buffers per record leaf in chunks, a new
  one as large as all before it whenever they are full (the trip count is unknown
  until the loop stops, so no size can be chosen up front; the capacity doubles and
  nothing is copied), or
* rebuilt from at most ``k`` saved *states* by binomial checkpointing (Griewank and
  Walther's Revolve schedule): a first sweep counts the trips without saving anything,
  then :func:`_revolve` reverses the loop holding at most ``k`` states at once, at the
  cost of recomputing forward steps (O(n log n) of them for fixed ``k``; O(n^2 / 2)
  when ``k == 1``); the record of a trip is recomputed from its state when needed.

* or, under a memory budget (``jit(f, memory_budget=...)``, ``xla_like/sweep_memory.py``),
  kept on a tape whose buffers may hold at most ``tape_limit`` bytes: a loop that
  outruns it drops its tape, counts its remaining trips and is reversed by Revolve
  from its initial state (the taped trips served as the first part of Revolve's
  counting sweep: the forward steps are those of Revolve from the start). :func:`fit_sweep` chooses the limit and ``k`` from a byte allowance,
  so that the sweep's holdings stay within it whatever the trip count.

The drivers take plain callables and an array namespace ``xp``, so the reference
implementation (bodies interpreted on NumPy/CuPy arrays) and the compiled runtime
(bodies run as compiled sub-programs) share them. :data:`last_stats` records what the
last sweep did (trips, forward steps, peak number of saved states): the measure the
tests and ``benchmarks/bench_while_grad.py`` read.
"""

import bisect
from math import comb

#: The most snapshots a memory budget gives a sweep (``fit_sweep``): Revolve recurses
#: once per snapshot, and past a few dozen the recomputed steps hardly fall (64 reverse
#: 2,000 trips running each step at most 3 times)
MAX_FITTED_CHECKPOINTS = 64


def sweep_floor(state, record, acc):
    """Bytes a sweep holds besides its operands whatever it keeps (all byte counts): the
    state stepped from and the one stepped to, one trip's record and the accumulators
    being written. Works on ints and on size expressions."""
    return 2 * state + record + acc


def revolve_bytes(k, state, record, acc):
    """The most bytes a Revolve sweep with ``k`` snapshots holds besides its operands:
    ``k - 1`` snapshots (the initial state is an operand) and :func:`sweep_floor`."""
    return (k - 1) * state + sweep_floor(state, record, acc)


def fit_sweep(allowance, state, record, acc, checkpoints=None):
    """How a sweep holds at most ``allowance`` bytes besides its operands, for any trip
    count: ``(tape_limit, k)``. The tape keeps records while its buffers hold at most
    ``tape_limit`` bytes (None: no tape, ``checkpoints`` was given: the caller asked for
    Revolve), and a loop that outruns it is reversed by Revolve with ``k`` snapshots,
    the most (at most ``checkpoints``, at most :data:`MAX_FITTED_CHECKPOINTS`) within
    the allowance. None when even one snapshot does not fit (``revolve_bytes(1, ...)``
    is the least any sweep holds)."""
    spare = allowance - sweep_floor(state, record, acc)
    if spare < 0:
        return None
    cap = MAX_FITTED_CHECKPOINTS if checkpoints is None else min(int(checkpoints),
                                                                 MAX_FITTED_CHECKPOINTS)
    k = cap if state <= 0 else min(cap, 1 + spare // state)
    return (None if checkpoints is not None else spare), int(k)


class LoopStats:
    """What one reverse sweep did: ``trips`` (n), ``forward_steps`` (body evaluations,
    recomputations included), ``backward_steps``, ``peak_saved`` (most items held at
    once: records on a tape, or Revolve's state snapshots, the initial state included)
    and ``peak_bytes`` (their bytes: a tape's buffers at their doubled capacity)."""

    def __init__(self, checkpoints):
        self.checkpoints = checkpoints
        self.trips = self.forward_steps = self.backward_steps = 0
        self.saved = self.peak_saved = self.peak_bytes = 0
        self.overflowed = False   # the tape outgrew its limit: reversed by Revolve

    def hold(self, k=1, nbytes=0):
        self.saved += k
        self.peak_saved = max(self.peak_saved, self.saved)
        self.peak_bytes = max(self.peak_bytes, self.saved * nbytes)

    def __repr__(self):
        return (f"LoopStats(checkpoints={self.checkpoints}, trips={self.trips}, "
                f"forward_steps={self.forward_steps}, backward_steps={self.backward_steps},"
                f" peak_saved={self.peak_saved}, peak_bytes={self.peak_bytes}"
                f"{', overflowed=True' if self.overflowed else ''})")


def _nbytes(arrays):
    return sum(int(getattr(x, "nbytes", 0)) for x in arrays)


#: stats of the most recent reverse sweep in this process (None before the first one)
last_stats = None


class Tape:
    """Per-trip records stacked per leaf in chunks, each as large as all before it (the
    capacity doubles, and nothing is copied when it does); with a ``limit``, the chunks
    never hold more than ``limit`` bytes: :meth:`push` says False to a record they
    cannot take."""

    def __init__(self, xp, capacity=16, limit=None):
        self.xp, self.limit, self.first_rows = xp, limit, capacity
        self.starts, self.chunks = [], []   # per chunk: its first trip, its buffers
        self.size = self.capacity = self.nbytes = 0

    def push(self, record):
        """Append a trip's record; False (and nothing kept) when the limit forbids it."""
        if self.size == self.capacity:
            row = sum(int(x.nbytes) for x in record)
            rows = max(self.capacity, self.first_rows)
            if self.limit is not None and row:
                rows = min(rows, (self.limit - self.nbytes) // row)
            if rows < 1:
                return False
            self.starts.append(self.size)
            self.chunks.append([self.xp.empty((rows,) + tuple(x.shape), x.dtype)
                                for x in record])
            self.capacity += rows
            self.nbytes += rows * row
        for b, x in zip(self.chunks[-1], record):
            b[self.size - self.starts[-1]] = x
        self.size += 1
        return True

    def __getitem__(self, i):
        c = bisect.bisect_right(self.starts, i) - 1
        return [b[i - self.starts[c], ...] for b in self.chunks[c]]   # (0-d arrays, never
        # NumPy scalars)


def reverse_sweep(more, step, back, init, acc, xp, checkpoints=None, count=None,
                  advance=None, tape_limit=None):
    """Run the loop from ``init`` and its reverse sweep; returns the final ``acc``.

    Args:
      more: state -> bool (the loop's predicate).
      step: state -> (next state, record) (lists of arrays).
      back: (record, acc) -> acc, applied from the last trip to the first.
      checkpoints: None keeps every record on a :class:`Tape`; an int ``k >= 1``
        holds at most ``k`` states (Revolve).
      tape_limit: bytes: keep records on a tape of at most that many bytes, and if the
        loop outruns it, reverse it by Revolve with ``checkpoints`` (an int) snapshots.
      count, advance: for Revolve, optional faster forms a runtime may give (a native
        loop): ``count(state) -> (trips, forward steps run)`` and ``advance(state, m)
        -> (state after m trips, forward steps run)``.
    """
    global last_stats
    stats = last_stats = LoopStats(checkpoints)
    if checkpoints is None:
        return _taped(more, step, back, list(init), list(acc), xp, stats)[1]
    if int(checkpoints) < 1:
        raise ValueError(f"while_loop reverse mode: checkpoints must be None (a tape of "
                         f"every state) or an int >= 1, got {checkpoints!r}")
    state, n = list(init), 0
    if tape_limit is not None:
        done, out = _taped(more, step, back, state, list(acc), xp, stats, Tape(xp,
                           limit=tape_limit))
        if done:
            return out
        state, n = out   # (the state after the taped trips: count on from there)
        stats.overflowed, stats.saved = True, 0     # (the tape is dropped)
    if count is not None:  # count the trips: Revolve needs n before placing snapshots
        more_trips, ran = count(state)
        n, stats.forward_steps = n + more_trips, stats.forward_steps + ran
    else:
        while more(state):
            state = step(state)[0]
            n += 1
            stats.forward_steps += 1
    stats.trips = n
    stats.hold(1, _nbytes(init))  # the initial state
    return _revolve(step, back, list(init), n, int(checkpoints) - 1, list(acc), stats,
                    advance)


def note_sweep(checkpoints, **counts):
    """Record the stats of a sweep a runtime ran its own way (a native loop)."""
    global last_stats
    last_stats = LoopStats(checkpoints)
    for k, v in counts.items():
        setattr(last_stats, k, v)


def _taped(more, step, back, state, acc, xp, stats, tape=None):
    """``(True, acc)``: the loop run and reversed over a tape; ``(False, (state, trips
    run))`` when ``tape`` (one with a limit) could not take a record."""
    tape = Tape(xp) if tape is None else tape
    while more(state):
        state, record = step(state)
        stats.forward_steps += 1
        if not tape.push(record):
            return False, (state, stats.forward_steps)
        stats.hold()
        stats.peak_bytes = max(stats.peak_bytes, tape.nbytes)
    stats.trips = tape.size
    for i in range(tape.size - 1, -1, -1):
        acc = back(tape[i], acc)
        stats.backward_steps += 1
    return True, acc


def _split_point(m, free):
    """Where Revolve saves its next snapshot in a segment of ``m`` steps with ``free``
    snapshots left: the smallest ``t`` (forward repetitions per step) with
    ``C(free + t, free) >= m`` splits the segment into a right part reversible with one
    snapshot less, ``C(free - 1 + t, free - 1)`` steps, and the rest on the left."""
    t = 1
    while comb(free + t, free) < m:
        t += 1
    return m - min(m - 1, comb(free - 1 + t, free - 1))


def _revolve(step, back, start, n, free, acc, stats, fast_advance=None):
    """Reverse trips ``[0, n)`` from ``start`` (the state at trip 0, held by the caller)
    with ``free`` more snapshots. Recursion depth is at most ``free``."""

    def advance(state, count):
        if fast_advance is not None and count > 0:
            state, ran = fast_advance(state, count)
            stats.forward_steps += ran
            return state
        for _ in range(count):
            state = step(state)[0]
        stats.forward_steps += count
        return state

    state_bytes = _nbytes(start)

    def reverse(lo, hi, s_lo, free, acc):
        while hi - lo > 1 and free > 0:
            mid = lo + _split_point(hi - lo, free)
            s_mid = advance(s_lo, mid - lo)
            stats.hold(1, state_bytes)
            acc = reverse(mid, hi, s_mid, free - 1, acc)
            stats.hold(-1)
            hi = mid
        for j in range(hi - 1, lo - 1, -1):  # no snapshot left: recompute from s_lo
            acc = back(step(advance(s_lo, j - lo))[1], acc)   # (trip j's record)
            stats.forward_steps += 1
            stats.backward_steps += 1
        return acc

    return reverse(0, n, start, free, acc)


__all__ = ["MAX_FITTED_CHECKPOINTS", "LoopStats", "Tape", "fit_sweep", "last_stats",
           "note_sweep", "reverse_sweep", "revolve_bytes", "sweep_floor"]
