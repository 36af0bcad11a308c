"""Work around dots that the planner folds away: scaled operands into the gemm's
``alpha`` (``gemm_epilogue.fold_operand_scales``) and reshape copies into the kernel
that made the copied value (``reshape_copies``).

Each case checks the plan (step kinds from ``fusion_summary``, ``as_text``) and the
values against the reference interpreter (``backend="interpreter"``) and NumPy in
float64, for float32, float64 and integer dtypes and a symbolic batch size.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

RNG = np.random.default_rng(5)


def _arr(shape, dtype):
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-4, 5, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _steps(fn, *args, **jit_kw):
    return tjit.jit(fn, **jit_kw).lower(*args).compile().fusion_summary()


def _kinds(summary):
    return [kind for kind, _ in summary]


def _check(fn, args, want, dtype, **jit_kw):
    got = np.asarray(tjit.jit(fn, **jit_kw)(*args))
    ref = np.asarray(tjit.jit(fn, backend="interpreter")(*args))
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(got, want)
        return
    tol = 3e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


SCALED = [
    # name, fn, reference (NumPy), alpha shown in the plan
    ("lhs_times_2", lambda a, b: (2 * a) @ b, lambda a, b: (2 * a) @ b, "2*dot"),
    ("rhs_over_4", lambda a, b: a @ (b / 4), lambda a, b: a @ (b / 4), "0.25*dot"),
    ("negated_lhs", lambda a, b: (-a) @ b, lambda a, b: -a @ b, "-1*dot"),
    ("both_and_result", lambda a, b: 0.5 * ((a * 3) @ (-b)),
     lambda a, b: 0.5 * ((a * 3) @ -b), "-1.5*dot"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn,ref,alpha", SCALED, ids=[c[0] for c in SCALED])
def test_scaled_operands_fold_into_alpha(name, fn, ref, alpha, dtype, x64):
    a, b = _arr((37, 12), dtype), _arr((12, 9), dtype)
    summary = _steps(fn, a, b)
    assert _kinds(summary) == ["dot"], summary
    assert f"dot (BLAS, {alpha})" in tjit.jit(fn).lower(a, b).compile().as_text()
    _check(fn, (a, b), ref(a.astype(np.float64), b.astype(np.float64)), dtype)


def test_scaled_operand_and_accumulated_term_fold_together():
    a, b, x = _arr((20, 16), np.float32), _arr((16, 8), np.float32), _arr((20, 8), np.float32)
    f = lambda a, b, x: x - (a / 8) @ b
    text = tjit.jit(f).lower(a, b, x).compile().as_text()
    assert "dot (BLAS, -0.125*dot + 1*%" in text, text
    _check(f, (a, b, x), x - (a.astype(np.float64) / 8) @ b, np.float32)


@pytest.mark.parametrize("fn", [
    lambda a, b: (2 * a) @ b + jnp.sum(2 * a),          # the scaled value read twice
    lambda a, b: (a * 0.0) @ b,                         # x * 0 keeps NaN semantics
    lambda a, b: (a + 1.0) @ b,                         # not a scaling
    lambda a, b: (2 * a) @ (2 * a).T,                   # one value, both operands
], ids=["read_twice", "times_zero", "offset", "same_value_twice"])
def test_other_operand_kernels_stay(fn):
    a, b = _arr((10, 12), np.float32), _arr((12, 10), np.float32)
    a[0, 0] = np.inf
    assert "kernel" in _kinds(_steps(fn, a, b))
    got = np.asarray(tjit.jit(fn)(a, b))
    ref = np.asarray(tjit.jit(fn, backend="interpreter")(a, b))
    np.testing.assert_allclose(got, ref, rtol=3e-5, atol=3e-5)


def test_integer_dot_keeps_its_scaling_kernel():
    a, b = _arr((9, 7), np.int32), _arr((7, 5), np.int32)
    f = lambda a, b: (3 * a) @ (-b)
    assert "kernel" in _kinds(_steps(f, a, b))
    _check(f, (a, b), (3 * a) @ (-b), np.int32)


@pytest.mark.parametrize("n", [3, 17])
def test_scaled_operand_folds_for_a_symbolic_batch(n):
    f = lambda a, b: (a * -2.0) @ b
    jit_kw = {"polymorphic_shapes": ["(b, 12)", None]}
    a, b = _arr((n, 12), np.float32), _arr((12, 6), np.float32)
    assert _kinds(_steps(f, a, b, **jit_kw)) == ["dot"]
    _check(f, (a, b), (-2.0 * a.astype(np.float64)) @ b, np.float32, **jit_kw)


# -- reshape copies ------------------------------------------------------------------------

def _flat_rows(x, w):
    """A transpose whose result is reshaped (dims merged) for a dot: im2col's shape."""
    return jnp.transpose(x, (0, 2, 1)).reshape(x.shape[0], 20) @ w


