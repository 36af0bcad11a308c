"""The CUDA backend ("cuda"; JAX's platform name "gpu"): NVIDIA GPUs through CuPy.

CuPy is imported lazily: tjit imports, and runs on the CPU, without it. Whether a GPU
is usable is probed once (:func:`unavailable_reason`: CuPy, the NVIDIA driver, a
device, NVRTC); without one, ``jit(f, backend="cuda")`` and ``tjit.devices("gpu")``
raise an error naming what is missing and how to install it, and the CPU stays the
default.

**Device arrays.** A tjit ``Array`` whose value is a ``cupy.ndarray`` lives on the GPU
(``.device``); ``np.asarray(x)``, printing and ``.item()`` copy it to the host,
``block_until_ready`` waits for the device. Eager primitives with a GPU operand run
their reference implementation on CuPy (``prim.impl(cupy, ...)``). Host operands
(NumPy arrays, CPU Arrays, scalars) are copied to that GPU, as JAX moves uncommitted
arrays; operands on two different GPUs raise ``ValueError`` (move one with
``tjit.device_put``). Jitted programs take host or GPU arguments (host ones are
copied) and return GPU Arrays.

**Compiled programs.** ``compile_program`` with the :data:`~tjit.xla_like.target.CUDA`
target; every kernel of the program (and of its loop bodies) rendered by ``lower/c``
with the cuda dialect into one translation unit, compiled by NVRTC for the device's
``sm_XX`` and cached on disk (``cuda_compile``); kernels launched through CuPy's
``Function`` with argument tuples templated once per size binding (a launch through
``cuLaunchKernel`` with prebuilt argument blocks was slower on an H100: 14.7 against
10.2 us per one-kernel call, the driver binding's call costing what it saved); float
dots as one direct cuBLAS
call each (``cuda_blas``: sgemm/dgemm or their strided-batched forms, transposed
operands by op flag, the folded epilogue as alpha/beta; other dots through
``cupy.matmul``); library steps on CuPy, except those of ``host_only`` primitives
(LAPACK forms CuPy lacks: geqrf, householder_product, ormqr, hessenberg, tridiagonal,
eig, schur; SciPy functions cupyx lacks: hyp1f1, hyp2f1, owens_t, fresnel, wofz), which
run on host copies of their operands, their results copied back (counted in
``CudaExecutable.counts["host_steps"]``; eager ops do the same); ``cond``, ``while`` and
``scan`` driven from
the host (``control_flow``: a while predicate costs one device->host sync per trip).
Programs and loop bodies made only of kernels and gemms are replayed as CUDA graphs
from their second call (``cuda_graphs``; ``TJIT_CUDA_GRAPHS=0`` turns them off).
Vectorized pointwise kernels move two 16-byte vectors per operand a thread and step,
a grid apart (``cuda_pointwise``: ``TJIT_CUDA_POINTWISE`` selects other variants).
A polymorphic program serves every binding of its size symbols, except bindings where a
reduction over a symbolic axis keeps few points and is large: those get the program
compiled for their sizes, whose reductions split as the GPU needs (``cuda_specialize``:
a (2^20, 32) column sum 5-6.5 ms -> 0.05 ms). Temporaries are slots allocated once per
size binding; outputs come from CuPy's memory pool; donated arguments' buffers hold
outputs. Dispatch is asynchronous: a call enqueues its launches on the current stream and
returns; an executable's launches are serialized by a lock (its temporaries are shared),
and a call on another stream than the previous call's makes its stream wait for that one
first (an event). Running out of GPU memory raises :class:`CudaOutOfMemoryError` (a
``MemoryError``) naming the bytes; the arguments are left intact.

**Placement.** ``jit(f, device=tjit.devices("gpu")[i])`` places the program on GPU
``i``: its module is compiled and loaded for that device, and each call allocates,
copies host arguments and launches under ``cupy.cuda.Device(i)`` (on that device's
current stream); an argument already on another GPU raises JAX's "incompatible
devices" ``ValueError`` (move it with ``tjit.device_put``). Without ``device=`` a
program runs on the current CuPy device, as before. float16 ops are kernels (stored as
binary16, computed in float and rounded per op: ``lower/c/scalar.py``).

Not done: NCCL collectives.
"""

