"""CUDA graphs for the CUDA runner: a program (or a loop body) whose steps are all
kernels and cuBLAS gemms is recorded once and replayed as one graph launch per call.

Why: a call of a program with many small steps is bound by the host (the MLP training
step at batch 256 on an H100: 16 kernels + 8 gemms, ~500 us of Python and CuPy per call
for ~100 us of GPU work). A graph launch costs a few microseconds for the whole
sequence.

How. A :class:`GraphedRunner` runs its first call plainly (lazy initializations:
the cuBLAS handle, the module's functions, CuPy's kernels), then builds a second runner
of the same program in *capture mode*: every value a step reads or writes lives in a
fixed device buffer (temporaries as usual; the arguments the steps read in input
buffers; the outputs side by side in one output block, 256-byte aligned; outputs that
may go into a donated argument in buffers of their own). Its steps are recorded by
stream capture on a private non-blocking stream (gemms through ``cuda_blas``' ctypes
binding: CuPy's refuses to run during a capture). Each later call:

1. allocates the outputs (one new pool allocation each: a kept output is never
   overwritten by a later call, and holds no memory but its own) and writes the
   addresses that change per call (the arguments', the new outputs') into a host
   table (``cuda_copies``), sent to the device with one host-to-device copy;
2. launches the graph on the current stream. Its first node (gather) copies each
   argument the steps read into its input buffer (none when the argument is that
   buffer) and the arguments of in-place outputs into those outputs' buffers; its
   last node (scatter) copies each output from its buffer into its new allocation, and
   an output aliased to a donated argument into that argument's buffer, as the plain
   path writes it there.

Why one kernel each and not a ``memcpyAsync`` per range: the MLP step made 15 copies
per call, each a host call and a GPU copy node of 2-3 us with gaps between them, which
made a replay's latency exceed JAX's (H100: 0.305 against 0.273 ms).

Nothing waits for the device. Calls are serialized by the executable's lock; when the
current stream changes between calls, the previous stream is waited for first (its
graph may still read the input buffers).

The first replay is checked against a plain run of the same call (one device->host
copy of the outputs, once per graph): a graph that disagrees is dropped. A capture
that fails for any reason (an operation that cannot be captured, no ctypes cuBLAS, out
of memory for the second set of buffers) is remembered and the runner stays plain;
so does a replay that raises. A graph that used the copy kernel and failed in any of
these ways (or whose kernel did not load) is captured once more with one
``memcpyAsync`` per range instead (``GraphedRunner.copy_kernel_failure`` says why).
``TJIT_CUDA_GRAPHS=0`` turns graphs off.

Where graphs pay: a replay costs about a graph launch, three copies (the table, the
gather, the scatter) and an allocation per output, in host time and in device time,
plus the device time of the bytes copied; programs with one kernel (the
tiny dispatch case), and programs whose arguments and outputs take longer to copy than
the launches they save (large activations: a GPU-bound layernorm), stay plain; see
:func:`worth_capturing`.
"""

import math
import os

import numpy as np

from tjit.devices import cuda_copies
from tjit.xla_like.plan import DotStep, KernelStep, concrete

#: Capture on this call of a runner (the first ones run the lazy initializations).
CAPTURE_ON_CALL = 2
#: Check the first replay of each graph against a plain run (one host sync, once).
VERIFY_FIRST_REPLAY = True
#: Alignment of the buffers in the output block (vectorized kernels load 16 bytes).
ALIGN = 256

# Host cost estimates (us, H100 + CuPy 14, gpu_run1 profile): a RawKernel launch with its
# output allocation, a cuBLAS gemm through CuPy, a device copy, a graph launch, an
# output allocation. And the device's copy rate (bytes read + written per us: a
# device-to-device copy on an H100/H200 moves ~4.1 TB/s).
_KERNEL_US, _GEMM_US, _COPY_US, _GRAPH_US, _ALLOC_US = 8.0, 20.0, 1.5, 4.0, 2.5
_COPY_BYTES_PER_US = 4.1e6

_H2D, _D2D = 1, 3   # cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice


