"""Compiled kernels, cached in memory and on disk.

A kernel is named by the hash of its IR (``kernel_ir.kernel_hash``), so equal kernels
from different programs share one compiled function; kernels of one compile that differ
only in the extent of their thread-split axis (a row count) share one compiled body,
each called through a wrapper of its own (``shared_kernels``). Lookup order: this process's
table, then the disk cache (object code keyed by IR hash + host CPU + tjit version),
then LLVM. A corrupted disk entry is reported by ``disk_cache`` and recompiled.

**Memory.** A compiled function (a ctypes function) holds its machine code
(``target.OwnedCode``, as the attribute ``code``): whoever calls it (an executable, a
running thread) keeps the code loaded, and the code is freed once no one holds the
function. The table finds every function still held by someone (weakly) and keeps
the ``CACHE_SIZE`` most recently used ones alive besides, so that re-creating a
discarded jitted function reuses its kernels; :func:`clear` drops those.
"""

import collections
import ctypes
import functools
import gc
import hashlib
import pathlib
import threading
import time
import weakref

from tjit import compile_log
from tjit.devices import disk_cache, shared_kernels
from tjit.devices.threads import KERNEL_FUNCTYPE, default_num_threads
from tjit.lower.llvm import target
from tjit.lower.llvm.profile import compile_profile, linked_math
from tjit.xla_like.kernel_ir import kernel_hash

#: Compiled kernels kept loaded beyond those in use, least recently used dropped first
#: (~10-40 KiB of machine code each).
CACHE_SIZE = 256

_LIVE = weakref.WeakValueDictionary()   # kernel hash -> ctypes function, while held
_RECENT = collections.OrderedDict()     # kernel hash -> ctypes function, LRU order
_BODIES = weakref.WeakValueDictionary() # shared key -> body (ctypes function), while a
#                                         wrapper (fn.body) or a compile holds it
_LOCK = threading.Lock()                # compiling (one at a time: LLVM's lock anyway)
_LRU_LOCK = threading.Lock()
#: Counters for tests and benchmarks.
STATS = {"compiled": 0, "disk_hits": 0, "memory_hits": 0, "compile_seconds": 0.0}


def codegen_sources():
    """The code generator's source files: every module of its folder (a named list missed
    modules added later: a kernel cached before a fix in mathlib_special kept its bits)."""
    here = pathlib.Path(target.__file__).parent      # codegen's folder (not imported: the
    # code generator and llvmlite.ir load only when something is compiled)
    return sorted(here.glob("*.py"))


@functools.lru_cache(maxsize=None)
def codegen_digest():
    """Hash of the code generator's sources: a change to codegen invalidates disk entries
    even within one tjit version."""
    h = hashlib.sha256()
    for path in codegen_sources():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def symbol_name(h):
    return "tjit_kernel_" + h[:24]


def compile_kernel(kernel, many_calls=False):
    """The ctypes function for ``kernel`` (ABI: ``void f(void**, int64*, int64, int64)``).
    Hold it while it may be called: its machine code is freed once no one does.
    ``many_calls``: the kernel belongs to a loop body, so it is built for speed
    (``profile.compile_profile``)."""
    profile = compile_profile(kernel, many_calls)
    h = _build_hash(kernel, profile)
    fn = _lookup(h)
    if fn is not None:
        STATS["memory_hits"] += 1
        return fn
    with _LOCK:
        fn = _lookup(h)
        if fn is None:
            name = symbol_name(h)
            code = _load(kernel, h, name, profile, True)
            fn = KERNEL_FUNCTYPE(code.addresses[name])
            fn.code = code      # (the code lives as long as the function)
            _LIVE[h] = fn
            _remember(h, fn)
    return fn