import collections
import contextlib
import ctypes
import functools
import importlib.util
import math
import re
import sys
import threading

import numpy as np

from tjit.config import config
from tjit.devices import (
    backend,
    control_flow,
    cuda_blas,
    cuda_compile,
    cuda_copies,
    cuda_graphs,
    cuda_pointwise,
    cuda_probe,
    cuda_specialize,
)
from tjit.devices.executable import Executable
from tjit.devices.runner import (
    PlanInspection,
    ProgramRunner,
    binding_key,
    owned_result,
    solve_sizes,
)
from tjit.lower.c import render
from tjit.tracing import core, transfer_guard
from tjit.tracing.jaxpr import specialize
from tjit.xla_like import remat
from tjit.xla_like.compile import compile_program, size_symbols
from tjit.xla_like.target import CUDA

INSTALL = cuda_probe.INSTALL
#: Size bindings of a polymorphic program whose runners (and temporaries) are kept.
MAX_SIZE_BINDINGS = 8
#: Upper bound on a launch's blocks (kernels stride over the rest).
MAX_GROUPS = 65535


def _probe():
    """Why the CUDA backend cannot run here (what is missing, how to install), or None."""
    quick = cuda_probe.quick_reason()     # (CuPy installed, a driver that loads)
    if quick is not None:
        return quick
    try:
        import cupy
    except ImportError as e:
        return f"CuPy is not installed ({e}); install tjit's CUDA extra: {INSTALL}"
    try:
        if cupy.cuda.runtime.driverGetVersion() == 0:
            raise RuntimeError("driver version 0")
    except Exception as e:  # noqa: BLE001 (CUDARuntimeError, a missing libcuda)
        return (f"no NVIDIA driver usable by CuPy ({type(e).__name__}: {e}); install "
                f"the NVIDIA driver (CuPy {cupy.__version__} needs one at least as new "
                f"as its CUDA runtime)")
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        return f"no CUDA device ({type(e).__name__}: {e})"
    if n < 1:
        return "no CUDA device (is CUDA_VISIBLE_DEVICES empty?)"
    try:
        cuda_compile.nvrtc_version()
    except Exception as e:  # noqa: BLE001
        return f"NVRTC is not usable ({type(e).__name__}: {e}); {INSTALL}"
    return None


@functools.cache
def unavailable_reason():
    """The cached :func:`_probe` result (None: a GPU is usable)."""
    return _probe()


def _cupy():
    import cupy
    return cupy


class CudaOutOfMemoryError(MemoryError):
    """The GPU ran out of memory during a tjit call. ``nbytes``: the failed request."""

    def __init__(self, message, nbytes=None):
        super().__init__(message)
        self.nbytes = nbytes


def _oom_error(e, what):
    m = re.search(r"allocating ([\d,]+) bytes", str(e))
    nbytes = int(m.group(1).replace(",", "")) if m else None
    pool = _cupy().get_default_memory_pool()
    return CudaOutOfMemoryError(
        f"{what}: CUDA out of memory: {e} (CuPy's pool holds {pool.total_bytes():,} "
        f"bytes, {pool.used_bytes():,} in use). The arguments are intact. Fix: a smaller "
        f"batch, donate_argnums for arguments the call may overwrite, del unused GPU "
        f"arrays, or cupy.get_default_memory_pool().free_all_blocks()", nbytes)


# ----------------------------------------------------------------------------------------
# Device arrays: the hooks tjit.Array and eager dispatch call for cupy.ndarray values.

def device_of(v):
    return backend.Device("gpu", v.device.id)


