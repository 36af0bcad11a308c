"""A symbolic dim used as a value (``x.shape[0]`` in ``sum(x) / x.shape[0]``, ``mean``'s
count) is a ``size`` op: kernels read it from their run-time sizes, no reduction kernel
counts ones. The simplifier rule behind it (``reduce_sum`` of an integer scalar constant
-> ``c * n``, wrapping as the sum does) also folds concrete sizes. References: NumPy
float64 at each size."""

import collections

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _steps(compiled):
    return collections.Counter(kind for kind, _ in compiled.fusion_summary())


CASES = [
    # name, f, polymorphic shapes, reference, (kernels, dots) of the plan
    ("sum / n", lambda x: jnp.sum(x) / x.shape[0], ("n, 8",),
     lambda x: x.sum() / x.shape[0], (1, 0)),
    ("mean over rows", lambda x: jnp.mean(x, axis=0), ("n, 8",),
     lambda x: x.mean(axis=0), (2, 0)),     # (a column sum, then its division)
    ("mean of rows", lambda x: jnp.mean(x, axis=1), ("8, n",),
     lambda x: x.mean(axis=1), (1, 0)),
    ("var (count - ddof)", lambda x: jnp.var(x, axis=0, ddof=1), ("n, 8",),
     lambda x: x.var(axis=0, ddof=1), None),
    ("n * x + n // 3", lambda x: x.shape[0] * x + x.shape[0] // 3, ("n, 8",),
     lambda x: x.shape[0] * x + x.shape[0] // 3, (1, 0)),
    ("product / n", lambda x, g: (x.T @ g) / x.shape[0], ("n, 8", "n, 4"),
     lambda x, g: (x.T @ g) / x.shape[0], (0, 1)),     # (1/n: the gemm's alpha)
]


@pytest.mark.parametrize("name,f,poly,ref,plan", CASES, ids=[c[0] for c in CASES])
def test_symbolic_dim_as_a_value_is_no_reduction(name, f, poly, ref, plan):
    rng = np.random.default_rng(0)
    jitted = tjit.jit(f, polymorphic_shapes=poly)
    for n in (3, 17, 1000):
        args = [rng.standard_normal([n if d == "n" else int(d) for d in p.split(", ")])
                .astype(np.float32) for p in poly]
        got = np.asarray(jitted(*args), np.float64)
        want = ref(*[a.astype(np.float64) for a in args])
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    text = jitted.lower(*args).compile().as_text()
    assert "sum(1)" not in text, text       # (the count as a reduction of ones)
    if plan is not None:
        steps = _steps(jitted.lower(*args).compile())
        assert (steps["kernel"], steps["dot"]) == plan, text


def test_sum_of_an_int_constant_wraps_as_the_sum_does():
    f = lambda x: jnp.sum(jnp.full(x.shape, 3, jnp.int8), dtype=jnp.int8)
    jitted = tjit.jit(f, polymorphic_shapes=("n",))
    for n in (100, 7, 300):
        x = np.zeros(n, np.float32)
        want = np.sum(np.full(n, 3, np.int8), dtype=np.int8)      # 300 -> 44 (mod 256)
        assert np.asarray(jitted(x)) == want
        concrete = tjit.jit(lambda x: f(x))     # (new each time: no dynamic family)
        assert np.asarray(concrete(x)) == want
        assert _steps(concrete.lower(x).compile())["kernel"] == 0     # a constant


def test_a_returned_size_and_its_negative_multiple():
    f = lambda x: (x.shape[0], jnp.sum(jnp.full(x.shape, -2, jnp.int32)))
    jitted = tjit.jit(f, polymorphic_shapes=("n",))
    for n in (2, 9, 70000):
        got = jitted(np.zeros(n, np.float32))
        assert (int(got[0]), int(got[1])) == (n, -2 * n)


def test_simplified_module_has_size_ops_with_the_lowered_bits():
    from tests.xla_like.hlo_eval import evaluate_module
    from tjit.tracing.shapes import symbol
    from tjit.xla_like.lowering import lower_jaxpr
    from tjit.xla_like.simplify import simplify

    def f(x):   # counts of n, of 3n (a sum over two axes) and a negative multiple
        return (x.shape[0] + 0 * x[0, 0], jnp.mean(x),
                jnp.sum(jnp.full(x.shape, -5, jnp.int32), axis=1))
    x = np.ones((4, 3), np.float32)
    m = lower_jaxpr(tjit.make_jaxpr(f, polymorphic_shapes=["(n, 3)"])(x))
    s = simplify(m)
    ops = [i.opcode for i in s.instrs]
    assert "size" in ops and ops.count("reduce") == 1, ops   # (the mean's sum of x only)
    for n in (2, 5, 40):
        xn = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        want = evaluate_module(m, [xn], {symbol("n"): n})
        got = evaluate_module(s, [xn], {"n": n})
        for w, g in zip(want, got):
            assert w.dtype == g.dtype and w.shape == g.shape
            np.testing.assert_allclose(g, w, rtol=1e-6)
        assert int(got[0]) == n and (got[2] == -15).all()
