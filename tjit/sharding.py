"""Meshes of devices and how arrays are laid out on them, as ``jax.sharding``.

* :class:`Mesh` — an n-d array of devices with a name per axis (``Mesh(devs, ('data',
  'model'))``); :func:`make_mesh` builds one over ``tjit.devices()``.
* :class:`PartitionSpec` (``P``) — per array dimension, the mesh axes it is split over
  (a name, a tuple of names, or None for not split).
* :class:`NamedSharding` — a mesh and a spec: which block of a global array each device
  holds (``devices_indices_map``), the block's shape (``shard_shape``).
* :class:`SingleDeviceSharding` and :class:`PmapSharding` — ``x.sharding`` of an Array on
  one device and of a ``pmap`` result.

The devices may belong to several processes (after ``tjit.distributed.initialize()``,
``tjit.devices()`` lists every process's devices); a device's ``process_index`` says
which process drives it, and the devices of this process are its addressable ones.
"""

import enum
import math
import threading

import numpy as np

from tjit.devices.backend import Device
from tjit.devices.runner import IN_PLACE_TYPES
from tjit.devices.sharded import StackedValue
from tjit.distributed.devices import global_devices
from tjit.distributed.runtime import process_index
from tjit.lax._annotations import set_sharding_checker
from tjit.primitives.sharding_constraint import sharding_constraint_p
from tjit.tracing.core import (
    Array,
    EvalTrace,
    LaidOutValue,
    Tracer,
    current_trace,
    register_value_sharding,
    set_layout,
    set_single_device_sharding,
)
from tjit.tracing.avals import set_unsharded_type
from tjit.tracing.tree_util import broadcast_prefix, tree_flatten, tree_leaves, tree_unflatten

class _MeshContext(threading.local):
    """Per thread: the stacks of current meshes and of ``use_abstract_mesh`` meshes.
    None until first used (class defaults: reading an unset one is an attribute hit,
    not a caught AttributeError; jit calls read ``stack`` on every call)."""

    stack = None
    abstract = None


_MESH_CTX = _MeshContext()


def _mesh_stack():
    """This thread's stack of current meshes (innermost last), made on first use."""
    stack = _MESH_CTX.stack
    if stack is None:
        stack = _MESH_CTX.stack = []
    return stack


def device_process_index(device):
    """The index of the process that drives ``device`` (0 in a one-process run)."""
    return getattr(device, "process_index", 0)


