"""Kernels that differ only in the extent of their thread-split axis: one compiled body,
and per kernel a wrapper that clamps the split range to its own extent.

A program often holds kernels that differ only in a row count: k-means' row sums of
the points (8192, 32) and of the centres (64, 32). Their LLVM IR differs only in the
clamp of the split range's end to that extent (``codegen.shared_ir_key``), yet each was
a full compile (~35 ms of LLVM CPU for that pair). Such kernels now share one body,
rendered without the clamp and cached like a kernel (in memory and on disk, under its
shared key), and each kernel is a wrapper of three instructions that clamps ``end`` and
jumps to the body. The wrappers of one compile are one small module (~1-2 ms of LLVM
CPU); they hold their body's address, so they are made per process, not stored.

Sharing is chosen where it pays (:func:`choose`): kernels of one compile that have the
same key, and a kernel whose body is already loaded. A lone kernel compiles as before.
The body runs the same instructions as the kernel's own build (the same IR but the
clamp): steady-state calls pay one jump more.
"""

import collections

from tjit.lower.llvm.split import split_axis


def body_symbol(key):
    """The exported name of the body shared under ``key``."""
    return "tjit_shared_" + key[:24]


def wrapper_symbol(build_hash, body_address):
    """The name of a kernel's wrapper: the kernel's build hash and its body's address (a
    body loaded again, at another address, gets wrappers of other names: a name is bound
    to one code while it is loaded, ``target.load_owned``)."""
    return f"tjit_kernel_{build_hash[:24]}_{body_address:x}"


def choose(candidates, body_loaded):
    """``{build hash: shared key}`` for the builds to serve from a shared body.

    Args:
      candidates: ``{build hash: (kernel, profile)}``, the builds not yet loaded.
      body_loaded: ``key -> bool``, whether the body of a key is loaded.
    """
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
    """LLVM IR of one wrapper per ``(symbol, extent, body address)`` of ``entries``:
    ``void symbol(args, sizes, start, end)`` calls the body with ``min(end, extent)``
    (the range is in units of the split axis, as the body's)."""
    out = []
    for symbol, extent, address in entries:
        out.append(f"""define void @{symbol}(ptr %args, ptr %sizes, i64 %start, i64 %end) nounwind {{
entry:
  %over = icmp sgt i64 %end, {extent}
  %hi = select i1 %over, i64 {extent}, i64 %end
  %body = inttoptr i64 {address} to ptr
  tail call void %body(ptr %args, ptr %sizes, i64 %start, i64 %hi)
  ret void
}}""")
    return "\n\n".join(out) + "\n"


def split_extent(k):
    """The extent of kernel ``k``'s thread-split axis (an int where it shares a body)."""
    return k.shape[split_axis(k)]
