"""Automatic dynamic shapes (tjit/dynamic_shapes.py): a jit retraces once with the dims
that changed made symbolic, then runs every later size with no trace and no compile;
sizes 0/1 and Python code that needs a size get per-shape programs. Results are checked
at every size against the reference interpreter traced per shape and NumPy."""

import logging
import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.api import ShapeDtypeStruct
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError

RNG = np.random.default_rng(0)


def _reference(f, **kw):
    """The oracle: the interpreter, traced for each exact shape."""
    return tjit.jit(f, backend="interpreter", dynamic_shapes=False, **kw)


def _randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def mlp(x, w1, b1, w2):
    return jnp.tanh(x @ w1 + b1) @ w2


W1, B1, W2 = _randn(8, 16), _randn(16), _randn(16, 3)


def test_twenty_batch_sizes_trace_and_compile_at_most_twice():
    f, ref = tjit.jit(mlp), _reference(mlp)
    for b in range(2, 42, 2):
        x = _randn(b, 8)
        got = f(x, W1, B1, W2)
        np.testing.assert_allclose(got, ref(x, W1, B1, W2), rtol=2e-5, atol=2e-5)
        want = np.tanh(x.astype(np.float64) @ W1 + B1) @ W2
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert f.trace_count == 2 and f.compile_count == 2
    assert f._cache_size() == 2


def test_training_step_grad_over_batch_sizes():
    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    step, ref = tjit.jit(tjit.grad(loss)), _reference(tjit.grad(loss))
    w = _randn(5, 2)
    for b in (4, 6, 9, 17, 30):
        x, y = _randn(b, 5), _randn(b, 2)
        np.testing.assert_allclose(step(w, x, y), ref(w, x, y), rtol=1e-5, atol=1e-6)
    assert step.trace_count == 2 and step.compile_count == 2


def test_sizes_zero_and_one_are_specialized_and_broadcast():
    f = tjit.jit(lambda a, b: a * b + a.sum(0))
    ref = _reference(lambda a, b: a * b + a.sum(0))
    calls = [((3, 4), (3, 4)), ((5, 4), (5, 4)), ((1, 4), (1, 4)), ((7, 4), (1, 4)),
             ((0, 4), (0, 4)), ((9, 4), (9, 4)), ((2, 4), (2, 4))]
    for sa, sb in calls:
        a, b = _randn(*sa), _randn(*sb)
        np.testing.assert_allclose(f(a, b), ref(a, b), rtol=1e-5, atol=1e-5)
    # (3,4)+(3,4) first; 5: dynamic; 1 and 0: concrete each; (7,4)*(1,4) broadcasts: its
    # own program (b's 1 is never a symbol); 9 and 2 reuse the dynamic program
    assert f.compile_count == 5 and f.trace_count == 5


def test_dims_that_change_together_share_a_symbol():
    f = tjit.jit(lambda x: x @ x + x.T)
    ref = _reference(lambda x: x @ x + x.T)
    for n in (4, 6, 9, 13):
        x = _randn(n, n)
        np.testing.assert_allclose(f(x), ref(x), rtol=1e-4, atol=1e-4)
    assert f.trace_count == 2
    assert "s0" in f.lower(ShapeDtypeStruct((7, 7), np.float32)).as_text()
    with pytest.raises(ShapeError):     # the user's error, from a trace at that shape
        f(_randn(8, 9))


def test_dims_equal_only_now_share_a_symbol_when_a_rule_needs_it():
    # a's dim 3 -> 5 and b's 1 -> 5 are two symbols by the old/new rule; a + b cannot be
    # decided for them, so the retrace makes dims of equal new size share one symbol
    f, ref = tjit.jit(lambda a, b: a + b), _reference(lambda a, b: a + b)
    for sa, sb in (((3, 4), (1, 4)), ((5, 4), (5, 4)), ((7, 4), (7, 4)), ((6, 4), (1, 4))):
        a, b = _randn(*sa), _randn(*sb)
        np.testing.assert_allclose(f(a, b), ref(a, b), rtol=1e-6)
    assert f.compile_count == 3 and f.trace_count == 4


