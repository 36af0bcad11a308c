"""Options of jit and the transformations (argnums, in_axes/out_axes, has_aux, custom
rules...), checked for every transformation.

One row per bad option: it must raise (never be ignored) an error of the given type (the
one JAX raises) whose message names the transformation and the function
(``jit(scale_sum)``) and contains the given fragments (the option, the argument, the
arity or shape, the fix). A row that still fails can be given ``owner=`` (the module to
fix): it is then a strict xfail, so that the fix shows up as an unexpected pass.
"""

import re

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

X = jnp.ones(3)


def scale_sum(x):
    return jnp.sum(x * x)


def pair(x, y):
    return jnp.sum(x * y)


def varargs(*xs):
    return xs[0] * 2.0


def scale(x, n):
    return x * n


def _custom_jvp(nondiff):
    f = tjit.custom_jvp(scale, nondiff_argnums=nondiff)
    f.defjvp(lambda *a: (a[-2][0] * 2.0, a[-1][0] * 2.0))
    return f


def _custom_vjp(nondiff, fwd=None, bwd=None, fun=scale):
    f = tjit.custom_vjp(fun, nondiff_argnums=nondiff)
    f.defvjp(fwd or (lambda x, n: (x * n, n)), bwd or (lambda n, g: (g * n, None)))
    return f


def _row(name, call, exc, *fragments, owner=None):
    marks = [pytest.mark.xfail(strict=True, reason=f"not checked yet in {owner}")] \
        if owner else []
    return pytest.param(call, exc, fragments, id=name, marks=marks)