class AxisType(enum.Enum):
    """How a mesh axis is sharded, as ``jax.sharding.AxisType``. Under ``Explicit`` axes
    an array's layout is part of its type (``jax.typeof(x)`` shows ``float32[8@X]``;
    eager and jit results are typed from their operands, tjit._eager_layout); tjit
    computes every axis on one device, so the modes change layouts, never values
    (``Manual`` is what shard_map's body sees)."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


def _axis_types(axis_types, n, where):
    if axis_types is None:
        return (AxisType.Auto,) * n
    if isinstance(axis_types, AxisType):
        axis_types = (axis_types,)
    axis_types = tuple(axis_types)
    if len(axis_types) != n or not all(isinstance(t, AxisType) for t in axis_types):
        raise ValueError(f"{where}: axis_types must be one jax.sharding.AxisType per mesh "
                         f"axis ({n}), got {axis_types}")
    return axis_types


class Mesh:
    """Devices arranged in an n-d array whose axes have names, as ``jax.sharding.Mesh``.

    Args:
      devices: an array-like of tjit Devices (from ``tjit.devices()``), of any shape.
      axis_names: one name (str) per axis of ``devices``.
      axis_types: one :class:`AxisType` per axis (default: all ``Auto``).
    """

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        self.axis_types = _axis_types(axis_types, len(axis_names), "Mesh")
        arr = np.empty(np.shape(np.asarray(devices, dtype=object)), dtype=object)
        arr[...] = np.asarray(devices, dtype=object)
        if arr.ndim != len(axis_names):
            raise ValueError(f"Mesh: devices has {arr.ndim} dimension(s) (shape {arr.shape}) "
                             f"but {len(axis_names)} axis name(s) {axis_names} were given; "
                             f"give one name per dimension")
        bad = [n for n in axis_names if not isinstance(n, str)]
        if bad or len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh: axis names must be distinct strings, got {axis_names}")
        flat = list(arr.flat)
        if not flat:
            raise ValueError("Mesh: needs at least one device")
        for d in flat:
            if not isinstance(d, Device):
                raise TypeError(f"Mesh: devices must be tjit Devices (from tjit.devices()), "
                                f"got {type(d).__name__} {d!r:.60}")
        if len(set(flat)) != len(flat):
            raise ValueError(f"Mesh: a device appears more than once: {flat}")
        arr.flags.writeable = False
        self.devices = arr
        self.axis_names = axis_names
        self._shape = dict(zip(axis_names, arr.shape))
        self._coords = {d: dict(zip(axis_names, map(int, idx)))
                        for idx, d in np.ndenumerate(arr)}

    @property
    def shape(self):
        """{axis name: size}, in axis order."""
        return dict(self._shape)

    @property
    def axis_sizes(self):
        return tuple(self.devices.shape)

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.devices.shape))

    @property
    def size(self):
        return self.devices.size

    @property
    def empty(self):
        return self.devices.size == 0

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def is_multi_process(self):
        return len(self._processes) > 1

    @property
    def local_devices(self):
        """The mesh's devices that this process drives, in mesh order."""
        me = process_index()
        return [d for d in self.devices.flat if device_process_index(d) == me]

    @property
    def _processes(self):
        return {device_process_index(d) for d in self.devices.flat}

    def coords(self, device):
        """{axis name: index along that axis} of ``device`` in this mesh."""
        c = self._coords.get(device)
        if c is None:
            raise ValueError(f"{device!r} is not a device of {self!r}")
        return dict(c)

    def __enter__(self):
        _mesh_stack().append(self)
        layouts_in_use()
        return self

    def __exit__(self, *exc):
        _MESH_CTX.stack.pop()
        return False

    def _key(self):
        return (self.axis_names, self.devices.shape, tuple(self.devices.flat), self.axis_types)

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):   # (as JAX's; a NamedSharding prints its mesh so)
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, axis_types={self.axis_types})"

    def __repr__(self):  # (as JAX's: sizes and names apart)
        return (f"Mesh(axis_sizes={tuple(self.axis_sizes)}, axis_names="
                f"{tuple(self.axis_names)!r}, axis_types={self.axis_types})")

    @property
    def abstract_mesh(self):
        """The mesh without its devices: axis names, sizes and types."""
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)


class AbstractMesh:
    """A mesh's shape without devices, as ``jax.sharding.AbstractMesh``: the axis sizes,
    names and types (what tracing needs to know of a mesh). ``AbstractMesh((), ())`` is
    the empty mesh that :func:`get_abstract_mesh` gives outside any ``set_mesh``."""

    def __init__(self, axis_sizes, axis_names, axis_types=None):
        self.axis_sizes = tuple(int(n) for n in axis_sizes)
        self.axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if len(self.axis_sizes) != len(self.axis_names):
            raise ValueError(f"AbstractMesh: {len(self.axis_sizes)} axis size(s) "
                             f"{self.axis_sizes} but {len(self.axis_names)} axis name(s) "
                             f"{self.axis_names}; give one name per size")
        self.axis_types = _axis_types(axis_types, len(self.axis_names), "AbstractMesh")

    @property
    def shape(self):
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self):
        return math.prod(self.axis_sizes)

    @property
    def empty(self):
        return not self.axis_names

    def _key(self):
        return (self.axis_sizes, self.axis_names, self.axis_types)

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        return f"AbstractMesh({axes or '()'}, axis_types={self.axis_types})"


def abstract_mesh_stack():
    """This thread's stack of ``use_abstract_mesh`` meshes (innermost last)."""
    stack = _MESH_CTX.abstract
    if stack is None:
        stack = _MESH_CTX.abstract = []
    return stack


def get_abstract_mesh():
    """The abstract mesh of ``use_abstract_mesh`` (``auto_axes``/``explicit_axes``), else
    of the current mesh (``set_mesh``/``with mesh:``), or the empty AbstractMesh when
    none is set, as ``jax.sharding.get_abstract_mesh``."""
    if _MESH_CTX.abstract:
        return _MESH_CTX.abstract[-1]
    mesh = current_mesh()
    return AbstractMesh((), ()) if mesh is None else mesh.abstract_mesh


