"""Buffer donation (``jit(..., donate_argnums=...)``) on the CPU backend.

Oracles: NumPy (float64 or the same float32 expression) and the same function jitted
without donation. Also checked: outputs really live in the donated buffers, donated
Arrays are deleted and then fail clearly, NumPy inputs and shared buffers are never
written, unusable donations warn (JAX's "Some donated buffers were not usable"), the
plan's in-place kernels, memory_analysis' alias bytes, polymorphic shapes, and the
interpreter backend (which ignores donation, as JAX did on backends without it).
"""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import cpu
from tjit.tracing.errors import ShapeError
from tjit.tree_util import tree_map
from tjit.xla_like import kernel_ir as K

BIG = 1 << 19  # above cpu.PARALLEL_MIN_WORK for cheap kernels: split across threads


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ptr(a):
    return a._value.ctypes.data


@pytest.fixture
def parallel_calls(monkeypatch):
    """Force two threads and count kernels launched through the thread pool."""
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")
    calls = []
    real = cpu.parallel_for

    def spy(*args, **kwargs):
        calls.append(args[3])
        return real(*args, **kwargs)
    monkeypatch.setattr(cpu, "parallel_for", spy)
    return calls


def _sgd(params, grads):
    return tree_map(lambda p, g: p - 0.1 * g, params, grads)


def test_sgd_update_writes_into_donated_buffers(rng, parallel_calls):
    ps = [_f32(rng, BIG) for _ in range(3)]
    gs = [jnp.asarray(_f32(rng, BIG)) for _ in range(3)]
    g_np = [np.asarray(g).copy() for g in gs]
    want = tjit.jit(_sgd)([jnp.asarray(p) for p in ps], gs)
    params = [jnp.asarray(p) for p in ps]
    ptrs = [_ptr(p) for p in params]
    step = tjit.jit(_sgd, donate_argnums=0)
    out = step(params, gs)
    assert parallel_calls, "the in-place kernels should take the multi-thread path"
    assert [_ptr(o) for o in out] == ptrs  # the results live in the donated buffers
    for o, w, p, g in zip(out, want, ps, g_np):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(w))
        np.testing.assert_allclose(np.asarray(o), p - np.float32(0.1) * g, rtol=1e-6)
    assert all(p.is_deleted() for p in params)
    assert not any(g.is_deleted() for g in gs)
    for g, g0 in zip(gs, g_np):
        np.testing.assert_array_equal(np.asarray(g), g0)  # non-donated inputs untouched
    ref = [p.astype(np.float64) - 0.1 * g for p, g in zip(ps, g_np)]
    for _ in range(4):  # a training loop: each step donates the previous step's result
        ref = [r - 0.1 * g for r, g in zip(ref, g_np)]
        out = step(out, gs)
    for o, r in zip(out, ref):
        np.testing.assert_allclose(np.asarray(o), r, rtol=1e-5, atol=1e-6)
    assert [_ptr(o) for o in out] == ptrs


def test_deleted_array_raises_clear_error(rng):
    x = jnp.asarray(_f32(rng, 8))
    xn = np.asarray(x).copy()
    y = tjit.jit(lambda a: a * 2, donate_argnums=0)(x)
    np.testing.assert_array_equal(np.asarray(y), xn * 2)
    assert x.is_deleted() and not y.is_deleted()
    assert "deleted" in repr(x)
    for use in (lambda: x + 1, lambda: np.asarray(x), lambda: print(x), lambda: x.shape,
                lambda: jnp.sum(x), lambda: tjit.jit(lambda a: a)(x), lambda: float(x[0])):
        with pytest.raises(RuntimeError, match=r"Array has been deleted with "
                                               r"shape=float32\[8\].*donate_argnums"):
            use()
    z = jnp.ones(3)
    z.delete()
    z.delete()  # idempotent, as in JAX
    assert z.is_deleted()


