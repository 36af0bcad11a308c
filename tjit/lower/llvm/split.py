"""How the CPU backend splits a kernel across threads: which axis, and whether it pays.

The kernel IR states what a kernel computes, not how a machine divides the work; this
is the CPU's choice, derived from the kernel alone, so the code generator (which
renders a ``[start, end)`` range of the split axis) and the runtime (which hands
ranges to threads, ``devices/cpu.py``) agree without the IR carrying a hint.

The split axis is the first kept (non-reduced) axis, past kept axes of extent 1 (a
convolution's patch gather iterates (1, 1, batch, ...)): calls on disjoint ranges of it
then write disjoint outputs (the code generator rejects an accumulate-style store that
does not depend on it). Not split (run whole): a kernel with no kept axis, and one
confined to a hyperplane (``Kernel.hyperplane``) on that axis (its extent is 1).
"""

from tjit.xla_like import kernel_ir as K

#: Relative cost per evaluation of ops much dearer than an add (the polynomial math
#: functions, division, square roots), for :func:`work_per_point`.
OP_WEIGHTS = dict.fromkeys(K.TRANSCENDENTAL_OPS, 4)
OP_WEIGHTS.update(dict.fromkeys(("div", "rem", "sqrt", "rsqrt"), 1))


def split_axis(k):
    """The iteration axis of kernel ``k`` whose ``[start, end)`` range one call covers,
    or None (the kernel runs whole: the range is ``[0, 1)``)."""
    red = set(k.reduce_axes)
    kept = [a for a in range(len(k.shape)) if a not in red]
    if not kept or (k.hyperplane is not None and k.hyperplane[0] == kept[0]):
        return None
    if k.hyperplane is None:   # (leading axes of extent 1 leave nothing to split)
        wide = [a for a in kept if not (type(k.shape[a]) is int and k.shape[a] == 1)]
        # (only an axis every store depends on: disjoint ranges write disjoint elements)
        if wide and all(st.index.uses_axes((wide[0],)) for st in k.stores):
            return wide[0]
    return kept[0]


def work_per_point(k):
    """A rough cost of one point of ``k``'s iteration space, in units of a cheap
    elementwise point (a load, an add, a store): the runtime weighs it against the cost
    of splitting the kernel across threads."""
    return 1 + sum(OP_WEIGHTS.get(n.op, 0) for n in K.all_nodes(k) if isinstance(n, K.Op))
