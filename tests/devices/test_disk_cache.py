"""tjit.devices.disk_cache: round trips, damaged entries, concurrency, bad folders."""

import contextlib
import ctypes
import dataclasses
import errno
import itertools
import multiprocessing as mp
import os
import pathlib
import re
import sys
import tempfile
import threading
import warnings

import numpy as np
import pytest

from tests.lower.test_target import affine_kernel_ir, run_kernel, unique_name
from tjit.devices import disk_cache, kernel_cache
from tjit.devices.disk_cache import DiskCache, cache_key
from tjit.lower.llvm import codegen, target
from tjit.xla_like import kernel_ir as K

try:
    import resource
except ImportError:        # Windows
    resource = None

KEY = cache_key("kernel-abc")
PAYLOAD = bytes(range(256)) * 40


@pytest.fixture
def cache(tmp_path):
    return DiskCache(str(tmp_path / "c"))


def test_round_trip_and_miss(cache):
    assert cache.get(KEY) is None                # miss, folder created lazily
    assert cache.put(KEY, PAYLOAD)
    assert cache.get(KEY) == PAYLOAD
    assert cache.put(KEY, b"")                   # overwrite; empty payloads are fine
    assert cache.get(KEY) == b""
    assert not [f for f in os.listdir(cache.directory) if f.endswith(".tmp")]


def test_key_includes_host_and_version(monkeypatch):
    k = cache_key("h")
    assert len(k) == 64 and k == cache_key("h") and k != cache_key("h2")
    monkeypatch.setattr(disk_cache, "__version__", "999.0")
    assert cache_key("h") != k
    monkeypatch.undo()
    monkeypatch.setattr(disk_cache.target, "host_key", lambda: "other-cpu")
    assert cache_key("h") != k


def test_bad_key_is_rejected(cache):
    with pytest.raises(ValueError, match="64 lowercase hex digits.*cache_key"):
        cache.get("kernel-abc")


def _damage_and_read(cache, damage):
    cache.put(KEY, PAYLOAD)
    path = cache.path(KEY)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    with open(path, "wb") as f:
        f.write(damage(data))
    with pytest.warns(RuntimeWarning, match="will be recompiled") as rec:
        assert cache.get(KEY) is None
    assert path in str(rec[0].message)
    assert cache.put(KEY, PAYLOAD)               # the next put replaces it
    assert cache.get(KEY) == PAYLOAD


def _flip(i):
    def damage(d):
        d[i] ^= 0x01
        return bytes(d)
    return damage


@pytest.mark.parametrize("damage", [
    lambda d: bytes(d[:-10]),                    # truncated payload
    lambda d: bytes(d[:20]),                     # truncated header
    lambda d: bytes(d) + b"x",                   # appended
    _flip(-1),                                   # payload byte
    _flip(3),                                    # magic
    _flip(8),                                    # format version
    _flip(14),                                   # key
], ids=["trunc-payload", "trunc-header", "appended", "payload", "magic", "version", "key"])
def test_damaged_entry_warns_and_misses(cache, damage):
    _damage_and_read(cache, damage)


def test_entry_under_wrong_name_is_rejected(cache):
    other = cache_key("other")
    cache.put(other, PAYLOAD)
    os.replace(cache.path(other), cache.path(KEY))
    with pytest.warns(RuntimeWarning, match="different key"):
        assert cache.get(KEY) is None


def _worker(directory, seed, results, cache_cls=None):
    cache = (cache_cls or DiskCache)(directory)
    ok = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")       # any damaged read fails the worker
            for i in range(60):
                payload = bytes([seed]) * (1000 + 997 * ((seed + i) % 7))
                cache.put(KEY, payload)
                got = cache.get(KEY)
                # another writer may have won; what is read must be one whole payload
                ok &= (got is not None and len(set(got)) == 1
                       and len(got) % 997 == 1000 % 997)
    except Exception:  # noqa: BLE001  (any failure of a worker fails the test)
        ok = False
    results.put(ok)


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method (fast) is Linux's")
def test_concurrent_writers_and_readers(tmp_path):
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    directory = str(tmp_path / "shared")
    procs = [ctx.Process(target=_worker, args=(directory, s, results)) for s in range(4)]
    for p in procs:
        p.start()
    oks = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert oks == [True] * 4
    assert DiskCache(directory).get(KEY) is not None
    assert not [f for f in os.listdir(directory) if f.endswith(".tmp")]


