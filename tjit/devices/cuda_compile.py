"""CUDA C -> a loaded module: NVRTC with the dialect's options, a disk cache of cubins.

Kernels are rendered by ``tjit.lower.c`` with the ``cuda`` dialect and compiled here by
NVRTC directly, never through ``cupy.RawModule(code=...)``, which always adds
``-ftz=true`` (float32 subnormals flushed to zero, against tjit's accuracy contract).
The options are the dialect's: ``--fmad=false`` (fmad=true changed 948 of 4096 float32
``a*b+c`` results on an H200), no ``-ftz``, IEEE division and square root, no fast math.
The cubin is built for the device's own ``sm_XX`` and loaded with
``cupy.RawModule(path=...)``.

Disk cache: one entry per translation unit (all kernels of a program), keyed by the
source's hash, the GPU architecture, the NVRTC version, the options and (through
``disk_cache.cache_key``) tjit's version. An entry that is not a cubin (corrupted,
truncated: ``disk_cache`` already rejects entries whose checksum fails) is reported
and recompiled, never loaded. This module imports no CuPy at import time; NVRTC needs
no GPU, so compiling (and these checks) work on any machine with NVRTC.
"""

import functools
import hashlib
import os
import pickle
import tempfile
import warnings

from tjit import __version__
from tjit.devices import cuda_pointwise, disk_cache
from tjit.lower.c import dialects
from tjit.lower.c.renderer import CSource
from tjit.xla_like import program_cache

#: Every cubin is an ELF image.
_ELF_MAGIC = b"\x7fELF"


class CudaCompileError(RuntimeError):
    """NVRTC rejected a kernel's source. ``source`` holds the CUDA C text, ``log``
    NVRTC's log, ``options`` the options used."""

    def __init__(self, message, source, log, options):
        super().__init__(message)
        self.source = source
        self.log = log
        self.options = options


@functools.cache
def nvrtc_version():
    """NVRTC's ``(major, minor)`` (loading NVRTC costs ~15 ms: asked once a process)."""
    from cupy_backends.cuda.libs import nvrtc
    return tuple(nvrtc.getVersion())


def options(arch):
    """The NVRTC options for ``arch`` (``"sm_90"``, or ``"compute_90"`` for PTX)."""
    return (f"--gpu-architecture={arch}",) + tuple(dialects.CUDA.compile_options)


def compile_source(text, arch, extra_options=()):
    """Compile CUDA C ``text`` with NVRTC for ``arch``.

    Args:
      text: the translation unit (rendered kernels).
      arch: ``"sm_XX"`` for a cubin, ``"compute_XX"`` for PTX.
      extra_options: added to the dialect's (the tests' front-end-only check passes
        ``("-fdevice-syntax-only",)``; the image is then empty of code).
    Returns:
      the image as bytes.
    Raises:
      CudaCompileError: NVRTC failed; the message and attributes hold NVRTC's log and
        the source.
    """
    from cupy_backends.cuda.libs import nvrtc
    opts = options(arch) + tuple(extra_options)
    prog = nvrtc.createProgram(text, "tjit_kernels.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(prog, list(opts))
        except nvrtc.NVRTCError as e:
            log = nvrtc.getProgramLog(prog)
            numbered = "\n".join(f"{n + 1:5d}  {ln}" for n, ln in enumerate(text.splitlines()))
            raise CudaCompileError(
                f"CUDA kernel compilation failed (NVRTC {e}; options {' '.join(opts)}).\n"
                f"NVRTC log:\n{log}\nKernel source:\n{numbered}\nThis is a bug in tjit's "
                f"CUDA renderer: please report it with this message.", text, log,
                opts) from None
        return nvrtc.getCUBIN(prog) if arch.startswith("sm_") else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)


def _key(kind, what, arch):
    """A disk-cache key for CUDA ``what`` compiled for ``arch`` with this NVRTC and tjit
    (not ``disk_cache.cache_key``: the host CPU's LLVM key does not matter to a cubin,
    and asking LLVM for it cost the first GPU call ~50 ms)."""
    ver = ".".join(map(str, nvrtc_version()))
    text = f"{kind}:{what}:{arch}:nvrtc{ver}:{' '.join(options(arch))}\0{__version__}"
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(text, arch):
    """The disk-cache key of ``text`` compiled for ``arch`` with this NVRTC and tjit."""
    return _key("cuda", hashlib.sha256(text.encode()).hexdigest(), arch)