def test_numpy_inputs_are_never_written(rng):
    p, g = _f32(rng, BIG), _f32(rng, BIG)
    p0 = p.copy()
    f = tjit.jit(lambda p, g: p - 0.5 * g, donate_argnums=0)
    with pytest.warns(UserWarning, match="donated buffers were not usable: p is a NumPy"):
        out = f(p, g)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_allclose(np.asarray(out), p0 - np.float32(0.5) * g, rtol=1e-6)
    # the in-place kernel got a copy of the argument: a later donated call still works
    x = jnp.asarray(p)
    np.testing.assert_array_equal(np.asarray(f(x, g)), np.asarray(out))
    assert x.is_deleted()


@pytest.mark.parametrize("fn, what", [
    (lambda x: x.astype(jnp.int32), r"x: ShapedArray\(float32\[4096\]\)"),  # dtype
    (lambda x: jnp.sum(x.reshape(64, 64), axis=0), r"x: ShapedArray\(float32\[4096\]\)"),
    (lambda x: (x * 2).reshape(64, 64), r"x: ShapedArray\(float32\[4096\]\)"),
])
def test_mismatched_donation_is_not_used_and_warns(rng, fn, what):
    xn = _f32(rng, 4096)
    x = jnp.asarray(xn)
    with pytest.warns(UserWarning, match="Some donated buffers were not usable: " + what):
        out = tjit.jit(fn, donate_argnums=0)(x)
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(x), xn)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(tjit.jit(fn)(xn)))


@pytest.mark.parametrize("fn, ref", [
    (lambda x: (x * 2, jnp.sum(x)), lambda x: (x * 2, np.sum(x, dtype=np.float64))),
    (lambda x: x * 2 + jnp.sum(x), lambda x: x * 2 + np.sum(x, dtype=np.float64)),
    (lambda x: (x * 2, jnp.cumsum(x)), lambda x: (x * 2, np.cumsum(x, dtype=np.float64))),
    (lambda x: x[::-1] * 2 + x, lambda x: x[::-1] * 2 + x),
])
def test_donated_argument_read_elsewhere_is_correct(rng, fn, ref, parallel_calls):
    xn = _f32(rng, BIG)
    x = jnp.asarray(xn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (some of these cannot donate)
        got = tjit.jit(fn, donate_argnums=0)(x)
    got, want = (got if isinstance(got, tuple) else (got,)), ref(xn)
    for g, w in zip(got, want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-2)


def test_unsafe_index_patterns_are_not_updated_in_place(rng):
    sq = _f32(rng, 300, 300)
    with pytest.warns(UserWarning, match="not usable: x"):
        out = tjit.jit(lambda x: x.T + 1, donate_argnums=0)(jnp.asarray(sq))
    np.testing.assert_array_equal(np.asarray(out), sq.T + 1)
    # both donated: one kernel writes both outputs and reads both arguments everywhere
    a, b = _f32(rng, BIG), _f32(rng, BIG)
    f = tjit.jit(lambda x, y: (x + y, x * y), donate_argnums=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s, p = f(jnp.asarray(a), jnp.asarray(b))
    np.testing.assert_array_equal(np.asarray(s), a + b)
    np.testing.assert_array_equal(np.asarray(p), a * b)
    # a gather from the donated argument may read any element: never in place
    perm = np.random.default_rng(3).permutation(BIG).astype(np.int32)
    with pytest.warns(UserWarning, match="not usable: x"):
        g = tjit.jit(lambda x, i: x[i] + x, donate_argnums=0)(jnp.asarray(a), perm)
    np.testing.assert_array_equal(np.asarray(g), a[perm] + a)


def test_row_reductions_update_in_place(rng, parallel_calls):
    xn = _f32(rng, 512, 300)
    cases = [(lambda x: tjit.nn.softmax(x, axis=-1),
              lambda x: np.exp(x - x.max(1, keepdims=True)) /
              np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)),
             (lambda x: x - jnp.mean(x, axis=1, keepdims=True),
              lambda x: x - x.astype(np.float64).mean(1, keepdims=True))]
    for fn, ref in cases:
        x = jnp.asarray(xn)
        ptr = _ptr(x)
        out = tjit.jit(fn, donate_argnums=0)(x)
        assert _ptr(out) == ptr and x.is_deleted()
        np.testing.assert_allclose(np.asarray(out), ref(xn), rtol=2e-5, atol=1e-6)


def test_dot_results_can_take_donated_buffers(rng):
    w, v = _f32(rng, 200, 200), _f32(rng, 200, 200)
    f = tjit.jit(lambda w, v: w - 0.1 * (v @ w), donate_argnums=0)
    x = jnp.asarray(w)
    ptr = _ptr(x)
    out = f(x, v)
    assert _ptr(out) == ptr
    np.testing.assert_allclose(np.asarray(out), w - 0.1 * (v.astype(np.float64) @ w),
                               rtol=1e-4, atol=1e-4)
    g = tjit.jit(lambda w, v: (w @ v) * 2, donate_argnums=0)
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(w), v)),
                               (w.astype(np.float64) @ v) * 2, rtol=1e-4, atol=1e-3)


