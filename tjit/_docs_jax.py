"""Examples for the JAX-only namespaces (tjit, tjit.lax, tjit.random, tjit.nn,
tjit.nn.initializers), written as JAX users write them: ``jax`` is tjit, ``jnp`` is
tjit.numpy.

Each entry of ``CALLS`` is a call whose printed result ``python -m tjit._docs`` generates
into tjit/_doc_examples.py (JAX_EXAMPLES), and its reference: a NumPy/SciPy callable in
float64 taking the call's arguments (the call is evaluated a second time with ``jnp``
bound to numpy and ``jax.<path>`` to the reference callables), or a whole NumPy
expression (tjit/_docs_lax.py's table), or None where there is no independent one. An
example is stored only when it agrees with its reference; tests/test_docstrings.py
re-checks both. Random examples mostly have no reference: their output is fixed by the
key, and the test checks that they print what the docstring shows. ``NOTES`` adds the
documented differences from JAX to the docstrings.
"""

import inspect
import textwrap
import types

import numpy as np

# namespaces whose public functions each need an example, and their name in examples
NAMESPACES = (("tjit.nn", "jax.nn"), ("tjit.nn.initializers", "jax.nn.initializers"))

_X = "jnp.asarray([-1.5, 0.0, 2.5])"
_P = "jnp.asarray([0.25, 0.5, 0.75])"
_M = "jnp.asarray([[1.0, 2.0], [3.0, 0.5]])"


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _standardize(x, axis=-1, epsilon=1e-5):
    x = np.asarray(x, np.float64)
    return (x - x.mean(axis, keepdims=True)) / np.sqrt(x.var(axis, keepdims=True) + epsilon)


def _gelu(x, approximate=True):
    x = np.asarray(x, np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _special().erf(x / np.sqrt(2)))


def _special():  # scipy.special loads only when a reference runs (not at tjit's import)
    import scipy.special
    return scipy.special


def _expit(x):
    return _special().expit(x)


def _causal_attention(q, k, v, is_causal):
    """One head of (T, 1, H) inputs: softmax(q k^T / sqrt(H)) v over keys s <= t."""
    q, k, v = (np.asarray(a, np.float64)[:, 0] for a in (q, k, v))
    logits = q @ k.T / np.sqrt(q.shape[-1])
    logits = np.where(np.tril(np.ones(logits.shape, bool)), logits, -np.inf)
    return (_softmax(logits) @ v)[:, None]


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805
_hs = lambda x: np.clip(np.asarray(x) + 3, 0, 6) / 6  # hard sigmoid

