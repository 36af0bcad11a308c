"""``jit(f, in_shardings=..., out_shardings=...)`` and the ``.sharding`` of jit's outputs.

tjit runs a jitted program on one device. What JAX's sharding arguments mean there:

* ``in_shardings``/``out_shardings`` are pytree prefixes of the positional (dynamic)
  arguments and of the outputs; a leaf is a sharding, a PartitionSpec (read with the mesh
  of ``jax.set_mesh``), or None (unspecified, as ``UNSPECIFIED``). They are checked as
  JAX checks them (tree prefix, rank, a mesh axis dividing the dimension) with JAX's
  messages; the arguments are placed on the sharding's device; each output is committed
  to its ``out_shardings`` (``y.sharding == s``).
* A sharding over several devices raises NotImplementedError (one program runs on one
  device; ``shard_map`` and ``pmap`` compute across devices).
* An output with no ``out_shardings`` gets the layout JAX gives it on one device. Where
  the committed arguments share a mesh with Explicit axes, JAX types it (sharding in
  types): its spec follows the program's operations from the arguments' specs
  (uncommitted arguments unsplit; ``tjit._eager_layout.propagate``), a
  ``sharding_constraint`` (reshard, with_sharding_constraint, shard_map's out_specs)
  stating it from there on. Else (``pxla.maybe_recover_user_shardings``) an argument's
  layout is its ``in_shardings`` entry where the caller committed it or a mesh is set,
  else the NamedSharding it is committed to (Python scalars have none); when every
  array argument has a layout on one mesh, an output of the first one's rank takes its
  layout and the others that mesh's ``P()``; else ``P()`` on the mesh of the first
  layout, of ``set_mesh``, or of the ``in_shardings``/``out_shardings``; else the
  device's SingleDeviceSharding.
"""

import functools

import numpy as np

from tjit.api import UNSPECIFIED, device_put, set_output_layout
from tjit.sharding import (
    ON_FIRST_LAYOUT,
    AxisType,
    NamedSharding,
    PartitionSpec,
    PmapSharding,
    Sharding,
    SingleDeviceSharding,
    check_spec,
    commit,
    current_mesh,
    replicated_on,
    set_layout,
)
from tjit.tracing.core import _DEVICE_ARRAYS, Array, LaidOutValue, Tracer, layout_signature
from tjit.tracing.tree_util import broadcast_prefix, keystr, tree_flatten_with_path
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

_HOST = Array(np.zeros(0))   # (its .device: where NumPy-backed values live)
_PY_SCALARS = (bool, int, float, complex)


def _is_leaf(s):
    return s is None or s is UNSPECIFIED or isinstance(s, (PartitionSpec, Sharding))


def check_shardings_argument(tree, what):
    """``in_shardings``/``out_shardings`` as given to jit: every leaf a sharding, a
    PartitionSpec or None (JAX's TypeError otherwise)."""
    for leaf in tree_flatten(tree, is_leaf=_is_leaf)[0]:
        if not _is_leaf(leaf):
            raise TypeError(f"{what} leaf specifications are expected to be PartitionSpec "
                            f"instances or None, but got {leaf!r:.60}")


def _resolved(s, what):
    """A leaf of the shardings tree as a sharding (None: unspecified)."""
    if s is UNSPECIFIED or s is None:
        return None
    if isinstance(s, PartitionSpec):
        mesh = current_mesh()
        if mesh is None:
            raise RuntimeError(
                f"jit requires a non-empty mesh in context if you are passing "
                f"`PartitionSpec`s to {what}. You can define a context mesh via "
                f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to {what} and "
                f"then the mesh context manager is not required.")
        return NamedSharding(mesh, s)
    return s


def _check_fits(s, shape, what, path):
    """JAX's checks of a sharding against a value (pjit_check_aval_sharding)."""
    name = f" with pytree key path {path}" if path else ""
    if isinstance(s, NamedSharding):
        if len(shape) < len(s.spec):
            scalar = " For scalars the PartitionSpec should be P()" if not shape else ""
            raise ValueError(
                f"One of {what}{name} is incompatible with its sharding annotation {s}: "
                f"Sharding {s} is only valid for values of rank at least {len(s.spec)}, "
                f"but was applied to a value of rank {len(shape)}.{scalar}")
        check_spec(s.spec, s.mesh, f"jit {what}", len(shape))
        counts = s._split_counts(len(shape))
        for d, (n, k) in enumerate(zip(shape, counts)):
            if isinstance(n, int) and n % k:
                raise ValueError(
                    f"One of {what}{name} was given the sharding {s} implies that array "
                    f"axis {d} is partitioned {k} times, but the dimension size is {n} "
                    f"(full shape: {tuple(shape)}, per-dimension tiling factors: "
                    f"{tuple(counts)} should evenly divide the shape)")
    elif isinstance(s, PmapSharding):
        s.shard_shape(shape)


