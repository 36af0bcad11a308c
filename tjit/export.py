"""``tjit.export``: JAX's ``jax.export`` — a jitted function traced once at symbolic
shapes, kept as a program that runs at every size, and serialized to bytes.

>>> import tjit, tjit.numpy as jnp
>>> from tjit import export
>>> b, = export.symbolic_shape("b")
>>> exp = export.export(tjit.jit(lambda x: jnp.sum(x ** 2)))(
...     tjit.ShapeDtypeStruct((b,), jnp.float32))
>>> exp.in_avals, exp.out_avals
((ShapedArray(float32[b]),), (ShapedArray(float32[]),))
>>> exp.call(jnp.arange(3.0)), export.deserialize(exp.serialize()).call(jnp.ones(5))
(Array(5., dtype=float32), Array(5., dtype=float32))

What is kept is tjit's program (its jaxpr), not StableHLO: a serialized export loads in
the same tjit version only (``deserialize`` says so otherwise), and programs holding
Python callables (host callbacks, custom derivative rules) cannot be serialized.
``Exported.call`` compiles the program once for every size of its symbolic dims (a
polymorphic ``jit``), inside ``jit``/``grad``/``vmap`` too. Symbolic dims are integers
≥ 1 (as JAX assumes); JAX's explicit ``constraints`` are not supported.
"""

import io

import numpy as np

from tjit import api
from tjit.devices.backend import default_backend
from tjit.primitives.base import REGISTRY
from tjit.tracing import dtypes as _dtypes
from tjit.tracing import shapes as _shapes
from tjit.tracing.core import Primitive
from tjit.tracing.errors import ShapeError
from tjit.tracing.jaxpr import eval_jaxpr, specialize
from tjit.tracing.target_platform import current_platform
from tjit.tracing.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

#: bumped when what ``serialize`` writes changes meaning
_FORMAT = 2

#: tjit backend names as JAX's export platform names (tjit's GPU backend is CUDA)
_EXPORT_PLATFORM = {"gpu": "cuda"}


def _version():
    import tjit
    return getattr(tjit, "__version__", "unknown")


# -- symbolic shapes -----------------------------------------------------------------------
def symbolic_shape(shape_spec, *, constraints=(), scope=None, like=None):
    """A shape of ints and symbolic dims from a string, as ``jax.export.symbolic_shape``:
    ``"b, 4"``, ``"(b, 2*b)"``, ``"b, floordiv(c, 2)"`` (dims: ints, names, ``+ - *``,
    ``floordiv``, ``mod``, ``max``, ``min``); ``_`` and ``...`` are filled from ``like``.

    Symbols with one name are one dim wherever they appear (tjit has one scope).
    """
    if constraints:
        raise NotImplementedError(
            f"export.symbolic_shape: constraints {tuple(constraints)!r} are not supported; "
            f"tjit's symbolic dims are integers >= 1 with no other constraint (leave "
            f"constraints out, or check sizes before calling)")
    if shape_spec is None:
        shape_spec = "..."
    dims = _shapes.parse_spec(shape_spec, None if like is None else len(like))
    if None in dims:
        if like is None:
            raise ValueError(f"export.symbolic_shape: {shape_spec!r} has placeholders "
                             f"('_' or '...'); pass like= a shape to fill them from")
        if len(dims) != len(like):
            raise ValueError(f"export.symbolic_shape: {shape_spec!r} has rank {len(dims)} "
                             f"but like= has rank {len(like)}")
        dims = tuple(d if d is not None else _filled(shape_spec, i, like[i])
                     for i, d in enumerate(dims))
    return tuple(dims)


