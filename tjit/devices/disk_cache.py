"""On-disk cache of compiled kernel objects, shared by processes and runs.

    key = disk_cache.cache_key(kernel_ir.kernel_hash(k) + codegen_options)
    obj = disk_cache.get(key)                  # bytes, or None on a miss
    if obj is None:
        addrs, obj = target.compile_object(ir_text, names)
        disk_cache.put(key, obj)

**Where.** ``$TJIT_CACHE_DIR`` if set, else the user's cache folder + ``tjit``
(``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
``%LOCALAPPDATA%`` on Windows). The folder is created on first use; if it cannot be
created or written, a warning is issued once and tjit runs without a disk cache.

**Key.** sha256 of the caller's kernel hash, ``target.host_key()`` (CPU, features,
llvmlite version) and ``tjit.__version__``: code from another machine, LLVM or tjit
version is never looked up.

**Entries** are one file each: ``magic | format version | key | payload length |
sha256(payload) | payload``. A reader checks every field; a truncated, corrupted or
mismatched entry is reported with a warning naming the file, deleted (best effort)
and treated as a miss, so the kernel is recompiled, never trusted. Writers write a
temporary file in the same folder and ``os.replace`` it into place, so concurrent
writers are safe (last one wins) and readers never see a partial file.
"""

import hashlib
import os
import struct
import sys
import tempfile
import threading
import warnings

from tjit import __version__
from tjit.lower.llvm import target

__all__ = ["DiskCache", "cache_key", "default_cache", "default_cache_dir", "get", "put"]

MAGIC = b"TJITKOBJ"
FORMAT_VERSION = 1
# magic, format version, key digest (32 bytes), payload length, payload sha256
_HEADER = struct.Struct("<8sI32sQ32s")
_SUFFIX = ".tjo"


def default_cache_dir():
    """The cache folder: ``$TJIT_CACHE_DIR`` or the platform's user cache folder/tjit."""
    env = os.environ.get("TJIT_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return os.path.join(base, "tjit")


def cache_key(kernel_hash):
    """The disk-cache key of a kernel on this host with this tjit.

    Args:
      kernel_hash: a string naming the kernel's content and codegen options
        (e.g. ``kernel_ir.kernel_hash(k)``).
    Returns:
      64 hex digits.
    """
    text = f"{kernel_hash}\0{target.host_key()}\0{__version__}"
    return hashlib.sha256(text.encode()).hexdigest()


def _check_key(key):
    if not (isinstance(key, str) and len(key) == 64
            and all(c in "0123456789abcdef" for c in key)):
        raise ValueError(f"disk_cache: key must be 64 lowercase hex digits (use "
                         f"disk_cache.cache_key(...)), got {key!r}")
    return bytes.fromhex(key)


class DiskCache:
    """One cache folder. Thread- and process-safe; never raises on I/O problems."""

    def __init__(self, directory):
        self.directory = directory
        self._ready = None            # None: not tried yet; True/False after first use
        self._lock = threading.Lock()

    def path(self, key):
        """The file that holds (or would hold) ``key``'s entry."""
        return os.path.join(self.directory, key + _SUFFIX)

    def enabled(self):
        """True when the folder exists (created if needed) and is writable."""
        if self._ready is None:
            with self._lock:
                if self._ready is None:
                    self._ready = self._prepare()
        return self._ready

    def _prepare(self):
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.directory, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
            return True
        except OSError as e:
            warnings.warn(
                f"tjit: cannot use the kernel disk cache folder {self.directory!r} ({e}); "
                "running without a disk cache (kernels are recompiled in every process). "
                "Set TJIT_CACHE_DIR to a writable folder to fix this.", RuntimeWarning,
                stacklevel=4)
            return False

    def get(self, key):
        """The payload stored under ``key``, or None (miss, no cache, or a bad entry)."""
        digest = _check_key(key)
        if not self.enabled():
            return None
        path = self.path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as e:
            self._reject(path, f"it cannot be read ({e})", delete=False)
            return None
        problem = _check_entry(data, digest)
        if problem:
            self._reject(path, problem)
            return None
        return data[_HEADER.size:]

    def put(self, key, payload):
        """Store ``payload`` (bytes) under ``key``, atomically. Returns True if stored."""
        digest = _check_key(key)
        if not self.enabled():
            return False
        payload = bytes(payload)
        header = _HEADER.pack(MAGIC, FORMAT_VERSION, digest, len(payload),
                              hashlib.sha256(payload).digest())
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key[:16]}-",
                                       suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
            os.replace(tmp, self.path(key))
            return True
        except OSError as e:  # disk full, folder removed, a reader holds it (Windows)
            warnings.warn(f"tjit: could not write kernel cache entry {self.path(key)!r} "
                          f"({e}); continuing without it.", RuntimeWarning, stacklevel=2)
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            return False

    def _reject(self, path, problem, delete=True):
        warnings.warn(f"tjit: kernel cache entry {path!r} is invalid: {problem}; "
                      "ignoring it, the kernel will be recompiled.", RuntimeWarning,
                      stacklevel=3)
        if delete:
            try:
                os.unlink(path)
            except OSError:
                pass


def _check_entry(data, key_digest):
    """None when ``data`` is a valid entry for ``key_digest``, else what is wrong."""
    if len(data) < _HEADER.size:
        return f"truncated ({len(data)} bytes, shorter than the {_HEADER.size}-byte header)"
    magic, version, key, length, payload_sha = _HEADER.unpack_from(data)
    if magic != MAGIC:
        return "not a tjit kernel cache file (bad magic)"
    if version != FORMAT_VERSION:
        return f"format version {version}, expected {FORMAT_VERSION}"
    if key != key_digest:
        return "it holds a different key than its file name"
    if len(data) - _HEADER.size != length:
        return (f"payload is {len(data) - _HEADER.size} bytes, header says {length} "
                "(truncated or appended to)")
    if hashlib.sha256(memoryview(data)[_HEADER.size:]).digest() != payload_sha:
        return "payload checksum mismatch (corrupted)"
    return None


# ----------------------------------------------------------------------------------------
# The process-wide default cache, following $TJIT_CACHE_DIR as it changes.

_DEFAULT = {}
_DEFAULT_LOCK = threading.Lock()


def default_cache():
    """The ``DiskCache`` for ``default_cache_dir()`` (one object per folder)."""
    directory = default_cache_dir()
    cache = _DEFAULT.get(directory)
    if cache is None:
        with _DEFAULT_LOCK:
            cache = _DEFAULT.setdefault(directory, DiskCache(directory))
    return cache


def get(key):
    """``default_cache().get(key)``: the stored bytes, or None."""
    return default_cache().get(key)


def put(key, payload):
    """``default_cache().put(key, payload)``: store bytes atomically; True if stored."""
    return default_cache().put(key, payload)


def load_or_compile(ir_text, names, tag):
    """``{name: address}`` for LLVM IR that is not a kernel (runtime helpers): loaded from
    the disk cache when an entry for this exact text exists, else compiled and stored.

    Args:
      ir_text: LLVM IR as text.
      names: the function symbols to look up.
      tag: a short label that keeps different helpers' keys apart.
    """
    key = cache_key(f"{tag}:" + hashlib.sha256(ir_text.encode()).hexdigest())
    obj = get(key)
    if obj is not None:
        try:
            return target.load_object(obj, names)
        except (ValueError, RuntimeError):  # unusable entry: compile afresh below
            pass
    addrs, obj = target.compile_object(ir_text, names)
    put(key, obj)
    return addrs