def test_shared_buffers_are_not_written(rng):
    xn = _f32(rng, 4096)
    f = tjit.jit(lambda x: x * 3, donate_argnums=0)
    x = jnp.asarray(xn)
    view = x.reshape(64, 64)  # an eager reshape is a NumPy view of x's buffer
    held = np.asarray(x)
    out = f(x)
    assert x.is_deleted()  # the donation is honoured semantically...
    np.testing.assert_array_equal(np.asarray(view).ravel(), xn)  # ...without writing
    np.testing.assert_array_equal(held, xn)
    np.testing.assert_array_equal(np.asarray(out), xn * 3)
    y = jnp.asarray(xn)  # the same Array passed twice
    out = tjit.jit(lambda a, b: a * 2 + b[::-1], donate_argnums=0)(y, y)
    np.testing.assert_array_equal(np.asarray(out), xn * 2 + xn[::-1])


def test_memory_analysis_reports_aliased_bytes(rng):
    ps = [jnp.ones(1000), jnp.ones((10, 10))]
    gs = [jnp.ones(1000), jnp.ones((10, 10))]
    plain = tjit.jit(_sgd).lower(ps, gs).compile().memory_analysis()
    donated = tjit.jit(_sgd, donate_argnums=0).lower(ps, gs).compile()
    m = donated.memory_analysis()
    assert plain.alias_size_in_bytes == 0
    assert m.alias_size_in_bytes == 4400 == m.output_size_in_bytes
    assert m.argument_size_in_bytes == 8800
    assert "@arg0" in donated.as_text() and "in place of" in donated.as_text()
    poly = tjit.jit(lambda x, g: x - g, donate_argnums=0, polymorphic_shapes=["(b, 3)"] * 2)
    c = poly.lower(jnp.ones((2, 3)), jnp.ones((2, 3))).compile()
    assert c.memory_analysis(b=10).alias_size_in_bytes == 120
    x = jnp.ones((4, 3))  # a compiled object donates too
    c(x, jnp.ones((4, 3)))
    assert x.is_deleted()


def test_polymorphic_shapes_with_donation(rng):
    f = tjit.jit(lambda w, g: w - 0.5 * g, donate_argnums=0,
                 polymorphic_shapes=["(b, 8)", "(b, 8)"])
    for b in (3, 5000):
        wn, gn = _f32(rng, b, 8), _f32(rng, b, 8)
        w = jnp.asarray(wn)
        ptr = _ptr(w)
        out = f(w, gn)
        assert _ptr(out) == ptr and w.is_deleted()
        np.testing.assert_array_equal(np.asarray(out), wn - np.float32(0.5) * gn)
    assert f.trace_count == 1


