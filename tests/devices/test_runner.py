"""runner.ProgramRunner is backend-neutral: a runner whose kernels run through
``kernel_ir.evaluate`` and whose dots are NumPy matmuls over the plan's GemmSpec runs
the same plans as the CPU backend and gives its results."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.devices.runner import ProgramRunner
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.compile import compile_program


class EvaluateRunner(ProgramRunner):
    """Kernels through the IR's NumPy evaluator; dots through np.matmul."""

    def __init__(self, prog, env=None):
        super().__init__(prog, env or {})
        self.prepare_steps()

    def kernel_step(self, s):
        k, n_in = s.kernel, len(s.ins)
        ins = [self.index[v] for v in s.ins]
        outs = [(self.index[v], self.shape[v], self.dtype[v]) for v in s.outs]

        def run(vals):
            bufs = [np.ascontiguousarray(vals[i]).reshape(-1) for i in ins]
            res = [np.empty(shape, dtype) for _, shape, dtype in outs]
            for i_in, o in k.inplace:       # an in-place output starts as its input
                res[o - n_in].reshape(-1)[...] = bufs[i_in]
            K.evaluate(k, bufs + [r.reshape(-1) for r in res])
            for (i, _, _), r in zip(outs, res):
                vals[i] = r
        return run

    def dot_step(self, s):
        li, ri = (self.index[v] for v in s.ins[:2])
        xi = self.index[s.ins[2]] if len(s.ins) > 2 else None
        (out,) = s.outs
        k, shape, dtype = self.index[out], self.shape[out], self.dtype[out]
        spec = s.gemm_spec(self.shape[s.ins[0]], self.shape[s.ins[1]])
        B, M, Kc, N = spec.bmkn

        def run(vals):
            a = np.transpose(vals[li], spec.lperm).reshape(B, M, Kc)
            b = np.transpose(vals[ri], spec.rperm).reshape(B, Kc, N)
            r = (a @ b).reshape(shape) * dtype.type(s.alpha)
            if xi is not None:
                r = r + vals[xi] * dtype.type(s.beta)
            vals[k] = r.astype(dtype)
        return run


def _mlp(w1, w2, x):
    return jnp.sum(nn.softmax(nn.relu(x @ w1) @ w2, axis=-1) * 0.5 - jnp.sort(x, axis=1)[:, :1])


@pytest.mark.parametrize("f", [_mlp, tjit.grad(_mlp)], ids=["mlp", "grad"])
def test_a_runner_over_evaluate_matches_the_cpu_backend(f):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 4), (5, 8))]
    closed = tjit.make_jaxpr(f)(*args)
    got = EvaluateRunner(compile_program(closed)).run(args)
    want = tjit.jit(f)(*args)
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want), rtol=1e-5, atol=1e-6)
