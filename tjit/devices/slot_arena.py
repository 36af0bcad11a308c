"""One block of temporary memory shared by the runners of every size of a program.

A runner of a polymorphic program (``runner.ProgramRunner``) views its temporary slots
in memory it keeps between calls. With memory of its own per size binding, each new
size allocated fresh pages (an ``mmap``, then a page fault on every first touch) and
each dropped binding unmapped them: on the MLP of ``benchmarks/bench_dynamic_shapes.py``
that was about 0.45 ms of the ~1.1 ms a new batch size cost beyond a seen one. Runners of
one executable instead lay their slots out in one shared :class:`SlotArena`, grown (to
twice its size) only when a larger binding needs more, so a new size mostly reuses warm
pages, and a binding kept in the cache costs no temporaries.

Sharing needs exclusion: a call holds the arena's lock while it runs (taken without
waiting); a call that finds it held, another thread running another size, runs on a
runner with memory of its own instead (``CpuExecutable._run``).
"""

import threading

import numpy as np

#: Slot offsets and the arena start are aligned to this many bytes (a cache line, and
#: AVX-512's widest load).
ALIGN = 64


def aligned(nbytes):
    return -(-nbytes // ALIGN) * ALIGN


class SlotArena:
    """``capacity`` bytes, 64-byte aligned, and the lock a call holds while using them."""

    __slots__ = ("address", "buffer", "capacity", "lock")

    def __init__(self, capacity):
        raw = np.empty(capacity + ALIGN, np.uint8)
        start = -raw.ctypes.data % ALIGN
        self.buffer = raw[start:start + capacity]
        self.address = raw.ctypes.data + start     # (of buffer[0])
        self.capacity = capacity
        self.lock = threading.Lock()

    def carve(self, sizes):
        """Views of the arena for slots of ``sizes`` bytes, laid out in order."""
        return self.carve_at(sizes)[0]

    def carve_at(self, sizes):
        """(views, their addresses) of the arena for slots of ``sizes`` bytes, laid out
        in order (a re-bound runner writes the addresses into its kernels' argument
        arrays without asking the views)."""
        views, addresses, at, buf, base = [], [], 0, self.buffer, self.address
        for n in sizes:
            views.append(buf[at:at + n])
            addresses.append(base + at)
            at += -(-n // ALIGN) * ALIGN
        return views, addresses


class SharedSlots:
    """The arena an executable's runners share; :meth:`arena_for` grows it on demand
    (runners built on a smaller, older arena keep it alive and keep using it)."""

    def __init__(self):
        self._arena = None
        self._lock = threading.Lock()

    def arena_for(self, sizes):
        """The shared arena, large enough for slots of ``sizes`` bytes."""
        need = 0
        for n in sizes:
            need += -(-n // ALIGN) * ALIGN      # (aligned(n), inline)
        with self._lock:
            arena = self._arena
            if arena is None or arena.capacity < need:
                grown = 2 * arena.capacity if arena is not None else 0
                arena = self._arena = SlotArena(max(need, grown))
            return arena
