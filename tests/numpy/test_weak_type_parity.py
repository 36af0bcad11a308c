"""Result dtype and weak type of public functions, case by case, as JAX gives them.

A wrong weak flag is a silent wrong answer one operation later: ``softmax(w) * half``
is float32 in JAX because softmax's result is strong; were it weak, float16. Each record
states (dtype, weak) of each result for inputs of every typing class: Python numbers
(weak), weakly typed arrays (``w``: 3x3; ``w0``: 0-d, which JAX types as a Python
number where its formulas build constants with ``lax._const``), and strong
bool/int8/float16/bfloat16/float32 arrays. The expectations follow JAX's rules:

* jnp reductions (sum, max, ..., and so norms, softmax, logsumexp) are strong; lax's
  keep the weak type;
* a constant built as ``lax._const(x, c)`` is weak only for a weak scalar ``x``, so
  ``logit``, ``hypot``, ``heaviside``, ``degrees``, ``rel_entr`` of a weak array are
  strong and of a Python number weak;
* a Python constant promoted with a bool/int input gives a weak float (``elu(int8)``);
* linalg factorizations keep their operand's weak type; an explicit ``dtype`` is strong.

Every record was checked against jax 0.10.2 by calling :func:`cases` with JAX's modules
(benchmarks/weak_type_parity.py compares every public function the same way).
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.scipy import special

F32, F16, BF16, I32 = "float32", "float16", "bfloat16", "int32"
S, W = False, True  # strong, weak

_M = np.array([[1.0, 0.2, 0.1], [0.2, 0.9, 0.3], [0.1, 0.3, 0.8]])


def inputs(np_, weak_array):
    """The inputs by name, built with ``np_`` (tjit.numpy or jax.numpy)."""
    arr = lambda v, dt: np_.asarray(np.asarray(v).astype(dt))  # noqa: E731
    return {
        "py": 0.5, "pyi": 2,
        "w": weak_array(np_.asarray(_M, dtype=np.float32)),
        "w4": weak_array(np_.asarray(np.eye(4) * 2 + 0.1, dtype=np.float32)),
        "w0": weak_array(np_.asarray(0.5, dtype=np.float32)),
        "w1": weak_array(np_.asarray([0.5, 1.5], dtype=np.float32)),
        "wxp": weak_array(np_.asarray([0.0, 1.0, 2.0], dtype=np.float32)),
        "wi": weak_array(np_.asarray([[3, 1, 0], [1, 2, 1], [0, 1, 2]], dtype=np.int32)),
        "b": arr(np.eye(3), np.bool_), "i8": arr([[3, 1, 0], [1, 2, 1], [0, 1, 2]], np.int8),
        "f16": arr(_M, np.float16), "bf16": arr(_M, ml_dtypes.bfloat16),
        "f32": arr(_M, np.float32), "f16_0": arr(0.5, np.float16),
        "v32": arr([0.5, 1.5], np.float32), "xp32": arr([0.0, 1.0, 2.0], np.float32),
        "fp16": arr([1.0, 3.0, 2.0], np.float16),
    }


def cases(np_, nn_, special_, lax_):
    """(case name, function of the inputs dict, expected [(dtype, weak), ...])."""
    la = np_.linalg
    return [
        # nn: jnp reductions inside (strong); Python constants promoted with the input
        ("nn.softmax(w)", lambda a: nn_.softmax(a["w"]), [(F32, S)]),
        ("nn.softmax(w)*f16", lambda a: nn_.softmax(a["w"]) * a["f16"], [(F32, S)]),
        ("nn.softmax(f16)", lambda a: nn_.softmax(a["f16"]), [(F16, S)]),
        ("nn.log_softmax(w)", lambda a: nn_.log_softmax(a["w"]), [(F32, S)]),
        ("nn.logsumexp(w)", lambda a: nn_.logsumexp(a["w"]), [(F32, S)]),
        ("nn.logsumexp(py)", lambda a: nn_.logsumexp(a["py"]), [(F32, S)]),
        ("nn.elu(i8)", lambda a: nn_.elu(a["i8"]), [(F32, W)]),
        ("nn.elu(b)", lambda a: nn_.elu(a["b"]), [(F32, W)]),
        ("nn.elu(w)", lambda a: nn_.elu(a["w"]), [(F32, W)]),
        ("nn.elu(bf16)", lambda a: nn_.elu(a["bf16"]), [(BF16, S)]),
        ("nn.celu(i8)", lambda a: nn_.celu(a["i8"]), [(F32, W)]),
        ("nn.selu(i8)", lambda a: nn_.selu(a["i8"]), [(F32, W)]),
        ("nn.softplus(b)", lambda a: nn_.softplus(a["b"]), [(F32, W)]),
        ("nn.softplus(i8)", lambda a: nn_.softplus(a["i8"]), [(F32, S)]),
        ("nn.mish(b)", lambda a: nn_.mish(a["b"]), [(F32, W)]),
        ("nn.soft_sign(b)", lambda a: nn_.soft_sign(a["b"]), [(F32, W)]),
        ("nn.squareplus(b)", lambda a: nn_.squareplus(a["b"]), [(F32, S)]),
        ("nn.squareplus(py)", lambda a: nn_.squareplus(a["py"]), [(F32, W)]),
        ("nn.squareplus(i8)", lambda a: nn_.squareplus(a["i8"]), [(F32, S)]),
        ("nn.squareplus(b,4.)", lambda a: nn_.squareplus(a["b"], 4.0), [(F32, W)]),
        ("nn.sparse_plus(i8)", lambda a: nn_.sparse_plus(a["i8"]), [(F32, W)]),
        ("nn.sparse_sigmoid(i8)", lambda a: nn_.sparse_sigmoid(a["i8"]), [(F32, W)]),
        # scipy.special
        ("special.softmax(w)", lambda a: special_.softmax(a["w"]), [(F32, S)]),
        ("special.logit(w)", lambda a: special_.logit(a["w"]), [(F32, S)]),
        ("special.logit(w0)", lambda a: special_.logit(a["w0"]), [(F32, W)]),
        ("special.logit(py)", lambda a: special_.logit(a["py"]), [(F32, W)]),
        ("special.betaln(f16,f16)", lambda a: special_.betaln(a["f16"], a["f16"]), [(F16, S)]),
        ("special.betaln(bf16,pyi)", lambda a: special_.betaln(a["bf16"], a["pyi"]),
         [(BF16, S)]),
        ("special.betaln(w,w)", lambda a: special_.betaln(a["w"], a["w"]), [(F32, W)]),
        ("special.factorial(py)", lambda a: special_.factorial(a["py"]), [(F32, W)]),
        ("special.rel_entr(i8,py)", lambda a: special_.rel_entr(a["i8"], a["py"]), [(F32, S)]),
        ("special.rel_entr(w0,w0)", lambda a: special_.rel_entr(a["w0"], a["w0"]), [(F32, W)]),
        ("special.kl_div(w,w)", lambda a: special_.kl_div(a["w"], a["w"]), [(F32, S)]),
        ("special.ndtri(w0)", lambda a: special_.ndtri(a["w0"]), [(F32, S)]),
        # numpy: lax._const-typed constants
        ("hypot(w,w)", lambda a: np_.hypot(a["w"], a["w"]), [(F32, S)]),
        ("hypot(py,py)", lambda a: np_.hypot(a["py"], a["py"]), [(F32, W)]),
        ("hypot(w0,i8)", lambda a: np_.hypot(a["w0"], a["i8"]), [(F32, S)]),
        ("hypot(f16,py)", lambda a: np_.hypot(a["f16"], a["py"]), [(F16, S)]),
        ("heaviside(b,py)", lambda a: np_.heaviside(a["b"], a["py"]), [(F32, S)]),
        ("heaviside(py,py)", lambda a: np_.heaviside(a["py"], a["py"]), [(F32, W)]),
        ("logaddexp2(py,py)", lambda a: np_.logaddexp2(a["py"], a["py"]), [(F32, W)]),
        ("logaddexp2(w,w)", lambda a: np_.logaddexp2(a["w"], a["w"]), [(F32, S)]),
        ("deg2rad(w0)", lambda a: np_.deg2rad(a["w0"]), [(F32, W)]),
        ("deg2rad(w)", lambda a: np_.deg2rad(a["w"]), [(F32, S)]),
        ("degrees(py)", lambda a: np_.degrees(a["py"]), [(F32, W)]),
        ("angle(py)", lambda a: np_.angle(a["py"]), [(F32, S)]),
        ("angle(i8)", lambda a: np_.angle(a["i8"]), [(F32, S)]),
        ("angle(w)", lambda a: np_.angle(a["w"]), [(F32, W)]),
        ("angle(f16_0)", lambda a: np_.angle(a["f16_0"]), [(F32, S)]),
        # numpy: fills and assembly keep or drop the weak type as JAX's
        ("triu(w)", lambda a: np_.triu(a["w"]), [(F32, W)]),
        ("tril(wi)", lambda a: np_.tril(a["wi"]), [(I32, W)]),
        ("diag(w)", lambda a: np_.diag(a["w"]), [(F32, S)]),
        ("diag(w1)", lambda a: np_.diag(a["w1"]), [(F32, W)]),
        ("diagonal(w,1)", lambda a: np_.diagonal(a["w"], 1), [(F32, W)]),
        ("diagflat(w1)", lambda a: np_.diagflat(a["w1"]), [(F32, S)]),
        ("interp(w1,wxp,wxp)", lambda a: np_.interp(a["w1"], a["wxp"], a["wxp"]), [(F32, W)]),
        ("interp(v32,xp32,fp16)", lambda a: np_.interp(a["v32"], a["xp32"], a["fp16"]),
         [(F32, S)]),
        ("cross(w,w)", lambda a: np_.cross(a["w"], a["w"]), [(F32, S)]),
        ("asarray(w,f32)", lambda a: np_.asarray(a["w"], dtype=np.float32), [(F32, S)]),
        ("full(3,w0)", lambda a: np_.full((3,), a["w0"]), [(F32, W)]),
        ("full_like(w,w)", lambda a: np_.full_like(a["w"], a["w"]), [(F32, S)]),
        ("full_like(w,py)", lambda a: np_.full_like(a["w"], 2.0), [(F32, W)]),
        ("gradient(w1)", lambda a: np_.gradient(a["w1"]), [(F32, W)]),
        ("intersect1d(w1,w1)", lambda a: np_.intersect1d(a["w1"], a["w1"]), [(F32, W)]),
        ("union1d(w1,py)", lambda a: np_.union1d(a["w1"], a["py"]), [(F32, W)]),
        ("union1d(w1,v32)", lambda a: np_.union1d(a["w1"], a["v32"]), [(F32, S)]),
        ("setdiff1d(w1,w1)", lambda a: np_.setdiff1d(a["w1"], a["w1"]), [(F32, W)]),
        ("setxor1d(pyi,pyi)", lambda a: np_.setxor1d(a["pyi"], a["pyi"]), [(I32, W)]),
        ("reciprocal(wi)", lambda a: np_.reciprocal(a["wi"]), [(F32, W)]),
        ("sinc(py)", lambda a: np_.sinc(a["py"]), [(F32, W)]),
        ("sinc(w)", lambda a: np_.sinc(a["w"]), [(F32, S)]),
        ("spacing(w)", lambda a: np_.spacing(a["w"]), [(F32, S)]),
        ("sum(w)", lambda a: np_.sum(a["w"]), [(F32, S)]),
        ("exp(w)*f16", lambda a: np_.exp(a["w"]) * a["f16"], [(F16, S)]),
        # linalg: factorizations keep the weak type; norms and slogdet reduce (strong)
        ("norm(w)", lambda a: la.norm(a["w"]), [(F32, S)]),
        ("norm(py)", lambda a: la.norm(a["py"]), [(F32, S)]),
        ("vector_norm(w)", lambda a: la.vector_norm(a["w"]), [(F32, S)]),
        ("matrix_norm(w)", lambda a: la.matrix_norm(a["w"]), [(F32, S)]),
        ("cholesky(w)", lambda a: la.cholesky(a["w"]), [(F32, W)]),
        ("eigh(w)", lambda a: tuple(la.eigh(a["w"])), [(F32, W), (F32, W)]),
        ("svd(w)", lambda a: tuple(la.svd(a["w"])), [(F32, W)] * 3),
        ("qr(w)", lambda a: tuple(la.qr(a["w"])), [(F32, W)] * 2),
        ("solve(w,w)", lambda a: la.solve(a["w"], a["w"]), [(F32, W)]),
        ("solve(w,f32)", lambda a: la.solve(a["w"], a["f32"]), [(F32, S)]),
        ("det(w)", lambda a: la.det(a["w"]), [(F32, W)]),
        ("det(w4)", lambda a: la.det(a["w4"]), [(F32, S)]),
        ("slogdet(w)", lambda a: tuple(la.slogdet(a["w"])), [(F32, S), (F32, S)]),
        ("cond(w)", lambda a: la.cond(a["w"]), [(F32, W)]),
        ("inv(w)", lambda a: la.inv(a["w"]), [(F32, S)]),
        # bools: weak where JAX's are (no effect on promotion, but observable)
        ("isfinite(w)", lambda a: np_.isfinite(a["w"]), [("bool", W)]),
        ("isnan(wi)", lambda a: np_.isnan(a["wi"]), [("bool", W)]),
        ("logical_not(py)", lambda a: np_.logical_not(a["py"]), [("bool", W)]),
        ("logical_and(w,w)", lambda a: np_.logical_and(a["w"], a["w"]), [("bool", S)]),
        ("isreal(w0)", lambda a: np_.isreal(a["w0"]), [("bool", W)]),
        ("isin(w,w)", lambda a: np_.isin(a["w"], a["w"]), [("bool", S)]),
        # lax.conj is complex (jnp.conj of a real array stays real, as NumPy's)
        ("lax.conj(py)", lambda a: lax_.conj(a["py"]), [("complex64", W)]),
        ("lax.conj(f32)", lambda a: lax_.conj(a["f32"]), [("complex64", S)]),
        ("conj(f32)", lambda a: np_.conj(a["f32"]), [(F32, S)]),
    ]


def _weak(x):
    return lax.convert_element_type(x, x.dtype, weak_type=True)


def _typed(out):
    leaves = out if isinstance(out, tuple) else (out,)
    return [(str(v.dtype), bool(v.weak_type)) for v in leaves]


CASES = cases(jnp, nn, special, lax)
INPUTS = inputs(jnp, _weak)


@pytest.mark.parametrize("name,fn,want", CASES, ids=[c[0] for c in CASES])
def test_result_dtype_and_weak_type(name, fn, want):
    assert _typed(fn(INPUTS)) == want, name


# Under jit every input is an argument (Python numbers become weak 0-d tracers, as in
# JAX); the records whose eager answers hold there too.
# (set operations are eager only: their sizes depend on the values)
_JIT = [c for c in CASES if not c[0].startswith(("intersect1d", "union1d", "setdiff1d",
                                                 "setxor1d"))]


@pytest.mark.parametrize("name,fn,want", _JIT, ids=[c[0] for c in _JIT])
def test_result_dtype_and_weak_type_under_jit(name, fn, want):
    keys = sorted(INPUTS)
    run = tjit.jit(lambda *vals: fn(dict(zip(keys, vals))))
    assert _typed(run(*(INPUTS[k] for k in keys))) == want, name


def test_x64_weak_inputs_are_float64():
    # under x64 a weak float is float64 and keeps the same weak rules
    with tjit.enable_x64(True):
        w = _weak(jnp.asarray(_M))
        assert _typed(nn.softmax(w)) == [("float64", S)]
        assert _typed(special.logit(w)) == [("float64", S)]
        assert _typed(special.logit(0.5)) == [("float64", W)]
        assert _typed(jnp.triu(w)) == [("float64", W)]
        assert _typed(nn.elu(jnp.asarray(np.eye(2, dtype=np.int8)))) == [("float64", W)]
        # all operands weak: the bound of their own dtypes (JAX's lattice_result_type),
        # so a weak float32 array stays float32 with a Python int, not the default float
        w32 = _weak(jnp.asarray(_M, dtype=np.float32))
        # (a Python float is float64 there, so w32 * 2.0 is float64)
        for f, want in ((lambda x: x + 1, "float32"), (nn.hard_tanh, "float32"),
                        (lambda x: x * 2.0, "float64")):
            assert _typed(f(w32)) == _typed(tjit.jit(f)(w32)) == [(want, W)]
