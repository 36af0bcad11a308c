"""``tjit.example_libraries.optimizers`` against the update formulas written out in NumPy
(float64, several steps, a pytree of parameters), under jit too; schedules against their
closed forms; l2_norm / clip_grads; state (un)packing; the tree-mismatch error."""

import pickle

import numpy as np
import pytest

import tjit
from tjit.example_libraries import optimizers as opt


def _params():
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((3, 4)), "b": (rng.standard_normal(4),
                                                   rng.standard_normal((2, 3, 2)))}


def _grads(step):
    rng = np.random.default_rng(100 + step)
    g = _params()
    return tjit.tree_util.tree_map(lambda a: rng.standard_normal(a.shape), g)


# NumPy versions of each update, on one array: state -> state (state[0] is x)
def np_sgd(lr):
    return (lambda x: (x,), lambda i, g, s: (s[0] - lr * g,))


def np_momentum(lr, mass):
    return (lambda x: (x, 0 * x),
            lambda i, g, s: (s[0] - lr * (mass * s[1] + g), mass * s[1] + g))


def np_nesterov(lr, mass):
    def upd(i, g, s):
        v = mass * s[1] + g
        return s[0] - lr * (mass * v + g), v
    return (lambda x: (x, 0 * x), upd)


def np_adagrad(lr, mom):
    def upd(i, g, s):
        x, gsq, m = s
        gsq = gsq + g ** 2
        m = (1 - mom) * g / np.sqrt(gsq) + mom * m
        return x - lr * m, gsq, m
    return (lambda x: (x, 0 * x, 0 * x), upd)


def np_rmsprop(lr, gamma, eps):
    def upd(i, g, s):
        a = gamma * s[1] + (1 - gamma) * g ** 2
        return s[0] - lr * g / np.sqrt(a + eps), a
    return (lambda x: (x, 0 * x), upd)


def np_rmsprop_momentum(lr, gamma, eps, mom):
    def upd(i, g, s):
        x, a, m = s
        a = gamma * a + (1 - gamma) * g ** 2
        m = mom * m + lr * g / np.sqrt(a + eps)
        return x - m, a, m
    return (lambda x: (x, 0 * x, 0 * x), upd)


def np_adam(lr, b1, b2, eps):
    def upd(i, g, s):
        x, m, v = s
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g ** 2 + b2 * v
        mhat, vhat = m / (1 - b1 ** (i + 1)), v / (1 - b2 ** (i + 1))
        return x - lr * mhat / (np.sqrt(vhat) + eps), m, v
    return (lambda x: (x, 0 * x, 0 * x), upd)


def np_adamax(lr, b1, b2, eps):
    def upd(i, g, s):
        x, m, u = s
        m = (1 - b1) * g + b1 * m
        u = np.maximum(b2 * u, np.abs(g))
        return x - lr / (1 - b1 ** (i + 1)) * m / (u + eps), m, u
    return (lambda x: (x, 0 * x, 0 * x), upd)


def np_sm3(lr, mom):
    """Per element: accumulator = min over axes of that axis's accumulator + g**2; each
    axis accumulator becomes the max of the accumulators over its slice."""
    def init(x):
        x = np.atleast_1d(x)
        return (x, 0 * x, [np.zeros(n) for n in x.shape])

    def upd(i, g, s):
        x, m, vs = s
        acc = np.empty_like(g)
        for idx in np.ndindex(g.shape):
            acc[idx] = min(v[k] for v, k in zip(vs, idx)) + g[idx] ** 2
        m = (1 - mom) * g / np.sqrt(acc) + mom * m
        vs = [np.array([acc.take(k, axis=a).max() for k in range(g.shape[a])])
              for a in range(g.ndim)]
        return x - lr * m, m, vs
    return init, upd


