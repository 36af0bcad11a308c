"""More faithful ports of JAX documentation programs (pytrees, jaxpr, thinking-in-JAX and
arrays pages) that raised something else, or printed something else, when ported by
changing imports (benchmarks/ports/run_docs.py finds them). Values are checked against
NumPy in float64; printed forms against the text JAX's pages show."""

import collections

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax


# -- docs/pytrees.md, docs/new_docs/101/pytrees.md: dict keys that do not sort -------------
def test_pytrees_mixed_dict_keys_raise_value_error():
    # jax.tree.map(lambda x: x + 1, {1: 7, "y": 42}) raises ValueError in JAX (the pages
    # show it); sort's bare TypeError escaped instead
    for call in (lambda t: jax.tree.map(lambda x: x + 1, t),
                 jax.tree_util.tree_leaves,
                 jax.tree_util.tree_flatten_with_path,
                 lambda t: jax.tree_util.tree_leaves(collections.defaultdict(int, t))):
        with pytest.raises(ValueError, match="sorting pytree dictionary keys") as info:
            call({1: 7, "y": 42})
        assert "'y' (str)" in str(info.value) and "OrderedDict" in str(info.value)
    # keys that do sort still flatten in sorted order, and an OrderedDict keeps its order
    assert jax.tree.map(lambda x: x + 1, {2: 7, 1: 42}) == {1: 43, 2: 8}
    od = collections.OrderedDict([(1, 7), ("y", 42)])
    assert jax.tree_util.tree_leaves(od) == [7, 42]


# -- docs/jaxpr.md, docs/new_docs/101/state.md: the printed jaxpr --------------------------
def test_jaxpr_prints_outputs_with_commas_and_dtype_names():
    def f(x):
        return x + 1, x * 2

    text = str(jax.make_jaxpr(f)(1))
    assert text.endswith("in (b, c) }"), text
    # Writing_custom_interpreters: a jaxpr within 80 columns is one line, "; " between
    # equations; a longer one puts an equation on each line
    short = jax.make_jaxpr(lambda x: jnp.exp(jnp.tanh(x)))(jnp.ones(5))
    assert str(short) == "{ lambda ; a:f32[5]. let b:f32[5] = tanh a; c:f32[5] = exp b in (c,) }"
    long = str(jax.make_jaxpr(lambda x: jnp.exp(jnp.tanh(jnp.sin(x))))(jnp.ones(5)))
    assert long.splitlines()[1:] == ["    b:f32[5] = sin a", "    c:f32[5] = tanh b",
                                     "    d:f32[5] = exp c", "  in (d,) }"], long

    def g(i, x):   # docs/jaxpr.md's switch: the index is converted to int32
        return lax.switch(i, [lambda v: v + 1.0, lambda v: v - 2.0], x)

    text = str(jax.make_jaxpr(g)(1, 3.0))
    assert "convert_element_type[new_dtype=int32 weak_type=False]" in text, text
    assert "new_dtype=i32" not in text
    np.testing.assert_allclose(g(0, 3.0), 4.0)
    np.testing.assert_allclose(g(1, 3.0), 1.0)

    def h(x):   # scan's body returns its carry and output with commas too (its names
        return lax.scan(lambda c, y: (c + y, c * y), x, jnp.arange(3.0))  # go on: JAX's)
    assert "in (h, j) }" in str(jax.make_jaxpr(h)(1.0))
    c, ys = h(1.0)
    np.testing.assert_allclose(c, 4.0)
    np.testing.assert_allclose(ys, [0.0, 1.0, 4.0])


# -- docs/notebooks/thinking_in_jax.md, docs/new_docs/101/arrays.md: x.sharding -------------
def test_single_device_sharding_names_its_memory_kind():
    x = jnp.arange(5.0)
    # the pages print SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    assert repr(x.sharding).endswith(", memory_kind=device)"), repr(x.sharding)
    assert x.sharding.memory_kind == "device"
    dev = jax.devices()[0]
    assert jax.sharding.SingleDeviceSharding(dev, memory_kind="device") == \
        jax.sharding.SingleDeviceSharding(dev)
    with pytest.raises(ValueError, match="memory_kind='pinned_host'.*'device'"):
        jax.sharding.SingleDeviceSharding(dev, memory_kind="pinned_host")
    mesh = jax.make_mesh((1,), ("x",))
    s = jax.sharding.NamedSharding(mesh, jax.P("x"))
    assert s.memory_kind == "device" and repr(s).endswith("memory_kind=device)")
    np.testing.assert_allclose(jax.device_put(x, s), np.arange(5.0))


