"""Compiled kernels, cached in memory and on disk.

A kernel is named by the hash of its IR (``kernel_ir.kernel_hash``), so equal kernels
from different programs share one compiled function. Lookup order: this process's
table, then the disk cache (object code keyed by IR hash + host CPU + tjit version),
then LLVM. A corrupted disk entry is reported by ``disk_cache`` and recompiled.
"""

import functools
import hashlib
import pathlib
import threading
import time

from tjit.devices import disk_cache
from tjit.devices.threads import as_kernel
from tjit.lower.llvm import target
from tjit.xla_like.kernel_ir import kernel_hash

_COMPILED = {}          # kernel hash -> ctypes function
_LOCK = threading.Lock()
#: Counters for tests and benchmarks.
STATS = {"compiled": 0, "disk_hits": 0, "memory_hits": 0, "compile_seconds": 0.0}


@functools.lru_cache(maxsize=None)
def codegen_digest():
    """Hash of the code generator's sources: a change to codegen invalidates disk entries
    even within one tjit version."""
    here = pathlib.Path(target.__file__).parent      # codegen's folder (not imported: the
    # code generator and llvmlite.ir load only when something is compiled)
    h = hashlib.sha256()
    for name in ("codegen.py", "codegen_ops.py", "mathlib.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def symbol_name(h):
    return "tjit_kernel_" + h[:24]


def compile_kernel(kernel):
    """The ctypes function for ``kernel`` (ABI: ``void f(void**, int64*, int64, int64)``)."""
    h = kernel_hash(kernel)
    fn = _COMPILED.get(h)
    if fn is not None:
        STATS["memory_hits"] += 1
        return fn
    with _LOCK:
        fn = _COMPILED.get(h)
        if fn is None:
            fn = _COMPILED[h] = as_kernel(_address(kernel, h))
    return fn


def _address(kernel, h):
    name = symbol_name(h)
    key = disk_cache.cache_key(h + codegen_digest())
    obj = disk_cache.get(key)
    if obj is not None:
        try:
            addr = target.load_object(obj, [name])[name]
            STATS["disk_hits"] += 1
            return addr
        except (ValueError, RuntimeError):
            pass  # unusable object: compile it again below
    from tjit.lower.llvm import codegen
    t0 = time.perf_counter()
    ir_text = codegen.kernel_to_llvm_ir(kernel, name)
    addrs, obj = target.compile_object(ir_text, [name])
    STATS["compiled"] += 1
    STATS["compile_seconds"] += time.perf_counter() - t0
    disk_cache.put(key, obj)
    return addrs[name]


def llvm_ir(kernel):
    """The LLVM IR text of ``kernel`` (for ``Compiled.as_text(llvm=True)``)."""
    from tjit.lower.llvm import codegen
    return codegen.kernel_to_llvm_ir(kernel, symbol_name(kernel_hash(kernel)))