# "jax.path.name": (call, reference callable or None)
CALLS = {
    "jax.nn.identity": (f"jax.nn.identity({_X})", lambda x: x),
    "jax.nn.relu": (f"jax.nn.relu({_X})", lambda x: np.maximum(x, 0)),
    "jax.nn.relu6": ("jax.nn.relu6(jnp.asarray([-1.5, 2.5, 7.0]))", lambda x: np.clip(x, 0, 6)),
    "jax.nn.sigmoid": (f"jax.nn.sigmoid({_X})", _expit),
    "jax.nn.softplus": (f"jax.nn.softplus({_X})", lambda x: np.logaddexp(x, 0)),
    "jax.nn.log_sigmoid": (f"jax.nn.log_sigmoid({_X})", lambda x: -np.logaddexp(-x, 0)),
    "jax.nn.silu": (f"jax.nn.silu({_X})", lambda x: x * _expit(x)),
    "jax.nn.swish": (f"jax.nn.swish({_X})", lambda x: x * _expit(x)),
    "jax.nn.mish": (f"jax.nn.mish({_X})", lambda x: x * np.tanh(np.logaddexp(x, 0))),
    "jax.nn.soft_sign": (f"jax.nn.soft_sign({_X})", lambda x: x / (1 + np.abs(x))),
    "jax.nn.squareplus": (f"jax.nn.squareplus({_X})",
                          lambda x, b=4: (x + np.sqrt(x * x + b)) / 2),
    "jax.nn.elu": (f"jax.nn.elu({_X})", lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x))),
    "jax.nn.selu": (f"jax.nn.selu({_X})", lambda x: _SELU_SCALE * np.where(
        x > 0, x, _SELU_ALPHA * np.expm1(x))),
    "jax.nn.celu": (f"jax.nn.celu({_X}, alpha=2.0)", lambda x, alpha=1.0: np.where(
        x > 0, x, alpha * np.expm1(x / alpha))),
    "jax.nn.leaky_relu": (f"jax.nn.leaky_relu({_X}, negative_slope=0.1)",
                          lambda x, negative_slope=0.01: np.where(x >= 0, x, negative_slope * x)),
    "jax.nn.hard_tanh": (f"jax.nn.hard_tanh({_X})", lambda x: np.clip(x, -1, 1)),
    "jax.nn.hard_sigmoid": (f"jax.nn.hard_sigmoid({_X})", _hs),
    "jax.nn.hard_silu": (f"jax.nn.hard_silu({_X})", lambda x: x * _hs(x)),
    "jax.nn.hard_swish": (f"jax.nn.hard_swish({_X})", lambda x: x * _hs(x)),
    "jax.nn.sparse_plus": ("jax.nn.sparse_plus(jnp.asarray([-1.5, 0.5, 2.5]))",
                           lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    "jax.nn.sparse_sigmoid": ("jax.nn.sparse_sigmoid(jnp.asarray([-1.5, 0.5, 2.5]))",
                              lambda x: np.clip((x + 1) / 2, 0, 1)),
    "jax.nn.gelu": (f"jax.nn.gelu({_X}), jax.nn.gelu({_X}, approximate=False)",
                    _gelu),
    "jax.nn.glu": ("jax.nn.glu(jnp.asarray([1.0, -2.0, 0.5, 3.0]))",
                   lambda x, axis=-1: x[:2] * _expit(x[2:])),
    "jax.nn.log1mexp": (f"jax.nn.log1mexp({_P})", lambda x: np.log(-np.expm1(-x))),
    "jax.nn.softmax": (f"jax.nn.softmax({_M})", _softmax),
    "jax.nn.log_softmax": (f"jax.nn.log_softmax({_M})", lambda x, axis=-1: np.log(
        _softmax(x, axis))),
    "jax.nn.logmeanexp": (f"jax.nn.logmeanexp({_X})", lambda x, axis=None: np.log(
        np.mean(np.exp(x)))),
    "jax.nn.standardize": (f"jax.nn.standardize({_M})", _standardize),
    "jax.nn.normalize": (f"jax.nn.normalize({_M})", _standardize),
    "jax.nn.one_hot": ("jax.nn.one_hot(jnp.asarray([0, 2]), 3)",
                       lambda x, n: np.eye(n)[np.asarray(x)]),
    "jax.nn.dot_product_attention": (
        ("jax.nn.dot_product_attention(jnp.asarray([[[1.0, 0.0]], [[0.0, 2.0]]]), "
         "jnp.asarray([[[1.0, 0.0]], [[0.0, 1.0]]]), jnp.asarray([[[1.0, 2.0]], [[3.0, 4.0]]]), "
         "is_causal=True)"), _causal_attention),
}

_K = "jax.random.key(0)"
for _name in ("uniform", "normal", "truncated_normal", "glorot_uniform", "glorot_normal",
              "xavier_uniform", "xavier_normal", "lecun_uniform", "lecun_normal",
              "he_uniform", "he_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"):
    CALLS[f"jax.nn.initializers.{_name}"] = (
        f"jax.nn.initializers.{_name}()({_K}, (2, 2))", None)  # fixed by the key
CALLS["jax.nn.initializers.delta_orthogonal"] = (
    f"jax.nn.initializers.delta_orthogonal()({_K}, (3, 2, 2))", None)  # fixed by the key