def test_unusable_folder_warns_once_and_runs_without(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = DiskCache(str(blocker / "tjit"))
    with pytest.warns(RuntimeWarning, match="running without a disk cache"):
        assert cache.put(KEY, PAYLOAD) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # no second warning
        assert cache.get(KEY) is None
        assert cache.put(KEY, PAYLOAD) is False


def test_env_var_selects_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path / "env-cache"))
    assert disk_cache.default_cache_dir() == str(tmp_path / "env-cache")
    assert disk_cache.put(KEY, PAYLOAD)
    assert os.path.exists(tmp_path / "env-cache" / (KEY + ".tjo"))
    assert disk_cache.get(KEY) == PAYLOAD
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path / "second"))
    assert disk_cache.get(KEY) is None           # follows the variable as it changes


def test_platform_default_folder(monkeypatch):
    monkeypatch.delenv("TJIT_CACHE_DIR", raising=False)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
        assert disk_cache.default_cache_dir() == os.path.join("/x/cache", "tjit")
        monkeypatch.delenv("XDG_CACHE_HOME")
        assert disk_cache.default_cache_dir() == os.path.expanduser("~/.cache/tjit")
    monkeypatch.setattr(disk_cache.sys, "platform", "darwin")
    assert disk_cache.default_cache_dir() == os.path.expanduser("~/Library/Caches/tjit")
    monkeypatch.setattr(disk_cache.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local")
    assert disk_cache.default_cache_dir() == os.path.join(
        "C:\\Users\\u\\AppData\\Local", "tjit")


def test_compiled_object_through_the_cache(tmp_path):
    """The intended use: object code survives a trip through the disk cache."""
    name = unique_name("disk", 1.5, 0.25)
    text = affine_kernel_ir(name, 1.5, 0.25)
    cache = DiskCache(str(tmp_path))
    key = cache_key(name)
    cache.put(key, target.emit_object(text))
    addrs = target.load_object(cache.get(key), [name])
    x = np.arange(50, dtype=np.float32)
    np.testing.assert_array_equal(run_kernel(addrs[name], x), x * np.float32(1.5) + 0.25)


# ----------------------------------------------------------------------------------------
# Fault table: every way the folder or an entry can be wrong, each set up in a fresh folder,
# then one kernel compiled through the real path (kernel_cache -> disk_cache -> LLVM). The
# run must give the right values, finish (in a thread with a time-out: a FIFO that blocked
# open() fails the test instead of hanging it), read at most MAX_ENTRY_BYTES + 1 bytes,
# hit or recompile as the table says, warn as the table says (once), leave a valid entry
# behind when it could write one, and leave no temporary files.

BOUND = 1 << 16                  # MAX_ENTRY_BYTES in these tests
F32 = np.dtype("float32")
_SERIAL = itertools.count()


def fresh_kernel():
    """``(kernel, c)``: y = x * c + 1 with a ``c`` no other run of this process used, so the
    kernel is in no in-memory table and its disk entry decides."""
    c = float(np.float32(1 + 1 / 7 + next(_SERIAL) / 64))
    x = K.Load(0, K.Affine(0, (1,)), F32)
    y = K.Op("add", (K.Op("mul", (x, K.Const(c, F32)), F32), K.Const(1.0, F32)), F32)
    k = K.Kernel("disk_fault", (300,), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), y),))
    return k, c


def entry_key(k):
    return cache_key(K.kernel_hash(k) + kernel_cache.codegen_digest())


def valid_entry(k):
    """A good entry file's bytes for ``k`` (object code as kernel_cache stores it)."""
    name = kernel_cache.symbol_name(K.kernel_hash(k))
    obj = target.emit_object(codegen.kernel_to_llvm_ir(k, name))
    with tempfile.TemporaryDirectory() as d:
        scratch = DiskCache(d)
        scratch.put(entry_key(k), obj)
        with open(scratch.path(entry_key(k)), "rb") as f:
            return f.read()


def compile_run(k, c, release=(), timeout=30):
    """Compile ``k`` and check its values; the warnings it gave. ``release``: functions that
    free a run blocked by its fault (so that a regression fails this test and no other)."""
    box = {}

    def work():
        try:
            fn = kernel_cache.compile_kernel(k)
            x = np.arange(300, dtype=np.float32)
            y = np.full_like(x, -7.0)
            fn((ctypes.c_void_p * 2)(x.ctypes.data, y.ctypes.data),
               (ctypes.c_int64 * 1)(0), 0, 300)   # (the range of axis 0: all of it)
            np.testing.assert_allclose(y, x * np.float32(c) + 1, rtol=1e-6)
        except BaseException as e:  # noqa: BLE001  (re-raised in the test's thread)
            box["error"] = e

    with warnings.catch_warnings(record=True) as rec, memory_limit(1 << 30):
        warnings.simplefilter("always")
        t = threading.Thread(target=work, daemon=True)
        t.start()
        t.join(timeout)
        hung = t.is_alive()
        for free in release if hung else ():
            free()
        t.join(5)
    assert not hung, f"the compile run did not finish in {timeout} s (hung)"
    if "error" in box:
        raise box["error"]
    return [str(w.message) for w in rec]