def enabled():
    """Graphs are on unless ``TJIT_CUDA_GRAPHS=0``."""
    return os.environ.get("TJIT_CUDA_GRAPHS", "1") != "0"


def worth_capturing(prog, env):
    """True when ``prog``'s steps can all be captured (kernels and dots) and a replay at
    the sizes ``env`` is estimated to cost less than running the steps: its host work
    plus the device time of copying the arguments in and the outputs out (counted in
    full: where the GPU is the bottleneck, the copies lengthen every call)."""
    kernels = dots = 0
    for s in prog.steps:
        if isinstance(s, KernelStep):
            kernels += 1
        elif isinstance(s, DotStep):
            dots += 1
        else:
            return False    # library calls and host control flow are not captured
    plain = _KERNEL_US * kernels + _GEMM_US * dots
    copied = sum(math.prod(concrete(d, env) for d in prog.values[v].shape) *
                 prog.values[v].dtype.itemsize for v in list(prog.params) + list(prog.outputs))
    # (the table of addresses, the gather and the scatter: three copies whatever the
    # number of arguments and outputs)
    replay = _GRAPH_US + 3 * _COPY_US + _ALLOC_US * len(prog.outputs) + \
        2 * copied / _COPY_BYTES_PER_US
    return replay < 0.8 * plain


def runner_for(prog, env, make_runner):
    """The runner of ``prog`` at the sizes ``env``: a :class:`GraphedRunner` where graphs
    are on and worth it, else ``make_runner(capture=False)``."""
    if enabled() and worth_capturing(prog, env):
        return GraphedRunner(prog, make_runner)
    return make_runner(capture=False)


class NotCapturable(Exception):
    """A step of a capture-mode runner cannot be recorded."""


class GraphedRunner:
    """``run(flat_args, donated)`` of one program at one size binding: plain calls,
    then graph replays from call :data:`CAPTURE_ON_CALL` on (see the module doc).
    ``failure`` says why it stays plain, when it does."""

    single = None   # (see _CudaRunner.single: a graphed program is never one kernel)

    def __init__(self, prog, make_runner):
        self.prog = prog
        self._make_runner = make_runner     # capture: bool -> a _CudaRunner
        self.plain = make_runner(capture=False)
        self.replay = None
        self.failure = None
        self.calls = 0
        #: copies by ``cuda_copies``' kernel (else one memcpyAsync per range); turned
        #: off, with the reason in ``copy_kernel_failure``, when a graph using it fails
        self.copy_kernel = True
        self.copy_kernel_failure = None

    def run(self, flat_args, donated=()):
        if self.replay is not None:
            try:
                return self.replay.run(flat_args, donated)
            except Exception as e:      # (then the plain path, as if never captured)
                if _is_oom(e):
                    raise
                self._give_up(f"replay failed: {type(e).__name__}: {e}")
        self.calls += 1
        if self.calls == CAPTURE_ON_CALL and self.failure is None:
            self._capture()
            if self.replay is not None:
                return self._first_replay(flat_args, donated)
        return self.plain.run(flat_args, donated)

    def plain_runner(self):
        """A plain runner of the program (this one's, or a new one once the graph
        replaced it): what step-by-step tools (``benchmarks/gpu_profile.py``) drive."""
        return self.plain if self.plain is not None else self._make_runner(capture=False)

    def _capture(self):
        try:
            runner = self._make_runner(capture=True)
            copier = None
            if self.copy_kernel:
                try:
                    copier = runner.copy_rows()
                except Exception as e:  # noqa: BLE001 (a graph with memcpys instead)
                    self._no_copy_kernel(f"copy kernel: {type(e).__name__}: {e}")
            transfers = Transfers(runner.layout, runner.cp, copier)
            self.replay = Replay(runner, capture(runner, transfers), transfers)
        except Exception as e:          # noqa: BLE001 (anything: stay plain, remember why)
            why = f"capture failed: {type(e).__name__}: {e}"
            if self.copy_kernel:        # (once more, copying with memcpys)
                self._no_copy_kernel(why)
                self._capture()
            else:
                self.failure = why

    def _first_replay(self, flat_args, donated):
        """The first replay, checked against a plain run of the same arguments (run
        after it: the plain run may write into donated arguments)."""
        if not VERIFY_FIRST_REPLAY:
            self.plain = None
            return self.replay.run(flat_args, donated)
        try:
            got = self.replay.run(flat_args, ())
        except Exception as e:
            if _is_oom(e):
                raise
            self._give_up(f"replay failed: {type(e).__name__}: {e}")
            return self.plain.run(flat_args, donated)
        want = self.plain.run(flat_args, donated)
        bad = _first_difference(got, want)
        if bad is not None:
            self._give_up(f"replay disagreed with the plain run at output {bad}")
        else:
            self.plain = None       # (its temporaries: the graph has its own)
        return want

    def _no_copy_kernel(self, why):
        self.copy_kernel, self.copy_kernel_failure = False, why

    def _give_up(self, why):
        """Drop the graph: a graph that copied with the copy kernel is captured again
        with memcpys on the next call; any other stays plain."""
        used_kernel = self.replay is not None and self.replay.transfers.device is not None
        self.replay = None
        if used_kernel:
            self._no_copy_kernel(why)
            self.calls = CAPTURE_ON_CALL - 1
        else:
            self.failure = why
        if self.plain is None:
            self.plain = self._make_runner(capture=False)


