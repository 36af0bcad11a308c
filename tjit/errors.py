"""tjit's exception types under ``jax.errors``' names, so that ported ``except`` clauses
and ``from jax.errors import ...`` lines work unchanged.

The hierarchy is JAX's: ``JAXTypeError`` (a TypeError) is the base of the tracing errors,
``JAXIndexError`` (an IndexError) of the indexing ones, ``JaxRuntimeError`` (a
RuntimeError) is raised while running (a refused transfer). All are ``TjitError``s too.
tjit's TracerIntegerConversionError and TracerArrayConversionError are also
ConcretizationTypeErrors (JAX's are JAXTypeErrors only): an ``except`` for JAX's type
still catches them.
"""

from tjit.key_reuse import KeyReuseError
from tjit.tracing.errors import (
    ConcretizationTypeError, InconclusiveDimensionError, JAXIndexError, JAXTypeError,
    JaxRuntimeError, NonConcreteBooleanIndexError, TjitError, TracerArrayConversionError,
    TracerBoolConversionError, TracerIntegerConversionError, UnexpectedTracerError)
from tjit.tracing.jaxpr import JaxprTypeError

#: JAX's name for a shape comparison that symbolic dims cannot decide.
InconclusiveDimensionOperation = InconclusiveDimensionError

__all__ = [
    "ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError",
    "JAXTypeError", "JaxRuntimeError", "JaxprTypeError", "KeyReuseError",
    "NonConcreteBooleanIndexError", "TjitError", "TracerArrayConversionError",
    "TracerBoolConversionError", "TracerIntegerConversionError", "UnexpectedTracerError",
]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