@contextlib.contextmanager
def memory_limit(extra):
    """Linux: allocations beyond ``extra`` more bytes fail (MemoryError) instead of
    exhausting the machine, should a regression read an endless file."""
    try:
        with open("/proc/self/status") as f:
            used = next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmData:"))
    except (OSError, StopIteration):   # not Linux: no guard
        yield
        return
    old = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (used + extra, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, old)


def _under(path, folder):
    return isinstance(path, str) and os.path.abspath(path).startswith(folder + os.sep)


def fail_os_calls(patch, folder, at, err, path=None):
    """Make one kind of OS call on files under ``folder`` fail with ``err``, as the OS
    would: ``"create"`` (a read-only folder), ``"write"`` (a full disk), ``"replace"``
    (renaming into place not permitted), ``"read"`` (an unreadable ``path``). Root ignores
    file modes, so this is how a run as root (CI) meets these faults."""
    real_open, real_write, real_close, real_replace = os.open, os.write, os.close, os.replace
    created = set()

    def fail(p):
        raise OSError(err, os.strerror(err), p)

    def open_(p, flags, *args, **kw):
        if _under(p, folder) and flags & os.O_CREAT:
            if at == "create":
                fail(p)
            fd = real_open(p, flags, *args, **kw)
            created.add(fd)
            return fd
        if at == "read" and p == path:
            fail(p)
        return real_open(p, flags, *args, **kw)

    def write(fd, data):
        if at == "write" and fd in created:
            fail(None)
        return real_write(fd, data)

    def close(fd):
        created.discard(fd)
        return real_close(fd)

    def replace(src, dst, **kw):
        if at == "replace" and _under(dst, folder):
            fail(dst)
        return real_replace(src, dst, **kw)

    for name, fn in (("open", open_), ("write", write), ("close", close),
                     ("replace", replace)):
        patch.setattr(os, name, fn)


@dataclasses.dataclass
class Fault:
    """One test's folder, entry and faults (what a case's set-up function is given)."""
    tmp: pathlib.Path
    folder: str
    path: str            # the kernel's entry file
    entry: bytes         # a valid entry for the kernel
    patch: pytest.MonkeyPatch
    release: list = dataclasses.field(default_factory=list)   # see compile_run

    def write(self, data):
        os.makedirs(self.folder, exist_ok=True)
        with open(self.path, "wb") as f:
            f.write(data)

    def good(self):
        self.write(self.entry)


def _flip(data, i):
    d = bytearray(data)
    d[i] ^= 1
    return bytes(d)


def _relative_dir(f):
    f.patch.chdir(f.tmp)                # set before the folder is looked up ...
    f.good()
    f.patch.chdir(f.tmp / "elsewhere")  # ... so that a chdir afterwards must not move it


def _huge(f):
    f.good()
    os.truncate(f.path, 1 << 30)     # sparse: no disk used


def _size_lies(f):
    """The file grows after it was stat-ed: stats say 100 bytes, it holds BOUND + 1000."""
    f.write(f.entry + bytes(BOUND + 1000 - len(f.entry)))
    real_lstat, real_fstat = os.lstat, os.fstat

    def small(st):
        return os.stat_result(st[:6] + (100,) + st[7:])

    f.patch.setattr(os, "lstat", lambda p, **kw: small(real_lstat(p, **kw))
                 if p == f.path else real_lstat(p, **kw))
    f.patch.setattr(os, "fstat", lambda fd: small(real_fstat(fd)))


def _dir_with_files(f):
    os.makedirs(os.path.join(f.path, "inner"))


def _stale_temps(f):
    f.good()
    for name in (".0123456789abcdef-deadbeef.tmp", ".probe-x.tmp"):
        with open(os.path.join(f.folder, name), "wb") as g:
            g.write(b"half a write")


def _not_searchable(f):
    """Mode 0: no entry can be written or even looked up (injected: root ignores modes)."""
    f.good()
    fail_os_calls(f.patch, f.folder, "create", errno.EACCES)
    real_access = os.access
    f.patch.setattr(os, "access", lambda p, mode, **kw: False if p == f.folder
                    else real_access(p, mode, **kw))


