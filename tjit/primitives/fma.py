"""``fma(a, b, c)``: ``a * b + c`` rounded once (IEEE 754 fusedMultiplyAdd), an internal
primitive (JAX has no ``lax.fma``) for the exact-product corrections of special
functions: ``fma(a, b, -a * b)`` is the exact rounding error of ``a * b`` in one op,
where Dekker's TwoProduct takes ~17 (users: ``numpy._ufuncs._two_square``,
``scipy._special_dd``, ``scipy._special_gamma``).

float32 and float64 only (every backend renders those with a hardware or library fma:
``llvm.fma``, C's ``fma``/``fmaf``, OpenCL's and CUDA's ``fma``). It lowers to the HLO
and kernel-IR op of the same name; its impl (``exact_fma.fma``) is exact on NumPy and
CuPy, so eager and compiled results agree bit for bit.
"""

import numpy as np

from tjit.primitives import exact_fma, rules
from tjit.primitives.base import new_primitive, same_dtypes, same_shapes
from tjit.primitives.elementwise import mul_p, neg_p
from tjit.tracing.avals import ShapedArray
from tjit.tracing.fp_quiet import quiet

#: the dtypes fma takes
FMA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

fma_p = new_primitive("fma")


@fma_p.def_abstract_eval
def _fma_abstract(a, b, c):
    dt = same_dtypes("fma", (a, b, c))
    if dt not in FMA_DTYPES:
        raise TypeError(f"fma: operands must be float32 or float64, got {dt} "
                        f"({a.str_short()}, {b.str_short()}, {c.str_short()}); compute a "
                        "narrower type in float32 (convert_element_type) first")
    return ShapedArray(same_shapes("fma", (a, b, c)), dt)


fma_p.def_impl(quiet(exact_fma.fma))

# d(a b + c) = b da + a db + dc (each term rounded: a tangent needs no exact product)
rules.defjvp(fma_p, lambda g, a, b, c: mul_p.bind(g, b),
             lambda g, a, b, c: mul_p.bind(a, g), lambda g, a, b, c: g)
rules.defbroadcasting(fma_p)


def fma(a, b, c):
    """``a * b + c`` rounded once, for tjit's own formulas (operands of one dtype,
    float32 or float64, equal shapes or rank 0)."""
    return fma_p.bind(a, b, c)


def product_error(a, b, p):
    """``a * b - p`` exactly, for ``p`` = ``a * b`` rounded (Dekker's TwoProduct error in
    one fma), wherever that error does not underflow."""
    return fma_p.bind(a, b, neg_p.bind(p))
