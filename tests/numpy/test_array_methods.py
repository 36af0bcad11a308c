"""Methods, properties and operators of ``tjit.Array`` and of tracers (installed by
``tjit.numpy._array_methods``): each is checked against the NumPy method on the same
data, eagerly and under ``jit``, and NumPy arrays on either side of an operator give
tjit Arrays."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import ConcretizationTypeError

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4)).astype(np.float32)
SORTED = np.sort(X.ravel())
MASK = X > 0

# name -> (tjit method call, NumPy reference); the reference gets a NumPy array.
METHODS = {
    "sum": (lambda a: a.sum(), lambda a: a.sum()),
    "sum_axis_keepdims": (lambda a: a.sum(axis=1, keepdims=True),
                          lambda a: a.sum(axis=1, keepdims=True)),
    "sum_where": (lambda a: a.sum(where=a > 0), lambda a: a.sum(where=a > 0)),
    "mean_axis": (lambda a: a.mean(axis=0), lambda a: a.mean(axis=0)),
    "mean_tuple": (lambda a: a.mean(axis=(0, 1), keepdims=True),
                   lambda a: a.mean(axis=(0, 1), keepdims=True)),
    "var_ddof": (lambda a: a.var(ddof=1), lambda a: a.var(ddof=1)),
    "std_axis_ddof": (lambda a: a.std(axis=0, ddof=1), lambda a: a.std(axis=0, ddof=1)),
    "prod": (lambda a: a.prod(axis=0), lambda a: a.prod(axis=0)),
    "max_initial": (lambda a: a.max(initial=10.0), lambda a: a.max(initial=10.0)),
    "max_where": (lambda a: a.max(axis=1, where=a < 0.5, initial=-100.0),
                  lambda a: a.max(axis=1, where=a < 0.5, initial=-100.0)),
    "min_where": (lambda a: a.min(axis=0, where=a > 0, initial=100.0),
                  lambda a: a.min(axis=0, where=a > 0, initial=100.0)),
    "any": (lambda a: (a > 1).any(), lambda a: (a > 1).any()),
    "all_axis": (lambda a: (a > -1).all(axis=1), lambda a: (a > -1).all(axis=1)),
    "argmax": (lambda a: a.argmax(), lambda a: a.argmax()),
    "argmin_keepdims": (lambda a: a.argmin(axis=1, keepdims=True),
                        lambda a: a.argmin(axis=1, keepdims=True)),
    "cumsum": (lambda a: a.cumsum(), lambda a: a.cumsum()),
    "cumsum_axis": (lambda a: a.cumsum(axis=1), lambda a: a.cumsum(axis=1)),
    "cumprod": (lambda a: a.cumprod(axis=0), lambda a: a.cumprod(axis=0)),
    "ptp": (lambda a: a.ptp(axis=1), lambda a: np.ptp(a, axis=1)),
    "reshape_args": (lambda a: a.reshape(2, -1), lambda a: a.reshape(2, -1)),
    "reshape_tuple": (lambda a: a.reshape((4, 3)), lambda a: a.reshape((4, 3))),
    "reshape_int": (lambda a: a.reshape(12), lambda a: a.reshape(12)),
    "reshape_F": (lambda a: a.reshape(4, 3, order="F"), lambda a: a.reshape(4, 3, order="F")),
    "T": (lambda a: a.T, lambda a: a.T),
    "mT": (lambda a: a[None].mT, lambda a: np.swapaxes(a[None], -1, -2)),
    "transpose_args": (lambda a: a.transpose(1, 0), lambda a: a.transpose(1, 0)),
    "transpose_tuple": (lambda a: a.transpose((1, 0)), lambda a: a.transpose((1, 0))),
    "astype": (lambda a: (a * 10).astype(np.int32), lambda a: (a * 10).astype(np.int32)),
    "clip": (lambda a: a.clip(-0.5, 0.5), lambda a: a.clip(-0.5, 0.5)),
    "clip_min": (lambda a: a.clip(min=0), lambda a: a.clip(min=0)),
    "clip_max": (lambda a: a.clip(max=0.1), lambda a: a.clip(max=0.1)),
    "round": (lambda a: a.round(2), lambda a: a.round(2)),
    "argsort": (lambda a: a.argsort(axis=0), lambda a: a.argsort(axis=0, kind="stable")),
    "sort": (lambda a: a.sort(axis=0), lambda a: np.sort(a, axis=0)),
    "sort_none": (lambda a: a.sort(axis=None), lambda a: np.sort(a, axis=None)),
    "argpartition": (lambda a: a.argpartition(2, axis=1)[:, 2],
                     lambda a: a.argpartition(2, axis=1)[:, 2]),
    "diagonal": (lambda a: a.diagonal(1), lambda a: a.diagonal(1)),
    "trace": (lambda a: a.trace(offset=-1), lambda a: a.trace(offset=-1)),
    "ptp_all": (lambda a: a.ptp(), lambda a: np.ptp(a)),
    "searchsorted": (lambda a: a.ravel().sort().searchsorted(0.1),
                     lambda a: np.sort(a.ravel()).searchsorted(0.1)),
    "searchsorted_right": (lambda a: a.ravel().sort().searchsorted(a[0], side="right"),
                           lambda a: np.sort(a.ravel()).searchsorted(a[0], side="right")),
    "copy": (lambda a: a.copy(), lambda a: a.copy()),
    "view_same": (lambda a: a.view(), lambda a: a.view()),
    "view_int32": (lambda a: a.view(np.int32), lambda a: a.view(np.int32)),
    "view_uint8": (lambda a: a.view(np.uint8), lambda a: a.view(np.uint8)),
    "view_uint16": (lambda a: a.view(np.uint16), lambda a: a.view(np.uint16)),
    "view_back": (lambda a: a.view(np.uint8).view(np.float32),
                  lambda a: a.view(np.uint8).view(np.float32)),
    "real": (lambda a: a.real, lambda a: a.real),
    "imag": (lambda a: a.imag, lambda a: a.imag),
    "conj": (lambda a: (a + 1j * a).conj(), lambda a: (a + 1j * a).conj()),
    "conjugate": (lambda a: (a - 2j).conjugate(), lambda a: (a - 2j).conjugate()),
    "dot": (lambda a: a.dot(a.T), lambda a: a.dot(a.T)),
    "take": (lambda a: a.take(np.array([0, 5, 7])), lambda a: a.take(np.array([0, 5, 7]))),
    "take_axis": (lambda a: a.take(np.array([0, 2]), axis=1),
                  lambda a: a.take(np.array([0, 2]), axis=1)),
    "repeat": (lambda a: a.repeat(2, axis=0), lambda a: a.repeat(2, axis=0)),
    "repeat_flat": (lambda a: a.repeat(2), lambda a: a.repeat(2)),
    "squeeze": (lambda a: a[None].squeeze(), lambda a: a[None].squeeze()),
    "squeeze_axis": (lambda a: a[None].squeeze(0), lambda a: a[None].squeeze(0)),
    "swapaxes": (lambda a: a.swapaxes(0, 1), lambda a: a.swapaxes(0, 1)),
    "ravel": (lambda a: a.ravel(), lambda a: a.ravel()),
    "ravel_F": (lambda a: a.ravel(order="F"), lambda a: a.ravel(order="F")),
    "flatten": (lambda a: a.flatten(), lambda a: a.flatten()),
    "flat": (lambda a: a.flat[3], lambda a: a.flat[3]),
    "compress": (lambda a: a.compress(np.array([True, False, True]), axis=0),
                 lambda a: a.compress(np.array([True, False, True]), axis=0)),
    "choose": (lambda a: (a[0] > 0).astype(np.int32).choose([a[1], a[2]], mode="clip"),
               lambda a: (a[0] > 0).astype(np.int32).choose([a[1], a[2]], mode="clip")),
    "getitem": (lambda a: a[1, ::2], lambda a: a[1, ::2]),
    "neg_abs_pos": (lambda a: abs(-a) + (+a), lambda a: abs(-a) + (+a)),
    "invert": (lambda a: ~(a > 0), lambda a: ~(a > 0)),
    "matmul": (lambda a: a @ a.T, lambda a: a @ a.T),
    "rpow_mod_floordiv": (lambda a: 2 ** a + a % 0.3 + a // 0.3,
                          lambda a: 2 ** a + a % 0.3 + a // 0.3),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_method_matches_numpy_eager_and_jit(name):
    method, ref = METHODS[name]
    want = np.asarray(ref(X.copy()))
    for got in (method(jnp.asarray(X)), tjit.jit(method)(X)):
        assert isinstance(got, tjit.Array), type(got)
        assert got.shape == want.shape, (got.shape, want.shape)
        if want.dtype.kind in "fc" and got.dtype.kind in "fc":
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(np.asarray(got), want)


def test_jax_only_method_arguments():
    a = jnp.asarray(X)
    np.testing.assert_array_equal(a.sort(axis=1, descending=True), -np.sort(-X, axis=1))
    np.testing.assert_array_equal(a.argsort(axis=1, descending=True),
                                  np.argsort(-X, axis=1, kind="stable"))
    s = jnp.sort(a.ravel())
    np.testing.assert_array_equal(s.searchsorted(a[0], sorter=jnp.arange(12)),
                                  np.searchsorted(np.sort(X.ravel()), X[0]))
    n, = (a.ravel() > 0).nonzero(size=3, fill_value=-1)
    np.testing.assert_array_equal(n, np.pad(np.flatnonzero(X > 0)[:3],
                                            (0, max(0, 3 - MASK.sum())), constant_values=-1))
    assert a.clip(a_min=0).min() == 0  # NumPy 1.x spelling is accepted by jnp.clip


def test_python_scalar_methods_and_properties():
    a = jnp.asarray(X)
    assert a[0, 1].item() == X[0, 1].item()
    assert a.item(5) == X.item(5)
    assert a.tolist() == X.tolist()
    assert a.tobytes() == X.tobytes()
    assert a.tobytes(order="F") == X.tobytes(order="F")
    assert (a.ndim, a.size, a.shape, a.nbytes, a.itemsize) == \
        (X.ndim, X.size, X.shape, X.nbytes, X.itemsize)
    assert isinstance(a.nbytes, int) and isinstance(a.itemsize, int)
    assert len(a) == 3 and [r.shape for r in a] == [(4,)] * 3
    assert float(a[0, 0]) == float(X[0, 0]) and int(a[0, 0] * 10) == int(X[0, 0] * 10)
    assert round(jnp.asarray(2.567), 2) == 2.57 and round(jnp.asarray(2.5)) == 2
    assert bool(a[0, 0] > -100)


def test_copy_is_a_new_array():
    a = jnp.asarray(X)
    for c in (a.copy(), jnp.copy(a), jnp.array(a)):
        assert c is not a
        assert not np.shares_memory(np.asarray(c), np.asarray(a))
        np.testing.assert_array_equal(c, X)
    assert jnp.asarray(a) is a  # asarray never copies


def test_view_numpy_shapes_and_errors():
    b = np.array([[True, False, True, True]])
    np.testing.assert_array_equal(jnp.asarray(b).view(np.uint8), b.view(np.uint8))
    np.testing.assert_array_equal(jnp.asarray(b).view(np.int16), b.view(np.int16))
    u = np.arange(8, dtype=np.uint8).reshape(2, 4)
    np.testing.assert_array_equal(jnp.asarray(u).view(jnp.float32), u.view(np.float32))
    np.testing.assert_array_equal(jnp.asarray(u).view(np.bool_), u.view(np.bool_))
    with pytest.raises(ValueError, match=r"view: cannot view an array of shape \(2, 3\)"):
        jnp.ones((2, 3), jnp.uint8).view(jnp.float32)
    with pytest.raises(ValueError, match="cannot view"):
        jnp.asarray(1.0).view(jnp.uint8)


def test_methods_on_tracers_need_concrete_values():
    with pytest.raises(ConcretizationTypeError, match=r"\.item\(\)"):
        tjit.jit(lambda a: a.sum().item())(X)
    with pytest.raises(ConcretizationTypeError, match="tolist"):
        tjit.jit(lambda a: a.tolist())(X)
    with pytest.raises(ConcretizationTypeError, match="numpy.asarray"):
        tjit.jit(lambda a: a.tobytes())(X)
    with pytest.raises(ConcretizationTypeError, match="reshape: shapes must be static"):
        tjit.jit(lambda a: a.reshape(a.sum().astype(int)))(X)
    with pytest.raises(TypeError, match=r"immutable: use x = x.at\[idx\].set"):
        jnp.asarray(X)[0] = 1.0


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "//", "%", ">", "<=", "==", "!=",
                                "@"])
def test_numpy_arrays_on_either_side_give_tjit_arrays(op):
    n = np.abs(X) + 1.0
    a = jnp.asarray(np.abs(X[:, ::-1]) + 0.5)
    rhs = "b.T" if op == "@" else "b"
    for left, right in ((n, a), (a, n)):
        expr = f"l {op} {rhs}"
        want = eval(expr, {"l": np.asarray(left), "b": np.asarray(right)})
        got = eval(expr, {"l": left, "b": right})
        assert isinstance(got, tjit.Array), (op, type(got))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
        traced = tjit.jit(lambda t: eval(expr, {"l": n, "b": t}))(a) if left is n else \
            tjit.jit(lambda t: eval(expr, {"l": t, "b": n}))(a)
        assert isinstance(traced, tjit.Array)
        np.testing.assert_allclose(np.asarray(traced), want, rtol=1e-5)


def test_numpy_scalars_and_bool_operators():
    a = jnp.asarray(X)
    for got, want in ((np.float32(2) * a, 2 * X), (a * np.float64(2), 2 * X),
                      (np.int64(2) + a, 2 + X), (MASK & (a > 0.5), MASK & (X > 0.5)),
                      (np.True_ ^ (a > 0), True ^ (X > 0))):
        assert isinstance(got, tjit.Array)
        assert got.dtype == want.dtype.type(0).dtype or got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    with pytest.raises(TypeError, match="bitwise_and does not accept dtype float32"):
        a & 1


def test_at_property_in_a_fori_loop():
    def f(a):
        return tjit.lax.fori_loop(0, a.shape[0], lambda i, c: c.at[i, i].add(c[i].sum()), a)
    want = X.copy()
    for i in range(3):
        want[i, i] += want[i].sum()
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(X)), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(X))), want, rtol=1e-5)
