"""jnp.vectorize, jnp.apply_along_axis and jnp.apply_over_axes against NumPy's
np.vectorize / np.apply_along_axis / np.apply_over_axes (Python loops over the same
function written with NumPy), eagerly, under jit, under grad (vs finite differences)
and vmap, and with symbolic shapes."""

import functools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ShapeError
from tests.transforms.check import check_grads, check_vmap


def _cross(xp):
    def f(a, b):
        return xp.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]])
    return f


def _normalize(xp):
    def f(v):
        n = xp.sqrt(xp.sum(v * v))
        return v / n, n
    return f


# name -> (signature, function of the array namespace xp, list of argument-shape lists)
SIGNATURES = {
    "dot": ("(n),(n)->()", lambda xp: lambda a, b: xp.sum(a * b),
            [[(3,), (3,)], [(2, 3), (3,)], [(4, 1, 3), (5, 3)], [(1, 3), (2, 1, 3)]]),
    "colsum": ("(m,n)->(n)", lambda xp: lambda m: xp.sum(m, axis=0),
               [[(2, 3)], [(4, 2, 3)], [(2, 1, 2, 3)]]),
    "matvec": ("(m,n),(n)->(m)", lambda xp: lambda m, v: m @ v,
               [[(2, 3), (3,)], [(4, 2, 3), (4, 3)], [(2, 3), (5, 3)], [(1, 2, 3), (3, 1, 3)]]),
    "normalize": ("(n)->(n),()", _normalize, [[(3,)], [(2, 4, 3)]]),
    "new_out_dim": ("()->(k)", lambda xp: lambda x: xp.stack([x, 2 * x, x * x]),
                    [[()], [(2,)], [(2, 3)]]),
    "scalar_bcast": ("(),()->()", lambda xp: lambda x, y: x * xp.sin(y),
                     [[(2, 1), (3,)], [(), (4,)], [(1, 1), (1,)]]),
    "trace": ("(n,n)->()", lambda xp: lambda m: xp.trace(m), [[(3, 3)], [(2, 3, 3)]]),
    "cross": ("(k),(k)->(k)", _cross, [[(3,), (3,)], [(2, 3), (3,)], [(1, 2, 3), (2, 1, 3)]]),
}

CASES = [(name, i) for name, (_, _, shapes) in SIGNATURES.items() for i in range(len(shapes))]


def _args(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, s).astype(np.float32) for s in shapes]


def _assert_tree_close(got, want, rtol=1e-5):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_tree_close(g, w, rtol)
        return
    assert tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name,i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_signature_vs_numpy(name, i):
    sig, make, shapes = SIGNATURES[name]
    args = _args(shapes[i])
    want = np.vectorize(make(np), signature=sig)(*[a.astype(np.float64) for a in args])
    f = jnp.vectorize(make(jnp), signature=sig)
    _assert_tree_close(f(*args), want)
    _assert_tree_close(tjit.jit(f)(*args), want)


def test_traced_once_not_looped():
    calls = []

    def dot(a, b):
        calls.append(a.shape)
        return jnp.sum(a * b)
    out = jnp.vectorize(dot, signature="(n),(n)->()")(np.ones((4, 5, 3)), np.ones((5, 3)))
    assert out.shape == (4, 5) and len(calls) == 1 and calls[0] == (3,)


def test_size_one_loop_dims_broadcast_without_mapping():
    # loop dims of size 1 everywhere are added back, others broadcast through vmap
    a, b = _args([(1, 4, 1, 3), (2, 1, 1, 3)])
    want = np.einsum("...n,...n->...", a.astype(np.float64), b.astype(np.float64))
    got = jnp.vectorize(lambda x, y: jnp.sum(x * y), signature="(n),(n)->()")(a, b)
    assert got.shape == (2, 4, 1)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_zero_size_loop_dim():
    out = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")(
        np.ones((0, 3), np.float32), np.ones(3, np.float32))
    assert out.shape == (0,)


# -- no signature -------------------------------------------------------------------------------
def test_elementwise_no_signature_vs_numpy():
    def f(xp):
        return lambda x, y: xp.where(x > y, x - y, xp.exp(y) * x)
    x, y = _args([(3,), (2, 1)])
    want = np.vectorize(f(np))(x.astype(np.float64), y.astype(np.float64))
    got = jnp.vectorize(f(jnp))(x, y)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(tjit.jit(jnp.vectorize(f(jnp)))(x, y)), want,
                               rtol=1e-5)
    assert jnp.vectorize(f(jnp))(2.0, 1.0).shape == ()


def test_no_signature_any_output_shape_stacks_after_loop_dims():
    # without a signature each call may return any shape (as jnp.vectorize); oracle: loop
    x = _args([(2, 3)])[0]
    got = jnp.vectorize(lambda s: jnp.stack([s, s + 1]))(x)
    want = np.stack([np.stack([[v, v + 1] for v in row]) for row in x])
    assert got.shape == (2, 3, 2)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_no_signature_tuple_outputs():
    x = _args([(2, 3)])[0]
    got = jnp.vectorize(lambda s: (s * 2, s - 1))(x)
    want = np.vectorize(lambda s: (s * 2, s - 1))(x)
    _assert_tree_close(got, want)