def test_interpreter_backend_ignores_donation(rng):
    xn = _f32(rng, 16)
    x = jnp.asarray(xn)
    f = tjit.jit(lambda x: x + 1, donate_argnums=0, backend="interpreter")
    with pytest.warns(UserWarning, match="not implemented for the interpreter backend"):
        out = f(x)
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(x), xn)
    np.testing.assert_array_equal(np.asarray(out), xn + 1)


def test_donate_argnames_and_keyword_arguments(rng):
    wn, gn = _f32(rng, 64), _f32(rng, 64)
    f = lambda w, g: w - g
    for jf, call in [(tjit.jit(f, donate_argnames="w"), lambda jf, w: jf(w, gn)),
                     (tjit.jit(f, donate_argnames="w"), lambda jf, w: jf(w=w, g=gn)),
                     (tjit.jit(f, donate_argnums=0), lambda jf, w: jf(w=w, g=gn))]:
        w = jnp.asarray(wn)
        np.testing.assert_array_equal(np.asarray(call(jf, w)), wn - gn)
        assert w.is_deleted()
    with pytest.raises(ValueError, match="both static and donated"):
        tjit.jit(f, static_argnums=0, donate_argnums=0)


def test_inplace_kernel_reads_through_the_output(rng):
    f = tjit.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    c = f.lower(jnp.ones(64), jnp.ones(64)).compile()
    (k,) = c.kernels()
    assert k.inplace == ((0, 2),)
    loads = [n for st in k.stores for n in K.walk(st.expr) if isinstance(n, K.Load)]
    assert {n.arg for n in loads} == {1, 2}  # argument 0 is never accessed
    K.check_kernel(k)
    # the IR's reference semantics: the output buffer holds p on entry
    p, g = _f32(rng, 64), _f32(rng, 64)
    ops = {"mul": lambda a, b, dtype: a * b, "sub": lambda a, b, dtype: a - b}
    bufs = K.evaluate(k, [np.full(64, np.nan, np.float32), g, p.copy()], op_impls=ops)
    np.testing.assert_array_equal(bufs[2], p - np.float32(0.1) * g)
    bad = K.Kernel("bad", k.shape, k.args, stores=k.stores)  # the same loads, no pair
    with pytest.raises(ValueError, match="load from output argument"):
        K.check_kernel(bad)


def test_training_step_with_dots_donates_params(rng):
    def loss_fn(params, x, y):
        h = jnp.tanh(x @ params["w1"] + params["b1"])
        return jnp.mean((h @ params["w2"] - y) ** 2)

    def train_step(params, x, y):
        loss, grads = tjit.value_and_grad(loss_fn)(params, x, y)
        return tree_map(lambda p, g: p - 0.05 * g, params, grads), loss

    init = {"w1": _f32(rng, 16, 32) * 0.3, "b1": np.zeros(32, np.float32),
            "w2": _f32(rng, 32, 4) * 0.3}
    x, y = _f32(rng, 64, 16), _f32(rng, 64, 4)
    plain, donating = tjit.jit(train_step), tjit.jit(train_step, donate_argnums=0)
    p1 = tree_map(jnp.asarray, init)
    p2 = tree_map(lambda a: jnp.asarray(a.copy()), init)
    for _ in range(5):
        p1, l1 = plain(p1, x, y)
        old = p2
        p2, l2 = donating(p2, x, y)
        assert float(l1) == float(l2)
        assert all(a.is_deleted() for a in tjit.tree_util.tree_leaves(old))
    for k in init:
        np.testing.assert_array_equal(np.asarray(p1[k]), np.asarray(p2[k]))
    stats = donating.lower(p1, x, y).compile().memory_analysis()
    assert stats.alias_size_in_bytes == sum(a.nbytes for a in init.values())


