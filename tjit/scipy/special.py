"""tjit.scipy.special: SciPy's special functions (as ``jax.scipy.special``)."""
