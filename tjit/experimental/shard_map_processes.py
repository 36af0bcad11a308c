"""``shard_map`` over a mesh of MPI processes (one device each) traced into ``jit``/``grad``.

What a traced argument means there: the global value, the same in every process (a
replicated host value, as tjit's top-level shard_map takes it). What comes back: the
global output, the same in every process. So ``jit(shard_map(step, mesh, (P(), P('data')),
P()))(params, batch)`` is one data-parallel training step inside one jit.

How it is built (every process traces the same program, SPMD):

1. each argument's block at this process's mesh coordinates is a static slice; its
   cotangent is the sum over the processes of their blocks' cotangents padded to the
   global shape (``psum`` over every mesh axis), so each process gets the whole gradient
   of a replicated argument;
2. the function runs on the blocks with the mesh axes bound to their sizes and to the
   mesh's :class:`~tjit.tracing.axis_env.CommunicatorTable` (the communicators of its
   process groups, MPI ``Comm.Split``, one table per mesh); each collective traced there
   carries the table in its params and is a step of the enclosing compiled plan that
   runs on those communicators. Nothing is bound process-wide, so after the call the
   names are unbound again (a stray ``lax.psum(x, 'i')`` raises as in JAX), and the
   transposes ``grad`` traces later find their communicators in their params;
3. each output is ``all_gather``'d (tiled) over the mesh axes that split its dims; its
   cotangent, the same in every process, is cut to this process's block and divided by
   the number of copies along the axes out_specs leaves out (JAX's shard_map transpose).

Both wrappers are linear maps with those transposes stated (``linear_call``), so forward
mode (``jvp``, ``linearize``, ``jacfwd``: the tangents take the same slices and gathers,
on the same communicators) and reverse mode both differentiate the whole program.
"""

import math

import numpy as np

from tjit import lax
from tjit.api import ShapeDtypeStruct
from tjit.custom_derivatives import linear_call
from tjit.distributed import runtime
from tjit.experimental.shard_map_traced import block_function, block_shape, checked_out_specs
from tjit.parallel import _bound
from tjit.sharding import check_spec
from tjit.tracing import dtypes
from tjit.tracing.axis_env import CommunicatorTable
from tjit.tracing.core import get_aval
from tjit.tracing.tree_util import tree_unflatten


def across_processes(sm, leaves, treedef, specs, infer_varying):
    """The global outputs of ``sm`` at argument ``leaves`` (tracers among them), traced in
    this process of a multi-process mesh."""
    mesh = sm.mesh
    rt = runtime.require(sm.where)
    mine = sm._local_devices(rt)
    coords = mesh.coords(mine[0])
    table = _communicator_table(sm, rt, mine)
    blocks, avals = [], []
    for i, (x, spec) in enumerate(zip(leaves, specs)):
        shape = tuple(get_aval(x).shape)
        check_spec(spec, mesh, f"{sm.where}: in_specs for argument {i}", len(shape))
        block = block_shape(shape, spec, mesh, sm.where, i)
        blocks.append(_my_block(x, spec, mesh, coords, shape, block, table))
        aval = get_aval(x)
        avals.append(ShapeDtypeStruct(block, aval.dtype, aval.weak_type))
    per_block, out_store = block_function(sm, treedef)
    out_specs = checked_out_specs(sm, treedef, avals, specs, per_block, out_store,
                                  infer_varying)
    with _mesh_scope(mesh, table):
        outs = per_block(*blocks)
        glob = [_global_value(y, spec, mesh, coords) for y, spec in zip(outs, out_specs)]
    return tree_unflatten(out_store["tree"], glob)


def _communicator_table(sm, rt, mine):
    """The mesh's table in this runtime, made once per mesh (its communicators are MPI
    splits, themselves made once per mesh and axes)."""
    table = rt.mesh_tables.get(sm.mesh)
    if table is None:
        mesh = sm.mesh
        table = rt.mesh_tables[mesh] = CommunicatorTable(
            mesh, mesh.shape, sm._communicators(rt, mine)[0])
    return table


def _mesh_scope(mesh, table):
    """The mesh's axis names bound to their sizes and communicators while tracing."""
    return _bound([(n, mesh.shape[n]) for n in mesh.axis_names], comms=table)


def _starts(spec, mesh, coords, block):
    """Where this process's block starts in each dim (row-major over the dim's axes)."""
    out = []
    for d, b in enumerate(block):
        idx = 0
        for a in spec.axes_of(d):
            idx = idx * mesh.shape[a] + coords[a]
        out.append(idx * b)
    return out


def _my_block(x, spec, mesh, coords, shape, block, table):
    """This process's block of the replicated argument ``x``: a slice, linear, whose
    transpose sums the padded cotangents of every process's block (``linear_call``, so
    forward and reverse mode both hold)."""
    starts = _starts(spec, mesh, coords, block)
    limits = [s + b for s, b in zip(starts, block)]
    every_axis = tuple(mesh.axis_names)

    def take(_, x):
        return lax.slice(x, starts, limits)

    def take_transpose(_, ct):
        padded = lax.pad(ct, np.zeros((), ct.dtype),
                         [(s, n - l, 0) for s, l, n in zip(starts, limits, shape)])
        return lax.psum(padded, every_axis)

    if not dtypes.is_inexact(get_aval(x).dtype):   # (not differentiable)
        return take((), x)
    with _mesh_scope(mesh, table):   # (the transpose's psum runs on the mesh's processes)
        return linear_call(take, take_transpose, (), x)


def _global_value(y, spec, mesh, coords):
    block = tuple(get_aval(y).shape)
    check_spec(spec, mesh, "shard_map: out_specs", len(block))
    starts = _starts(spec, mesh, coords, block)
    limits = [s + b for s, b in zip(starts, block)]
    copies = math.prod(mesh.shape[n] for n in mesh.axis_names if n not in spec.mesh_axes())

    def assemble(_, y):
        for d in range(len(block)):
            if spec.axes_of(d):
                y = lax.all_gather(y, spec.axes_of(d), axis=d, tiled=True)
        return y

    def assemble_transpose(_, ct):
        mine = lax.slice(ct, starts, limits)
        return mine / np.asarray(copies, ct.dtype) if copies > 1 else mine

    if not dtypes.is_inexact(get_aval(y).dtype):
        return assemble((), y)
    return linear_call(assemble, assemble_transpose, (), y)
