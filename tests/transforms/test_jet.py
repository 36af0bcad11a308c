"""``tjit.experimental.jet`` (Taylor-mode AD) against independent references.

References: closed-form Taylor series (exp, sin, a composition by Faa di Bruno's
formula), repeated directional derivatives by nested ``jvp`` in float64 (a different
set of rules: each primitive's jvp), a Python loop for vmap, and numbers from JAX
0.10.2's ``jax.experimental.jet`` (hard-coded, with how they were produced; compared
live too when jax is importable).
"""

import gc
import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.core import Primitive
from tjit.experimental.jet import fact, jet, jet2, jet_rules, zero_series, zero_term
from tjit.experimental._jet_trace import no_rule


@pytest.fixture
def x64():
    with tjit.enable_x64(True):
        yield


def by_nested_jvp(f, primals, series):
    """The factorial-scaled series of ``f`` along ``h(t) = x + sum_k t^k h_k / k!``: the
    k-th derivative of ``f(h(t))`` at ``t = 0`` by k nested jvps."""
    order = len(series[0])

    def along(t):
        return f(*[p + sum(t ** (k + 1) * s[k] / math.factorial(k + 1) for k in range(order))
                   for p, s in zip(primals, series)])
    derivs, d = [], along
    for _ in range(order):
        d = (lambda g: lambda t: tjit.jvp(g, (t,), (jnp.ones_like(t),))[1])(d)
        derivs.append(d(jnp.asarray(0.0)))
    return along(jnp.asarray(0.0)), derivs


def assert_series(got, want, rtol=1e-10, atol=1e-10):
    (y, ys), (wy, wys) = got, want
    np.testing.assert_allclose(np.asarray(y), np.asarray(wy), rtol=rtol, atol=atol)
    assert len(ys) == len(wys)
    for k, (a, b) in enumerate(zip(ys, wys)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol,
                                   err_msg=f"term {k + 1}")


def random_point(n, lims, shape=(2, 3), order=4, seed=0):
    rng = np.random.RandomState(seed)
    primals = tuple(rng.uniform(*lims, size=shape) for _ in range(n))
    series = tuple([rng.randn(*shape) for _ in range(order)] for _ in range(n))
    return primals, series


# -- closed forms ---------------------------------------------------------------------------
def test_exp_series_is_exp_times_bell_numbers_of_a_line(x64):
    # f = exp(x + t): every derivative is e^x; along x + t + t^2/2 (h1 = h2 = 1) the
    # derivatives are e^x times 1, 2, 4 (d/dt: u' = 1 + t, u'' = 1: e^u (u'^2 + u''), ...)
    x = np.array([-0.5, 0.0, 1.25])
    y, terms = jet(jnp.exp, (x,), ([np.ones(3), np.zeros(3), np.zeros(3)],))
    for t in [y] + terms:
        np.testing.assert_allclose(t, np.exp(x), rtol=1e-14)
    _, terms = jet(jnp.exp, (x,), ([np.ones(3), np.ones(3), np.zeros(3)],))
    np.testing.assert_allclose(terms, [np.exp(x), 2 * np.exp(x), 4 * np.exp(x)], rtol=1e-14)


def test_sin_derivatives_cycle(x64):
    x = np.array([0.2, 1.0, -2.5])
    y, terms = jet(jnp.sin, (x,), ([np.ones(3)] + [np.zeros(3)] * 4,))
    want = [np.cos(x), -np.sin(x), -np.cos(x), np.sin(x), np.cos(x)]
    np.testing.assert_allclose(y, np.sin(x), rtol=1e-14)
    np.testing.assert_allclose(terms, want, rtol=1e-13, atol=1e-15)


def test_composition_by_faa_di_bruno(x64):
    # h(z) = z^3 at z = 0.5: h0, h1, h2, h3 = z^3, 3z^2, 6z, 6; f = sin
    z = 0.5
    h = [z ** 3, 3 * z ** 2, 6 * z, 6.0]
    s, c = np.sin(h[0]), np.cos(h[0])
    want = [c * h[1], -s * h[1] ** 2 + c * h[2],
            -c * h[1] ** 3 - 3 * s * h[1] * h[2] + c * h[3]]
    y, terms = jet(jnp.sin, (h[0],), (h[1:],))
    np.testing.assert_allclose(y, s, rtol=1e-14)
    np.testing.assert_allclose(terms, want, rtol=1e-13)
    # the same from the composition itself: series of z along z + t
    y, terms = jet(lambda v: jnp.sin(v ** 3), (z,), ([1.0, 0.0, 0.0],))
    np.testing.assert_allclose(terms, want, rtol=1e-13)