def _is_oom(e):
    return isinstance(e, MemoryError) or type(e).__name__ == "OutOfMemoryError"


def _first_difference(got, want):
    """The index of the first output where ``got`` and ``want`` differ beyond float
    rounding (exact for integers and bools), or None."""
    for n, (g, w) in enumerate(zip(got, want)):
        g, w = _host(g), _host(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return n
        if w.dtype.kind in "fc" and w.size:
            scale = float(np.nanmax(np.abs(w))) if not np.all(np.isnan(w)) else 0.0
            if not np.allclose(g, w, rtol=1e-3, atol=1e-3 * scale, equal_nan=True):
                return n
        elif not np.array_equal(g, w):
            return n
    return None


def _host(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


def _aligned(n):
    return -(-n // ALIGN) * ALIGN


def place_buffers(runner):
    """Give a capture-mode runner fixed buffers for everything a call would allocate or
    take from its caller (before its steps are prepared): sets ``runner.fixed`` and
    returns the :class:`Layout` a replay uses."""
    prog, cp = runner.prog, runner.cp
    if any(0 in shape for shape in runner.shape.values()):
        raise NotCapturable("a zero-size value")
    fixed, index, shape, dtype = runner.fixed, runner.index, runner.shape, runner.dtype
    read = {v for s in prog.steps for v in s.ins}
    written = [v for s in prog.steps for v in s.outs if v is not None]
    outputs = set(prog.outputs)
    aliased = {a[0] for a in runner.aliases}

    def nbytes(v):
        return math.prod(shape[v]) * dtype[v].itemsize

    layout = Layout()
    for pos, v in enumerate(prog.params):
        k = index[v]
        if v in read and fixed[k] is None:
            fixed[k] = cp.ndarray(shape[v], dtype[v])
            layout.inputs.append((pos, fixed[k].data.ptr, nbytes(v)))
    for k_out, pos, _, inplace, a_shape, a_dtype in runner.aliases:
        if fixed[k_out] is not None:
            raise NotCapturable("an aliased output in a fixed buffer")
        fixed[k_out] = cp.ndarray(a_shape, a_dtype)
        layout.aliases[k_out] = (pos, fixed[k_out].data.ptr, fixed[k_out].nbytes, inplace,
                                 a_shape, a_dtype)
    block, offsets, total = [], {}, 0
    for v in dict.fromkeys(written):
        k = index[v]
        if fixed[k] is not None or k in aliased:
            continue
        if v in outputs:            # (returned: copied out of the block per call)
            block.append(v)
            offsets[v], total = total, total + _aligned(nbytes(v))
        else:                       # (written, never returned: a buffer of its own)
            fixed[k] = cp.ndarray(shape[v], dtype[v])
    if block:
        layout.block = cp.ndarray((total,), np.uint8)
        for v in block:
            fixed[index[v]] = layout.block[offsets[v]:offsets[v] + nbytes(v)].view(
                dtype[v]).reshape(shape[v])
    for n, k in enumerate(runner.out_slots):
        v = prog.outputs[n]
        if v in offsets:
            layout.outputs.append(("fresh", k, fixed[k].data.ptr, nbytes(v), shape[v],
                                   dtype[v]))
        elif k in layout.aliases:
            layout.outputs.append(("alias", k))
        elif v in prog.params:
            layout.outputs.append(("arg", list(prog.params).index(v)))
        else:
            layout.outputs.append(("fixed", fixed[k]))   # (a constant, as the plain path)
    return layout


class Layout:
    """Where a captured runner's arguments go and its outputs come from."""

    def __init__(self):
        self.inputs = []        # (argument position, input buffer pointer, bytes)
        self.aliases = {}       # output slot -> (argument position, buffer ptr, bytes,
        #                         in place, shape, dtype)
        self.outputs = []       # per output: ("fresh", slot, buffer ptr, bytes, shape,
        #                         dtype) | ("alias", slot) | ("arg", position) | ("fixed", array)
        self.block = None       # (the buffers of the "fresh" outputs, side by side)


class Transfers:
    """The byte ranges a replay copies per call, as rows of a ``cuda_copies`` table:
    first the gather (each argument the steps read into its input buffer, each
    argument of an in-place output into that output's buffer), then the scatter (each
    fresh output's buffer into its new allocation, each aliased output's buffer into
    the array it is returned in). A call fills in the addresses that change (the
    gather's sources, the scatter's destinations); with ``copier`` (the loaded copy
    kernel) the table goes to the device in one copy and the graph's first and last
    nodes copy every row, else (``copier`` None) each row is one ``memcpyAsync``."""

    def __init__(self, layout, cp, copier):
        gather = list(layout.inputs) + [(pos, dst, n) for pos, dst, n, inplace, _, _ in
                                        layout.aliases.values() if inplace]
        self.gather_args = [pos for pos, _, _ in gather]
        self.fresh = {}     # output slot -> (shape, dtype): one allocation per call each
        scatter = []        # (source pointer, bytes) per fresh output, then per alias
        for o in layout.outputs:
            if o[0] == "fresh" and o[1] not in self.fresh:  # (returned twice: one array)
                self.fresh[o[1]] = (o[4], o[5])
                scatter.append((o[2], o[3]))
        self.alias_slots = list(layout.aliases)
        scatter += [(layout.aliases[k][1], layout.aliases[k][2]) for k in self.alias_slots]
        rows = [(0, dst, n) for _, dst, n in gather] + [(src, 0, n) for src, n in scatter]
        self.n_gather, self.n_scatter = len(gather), len(scatter)
        self.host = np.array(rows, np.int64).reshape(-1)
        self.host_ptr = self.host.ctypes.data   # (numpy's .ctypes costs ~1 us a call)
        self.copier = copier
        self.device = None
        if copier is not None and rows:
            self.device = cp.ndarray(self.host.shape, np.int64)
            self.device_ptr = self.device.data.ptr
            self.grids = (cuda_copies.grid([n for _, _, n in gather]),
                          cuda_copies.grid([n for _, n in scatter]))

    def record(self, first):
        """In a capture: the copy kernel over the gather rows (``first``) or the
        scatter rows; nothing without rows or without the kernel."""
        count = self.n_gather if first else self.n_scatter
        if self.device is None or count == 0:
            return
        self.copier(self.grids[0 if first else 1], (cuda_copies.BLOCK,),
                    (self.device, np.int32(0 if first else self.n_gather)))

    def memcpy_rows(self, first, memcpy, stream_ptr):
        """Without the kernel: the gather (``first``) or scatter rows, one copy each."""
        t = self.host
        start, count = (0, self.n_gather) if first else (self.n_gather, self.n_scatter)
        for r in range(start, start + count):
            src, dst, n = int(t[3 * r]), int(t[3 * r + 1]), int(t[3 * r + 2])
            if src != dst and n:
                memcpy(dst, src, n, _D2D, stream_ptr)


def capture(runner, transfers):
    """Record ``runner``'s steps (capture mode: every value fixed), between the gather
    and the scatter of ``transfers``, as a CUDA graph on a private stream."""
    cp = runner.cp
    stream = cp.cuda.Stream(non_blocking=True)
    vals = list(runner.fixed)
    raw, handle = runner.raw_cublas, runner.cublas_handle
    previous = cp.cuda.get_current_stream().ptr
    runner.stream_ptr = stream.ptr      # (what its steps launch on)
    if raw is not None:     # (host-side settings: made before the capture)
        raw.set_pointer_mode_host(handle)
        raw.set_stream(handle, stream.ptr)
    try:
        with stream:
            stream.begin_capture()
            try:
                transfers.record(first=True)
                for step in runner.steps:
                    step(vals)
                transfers.record(first=False)
            except BaseException:
                try:
                    stream.end_capture()
                except Exception:   # noqa: BLE001, S110 (the step's error is the one to report)
                    pass
                raise
            return stream.end_capture()
    finally:
        if raw is not None:     # (CuPy's own calls set their stream each time anyway)
            raw.set_stream(handle, previous)


class Replay:
    """A captured graph with its fixed buffers: ``run(flat_args, donated)``."""

    def __init__(self, runner, graph, transfers):
        self.runner, self.graph, self.layout = runner, graph, runner.layout
        self.transfers = transfers
        self.cp = runner.cp
        self._last_stream = None

    def run(self, flat_args, donated=()):
        cp, lay, tr = self.cp, self.layout, self.transfers
        ndarray, memcpy = cp.ndarray, cp.cuda.runtime.memcpyAsync
        stream = cp.cuda.get_current_stream()
        sp = stream.ptr
        last = self._last_stream
        if last is not None and last.ptr != sp:
            last.synchronize()      # (its graph may still read the input buffers)
        self._last_stream = stream
        moved = {}      # argument position -> its device copy (a host argument)

        def arg(pos):
            a = flat_args[pos]
            if type(a) is not ndarray or not a._c_contiguous:
                a = moved.get(pos)
                if a is None:   # (a host argument goes to the device)
                    a = moved[pos] = cp.array(flat_args[pos], order="C")
            return a
        # Everything allocated first: a failure (out of memory) leaves every argument as
        # it was, the donated ones included (they are written last). One allocation per
        # output, so that an output kept (a loss appended to a list) holds only itself.
        fresh = {k: ndarray(shape, dtype) for k, (shape, dtype) in tr.fresh.items()}
        targets = {}    # aliased output slot -> the array it is returned in
        for k in tr.alias_slots:
            pos, _, _, _, shape, dtype = lay.aliases[k]
            a = flat_args[pos]
            if not (pos in donated and type(a) is ndarray and a._c_contiguous and
                    a.shape == shape and a.dtype == dtype):
                a = ndarray(shape, dtype)   # (not donated: a fresh output)
            targets[k] = a
        t = tr.host
        for r, pos in enumerate(tr.gather_args):
            t[3 * r] = arg(pos).data.ptr
        r = 3 * tr.n_gather + 1
        for a in fresh.values():
            t[r] = a.data.ptr
            r += 3
        for a in targets.values():
            t[r] = a.data.ptr
            r += 3
        if tr.device is not None:   # (one copy of the table; the graph copies the rest)
            memcpy(tr.device_ptr, tr.host_ptr, t.nbytes, _H2D, sp)
            self.graph.launch(stream)
        else:
            tr.memcpy_rows(True, memcpy, sp)
            self.graph.launch(stream)
            tr.memcpy_rows(False, memcpy, sp)
        outs = []
        for o in lay.outputs:
            kind = o[0]
            if kind == "fresh":
                outs.append(fresh[o[1]])
            elif kind == "alias":
                outs.append(targets[o[1]])
            elif kind == "arg":
                outs.append(arg(o[1]))
            else:
                outs.append(o[1])
        return outs
