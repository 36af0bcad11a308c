"""``tjit.fwd_and_bwd`` (as ``jax.fwd_and_bwd``): a function's forward and backward
passes as two (jitted) functions, the backward one taking the VJP object the forward
one returns, so each compiles once and they run on a schedule of one's own."""

from tjit.api import jit
from tjit.transforms.ad import vjp


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """``(fwd, bwd)``: ``fwd(*args)`` is ``vjp`` of ``fun`` in the arguments ``argnums``
    (``(out, f_vjp)``, plus ``aux`` with ``has_aux``), ``bwd(f_vjp, out_cotangent)``
    their cotangents (one array for an int ``argnums``, else a tuple).

    Args:
      fun: the function.
      argnums: an int or a sequence of ints: the positional arguments differentiated
        (the others are passed through, not differentiated).
      has_aux: ``fun`` returns ``(out, aux)``.
      jitted: return ``jit(fwd), jit(bwd)`` (the default); False: plain functions.

    >>> fwd, bwd = jax.fwd_and_bwd(lambda x, w: jnp.sum(x * w), argnums=(0, 1))
    >>> y, residuals = fwd(jnp.ones(2), jnp.arange(2.0))
    >>> bwd(residuals, jnp.float32(1.0))
    (Array([0., 1.], dtype=float32), Array([1., 1.], dtype=float32))
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if not nums or not all(isinstance(i, int) for i in nums):
        raise TypeError(f"fwd_and_bwd: argnums must be an int or a non-empty sequence of "
                        f"ints, got {argnums!r}")

    def fwd(*args):
        n = len(args)
        bad = [i for i in nums if not -n <= i < n]
        if bad:
            raise ValueError(f"fwd_and_bwd: argnums {bad} out of range for {n} positional "
                             f"argument(s)")
        where = [i % n for i in nums]

        def in_argnums(*dyn):
            full = list(args)
            for i, v in zip(where, dyn):
                full[i] = v
            return fun(*full)
        return vjp(in_argnums, *[args[i] for i in where], has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if single else g
    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


__all__ = ["fwd_and_bwd"]
