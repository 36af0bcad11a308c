"""User-defined primitives, ported from JAX's "How JAX primitives work" page
(docs/jax-primitives.md): ``tjit.extend.core.Primitive`` with an impl and an abstract
evaluation, rules registered through ``tjit.interpreters.ad`` / ``batching`` / ``mlir``.
References: NumPy float64, central finite differences, Python loops for vmap."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import core, lax
from tjit.extend import core as extend_core
from tjit.interpreters import ad, batching, mlir


def make_multiply_add(*, jvp=True, transpose=True, batch=True, name="multiply_add"):
    """The page's multiply_add primitive, with the rules asked for (a fresh primitive
    each time, so no test sees another's registrations or compiled programs)."""
    p = extend_core.Primitive(name)

    def prim(x, y, z):
        return p.bind(x, y, z)

    @p.def_impl
    def impl(x, y, z):
        return np.add(np.multiply(x, y), z)

    @p.def_abstract_eval
    def abstract_eval(xs, ys, zs):
        assert xs.shape == ys.shape == zs.shape
        return core.ShapedArray(xs.shape, xs.dtype)

    def value_and_jvp(arg_values, arg_tangents):
        x, y, z = arg_values
        xt, yt, zt = arg_tangents
        primal_out = prim(x, y, z)

        def make_zero(tan):
            return lax.full_like(x, 0) if type(tan) is ad.Zero else tan
        return primal_out, prim(make_zero(xt), y, prim(x, make_zero(yt), make_zero(zt)))

    def transpose_rule(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            assert ad.is_undefined_primal(y)
            ct_y = ad.Zero(y.aval) if type(ct) is ad.Zero else prim(x, ct, lax.full_like(x, 0))
            return None, ct_y, ct
        assert ad.is_undefined_primal(x)
        ct_x = ad.Zero(x.aval) if type(ct) is ad.Zero else prim(ct, y, lax.full_like(y, 0))
        return ct_x, None, ct

    def batch_rule(vector_arg_values, batch_axes):
        # as the page's rule, with operands batched along other axes moved to the first's
        d = next(b for b in batch_axes if b is not batching.not_mapped)
        size = next(v.shape[b] for v, b in zip(vector_arg_values, batch_axes)
                    if b is not batching.not_mapped)
        args = [batching.moveaxis(batching.bdim_at_front(v, b, size), 0, d)
                for v, b in zip(vector_arg_values, batch_axes)]
        return prim(*args), d

    if jvp:
        ad.primitive_jvps[p] = value_and_jvp
    if transpose:
        ad.primitive_transposes[p] = transpose_rule
    if batch:
        batching.primitive_batchers[p] = batch_rule
    return p, prim


def square_add_ref(a, b):
    return np.asarray(a, np.float64) ** 2 + np.asarray(b, np.float64)


def central_diff(f, args, k, eps=1e-4):
    """d f / d args[k] in float64, elementwise (args[k] scalar or array)."""
    args = [np.asarray(a, np.float64) for a in args]
    grad = np.zeros_like(args[k])
    for i in np.ndindex(args[k].shape):
        hi = [a.copy() for a in args]
        lo = [a.copy() for a in args]
        hi[k][i] += eps
        lo[k][i] -= eps
        grad[i] = (np.sum(f(*hi)) - np.sum(f(*lo))) / (2 * eps)
    return grad


RNG = np.random.default_rng(19)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)


def test_eager_values_match_numpy():
    p, prim = make_multiply_add()
    out = prim(2., 10., 10.)
    assert float(out) == 30.0 and out.dtype == np.float32
    got = np.asarray(prim(A, A, B))
    np.testing.assert_allclose(got, square_add_ref(A, B), rtol=1e-6)
    assert got.dtype == np.float32


def test_make_jaxpr_prints_the_primitive_and_its_params():
    p, prim = make_multiply_add()
    text = str(jax.make_jaxpr(lambda a, b: prim(a, a, b))(2., 10.))
    assert "multiply_add a a b" in text
    scale = extend_core.Primitive("scale_by")
    scale.def_impl(lambda x, factor: x * factor)
    scale.def_abstract_eval(lambda x, factor: core.ShapedArray(x.shape, x.dtype))
    text = str(jax.make_jaxpr(lambda x: scale.bind(x, factor=3.0))(A))
    assert "scale_by[factor=3.0]" in text
    np.testing.assert_allclose(jax.jit(lambda x: scale.bind(x, factor=3.0))(A), 3.0 * A)