class _Eager:
    """``core``'s hooks for Arrays holding ``cupy.ndarray`` values."""

    def __init__(self, cp):
        self.cp = cp

    def run(self, prim, vals, weaks, params):
        """An eager primitive with a GPU operand, on CuPy (host operands moved there)."""
        cp = self.cp
        dev = None
        for v in vals:
            if type(v) is cp.ndarray:
                if dev is None:
                    dev = v.device.id
                elif v.device.id != dev:
                    raise ValueError(
                        f"{prim.name}: operands live on two devices (GpuDevice(id={dev}) and "
                        f"GpuDevice(id={v.device.id})); move them to one with "
                        f"tjit.device_put(x, device)")
        if config.guards_host_to_device:    # (host operands are copied over)
            for v in vals:
                if isinstance(v, np.ndarray) and type(v) is not cp.ndarray:
                    transfer_guard.check_host_operand(v, f"the eager op {prim.name}")
        vals = [cp.asarray(v) if isinstance(v, np.ndarray) else v for v in vals]
        with cp.cuda.Device(dev):
            if prim.host_only:
                out = on_host(cp, lambda *xs: prim.impl(np, *xs, **params),
                              prim.multiple_results, vals)
            else:
                out = prim.impl(cp, *vals, **params)
            weak = prim.weak_type_rule(*weaks, **params)
            return core.wrap_outputs(prim, out, weak, self.wrap)

    def wrap(self, out, weak):
        cp = self.cp
        if type(out) is not cp.ndarray:
            out = cp.asarray(out)
        return core.Array(out, weak)

    @staticmethod
    def to_host(v):
        return v.get()

    device = staticmethod(device_of)

    @staticmethod
    def sync(v):
        v.device.synchronize()


def on_host(cp, fn, multiple, vals):
    """``fn`` (a primitive's impl on NumPy, for a ``host_only`` one) on host copies of the
    CuPy arrays in ``vals``, its results copied back to the current device."""
    out = fn(*[v.get() if type(v) is cp.ndarray else v for v in vals])
    return [cp.asarray(o) for o in out] if multiple else cp.asarray(out)


@functools.cache
def _install_array_hooks():
    cp = _cupy()
    core.register_device_arrays(cp.ndarray, _Eager(cp))
    return cp


# ----------------------------------------------------------------------------------------
# The backend.

class CudaBackend:
    """The "cuda" backend (``jit(backend="gpu")`` names it too)."""

    name = "cuda"
    platform = "gpu"
    target = CUDA
    places_programs = True      # (compile takes jit's device=)

    def available(self):
        return unavailable_reason() is None

    def unavailable_reason(self):
        return unavailable_reason()

    def devices(self):
        if not self.available():
            return []
        return [backend.Device("gpu", i)
                for i in range(_cupy().cuda.runtime.getDeviceCount())]

    def compile(self, closed_jaxpr, in_specs=None, donated=(), device=None):
        _install_array_hooks()
        if device is not None and (device.platform != self.platform or
                                   not 0 <= device.id < len(self.devices())):
            raise ValueError(f"jit(device={device}): not one of the CUDA backend's devices "
                             f"{self.devices()}")
        program = compile_program(closed_jaxpr, self.target, donated)
        exe = CudaExecutable(program, in_specs, size_symbols(closed_jaxpr),
                             None if device is None else device.id)
        if exe.symbols:     # (large bindings may get their own program: cuda_specialize)
            exe.specializable = (closed_jaxpr, donated, remat.budget_bytes())
        return exe

    def put(self, x, device):
        """``x`` (a tjit Array, NumPy array or scalar) as a tjit Array on ``device``."""
        cp = _install_array_hooks()
        if not isinstance(x, core.Array):
            x = core.new_array(x, weak_type=type(x) in (int, float, complex))
        v = x._value
        if type(v) is cp.ndarray and v.device.id == device.id:
            return x
        with cp.cuda.Device(device.id):
            if type(v) is cp.ndarray:
                transfer_guard.check("device_to_device", lambda: (
                    f"aval={x.aval!r}, GpuDevice(id={v.device.id}) to {device}"))
                v = v.copy()      # (peer copy to this device)
            else:
                v = core.to_host(v)
                transfer_guard.check("host_to_device", lambda: (
                    f"aval={x.aval!r}, to {device}"))
                v = cp.asarray(v)
        return core.Array(v, x._weak)

    def synchronize(self, device=None):
        cp = _cupy()
        cp.cuda.Device(0 if device is None else device.id).synchronize()


backend.register(CudaBackend())


