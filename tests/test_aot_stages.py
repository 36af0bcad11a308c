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