def compile_kernels(kernels, many_calls=False):
    """``{kernel name: ctypes function}`` for ``kernels`` (as :func:`compile_kernel` for
    each), those in neither this process's table nor the disk cache compiled at once on
    several threads (``lower/llvm/parallel.py``): a program's kernels are independent.
    Kernels that differ only in their split extent share a body (``shared_kernels``)."""
    builds = [(k, profile, _build_hash(k, profile))
              for k in kernels for profile in (compile_profile(k, many_calls),)]
    missing = {}
    for k, profile, h in builds:
        if h not in missing and _LIVE.get(h) is None:
            missing[h] = (k, profile)
    shared = shared_kernels.choose(missing, lambda key: _BODIES.get(key) is not None)
    # build id -> (kernel, profile, symbol, clamp_end): each kernel's own build, or a body
    todo = {h: (k, profile, symbol_name(h), True)
            for h, (k, profile) in missing.items() if h not in shared}
    for h, key in shared.items():
        if _body_id(key) not in todo and _BODIES.get(key) is None:
            todo[_body_id(key)] = missing[h] + (shared_kernels.body_symbol(key), False)
    if len(todo) > 1:
        _prebuild(todo)
    try:
        wrapped = _wrap({h: missing[h] + (key,) for h, key in shared.items()})
        return {k.name: wrapped.get(h) or compile_kernel(k, many_calls)
                for k, _, h in builds}
    finally:
        for i in todo:   # (one another thread loaded meanwhile is not needed)
            _PREBUILT.pop(i, None)


_PREBUILT = {}      # build id -> object code made by _prebuild, taken by _load


def _body_id(key):
    return "shared:" + key


def _prebuild(todo):
    """Object code for the builds of ``todo`` (build id -> (kernel, profile, symbol,
    clamp_end)) that the disk cache lacks, compiled at once and kept for :func:`_load`
    (and stored)."""
    from tjit.lower.llvm import codegen, parallel
    jobs = []
    for i, (k, profile, symbol, clamp_end) in todo.items():
        key = disk_cache.cache_key(i + codegen_digest())
        if disk_cache.get(key) is None:     # (read again by _load: entries are small)
            _load_math(k, profile)
            jobs.append((i, key, k, profile, symbol, clamp_end))
    if len(jobs) < 2:
        return
    t0 = time.perf_counter()
    with compile_log.stage("codegen"):
        irs = [(codegen.kernel_to_llvm_ir(k, symbol, profile, clamp_end), profile)
               for _, _, k, profile, symbol, clamp_end in jobs]
    with compile_log.stage("llvm"):
        objs = parallel.emit_objects(irs, default_num_threads())   # ($TJIT_NUM_THREADS)
    STATS["compile_seconds"] += time.perf_counter() - t0
    with _LOCK:
        for (i, key, *_), obj in zip(jobs, objs):
            _PREBUILT[i] = obj
            disk_cache.put(key, obj)


def _wrap(shared):
    """``{build hash: wrapper function}`` for ``shared`` (build hash -> (kernel, profile,
    shared key)): the bodies loaded (or compiled), the wrappers loaded from the disk
    cache or compiled as one module. A kernel beyond the first of its body counts as a
    memory hit."""
    if not shared:
        return {}
    with _LOCK:
        bodies, entries, fns = {}, [], {}
        for h, (k, profile, key) in shared.items():
            body = bodies.get(key) or _BODIES.get(key)
            if body is None:
                body = _load_body(k, profile, key)
            else:
                STATS["memory_hits"] += 1
            bodies[key] = body
            entries.append((h, shared_kernels.split_extent(k), key))
        ir_text, symbols = shared_kernels.wrappers_ir(entries)
        disk_key = disk_cache.cache_key(
            "wrappers:" + hashlib.sha256(ir_text.encode()).hexdigest() + codegen_digest())
        code, obj = None, disk_cache.get(disk_key)
        if obj is not None:
            try:
                code = target.load_owned(obj, symbols)
            except (ValueError, RuntimeError):
                pass    # unusable object: compile it again below
        if code is None:
            with compile_log.stage("llvm"):
                obj = target.emit_object(ir_text, "scalar")
            disk_cache.put(disk_key, obj)
            code = target.load_owned(obj, symbols)
        for (h, _, key), symbol in zip(entries, symbols):
            fn = fns[h] = KERNEL_FUNCTYPE(code.addresses[symbol])
            fn.code = code
            fn.body = bodies[key]     # (the body lives as long as its wrappers)
            _LIVE[h] = fn
            _remember(h, fn)
    return fns


