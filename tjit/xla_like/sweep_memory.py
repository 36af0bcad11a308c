"""Memory of the reverse sweeps of ``while`` loops, as ``memory_analysis`` counts it and
as a memory budget bounds it.

``grad`` through ``lax.while_loop`` (and ``fori_loop`` with traced bounds, a
``while_loop``) becomes a ``while_transpose`` plan step (``primitives/while_transpose.py``)
that re-runs the loop and keeps what its reverse sweep needs while it runs: every trip's
record on a tape, or ``k`` Revolve snapshots of the loop state
(``primitives/loop_tape.py``). That memory is the step's own, outside the program's
buffers, and the tape's size depends on the trip count, which is known only at run
time. What is counted (``memory_stats``), per sweep, with ``S``, ``R``, ``A`` the bytes
of the loop state, of one trip's record (the predicate's byte included) and of the
accumulated cotangents:

* always the *floor* ``2 S + R + A`` (the state stepped from and the one stepped to, a
  trip's record, the accumulators being written): no sweep holds less;
* with ``while_loop_checkpoints = k``: ``(k - 1) S`` more (the snapshots besides the
  initial state, an operand): a bound for any trip count, except that without a budget
  the CPU's native scans that count trips and advance states also write (and drop) the
  records of up to ``_NativeSweep.DROP_BURST`` trips per call (``devices/control_flow``;
  under a budget they write no more than the allowance leaves);
* taped (the default, no budget): nothing more. The tape's ``n R`` bytes (up to twice
  that: its capacity doubles) are not in the reported peak: ``n`` is unknown when
  the program is planned.

Under ``jit(f, memory_budget=bytes)`` (:func:`fit_sweeps`, called by
``remat.plan_within_budget``) every sweep gets an *allowance*: its floor plus an equal
share of what the budget leaves once the rest of the plan (recomputation chosen as for
any program, with each sweep counted at its floor) is paid for. At run time
(:func:`schedule`) a sweep tapes records while the tape fits in ``allowance - floor``
bytes; a loop that outruns it drops the tape and is reversed by Revolve with the most
snapshots the allowance holds (at most ``loop_tape.MAX_FITTED_CHECKPOINTS``; with
``while_loop_checkpoints = k`` set, Revolve from the start with at most ``k``). So the
guarantee holds for every trip count: the sweep never holds more than its allowance,
and ``memory_analysis()`` reports the allowance, which keeps the peak within the budget.
Short loops keep their tape (no recomputation); long ones pay Revolve's recomputed
steps (O(n log n) for fixed k; the trips taped before the tape gave way count as part
of Revolve's counting sweep, so they cost no extra steps). A budget below the rest
of the plan plus every sweep's floor (one snapshot: the initial state) cannot be met.

Targets that run ``while_transpose`` as a library call (opencl, hls: the reference
implementation, with the jaxpr's checkpoints) have no allowance to give: their sweeps
are counted the same way (floor, or the Revolve bound of ``while_loop_checkpoints``),
and a budget refuses a taped one (:func:`unbounded_library_sweeps`) rather than plan
around a tape it cannot limit.
"""

from tjit.primitives.loop_tape import fit_sweep, revolve_bytes, sweep_floor


def sweeps(prog):
    """The ``while_transpose`` control steps of ``prog`` and of its bodies."""
    for s in prog.steps:
        bodies = getattr(s, "bodies", None)
        for b in bodies or ():
            yield from sweeps(b)
        if bodies and s.name == "while_transpose":
            yield s


def library_sweeps(prog):
    """The ``while_transpose`` library steps of ``prog`` and of its bodies (targets
    whose runtimes do not drive the sweep)."""
    for s in prog.steps:
        bodies = getattr(s, "bodies", None)
        for b in bodies or ():
            yield from library_sweeps(b)
        if not bodies and getattr(s, "name", None) == "while_transpose" and \
                getattr(s, "params", None):
            yield s


def unbounded_library_sweeps(prog):
    """The library-call sweeps of ``prog`` that keep a tape (its size follows the trip
    count and no allowance can limit it)."""
    return [s for s in library_sweeps(prog) if s.params["checkpoints"] is None]


