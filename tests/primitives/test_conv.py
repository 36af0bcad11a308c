"""``conv_general_dilated`` and the lax convolutions against a plain NumPy reference (a
Python loop over output positions, each the sum of a window times the kernel), gradients
against float64 finite differences (lhs and rhs, groups, dilations, negative padding,
second order), vmap against a Python loop (every combination of mapped operands and
groups), JAX's padding conventions and the shape errors."""

import itertools

import numpy as np
import pytest

import tjit
from tests.primitives.harness import OpRecord, check_record
from tests.transforms.check import check_grads, check_vmap
from tjit import lax
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import symbol


def np_conv(x, w, strides, padding, lhs_dil, rhs_dil, G=1, B=1):
    """NCHW... x OIHW... -> NCHW..., one output element at a time."""
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    dil = [(d - 1) * r + 1 if d else 0 for d, r in zip(x.shape[2:], lhs_dil)]
    lo = [max(p[0], 0) for p in padding]
    hi = [max(p[1], 0) for p in padding]
    xp = np.zeros((N, C) + tuple(d + a + b for d, a, b in zip(dil, lo, hi)), x.dtype)
    xp[(slice(None), slice(None)) + tuple(slice(a, a + d, r) for a, d, r in
                                          zip(lo, dil, lhs_dil))] = x
    xp = xp[(slice(None), slice(None)) + tuple(
        slice(max(-p[0], 0), n - max(-p[1], 0)) for p, n in zip(padding, xp.shape[2:]))]
    kd = [(k - 1) * r + 1 for k, r in zip(w.shape[2:], rhs_dil)]
    out_sp = [max((n - k) // s + 1, 0) if n >= k else 0
              for n, k, s in zip(xp.shape[2:], kd, strides)]
    Nb, Og = N // B, O // (G * B)
    out = np.zeros((Nb, O) + tuple(out_sp), np.result_type(x, w))
    for n, o in itertools.product(range(Nb), range(O)):
        grp = o // Og
        g, b = (grp, 0) if G > 1 else (0, grp)
        for pos in itertools.product(*map(range, out_sp)):
            win = xp[(b * Nb + n, slice(g * I, (g + 1) * I)) + tuple(
                slice(p * s, p * s + k, r) for p, s, k, r in zip(pos, strides, kd, rhs_dil))]
            out[(n, o) + pos] = np.sum(win * w[o])
    return out


def _canon_to(spec_str, canon_str, a):
    """Array ``a`` laid out as ``canon_str`` (e.g. 'NCHW') -> as ``spec_str``."""
    return np.transpose(a, [canon_str.index(c) for c in spec_str])


RECORDS = []

# (name, lhs shape NC..., rhs shape OI..., strides, padding, lhs_dil, rhs_dil, G, B, specs)
CASES = [
    ("1d valid", (2, 3, 9), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), 1, 1, None),
    ("2d strided padded", (2, 3, 7, 6), (4, 3, 3, 2), (2, 1), ((1, 2), (0, 1)), (1, 1),
     (1, 1), 1, 1, None),
    ("2d dilations", (2, 3, 7, 6), (4, 3, 3, 2), (2, 1), ((1, 2), (0, 1)), (1, 2), (2, 1),
     1, 1, None),
    ("2d negative padding", (1, 2, 8, 7), (3, 2, 2, 2), (1, 2), ((-1, 2), (1, -2)), (1, 1),
     (1, 1), 1, 1, None),
    ("feature groups NHWC", (2, 4, 6, 5), (6, 2, 3, 2), (1, 1), ((1, 1), (0, 1)), (1, 1),
     (1, 1), 2, 1, ("NHWC", "HWIO", "NHWC")),
    ("depthwise", (2, 3, 5, 5), (6, 1, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1),
     3, 1, None),
    ("batch groups", (4, 3, 5, 6), (6, 3, 2, 3), (1, 2), ((0, 1), (1, 0)), (1, 1), (1, 1),
     1, 2, ("NCHW", "OIHW", "NCHW")),
    ("3d mixed layout", (2, 2, 4, 3, 5), (3, 2, 2, 2, 3), (1, 1, 2), ((0, 1), (1, 0), (1, 1)),
     (1, 1, 1), (1, 1, 1), 1, 1, ("NDHWC", "DHWIO", "NCDHW")),
    ("empty output", (1, 2, 2, 2), (3, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1),
     1, 1, None),
]
CANON = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
KCANON = {3: "OIW", 4: "OIHW", 5: "OIDHW"}


