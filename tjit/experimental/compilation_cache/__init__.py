"""``tjit.experimental.compilation_cache``: JAX's module of the same name (see
``compilation_cache.compilation_cache``)."""