def reshard(xs, out_shardings):
    """Lay out each array of the pytree ``xs`` as ``out_shardings`` says (a sharding, a
    PartitionSpec under ``set_mesh``, or a pytree of them, a prefix of ``xs``), as
    ``jax.sharding.reshard``. Values are unchanged. tjit computes an array on one device
    (shard_map and pmap compute across devices), so this checks each sharding against
    its array, as ``lax.with_sharding_constraint`` does, eagerly and under ``jit``.

    Raises:
      ValueError: a sharding is None, does not fit its array's rank or the mesh, or
        ``out_shardings`` is not a prefix of ``xs``.
      NotImplementedError: eagerly, a sharding over several devices, or on a device
        other than the array's (move it with ``device_put``).

    >>> with jax.set_mesh(jax.make_mesh((1,), ('i',))):
    ...     y = jax.reshard(jnp.arange(2.0), jax.P('i'))
    >>> y
    Array([0., 1.], dtype=float32)
    """
    from tjit.lax import with_sharding_constraint
    leaves, tree = tree_flatten(xs)
    dummy = tree_unflatten(tree, [0] * len(leaves))
    try:
        shardings = broadcast_prefix(out_shardings, dummy, is_leaf=lambda s: s is None or
                                     isinstance(s, (PartitionSpec, NamedSharding,
                                                    SingleDeviceSharding)))
    except ValueError as e:
        raise ValueError(f"reshard: out_shardings must be a sharding or a tree prefix of "
                         f"the arrays: {e}") from None
    out = []
    for i, (x, s) in enumerate(zip(leaves, shardings)):
        if s is None:
            raise ValueError(f"reshard: out_shardings for leaf {i} is None; give a "
                             f"sharding or a PartitionSpec (under set_mesh)")
        check_sharding_constraint(s, tuple(np.shape(x)), f"reshard (leaf {i})")
        _check_reshard_axes(s)
        x = with_sharding_constraint(x, s)
        if isinstance(current_trace(), EvalTrace):
            device = placement_device(x, s, "reshard")
            if device is not None and device not in x.devices():
                raise NotImplementedError(
                    f"reshard: leaf {i} is on {sorted(map(str, x.devices()))} and "
                    f"{s} puts it on {device}; move it with device_put(x, sharding)")
        out.append(x)
    return tree_unflatten(tree, out)


def _check_reshard_axes(s):
    """reshard lays out Explicit axes only (JAX 0.10): Auto ones are the compiler's."""
    mesh = current_mesh() if isinstance(s, PartitionSpec) else getattr(s, "mesh", None)
    spec = s if isinstance(s, PartitionSpec) else getattr(s, "spec", PartitionSpec())
    for name in spec.mesh_axes():
        kind = mesh.axis_types[mesh.axis_names.index(name)]
        if kind is not AxisType.Explicit:
            raise ValueError(f"PartitionSpec passed to reshard cannot contain axis names "
                             f"that are of type Auto or Manual. Got PartitionSpec: {spec} "
                             f"with axis name: {name} of type: AxisType.{kind.name}. Make "
                             f"the axis Explicit (jax.make_mesh's default) or use "
                             f"jax.lax.with_sharding_constraint")


def current_mesh():
    """The mesh of the innermost ``with mesh:`` block of this thread, or None."""
    stack = _MESH_CTX.stack
    return stack[-1] if stack else None


class _MeshSetting:
    """What :func:`set_mesh` returns: the mesh is set already; used as a context manager,
    leaving the block restores the setting from before the call."""

    def __init__(self, mesh, saved):
        self.mesh, self._saved = mesh, saved

    def __enter__(self):
        return self.mesh

    def __exit__(self, *exc):
        _MESH_CTX.stack[:] = self._saved
        return False