def test_python_branch_on_an_order_comparison_is_a_guard():
    def f(x):
        return x * 2.0 if x.shape[0] > 3 else x - 1.0

    jf = tjit.jit(f)
    for n in (2, 5, 3, 6, 4, 2, 9, 3):
        x = _randn(n, 3)
        np.testing.assert_allclose(jf(x), _reference(f)(x), rtol=1e-6)
    # 2 concrete; one dynamic program per answer to s0 > 3 (5: True, 3: False)
    assert jf.compile_count == 3 and jf.trace_count == 3


def test_int_of_a_size_falls_back(caplog):
    # int() makes the size a constant that no guard can follow: one program per shape
    def f(x):
        return x * float(int(x.shape[0]))

    jf = tjit.jit(f)
    tjit.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            for n in (2, 4, 7, 4, 9):
                x = _randn(n)
                np.testing.assert_array_equal(jf(x), x * np.float32(n))
    finally:
        tjit.config.update("log_compiles", False)
    assert jf.compile_count == 4 and "fell back" in caplog.text


def test_range_over_a_size_falls_back():
    def f(x):
        total = x[0]
        for i in range(1, x.shape[0]):
            total = total * 0.5 + x[i]
        return total

    jf = tjit.jit(f)
    for n in (2, 4, 7, 4):
        x = _randn(n, 3)
        np.testing.assert_allclose(jf(x), _reference(f)(x), rtol=1e-5, atol=1e-6)
    assert jf.trace_count == 4 and jf.compile_count == 3


@pytest.mark.parametrize("test", [lambda n: n == 6, lambda n: n != 6, lambda n: 6 == n,
                                  lambda n: n in (6, 9), lambda n: (n, 3) == (6, 3)])
def test_equality_with_a_size_is_a_guard(test):
    def f(x):
        return x * 2.0 if test(x.shape[0]) else x - 1.0

    jf = tjit.jit(f)
    for n in (2, 5, 6, 7, 6, 8):
        x = _randn(n, 3)
        np.testing.assert_allclose(jf(x), _reference(f)(x), rtol=1e-6)
    assert jf.compile_count == 3      # 2; dynamic (guard s0 != 6); 6 on its own


def test_pytrees_and_kwargs():
    def f(params, x, *, scale):
        h = jnp.tanh(x @ params["w"] + params["b"])
        return {"out": h * scale, "norm": jnp.sum(h ** 2, axis=-1)}

    jf, ref = tjit.jit(f), _reference(f)
    params = {"w": _randn(4, 6), "b": _randn(6)}
    for b in (3, 5, 8, 11):
        x, s = _randn(b, 4), _randn(b, 1)
        got, want = jf(params, x, scale=s), ref(params, x, scale=s)
        for k in ("out", "norm"):
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
    assert jf.trace_count == 2


def test_static_args_change_the_program_not_the_sizes():
    def f(x, n):
        return jnp.sum(x ** n, axis=1)

    jf = tjit.jit(f, static_argnums=1)
    ref = _reference(f, static_argnums=1)
    for n in (2, 3):
        for b in (3, 5, 8):
            x = _randn(b, 4)
            np.testing.assert_allclose(jf(x, n), ref(x, n), rtol=1e-5, atol=1e-5)
    assert jf.trace_count == 4      # per value of n: the first size, then dynamic