def test_unscaled_coefficients_are_derivatives_over_factorials(x64):
    x = np.array([0.3, 1.1])
    scaled = [np.ones(2), 0.5 * np.ones(2), -np.ones(2)]
    unscaled = [t / math.factorial(k) for k, t in enumerate(scaled, 1)]
    _, a = jet(jnp.tanh, (x,), (scaled,))
    _, b = jet2(jnp.tanh, (x,), (unscaled,))
    _, c = jet(jnp.tanh, (x,), (unscaled,), factorial_scaled=False)
    np.testing.assert_allclose([t / math.factorial(k) for k, t in enumerate(a, 1)], b,
                               rtol=1e-13)
    np.testing.assert_allclose(b, c, rtol=0)
    np.testing.assert_allclose(fact(np.array([0.0, 3.0, 5.0])), [1.0, 6.0, 120.0], rtol=1e-5)


# -- every rule against nested jvp in float64 --------------------------------------------------
UNARY = {
    "exp": (jnp.exp, (-2, 2)), "expm1": (jnp.expm1, (-2, 2)), "exp2": (jnp.exp2, (-2, 2)),
    "log": (jnp.log, (0.5, 3)), "log1p": (jnp.log1p, (0, 3)), "sqrt": (jnp.sqrt, (0.5, 3)),
    "rsqrt": (lax.rsqrt, (0.5, 3)), "cbrt": (jnp.cbrt, (-2, -0.5)),
    "sin": (jnp.sin, (-2, 2)), "cos": (jnp.cos, (-2, 2)), "tan": (jnp.tan, (-1, 1)),
    "tanh": (jnp.tanh, (-2, 2)), "sinh": (jnp.sinh, (-2, 2)), "cosh": (jnp.cosh, (-2, 2)),
    "logistic": (lax.logistic, (-3, 3)), "erf": (lax.erf, (-2, 2)),
    "erfc": (lax.erfc, (-2, 2)), "erf_inv": (lax.erf_inv, (-0.9, 0.9)),
    "atan": (jnp.arctan, (-2, 2)), "asin": (jnp.arcsin, (-0.9, 0.9)),
    "acos": (jnp.arccos, (-0.9, 0.9)), "asinh": (jnp.arcsinh, (-2, 2)),
    "acosh": (jnp.arccosh, (1.2, 3)), "atanh": (jnp.arctanh, (-0.9, 0.9)),
    "lgamma": (lax.lgamma, (0.5, 3)), "digamma": (lax.digamma, (0.5, 3)),
    "ndtri": (tjit.scipy.special.ndtri, (0.1, 0.9)),
    "abs": (jnp.abs, (-2, 2)), "sign_floor": (lambda x: jnp.sign(x) * x + jnp.floor(x), (-2, 2)),
    "integer_pow": (lambda x: lax.integer_pow(x, 5) + lax.integer_pow(x, -2), (0.5, 2)),
    "pow_const": (lambda x: x ** 2.5 + x ** -1.5, (0.5, 2)),
    "pow_int_valued_negative_base": (lambda x: x ** 3.0, (-2, -0.5)),
    "const_pow": (lambda y: 2.0 ** y, (-2, 2)),
    "clip": (lambda x: jnp.clip(x, -1, 1), (-2, 2)),
    "sum_of_squares": (lambda x: jnp.sum(x ** 2, axis=1), (-2, 2)),
    "reduce_max": (lambda x: jnp.max(x, axis=1), (-2, 2)),
    "reduce_min": (jnp.min, (-2, 2)),
    "prod": (lambda x: jnp.prod(x, axis=0) + jnp.prod(x), (-2, 2)),
    "cumsum_cumprod": (lambda x: jnp.cumsum(x ** 2, 1) * jnp.cumprod(x, 1), (-2, 2)),
    "cummax": (lambda x: lax.cummax(jnp.sin(x), axis=0), (-2, 2)),
    "structural": (lambda x: jnp.concatenate([x, x ** 2]).reshape(3, 4).T[1:, ::-1][None]
                   .squeeze(0), (-2, 2)),
    "pad_broadcast": (lambda x: jnp.pad(x ** 2, 1).sum() + jnp.broadcast_to(x, (4, 2, 3)) * x,
                      (-2, 2)),
    "gather_scatter": (lambda x: x[jnp.array([1, 0])] ** 2 + x.at[0].set(x[1] ** 2)
                       + x.at[jnp.array([0, 0])].add(x ** 3)[0], (-2, 2)),
    "dynamic_slices": (lambda x: lax.dynamic_update_slice(x, lax.dynamic_slice(
        x ** 2, (1, 1), (1, 2)), (0, 0)), (-2, 2)),
    "argmax_picks": (lambda x: x[jnp.argmax(x, 0), jnp.arange(3)] ** 3, (-2, 2)),
    "sort_top_k": (lambda x: jnp.sort(x ** 3, axis=1) + lax.top_k(jnp.sin(x), 3)[0], (-2, 2)),
    "nn": (lambda x: tjit.nn.softplus(x) * tjit.nn.gelu(x) + tjit.nn.softmax(x, axis=1)
           + tjit.nn.relu(x), (-2, 2)),
    "norm": (lambda x: jnp.linalg.norm(x, axis=1), (0.5, 2)),
    "stop_gradient": (lambda x: lax.stop_gradient(x) * x, (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_nested_jvp(name, x64):
    f, lims = UNARY[name]
    primals, series = random_point(1, lims)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


BINARY = {
    "mul_add_sub": (lambda x, y: x * y + y - 2 * x, (-2, 2)),
    "div": (lambda x, y: x / y, (0.5, 2)),
    "pow": (lambda x, y: x ** y, (0.5, 2)),
    "max_min": (lambda x, y: jnp.maximum(x, y) * jnp.minimum(x, 0.5 * y), (-2, 2)),
    "atan2": (jnp.arctan2, (-2, 2)),
    "rem": (lax.rem, (0.5, 3)),
    "where": (lambda x, y: jnp.where(x > y, x, y * y), (-2, 2)),
    "dot": (lambda x, y: jnp.dot(x, y.T) + jnp.einsum("ij,kj->ik", jnp.sin(x), y), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_nested_jvp(name, x64):
    f, lims = BINARY[name]
    primals, series = random_point(2, lims, seed=1)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


SIGNAL = {
    "conv": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"), (1, 1, 4, 4)),
    "fft_complex_abs": (lambda x, y: jnp.abs(jnp.fft.fft(x * y)) ** 2
                        + jnp.fft.irfft(jnp.fft.rfft(x ** 3)), (2, 8)),
    "avg_pool": (lambda x, y: lax.reduce_window(x * y, 0.0, lax.add, (2, 2), (1, 1), "VALID"),
                 (3, 4)),
    "max_pool_same": (lambda x, y: lax.reduce_window(x * y, -jnp.inf, lax.max, (2, 2),
                                                     (1, 2), "SAME"), (4, 5)),
    "min_pool_dilated": (lambda x, y: lax.reduce_window(
        jnp.sin(x) + y, jnp.inf, lax.min, (2, 2), (1, 1), ((1, 0), (0, 1)),
        window_dilation=(2, 1)), (4, 5)),
    "complex_parts": (lambda x, y: jnp.real(jnp.exp(1j * x[::-1])) + jnp.imag(
        lax.complex(x, y ** 2)), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(SIGNAL))
def test_convolution_fft_and_windows(name, x64):
    f, shape = SIGNAL[name]
    primals, series = random_point(2, (-1, 1), shape=shape, order=3, seed=5)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a,unit_diagonal", [(False, False), (True, True)])
def test_triangular_solve_in_both_operands(left_side, lower, transpose_a, unit_diagonal, x64):
    def f(a, b):
        return lax.linalg.triangular_solve(a + 3 * jnp.eye(3), b, left_side=left_side,
                                           lower=lower, transpose_a=transpose_a,
                                           unit_diagonal=unit_diagonal)
    primals, series = random_point(2, (0, 1), shape=(2, 3, 3), order=3, seed=3)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


FACTORIZATIONS = {
    "eigh": lambda a, b: jnp.linalg.eigh(a + a.T + jnp.diag(jnp.arange(3.0) * 3))[1] @ b,
    "eigvalsh_upper_triangle": lambda a, b: jnp.linalg.eigvalsh(
        a + jnp.diag(jnp.arange(3.0) * 3), UPLO="U") * b[0],
    "cholesky": lambda a, b: jnp.linalg.cholesky(a @ a.T + 3 * jnp.eye(3)) @ b,
    "cholesky_lower_triangle": lambda a, b: lax.linalg.cholesky(a + 4 * jnp.eye(3),
                                                                symmetrize_input=False),
    "solve": lambda a, b: jnp.linalg.solve(a + 3 * jnp.eye(3), b),
    "inv_det": lambda a, b: jnp.linalg.inv(a + 3 * jnp.eye(3)) * jnp.linalg.det(b),
    "slogdet_lu": lambda a, b: jnp.linalg.slogdet(a)[1] + lax.linalg.lu(b)[0].sum(),
}


@pytest.mark.parametrize("name", sorted(FACTORIZATIONS))
def test_factorizations(name, x64):
    f = FACTORIZATIONS[name]
    primals, series = random_point(2, (-1, 1), shape=(3, 3), order=3, seed=4)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


def test_complex_eigh_vectors_follow_the_jvp_phase_convention(x64):
    rng = np.random.RandomState(3)
    m = rng.randn(3, 3) + 1j * rng.randn(3, 3)
    primals = (m + m.conj().T + np.diag([0.0, 3.0, 6.0]),)
    series = ([(lambda q: q + q.conj().T)(rng.randn(3, 3) + 1j * rng.randn(3, 3))
               for _ in range(3)],)
    for part in (0, 1):
        def f(a):
            return jnp.linalg.eigh(a)[part]
        assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


def test_atan2_on_the_y_axis(x64):
    # y_0 = 0 (x / y is infinite there; atan2 is smooth)
    primals = (np.array([1.0, -1.0, 2.0]), np.zeros(3))
    series = ([np.ones(3), np.ones(3), np.zeros(3)], [np.ones(3), np.zeros(3), np.ones(3)])
    assert_series(jet(jnp.arctan2, primals, series),
                  by_nested_jvp(jnp.arctan2, primals, series), rtol=1e-12)


def test_complex_holomorphic_functions(x64):
    z = (np.array([0.3 + 0.2j, -1.0 + 0.5j]),)
    s = ([np.array([1 + 1j, 0.5]), np.array([0.2j, 1.0]), np.array([1.0, -1j])],)
    for f in (jnp.exp, jnp.log, lambda v: v * v / (1 + v) + jnp.sqrt(v),
              tjit.scipy.special.wofz):
        assert_series(jet(f, z, s), by_nested_jvp(f, z, s), rtol=1e-9)


CONTROL_FLOW = {
    "cond": lambda x, y: lax.cond(x.sum() > 0, jnp.sin, lambda a: a ** 3 * y, x),
    "cond_other_branch": lambda x, y: lax.cond(x.sum() > 100, jnp.sin, lambda a: a * y, x),
    "scan_carry": lambda x, y: lax.scan(lambda c, a: (c * a + jnp.sin(c), c ** 2), x,
                                        jnp.stack([y, x, y]))[0],
    "scan_ys_reverse": lambda x, y: lax.scan(lambda c, a: (c * a, jnp.exp(c) * y), x,
                                             jnp.stack([y, x]), reverse=True)[1],
    "fori": lambda x, y: lax.fori_loop(0, 3, lambda i, c: c * x + i * y, x),
    "while_int_counter": lambda x, y: lax.while_loop(
        lambda c: c[0] < 4, lambda c: (c[0] + 1, jnp.sin(c[1]) * x + y), (0, x))[1],
    "jit_inside": lambda x, y: tjit.jit(lambda a: jnp.cumprod(a, 0) * y)(x),
    "closure_in_jit": lambda x, y: tjit.jit(lambda a: x * a)(y),
    "grad_inside": lambda x, y: tjit.grad(lambda a: jnp.sum(jnp.sin(a * y) ** 3))(x),
}


@pytest.mark.parametrize("name", sorted(CONTROL_FLOW))
def test_control_flow_and_nested_transforms(name, x64):
    f = CONTROL_FLOW[name]
    primals, series = random_point(2, (-1, 1), order=3, seed=2)
    assert_series(jet(f, primals, series), by_nested_jvp(f, primals, series), rtol=1e-9)


# -- side by side with JAX's jet ----------------------------------------------------------------
# Produced with /work/jaxvenv/bin/python (JAX 0.10.2, jax_enable_x64) by
# jax.experimental.jet.jet(f, (X,), (S,)) for each f below.
X = np.array([0.3, -0.8, 1.5])
S = [np.array([1.0, 0.5, -2.0]), np.array([0.25, -1.0, 0.5]), np.array([-0.5, 2.0, 1.0])]
JAX_FUNCTIONS = {
    "tanh_gauss": lambda x, np_=jnp: np_.tanh(x) * np_.exp(-x ** 2),
    "sin_cubed": lambda x, np_=jnp: np_.sin(x ** 3),
    "max_sqrt": lambda x, np_=jnp: np_.maximum(x, 0.2) * np_.sqrt(2.0 + x),
}
JAX_NUMBERS = {
    "tanh_gauss": ([0.2662396811823403, -0.35014155824825094, 0.09540192404769464],
                   [[0.6766283994983178, -0.13272046931493678, 0.5343188650547012],
                    [-1.7584141730235174, 0.550123787917233, 1.9426439179621082],
                    [-5.3677459516678345, -1.6774867408147633, -1.0819757391301408]]),
    "sin_cubed": ([0.02699671961957215, -0.48992175838037166, -0.23129381240202182],
                  [[0.2699015909785659, 0.8368957519818768, 13.133933270722526],
                   [1.8648512767414789, -2.2683993014177486, 3.8459919373277573],
                   [7.1518572034277, 5.1046018768982595, -2696.101360740934]]),
    "max_sqrt": ([0.45497252664309296, 0.21908902300206645, 2.806243040080456],
                 [[1.615482159819678, 0.04564354645876384, -4.543441112511214],
                  [1.041749476174756, -0.10079616509643682, 3.0448691489308324],
                  [-0.530324507867967, 0.2455717890203285, 1.5599329629990464]]),
}


@pytest.mark.parametrize("name", sorted(JAX_NUMBERS))
def test_matches_jax_jet(name, x64):
    got = jet(JAX_FUNCTIONS[name], (X,), (S,))
    assert_series(got, JAX_NUMBERS[name], rtol=1e-12)


def test_matches_jax_jet_live_when_jax_is_importable():
    jax = pytest.importorskip("jax")
    from jax.experimental.jet import jet as jax_jet
    x, s = X.astype(np.float32), [t.astype(np.float32) for t in S]
    for name, f in JAX_FUNCTIONS.items():
        want = jax_jet(lambda v: f(v, jax.numpy), (x,), (s,))
        got = jet(f, (x,), (s,))
        assert_series(got, (np.asarray(want[0]), [np.asarray(t) for t in want[1]]),
                      rtol=2e-5, atol=1e-5)


# -- composition with jit, vmap, grad; the API's structures ------------------------------------
def f_mixed(x):
    return jnp.sin(x) * jnp.exp(-x) + lax.fori_loop(0, 2, lambda i, c: c * x, x)


def test_jit_of_jet_compiles_and_agrees():
    x = jnp.array([0.3, -0.7, 1.1])
    s = [jnp.ones(3), jnp.array([0.5, 0.0, -1.0])]
    want = jet(f_mixed, (x,), (s,))
    got = tjit.jit(lambda x, s: jet(f_mixed, (x,), (s,)))(x, s)
    assert_series(got, want, rtol=1e-6, atol=1e-6)
    jaxpr = tjit.make_jaxpr(lambda x, s: jet(f_mixed, (x,), (s,)))(x, s)
    assert "jet" not in str(jaxpr) and len(jaxpr.jaxpr.outvars) == 3


def test_jet_of_jit_is_served_by_one_compiled_function():
    g = tjit.jit(f_mixed)
    x = jnp.array([0.3, -0.7, 1.1])
    s = [jnp.ones(3), jnp.array([0.5, 0.0, -1.0])]
    assert_series(jet(g, (x,), (s,)), jet(f_mixed, (x,), (s,)), rtol=1e-6, atol=1e-6)
    assert ("jet", 2, True) in g._transformed


def test_vmap_of_jet_matches_a_loop():
    xs = np.linspace(-1.0, 1.0, 4).astype(np.float32)

    def third(x):
        return jet(f_mixed, (x,), ([jnp.ones_like(x), 0.0 * x, 0.0 * x],))[1][2]
    np.testing.assert_allclose(tjit.vmap(third)(xs), [third(x) for x in xs], rtol=1e-5)


def test_vmap_over_directions_with_an_unbatched_point():
    # batched terms, unbatched primal: the loop's and the determinant's rules see both
    x = jnp.array([0.3, 0.6])

    def f(v):
        return (lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * v, v).sum()
                + jnp.linalg.det(jnp.outer(v, v) + jnp.eye(2)))

    def second(u):
        return jet(f, (x,), ([u, 0 * u],))[1][1]
    us = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    want = [second(u) for u in us]
    np.testing.assert_allclose(tjit.vmap(second)(us), want, rtol=1e-5)
    np.testing.assert_allclose(tjit.jit(tjit.vmap(second))(us), want, rtol=1e-5)


def test_grad_of_jet_term_vs_closed_form(x64):
    # the 3rd term of exp along x + t is e^x; its gradient is e^x again
    g = tjit.grad(lambda x: jet(jnp.exp, (x,), ([1.0, 0.0, 0.0],))[1][2])
    np.testing.assert_allclose(g(0.7), np.exp(0.7), rtol=1e-14)


def test_grad_through_jet_of_loops_cond_det_and_pooling_vs_finite_differences(x64):
    def f(v):
        return (lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * v, v).sum()
                + lax.cond(v[0] > 0, jnp.exp, jnp.cos, v).sum()
                + jnp.linalg.det(jnp.outer(v, v) + jnp.eye(2))
                + lax.reduce_window(v, -jnp.inf, lax.max, (2,), (1,), "VALID").sum())

    def third(x):
        return jet(f, (x,), ([jnp.ones_like(x), 0 * x, 0 * x],))[1][2]
    x, eps = np.array([0.3, 0.6]), 1e-5
    fd = [(third(x + eps * e) - third(x - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(tjit.grad(third)(x), fd, rtol=1e-7)
    np.testing.assert_allclose(tjit.jit(tjit.grad(third))(x), fd, rtol=1e-7)


def test_jet_of_jet_and_jvp_mixtures(x64):
    x = 0.7
    inner = lambda v: jet(jnp.sin, (v,), ([1.0, 0.0],))[1][1]   # -sin(v)
    y, terms = jet(inner, (x,), ([1.0, 0.0],))
    np.testing.assert_allclose([y] + terms, [-np.sin(x), -np.cos(x), np.sin(x)], rtol=1e-14)
    _, t = tjit.jvp(lambda v: jet(jnp.sin, (v,), ([1.0],))[1][0], (x,), (1.0,))
    np.testing.assert_allclose(t, -np.sin(x), rtol=1e-14)
    _, terms = jet(lambda v: tjit.jvp(jnp.sin, (v,), (1.0,))[1], (x,), ([1.0],))
    np.testing.assert_allclose(terms, [-np.sin(x)], rtol=1e-14)


def test_pytrees_in_and_out(x64):
    a, b = np.array([0.5, -1.0]), np.array([2.0, 0.25])
    primals = ({"a": a, "b": [b]},)
    series = ([{"a": np.ones(2), "b": [np.zeros(2)]}, {"a": np.zeros(2), "b": [np.ones(2)]}],)
    out, terms = jet(lambda d: {"p": d["a"] * d["b"][0], "s": jnp.sin(d["a"])}, primals, series)
    np.testing.assert_allclose(out["p"], a * b)
    # p(t) = (a + t)(b + t^2/2): p' = b, p'' = 2 * 1 * 0 + a * 1 + 2 (cross term 1 * 1 * 0)
    np.testing.assert_allclose(terms["p"], [b, a], rtol=1e-14)
    np.testing.assert_allclose(terms["s"], [np.cos(a), -np.sin(a)], rtol=1e-14)


def test_constant_and_integer_outputs_get_zero_terms():
    x = jnp.ones(2)
    s = [jnp.ones(2)] * 3
    y, terms = jet(lambda v: jnp.full_like(v, 2.0), (x,), (s,))
    assert terms is not zero_series and len(terms) == 3
    np.testing.assert_array_equal(terms, np.zeros((3, 2)))
    (i, b), (ti, tb) = jet(lambda v: (jnp.argmax(v), v > 0), (x,), (s,))
    assert ti[0].dtype == i.dtype and not np.any(ti) and not np.any(tb)
    # an integer input's terms carry no derivative
    y, terms = jet(lambda n, v: v * n, (jnp.array(3), x), ([jnp.array(1)] * 3, s))
    np.testing.assert_array_equal(terms, [[3.0, 3.0]] * 3)   # (n's terms ignored)


def test_zero_term_inputs_and_python_branches_on_concrete_primals(x64):
    x = np.array([0.5, 1.0])
    y, terms = jet(lambda v: v, (x,), ([zero_term, np.ones(2)],))
    np.testing.assert_array_equal(terms, [[0.0, 0.0], [1.0, 1.0]])
    # exp along x + t^2/2: second derivative e^x, first 0
    _, terms = jet(jnp.exp, (x,), ([zero_term, np.ones(2)],))
    np.testing.assert_allclose(terms, [np.zeros(2), np.exp(x)], rtol=1e-14)
    # as under jvp, a concrete primal can steer Python control flow
    _, terms = jet(lambda v: jnp.sin(v) if v.sum() > 0 else v, (x,), ([np.ones(2)],))
    np.testing.assert_allclose(terms, [np.cos(x)], rtol=1e-14)


@pytest.mark.parametrize("convert", [float, complex])
def test_float_and_complex_of_a_series_refuse_as_jax(x64, convert):
    # the Python number would carry no series: what follows would be a constant
    with pytest.raises(tjit.errors.ConcretizationTypeError, match="no derivative"):
        jet(lambda v: v * convert(v).real, (1.5,), ((1.0,),))
    with pytest.raises(tjit.errors.ConcretizationTypeError, match="no derivative"):
        tjit.jvp(lambda v: jet(lambda u: u * convert(u).real, (v,), ((1.0,),))[1][0],
                 (1.5,), (1.0,))


@pytest.mark.parametrize("convert", [bool, int, lambda v: v.item()])
def test_concrete_primals_convert_through_nested_jvp_and_jet(x64, convert):
    # each Python conversion of a value whose innermost primal is concrete, whatever
    # nests it (jet of jvp, jvp of jet, jet of jet); under jit it still refuses
    def f(v):   # the branch is taken at v = 1.5: 3 v^2, derivative 6 v
        return 3.0 * v * v if convert(v) != 0 else jnp.sin(v)
    x = 1.5
    _, (d1,) = jet(lambda v: tjit.jvp(f, (v,), (1.0,))[1], (x,), ((1.0,),))
    assert float(d1) == 6.0                      # d/dx of f'(x) = 6 x
    _, d = tjit.jvp(lambda v: jet(f, (v,), ((1.0, 0.0),))[1][1], (x,), (1.0,))
    assert float(d) == 0.0                       # f''(x) = 6, constant in x
    _, (inner,) = jet(lambda v: jet(f, (v,), ((1.0,),))[1][0], (x,), ((1.0,),))
    assert float(inner) == 6.0
    with pytest.raises(tjit.errors.ConcretizationTypeError):
        tjit.jit(lambda v: jet(f, (v,), ((1.0,),)))(x)

def test_custom_jvp_and_custom_vjp_expand_their_primal_function(x64):
    @tjit.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), 100.0 * t[0]))   # a deliberately wrong rule

    @tjit.custom_vjp
    def g(x):
        return jnp.exp(x)
    g.defvjp(lambda x: (g(x), x), lambda r, c: (c,))
    x = np.array([0.3, -0.4])
    one = [np.ones(2), np.zeros(2), np.zeros(2)]
    assert_series(jet(f, (x,), (one,)), jet(jnp.sin, (x,), (one,)), rtol=0)
    assert_series(jet(g, (x,), (one,)), (np.exp(x), [np.exp(x)] * 3), rtol=1e-14)


# -- errors ------------------------------------------------------------------------------------
def test_errors_name_the_problem():
    x = jnp.ones(3)
    with pytest.raises(ValueError, match="inconsistent lengths"):
        jet(lambda a, b: a * b, (x, x), ([x], [x, x]))
    with pytest.raises(ValueError, match=r"term 0 of input 0 has shape \(2,\).*\(3,\)"):
        jet(jnp.sin, (x,), ([jnp.ones(2)],))
    with pytest.raises(ValueError, match="1 primals but 2 series"):
        jet(jnp.sin, (x,), ([x], [x]))
    with pytest.raises(TypeError, match="must be tuples or lists"):
        jet(jnp.sin, x, [x])
    with pytest.raises(NotImplementedError, match="'svd'.*matrix decompositions"):
        jet(lambda v: jnp.linalg.svd(jnp.outer(v, v))[1], (x,), ([x],))


def test_a_user_primitive_gets_its_rule_from_jet_rules():
    from tjit.extend.core import Primitive as UserPrimitive
    cube_p = UserPrimitive("test_jet_cube")
    cube_p.def_impl(lambda x: np.asarray(x) ** 3)
    cube_p.def_abstract_eval(lambda x: x)
    bare_p = UserPrimitive("test_jet_bare")
    bare_p.def_impl(lambda x: np.asarray(x))
    bare_p.def_abstract_eval(lambda x: x)

    def cube_rule(primals, series):   # first order only, enough for K = 1
        (x,), ((t,),) = primals, series
        return cube_p.bind(x), [3 * x ** 2 * t]
    jet_rules[cube_p] = cube_rule
    try:
        x = jnp.array([2.0])
        y, (t,) = jet(lambda v: cube_p.bind(v) + 1, (x,), ([jnp.array([1.0])],))
        np.testing.assert_allclose([y, t], [[9.0], [12.0]])
        _, (t,) = tjit.jit(lambda v: jet(cube_p.bind, (v,), ([v],)))(x)
        np.testing.assert_allclose(t, [24.0])
        with pytest.raises(NotImplementedError, match="'test_jet_bare'.*jet_rules"):
            jet(bare_p.bind, (x,), ([x],))
    finally:
        del jet_rules[cube_p]


def _all_objects():
    """Every object the collector tracks, those frozen too: tests/conftest.py freezes
    what collection built (the primitives among it), which ``gc.get_objects()`` leaves
    out. Frozen again afterwards, garbage collected first."""
    gc.unfreeze()
    try:
        return gc.get_objects()
    finally:
        gc.collect()
        gc.freeze()


def test_every_differentiable_primitive_has_a_rule_or_says_why_not():
    """A primitive with a jvp rule and floating results must have a jet rule or an entry
    in ``no_rule`` (integer/boolean-valued ones need neither: listed here)."""
    integer_valued = {"and", "or", "xor", "not", "eq", "ne", "lt", "le", "gt", "ge",
                      "argmax", "argmin", "is_finite", "population_count", "shift_left",
                      "shift_right_arithmetic", "shift_right_logical", "iota",
                      "reduce_and", "reduce_or", "reduce_xor", "axis_index",
                      "lu_pivots_to_permutation", "bitcast_convert_type", "check",
                      "debug_callback", "threefry2x32"}
    # tjit's own primitives: user-defined ones (tjit.extend.core.Primitive, which other
    # tests of the same session create with jvp rules) bring their jet rules themselves
    from tjit.extend.core import Primitive as UserPrimitive
    prims = {o for o in _all_objects()
             if isinstance(o, Primitive) and not isinstance(o, UserPrimitive)}
    assert len(prims) > 100, f"found only {len(prims)} primitives: the search is broken"
    missing = sorted(p.name for p in prims if p.jvp is not None and p not in jet_rules
                     and p.name not in no_rule and p.name not in integer_valued)
    assert not missing, f"primitives without a jet rule or a reason in no_rule: {missing}"


def test_fma_series_is_the_product_series_plus_c(x64):
    """fma(a(t), b(t), c(t)) for polynomial paths: its Taylor coefficients are those of
    the polynomial a(t) b(t) + c(t), computed here with NumPy's polynomial product."""
    from tjit.primitives.fma import fma_p
    a = [1.5, 0.25, -2.0, 0.5]          # a(t) = 1.5 + 0.25 t - 2 t^2 + 0.5 t^3 (unscaled)
    b = [-0.75, 3.0, 1.0, 0.125]
    c = [2.0, -1.0, 0.5, 4.0]
    want = np.polynomial.polynomial.polymul(a, b)[:4] + np.array(c)
    # jet takes derivative coefficients (k! times the unscaled ones)
    scaled = lambda p: [np.float64(p[k] * math.factorial(k)) for k in range(1, 4)]  # noqa: E731
    out, terms = jet(lambda x, y, z: fma_p.bind(x, y, z), (np.float64(a[0]), np.float64(b[0]),
                     np.float64(c[0])), (scaled(a), scaled(b), scaled(c)))
    assert float(out) == want[0]
    got = [float(t) / math.factorial(k) for k, t in enumerate(terms, start=1)]
    np.testing.assert_allclose(got, want[1:], rtol=1e-15)
