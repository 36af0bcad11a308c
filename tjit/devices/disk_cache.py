"""On-disk cache of compiled kernel objects, shared by processes and runs.

    key = disk_cache.cache_key(kernel_ir.kernel_hash(k) + codegen_options)
    obj = disk_cache.get(key)                  # bytes, or None on a miss
    if obj is None:
        addrs, obj = target.compile_object(ir_text, names)
        disk_cache.put(key, obj)

**Where.** ``$TJIT_CACHE_DIR`` if set and not empty, else the user's cache folder +
``tjit`` (``$XDG_CACHE_HOME`` if absolute, else ``~/.cache`` on Linux;
``~/Library/Caches`` on macOS; ``%LOCALAPPDATA%`` on Windows). A relative
``$TJIT_CACHE_DIR`` names a folder under the working directory of the first lookup and
stays there if the process changes directory. The folder is created on first use. If it
cannot be created or used, a warning is issued once and tjit runs without a disk cache;
if it can be read but not written (a read-only cache shipped with an image), tjit reads
its entries, stores none, and warns once.

**Key.** sha256 of the caller's kernel hash, ``target.host_key()`` (CPU, features,
llvmlite version) and ``tjit.__version__``: code from another machine, LLVM or tjit
version is never looked up.

**Entries** are one regular file each, of at most ``MAX_ENTRY_BYTES``: ``magic | format
version | key | payload length | sha256(payload) | payload``. A reader never follows a
link or opens anything but a regular file (``lstat`` first, then ``O_NOFOLLOW |
O_NONBLOCK`` and ``fstat`` of what was opened), never reads more than the bound plus one
byte, and checks every field. An entry that fails any of this (a symlink, FIFO or folder
in its place, unreadable, too big, truncated, corrupted, another version) is reported
with a warning naming the file and treated as a miss: the kernel is recompiled, never
trusted, and the new entry replaces the bad one. Writers write a temporary file in the
same folder and ``os.replace`` it into place, so concurrent writers are safe (last one
wins) and readers never see a partial file. If a write fails (disk full, permission
denied), tjit warns once and stops writing to that folder for the rest of the process.
"""

import hashlib
import os
import secrets
import stat
import struct
import sys
import threading
import warnings

from tjit import __version__
from tjit.config import config
from tjit.lower.llvm import target
from tjit.xla_like import program_cache

__all__ = ["DiskCache", "MAX_ENTRY_BYTES", "STATS", "cache_key", "default_cache",
           "default_cache_dir", "get", "put", "reset"]

MAGIC = b"TJITKOBJ"
FORMAT_VERSION = 1
#: Largest entry file (header included) that is written or read. Kernel objects are KBs;
#: the bound keeps a stray huge file (or a device) from filling memory.
MAX_ENTRY_BYTES = 64 << 20
#: Counters for tests and benchmarks.
STATS = {"hits": 0, "misses": 0, "bad_entries": 0, "stored": 0, "bytes_read": 0}
# magic, format version, key digest (32 bytes), payload length, payload sha256
_HEADER = struct.Struct("<8sI32sQ32s")
_SUFFIX = ".tjo"
# O_NOFOLLOW: a link is an error, not followed; O_NONBLOCK: a FIFO does not block open()
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_RESOLVED = {}          # $TJIT_CACHE_DIR's value -> the absolute folder it named first


def default_cache_dir():
    """The cache folder: the ``compilation_cache_dir`` option (JAX's name; also
    ``$JAX_COMPILATION_CACHE_DIR``), else ``$TJIT_CACHE_DIR``, else the platform's user
    cache folder/tjit."""
    env = config.compilation_cache_dir or os.environ.get("TJIT_CACHE_DIR")
    if env:
        # resolved once, so that a chdir does not move the cache to another folder
        return _RESOLVED.setdefault(env, os.path.abspath(os.path.expanduser(env)))
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Caches")
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        # the XDG spec: a relative (or empty) $XDG_CACHE_HOME is invalid and ignored
        base = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")
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


class _BadEntry(Exception):
    """An entry file that tjit does not read; the message says what is wrong with it."""


