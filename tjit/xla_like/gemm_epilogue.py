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

Run-time scalars fold too, on targets whose runtime computes ``alpha`` per call
(``TargetInfo.gemm_runtime_alpha``): a factor that is a symbolic size used as a value
(``dot(a, b) / n`` with ``n = x.shape[0]``: a ``size`` op, read in the kernel as
``convert(index(n))``) or a 0-d array (``w - lr * dot(x, g)`` with ``lr`` an argument
or a computed scalar) multiplies ``alpha`` with its value, or divides it. The step
records them in ``DotStep.scale`` as ``(("size", expr) | ("value", value id), power)``;
a value's id is also one of the step's inputs (after ``X``), so it is live until the
gemm runs. Sizes are known when a runner binds its sizes; values are read at each
call (only in top-level programs: a loop body's gemms run inside the native loop
driver, which reads ``alpha`` from the plan). ``beta`` stays a constant. A run-time
factor of 0 or not finite (or an ``alpha`` that overflows the dtype) runs unfolded,
each factor applied where the program applies it (``DotStep.parts``: an operand's
factors scale the operand): BLAS skips the product when ``alpha`` is 0, which would drop
its NaNs, and ``(inf * a) @ b`` is NaN where ``inf * (a @ b)`` is not.

Scaled operands fold too: a kernel that only multiplies one array by finite non-zero
constants (``2 * x``, ``-x``, ``x / n``: one term of the same linear form), whose result
only a float dot reads, once, is dropped; the dot reads ``x`` and multiplies ``alpha``
by the factor. ``(c * A) @ B`` and ``c * (A @ B)`` are equal up to rounding (exactly
for powers of two), as XLA's algebraic simplifier also takes them to be.
"""

import dataclasses

import numpy as np

from tjit._sympy import sympy
from tjit.xla_like import kernel_ir as K

#: dtypes BLAS (and so the fold) handles on the CPU (``TargetInfo.gemm_dtypes``).
_BLAS_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def fold_gemm_epilogues(steps, values, outputs, donated, dot_step_type, kernel_step_type,
                        gemm_dtypes=_BLAS_DTYPES, runtime=frozenset()):
    """``steps`` with each foldable (dot, epilogue kernel) pair replaced by one dot step
    carrying ``alpha``/``beta`` and, when ``beta`` is used, ``X`` as a third input. It
    runs at the dot's place when ``X`` is ready there (a parameter, say), else at the
    kernel's. ``donated``: donated parameter ids. A dot with a donated operand of the
    output's type (``w - lr * (v @ w)``, ``(w @ v) * 2`` with ``w`` donated) is left
    alone: its epilogue kernel can write into ``w``'s buffer, the gemm cannot (it
    reads ``w`` while writing). ``gemm_dtypes``: the dtypes whose dots run as a gemm;
    ``runtime``: the kinds of run-time factors of ``alpha`` the runtime supports
    (``"size"``, ``"value"``; see the module docs). Scaled operands are folded first
    (:func:`fold_operand_scales`)."""
    steps = fold_operand_scales(steps, values, outputs, dot_step_type, kernel_step_type,
                                gemm_dtypes, runtime)
    readers = {}
    for s in steps:
        for v in s.ins:
            readers[v] = readers.get(v, 0) + 1
    # (a dot whose operands' scale is folded has alpha already: no beta term yet)
    dots = {s.outs[0]: s for s in steps if isinstance(s, dot_step_type) and s.x is None}
    outputs = set(outputs)
    pairs = []                      # (old dot, epilogue kernel, folded dot)
    for s in steps:
        terms = _linear_terms(s, values, runtime) if isinstance(s, kernel_step_type) else None
        for n, (d, alpha) in enumerate(terms or ()):
            dot = dots.get(d)
            if dot is None or d in outputs or readers[d] != 1 or \
                    values[d].dtype not in gemm_dtypes:
                continue
            others = terms[:n] + terms[n + 1:]
            o = values[s.outs[0]]
            if any(v in donated and values[v].dtype == o.dtype and
                   tuple(values[v].shape) == tuple(o.shape) for v in dot.ins[:2]) or \
                    any(coef.factors for _, coef in others):    # (beta: a constant)
                continue
            ins, beta = list(dot.ins[:2]), 0.0
            for x, coef in others:
                ins.append(x)
                beta = coef.c
            parts = dot.parts[:2] + (Coef(1.0, dot.parts[2]).times(alpha).factors,) \
                if dot.parts else ()
            alpha = alpha.times(Coef(dot.alpha, dot.scale))
            if not _fits(alpha, o.dtype) or others and not _fits(Coef(beta), o.dtype):
                continue
            pairs.append((dot, s, dot_step_type(
                dot.dimension_numbers, ins + scalar_ids(alpha.factors, parts), list(s.outs),
                alpha=alpha.c, beta=beta, scale=alpha.factors,
                origin=tuple(sorted(set(dot.origin) | set(s.origin))), parts=parts)))
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
                        gemm_dtypes=_BLAS_DTYPES, runtime=frozenset()):
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
                                        dropped, runtime)
        out.append(s)
    return [s for s in out if id(s) not in dropped] if dropped else steps


def _scaled_operands_folded(dot, made_by, readers, outputs, values, gemm_dtypes, dropped,
                            runtime=frozenset()):
    """``dot`` reading the unscaled arrays of its scaled operands (new step), else itself;
    adds the dropped kernels' ids to ``dropped``."""
    dtype = values[dot.outs[0]].dtype
    if dtype not in gemm_dtypes:
        return dot
    ins, alpha, origin = list(dot.ins[:2]), Coef(dot.alpha, dot.scale), set(dot.origin)
    parts = list(dot.parts) if dot.parts else [(), (), dot.scale]
    scaling = []    # the kernels whose scale is folded
    for n, v in enumerate(dot.ins[:2]):
        kernel = made_by.get(v)
        if kernel is None or id(kernel) in dropped or readers[v] != 1 or v in outputs or \
                values[v].dtype != dtype:
            continue
        terms = _linear_terms(kernel, values, runtime)
        if terms is None or len(terms) != 1:
            continue
        (x, c), = terms
        ins[n], alpha = x, alpha.times(c)
        parts[n] = Coef(1.0, parts[n]).times(Coef(1.0, c.factors)).factors
        origin.update(kernel.origin)
        scaling.append(kernel)
    if not scaling or not _fits(alpha, dtype):
        return dot
    dropped.update(id(k) for k in scaling)
    parts = tuple(parts) if parts[0] or parts[1] else ()   # (run-time operand factors)
    return type(dot)(dot.dimension_numbers, ins + scalar_ids(alpha.factors, parts),
                     list(dot.outs), alpha=alpha.c, beta=dot.beta, scale=alpha.factors,
                     origin=tuple(sorted(origin)), parts=parts)


