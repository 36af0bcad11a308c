"""``tjit.example_libraries.stax``: every layer's init_fun shape equals its apply_fun
output's, values against NumPy written plainly (loops over windows for convolutions and
pools, the formulas for activations and batch norm), PRNG key handling as JAX's
(serial/parallel split the key per layer; Dropout's mask from the key it is given), and a
small convnet's jit(grad(loss)) against float64 finite differences."""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import random
from tjit.example_libraries import optimizers, stax

KEY = random.PRNGKey(0)


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def np_conv_nhwc(x, w, strides, pads, lhs_dil=(1, 1)):
    """x NHWC, w HWIO; lhs dilation and (lo, hi) padding, then a loop over windows."""
    N, H, W, C = x.shape
    kh, kw, _, O = w.shape
    Hd, Wd = (H - 1) * lhs_dil[0] + 1, (W - 1) * lhs_dil[1] + 1
    (t, b), (l, r) = pads
    xp = np.zeros((N, Hd + t + b, Wd + l + r, C), np.float64)
    xp[:, t:t + Hd:lhs_dil[0], l:l + Wd:lhs_dil[1]] = x
    oh = (xp.shape[1] - kh) // strides[0] + 1
    ow = (xp.shape[2] - kw) // strides[1] + 1
    out = np.zeros((N, oh, ow, O))
    for i, j in itertools.product(range(oh), range(ow)):
        win = xp[:, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
        out[:, i, j] = np.einsum("nhwc,hwco->no", win, w)
    return out


def np_pool(x, window, strides, pads, op, fill):
    N, H, W, C = x.shape
    (t, b), (l, r) = pads
    xp = np.full((N, H + t + b, W + l + r, C), fill, np.float64)
    xp[:, t:t + H, l:l + W] = x
    oh = (xp.shape[1] - window[0]) // strides[0] + 1
    ow = (xp.shape[2] - window[1]) // strides[1] + 1
    out = np.zeros((N, oh, ow, C))
    for i, j in itertools.product(range(oh), range(ow)):
        win = xp[:, i * strides[0]:i * strides[0] + window[0],
                 j * strides[1]:j * strides[1] + window[1]]
        out[:, i, j] = op(win)
    return out


def _check(layer, input_shape, x=None, ref=None, rtol=1e-5, atol=1e-5, **kw):
    init, apply = layer
    out_shape, params = init(KEY, input_shape)
    x = _x(input_shape) if x is None else x
    y = apply(params, x, **kw)
    assert tuple(y.shape) == tuple(out_shape), (y.shape, out_shape)
    if ref is not None:
        np.testing.assert_allclose(np.asarray(y), ref(params, x), rtol=rtol, atol=atol)
    return params, y


def test_dense():
    _check(stax.Dense(5), (3, 4),
           ref=lambda p, x: x.astype(np.float64) @ np.asarray(p[0]) + np.asarray(p[1]))
    params, _ = _check(stax.Dense(5), (2, 3, 4))
    assert params[0].shape == (4, 5) and params[1].shape == (5,)


@pytest.mark.parametrize("strides, padding", [((1, 1), "VALID"), ((2, 1), "SAME"),
                                              ((2, 2), ((1, 0), (2, 1)))])
def test_conv_nhwc(strides, padding):
    shape, filt = (2, 7, 6, 3), (3, 2)
    if padding == "SAME":  # in / stride rounded up; the odd pad at the end
        pads = [(1, 1), (0, 1)]
    elif padding == "VALID":
        pads = [(0, 0), (0, 0)]
    else:
        pads = list(padding)
    _check(stax.Conv(4, filt, strides, padding), shape,
           ref=lambda p, x: np_conv_nhwc(x, np.asarray(p[0]), strides, pads)
           + np.asarray(p[1]))


def test_general_conv_nchw_layouts():
    layer = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), (1, 1), "SAME")

    def ref(p, x):
        w = np.transpose(np.asarray(p[0]), (2, 3, 1, 0))            # OIHW -> HWIO
        y = np_conv_nhwc(np.transpose(x, (0, 2, 3, 1)), w, (1, 1), [(1, 1), (1, 1)])
        return np.transpose(y, (0, 3, 1, 2)) + np.asarray(p[1])
    params, _ = _check(layer, (2, 3, 5, 6), ref=ref)
    assert params[0].shape == (4, 3, 3, 3) and params[1].shape == (1, 4, 1, 1)


@pytest.mark.parametrize("padding, pads", [("VALID", [(2, 2), (1, 1)]),
                                           ("SAME", [(2, 1), (1, 0)])])
