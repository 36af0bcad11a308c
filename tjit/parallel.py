"""``pmap``: one program per device, on threads, with collectives between them; and
``compile_spmd``, the per-device program itself, for runtimes that bring their own
communicators (``tjit.distributed`` on MPI).

How a ``pmap`` call runs (eager arguments):

1. each argument leaf is split along its mapped axis (``in_axes``); the mapped size must
   not exceed the devices (the first ``n`` devices are used; with ``devices=`` it must
   equal their number);
2. the function is traced once per signature for one device's slice, with the axis name
   bound to its size (``tracing/axis_env.py``), and compiled once (``jit(...).lower``):
   collectives become ``collective_*`` steps of the plan;
3. one thread per device runs the compiled program with the axis name bound to its
   :class:`~tjit.devices.collectives.ThreadCommunicator` (the CPU kernels release the
   GIL); the collective steps meet at the group's barrier. If a device fails, the others
   are released and the first device's error is raised;
4. the outputs are stacked along ``out_axes``; the result records the devices it came from
   (``result.devices()``).

Under an enclosing transformation (``jit(grad(pmap(f)))``, ``vmap(pmap(f))``) the
arguments are tracers, so no device can run yet: ``pmap`` is then traced as
``vmap(f, axis_name=...)`` — the same values by definition of the collectives — into
the enclosing program, which runs as one program. In a multi-process run (one device per
process) the axis spans the processes: the traced ``f`` maps this process's slice and its
collectives carry the axis's MPI communicator (a ``CommunicatorTable``), so ``jit``,
``jvp``, ``linearize``, ``jacfwd`` and ``grad`` of ``pmap`` communicate as the top-level
call does. With several devices in each process it is one threaded step of the enclosing
program instead, the per-device program on each device's thread with the hierarchical
communicators (``traced_across_processes``: ``tjit/experimental/pmap_threads.py``).
"""

import functools
import threading
import warnings

import numpy as np

from tjit.api import ShapeDtypeStruct, jit
from tjit.devices import backend as _backends
from tjit.devices.pmap_runtime import run_on_devices
from tjit.devices.sharded import stacked_result
from tjit.distributed.process_axis import process_axis
from tjit.tracing.traceback_util import api_boundary
from tjit.tracing.axis_env import CommunicatorTable, extend_axis_env
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing.static_keys import static_key
from tjit.tracing.errors import ShapeError
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.transforms.batching import _AxesSpec, _flatten_axes, _Labels, vmap


class _Unnamed:
    """The axis name of a pmap given none (collectives cannot name it)."""

    def __repr__(self):
        return "<unnamed pmap axis>"


def compile_spmd(fun, axis_sizes, example_args, backend="cpu", donate=()):
    """Trace and compile ``fun`` as the program of one member of the named axes.

    Args:
      fun: the per-member function (arrays or pytrees in and out).
      axis_sizes: ``{axis name: size}`` of the axes its collectives name.
      example_args: arguments (arrays or ``ShapeDtypeStruct``s) of one member.
      backend: the backend that compiles it (collectives run on "cpu" and "interpreter").
      donate: flat positions of argument leaves donated to the program (jit's
        ``donate_argnums`` over the flattened arguments).
    Returns:
      A callable taking one member's arguments; it runs the compiled program with the
      communicators bound in the calling thread (``devices.collectives.bind_axis``).
    """
    leaves, tree = tree_flatten(tuple(example_args))
    specs = [x if isinstance(x, ShapeDtypeStruct) else
             ShapeDtypeStruct(get_aval(x).shape, get_aval(x).dtype, get_aval(x).weak_type)
             for x in leaves]
    out_store = {}

    def flat_fun(*flat):
        out = fun(*tree_unflatten(tree, list(flat)))
        flat_out, out_store["tree"] = tree_flatten(out)
        return flat_out

    flat_fun.__name__ = getattr(fun, "__name__", "spmd_fun")
    with _bound(list(axis_sizes.items())):
        compiled = jit(flat_fun, backend=backend,
                       donate_argnums=tuple(donate)).lower(*specs).compile()
    out_tree = out_store["tree"]
    fast = _FastCall(compiled, tree)

    def run(*args):
        outs = fast(args)
        if outs is not None:
            return tree_unflatten(out_tree, outs)
        flat, t = tree_flatten(args)
        if t != tree:
            raise TypeError(f"compile_spmd({flat_fun.__name__}): arguments of structure {t} "
                            f"do not match the compiled structure {tree}")
        return tree_unflatten(out_tree, compiled(*flat))

    run.compiled = compiled
    return run


