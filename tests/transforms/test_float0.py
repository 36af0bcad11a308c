"""Integer and boolean values under differentiation: JAX's float0 semantics.

An integer or boolean value has no tangent space. JAX gives it tangents and cotangents
of dtype ``float0`` (a NumPy array with a shape and no data): grad refuses such inputs
unless ``allow_int=True``; vjp returns float0 cotangents for them and takes any
cotangent of the right shape for an integer output; jvp and linearize take only float0
tangents for them and return float0 tangents for integer outputs; custom rules see and
return float0. tjit used to give integer zeros and take integer tangents.

Oracles: JAX's documented messages and types (checked against jax 0.10.2 while
writing), float64 central differences and closed forms in NumPy, Python loops for vmap.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

F0 = tjit.dtypes.float0
X = np.float32([0.5, -1.25, 2.0])


def f0(shape):
    return np.zeros(shape, F0)


def assert_float0(x, shape):
    assert type(x) is np.ndarray and x.dtype == np.dtype([("float0", "V")]), (type(x), x)
    assert x.shape == tuple(shape)


def fd(f, x, eps=1e-4):
    """Central differences of ``f`` (NumPy float64) at ``x`` along each coordinate."""
    x = np.asarray(x, np.float64)
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        cols.append((f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * eps))
    return np.stack(cols, -1).reshape(np.shape(f(x)) + x.shape)


# -- grad / value_and_grad / jacrev: integer inputs ------------------------------------------
GRAD_MSG = ("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype "
            "of np.inexact), but got {}. If you want to use Boolean- or integer-valued "
            "inputs, use vjp or set allow_int to True.")


@pytest.mark.parametrize("n", [np.int32(3), np.uint8(3), True, 3],
                         ids=["int32", "uint8", "bool", "python-int"])
@pytest.mark.parametrize("transform", [tjit.grad, tjit.value_and_grad])
def test_grad_of_integer_input_raises_jax_message(transform, n):
    name = {bool: "bool", int: "int32"}.get(type(n), np.asarray(n).dtype.name)
    with pytest.raises(TypeError) as e:
        transform(lambda x, k: x * k, argnums=1)(np.float32(2.0), n)
    assert str(e.value).startswith(GRAD_MSG.format(name))
    with pytest.raises(TypeError, match="jacrev requires real- or complex-valued inputs"):
        tjit.jacrev(lambda x, k: x * k, argnums=(0, 1))(np.float32(2.0), n)


def test_grad_allow_int_gives_float0_of_the_argument_shape():
    x, k = jnp.asarray(X), jnp.arange(3, dtype=jnp.int32)
    gx, gk = tjit.grad(lambda x, k: jnp.sum(x * x * k), (0, 1), allow_int=True)(x, k)
    np.testing.assert_allclose(np.asarray(gx), 2.0 * X.astype(np.float64) * np.arange(3),
                               rtol=1e-6)
    assert_float0(gk, (3,))
    v, (gx, gb) = tjit.value_and_grad(lambda x, b: jnp.sum(jnp.where(b, x, 0.0)), (0, 1),
                                      allow_int=True)(x, jnp.asarray([True, False, True]))
    assert float(v) == pytest.approx(X[0] + X[2])
    np.testing.assert_array_equal(np.asarray(gx), [1.0, 0.0, 1.0])
    assert_float0(gb, (3,))


def test_jacobians_give_zero_blocks_of_the_integer_dtype():
    # JAX: jacrev(allow_int=True) gives zeros of the input's dtype for an integer input;
    # jacfwd an integer output's block as zeros of the output's dtype
    x = jnp.asarray(X)
    jx, jk = tjit.jacrev(lambda x, k: x * k, (0, 1), allow_int=True)(x, jnp.int32(2))
    np.testing.assert_allclose(np.asarray(jx), 2.0 * np.eye(3))
    assert jk.dtype == np.int32 and jk.shape == (3,) and not np.any(np.asarray(jk))
    jy, jn = tjit.jacfwd(lambda x: (jnp.sin(x), jnp.argmax(x)))(x)
    np.testing.assert_allclose(np.asarray(jy), np.diag(np.cos(X.astype(np.float64))),
                               rtol=1e-6)
    assert jn.dtype == np.int32 and jn.shape == (3,) and not np.any(np.asarray(jn))
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        tjit.jacfwd(lambda x, k: x * k, (0, 1))(x, jnp.int32(2))


# -- vjp ------------------------------------------------------------------------------------------
def two_outputs(x, n):
    return jnp.sin(x) * n, n + 1


@pytest.mark.parametrize("ct_n", [f0(()), np.int32(7), 0.5, jnp.int32(0)],
                         ids=["float0", "int32", "float", "Array"])
def test_vjp_integer_output_cotangent_is_any_of_its_shape_and_input_gives_float0(ct_n):
    _, f_vjp = tjit.vjp(two_outputs, jnp.asarray(X), jnp.int32(3))
    ct_x = np.float32([1.0, 2.0, -1.0])
    gx, gn = f_vjp((ct_x, ct_n))
    np.testing.assert_allclose(np.asarray(gx), ct_x * 3 * np.cos(X.astype(np.float64)),
                               rtol=1e-6)
    assert_float0(gn, ())


def test_vjp_cotangent_errors():
    _, f_vjp = tjit.vjp(two_outputs, jnp.asarray(X), jnp.int32(3))
    with pytest.raises(ValueError, match="cotangent 1 has shape"):
        f_vjp((np.ones(3, np.float32), f0((2,))))
    with pytest.raises(TypeError, match="cotangent 0 has dtype float0"):
        f_vjp((f0((3,)), f0(())))


# -- jvp / linearize ------------------------------------------------------------------------------
def test_jvp_integer_primal_takes_float0_and_integer_output_gives_float0():
    x, t = jnp.asarray(X), np.float32([1.0, 0.5, -2.0])
    for tn in (f0(()), jnp.zeros((), F0)):
        (_, m), (ty, tm) = tjit.jvp(two_outputs, (x, jnp.int32(3)), (t, tn))
        np.testing.assert_allclose(np.asarray(ty), 3 * np.cos(X.astype(np.float64)) * t,
                                   rtol=1e-6)
        assert int(m) == 4
        assert_float0(tm, ())


@pytest.mark.parametrize("primals, tangents, error, match", [
    ((X, np.int32(3)), (X, np.int32(0)), TypeError,
     (r"argument 1; dtypes must be equal, or in case of int/bool primal dtype the tangent "
      r"dtype must be float0\. Got primal dtype int32 and so expected tangent dtype "
      r"\[\('float0', 'V'\)\], but got tangent dtype int32 instead")),
    ((X, np.int32(3)), (X, 0.0), TypeError,
     "expected tangent dtype.*float0.*got tangent dtype float32"),
    ((X, np.int32(3)), (f0((3,)), f0(())), TypeError,
     "argument 0.*expected tangent dtype float32"),
    ((X, np.arange(3, dtype=np.int32)), (X, f0(())), ValueError, "equal shapes.*argument 1"),
])
def test_jvp_refuses_tangents_jax_refuses(primals, tangents, error, match):
    with pytest.raises(error, match=match):
        tjit.jvp(two_outputs, primals, tangents)


def test_linearize_integer_tangents_are_float0_both_ways():
    _, f_jvp = tjit.linearize(two_outputs, jnp.asarray(X), jnp.int32(3))
    t = np.float32([1.0, 0.5, -2.0])
    ty, tm = f_jvp(t, f0(()))
    np.testing.assert_allclose(np.asarray(ty), 3 * np.cos(X.astype(np.float64)) * t,
                               rtol=1e-6)
    assert_float0(tm, ())
    with pytest.raises(TypeError, match="linearize.*argument 1.*float0"):
        f_jvp(t, np.int32(0))


def test_creation_functions_make_float0_arrays():
    for z in (jnp.zeros((2, 3), F0), jnp.ones((2, 3), F0), jnp.empty((2, 3), F0),
              jnp.full((2, 3), 5, F0), jnp.zeros_like(jnp.ones((2, 3)), dtype=F0),
              jnp.zeros_like(f0((2, 3))), jnp.asarray(f0((2, 3))), jnp.array(f0((2, 3)))):
        assert_float0(z, (2, 3))


# -- custom rules ----------------------------------------------------------------------------------
def scaled_custom_vjp(bwd_int):
    @tjit.custom_vjp
    def g(x, n):
        return jnp.sin(x) * n

    def fwd(x, n):
        return g(x, n), (jnp.cos(x), n)

    def bwd(res, ct):
        cos, n = res
        return ct * cos * n, bwd_int(n)
    g.defvjp(fwd, bwd)
    return g


@pytest.mark.parametrize("bwd_int", [lambda n: None, lambda n: f0(np.shape(n)),
                                     lambda n: jnp.zeros_like(n),
                                     lambda n: jnp.zeros(np.shape(n))],
                         ids=["None", "float0", "int-zeros", "float-zeros"])
def test_custom_vjp_bwd_may_return_none_float0_or_zeros_for_integer_args(bwd_int):
    g = scaled_custom_vjp(bwd_int)
    x, n = jnp.asarray(X), jnp.arange(1, 4, dtype=jnp.int32)
    want = np.cos(X.astype(np.float64)) * np.arange(1, 4)
    gx, gn = tjit.grad(lambda x, n: jnp.sum(g(x, n)), (0, 1), allow_int=True)(x, n)
    np.testing.assert_allclose(np.asarray(gx), want, rtol=1e-6)
    assert_float0(gn, (3,))
    gx = tjit.jit(tjit.grad(lambda x, n: jnp.sum(g(x, n))))(x, n)
    np.testing.assert_allclose(np.asarray(gx), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.jacrev(g)(x, n)), np.diag(want), rtol=1e-6)
    # vmap of grad against a Python loop over the rows
    xs, ns = jnp.asarray(np.stack([X, 2 * X])), jnp.asarray([[1, 2, 3], [4, 5, 6]], jnp.int32)
    bx, bn = tjit.vmap(tjit.grad(lambda x, n: jnp.sum(g(x, n)), (0, 1), allow_int=True))(xs, ns)
    loop = [tjit.grad(lambda x, n: jnp.sum(g(x, n)))(xs[i], ns[i]) for i in range(2)]
    np.testing.assert_allclose(np.asarray(bx), np.stack([np.asarray(r) for r in loop]))
    assert_float0(bn, (2, 3))


def test_custom_vjp_bwd_float0_for_a_float_arg_or_wrong_shape_is_refused():
    g = scaled_custom_vjp(lambda n: f0((5,)))
    with pytest.raises(ValueError, match="bwd rule.*argument 1.*shape"):
        tjit.grad(lambda x, n: jnp.sum(g(x, n)))(jnp.asarray(X), jnp.arange(3))


def custom_jvp_pair(int_tangent, seen):
    @tjit.custom_jvp
    def h(x, n):
        return jnp.sin(x) * n, n + 1

    @h.defjvp
    def h_jvp(primals, tangents):
        x, n = primals
        tx, tn = tangents
        seen.append(tn)
        return h(x, n), (jnp.cos(x) * n * tx, int_tangent(n))
    return h


def test_custom_jvp_sees_float0_tangents_and_must_return_float0_for_integer_outputs():
    seen = []
    h = custom_jvp_pair(lambda n: f0(np.shape(n)), seen)
    x, n = jnp.asarray(X), jnp.arange(1, 4, dtype=jnp.int32)
    t = np.float32([1.0, 0.5, -2.0])
    (_, m), (ty, tm) = tjit.jvp(h, (x, n), (t, f0((3,))))
    assert_float0(seen[-1], (3,))
    np.testing.assert_array_equal(np.asarray(m), [2, 3, 4])
    want = np.cos(X.astype(np.float64)) * np.arange(1, 4)
    np.testing.assert_allclose(np.asarray(ty), want * t, rtol=1e-6)
    assert_float0(tm, (3,))
    np.testing.assert_allclose(np.asarray(tjit.jacfwd(lambda x: h(x, n)[0])(x)),
                               np.diag(want), rtol=1e-6)
    gx, gn = tjit.grad(lambda x, n: jnp.sum(h(x, n)[0]), (0, 1), allow_int=True)(x, n)
    np.testing.assert_allclose(np.asarray(gx), want, rtol=1e-6)
    assert_float0(gn, (3,))
    # vmap of jvp (the rule batched) against a Python loop
    bt, btm = tjit.vmap(lambda x, n: tjit.jvp(h, (x, n), (1.0, f0(())))[1])(x, n)
    loop = [float(tjit.jvp(h, (x[i], n[i]), (1.0, f0(())))[1][0]) for i in range(3)]
    np.testing.assert_allclose(np.asarray(bt), loop, rtol=1e-6)
    assert_float0(btm, (3,))

    bad = custom_jvp_pair(lambda n: jnp.zeros_like(n), [])
    with pytest.raises(TypeError, match=r"output 1 is primal i32\[3\] with tangent i32\[3\], "
                                        r"expecting tangent float0\[3\]"):
        tjit.jvp(bad, (x, n), (t, f0((3,))))


# -- pytrees with integer leaves, under jit and vmap -----------------------------------------
def loss(p):
    return jnp.sum(jnp.where(p["mask"], p["w"] ** 2, 0.0) * p["step"])


def params(w, step, mask):
    return {"w": jnp.asarray(w), "step": jnp.asarray(step, jnp.int32),
            "mask": jnp.asarray(mask)}


def test_pytree_with_integer_leaves_under_grad_vjp_jvp_jit_and_vmap():
    p = params(X, 3, [True, False, True])
    want_w = 2.0 * X.astype(np.float64) * 3 * np.float64([1, 0, 1])
    for g in (tjit.grad(loss, allow_int=True)(p), tjit.jit(tjit.grad(loss, allow_int=True))(p),
              tjit.vjp(loss, p)[1](1.0)[0], tjit.jit(lambda p: tjit.vjp(loss, p)[1](1.0)[0])(p)):
        np.testing.assert_allclose(np.asarray(g["w"]), want_w, rtol=1e-6)
        assert_float0(g["step"], ())
        assert_float0(g["mask"], (3,))
    tw = np.float32([1.0, -1.0, 0.5])
    tan = {"w": tw, "step": f0(()), "mask": f0((3,))}
    for _, t in (tjit.jvp(loss, (p,), (tan,)),
                 tjit.jit(lambda p, tan: tjit.jvp(loss, (p,), (tan,)))(p, tan)):
        assert float(t) == pytest.approx(float(np.dot(want_w, tw)), rel=1e-6)
    ws = np.stack([X, -X])
    batch = params(ws, [2, 5], [[True, True, False], [False, True, True]])
    g = tjit.vmap(tjit.grad(loss, allow_int=True))(batch)
    for i in range(2):
        row = tjit.grad(loss, allow_int=True)(params(ws[i], [2, 5][i],
                                                     np.asarray(batch["mask"])[i]))
        np.testing.assert_allclose(np.asarray(g["w"])[i], np.asarray(row["w"]), rtol=1e-6)
    assert_float0(g["step"], (2,))
    assert_float0(g["mask"], (2, 3))


def test_jit_and_vmap_take_float0_arguments():
    x = jnp.asarray(X)
    _, t = tjit.jit(lambda x, tn: tjit.jvp(lambda a, n: a * n, (x, 2), (x, tn)))(x, f0(()))
    np.testing.assert_allclose(np.asarray(t), 2 * X)
    assert_float0(tjit.jit(lambda t: t)(f0((2,))), (2,))
    n = jnp.arange(3, dtype=jnp.int32)
    _, t = tjit.vmap(lambda x, n, tn: tjit.jvp(lambda a, k: a * k, (x, n), (x, tn)))(
        x, n, f0((3,)))
    np.testing.assert_allclose(np.asarray(t), X * np.arange(3))
    assert_float0(tjit.vmap(lambda t: t, in_axes=1)(f0((4, 2))), (2, 4))


# -- loops with an integer counter in the carry ------------------------------------------------
def fori_with_counter(x, n):
    return lax.fori_loop(0, 3, lambda i, c: (c[0] * 1.5 + jnp.sin(c[0]) * c[1], c[1] + 1),
                         (x, n))


def scan_with_counter(x):
    def body(c, xi):
        v, k = c
        return (v * xi + k.astype(v.dtype), k + 1), k
    return lax.scan(body, (jnp.float32(1.0), jnp.int32(0)), x)


def _np_fori(x):
    v, k = x, 2
    for _ in range(3):
        v, k = v * 1.5 + np.sin(v) * k, k + 1
    return v


def test_loops_with_integer_carries_give_float0_and_match_finite_differences():
    x, t = jnp.asarray(X), np.float32([1.0, 0.5, -2.0])
    jac = fd(_np_fori, X)
    (_, k), (tv, tk) = tjit.jvp(fori_with_counter, (x, jnp.int32(2)), (t, f0(())))
    np.testing.assert_allclose(np.asarray(tv), jac @ t, rtol=1e-4)
    assert int(k) == 5
    assert_float0(tk, ())
    gx, gn = tjit.vjp(fori_with_counter, x, jnp.int32(2))[1]((t, f0(())))
    np.testing.assert_allclose(np.asarray(gx), t @ jac, rtol=1e-4)
    assert_float0(gn, ())
    gx, gn = tjit.grad(lambda x, n: jnp.sum(fori_with_counter(x, n)[0]), (0, 1),
                       allow_int=True)(x, jnp.int32(2))
    np.testing.assert_allclose(np.asarray(gx), jac.sum(0), rtol=1e-4)
    assert_float0(gn, ())

    def np_scan(xs):
        v = 1.0
        for k, xi in enumerate(xs):
            v = v * xi + k
        return v
    ((_, _), ks), ((tv, tk), tks) = tjit.jvp(scan_with_counter, (x,), (t,))
    np.testing.assert_allclose(float(tv), fd(np_scan, X) @ t, rtol=1e-4)
    assert_float0(tk, ())
    assert_float0(tks, (3,))
    np.testing.assert_array_equal(np.asarray(ks), [0, 1, 2])
    g = tjit.grad(lambda x: scan_with_counter(x)[0][0])(x)
    np.testing.assert_allclose(np.asarray(g), fd(np_scan, X), rtol=1e-4)

    def wl(x):
        return lax.while_loop(lambda c: c[1] < 4, lambda c: (c[0] * 1.5, c[1] + 1), (x, 0))
    (_, k), (tv, tk) = tjit.jvp(wl, (x,), (t,))
    np.testing.assert_allclose(np.asarray(tv), 1.5 ** 4 * t, rtol=1e-6)
    assert_float0(tk, ())


# -- jit drops unused code before it is differentiated ----------------------------------------
@tjit.custom_vjp
def sin_vjp(x):
    return jnp.sin(x)


sin_vjp.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (g * c,))


def cube_beside_unused_custom_vjp(x):
    _ = sin_vjp(x)  # unused: JAX's jit drops it before differentiating
    return jnp.sum(x ** 3)


def test_jit_under_forward_mode_does_not_differentiate_unused_code():
    x, t = jnp.asarray(X), np.float32([1.0, 0.5, -2.0])
    x64 = X.astype(np.float64)
    _, ty = tjit.jvp(tjit.jit(cube_beside_unused_custom_vjp), (x,), (t,))
    assert float(ty) == pytest.approx(float(np.dot(3 * x64 ** 2, t)), rel=1e-6)
    h = tjit.hessian(tjit.jit(cube_beside_unused_custom_vjp))(x)
    np.testing.assert_allclose(np.asarray(h), np.diag(6 * x64), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.jacfwd(tjit.jit(cube_beside_unused_custom_vjp))(x)),
                               3 * x64 ** 2, rtol=1e-6)
    # a used custom_vjp still cannot be differentiated in forward mode (JAX's error)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        tjit.jvp(tjit.jit(lambda x: jnp.sum(sin_vjp(x))), (x,), (t,))
    # static arguments, keywords and closures over the differentiated value still work
    scaled = tjit.jit(lambda x, k, *, p: jnp.sum(x ** p) * k, static_argnames="p")
    g = tjit.grad(lambda x: scaled(x, 2.0, p=3) + tjit.jit(lambda: jnp.sum(x))())(x)
    np.testing.assert_allclose(np.asarray(g), 6 * x64 ** 2 + 1, rtol=1e-6)


def cube_rows_beside_unused_custom_vjp(x):
    _ = sin_vjp(x)  # unused
    return jnp.sum(x ** 3, axis=-1)


@pytest.mark.parametrize("wrap", [
    lambda f: tjit.vmap(tjit.jit(f)),                                     # jit under vmap
    lambda f: lambda x: lax.cond(jnp.sum(x) < 100, f, lambda x: jnp.zeros(x.shape[:-1]), x),
    lambda f: lambda x: lax.scan(lambda c, _: (c + f(x), None), jnp.zeros(x.shape[:-1]),
                                 None, length=2)[0] / 2,
    lambda f: tjit.checkpoint(tjit.jit(f)),                               # jit in a remat body
], ids=["vmap-jit", "cond", "scan", "checkpoint-jit"])
def test_unused_custom_vjp_in_a_body_is_not_differentiated(wrap):
    # as in JAX: cond and scan bodies, and jit under vmap or checkpoint, drop it before
    # (or instead of) differentiating it
    xs = jnp.asarray(np.stack([X, X[::-1]]))
    t = np.float32([[1.0, 0.5, -2.0], [0.0, 1.0, 3.0]])
    _, ty = tjit.jvp(wrap(cube_rows_beside_unused_custom_vjp), (xs,), (t,))
    want = np.sum(3 * np.asarray(xs, np.float64) ** 2 * t, -1)
    np.testing.assert_allclose(np.asarray(ty), want, rtol=1e-6)


@pytest.mark.parametrize("ct_n", [lambda n: None, lambda n: f0(np.shape(n))],
                         ids=["None", "float0"])
def test_custom_gradient_integer_argument_cotangent_none_or_float0(ct_n):
    @tjit.custom_gradient
    def scaled(x, n):
        return jnp.sin(x) * n, lambda g: (g * jnp.cos(x) * n, ct_n(n))
    x, n = jnp.asarray(X), jnp.arange(1, 4, dtype=jnp.int32)
    want = np.cos(X.astype(np.float64)) * np.arange(1, 4)
    for grad in (tjit.grad(lambda x, n: jnp.sum(scaled(x, n)), (0, 1), allow_int=True),
                 tjit.jit(tjit.grad(lambda x, n: jnp.sum(scaled(x, n)), (0, 1),
                                    allow_int=True))):
        gx, gn = grad(x, n)
        np.testing.assert_allclose(np.asarray(gx), want, rtol=1e-6)
        assert_float0(gn, (3,))


def test_eval_shape_and_lowered_out_info_describe_float0_outputs():
    g = tjit.grad(lambda x, n: jnp.sum(x * n), (0, 1), allow_int=True)
    want = (tjit.ShapeDtypeStruct((3,), np.float32), tjit.ShapeDtypeStruct((), F0))
    assert tjit.eval_shape(g, jnp.asarray(X), 2) == want
    assert tjit.jit(g).lower(jnp.asarray(X), 2).out_info == want
    assert repr(want[1]) == "ShapeDtypeStruct(shape=(), dtype=float0)"