def _case_fn(case):
    _, ls, rs, st, pad, ld, rd, G, B, specs = case
    nd = len(ls)

    def fn(x, w):
        return lax.conv_general_dilated(x, w, st, pad, ld, rd, specs, feature_group_count=G,
                                        batch_group_count=B)

    def to_layout(a_canon, which):
        if specs is None:
            return a_canon
        canon = CANON[nd] if which != 1 else KCANON[nd]
        return _canon_to(specs[which].replace("D", "D"), canon, a_canon)

    def ref(x, w):
        if specs is not None:  # inputs arrive in the spec layout: back to canonical
            x = np.transpose(x, [specs[0].index(c) for c in CANON[nd]])
            w = np.transpose(w, [specs[1].index(c) for c in KCANON[nd]])
        return to_layout(np_conv(x, w, st, pad, ld, rd, G, B), 2)

    def shapes():
        return to_layout(np.empty(ls), 0).shape, to_layout(np.empty(rs), 1).shape
    return fn, ref, shapes()


for _case in CASES:
    _fn, _ref, (_ls, _rs) = _case_fn(_case)
    for _dt in ("float32", "float64", "int32"):
        if _dt == "int32" and _case[0] not in ("2d dilations", "feature groups NHWC"):
            continue
        RECORDS.append(OpRecord(f"{_case[0]} {_dt}", _fn, _ref, ((_ls, _dt), (_rs, _dt)),
                                ("conv_general_dilated",), rtol=2e-5, atol=2e-5))


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_conv_records(record, x64):
    check_record(record)


def _args(case, seed=0):
    _, _, (ls, rs) = _case_fn(case)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(ls), rng.standard_normal(rs)


GRAD_CASES = [c for c in CASES if c[0] != "empty output"]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c[0])
def test_conv_grads_vs_finite_differences(case):
    fn = _case_fn(case)[0]
    x, w = _args(case)
    check_grads(fn, (x, w), order=2, eps=1e-5, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [c for c in GRAD_CASES if c[0] in (
    "2d dilations", "feature groups NHWC", "batch groups", "3d mixed layout")],
    ids=lambda c: c[0])
@pytest.mark.parametrize("axes", [(0, 0), (1, None), (None, 2), (2, 1)], ids=str)
def test_conv_vmap_vs_loop(case, axes):
    fn = _case_fn(case)[0]
    x, w = _args(case, 1)
    rng = np.random.default_rng(2)
    args = []
    for a, ax in zip((x, w), axes):
        if ax is None:
            args.append(a.astype(np.float32))
        else:
            stacked = np.stack([a, 2 * a + rng.standard_normal(a.shape), -a])
            args.append(np.moveaxis(stacked, 0, ax).astype(np.float32))
    check_vmap(fn, args, in_axes=axes, rtol=2e-5, atol=2e-5)


def test_grad_under_jit_and_vmap_of_grad():
    x, w = _args(GRAD_CASES[2])
    x, w = x.astype(np.float32), w.astype(np.float32)

    def loss(w, x):
        return (_case_fn(GRAD_CASES[2])[0](x, w) ** 2).sum()
    g = tjit.grad(loss)(w, x)
    np.testing.assert_allclose(tjit.jit(tjit.grad(loss))(w, x), g, rtol=1e-5, atol=1e-4)
    xs = np.stack([x, x * 0.5])
    check_vmap(tjit.grad(loss), (w, xs), in_axes=(None, 0), rtol=1e-4, atol=1e-4)


def test_padding_strings_follow_jax():
    assert lax.padtype_to_pads((7, 8), (3, 3), (2, 3), "SAME") == [(1, 1), (0, 1)]
    assert lax.padtype_to_pads((7, 8), (3, 3), (2, 3), "SAME_LOWER") == [(1, 1), (1, 0)]
    assert lax.padtype_to_pads((7, 8), (3, 3), (2, 3), "VALID") == [(0, 0), (0, 0)]
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 2, 7, 8)), rng.standard_normal((3, 2, 3, 3))
    for mode in ("SAME", "SAME_LOWER"):
        pads = lax.padtype_to_pads((7, 8), (3, 3), (2, 3), mode)
        got = lax.conv(x.astype(np.float32), w.astype(np.float32), (2, 3), mode)
        assert got.shape == (1, 3, 4, 3)  # ceil(in / stride)
        np.testing.assert_allclose(got, np_conv(x, w, (2, 3), pads, (1, 1), (1, 1)),
                                   rtol=1e-5, atol=1e-5)
    # rhs dilation widens the window string padding is computed for (as JAX)
    got = lax.conv_with_general_padding(x.astype(np.float32), w.astype(np.float32), (1, 1),
                                        "SAME", (1, 1), (2, 2))
    assert got.shape == (1, 3, 7, 8)