def _fifo(f):
    os.makedirs(f.folder)
    os.mkfifo(f.path)
    # a reader blocked in open() is freed by a writer's open (EOF once it closes)
    f.release.append(lambda: os.close(os.open(f.path, os.O_WRONLY | os.O_NONBLOCK)))


def _outside_link(f):
    outside = f.tmp / "outside.tjo"
    outside.write_bytes(f.entry)     # even a good entry is not read through a link
    os.makedirs(f.folder)
    os.symlink(outside, f.path)


@dataclasses.dataclass
class Case:
    name: str
    setup: object                    # Fault -> None, applied before the run
    hit: bool                        # read from disk (else compiled)
    warns: tuple = ()                # one regex per expected warning, in order
    stored: bool = True              # a valid entry is in place afterwards (new or kept)
    folder: str = "cache"            # TJIT_CACHE_DIR, relative to tmp ("" : set empty)


NOT_REGULAR = "is invalid: it is {}.*not a regular file.*will be recompiled"
CASES = [
    Case("valid-entry", Fault.good, hit=True),
    Case("missing-folder", lambda f: None, hit=False, folder="a/b/cache"),
    Case("folder-is-a-file", lambda f: f.tmp.joinpath("cache").write_text("x"), hit=False,
         warns=("cannot use the kernel disk cache folder.*running without",), stored=False),
    Case("read-only-folder", lambda f: (f.good(), fail_os_calls(
        f.patch, f.folder, "create", errno.EROFS)), hit=True,
         warns=("folder .* is read-only .*reads the kernels stored there",)),
    Case("read-only-folder-miss", lambda f: (os.makedirs(f.folder), fail_os_calls(
        f.patch, f.folder, "create", errno.EROFS)), hit=False,
         warns=("is read-only",), stored=False),
    Case("folder-not-searchable", _not_searchable, hit=False,
         warns=("cannot use the kernel disk cache folder.*running without",)),
    Case("unreadable-entry", lambda f: (f.good(), fail_os_calls(
        f.patch, f.folder, "read", errno.EACCES, f.path)), hit=False,
         warns=("cannot be read .*Permission denied.*will be recompiled",)),
    Case("truncated-entry", lambda f: f.write(f.entry[:-100]), hit=False,
         warns=("truncated or appended",)),
    Case("truncated-header", lambda f: f.write(f.entry[:30]), hit=False,
         warns=("truncated .*30 bytes",)),
    Case("zero-length-entry", lambda f: f.write(b""), hit=False, warns=("truncated .*0 b",)),
    Case("corrupted-payload", lambda f: f.write(_flip(f.entry, -3)), hit=False,
         warns=("checksum mismatch",)),
    Case("bad-magic", lambda f: f.write(_flip(f.entry, 0)), hit=False, warns=("bad magic",)),
    Case("other-format-version", lambda f: f.write(_flip(f.entry, 9)), hit=False,
         warns=("format version",)),
    Case("other-key", lambda f: f.write(_flip(f.entry, 20)), hit=False,
         warns=("different key",)),
    Case("entry-is-empty-folder", lambda f: os.makedirs(f.path), hit=False,
         warns=(NOT_REGULAR.format("a folder"),)),
    Case("entry-is-folder-with-files", _dir_with_files, hit=False,
         warns=(NOT_REGULAR.format("a folder"), "was a folder .*moved it to")),
    Case("entry-is-fifo", _fifo, hit=False,
         warns=(NOT_REGULAR.format("a FIFO"),)),
    Case("symlink-to-dev-zero", lambda f: (os.makedirs(f.folder), os.symlink(
        "/dev/zero", f.path)), hit=False,
         warns=(NOT_REGULAR.format("a symbolic link to '/dev/zero'"),)),
    Case("symlink-dangling", lambda f: (os.makedirs(f.folder), os.symlink(
        "no-such-file", f.path)), hit=False, warns=(NOT_REGULAR.format("a symbolic link"),)),
    Case("symlink-loop", lambda f: (os.makedirs(f.folder), os.symlink(
        f.path, f.path)), hit=False, warns=(NOT_REGULAR.format("a symbolic link"),)),
    Case("symlink-outside-folder", _outside_link, hit=False,
         warns=(NOT_REGULAR.format("a symbolic link"),)),
    Case("huge-entry", _huge, hit=False, warns=("1073741824 bytes, over MAX_ENTRY_BYTES",)),
    Case("entry-grows-while-read", _size_lies, hit=False, warns=("over MAX_ENTRY_BYTES",)),
    Case("stale-temp-files", _stale_temps, hit=True),
    Case("disk-full", lambda f: (os.makedirs(f.folder), fail_os_calls(
        f.patch, f.folder, "write", errno.ENOSPC)), hit=False, stored=False,
         warns=("could not write .*No space left.*stores no more kernels",)),
    Case("write-permission-denied", lambda f: (os.makedirs(f.folder), fail_os_calls(
        f.patch, f.folder, "replace", errno.EACCES)), hit=False, stored=False,
         warns=("could not write .*Permission denied.*stores no more kernels",)),
    Case("non-ascii-folder", Fault.good, hit=True, folder="cache-ünïcødé-日本"),
    Case("env-empty-is-default", Fault.good, hit=True, folder=""),
    Case("env-relative", _relative_dir, hit=True, folder="rel-cache-{serial}"),
]


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, symlinks and /dev/zero: POSIX")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault(case, tmp_path, monkeypatch):
    monkeypatch.setattr(disk_cache, "MAX_ENTRY_BYTES", BOUND)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))                 # the default folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "elsewhere").mkdir()
    env = case.folder.format(serial=next(_SERIAL))
    monkeypatch.setenv("TJIT_CACHE_DIR", env if env.startswith("rel") or not env
                       else str(tmp_path / env))
    k, c = fresh_kernel()
    with monkeypatch.context() as patch:
        if env.startswith("rel"):
            patch.chdir(tmp_path)
        folder = disk_cache.default_cache_dir()                  # resolves a relative one
    assert folder.startswith(str(tmp_path))
    key = entry_key(k)
    before = dict(kernel_cache.STATS, read=disk_cache.STATS["bytes_read"])
    with monkeypatch.context() as patch:                         # faults end with the run
        f = Fault(tmp_path, folder, os.path.join(folder, key + ".tjo"), valid_entry(k), patch)
        case.setup(f)
        got = compile_run(k, c, f.release)
    hits = kernel_cache.STATS["disk_hits"] - before["disk_hits"]
    compiled = kernel_cache.STATS["compiled"] - before["compiled"]
    assert (hits, compiled) == ((1, 0) if case.hit else (0, 1))
    assert disk_cache.STATS["bytes_read"] - before["read"] <= BOUND + 1
    assert len(got) == len(case.warns), got
    for pattern, message in zip(case.warns, got):
        assert re.search(pattern, message), (pattern, message)
        assert folder in message                 # names the folder or the file
    assert _has_valid_entry(folder, key) == case.stored
    temps = [n for n in os.listdir(folder) if n.endswith(".tmp")] if os.path.isdir(folder) \
        else []
    assert len(temps) == (2 if case.name == "stale-temp-files" else 0), temps


