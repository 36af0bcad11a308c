"""Coefficient tables of digamma's algorithm, shared by the compiled kernels
(``lower/llvm/mathlib_special``) and the eager reference implementation
(``primitives/digamma_reference``), so both evaluate one algorithm. Data only.

Polynomials were fitted with mpmath's ``chebyfit``, lowest power first; the asymptotic
series' coefficients are Bernoulli numbers."""

from fractions import Fraction

#: digamma(z) = (z - x0) R(z - 3/2), z in [1, 2] (absolute error 6e-19)
DIGAMMA_R = [0.9510558760318328, -0.42362742128146047, 0.24054248424078736,
             -0.14840492305391761, 0.09498872445283, -0.06192213327165706,
             0.04076083394462657, -0.02697579684427536, 0.017907248195969127,
             -0.011908215172584002, 0.007927024067961237, -0.00528001782089874,
             0.0035180800751066694, -0.002344650082351321, 0.0015635679757533885,
             -0.001042261556504223, 0.0006899717801166841, -0.0004599625144612576,
             0.0003268068044141764, -0.0002178682145501451, 9.173383289174792e-05,
             -6.11554261750751e-05, 0.00012230983055406747, -8.153978973309418e-05]
#: the positive zero of digamma as hi + lo
DIGAMMA_X0 = (1.4616321449683622, 9.549995429965697e-17)
#: sin(pi r) = r S(r^2), |r| <= 1/2 (relative error 2e-19)
SINPI_S = [3.141592653589793, -5.167712780049969, 2.5501640398773007, -0.5992645293189447,
           0.0821458865731029, -0.007370430505916944, 0.0004662998161898394,
           -2.1903497074626018e-05, 7.697826768224191e-07]
#: B_2, B_4, ... (Bernoulli numbers) for the asymptotic series
BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
             Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510)]
#: digamma(y) = log y - 1/(2y) - u A(u), u = 1/y^2, y >= 10
DIGAMMA_A = [float(b / (2 * k)) for k, b in enumerate(BERNOULLI, 1)]
#: pi rounded to a double
PI = 3.141592653589793