def _filled(spec, i, size):
    if size is None:
        raise ValueError(f"export.symbolic_shape: {spec!r}: dim {i} is a placeholder but "
                         f"like[{i}] is None")
    return int(size)


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
    """``ShapeDtypeStruct``s for ``args`` with the symbolic shapes ``shapes_specs`` (a
    spec string, or a pytree prefix of ``args`` of them; ``None`` keeps a leaf's
    shape), as ``jax.export.symbolic_args_specs``."""
    leaves, tree = tree_flatten(args)
    specs = broadcast_prefix(shapes_specs, args,
                             is_leaf=lambda s: s is None or isinstance(s, str))
    out = []
    for x, spec in zip(leaves, specs):
        shape = np.shape(x)
        dtype = x.dtype if hasattr(x, "dtype") else _dtypes.canonicalize(np.result_type(x))
        dims = shape if spec is None else symbolic_shape(spec, constraints=constraints,
                                                         like=shape)
        out.append(api.ShapeDtypeStruct(tuple(dims), dtype))
    return tree_unflatten(tree, out)


def is_symbolic_dim(p):
    """Whether ``p`` is a symbolic dim (not an int)."""
    return _shapes.is_expr(p)


def default_export_platform():
    """The platform an export is made for when none is named: the default backend's
    (``"cpu"``, or ``"cuda"`` where tjit runs on an NVIDIA GPU), as JAX's."""
    name = default_backend()
    return _EXPORT_PLATFORM.get(name, name)


class DisabledSafetyCheck:
    """A safety check that ``Exported.call`` skips, as ``jax.export.DisabledSafetyCheck``:
    ``platform()`` lets an export made for other platforms run here. (tjit's exports
    hold no custom calls and no shape assertions, so those two disable nothing.)"""

    def __init__(self, name):
        self._name = name

    @classmethod
    def platform(cls):
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name):
        return cls(f"custom_call:{target_name}")

    @classmethod
    def shape_assertions(cls):
        return cls("shape_assertions")

    def is_custom_call(self):
        return self._name.removeprefix("custom_call:") if \
            self._name.startswith("custom_call:") else None

    def __eq__(self, other):
        return isinstance(other, DisabledSafetyCheck) and self._name == other._name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"DisabledSafetyCheck({self._name!r})"


# -- export --------------------------------------------------------------------------------
def export(fun_jit, *, platforms=None, disabled_checks=()):
    """``export(jit(f))(*arg_specs)`` traces ``f`` at ``arg_specs`` (arrays or
    ``ShapeDtypeStruct``s, shapes possibly symbolic) and returns an :class:`Exported`,
    as ``jax.export.export``."""
    if not isinstance(fun_jit, api.Jitted) and callable(fun_jit) and \
            getattr(fun_jit, "__module__", "").startswith("tjit."):
        fun_jit = api.jit(fun_jit)   # (tjit's own functions: JAX's jnp/lax ones are jitted)
    if not isinstance(fun_jit, api.Jitted):
        raise TypeError(f"export.export: expects a function wrapped by tjit.jit, got "
                        f"{type(fun_jit).__name__}; use export(tjit.jit(f))")
    if isinstance(platforms, str):
        raise TypeError(f"export.export: platforms must be a sequence of platform names, "
                        f"got the string {platforms!r}; write platforms=[{platforms!r}]")
    platforms = tuple(platforms) if platforms is not None else (default_export_platform(),)
    disabled_checks = tuple(disabled_checks)
    for c in disabled_checks:
        if not isinstance(c, DisabledSafetyCheck):
            raise TypeError(f"export.export: disabled_checks takes "
                            f"export.DisabledSafetyCheck values (e.g. "
                            f"DisabledSafetyCheck.platform()), got {c!r:.60}")

    def do_export(*args, **kwargs):
        lowered = fun_jit.trace(*args, **kwargs)
        dyn_args, dyn_kwargs, _ = fun_jit._split(args, kwargs)   # (statics are baked in)
        _, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        closed = lowered.jaxpr
        return Exported(fun_jit.__name__, in_tree, tuple(closed.in_avals), lowered.out_tree,
                        tuple(closed.out_avals), platforms, closed, disabled_checks)
    return do_export


