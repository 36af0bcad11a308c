"""Shared checks of tests that give the public API bad input: the error must be the class
a JAX or NumPy user catches, eagerly and under jit, with a message naming what to fix."""

import numpy as np
import pytest

import tjit


def message(e):
    """What a user reads: the message and the notes (an entry point notes its own name
    on a message that names an inner function: "(raised in jnp.std)")."""
    return " ".join([str(e), *getattr(e, "__notes__", ())])


def check_raises(fn, args, cls, *words):
    """``fn(*args)`` eagerly and under jit (its NumPy-array arguments traced) raises
    ``cls``, not as an AttributeError or KeyError (an internal lookup that failed), and
    its message names every one of ``words``."""
    traced = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def under_jit(*arrays):
        vals = list(args)
        for i, a in zip(traced, arrays):
            vals[i] = a
        return fn(*vals)
    for mode, call in (("eager", lambda: fn(*args)),
                       ("jit", lambda: tjit.jit(under_jit)(*[args[i] for i in traced]))):
        with pytest.raises(cls) as e:
            call()
        assert not isinstance(e.value, (AttributeError, KeyError)), (mode, e.value)
        for w in words:
            assert w in message(e.value), (mode, w, message(e.value))
