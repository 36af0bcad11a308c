"""Kernels that differ only in the extent of their thread-split axis: one compiled body,
and per kernel a wrapper that clamps the split range to its own extent.

A program often holds kernels that differ only in a row count: k-means' row sums of
the points (8192, 32) and of the centres (64, 32). Their LLVM IR differs only in the
clamp of the split range's end to that extent (``codegen.shared_ir_key``), yet each was
a full compile (~35 ms of LLVM CPU for that pair). Such kernels now share one body,
rendered without the clamp and cached like a kernel (in memory and on disk, under its
shared key), and each kernel is a wrapper of four instructions that clamps ``end``,
loads the body's address and jumps there. The wrappers of one compile are one small module (~2-6 ms of LLVM
CPU, stored on disk too): they read their body's address from a cell of the process
(``slot_symbol``), which the kernel cache sets whenever it loads that body.

Sharing is chosen where it pays (:func:`choose`): kernels of one compile that have the
same key, and a kernel whose body is already loaded. A lone kernel compiles as before.
The body runs the same instructions as the kernel's own build (the same IR but the
clamp): steady-state calls pay one jump more.
"""

import collections
import hashlib

from tjit.lower.llvm.split import split_axis


def body_symbol(key):
    """The exported name of the body shared under ``key``."""
    return "tjit_shared_" + key[:24]


def slot_symbol(key):
    """The name of the process-wide cell that holds the address of the body of ``key``:
    the wrappers read it on each call (so their code holds no address, and is stored on
    disk), the kernel cache sets it whenever it loads that body."""
    return "tjit_slot_" + key[:24]


def choose(candidates, body_loaded):
    """``{build hash: shared key}`` for the builds to serve from a shared body.

    Args:
      candidates: ``{build hash: (kernel, profile)}``, the builds not yet loaded.
      body_loaded: ``key -> bool``, whether the body of a key is loaded.
    """
    if not candidates:
        return {}     # (a program of library steps only: no need to import codegen)
    from tjit.lower.llvm import codegen
    keys = {}
    for h, (k, profile) in candidates.items():
        if profile == "vector":   # (the other profiles compile in a few ms: no gain)
            key = codegen.shared_ir_key(k, profile)
            if key is not None:
                keys[h] = key
    count = collections.Counter(keys.values())
    return {h: key for h, key in keys.items() if count[key] > 1 or body_loaded(key)}


def wrappers_ir(entries):
    """``(ir_text, symbols)``: one wrapper per ``(build hash, extent, key)`` of
    ``entries``, ``void symbol(args, sizes, start, end)``, which calls the body of
    ``key`` (its address read from ``slot_symbol(key)``) with ``min(end, extent)``
    (units of the split axis, as the body's). A symbol names its kernel and this set of
    wrappers: another set that wraps the same kernel is other code, so it needs other
    names while both may be loaded (``target.load_owned``)."""
    batch = hashlib.sha256(repr(list(entries)).encode()).hexdigest()[:8]
    symbols = [f"tjit_kwrap_{h[:20]}_{batch}" for h, _, _ in entries]
    slots = sorted({slot_symbol(key) for _, _, key in entries})
    out = [f"@{slot} = external global ptr" for slot in slots]
    for symbol, (_, extent, key) in zip(symbols, entries):
        out.append(f"""
define void @{symbol}(ptr %args, ptr %sizes, i64 %start, i64 %end) nounwind {{
entry:
  %over = icmp sgt i64 %end, {extent}
  %hi = select i1 %over, i64 {extent}, i64 %end
  %body = load ptr, ptr @{slot_symbol(key)}, align 8
  tail call void %body(ptr %args, ptr %sizes, i64 %start, i64 %hi)
  ret void
}}""")
    return "\n".join(out) + "\n", symbols


def split_extent(k):
    """The extent of kernel ``k``'s thread-split axis (an int where it shares a body)."""
    return k.shape[split_axis(k)]