def _flat_rows_np(x, w):
    return np.transpose(x, (0, 2, 1)).reshape(x.shape[0], 20) @ w


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_reshape_copy_before_a_dot_is_dropped(dtype, x64):
    x, w = _arr((6, 4, 5), dtype), _arr((20, 3), dtype)
    summary = _steps(_flat_rows, x, w)
    assert _kinds(summary) == ["kernel", "dot"], summary
    _check(_flat_rows, (x, w), _flat_rows_np(x.astype(np.float64), w), dtype)


@pytest.mark.parametrize("n", [2, 11])
def test_reshape_copy_is_dropped_for_a_symbolic_batch(n):
    jit_kw = {"polymorphic_shapes": ["(b, 4, 5)", None]}
    x, w = _arr((n, 4, 5), np.float32), _arr((20, 3), np.float32)
    assert _kinds(_steps(_flat_rows, x, w, **jit_kw)) == ["kernel", "dot"]
    _check(_flat_rows, (x, w), _flat_rows_np(x.astype(np.float64), w), np.float32, **jit_kw)


def test_copied_value_read_elsewhere_keeps_its_copy():
    def f(x, w):
        t = jnp.transpose(x, (0, 2, 1))
        return t.reshape(x.shape[0], 20) @ w, t
    x, w = _arr((6, 4, 5), np.float32), _arr((20, 3), np.float32)
    assert _kinds(_steps(f, x, w)).count("kernel") == 2
    got = tjit.jit(f)(x, w)
    np.testing.assert_allclose(np.asarray(got[0]), _flat_rows_np(x.astype(np.float64), w),
                               rtol=3e-5, atol=3e-5)
    np.testing.assert_array_equal(np.asarray(got[1]), np.transpose(x, (0, 2, 1)))


def test_conv_gradient_loses_its_copies():
    """A conv's weight gradient: the patches and the transposed cotangent are reshaped
    for the gemm; no kernel of the plan only copies another's value."""
    x, w = _arr((2, 3, 8, 8), np.float32), _arr((4, 3, 3, 3), np.float32)

    def loss(w, x):
        y = tjit.lax.conv_general_dilated(x, w, (1, 1), "SAME")
        return jnp.sum(jnp.tanh(y))
    g = tjit.jit(tjit.grad(loss))
    prog = g.lower(w, x).compile().as_text()
    copies = [k for k in prog.split("\n\n")[1:] if _only_copies(k)]
    assert not copies, copies
    ref = tjit.jit(tjit.grad(loss), backend="interpreter")(w, x)
    np.testing.assert_allclose(np.asarray(g(w, x)), np.asarray(ref), rtol=1e-4, atol=1e-4)


def _only_copies(kernel_text):
    """A printed kernel that loads one value and stores it at the same index."""
    lines = [s.strip() for s in kernel_text.split("\n")[2:] if s.strip()]
    if len(lines) != 2 or "= arg0[" not in lines[0]:
        return False
    load_index = lines[0].split("= arg0")[1]
    return lines[1].endswith("= v0") and lines[1].split(" = ")[0].endswith(load_index)


