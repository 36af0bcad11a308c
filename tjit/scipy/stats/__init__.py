"""tjit.scipy.stats: probability distributions (as ``jax.scipy.stats``)."""
