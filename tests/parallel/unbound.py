"""Every collective used where nothing binds its axis name, eagerly, under jit, grad and
jit(grad): each must raise JAX's ``NameError: unbound axis name: <name>``. Shared by the
one-process tests (after vmap, pmap, shard_map and failed ones) and the MPI launch
(after shard_map over a mesh of processes), which call :func:`unbound_outcomes` after
each mapping and assert every outcome is that error."""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax


def _uses(name):
    return {
        "psum": lambda x: lax.psum(x, name),
        "pmean": lambda x: lax.pmean(x, name),
        "pmax": lambda x: lax.pmax(x, name),
        "pmin": lambda x: lax.pmin(x, name),
        "all_gather": lambda x: lax.all_gather(x, name),
        "psum_scatter": lambda x: lax.psum_scatter(x, name, tiled=True),
        "all_to_all": lambda x: lax.all_to_all(x, name, 0, 0, tiled=True),
        "ppermute": lambda x: lax.ppermute(x, name, ((0, 1), (1, 0))),
        "axis_index": lambda x: x * lax.axis_index(name).astype(jnp.float32),
        "axis_size": lambda x: x * lax.axis_size(name),
    }


def _modes(use):
    """Fresh wrappers each time (no jit cache from an earlier, mapped, trace)."""
    def loss(x):
        return jnp.sum(use(x))
    return {"eager": use, "jit": tjit.jit(use), "grad": tjit.grad(loss),
            "jit_grad": tjit.jit(tjit.grad(loss))}


def unbound_outcomes(name="i"):
    """``{"<collective>/<mode>": outcome}``: the NameError's message, or what the call
    returned instead (a silent answer: the bug class these tests exist for)."""
    x = np.arange(4, dtype=np.float32)
    out = {}
    for cname, use in _uses(name).items():
        for mode, fn in _modes(use).items():
            try:
                got = fn(x)
                out[f"{cname}/{mode}"] = f"no error: returned {np.asarray(got).tolist()}"
            except NameError as e:
                out[f"{cname}/{mode}"] = str(e)
    return out


def wrong_outcomes(outcomes, name="i"):
    """The outcomes that are not the unbound-axis error naming ``name``."""
    return {k: v for k, v in outcomes.items() if f"unbound axis name: {name}" not in v}