class _FastCall:
    """The per-call path of an SPMD program whose arguments are exactly the compiled
    ones (a flat tuple of NumPy arrays or tjit Arrays of the traced shapes and dtypes):
    straight to the executable, skipping ``Compiled.__call__``'s generic pytree and
    argument conversion (~15 us, most of a small collective's latency across
    processes). Anything else returns None and takes the general path."""

    def __init__(self, compiled, tree):
        jaxpr = compiled.lowered.jaxpr
        n = len(jaxpr.in_avals)
        flat_tuple = tree_flatten(tuple(range(n)))[1]
        self.ok = tree == flat_tuple and not compiled.lowered.donated and not getattr(
            compiled.executable, "device_arrays", False)
        self.expected = [(tuple(a.shape), np.dtype(a.dtype)) for a in jaxpr.in_avals]
        self.outs = [(np.dtype(a.dtype), a.weak_type) for a in jaxpr.out_avals]
        self.call = compiled.executable.call

    def __call__(self, args):
        if not self.ok or len(args) != len(self.expected):
            return None
        raw = []
        for x, (shape, dtype) in zip(args, self.expected):
            v = x._value if type(x) is Array else x
            if type(v) is not np.ndarray or v.shape != shape or (
                    v.dtype is not dtype and v.dtype != dtype):   # (identity: the usual)
                return None
            raw.append(v)
        return [Array(o if type(o) is np.ndarray and (o.dtype is dt or o.dtype == dt)
                      else np.asarray(o, dt), weak)
                for o, (dt, weak) in zip(self.call(raw), self.outs)]