CALLS.update({
    "jax.nn.initializers.zeros": (f"jax.nn.initializers.zeros({_K}, (2, 3))",
                                  lambda key, shape: np.zeros(shape)),
    "jax.nn.initializers.ones": (f"jax.nn.initializers.ones({_K}, (2, 3))",
                                 lambda key, shape: np.ones(shape)),
    "jax.nn.initializers.constant": (
        f"jax.nn.initializers.constant(0.5)({_K}, (2, 3))",
        lambda value: lambda key, shape: np.full(shape, value)),
    "jax.nn.initializers.variance_scaling": (
        f"jax.nn.initializers.variance_scaling(2.0, 'fan_in', 'uniform')({_K}, (2, 2))", None),
    "jax.nn.initializers.compute_fans": (
        "jax.nn.initializers.compute_fans((3, 3, 4, 8))",  # HWIO: receptive field 9
        lambda shape, in_axis=-2, out_axis=-1: (9.0 * shape[in_axis], 9.0 * shape[out_axis])),
})
del _name


def example_globals(reference=False):
    """What an example sees: ``jax`` is tjit and ``jnp`` tjit.numpy, or (``reference``)
    ``jnp`` is numpy and ``jax.<path>`` the reference callable of ``REFERENCES``."""
    import importlib
    if not reference:
        return {"jax": importlib.import_module("tjit"),
                "jnp": importlib.import_module("tjit.numpy")}
    root = types.SimpleNamespace()
    for qualname, (_, ref) in CALLS.items():
        if isinstance(ref, str):
            continue  # a whole expression, not a callable
        node = root
        for part in qualname.split(".")[1:-1]:
            node = node.__dict__.setdefault(part, types.SimpleNamespace())
        setattr(node, qualname.rsplit(".", 1)[1], ref)
    # a typed key has no NumPy counterpart: references see its data, as PRNGKey's
    if hasattr(root, "random"):
        root.random.key = root.random.PRNGKey
    return {"jax": root, "jnp": np}


def reference_value(qualname):
    """The reference's result for ``CALLS[qualname]``: a NumPy/SciPy expression (a str,
    seeing ``np`` and ``sp`` = scipy.special) or the call run on the reference callables."""
    call, ref = CALLS[qualname]
    if isinstance(ref, str):
        return eval(ref, {"np": np, "sp": _special()})  # our own fixed text
    return eval(call, example_globals(reference=True))


def run_example(call):
    """(value, what a doctest session shows for ``call``): its printed output, then its
    repr unless it is None."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = eval(call, example_globals())  # our own fixed text
    shown = out.getvalue() + ("" if value is None else repr(value))
    return value, shown.rstrip("\n")


def find_examples():
    """{"jax.path.name": ">>> call\\nprinted result"} for every entry of ``CALLS`` whose
    result equals its reference's (or that has none). Raises on a call that fails or
    disagrees, so a wrong example is never stored."""
    from tjit._docs import _same
    found = {}
    for qualname, (call, ref) in CALLS.items():
        value, shown = run_example(call)
        if ref is not None and not _same(value, reference_value(qualname)):
            raise AssertionError(f"{qualname}: {call} gives {value!r}, "
                                 f"the reference {reference_value(qualname)!r}")
        found[qualname] = f">>> {call}\n{shown}".rstrip("\n")
    return found


STORED_MARK = "\n\nExample (output generated by python -m tjit._docs)::\n\n"


def add_examples(stored):
    """Append each stored example to its function's docstring (at import)."""
    import importlib
    for modname, prefix in NAMESPACES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            fun = getattr(mod, name)
            example = stored.get(f"{prefix}.{name}")
            doc = getattr(fun, "__doc__", None) or ""
            if example is None or not callable(fun) or isinstance(fun, type) or ">>>" in doc:
                continue
            note = NOTES.get(f"{prefix}.{name}")
            if note and note not in doc:
                doc = inspect.cleandoc(doc) + "\n\n" + textwrap.fill(
                    f"Differs from JAX: {note}.", 84)
            fun.__doc__ = (inspect.cleandoc(doc) + STORED_MARK
                           + "\n".join("    " + ln for ln in example.split("\n")))

