"""Gradients of every differentiable tjit.nn function vs float64 finite differences,
and vmap vs a Python loop."""

import numpy as np
import pytest

import tjit.numpy as jnp
from tjit import nn
from tests.transforms.check import check_grads, check_vmap

# points away from kinks (relu at 0, hard_tanh at +-1, ...), where derivatives exist
X = np.array([-2.3, -0.7, -0.2, 0.4, 1.3, 2.6])
M = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]])

FUNCS = {
    "relu": nn.relu, "relu6": nn.relu6, "sigmoid": nn.sigmoid, "softplus": nn.softplus,
    "log_sigmoid": nn.log_sigmoid, "silu": nn.silu, "swish": nn.swish, "mish": nn.mish,
    "soft_sign": nn.soft_sign, "squareplus": nn.squareplus, "elu": nn.elu, "selu": nn.selu,
    "celu": nn.celu, "leaky_relu": nn.leaky_relu, "hard_tanh": lambda x: nn.hard_tanh(x * 0.3),
    "hard_sigmoid": nn.hard_sigmoid, "hard_silu": nn.hard_silu,
    "gelu_tanh": lambda x: nn.gelu(x, approximate=True),
    "gelu_exact": lambda x: nn.gelu(x, approximate=False),
    "log1mexp": lambda x: nn.log1mexp(jnp.abs(x) + 0.1),
}

REDUCING = {
    "softmax": lambda x: nn.softmax(x, axis=-1),
    "softmax_axis0": lambda x: nn.softmax(x, axis=0),
    "log_softmax": lambda x: nn.log_softmax(x, axis=-1),
    "logsumexp": lambda x: nn.logsumexp(x, axis=1),
    "logsumexp_all": lambda x: nn.logsumexp(x),
    "logmeanexp": lambda x: nn.logmeanexp(x, axis=1),
    "standardize": lambda x: nn.standardize(x, axis=-1),
    "glu": lambda x: nn.glu(jnp.concatenate([x, x * 0.5], axis=-1), axis=-1),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_elementwise_grads(name):
    check_grads(FUNCS[name], (X,), order=2)


@pytest.mark.parametrize("name", sorted(REDUCING))
def test_reducing_grads(name):
    check_grads(REDUCING[name], (M,), order=2)


@pytest.mark.parametrize("name", sorted(FUNCS) + sorted(REDUCING))
def test_vmap(name):
    f = FUNCS.get(name) or REDUCING[name]
    batch = np.stack([M * s for s in (1.0, -0.5, 2.0)]).astype(np.float32)
    check_vmap(f, (batch,), rtol=1e-5, atol=1e-6)


def test_large_inputs_have_finite_gradients():
    import tjit
    big = jnp.asarray([-1e4, 0.0, 1e4])
    for f in (nn.softplus, nn.log_sigmoid, nn.silu, lambda x: nn.logsumexp(x),
              lambda x: nn.log_softmax(x)):
        g = tjit.grad(lambda x: jnp.sum(f(x)))(big)
        assert np.all(np.isfinite(np.asarray(g))), f
