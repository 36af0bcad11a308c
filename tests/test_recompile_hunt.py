"""Compile counts and cache keys of common user patterns (benchmarks/diff_recompiles.py).

Counts come from the public monitoring API (JAX's event names); values are checked
against NumPy. A cache key that lets two different programs share one entry gives the
first program's answer for the second call: those tests call in both orders.
"""

import dataclasses
import enum
import functools
import logging
from collections import namedtuple

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import monitoring

COMPILE = "/jax/core/compile/backend_compile_duration"
TRACE = "/jax/core/compile/jaxpr_trace_duration"


@pytest.fixture
def count():
    seen = []

    def listener(event, duration, fun_name=None, **kw):
        seen.append(event)
    monitoring.register_event_duration_secs_listener(listener)

    def compiles():
        return seen.count(COMPILE)
    compiles.traces = lambda: seen.count(TRACE)
    yield compiles
    monitoring.unregister_event_duration_listener(listener)


X32 = np.arange(3, dtype=np.int32)


# -- static arguments: equal by == but of other types inside ------------------------------
P = namedtuple("P", "a b")


@dataclasses.dataclass(frozen=True)
class Conf:
    k: object


def _number(t):
    """The first number inside ``t`` (tuples, frozensets, Conf)."""
    while not isinstance(t, (int, float, np.number)):
        t = t[0] if isinstance(t, tuple) else next(iter(t)) if isinstance(t, frozenset) \
            else t.k
    return t


STATIC_PAIRS = [
    ((2, 3), (2.0, 3)),
    ((np.int32(2),), (np.float32(2),)),
    (P(2, 1), P(2.0, 1)),
    (((2,),), ((2.0,),)),          # nested
    (frozenset([2]), frozenset([2.0])),
    (Conf(2), Conf(2.0)),
    (Conf((2,)), Conf((2.0,))),
]


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("pair", STATIC_PAIRS, ids=lambda p: repr(p[0]))
def test_static_values_equal_but_of_other_types_compile_apart(pair, order):
    f = tjit.jit(lambda x, t: x * _number(t), static_argnums=1)
    for t in (pair if order == 0 else pair[::-1]):
        got = np.asarray(f(X32, t))
        want = X32 * _number(t)          # NumPy: int32 * int -> int32, * float -> float
        want_dtype = np.int32 if isinstance(_number(t), (int, np.integer)) else np.float32
        assert got.dtype == want_dtype, (t, got.dtype)
        np.testing.assert_array_equal(got, want)


def test_static_signed_zero_compiles_apart():
    f = tjit.jit(lambda x, s: x / s, static_argnums=1)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(x, 0.0), [np.inf, np.inf])
    np.testing.assert_array_equal(f(x, -0.0), [-np.inf, -np.inf])


class Mode(enum.Enum):
    A = "a"
    B = "b"


def test_static_equal_new_objects_hit_the_cache(count):
    f = tjit.jit(lambda x, shape, conf, mode, name: x.reshape(shape) * conf.k
                 + (1 if mode is Mode.A else 2) + len(name), static_argnums=(1, 2, 3, 4))
    x = np.arange(6.0, dtype=np.float32)
    for i in range(4):   # new tuple, dataclass, enum lookup and string objects each call
        out = f(x, tuple([2, 3]), Conf(2.0), Mode("a"), "ab" + "c" * 0)
        np.testing.assert_allclose(out, x.reshape(2, 3) * 2 + 1 + 2)
    assert count() == 1
    f(x, (2, 3), Conf(3.0), Mode.A, "ab")
    f(x, (3, 2), Conf(2.0), Mode.A, "ab")
    f(x, (2, 3), Conf(2.0), Mode.B, "ab")
    assert count() == 4


def test_unhashable_static_inside_a_tuple_is_a_clear_error():
    f = tjit.jit(lambda x, t: x, static_argnums=1)
    with pytest.raises(ValueError, match="must be hashable"):
        f(X32, ([1],))


# -- callables equal by == ----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Scale:
    k: object

    def __call__(self, x):
        return x * self.k


@pytest.mark.parametrize("order", [0, 1])
def test_jit_of_equal_callables_with_other_field_types(order):
    objs = [Scale(2), Scale(2.0)]
    if order:
        objs.reverse()
    fs = [tjit.jit(o) for o in objs]      # (both alive: jit shares caches per callable)
    for o, f in zip(objs, fs):
        got = np.asarray(f(X32))
        assert got.dtype == (np.float32 if isinstance(o.k, float) else np.int32)
        np.testing.assert_array_equal(got, X32 * 2)


def test_jit_of_equal_callables_of_same_types_share_programs(count):
    a, b = Scale(3.0), Scale(3.0)
    fa, fb = tjit.jit(a), tjit.jit(b)
    np.testing.assert_allclose(fa(np.ones(2, np.float32)), [3, 3])
    np.testing.assert_allclose(fb(np.ones(2, np.float32)), [3, 3])
    assert count() == 1


