"""Backend-neutral kernel IR: what one fused kernel computes.

A :class:`Kernel` is a loop nest over an iteration space ``shape`` (dims are ints or
sympy expressions over size symbols, which the kernel receives at run time), a list of
buffer arguments, reduction ``stages`` over the ``reduce_axes`` and ``stores``. Values
are a DAG of scalar expression nodes; loads and stores address buffers through
:class:`Affine` maps of the iteration indices (broadcast = coefficient 0, transpose =
permuted coefficients, slice = offset + step, contiguous reshape = linear index).

Two loop styles, fixed by ``reduce_axes``:

* **Row style** (``reduce_axes`` is a suffix of the axes, possibly empty). For each
  point ``o`` of the outer axes: every stage ``k`` folds ``stage.expr`` over the inner
  axes with its monoid (an expression may use earlier stages through ``Stage(j)``, so
  softmax and layernorm are one kernel); then ``outer`` stores run once, and ``inner``
  stores run at every inner point. With no reduce axes, the whole space is "outer" and
  every store is run once per point (an elementwise kernel).
* **Accumulate style** (``reduce_axes`` not a suffix: column sums). Every store is
  ``Stage(k)`` written to an output that starts at the monoid's identity and is updated
  in iteration order, so the innermost (kept) axis stays contiguous and vectorizes.
  Stages may not refer to each other.

How a backend divides the space among threads or GPU blocks is its own choice, made
from ``shape`` and ``reduce_axes`` (the CPU's: ``lower/llvm/split.py``); the IR carries
no such hint, so a kernel's text and hash are the same for every backend. Every
backend renders the same IR; the
NumPy evaluator here is the executable definition of its semantics, with the ops'
and monoids' meaning stated in ``kernel_semantics.py``.
"""

import dataclasses
import hashlib
from typing import Optional

import numpy as np

from tjit.xla_like import kernel_semantics

# ----------------------------------------------------------------------------------------
# Elementwise operation vocabulary (shared with the HLO graph).