# tjit.random: outputs are fixed by the key; a reference only where the bits are known
# independently (threefry's known-answer vector from Random123, key layouts)
_KEY = "jax.random.key(0)"
_RANDOM_CALLS = {
    "PRNGKey": ("jax.random.PRNGKey(42)", lambda seed: np.array([0, seed], np.uint32)),
    "key": ("jax.random.key(42)", None),  # a typed key: its data is checked by key_data's
    "key_data": ("jax.random.key_data(jax.random.key(42))", "np.array([0, 42])"),
    "wrap_key_data": ("jax.random.wrap_key_data(jnp.asarray([0, 42], jnp.uint32))", None),
    "key_impl": (f"jax.random.key_impl({_KEY})", None),
    "clone": ("jax.random.clone(jax.random.key(42))", None),
    "split": (f"jax.random.split({_KEY})", None),
    "fold_in": (f"jax.random.fold_in({_KEY}, 7)", None),
    "bits": (f"jax.random.bits({_KEY}, (3,))", None),
    "threefry_2x32": (
        ("jax.random.threefry_2x32(jnp.asarray([0x13198a2e, 0x03707344], jnp.uint32), "
        "jnp.asarray([0x243f6a88, 0x85a308d3], jnp.uint32))"),
        lambda k, c: np.array([0xc4923a9c, 0x483df7a0])),
    "uniform": (f"jax.random.uniform({_KEY}, (3,))", None),
    "normal": (f"jax.random.normal({_KEY}, (3,))", None),
    "truncated_normal": (f"jax.random.truncated_normal({_KEY}, -1.0, 1.0, (3,))", None),
    "multivariate_normal": ((f"jax.random.multivariate_normal({_KEY}, jnp.zeros(2), "
                            "jnp.asarray([[1.0, 0.5], [0.5, 1.0]]))"), None),
    "orthogonal": (f"jax.random.orthogonal({_KEY}, 2)", None),
    "bernoulli": (f"jax.random.bernoulli({_KEY}, 0.5, (4,))", None),
    "randint": (f"jax.random.randint({_KEY}, (4,), 0, 10)", None),
    "permutation": (f"jax.random.permutation({_KEY}, 5)", None),
    "shuffle": (f"jax.random.shuffle({_KEY}, jnp.arange(5))", None),
    "choice": (f"jax.random.choice({_KEY}, 5, (3,), replace=False)", None),
    "categorical": ((f"jax.random.categorical({_KEY}, jnp.log(jnp.asarray([0.2, 0.3, 0.5])), "
                    "shape=(4,))"), None),
    "gamma": (f"jax.random.gamma({_KEY}, 2.0, (3,))", None),
    "loggamma": (f"jax.random.loggamma({_KEY}, 2.0, (3,))", None),
    "beta": (f"jax.random.beta({_KEY}, 2.0, 3.0, (3,))", None),
    "dirichlet": (f"jax.random.dirichlet({_KEY}, jnp.asarray([1.0, 2.0, 3.0]))", None),
    "poisson": (f"jax.random.poisson({_KEY}, 3.0, (4,))", None),
    "binomial": (f"jax.random.binomial({_KEY}, 10, 0.3, (4,))", None),
    "multinomial": (f"jax.random.multinomial({_KEY}, 10, jnp.asarray([0.2, 0.3, 0.5]))", None),
    "t": (f"jax.random.t({_KEY}, 3.0, (3,))", None),
    "chisquare": (f"jax.random.chisquare({_KEY}, 2.0, (3,))", None),
    "double_sided_maxwell": (f"jax.random.double_sided_maxwell({_KEY}, 0.0, 1.0, (3,))", None),
    "weibull_min": (f"jax.random.weibull_min({_KEY}, 1.0, 2.0, (3,))", None),
    "generalized_normal": (f"jax.random.generalized_normal({_KEY}, 2.0, (3,))", None),
    "ball": (f"jax.random.ball({_KEY}, 2)", None),
    "rayleigh": (f"jax.random.rayleigh({_KEY}, 1.0, (3,))", None),
    "wald": (f"jax.random.wald({_KEY}, 1.0, (3,))", None),
    "geometric": (f"jax.random.geometric({_KEY}, 0.5, (4,))", None),
    "triangular": (f"jax.random.triangular({_KEY}, 0.0, 0.5, 1.0, (3,))", None),
    "lognormal": (f"jax.random.lognormal({_KEY}, 1.0, (3,))", None),
    "pareto": (f"jax.random.pareto({_KEY}, 3.0, (3,))", None),
}
for _name in ("exponential", "laplace", "logistic", "cauchy", "gumbel", "rademacher",
              "maxwell"):
    _RANDOM_CALLS[_name] = (f"jax.random.{_name}({_KEY}, (3,))", None)
