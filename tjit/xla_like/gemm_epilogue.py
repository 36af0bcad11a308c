"""Linear epilogues folded into BLAS: ``beta * X + alpha * dot(A, B)`` as one gemm.

BLAS computes ``C = alpha * op(A) @ op(B) + beta * C``. A kernel whose only job is to
combine a dot's result linearly with one other array of the same shape,

    new_w = w - lr * dot(a, g)          (an SGD update)
    y = x + dot(h, w)                   (a residual connection)
    y = dot(a, b) / n                   (a scaled product)
    y = dot(2 * a, -b)                  (scaled operands: alpha = -2)

costs a full pass that reads the product and the other array and writes the result.
Folded, the gemm computes it in one go (tjit's own gemm reads ``X`` in its first K
slice; through BLAS, ``C`` starts as a copy of ``X`` made block by block in the gemm's
own threads, in place of the pass in which BLAS would zero ``C``): the product is never
written and read back. When ``X`` is a donated argument it is updated in its own buffer
(``plan.plan_donation``).

What folds: a kernel with exactly one store, no reductions, whose stored expression
is ``beta * X + alpha * D`` built from loads, ``add``, ``sub``, ``neg`` and
``mul``/``div`` by finite non-zero constants, where ``D`` is a float dot's output read
by nothing else (and not a program output), ``X`` (optional) has ``D``'s shape and
dtype, and all of them are read at the store's own element, which visits every element
of the output once. The result may differ from the unfolded kernel in the last bits
(BLAS applies ``alpha`` to its accumulator before the add), as with any reassociation
of a float sum.

Scaled operands fold too: a kernel that only multiplies one array by finite non-zero
constants (``2 * x``, ``-x``, ``x / n``: one term of the same linear form), whose result
only a float dot reads, once, is dropped; the dot reads ``x`` and multiplies ``alpha``
by the factor. ``(c * A) @ B`` and ``c * (A @ B)`` are equal up to rounding (exactly
for powers of two), as XLA's algebraic simplifier also takes them to be.
"""

import numpy as np

from tjit._sympy import sympy
from tjit.xla_like import kernel_ir as K

#: dtypes BLAS (and so the fold) handles on the CPU (``TargetInfo.gemm_dtypes``).
_BLAS_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def fold_gemm_epilogues(steps, values, outputs, donated, dot_step_type, kernel_step_type,
                        gemm_dtypes=_BLAS_DTYPES):
    """``steps`` with each foldable (dot, epilogue kernel) pair replaced by one dot step
    carrying ``alpha``/``beta`` and, when ``beta`` is used, ``X`` as a third input. It
    runs at the dot's place when ``X`` is ready there (a parameter, say), else at the
    kernel's. ``donated``: donated parameter ids. A dot with a donated operand of the
    output's type (``w - lr * (v @ w)``, ``(w @ v) * 2`` with ``w`` donated) is left
    alone: its epilogue kernel can write into ``w``'s buffer, the gemm cannot (it
    reads ``w`` while writing). ``gemm_dtypes``: the dtypes whose dots run as a gemm.
    Scaled operands are folded first (:func:`fold_operand_scales`)."""
    steps = fold_operand_scales(steps, values, outputs, dot_step_type, kernel_step_type,
                                gemm_dtypes)
    readers = {}
    for s in steps:
        for v in s.ins:
            readers[v] = readers.get(v, 0) + 1
    # (a dot whose operands' scale is folded has alpha already: no beta term yet)
    dots = {s.outs[0]: s for s in steps if isinstance(s, dot_step_type) and len(s.ins) == 2}
    outputs = set(outputs)
    pairs = []                      # (old dot, epilogue kernel, folded dot)
    for s in steps:
        terms = _linear_terms(s, values) if isinstance(s, kernel_step_type) else None
        for n, (d, alpha) in enumerate(terms or ()):
            dot = dots.get(d)
            if dot is None or d in outputs or readers[d] != 1 or \
                    values[d].dtype not in gemm_dtypes:
                continue
            others = terms[:n] + terms[n + 1:]
            o = values[s.outs[0]]
            if any(v in donated and values[v].dtype == o.dtype and
                   tuple(values[v].shape) == tuple(o.shape) for v in dot.ins):
                continue
            ins, beta = list(dot.ins), 0.0
            for x, coef in others:
                ins.append(x)
                beta = coef
            pairs.append((dot, s, dot_step_type(
                dot.dimension_numbers, ins, list(s.outs), alpha=alpha * dot.alpha, beta=beta,
                origin=tuple(sorted(set(dot.origin) | set(s.origin))))))
            break
    if not pairs:
        return steps
    at = {id(s): n for n, s in enumerate(steps)}
    made_at = {v: n for n, s in enumerate(steps) for v in s.outs if v is not None}
    put = {}                        # id(old step) -> its replacement, or None (dropped)
    for dot, kernel, new in pairs:   # (parameters and constants: made_at -1)
        early = all(made_at.get(v, -1) < at[id(dot)] for v in new.ins)
        put[id(dot)], put[id(kernel)] = (new, None) if early else (None, new)
    return [put.get(id(s), s) for s in steps if put.get(id(s), s) is not None]


