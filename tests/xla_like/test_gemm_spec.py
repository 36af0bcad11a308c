"""plan.GemmSpec: a dot_general as a batched gemm, the facts every gemm library needs."""

import numpy as np
import sympy

from tjit.xla_like.plan import DotStep, GemmSpec


def test_batched_dot_with_permuted_operands():
    # lhs (k, b, m), rhs (n, b, k): contract lhs 0 with rhs 2, batch lhs 1 with rhs 1
    spec = GemmSpec.of((((0,), (2,)), ((1,), (1,))), (5, 3, 4), (6, 3, 5))
    assert spec.lperm == (1, 2, 0) and spec.rperm == (1, 2, 0) and spec.bmkn == (3, 4, 5, 6)
    a, b = np.random.rand(5, 3, 4), np.random.rand(6, 3, 5)
    B, M, K, N = spec.bmkn
    got = np.transpose(a, spec.lperm).reshape(B, M, K) @ \
        np.transpose(b, spec.rperm).reshape(B, K, N)
    np.testing.assert_allclose(got, np.einsum("kbm,nbk->bmn", a, b))


def test_symbolic_extents_and_the_step_method():
    n = sympy.Symbol("n", integer=True, positive=True)
    step = DotStep((((1,), (0,)), ((), ())), [0, 1], [2])
    spec = step.gemm_spec((n, 7), (7, 2 * n))
    assert spec.bmkn == (1, n, 7, 2 * n) and spec.lperm == (0, 1) and spec.rperm == (0, 1)
