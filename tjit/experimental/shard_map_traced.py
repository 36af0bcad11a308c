"""``shard_map`` under an enclosing transformation (``jit``, ``grad``, ``vmap``) in a
one-process run: traced as nested ``vmap(axis_name=...)``, one level per mesh axis.

That is the definition of the collectives (``vmap(axis_name)`` is their semantics
oracle), so ``jit(shard_map(f, ...))`` gives the values of the top-level call and
``grad`` differentiates the whole global computation exactly: a replicated input
(``P()``) is broadcast to every block, so its cotangent is the sum over the blocks; a
replicated output is block 0's copy, which check_rep proved equal to every other copy.

How a traced call is built:

1. each argument leaf of global shape G is reshaped so that every dim split over mesh
   axes (a1, .., ar) becomes (n_a1, .., n_ar, G_d / prod n) and those mesh-axis dims are
   moved to the front in mesh order (row-major block order, as ``NamedSharding``);
2. the function runs under one ``vmap`` per mesh axis (outermost = first mesh axis),
   mapping the leaves whose spec names that axis and broadcasting the others;
3. each output (leading dims: every mesh axis) keeps block 0 along the axes its out_spec
   leaves out and merges the named ones back into the dims they split.

A mesh of several CPU devices of this process is bound instead as one ``shard_map``
equation that runs the blocks on the devices' threads (``shard_map_threads.py``); its
batching rule (and its jvp for integer values) expands it into this form. A mesh
over several processes is traced by ``shard_map_processes.py``.
"""

import numpy as np

# (the public vmap: experimental/ sits above transforms/)
from tjit import lax, vmap
from tjit.api import ShapeDtypeStruct, make_jaxpr
from tjit.distributed.arrays import GlobalArray
from tjit.parallel import _bound
from tjit.sharding import NamedSharding, check_spec
from tjit.tracing.core import get_aval
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def traced_call(sm, leaves, treedef, specs, infer_varying, threaded=None):
    """The global outputs of ``sm`` (a ``_ShardMapped``) at argument ``leaves`` (some of
    them tracers), traced into the enclosing transformation. ``threaded``: how to bind it
    as one equation run on the mesh devices' threads (``shard_map_threads.threaded_call``),
    else the vmap form is traced in."""
    mesh = sm.mesh
    leaves = [np.asarray(x) if isinstance(x, GlobalArray) else x for x in leaves]
    block_avals = []
    for i, (x, spec) in enumerate(zip(leaves, specs)):
        aval = get_aval(x)
        check_spec(spec, mesh, f"{sm.where}: in_specs for argument {i}", len(aval.shape))
        bshape = block_shape(tuple(aval.shape), spec, mesh, sm.where, i)
        block_avals.append(ShapeDtypeStruct(bshape, aval.dtype, aval.weak_type))
    per_block, out_store = block_function(sm, treedef)
    out_specs = checked_out_specs(sm, treedef, block_avals, specs, per_block, out_store,
                                  infer_varying)
    if threaded is not None:
        outs = threaded(per_block, mesh, specs, out_specs, leaves, block_avals, sm.where,
                        sm.check_rep)
    else:
        outs = vmap_form(per_block, mesh, specs, out_specs, leaves, sm.where)
    # (each output laid out as its out_spec from here: what a jit's outputs are typed by)
    outs = [lax.with_sharding_constraint(o, NamedSharding(mesh, spec))
            if spec is not None else o for o, spec in zip(outs, out_specs)]
    return tree_unflatten(out_store["tree"], outs)


def vmap_form(per_block, mesh, specs, out_specs, leaves, where):
    """The flat global outputs of ``per_block`` (flat blocks -> flat outputs) mapped over
    the blocks of ``leaves``: one ``vmap(axis_name=...)`` per mesh axis (the definition)."""
    stacked = [_to_blocks(x, spec, mesh, where, i)[0]
               for i, (x, spec) in enumerate(zip(leaves, specs))]
    fn = per_block
    for name in reversed(mesh.axis_names):
        in_axes = tuple(0 if name in spec.mesh_axes() else None for spec in specs)
        fn = vmap(fn, in_axes=in_axes, out_axes=0, axis_name=name,
                  axis_size=mesh.shape[name])   # (every argument may be replicated)
    outs = fn(*stacked)
    return [_from_blocks(y, spec, mesh) for y, spec in zip(outs, out_specs)]