ROWS = [
    # jit: at decoration, when the signature makes the error certain
    _row("jit-static-out-of-range", lambda: tjit.jit(scale_sum, static_argnums=5), ValueError,
         "jit(scale_sum)", "static_argnums=5", "takes 1 positional parameter (x)",
         "[-1, 1)"),
    _row("jit-donate-out-of-range", lambda: tjit.jit(scale_sum, donate_argnums=3), ValueError,
         "jit(scale_sum)", "donate_argnums=3", "takes 1 positional parameter"),
    _row("jit-static-negative-out-of-range", lambda: tjit.jit(scale_sum, static_argnums=-2),
         ValueError, "jit(scale_sum)", "static_argnums=-2", "out of range"),
    _row("jit-static-argname-unknown", lambda: tjit.jit(scale_sum, static_argnames="z"),
         ValueError, "jit(scale_sum)", "static_argnames", "'z'", "(x)"),
    _row("jit-donate-argname-unknown", lambda: tjit.jit(pair, donate_argnames=("y", "w")),
         ValueError, "jit(pair)", "donate_argnames", "'w'", "(x, y)"),
    _row("jit-static-repeated", lambda: tjit.jit(pair, static_argnums=(0, 0)), ValueError,
         "jit(pair)", "static_argnums=(0, 0)", "repeats 0"),
    _row("jit-static-repeated-after-negative", lambda: tjit.jit(pair, static_argnums=(1, -1)),
         ValueError, "jit(pair)", "repeats 1", "negative"),
    _row("jit-argname-repeated", lambda: tjit.jit(pair, static_argnames=("y", "y")),
         ValueError, "jit(pair)", "static_argnames", "repeats 'y'"),
    _row("jit-static-and-donated", lambda: tjit.jit(pair, static_argnums=0, donate_argnums=0),
         ValueError, "jit(pair)", "both static and donated"),
    _row("jit-static-name-and-donated-num",
         lambda: tjit.jit(pair, static_argnames="y", donate_argnums=1), ValueError,
         "jit(pair)", "both static and donated"),
    _row("jit-static-str", lambda: tjit.jit(pair, static_argnums="y"), TypeError,
         "jit(pair)", "static_argnums must be an int or a sequence of ints", "'y'"),
    _row("jit-static-float", lambda: tjit.jit(pair, static_argnums=1.0), TypeError,
         "jit(pair)", "static_argnums", "float"),
    _row("jit-static-bool", lambda: tjit.jit(pair, static_argnums=True), TypeError,
         "jit(pair)", "static_argnums"),
    _row("jit-argnames-int", lambda: tjit.jit(pair, donate_argnames=1), TypeError,
         "jit(pair)", "donate_argnames must be a str or a sequence of str"),
    _row("jit-varargs-negative", lambda: tjit.jit(varargs, static_argnums=-1), ValueError,
         "jit(varargs)", "negative", "*args"),
    # jit: at the call, when *args leaves the arity open
    _row("jit-varargs-static-at-call", lambda: tjit.jit(varargs, static_argnums=3)(X),
         ValueError, "jit(varargs)", "static_argnums=3", "called with 1 positional argument"),
    _row("jit-varargs-donate-at-call", lambda: tjit.jit(varargs, donate_argnums=(0, 2))(X),
         ValueError, "jit(varargs)", "donate_argnums=(0, 2)", "called with 1 positional"),
    # jit: polymorphic_shapes and backend
    _row("jit-spec-unclosed", lambda: tjit.jit(scale_sum, polymorphic_shapes=["(b,"]),
         ValueError, "jit(scale_sum)", "polymorphic_shapes[0]", "'(b,'", "never closed",
         "position 0"),
    _row("jit-spec-empty-dim", lambda: tjit.jit(scale_sum, polymorphic_shapes="(b,,3)"),
         ValueError, "jit(scale_sum)", "empty dim", "position 3"),
    _row("jit-spec-float-dim", lambda: tjit.jit(scale_sum, polymorphic_shapes=["(b, 1.5)"]),
         ValueError, "jit(scale_sum)", "unexpected '.'"),
    _row("jit-spec-two-ellipses", lambda: tjit.jit(scale_sum, polymorphic_shapes=["(..., ...)"]),
         ValueError, "jit(scale_sum)", "'...' may appear only once"),
    _row("jit-spec-too-many", lambda: tjit.jit(scale_sum, polymorphic_shapes=["(b,)", "(c,)"]),
         ValueError, "jit(scale_sum)", "2 entries", "takes 1 positional parameter"),
    _row("jit-spec-type", lambda: tjit.jit(scale_sum, polymorphic_shapes=3), TypeError,
         "jit(scale_sum)", "polymorphic_shapes must be"),
    _row("jit-backend", lambda: tjit.jit(scale_sum, backend="tpu"), ValueError,
         "jit(scale_sum)", "unknown backend 'tpu'", "'cpu'"),
    _row("make_jaxpr-static", lambda: tjit.make_jaxpr(scale_sum, static_argnums=4), ValueError,
         "make_jaxpr(scale_sum)", "static_argnums=4", "takes 1 positional parameter"),
    # grad and friends: argnums is checked against each call's positional arguments, as in
    # JAX; grad raises TypeError when the caller passed too few of them, ValueError for a
    # negative index past the first (jax/_src/api_util.py _ensure_inbounds); the jacobians
    # raise ValueError for both
    _row("grad-argnums-out-of-range", lambda: tjit.grad(scale_sum, argnums=3)(X), TypeError,
         "grad(scale_sum)", "argnums=3", "requires at least 4 positional arguments",
         "got only 1", "takes 1 positional parameter", "[-1, 1)"),
    _row("grad-argnums-negative-out-of-range", lambda: tjit.grad(scale_sum, argnums=-2)(X),
         ValueError, "grad(scale_sum)", "argnums=-2", "takes 1 positional parameter",
         "[-1, 1)"),
    _row("grad-argnums-str", lambda: tjit.grad(pair, argnums="y")(X, X), TypeError,
         "grad(pair)", "argnums must be an int or a sequence of ints", "'y'"),
    _row("grad-argnums-float", lambda: tjit.grad(pair, argnums=(0, 1.0)), TypeError,
         "grad(pair)", "argnums must be an int", "(0, 1.0)"),
    _row("grad-argnums-empty", lambda: tjit.grad(pair, argnums=()), ValueError,
         "grad(pair)", "argnums=()", "non-empty"),
    _row("grad-argnums-repeated-after-negative",
         lambda: tjit.grad(pair, argnums=(1, -1))(X, X), ValueError, "grad(pair)",
         "argnums=(1, -1)", "twice", "negative"),
    _row("grad-varargs-at-call", lambda: tjit.grad(varargs, argnums=2)(X), TypeError,
         "grad(varargs)", "argnums=2", "got only 1"),
    _row("grad-argument-by-keyword", lambda: tjit.grad(scale_sum)(x=X), TypeError,
         "grad(scale_sum)", "argnums=0", "got only 0", "pass argument 0 positionally"),
    _row("grad-not-callable", lambda: tjit.grad(X), TypeError, "grad", "callable"),
    _row("value_and_grad-argnums", lambda: tjit.value_and_grad(pair, argnums=2)(X, X),
         TypeError, "value_and_grad(pair)", "argnums=2", "takes 2 positional parameters"),
    _row("value_and_grad-non-scalar", lambda: tjit.value_and_grad(lambda x: x * 2.0)(X),
         TypeError, "value_and_grad(<lambda>)", "scalar-output", "(3,)", "jacrev"),
    _row("grad-tuple-output-without-has_aux",
         lambda: tjit.grad(lambda x: (jnp.sum(x), x))(X), TypeError, "grad(<lambda>)",
         "tuple of length 2", "has_aux=True"),
    _row("grad-has_aux-not-pair", lambda: tjit.grad(scale_sum, has_aux=True)(X), TypeError,
         "has_aux=True requires scale_sum to return a pair", "f32[]"),
    _row("jacrev-argnums", lambda: tjit.jacrev(pair, argnums=2)(X, X), ValueError,
         "jacrev(pair)", "argnums=2", "takes 2 positional parameters"),
    _row("jacrev-argument-by-keyword", lambda: tjit.jacrev(pair)(x=X, y=X), ValueError,
         "jacrev(pair)", "got only 0", "pass argument 0 positionally"),
    _row("jacfwd-argnums-negative", lambda: tjit.jacfwd(pair, argnums=-3)(X, X), ValueError,
         "jacfwd(pair)", "argnums=-3", "[-2, 2)"),
    _row("hessian-argnums", lambda: tjit.hessian(pair, argnums=(0, 2))(X, X), ValueError,
         "hessian(pair)", "argnums=(0, 2)"),
    _row("jacfwd-has_aux-not-pair", lambda: tjit.jacfwd(lambda x: x * 2.0, has_aux=True)(X),
         TypeError, "has_aux=True requires <lambda> to return a pair", "f32[3]"),
    _row("jacrev-has_aux-not-pair", lambda: tjit.jacrev(lambda x: x * 2.0, has_aux=True)(X),
         TypeError, "has_aux=True requires <lambda> to return a pair", "f32[3]"),
    _row("hessian-has_aux-not-pair", lambda: tjit.hessian(scale_sum, has_aux=True)(X),
         TypeError, "has_aux=True requires scale_sum to return a pair"),
    # vmap: option types when applied (TypeError); structure, ranks and sizes per call
    _row("vmap-in_axes-out-of-range", lambda: tjit.vmap(scale_sum, in_axes=1)(X), ValueError,
         "vmap(scale_sum)", "in_axes", "out of bounds", "argument x of shape (3,)",
         "axis 1", "[-1, 1)"),
    _row("vmap-in_axes-scalar-argument", lambda: tjit.vmap(scale_sum)(1.0), ValueError,
         "vmap(scale_sum)", "argument x of shape ()", "None in in_axes"),
    _row("vmap-in_axes-nested-out-of-range",
         lambda: tjit.vmap(lambda d: d["w"], in_axes=({"w": 1},))({"w": X}), ValueError,
         "vmap(<lambda>)", "argument d['w'] of shape (3,)", "axis 1"),
    _row("vmap-non-array-argument", lambda: tjit.vmap(scale)(X, "two"), TypeError,
         "vmap(scale)", "argument n is a str ('two')", "None in in_axes"),
    _row("vmap-keyword-argument-scalar", lambda: tjit.vmap(scale)(X, n=2.0), ValueError,
         "vmap(scale)", "keyword argument 'n' of shape ()", "axis 0", "positionally"),
    _row("vmap-in_axes-length", lambda: tjit.vmap(scale_sum, in_axes=(0, 0))(X), ValueError,
         "vmap(scale_sum)", "in_axes", "len(in_axes)=2, len(args)=1"),
    _row("vmap-in_axes-type", lambda: tjit.vmap(scale_sum, in_axes="a")(X), TypeError,
         "vmap(scale_sum)", "in_axes", "'a'"),
    _row("vmap-in_axes-dict-for-the-arguments",
         lambda: tjit.vmap(scale_sum, in_axes={"x": 0}), TypeError, "vmap(scale_sum)",
         "in_axes must be an int, None, or a tuple", "dict"),
    _row("vmap-in_axes-bool-leaf", lambda: tjit.vmap(scale_sum, in_axes=(True,)), TypeError,
         "vmap(scale_sum)", "in_axes", "True"),
    _row("vmap-in_axes-float-leaf", lambda: tjit.vmap(pair, in_axes=[0, 1.0]), TypeError,
         "vmap(pair)", "in_axes", "1.0"),
    _row("vmap-out_axes-type", lambda: tjit.vmap(scale_sum, out_axes="0"), TypeError,
         "vmap(scale_sum)", "out_axes must be"),
    _row("vmap-in_axes-dict-keys",
         lambda: tjit.vmap(lambda p: p["a"], in_axes=({"a": 0, "b": 0},))({"a": X}),
         ValueError, "vmap(<lambda>)", "tree prefix", "argument p", "['a', 'b']"),
    _row("vmap-in_axes-list-for-tuple",
         lambda: tjit.vmap(lambda p: p[0], in_axes=([0, None],))((X, X)), ValueError,
         "vmap(<lambda>)", "argument p", "a list where the value is a tuple",
         "use a tuple"),
    _row("vmap-out_axes-list-for-tuple",
         lambda: tjit.vmap(lambda x: (x, x), out_axes=[0, 0])(X), ValueError,
         "vmap(<lambda>)", "out_axes", "a list where the value is a tuple"),
    _row("vmap-out_axes-out-of-range", lambda: tjit.vmap(lambda x: x * 2, out_axes=1)(X),
         ValueError, "vmap(<lambda>)", "out_axes=1", "out of bounds", "[-1, 0]"),
    _row("vmap-out_axes-none-for-mapped",
         lambda: tjit.vmap(lambda x: (x, x), out_axes=(0, None))(X), ValueError,
         "vmap(<lambda>)", "out_axes is None", "output[1]"),
    _row("vmap-inconsistent-sizes", lambda: tjit.vmap(pair)(X, jnp.ones(4)), ValueError,
         "vmap(pair)", "inconsistent sizes", "axis 0 of argument x of type f32[3]",
         "axis 0 of argument y of type f32[4]"),
    _row("vmap-axis_size-mismatch", lambda: tjit.vmap(scale_sum, axis_size=4)(X), ValueError,
         "vmap(scale_sum)", "axis_size=4", "argument x (shape (3,)) has size 3"),
    _row("vmap-axis_size-type", lambda: tjit.vmap(scale_sum, axis_size=2.0), TypeError,
         "vmap(scale_sum)", "axis_size must be an int"),
    _row("vmap-nothing-mapped", lambda: tjit.vmap(scale_sum, in_axes=None)(X), ValueError,
         "vmap(scale_sum)", "at least one non-None value in in_axes", "axis_size"),
    _row("vmap-not-callable", lambda: tjit.vmap(X), TypeError, "vmap", "callable"),
    # checkpoint (negative static_argnums count from the arguments passed, as in JAX)
    _row("checkpoint-static-out-of-range",
         lambda: tjit.checkpoint(scale_sum, static_argnums=3)(X), ValueError,
         "checkpoint(scale_sum)", "static_argnums=3", "takes 1 positional parameter"),
    _row("checkpoint-static-repeated",
         lambda: tjit.checkpoint(scale, static_argnums=(1, 1))(X, 2.0), ValueError,
         "checkpoint(scale)", "repeats"),
    _row("checkpoint-static-str", lambda: tjit.checkpoint(scale, static_argnums="n"),
         TypeError, "checkpoint(scale)", "static_argnums must be an int"),
    _row("checkpoint-static-passed-by-keyword",
         lambda: tjit.checkpoint(scale, static_argnums=1)(X, n=2.0), ValueError,
         "checkpoint(scale)", "static_argnums=1", "got only 1",
         "pass argument 1 positionally"),
    _row("checkpoint-varargs-at-call", lambda: tjit.checkpoint(varargs, static_argnums=2)(X),
         ValueError, "checkpoint(varargs)", "static_argnums=2", "got only 1"),
    _row("checkpoint-policy-not-callable",
         lambda: tjit.checkpoint(scale_sum, policy="dots_saveable"), TypeError,
         "checkpoint(scale_sum)", "policy must be None or a callable", "'dots_saveable'"),
    # custom derivatives
    _row("custom_jvp-nondiff-out-of-range", lambda: _custom_jvp((3,))(X, 2.0), ValueError,
         "custom_jvp(scale)", "nondiff_argnums", "takes 2 positional parameters (x, n)"),
    _row("custom_vjp-nondiff-out-of-range", lambda: _custom_vjp((3,))(X, 2.0), ValueError,
         "custom_vjp(scale)", "nondiff_argnums", "[-2, 2)"),
    _row("custom_vjp-nondiff-negative-out-of-range", lambda: _custom_vjp(-3), ValueError,
         "custom_vjp(scale)", "nondiff_argnums=-3"),
    _row("custom_jvp-nondiff-repeated", lambda: _custom_jvp((1, -1)), ValueError,
         "custom_jvp(scale)", "repeats 1", "negative"),
    _row("custom_jvp-nondiff-str", lambda: _custom_jvp("n"), TypeError, "custom_jvp(scale)",
         "nondiff_argnums must be an int or a sequence of ints"),
    _row("custom_vjp-varargs-at-call",
         lambda: _custom_vjp(2, fun=varargs)(X), ValueError,
         "custom_vjp(varargs)", "nondiff_argnums=2", "got only 1"),
    _row("custom_vjp-rule-not-callable",
         lambda: tjit.custom_vjp(scale).defvjp(None, lambda r, g: (g, None)), TypeError,
         "custom_vjp(scale).defvjp", "fwd rule must be a callable", "NoneType"),
    _row("custom_vjp-fwd-not-a-pair",
         lambda: tjit.grad(lambda x: jnp.sum(_custom_vjp((), fwd=lambda x, n: x * n)(x, 2.0)))(X),
         TypeError, "fwd rule <lambda> for function scale", "must produce a pair"),
    _row("custom_vjp-bwd-wrong-length",
         lambda: tjit.grad(lambda x: jnp.sum(
             _custom_vjp((), bwd=lambda r, g: (g * r,))(x, 2.0)))(X),
         TypeError, "bwd rule <lambda> for function scale", "(2)", "tuple of length 1"),
]


