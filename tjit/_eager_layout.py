"""The layout of eager results computed from arrays committed to a mesh, as JAX's
sharding in types: ``(x + 1).sharding`` is ``x``'s NamedSharding, ``x.sum(0)`` drops the
reduced dimension's entry, ``x.T`` permutes the spec.

Each result gets a spec of its rank (JAX 0.10 spells every dimension: ``P(None, 'X')``,
``P()`` for a scalar) on the operands' mesh, from its primitive's parameters:

* reductions (``axes``) drop the reduced dimensions; ``transpose`` permutes;
  ``squeeze`` drops and ``expand_dims`` inserts unsplit dimensions;
* ``broadcast_in_dim`` maps the operand's dimensions to ``broadcast_dimensions``;
* ``reshape`` keeps a dimension's entry where it is unchanged or split into several
  (the first of them takes it), and where several merge into one, the first one's;
* ``dot_general``: batch, then the left's free, then the right's free dimensions
  (contracted ones are dropped, as JAX's rule);
* anything else (elementwise ops, slices, concatenation, sorts, scans...): dimension by
  dimension, the first split entry among the operands of the result's rank.

Uncommitted operands count as unsplit (JAX's empty mesh). Operands on different meshes
are refused with JAX's message. Where JAX refuses a layout it cannot express (a reshape
that moves a split dimension, two operands split differently) tjit, computing on one
device, takes the first operand's entries. Only eager calls with a committed operand
come here (``tracing.core.LaidOutValue``): plain eager calls keep their fast lanes.
"""

import weakref

from tjit.sharding import AxisType, NamedSharding, ON_FIRST_LAYOUT, PartitionSpec, set_layout
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import Array, remember, set_eager_layout
from tjit.tracing.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var
from tjit.tracing.shapes import dim_str


def _spec_of(a):
    """The per-dimension entries of ``a``'s layout and its mesh (None, None when it is
    not committed to a mesh)."""
    s = getattr(a, "_sharding", None) if type(a) is Array else None
    if s is None:
        return None, None
    spec = tuple(s.spec) + (None,) * (a.ndim - len(s.spec))
    return spec, s.mesh


def _reshape(spec, old, new):
    """``spec`` of shape ``old`` carried to shape ``new`` (module docstring)."""
    out = [None] * len(new)
    i = j = 0
    while i < len(old) and j < len(new):
        i0, j0 = i, j
        a, b = old[i], new[j]
        i, j = i + 1, j + 1
        while a != b:   # grow the smaller side until the groups hold the same elements
            if a < b and i < len(old):
                a, i = a * old[i], i + 1
            elif b < a and j < len(new):
                b, j = b * new[j], j + 1
            else:
                break
        entries = [e for e in spec[i0:i] if e is not None]
        if entries:
            out[j0] = entries[0]
    return tuple(out)


def _result_spec(prim, params, specs, operands, shape):
    """The entries of a result of ``shape`` of ``prim`` on operands with ``specs``."""
    name = prim.name
    if name == "sharding_constraint":   # (the layout the program states from here)
        spec = tuple(params["sharding"].spec)
        return spec + (None,) * (len(shape) - len(spec))
    first = next((s for s in specs if s is not None), None)
    k = specs.index(first)
    if name == "transpose":
        return tuple(first[p] for p in params["permutation"])
    if name == "broadcast_in_dim":
        out = [None] * len(shape)
        for src, dst in enumerate(params["broadcast_dimensions"]):
            out[dst] = first[src]
        return tuple(out)
    if name == "reshape" and len(operands) == 1:
        return _reshape(first, tuple(operands[0].shape), tuple(shape))
    if name == "squeeze":
        drop = {d % len(first) for d in params["dimensions"]}
        return tuple(e for d, e in enumerate(first) if d not in drop)
    if name == "expand_dims":
        out = list(first)
        for d in sorted(d % len(shape) for d in params["dimensions"]):
            out.insert(d, None)
        return tuple(out)
    if name == "dot_general":
        (lc, rc), (lb, rb) = params["dimension_numbers"]
        lhs, rhs = (specs[i] or (None,) * operands[i].ndim for i in (0, 1))
        batch = tuple(lhs[d] if lhs[d] is not None else rhs[e] for d, e in zip(lb, rb))
        free_l = tuple(e for d, e in enumerate(lhs) if d not in lc and d not in lb)
        free_r = tuple(e for d, e in enumerate(rhs) if d not in rc and d not in rb)
        out = batch + free_l + free_r
        return out if len(out) == len(shape) else (None,) * len(shape)
    axes = params.get("axes")
    if axes is not None and len(operands[k].shape) - len(axes) == len(shape):
        drop = {d % max(len(first), 1) for d in axes}
        return tuple(e for d, e in enumerate(first) if d not in drop)
    out, used = [None] * len(shape), set()
    for s in specs:   # elementwise and shape-keeping ops: the first split entry per dim
        if s is not None and len(s) == len(shape):
            for d, e in enumerate(s):
                axes = {e} if isinstance(e, str) else set(e or ())
                if out[d] is None and axes and not axes & used:
                    out[d] = e
                    used |= axes
    return tuple(out)