#: name -> (arity, operand kind). Kinds: "float" (inexact only), "number" (int or
#: float), "int" (integers), "intbool" (integers or bool), "any" (incl. bool).
UNARY_OPS = {
    "neg": "number", "abs": "number", "sign": "number",
    "floor": "float", "ceil": "float", "round": "float", "round_even": "float",
    "exp": "float", "exp2": "float", "expm1": "float", "log": "float", "log1p": "float",
    "tanh": "float", "logistic": "float", "sin": "float", "cos": "float", "tan": "float",
    "erf": "float", "sqrt": "float", "rsqrt": "float", "cbrt": "float",
    "asin": "float", "acos": "float", "atan": "float", "sinh": "float", "cosh": "float",
    "asinh": "float", "acosh": "float", "atanh": "float",
    "erfc": "float", "lgamma": "float", "digamma": "float",
    "is_finite": "float", "not": "intbool", "population_count": "int",
}
BINARY_OPS = {
    "add": "number", "sub": "number", "mul": "number", "div": "number", "rem": "number",
    "pow": "float", "max": "any", "min": "any", "atan2": "float", "nextafter": "float",
    "and": "intbool", "or": "intbool", "xor": "intbool",
    "shift_left": "int", "shift_right_arithmetic": "int", "shift_right_logical": "int",
    "eq": "any", "ne": "any", "lt": "any", "le": "any", "gt": "any", "ge": "any",
}
COMPARE_OPS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
#: select(pred, on_true, on_false); convert(x) takes its target from the node's dtype;
#: bitcast(x) reinterprets x's bits as the node's dtype, of the same width (not bool);
#: fma(a, b, c) is a * b + c rounded once, on float32 or float64 operands of one dtype.
OTHER_OPS = {"select": 3, "convert": 1, "bitcast": 1, "fma": 3}
MONOIDS = ("sum", "prod", "max", "min", "and", "or")
#: The ops a backend computes with math functions (within an ulp bound, not exactly):
#: renderers map them to their math library, cost models weigh them.
TRANSCENDENTAL_OPS = frozenset({"exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic",
                                "sin", "cos", "tan", "erf", "pow", "atan2", "cbrt",
                                "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                                "atanh", "erfc", "lgamma", "digamma"})


def op_arity(name):
    if name in UNARY_OPS:
        return 1
    if name in BINARY_OPS:
        return 2
    if name in OTHER_OPS:
        return OTHER_OPS[name]
    raise KeyError(f"kernel IR: unknown elementwise op {name!r}")


# ----------------------------------------------------------------------------------------
# Index maps and expression nodes.

@dataclasses.dataclass(frozen=True)
class Affine:
    """``offset + sum(coefs[a] * index[a])`` over the kernel's iteration axes."""
    offset: object          # int or sympy expr
    coefs: tuple            # one int/sympy coefficient per iteration axis

    def uses_axes(self, axes):
        return any(not _is_zero(self.coefs[a]) for a in axes)


@dataclasses.dataclass(frozen=True)
class Load:
    """Element ``index`` (in elements, not bytes) of buffer argument ``arg``."""
    arg: int
    index: Affine
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class IndexedLoad:
    """A gather along one axis: element ``index + i * stride`` of buffer ``arg``, where
    ``i`` is the integer expression ``offset`` clamped into ``[0, size)`` (the indexed
    axis has ``size`` elements of ``stride``). With ``fill`` set (not None), a point whose
    ``offset`` is out of range gets ``fill`` instead (lax.gather's clip / fill modes)."""
    arg: int
    index: Affine
    offset: object          # integer expression node
    stride: object          # int or sympy expr
    size: object            # int or sympy expr
    fill: object            # None, or a Python scalar of ``dtype``
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Const:
    value: object           # Python scalar
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class IndexValue:
    """The integer value of an affine function of the iteration indices (iota)."""
    index: Affine
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Op:
    op: str
    args: tuple
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Stage:
    """Result of reduction stage ``k`` at the current outer point."""
    k: int
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Reduction:
    expr: object
    monoid: str
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Store:
    arg: int
    index: Affine
    expr: object
    level: str = "inner"    # "inner" or "outer" (see the module docstring)


@dataclasses.dataclass(frozen=True)
class Arg:
    dtype: np.dtype
    role: str               # "in" or "out"


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    shape: tuple
    args: tuple
    stages: tuple = ()
    stores: tuple = ()
    reduce_axes: tuple = ()
    size_symbols: tuple = ()          # names, in the order the sizes argument holds them
    #: ``(in_arg, out_arg)`` pairs of an in-place update: ``out_arg``'s buffer holds
    #: ``in_arg``'s data on entry (a donated input), and the kernel reads those values
    #: by loading from ``out_arg`` (``in_arg`` is not accessed). See ``plan.py``.
    inplace: tuple = ()
    #: ``(axis, offset, size)``: the kernel runs only on the hyperplane where iteration
    #: axis ``axis`` (extent 1 in ``shape``) has the value of the loop-invariant integer
    #: expression ``offset``, and does nothing when that is outside ``[0, size)``. An
    #: in-place update of one row (``x.at[i].set(v)`` on a donated ``x``): O(row)
    #: instead of a masked pass over all of ``x`` (see ``plan.py``).
    hyperplane: Optional[tuple] = None

    @property
    def row_style(self):
        n, r = len(self.shape), len(self.reduce_axes)
        return tuple(self.reduce_axes) == tuple(range(n - r, n))

    @property
    def n_outer(self):
        return len(self.shape) - len(self.reduce_axes) if self.row_style else None


def _is_zero(d):
    return d == 0


def walk(node, seen=None):
    """Post-order, each node once."""
    seen = set() if seen is None else seen
    out = []
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if done:
            out.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        if isinstance(n, Op):
            stack.extend((a, False) for a in reversed(n.args))
        elif isinstance(n, IndexedLoad):
            stack.append((n.offset, False))
    return out


def is_loop_invariant_int(expr):
    """An integer expression that reads no iteration index (scalars and constants):
    the same value at every point of a kernel."""
    if np.dtype(expr.dtype).kind not in "iu":
        return False
    return not any(isinstance(n, Stage) or (
        isinstance(n, (Load, IndexedLoad, IndexValue)) and
        any(not _is_zero(c) for c in n.index.coefs)) for n in walk(expr))


def identity(monoid, dtype):
    """The monoid's identity in ``dtype`` (integer ``and`` is bitwise: all ones)."""
    dtype = np.dtype(dtype)
    if monoid == "sum" or monoid == "or":
        return dtype.type(0)
    if monoid == "and" and dtype.kind in "iu":
        return dtype.type(-1) if dtype.kind == "i" else dtype.type(np.iinfo(dtype).max)
    if monoid == "prod" or monoid == "and":
        return dtype.type(1)
    if dtype.kind == "f":
        return dtype.type(-np.inf if monoid == "max" else np.inf)
    if dtype.kind == "b":
        return np.bool_(monoid == "min")
    info = np.iinfo(dtype)
    return dtype.type(info.min if monoid == "max" else info.max)


# ----------------------------------------------------------------------------------------
# Validation, text and hashing.

def check_kernel(k):
    """Raise ValueError if ``k`` breaks the IR's rules (backends may assume they hold)."""
    n = len(k.shape)
    for node in all_nodes(k):
        if isinstance(node, (Load, IndexedLoad, IndexValue)) and \
                len(node.index.coefs) != n:
            raise ValueError(f"kernel {k.name}: index map of {node} has wrong rank")
        if isinstance(node, IndexedLoad) and (
                k.args[node.arg].role != "in" or np.dtype(node.offset.dtype).kind not in "iu"):
            raise ValueError(f"kernel {k.name}: indexed load needs an input argument and an "
                             "integer offset")
        if isinstance(node, Load) and k.args[node.arg].role != "in" and \
                node.arg not in {o for _, o in k.inplace}:
            raise ValueError(f"kernel {k.name}: load from output argument {node.arg}")
        if isinstance(node, Op):
            if op_arity(node.op) != len(node.args):
                raise ValueError(f"kernel {k.name}: {node.op} takes {op_arity(node.op)} args")
        if isinstance(node, Stage) and node.k >= len(k.stages):
            raise ValueError(f"kernel {k.name}: Stage({node.k}) out of range")
    for s in k.stages:
        if s.monoid not in MONOIDS:
            raise ValueError(f"kernel {k.name}: unknown monoid {s.monoid!r}")
        if s.monoid in ("and", "or") and np.dtype(s.dtype).kind not in "biu":
            raise ValueError(f"kernel {k.name}: monoid {s.monoid!r} needs an integer or "
                             f"bool dtype, not {np.dtype(s.dtype).name}")
    inner = k.reduce_axes
    for st in k.stores:
        if k.args[st.arg].role != "out":
            raise ValueError(f"kernel {k.name}: store to input argument {st.arg}")
        if st.level == "outer" and st.index.uses_axes(inner):
            raise ValueError(f"kernel {k.name}: outer store indexed by a reduced axis")
        if st.level == "outer" and inner and _reads_axes(st.expr, inner):
            # (it runs once per outer point: which reduced index would it read?)
            raise ValueError(f"kernel {k.name}: outer store's value reads a reduced axis")
        if not k.row_style and not isinstance(st.expr, Stage):
            raise ValueError(f"kernel {k.name}: accumulate-style stores must be Stage(k)")
    for i, o in k.inplace:
        if k.args[i].role != "in" or k.args[o].role != "out" or \
                np.dtype(k.args[i].dtype) != np.dtype(k.args[o].dtype):
            raise ValueError(f"kernel {k.name}: in-place pair (arg{i}, arg{o}) must be an "
                             "input and an output of one dtype")
    if k.hyperplane is not None:
        axis, offset, _ = k.hyperplane
        if not 0 <= axis < n or k.shape[axis] != 1 or axis in k.reduce_axes or \
                not is_loop_invariant_int(offset):
            raise ValueError(f"kernel {k.name}: hyperplane {k.hyperplane} needs an extent-1 "
                             "kept axis and a loop-invariant integer offset")


def _reads_axes(expr, axes):
    """Whether ``expr`` reads an iteration index of ``axes`` (a stage's value does not:
    it is one value per outer point)."""
    return any(isinstance(n, (Load, IndexedLoad, IndexValue)) and n.index.uses_axes(axes)
               for n in walk(expr))


def all_nodes(k):
    """Every expression node of ``k``'s stages and stores, each once (post-order)."""
    seen = set()
    out = []
    for s in k.stages:
        out += walk(s.expr, seen)
    for st in k.stores:
        out += walk(st.expr, seen)
    return out


def _dim(d):
    return str(d).replace(" ", "")


def _affine_str(a):
    terms = [] if _is_zero(a.offset) else [_dim(a.offset)]
    for ax, c in enumerate(a.coefs):
        if not _is_zero(c):
            terms.append(f"i{ax}" if c == 1 else f"{_dim(c)}*i{ax}")
    return " + ".join(terms) or "0"


def kernel_text(k):
    """Readable listing of one kernel (used by ``Compiled.as_text``)."""
    names = {}
    lines = []
    seen = set()    # (shared by the walks: the stores' DAGs are walked once, not each)

    def name(node):
        if isinstance(node, Const):
            return repr(node.value)
        if isinstance(node, Stage):
            return f"s{node.k}"
        return names[id(node)]

    def emit(root):
        for node in walk(root, seen):
            if id(node) in names or isinstance(node, (Const, Stage)):
                continue
            nm = names[id(node)] = f"v{len(names)}"
            dt = np.dtype(node.dtype).name
            if isinstance(node, Load):
                rhs = f"arg{node.arg}[{_affine_str(node.index)}]"
            elif isinstance(node, IndexedLoad):
                rhs = (f"arg{node.arg}[{_affine_str(node.index)} + {_dim(node.stride)}*"
                       f"clamp({name(node.offset)}, 0, {_dim(node.size)}-1)]"
                       + ("" if node.fill is None else f" fill {node.fill!r}"))
            elif isinstance(node, IndexValue):
                rhs = f"index({_affine_str(node.index)})"
            else:
                rhs = f"{node.op}(" + ", ".join(name(a) for a in node.args) + ")"
            lines.append(f"    {nm}: {dt} = {rhs}")

    space = ", ".join(f"i{a}<{_dim(d)}" for a, d in enumerate(k.shape))
    argl = ", ".join(f"arg{i}: {a.role} {np.dtype(a.dtype).name}" for i, a in enumerate(k.args))
    head = [f"kernel {k.name}({argl})", f"  for {space}"
            + (f"  reduce over {list(k.reduce_axes)}" if k.reduce_axes else "")
            + "".join(f"  arg{o} in place of arg{i}" for i, o in k.inplace)]
    if k.hyperplane is not None:
        axis, offset, size = k.hyperplane
        emit(offset)
        lines.append(f"  only at i{axis} = {name(offset)}, none unless 0 <= it < {_dim(size)}")
    for j, s in enumerate(k.stages):
        emit(s.expr)
        lines.append(f"  s{j}: {np.dtype(s.dtype).name} = {s.monoid}({name(s.expr)})")
    for st in k.stores:
        emit(st.expr)
        lines.append(f"  arg{st.arg}[{_affine_str(st.index)}] = {name(st.expr)}"
                     + ("   (outer)" if st.level == "outer" and k.reduce_axes else ""))
    return "\n".join(head + lines)


def kernel_hash(k):
    """Stable content hash (names excluded): the key of the on-disk kernel cache.
    Kept on the (immutable) kernel: renderers and caches ask for it repeatedly."""
    h = k.__dict__.get("_content_hash")
    if h is None:
        body = kernel_text(dataclasses.replace(k, name="k"))
        body += f"\nsyms={k.size_symbols}"
        h = hashlib.sha256(body.encode()).hexdigest()
        object.__setattr__(k, "_content_hash", h)
    return h


# ----------------------------------------------------------------------------------------
# Reference semantics: a NumPy evaluator (slow; tests and odd dtypes only).

def evaluate(k, buffers, sizes=None, op_impls=None):
    """Run kernel ``k`` on flat NumPy ``buffers`` (one per argument; outputs are
    written in place). ``sizes`` maps size-symbol names to ints. ``op_impls`` maps op
    names to ``f(*arrays, dtype=...)`` (default: ``kernel_semantics.op_impls()``)."""
    if op_impls is None:
        op_impls = kernel_semantics.op_impls()
    env = dict(sizes or {})     # (by name: size symbols come in more than one class)
    shape = tuple(int(_sub(d, env)) for d in k.shape)
    red = tuple(k.reduce_axes)
    # An empty reduced axis leaves no inner points, yet each kept point still gets the
    # stages' identities and its outer (or accumulate-style) stores: run those on the
    # space with the reduced axes at extent 1 (index 0, which nothing then reads).
    empty_reduce = any(shape[a] == 0 for a in red)
    if empty_reduce:
        shape = tuple(1 if a in red else d for a, d in enumerate(shape))
    idx = np.indices(shape, dtype=np.int64) if shape else np.zeros((0,), np.int64)

    def lin(a):
        out = np.full(shape, int(_sub(a.offset, env)), np.int64)
        for ax, c in enumerate(a.coefs):
            c = int(_sub(c, env))
            if c:
                out = out + c * idx[ax]
        return out

    memo = {}

    def ev(node):
        if id(node) in memo:
            return memo[id(node)]
        if isinstance(node, Load):
            v = buffers[node.arg][lin(node.index)]
        elif isinstance(node, IndexedLoad):
            raw = ev(node.offset)
            if raw.dtype == np.uint64:  # huge values stay out of range in int64
                raw = np.minimum(raw, np.uint64(np.iinfo(np.int64).max))
            off = np.broadcast_to(raw, shape).astype(np.int64)
            size = int(_sub(node.size, env))
            i = np.clip(off, 0, max(size - 1, 0))
            v = buffers[node.arg][lin(node.index) + i * int(_sub(node.stride, env))]
            if node.fill is not None:
                v = np.where((off >= 0) & (off < size), v, np.asarray(node.fill, node.dtype))
        elif isinstance(node, Const):
            v = np.full(shape, node.value, node.dtype)
        elif isinstance(node, IndexValue):
            v = lin(node.index).astype(node.dtype)
        elif isinstance(node, Stage):
            v = stage_vals[node.k]
        else:
            args = [ev(a) for a in node.args]
            v = np.asarray(op_impls[node.op](*args, dtype=np.dtype(node.dtype)))
            v = np.broadcast_to(v.astype(node.dtype, copy=False), shape)
        memo[id(node)] = v
        return v

    if k.hyperplane is not None:   # the plane's index is loop-invariant: any point's
        axis, offset, size = k.hyperplane
        at = np.asarray(ev(offset)).reshape(-1)
        if not at.size or not 0 <= int(at[0]) < int(_sub(size, env)):
            return buffers           # (no points, or off the range: nothing to do)
        plane = int(at[0])
        idx = idx.copy()             # (lin reads idx: the plane axis now holds it)
        idx[axis] = plane
    stage_vals = []
    for s in k.stages:
        if empty_reduce:
            r = np.full(shape, identity(s.monoid, s.dtype))
        else:
            r = kernel_semantics.reduce(s.monoid, ev(s.expr), red, s.dtype)
        stage_vals.append(np.broadcast_to(r, shape))
    for st in k.stores:
        if empty_reduce and k.row_style and st.level != "outer":
            continue    # an inner store: there are no inner points
        v = ev(st.expr)
        buffers[st.arg][lin(st.index)] = v
    return buffers


def _sub(d, env):
    """``d`` (an int or a sympy expression of size symbols) at the sizes ``env`` maps
    their names to."""
    if isinstance(d, int):
        return d
    return d.subs({s: env[s.name] for s in d.free_symbols if s.name in env})

