"""tjit.nn: activations against float64 NumPy/SciPy references (including large-magnitude
inputs where naive formulas overflow), softmax/log_softmax/logsumexp/standardize/one_hot
against NumPy, jit == eager, and the initializers' shapes, dtypes, variances and JAX
values (from JAX 0.10 with the same keys)."""

import numpy as np
import pytest
import scipy.special

import tjit
import tjit.numpy as jnp
from tjit import nn, random
from tjit.nn import initializers as init
from tjit.tracing.jaxpr import check_jaxpr

# typical values plus magnitudes where exp() overflows float32 (and float64)
X = np.concatenate([np.linspace(-6, 6, 49), [-1e4, -800.0, -90.0, -30.0, 0.0, 30.0, 90.0,
                                             800.0, 1e4]]).astype(np.float32)
X64 = X.astype(np.float64)


def _softplus(x):
    return np.logaddexp(x, 0.0)


def _sigmoid(x):
    return scipy.special.expit(x)


def _elu(x, a=1.0):
    return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

REFS = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6)),
    "sigmoid": (nn.sigmoid, _sigmoid),
    "softplus": (nn.softplus, _softplus),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -_softplus(-x)),
    "silu": (nn.silu, lambda x: x * _sigmoid(x)),
    "swish": (nn.swish, lambda x: x * _sigmoid(x)),
    "mish": (nn.mish, lambda x: x * np.tanh(_softplus(x))),
    "soft_sign": (nn.soft_sign, lambda x: x / (np.abs(x) + 1)),
    "elu": (nn.elu, _elu),
    "elu_alpha": (lambda x: nn.elu(x, 0.5), lambda x: _elu(x, 0.5)),
    "selu": (nn.selu, lambda x: SELU_S * _elu(x, SELU_A)),
    "celu": (lambda x: nn.celu(x, 2.0),
             lambda x: np.maximum(x, 0) + 2.0 * np.expm1(np.minimum(x, 0) / 2.0)),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "leaky_relu_slope": (lambda x: nn.leaky_relu(x, negative_slope=0.2),
                         lambda x: np.where(x >= 0, x, 0.2 * x)),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1, 1)),
    "hard_sigmoid": (nn.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hard_silu": (nn.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hard_swish": (nn.hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "gelu_exact": (lambda x: nn.gelu(x, approximate=False),
                   lambda x: 0.5 * x * scipy.special.erfc(-x / np.sqrt(2))),
    "gelu_tanh": (nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) *
                                                            (x + 0.044715 * x ** 3)))),
    "sparse_plus": (nn.sparse_plus, lambda x: np.where(x <= -1, 0, np.where(
        x >= 1, x, (x + 1) ** 2 / 4))),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda x: 0.5 * np.clip(x + 1, 0, 2)),
    "squareplus": (nn.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2),
    "tanh": (nn.tanh, np.tanh),
}


@pytest.mark.parametrize("name", sorted(REFS))
def test_activation_vs_float64(name):
    fn, ref = REFS[name]
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref(X64)
    got = fn(jnp.asarray(X))
    assert got.dtype == np.float32 and got.shape == X.shape
    got = np.asarray(got)
    assert np.isfinite(got[np.isfinite(want)]).all(), f"{name}: lost finiteness"
    # mixed tolerance: relative 2e-5 of the value, absolute 1e-6 of the input scale
    tol = 2e-5 * np.abs(want) + 1e-6 * (1 + np.abs(X64))
    bad = ~(np.abs(got - want) <= tol)
    assert not bad.any(), f"{name}: x={X[bad]} got={got[bad]} want={want[bad]}"
    # compiled: tjit's own math functions, held to the same float64 reference
    jitted = np.asarray(tjit.jit(fn)(jnp.asarray(X)))
    bad = ~(np.abs(jitted - want) <= tol)
    assert not bad.any(), f"jit {name}: x={X[bad]} got={jitted[bad]} want={want[bad]}"


def test_stable_functions_at_extremes():
    big = jnp.asarray(np.float32([-1e30, -1e4, 1e4, 1e30]))
    np.testing.assert_array_equal(nn.softplus(big), np.float32([0, 0, 1e4, 1e30]))
    np.testing.assert_array_equal(nn.log_sigmoid(big), np.float32([-1e30, -1e4, 0, 0]))
    np.testing.assert_array_equal(nn.sigmoid(big), np.float32([0, 0, 1, 1]))
    np.testing.assert_array_equal(nn.relu(jnp.array([-2, 0, 3])), [0, 0, 3])
    assert nn.relu(jnp.array([-2, 3])).dtype == np.int32
    # log1mexp: accurate at both ends
    x = np.array([1e-6, 0.1, 1.0, 10.0, 50.0])
    np.testing.assert_allclose(nn.log1mexp(jnp.asarray(x, jnp.float32)),
                               np.where(x < np.log(2), np.log(-np.expm1(-x)),
                                        np.log1p(-np.exp(-x))), rtol=1e-5)