CALLS.update({f"jax.random.{n}": c for n, c in _RANDOM_CALLS.items()})
NAMESPACES += (("tjit.random", "jax.random"),)
del _name

# how a function differs from JAX's (the module docs' documented deviations), added to
# its docstring beside the example
_OWN_VALUES = ("a vectorized rejection sampler: JAX's distribution, but not JAX's values "
               "for the same key")
NOTES = {f"jax.random.{n}": _OWN_VALUES for n in (
    "gamma", "loggamma", "beta", "dirichlet", "poisson", "binomial", "multinomial", "t",
    "chisquare",
    "generalized_normal", "ball")}
NOTES.update({
    "jax.lax.reduce": ("a computation other than the monoids lax.add, mul, max, min, "
                       "bitwise_and/or/xor is called on whole arrays (it must act "
                       "elementwise), in a tree of adjacent pairs of depth log n"),
    "jax.lax.reduce_window": ("a computation other than lax.add, max, min (or several "
                              "operands) is called on whole arrays (it must act "
                              "elementwise), one strided slice per window offset"),
})

# tjit's transformations: references are float64 NumPy (jit/checkpoint: the function
# itself; grad and friends: central differences; vmap/pmap: a Python loop)
_H = 1e-6


def _fd(f):
    return lambda x: (f(x + _H) - f(x - _H)) / (2 * _H)


def _fd_jacobian(f):
    def jac(x):
        x = np.asarray(x, np.float64)
        cols = [(f(x + _H * e) - f(x - _H * e)) / (2 * _H) for e in np.eye(x.size)]
        return np.stack(cols, axis=-1)
    return jac


def _loop(f, *_, **__):
    return lambda *xs: np.stack([f(*a) for a in zip(*xs, strict=True)])


