"""C simulation of HLS C++: g++ builds a design's source into a shared library that is
loaded with ctypes (the "hls" backend, ``devices/hls.py``; the tests' corpus runs).

The source is compiled with ``hls_dialect.CSIM_OPTIONS`` (``-std=c++17 -Wall -Werror``,
no fast math) against tjit's simulation headers in ``tjit/fpga/include`` (bounded
``hls::stream``, ``hls_math.h`` on ``<cmath>``, the dataflow region's threads), plus
``tjit_sim_api.h`` (the region's error for the host). Libraries are cached on disk
(``disk_cache``) by the source, the simulation headers, the options, the compiler's
version and tjit's version, and in memory per process; an entry that does not load is rebuilt.

``TJIT_HLS_SANITIZE`` (e.g. ``address,undefined`` or ``thread``) builds every design at
-O0 with those g++ sanitizers, to find undefined behaviour in a design or in the
simulation headers (an abort that depends on the optimization level is one). The
sanitizer's runtime must be loaded first: run Python with
``LD_PRELOAD=$(g++ -print-file-name=libasan.so)`` (or ``libtsan.so``).
"""

import ctypes
import functools
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
import warnings

from tjit.devices import disk_cache
from tjit.lower.c.hls_dialect import CSIM_OPTIONS

__all__ = ["INCLUDE", "HlsCompileError", "compiler", "load", "options", "unavailable_reason"]

#: tjit's C-simulation headers (hls_stream.h, hls_math.h, tjit_dataflow.h, ...).
INCLUDE = str(pathlib.Path(__file__).resolve().parents[1] / "fpga" / "include")
_API = '\n#include "tjit_sim_api.h"\n'
_LOADED = {}
_LOCK = threading.Lock()


class HlsCompileError(RuntimeError):
    """g++ rejected generated HLS C++ (a renderer bug): the log and the source's path."""


def compiler():
    """The C++ compiler: ``$CXX`` or g++."""
    return os.environ.get("CXX") or "g++"


def unavailable_reason():
    """Why C simulation cannot run here, or None."""
    if shutil.which(compiler()) is None:
        return (f"no C++ compiler ({compiler()!r} not on PATH; install g++ or set CXX): "
                "the hls backend simulates designs with the host compiler")
    return None


def options():
    """g++'s options for a design: ``CSIM_OPTIONS``, plus -O0 and the sanitizers that
    ``TJIT_HLS_SANITIZE`` names (the last -O wins)."""
    sanitize = os.environ.get("TJIT_HLS_SANITIZE", "").strip()
    if not sanitize:
        return CSIM_OPTIONS
    return (*CSIM_OPTIONS, "-O0", "-g", "-fno-omit-frame-pointer", f"-fsanitize={sanitize}",
            "-fno-sanitize-recover=all")


@functools.cache
def _version():
    r = subprocess.run([compiler(), "--version"], capture_output=True, text=True,
                       check=False)
    return r.stdout.splitlines()[0] if r.stdout else "unknown"


@functools.cache
def _headers_digest():
    """The simulation headers' content (a changed header rebuilds every library)."""
    h = hashlib.sha256()
    for path in sorted(pathlib.Path(INCLUDE).glob("*.h")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _key(text):
    digest = hashlib.sha256(text.encode()).hexdigest()
    return disk_cache.cache_key(f"hls-csim:{digest}:{_headers_digest()}:{_version()}:"
                                f"{' '.join(options())}")


#: The headers every design includes, precompiled once (``_pch``): they are most of
#: the compile time of a small design.
_PCH_TEXT = """#include <stdint.h>
#include <math.h>
#include <hls_stream.h>
#include <hls_vector.h>
#include <hls_math.h>
#include "tjit_dataflow.h"
#include "tjit_sim_region.h"
"""


def _pch():
    return _pch_for(options())


@functools.cache
def _pch_for(opts):
    """A folder holding ``tjit_sim_pch.h`` and its precompiled ``.gch`` (per headers,
    compiler and options), or None when it cannot be built (then every build parses
    the headers itself: slower, same result)."""
    d = os.path.join(tempfile.gettempdir(), "tjit-hls-pch-" + hashlib.sha256(
        f"{_headers_digest()}:{_version()}:{opts}".encode()).hexdigest()[:16])
    gch = os.path.join(d, "tjit_sim_pch.h.gch")
    if os.path.exists(gch):
        return d
    try:
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "tjit_sim_pch.h"), "w") as f:
            f.write(_PCH_TEXT)
        tmp = f"{gch}.{os.getpid()}"
        header_opts = [o for o in opts if o != "-shared"]
        r = subprocess.run([compiler(), *header_opts, f"-I{INCLUDE}", "-x", "c++-header",
                            os.path.join(d, "tjit_sim_pch.h"), "-o", tmp],
                           capture_output=True, text=True, check=False)
        if r.returncode:
            return None
        os.replace(tmp, gch)
        return d
    except OSError:
        return None


def build(text):
    """The shared library (bytes) of HLS C++ ``text``. Raises HlsCompileError."""
    pch = _pch()
    with tempfile.TemporaryDirectory(prefix="tjit-hls-") as d:
        src, lib = os.path.join(d, "design.cpp"), os.path.join(d, "design.so")
        with open(src, "w") as f:
            f.write(('#include "tjit_sim_pch.h"\n' if pch else "") + text + _API)
        inc = ([f"-I{pch}"] if pch else []) + [f"-I{INCLUDE}"]
        r = subprocess.run([compiler(), *options(), *inc, src, "-o", lib],
                           capture_output=True, text=True, check=False)
        if r.returncode:
            fd, kept = tempfile.mkstemp(suffix=".cpp", prefix="tjit-hls-failed-")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            raise HlsCompileError(f"hls backend: {compiler()} rejected the generated C++ "
                                  f"(kept in {kept}):\n{r.stderr[:4000]}")
        with open(lib, "rb") as f:
            return f.read()


def load(text):
    """A ``ctypes.CDLL`` of HLS C++ ``text`` (memory cache, then disk cache, then g++)."""
    key = _key(text)
    with _LOCK:
        lib = _LOADED.get(key)
    if lib is not None:
        return lib
    image = disk_cache.get(key)
    lib = _open(image) if image is not None else None
    if lib is None:
        if image is not None:
            warnings.warn("tjit disk cache: an hls C-simulation entry did not load; "
                          "rebuilding it", RuntimeWarning, stacklevel=2)
        image = build(text)
        disk_cache.put(key, image)
        lib = _open(image)
        if lib is None:
            raise HlsCompileError("hls backend: a freshly built library did not load")
    with _LOCK:
        return _LOADED.setdefault(key, lib)


def _open(image):
    fd, path = tempfile.mkstemp(suffix=".so", prefix="tjit-hls-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(image)
        try:
            return ctypes.CDLL(path)
        except OSError:
            return None
    finally:
        os.unlink(path)
