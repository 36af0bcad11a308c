"""JAX's ahead-of-time stages as docs/aot.md writes them: jit(f).trace(...).lower()
.compile(), each stage usable (reference: NumPy on the same inputs)."""

import numpy as np

import tjit
import tjit.numpy as jnp


def test_trace_lower_compile_chain_runs_as_numpy():
    def f(x, y):
        return 2 * x + y

    x, y = np.int32(3), np.int32(4)
    traced = tjit.jit(f).trace(x, y)
    lowered = traced.lower()
    assert lowered.lower() is lowered            # the traced program is the lowered one
    compiled = lowered.compile()
    assert int(compiled(x, y)) == 2 * 3 + 4
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = tjit.jit(jnp.sin).trace(a).lower(lowering_platforms=None).compile()(a)
    np.testing.assert_allclose(np.asarray(out), np.sin(a), rtol=1e-6)
    assert "mul" in lowered.as_text()


def test_stages_module_names_the_types_of_each_stage():
    import tjit.stages
    wrapped = tjit.jit(lambda x: x * 2)
    lowered = wrapped.trace(jnp.ones(3))
    compiled = lowered.compile()
    assert isinstance(wrapped, tjit.stages.Wrapped)
    assert isinstance(lowered, tjit.stages.Traced) and isinstance(lowered, tjit.stages.Lowered)
    assert isinstance(compiled, tjit.stages.Compiled)
    assert not isinstance(compiled, tjit.stages.Lowered)
    assert np.asarray(compiled(jnp.arange(3.0))).tolist() == [0.0, 2.0, 4.0]


def test_compiled_refuses_other_shapes_and_dtypes_with_the_mismatches():
    # docs/aot.md: a compiled program called with other types raises TypeError (it
    # used to read the buffers wrongly and return garbage)
    import pytest
    i32 = tjit.ShapeDtypeStruct((), np.int32)
    compiled = tjit.jit(lambda x, y: 2 * x + y).trace(i32, i32).lower().compile()
    assert int(compiled(np.int32(3), np.int32(4))) == 10
    with pytest.raises(TypeError, match=r"'x' compiled with i32\[\] and called with "
                                        r"i32\[3\][\s\S]*'y' compiled"):
        compiled(np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match=r"compiled with i32\[\] and called with f32\[\]"):
        compiled(np.float32(1.5), np.float32(2.5))
    # a polymorphic program takes any size of its symbolic dims
    poly = tjit.jit(lambda x: x * 2, polymorphic_shapes=("(b,)",)).lower(
        tjit.ShapeDtypeStruct((5,), np.float32)).compile()
    np.testing.assert_allclose(np.asarray(poly(np.ones(4, np.float32))), np.full(4, 2.0))


def test_compiled_refuses_transformations():
    import pytest
    compiled = tjit.jit(jnp.sin).lower(np.ones(3, np.float32)).compile()
    with pytest.raises(TypeError, match="cannot apply transformations.*jit\\(vmap\\(f\\)\\)"):
        tjit.vmap(compiled)(np.ones((4, 3), np.float32))
    with pytest.raises(TypeError, match="cannot apply transformations"):
        tjit.grad(lambda x: compiled(x).sum())(np.ones(3, np.float32))


def test_cost_analysis_counts_flops_as_jaxs_keys():
    # docs/aot.md: cost_analysis()['flops'] of 2 * x + y on scalars is 2.0 (as JAX's)
    i32 = tjit.ShapeDtypeStruct((), np.int32)
    cost = tjit.jit(lambda x, y: 2 * x + y).trace(i32, i32).lower().compile().cost_analysis()
    assert cost["flops"] == 2.0 and cost["transcendentals"] == 0.0
    # a dot (2*M*N*K), a tanh per element, a sum of M*N elements, a scan of 3 adds
    m, k, n = 2, 3, 4

    def f(x, w):
        carry, _ = tjit.lax.scan(lambda c, a: (c + a, None), 0.0, x[0])
        return jnp.tanh(x @ w).sum() + carry
    cost = tjit.jit(f).lower(np.ones((m, k), np.float32),
                             np.ones((k, n), np.float32)).compile().cost_analysis()
    assert cost["flops"] == 2 * m * n * k + m * n + k + 1
    assert cost["transcendentals"] == m * n
    assert cost["bytes accessed"] > 0