class _bound:
    """Bind several axis names to sizes while tracing (``comms``: the
    ``CommunicatorTable`` serving them, for a mesh of processes traced into jit)."""

    def __init__(self, pairs, comms=None):
        self.ctxs = [extend_axis_env(n, s, comms) for n, s in pairs]

    def __enter__(self):
        for c in self.ctxs:
            c.__enter__()

    def __exit__(self, *exc):
        for c in reversed(self.ctxs):
            c.__exit__(*exc)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map ``fun`` over devices (JAX's ``pmap``): the mapped axis of the inputs is split
    across devices, each runs ``fun`` compiled once, and collectives over ``axis_name``
    communicate between them. After ``tjit.distributed.initialize()`` with several
    processes, the axis spans every process's devices (P * N with
    ``TJIT_NUM_CPU_DEVICES=N``): each process passes its local slice (leading size
    ``tjit.local_device_count()``), collectives run over the global axis (among a
    process's devices on threads, then MPI between processes), and each process gets its
    local slice of the result.

    Args:
      axis_name: the name collectives use for the mapped axis.
      in_axes, out_axes: as vmap's (an int, None, or pytree prefixes).
      static_broadcasted_argnums: positional arguments passed to every device as Python
        values (hashable; part of the compile key).
      devices: the devices to run on (default: the first n of ``tjit.local_devices()``).
      backend: the backend that compiles (default: the CPU).
      axis_size: the mapped size when no argument is mapped.
      donate_argnums: positional arguments donated, as in JAX: each device's slice of
        them is handed to its program, which may write an output of the same shape and
        dtype into it instead of a new buffer, and the donated tjit Arrays are deleted
        after the call (using them raises). NumPy arrays are never written (a warning
        says so). Not with static_broadcasted_argnums.
    """
    if not callable(fun):
        raise TypeError(f"pmap: expected a callable, got {type(fun).__name__} {fun!r:.60}")
    statics = ((static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
               else tuple(static_broadcasted_argnums))
    name = _Unnamed() if axis_name is None else axis_name
    fname = getattr(fun, "__name__", type(fun).__name__)
    where = f"pmap({fname})"
    donated_args = _donated_argnums(donate_argnums, statics, where)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    out_spec = _AxesSpec(out_axes)
    cache, lock = {}, threading.Lock()

    @api_boundary
    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        static_vals = tuple((i, args[i]) for i in statics if i < len(args))
        dyn = [a for i, a in enumerate(args) if i not in statics]
        dyn_in_axes = in_axes
        if type(in_axes) is tuple:
            if len(in_axes) != len(args):
                raise ValueError(f"{where}: in_axes has {len(in_axes)} entries but the "
                                 f"function got {len(args)} positional arguments")
            dyn_in_axes = tuple(a for i, a in enumerate(in_axes) if i not in statics)

        def with_statics(*dyn_args, **kw):
            it = iter(dyn_args)
            full = [dict(static_vals)[i] if i in statics else next(it)
                    for i in range(len(args))]
            return fun(*full, **kw)
        with_statics.__name__ = fname

        # as JAX: keyword arguments are mapped along their leading axis
        leaves, tree = tree_flatten((tuple(dyn), kwargs))
        n_kw = len(tree_flatten(kwargs)[0])
        labels = _Labels(fun, (tuple(dyn), kwargs))
        axes = _flatten_axes(_AxesSpec(dyn_in_axes), tuple(dyn), len(leaves) - n_kw,
                             "in_axes", where, labels, "the positional arguments") + [0] * n_kw
        n = _mapped_size(leaves, axes, axis_size, where)
        donated = _donated_leaves(donated_args, args, statics)
        axes = [None if ax is None else ax % len(get_aval(x).shape)
                for x, ax in zip(leaves, axes)]
        devs = _devices_for(n, devices, backend, where)
        if any(isinstance(x, Tracer) for x in leaves):
            spans = process_axis(name, n)
            if spans is not None and callable(spans[1]):   # several devices here
                def per_device(*flat):
                    a, kw = tree_unflatten(tree, list(flat))
                    return with_statics(*a, **kw)

                def out_axes_of(out):
                    return _flatten_axes(out_spec, out, len(tree_flatten(out)[0]),
                                         "out_axes", where, _Labels(fun, out, output=True),
                                         "the function's output")
                return traced_across_processes(per_device, leaves, axes, name, out_axes_of,
                                               where)
            if spans is not None:   # the axis spans processes: this one maps its slice
                with _bound([(name, spans[0])], comms=_process_table(name, *spans)):
                    return vmap(with_statics, in_axes=dyn_in_axes, out_axes=out_axes,
                                axis_size=axis_size)(*dyn, **kwargs)
            return vmap(with_statics, in_axes=dyn_in_axes, out_axes=out_axes,
                        axis_name=name, axis_size=axis_size)(*dyn, **kwargs)
        # several processes (after tjit.distributed.initialize()): the axis spans every
        # process's devices, this process passes and gets back its local slice
        spans = process_axis(name, n)
        size, comms = (n, None) if spans is None else spans
        key = (tree, tuple((tuple(get_aval(x).shape), get_aval(x).dtype,
                            get_aval(x).weak_type, ax) for x, ax in zip(leaves, axes)),
               _static_key(static_vals, where),
               size, backend)
        with lock:
            entry = cache.get(key)
        if entry is None:
            slices = [ShapeDtypeStruct(_drop(get_aval(x).shape, ax), get_aval(x).dtype,
                                       get_aval(x).weak_type) for x, ax in zip(leaves, axes)]
            def per_device_fun(*flat):
                a, kw = tree_unflatten(tree, flat)
                return with_statics(*a, **kw)
            per_device_fun.__name__ = fname
            entry = compile_spmd(per_device_fun, {name: size}, slices, backend or "cpu",
                                 donate=donated)
            with lock:
                cache[key] = entry
        per_device = [[_slice(x, ax, r, i in donated) for i, (x, ax) in
                       enumerate(zip(leaves, axes))] for r in range(n)]
        outs = run_on_devices(entry, per_device, name, comms)
        _delete_donated(leaves, donated, where)
        out_leaves, out_tree = tree_flatten(outs[0])
        per_leaf = [[tree_flatten(o)[0][k] for o in outs] for k in range(len(out_leaves))]
        oaxes = _flatten_axes(out_spec, outs[0], len(out_leaves), "out_axes", where,
                              _Labels(fun, outs[0], output=True), "the function's output")
        res = [stacked_result(vals, ax, devs) for vals, ax in zip(per_leaf, oaxes)]
        return tree_unflatten(out_tree, res)

    pmapped._cache_size = lambda: len(cache)
    return pmapped


_process_tables = {}   # pmap axis communicator -> its CommunicatorTable (one per axis)


def _refuse_traced(per_device, leaves, axes, name, out_axes_of, where):
    raise NotImplementedError(
        f"{where}: traced into jit, grad or jvp over axis {name!r}, which spans several "
        f"devices in each process; import tjit.experimental.shard_map (it runs such a "
        f"pmap on the devices' threads)")


#: How a pmap traced into jit/grad/jvp runs over several devices in each of several
#: processes: tjit/experimental/pmap_threads.py (above this layer) sets it when
#: imported (``import tjit`` does), binding one threaded shard_map equation.
traced_across_processes = _refuse_traced


def _process_table(name, size, comms):
    """The table that collectives over pmap axis ``name`` traced into an enclosing
    transformation carry in a multi-process run: they then run on the axis's MPI
    communicator (this process's slice is its one device; the others' are elsewhere)."""
    if not isinstance(comms, list) or len(comms) != 1:
        raise NotImplementedError(
            f"pmap over axis {name!r} inside jit, grad, jvp or vmap with several devices "
            f"in each process: traced, pmap maps one device per process across processes; "
            f"call pmap at the top level (pmap(jax.grad(f)) works), or launch one process "
            f"per device")
    (comm,) = comms
    table = _process_tables.get(comm)
    if table is None:
        table = _process_tables[comm] = CommunicatorTable(("pmap", name), {name: size},
                                                          {name: comm})
    return table


def _static_key(static_vals, where):
    """The static arguments' cache key, with their types (2 and 2.0 trace apart, as
    jit's: static_keys.py), each remembered for the same unchangeable value."""
    try:
        return tuple([(i, static_key(v)[0]) for i, v in static_vals])
    except TypeError:
        raise TypeError(f"{where}: static_broadcasted_argnums arguments must be hashable, "
                        f"got {static_vals!r:.80}") from None


def _donated_argnums(donate_argnums, statics, where):
    nums = ((donate_argnums,) if isinstance(donate_argnums, int)
            else tuple(donate_argnums))
    both = sorted(set(nums) & set(statics))
    if both:
        raise ValueError(f"{where}: argument(s) {both} are both static_broadcasted_argnums "
                         f"and donate_argnums; a static argument is a Python value with no "
                         f"buffer to donate: remove it from donate_argnums")
    return frozenset(nums)


def _donated_leaves(donated_args, args, statics):
    """Flat positions (among the leaves of the non-static positional arguments, which
    come first) of the leaves of donated arguments."""
    if not donated_args:
        return frozenset()
    out, pos = set(), 0
    for i, a in enumerate(args):
        if i in statics:
            continue
        k = len(tree_flatten(a)[0])
        if i in donated_args:
            out.update(range(pos, pos + k))
        pos += k
    return frozenset(out)


def _delete_donated(leaves, donated, where):
    """After the call, as jit: donated Arrays are deleted; NumPy arrays were copied."""
    for i in sorted(donated):
        x = leaves[i]
        if type(x) is Array:
            x.delete()
        elif isinstance(x, (np.ndarray, np.generic)):
            warnings.warn(f"{where}: Some donated buffers were not usable: argument leaf {i} "
                          f"is a NumPy array, which tjit never writes into; donate a tjit "
                          f"Array (jnp.asarray(x)) to hand its buffer over.", UserWarning,
                          stacklevel=3)


def _drop(shape, ax):
    return tuple(shape) if ax is None else tuple(shape[:ax]) + tuple(shape[ax + 1:])


def _slice(x, ax, r, donated=False):
    """Device ``r``'s argument: its slice along ``ax`` (None: all of ``x``). Donated: a
    buffer of its own in an Array that nothing else holds, which its program may
    write into."""
    if not donated:
        if ax is None:
            return x
        return np.asarray(np.take(np.asarray(x), r, axis=ax), order="C")
    host = np.asarray(x) if ax is None else np.take(np.asarray(x), r, axis=ax)
    return Array(np.array(host, order="C"), bool(get_aval(x).weak_type))


def _mapped_size(leaves, axes, axis_size, where):
    sizes = set()
    for x, ax in zip(leaves, axes):
        if ax is None:
            continue
        shape = tuple(get_aval(x).shape)
        if not -len(shape) <= ax < len(shape):
            raise ValueError(f"{where}: in_axes={ax} is out of range for an argument of shape "
                             f"{shape}; map an existing axis or pass None for it")
        sizes.add(shape[ax])
    if len(sizes) > 1:
        raise ShapeError(f"{where}: the mapped axes have different sizes {sorted(sizes)}; "
                         f"every mapped argument needs the same size along its in_axes")
    if not sizes:
        if axis_size is None:
            raise ValueError(f"{where}: no argument is mapped (in_axes all None); pass "
                             f"axis_size")
        return axis_size
    return sizes.pop()


def _devices_for(n, devices, backend, where):
    if devices is not None:
        devices = list(devices)
        if n != len(devices):
            raise ValueError(f"{where}: the mapped axis has size {n} but {len(devices)} "
                             f"devices were given; the mapped size must equal the number "
                             f"of devices")
        return devices
    avail = _backends.local_devices(backend)
    if n > len(avail):
        raise ValueError(
            f"{where}: compiling computation that requires {n} logical devices, but only "
            f"{len(avail)} devices are available (num_replicas={n}): the mapped axis "
            f"has size {n} and there are {len(avail)} local devices; set "
            f"TJIT_NUM_CPU_DEVICES={n} (before the first use of the devices) for {n} CPU "
            f"devices, or map a smaller axis")
    return avail[:n]
