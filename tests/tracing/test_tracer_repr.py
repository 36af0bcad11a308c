"""How a traced value prints: JAX 0.10.2's documented forms (docs/key-concepts.md,
thinking_in_jax: ``JitTracer(~int32[])`` inside jit, ``VmapTracer(aval=..., batched=...)``
inside vmap), so print-debugging output reads as in JAX's docs."""

import numpy as np

import tjit
import tjit.numpy as jnp


def _printed(transform, *args):
    seen = []
    transform(lambda *a: seen.append([repr(x) for x in a]) or a[0])(*args)
    return seen[0]


def test_jit_tracer_repr_shows_the_full_dtype_and_weak_type():
    x = jnp.arange(5)
    assert _printed(tjit.jit, x, 2.0, 2) == ["JitTracer(int32[5])", "JitTracer(~float32[])",
                                               "JitTracer(~int32[])"]
    assert _printed(lambda f: lambda *a: tjit.make_jaxpr(f)(*a), np.ones((2, 3), np.float32)) \
        == ["JitTracer(float32[2,3])"]
    assert f"{_printed(tjit.jit, x)[0]}" == "JitTracer(int32[5])"


def test_vmap_tracer_repr_shows_the_per_example_and_batched_types():
    assert _printed(tjit.vmap, jnp.ones((3, 2))) == [
        "VmapTracer(aval=float32[2], batched=float32[3,2])"]