def test_conv_dimension_numbers():
    dn = lax.conv_dimension_numbers((1, 5, 5, 3), (2, 2, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    # spatial dims ordered as in the kernel spec
    dn = lax.conv_dimension_numbers((1, 5, 5, 3), (2, 2, 3, 4), ("NWHC", "HWIO", "NHWC"))
    assert dn.lhs_spec == (0, 3, 2, 1)
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    with pytest.raises(TypeError, match="must name 'N' and 'C'"):
        lax.conv_dimension_numbers((1, 5, 5, 3), (2, 2, 3, 4), ("NHWW", "HWIO", "NHWC"))


def test_conv_transpose_against_scatter_reference():
    """conv_transpose(x, k, stride) with transpose_kernel is the gradient of a strided
    conv: each input pixel scatters a copy of the kernel; 'VALID' keeps the full output."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 4))     # NHWC: C = 4, the forward conv's output
    k = rng.standard_normal((3, 2, 5, 4))     # HWIO of the forward conv: 5 -> 4 channels
    got = lax.conv_transpose(x.astype(np.float32), k.astype(np.float32), (2, 2), "VALID",
                             transpose_kernel=True)
    s = 2
    H, W = (3 - 1) * s + 3, (4 - 1) * s + 2
    want = np.zeros((2, H, W, 5))
    for n, i, j in itertools.product(range(2), range(3), range(4)):
        want[n, i * s:i * s + 3, j * s:j * s + 2, :] += np.einsum("hwco,o->hwc", k, x[n, i, j])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    same = lax.conv_transpose(x.astype(np.float32), k.astype(np.float32), (2, 2), "SAME",
                              transpose_kernel=True)
    assert same.shape == (2, 6, 8, 5)
    # without transpose_kernel the kernel is HWIO with I = x's channels
    k2 = rng.standard_normal((3, 3, 4, 2)).astype(np.float32)
    out = lax.conv_transpose(x.astype(np.float32), k2, (1, 1), "SAME")
    np.testing.assert_allclose(
        out, np.transpose(np_conv(np.transpose(x, (0, 3, 1, 2)), np.transpose(k2, (3, 2, 0, 1)),
                                  (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)), (0, 2, 3, 1)),
        rtol=1e-5, atol=1e-5)


def test_preferred_element_type_and_int8():
    rng = np.random.default_rng(4)
    x = rng.integers(-100, 100, (1, 2, 5, 5)).astype(np.int8)
    w = rng.integers(-100, 100, (2, 2, 3, 3)).astype(np.int8)
    got = lax.conv(x, w, (1, 1), "VALID", preferred_element_type=np.int32)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np_conv(x.astype(np.int64), w.astype(np.int64),
                                               (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)))
    np.testing.assert_array_equal(tjit.jit(lambda a, b: lax.conv(
        a, b, (1, 1), "VALID", preferred_element_type=np.int32))(x, w), got)


def test_symbolic_batch_dim():
    n = symbol("n")
    x = tjit.ShapeDtypeStruct((n, 3, 8, 8), np.float32) if hasattr(
        tjit, "ShapeDtypeStruct") else None
    if x is None:
        pytest.skip("no ShapeDtypeStruct")
    out = tjit.eval_shape(lambda a, b: lax.conv(a, b, (2, 2), "SAME"), x,
                          tjit.ShapeDtypeStruct((4, 3, 3, 3), np.float32))
    assert out.shape == (n, 4, 4, 4)


@pytest.mark.parametrize("call, match", [
    (lambda: lax.conv(np.ones((1, 3, 5, 5), np.float32), np.ones((4, 2, 3, 3), np.float32),
                      (1, 1), "VALID"),
     (r"lhs feature dim \(3\) must equal rhs input feature dim \(2\) times "
      r"feature_group_count \(1\).*lhs shape \(1, 3, 5, 5\)")),
    (lambda: lax.conv(np.ones((1, 3, 5), np.float32), np.ones((4, 3, 3, 3), np.float32),
                      (1, 1), "VALID"), "same rank"),
    (lambda: lax.conv(np.ones((1, 3, 5, 5), np.float32), np.ones((4, 3, 3, 3), np.float32),
                      (1,), "VALID"), r"window_strides \(1,\) needs one entry per spatial"),
    (lambda: lax.conv_general_dilated(np.ones((2, 4, 5, 5), np.float32),
                                      np.ones((4, 2, 3, 3), np.float32), (1, 1), "VALID",
                                      feature_group_count=2, batch_group_count=2),
     "at most one of feature_group_count"),
    (lambda: lax.conv(np.ones((1, 3, 5, 5), np.float32), np.ones((4, 3, 3, 3), np.float64),
                      (1, 1), "VALID"), "dtypes must be equal"),
])
def test_errors_name_op_and_shapes(call, match, x64):
    with pytest.raises((ShapeError, TypeError), match=match):
        call()