_SHARDINGS = {}   # (mesh, entries) -> NamedSharding (made once: eager calls repeat)


def named(mesh, entries):
    key = (mesh, entries)
    got = _SHARDINGS.get(key)
    if got is None:
        if len(_SHARDINGS) > 1024:
            _SHARDINGS.clear()
        got = _SHARDINGS[key] = NamedSharding(mesh, PartitionSpec(*entries))
    return got


def lay_out(prim, args, params, out):
    """``out`` (the Array(s) of an eager ``prim`` on ``args``) laid out from the
    operands' layouts (module docstring); the layouts of a call signature are kept."""
    key, keep = [prim], []
    for a in args:
        if type(a) is Array:
            s = getattr(a, "_sharding", None)
            key += (id(s), a._value.shape)
            if s is not None:
                keep.append(s)   # (alive while its id is in a key)
        else:
            key += (type(a), getattr(a, "shape", None))
    try:
        key = (tuple(key), tuple(params.items())) if params else tuple(key)
        got = _LAID_OUT.get(key)
    except TypeError:   # unhashable params
        key, got = None, None
    outs = out if isinstance(out, (list, tuple)) else (out,)
    if got is None:
        got = (keep, _result_shardings(prim, args, params, outs))
        if key is not None:
            remember(_LAID_OUT, key, got)
    for o, s in zip(outs, got[1]):
        if s is not None and type(o) is Array and getattr(o, "_sharding", None) is None:
            set_layout(o, s)
    return out


_LAID_OUT = {}   # (prim, per operand: id of its layout and shape, params) -> layouts


def _result_shardings(prim, args, params, outs):
    """The NamedSharding of each output of ``prim`` on ``args`` (None: not laid out)."""
    specs, mesh = [], None
    for a in args:
        spec, m = _spec_of(a)
        specs.append(spec)
        if m is None:
            continue
        if mesh is None:
            mesh = m
        elif m != mesh:
            raise ValueError(f"{prim.name}: Mesh for all inputs should be equal. Got one "
                             f"mesh: {mesh.abstract_mesh} and another mesh: "
                             f"{m.abstract_mesh}. Move the operands to one mesh with "
                             f"jax.device_put(x, sharding) first")
    if mesh is None:
        return [None] * len(outs)
    return [named(mesh, _result_spec(prim, params, specs, args, o.shape))
            if type(o) is Array else None for o in outs]


ON_FIRST_LAYOUT.append(lambda: set_eager_layout(lay_out))


class LaidOutAval(ShapedArray):
    """``jax.typeof(x)`` of an Array committed to a mesh: its ShapedArray with the
    layout's Explicit axes (``.sharding``, on the mesh's AbstractMesh), shown as JAX
    0.10 shows them: ``float32[8@X]``, ``f32[8,4@(X,Y)]``."""

    __slots__ = ("sharding",)

    def __init__(self, shape, dtype, weak_type, sharding):
        super().__init__(shape, dtype, weak_type)
        self.sharding = sharding

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def __eq__(self, other):
        return (type(other) is LaidOutAval and self.dtype == other.dtype and
                self.shape == other.shape and self.weak_type == other.weak_type and
                self.sharding == other.sharding)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type, self.sharding))

    def _dims(self):
        out = []
        for d, n in enumerate(self.shape):
            axes = self.sharding.spec.axes_of(d)
            split = "" if not axes else f"@{axes[0]}" if len(axes) == 1 else \
                f"@({','.join(axes)})"
            out.append(dim_str(n) + split)
        return ",".join(out)

    def str_short(self):
        return f"{dtypes.short_name(self.dtype)}[{self._dims()}]"

    def _long(self):
        return f"{self.dtype.name}[{self._dims()}]"


def typeof_laid_out(x):
    """``jax.typeof`` of ``x``, an Array committed to a mesh (None for any other value):
    a LaidOutAval whose spec keeps the Explicit axes only (JAX's types carry no Auto
    axes)."""
    s = getattr(x, "_sharding", None) if type(x) is Array else None
    return None if s is None else typed_aval(x.aval, s)