class DiskCache:
    """One cache folder. Thread- and process-safe; never raises on I/O problems."""

    def __init__(self, directory):
        self.directory = directory
        self._state = None            # None: not tried yet; then "off", "ro" or "rw"
        self._lock = threading.Lock()

    def path(self, key):
        """The file that holds (or would hold) ``key``'s entry."""
        return os.path.join(self.directory, key + _SUFFIX)

    def enabled(self):
        """True when entries can be read: the folder exists (created if needed)."""
        return self._ready() != "off"

    def writable(self):
        """True when new entries can be stored (no write has failed in this process)."""
        return self._ready() == "rw"

    def _ready(self):
        if self._state is None:
            with self._lock:
                if self._state is None:
                    self._state = self._prepare()
        return self._state

    def _prepare(self):
        d = self.directory
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:
            self._warn_off(e)
            return "off"
        try:
            fd, probe = _create_temp(d, ".probe-")
            os.close(fd)
            os.unlink(probe)
            return "rw"
        except OSError as e:
            if not os.access(d, os.X_OK):     # entries cannot even be looked up
                self._warn_off(e)
                return "off"
            warnings.warn(
                f"tjit: the kernel disk cache folder {d!r} is read-only ({e}); tjit reads "
                "the kernels stored there but stores no new ones (this warning is shown "
                "once). Set TJIT_CACHE_DIR to a writable folder to cache new kernels.",
                RuntimeWarning, stacklevel=5)
            return "ro"

    def _warn_off(self, e):
        warnings.warn(
            f"tjit: cannot use the kernel disk cache folder {self.directory!r} ({e}); "
            "running without a disk cache (kernels are recompiled in every process). "
            "Set TJIT_CACHE_DIR to a writable folder to fix this.", RuntimeWarning,
            stacklevel=6)

    def get(self, key):
        """The payload stored under ``key``, or None (miss, no cache, or a bad entry)."""
        digest = _check_key(key)
        if not self.enabled():
            return None
        path = self.path(key)
        try:
            data = _read_entry(path)
            _check_entry(data, digest)
        except FileNotFoundError:
            STATS["misses"] += 1
            return None
        except (_BadEntry, OSError) as e:
            problem = str(e) if isinstance(e, _BadEntry) else f"it cannot be read ({e})"
            STATS["bad_entries"] += 1
            warnings.warn(f"tjit: kernel cache entry {path!r} is invalid: {problem}; "
                          "ignoring it, the kernel will be recompiled.", RuntimeWarning,
                          stacklevel=2)
            return None
        STATS["hits"] += 1
        return data[_HEADER.size:]

    def put(self, key, payload):
        """Store ``payload`` (bytes) under ``key``, atomically. Returns True if stored."""
        digest = _check_key(key)
        if not self.writable():
            return False
        path = self.path(key)
        payload = bytes(payload)
        if _HEADER.size + len(payload) > MAX_ENTRY_BYTES:
            warnings.warn(f"tjit: not storing kernel cache entry {path!r}: its "
                          f"{len(payload)} bytes are over MAX_ENTRY_BYTES "
                          f"({MAX_ENTRY_BYTES}).", RuntimeWarning, stacklevel=2)
            return False
        header = _HEADER.pack(MAGIC, FORMAT_VERSION, digest, len(payload),
                              hashlib.sha256(payload).digest())
        tmp = None
        try:
            fd, tmp = _create_temp(self.directory, f".{key[:16]}-")
            try:
                _write_all(fd, header)
                _write_all(fd, payload)
            finally:
                os.close(fd)
            try:
                os.replace(tmp, path)     # replaces a file, symlink or FIFO, not a folder
            except IsADirectoryError:
                _move_aside(path)
                os.replace(tmp, path)
            tmp = None
            STATS["stored"] += 1
            return True
        except OSError as e:  # disk full, permission denied, folder removed
            self._stop_writing(path, e)
            return False
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    def _stop_writing(self, path, e):
        # A failed write is likely to fail again (full disk, no permission): say so once.
        with self._lock:
            if self._state != "rw":
                return
            self._state = "ro"
        warnings.warn(f"tjit: could not write kernel cache entry {path!r} ({e}); tjit "
                      f"stores no more kernels in {self.directory!r} in this process "
                      "(entries there are still read).", RuntimeWarning, stacklevel=3)


def _create_temp(directory, prefix):
    """``(fd, path)`` of a new file in ``directory``, created with the umask's permissions
    (not mkstemp's 0600), so that a cache filled by one user can be read by others."""
    path = os.path.join(directory, f"{prefix}{secrets.token_hex(8)}.tmp")
    return os.open(path, _CREATE_FLAGS, 0o666), path


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _move_aside(path):
    """Clear a folder out of an entry's place: removed if empty, else renamed (kept)."""
    try:
        os.rmdir(path)
    except OSError:
        aside = f"{path}.{secrets.token_hex(4)}.moved-aside"
        os.rename(path, aside)
        warnings.warn(f"tjit: kernel cache entry {path!r} was a folder with files in it; "
                      f"tjit moved it to {aside!r} and stored the entry in its place.",
                      RuntimeWarning, stacklevel=3)


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a file"