def test_glu():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    want = x[:, :4] * _sigmoid(x[:, 4:].astype(np.float64))
    np.testing.assert_allclose(nn.glu(jnp.asarray(x)), want, rtol=1e-6)
    x2 = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(nn.glu(jnp.asarray(x2), axis=0),
                               x2[:2] * _sigmoid(x2[2:].astype(np.float64)), rtol=1e-6)
    with pytest.raises(ValueError, match=r"glu: the size of axis 1 must be divisible by 2"):
        nn.glu(jnp.zeros((2, 3)))


# -- softmax family ---------------------------------------------------------------------------
def _ref_softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, (0, 2), None])
def test_softmax_and_log_softmax(axis):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 4, 5)) * 3).astype(np.float32)
    ax = tuple(range(3)) if axis is None else axis
    s = np.asarray(nn.softmax(jnp.asarray(x), axis=axis))
    np.testing.assert_allclose(s, _ref_softmax(x, ax), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s.sum(axis=ax), 1.0, rtol=1e-5)
    ls = nn.log_softmax(jnp.asarray(x), axis=axis)
    np.testing.assert_allclose(ls, np.log(_ref_softmax(x, ax)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tjit.jit(lambda v: nn.softmax(v, axis))(jnp.asarray(x)), s,
                               rtol=2e-6, atol=1e-7)


def test_softmax_large_inputs_stay_finite():
    x = np.array([[1e4, 1e4 - 1, -1e4], [-1e30, 0.0, 88.0], [500.0, 500.0, 500.0]],
                 np.float32)
    s = np.asarray(nn.softmax(jnp.asarray(x)))
    assert np.isfinite(s).all()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(s, _ref_softmax(x, -1), rtol=1e-6, atol=1e-30)
    ls = np.asarray(nn.log_softmax(jnp.asarray(x)))
    assert np.isfinite(ls).all()
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(-1, keepdims=True)
    # (logaddexp.reduce, not log(sum(exp)): 1 + e^-88 rounds to 1 even in float64, while
    # log_softmax(-1e30, 0, 88)[2] is -e^-88 = -6.05e-39, a float32 denormal)
    ref = shifted - np.logaddexp.reduce(shifted, axis=-1, keepdims=True)
    np.testing.assert_allclose(ls, ref, rtol=1e-6)
    # +inf gives NaN (inf/inf), as in JAX
    assert np.isnan(np.asarray(nn.softmax(jnp.array([np.inf, 0.0])))).all()


def test_softmax_where():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0]], np.float32)
    mask = np.array([[True, False, True, True], [False, False, False, False]])
    s = np.asarray(nn.softmax(jnp.asarray(x), where=jnp.asarray(mask)))
    ref = _ref_softmax(np.where(mask[:1], x[:1], -np.inf), -1)
    np.testing.assert_allclose(s[0], ref[0], rtol=1e-6)
    np.testing.assert_array_equal(s[1], 0.0)  # a fully masked row is all zeros
    ls = np.asarray(nn.log_softmax(jnp.asarray(x), where=jnp.asarray(mask)))
    assert ls[0, 1] == -np.inf and np.all(ls[1] == -np.inf)
    np.testing.assert_allclose(ls[0, [0, 2, 3]], np.log(ref[0, [0, 2, 3]]), rtol=1e-6)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (1, True),
                                           ((0, 2), False), (-1, True)])