def _has_valid_entry(folder, key):
    path = os.path.join(folder, key + ".tjo")
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DiskCache(folder).get(key) is not None


def _read_only_run(tmp_path, monkeypatch, make_read_only):
    """Two kernels, one stored, in a folder made read-only: the stored one is a hit, the
    other is compiled and not stored, and one warning says so for both."""
    folder = str(tmp_path / "ro")
    monkeypatch.setenv("TJIT_CACHE_DIR", folder)
    (k1, c1), (k2, c2) = fresh_kernel(), fresh_kernel()
    os.makedirs(folder)
    with open(os.path.join(folder, entry_key(k1) + ".tjo"), "wb") as f:
        f.write(valid_entry(k1))
    make_read_only(folder)
    before = dict(kernel_cache.STATS)
    got = compile_run(k1, c1) + compile_run(k2, c2)
    assert kernel_cache.STATS["disk_hits"] - before["disk_hits"] == 1
    assert kernel_cache.STATS["compiled"] - before["compiled"] == 1
    assert len(got) == 1 and re.search("folder .*ro' is read-only", got[0]), got
    assert os.listdir(folder) == [entry_key(k1) + ".tjo"]


def test_read_only_folder_is_read_and_warns_once(tmp_path, monkeypatch):
    _read_only_run(tmp_path, monkeypatch,
                   lambda d: fail_os_calls(monkeypatch, d, "create", errno.EROFS))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root may write to a chmod 555 folder; the test above injects the "
                           "failing writes instead, and runs as root too")
def test_read_only_folder_by_its_mode(tmp_path, monkeypatch):
    try:
        _read_only_run(tmp_path, monkeypatch, lambda d: os.chmod(d, 0o555))
    finally:
        os.chmod(tmp_path / "ro", 0o755)
