"""``square_p``: ``lax.square`` of complex numbers as JAX's (XLA's ``chlo.square``), not as
the product ``z * z``.

The product forms its real part as ``a*a - b*b``, which overflows where the true value
does not: complex64 ``square(max + max j)`` was ``-inf + inf j`` (true ``0 + 2 max**2 j``,
``0 + inf j``) and ``square(inf + max j)`` ``nan + inf j`` (true ``inf + inf j``); and it
loses the sign of a real part that underflows (``(1e-30 + 2e-30j)**2`` gave ``+0``, true
``-3e-60``, ``-0`` in float32). JAX's square takes the real part as ``(a - b) * (a + b)``,
exactly ``0`` where ``|a| == |b|`` is finite, and the imaginary part as ``(a * b) * 2``
(``2 * a`` first would overflow for ``max + 1e-30j``). ``z ** 2`` and
``lax.integer_pow(z, 2)`` stay the product, as JAX's do; real squares stay
``integer_pow`` (fused in kernels), so this primitive takes complex operands only.
Under ``jit`` it is a host step, as every complex op (kernels compute no complex dtype).
"""

from tjit.primitives import base
from tjit.primitives import rules as _r
from tjit.primitives.elementwise import _const, _mul, unop
from tjit.tracing import dtypes


def _square_impl(xp, z):
    if not dtypes.is_complex(z.dtype):
        raise TypeError(f"square: square_p takes complex operands, got {z.dtype}; "
                        f"real squares are lax.integer_pow(x, 2)")
    z = xp.asarray(z)
    a, b = z.real, z.imag
    out = xp.empty_like(z)
    real, imag = out.real, out.imag         # (views: the ufuncs write into out)
    xp.subtract(a, b, out=real)
    s = a + b
    # |a| == |b| exactly where a - b or a + b is 0 (never for an infinite or NaN a:
    # inf - inf and inf + -inf are NaN); there the real part is +0, as XLA's select gives
    tie = (real == 0) | (s == 0)
    real *= s
    real[tie] = 0
    xp.multiply(a, b, out=imag)
    imag *= 2
    return out


square_p = unop("square", _square_impl, kind=base.FLOAT)
# d(z**2) = 2 z dz, JAX's rule for square
_r.defjvp(square_p, lambda g, z: _mul(g, _mul(_const(z, 2.0), z)))
_r.defvectorized(square_p)
