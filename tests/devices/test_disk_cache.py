"""tjit.devices.disk_cache: round trips, damaged entries, concurrency, bad folders."""

import multiprocessing as mp
import os
import sys
import warnings

import numpy as np
import pytest

from tests.lower.test_target import affine_kernel_ir, run_kernel, unique_name
from tjit.devices import disk_cache
from tjit.devices.disk_cache import DiskCache, cache_key
from tjit.lower.llvm import target

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
    assert not os.path.exists(path)              # deleted, so the next put replaces it


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