def test_jit_runs_the_impl_as_a_host_step_and_equals_eager():
    p, prim = make_multiply_add()
    f = jax.jit(lambda a, b: prim(a * 2, a, b) + 1)
    want = 2 * square_add_ref(A, B) - B + 1   # (2a)*a + b + 1
    np.testing.assert_allclose(f(A, B), want, rtol=1e-5)
    np.testing.assert_array_equal(f(A, B), np.asarray(prim(A * 2, A, B)) + 1)
    assert "library multiply_add" in f.lower(A, B).compile().as_text()


def test_lower_fun_is_inlined_and_fuses():
    p, prim = make_multiply_add()
    mlir.register_lowering(p, mlir.lower_fun(lambda x, y, z: x * y + z,
                                             multiple_results=False))
    f = jax.jit(lambda a, b: prim(a, a, b) * 2)
    np.testing.assert_allclose(f(A, B), 2 * square_add_ref(A, B), rtol=1e-5)
    text = f.lower(A, B).compile().as_text()
    assert "library" not in text and "1 fused kernels" in text
    g = jax.jit(jax.grad(lambda a, b: jnp.sum(prim(a, a, b) * a), argnums=(0, 1)))
    ga, gb = g(A, B)   # forward and transposed multiply_adds all inlined
    np.testing.assert_allclose(ga, 3 * A.astype(np.float64) ** 2 + B, rtol=1e-5)
    np.testing.assert_allclose(gb, A, rtol=1e-6)
    assert "library" not in g.lower(A, B).compile().as_text()


def test_lower_fun_alone_also_serves_eager_calls():
    p = extend_core.Primitive("fma_lowered")
    p.def_abstract_eval(lambda x, y, z: core.ShapedArray(x.shape, x.dtype))
    # JAX's default multiple_results=True: the function returns a list of one result
    mlir.register_lowering(p, mlir.lower_fun(lambda x, y, z: [x * y + z]))
    np.testing.assert_allclose(p.bind(A, A, B), square_add_ref(A, B), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(p.bind)(A, A, B), square_add_ref(A, B), rtol=1e-6)


def test_hlo_lowering_rules_are_refused_naming_lower_fun():
    p, prim = make_multiply_add()

    def multiply_add_lowering(ctx, xc, yc, zc):
        raise AssertionError("never called")
    with pytest.raises(NotImplementedError, match=r"multiply_add.*lower_fun"):
        mlir.register_lowering(p, multiply_add_lowering, platform="cpu")
    np.testing.assert_allclose(jax.jit(prim)(A, A, B), square_add_ref(A, B), rtol=1e-6)