# -- counts of the common patterns (JAX's counts in the comments) --------------------------
def _f(x, s):
    return x * s + 1


def test_python_scalar_values_and_kinds(count):
    f = tjit.jit(_f)
    x = np.arange(4.0, dtype=np.float32)
    for s in (0.5, 1.5, 2.5):             # weak float: one program (JAX: 1)
        np.testing.assert_allclose(f(x, s), x * s + 1)
    assert count() == 1
    out = f(x, 2)                          # weak int: a new one (JAX: 1 more)
    assert out.dtype == np.float32
    f(x, np.float32(2))                    # strong float32 scalar (JAX: 1 more)
    assert count() == 3
    f(x, np.float64(2))                    # canonicalized to float32 in x32 (JAX: hit)
    assert count() == 3


def test_rewrapping_one_function_does_not_recompile(count):
    x = np.arange(4.0, dtype=np.float32)
    for _ in range(3):
        np.testing.assert_allclose(tjit.jit(_f)(x, 2.0), x * 2 + 1)
    assert count() == 1
    g = tjit.jit(functools.partial(_f, s=2.0))
    for _ in range(3):       # one partial object jitted again
        np.testing.assert_allclose(tjit.jit(g)(x), x * 2 + 1)
        np.testing.assert_allclose(g(x), x * 2 + 1)
    assert count() == 3      # g's program and jit(g)'s, each once (as JAX)


def test_new_lambdas_and_closures_trace_anew(count):
    # as JAX: a new function object traces again; a program keyed by its code alone
    # would miss a changed global or closure value (a silent wrong answer)
    x = np.arange(3.0, dtype=np.float32)
    for i in range(3):
        np.testing.assert_allclose(tjit.jit(lambda a: a * i)(x), x * i)
    assert count() == 3


def test_batch_sizes_share_one_dynamic_program(count):
    f = tjit.jit(lambda x: (x * 2).sum(axis=1))
    for b in range(2, 9):
        x = np.full((b, 3), b, np.float32)
        np.testing.assert_allclose(f(x), np.full(b, 6.0 * b))
    assert count() <= 2          # (JAX: 7) the first shape, then one symbolic program


def test_scan_lengths_share_one_dynamic_program(count):
    f = tjit.jit(lambda xs: tjit.lax.scan(lambda c, x: (c + x, c), 0.0, xs)[0])
    for n in (3, 4, 5, 6):
        np.testing.assert_allclose(f(np.arange(float(n), dtype=np.float32)),
                                   n * (n - 1) / 2)
    assert count() <= 2          # (JAX: 4)


def test_pytree_structure_and_dtypes(count):
    f = tjit.jit(lambda t: t["a"] - t["b"])
    a, b = np.arange(3.0, dtype=np.float32), np.ones(3, np.float32)
    f({"a": a, "b": b})
    np.testing.assert_allclose(f({"b": b, "a": a}), a - b)   # key order: same tree
    assert count() == 1
    g = tjit.jit(lambda x: x * 2)
    g(np.arange(3, dtype=np.int32))
    assert g(np.arange(3, dtype=np.int64)).dtype == np.int32  # x32: the same program
    assert count() == 2


def test_optax_like_step_with_changing_learning_rate(count):
    @tjit.jit
    def step(w, lr):
        return w - lr * w
    w, want = np.ones(3, np.float32), np.ones(3)
    for i in range(5):
        lr = 0.1 / (i + 1)
        w, want = step(w, lr), want - lr * want
    np.testing.assert_allclose(w, want, rtol=1e-6)
    assert count() == 1


def test_donated_argument_steps_compile_once(count):
    f = tjit.jit(lambda x: x + 1, donate_argnums=0)
    x = jnp.zeros(8)
    for _ in range(4):
        x = f(x)
    np.testing.assert_allclose(x, np.full(8, 4.0))
    assert count() == 1


def test_grad_of_jit_rewrapped(count):
    def sq(v):
        return v * v * 3
    for _ in range(3):
        np.testing.assert_allclose(tjit.grad(tjit.jit(sq))(np.float32(1.5)), 9.0)
        np.testing.assert_allclose(tjit.jit(tjit.grad(sq))(np.float32(1.5)), 9.0)
    assert count() <= 4          # (JAX: 1 for grad(jit(sq)), 3 for jit(grad(sq)))


# -- explain_cache_misses: the cause against the closest compiled signature ----------------
def _causes(caplog, calls):
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="tjit.compiles"), tjit.explain_cache_misses():
        for call in calls:
            call()
    return [r.getMessage().split(" (", 1)[1] for r in caplog.records
            if r.name == "tjit.compiles" and r.getMessage().startswith("trace+compile")]


