"""Build and run rendered kernels on the three C-family targets, for the tests.

Each runner builds many kernels at once (one translation unit / program: the helpers
are ``#ifndef``-guarded, so sources concatenate) and runs one kernel on host NumPy
buffers, writing outputs back in place:

* :class:`CRunner`: the system ``cc`` into one shared library, cached by source hash
  in a temp folder, called through ctypes;
* :class:`OpenCLRunner`: pyopencl on the OpenCL backend's device (PoCL in CI);
* :func:`nvrtc_compile` and :class:`CudaRunner`: NVRTC directly (not
  ``RawModule(code=...)``, which adds ``-ftz=true``), the cubin loaded with
  ``cupy.RawModule(path=...)``.

``*_unavailable()`` return a skip reason, or None when the target can be used.
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

from tjit.lower.c import dialects, render

CACHE = os.path.join(tempfile.gettempdir(), "tjit-c-renderer-tests")
#: Kernels per translation unit when many are built at once (sweeps, the NVRTC check).
BATCH = 150


def sources(cases, dialect):
    """Render every case's kernel once (cases sharing a kernel share its source)."""
    out = {}
    for c in cases:
        if id(c.kernel) not in out:
            out[id(c.kernel)] = render(c.kernel, dialect, f"k{len(out)}_{c.kernel.name}")
    return out


def unit(srcs):
    """One translation unit holding all ``srcs`` (CSource values)."""
    srcs = list(srcs)
    lines = []
    for s in srcs:     # the dialect prelude, plus the float64 pragma if any kernel needs it
        lines += [ln for ln in s.prelude.splitlines() if ln not in lines]
    return "\n".join(lines + [s.body for s in srcs])


# ----------------------------------------------------------------------------------------
# C through the host compiler.

def c_unavailable():
    return None if shutil.which("cc") else "no C compiler (cc) on PATH"


class CRunner:
    def __init__(self, srcs):
        self.srcs = list(srcs)
        text = unit(self.srcs)
        opts = dialects.C.compile_options
        key = hashlib.sha256((text + repr(opts)).encode()).hexdigest()[:24]
        os.makedirs(CACHE, exist_ok=True)
        lib = os.path.join(CACHE, f"k{key}.so")
        if not os.path.exists(lib):
            src = os.path.join(CACHE, f"k{key}.c")
            with open(src, "w") as f:
                f.write(text)
            tmp = f"{lib}.{os.getpid()}"
            r = subprocess.run(["cc", *opts, src, "-o", tmp, "-lm"], capture_output=True,
                               text=True, check=False)
            if r.returncode:
                raise AssertionError(f"cc failed on {src}:\n{r.stderr[:4000]}")
            os.replace(tmp, lib)
        self.lib = ctypes.CDLL(lib)

    def __call__(self, src, bufs, sizes):
        fn = getattr(self.lib, src.entry)
        args = []
        for p, b in zip(src.params, bufs):
            args.append(ctypes.c_void_p(b.ctypes.data))
        for p in src.params[len(bufs):]:
            args.append(ctypes.c_int64(sizes[p.symbol]))
        fn.restype = None
        fn(*args)


# ----------------------------------------------------------------------------------------
# OpenCL.

def opencl_unavailable():
    """Why these runners cannot run here (None: they can): the OpenCL backend's own
    judgement (``opencl_context.unavailable_reason``: pyopencl, a device, a compiler
    that builds), and the device's double support that the corpus needs."""
    from tjit.devices import opencl_context
    why = opencl_context.unavailable_reason()
    if why is not None:
        return why
    dev = opencl_context.get()
    if not dev.fp64:
        return f"OpenCL device {dev.name} lacks cl_khr_fp64"
    return None


class OpenCLRunner:
    max_groups = 256      # tests lower it to make every thread loop (grid/group stride)

    def __init__(self, srcs):
        import pyopencl as cl
        self.cl = cl
        from tjit.devices import opencl_context
        dev = opencl_context.get().device     # (the device the backend probed and uses)
        self.ctx = cl.Context([dev])
        self.queue = cl.CommandQueue(self.ctx)
        self.prog = cl.Program(self.ctx, unit(srcs)).build(
            options=list(dialects.OPENCL.compile_options))
        self.kernels = {}

    def __call__(self, src, bufs, sizes):
        cl = self.cl
        mf = cl.mem_flags
        dev = [cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                         hostbuf=b if b.nbytes else np.zeros(1, np.uint8)) for b in bufs]
        scal = [np.int64(sizes[p.symbol]) for p in src.params[len(bufs):]]
        groups, local = src.launch.grid(sizes, max_groups=self.max_groups)
        knl = self.kernels.get(src.entry)
        if knl is None:
            knl = self.kernels[src.entry] = cl.Kernel(self.prog, src.entry)
        knl(self.queue, (groups * local,), (local,), *dev, *scal)
        for b, d, p in zip(bufs, dev, src.params):
            if p.role == "out" and b.nbytes:
                cl.enqueue_copy(self.queue, b, d)
        self.queue.finish()


# ----------------------------------------------------------------------------------------
# CUDA.

def nvrtc_unavailable():
    try:
        from cupy_backends.cuda.libs import nvrtc
        nvrtc.getVersion()
    except Exception as e:   # noqa: BLE001 (ImportError, or the NVRTC library missing)
        return f"NVRTC not usable ({type(e).__name__}: {e}); pip install cupy-cuda12x " \
               "nvidia-cuda-nvrtc-cu12"
    return None


def nvrtc_compile(text, arch="compute_90"):
    """NVRTC with the dialect's options; returns PTX (``compute_XX``) or a cubin
    (``sm_XX``) as bytes. Raises AssertionError with the log on errors."""
    from cupy_backends.cuda.libs import nvrtc
    prog = nvrtc.createProgram(text, "tjit_kernels.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(prog, [f"--gpu-architecture={arch}",
                                        *dialects.CUDA.compile_options])
        except nvrtc.NVRTCError as e:
            raise AssertionError(f"NVRTC: {e}\n{nvrtc.getProgramLog(prog)[:4000]}") from None
        return nvrtc.getCUBIN(prog) if arch.startswith("sm_") else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)


def cuda_unavailable():
    reason = nvrtc_unavailable()
    if reason:
        return reason
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
        _ = cupy.cuda.Device(0).compute_capability
    except Exception as e:   # noqa: BLE001 (a driver too old, no device, ...)
        return f"no usable CUDA GPU ({type(e).__name__}: {e})"
    return None


class CudaRunner:
    max_groups = 1024

    def __init__(self, srcs):
        import cupy
        self.cp = cupy
        cc = cupy.cuda.Device(0).compute_capability
        image = nvrtc_compile(unit(srcs), f"sm_{cc}")
        os.makedirs(CACHE, exist_ok=True)
        path = os.path.join(CACHE, hashlib.sha256(image).hexdigest()[:24] + ".cubin")
        with open(path, "wb") as f:
            f.write(image)
        self.mod = cupy.RawModule(path=path)

    def __call__(self, src, bufs, sizes):
        cp = self.cp
        dev = [cp.asarray(b) for b in bufs]
        scal = [np.int64(sizes[p.symbol]) for p in src.params[len(bufs):]]
        groups, local = src.launch.grid(sizes, max_groups=self.max_groups)
        self.mod.get_function(src.entry)((groups,), (local,), (*dev, *scal))
        cp.cuda.runtime.deviceSynchronize()
        for b, d, p in zip(bufs, dev, src.params):
            if p.role == "out":
                b[...] = cp.asnumpy(d)