class Exported:
    """A program exported at (possibly symbolic) shapes: ``in_avals``/``out_avals``,
    ``in_tree``/``out_tree``, ``call`` to run it, ``serialize`` to keep it."""

    def __init__(self, fun_name, in_tree, in_avals, out_tree, out_avals, platforms,
                 jaxpr, disabled_safety_checks=()):
        self.fun_name = fun_name
        self.in_tree, self.in_avals = in_tree, in_avals
        self.out_tree, self.out_avals = out_tree, out_avals
        self.platforms = platforms
        self.disabled_safety_checks = tuple(disabled_safety_checks)
        self.nr_devices = 1
        self._jaxpr = jaxpr
        self._runner = None

    def __repr__(self):
        return (f"Exported(fun_name={self.fun_name!r}, in_avals={self.in_avals}, "
                f"out_avals={self.out_avals}, platforms={self.platforms})")

    def symbols(self):
        """The symbolic dims' names, sorted."""
        return sorted({str(s) for a in self.in_avals for d in a.shape
                       if is_symbolic_dim(d) for s in d.free_symbols})

    def call(self, *args, **kwargs):
        """Run the program on arrays of the exported types (symbolic dims at any size
        ≥ 1, consistent across arguments); compiled once for all sizes."""
        leaves, tree = tree_flatten((args, kwargs))
        if tree != self.in_tree:
            raise TypeError(f"Exported.call({self.fun_name}): the arguments have structure "
                            f"{tree}, the export was made for {self.in_tree}")
        self._check_platform()
        leaves = [_as_array(x) for x in leaves]
        _check_types(self.fun_name, leaves, self.in_avals)
        if self._runner is None:
            jaxpr, in_avals = self._jaxpr, self.in_avals

            def run(*flat):
                # traced at symbolic shapes (the polymorphic compile) the program runs as
                # it is; inlined at concrete ones (under grad/vmap) its sizes are filled in
                env = {d: n for a, x in zip(in_avals, flat)
                       for d, n in zip(a.shape, np.shape(x))
                       if is_symbolic_dim(d) and d.is_Symbol and type(n) is int}
                closed = specialize(jaxpr, env) if env else jaxpr
                return eval_jaxpr(closed.jaxpr, closed.consts, *flat)
            run.__name__ = self.fun_name
            self._runner = api.jit(run, polymorphic_shapes=[
                _shapes.shape_str(a.shape) if any(map(is_symbolic_dim, a.shape)) else None
                for a in self.in_avals])
        return tree_unflatten(self.out_tree, list(self._runner(*leaves)))

    def _check_platform(self):
        """As JAX's: an export runs only on a platform it was made for (the program may
        hold platform-specific choices, e.g. ``lax.platform_dependent``)."""
        here = current_platform()
        here = _EXPORT_PLATFORM.get(here, here)
        if here == "interpreter" or here in self.platforms or \
                DisabledSafetyCheck.platform() in self.disabled_safety_checks:
            return
        raise ValueError(
            f"Function '{self.fun_name}' was exported for platforms '{self.platforms}' but "
            f"it is used on '{(here,)}'; export it with platforms=[{here!r}, ...], or pass "
            f"disabled_checks=[export.DisabledSafetyCheck.platform()] to export")

    def mlir_module(self):
        raise NotImplementedError(
            "Exported.mlir_module: tjit exports its own program, not StableHLO; "
            "print it with exported.as_text()")

    def as_text(self):
        """The exported program (tjit's jaxpr), as text."""
        return str(self._jaxpr)

    def serialize(self, vjp_order=0):
        """The export as bytes (``deserialize`` reads them in the same tjit version).

        ``vjp_order`` is JAX's number of VJP levels to serialize; tjit keeps the program
        itself, which differentiates to any order, so every order is available."""
        if not isinstance(vjp_order, int) or isinstance(vjp_order, bool) or vjp_order < 0:
            raise ValueError(f"Exported.serialize({self.fun_name}): vjp_order must be a "
                             f"non-negative int, got {vjp_order!r}")
        buf = io.BytesIO()
        state = (_FORMAT, _version(), self.fun_name, self.in_tree, self.in_avals,
                 self.out_tree, self.out_avals, self.platforms, self._jaxpr,
                 self.disabled_safety_checks)
        try:
            _dump(state, buf)
        except Exception as e:  # noqa: BLE001 (PicklingError, TypeError, AttributeError)
            raise ValueError(f"Exported.serialize({self.fun_name}): the program holds a "
                             f"value that cannot be serialized ({e}); programs with host "
                             f"callbacks or custom derivative rules (Python functions) "
                             f"cannot be exported to bytes") from None
        return bytearray(buf.getvalue())