def test_explain_cache_misses_names_the_difference_from_the_closest_signature(caplog):
    g = tjit.jit(lambda x, y: x + y, dynamic_shapes=False)
    x3, x4 = np.ones(3, np.float32), np.ones(4, np.float32)
    causes = _causes(caplog, [lambda: g(x3, 1.0), lambda: g(x3, np.float32(1)),
                              lambda: g(x4, 1.0)])
    assert causes[0].startswith("first call")
    assert causes[1].startswith("dtype of arg y changed: float32 (weak) → float32")
    # closest is g(x3, 1.0): only x's shape differs (the last call also had a strong y)
    assert causes[2].startswith("new shape for arg x: (3,) → (4,)"), causes[2]

    f = tjit.jit(lambda x, s: x * s, static_argnames="s")
    causes = _causes(caplog, [lambda: f(x3, s=2), lambda: f(x3, s=3),
                              lambda: f(x3.astype(np.int32), s=2),
                              lambda: f(np.ones((3, 2), np.float32), s=2),
                              lambda: f(x3, s=2.0)])
    assert causes[1].startswith("static arg s changed (s: 2 → 3)")
    assert causes[2].startswith("dtype of arg x changed: float32 → int32)"), causes[2]
    assert causes[3].startswith("rank of arg x changed: 1 → 2)"), causes[3]
    # (s=2 and s=3 differ from it as little: the later one is named)
    assert causes[4].startswith("static arg s changed (s: 3 → 2.0)"), causes[4]


# -- checkpoint's trace cache (keyed as jit's) ---------------------------------------------
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("pair", STATIC_PAIRS[:3], ids=lambda p: repr(p[0]))
def test_checkpoint_statics_of_other_types_trace_apart(pair, order):
    h = tjit.checkpoint(lambda x, t: x * _number(t), static_argnums=(1,))
    for t in (pair if order == 0 else pair[::-1]):
        got = np.asarray(tjit.jit(lambda x: h(x, t))(X32))   # (a new jit: traced anew)
        want_dtype = np.int32 if isinstance(_number(t), (int, np.integer)) else np.float32
        assert got.dtype == want_dtype, (t, got.dtype)
        np.testing.assert_array_equal(got, X32 * 2)


@pytest.mark.parametrize("order", [0, 1])
def test_checkpoint_of_equal_callables_with_other_field_types(order):
    objs = [Scale(2), Scale(2.0)]
    if order:
        objs.reverse()
    for o in objs:
        got = np.asarray(tjit.jit(lambda x: tjit.checkpoint(o)(x))(X32))
        assert got.dtype == (np.float32 if isinstance(o.k, float) else np.int32)
        np.testing.assert_array_equal(got, X32 * 2)


# -- pmap's cache (keyed as jit's: typed statics, weak types) ------------------------------
@pytest.mark.parametrize("order", [0, 1])
def test_pmap_statics_of_other_types_compile_apart(order):
    f = tjit.pmap(lambda a, s: a * _number(s), static_broadcasted_argnums=1)
    x = X32[None, :1] + 1          # (one device)
    for s in ((2,), (2.0,)) if order == 0 else ((2.0,), (2,)):
        got = np.asarray(f(x, s))
        assert got.dtype == (np.float32 if isinstance(s[0], float) else np.int32)
        np.testing.assert_array_equal(got, [[2]])


@pytest.mark.parametrize("order", [0, 1])
def test_pmap_weak_and_strong_leaves_compile_apart(order):
    f = tjit.pmap(lambda a, b: a + b)
    a16 = jnp.ones((1,), jnp.float16)
    weak = jnp.broadcast_to(2.0, (1,))          # weakly typed float32
    strong = jnp.asarray([2.0], jnp.float32)
    for b in (weak, strong) if order == 0 else (strong, weak):
        got = np.asarray(f(a16, b))
        assert got.dtype == (np.float16 if b is weak else np.float32)
        np.testing.assert_array_equal(got, [3.0])


# -- jit(obj.method): a new bound method at each access ------------------------------------
class Model:
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        return x * self.w

    def __eq__(self, other):     # equal by value: must not join two models' programs
        return isinstance(other, Model) and self.w == other.w

    def __hash__(self):
        return hash(self.w)


def test_jit_of_bound_method_rebuilt_each_step_sees_the_object_now():
    # as JAX: jit(m.apply) is a new function each step and traces again, so a changed
    # attribute is read (sharing programs per object and method would return the old
    # value silently; 4 compiles here, as JAX's)
    m = Model(3.0)
    x = np.arange(3.0, dtype=np.float32)
    for w in (3.0, 4.0, 5.0):
        m.w = w
        np.testing.assert_allclose(tjit.jit(m.apply)(x), x * w)


@pytest.mark.parametrize("order", [0, 1])
def test_jit_of_bound_methods_of_equal_objects_of_other_types(order):
    models = [Model(2), Model(2.0)]       # equal by ==, one int32 and one float32 program
    if order:
        models.reverse()
    for m in models + models:
        got = np.asarray(tjit.jit(m.apply)(X32))
        assert got.dtype == (np.float32 if isinstance(m.w, float) else np.int32)
        np.testing.assert_array_equal(got, X32 * 2)


def test_jit_of_bound_method_does_not_keep_its_object_alive():
    import gc
    import weakref
    m = Model(2.0)
    tjit.jit(m.apply)(np.ones(2, np.float32))
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None
