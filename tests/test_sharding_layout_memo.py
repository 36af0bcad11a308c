"""jit works out its outputs' layouts once per cache entry and argument layouts
(tjit/_sharded_jit.py lay_out_outputs) and skips the work where no argument is
committed. The memo must never hand one call's layouts to another: one jitted function
is called on the same shapes with the layouts changing from call to call, and each
output's ``.sharding`` is checked against a fresh jit of the same function (no memo)
and, where JAX's answer is plain, against that answer."""

import contextlib

import numpy as np

import tjit as jax
import tjit.numpy as jnp
from tjit.sharding import AxisType, NamedSharding, PartitionSpec as P, SingleDeviceSharding


def _fns():
    return {
        "double": lambda a: a * 2 + 1,
        "pair": lambda a, b: (a + b, (a * b).sum(), a.T if a.ndim == 2 else a),
        "with_scalar": lambda a, s: [a * s, jnp.zeros(3)],
    }


def _arrays():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((8, 4)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal((8, 4)).astype(np.float32))
    explicit = jax.make_mesh((1,), ("X",))
    other = jax.make_mesh((1,), ("Y",))
    auto = jax.make_mesh((1,), ("X",), axis_types=(AxisType.Auto,))
    put = jax.device_put
    return {
        "x": x, "y": y,
        "x@X": put(x, NamedSharding(explicit, P("X"))),
        "x@(None,X)": put(x, NamedSharding(explicit, P(None, "X"))),
        "x@rep": put(x, NamedSharding(explicit, P())),
        "y@X": put(y, NamedSharding(explicit, P("X"))),
        "y@Y": put(y, NamedSharding(other, P("Y"))),
        "x@auto": put(x, NamedSharding(auto, P("X"))),
        "y@auto": put(y, NamedSharding(auto, P())),
    }, explicit


# (function, argument names) in an order that revisits each signature's entry with
# other layouts; "2.0" is a Python scalar
CALLS = [
    ("double", ["x"]), ("double", ["x@X"]), ("double", ["x@rep"]), ("double", ["x"]),
    ("double", ["x@(None,X)"]), ("double", ["x@auto"]), ("double", ["x@X"]),
    ("pair", ["x", "y"]), ("pair", ["x@X", "y"]), ("pair", ["x@X", "y@X"]),
    ("pair", ["x@X", "y@Y"]), ("pair", ["x@auto", "y@auto"]), ("pair", ["x@auto", "y"]),
    ("pair", ["x", "y"]), ("pair", ["x@(None,X)", "y@X"]),
    ("with_scalar", ["x", "2.0"]), ("with_scalar", ["x@X", "2.0"]),
    ("with_scalar", ["x@auto", "2.0"]), ("with_scalar", ["x", "2.0"]),
]


def _shardings(tree):
    return [leaf.sharding for leaf in jax.tree.leaves(tree)]


def _call_all(jitted, arrays, in_mesh):
    fresh_fns = _fns()
    for name, arg_names in CALLS:
        args = [2.0 if a == "2.0" else arrays[a] for a in arg_names]
        got = jitted[name](*args)
        want = jax.jit(fresh_fns[name])(*args)
        assert _shardings(got) == _shardings(want), (name, arg_names, in_mesh)
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        if not any("@" in a for a in arg_names):   # nothing committed
            for s in _shardings(got):
                if in_mesh is None:
                    assert isinstance(s, SingleDeviceSharding), (name, arg_names)
                else:
                    assert s == NamedSharding(in_mesh, P()), (name, arg_names)


def test_layouts_of_one_entry_follow_each_call():
    arrays, mesh = _arrays()
    jitted = {k: jax.jit(f) for k, f in _fns().items()}
    _call_all(jitted, arrays, None)
    with jax.set_mesh(mesh):   # the same entries, now with a mesh set
        _call_all(jitted, arrays, mesh)
    _call_all(jitted, arrays, None)


def test_plain_answers():
    arrays, mesh = _arrays()
    f = jax.jit(_fns()["double"])
    assert f(arrays["x@X"]).sharding == NamedSharding(mesh, P("X", None))
    assert f(arrays["x@(None,X)"]).sharding == NamedSharding(mesh, P(None, "X"))
    assert isinstance(f(arrays["x"]).sharding, SingleDeviceSharding)
    with jax.set_mesh(mesh):
        assert f(arrays["x"]).sharding == NamedSharding(mesh, P())
    assert isinstance(f(arrays["x"]).sharding, SingleDeviceSharding)
    g = jax.jit(_fns()["pair"])
    total, transposed = g(arrays["x@X"], arrays["y"])[1:]
    assert total.sharding == NamedSharding(mesh, P())
    assert transposed.sharding == NamedSharding(mesh, P(None, "X"))