def test_new_dim_widens_the_dynamic_program():
    f, ref = tjit.jit(lambda x: jnp.exp(x).sum(1)), _reference(lambda x: jnp.exp(x).sum(1))
    for shape in ((3, 4), (5, 4), (7, 4), (7, 6), (9, 10), (2, 3)):
        x = _randn(*shape)
        np.testing.assert_allclose(f(x), ref(x), rtol=1e-5)
    assert f.trace_count == 3


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_opt_out(how, monkeypatch):
    if how == "environment":
        monkeypatch.setenv("TJIT_DYNAMIC_SHAPES", "0")
        f = tjit.jit(lambda x: x + 1.0)
    else:
        f = tjit.jit(lambda x: x + 1.0, dynamic_shapes=False)
    for n in (3, 5, 7, 9):
        np.testing.assert_allclose(f(np.ones(n, np.float32)), np.full(n, 2.0))
    assert f.trace_count == 4 and f.compile_count == 4


def test_lower_uses_the_dynamic_program():
    f = tjit.jit(mlp)
    for b in (3, 5):
        f(_randn(b, 8), W1, B1, W2)
    traces = f.trace_count
    lowered = f.lower(ShapeDtypeStruct((13, 8), np.float32), W1, B1, W2)
    assert f.trace_count == traces and "s0" in lowered.as_text()
    compiled = lowered.compile()
    temps = [compiled.memory_analysis(s0=b).temp_size_in_bytes for b in (10, 20)]
    assert temps[1] > temps[0] > 0     # sizes by the dynamic program's symbol names
    for b in (13, 21):
        x = _randn(b, 8)
        np.testing.assert_allclose(compiled(x, W1, B1, W2), _reference(mlp)(x, W1, B1, W2),
                                   rtol=2e-5, atol=2e-5)


def test_donation_with_the_dynamic_program():
    f = tjit.jit(lambda x, y: x * 2.0 + y, donate_argnums=0)
    for b in (3, 5, 8):
        x, y = jnp.asarray(_randn(b, 4)), _randn(b, 4)
        want = np.asarray(x) * 2.0 + y
        np.testing.assert_allclose(f(x, y), want, rtol=1e-6)
        assert x.is_deleted()
    assert f.trace_count == 2


def test_threads_calling_new_sizes_at_once():
    f = tjit.jit(lambda x: jnp.sin(x) * 3.0)
    f(np.ones((2, 3), np.float32))
    f(np.ones((3, 3), np.float32))
    sizes = list(range(4, 20))
    out, errors = {}, []
    start = threading.Barrier(len(sizes))

    def call(n):
        try:
            start.wait(10)
            out[n] = f(np.full((n, 3), 0.25 * n, np.float32))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=call, args=(n,)) for n in sizes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    for n in sizes:
        np.testing.assert_allclose(out[n], np.sin(np.full((n, 3), 0.25 * n)) * 3.0, rtol=1e-5)
    assert f.trace_count == 2


def test_results_are_bit_identical_to_per_shape_programs():
    def f(x, w):
        h = jnp.tanh(x @ w)
        return h.sum(0) + jnp.exp(x).mean(1).max(), jnp.cumsum(h, 0)

    w = _randn(37, 8)
    dyn, per_shape = tjit.jit(f), tjit.jit(f, dynamic_shapes=False)
    for b in (5, 9, 17, 100, 1000, 4099):
        x = _randn(b, 37)
        for got, want in zip(dyn(x, w), per_shape(x, w)):
            np.testing.assert_array_equal(got, want)
    assert dyn.trace_count == 2


