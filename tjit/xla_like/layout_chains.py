"""A chain of reshapes and transposes as one transpose between two reshapes.

Layout code written by transformation rules stacks these ops: vmap of a convolution's
weight gradient folds the batch into feature groups and out again
(``_reshape_axis_into`` / ``_reshape_axis_out_of``), the convolution's lowering splits
and permutes its gemm result, and the caller transposes once more. Each transpose whose
result a later reshape regroups is its own copy kernel (a kernel reads a regrouped
value by linear index). But such a chain moves whole blocks of elements: split every
dim into the "atoms" that the chain's reshapes cut it into, and the chain is a single
permutation of atoms. :func:`compose` finds it, so the chain costs at most one copy.
"""


class _Atoms:
    """Atom ids with their sizes; an atom split later is replaced by its parts."""

    def __init__(self):
        self.size = []
        self.parts = {}

    def new(self, n):
        self.size.append(n)
        return len(self.size) - 1

    def leaves(self, a):
        if a not in self.parts:
            return [a]
        return [leaf for p in self.parts[a] for leaf in self.leaves(p)]

    def flat(self, dims):
        return [leaf for d in dims for a in d for leaf in self.leaves(a)]


def _regroup(atoms, dims, shape):
    """``dims`` (atom lists) reshaped to ``shape``: the new dims' atom lists, splitting an
    atom where a new dim ends inside it; None when the sizes do not nest."""
    seq = atoms.flat(dims)
    out, pos = [], 0
    for want in shape:
        group = []
        while want > 1:
            if pos == len(seq):
                return None
            a = seq[pos]
            n = atoms.size[a]
            if n <= want:
                if want % n:
                    return None
                group.append(a)
                want //= n
                pos += 1
            else:
                if n % want:
                    return None
                major, minor = atoms.new(want), atoms.new(n // want)
                atoms.parts[a] = [major, minor]
                seq[pos] = minor
                group.append(major)
                want = 1
        out.append(group)
    return out if pos == len(seq) else None


def compose(x_shape, ops):
    """``(atom_shape, perm)``: the chain ``ops`` applied to an array of ``x_shape`` equals
    reshaping it to ``atom_shape``, transposing by ``perm`` and reshaping to the last
    op's shape. ``ops`` are ``("reshape", shape)`` or ``("transpose", perm)`` in order;
    concrete sizes only. Atoms adjacent in both orders are merged (the smallest rank).
    None when a reshape regroups across block boundaries the chain's transposes moved."""
    atoms = _Atoms()
    src = [[atoms.new(d)] if d != 1 else [] for d in x_shape]
    cur = [list(d) for d in src]
    for kind, arg in ops:
        if kind == "transpose":
            cur = [cur[p] for p in arg]
        else:
            cur = _regroup(atoms, cur, arg)
            if cur is None:
                return None
    order = atoms.flat(src)
    target = atoms.flat(cur)
    where = {a: k for k, a in enumerate(order)}
    perm = [where[a] for a in target]
    # merge runs that stay adjacent: x-order positions k, k + 1 next to each other in y
    runs = []
    for p in perm:
        if runs and runs[-1][-1] + 1 == p:
            runs[-1].append(p)
        else:
            runs.append([p])
    starts = sorted(r[0] for r in runs)
    rank = {s: k for k, s in enumerate(starts)}
    by_start = {r[0]: r for r in runs}
    atom_shape = []
    for s in starts:
        n = 1
        for p in by_start[s]:
            n *= atoms.size[order[p]]
        atom_shape.append(n)
    return tuple(atom_shape), tuple(rank[r[0]] for r in runs)