def _linear_terms(step, values, runtime=frozenset()):
    """[(value, Coef)] (one or two terms) when ``step``'s kernel stores a linear
    combination of same-shaped inputs, read at the store's own element, over its single
    output; else None. Coefficients may hold the ``runtime`` kinds of factors, with a
    value factor named by its value id."""
    k = step.kernel
    if len(step.outs) != 1 or len(k.stores) != 1 or k.reduce_axes or k.stages or k.inplace:
        return None
    st, o = k.stores[0], step.outs[0]
    out = values[o]
    if not dense_bijection(st.index, k.shape, out.shape):
        return None
    scalars = frozenset(a for a, v in enumerate(step.ins) if _is_scalar(values[v])) \
        if "value" in runtime else frozenset()
    coefs = _coefficients(st.expr, st.index, out.dtype, scalars,
                          "size" in runtime)
    if not coefs or len(coefs) > 2:
        return None
    terms = [(step.ins[arg], c.named(step.ins)) for arg, c in coefs.items()]
    if len({v for v, _ in terms}) != len(terms):
        return None
    for v, _ in terms:
        if values[v].dtype != out.dtype or len(values[v].shape) != len(out.shape) or \
                not all(dims_equal(a, b) for a, b in zip(values[v].shape, out.shape)):
            return None
    return terms


def _fits(coef, dtype):
    """Whether ``coef``'s constant, rounded to ``dtype``, is finite and not 0, or it has
    run-time factors (the runner checks their product per call: DotStep.alpha_usable).
    Finite non-zero constants can multiply past the dtype: ``(x * 1e-30) @ (y * 1e-30)``
    in float32 is alpha 1e-60, which BLAS would get as 0."""
    if coef.factors:
        return True
    with np.errstate(over="ignore", under="ignore"):
        c = dtype.type(coef.c)
    return bool(np.isfinite(c)) and c != 0


def _is_scalar(value):
    return all(type(d) is int and d == 1 for d in value.shape)