_SLOTS = {}     # shared key -> ctypes cell holding its body's address (kept: 8 bytes each)


def _load_body(k, profile, key):
    """The body of ``key`` (built from kernel ``k``): loaded, its slot pointed at it."""
    from tjit.lower.llvm.binding import llvm
    name = shared_kernels.body_symbol(key)
    code = _load(k, _body_id(key), name, profile, False)
    body = KERNEL_FUNCTYPE(code.addresses[name])
    body.code = code
    _BODIES[key] = body
    slot = _SLOTS.get(key)
    if slot is None:
        slot = _SLOTS[key] = ctypes.c_void_p()
        llvm.add_symbol(shared_kernels.slot_symbol(key), ctypes.addressof(slot))
    slot.value = code.addresses[name]
    return body


def _build_hash(kernel, profile):
    """The name of ``kernel``'s build for ``profile``: its IR hash, or for a build other
    than its default one (a loop body's) a hash of both."""
    h = kernel_hash(kernel)
    if profile != compile_profile(kernel):
        h = hashlib.sha256(f"{h}:{profile}".encode()).hexdigest()
    return h


def _lookup(h):
    fn = _LIVE.get(h)
    if fn is not None:
        _remember(h, fn)
    return fn


def _remember(h, fn):
    with _LRU_LOCK:
        _RECENT[h] = fn
        _RECENT.move_to_end(h)
        while len(_RECENT) > CACHE_SIZE:
            _RECENT.popitem(last=False)   # freed when no executable holds it either


def clear():
    """Drop the kernels no one holds (their machine code is freed); the disk cache stays."""
    with _LRU_LOCK:
        _RECENT.clear()
    gc.collect()    # (programs are cyclic: their kernels die with a collection)
    target.release_unused()


def cached_count():
    """How many compiled kernels the table can find (held by someone or recent)."""
    return len(_LIVE)


def _load_math(kernel, profile):
    symbols = linked_math(kernel, profile)
    if symbols:     # math functions the code calls: loaded before it links
        from tjit.lower.llvm import mathlink
        with compile_log.stage("mathlib"):    # (once per process and function)
            mathlink.ensure_loaded(symbols, (_math_get, _math_put))


def _load(kernel, build_id, name, profile, clamp_end):
    """Machine code (``target.OwnedCode``) of one build: made by ``_prebuild``, from the
    disk cache, or compiled now."""
    key = disk_cache.cache_key(build_id + codegen_digest())
    _load_math(kernel, profile)
    obj = _PREBUILT.pop(build_id, None)
    if obj is not None:     # (compiled by _prebuild just now)
        code = target.load_owned(obj, [name])
        STATS["compiled"] += 1
        return code
    obj = disk_cache.get(key)
    if obj is not None:
        try:
            code = target.load_owned(obj, [name])
            STATS["disk_hits"] += 1
            return code
        except (ValueError, RuntimeError):
            pass  # unusable object: compile it again below
    from tjit.lower.llvm import codegen
    t0 = time.perf_counter()
    with compile_log.stage("codegen"):
        ir_text = codegen.kernel_to_llvm_ir(kernel, name, profile, clamp_end)
    with compile_log.stage("llvm"):
        obj = target.emit_object(ir_text, profile)
    code = target.load_owned(obj, [name])
    STATS["compiled"] += 1
    STATS["compile_seconds"] += time.perf_counter() - t0
    disk_cache.put(key, obj)
    return code


def _math_key(symbol):
    return disk_cache.cache_key("mathlib:" + symbol + codegen_digest())


def _math_get(symbol):
    return disk_cache.get(_math_key(symbol))


def _math_put(symbol, obj):
    disk_cache.put(_math_key(symbol), obj)


def llvm_ir(kernel, many_calls=False):
    """The LLVM IR text of ``kernel`` (for ``Compiled.as_text(llvm=True)``), built as
    :func:`compile_kernel` builds it."""
    from tjit.lower.llvm import codegen
    profile = compile_profile(kernel, many_calls)
    return codegen.kernel_to_llvm_ir(kernel, symbol_name(_build_hash(kernel, profile)),
                                     profile)