# -- docs/notebooks/Writing_custom_interpreters_in_Jax.md: a jaxpr interpreter ------------
def test_custom_interpreter_inverse_with_jax_src_util_safe_map():
    # the tutorial imports safe_map from jax._src.util (ModuleNotFoundError for tjit._src)
    from functools import wraps

    from tjit._src.util import safe_map
    from tjit.extend import core

    inverse_registry = {lax.exp_p: jnp.log, lax.tanh_p: jnp.arctanh}

    def inverse_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            return var.val if type(var) is core.Literal else env[var]

        def write(var, val):
            env[var] = val
        safe_map(write, jaxpr.outvars, args)
        safe_map(write, jaxpr.constvars, consts)
        for eqn in jaxpr.eqns[::-1]:
            invals = safe_map(read, eqn.outvars)
            outval = inverse_registry[eqn.primitive](*invals)
            safe_map(write, eqn.invars, [outval])
        return safe_map(read, jaxpr.invars)

    def inverse(fun):
        @wraps(fun)
        def wrapped(*args):
            closed_jaxpr = jax.make_jaxpr(fun)(*args)
            return inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)[0]
        return wrapped

    def f(x):
        return jnp.exp(jnp.tanh(x))

    y = (np.arange(5) + 1.0) / 5.0
    with np.errstate(invalid="ignore"):   # (log 0.2 < -1: arctanh is NaN there, as JAX's)
        want = np.arctanh(np.log(y))
    np.testing.assert_allclose(inverse(f)(f(1.0)), 1.0, rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.vmap(inverse(f)))(y), want, rtol=1e-5)
    # d/dy arctanh(log y) = 1 / (y (1 - log(y)^2)), what the page prints
    got = jax.jit(jax.vmap(jax.grad(inverse(f))))(y)
    np.testing.assert_allclose(got, 1.0 / (y * (1.0 - np.log(y) ** 2)), rtol=1e-4)
    with pytest.raises(ValueError, match=r"safe_map.*lengths \[2, 1\]"):
        safe_map(lambda a, b: a, [1, 2], [3])


# -- docs/new_docs/301/remat.md: the page turns on jax_remat3 first ----------------------
@pytest.mark.parametrize("flag", ["jax_remat3", "jax_scan3", "jax_custom_vjp3"])
def test_remat_page_config_flags_are_accepted(flag):
    # config.update('jax_remat3', True) raised UnknownConfigOptionError, so the page's
    # first cell stopped before `import jax.numpy as jnp` and every later cell failed
    before = getattr(jax.config, flag)
    jax.config.update(flag, True)
    try:
        assert getattr(jax.config, flag) is True

        def g(W, x):
            return jnp.sin(jnp.dot(W, x))

        def f(W1, W2, x):
            return jnp.sum(jax.checkpoint(g)(W2, jax.checkpoint(g)(W1, x)))

        rng = np.random.default_rng(1)
        W1, W2 = rng.standard_normal((5, 4)), rng.standard_normal((3, 5))
        x = rng.standard_normal(4)
        got = jax.grad(f, argnums=2)(W1.astype(np.float32), W2.astype(np.float32),
                                     x.astype(np.float32))

        def ref(v):
            return np.sum(np.sin(W2 @ np.sin(W1 @ v)))
        h = 1e-6
        fd = [(ref(x + h * e) - ref(x - h * e)) / (2 * h) for e in np.eye(4)]
        np.testing.assert_allclose(got, fd, rtol=1e-4, atol=1e-5)
        with pytest.raises(ValueError, match="takes a bool"):
            jax.config.update(flag, "yes please")
    finally:
        jax.config.update(flag, before)


# -- docs/array_refs.md, docs/new_docs/101/state.md: the type of a ref ---------------------
def test_typeof_of_a_ref_is_its_ref_type():
    # jax.typeof(x_ref) raised "expected an array or scalar, got Ref"
    x_ref = jax.new_ref(jnp.zeros(3))
    t = jax.typeof(x_ref)
    assert str(t) == "Ref{float32[3]}" and t.shape == (3,) and t.dtype == np.float32
    assert str(t.inner_aval) == "float32[3]"
    assert t == jax.typeof(jax.new_ref(jnp.ones(3)))
    assert t != jax.typeof(jax.new_ref(jnp.ones(4)))

    seen = []

    @jax.jit
    def f(r):
        seen.append(str(jax.typeof(r)))   # the same type while tracing
        r[...] += jnp.arange(3.0)
        return jnp.sum(r[...])

    np.testing.assert_allclose(f(x_ref), 3.0)
    assert seen == ["Ref{float32[3]}"]
    np.testing.assert_allclose(x_ref[...], np.arange(3.0))


# -- docs/new_docs/301/custom-derivatives.md: jit(f).trace().jaxpr of a ref closure ---------
def test_jit_trace_of_a_function_closing_over_a_ref():
    # print(jax.jit(bwd_jaxpr).trace().jaxpr) raised RefNotThreaded, though the call of
    # the same jit runs (it threads the closed-over ref)
    grad_ref = jax.new_ref(jnp.zeros(4))
    x = jnp.arange(4.0)

    def bwd():
        _, f_vjp = jax.vjp(lambda v: v[2] * 3.0, x)
        f_vjp.with_refs(grad_ref)(1.0)

    traced = jax.jit(bwd).trace()
    text = str(traced.jaxpr)
    assert text.startswith("{ lambda") and "f32[4]" in text
    np.testing.assert_allclose(grad_ref[...], np.zeros(4))   # tracing changed nothing
    with pytest.raises(NotImplementedError, match=r"closes over mutable array references"):
        traced.lower().compile()
    jax.jit(bwd)()
    jax.jit(bwd)()   # the gradient 3 at index 2, accumulated twice
    np.testing.assert_allclose(grad_ref[...], [0.0, 0.0, 6.0, 0.0])