def set_mesh(mesh):
    """Make ``mesh`` this thread's current mesh, as ``jax.set_mesh``: a global setter,
    or a context manager (``with jax.set_mesh(mesh): ...``) that restores the previous
    mesh on exit. Inside it a bare PartitionSpec serves where a sharding is expected
    (``device_put(x, P('i'))``, ``with_sharding_constraint``, ``shard_map``).

    Raises:
      TypeError: ``mesh`` is not a Mesh.
      RuntimeError: called inside a traced function (jit, grad, vmap...).

    >>> with jax.set_mesh(jax.make_mesh((1,), ('i',))):
    ...     x = jax.device_put(jnp.arange(2.0), jax.P('i'))
    >>> x
    Array([0., 1.], dtype=float32)
    """
    if not isinstance(mesh, Mesh):
        raise TypeError(f"set_mesh: expected a Mesh (from jax.make_mesh or "
                        f"jax.sharding.Mesh), got {type(mesh).__name__} {mesh!s:.60}")
    if not isinstance(current_trace(), EvalTrace):
        raise RuntimeError("set_mesh can only be used outside of jit and other "  # noqa: TRY004
                           "transformations; set the mesh before calling the function")
    stack = _mesh_stack()
    saved = list(stack)
    stack.append(mesh)
    layouts_in_use()
    return _MeshSetting(mesh, saved)


def placement_device(x, where_to, what):
    """The one device ``device_put`` places ``x`` (a pytree) on for ``where_to``: a Device
    or None pass through; a NamedSharding, a SingleDeviceSharding or a PartitionSpec (read
    with the current mesh) give their device when they hold a single one, after checking
    the spec fits every leaf's rank.

    Raises:
      ValueError: a PartitionSpec with no current mesh.
      NotImplementedError: a sharding over several devices (one process puts an array
        on one device; shard_map and pmap compute across devices).
    """
    if isinstance(where_to, PartitionSpec):
        mesh = current_mesh()
        if mesh is None:
            raise ValueError(f"{what}: the PartitionSpec {where_to} needs a mesh: call it "
                             f"inside `with jax.set_mesh(mesh):` or pass "
                             f"NamedSharding(mesh, spec)")
        where_to = NamedSharding(mesh, where_to)
    if isinstance(where_to, SingleDeviceSharding):
        return where_to._device
    if not isinstance(where_to, NamedSharding):
        return where_to
    for leaf in tree_leaves(x):
        check_spec(where_to.spec, where_to.mesh, what, len(np.shape(leaf)))
    devices = list(where_to.mesh.devices.flat)
    if len(devices) != 1:
        raise NotImplementedError(
            f"{what}: {where_to} spreads the array over {len(devices)} devices; tjit's "
            f"device_put places an array on one device. Compute across devices with "
            f"shard_map or pmap, or use a one-device mesh")
    return devices[0]


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of shape ``axis_shapes`` over ``devices`` (default: ``tjit.devices()``, every
    process's devices after ``initialize()``), as ``jax.make_mesh``; ``axis_types`` is
    one :class:`AxisType` per axis (default: all ``Explicit``, as JAX 0.10's make_mesh;
    ``Mesh(...)`` defaults to ``Auto``).

    A mesh smaller than the device list takes its first devices, as JAX's.

    Raises ValueError when the shape's size exceeds the number of devices."""
    devices = global_devices() if devices is None else list(devices)
    axis_shapes = tuple(int(s) for s in axis_shapes)
    if math.prod(axis_shapes) > len(devices):
        raise ValueError(f"make_mesh: a mesh of shape {axis_shapes} needs "
                         f"{math.prod(axis_shapes)} devices, but {len(devices)} are given "
                         f"({devices}); pick axis sizes whose product is at most "
                         f"{len(devices)} (more CPU devices: jax.config.update("
                         f"'jax_num_cpu_devices', n) before first use)")
    devices = devices[:math.prod(axis_shapes)]
    arr = np.empty(len(devices), dtype=object)
    arr[:] = devices
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_shapes)
    return Mesh(arr.reshape(axis_shapes), axis_names, axis_types)


class PartitionSpec(tuple):
    """Per array dimension, the mesh axis names it is split over, as
    ``jax.sharding.PartitionSpec``: ``P('data', None)`` splits dim 0 over 'data' and keeps
    dim 1 whole; ``P(('data', 'model'))`` splits dim 0 over both axes (row-major); a spec
    shorter than the array leaves the trailing dims whole; ``P()`` replicates."""

    def __new__(cls, *parts):
        for p in parts:
            ok = p is None or isinstance(p, str) or (
                isinstance(p, tuple) and all(isinstance(n, str) for n in p))
            if not ok:
                raise TypeError(f"PartitionSpec entries are None, an axis name or a tuple of "
                                f"names; got {p!r}")
        return super().__new__(cls, parts)

    def __repr__(self):   # (as JAX 0.10's: P('x',), P('x', None), P())
        return f"P({repr(tuple(self))[1:-1]})"

    def __reduce__(self):
        return (PartitionSpec, tuple(self))

    def axes_of(self, dim):
        """The mesh axis names dim ``dim`` is split over (a tuple, maybe empty)."""
        if dim >= len(self) or self[dim] is None:
            return ()
        p = self[dim]
        return (p,) if isinstance(p, str) else tuple(p)

    def mesh_axes(self):
        """Every mesh axis name the spec uses, in order of appearance."""
        return tuple(n for d in range(len(self)) for n in self.axes_of(d))