def _coefficients(expr, index, dtype, scalars=frozenset(), sizes=False):
    """{argument: Coef} when ``expr`` is a linear combination of loads at ``index``
    (add, sub, neg, mul/div by scalars: finite non-zero constants, and loads of the
    0-d arguments ``scalars`` and converted size values when ``sizes``), else None."""
    memo = {}
    for node in K.walk(expr):
        memo[id(node)] = _term(node, memo, index, dtype, scalars, sizes)
        if memo[id(node)] is None and not isinstance(node, (K.Const, K.IndexValue)):
            return None
    out = memo[id(expr)]
    return out if isinstance(out, dict) else None


def _term(node, memo, index, dtype, scalars, sizes):
    """A dict {arg: Coef} for a linear node, a Coef for a usable scalar, else None."""
    if isinstance(node, K.Load):
        if np.dtype(node.dtype) != dtype:
            return None
        if node.index == index:
            return {node.arg: Coef(1.0)}
        if node.arg in scalars and _is_zero_map(node.index):
            return Coef(1.0, ((("arg", node.arg), 1),))
        return None
    if isinstance(node, K.Const):
        c = float(node.value) if np.dtype(node.dtype) == dtype else None
        return Coef(c) if c is not None and np.isfinite(c) and c != 0.0 else None
    if not isinstance(node, K.Op) or np.dtype(node.dtype) != dtype:
        return None
    if node.op == "convert" and sizes:   # a size used as a value: convert(index(n))
        (a,) = node.args
        if isinstance(a, K.IndexValue) and np.dtype(a.dtype).kind in "iu" and \
                all(dims_equal(c, 0) for c in a.index.coefs) and \
                not isinstance(a.index.offset, int):
            return Coef(1.0, ((("size", a.index.offset), 1),))
        return None
    args = [memo[id(a)] for a in node.args]
    if any(a is None for a in args):
        return None
    lin = [isinstance(a, dict) for a in args]
    if node.op == "neg":
        return _scale(args[0], Coef(-1.0)) if lin[0] else args[0].times(Coef(-1.0))
    if node.op in ("add", "sub") and all(lin):
        sign = 1.0 if node.op == "add" else -1.0
        out = dict(args[0])
        for arg, c in args[1].items():
            c = c.times(Coef(sign))
            out[arg] = out[arg].plus(c) if arg in out else c
        return None if any(c is None or c.c == 0.0 for c in out.values()) else out
    if node.op == "mul":
        a, b = args
        if lin == [True, False]:
            return _scale(a, b)
        if lin == [False, True]:
            return _scale(b, a)
        return a.times(b) if lin == [False, False] else None
    if node.op == "div" and not lin[1]:
        return _scale(args[0], args[1].inverse()) if lin[0] else \
            args[0].times(args[1].inverse())
    return None


def _is_zero_map(index):
    return dims_equal(index.offset, 0) and all(dims_equal(c, 0) for c in index.coefs)


def _scale(terms, c):
    return {arg: v.times(c) for arg, v in terms.items()}


@dataclasses.dataclass(frozen=True)
class Coef:
    """``c`` times the product of ``factors``: ``((kind, key), power)`` pairs, sorted,
    powers non-zero; kinds ``"size"`` (key: a size expression), ``"value"`` (key: a
    value id) and, inside one kernel, ``"arg"`` (key: its argument number)."""
    c: float
    factors: tuple = ()

    def times(self, other):
        powers = dict(self.factors)
        for key, p in other.factors:
            powers[key] = powers.get(key, 0) + p
        return Coef(self.c * other.c, _canonical(powers))

    def inverse(self):
        return Coef(1.0 / self.c, tuple((key, -p) for key, p in self.factors))

    def plus(self, other):
        """The sum, when both have the same factors (else None: not one coefficient)."""
        return Coef(self.c + other.c, self.factors) if self.factors == other.factors \
            else None

    def named(self, ins):
        """Argument factors named by the value ids ``ins`` gives them."""
        powers = {}
        for (kind, key), p in self.factors:
            name = ("value", ins[key]) if kind == "arg" else (kind, key)
            powers[name] = powers.get(name, 0) + p
        return Coef(self.c, _canonical(powers))


def _canonical(powers):
    return tuple(sorted(((k, p) for k, p in powers.items() if p != 0),
                        key=lambda kp: (kp[0][0], str(kp[0][1]))))


def scalar_ids(scale, parts=()):
    """The value ids of the value factors in ``scale`` and ``parts`` (``DotStep``'s), each
    once: the step's last inputs (after ``X``), so they are live until the gemm runs."""
    ids = []
    for factors in (scale,) + tuple(parts):
        for (kind, key), _ in factors:
            if kind == "value" and key not in ids:
                ids.append(key)
    return ids


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
