"""What the kernel IR's ops and monoids mean: the contract every renderer implements.

:func:`op_impls` is the executable definition: op name -> reference implementation
(tjit's primitives' own ``impl`` on NumPy), the default of ``kernel_ir.evaluate``; a
backend is correct when it matches ``evaluate`` bit for bit, except for the
transcendentals (within mathlib's ulp table) and float sums/products (which may be
reassociated). :func:`reduce` is the same for the monoids. The rules, stated so that a
renderer author need not read the LLVM code (``lower/llvm/codegen_ops.py`` renders
them; ``lower/c/scalar.py`` in C), are those of XLA as tjit's primitives follow it:

* **Integers wrap**: ``add``/``sub``/``mul``/``neg``/``abs`` are two's complement modulo
  2^bits (no undefined signed overflow: C renders through unsigned types).
* **Integer ``div``/``rem`` never trap**: ``x / 0`` is -1 (signed) or all ones
  (unsigned), ``x rem 0`` is ``x``, ``INT_MIN / -1`` is ``INT_MIN`` and
  ``INT_MIN rem -1`` is 0. ``div`` truncates toward zero; ``rem`` has the dividend's sign.
* **Shifts** by an amount outside ``[0, bits)`` give 0 (``shift_left``,
  ``shift_right_logical``) or the sign fill (``shift_right_arithmetic``).
* **Float -> int ``convert`` saturates** to the target's range and maps NaN to 0;
  float -> bool is ``x != 0`` (NaN is true); int -> narrower int wraps.
* **``max``/``min``** are IEEE 754-2019 maximum/minimum: a NaN operand gives NaN and
  -0.0 < +0.0 (``fmax`` in C does neither). The ``max``/``min`` monoids likewise.
* ``sign`` is +-1, +0 for +-0, and the NaN itself for NaN; ``round`` rounds half away
  from zero, ``round_even`` half to even.
* ``nextafter`` is C's (exact, on the bits: one step towards y, y when equal, the signed
  smallest denormal from +-0); ``population_count`` counts the set bits of the two's
  complement pattern (of the dtype's width).
* ``lgamma``/``digamma`` take SciPy's special values (their impls are SciPy's): lgamma
  is log|Gamma|, +inf at the poles, -log|x| for denormals, -inf at -inf; digamma is -+inf at
  +-0 and NaN at the negative integers and -inf.
* ``bitcast`` reinterprets the bits of its operand as the node's dtype of the same width
  (``lax.bitcast_convert_type``; never bool): NaN payloads and signed zeros pass unchanged.
* Float comparisons are ordered (false on NaN) except ``ne``, which is true on NaN.
* ``fma(a, b, c)`` is ``a*b + c`` rounded once (IEEE 754 fusedMultiplyAdd: C's
  ``fma``/``fmaf``, ``llvm.fma``), float32 and float64 only; ``fma(a, b, -(a*b))`` is the
  exact rounding error of a product. It is the only fused op: there is no flush of
  subnormals to zero and no contraction of a ``mul`` and an ``add`` into an FMA.

Monoids (``Reduction.monoid``), with their identities (``kernel_ir.identity``):

* ``sum``/``prod``/``max``/``min`` combine with the ops of the same names; on bool they
  are or/and/or/and.
* ``and``/``or`` are **bitwise** on integers (identity all ones / 0), logical on bool,
  as ``lax.reduce_and``/``reduce_or`` (XLA's And/Or). (The compiler emits them only for
  bool today; integer ones go to library calls.)
* A reduction over an empty axis gives the identity at every kept point: outer stores
  (and accumulate-style stores) still run once per kept point; inner stores do not.
"""

import functools

import numpy as np

from tjit.primitives import fma as _fma_primitive  # noqa: F401  (registers "fma")
from tjit.primitives import ieee_minmax
from tjit.primitives.base import REGISTRY


def _prim(name, **params):
    impl = REGISTRY[name].impl
    return lambda *args, dtype: impl(np, *args, **params)


@functools.cache
def _table():
    from_prims = ("neg", "abs", "sign", "floor", "ceil", "exp", "exp2", "expm1", "log",
                  "log1p", "tanh", "logistic", "sin", "cos", "tan", "erf", "sqrt",
                  "rsqrt", "cbrt", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                  "atanh", "erfc", "lgamma", "digamma", "is_finite", "not",
                  "population_count", "add", "sub", "mul", "div", "rem", "pow", "max",
                  "min", "atan2", "nextafter", "and", "or", "xor", "shift_left",
                  "shift_right_arithmetic", "shift_right_logical", "eq", "ne", "lt", "le",
                  "gt", "ge")
    t = {name: _prim(name) for name in from_prims}
    t.update(
        round=_prim("round", rounding_method=0),
        round_even=_prim("round", rounding_method=1),
        select=lambda p, t, f, dtype: REGISTRY["select_n"].impl(np, p, f, t),
        fma=_prim("fma"),
        convert=lambda x, dtype: REGISTRY["convert_element_type"].impl(np, x,
                                                                      new_dtype=dtype),
        bitcast=lambda x, dtype: REGISTRY["bitcast_convert_type"].impl(np, x,
                                                                      new_dtype=dtype),
    )
    return t


def op_impls():
    """{op name: ``f(*operands, dtype=result dtype)``}: the reference semantics of every
    elementwise op of the kernel IR (NumPy arrays in and out)."""
    return dict(_table())


def reduce(monoid, values, axis, dtype):
    """``values`` folded with ``monoid`` over ``axis`` (kept as extent 1), as ``dtype``.
    An empty axis gives the identity (callers pass the identity themselves: see
    ``kernel_ir.evaluate``)."""
    dtype = np.dtype(dtype)
    if monoid in ("and", "or") and dtype.kind != "b":
        ufunc = np.bitwise_and if monoid == "and" else np.bitwise_or
        r = ufunc.reduce(values.astype(dtype, copy=False), axis=axis, keepdims=True)
    elif monoid in ("max", "min"):    # (NaN propagates; -0.0 < +0.0)
        r = np.expand_dims(ieee_minmax.reduce(np, values, axis, monoid == "max"), axis)
    else:
        r = _REDUCERS[monoid](values, axis=axis, keepdims=True)
    return r.astype(dtype)


_REDUCERS = {"sum": np.sum, "prod": np.prod, "and": np.all, "or": np.any}