P = PartitionSpec


def check_spec(spec, mesh, where, ndim=None):
    """``spec`` as a PartitionSpec, checked against ``mesh`` (known axis names, each used
    once) and, when ``ndim`` is given, against the rank of the array it describes."""
    if spec is None:
        spec = PartitionSpec()
    if not isinstance(spec, PartitionSpec):
        if isinstance(spec, tuple):
            spec = PartitionSpec(*spec)
        else:
            raise TypeError(f"{where}: expected a PartitionSpec (tjit.sharding.P(...)), got "
                            f"{type(spec).__name__} {spec!r:.60}")
    names = spec.mesh_axes()
    unknown = [n for n in names if n not in mesh.axis_names]
    if unknown:
        raise ValueError(f"{where}: {spec} names mesh axis {unknown[0]!r}, which is not an "
                         f"axis of {mesh!s} (its axes: {mesh.axis_names})")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{where}: {spec} uses mesh axis {dup[0]!r} more than once; each "
                         f"mesh axis may split at most one dimension")
    if ndim is not None and len(spec) > ndim:
        raise ValueError(f"{where}: {spec} has {len(spec)} entries but the array has rank "
                         f"{ndim}; give at most one entry per dimension")
    return spec


# Arrays live in their device's own memory: JAX's default memory kind, and the only one
# this runtime has (no pinned or unpinned host memory spaces to offload to).
DEVICE_MEMORY = "device"


def _check_memory_kind(kind, who):
    if kind is not None and kind != DEVICE_MEMORY:
        raise ValueError(
            f"{who}: memory_kind={kind!r} is not available: tjit devices address one "
            f"memory kind, {DEVICE_MEMORY!r} (no host-memory offloading). Leave "
            f"memory_kind out (or pass {DEVICE_MEMORY!r}).")


class Sharding:
    """What every sharding is, as ``jax.sharding.Sharding`` (``isinstance`` checks):
    NamedSharding, SingleDeviceSharding and PmapSharding. Each gives ``_layout(ndim)``,
    the blocks it places on each device, which :meth:`is_equivalent_to` compares."""

    def is_equivalent_to(self, other, ndim):
        """Whether ``self`` and ``other`` place the same blocks of an array of rank
        ``ndim`` on the same devices, as ``jax.sharding.Sharding.is_equivalent_to``: on a
        one-device mesh every NamedSharding is equivalent to that device's
        SingleDeviceSharding."""
        if not hasattr(other, "_layout"):
            raise TypeError(f"is_equivalent_to: expected a sharding, got "
                            f"{type(other).__name__} {other!r:.60}")
        return self._layout(ndim) == other._layout(ndim)