def _device_of(s, what):
    if isinstance(s, SingleDeviceSharding):
        return s._device
    if isinstance(s, NamedSharding) and s.mesh.size == 1:
        return s.mesh.devices.flat[0]
    raise NotImplementedError(
        f"jit {what}: {s} spreads values over {s.num_devices} devices; tjit runs a jitted "
        f"program on one device. Compute across devices with shard_map or pmap, or use a "
        f"one-device mesh")


def _mesh_of(shardings):
    for s in shardings:
        if isinstance(s, NamedSharding):
            return s.mesh
    return None


def _key_path(args_names, path):
    head, rest = path[0], path[1:]
    return args_names(head.idx) + keystr(rest)


class ShardedJit:
    """A jitted function with ``in_shardings``/``out_shardings`` (module docstring); every
    other attribute (``lower``, ``trace``, caches...) is the plain Jitted's."""

    def __init__(self, jitted, in_shardings, out_shardings):
        check_shardings_argument(in_shardings, "in_shardings")
        check_shardings_argument(out_shardings, "out_shardings")
        self._jitted = jitted
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        self._plans = {}   # (see _plan_key)
        functools.update_wrapper(self, jitted.fun)

    def __getattr__(self, name):
        return getattr(self._jitted, name)

    def __get__(self, obj, objtype=None):   # jit on methods
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        key = None if kwargs else self._plan_key(args)
        plan = None if key is None else self._plans.get(key)
        if plan is not None and plan[0] is current_mesh():
            return self._run_plan(plan, args)
        placed = self._place_arguments(args, kwargs)
        # (before the call, which deletes donated arguments)
        layout = None if self.in_shardings is UNSPECIFIED else self._placed_layout(args)
        out = self._jitted(*placed, **kwargs)
        if layout is not None:
            layout(tree_flatten(out)[0])
        out = self._lay_out_outputs(out)
        if key is not None and all(p is a for p, a in zip(placed, args)):
            leaves, tree = tree_flatten(out)
            if len(self._plans) > 64:
                self._plans.clear()
            self._plans[key] = (current_mesh(), layout, tree,
                                [getattr(o, "_sharding", None) for o in leaves],
                                [getattr(a, "_sharding", None) for a in args])
        return out

    # -- calls seen before -----------------------------------------------------------------
    def _plan_key(self, args):
        """The key of a call whose arguments are positional host Arrays, none static
        (None for any other call): per argument its shape, dtype, weak type and layout,
        and the current mesh. Such a call, once checked, placed nothing and laid out its
        outputs as its plan records (``_plans``: the mesh, the placed layout, the output
        structure and each output's final layout, the arguments' layouts kept so that
        their ids stay theirs)."""
        if self._jitted.sig.static_argnums:
            return None
        key = layout_signature([id(current_mesh())], args)
        return None if key is None else tuple(key)

    def _run_plan(self, plan, args):
        """A call as :meth:`__call__` runs it, its checks and layouts taken from ``plan``
        (the outputs are fresh Arrays: laid out in place)."""
        _, layout, tree, finals, _ = plan
        out = self._jitted(*args)
        leaves, got_tree = tree_flatten(out)
        if got_tree != tree:   # (not expected: a jitted program's outputs keep their tree)
            if layout is not None:
                layout(leaves)
            return self._lay_out_outputs(out)
        outs = []
        for o, s in zip(leaves, finals):
            if s is not None:
                set_layout(o, s)
            elif getattr(o, "_sharding", None) is not None:
                o = commit(o, None)
            outs.append(o)
        return tree_unflatten(tree, outs)

    def lower(self, *args, **kwargs):
        lowered = self._jitted.lower(*self._place_arguments(args, kwargs), **kwargs)
        dyn = tuple(args[i] for i in self._dynamic_positions(args))
        lowered.given_shardings = (
            None if self.in_shardings is UNSPECIFIED else
            [_resolved(s, "in_shardings")
             for s in broadcast_prefix(self.in_shardings, dyn, is_leaf=_is_leaf)],
            self.out_shardings)
        return lowered

    # -- arguments -----------------------------------------------------------------------
    def _dynamic_positions(self, args):
        return [i for i in range(len(args)) if i not in self._jitted.sig.static_argnums]

    def _place_arguments(self, args, kwargs):
        """``args`` checked against ``in_shardings`` and placed on their devices."""
        if self.in_shardings is UNSPECIFIED:
            return args
        sig = self._jitted.sig
        if any(k not in sig.static_argnames for k in kwargs):
            raise ValueError("jit does not support kwargs when in_shardings is specified; "
                             "pass those arguments positionally (or as static_argnames)")
        positions = self._dynamic_positions(args)
        dyn = tuple(args[i] for i in positions)
        shardings = self.in_shardings
        if isinstance(shardings, list):
            shardings = tuple(shardings)
        if isinstance(shardings, tuple) and not isinstance(shardings, PartitionSpec) \
                and len(shardings) != len(dyn):
            raise ValueError(
                f"jit in_shardings specification must be a tree prefix of the positional "
                f"arguments tuple. In particular, jit in_shardings must either be a "
                f"Sharding, a PartitionSpec, or a tuple of length equal to the number of "
                f"positional arguments. But jit in_shardings is the wrong length: got a "
                f"tuple or list of length {len(shardings)} for an args tuple of length "
                f"{len(dyn)}.")
        try:
            per_leaf = broadcast_prefix(shardings, dyn, is_leaf=_is_leaf)
        except ValueError as e:
            raise ValueError(f"jit in_shardings specification must be a tree prefix of the "
                             f"positional arguments tuple: {e}") from None
        paths_leaves, tree = tree_flatten_with_path(dyn)
        placed = []
        for (path, leaf), s in zip(paths_leaves, per_leaf):
            s = _resolved(s, "in_shardings")
            if s is not None:
                _check_fits(s, tuple(np.shape(leaf)), "jit arguments",
                            _key_path(lambda k: sig.arg_name(positions[k]), path))
                leaf = self._placed(leaf, _device_of(s, "in_shardings"))
            placed.append(leaf)
        dyn = tree_unflatten(tree, placed)
        out = list(args)
        for i, a in zip(positions, dyn):
            out[i] = a
        return tuple(out)

    @staticmethod
    def _placed(leaf, device):
        """``leaf`` on ``device``: as it is when it is there (a donated Array stays the
        caller's), else a copy there; an Array committed elsewhere is an error, as JAX's."""
        if isinstance(leaf, Tracer):
            return leaf
        if isinstance(leaf, Array):
            if device in leaf.devices():
                return leaf
            if getattr(leaf, "_sharding", None) is not None:
                raise ValueError(
                    f"Received incompatible devices for jitted computation: an argument "
                    f"committed to {leaf.sharding} and in_shardings on {device}; move it "
                    f"first with jax.device_put(x, sharding)")
        elif device == _HOST.device:   # (host values: jit converts them itself)
            return leaf
        return device_put(leaf, device)

    # -- outputs -------------------------------------------------------------------------
    def _placed_layout(self, args):
        """JAX reshards each argument to its in_shardings entry; that layout is the
        argument's own where the caller committed it or where a mesh is set (JAX's
        avals then carry the mesh), else the argument counts as uncommitted."""
        positions = self._dynamic_positions(args)
        dyn = tuple(args[i] for i in positions)
        per_leaf = broadcast_prefix(self.in_shardings, dyn, is_leaf=_is_leaf)
        mesh = current_mesh()
        first = rank = None
        all_on_first = True
        for x, s in zip(tree_flatten(dyn)[0], per_leaf):
            if isinstance(x, _PY_SCALARS):
                continue
            s = _resolved(s, "in_shardings")
            own = getattr(x, "_sharding", None) if type(x) is Array else None
            if isinstance(s, NamedSharding) and (own is not None or s.mesh == mesh):
                own = s
            if own is None:
                all_on_first = False
            elif first is None:
                first, rank = own, np.ndim(x)
            elif own.mesh != first.mesh:
                all_on_first = False
        return _layout_rule(first, rank, all_on_first)

    def _lay_out_outputs(self, out):
        path_leaves, tree = tree_flatten_with_path(out)
        if self.out_shardings is UNSPECIFIED:
            per_leaf = [None] * len(path_leaves)
        else:
            try:
                per_leaf = broadcast_prefix(self.out_shardings, out, is_leaf=_is_leaf)
            except ValueError as e:
                raise ValueError(f"jit out_shardings must be a tree prefix of the "
                                 f"function's outputs: {e}") from None
        per_leaf = [_resolved(s, "out_shardings") for s in per_leaf]
        in_specified = [] if self.in_shardings is UNSPECIFIED else [
            _resolved(s, "in_shardings")
            for s in tree_flatten(self.in_shardings, is_leaf=_is_leaf)[0]]
        mesh = _mesh_of(in_specified + per_leaf)
        outs = []
        for (path, leaf), s in zip(path_leaves, per_leaf):
            if s is not None:
                _check_fits(s, tuple(np.shape(leaf)), "jit outputs", keystr(path) or "result")
                if isinstance(leaf, Array) and _device_of(s, "out_shardings") not in \
                        leaf.devices():
                    leaf = device_put(leaf, _device_of(s, "out_shardings"))
                leaf = commit(leaf, s)
            elif mesh is not None and isinstance(leaf, Array) and \
                    getattr(leaf, "_sharding", None) is None:
                leaf = commit(leaf, replicated_on(mesh))
            outs.append(leaf)
        return tree_unflatten(tree, outs)