@pytest.mark.parametrize("transform", ["eager", "jit"])
def test_grad_matches_finite_differences(transform):
    p, prim = make_multiply_add()

    def loss(a, b):
        return jnp.sum(prim(a, a, b) * jnp.sin(a))

    def loss_ref(a, b):
        return square_add_ref(a, b) * np.sin(a)
    g = jax.grad(loss, argnums=(0, 1))
    g = jax.jit(g) if transform == "jit" else g
    ga, gb = g(A, B)
    np.testing.assert_allclose(ga, central_diff(loss_ref, [A, B], 0), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(gb, central_diff(loss_ref, [A, B], 1), rtol=1e-3, atol=1e-3)
    # the page's scalar example: d/da (a*a + b) at a=2 is 4
    assert float(jax.grad(lambda a, b: prim(a, a, b))(2., 10.)) == 4.0


def test_jvp_and_vjp_match_finite_differences():
    p, prim = make_multiply_add()
    ta, tb = np.ones_like(A), 0.5 * np.ones_like(B)
    out, tan = jax.jvp(lambda a, b: prim(a, a, b), (A, B), (ta, tb))
    np.testing.assert_allclose(out, square_add_ref(A, B), rtol=1e-6)
    np.testing.assert_allclose(tan, 2 * A.astype(np.float64) * ta + tb, rtol=1e-5)
    out, vjp_fn = jax.vjp(lambda a, b: prim(a, b, b), A, B)
    ct = RNG.standard_normal(A.shape).astype(np.float32)
    ca, cb = vjp_fn(ct)
    np.testing.assert_allclose(ca, ct * B, rtol=1e-5)
    np.testing.assert_allclose(cb, ct * (A + 1), rtol=1e-5)


def test_missing_rules_are_named():
    p, prim = make_multiply_add(jvp=False, transpose=False, batch=False)
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'multiply_add'"):
        jax.grad(lambda a: prim(a, a, 1.0))(2.0)
    p, prim = make_multiply_add(transpose=False, batch=False)   # a jvp rule, no transpose
    with pytest.raises(NotImplementedError, match="Transpose rule .* for 'multiply_add'"):
        jax.grad(lambda a: prim(a, a, 1.0))(2.0)
    with pytest.raises(NotImplementedError, match="Batching rule for 'multiply_add'"):
        jax.vmap(prim)(A, A, B)
    bare = extend_core.Primitive("bare")
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'bare'"):
        bare.bind(A)
    bare.def_impl(lambda x: x + 1)
    np.testing.assert_array_equal(bare.bind(A), A + 1)   # eager needs no abstract eval (JAX)
    with pytest.raises(NotImplementedError, match="Abstract evaluation for 'bare'"):
        jax.jit(bare.bind)(A)
    tracing_only = extend_core.Primitive("tracing_only")
    tracing_only.def_abstract_eval(lambda x: x)
    assert "tracing_only" in str(jax.make_jaxpr(tracing_only.bind)(A))   # needs no impl


def test_impl_disagreeing_with_abstract_eval_is_an_error():
    p = extend_core.Primitive("bad_shape")
    p.def_impl(lambda x: np.concatenate([x, x]))
    p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    # under jit the result would not be what the program was traced for: an error
    with pytest.raises(ValueError, match=r"bad_shape.*\(6, 4\).*f32\[3,4\]"):
        jax.jit(p.bind)(A)
    # an eager call is the impl alone, as JAX's (no abstract evaluation to disagree with)
    np.testing.assert_array_equal(np.asarray(p.bind(A)), np.concatenate([A, A]))


@pytest.mark.parametrize("in_axes", [0, (0, 1, 0), (None, 0, 0)])
def test_vmap_matches_a_python_loop(in_axes):
    p, prim = make_multiply_add()
    x, y, z = A, A.T.copy() if in_axes == (0, 1, 0) else A, B
    if in_axes == (None, 0, 0):
        x = A[0]
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * 3

    def take(v, ax, i):
        return v if ax is None else np.take(v, i, axis=ax)
    got = jax.vmap(prim, in_axes=in_axes)(x, y, z)
    want = np.stack([take(x, axes[0], i).astype(np.float64) * take(y, axes[1], i)
                     + take(z, axes[2], i) for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_compositions():
    p, prim = make_multiply_add()

    def per_row(a, b):
        return jnp.sum(prim(a, a, b) * a)
    got = jax.jit(jax.grad(lambda a, b: jnp.sum(jax.vmap(per_row)(a, b))))(A, B)
    np.testing.assert_allclose(got, 3 * A.astype(np.float64) ** 2 + B, rtol=1e-5)
    rows = jax.vmap(jax.grad(per_row))(A, B)
    np.testing.assert_allclose(rows, 3 * A.astype(np.float64) ** 2 + B, rtol=1e-5)
    loop = np.stack([np.asarray(jax.grad(per_row)(A[i], B[i])) for i in range(3)])
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(per_row)))(A, B), loop, rtol=1e-6)


def test_defjvp_and_higher_derivatives():
    cube = extend_core.Primitive("cube")
    cube.def_impl(lambda x: x ** 3)
    cube.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    ad.defjvp(cube, lambda g, x: g * 3 * x ** 2)
    batching.defvectorized(cube)
    assert float(jax.grad(cube.bind)(2.0)) == 12.0
    assert float(jax.grad(jax.grad(cube.bind))(2.0)) == 12.0    # 6x
    np.testing.assert_allclose(jax.vmap(jax.grad(cube.bind))(A[0]), 3 * A[0] ** 2, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: jnp.sum(cube.bind(x))))(A),
                               central_diff(lambda x: x ** 3, [A], 0), rtol=1e-3)


def test_multiple_results():
    sincos = extend_core.Primitive("sincos")
    sincos.multiple_results = True
    sincos.def_impl(lambda x: (np.sin(x), np.cos(x)))
    sincos.def_abstract_eval(lambda x: [core.ShapedArray(x.shape, x.dtype)] * 2)

    def jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        s, c = sincos.bind(x)
        return [s, c], [c * t, -s * t]
    ad.primitive_jvps[sincos] = jvp
    batching.primitive_batchers[sincos] = lambda args, dims: (sincos.bind(*args), [dims[0]] * 2)
    s, c = sincos.bind(A)
    np.testing.assert_allclose(s, np.sin(A), rtol=1e-6)
    np.testing.assert_allclose(c, np.cos(A), rtol=1e-6)
    assert "sincos" in str(jax.make_jaxpr(sincos.bind)(A))

    def f(x):
        s, c = sincos.bind(x)
        return jnp.sum(s * c)
    g = central_diff(lambda x: np.sin(x) * np.cos(x), [A], 0)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(A), g, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(jax.vmap(f)(A), np.sum(np.sin(A) * np.cos(A), axis=1),
                               rtol=1e-5)
    mlir.register_lowering(sincos, mlir.lower_fun(lambda x: [jnp.sin(x), jnp.cos(x)]))
    np.testing.assert_allclose(jax.jit(f)(A * 0.5), np.sum(np.sin(A * .5) * np.cos(A * .5)),
                               rtol=1e-5)