# -- questions the user's code asks about sizes (tracing/size_questions.py) -------------
# Each form is asked of x.shape[0] (n) and y.shape[0] (m); sympy alone answers the derived
# ones structurally (False at every size), which reused a program silently wrong.
SIZE_QUESTIONS = {
    "n % 2 == 0": lambda n, m: n % 2 == 0,
    "n // 2 == 3": lambda n, m: n // 2 == 3,
    "n - 1 != 0": lambda n, m: n - 1 != 0,
    "0 == n % 3": lambda n, m: 0 == n % 3,
    "np.int64(8) == 2 * n": lambda n, m: np.int64(8) == 2 * n,
    "(n * 2, 5) == (8, 5)": lambda n, m: (n * 2, 5) == (8, 5),
    "n * 2 in (8, 10)": lambda n, m: n * 2 in (8, 10),
    "n in {4, 6}": lambda n, m: n in {4, 6},
    "{4: 1, 6: 0}.get(n) == 1": lambda n, m: {4: 1, 6: 0}.get(n) == 1,
    "{0: 1}.get(n % 2) == 1": lambda n, m: {0: 1}.get(n % 2) == 1,
    "bool(n % 3)": lambda n, m: bool(n % 3),
    "n % 4 and True": lambda n, m: bool(n % 4 and True),
    "max(n, 3) == n": lambda n, m: max(n, 3) == n,
    "n == m": lambda n, m: n == m,
    "n + m == 12": lambda n, m: n + m == 12,
    "(n - m) % 3 != 0": lambda n, m: (n - m) % 3 != 0,
}
# order comparisons (and min/max, which compare): a guard each, answered per size
ORDER_QUESTIONS = {
    "n > 5": lambda n, m: n > 5,
    "n >= 6": lambda n, m: n >= 6,
    "n < 6": lambda n, m: n < 6,
    "n <= 5": lambda n, m: n <= 5,
    "5 < n": lambda n, m: 5 < n,
    "6 <= n": lambda n, m: 6 <= n,
    "np.int64(5) < n": lambda n, m: np.int64(5) < n,
    "min(n, 8) == 8": lambda n, m: min(n, 8) == 8,
    "max(n, 6) > 6": lambda n, m: max(n, 6) > 6,
    "n > m": lambda n, m: n > m,
    "n >= m": lambda n, m: n >= m,
    "n // 2 >= 3": lambda n, m: n // 2 >= 3,
    "(n + 2) // 3 == 3": lambda n, m: (n + 2) // 3 == 3,
    "-(-n // 4) < 3": lambda n, m: -(-n // 4) < 3,
    "n / 2 > 3": lambda n, m: n / 2 > 3,
    "2 * n - m < 7": lambda n, m: 2 * n - m < 7,
    "sorted((n, m))[0] == n": lambda n, m: sorted((n, m))[0] == n,  # noqa: FURB192
    "5 < n < 9": lambda n, m: 5 < n < 9,
}
SIZE_QUESTIONS.update(ORDER_QUESTIONS)
SIZES = [(3, 5), (4, 4), (5, 7), (6, 6), (7, 5), (8, 4), (9, 3), (10, 10), (11, 2),
         (64, 64), (65, 7), (4, 8), (3, 5)]


@pytest.mark.parametrize("form", sorted(SIZE_QUESTIONS))
def test_questions_about_sizes_are_answered_per_size(form):
    test = SIZE_QUESTIONS[form]

    def f(x, y):
        if test(x.shape[0], y.shape[0]):
            return x * 2.0, y.sum()
        return x - 1.0, y.max()

    dyn, per_shape = tjit.jit(f), tjit.jit(f, dynamic_shapes=False)
    for n, m in SIZES:
        x, y = _randn(n, 3), _randn(m)
        yes = test(n, m)            # plain ints: the true answer
        want = (x.astype(np.float64) * 2.0, y.astype(np.float64).sum()) if yes else \
            (x.astype(np.float64) - 1.0, y.astype(np.float64).max())
        got = dyn(x, y)
        for g, p, w in zip(got, per_shape(x, y), want):
            # (a full sum over a dynamic size may round in another order than the
            # concrete program's: not bit for bit)
            np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert dyn.compile_count <= per_shape.compile_count
    if form in ORDER_QUESTIONS and "m" not in form:     # one symbol: a program per answer
        assert dyn.compile_count <= 4 < per_shape.compile_count


def test_min_of_a_size_as_a_slice_bound():
    def f(x):
        return x[: min(x.shape[0], 6)] * 2.0, x[max(x.shape[0] - 4, 0):].sum(0)

    jf = tjit.jit(f)
    for n in (3, 4, 5, 6, 7, 9, 12, 2, 8, 5):
        x = _randn(n, 3)
        got = jf(x)
        np.testing.assert_array_equal(got[0], x[:min(n, 6)] * 2.0)
        np.testing.assert_allclose(got[1], x[max(n - 4, 0):].astype(np.float64).sum(0),
                                   rtol=1e-5, atol=1e-6)
    assert jf.compile_count <= 5       # per shape: 9


def test_branch_on_parity_the_original_reproducer():
    # traced symbolically at 4 (even), then reused at 5: x * 2.0 instead of x - 1.0
    def f(x):
        return x * 2.0 if x.shape[0] % 2 == 0 else x - 1.0

    jf = tjit.jit(f)
    for n in (3, 4, 5, 6, 7, 8, 9, 10, 12, 13):
        x = _randn(n)
        np.testing.assert_array_equal(jf(x), x * 2.0 if n % 2 == 0 else x - 1.0)
    # 3 concrete; one dynamic program per parity, each guarded
    assert jf.compile_count == 3 and jf.trace_count == 3


def test_size_arithmetic_without_questions_stays_dynamic():
    def f(x):
        n, m = x.shape
        return x.reshape(n, m // 2, 2) * 2.0, x.reshape(n * 2, -1)

    jf = tjit.jit(f)
    for n in (4, 6, 9, 13, 20):
        x = _randn(n, 4)
        got = jf(x)
        np.testing.assert_array_equal(got[0], x.reshape(n, 2, 2) * 2.0)
        np.testing.assert_array_equal(got[1], x.reshape(n * 2, -1))
    assert jf.trace_count == 2


# -- size expressions in slices, reshapes and splits: symbolic where the kernels take the
# size (floor(s0/2) is a run-time size), guarded where the shape rule needs an answer
SYMBOLIC_SIZE_USES = {
    "x[: n // 2]": (lambda x: x[: x.shape[0] // 2] * 2.0, lambda x: x[: len(x) // 2] * 2.0),
    "x[n // 3 : n - 1]": (lambda x: x[x.shape[0] // 3: x.shape[0] - 1] + 1.0,
                          lambda x: x[len(x) // 3: len(x) - 1] + 1.0),
    "x[-(n // 2):]": (lambda x: x[-(x.shape[0] // 2):], lambda x: x[-(len(x) // 2):]),
    "x[:5]": (lambda x: x[:5] - 1.0, lambda x: x[:5] - 1.0),
    # (floor((n + 2)/3): sympy's float printing made it 2 at n = 7)
    "x[: (n + 2) // 3]": (lambda x: x[: (x.shape[0] + 2) // 3] * 2.0,
                          lambda x: x[: (len(x) + 2) // 3] * 2.0),
    "x[2::3]": (lambda x: x[2::3], lambda x: x[2::3]),
    "halves": (lambda x: x[: x.shape[0] // 2] - x[x.shape[0] - x.shape[0] // 2:],
               lambda x: x[: len(x) // 2] - x[len(x) - len(x) // 2:]),
}


@pytest.mark.parametrize("form", sorted(SYMBOLIC_SIZE_USES))
def test_slices_with_size_expressions_stay_dynamic(form):
    f, numpy_f = SYMBOLIC_SIZE_USES[form]
    jf = tjit.jit(f)
    sizes = (4, 6, 7, 9, 12, 13, 2, 3, 5, 64, 4)
    for n in sizes:
        x = _randn(n, 3)
        got = jf(x)
        np.testing.assert_array_equal(got, numpy_f(x))
        np.testing.assert_array_equal(got, _reference(f)(x))
    assert jf.compile_count <= 4 < len(set(sizes))


def test_reshape_and_split_by_a_size_expression():
    def f(x):
        n = x.shape[0]
        a, b = jnp.split(x, 2)
        return x.reshape(n // 2, 2, 3).sum(1), a * b

    jf, per_shape = tjit.jit(f), tjit.jit(f, dynamic_shapes=False)
    for n in (4, 6, 8, 10, 20, 2, 64):
        x = _randn(n, 3)
        got = jf(x)
        np.testing.assert_allclose(got[0], x.astype(np.float64).reshape(n // 2, 2, 3).sum(1),
                                   rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(got[1], x[: n // 2] * x[n // 2:])
        for g, p in zip(got, per_shape(x)):
            np.testing.assert_array_equal(g, p)
    assert jf.trace_count == 2 and jf.compile_count == 2     # (guard: n % 2 == 0)
    # an odd size is the user's error, as in NumPy, from a trace at that shape
    with pytest.raises(ValueError, match="equal division"):
        jf(_randn(7, 3))
    np.testing.assert_array_equal(jf(_randn(12, 3))[1].shape, (6, 3))
    assert jf.compile_count == 2


def test_a_derived_dim_that_becomes_one_broadcasts_at_that_size():
    # traced at n = 10: n // 2 == m, never 1 there; at n = 3 (or 2) n // 2 is 1 and must
    # broadcast against y as NumPy does, not run the program that assumed it is m
    def f(x, y):
        return x[: x.shape[0] // 2] * y, x[1:] + y[:1]

    jf = tjit.jit(f)
    for n, m in ((8, 4), (10, 5), (12, 6), (3, 5), (2, 7), (14, 7), (16, 8), (3, 9)):
        x, y = _randn(n, 3), _randn(m, 3)
        got = jf(x, y)
        np.testing.assert_array_equal(got[0], x[: n // 2] * y)
        np.testing.assert_array_equal(got[1], x[1:] + y[:1])
        for g, r in zip(got, _reference(f)(x, y)):
            np.testing.assert_array_equal(g, r)
    # 8 concrete; the dynamic program (guards: n // 2 != 1, n // 2 == m); 3 and 2 each on
    # their own shapes; the family stays dynamic (14, 16, and 3 again: no new program)
    assert jf.compile_count == 5


def test_a_dict_lookup_by_size_falls_back_and_is_logged(caplog):
    def f(x):
        return x * {4: 2.0, 6: 3.0}.get(x.shape[0], 1.0)

    jf = tjit.jit(f)
    tjit.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            for n in (3, 4, 5, 6, 7):
                x = _randn(n)
                np.testing.assert_array_equal(jf(x), x * {4: 2.0, 6: 3.0}.get(n, 1.0))
    finally:
        tjit.config.update("log_compiles", False)
    assert jf.compile_count == 5
    assert "was hashed" in caplog.text and "fell back" in caplog.text


@pytest.mark.parametrize("question", [lambda b: b % 2 == 0, lambda b: b == 4,
                                      lambda b: (b, 3) == (4, 3), lambda b: bool(b - 4),
                                      lambda b: {4: True}.get(b, False)])
def test_declared_polymorphic_dims_refuse_undecidable_questions(question):
    def f(x):
        return x * 2.0 if question(x.shape[0]) else x - 1.0

    jf = tjit.jit(f, polymorphic_shapes=("b",))
    with pytest.raises(InconclusiveDimensionError, match="polymorphic dims b"):
        jf(_randn(4))


@pytest.mark.parametrize("question", [lambda b: b > 3, lambda b: b <= 4, lambda b: 2 < b,
                                      lambda b: min(b, 8) == 8, lambda b: b // 2 >= 2])
def test_declared_polymorphic_dims_refuse_undecidable_order_questions(question):
    def f(x):
        return x * 2.0 if question(x.shape[0]) else x - 1.0

    jf = tjit.jit(f, polymorphic_shapes=("b",))
    with pytest.raises(InconclusiveDimensionError, match="polymorphic dims b"):
        jf(_randn(4))


def test_declared_polymorphic_dims_answer_order_questions_that_hold_for_every_size():
    def f(x):
        b = x.shape[0]
        same = b >= 1 and b > 0 and b + 1 > b and 2 * b >= b + 1 and max(b, 0) == b
        return x * 2.0 if same else x - 1.0

    jf = tjit.jit(f, polymorphic_shapes=("b",))
    for n in (3, 4, 7):
        x = _randn(n)
        np.testing.assert_array_equal(jf(x), x * 2.0)
    assert jf.compile_count == 1


def test_declared_polymorphic_dims_answer_what_holds_for_every_size():
    def f(x):
        b = x.shape[0]
        same = b + 1 == b + 1 and b + 1 != b and b * 2 != 2 * b + 1
        return x * 2.0 if same else x - 1.0

    jf = tjit.jit(f, polymorphic_shapes=("b",))
    for n in (3, 4, 7):
        x = _randn(n)
        np.testing.assert_array_equal(jf(x), x * 2.0)
    assert jf.compile_count == 1


def test_compiled_guard_check_agrees_with_each_guard():
    # Pattern.bind runs one generated function for all guards; each Guard evaluated on
    # its own (plan.concrete) is the reference, over sizes on both sides of every answer
    from tjit.xla_like.plan import concrete

    def f(x, y):
        n, m = x.shape[0], y.shape[0]
        ok = n % 3 != 1 and n // 2 >= 4 and n / 2 < m and max(n, m) - min(n, m) != 2
        return (x[: n // 2] * 2.0 if ok else x - 1.0), y + 1.0

    jf = tjit.jit(f)
    for n, m in ((9, 7), (11, 8), (12, 9)):
        jf(_randn(n, 2), _randn(m))
    (fam,) = jf._families.values()
    pattern = fam.programs[-1][0]
    assert len(pattern.guards) >= 4
    seen = set()
    for n in range(2, 40):
        for m in range(2, 25):
            shapes = [(n, 2), (m,)]
            env = {s: v for s, v in zip(pattern.symbols(), (n, m))}
            want = all(g.holds(env, concrete) for g in pattern.guards)
            assert (pattern.bind(shapes) is not None) == want, (n, m)
            seen.add(want)
    assert seen == {True, False}


def test_grad_and_vmap_through_size_expressions_and_order_guards():
    def loss(w, x):
        n = x.shape[0]
        h = jnp.tanh(x[: n // 2] @ w) - jnp.tanh(x[n - n // 2:] @ w)
        return jnp.sum(h ** 2) * (2.0 if n > 6 else 1.0)

    g, ref = tjit.jit(tjit.grad(loss)), _reference(tjit.grad(loss))
    w = _randn(3, 2)
    for n in (4, 6, 8, 9, 12, 5, 20):
        x = _randn(n, 3)
        np.testing.assert_allclose(g(w, x), ref(w, x), rtol=1e-5, atol=1e-6)
    assert g.compile_count == 3     # 4; dynamic for n > 6 False; for n > 6 True
    vf = tjit.jit(tjit.vmap(lambda x: x[: x.shape[0] // 2].sum()))
    for n in (4, 6, 8, 11):
        x = _randn(3, n)
        np.testing.assert_allclose(vf(x), x[:, : n // 2].astype(np.float64).sum(1),
                                   rtol=1e-5, atol=1e-6)
    assert vf.compile_count == 2


@pytest.mark.parametrize("how", ["array_split 3", "split at n // 3", "split at [2, n - 1]"])
def test_array_split_and_split_at_size_expressions(how):
    def parts(x, np_):
        n = x.shape[0]
        if how == "array_split 3":
            return np_.array_split(x, 3)
        return np_.split(x, [n // 3] if how == "split at n // 3" else [2, n - 1])

    jf = tjit.jit(lambda x: [p * 2.0 for p in parts(x, jnp)])
    sizes = (6, 7, 8, 9, 10, 11, 2, 3, 4, 5, 30)
    for n in sizes:
        x = _randn(n, 2)
        got, want = jf(x), [p * 2.0 for p in parts(x, np)]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    # (array_split: sizes with an empty section, or a section of 1 that could broadcast,
    # get their own programs; the clamped split indices are guards)
    assert jf.compile_count <= 6 < len(sizes)