def _sharding_of_rank(first, rank, all_on_first):
    """``pick(ndim)``: the NamedSharding of an output of rank ``ndim`` (module docstring):
    ``first``, the first argument's NamedSharding (None: none is committed) and
    ``rank``, its rank; ``all_on_first``: every array argument is committed to
    ``first``'s mesh. None where the outputs keep their device's sharding."""
    if first is None:
        mesh = current_mesh()
        if mesh is None:
            return None
        first = replicated_on(mesh)
        all_on_first = False
    other = replicated_on(first.mesh)
    same = first if all_on_first else other
    return lambda ndim: same if ndim == rank else other


def _layout_rule(first, rank, all_on_first, out_avals=None):
    """What lays out a call's fresh output Arrays (:func:`_sharding_of_rank`), or None;
    given the program's ``out_avals``, each output's layout is picked once, here."""
    pick = _sharding_of_rank(first, rank, all_on_first)
    if pick is None:
        return None
    if out_avals is not None:
        return _eager_layout.setting([pick(len(a.shape)) for a in out_avals])

    def lay_out(outs):
        for o in outs:
            if type(o) is Array:
                set_layout(o, pick(o.ndim))
    return lay_out


_REPLICATING = {}   # id(mesh) -> (mesh, what lays out every output as P() on it)