def sizes(step, size):
    """``(S, R, A)`` of a sweep (see the module docstring); ``size`` turns a byte count
    (an int or a size expression) into a number."""
    if not getattr(step, "bodies", None):
        return _library_sizes(step.params, size)
    _, fused, bwd = step.bodies   # (fused: state -> state + record + next predicate)
    ns = step.attrs["n_state"]
    outs = [size(fused.values[v].nbytes) for v in fused.outputs]
    return (sum(outs[:ns]), sum(outs[ns:]),
            sum(size(bwd.values[v].nbytes) for v in bwd.outputs))


def _library_sizes(params, size):
    """``(S, R, A)`` from a library step's jaxprs (one more byte for the predicate, as
    the driven sweep's record has)."""
    body = params["body_jaxpr"]
    ns = len(body.in_avals) - params["body_nconsts"]

    def nbytes(aval):
        n = aval.dtype.itemsize
        for d in aval.shape:
            n = n * d
        return size(n)
    outs = [nbytes(a) for a in body.out_avals]
    return (sum(outs[:ns]), sum(outs[ns:]) + 1,
            sum(nbytes(a) for a in params["bwd_jaxpr"].out_avals))


def _checkpoints(step):
    return (step.attrs if getattr(step, "bodies", None) else step.params)["checkpoints"]


def held_bytes(step, size):
    """The bytes ``memory_stats`` counts for a sweep: its allowance under a budget, else
    the Revolve bound of its checkpoints, else its floor (a tape is not counted)."""
    allowance = step.attrs.get("sweep_bytes") if getattr(step, "bodies", None) else None
    if allowance is not None:
        return allowance
    k = _checkpoints(step)
    return (sweep_floor if k is None else lambda *a: revolve_bytes(k, *a))(*sizes(step, size))


def least_bytes(prog, size):
    """What the sweeps of ``prog`` hold at the least: each driven one's floor, and what
    each library-call one holds (no allowance changes it)."""
    return (sum(sweep_floor(*sizes(s, size)) for s in sweeps(prog))
            + sum(held_bytes(s, size) for s in library_sweeps(prog)))


def counted_bytes(prog, size):
    """What ``memory_stats`` counts for the sweeps of ``prog``."""
    return sum(held_bytes(s, size) for s in (*sweeps(prog), *library_sweeps(prog)))


def fit_sweeps(prog, spare, size):
    """Give each sweep of ``prog`` its floor plus an equal share of ``spare`` bytes (what
    the budget leaves beyond the rest of the plan and every floor) as its allowance."""
    found = list(sweeps(prog))
    for s in found:
        s.attrs["sweep_bytes"] = int(sweep_floor(*sizes(s, size)) + spare // len(found))
    return prog


def schedule(step, size):
    """``(tape_limit, checkpoints, burst_bytes)`` for a sweep at the sizes ``size``
    binds: its own checkpoints without an allowance (and no limits: None, None); with
    one, a tape of at most ``tape_limit`` bytes (None: Revolve from the start), the
    snapshots of the Revolve fallback fitted to the allowance (one where nothing fits:
    a dynamic program's sweep at sizes larger than those it was budgeted at), and the
    bytes left beside them for the rows a native forward scan writes and drops while
    Revolve counts trips and advances states (beyond one trip's, in the floor)."""
    allowance = step.attrs.get("sweep_bytes")
    if allowance is None:
        return None, step.attrs["checkpoints"], None
    state, record, acc = sizes(step, size)
    fitted = fit_sweep(allowance, state, record, acc, step.attrs["checkpoints"])
    tape_limit, k = fitted if fitted is not None else (None, 1)
    return tape_limit, k, max(0, allowance - revolve_bytes(k, state, record, acc))


__all__ = ["counted_bytes", "fit_sweeps", "held_bytes", "least_bytes", "library_sweeps",
           "schedule", "sizes", "sweeps", "unbounded_library_sweeps"]