def test_committed_buffers_read_in_place_give_numpy_values():
    """Compiled programs read a committed Array's buffer (a LaidOutValue) where it is:
    contiguous or not (an eager transpose), one kernel or several, the values are
    NumPy's in float64 and the caller's arrays are left as they were."""
    rng = np.random.default_rng(1)
    a64 = rng.standard_normal((64, 48))
    b64 = rng.standard_normal((64, 48))
    mesh = jax.make_mesh((1,), ("X",))
    a = jax.device_put(jnp.asarray(a64.astype(np.float32)), NamedSharding(mesh, P("X")))
    b = jax.device_put(jnp.asarray(b64.astype(np.float32)), NamedSharding(mesh, P()))
    at = a.T   # (committed, its buffer a transposed view)
    a32, b32 = a64.astype(np.float32), b64.astype(np.float32)
    programs = [
        (lambda u: u * 2 + 1, (a,), lambda: a32 * 2.0 + 1),
        (lambda u, v: (u * v).sum(), (a, b), lambda: (a32.astype(np.float64) * b32).sum()),
        (lambda u, v: u @ v.T + jnp.exp(u).sum(), (a, b),
         lambda: a32.astype(np.float64) @ b32.T + np.exp(a32.astype(np.float64)).sum()),
        (lambda u: u * 3 - 1, (at,), lambda: a32.T * 3.0 - 1),
        (lambda u, v: u @ v, (at, b), lambda: a32.T.astype(np.float64) @ b32),
    ]
    for fn, args, want in programs:
        got = jax.jit(fn)(*args)
        np.testing.assert_allclose(np.asarray(got), want(), rtol=2e-5, atol=1e-3)
        np.testing.assert_array_equal(np.asarray(a), a32)
        np.testing.assert_array_equal(np.asarray(b), b32)


def test_eager_layouts_follow_each_call():
    """Eager calls with a committed operand run from a memo per signature and operand
    layouts (tracing.core._laid_out_runs): the same operations on the same shapes, the
    layouts changing call to call, give each result the layout and the values worked
    out with every memo emptied first, and NumPy's values."""
    from tjit import _eager_layout
    from tjit.tracing import core
    arrays, _ = _arrays()
    names = ["x", "x@X", "x@(None,X)", "x@rep", "y@X", "x@auto", "y", "y@auto"]
    ops = {
        "add": lambda a, b: a + b,
        "mul_exp": lambda a, b: jnp.exp(a) * b,
        "sum0": lambda a, b: a.sum(0),
        "sum1": lambda a, b: b.sum(axis=1),
        "transpose": lambda a, b: a.T - b.T,
        "reshape": lambda a, b: a.reshape(4, 8, 1),
        "sort2": lambda a, b: jax.lax.sort((a, b), num_keys=1),
    }
    calls = [(op, a, b) for op in ops for a in names for b in names
             if not ("@auto" in a) ^ ("@auto" in b) and not ("y@X" in (a, b) and "auto" in a + b)]
    calls = calls + calls[::-1]
    for op, a, b in calls:
        args = arrays[a], arrays[b]
        got = ops[op](*args)
        core._laid_out_runs.clear()
        _eager_layout._LAID_OUT.clear()
        want = ops[op](*args)
        assert _shardings(got) == _shardings(want), (op, a, b)
        with np.errstate(all="ignore"):
            numpy_result = ops[op](*(np.asarray(v) for v in args)) if op != "sort2" else \
                [np.take_along_axis(np.asarray(v), np.argsort(np.asarray(args[0]), -1,
                                                              kind="stable"), -1)
                 for v in args]
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(numpy_result)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


def test_jit_with_shardings_plans_follow_each_call():
    """jit(f, in_shardings=..., out_shardings=...) runs a call it has checked before from
    a plan per argument signature, layouts and current mesh (ShardedJit._plans): each
    call's outputs have the shardings and values of a fresh jit with the same options,
    the layouts and the mesh setting changing call to call."""
    arrays, mesh = _arrays()
    single = SingleDeviceSharding(arrays["x"].devices().pop())
    options = [
        dict(in_shardings=NamedSharding(mesh, P("X")), out_shardings=NamedSharding(mesh, P())),
        dict(in_shardings=None, out_shardings=(NamedSharding(mesh, P(None, "X")), None)),
        dict(out_shardings=(single, NamedSharding(mesh, P("X")))),
        dict(in_shardings=(NamedSharding(mesh, P()), None)),
        dict(in_shardings=(None, None)),   # (outputs as the arguments' layouts and the mesh)
    ]
    fn = lambda a, b: (a * b + 1, (a - b).sum(0))  # noqa: E731
    names = ["x", "x@X", "x@rep", "y@X", "x@(None,X)", "y"]
    jitted = [jax.jit(fn, **o) for o in options]
    for in_mesh in (None, mesh, None):
        for f, o in zip(jitted, options):
            for a in names:
                for b in names[::-1]:
                    args = arrays[a], arrays[b]
                    with jax.set_mesh(in_mesh) if in_mesh else contextlib.nullcontext():
                        got = f(*args)
                        want = jax.jit(fn, **o)(*args)
                    assert _shardings(got) == _shardings(want), (o, a, b, in_mesh)
                    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
                        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))