class NamedSharding(Sharding):
    """A layout of arrays over ``mesh``: dimension ``i`` is split into equal blocks over
    the mesh axes ``spec[i]``, replicated over the mesh axes ``spec`` does not name, as
    ``jax.sharding.NamedSharding``."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        # (an AbstractMesh: the sharding of a type, jax.typeof(x).sharding; it names
        # axes, no devices)
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"NamedSharding: mesh must be a tjit.sharding.Mesh, got "
                            f"{type(mesh).__name__}")
        _check_memory_kind(memory_kind, "NamedSharding")
        self.mesh = mesh
        self.spec = check_spec(spec, mesh, "NamedSharding")
        self._index_maps = {}   # global shape -> devices_indices_map (asked every call)

    def update(self, **kwargs):
        """This sharding with ``mesh``, ``spec`` (a PartitionSpec or a sequence of entries)
        or ``memory_kind`` replaced, as ``jax.sharding.NamedSharding.update``."""
        unknown = set(kwargs) - {"mesh", "spec", "memory_kind"}
        if unknown:
            raise TypeError(f"NamedSharding.update: unexpected argument(s) "
                            f"{sorted(unknown)}; it replaces mesh, spec or memory_kind")
        spec = kwargs.get("spec", self.spec)
        spec = spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec)
        return NamedSharding(kwargs.get("mesh", self.mesh), spec,
                             memory_kind=kwargs.get("memory_kind", self.memory_kind))

    def _split_counts(self, ndim):
        return [math.prod(self.mesh._shape[n] for n in self.spec.axes_of(d))
                for d in range(ndim)]

    def shard_shape(self, global_shape):
        """The shape of the block each device holds of an array of ``global_shape``."""
        global_shape = tuple(global_shape)
        check_spec(self.spec, self.mesh, "NamedSharding.shard_shape", len(global_shape))
        out = []
        for d, (n, k) in enumerate(zip(global_shape, self._split_counts(len(global_shape)))):
            if n % k:
                raise ValueError(
                    f"NamedSharding: dimension {d} of global shape {global_shape} has size "
                    f"{n}, which does not divide into {k} equal blocks (mesh axes "
                    f"{self.spec.axes_of(d)} of {self.mesh!s}); pad it to a multiple of {k}")
            out.append(n // k)
        return tuple(out)

    def shard_index(self, device, dim):
        """Which block (0 ..) along ``dim`` ``device`` holds (row-major over the dim's
        mesh axes)."""
        coords = self.mesh._coords[device]
        idx = 0
        for n in self.spec.axes_of(dim):
            idx = idx * self.mesh._shape[n] + coords[n]
        return idx

    def devices_indices_map(self, global_shape):
        """{device: tuple of slices}: the block of the global array each device holds
        (``slice(None)`` along a dimension that is not split, as JAX's)."""
        global_shape = tuple(global_shape)
        got = self._index_maps.get(global_shape)
        if got is None:
            block = self.shard_shape(global_shape)
            got = {d: tuple(slice(None) if b == n else
                            slice(self.shard_index(d, i) * b, (self.shard_index(d, i) + 1) * b)
                            for i, (b, n) in enumerate(zip(block, global_shape)))
                   for d in self.mesh.devices.flat}
            self._index_maps[global_shape] = got
        return dict(got)

    def addressable_devices_indices_map(self, global_shape):
        me = process_index()
        return {d: idx for d, idx in self.devices_indices_map(global_shape).items()
                if device_process_index(d) == me}

    @property
    def device_set(self):
        return set(self.mesh.devices.flat)

    @property
    def addressable_devices(self):
        return set(self.mesh.local_devices)

    @property
    def num_devices(self):
        return self.mesh.size

    @property
    def is_fully_replicated(self):
        return all(self.mesh._shape[n] == 1 for n in self.spec.mesh_axes())

    @property
    def is_fully_addressable(self):
        return not self.mesh.is_multi_process and len(self.mesh.local_devices) == self.mesh.size

    @property
    def memory_kind(self):
        return DEVICE_MEMORY

    # Equal: the same mesh and the same spec entry for entry, as JAX 0.10's (P('x') and
    # P('x', None) lay arrays out alike but are different shardings; is_equivalent_to
    # compares layouts)
    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and self.mesh == other.mesh
                and tuple(self.spec) == tuple(other.spec))

    def __hash__(self):
        return hash((self.mesh, tuple(self.spec)))

    def _layout(self, ndim):
        # (entries past ndim are not checked, as JAX's is_equivalent_to does not)
        counts = self._split_counts(ndim)
        return {d: tuple((self.shard_index(d, i) if k > 1 else 0, k)
                         for i, k in enumerate(counts))
                for d in self.mesh.devices.flat}

    def __repr__(self):
        if isinstance(self.mesh, AbstractMesh):   # (as JAX's: no memory kind)
            return f"NamedSharding(mesh={self.mesh!s}, spec={self.spec!r})"
        return (f"NamedSharding(mesh={self.mesh!s}, spec={self.spec!r}, "
                f"memory_kind={self.memory_kind})")


def replicated_on(mesh):
    """``NamedSharding(mesh, P())``, made once per mesh (jit lays out outputs with it on
    every call)."""
    got = mesh.__dict__.get("_replicated")
    if got is None:
        got = mesh._replicated = NamedSharding(mesh, PartitionSpec())
    return got


