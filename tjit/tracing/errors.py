"""tjit's exception types. Each message names the operation, the values involved and
the fix, in the manner of JAX's best messages."""

import operator
import os
import traceback

import numpy as np

from tjit._sympy import is_expr, simplify_dim


class TjitError(Exception):
    """Base class of tjit's own errors."""


class ShapeError(TjitError, ValueError):
    """Shapes that do not fit an operation."""


class ContractionShapeError(ShapeError, TypeError):
    """Operands that a contraction (dot_general, dot, matmul, ``@``, vdot, inner,
    tensordot) cannot pair. Also a TypeError because JAX raises TypeError for these
    (``except TypeError`` in JAX code keeps working), and still a ShapeError/ValueError
    for tjit code, as NumPy's AxisError is both a ValueError and an IndexError."""


class BroadcastShapeError(ShapeError, TypeError):
    """Operands of an elementwise operation (``+``, ``==``, ``jnp.maximum``, ``lax.add``,
    ``jnp.clip``...) whose shapes do not broadcast together. Also a TypeError because
    JAX raises TypeError for these ("add got incompatible shapes for broadcasting"), and
    still a ShapeError/ValueError for tjit code. Functions that broadcast explicitly
    (``jnp.broadcast_shapes``, ``broadcast_arrays``, ``broadcast_to``, ``where``,
    ``select``, matmul's batch dims) raise ShapeError only, as JAX raises ValueError."""


class OperandShapeError(ShapeError, TypeError):
    """Operand shapes that an operation's shape rule refuses where JAX raises TypeError:
    concatenate/stack pieces that disagree off the joined axis, a reshape to another
    size, a transpose that is no permutation, a linalg operand that is no (square)
    matrix, histogram2d/polyfit samples of different lengths. Also a TypeError so
    ``except TypeError`` in JAX code keeps working, and still a ShapeError/ValueError,
    NumPy's class, for tjit code."""


class AxisError(ShapeError, np.exceptions.AxisError):
    """An axis out of range for the operand's rank. NumPy's AxisError (a ValueError and an
    IndexError), because JAX raises either, by function: ValueError from its axis checks,
    IndexError from a tuple index, so ``except`` clauses written for JAX or NumPy both
    catch it. Construct it with the whole message."""


class NegativeDimensionError(ShapeError, TypeError):
    """A requested shape with a negative dim (``jnp.zeros((-2, 3))``, ``lax.full``,
    ``lax.broadcast``, ``random.normal``...). Also a TypeError because JAX raises
    TypeError for these, and still a ValueError, NumPy's class."""


class InconclusiveDimensionError(ShapeError):
    """A shape rule that cannot be decided for symbolic dims."""


class ArrayAsDtypeError(TjitError, TypeError, ValueError):
    """An array given where a dtype is expected (``dtype=x``, ``x.astype(y)``): NumPy
    raises TypeError, JAX ValueError, so it is both. ``np.dtype(x)`` reads an object's
    ``.dtype`` attribute, so without this check a tjit array was taken as its own dtype."""


class ArrayConversionError(TjitError, TypeError, ValueError):
    """A value that holds no array (None, an object, text, a ragged list) given to
    ``jnp.array``/``asarray``. JAX raises ValueError for None and ragged lists ("None is
    not a valid value for jnp.array", NumPy's inhomogeneous shape) and TypeError for other
    objects; tjit raises this one class, a subclass of both, for all of them, so an
    ``except`` clause written for either catches it."""


# The bases of JAX's own errors, under JAX's names (``jax.errors.JAXTypeError``), so that
# ``except jax.errors.JAXTypeError`` in a ported program catches what it catches in JAX.
class JAXTypeError(TjitError, TypeError):
    """A TypeError raised by tracing or transforming (JAX's ``jax.errors.JAXTypeError``)."""


class JAXIndexError(TjitError, IndexError):
    """An IndexError raised by tracing (JAX's ``jax.errors.JAXIndexError``)."""


class JaxRuntimeError(TjitError, RuntimeError):
    """A failure while running a computation rather than tracing it (JAX's
    ``jax.errors.JaxRuntimeError``, a RuntimeError): a refused transfer, for one."""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where a concrete Python value is needed."""


class TracerArrayConversionError(ConcretizationTypeError):
    """``np.asarray()``/``__array__`` of a traced value. JAX's derives from JAXTypeError
    alone; here it is a ConcretizationTypeError too, which tjit raised before (code that
    catches either keeps working)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool()`` of a traced value (an ``if``/``while``/``and`` on it under jit): use
    ``lax.cond``/``jnp.where``, or make the argument static (as JAX's error)."""


class TracerIntegerConversionError(ConcretizationTypeError):
    """``int()``/``__index__`` of a traced value (a shape or ``range`` bound from it under
    jit): make the argument static, or use ``lax.fori_loop``/``dynamic_slice``."""


class UnexpectedTracerError(JAXTypeError):
    """A tracer escaped the transformation that created it."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask whose values are traced used as an index (its result's shape would
    depend on them): use ``jnp.where`` or ``size=``."""


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame():
    """(filename, lineno, function name, source line) of the innermost frame outside tjit."""
    for frame in reversed(traceback.extract_stack()):
        if not os.path.abspath(frame.filename).startswith(_PKG_DIR + os.sep):
            return frame
    return None


def user_location():
    fr = user_frame()
    if fr is None:
        return "an unknown location"
    line = f"\n    {fr.line.strip()}" if fr.line else ""
    return f"{fr.filename}:{fr.lineno} (in {fr.name}){line}"


def static_index(value, what, op, *, dims=False, alternative=""):
    """``operator.index(value)`` for an argument that fixes shapes or axes at trace time
    (an axis, a dim, ``k`` of top_k, a count). A traced value raises
    TracerIntegerConversionError (a ConcretizationTypeError and TypeError, as JAX's)
    naming ``op``, the argument and the traced input it came from (and ``alternative``,
    an op that takes it traced); any other non-integer raises TypeError (``axis=1.5`` is
    an error, as in NumPy and JAX, not axis 1).

    ``dims=True`` also accepts a symbolic dim (a sympy expression over size symbols, e.g.
    ``x.shape[0] - 1`` as a slice bound), returned in canonical form (an int when it
    is one)."""
    if dims and is_expr(value):
        return simplify_dim(value)
    try:
        return operator.index(value)
    except ConcretizationTypeError:
        raise traced_static_error(value, what, op, alternative) from None
    except TypeError:
        raise TypeError(f"{op}: {what} must be an integer, got {value!r:.60}"
                        + (f"; traced values need {alternative}" if alternative else "")
                        ) from None


def traced_static_error(value, what, op, alternative=""):
    """The error for a traced ``value`` given where ``op`` needs a static one (``what``:
    the argument's name, e.g. "axis"; ``alternative``: an op that takes it traced);
    ``value`` is a Tracer."""
    return value._concretization_error(
        TracerIntegerConversionError, f"{op}: its {what} argument needs a concrete int, "
        f"but", f"Fix: {what} fixes shapes at trace time, so it must be a Python int: "
        f"pass it as a static argument (jit(..., static_argnums=...) / static_argnames=...)"
        + (f", or use {alternative}, which takes it traced." if alternative else "."),
        verb="got")