# ----------------------------------------------------------------------------------------
# Executables.

_MODULES = {}       # cubin digest -> loaded module (one per process and unit)
_MODULES_LOCK = threading.Lock()


def arch():
    """The current device's architecture for NVRTC (``"sm_90"`` on an H100/H200)."""
    return "sm_" + _cupy().cuda.Device().compute_capability


def render_program(program):
    """({id(kernel): CSource}, translation unit text) for every kernel of ``program``
    and of its loop bodies (one unit: one NVRTC call, one module). Kernel names repeat
    across body programs; the entries are named by the kernels' hashes. Pointwise
    kernels take the variant of ``TJIT_CUDA_POINTWISE`` (``cuda_pointwise``)."""
    sources, seen = {}, {}
    dialect = cuda_pointwise.dialect()
    for p in [program] + list(program.sub_programs()):
        for k in p.kernels:
            if id(k) not in sources:
                src = render(k, dialect)    # (entry named by the kernel's hash)
                sources[id(k)] = src
                seen.setdefault(src.entry, src)
    lines = []
    for s in seen.values():
        lines += [ln for ln in s.prelude.splitlines() if ln not in lines]
    return sources, "\n".join(lines + [s.body for s in seen.values()]) + "\n"


def load_program(program):
    """({id(kernel): CSource}, module): rendered, compiled and loaded; a program from the
    program cache finds its sources and cubin on disk (``cuda_compile.program_unit``)."""
    sources, text_key, image = cuda_compile.program_unit(program, arch(), render_program)
    if image is None:
        return sources, None
    key = (text_key, _cupy().cuda.Device().id)
    with _MODULES_LOCK:
        mod = _MODULES.get(key)
        if mod is None:
            mod = _MODULES[key] = cuda_compile.load_module(image)
    return sources, mod