# -- arguments reshaped for a dot: views, not copies ---------------------------------------

def _rows(x, w):
    return x.reshape(-1, 6) @ w


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_argument_reshaped_for_a_dot_is_a_view(dtype, x64):
    x, w = _arr((5, 4, 6), dtype), _arr((6, 3), dtype)
    compiled = tjit.jit(_rows).lower(x, w).compile()
    assert _kinds(compiled.fusion_summary()) == ["dot"], compiled.as_text()
    assert "view %" in compiled.as_text()
    want = x.reshape(-1, 6).astype(np.float64) @ w
    _check(_rows, (x, w), want, dtype)
    # a Fortran-ordered argument is made C-contiguous before it is viewed
    _check(_rows, (np.asfortranarray(x), w), want, dtype)


@pytest.mark.parametrize("n", [1, 7])
def test_argument_view_for_a_symbolic_batch(n):
    jit_kw = {"polymorphic_shapes": ["(b, 4, 6)", None]}
    x, w = _arr((n, 4, 6), np.float32), _arr((6, 3), np.float32)
    assert _kinds(_steps(_rows, x, w, **jit_kw)) == ["dot"]
    _check(_rows, (x, w), x.reshape(-1, 6).astype(np.float64) @ w, np.float32, **jit_kw)


def test_donated_argument_keeps_its_copy():
    """The doubled output may be written into the donated argument's buffer: the dot
    reads a copy made before that, never a view of the buffer."""
    x, w = _arr((5, 4, 6), np.float32), _arr((6, 3), np.float32)
    f = lambda x, w: (x.reshape(-1, 6) @ w, x * 2)
    g = tjit.jit(f, donate_argnums=0)
    assert "view %" not in g.lower(x, w).compile().as_text()
    prod, doubled = g(jnp.asarray(x), w)
    np.testing.assert_allclose(np.asarray(prod), x.reshape(-1, 6).astype(np.float64) @ w,
                               rtol=3e-5, atol=3e-5)
    np.testing.assert_array_equal(np.asarray(doubled), x * 2)


def test_argument_view_inside_a_loop_body_stays_a_copy():
    """Loop bodies pass buffers, not arrays: their reshape copies stay kernels."""
    x, w = _arr((3, 4, 6), np.float32), _arr((6, 6), np.float32) * 0.3

    def f(x, w):
        return tjit.lax.fori_loop(0, 3, lambda i, c: (c.reshape(-1, 6) @ w).reshape(
            c.shape), x)
    want = x.astype(np.float64)
    for _ in range(3):
        want = (want.reshape(-1, 6) @ w).reshape(x.shape)
    got = np.asarray(tjit.jit(f)(x, w))
    np.testing.assert_allclose(got, np.asarray(tjit.jit(f, backend="interpreter")(x, w)),
                               rtol=3e-5, atol=3e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_product_reshaped_for_the_next_dot_is_written_in_place(dtype, x64):
    """A gemm writes its product through a pointer: the reshaped value directly."""
    a, b, c = _arr((6, 8), dtype), _arr((8, 6), dtype), _arr((3, 6, 4), dtype)
    f = lambda a, b, c: (a @ b).reshape(3, 2, 6) @ c
    assert _kinds(_steps(f, a, b, c)) == ["dot", "dot"]
    want = (a.astype(np.float64) @ b).reshape(3, 2, 6) @ c
    _check(f, (a, b, c), want, dtype)


def test_reshaped_product_with_a_folded_epilogue():
    a, b, x = _arr((6, 8), np.float32), _arr((8, 6), np.float32), _arr((3, 2, 6), np.float32)
    f = lambda a, b, x: x - 0.5 * (a @ b).reshape(3, 2, 6)
    _check(f, (a, b, x), x - 0.5 * (a.astype(np.float64) @ b).reshape(3, 2, 6), np.float32)