def _replicating(mesh):
    got = _REPLICATING.get(id(mesh))
    if got is None or got[0] is not mesh:   # (the mesh kept: its id stays its own)
        if len(_REPLICATING) > 64:
            _REPLICATING.clear()
        rep = replicated_on(mesh)

        def lay_out(outs):
            for o in outs:
                if type(o) is Array:
                    set_layout(o, rep)
        got = _REPLICATING[id(mesh)] = (mesh, lay_out)
    return got[1]


def compiled_shardings(lowered):
    """``(input_shardings, output_shardings)`` of ``jit(f).lower(*args).compile()``, as
    JAX's on one device: the arguments' layouts (recorded by ``lower``: committed
    arrays, ShapeDtypeStructs with a sharding, jit's ``in_shardings``), the others
    replicated on the mesh in use or on their device; outputs as a call lays them out
    (``out_shardings``, else the rule of the module docstring)."""
    given_in, given_out = getattr(lowered, "given_shardings", (None, UNSPECIFIED))
    layouts = list(lowered.arg_layouts)
    ranks = [len(a.shape) for a in lowered.jaxpr.in_avals]
    if given_in is not None:
        mesh = current_mesh()
        layouts = [s if isinstance(s, NamedSharding) and (isinstance(own, NamedSharding)
                                                          or s.mesh == mesh) else own
                   for s, own in zip(given_in, layouts)]
    first = rank = None
    all_on_first = True
    for s, r in zip(layouts, ranks):
        if s == "scalar":
            continue
        if not isinstance(s, NamedSharding):
            all_on_first = False
        elif first is None:
            first, rank = s, r
        elif s.mesh != first.mesh:
            all_on_first = False
    pick = _sharding_of_rank(first, rank, all_on_first)
    mesh = first.mesh if first is not None else current_mesh()
    device = lowered.device or _HOST.device
    single = SingleDeviceSharding(device)
    ins = [s if isinstance(s, NamedSharding) else
           replicated_on(mesh) if mesh is not None else single for s in layouts]
    if given_in is not None:   # an explicit in_shardings entry is the argument's
        ins = [g if g is not None else s for g, s in zip(given_in, ins)]
    outs = [pick(len(a.shape)) if pick is not None else single
            for a in lowered.jaxpr.out_avals]
    one_mesh = all(s.mesh == mesh for s in layouts if isinstance(s, NamedSharding))
    if first is not None and one_mesh and AxisType.Explicit in mesh.axis_types:
        specs = [tuple(s.spec) + (None,) * (r - len(s.spec))
                 if isinstance(s, NamedSharding) else None for s, r in zip(layouts, ranks)]
        outs = [_eager_layout.named(mesh, spec)
                for spec in _eager_layout.propagate(lowered.jaxpr.jaxpr, specs)]
    if given_out is not UNSPECIFIED:
        dummy = tree_unflatten(lowered.out_tree, [0] * len(outs))
        per_leaf = broadcast_prefix(given_out, dummy, is_leaf=_is_leaf)
        outs = [_resolved(g, "out_shardings") or o for g, o in zip(per_leaf, outs)]
    return (tree_unflatten(lowered.in_tree, ins),
            tree_unflatten(lowered.out_tree, outs))