def test_conv_transpose(padding, pads):
    """conv_transpose = correlation of the stride-dilated input with the kernel, padded
    as JAX's _conv_transpose_padding gives (k=3, s=2: SAME (2, 1), VALID (2, 2); k=2,
    s=1: SAME (1, 0), VALID (1, 1))."""
    layer = stax.ConvTranspose(5, (3, 2), (2, 1), padding)
    _check(layer, (2, 4, 3, 3), ref=lambda p, x: np_conv_nhwc(
        x, np.asarray(p[0]), (1, 1), pads, lhs_dil=(2, 1)) + np.asarray(p[1]))
    init, apply = stax.Conv1DTranspose(4, (3,), (2,), "SAME")
    out_shape, p = init(KEY, (2, 5, 3))
    assert out_shape == (2, 10, 4) and apply(p, _x((2, 5, 3))).shape == (2, 10, 4)


def test_batch_norm():
    def ref(p, x):
        x = x.astype(np.float64)
        m, v = x.mean((0, 1, 2)), x.var((0, 1, 2))
        return np.asarray(p[1]) * (x - m) / np.sqrt(v + 1e-5) + np.asarray(p[0])
    init, apply = stax.BatchNorm()
    _, (beta, gamma) = init(KEY, (4, 3, 3, 2))
    params = (beta + 0.5, gamma * 2.0)
    x = _x((4, 3, 3, 2))
    np.testing.assert_allclose(apply(params, x), ref(params, x), rtol=1e-4, atol=1e-5)
    init, apply = stax.BatchNorm(axis=0, center=False)
    shape, params = init(KEY, (6, 3))
    assert shape == (6, 3) and params[0] == () and params[1].shape == (3,)
    x = _x((6, 3))
    np.testing.assert_allclose(apply(params, x), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5),
                               rtol=1e-4, atol=1e-5)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _log_softmax(x):
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


