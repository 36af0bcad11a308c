"""``tjit.interpreters.mlir`` (as ``jax.interpreters.mlir``): how a primitive compiles
under ``jit``. tjit has no MLIR: the portable lowering is ``lower_fun(fn)``, a function
of the operands written with tjit.numpy/lax, which the compiler traces and inlines in
place of the primitive (so it fuses with its neighbours). A primitive with no lowering
runs its impl as a host step of the compiled program. Lowering rules that build
StableHLO ops (``hlo.AddOp(...)``) are refused at registration."""

from tjit.tracing.avals import ShapedArray
from tjit.tracing.jaxpr_trace import trace_to_jaxpr
from tjit.xla_like.lowering import inline_jaxpr

#: JAX platform names -> the tjit targets they cover
_PLATFORM_TARGETS = {"cpu": ("cpu",), "cuda": ("cuda",), "gpu": ("cuda", "opencl"),
                     "rocm": (), "tpu": (), "opencl": ("opencl",), "hls": ("hls",)}


class LoweringFunction:
    """What :func:`lower_fun` returns: ``fun(*operands, **params)`` to inline, and
    whether it returns a list of results."""

    def __init__(self, fun, multiple_results):
        self.fun, self.multiple_results = fun, bool(multiple_results)

    def __call__(self, ctx, *ins, **params):
        """The list of Instrs ``fun`` computes on the operands ``ins`` (as JAX's lowering
        rules, a list whether or not the primitive has multiple results)."""
        name = getattr(self.fun, "__name__", "lower_fun")
        avals = [ShapedArray(i.shape, i.dtype) for i in ins]

        def flat(*args):
            out = self.fun(*args, **params)
            if not self.multiple_results:
                return [out]
            if not isinstance(out, (list, tuple)):
                raise TypeError(f"mlir.lower_fun({name}, multiple_results=True): {name} "
                                f"must return a list or tuple of results, got "
                                f"{type(out).__name__}; pass multiple_results=False")
            return list(out)
        return inline_jaxpr(ctx, trace_to_jaxpr(flat, avals, name), ins)


def lower_fun(fun, multiple_results=True):
    """A lowering rule computing the primitive as ``fun(*operands, **params)``, traced
    with tjit's own operations and inlined where the primitive is (JAX's default
    ``multiple_results=True``: ``fun`` returns a list)."""
    return LoweringFunction(fun, multiple_results)


def register_lowering(prim, rule, platform=None):
    """Compile ``prim`` under ``jit`` by ``rule``, a :func:`lower_fun` (for ``platform``
    only: "cpu", "cuda", "gpu"..., or every platform when None). Returns ``rule``."""
    if not isinstance(rule, LoweringFunction):
        rname = getattr(rule, "__name__", repr(rule))
        raise NotImplementedError(
            f"mlir.register_lowering('{prim.name}', {rname}): tjit does not run MLIR "
            f"lowering rules (functions that build StableHLO ops). Register "
            f"mlir.lower_fun(fn, multiple_results=...) instead, fn computing the primitive "
            f"with tjit.numpy/lax (it is inlined and fuses), or register nothing: under jit "
            f"the primitive's impl then runs as a host step")
    if platform is not None and platform not in _PLATFORM_TARGETS:
        raise ValueError(f"mlir.register_lowering('{prim.name}'): unknown platform "
                         f"{platform!r}; use one of {sorted(_PLATFORM_TARGETS)} or None")
    lower_funs = getattr(prim, "lower_funs", None)
    if lower_funs is None:   # a tjit primitive: its lowering slot holds one rule
        lower_funs = prim.lower_funs = {}
    lower_funs[platform] = (rule.fun, rule.multiple_results)
    by_platform = dict(lower_funs)

    def lowering(ctx, *ins, **params):
        target = ctx.target.name
        chosen = next((entry for plat, entry in by_platform.items()
                       if plat is not None and target in _PLATFORM_TARGETS[plat]),
                      by_platform.get(None))
        if chosen is None:
            return NotImplemented   # no rule for this target: the impl runs as a host step
        n = len(ctx.avals_out)   # (read first: the inlined equations set it again)
        outs = LoweringFunction(*chosen)(ctx, *ins, **params)
        if len(outs) != n:
            raise TypeError(f"the lower_fun of '{prim.name}' gave {len(outs)} results; "
                            f"its abstract evaluation declares {n}")
        return outs if prim.multiple_results else outs[0]
    prim.lowering = lowering
    return rule


__all__ = ["LoweringFunction", "lower_fun", "register_lowering"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