CASES = {
    "sgd": (opt.sgd(0.1), np_sgd(0.1)),
    "momentum": (opt.momentum(0.1, 0.9), np_momentum(0.1, 0.9)),
    "nesterov": (opt.nesterov(0.1, 0.8), np_nesterov(0.1, 0.8)),
    "adagrad": (opt.adagrad(0.1, 0.7), np_adagrad(0.1, 0.7)),
    "rmsprop": (opt.rmsprop(0.1, 0.8, 1e-6), np_rmsprop(0.1, 0.8, 1e-6)),
    "rmsprop_momentum": (opt.rmsprop_momentum(0.1, 0.8, 1e-6, 0.5),
                         np_rmsprop_momentum(0.1, 0.8, 1e-6, 0.5)),
    "adam": (opt.adam(0.1, 0.8, 0.95, 1e-6), np_adam(0.1, 0.8, 0.95, 1e-6)),
    "adamax": (opt.adamax(0.1, 0.8, 0.95, 1e-6), np_adamax(0.1, 0.8, 0.95, 1e-6)),
    "sm3": (opt.sm3(0.1, 0.6), np_sm3(0.1, 0.6)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_updates_match_numpy_formulas(name, jit, x64):
    (init, update, get_params), (np_init, np_update) = CASES[name]
    params = _params()
    state = init(params)
    leaves, tree = tjit.tree_util.tree_flatten(params)
    np_states = [np_init(x) for x in leaves]
    step = tjit.jit(update) if jit else update
    for i in range(4):
        grads = _grads(i)
        state = step(i, grads, state)
        g_leaves = tjit.tree_util.tree_leaves(grads)
        np_states = [np_update(i, g, s) for g, s in zip(g_leaves, np_states)]
    got = get_params(state)
    assert tjit.tree_util.tree_structure(got) == tree
    for a, s in zip(tjit.tree_util.tree_leaves(got), np_states):
        np.testing.assert_allclose(np.asarray(a), s[0].reshape(np.shape(a)), rtol=1e-10,
                                   atol=1e-12)


def test_scalar_parameter_and_schedule_step_size(x64):
    """sm3 keeps a scalar's shape; a schedule is read at each step's index."""
    init, update, get_params = opt.sm3(lambda i: 0.1 / (i + 1))
    state = update(0, np.float64(2.0), init(np.float64(3.0)))
    state = update(1, np.float64(-1.0), state)
    x = get_params(state)
    assert np.shape(x) == ()
    # hand: acc 4, m = 0.1 * 1 = 0.1, x = 3 - 0.1 * 0.1; acc 5, m = .09 - .1/sqrt(5) ...
    m1 = 0.1 * 2 / 2.0
    x1 = 3.0 - 0.1 * m1
    m2 = 0.9 * m1 + 0.1 * (-1.0) / np.sqrt(5.0)
    np.testing.assert_allclose(float(x), x1 - 0.05 * m2, rtol=1e-12)


def test_schedules(x64):
    i = np.arange(0, 30)
    np.testing.assert_allclose(opt.constant(0.3)(7), 0.3)
    np.testing.assert_allclose([float(opt.exponential_decay(0.5, 10, 0.1)(k)) for k in i],
                               0.5 * 0.1 ** (i / 10), rtol=1e-12)
    np.testing.assert_allclose([float(opt.inverse_time_decay(0.5, 10, 2.0)(k)) for k in i],
                               0.5 / (1 + 2.0 * i / 10), rtol=1e-12)
    np.testing.assert_allclose(
        [float(opt.inverse_time_decay(0.5, 10, 2.0, staircase=True)(k)) for k in i],
        0.5 / (1 + 2.0 * np.floor(i / 10)), rtol=1e-12)
    np.testing.assert_allclose(
        [float(opt.polynomial_decay(1.0, 20, 0.1, power=2.0)(k)) for k in i],
        (1 - np.minimum(i, 20) / 20) ** 2 * 0.9 + 0.1, rtol=1e-12)
    pc = opt.piecewise_constant([5, 12], [1.0, 0.5, 0.25])
    np.testing.assert_allclose([float(pc(k)) for k in i],
                               np.where(i <= 5, 1.0, np.where(i <= 12, 0.5, 0.25)))
    assert float(tjit.jit(pc)(6)) == 0.5
    with pytest.raises(ValueError, match="one shorter"):
        opt.piecewise_constant([5, 12], [1.0, 0.5])
    with pytest.raises(TypeError):
        opt.make_schedule(np.ones(3))


def test_l2_norm_and_clip_grads(x64):
    g = _grads(0)
    leaves = [np.asarray(a) for a in tjit.tree_util.tree_leaves(g)]
    norm = np.sqrt(sum((a ** 2).sum() for a in leaves))
    np.testing.assert_allclose(float(opt.l2_norm(g)), norm, rtol=1e-12)
    clipped = opt.clip_grads(g, norm / 2)
    for a, c in zip(leaves, tjit.tree_util.tree_leaves(clipped)):
        np.testing.assert_allclose(np.asarray(c), a / 2, rtol=1e-12)
    same = opt.clip_grads(g, norm * 2)
    for a, c in zip(leaves, tjit.tree_util.tree_leaves(same)):
        np.testing.assert_array_equal(np.asarray(c), a)


def test_pack_unpack_roundtrip_and_pickle():
    init, update, get_params = opt.adam(0.01)
    state = update(0, _grads(0), init(_params()))
    marked = opt.unpack_optimizer_state(tjit.tree_util.tree_map(np.asarray, state))
    assert all(isinstance(j, opt.JoinPoint) for j in tjit.tree_util.tree_leaves(
        marked, is_leaf=lambda x: isinstance(x, opt.JoinPoint)))
    restored = opt.pack_optimizer_state(pickle.loads(pickle.dumps(marked)))
    s2 = update(1, _grads(1), restored)
    s1 = update(1, _grads(1), state)
    for a, b in zip(tjit.tree_util.tree_leaves(get_params(s1)),
                    tjit.tree_util.tree_leaves(get_params(s2))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_optimizer_state_is_a_pytree_jit_returns():
    init, update, _ = opt.momentum(0.1, 0.9)
    state = init(_params())
    leaves = tjit.tree_util.tree_leaves(state)
    assert len(leaves) == 2 * 3   # (x, velocity) per parameter leaf
    out = tjit.jit(update)(0, _grads(0), state)
    assert isinstance(out, opt.OptimizerState)
    assert out.tree_def == state.tree_def


def test_mismatched_gradient_tree_is_named():
    init, update, _ = opt.sgd(0.1)
    state = init(_params())
    with pytest.raises(TypeError, match="did not match the parameter tree structure"):
        update(0, {"w": np.ones((3, 4))}, state)