def test_inplace_rewrite_orders_stores_and_refuses_reads_after_writes(rng):
    from tjit.xla_like import plan as P
    f32 = np.dtype(np.float32)
    idx = K.Affine(0, (1,))

    def load(arg):  # distinct node objects: a backend may load them twice
        return K.Load(arg, idx, f32)
    k = K.Kernel("k", (64,), (K.Arg(f32, "in"), K.Arg(f32, "in"), K.Arg(f32, "out"),
                              K.Arg(f32, "out")),
                 stores=(K.Store(2, idx, K.Op("add", (load(0), load(1)), f32)),
                         K.Store(3, idx, K.Op("mul", (load(0), load(1)), f32))))
    step = P.KernelStep(k, [10, 11], [20, 21])
    values = {v: P.Value(v, (64,), f32, "output") for v in (20, 21)}
    # x -> first output: its store moves last, after the store that still reads x
    new = P._inplace_kernel(step, [(10, 20)], values)
    assert [st.arg for st in new.stores] == [3, 2] and new.inplace == ((0, 2),)
    x, y = _f32(rng, 64), _f32(rng, 64)
    ops = {"add": lambda a, b, dtype: a + b, "mul": lambda a, b, dtype: a * b}
    bufs = K.evaluate(new, [np.full(64, np.nan, np.float32), y, x.copy(),
                            np.empty(64, np.float32)], op_impls=ops)
    np.testing.assert_array_equal(bufs[2], x + y)
    np.testing.assert_array_equal(bufs[3], x * y)
    # both in place: whichever store runs second would read an overwritten argument
    assert P._inplace_kernel(step, [(10, 20), (11, 21)], values) is None
    # a load of the argument at another element (a shifted read) is refused
    shifted = K.Kernel("s", (63,), k.args[:3], stores=(K.Store(
        2, K.Affine(0, (1,)), K.Op("add", (K.Load(0, K.Affine(1, (1,)), f32), load(1)),
                                   f32)),))
    values[20] = P.Value(20, (63,), f32, "output")
    assert P._inplace_kernel(P.KernelStep(shifted, [10, 11], [20]), [(10, 20)],
                             values) is None


def test_size_errors_leave_donated_arguments_intact(rng):
    f = tjit.jit(lambda w, g: w - g, donate_argnums=0, polymorphic_shapes=["(b,)", "(b,)"])
    wn = _f32(rng, 5)
    w = jnp.asarray(wn)
    with pytest.raises(ShapeError, match="dim b is 5 elsewhere but 6"):
        f(w, jnp.ones(6))  # b = 5 and b = 6: rejected before anything runs
    assert not w.is_deleted()
    np.testing.assert_array_equal(np.asarray(w), wn)
    np.testing.assert_array_equal(np.asarray(f(w, jnp.ones(5))), wn - 1)
    assert w.is_deleted()


@pytest.mark.parametrize("update", ["set", "add", "mul", "min"])
@pytest.mark.parametrize("i", [0, 5, 99, -1, -100, 100, 250, -101])
def test_row_update_of_a_donated_array_visits_that_row_only(update, i, rng):
    """x.at[i].<update>(v) with x donated: written into x's buffer, by a kernel that
    visits row i only (its hyperplane); negative i counts from the end, rows out of
    range are dropped (NumPy reference)."""
    x0, v = _f32(rng, 100, 6), _f32(rng, 6)
    f = tjit.jit(lambda x, i, v: getattr(x.at[i], update)(v), donate_argnums=0)
    compiled = f.lower(jnp.asarray(x0), i, v).compile()
    assert [k.hyperplane is not None for k in compiled.kernels()] == [True], \
        compiled.as_text()
    x = jnp.asarray(x0)
    ptr = _ptr(x)
    out = f(x, i, v)
    assert _ptr(out) == ptr
    want = x0.copy()
    row = i + 100 if i < 0 else i
    if 0 <= row < 100:
        combine = {"set": lambda a, b: b, "add": np.add, "mul": np.multiply,
                   "min": np.minimum}[update]
        want[row] = combine(want[row], v)
    np.testing.assert_array_equal(np.asarray(out), want)
    # not given up (a NumPy argument): the output is a fresh copy with the row updated
    with pytest.warns(UserWarning, match="NumPy array"):
        np.testing.assert_array_equal(np.asarray(f(x0, i, v)), want)