# -- excluded / keyword arguments -----------------------------------------------------------
def _power(xp):
    def f(x, n, scale=1.0, mode="plain"):
        y = scale * x ** n
        return xp.sqrt(y) if mode == "sqrt" else y
    return f


def test_excluded_positional_and_keyword_vs_numpy():
    x, scale = _args([(2, 3), (3,)])
    kw = dict(scale=scale.astype(np.float64), mode="sqrt")
    want = np.vectorize(_power(np), excluded={1, "mode"})(x.astype(np.float64), 3, **kw)
    f = jnp.vectorize(_power(jnp), excluded={1, "mode"})
    got = f(x, 3, scale=scale, mode="sqrt")  # scale (not excluded) is vectorized
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    jitted = tjit.jit(lambda x, s: f(x, 3, scale=s, mode="sqrt"))
    np.testing.assert_allclose(np.asarray(jitted(x, scale)), want, rtol=1e-5)


def test_excluded_with_signature():
    # the excluded argument (a Python tuple of weights) is never turned into an array
    def weighted(v, w):
        return sum(wi * v[i] for i, wi in enumerate(w))
    x = _args([(4, 3)])[0]
    f = jnp.vectorize(weighted, excluded={1}, signature="(n)->()")
    want = np.vectorize(weighted, excluded={1}, signature="(n)->()")(x, (1.0, -2.0, 0.5))
    np.testing.assert_allclose(np.asarray(f(x, (1.0, -2.0, 0.5))), want, rtol=1e-5)


def test_none_argument_passes_through():
    f = jnp.vectorize(lambda x, y: x if y is None else x + y)
    np.testing.assert_allclose(np.asarray(f(np.arange(3.0), None)), np.arange(3.0))


# -- transformations ------------------------------------------------------------------------------
def test_grad_through_vectorize():
    dot = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")
    a, b = _args([(4, 3), (3,)])
    g = tjit.grad(lambda a: jnp.sum(dot(a, b)))(a)
    np.testing.assert_allclose(np.asarray(g), np.broadcast_to(b, (4, 3)), rtol=1e-6)
    gb = tjit.jit(tjit.grad(lambda b: jnp.sum(dot(a, b))))(b)
    np.testing.assert_allclose(np.asarray(gb), a.sum(0), rtol=1e-5)


@pytest.mark.parametrize("name", ["matvec", "normalize", "cross"])
def test_grads_match_finite_differences(name):
    sig, make, shapes = SIGNATURES[name]
    args = tuple(a.astype(np.float64) for a in _args(shapes[-1]))
    check_grads(jnp.vectorize(make(jnp), signature=sig), args, order=1)


def test_vmap_of_vectorize_matches_loop():
    f = jnp.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)")
    m, v = _args([(2, 3), (5, 3)])
    check_vmap(f, (m, v), in_axes=(None, 0), rtol=1e-5)
    check_vmap(f, (np.stack([m, m * 2]), v[:2]), in_axes=(0, 0), rtol=1e-5)


def test_symbolic_loop_dims():
    f = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")
    jaxpr = tjit.make_jaxpr(f, polymorphic_shapes=["(b, n)", "(n,)"])(np.ones((2, 3)),
                                                                      np.ones(3))
    assert "f32[b]" in str(jaxpr)
    with pytest.raises(ShapeError, match=r"core dimension 'n'.*\(b, n\)"):
        tjit.make_jaxpr(f, polymorphic_shapes=["(b, n)", "(m,)"])(np.ones((2, 3)),
                                                                  np.ones(3))


def test_decorator_form():
    @functools.partial(jnp.vectorize, signature="(n)->()")
    def l2(v):
        """Docstring kept."""
        return jnp.sqrt(jnp.sum(v * v))
    x = _args([(3, 4)])[0]
    np.testing.assert_allclose(np.asarray(l2(x)), np.linalg.norm(x, axis=-1), rtol=1e-5)
    assert l2.__name__ == "l2" and l2.__doc__ == "Docstring kept."


# -- errors --------------------------------------------------------------------------------------
DOT = "(n),(n)->()"