def typed_aval(aval, s):
    """``aval`` (a ShapedArray) as the type of an array laid out as the NamedSharding
    ``s``: a LaidOutAval keeping ``s``'s Explicit axes."""
    mesh = s.mesh
    explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t is AxisType.Explicit}
    spec = tuple(s.spec) + (None,) * (len(aval.shape) - len(s.spec))
    entries = []
    for e in spec:
        axes = tuple(n for n in ((e,) if isinstance(e, str) else e or ()) if n in explicit)
        entries.append(axes[0] if len(axes) == 1 else axes or None)
    return LaidOutAval(aval.shape, aval.dtype, aval.weak_type,
                       NamedSharding(mesh.abstract_mesh, PartitionSpec(*entries)))


def propagate(jaxpr, in_specs):
    """The per-dimension entries of ``jaxpr``'s outputs from its inputs' (None: not
    laid out), by the rules above, equation by equation: what JAX's types give a jit's
    outputs under Explicit mesh axes. An output no laid-out input reaches is unsplit."""
    env = _specs_by_var(jaxpr, in_specs)
    return [(None if isinstance(v, Literal) else env.get(v)) or (None,) * len(v.aval.shape)
            for v in jaxpr.outvars]


def _specs_by_var(jaxpr, in_specs):
    """{variable: its entries} of every variable of ``jaxpr`` a laid-out input reaches."""
    env = dict(zip(jaxpr.invars, in_specs))
    for eqn in jaxpr.eqns:
        specs = [None if isinstance(v, Literal) else env.get(v) for v in eqn.invars]
        if all(s is None for s in specs) and eqn.primitive.name != "sharding_constraint":
            continue
        avals = [v.aval for v in eqn.invars]
        for o in eqn.outvars:
            env[o] = _result_spec(eqn.primitive, eqn.params, specs, avals, o.aval.shape)
    return env


def typed_layout(jaxpr, leaves, mesh):
    """What lays out the outputs of a jit call of ``jaxpr`` on the argument ``leaves``,
    every array one committed to ``mesh`` (Python scalars have no layout): each output
    as :func:`propagate` types it. Kept per jaxpr and argument layouts (calls repeat)."""
    specs = tuple(_spec_of(x)[0] for x in leaves)
    try:
        known = _TYPED.setdefault(jaxpr, {})
    except TypeError:   # (a jaxpr that cannot be weakly referenced)
        known = {}
    got = known.get((id(mesh), specs))
    if got is None or got[0] is not mesh:   # (the mesh kept: its id stays its own)
        got = known[id(mesh), specs] = (mesh, [named(mesh, s)
                                               for s in propagate(jaxpr, specs)])
    return setting(got[1])


def setting(shardings):
    """What lays out a call's fresh outputs as ``shardings``, one per output."""
    def lay_out(outs):
        for o, s in zip(outs, shardings):
            if type(o) is Array:
                set_layout(o, s)
    return lay_out


_TYPED = weakref.WeakKeyDictionary()   # jaxpr -> {argument specs: output shardings}


def typed_jaxpr(closed, leaves):
    """``closed`` (make_jaxpr's ClosedJaxpr at argument ``leaves``) with the types JAX
    prints where a leaf is committed to a mesh with Explicit axes: a copy whose
    variables carry :class:`LaidOutAval` (``a:f32[8@X]``) where :func:`propagate` splits
    them; ``closed`` itself (maybe a cached trace) is left as it is. Sub-jaxprs keep
    their own avals. ``closed`` when no leaf is so laid out."""
    layouts = [getattr(x, "_sharding", None) if type(x) is Array else None for x in leaves]
    named = [s for s in layouts if s is not None]
    jaxpr = closed.jaxpr
    if not named or len(leaves) != len(jaxpr.invars) or \
            AxisType.Explicit not in named[0].mesh.axis_types or \
            any(s.mesh != named[0].mesh for s in named):
        return closed
    mesh = named[0].mesh
    env = _specs_by_var(jaxpr, [_spec_of(x)[0] for x in leaves])
    copies = {}

    def typed(v):
        if isinstance(v, (Literal, DropVar)):
            return v
        got = copies.get(v)
        if got is None:
            spec = env.get(v)
            aval = v.aval
            if spec is not None and any(e is not None for e in spec) and \
                    type(aval) is ShapedArray:
                aval = typed_aval(aval, NamedSharding(mesh, PartitionSpec(*spec)))
            got = copies[v] = Var(aval)
        return got

    eqns = []
    for eqn in jaxpr.eqns:
        eqns.append(eqn.replace(invars=[typed(v) for v in eqn.invars],
                                outvars=[typed(v) for v in eqn.outvars]))
    new = Jaxpr([typed(v) for v in jaxpr.constvars], [typed(v) for v in jaxpr.invars],
                [typed(v) for v in jaxpr.outvars], eqns)
    return ClosedJaxpr(new, closed.consts)