def _read_entry(path):
    """The bytes of the regular file ``path``; raises _BadEntry for anything else (without
    opening it, following links or blocking) or for a file over MAX_ENTRY_BYTES."""
    bound = MAX_ENTRY_BYTES
    st = os.lstat(path)                       # FileNotFoundError: a plain miss
    if not stat.S_ISREG(st.st_mode):
        where = ""
        if stat.S_ISLNK(st.st_mode):
            try:
                where = f" to {os.readlink(path)!r}"
            except OSError:
                pass
        raise _BadEntry(f"it is {_kind(st.st_mode)}{where}, not a regular file "
                       "(tjit did not open it)")
    if st.st_size > bound:
        raise _BadEntry(f"it is {st.st_size} bytes, over MAX_ENTRY_BYTES ({bound})")
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)                     # the file may have been swapped since lstat
        if not stat.S_ISREG(st.st_mode):
            raise _BadEntry(f"it is {_kind(st.st_mode)}, not a regular file")
        chunks, n = [], 0
        while n <= bound:                     # at most bound + 1 bytes, even if it grows
            chunk = os.read(fd, min(bound + 1 - n, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
        STATS["bytes_read"] += n
        if n > bound:
            raise _BadEntry(f"it is over MAX_ENTRY_BYTES ({bound} bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _check_entry(data, key_digest):
    """Raises _BadEntry unless ``data`` is a valid entry for ``key_digest``."""
    if len(data) < _HEADER.size:
        raise _BadEntry(f"truncated ({len(data)} bytes, shorter than the {_HEADER.size}-byte "
                       "header)")
    magic, version, key, length, payload_sha = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise _BadEntry("not a tjit kernel cache file (bad magic)")
    if version != FORMAT_VERSION:
        raise _BadEntry(f"format version {version}, expected {FORMAT_VERSION}")
    if key != key_digest:
        raise _BadEntry("it holds a different key than its file name")
    if len(data) - _HEADER.size != length:
        raise _BadEntry(f"payload is {len(data) - _HEADER.size} bytes, header says {length} "
                       "(truncated or appended to)")
    if hashlib.sha256(memoryview(data)[_HEADER.size:]).digest() != payload_sha:
        raise _BadEntry("payload checksum mismatch (corrupted)")


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


def reset():
    """Forget the folders resolved and their ``DiskCache`` objects (a folder that could
    not be written is tried again); the entries on disk stay."""
    with _DEFAULT_LOCK:
        _DEFAULT.clear()
        _RESOLVED.clear()


def get(key):
    """``default_cache().get(key)``: the stored bytes, or None (also while the
    ``enable_compilation_cache`` option is off)."""
    return default_cache().get(key) if config.enable_compilation_cache else None


def put(key, payload):
    """``default_cache().put(key, payload)``: store bytes atomically; True if stored."""
    return default_cache().put(key, payload) if config.enable_compilation_cache else False


def load_or_compile(ir_text, names, tag, profile="vector"):
    """``{name: address}`` for LLVM IR that is not a kernel (runtime helpers): loaded from
    the disk cache when an entry for this exact text exists, else compiled and stored.

    Args:
      ir_text: LLVM IR as text.
      names: the function symbols to look up.
      tag: a short label that keeps different helpers' keys apart.
      profile: the LLVM pipeline (``target.PROFILES``).
    """
    text_hash = hashlib.sha256(ir_text.encode()).hexdigest()
    key = cache_key(f"{tag}:" + text_hash if profile == "vector" else
                    f"{tag}:{profile}:" + text_hash)
    obj = get(key)
    if obj is not None:
        try:
            return target.load_object(obj, names)
        except (ValueError, RuntimeError):  # unusable entry: compile afresh below
            pass
    from tjit.lower.llvm import parallel
    # (outside the LLVM lock where it can: a helper built on a thread of its own
    # overlaps the kernels' compile, see devices/helpers_ahead.py)
    obj = parallel.emit_object(ir_text, profile)
    addrs = target.load_object(obj, names)
    put(key, obj)
    return addrs


# Whole compiled programs (``xla_like/program_cache``) are stored here too; that layer
# cannot import devices, so the cache registers itself with it.
program_cache.set_store(get, put)