@pytest.mark.parametrize("call, exc, fragments", ROWS)
def test_bad_option_raises_a_clear_error(call, exc, fragments):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from: {message}"


def test_negative_indices_count_from_the_end():
    traces = []

    def f(x, n):
        traces.append(n)
        return x * n

    g = tjit.jit(f, static_argnums=-1, donate_argnums=-2)
    np.testing.assert_allclose(np.asarray(g(jnp.ones(2), 3)), [3.0, 3.0])
    np.testing.assert_allclose(np.asarray(g(jnp.ones(2), n=4)), [4.0, 4.0])  # by name too
    assert traces == [3, 4]


def test_valid_options_are_accepted():
    def kw(x, **options):
        return x * options.get("scale", 1.0)

    tjit.jit(kw, static_argnames="scale")                 # **kwargs: any name
    tjit.jit(varargs, static_argnums=(1, 2))(X, 2, 3)     # *args: checked per call
    tjit.jit(pair, static_argnums=(), donate_argnames=[])
    tjit.jit(pair, static_argnums=np.int64(1))(X, 2.0)
    tjit.jit(scale_sum, polymorphic_shapes=["(b,)"])(X)
    tjit.jit(scale_sum, polymorphic_shapes=[None])(X)


def test_transforms_count_negative_indices_from_the_end():
    x, y = jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0])
    np.testing.assert_allclose(np.asarray(tjit.grad(pair, argnums=-1)(x, y)), [1.0, 2.0])
    _, gy = tjit.grad(pair, argnums=[0, -1])(x, y)           # a list: a tuple of gradients
    np.testing.assert_allclose(np.asarray(gy), [1.0, 2.0])
    g = tjit.grad(pair, argnums=np.int64(1))(x, y)           # an integer scalar: one gradient
    np.testing.assert_allclose(np.asarray(g), [1.0, 2.0])
    np.testing.assert_allclose(np.asarray(tjit.jacrev(pair, argnums=-2)(x, y)), [3.0, 4.0])
    np.testing.assert_allclose(np.asarray(tjit.hessian(pair, argnums=-1)(x, y)),
                               np.zeros((2, 2)))

    def power(x, n):
        for _ in range(n):              # n must be a Python int: static
            x = x * x
        return jnp.sum(x)
    g = tjit.grad(tjit.checkpoint(power, static_argnums=-1))(x, 2)
    np.testing.assert_allclose(np.asarray(g), 4 * np.asarray(x) ** 3)

    f = tjit.custom_jvp(scale, nondiff_argnums=-1)
    f.defjvp(lambda n, p, t: (p[0] * n, t[0] * n))
    np.testing.assert_allclose(np.asarray(tjit.grad(lambda v: jnp.sum(f(v, 3.0)))(x)), [3, 3])


def test_jacobians_pass_keyword_arguments_through():
    x = jnp.asarray([1.0, 2.0])
    for jac in (tjit.jacfwd, tjit.jacrev):
        np.testing.assert_allclose(np.asarray(jac(scale)(x, n=3.0)), 3 * np.eye(2))


def test_vmap_reads_a_top_level_in_axes_list_as_a_tuple():
    xs = jnp.ones((4, 2))
    as_list = tjit.vmap(pair, in_axes=[0, None])(xs, jnp.asarray([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(as_list), [3.0] * 4)
    # further down, a list matches a list-valued argument
    got = tjit.vmap(lambda p: p[0] + p[1], in_axes=([0, None],))([xs, jnp.ones(2)])
    assert got.shape == (4, 2)


def test_error_points_at_the_offending_text():
    with pytest.raises(ValueError) as info:
        tjit.jit(pair, polymorphic_shapes=[None, "(b, 3*)"])
    spec_line, caret_line = str(info.value).splitlines()[-2:]
    assert spec_line.strip() == "(b, 3*)"
    assert caret_line.index("^") - spec_line.index("(") == 4   # under "3*"
    assert re.search(r"jit\(pair\): polymorphic_shapes\[1\]", str(info.value))
