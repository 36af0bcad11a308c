"""Options that pick a function's arguments, checked for every transformation.

One row per bad option: it must raise (never be ignored) an error of the given type
whose message names the transformation and the function (``jit(scale_sum)``) and
contains the given fragments (the option, the arity, the fix). Rows still failing in
modules outside jit are marked ``xfail(strict=True)`` with the module to fix, so that a
fix shows up as an unexpected pass.
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


def _custom_vjp(nondiff):
    f = tjit.custom_vjp(scale, nondiff_argnums=nondiff)
    f.defvjp(lambda x, n: (x * n, n), lambda n, g: (g * n, None))
    return f


def _row(name, call, exc, *fragments, owner=None):
    marks = [pytest.mark.xfail(strict=True, reason=f"not checked yet in {owner}")] \
        if owner else []
    return pytest.param(call, exc, fragments, id=name, marks=marks)


AD, BATCHING = "tjit/transforms/ad.py", "tjit/transforms/batching.py"
CHECKPOINT, CUSTOM = "tjit/transforms/checkpoint.py", "tjit/transforms/custom_derivatives.py"

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
    _row("jit-backend", lambda: tjit.jit(scale_sum, backend="gpu"), ValueError,
         "jit(scale_sum)", "unknown backend 'gpu'", "'cpu'"),
    _row("make_jaxpr-static", lambda: tjit.make_jaxpr(scale_sum, static_argnums=4), ValueError,
         "make_jaxpr(scale_sum)", "static_argnums=4", "takes 1 positional parameter"),
    # grad and friends
    # (JAX raises TypeError here: the call passed too few arguments for argnums)
    _row("grad-argnums-out-of-range", lambda: tjit.grad(scale_sum, argnums=3)(X), TypeError,
         "grad(scale_sum)", "argnums=3", "takes 1 positional parameter", owner=AD),
    _row("grad-argnums-negative-out-of-range", lambda: tjit.grad(scale_sum, argnums=-2)(X),
         TypeError, "grad(scale_sum)", "argnums=-2", "takes 1 positional parameter",
         owner=AD),
    _row("grad-argnums-str", lambda: tjit.grad(pair, argnums="y")(X, X), TypeError,
         "grad(pair)", "argnums must be an int or a sequence of ints", owner=AD),
    _row("value_and_grad-argnums", lambda: tjit.value_and_grad(pair, argnums=2)(X, X),
         TypeError, "value_and_grad(pair)", "argnums=2", owner=AD),
    _row("jacrev-argnums", lambda: tjit.jacrev(pair, argnums=2)(X, X), TypeError,
         "jacrev(pair)", "argnums=2", owner=AD),
    # vmap
    _row("vmap-in_axes-out-of-range", lambda: tjit.vmap(scale_sum, in_axes=1)(X), ValueError,
         "vmap(scale_sum)", "in_axes", "out of bounds", owner=BATCHING),
    _row("vmap-in_axes-length", lambda: tjit.vmap(scale_sum, in_axes=(0, 0))(X), ValueError,
         "vmap(scale_sum)", "in_axes", owner=BATCHING),
    _row("vmap-in_axes-type", lambda: tjit.vmap(scale_sum, in_axes="a")(X), TypeError,
         "vmap(scale_sum)", "in_axes", owner=BATCHING),
    _row("vmap-out_axes-out-of-range", lambda: tjit.vmap(lambda x: x * 2, out_axes=1)(X),
         ValueError, "vmap(<lambda>)", "out_axes=1", owner=BATCHING),
    # checkpoint and custom derivatives
    _row("checkpoint-static-out-of-range",
         lambda: tjit.checkpoint(scale_sum, static_argnums=3)(X), ValueError,
         "checkpoint(scale_sum)", "static_argnums=3", owner=CHECKPOINT),
    _row("checkpoint-static-repeated",
         lambda: tjit.checkpoint(scale, static_argnums=(1, 1))(X, 2.0), ValueError,
         "checkpoint(scale)", "repeats", owner=CHECKPOINT),
    _row("custom_jvp-nondiff-out-of-range", lambda: _custom_jvp((3,))(X, 2.0), ValueError,
         "custom_jvp(scale)", "nondiff_argnums", owner=CUSTOM),
    _row("custom_vjp-nondiff-out-of-range", lambda: _custom_vjp((3,))(X, 2.0), ValueError,
         "custom_vjp(scale)", "nondiff_argnums", owner=CUSTOM),
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


def test_error_points_at_the_offending_text():
    with pytest.raises(ValueError) as info:
        tjit.jit(pair, polymorphic_shapes=[None, "(b, 3*)"])
    spec_line, caret_line = str(info.value).splitlines()[-2:]
    assert spec_line.strip() == "(b, 3*)"
    assert caret_line.index("^") - spec_line.index("(") == 4   # under "3*"
    assert re.search(r"jit\(pair\): polymorphic_shapes\[1\]", str(info.value))