def block_function(sm, treedef):
    """``sm``'s function on one block's flat leaves, returning flat outputs, and the
    store where a call leaves the outputs' tree (``out_store["tree"]``)."""
    out_store = {}

    def per_block(*flat):
        out = sm.f(*tree_unflatten(treedef, list(flat)))
        flat_out, out_store["tree"] = tree_flatten(out)
        return flat_out
    return per_block, out_store


def _to_blocks(x, spec, mesh, where, i):
    """``x`` with the blocks of ``spec`` stacked in front (one dim per mesh axis the spec
    names, in mesh order), and the shape of one block."""
    shape = tuple(get_aval(x).shape)
    check_spec(spec, mesh, f"{where}: in_specs for argument {i}", len(shape))
    split = [[(a, mesh.shape[a]) for a in spec.axes_of(d)] for d in range(len(shape))]
    block = block_shape(shape, spec, mesh, where, i)
    if not spec.mesh_axes():
        return x, tuple(block)
    wide, where_axis, pos = [], {}, 0
    for parts, b in zip(split, block):
        for a, s in parts:
            where_axis[a] = pos
            wide.append(s)
            pos += 1
        wide.append(b)
        pos += 1
    lead = [where_axis[a] for a in mesh.axis_names if a in where_axis]
    rest = [p for p in range(len(wide)) if p not in lead]
    return lax.transpose(lax.reshape(x, tuple(wide)), tuple(lead + rest)), tuple(block)


def block_shape(shape, spec, mesh, where, i):
    """The shape of one block of argument ``i`` split by ``spec`` (NamedSharding's rule),
    the error naming the call and the argument."""
    try:
        return NamedSharding(mesh, spec).shard_shape(shape)
    except ValueError as e:
        raise ValueError(f"{where}: argument {i} of shape {tuple(shape)} cannot be split by "
                         f"{spec}: {e}") from None


def _from_blocks(y, spec, mesh):
    """The global value of output ``y`` (leading dims: every mesh axis in mesh order,
    then one block) laid out by ``spec``."""
    names = mesh.axis_names
    mentioned = spec.mesh_axes()
    for k in reversed(range(len(names))):       # the copy on block 0 of unnamed axes
        if names[k] not in mentioned:
            y = lax.index_in_dim(y, 0, axis=k, keepdims=False)
    lead = [n for n in names if n in mentioned]
    block = tuple(get_aval(y).shape)[len(lead):]
    if not lead:
        return y
    perm = []
    for d in range(len(block)):
        perm += [lead.index(a) for a in spec.axes_of(d)] + [len(lead) + d]
    glob = tuple(b * int(np.prod([mesh.shape[a] for a in spec.axes_of(d)]))
                 for d, b in enumerate(block))
    return lax.reshape(lax.transpose(y, tuple(perm)), glob)


def checked_out_specs(sm, treedef, block_avals, specs, per_block, out_store, infer_varying):
    """One out_spec per output leaf, checked against the outputs' ranks and (check_rep)
    against the axes each output may vary along; cached per argument signature."""
    key = ("traced", treedef, tuple((a.shape, a.dtype) for a in block_avals), tuple(specs))
    got = sm._programs.get(key)
    if got is not None:
        return got
    with _bound(list(mesh_items(sm.mesh))):
        closed, out_shapes = make_jaxpr(per_block, return_shape=True)(*block_avals)
    varying = infer_varying(closed.jaxpr, [frozenset(s.mesh_axes()) for s in specs])
    out_tree = out_store["tree"]
    example = tree_unflatten(out_tree, [np.zeros((), np.float32)] * out_tree.num_leaves)
    leaf_specs = sm._leaf_specs(sm.out_specs, example, "out_specs")
    for i, (shape, spec) in enumerate(zip(out_shapes, leaf_specs)):
        check_spec(spec, sm.mesh, f"{sm.where}: out_specs for output {i}", len(shape.shape))
        if sm.check_rep:
            sm._check_replication(i, spec, varying[i])
    sm._programs[key] = leaf_specs
    return leaf_specs


def mesh_items(mesh):
    return [(n, mesh.shape[n]) for n in mesh.axis_names]