def deserialize(blob):
    """The :class:`Exported` that ``Exported.serialize`` wrote to ``blob``."""
    try:
        state = _load(io.BytesIO(bytes(blob)))
    except Exception as e:  # noqa: BLE001 (any corruption: one clear error)
        raise ValueError(f"export.deserialize: not a tjit export, or a damaged one "
                         f"({type(e).__name__}: {e})") from None
    fmt, version, *fields = state
    if fmt != _FORMAT or version != _version():
        raise ValueError(f"export.deserialize: written by tjit {version} (format {fmt}); "
                         f"this is tjit {_version()} (format {_FORMAT}): export again with "
                         f"this version")
    return Exported(*fields)


def _dump(state, buf):
    """Pickle ``state``, primitives by name (registered once per process). (pickle is
    imported here: ~15 ms that ``import tjit`` need not pay.)"""
    import pickle

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            return ("primitive", obj.name) if isinstance(obj, Primitive) else None
    Pickler(buf).dump(state)


def _load(buf):
    import pickle

    class Unpickler(pickle.Unpickler):
        def persistent_load(self, pid):
            kind, name = pid
            if kind != "primitive" or name not in REGISTRY:
                raise pickle.UnpicklingError(f"unknown primitive {name!r}")
            return REGISTRY[name]
    return Unpickler(buf).load()


def _as_array(x):
    import tjit.numpy as jnp
    return x if isinstance(x, api.Array) or hasattr(x, "aval") else jnp.asarray(x)


def _check_types(name, leaves, avals):
    """Dtypes and ranks equal; the symbols' sizes solved from the arguments' shapes (a
    symbol on its own, or in a dim of one unknown such as ``2*d``), each >= 1, and
    every dim then equal to the argument's (JAX's shape assertions)."""
    for i, (x, a) in enumerate(zip(leaves, avals)):
        if x.dtype != a.dtype or len(x.shape) != len(a.shape):
            raise TypeError(f"Exported.call({name}): argument {i} is {x.dtype}"
                            f"{list(x.shape)}, the export takes {a.dtype}"
                            f"{_shapes.shape_str(a.shape)}; convert it (x.astype) or export "
                            f"again")
    env = {}
    try:
        for i, (x, a) in enumerate(zip(leaves, avals)):
            if not any(map(is_symbolic_dim, x.shape)):   # (a traced caller's: unchecked)
                _shapes.solve_dims(a.shape, x.shape, env, f"argument {i}")
    except ShapeError as e:
        why = str(e).removeprefix("polymorphic_shapes: ")
        raise type(e)(f"Exported.call({name}): the arguments' shapes do not match the "
                      f"exported shapes {', '.join(_shapes.shape_str(a.shape) for a in avals)}"
                      f": {why}") from None
    for d, n in env.items():
        if n < 1:
            raise ValueError(f"Exported.call({name}): dim {d} is {n}; symbolic dims are "
                             f">= 1")


__all__ = ["DisabledSafetyCheck", "Exported", "default_export_platform", "deserialize", "export",
           "is_symbolic_dim", "symbolic_args_specs", "symbolic_shape"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
