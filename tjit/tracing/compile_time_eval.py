"""``tjit.ensure_compile_time_eval()``: inside a traced function, ops whose operands are
all concrete run now, eagerly, instead of being staged into the program (JAX's
``jax.ensure_compile_time_eval``), so their results can steer Python (``float(y)``,
``if``, shapes). Ops with a traced operand are staged as usual.
"""

import contextlib

from tjit.tracing.core import EvalTrace, Trace, Tracer, current_trace, set_current_trace


class CompileTimeEvalTrace(Trace):
    """Runs concrete ops eagerly; hands ops with a tracer to the trace it was opened
    in."""

    name = "compile_time_eval"

    def __init__(self, parent):
        self.parent = parent
        self._eager = EvalTrace()

    def process_primitive(self, prim, args, params):
        if any(isinstance(a, Tracer) for a in args):
            with set_current_trace(self.parent):
                return self.parent.process_primitive(prim, args, params)
        return self._eager.process_primitive(prim, args, params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Evaluate ops on concrete values now, even inside ``jit`` (as JAX).

    >>> import tjit, tjit.numpy as jnp
    >>> @tjit.jit
    ... def f(x):
    ...     with tjit.ensure_compile_time_eval():
    ...         n = int(jnp.arange(4).sum())     # concrete: usable by Python
    ...     return x * n
    >>> print(f(jnp.float32(2)))
    12.0
    """
    outer = current_trace()
    if isinstance(outer, (EvalTrace, CompileTimeEvalTrace)):
        yield            # already eager (or already inside one)
        return
    with set_current_trace(CompileTimeEvalTrace(outer)):
        yield