class SingleDeviceSharding(Sharding):
    """The layout of an array held whole by one device, as
    ``jax.sharding.SingleDeviceSharding`` (``x.sharding`` of an ordinary Array)."""

    def __init__(self, device, *, memory_kind=None):
        _check_memory_kind(memory_kind, "SingleDeviceSharding")
        self._device = device

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device))

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def devices_indices_map(self, global_shape):
        return {self._device: (slice(None),) * len(tuple(global_shape))}

    def _layout(self, ndim):
        return {self._device: ((0, 1),) * ndim}

    addressable_devices_indices_map = devices_indices_map

    @property
    def device_set(self):
        return {self._device}

    addressable_devices = device_set

    @property
    def num_devices(self):
        return 1

    @property
    def is_fully_replicated(self):
        return True

    @property
    def is_fully_addressable(self):
        return device_process_index(self._device) == process_index()

    @property
    def memory_kind(self):
        return DEVICE_MEMORY


def make_single_device_sharding(device):
    """``SingleDeviceSharding(device)``, as ``jax.sharding.make_single_device_sharding``."""
    return SingleDeviceSharding(device)


class PmapSharding(Sharding):
    """The layout of a ``pmap`` result, as ``jax.sharding.PmapSharding``: device ``r`` holds
    slice ``r`` of dimension ``sharded_dim`` (that dimension's size is the number of
    devices, and a device's shard does not have it); ``sharded_dim`` None: every device
    holds the whole value (``out_axes=None``)."""

    def __init__(self, devices, sharded_dim):
        self.devices = np.empty(len(devices), dtype=object)
        self.devices[:] = list(devices)
        self.sharded_dim = sharded_dim

    def __repr__(self):
        return (f"PmapSharding(sharded_dim={self.sharded_dim}, devices="
                f"{list(self.devices)})")

    def __eq__(self, other):
        return (isinstance(other, PmapSharding) and other.sharded_dim == self.sharded_dim
                and list(other.devices) == list(self.devices))

    def __hash__(self):
        return hash(("PmapSharding", self.sharded_dim, tuple(self.devices)))

    def _dim(self, global_shape):
        shape = tuple(global_shape)
        if self.sharded_dim is None:
            return shape, None
        d = self.sharded_dim % len(shape) if shape else 0
        if not shape or shape[d] != len(self.devices):
            raise ValueError(f"PmapSharding: global shape {shape} has no dimension "
                             f"{self.sharded_dim} of size {len(self.devices)} (one slice "
                             f"per device) to shard")
        return shape, d

    def _layout(self, ndim):
        d = None if self.sharded_dim is None or len(self.devices) == 1 else \
            self.sharded_dim % max(ndim, 1)
        return {dev: tuple((r, len(self.devices)) if i == d else (0, 1) for i in range(ndim))
                for r, dev in enumerate(self.devices)}

    def shard_shape(self, global_shape):
        """A device's shard: the global shape without the sharded dimension."""
        shape, d = self._dim(global_shape)
        return shape if d is None else shape[:d] + shape[d + 1:]

    def devices_indices_map(self, global_shape):
        """{device: index}: an int at the sharded dimension (its slice), else slices."""
        shape, d = self._dim(global_shape)
        whole = (slice(None),) * len(shape)
        if d is None:
            return {dev: whole for dev in self.devices}
        return {dev: whole[:d] + (r,) + whole[d + 1:] for r, dev in enumerate(self.devices)}

    addressable_devices_indices_map = devices_indices_map

    @property
    def device_set(self):
        return set(self.devices)

    addressable_devices = device_set

    @property
    def num_devices(self):
        return len(self.devices)

    @property
    def is_fully_replicated(self):
        return self.sharded_dim is None or len(self.devices) == 1

    @property
    def is_fully_addressable(self):
        return True   # (a pmap result holds this process's devices' slices only)

    @property
    def memory_kind(self):
        return None


#: Called once, the first time an Array is committed to a mesh or a mesh is set
#: (``tjit._sharded_jit`` registers how jit lays out its outputs from then on).
ON_FIRST_LAYOUT = []


def layouts_in_use():
    """Run the ON_FIRST_LAYOUT callbacks (once): a mesh layout now exists."""
    while ON_FIRST_LAYOUT:
        ON_FIRST_LAYOUT.pop()()