ACTIVATIONS = {
    "Relu": (stax.Relu, lambda x: np.maximum(x, 0)),
    "Tanh": (stax.Tanh, np.tanh),
    "Exp": (stax.Exp, np.exp),
    "Sigmoid": (stax.Sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "Elu": (stax.Elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "LeakyRelu": (stax.LeakyRelu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "Softplus": (stax.Softplus, lambda x: np.log1p(np.exp(x))),
    "Gelu": (stax.Gelu, _gelu_tanh),
    "LogSoftmax": (stax.LogSoftmax, _log_softmax),
    "Softmax": (stax.Softmax, lambda x: np.exp(_log_softmax(x))),
    "Selu": (stax.Selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations(name):
    layer, ref = ACTIVATIONS[name]
    _check(layer, (3, 5), ref=lambda p, x: ref(x.astype(np.float64)))


@pytest.mark.parametrize("kind", ["MaxPool", "SumPool", "AvgPool"])
@pytest.mark.parametrize("window, strides, padding, pads", [
    ((2, 2), (2, 2), "VALID", [(0, 0), (0, 0)]),
    ((3, 2), (2, 1), "SAME", [(1, 1), (0, 1)]),
])
def test_pools(kind, window, strides, padding, pads):
    x = _x((2, 7, 6, 3))
    layer = getattr(stax, kind)(window, strides, padding)
    if kind == "MaxPool":
        ref = np_pool(x, window, strides, pads, lambda w: w.max((1, 2)), -np.inf)
    else:
        ref = np_pool(x, window, strides, pads, lambda w: w.sum((1, 2)), 0.0)
        if kind == "AvgPool":  # divided by the count of real (unpadded) elements
            ref = ref / np_pool(np.ones_like(x), window, strides, pads,
                                lambda w: w.sum((1, 2)), 0.0)
    _check(layer, x.shape, x=x, ref=lambda p, x: ref)


def test_pool_spec_places_batch_and_channel():
    x = _x((2, 3, 6, 4))   # NCHW
    layer = stax.MaxPool((2, 2), (2, 2), spec="NCHW")
    ref = np_pool(np.transpose(x, (0, 2, 3, 1)), (2, 2), (2, 2), [(0, 0), (0, 0)],
                  lambda w: w.max((1, 2)), -np.inf)
    _check(layer, x.shape, x=x, ref=lambda p, x: np.transpose(ref, (0, 3, 1, 2)))


def test_structural_layers_and_combinators():
    _check(stax.Flatten, (2, 3, 4), ref=lambda p, x: x.reshape(2, 12))
    _check(stax.Identity, (2, 3), ref=lambda p, x: x)
    x = _x((2, 5))
    init, apply = stax.serial(stax.FanOut(3), stax.parallel(stax.Dense(4), stax.Identity,
                                                            stax.Dense(2)),
                              stax.FanInConcat())
    shape, params = init(KEY, (2, 5))
    assert shape == (2, 11)
    (w1, b1), (), (w2, b2) = params[1]
    want = np.concatenate([x @ np.asarray(w1) + np.asarray(b1), x,
                           x @ np.asarray(w2) + np.asarray(b2)], -1)
    np.testing.assert_allclose(apply(params, x), want, rtol=1e-5, atol=1e-5)
    init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(5), stax.Tanh),
                              stax.FanInSum)
    shape, params = init(KEY, (2, 5))
    (w, b), () = params[1]
    assert shape == (2, 5)
    np.testing.assert_allclose(apply(params, x),
                               x @ np.asarray(w) + np.asarray(b) + np.tanh(x), rtol=1e-5,
                               atol=1e-5)
    layer = stax.shape_dependent(lambda s: stax.Dense(s[-1] * 2))
    shape, params = layer[0](KEY, (2, 5))
    assert shape == (2, 10) and layer[1](params, x).shape == (2, 10)


def test_serial_splits_keys_as_jax():
    """serial's init: ``rng, layer_rng = split(rng)`` before each layer."""
    _, params = stax.serial(stax.Dense(3), stax.Dense(2))[0](KEY, (1, 4))
    rng, k1 = random.split(KEY)
    _, k2 = random.split(rng)
    _, p1 = stax.Dense(3)[0](k1, (1, 4))
    _, p2 = stax.Dense(2)[0](k2, (1, 3))
    for a, b in zip(tjit.tree_util.tree_leaves(params), tjit.tree_util.tree_leaves([p1, p2])):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_dropout():
    init, apply = stax.Dropout(0.75)
    x = _x((50, 40)) + 5.0
    _, params = init(KEY, x.shape)
    y = np.asarray(apply(params, x, rng=KEY))
    keep = np.asarray(random.bernoulli(KEY, 0.75, x.shape))
    np.testing.assert_allclose(y, np.where(keep, x / 0.75, 0), rtol=1e-6)
    assert 0.7 < keep.mean() < 0.8   # rate is the probability of keeping (JAX's stax)
    np.testing.assert_array_equal(apply(params, x, rng=KEY), y)
    assert not np.array_equal(np.asarray(apply(params, x, rng=random.PRNGKey(1))), y)
    with pytest.raises(ValueError, match="requires apply_fun to be called with a PRNG key"):
        apply(params, x)
    np.testing.assert_array_equal(stax.Dropout(0.5, mode="test")[1]((), x, rng=KEY), x)
    # serial hands each layer its own split of rng
    _, ser = stax.serial(stax.Identity, stax.Dropout(0.75))
    _, k_drop = random.split(KEY, 2)
    np.testing.assert_array_equal(ser([(), ()], x, rng=KEY),
                                  apply((), x, rng=k_drop))


def _convnet():
    return stax.serial(stax.Conv(3, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
                       stax.MaxPool((2, 2), (2, 2)), stax.Conv(4, (2, 2), (1, 1)), stax.Elu,
                       stax.AvgPool((2, 2), padding="SAME"), stax.Flatten, stax.Dense(5),
                       stax.LogSoftmax)


def test_convnet_grad_matches_finite_differences(x64):
    init, apply = _convnet()
    shape, params = init(KEY, (3, 8, 8, 2))
    assert shape == (3, 5)
    params = tjit.tree_util.tree_map(lambda a: np.asarray(a, np.float64), params)
    x = np.random.default_rng(1).standard_normal((3, 8, 8, 2))
    labels = np.eye(5)[[0, 3, 4]]

    def loss(p):
        return -jnp.mean(jnp.sum(apply(p, x) * labels, -1))
    g = tjit.jit(tjit.grad(loss))(params)
    leaves, tree = tjit.tree_util.tree_flatten(params)
    g_leaves = tjit.tree_util.tree_leaves(g)
    rng = np.random.default_rng(2)
    eps = 1e-6
    for k, leaf in enumerate(leaves):
        if leaf.size == 0:
            continue
        for _ in range(2):
            idx = tuple(rng.integers(0, s) for s in leaf.shape)
            shifted = []
            for sign in (1, -1):
                moved = [a.copy() for a in leaves]
                moved[k][idx] += sign * eps
                shifted.append(float(loss(tjit.tree_util.tree_unflatten(tree, moved))))
            fd = (shifted[0] - shifted[1]) / (2 * eps)
            np.testing.assert_allclose(float(np.asarray(g_leaves[k])[idx]), fd, rtol=1e-5,
                                       atol=1e-7)


def test_convnet_trains_with_jitted_adam_step():
    init, apply = _convnet()
    _, params = init(KEY, (8, 8, 8, 2))
    x = _x((8, 8, 8, 2), 3)
    labels = np.eye(5, dtype=np.float32)[np.arange(8) % 5]
    opt_init, opt_update, get_params = optimizers.adam(0.05)

    def loss(p):
        return -jnp.mean(jnp.sum(apply(p, x) * labels, -1))

    @tjit.jit
    def step(i, state):
        return opt_update(i, tjit.grad(loss)(get_params(state)), state)
    state = opt_init(params)
    first = float(loss(params))
    for i in range(15):
        state = step(i, state)
    assert float(loss(get_params(state))) < 0.5 * first
