"""``tjit.named_scope`` and ``tjit.named_call``: JAX's names for parts of a program.

In JAX they label operations in the compiled program's metadata (seen in profiles);
results never depend on them. tjit's compiled programs carry no such labels, so both
check their arguments as JAX does and leave the computation unchanged.
"""

import contextlib
import functools


@contextlib.contextmanager
def named_scope(name):
    """Context manager labelling the ops traced inside it (JAX's ``jax.named_scope``);
    the results are unchanged.

    >>> import tjit, tjit.numpy as jnp
    >>> @tjit.jit
    ... def layer(x):
    ...     with tjit.named_scope("dense"):
    ...         return jnp.tanh(x) * 2
    >>> print(layer(jnp.zeros(2)))
    [0. 0.]
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


def named_call(fun, *, name=None):
    """``fun`` labelled ``name`` (default: its ``__name__``) in the traced program, as
    JAX's ``jax.named_call``; calling it gives ``fun``'s results.

    >>> import tjit
    >>> tjit.named_call(lambda x: x + 1, name="increment")(1)
    2
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"named_call: name must be a string or None, got {name!r:.60}")
    if not callable(fun):
        raise TypeError(f"named_call: expected a callable, got {type(fun).__name__}")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        return fun(*args, **kwargs)
    return named
