"""reshape(iota(n)) becomes a sum of strided iotas of the new shape, so kernels compute
the row-major index instead of reading an iota written to memory: a 2-D random sample
is one kernel. References: the lowered module on the HLO oracle (bit for bit), NumPy,
and the reference interpreter for the samplers."""

import numpy as np
import pytest

import tjit
from tests.xla_like.hlo_eval import evaluate_module
from tjit import lax, random
from tjit.xla_like.lowering import lower_jaxpr
from tjit.xla_like.simplify import simplify


@pytest.mark.parametrize("dtype,shape", [(np.int32, (2, 3, 4)), (np.uint8, (10, 1, 20)),
                                         (np.uint32, (1, 1)), (np.int16, (4, 8)),
                                         # (past the dtype: the iota and the sum both wrap;
                                         # strides past it too: was an OverflowError)
                                         (np.int8, (4, 64)), (np.uint8, (3, 7, 20)),
                                         (np.int8, (2, 300)), (np.uint8, (3, 1000))])
def test_reshaped_iota_is_index_arithmetic_with_the_same_bits(dtype, shape):
    n = int(np.prod(shape))
    f = lambda x: lax.iota(dtype, n).reshape(shape) + x
    x = np.arange(n, dtype=dtype).reshape(shape)[::-1].copy()
    m = lower_jaxpr(tjit.make_jaxpr(f)(x))
    s = simplify(m)
    assert "reshape" not in [i.opcode for i in s.instrs]
    want = np.arange(n, dtype=dtype).reshape(shape) + x
    for got in (evaluate_module(m, [x])[0], evaluate_module(s, [x])[0], tjit.jit(f)(x)):
        np.testing.assert_array_equal(np.asarray(got), want)


SAMPLERS = {
    "uniform 64x64": lambda k: random.uniform(k, (64, 64)),
    "bits 3x1x5": lambda k: random.bits(k, (3, 1, 5)),
    "normal 31x7": lambda k: random.normal(k, (31, 7)),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_a_multi_dim_sample_is_one_kernel_with_the_interpreter_values(name):
    f, key = SAMPLERS[name], random.PRNGKey(11)
    text = tjit.jit(f).lower(key).compile().as_text()
    assert "1 fused kernels" in text.splitlines()[0], text.splitlines()[0]
    got = np.asarray(tjit.jit(f)(key), np.float64)
    want = np.asarray(tjit.jit(f, backend="interpreter")(key), np.float64)
    if "normal" in name:    # (erf_inv: within 6 float32 ulp, as test_fused_sampling)
        bound = 6 * np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        np.testing.assert_array_less(np.abs(got - want), bound + 1e-45)
    else:
        np.testing.assert_array_equal(got, want)
