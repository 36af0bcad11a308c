"""Differential check: the text of ``make_jaxpr(f)(*args)`` in tjit and in JAX.

Each case is a small program written once against a "kit" (``jax``, ``jnp``, ``lax``
of either library) covering what people print in notebooks: elementwise ops and
literals, dot_general, reductions, cond/switch/while/fori/scan, nested jit, custom_jvp
and custom_vjp, weak types, closed-over constants, pytree inputs, static arguments,
grad (dropped outputs ``_``), vmap, symbolic shapes and effects (debug.print). Both
libraries print each case; the script reports which print the same text and shows
the two texts where they differ.

    /work/jaxvenv/bin/python benchmarks/diff_jaxpr_text.py [--only NAME ...] [--all]
    /work/jaxvenv/bin/python benchmarks/diff_jaxpr_text.py --dump-jax out.json

(The JAX venv has tjit installed editable, so one process imports both.) ``--all``
prints both texts for matching cases too; ``--dump-jax`` writes JAX's texts as JSON,
the source of the expected strings hard-coded in tests/tracing/test_jaxpr_text.py.

31 of the 47 print the same text. The others differ where the programs differ, not the
printer: tjit inlines nested jit (JAX: a jit equation with the body, also around
jnp.where and nn.relu), accumulates cotangents with add (JAX: add_any), its reductions,
reshape and iota carry no out_sharding/sharding params, tjit's add wants equal shapes
(JAX's broadcasts size-1 dims after rank promotion), scan keeps a ys output that only forwards an xs (JAX drops it), integer_pow's
derivative at y=2 binds integer_pow[y=1] (JAX: x), debug.print is a debug_callback
(JAX: debug_print with its format params), callbacks hold result_types (JAX:
result_avals and a _FlatCallback).
"""

import argparse
import json
import sys
import types

import numpy as np


def kit(lib):
    if lib == "jax":
        import jax
        import jax.experimental  # noqa: F401  (io_callback)
        import jax.numpy as jnp
        from jax import lax
    else:
        import tjit as jax
        import tjit.experimental  # noqa: F401  (io_callback)
        import tjit.numpy as jnp
        from tjit import lax
    return types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, lib=lib)


f32 = np.float32
X3 = np.arange(3, dtype=f32)
M23 = np.arange(6, dtype=f32).reshape(2, 3)
M34 = np.ones((3, 4), f32)


# Each case: k -> (function, args, make_jaxpr keyword arguments).
def c_elementwise(k):
    return (lambda x: k.jnp.sin(x) * 2.0), (X3,), {}


def c_scalar_python_float(k):
    return (lambda x: x * 2 + 1), (3.0,), {}


def c_int_literals(k):
    return (lambda x: (x + 1) * 2), (np.arange(3, dtype=np.int32),), {}


def c_dot(k):
    return (lambda a, b: k.jnp.dot(a, b)), (M23, M34), {}


def c_matmul_tanh(k):
    return (lambda a, b: k.jnp.tanh(a @ b).sum()), (M23, M34), {}


def c_reduce_sum(k):
    return (lambda a: k.jnp.sum(a, axis=0)), (M23,), {}


def c_reduce_max(k):
    return (lambda a: k.lax.reduce_max(a, axes=(1,))), (M23,), {}


def c_argmax(k):
    return (lambda a: k.lax.argmax(a, 1, np.int32)), (M23,), {}


def c_multiple_outputs(k):
    return (lambda x, y: (x + y, x * y, y)), (X3, X3), {}


def c_pytree_inputs(k):
    def f(d):
        return d["a"] * d["b"][0] - d["b"][1]
    return f, ({"a": X3, "b": (X3, X3)},), {}


def c_static_arg(k):
    def f(x, n):
        return x ** n
    return f, (X3, 3), {"static_argnums": (1,)}


def c_closed_const(k):
    c = np.arange(3, dtype=f32) + 1
    return (lambda x: x * c), (X3,), {}


def c_broadcast(k):
    return (lambda x, y: x + y), (M23, X3), {}


def c_convert(k):
    return (lambda x: x.astype(k.jnp.int32) + 1), (X3,), {}


def c_reshape_transpose(k):
    return (lambda x: x.reshape(3, 2).T), (M23,), {}


def c_select_where(k):
    return (lambda x: k.jnp.where(x > 0, x, 0.0)), (X3,), {}


def c_cond(k):
    def f(p, x):
        return k.lax.cond(p, lambda x: k.jnp.sin(x), lambda x: k.jnp.cos(x), x)
    return f, (True, X3), {}


def c_switch(k):
    def f(i, x):
        return k.lax.switch(i, [lambda x: x + 1.0, lambda x: x * 2.0, k.jnp.negative], x)
    return f, (1, X3), {}


def c_while(k):
    def f(x):
        return k.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0),
                                (0, x))
    return f, (X3,), {}


def c_fori(k):
    def f(x):
        return k.lax.fori_loop(0, 5, lambda i, c: c + i, x)
    return f, (X3,), {}


def c_scan(k):
    def f(c, xs):
        def body(c, x):
            c = c + x
            return c, c * 2.0
        return k.lax.scan(body, c, xs)
    return f, (np.float32(0), X3), {}


def c_nested_jit(k):
    @k.jax.jit
    def inner(x):
        return k.jnp.exp(x) + 1.0

    def f(x):
        return inner(x) * inner(x)
    return f, (X3,), {}