def test_rule_tables_read_the_primitive():
    p, prim = make_multiply_add(batch=False)
    assert p in ad.primitive_jvps and p not in batching.primitive_batchers
    assert lax.sin_p in ad.primitive_jvps
    with pytest.raises(TypeError, match="Primitive"):
        ad.primitive_jvps["multiply_add"] = lambda *a: None


def test_jacobians_hessian_and_checkpoint():
    p, prim = make_multiply_add()
    a, b = A[0], B[0]

    def f(x):
        return prim(x, x, b) * x          # d/dx = 3x^2 + b, elementwise
    jac = np.diag(3 * a.astype(np.float64) ** 2 + b)
    np.testing.assert_allclose(jax.jacfwd(f)(a), jac, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.jacrev(f)(a), jac, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.hessian(lambda x: jnp.sum(prim(x, x, x)))(a),
                               2 * np.eye(4), atol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.checkpoint(lambda x: jnp.sum(prim(x, x, x))))(a),
                               2 * a.astype(np.float64) + 1, rtol=1e-6)


def test_apply_primitive_impl_runs_the_lowering():
    from functools import partial

    from tjit.interpreters import xla
    p = extend_core.Primitive("fma_applied")
    p.def_impl(partial(xla.apply_primitive, p))
    p.def_abstract_eval(lambda x, y, z: core.ShapedArray(x.shape, x.dtype))
    with pytest.raises(NotImplementedError, match=r"fma_applied.*no lowering.*lower_fun"):
        p.bind(A, A, B)
    mlir.register_lowering(p, mlir.lower_fun(lambda x, y, z: x * y + z, False))
    np.testing.assert_allclose(p.bind(A, A, B), square_add_ref(A, B), rtol=1e-6)
    np.testing.assert_allclose(p.bind(B, A, A), B.astype(np.float64) * A + A, rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(jax.jit(p.bind)(A, A, B), square_add_ref(A, B), rtol=1e-6)
    cuda_only = extend_core.Primitive("cuda_only")
    cuda_only.def_impl(partial(xla.apply_primitive, cuda_only))
    cuda_only.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(cuda_only, mlir.lower_fun(lambda x: x + 1, False), platform="cuda")
    with pytest.raises(NotImplementedError, match="no lowering of the primitive applies"):
        cuda_only.bind(A)


def test_vectorized_and_broadcasting_rules_with_multiple_results_and_scalars():
    """(defvectorized/defbroadcasting returned one batch dim for a multiple-results
    primitive, TypeError in vmap; defbroadcasting broadcast an unbatched scalar operand
    to the batch size, so a primitive that broadcasts scalars got mismatched shapes)"""
    sincos = extend_core.Primitive("sincos_vectorized")
    sincos.multiple_results = True
    sincos.def_impl(lambda x: [np.sin(x), np.cos(x)])
    sincos.def_abstract_eval(lambda x: [core.ShapedArray(x.shape, x.dtype)] * 2)
    batching.defvectorized(sincos)
    s, c = jax.vmap(sincos.bind, in_axes=1)(A)
    np.testing.assert_allclose(s, np.sin(A).T, rtol=1e-6)
    np.testing.assert_allclose(c, np.cos(A).T, rtol=1e-6)

    addmul = extend_core.Primitive("addmul_broadcasting")
    addmul.multiple_results = True
    addmul.def_impl(lambda x, y: [x + y, x * y])
    addmul.def_abstract_eval(lambda x, y: [core.ShapedArray(x.shape, x.dtype)] * 2)
    batching.defbroadcasting(addmul)
    total, prod = jax.vmap(addmul.bind, in_axes=(0, None))(A, B[0])
    np.testing.assert_allclose(total, [a + B[0] for a in A], rtol=1e-6)
    np.testing.assert_allclose(prod, [a * B[0] for a in A], rtol=1e-6)

    shift = extend_core.Primitive("shift_by_scalar")
    shift.def_impl(lambda x, k: x + k)
    shift.def_abstract_eval(lambda x, k: core.ShapedArray(
        np.broadcast_shapes(x.shape, k.shape), x.dtype))
    batching.defbroadcasting(shift)
    got = jax.vmap(shift.bind, in_axes=(0, None))(A, np.float32(2.5))
    np.testing.assert_allclose(got, [a + 2.5 for a in A], rtol=1e-6)
