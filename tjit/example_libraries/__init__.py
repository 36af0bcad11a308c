"""``tjit.example_libraries``: JAX's example libraries (``optimizers``, ``stax``) on tjit's
public API, so code written against ``jax.example_libraries`` ports by changing imports."""
