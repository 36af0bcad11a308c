"""jit: per-signature caching, static arguments, polymorphic shapes, lower/compile."""

import functools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _arr(*shape, dtype=np.float32, seed=0):
    return jnp.asarray(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def test_matches_eager_and_numpy():
    def f(p, x):
        h = jnp.maximum(lax.dot_general(x, p["w"], (((1,), (0,)), ((), ()))) + p["b"], 0.0)
        return h * h
    p = {"w": _arr(4, 5, seed=1), "b": _arr(5, seed=2)}
    x = _arr(3, 4, seed=3)
    ref = np.maximum(np.asarray(x) @ np.asarray(p["w"]) + np.asarray(p["b"]), 0) ** 2
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(p, x)), ref, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(f(p, x)), ref, rtol=1e-5)


def test_cache_hits_and_misses():
    f = tjit.jit(lambda x: jnp.sin(x) * 2.0)
    f(_arr(3))
    f(_arr(3, seed=1))
    assert f._cache_size() == 1 and f.trace_count == 1
    f(_arr(4))                       # new shape
    f(_arr(3, dtype=np.int32))       # new dtype
    f(np.ones(3, np.float32))        # NumPy array with a seen signature: hit
    assert f._cache_size() == 3 and f.trace_count == 3
    f(1.0)                           # weak scalar
    f(jnp.asarray(1.0))              # weakly typed 0-d array: same signature as 1.0
    assert f._cache_size() == 4


def test_pytree_structure_is_part_of_key():
    f = tjit.jit(lambda d: d["a"] + d["b"])
    f({"a": _arr(2), "b": _arr(2)})
    f({"a": _arr(2), "b": _arr(2)})
    assert f._cache_size() == 1
    g = tjit.jit(lambda t: t[0] + t[1])
    g((_arr(2), _arr(2)))
    g([_arr(2), _arr(2)])
    assert g._cache_size() == 2


def test_pytree_outputs():
    out = tjit.jit(lambda x: {"y": (x, x * 2.0), "z": None})(_arr(2))
    assert set(out) == {"y", "z"} and out["z"] is None
    np.testing.assert_allclose(np.asarray(out["y"][1]), 2 * np.asarray(out["y"][0]))


def test_static_argnums_and_argnames():
    calls = []

    def f(x, n, *, mode="a"):
        calls.append((n, mode))
        return x * n if mode == "a" else x - n
    g = tjit.jit(f, static_argnums=1, static_argnames="mode")
    assert float(g(jnp.asarray(2.0), 3)) == 6.0
    assert float(g(jnp.asarray(5.0), 3)) == 15.0
    assert float(g(jnp.asarray(2.0), 3, mode="b")) == -1.0
    assert float(g(jnp.asarray(2.0), 4)) == 8.0
    assert len(calls) == 3 and g._cache_size() == 3


def test_static_argnames_by_position():
    g = tjit.jit(lambda x, n: x * n if n else x, static_argnames="n")
    assert float(g(jnp.asarray(2.0), 3)) == 6.0


def test_kwargs_are_dynamic():
    g = tjit.jit(lambda x, y=1.0: x + y)
    assert float(g(jnp.asarray(1.0), y=jnp.asarray(2.0))) == 3.0


def test_donate_argnums_accepted():
    g = tjit.jit(lambda x: x + 1.0, donate_argnums=0)
    assert float(g(jnp.asarray(1.0))) == 2.0


def test_decorator_forms():
    @tjit.jit
    def f(x):
        return x + 1.0

    @tjit.jit(static_argnums=(1,))
    def g(x, k):
        return x * k
    assert float(f(jnp.asarray(1.0))) == 2.0
    assert float(g(jnp.asarray(2.0), 3)) == 6.0
    assert f.__name__ == "f"


def test_nested_jit_inlines():
    inner = tjit.jit(lambda x: jnp.sin(x) + 1.0)
    outer = tjit.jit(lambda x: inner(x) * 2.0)
    j = tjit.make_jaxpr(outer)(_arr(3))
    assert [e.primitive.name for e in j.eqns] == ["sin", "add", "mul"]
    np.testing.assert_allclose(np.asarray(outer(_arr(3))),
                               (np.sin(np.asarray(_arr(3))) + 1) * 2, rtol=1e-6)


def test_polymorphic_traces_once_for_all_sizes():
    traces = []

    def h(x):
        traces.append(x.shape)
        return jnp.tanh(x) * 2.0 + 1.0
    g = tjit.jit(h, polymorphic_shapes=["(b, 784)"])
    for b in (1, 7, 128):
        x = _arr(b, 784, seed=b)
        np.testing.assert_allclose(np.asarray(g(x)), np.tanh(np.asarray(x)) * 2 + 1,
                                   rtol=1e-6, atol=5e-7)
    assert len(traces) == 1 and g._cache_size() == 1
    assert str(traces[0]) == "(b, 784)"


def test_polymorphic_with_reshape_and_iota():
    def h(x):
        flat = lax.reshape(x, (-1,))
        return flat + lax.convert_element_type(lax.iota(np.int32, flat.shape[0]), np.float32)
    g = tjit.jit(h, polymorphic_shapes=["(b, 3)"])
    for b in (1, 4):
        x = _arr(b, 3)
        np.testing.assert_allclose(np.asarray(g(x)), np.asarray(x).ravel() + np.arange(3 * b))
    assert g.trace_count == 1