def commit(array, sharding):
    """``array`` (a tjit Array) laid out as ``sharding``: ``array`` itself, or a new Array
    on its buffer when ``array`` holds another layout (a caller's array keeps its own).
    A NamedSharding is recorded (``array.sharding`` returns it); anything else leaves
    the Array on its device as it is."""
    named = sharding if isinstance(sharding, NamedSharding) else None
    if type(array) is not Array or getattr(array, "_sharding", None) is named:
        return array
    value = array._value
    out = Array(value.view(np.ndarray) if type(value) is LaidOutValue else value, array._weak)
    if named is not None:
        set_layout(out, named)
        layouts_in_use()
    return out


def place_eagerly(x, sharding):
    """An eager Array ``x`` laid out as ``sharding`` (what ``with_sharding_constraint``
    and ``reshard`` give outside jit, as JAX's): committed to a one-device NamedSharding
    (a PartitionSpec read with the current mesh), uncommitted by a SingleDeviceSharding;
    anything else leaves ``x`` as it is. A tracer ``x`` gets a ``sharding_constraint``
    with the NamedSharding (the type jit's outputs are given)."""
    if isinstance(sharding, PartitionSpec):
        mesh = current_mesh()
        sharding = None if mesh is None else NamedSharding(mesh, sharding)
    if isinstance(x, Tracer):   # traced: the layout from here on, in the program
        if not isinstance(sharding, NamedSharding):
            return x
        return sharding_constraint_p.bind(x, sharding=sharding)
    if isinstance(sharding, NamedSharding) and sharding.mesh.size == 1 and \
            sharding.mesh.devices.flat[0] in x.devices():
        return commit(x, sharding)
    return commit(x, None) if isinstance(sharding, SingleDeviceSharding) else x


def unsharded_type(ndim):
    """``jax.typeof(x).sharding`` of an array of rank ``ndim`` not laid out on a mesh:
    the empty AbstractMesh, every dimension unsplit (P(None, None); P() for a scalar)."""
    got = _UNSHARDED_TYPES.get(ndim)
    if got is None:
        got = _UNSHARDED_TYPES[ndim] = NamedSharding(AbstractMesh((), ()),
                                                     PartitionSpec(*[None] * ndim))
    return got


_UNSHARDED_TYPES = {}   # rank -> unsharded_type(rank)


set_unsharded_type(unsharded_type)

# ``x.sharding`` of Arrays: a pmap result's layout, else the one device holding it
register_value_sharding(StackedValue, lambda v: PmapSharding(v.device_list, v.mapped_axis))
set_single_device_sharding(SingleDeviceSharding)
IN_PLACE_TYPES.add(LaidOutValue)   # (compiled programs read committed buffers in place)


def check_sharding_constraint(sharding, shape, where):
    """What ``lax.with_sharding_constraint`` accepts for an array of ``shape``: a
    PartitionSpec (inside ``with mesh:``) or a NamedSharding whose spec fits the rank and
    the mesh, or a single-device / pmap sharding. Uneven splits are allowed, as in JAX."""
    if isinstance(sharding, PartitionSpec):
        mesh = current_mesh()
        if mesh is None:
            raise ValueError(f"{where}: the PartitionSpec {sharding} needs a mesh: call it "
                             f"inside `with mesh:` or pass NamedSharding(mesh, spec)")
        check_spec(sharding, mesh, where, len(shape))
    elif isinstance(sharding, NamedSharding):
        check_spec(sharding.spec, sharding.mesh, where, len(shape))
    elif not isinstance(sharding, Sharding):   # (single-device and pmap shardings pass)
        raise TypeError(f"{where}: expected a sharding (NamedSharding, SingleDeviceSharding) "
                        f"or a PartitionSpec, got {type(sharding).__name__} {sharding!r:.60}")


set_sharding_checker(check_sharding_constraint,
                     lambda s: isinstance(s, (PartitionSpec, Sharding)), place_eagerly)

# (below: the mode switches are written on the names above)
from tjit._axis_modes import (  # noqa: E402,F401
    auto_axes, explicit_axes, get_mesh, use_abstract_mesh)


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "AbstractMesh", "AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
    "SingleDeviceSharding", "auto_axes", "explicit_axes", "get_abstract_mesh",
    "get_mesh", "make_single_device_sharding", "reshard", "set_mesh",
    "use_abstract_mesh"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
