"""Helpers shared by tjit.scipy.special's modules."""

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact

EULER_GAMMA = 0.57721566490153286061


def real_args(name, *args):
    """``args`` promoted to a common inexact dtype; complex inputs refused, naming
    ``name``."""
    out = promote_args_inexact(name, *args)
    for a in out:
        if jnp.iscomplexobj(a):
            raise TypeError(f"{name}: complex inputs are not supported; pass real arrays")
    return out