_V = "jnp.asarray([1.0, 2.0])"
_SQUARE = f"(lambda x: x ** 2)({_V})"
CALLS.update({
    "jax.jit": (f"jax.jit(lambda x: jnp.sin(x) * 2)({_X})", lambda f, **_: f),
    "jax.grad": ("jax.grad(jnp.sin)(1.0)", lambda f, **_: _fd(f)),
    "jax.value_and_grad": ("jax.value_and_grad(jnp.sin)(1.0)",
                           lambda f, **_: lambda x: (f(x), _fd(f)(x))),
    "jax.jvp": ("jax.jvp(jnp.sin, (1.0,), (2.0,))",
                lambda f, p, t: (f(*p), _fd(f)(*p) * t[0])),
    "jax.vjp": ("jax.vjp(jnp.sin, 1.0)[1](2.0)",
                lambda f, x: (f(x), lambda ct: (_fd(f)(x) * ct,))),
    "jax.linearize": ("jax.linearize(jnp.sin, 1.0)[1](2.0)",
                      lambda f, x: (f(x), lambda t: _fd(f)(x) * t)),
    "jax.linear_transpose": (
        ("jax.linear_transpose(lambda x: jnp.asarray([[1.0, 2.0], [3.0, 4.0]]) @ x, "
         f"jnp.zeros(2))({_V})"), lambda f, p: lambda ct: (_fd_jacobian(f)(p).T @ ct,)),
    "jax.vmap": (f"jax.vmap(jnp.dot)({_M}, {_M})", _loop),
    "jax.pmap": ("jax.pmap(lambda x: x * 2)(jnp.asarray([[1.0, 2.0]]))", _loop),
    "jax.jacfwd": (f"jax.jacfwd(lambda x: x ** 2)({_V})", lambda f, **_: _fd_jacobian(f)),
    "jax.jacrev": (f"jax.jacrev(lambda x: x ** 2)({_V})", lambda f, **_: _fd_jacobian(f)),
    "jax.jacobian": (f"jax.jacobian(lambda x: x ** 2)({_V})", lambda f, **_: _fd_jacobian(f)),
    "jax.hessian": (f"jax.hessian(lambda x: jnp.sum(x ** 3))({_V})",  # d2 = diag(6 x)
                    lambda f, **_: lambda x: np.diag(6 * np.asarray(x))),
    "jax.checkpoint": ("jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0)",
                       lambda f, **_: f),
    "jax.remat": ("jax.grad(jax.remat(lambda x: jnp.sin(jnp.sin(x))))(1.0)", lambda f, **_: f),
    "jax.custom_gradient": (  # the rule's gradient (3 g), not the function's (2 x)
        "jax.grad(jax.custom_gradient(lambda x: (x ** 2, lambda g: (3.0 * g,))))(2.0)",
        None),
    "jax.make_jaxpr": ("print(jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0))", None),
    "jax.eval_shape": ("jax.eval_shape(jnp.sin, jnp.ones((2, 3)))", None),
    "jax.typeof": ("jax.typeof(jnp.ones((2, 3)))", None),
    "jax.show": ("len(jax.show(jnp.sin, jnp.ones(3)).kernels())", None),
    "jax.block_until_ready": (f"jax.block_until_ready({_X} * 2)", lambda x: x),
    "jax.device_put": (f"jax.device_put({_X})", lambda x, device=None: x),
    "jax.device_get": (f"jax.device_get({_X})", lambda x: x),
    "jax.clear_caches": ("jax.clear_caches()", None),
    "jax.default_backend": ("jax.default_backend() == jax.local_devices()[0].platform", None),
    "jax.device_count": ("jax.device_count() >= jax.local_device_count() >= 1", None),
    "jax.local_device_count": ("jax.local_device_count() == len(jax.local_devices())", None),
    "jax.local_devices": ("jax.local_devices()[0].id", None),
    "jax.process_count": ("jax.process_count()", None),  # one process without MPI
    "jax.process_index": ("jax.process_index()", None),
    "jax.make_mesh": ("jax.make_mesh((1,), ('i',))", None),
    "jax.shard_map": (("jax.shard_map(lambda x: x * 2, mesh=jax.make_mesh((1,), ('i',)), "
                       f"in_specs=jax.sharding.P('i'), out_specs=jax.sharding.P('i'))({_X})"),
                      None),
    "jax.make_array_from_process_local_data": (
        ("jax.make_array_from_process_local_data(jax.sharding.NamedSharding("
         f"jax.make_mesh((1,), ('i',)), jax.sharding.P('i')), {_X}).shape"), None),
    "jax.tree_map": ("jax.tree_map(lambda x: x * 2, {'a': 1, 'b': (2, 3)})", None),
    "jax.new_ref": ("jax.new_ref(jnp.asarray([1.0, 2.0]))", None),
    "jax.empty_ref": ("jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32)).shape", None),
    "jax.freeze": ("jax.freeze(jax.new_ref(jnp.asarray([1.0, 2.0])))", None),
    "jax.free_ref": ("jax.free_ref(jax.new_ref(1.0))", None),
})
NAMESPACES += (("tjit", "jax"),)

from tjit._docs_lax import CALLS as _LAX_CALLS

CALLS.update({f"jax.lax.{name}": call for name, call in _LAX_CALLS.items()})
NAMESPACES += (("tjit.lax", "jax.lax"),)
