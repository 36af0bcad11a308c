"""The counter-based PRNG hash behind ``tjit.random``: Threefry-2x32 with 20 rounds
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11; the Random123
``threefry2x32_20`` function), the same hash as JAX's default ``threefry2x32`` PRNG.

``threefry2x32_p`` maps a key pair ``(key1, key2)`` and a counter pair ``(x1, x2)`` to
two uint32 words. All four inputs are uint32; as with elementwise ops, each is either
rank-0 or has the common shape of the rest. The arithmetic is modulo 2**32.

:func:`threefry2x32_rounds` is the hash written only with ``+ ^ | << >>`` on uint32
values, so it runs on NumPy/CuPy arrays (the reference impl) and equally on tjit arrays
or tracers: a compiler that has no special kernel for the hash can lower the primitive
by tracing this function into elementwise uint32 ops (as JAX's lowering does).
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import never_weak
from tjit.primitives.base import new_primitive, same_shapes
from tjit.primitives.rules import defbroadcasting

# Rotation constants of Threefry-2x32 (Random123's R_32x2_*), used in groups of four.
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
# Key-schedule parity constant of Threefish/Threefry for 32-bit words.
KS_PARITY = 0x1BD11BDA


def _u32(v):
    return np.uint32(v)


def _rotate_left(x, r):
    return (x << _u32(r)) | (x >> _u32(32 - r))


def threefry2x32_rounds(key1, key2, x1, x2):
    """Threefry-2x32-20 on uint32 values (arrays, scalars, or tjit arrays/tracers).

    Twenty rounds in five groups of four; after each group a key word pair from the
    rotating schedule ``(key1, key2, key1 ^ key2 ^ KS_PARITY)`` plus the group number is
    injected, as in Random123 and JAX's ``_threefry2x32_lowering``.
    """
    ks = (key1, key2, key1 ^ key2 ^ _u32(KS_PARITY))
    x1 = x1 + ks[0]
    x2 = x2 + ks[1]
    for group in range(5):
        for r in ROTATIONS[group % 2]:
            x1 = x1 + x2
            x2 = _rotate_left(x2, r) ^ x1
        x1 = x1 + ks[(group + 1) % 3]
        x2 = x2 + ks[(group + 2) % 3] + _u32(group + 1)
    return x1, x2


threefry2x32_p = new_primitive("threefry2x32", multiple_results=True)
# Integer-valued bits have no derivative (JAX's threefry2x32 has no jvp either).
threefry2x32_p.not_differentiable = True


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract(key1, key2, x1, x2):
    avals = (key1, key2, x1, x2)
    names = ("key1", "key2", "x1", "x2")
    for a, nm in zip(avals, names):
        if a.dtype != dtypes.uint32:
            raise TypeError(
                f"threefry2x32: {nm} must have dtype uint32, got {a.str_short()} "
                f"(all inputs: {', '.join(x.str_short() for x in avals)}); convert with "
                f"lax.convert_element_type(x, jnp.uint32)")
    shape = same_shapes("threefry2x32", avals)
    return [ShapedArray(shape, dtypes.uint32), ShapedArray(shape, dtypes.uint32)]


@threefry2x32_p.def_impl
def _threefry2x32_impl(xp, key1, key2, x1, x2):
    vals = [xp.asarray(v, dtype=np.uint32) for v in (key1, key2, x1, x2)]
    shape = next((v.shape for v in vals if v.ndim), ())
    # Work on arrays of at least one element so NumPy wraps silently (scalar uint32
    # overflow would warn); broadcast rank-0 inputs to the common shape.
    vals = [xp.broadcast_to(v, shape).reshape(-1) if shape else v.reshape(1) for v in vals]
    with np.errstate(over="ignore"):
        o1, o2 = threefry2x32_rounds(*vals)
    return [xp.ascontiguousarray(o1, dtype=np.uint32).reshape(shape),
            xp.ascontiguousarray(o2, dtype=np.uint32).reshape(shape)]


class _HloWord:
    """A uint32 HLO value with the operators :func:`threefry2x32_rounds` uses, each
    adding one elementwise op to the builder ``ctx`` (rank-0 operands broadcast)."""
    __slots__ = ("ctx", "instr")

    def __init__(self, ctx, instr):
        self.ctx, self.instr = ctx, instr

    def _op(self, name, other):
        if not isinstance(other, _HloWord):
            other = _HloWord(self.ctx, self.ctx.constant(np.uint32(other)))
        return _HloWord(self.ctx, self.ctx.elementwise(name, [self.instr, other.instr]))

    def __add__(self, other):
        return self._op("add", other)

    def __xor__(self, other):
        return self._op("xor", other)

    def __or__(self, other):
        return self._op("or", other)

    def __lshift__(self, other):
        return self._op("shift_left", other)

    def __rshift__(self, other):    # uint32: logical shift, as NumPy's >> on uint32
        return self._op("shift_right_logical", other)


def _threefry2x32_lowering(ctx, key1, key2, x1, x2):
    """The hash as 20 rounds of uint32 add/rotate/xor HLO ops (XLA's expansion), so that
    it fuses with the counters before it and the bit manipulation after it; rank-0 words
    broadcast to the common shape (the outputs always have it)."""
    shape = max((key1.shape, key2.shape, x1.shape, x2.shape), key=len)
    words = [_HloWord(ctx, w) for w in (key1, key2, x1, x2)]
    o1, o2 = threefry2x32_rounds(*words)
    return [ctx.broadcast(o.instr, shape) for o in (o1, o2)]


threefry2x32_p.def_weak_type(never_weak)
# Batching: like an elementwise op over its four inputs (rank-0 inputs broadcast). No
# jvp (see not_differentiable above).
defbroadcasting(threefry2x32_p)
threefry2x32_p.lowering = _threefry2x32_lowering

__all__ = ["threefry2x32_p", "threefry2x32_rounds", "ROTATIONS", "KS_PARITY"]
