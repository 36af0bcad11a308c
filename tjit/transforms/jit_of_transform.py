"""Transformations of a jitted function run as a jit of the transformation.

``grad(jit(f))(x)`` called outside any trace computes what ``jit(grad(f))(x)`` computes:
jit fixes ``f``'s trace per signature (closed-over Python values baked in), and the
transformation is a function of that trace. So such a call goes to a jit of the
transformation, kept beside ``jit(f)``'s own caches, as JAX's pjit caches its jaxpr and
the transformed jaxprs of its equation: a training loop's ``g = grad(jit(loss))`` then
traces, transforms and compiles once per signature, and each step is one compiled call
instead of a linearization evaluated equation by equation and an interpreted backward
pass. Under a trace (``grad(grad(jit(f)))``'s inner grad, ``jit(lambda x: grad(g)(x))``)
the same jit of the transformation is called, so the transformed jaxpr is traced once per
signature and trace context and evaluated under that trace (``inline_call.py``), as JAX
caches the jvp and transpose of its pjit's jaxpr: an eager ``grad(grad(jit(f)))`` then
differentiates ``grad(f)``'s cached jaxpr, whose primal half runs compiled, instead of
transforming ``f``'s jaxpr twice at every call.

The jitted function decides (``Jitted._jit_of_transform`` in ``tjit/api.py``, which this
layer cannot import): any other callable has no such method and is transformed as it is.
"""

import functools


def compiled(fun, key, make):
    """The jitted ``make(f)`` to call instead of the transformation ``key`` (a hashable
    tuple: its name and options) of ``fun``, when ``fun`` is ``jit(f)``; None
    otherwise."""
    jit_of = getattr(fun, "_jit_of_transform", None)
    return None if jit_of is None else jit_of(key, make)


def routed(fun, key, make):
    """``make(fun)``, whose calls run ``jit(make(f))`` when ``fun`` is ``jit(f)``.

    The result routes transformations of itself the same way: ``outer(make(jit(f)))``
    (``jacfwd(grad(jit(f)))``, ``jvp`` of it, ``grad(grad(jit(f)))``) runs
    ``jit(outer(make(f)))``, kept by ``jit(f)`` under the pair of keys, instead of the
    outer transformation evaluating the inner one's jaxpr equation by equation at every
    call."""
    transformed = make(fun)
    jit_of = getattr(fun, "_jit_of_transform", None)
    if jit_of is None:
        return transformed

    @functools.wraps(transformed)
    def call(*args, **kwargs):
        jitted = jit_of(key, make)
        if jitted is None:
            return transformed(*args, **kwargs)
        return jitted(*args, **kwargs)

    def jit_of_outer(outer_key, outer_make):
        return jit_of((key, outer_key), lambda f: outer_make(make(f)))
    call._jit_of_transform = jit_of_outer
    return call


__all__ = ["compiled", "routed"]