def fold_operand_scales(steps, values, outputs, dot_step_type, kernel_step_type,
                        gemm_dtypes=_BLAS_DTYPES):
    """``steps`` where each dot operand made by a kernel that only scales one array
    (``c * x``, one linear term) reads ``x`` instead, with ``c`` folded into the dot's
    ``alpha``, and the scaling kernel dropped. Only when the dot is the scaled value's
    one reader (not a program output) and operand, product and output share a gemm
    dtype (the factor is applied in the output's dtype)."""
    made_by = {s.outs[0]: s for s in steps
               if isinstance(s, kernel_step_type) and len(s.outs) == 1}
    readers = {}
    for s in steps:
        for v in s.ins:
            readers[v] = readers.get(v, 0) + 1
    outputs, dropped, out = set(outputs), set(), []
    for s in steps:
        if isinstance(s, dot_step_type):
            s = _scaled_operands_folded(s, made_by, readers, outputs, values, gemm_dtypes,
                                        dropped)
        out.append(s)
    return [s for s in out if id(s) not in dropped] if dropped else steps


def _scaled_operands_folded(dot, made_by, readers, outputs, values, gemm_dtypes, dropped):
    """``dot`` reading the unscaled arrays of its scaled operands (new step), else itself;
    adds the dropped kernels' ids to ``dropped``."""
    dtype = values[dot.outs[0]].dtype
    if dtype not in gemm_dtypes:
        return dot
    ins, alpha, origin = list(dot.ins), dot.alpha, set(dot.origin)
    for n, v in enumerate(dot.ins[:2]):
        kernel = made_by.get(v)
        if kernel is None or id(kernel) in dropped or readers[v] != 1 or v in outputs or \
                values[v].dtype != dtype:
            continue
        terms = _linear_terms(kernel, values)
        if terms is None or len(terms) != 1:
            continue
        (x, c), = terms
        ins[n], alpha = x, alpha * c
        origin.update(kernel.origin)
        dropped.add(id(kernel))
    if ins == list(dot.ins):
        return dot
    return type(dot)(dot.dimension_numbers, ins, list(dot.outs), alpha=alpha, beta=dot.beta,
                     origin=tuple(sorted(origin)))


def _linear_terms(step, values):
    """[(value, coefficient)] (one or two terms) when ``step``'s kernel stores a linear
    combination of same-shaped inputs, read at the store's own element, over its single
    output; else None."""
    k = step.kernel
    if len(step.outs) != 1 or len(k.stores) != 1 or k.reduce_axes or k.stages or k.inplace:
        return None
    st, o = k.stores[0], step.outs[0]
    out = values[o]
    if not dense_bijection(st.index, k.shape, out.shape):
        return None
    coefs = _coefficients(st.expr, st.index, out.dtype)
    if not coefs or len(coefs) > 2:
        return None
    terms = [(step.ins[arg], c) for arg, c in coefs.items()]
    if len({v for v, _ in terms}) != len(terms):
        return None
    for v, _ in terms:
        if values[v].dtype != out.dtype or len(values[v].shape) != len(out.shape) or \
                not all(dims_equal(a, b) for a, b in zip(values[v].shape, out.shape)):
            return None
    return terms


def _coefficients(expr, index, dtype):
    """{argument: coefficient} when ``expr`` is a linear combination of loads at
    ``index`` (add, sub, neg, mul/div by finite non-zero constants), else None."""
    memo = {}
    for node in K.walk(expr):
        memo[id(node)] = _term(node, memo, index, dtype)
        if memo[id(node)] is None and not isinstance(node, K.Const):
            return None
    out = memo[id(expr)]
    return None if out is None or isinstance(out, float) else out


def _term(node, memo, index, dtype):
    """A dict {arg: coef} for a linear node, a float for a usable constant, else None."""
    if isinstance(node, K.Load):
        if node.index != index or np.dtype(node.dtype) != dtype:
            return None
        return {node.arg: 1.0}
    if isinstance(node, K.Const):
        c = float(node.value) if np.dtype(node.dtype) == dtype else None
        return c if c is not None and np.isfinite(c) and c != 0.0 else None
    if not isinstance(node, K.Op) or np.dtype(node.dtype) != dtype:
        return None
    args = [memo[id(a)] for a in node.args]
    if any(a is None for a in args):
        return None
    if node.op == "neg" and isinstance(args[0], dict):
        return _scale(args[0], -1.0)
    if node.op in ("add", "sub") and all(isinstance(a, dict) for a in args):
        sign = 1.0 if node.op == "add" else -1.0
        out = dict(args[0])
        for arg, c in args[1].items():
            out[arg] = out.get(arg, 0.0) + sign * c
        return None if any(c == 0.0 for c in out.values()) else out
    if node.op == "mul":
        a, b = args
        if isinstance(a, dict) and isinstance(b, float):
            return _scale(a, b)
        if isinstance(b, dict) and isinstance(a, float):
            return _scale(b, a)
    if node.op == "div" and isinstance(args[0], dict) and isinstance(args[1], float):
        return _scale(args[0], 1.0 / args[1])
    return None


def _scale(terms, c):
    return {arg: v * c for arg, v in terms.items()}


def dense_bijection(index, shape, out_shape):
    """True when ``index`` maps the iteration space one-to-one onto the row-major
    elements of ``out_shape`` (offset 0, strides of a dense C-order walk)."""
    if index.offset != 0:
        return False
    axes = [(c, n) for c, n in zip(index.coefs, shape) if not (c == 0 and n == 1)]
    if any(c == 0 for c, _ in axes):
        return False
    stride = 1
    for c, n in reversed(axes):
        if not dims_equal(c, stride):
            return False
        stride = stride * n
    total = 1
    for n in out_shape:
        total = total * n
    return dims_equal(stride, total)


def dims_equal(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return sympy.expand(sympy.sympify(a) - sympy.sympify(b)) == 0
