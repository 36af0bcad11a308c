"""``jax.ad``: the entries of ``f_vjp.with_refs(...)`` and the placeholders its call
returns (JAX's docs/array_refs.md, "Gradient refs for value arguments")."""

from tjit.transforms.vjp_object import DidntWant, DontWant, GradRef, GradValue  # noqa: F401

__all__ = ["GradValue", "DontWant", "GradRef", "DidntWant"]
