"""The compiler's one entry: a closed jaxpr in, a fused :class:`~tjit.xla_like.plan.Program`
out.

Every backend that runs fused kernels calls :func:`compile_program` and then renders and
launches the program's steps its own way; none repeats lowering, simplification,
fusion or buffer planning (JAX autodidax's shape: one compile function, then an
executor). The reference interpreter is the one backend that does not call it.
"""

from tjit import compile_log
from tjit.xla_like import remat
from tjit.xla_like.lowering import lower_jaxpr
from tjit.xla_like.plan import build_program
from tjit.xla_like.simplify import simplify
from tjit.xla_like.target import CPU


def compile_program(closed_jaxpr, target=None, donated=()):
    """Lower, simplify, fuse and plan ``closed_jaxpr``.

    Args:
      closed_jaxpr: the traced program (shapes may hold size symbols).
      target: the backend's :class:`~tjit.xla_like.target.TargetInfo` (what it can do,
        what things cost); None: the CPU's.
      donated: flat input positions whose buffers outputs may reuse.

    Returns:
      The :class:`~tjit.xla_like.plan.Program` (steps, values, buffer slots, donation).
    """
    target = CPU if target is None else target
    with compile_log.stage("lower"):
        module = lower_jaxpr(closed_jaxpr, target=target)
    with compile_log.stage("hlo_simplify"):
        module = simplify(module, target)
    budget = remat.current_budget()     # (jit(..., memory_budget=...), see remat.py)
    with compile_log.stage("fuse"):     # fusion, kernel IR, step order, buffers
        if budget is not None:
            return remat.plan_within_budget(module, budget, donated, target)
        return build_program(module, donated, target)


def size_symbols(closed_jaxpr):
    """The size symbols of the program's inputs, sorted by name: the order in which a
    backend binds them from the arguments' shapes."""
    symbols = set()
    for v in closed_jaxpr.jaxpr.invars:
        for d in v.aval.shape:
            if not isinstance(d, int):
                symbols |= d.free_symbols
    return sorted(symbols, key=lambda s: s.name)