def lay_out_outputs(in_leaves, entry=None, raw=None):
    """jit's hook (``api.set_output_layout``), read before a call with its argument
    leaves (Python scalars have no layout, as in JAX), the cache ``entry`` it runs and
    the leaves' ``raw`` values: what lays out its outputs (None: nothing). Where the
    committed arguments share a mesh with Explicit axes (the others count as unsplit),
    JAX types each output (tjit._eager_layout.propagate: a transpose's spec is permuted,
    a reduction's drops its axes); else the rule of the module docstring. Worked out
    once per entry and argument layouts (``entry.layouts``)."""
    if raw is not None and not _DEVICE_ARRAYS and LaidOutValue not in map(type, raw):
        # no argument is committed (a committed Array's host buffer is a LaidOutValue,
        # sharding.set_layout): one pass in C over the buffers' types, no leaf read
        mesh = current_mesh()
        return None if mesh is None else _replicating(mesh)
    if entry is None:
        return _worked_out(in_leaves, None)[1]
    key = tuple([id(getattr(x, "_sharding", None)) if type(x) is Array else
                 type(x) in _PY_SCALARS for x in in_leaves])
    memo = entry.layouts
    got = None if memo is None else memo.get(key)
    if got is None:
        layouts, lay_out = _worked_out(in_leaves, entry)
        if layouts is None:   # (none committed: the current mesh decides, call by call)
            return lay_out
        if memo is None or len(memo) > 64:
            memo = entry.layouts = {}
        # (the layouts are kept with the result: their ids stay theirs)
        got = memo[key] = (layouts, lay_out)
    return got[1]


def _worked_out(in_leaves, entry):
    """``(the arguments' layouts, what lays out the outputs)`` of :func:`lay_out_outputs`
    (layouts None where no argument is committed: the result depends on the current
    mesh, read on every call)."""
    layouts = [getattr(x, "_sharding", None) if type(x) is Array else None
               for x in in_leaves]
    first = rank = None
    all_on_first = one_mesh = True
    for x, s in zip(in_leaves, layouts):
        if s is None:
            if not isinstance(x, _PY_SCALARS):
                all_on_first = False
        elif first is None:
            first, rank = s, x.ndim
        elif s.mesh is not first.mesh and s.mesh != first.mesh:
            all_on_first = one_mesh = False
    if first is None:
        return None, _layout_rule(None, None, False)
    if one_mesh and entry is not None and AxisType.Explicit in first.mesh.axis_types:
        jaxpr = entry.closed_jaxpr.jaxpr
        if len(jaxpr.invars) == len(in_leaves):
            return layouts, _eager_layout.typed_layout(jaxpr, in_leaves, first.mesh)
    out_avals = None if entry is None else entry.out_avals
    return layouts, _layout_rule(first, rank, all_on_first, out_avals)


ON_FIRST_LAYOUT.append(lambda: set_output_layout(lay_out_outputs))

# (eager results laid out from their operands' layouts: installed with this module)
from tjit import _eager_layout  # noqa: E402,F401