@pytest.mark.parametrize("sig,fn,shapes,exc,match", [
    (DOT, jnp.dot, [(2, 3), (4,)], ShapeError,
     r"inconsistent size for core dimension 'n': 4 in argument 1 of shape \(4,\) vs 3 in "
     r"argument 0 of shape \(2, 3\)"),
    (DOT, jnp.dot, [(), (3,)], ShapeError,
     r"argument 0 of shape \(\) does not have enough dimensions for its core dimensions \(n\)"),
    (DOT, jnp.dot, [(2, 3), (3, 3)], ShapeError,
     r"loop \(non-core\) dimensions do not broadcast: argument 0 \(2, 3\) -> loop dims "
     r"\(2,\), argument 1 \(3, 3\) -> loop dims \(3,\)"),
    (DOT, jnp.dot, [(3,)], TypeError, r"signature has 2 inputs, got 1"),
    ("(n)->()", lambda v: v * 2, [(4, 3)], ShapeError,
     r"output 0 of shape \(3,\) does not match its core dimensions \(\)"),
    ("(n)->(n)", lambda v: v[:2], [(3,)], ShapeError,
     r"core dimension 'n': 2 in output 0 of shape \(2,\) vs 3 in argument 0"),
    ("(n)->(),()", jnp.sum, [(3,)], TypeError, r"must return a tuple of 2 outputs"),
    ("(n)->()", lambda v: (v[0], v[1]), [(3,)], TypeError,
     r"wrong number of outputs: the signature has 1, the function returned 2"),
])
def test_signature_errors(sig, fn, shapes, exc, match):
    with pytest.raises(exc, match=match):
        jnp.vectorize(fn, signature=sig)(*_args(shapes))


def test_bad_signature_and_excluded():
    with pytest.raises(ValueError, match=r"not a valid gufunc signature: '\(n->\(\)'"):
        jnp.vectorize(jnp.sum, signature="(n->()")
    with pytest.raises(TypeError, match="excluded may only hold"):
        jnp.vectorize(jnp.sum, excluded={1.5})
    with pytest.raises(ValueError, match="negative"):
        jnp.vectorize(jnp.sum, excluded={-1})
    with pytest.raises(ValueError, match="cannot pass None for argument 0"):
        jnp.vectorize(jnp.dot, signature=DOT)(None, np.ones(3))


def test_signature_whitespace_ignored():
    f = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature=" (n), (n) -> () ")
    np.testing.assert_allclose(np.asarray(f(np.ones((2, 3)), np.ones(3))), [3.0, 3.0])


# -- apply_along_axis ---------------------------------------------------------------------------
ALONG = {
    "sum": (jnp.sum, np.sum),
    "cumsum": (jnp.cumsum, np.cumsum),
    "first_two": (lambda v: v[:2] * 2, lambda v: v[:2] * 2),
    "outer": (lambda v: jnp.outer(v, v), lambda v: np.outer(v, v)),
}


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("name", sorted(ALONG))
def test_apply_along_axis_vs_numpy(name, axis):
    fj, fn = ALONG[name]
    x = _args([(2, 3, 4)])[0]
    want = np.apply_along_axis(fn, axis, x.astype(np.float64))
    got = jnp.apply_along_axis(fj, axis, x)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_apply_along_axis_args_kwargs_jit_grad():
    def fj(v, p, scale=1.0):
        return scale * jnp.sum(v ** p)

    def fn(v, p, scale=1.0):
        return scale * np.sum(v ** p)
    x = _args([(3, 4)])[0]
    want = np.apply_along_axis(fn, 0, x.astype(np.float64), 3, scale=0.5)
    got = tjit.jit(lambda x: jnp.apply_along_axis(fj, 0, x, 3, scale=0.5))(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    g = tjit.grad(lambda x: jnp.apply_along_axis(fj, 1, x, 3, scale=0.5).sum())(x)
    np.testing.assert_allclose(np.asarray(g), 1.5 * x.astype(np.float64) ** 2, rtol=1e-5)


def test_apply_along_axis_1d_and_errors():
    x = _args([(5,)])[0]
    np.testing.assert_allclose(np.asarray(jnp.apply_along_axis(jnp.max, 0, x)), x.max())
    with pytest.raises(ShapeError, match="axis 2 is out of bounds for an array of rank 1"):
        jnp.apply_along_axis(jnp.sum, 2, x)
    with pytest.raises(ShapeError, match="at least 1 dimension"):
        jnp.apply_along_axis(jnp.sum, 0, 3.0)


# -- apply_over_axes ----------------------------------------------------------------------------
@pytest.mark.parametrize("axes", [0, [0, 2], (1, -1), [2, 0, 1]])
@pytest.mark.parametrize("fj,fn", [(jnp.sum, np.sum), (jnp.cumsum, np.cumsum),
                                   (jnp.max, np.max)], ids=["sum", "cumsum", "max"])
def test_apply_over_axes_vs_numpy(fj, fn, axes):
    x = _args([(2, 3, 4)])[0].astype(np.float64)
    want = np.apply_over_axes(fn, x, axes)
    got = jnp.apply_over_axes(fj, x, axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_apply_over_axes_jit_and_error():
    x = _args([(2, 3)])[0]
    got = tjit.jit(lambda x: jnp.apply_over_axes(jnp.sum, x, [0, 1]))(x)
    np.testing.assert_allclose(np.asarray(got), x.sum(keepdims=True), rtol=1e-5)
    with pytest.raises(ShapeError, match=r"returned an array of shape \(\) for an input of "
                                         r"shape \(2, 3\) along axis 0"):
        jnp.apply_over_axes(lambda a, ax: jnp.sum(a), x, 0)