def c_jit_once(k):
    @k.jax.jit
    def g(x, y):
        return x * y

    return (lambda x: g(x, 2.0) - 1.0), (X3,), {}


def c_custom_jvp(k):
    @k.jax.custom_jvp
    def f(x):
        return k.jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), k.jnp.cos(x) * t
    return f, (X3,), {}


def c_custom_vjp(k):
    @k.jax.custom_vjp
    def f(x):
        return k.jnp.sin(x)

    def fwd(x):
        return f(x), k.jnp.cos(x)

    def bwd(res, g):
        return (res * g,)
    f.defvjp(fwd, bwd)
    return f, (X3,), {}


def c_grad(k):
    return k.jax.grad(lambda x: k.jnp.sum(k.jnp.sin(x) * x)), (X3,), {}


def c_grad_scalar(k):
    return k.jax.grad(lambda x: x * k.jnp.sin(x)), (np.float32(1.0),), {}


def c_value_and_grad(k):
    return k.jax.value_and_grad(lambda x: k.jnp.sum(x ** 2)), (X3,), {}


def c_vmap(k):
    return k.jax.vmap(lambda x, y: k.jnp.dot(x, y)), (M23, M23), {}


def c_relu(k):
    return k.jax.nn.relu, (X3,), {}


def c_debug_print(k):
    def f(x):
        k.jax.debug.print("x = {}", x)
        return x + 1.0
    return f, (X3,), {}


def c_io_callback(k):
    def f(x):
        y = k.jax.experimental.io_callback(np.sin, k.jax.ShapeDtypeStruct((3,), f32), x,
                                           ordered=True)
        return y + 1.0
    return f, (X3,), {}


def c_pure_callback(k):
    def f(x):
        return k.jax.pure_callback(np.cos, k.jax.ShapeDtypeStruct((3,), f32), x) * 2.0
    return f, (X3,), {}


def c_iota_zeros(k):
    return (lambda x: x + k.jnp.arange(3.0) + k.jnp.zeros(3)), (X3,), {}


def c_bool_ops(k):
    return (lambda x, y: k.jnp.logical_and(x > 1.0, y < 2.0)), (X3, X3), {}


def c_many_vars(k):
    def f(x):
        for _ in range(14):
            x = k.jnp.sin(x)
        return x
    return f, (np.float32(1.0),), {}


def c_concat_slice(k):
    return (lambda x: k.jnp.concatenate([x, x[1:]])), (X3,), {}


def c_symbolic_shape(k):
    b, = k.jax.export.symbolic_shape("b")
    return (lambda x: k.jnp.sin(x) * 2.0), (k.jax.ShapeDtypeStruct((b, 3), f32),), {}


def _sines(k, c, n):
    for _ in range(n):
        c = k.jnp.sin(c)
    return c


def c_scan_long_body(k):   # a body of more than 10 equations is printed once, on top
    def f(c, xs):
        return k.lax.scan(lambda c, x: (_sines(k, c, 11) + x, None), c, xs)[0]
    return f, (np.float32(1), X3), {}


def c_two_long_bodies(k):
    def f(c, xs):
        c = k.lax.scan(lambda c, x: (_sines(k, c, 11) + x, None), c, xs)[0]
        return k.lax.fori_loop(0, 3, lambda i, c: _sines(k, c, 12), c)
    return f, (np.float32(1), X3), {}


def c_cond_passthrough(k):   # a branch without equations: "let  in"
    def f(x, y):
        return k.lax.cond(x > 0, lambda y: y * 2.0, lambda y: y, y)
    return f, (np.float32(1), X3), {}


def c_zeros_ones(k):
    return (lambda x: k.jnp.zeros(3) + k.jnp.ones(3, k.jnp.int32) + x), (X3,), {}


def c_grad_mul_const(k):
    return k.jax.grad(lambda x: k.jnp.sin(x) * 3.0), (np.float32(1.0),), {}


def c_grad_of_cond(k):
    def f(x):
        return k.lax.cond(x > 0, k.jnp.sin, k.jnp.cos, x)
    return k.jax.grad(f), (np.float32(1.0),), {}


def c_matvec_chain(k):
    return (lambda w, b, x: k.jnp.tanh(w @ x + b)), (M23, np.ones(2, f32), X3), {}


def c_tensordot(k):
    return (lambda a, b: k.jnp.tensordot(a, b, axes=1)), (M23, M34), {}


def c_no_inputs(k):
    return (lambda: k.jnp.float32(2.0) * 3.0), (), {}


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


def text(lib, name):
    k = kit(lib)
    fun, args, kw = CASES[name](k)
    try:
        return str(k.jax.make_jaxpr(fun, **kw)(*args))
    except Exception as e:   # a case one library refuses is reported, not fatal
        return f"<{type(e).__name__}: {e}>"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--dump-jax")
    a = ap.parse_args()
    names = a.only or list(CASES)
    if a.dump_jax:
        with open(a.dump_jax, "w") as f:
            json.dump({n: text("jax", n) for n in names}, f, indent=1)
        return
    same = []
    for n in names:
        tj, tt = text("jax", n), text("tjit", n)
        if tj == tt:
            same.append(n)
            if not a.all:
                continue
        print(f"===== {n}: {'same' if tj == tt else 'DIFFERENT'}")
        print(tj)
        if tj != tt:
            print("-- tjit")
            print(tt)
    print(f"\n{len(same)}/{len(names)} cases print the same text: {' '.join(same)}")


if __name__ == "__main__":
    sys.exit(main())
