"""Call tables: lists of kernel-ABI calls that native code runs in order.

An entry is 4 int64 words ``(fn, argv, sizes, end)`` and runs as ``fn(argv, sizes, 0,
end)``. The loop driver (``native_loop``) embeds the walker ``@run_calls`` in its own
module to run a body's calls per iteration; ``run_calls()`` is the same walker with the
kernel ABI (``args`` = a table, entries ``[start, end)``), so ``parallel_for`` can hand
whole entries to threads (``blas.GemmGroup``: one gemm per thread).
"""

import ctypes

from tjit.devices import disk_cache
from tjit.devices.lazy import Lazy
from tjit.devices.threads import as_kernel

WALKER_IR = r"""
; entries [start, end) of the call table %tab, each 4 words (fn, argv, sizes, end),
; run as fn(argv, sizes, 0, end)
define internal void @run_calls(ptr %tab, i64 %start, i64 %stop) {
entry:
  %any = icmp slt i64 %start, %stop
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ %start, %entry ], [ %i1, %loop ]
  %b0 = mul i64 %i, 4
  %p0 = getelementptr i64, ptr %tab, i64 %b0
  %fn = load ptr, ptr %p0
  %b1 = add i64 %b0, 1
  %p1 = getelementptr i64, ptr %tab, i64 %b1
  %argv = load ptr, ptr %p1
  %b2 = add i64 %b0, 2
  %p2 = getelementptr i64, ptr %tab, i64 %b2
  %sizes = load ptr, ptr %p2
  %b3 = add i64 %b0, 3
  %p3 = getelementptr i64, ptr %tab, i64 %b3
  %end = load i64, ptr %p3
  call void %fn(ptr %argv, ptr %sizes, i64 0, i64 %end)
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %stop
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""

_KERNEL_IR = WALKER_IR + r"""
define void @tjit_run_calls(ptr noalias %args, ptr noalias %sizes, i64 %start, i64 %end) {
entry:
  call void @run_calls(ptr %args, i64 %start, i64 %end)
  ret void
}
"""


def table(entries):
    """A call table (ctypes int64 array) of ``(fn, argv, sizes, end)`` address entries."""
    out = (ctypes.c_int64 * (4 * max(1, len(entries))))()
    for n, entry in enumerate(entries):
        out[4 * n:4 * n + 4] = list(entry)
    return out


def _load():
    addr = disk_cache.load_or_compile(_KERNEL_IR, ["tjit_run_calls"], "call-table",
                                      profile="control")   # (calls only: target.PROFILES)
    return as_kernel(addr["tjit_run_calls"])


_RUNNER = Lazy(_load)


def run_calls():
    """The walker with the kernel ABI: ``run_calls()(table, sizes, start, end)`` runs
    entries ``[start, end)`` of ``table`` (``sizes`` unused)."""
    return _RUNNER.get()