def cubin_for(text, arch):
    """The cubin of ``text`` for ``arch``: from the disk cache when a valid entry exists,
    else compiled (and stored). An entry that is not a cubin is reported and replaced."""
    key = cache_key(text, arch)
    image = disk_cache.get(key)
    if image is not None:
        if image[:4] == _ELF_MAGIC:
            return image
        disk_cache.STATS["bad_entries"] += 1
        warnings.warn(f"tjit disk cache: entry {disk_cache.default_cache().path(key)} is "
                      f"not a CUDA cubin; recompiling it", RuntimeWarning, stacklevel=2)
    image = compile_source(text, arch)
    disk_cache.put(key, image)
    return image


def load_module(image):
    """A ``cupy.RawModule`` of a cubin (loaded from a file: ``RawModule(path=)`` adds no
    compile options, unlike ``RawModule(code=)``)."""
    import cupy
    fd, path = tempfile.mkstemp(suffix=".cubin", prefix="tjit-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(image)
        mod = cupy.RawModule(path=path)
        _ = mod.module      # (load now, while the file exists)
        return mod
    finally:
        os.unlink(path)


# ----------------------------------------------------------------------------------------
# Whole programs: every kernel's rendered source and the unit's cubin, keyed by the
# program's cache key (``xla_like/program_cache``), so a process that finds its program
# on disk skips rendering and NVRTC too.

#: Bumped when a unit entry's layout changes.
UNIT_FORMAT = 1
_RENDERER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    dialects.__file__))))      # tjit/lower: the renderer and the loop planning it uses


def program_kernels(program):
    """The kernels of ``program`` and of its loop bodies, each once, in render order."""
    seen, out = set(), []
    for p in [program] + list(program.sub_programs()):
        for k in p.kernels:
            if id(k) not in seen:
                seen.add(id(k))
                out.append(k)
    return out


def unit_key(program, arch):
    """The disk-cache key of ``program``'s rendered unit for ``arch`` and the pointwise
    variant in force (``cuda_pointwise``), or None when the program has no cache key
    (not cached)."""
    pkey = getattr(program, "cache_key", None)
    if pkey is None:
        return None
    pointwise = cuda_pointwise.variant()    # (a launch choice: another rendering)
    tail = "" if pointwise == cuda_pointwise.DEFAULT else f":pointwise{pointwise}"
    return _key(f"cuda-unit{UNIT_FORMAT}",
                f"{pkey}:{program_cache.files_digest(_RENDERER)}{tail}", arch)


def program_unit(program, arch, render_program):
    """``({id(kernel): CSource}, module key, image)`` for every kernel of ``program``:
    from the program's unit entry when there is a valid one, else rendered by
    ``render_program(program) -> (sources, text)``, compiled (``cubin_for``) and stored.
    ``image`` is None for a program without kernels; the module key names the unit's
    source text (equal keys: one loaded module)."""
    kernels = program_kernels(program)
    key = unit_key(program, arch)
    unit = _read_unit(key, len(kernels)) if key is not None else None
    if unit is not None:
        sources, module_key, image = unit
        return {id(k): s for k, s in zip(kernels, sources)}, module_key, image
    sources, text = render_program(program)
    if not sources:
        return sources, None, None
    image = cubin_for(text, arch)
    module_key = cache_key(text, arch)
    if key is not None:
        disk_cache.put(key, pickle.dumps(
            (UNIT_FORMAT, [sources[id(k)] for k in kernels], module_key, image),
            protocol=pickle.HIGHEST_PROTOCOL))
    return sources, module_key, image


def _read_unit(key, n_kernels):
    payload = disk_cache.get(key)
    if payload is None:
        return None
    try:
        fmt, sources, module_key, image = pickle.loads(payload)
        if fmt != UNIT_FORMAT or len(sources) != n_kernels or \
                not all(type(s) is CSource for s in sources) or \
                not isinstance(image, bytes) or image[:4] != _ELF_MAGIC:
            raise ValueError("not a unit of this program")
    except Exception as e:  # noqa: BLE001 (anything a damaged entry raises)
        disk_cache.STATS["bad_entries"] += 1
        warnings.warn(f"tjit disk cache: CUDA program entry {disk_cache.default_cache().path(key)} "
                      f"is unusable ({type(e).__name__}: {e}); rendering and compiling the "
                      f"program again", RuntimeWarning, stacklevel=3)
        return None
    return sources, module_key, image