class CudaExecutable(PlanInspection, Executable):
    """Fused CUDA kernels + cuBLAS dots + CuPy library calls for one traced program."""

    backend = "cuda"
    device_arrays = True    # (takes and returns CuPy arrays: api copies nothing)

    def __init__(self, program, in_specs=None, symbols=(), device_id=None):
        self.program = program
        self.in_specs = in_specs
        self.symbols = tuple(symbols)
        self.device_id = device_id      # (None: the current CuPy device at each call)
        with _on_device(device_id):     # (NVRTC for that GPU's arch, loaded there)
            self.sources, self.module = load_program(program)
        self._functions = {}
        self._runners = collections.OrderedDict()   # size binding -> runner
        self._fixed_runner = None                   # (the runner of a program without symbols)
        self._oom = _cupy().cuda.memory.OutOfMemoryError
        self._lock = threading.Lock()
        self._last_stream = None    # (the stream the previous call ran on)
        #: (traced program, donated positions, jit's memory budget) of a polymorphic
        #: program, whose large bindings are compiled for their sizes
        #: (``cuda_specialize``); else None
        self.specializable = None
        #: ``host_steps``: runs of host-only primitives (on host copies) so far;
        #: ``own_programs``: size bindings compiled for their sizes
        self.counts = collections.Counter()

    def function(self, kernel):
        """The loaded function of ``kernel`` (a RawKernel)."""
        entry = self.sources[id(kernel)].entry
        fn = self._functions.get(entry)
        if fn is None:
            fn = self._functions[entry] = self.module.get_function(entry)
        return fn

    def _runner(self, flat_args):
        if not self.symbols:    # one size binding: its runner, without solving sizes
            r = self._fixed_runner
            if r is None:
                r = self._fixed_runner = _runner_for(self.program, self, {})
            return r
        env = solve_sizes(self.in_specs, flat_args)
        key = binding_key(env)
        r = self._runners.get(key)
        if r is None:
            if self.specializable is not None and cuda_specialize.wants_own_program(
                    self.program, env):
                r = self._own_program_runner(env)
            else:
                r = _runner_for(self.program, self, env)
            self._runners[key] = r
            while len(self._runners) > MAX_SIZE_BINDINGS:
                self._runners.popitem(last=False)
        return r

    def _own_program_runner(self, env):
        """The runner of the program compiled for the sizes ``env`` (its reductions over
        the symbolic axes split as the GPU needs: ``cuda_specialize``)."""
        closed, donated, budget = self.specializable
        sizes = {s: int(v) for s, v in env.items()}
        with remat.budget_scope(budget):    # (jit's memory_budget, as the first compile)
            program = compile_program(specialize(closed, sizes), CUDA, donated)
        exe = CudaExecutable(program, None, (), self.device_id)
        self.counts["own_programs"] += 1
        return exe._runner(())

    def call(self, flat_args, donated=()):
        if self.device_id is not None:
            return self._placed(self._call_here, flat_args, donated)
        return self._call_here(flat_args, donated)

    def _placed(self, run, flat_args, donated):
        """``run`` on this program's GPU: arguments on another GPU are refused (JAX's
        error), host ones are copied there by the runner (under the device context)."""
        cp = _cupy()
        ndarray, dev = cp.ndarray, self.device_id
        for i, a in enumerate(flat_args):
            if type(a) is ndarray and a.device.id != dev:
                raise ValueError(
                    f"Received incompatible devices for jitted computation. Got argument "
                    f"{i} of shape {a.dtype.name}{list(a.shape)} on device "
                    f"GpuDevice(id={a.device.id}) and jit's device GpuDevice(id={dev}): "
                    f"move it with tjit.device_put(x, tjit.devices('gpu')[{dev}])")
        with cp.cuda.Device(dev):
            return run(flat_args, donated)

    def _call_here(self, flat_args, donated=()):
        try:
            r = self._fixed_runner
            if r is not None and r.single is not None:  # (one kernel: nothing shared)
                return r.single(flat_args)
            with self._lock:
                if r is None:
                    r = self._runner(flat_args)
                self._after_last_call()
                return r.run(flat_args, donated)
        except self._oom as e:
            raise _oom_error(e, "jit call on the GPU") from None

    def prepare(self, flat_args):
        with self._lock, _on_device(self.device_id):
            try:
                runner = self._runner(flat_args)
            except self._oom as e:
                raise _oom_error(e, "preparing a jit call on the GPU") from None

        def run_here(flat_args, donated=()):
            with self._lock:
                self._after_last_call()
                return runner.run(flat_args, donated)
        if self.device_id is None:
            return run_here
        return lambda flat_args, donated=(): self._placed(run_here, flat_args, donated)

    def _after_last_call(self):
        """Make the current stream wait for the previous call's work when that ran on
        another stream: calls share the runners' temporaries (the plan's slots, laid out
        for steps one after another), so a call's kernels must not overlap the last
        call's, as two streams' kernels may (an event wait: the host does not block)."""
        cp = _cupy()
        stream = cp.cuda.get_current_stream()
        last = self._last_stream
        if last is not None and last.ptr != stream.ptr:
            done = cp.cuda.Event(disable_timing=True)
            done.record(last)
            stream.wait_event(done)
        self._last_stream = stream

    def donation(self):
        writes = dict(self.program.aliases)
        for given in self.program.loop_donations.values():
            writes.update(dict.fromkeys(given.values()))
        return writes, set(self.program.donation_usable)

    def kernel_source(self, kernel):
        src = self.sources.get(id(kernel))
        return None if src is None else ("CUDA C", src.text)

    def as_text(self, llvm=False, source=False):
        """The plan, and the steps that run on the host (``host_only`` primitives);
        ``source=True`` (or ``llvm=True``) adds each kernel's CUDA C."""
        text = self.program.text()
        host = [s.name for p in [self.program] + list(self.program.sub_programs())
                for s in p.steps if getattr(getattr(s, "primitive", None), "host_only", None)]
        if host:
            text += (f"\n\nhost steps (NumPy on host copies of the operands, results "
                     f"copied back): {', '.join(host)}")
        if source or llvm:
            for src in {s.entry: s for s in self.sources.values()}.values():
                text += f"\n\n// ---- CUDA C of {src.entry}\n{src.body}"
        return text



