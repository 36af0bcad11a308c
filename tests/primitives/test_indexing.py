"""gather and scatter primitives: op records against Python-loop references that walk
XLA's definition index by index (general dimension numbers, batching dims, every mode),
plus shape-rule errors, weak types and symbolic shapes."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.primitives import indexing as ix
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import symbol
from tests.primitives.harness import OpRecord, check_record

GDN, SDN, MODE = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers, lax.GatherScatterMode


# -- references: XLA's definitions as loops -------------------------------------------------
def _start(indices, g, index_map, op_batch, idx_batch, rank):
    s = [0] * rank
    vec = indices[tuple(g)]
    for k, d in enumerate(index_map):
        s[d] = int(vec[k])
    for od, bd in zip(op_batch, idx_batch):
        s[od] = g[bd]
    return s


def gather_ref(operand, indices, dn, slice_sizes, mode="clip", fill=None):
    """One output element at a time, straight from the XLA gather definition."""
    dn = GDN(*dn)
    skip = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_operand = [d for d in range(operand.ndim) if d not in skip]
    batch_shape = indices.shape[:-1]
    rank = len(batch_shape) + len(offset_operand)
    b, o, out_shape = iter(batch_shape), iter(offset_operand), []
    for i in range(rank):
        out_shape.append(slice_sizes[next(o)] if i in dn.offset_dims else next(b))
    out = np.zeros(out_shape, operand.dtype)
    for oi in np.ndindex(*out_shape):
        g = [oi[i] for i in range(rank) if i not in dn.offset_dims]
        s = _start(indices, g, dn.start_index_map, dn.operand_batching_dims,
                   dn.start_indices_batching_dims, operand.ndim)
        hi = [n - k for n, k in zip(operand.shape, slice_sizes)]
        if mode == "fill" and not all(0 <= s[d] <= hi[d] for d in dn.start_index_map):
            out[oi] = fill
            continue
        s = [min(max(v, 0), h) for v, h in zip(s, hi)]
        for j, d in enumerate(offset_operand):
            s[d] += oi[dn.offset_dims[j]]
        out[oi] = operand[tuple(s)]
    return out


def scatter_ref(operand, indices, updates, dn, combine, mode="drop"):
    """One update element at a time, straight from the XLA scatter definition."""
    dn = SDN(*dn)
    skip = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_operand = [d for d in range(operand.ndim) if d not in skip]
    window = [1] * operand.ndim
    for d, u in zip(window_operand, dn.update_window_dims):
        window[d] = updates.shape[u]
    out = operand.copy()
    for ui in np.ndindex(*updates.shape):
        g = [ui[i] for i in range(updates.ndim) if i not in dn.update_window_dims]
        s = _start(indices, g, dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                   dn.scatter_indices_batching_dims, operand.ndim)
        hi = [n - w for n, w in zip(operand.shape, window)]
        if mode == "clip":
            s = [min(max(v, 0), h) for v, h in zip(s, hi)]
        elif not all(0 <= v <= h for v, h in zip(s, hi)):
            continue  # the whole window is dropped
        for j, d in enumerate(window_operand):
            s[d] += ui[dn.update_window_dims[j]]
        out[tuple(s)] = combine(out[tuple(s)], updates[ui])
    return out


def _ints(lo, hi, dtype="int32"):
    """Arg spec maker: random ints in [lo, hi) (out-of-bounds values on purpose)."""
    return lambda shape: (shape, dtype, lambda rng, s: rng.integers(lo, hi, s))


def _unique_rows(n):
    """Index spec: a permutation of range(n) as an (n, 1) index array."""
    return ((n, 1), "int32", lambda rng, s: rng.permutation(n).reshape(n, 1))


RECORDS = []


def grec(name, x_spec, idx_spec, dn, sizes, mode=None, fill=None):
    ref_mode = "fill" if mode == "fill" else "clip"

    def ref(x, i):
        f = ix.default_fill_value(x.dtype) if fill is None else fill
        return gather_ref(x, i, dn, sizes, ref_mode, f)

    def fn(x, i):
        return lax.gather(x, i, dn, sizes, mode=mode, fill_value=fill)
    RECORDS.append(OpRecord(f"gather_{name}", fn, ref, (x_spec, idx_spec), ("gather",)))


_ROWS = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
grec("rows", ((5, 3), "float32"), _ints(0, 5)((4, 1)), _ROWS, (1, 3))
grec("rows_oob_clamped", ((5, 3), "float32"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3))
grec("rows_fill_nan", ((5, 3), "float32"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3), "fill")
grec("rows_fill_value", ((5, 3), "int32"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3), "fill", -7)
grec("rows_fill_uint", ((5, 3), "uint8"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3), "fill")
grec("rows_fill_bool", ((5, 3), "bool"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3), "fill")
grec("rows_clip_mode", ((5, 3), "float32"), _ints(-3, 9)((6, 1)), _ROWS, (1, 3), "clip")
# windows of 2 x 3 at 2-d starts into dims (0, 2): clamping keeps whole windows inside
grec("windows_2d", ((4, 5, 6), "float32"), _ints(-2, 7)((3, 2)),
     GDN(offset_dims=(1, 2), collapsed_slice_dims=(1,), start_index_map=(0, 2)), (2, 1, 3))
grec("windows_2d_fill", ((4, 5, 6), "float32"), _ints(-2, 7)((3, 2)),
     GDN(offset_dims=(1, 2), collapsed_slice_dims=(1,), start_index_map=(0, 2)), (2, 1, 3),
     "fill", 0.5)
# offset dims around the batch dims; start_index_map not sorted
grec("interleaved", ((4, 5, 6), "float32"), _ints(0, 6)((2, 3, 2)),
     GDN(offset_dims=(0, 3), collapsed_slice_dims=(2,), start_index_map=(2, 1)), (4, 2, 1))
grec("batching", ((3, 4, 5), "float32"), _ints(-1, 5)((3, 2, 1)),
     GDN(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
         operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1, 5))
grec("batching_second_dim", ((4, 3, 2), "int32"), _ints(0, 4)((2, 3, 1)),
     GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,),
         operand_batching_dims=(1, 2), start_indices_batching_dims=(1, 0)), (1, 1, 1))
grec("int8_indices", ((6,), "float32"), _ints(-2, 8, "int8")((5, 1)),
     GDN((), (0,), (0,)), (1,))
grec("uint8_indices", ((6,), "float32"), _ints(0, 12, "uint8")((5, 1)),
     GDN((), (0,), (0,)), (1,), "fill")
grec("scalar_operand", ((), "float32"), ((3, 0), "int32"), GDN((), (), ()), ())
grec("empty_indices_full_slice", ((2, 3), "float32"), ((0,), "int32"), GDN((0, 1), (), ()),
     (2, 3))
grec("zero_batch", ((5, 3), "float32"), _ints(0, 5)((0, 1)), _ROWS, (1, 3))


def srec(name, prim_fn, combine, x_spec, idx_spec, upd_spec, dn, mode=None):
    ref_mode = "clip" if mode == "clip" else "drop"

    def fn(x, i, u):
        return prim_fn(x, i, u, dn, mode=mode)

    def ref(x, i, u):
        return scatter_ref(x, i, u, dn, combine, ref_mode)
    RECORDS.append(OpRecord(f"{prim_fn.__name__}_{name}", fn, ref, (x_spec, idx_spec, upd_spec),
                            (prim_fn.__name__.replace("_", "-"),)))


_ELEMS = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
_ROWS_S = SDN(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
_SET, _ADD = (lambda a, b: b), (lambda a, b: a + b)
_COMBINE = {lax.scatter_add: _ADD, lax.scatter_sub: lambda a, b: a - b,
            lax.scatter_mul: lambda a, b: a * b, lax.scatter_min: min, lax.scatter_max: max}
for _fn, _comb in _COMBINE.items():
    # duplicates and out-of-bounds indices: every in-bounds update is combined
    srec("dups_oob", _fn, _comb, ((6,), "float32"), _ints(-3, 9)((10, 1)), ((10,), "float32"),
         _ELEMS)
    srec("rows", _fn, _comb, ((5, 3), "int32"), _ints(-1, 6)((4, 1)), ((4, 3), "int32"),
         _ROWS_S)
srec("unique_rows", lax.scatter, _SET, ((5, 3), "float32"), _unique_rows(5), ((5, 3), "float32"),
     _ROWS_S)
srec("unique_oob_dropped", lax.scatter, _SET, ((4,), "float32"),
     ((3, 1), "int32", lambda rng, s: np.array([[5], [-1], [2]])), ((3,), "float32"), _ELEMS)
srec("clip", lax.scatter_add, _ADD, ((6,), "float32"), _ints(-4, 10)((8, 1)), ((8,), "float32"),
     _ELEMS, "clip")
srec("windows_2d", lax.scatter_add, _ADD, ((4, 5, 6), "float32"), _ints(-1, 6)((3, 2)),
     ((3, 2, 3), "float32"),
     SDN(update_window_dims=(1, 2), inserted_window_dims=(1,),
         scatter_dims_to_operand_dims=(0, 2)))
srec("windows_2d_clip", lax.scatter_max, max, ((4, 5, 6), "float32"), _ints(-1, 7)((3, 2)),
     ((3, 2, 3), "float32"),
     SDN(update_window_dims=(1, 2), inserted_window_dims=(1,),
         scatter_dims_to_operand_dims=(0, 2)), "clip")
srec("batching", lax.scatter_add, _ADD, ((3, 4, 5), "float32"), _ints(-1, 5)((3, 2, 1)),
     ((3, 2, 5), "float32"),
     SDN(update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
         operand_batching_dims=(0,), scatter_indices_batching_dims=(0,)))
srec("bool_or", lax.scatter_add, lambda a, b: a or b, ((6,), "bool"), _ints(0, 6)((4, 1)),
     ((4,), "bool"), _ELEMS)
srec("scalar_operand", lax.scatter_add, _ADD, ((), "float32"), ((3, 0), "int32"),
     ((3,), "float32"), SDN((), (), ()))


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_record(record):
    check_record(record)


def test_records_cover_every_indexing_primitive():
    covered = {p for r in RECORDS for p in r.primitives}
    names = {"gather", "scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
             "scatter-max"}
    assert names <= covered
    assert names == {n for n in tjit.primitives.base.REGISTRY
                     if n.startswith(("gather", "scatter"))}


def test_f64_gather_and_scatter(x64):
    x = np.linspace(0, 1, 15).reshape(5, 3)
    i = np.array([[4], [0], [4]])
    out = lax.gather(x, i, _ROWS, (1, 3))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x[[4, 0, 4]])
    acc = lax.scatter_add(np.zeros(5), i, np.ones((3,)), _ELEMS)
    np.testing.assert_array_equal(acc, [1, 0, 0, 0, 2])


def test_set_with_duplicates_last_update_wins():
    out = lax.scatter(np.zeros(4, np.float32), np.array([[1], [1], [1]]),
                      np.array([1.0, 2.0, 3.0], np.float32), _ELEMS)
    np.testing.assert_array_equal(out, [0, 3, 0, 0])


def test_nan_propagates_through_scatter_min_max():
    x = np.array([1.0, np.nan, 3.0], np.float32)
    i = np.array([[0], [2]])
    lo = lax.scatter_min(x, i, np.array([np.nan, 5.0], np.float32), _ELEMS)
    np.testing.assert_array_equal(lo, [np.nan, np.nan, 3.0])


def test_weak_type_follows_operand():
    x = tjit.numpy.asarray(2.0)  # weak float
    xs = lax.broadcast(x, (4,))
    assert xs.weak_type
    g = lax.gather(xs, np.array([[1]]), GDN((), (0,), (0,)), (1,))
    assert g.weak_type
    s = lax.scatter_add(xs, np.array([[1]]), np.ones(1, np.float32), _ELEMS)
    assert s.weak_type
    strong = lax.gather(np.ones(3, np.float32), np.array([[0]]), GDN((), (0,), (0,)), (1,))
    assert not strong.weak_type


def test_mode_parsing():
    assert MODE.from_any("clip") is MODE.CLIP
    assert MODE.from_any(None) is MODE.FILL_OR_DROP
    assert MODE.from_any("drop") is MODE.FILL_OR_DROP
    assert MODE.from_any("promise_in_bounds") is MODE.PROMISE_IN_BOUNDS
    with pytest.raises(ValueError, match="Unknown gather/scatter mode 'wrap'"):
        MODE.from_any("wrap")


def test_promise_in_bounds_clamps_gathers_and_drops_scatters():
    x = np.arange(5, dtype=np.float32)
    i = np.array([[7], [-2]])
    g = lax.gather(x, i, GDN((), (0,), (0,)), (1,), mode="promise_in_bounds")
    np.testing.assert_array_equal(g, [4, 0])
    s = lax.scatter_add(x, i, np.ones(2, np.float32), _ELEMS, mode="promise_in_bounds")
    np.testing.assert_array_equal(s, x)


def test_dimension_numbers_are_hashable_and_survive_specialization():
    dn = GDN([1], [0], [0])  # lists are canonicalized to tuples by the lax wrapper
    f = tjit.jit(lambda x, i: lax.gather(x, i, dn, (1, 3)),
                 polymorphic_shapes=["(n, 3)", "(b, 1)"])
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    for b in (2, 4):
        i = np.arange(b).reshape(b, 1)
        np.testing.assert_array_equal(f(x, i), x[:b])
    hash(ix.gather_dnums(dn))


def test_symbolic_shapes():
    b = symbol("b")
    spec = tjit.ShapeDtypeStruct
    jaxpr = tjit.make_jaxpr(lambda x, i: lax.gather(x, i, _ROWS, (1, 3)),
                            polymorphic_shapes=["(n, 3)", "(b, 1)"])(
        spec((5, 3), np.float32), spec((4, 1), np.int32))
    assert jaxpr.out_avals[0].shape == (b, 3)
    upd = tjit.make_jaxpr(lambda x, i, u: lax.scatter_add(x, i, u, _ROWS_S),
                          polymorphic_shapes=["(n, 3)", "(b, 1)", "(b, 3)"])(
        spec((5, 3), np.float32), spec((4, 1), np.int32), spec((4, 3), np.float32))
    assert upd.out_avals[0].shape == (symbol("n"), 3)


@pytest.mark.parametrize("args, match", [
    (dict(idx=np.zeros((2, 1), np.float32)), "indices must have an integer dtype"),
    (dict(idx=np.zeros((2, 2), np.int32)), r"index vector .* has size 2 but the index map"),
    (dict(sizes=(1,)), r"slice_sizes \(1,\) must have one entry per operand dim"),
    (dict(sizes=(1, 4)), r"slice size 4 for dim 1 must be in \[0, 3\]"),
    (dict(sizes=(2, 3)), "slice size of collapsed/batching dim 0 must be 1"),
    (dict(dn=GDN((0, 1), (0,), (0,))), r"offset_dims \(0, 1\) must name 1 output dims"),
    (dict(dn=GDN((1, 0), (), (0,))), "must be sorted"),
    (dict(dn=GDN((1,), (0,), (0,), (0,), (0,))), "must be disjoint|must not contain"),
    (dict(idx=np.zeros((), np.int32)), "indices must have rank >= 1"),
])
def test_gather_shape_errors(args, match):
    x = np.zeros((5, 3), np.float32)
    idx = args.get("idx", np.zeros((2, 1), np.int32))
    with pytest.raises((ShapeError, TypeError), match=match):
        lax.gather(x, idx, args.get("dn", _ROWS), args.get("sizes", (1, 3)))


def test_gather_batching_size_mismatch():
    dn = GDN((), (1,), (1,), (0,), (0,))
    with pytest.raises(ShapeError, match=r"operand batching dim 0 \(size 3.*indices dim 0 "
                                         r"\(size 2"):
        lax.gather(np.zeros((3, 4)), np.zeros((2, 1), np.int32), dn, (1, 1))


@pytest.mark.parametrize("upd_shape, dn, match", [
    ((4, 3), SDN((1,), (0,), (0,)), "updates dtype float64 must equal"),
    ((2, 3), _ROWS_S, r"updates \(2, 3\) must have the batch dims of indices \(4,\)"),
    ((4, 5), _ROWS_S, r"window size 5 .* exceeds operand dim 1"),
    ((4, 3), SDN((1,), (), (0,)), r"update_window_dims \(1,\) must name 2 dims"),
])
def test_scatter_shape_errors(upd_shape, dn, match):
    x = np.zeros((5, 3), np.float32)
    dt = np.float64 if "dtype" in match else np.float32
    with pytest.raises((ShapeError, TypeError), match=match):
        ix.scatter_add_p.bind(tjit.numpy.asarray(x), tjit.numpy.asarray(np.zeros((4, 1),
                                                                              np.int32)),
                              tjit.tracing.core.Array(np.zeros(upd_shape, dt)),
                              dimension_numbers=dn,
                              mode=MODE.FILL_OR_DROP)


def test_scatter_sub_rejects_bool():
    with pytest.raises(TypeError, match="scatter-sub: bool operands are not supported"):
        lax.scatter_sub(np.zeros(3, bool), np.zeros((1, 1), np.int32), np.ones(1, bool),
                        _ELEMS)


def test_fill_value_must_be_scalar_and_static():
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="fill_value must be a scalar"):
        lax.gather(x, np.zeros((1, 1), np.int32), GDN((), (0,), (0,)), (1,), mode="fill",
                   fill_value=np.zeros(2))
    with pytest.raises(tjit.ConcretizationTypeError, match="fill_value of gather"):
        tjit.jit(lambda v: lax.gather(x, np.zeros((1, 1), np.int32), GDN((), (0,), (0,)), (1,),
                                      mode="fill", fill_value=v))(1.0)


# -- row scatters (the round-based path) and scatters into zeros ------------------------------

_ROW_DN = SDN(update_window_dims=(1, 2), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
_COMBINE = {"scatter": None, "scatter_add": np.add, "scatter_sub": np.subtract,
            "scatter_mul": np.multiply, "scatter_min": np.minimum, "scatter_max": np.maximum}


def _loop_reference(x, rows, vals, combine, mode):
    """A Python loop over the updates, in order (the independent oracle)."""
    out = x.copy()
    n = x.shape[0]
    for r, v in zip(rows, vals):
        if mode == "clip":
            r = min(max(r, 0), n - 1)
        elif not 0 <= r < n:
            continue                    # dropped
        out[r] = v if combine is None else combine(out[r], v)
    return out


@pytest.mark.parametrize("name", sorted(_COMBINE))
@pytest.mark.parametrize("mode", ["clip", "fill"])
@pytest.mark.parametrize("repeats", [1, 3, ix.ROW_SCATTER_MAX_ROUNDS + 2])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_row_scatter_matches_a_sequential_loop(name, mode, repeats, dtype):
    """Whole rows (the embedding-gradient shape), rows repeated up to ``repeats`` times
    (beyond the row path's rounds: the element-wise path), out-of-range and negative
    indices: the bits of applying the updates one by one, in order."""
    if name == "scatter_sub" and dtype == np.int32:
        dtype = np.int64
    rng = np.random.default_rng(repeats)
    x = (rng.standard_normal((12, 3, 4)) * 4).astype(dtype)
    rows = np.concatenate([rng.permutation(12)[:7]] * repeats + [[-1, 12, 40]])
    rows = rng.permutation(rows)
    vals = (rng.standard_normal((len(rows), 3, 4)) * 4).astype(dtype)
    got = getattr(lax, name)(x, rows[:, None], vals, _ROW_DN, mode=mode)
    want = _loop_reference(x, rows, vals, _COMBINE[name], mode)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_gradient_of_a_gather_scatters_into_fresh_zeros():
    """jit(grad) of an embedding lookup: one library call that scatters into np.zeros
    (no zeros kernel, no copy), equal to np.add.at; polymorphic in the batch."""
    rng = np.random.default_rng(5)
    table = rng.standard_normal((50, 8)).astype(np.float32)

    def loss(e, t, c):
        return (e[t] * c).sum()
    f = tjit.jit(tjit.grad(loss), polymorphic_shapes=[None, "(b, 4)", "(b, 4, 8)"])
    for b in (3, 9):
        t = rng.integers(0, 50, (b, 4))
        c = rng.standard_normal((b, 4, 8)).astype(np.float32)
        want = np.zeros_like(table)
        np.add.at(want, t.reshape(-1), c.reshape(-1, 8))
        np.testing.assert_allclose(np.asarray(f(table, t, c)), want, rtol=1e-6, atol=1e-6)
    compiled = f.lower(table, t, c).compile()
    assert ("library", "scatter-add into zeros") in compiled.fusion_summary()
    assert all(any(a.role == "in" for a in k.args) for k in compiled.kernels()), \
        compiled.as_text()            # no kernel fills zeros