def test_logsumexp_vs_scipy(axis, keepdims):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((2, 3, 4)) * 50).astype(np.float32)
    got = nn.logsumexp(jnp.asarray(a), axis=axis, keepdims=keepdims)
    want = scipy.special.logsumexp(a.astype(np.float64), axis=axis, keepdims=keepdims)
    assert got.shape == np.shape(want) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_logsumexp_b_sign_where_and_extremes():
    a = np.array([[1000.0, 1000.0, -5.0], [-1e4, -1e4, -1e4], [-np.inf, -np.inf, -np.inf]],
                 np.float32)
    got = np.asarray(nn.logsumexp(jnp.asarray(a), axis=1))
    np.testing.assert_allclose(got[:2], [1000 + np.log(2), -1e4 + np.log(3)], rtol=1e-6)
    assert got[2] == -np.inf
    b = np.array([[1.0, -2.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], np.float32)
    x = np.array([[0.0, 0.5, 3.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    out, sign = nn.logsumexp(jnp.asarray(x), axis=1, b=jnp.asarray(b), return_sign=True)
    want, wsign = scipy.special.logsumexp(x.astype(np.float64), axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    np.testing.assert_array_equal(sign, wsign)
    nosign = np.asarray(nn.logsumexp(jnp.asarray(x), axis=1, b=jnp.asarray(b)))
    assert np.isnan(nosign[0]) and np.isfinite(nosign[1:]).all()
    mask = np.array([[True, False, True]] * 3)
    w = nn.logsumexp(jnp.asarray(x), axis=1, where=jnp.asarray(mask))
    np.testing.assert_allclose(w, scipy.special.logsumexp(x[:, [0, 2]].astype(np.float64),
                                                          axis=1), rtol=1e-6)
    lme = nn.logmeanexp(jnp.asarray(x), axis=1)
    np.testing.assert_allclose(lme, scipy.special.logsumexp(x.astype(np.float64), axis=1) -
                               np.log(3), rtol=1e-6)


# -- standardize / one_hot -----------------------------------------------------------------------
def test_standardize():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    for algorithm in ("stable", "fast"):
        got = nn.standardize(jnp.asarray(x), algorithm=algorithm)
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(nn.normalize(jnp.asarray(x), axis=0),
                               (x64 - x64.mean(0)) / np.sqrt(x64.var(0) + 1e-5), rtol=2e-5,
                               atol=2e-5)
    # given statistics are used as is
    got = nn.standardize(jnp.asarray(x), mean=1.0, variance=4.0, epsilon=0.0)
    np.testing.assert_allclose(got, (x64 - 1.0) / 2.0, rtol=1e-6)
    # where: statistics from the unmasked entries only
    mask = np.arange(6) < 4
    got = np.asarray(nn.standardize(jnp.asarray(x), where=jnp.asarray(mask)))
    m, v = x64[:, :4].mean(-1, keepdims=True), x64[:, :4].var(-1, keepdims=True)
    np.testing.assert_allclose(got, (x64 - m) / np.sqrt(v + 1e-5), rtol=2e-5, atol=2e-5)


def test_standardize_large_offset_is_accurate():
    # mean 1e4, std 1: mean(x^2) - mean^2 cancels catastrophically in float32
    rng = np.random.default_rng(4)
    x = (1e4 + rng.standard_normal((2, 1000))).astype(np.float32)
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    got = np.asarray(nn.standardize(jnp.asarray(x)))
    np.testing.assert_allclose(got, want, atol=5e-3)
    np.testing.assert_allclose(got.std(-1), 1.0, rtol=1e-3)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    idx = np.array([[0, 2, 5], [1, -1, 3]])
    got = nn.one_hot(jnp.asarray(idx), 4, axis=axis)
    want = np.moveaxis((idx[..., None] == np.arange(4)).astype(np.float32), -1, axis)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # 5 and -1 (out of range) are all-zero rows
    np.testing.assert_array_equal(tjit.jit(lambda i: nn.one_hot(i, 4, axis=axis))(
        jnp.asarray(idx)), want)
    assert nn.one_hot(jnp.array([1, 0]), 3, dtype=jnp.int32).dtype == np.int32
    with pytest.raises(TypeError, match="one_hot: its num_classes argument needs a concrete"):
        tjit.jit(lambda i, n: nn.one_hot(i, n))(jnp.array([1]), 3)


# -- initializers ------------------------------------------------------------------------------
K = random.PRNGKey(0)


def test_initializers_match_jax():
    np.testing.assert_allclose(init.uniform(10.0)(random.key(42), (2, 3), jnp.float32),
                               [[4.8870954513549805, 6.797971725463867, 6.162714958190918],
                                [5.610160827636719, 4.50644588470459, 5.858658790588379]],
                               rtol=1e-7)
    np.testing.assert_allclose(init.glorot_uniform()(K, (3, 4)), [
        [0.8289182186126709, 0.886157751083374, -0.31053584814071655, -0.05801473930478096],
        [0.12940874695777893, -0.6193680763244629, -0.3514512777328491, 0.35084980726242065],
        [0.45692288875579834, -0.6091626882553101, 0.8987006545066833, -0.8790057897567749]],
        rtol=1e-6)


def test_constant_initializers():
    np.testing.assert_array_equal(init.zeros(K, (2, 3)), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(init.ones(K, (4,), jnp.int32), np.ones(4, np.int32))
    c = init.constant(-7.0)(K, (2, 2))
    np.testing.assert_array_equal(c, np.full((2, 2), -7.0, np.float32))
    assert init.zeros(K, (1,)).dtype == np.float32


VARIANCE_CASES = [
    ("glorot_uniform", init.glorot_uniform(), (300, 200), 2 / 500),
    ("glorot_normal", init.glorot_normal(), (300, 200), 2 / 500),
    ("xavier_uniform", init.xavier_uniform(), (100, 400), 2 / 500),
    ("lecun_normal", init.lecun_normal(), (400, 100), 1 / 400),
    ("lecun_uniform", init.lecun_uniform(), (400, 100), 1 / 400),
    ("he_normal", init.he_normal(), (250, 300), 2 / 250),
    ("kaiming_uniform", init.kaiming_uniform(), (250, 300), 2 / 250),
    # conv kernel HWIO: receptive field 3*3, fan_in = 3*3*16
    ("he_normal_conv", init.he_normal(), (3, 3, 16, 64), 2 / 144),
    ("fan_out_normal", init.variance_scaling(3.0, "fan_out", "normal"), (200, 300), 3 / 300),
    ("fan_geo_avg", init.variance_scaling(1.0, "fan_geo_avg", "uniform"), (100, 400),
     1 / 200),
    ("normal", init.normal(0.5), (300, 300), 0.25),
    ("uniform", init.uniform(2.0), (300, 300), 4 / 12),
]


@pytest.mark.parametrize("name,initializer,shape,variance", VARIANCE_CASES,
                         ids=[c[0] for c in VARIANCE_CASES])
def test_initializer_variances(name, initializer, shape, variance):
    w = initializer(random.PRNGKey(5), shape)
    assert w.shape == shape and w.dtype == np.float32
    w = np.asarray(w, np.float64)
    centered = w - (w.mean() if name == "uniform" else 0.0)
    assert abs(w.mean() - (np.sqrt(variance * 3) if name == "uniform" else 0)) < \
        4 * np.sqrt(variance / w.size) + 1e-3
    assert abs(centered.var() / variance - 1) < 0.05
    if "normal" in name and name not in ("normal", "fan_out_normal"):
        # truncated at 2 std of the untruncated distribution
        assert np.abs(w).max() < 2 * np.sqrt(variance) / 0.87962566103423978
    if "uniform" in name and name != "uniform":
        assert np.abs(w).max() <= np.sqrt(3 * variance)


def test_initializer_dtype_jit_and_errors():
    w = init.he_normal(dtype=jnp.float16)(K, (8, 8))
    assert w.dtype == np.float16
    f = tjit.jit(lambda k: init.glorot_normal()(k, (5, 7)))
    np.testing.assert_array_equal(f(K), init.glorot_normal()(K, (5, 7)))
    check_jaxpr(tjit.make_jaxpr(lambda k: init.lecun_uniform()(k, (3, 3)))(K))
    t = np.asarray(init.truncated_normal(0.1)(K, (1000,)))
    assert np.abs(t).max() < 0.2
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a "
                                         "1-dimensional weights tensor"):
        init.glorot_uniform()(K, (5,))
    with pytest.raises(ValueError, match="invalid mode for variance scaling"):
        init.variance_scaling(1.0, "fan_sideways", "normal")
    with pytest.raises(ValueError, match="invalid distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")


def test_orthogonal_initializer():
    np.testing.assert_allclose(init.orthogonal()(K, (2, 3)), [
        [0.96083664894104, -0.2567500174045563, 0.1042710393667221],
        [0.18604838848114014, 0.31881120800971985, -0.9293790459632874]], atol=2e-6)
    w = np.asarray(init.orthogonal(scale=2.0, column_axis=0)(random.PRNGKey(1), (6, 2, 3)))
    assert w.shape == (6, 2, 3)
    m = np.moveaxis(w, 0, -1).reshape(6, 6)  # rows: the other axes; columns: axis 0
    np.testing.assert_allclose(m.T @ m, 4 * np.eye(6), atol=1e-5)
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D"):
        init.orthogonal()(K, (4,))


@pytest.mark.parametrize("shape", [(3, 3, 3), (3, 3, 2, 4), (2, 3, 3, 3, 3), (4, 2, 2)])
def test_delta_orthogonal_is_an_orthogonal_matrix_at_the_centre_and_zero_elsewhere(shape):
    w = np.asarray(init.delta_orthogonal(scale=1.5)(K, shape), np.float64)
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    m = w[centre]                              # (fan_in, fan_out), rows orthogonal
    np.testing.assert_allclose(m @ m.T, 2.25 * np.eye(shape[-2]), atol=1e-5)
    rest = w.copy()
    rest[centre] = 0
    assert w.shape == shape and not rest.any()
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        init.delta_orthogonal()(K, (3, 3))
    with pytest.raises(ValueError, match="fan_in 4 must be less than or equal"):
        init.delta_orthogonal()(K, (3, 4, 2))