def _on_device(device_id):
    """``cupy.cuda.Device(device_id)`` as a context; nothing for None (the current one)."""
    return contextlib.nullcontext() if device_id is None else _cupy().cuda.Device(device_id)


def _cublas():
    """CuPy's low-level cuBLAS bindings (``cupy_backends.cuda.libs.cublas``), or None
    where they do not load (dots then run through ``cupy.matmul``)."""
    try:
        from cupy_backends.cuda.libs import cublas
    except ImportError:
        return None
    return cublas


class _CudaRunner(ProgramRunner):
    """The CUDA launchers on ``runner.ProgramRunner``: buffers are CuPy arrays.

    With ``capture=True`` the runner is built for a CUDA graph (``cuda_graphs``): every
    value its steps read or write gets a fixed buffer (``cuda_graphs.place_buffers``,
    the layout a replay uses in ``self.layout``), nothing is allocated per call, and
    its gemms go through the ctypes cuBLAS binding (CuPy's refuses under capture);
    a step that cannot be recorded raises ``cuda_graphs.NotCapturable``."""

    def __init__(self, prog, exe, env, capture=False):
        self.cp = self.xp = _cupy()
        self.exe = exe
        self.capture = capture
        self.cublas_handle = None       # (set by the first gemm step)
        self.raw_cublas = None          # (capture mode: the ctypes binding the gemms use)
        self.stream_ptr = 0             # (the current stream of the call being run)
        self.uses_stream = False        # (a step reads stream_ptr: set by dot_step)
        self.cublas_stream = None       # (cuBLAS's setStream: set by dot_step)
        self.single = None              # (run(flat_args) of a one-kernel program: kernel_step)
        super().__init__(prog, env)
        if capture:
            self.layout = cuda_graphs.place_buffers(self)
        self.prepare_steps()

    def alloc(self, nbytes):
        return self.cp.empty(nbytes, self.cp.uint8)

    def copy_rows(self):
        """The loaded ``cuda_copies`` kernel (a graph's gather and scatter)."""
        return cuda_copies.load(arch(), self.cp.cuda.Device().id)

    def constant(self, value):
        # (one host-to-device copy: cupy.asarray of a host array may launch a CuPy kernel,
        # compiled on a process's first call: ~0.1-0.3 s of a first jit call)
        host = np.array(value, order="C")
        out = self.cp.empty(host.shape, host.dtype)
        if host.size:
            try:
                out.set(host)
            except (TypeError, ValueError, AttributeError):    # (a CuPy without set)
                return self.cp.asarray(host)
        return out

    def run(self, flat_args, donated=()):
        if self.single is not None:
            return self.single(flat_args)
        cp = self.cp
        ndarray = cp.ndarray
        self.given = donated
        if self.uses_stream:            # (the steps' gemms and copies go on it: CuPy's
            # own cuBLAS calls leave the handle on the stream they last ran on)
            self.stream_ptr = cp.cuda.get_current_stream().ptr
            self.cublas_stream(self.cublas_handle, self.stream_ptr)
        vals = self.fixed.copy()
        for k, a in zip(self.param_slots, flat_args):
            if type(a) is not ndarray or not a._c_contiguous:
                a = cp.array(a, order="C")  # (a host argument is copied to the device)
            vals[k] = a
        for k_out, pos, k_arg, inplace, shape, dtype in self.aliases:
            a = vals[k_arg]
            if pos in donated and a is flat_args[pos] and a.shape == shape and \
                    a.dtype == dtype:
                vals[k_out] = a         # the output is written into the donated buffer
            elif inplace:               # the kernel reads the argument through the output
                vals[k_out] = a.copy()
        for step in self.steps:
            step(vals)
        return [vals[k] for k in self.out_slots]

    def kernel_step(self, s):
        src = self.exe.sources[id(s.kernel)]
        fn = self.exe.function(s.kernel)
        fn = getattr(fn, "kernel", fn)  # (RawKernel's Function: one Python layer less)
        sizes = {str(sym): int(v) for sym, v in self.env.items()}
        scalars = tuple(np.int64(sizes[p.symbol]) for p in src.params if p.kind == "size")
        grid, block = src.launch.grid(sizes, max_groups=MAX_GROUPS)
        grid, block = (grid,), (block,)
        aliased = {a[0] for a in self.aliases}
        n_in = len(s.ins)
        # The launch's argument tuple is a template (temporaries, constants and the size
        # scalars placed once per size binding); a call fills in the rest:
        template = []
        reads = []      # (argument position, value index): an input computed in this call
        fresh = []      # (position, value index, shape, dtype): an output allocated per call
        donated = []    # (position, value index, shape, dtype): output maybe in a donated buffer
        for pos, v in enumerate(list(s.ins) + list(s.outs)):
            k = self.index[v]
            template.append(self.fixed[k])
            if self.fixed[k] is not None:
                continue
            if pos < n_in:
                reads.append((pos, k))
            else:
                (donated if k in aliased else fresh).append((pos, k, self.shape[v],
                                                               self.dtype[v]))
        template = tuple(template) + scalars
        new = self.cp.ndarray   # (cupy.empty is a Python wrapper around it)
        assert len(src.params) == len(template), (src.entry, len(src.params), len(template))
        if len(self.prog.steps) == 1 and not self.capture and not self.aliases and \
                not self.hosts and len(fresh) == len(s.outs):
            self.single = self._single_launch(fn, grid, block, template, reads, fresh)

        def run(vals):  # (a CuPy Function call: converts its arguments)
            args = list(template)
            for pos, k in reads:
                args[pos] = vals[k]
            for pos, k, shape, dtype in fresh:
                args[pos] = vals[k] = new(shape, dtype)
            for pos, k, shape, dtype in donated:
                a = vals[k]
                if a is None:
                    a = vals[k] = new(shape, dtype)
                args[pos] = a
            fn(grid, block, tuple(args))
        return run

    def _single_launch(self, fn, grid, block, template, reads, fresh):
        """``run(flat_args)`` of a program that is this one kernel and writes only fresh
        outputs: the arguments go straight into the launch's tuple and the outputs
        straight out, without the value table (the cached one-kernel dispatch path;
        nothing is shared between calls, so no lock either). None where an output is
        not one of the kernel's (a pass-through argument, a constant)."""
        cp = self.cp
        ndarray = cp.ndarray
        arg_of = {k: i for i, k in enumerate(self.param_slots)}
        out_of = {k: j for j, (_, k, _, _) in enumerate(fresh)}
        if any(k not in arg_of for _, k in reads) or any(k not in out_of
                                                         for k in self.out_slots):
            return None
        reads = [(pos, arg_of[k]) for pos, k in reads]
        allocs = [(pos, shape, dtype) for pos, _, shape, dtype in fresh]
        order = [out_of[k] for k in self.out_slots]
        as_made = order == list(range(len(allocs)))

        def run(flat_args):
            args = list(template)
            for pos, i in reads:
                a = flat_args[i]
                if type(a) is not ndarray or not a._c_contiguous:
                    a = cp.array(a, order="C")  # (a host argument is copied to the device)
                args[pos] = a
            outs = []
            for pos, shape, dtype in allocs:
                o = args[pos] = ndarray(shape, dtype)
                outs.append(o)
            fn(grid, block, tuple(args))
            return outs if as_made else [outs[j] for j in order]
        return run

    def dot_step(self, s):
        """A dot whose operands cuBLAS reads in place (float32/float64, operands of the
        output's dtype, 2-D or strided-batched; transposed operands by op flag) as one
        direct cuBLAS call (``cuda_blas.Gemm``) with the folded epilogue as its
        alpha/beta (the ``x`` term copied into the output first unless it is the
        output's own buffer); anything else through ``xp.matmul``
        (``ProgramRunner.dot_step``)."""
        lhs_v, rhs_v = s.ins[:2]
        (out_v,) = s.outs
        out_dtype, out_shape = self.dtype[out_v], self.shape[out_v]
        spec = s.gemm_spec(self.shape[lhs_v], self.shape[rhs_v])
        x_v = s.x   # (the folded beta term: ins may also hold run-time alpha factors)
        lib = _cublas()
        gemm = None
        if lib is not None and self.dtype[lhs_v] == out_dtype == self.dtype[rhs_v] and \
                (x_v is None or (self.shape[x_v] == out_shape and self.dtype[x_v] == out_dtype)):
            gemm = cuda_blas.Gemm.build(self.shape[lhs_v], self.shape[rhs_v], out_dtype,
                                        spec.lperm, spec.rperm, spec.bmkn, s.alpha,
                                        s.beta if x_v is not None else 0.0)
        if gemm is None:
            if self.capture:
                raise cuda_graphs.NotCapturable(f"a dot through matmul ({s.name})")
            return super().dot_step(s)
        cp = self.cp
        if self.cublas_handle is None:
            self.cublas_handle = cp.cuda.device.get_cublas_handle()
            lib.setPointerMode(self.cublas_handle, lib.CUBLAS_POINTER_MODE_HOST)
        if self.capture:
            self.raw_cublas = cuda_blas.raw_cublas()
            if self.raw_cublas is None:
                raise cuda_graphs.NotCapturable("no ctypes binding of CuPy's cuBLAS")
            fn = self.raw_cublas.gemm(gemm.char, gemm.batched)
        else:
            fn = getattr(lib, gemm.name)
            self.cublas_stream = lib.setStream
        call = gemm.caller(fn, self.cublas_handle)
        li, ri, k_out = self.index[lhs_v], self.index[rhs_v], self.index[out_v]
        xi = None if x_v is None else self.index[x_v]
        fixed_out, new = self.fixed[k_out], cp.ndarray
        nbytes = math.prod(out_shape) * out_dtype.itemsize
        memcpy, runner = cp.cuda.runtime.memcpyAsync, self
        self.uses_stream = True

        def run(vals):
            out = fixed_out if fixed_out is not None else vals[k_out]  # (donated buffer)
            if out is None:
                out = new(out_shape, out_dtype)
            if xi is not None:
                x = vals[xi]
                if x is not out:        # (beta * out reads x from the output)
                    memcpy(out.data.ptr, x.data.ptr, nbytes, 3, runner.stream_ptr)
            call(vals[li], vals[ri], out)
            vals[k_out] = out
        return run

    def control_step(self, s):
        from tjit.xla_like.plan import carry_inputs
        if self.capture:
            raise cuda_graphs.NotCapturable(f"host control flow ({s.name})")
        ins = [self.index[v] for v in s.ins]
        outs = [(n, self.index[v]) for n, v in enumerate(s.outs) if v is not None]
        exe, env = self.exe, self.env
        loop = control_flow.build(s, lambda prog: _runner_for(prog, exe, env), env, self.cp)
        first = carry_inputs(s).start
        donated = [(j - first, pos) for j, pos in self.prog.loop_donations.get(id(s), {}).items()]

        def run(vals):
            args = [vals[k] for k in ins]
            owned = {k for k, pos in donated if pos in self.given}
            res = loop(args, owned)
            for n, k in outs:
                vals[k] = res[n]
        return run

    def library_step(self, s):
        if self.capture:
            raise cuda_graphs.NotCapturable(f"a library call ({s.name})")
        if s.primitive is None or not s.primitive.host_only:
            return super().library_step(s)
        # (a primitive CuPy cannot compute: its NumPy impl on host copies, counted)
        ins = [self.index[v] for v in s.ins]
        outs = [(self.index[v], self.shape[v], self.dtype[v]) if v is not None else None
                for v in s.outs]
        fn, env, name, cp, counts = s.fn, self.env, s.name, self.cp, self.exe.counts

        def run(vals):
            res = on_host(cp, lambda *xs: fn(np, env, *xs), True, [vals[k] for k in ins])
            counts["host_steps"] += 1
            for o, r in zip(outs, res):
                if o is not None:
                    vals[o[0]] = owned_result(cp, r, o[1], o[2], name)
        return run


def _runner_for(prog, exe, env):
    """The runner of ``prog`` at the size binding ``env``: graph-replaying where
    ``cuda_graphs`` finds it pays, else plain."""
    return cuda_graphs.runner_for(
        prog, env, lambda capture: _CudaRunner(prog, exe, env, capture=capture))
