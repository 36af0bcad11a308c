"""Reshape copies dropped: a kernel writes its value straight into the reshaped buffer.

A reshape that merges dims cannot be inlined into a kernel that iterates over the
result (the operand's index would be a division of the result's), so fusion
materializes the operand and a second kernel copies it into the reshaped value's
buffer. Where that copy feeds a library call that needs a buffer (a dot: im2col
patches or a convolution's transposed kernel reshaped to a matrix), the plan had

    %a = kernel (transpose, gather, ...)      writes a's buffer in row-major order
    %b = kernel copy(%a)                      b[i] = a[i], the same bytes
    %c = dot(%b, ...)

A kernel stores at row-major linear offsets, which do not depend on the shape the
buffer is viewed with, so the first kernel can write ``%b`` directly and the copy goes.
A gemm likewise writes its product through a pointer (the runtimes' NumPy fallbacks
reshape the product to the output's shape), so a dot's product copied for the next dot
(attention's ``(B*T, D) -> (B, T, H, d)``) is written as the copy's value. That holds
when ``%a`` is a temporary that the copy alone reads, written by a kernel or a dot (a
library or control step makes arrays of ``%a``'s shape), and the copy reads every
element of ``%a`` once, in order, into ``%b`` of the same dtype and element count.

A copy of a program argument (``x.reshape(-1, d) @ w`` with ``x`` an argument, a
convolution's weight reshaped to a matrix) has no kernel to redirect: on targets whose
runtime views arrays (``TargetInfo.param_views``: the CPU's NumPy arrays), the copied
value becomes a *view* of the argument (``Value.kind == "view"``, ``Program.views``),
which the runner makes per call with a reshape of the argument's C-contiguous array
(no data moves). Not for donated arguments (an output may take over their buffer
while the view is still to be read), nor inside loop bodies (native loops pass
buffers, not arrays).
"""

import dataclasses

from tjit.tracing.shapes import size
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.gemm_epilogue import dense_bijection, dims_equal


def drop_reshape_copies(steps, values, outputs, kernel_step_type, dot_step_type):
    """``steps`` with each droppable copy removed and the kernel or gemm that made its
    source writing the copy's value instead (new step objects for the changed ones; see
    the module docs). ``values``: id -> ``plan.Value``; ``outputs``: the program's
    output ids."""
    made_by, readers = {}, {}
    for s in steps:
        for v in s.ins:
            readers[v] = readers.get(v, 0) + 1
        for v in s.outs:
            made_by[v] = s
    outputs = set(outputs)
    renamed = {}        # id(producer) -> its step with renamed outputs
    dropped = set()
    for s in steps:
        if not isinstance(s, kernel_step_type) or not _is_copy(s, values):
            continue
        (src,), (dst,) = s.ins, s.outs
        producer = made_by.get(src)
        if not isinstance(producer, (kernel_step_type, dot_step_type)) or \
                readers[src] != 1 or src in outputs or values[src].kind != "temp":
            continue
        base = renamed.get(id(producer), producer)
        renamed[id(producer)] = dataclasses.replace(
            base, outs=[dst if v == src else v for v in base.outs],
            origin=tuple(sorted(set(base.origin) | set(s.origin))))
        made_by[dst] = producer
        dropped.add(id(s))
    if not dropped:
        return steps
    return [renamed.get(id(s), s) for s in steps if id(s) not in dropped]


def _is_copy(step, values):
    """Whether the kernel step only copies its one input's elements, in row-major order,
    into its one output of the same dtype and element count."""
    k = step.kernel
    if len(step.ins) != 1 or len(step.outs) != 1 or len(k.stores) != 1 or k.reduce_axes \
            or k.stages or k.inplace or k.hyperplane is not None:
        return False
    st = k.stores[0]
    e = st.expr
    src, dst = values[step.ins[0]], values[step.outs[0]]
    return type(e) is K.Load and e.index == st.index and \
        src.dtype == dst.dtype and dims_equal(size(src.shape), size(dst.shape)) and \
        dense_bijection(st.index, k.shape, dst.shape)


def view_argument_reshapes(steps, values, params, donated, outputs, kernel_step_type):
    """``(steps, views)``: each copy of a (not donated) argument into a temporary
    dropped, and ``views`` {copied value: argument} for the runtime; the copied values'
    kind becomes ``"view"``."""
    params, donated, outputs = set(params), set(donated), set(outputs)
    views = {}
    for s in steps:
        if isinstance(s, kernel_step_type) and _is_copy(s, values):
            (src,), (dst,) = s.ins, s.outs
            if src in params and src not in donated and dst not in outputs and \
                    values[dst].kind == "temp":
                views[dst] = src
    if not views:
        return steps, views
    for dst in views:
        values[dst].kind = "view"
    return [s for s in steps if not (isinstance(s, kernel_step_type) and
                                     s.outs and s.outs[0] in views)], views