def test_polymorphic_two_symbols():
    g = tjit.jit(lambda x, y: x * 2.0, polymorphic_shapes=["(b, 2*b)", None])
    assert g(_arr(3, 6), _arr(2)).shape == (3, 6)
    assert g(_arr(5, 10), _arr(2)).shape == (5, 10)
    assert g.trace_count == 1


def test_lower_as_text_compile():
    f = tjit.jit(lambda x: jnp.tanh(x) * 2.0)
    lowered = f.lower(_arr(3))
    assert lowered.as_text() == (   # (80 columns: one line, as JAX prints it)
        "{ lambda ; a:f32[3]. let b:f32[3] = tanh a; c:f32[3] = mul b 2.0:f32[] in (c,) }")
    compiled = lowered.compile()
    np.testing.assert_allclose(np.asarray(compiled(_arr(3))), np.tanh(np.asarray(_arr(3))) * 2,
                               rtol=1e-6)
    assert "tanh" in compiled.as_text()
    spec = f.lower(tjit.ShapeDtypeStruct((5,), np.float32))
    assert spec.out_info.shape == (5,)


def test_make_jaxpr_return_shape_and_eval_shape():
    j, shape = tjit.make_jaxpr(lambda x: x * 2.0, return_shape=True)(_arr(2, 3))
    assert shape.shape == (2, 3)
    out = tjit.eval_shape(lambda x: {"a": x + 1.0}, tjit.ShapeDtypeStruct((4,), np.float32))
    assert out["a"].shape == (4,) and out["a"].dtype == np.float32


# (function, args, the outputs' (dtype, weak_type) as jax 0.10.2's eval_shape gives them)
_EVAL_SHAPE_WEAK = [
    (lambda z: z, (1.0,), [("float32", True)]),
    (lambda z: z, (1,), [("int32", True)]),
    (lambda z: z, (True,), [("bool", False)]),
    (lambda z: z, (np.float32(1),), [("float32", False)]),
    (lambda z: z * 2.0, (3,), [("float32", True)]),
    (lambda z: z * 2.0, (np.ones(2, np.float32),), [("float32", False)]),
    (lambda z: 2.0, (1.0,), [("float32", True)]),
    (lambda z: jnp.sum(z), (1.0,), [("float32", False)]),
    (lambda z: {"a": z, "b": (z + 1, z * np.float32(2))}, (1.0,),
     [("float32", True), ("float32", True), ("float32", False)]),
    (lambda z: z, (tjit.ShapeDtypeStruct((), np.float32, weak_type=True),),
     [("float32", True)]),
]


@pytest.mark.parametrize("i", range(len(_EVAL_SHAPE_WEAK)))
def test_eval_shape_keeps_weak_types(i):
    fun, args, want = _EVAL_SHAPE_WEAK[i]
    got = tjit.tree_util.tree_leaves(tjit.eval_shape(fun, *args))
    assert [(str(s.dtype), s.weak_type) for s in got] == want
    shape = tjit.tree_util.tree_leaves(tjit.make_jaxpr(fun, return_shape=True)(*args)[1])
    assert shape == got
    if not isinstance(args[0], tjit.ShapeDtypeStruct):   # as the computed outputs are
        out = tjit.tree_util.tree_leaves(fun(*args))
        assert [(str(jnp.asarray(o).dtype), tjit.typeof(o).weak_type) for o in out] == want


def test_shape_dtype_struct_weak_type_in_repr_and_equality():
    weak = tjit.ShapeDtypeStruct((), np.float32, weak_type=True)
    strong = tjit.ShapeDtypeStruct((), np.float32)
    assert repr(weak) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert repr(strong) == "ShapeDtypeStruct(shape=(), dtype=float32)"
    assert weak != strong and len({weak, strong}) == 2   # (as JAX's)
    assert weak == tjit.eval_shape(lambda z: z, 1.0)


def test_x64_switch_retraces(x64):
    f = tjit.jit(lambda x: x + 1.0)
    out = f(np.ones(2))
    assert out.dtype == np.float64


def test_constants_and_literal_outputs():
    w = _arr(3)
    f = tjit.jit(lambda x: (x * w, 1.0, w))
    a, b, c = f(_arr(3, seed=1))
    assert float(b) == 1.0 and b.weak_type
    np.testing.assert_array_equal(np.asarray(c), np.asarray(w))


def test_jit_method():
    class Model:
        def __init__(self):
            self.scale = 3.0

        @functools.partial(tjit.jit, static_argnums=0)
        def apply(self, x):
            return x * self.scale
    assert float(Model().apply(jnp.asarray(1.0))) == 3.0
    with pytest.raises(TypeError, match="argument of type Model is not a valid array"):
        tjit.jit(lambda m, x: x)(Model(), 1.0)


def test_output_is_immutable_array():
    out = tjit.jit(lambda x: x + 1.0)(_arr(3))
    assert isinstance(out, tjit.Array)
    with pytest.raises(TypeError):
        out[0] = 2.0
