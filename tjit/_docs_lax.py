"""Examples for tjit.lax's docstrings (tjit/_docs_jax.py stores and checks them): each
a call written as JAX code beside an independent NumPy/SciPy expression in float64
(``np``, ``sp`` = scipy.special) that gives the same values, or None where the result is
a structure with no NumPy counterpart (shape tuples, dimension numbers)."""

_X = "[-1.5, 0.0, 2.5]"  # any real
_U = "[0.25, 0.5, 0.75]"  # inside (-1, 1) and (0, 1)
_Q = "[0.5, 2.0, 4.5]"  # positive
_Y = "[2.0, 1.0, -0.5]"  # a second operand
_I = "[6, -8, 5]"  # integers
_S = "[1, 2, 1]"  # shift amounts


def _arr(values, dtype=""):
    return f"jnp.asarray({values}{', ' + dtype if dtype else ''})"


def _unary(name, values, ref):
    """``lax.name(values)`` and ``ref`` (a NumPy function's text) on ``values``."""
    return (f"jax.lax.{name}({_arr(values)})", f"{ref}(np.asarray({values}, np.float64))")


def _binary(name, ref, a=_X, b=_Y, dtype=""):
    return (f"jax.lax.{name}({_arr(a, dtype)}, {_arr(b, dtype)})",
            f"{ref}(np.asarray({a}), np.asarray({b}))")


UNARY = {  # name: (sample, NumPy/SciPy function)
    "abs": (_X, "np.abs"), "acos": (_U, "np.arccos"), "acosh": (_Q.replace("0.5", "1.5"),
                                                               "np.arccosh"),
    "asin": (_U, "np.arcsin"), "asinh": (_X, "np.arcsinh"), "atan": (_X, "np.arctan"),
    "atanh": (_U, "np.arctanh"), "cbrt": (_X, "np.cbrt"), "ceil": (_X, "np.ceil"),
    "cos": (_X, "np.cos"), "cosh": (_X, "np.cosh"), "exp": (_X, "np.exp"),
    "exp2": (_X, "np.exp2"), "expm1": (_X, "np.expm1"), "floor": (_X, "np.floor"),
    "log": (_Q, "np.log"), "log1p": (_U, "np.log1p"), "logistic": (_X, "sp.expit"),
    "neg": (_X, "np.negative"), "rsqrt": (_Q, "1 / np.sqrt"), "sign": (_X, "np.sign"),
    "sin": (_X, "np.sin"), "sinh": (_X, "np.sinh"), "sqrt": (_Q, "np.sqrt"),
    "tan": (_X, "np.tan"), "tanh": (_X, "np.tanh"), "is_finite": (_X, "np.isfinite"),
    "erf": (_X, "sp.erf"), "erfc": (_X, "sp.erfc"), "erf_inv": ("[-0.5, 0.0, 0.75]", "sp.erfinv"),
    "lgamma": (_Q, "sp.gammaln"), "digamma": (_Q, "sp.digamma"),
    "bessel_i0e": (_X, "sp.i0e"), "bessel_i1e": (_X, "sp.i1e"),
}
BINARY = {
    "add": "np.add", "sub": "np.subtract", "mul": "np.multiply", "div": "np.divide",
    "pow": "np.power", "atan2": "np.arctan2", "max": "np.maximum", "min": "np.minimum",
    "eq": "np.equal", "ne": "np.not_equal", "lt": "np.less", "le": "np.less_equal",
    "gt": "np.greater", "ge": "np.greater_equal",
}
_F32 = "np.asarray({}, np.float32)"

CALLS = {name: _unary(name, values, ref) for name, (values, ref) in UNARY.items()}
CALLS.update({name: _binary(name, ref, b="[2.0, 1.0, 0.5]" if name == "pow" else _Y)
              for name, ref in BINARY.items()})
CALLS.update({
    "rem": _binary("rem", "np.fmod", "[-5.5, 7.0, 2.5]", "[2.0, 3.0, -1.0]"),
    "nextafter": (f"jax.lax.nextafter({_arr(_X)}, {_arr(_Y)})",
                  f"np.nextafter({_F32.format(_X)}, {_F32.format(_Y)})"),
    "complex": _binary("complex", "np.vectorize(complex)"),
    "real": ("jax.lax.real(jnp.asarray([1 + 2j, 3 - 1j]))", "np.real([1 + 2j, 3 - 1j])"),
    "imag": ("jax.lax.imag(jnp.asarray([1 + 2j, 3 - 1j]))", "np.imag([1 + 2j, 3 - 1j])"),
    "conj": ("jax.lax.conj(jnp.asarray([1 + 2j, 3 - 1j]))", "np.conj([1 + 2j, 3 - 1j])"),
    "round": ("jax.lax.round(jnp.asarray([-1.5, 0.5, 2.5]))",  # halves away from zero
              "np.sign([-1.5, 0.5, 2.5]) * np.floor(np.abs([-1.5, 0.5, 2.5]) + 0.5)"),
    "integer_pow": (f"jax.lax.integer_pow({_arr(_X)}, 3)", f"np.power({_X}, 3)"),
    "igamma": _binary("igamma", "sp.gammainc", _Q, "[1.0, 1.5, 3.0]"),
    "igammac": _binary("igammac", "sp.gammaincc", _Q, "[1.0, 1.5, 3.0]"),
    "igamma_grad_a": (f"jax.lax.igamma_grad_a({_arr(_Q)}, {_arr('[1.0, 1.5, 3.0]')})",
                      (f"(sp.gammainc(np.asarray({_Q}) + 1e-6, [1.0, 1.5, 3.0]) - sp.gammainc("
                      f"np.asarray({_Q}) - 1e-6, [1.0, 1.5, 3.0])) / 2e-6")),
    "polygamma": (f"jax.lax.polygamma({_arr('[1.0, 1.0, 2.0]')}, {_arr(_Q)})",
                  f"sp.polygamma([1, 1, 2], {_Q})"),
    "zeta": _binary("zeta", "sp.zeta", "[2.0, 3.0, 4.5]", _Q),
    "betainc": ((f"jax.lax.betainc({_arr('[1.0, 2.0, 0.5]')}, {_arr('[2.0, 2.0, 3.0]')}, "
                f"{_arr(_U)})"), f"sp.betainc([1.0, 2.0, 0.5], [2.0, 2.0, 3.0], {_U})"),
    # bits of int32
    "bitwise_and": _binary("bitwise_and", "np.bitwise_and", _I, "[3, 7, 4]"),
    "bitwise_or": _binary("bitwise_or", "np.bitwise_or", _I, "[3, 7, 4]"),
    "bitwise_xor": _binary("bitwise_xor", "np.bitwise_xor", _I, "[3, 7, 4]"),
    "bitwise_not": (f"jax.lax.bitwise_not({_arr(_I)})", f"np.invert({_I})"),
    "shift_left": _binary("shift_left", "np.left_shift", _I, _S),
    "shift_right_arithmetic": _binary("shift_right_arithmetic", "np.right_shift", _I, _S),
    "shift_right_logical": (
        f"jax.lax.shift_right_logical({_arr(_I)}, {_arr(_S)})",
        f"(np.asarray({_I}).astype(np.uint32) >> np.asarray({_S}, np.uint32)).astype(np.int32)"),
    "population_count": (f"jax.lax.population_count({_arr(_I)})",
                         f"[bin(v & 0xFFFFFFFF).count('1') for v in {_I}]"),
    "clz": (f"jax.lax.clz({_arr(_I)})", f"[32 - (v & 0xFFFFFFFF).bit_length() for v in {_I}]"),
})

_V = "jnp.arange(6.0)"
_N = "np.arange(6.0)"
_A = "jnp.arange(6.0).reshape(2, 3)"
_NA = "np.arange(6.0).reshape(2, 3)"
_B = "jnp.asarray([[1.0, 2.0], [3.0, 0.5]])"
_NB = "np.asarray([[1.0, 2.0], [3.0, 0.5]])"
_GDN = ("jax.lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), "
        "start_index_map=(0,))")
_SDN = ("jax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
        "scatter_dims_to_operand_dims=(0,))")
_IDX = "jnp.asarray([[4], [1], [4]])"
_UPD = "jnp.asarray([1.0, 2.0, 3.0])"


def _scatter(name, ref):
    return (f"jax.lax.{name}({_V}, {_IDX}, {_UPD}, {_SDN})",
            f"(lambda a: ({ref}(a, [4, 1, 4], [1.0, 2.0, 3.0]), a)[1])(np.arange(6.0))")


CALLS.update({
    # shapes, slices, layout
    "broadcast": (f"jax.lax.broadcast({_arr('[1.0, 2.0]')}, (2,))",
                  "np.broadcast_to([1.0, 2.0], (2, 2))"),
    "broadcast_in_dim": (f"jax.lax.broadcast_in_dim({_arr('[1.0, 2.0]')}, (2, 3), (0,))",
                         "np.broadcast_to(np.asarray([1.0, 2.0])[:, None], (2, 3))"),
    "broadcast_like": (f"jax.lax.broadcast_like({_arr('[1.0, 2.0]')}, jnp.zeros((3, 2)))",
                       "np.broadcast_to([1.0, 2.0], (3, 2))"),
    "clamp": (f"jax.lax.clamp(0.0, {_arr(_X)}, 1.0)", f"np.clip({_X}, 0.0, 1.0)"),
    "concatenate": (f"jax.lax.concatenate([{_arr('[1.0, 2.0]')}, {_arr('[3.0]')}], 0)",
                    "np.concatenate([[1.0, 2.0], [3.0]])"),
    "convert_element_type": (f"jax.lax.convert_element_type({_arr(_X)}, jnp.int32)",
                             f"np.asarray({_X}).astype(np.int32)"),
    "bitcast_convert_type": ("jax.lax.bitcast_convert_type(jnp.asarray([1.0, -2.0]), jnp.int32)",
                             "np.asarray([1.0, -2.0], np.float32).view(np.int32)"),
    "reshape": (f"jax.lax.reshape({_V}, (2, 3))", f"{_N}.reshape(2, 3)"),
    "rev": (f"jax.lax.rev({_A}, (1,))", f"np.flip({_NA}, 1)"),
    "slice": (f"jax.lax.slice({_V}, (1,), (5,), (2,))", f"{_N}[1:5:2]"),
    "slice_in_dim": (f"jax.lax.slice_in_dim({_A}, 1, 3, axis=1)", f"{_NA}[:, 1:3]"),
    "index_in_dim": (f"jax.lax.index_in_dim({_A}, 1, axis=0)", f"{_NA}[1:2]"),
    "dynamic_slice": (f"jax.lax.dynamic_slice({_A}, (0, 1), (2, 2))", f"{_NA}[0:2, 1:3]"),
    "dynamic_slice_in_dim": (f"jax.lax.dynamic_slice_in_dim({_V}, 2, 3)", f"{_N}[2:5]"),
    "dynamic_index_in_dim": (f"jax.lax.dynamic_index_in_dim({_A}, 1, axis=1, keepdims=False)",
                             f"{_NA}[:, 1]"),
    "dynamic_update_slice": (
        f"jax.lax.dynamic_update_slice({_V}, jnp.asarray([9.0, 9.0]), (4,))",
        f"np.concatenate([{_N}[:4], [9.0, 9.0]])"),
    "dynamic_update_slice_in_dim": (
        f"jax.lax.dynamic_update_slice_in_dim({_A}, jnp.zeros((2, 1)), 2, axis=1)",
        f"np.concatenate([{_NA}[:, :2], np.zeros((2, 1))], 1)"),
    "dynamic_update_index_in_dim": (
        f"jax.lax.dynamic_update_index_in_dim({_A}, jnp.zeros(3), 0, 0)",
        f"np.concatenate([np.zeros((1, 3)), {_NA}[1:]])"),
    "full": ("jax.lax.full((2, 2), 3.0)", "np.full((2, 2), 3.0)"),
    "full_like": (f"jax.lax.full_like({_A}, 7.0)", "np.full((2, 3), 7.0)"),
    "iota": ("jax.lax.iota(jnp.int32, 4)", "np.arange(4)"),
    "pad": (f"jax.lax.pad({_arr('[1.0, 2.0, 3.0]')}, 0.0, [(1, 2, 1)])",  # low, high, interior
            "[0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0]"),
    "stack": (f"jax.lax.stack([{_arr('[1.0, 2.0]')}, {_arr('[3.0, 4.0]')}])",
              "np.stack([[1.0, 2.0], [3.0, 4.0]])"),
    "unstack": (f"jax.lax.unstack({_B})", f"tuple({_NB})"),
    "tile": (f"jax.lax.tile({_arr('[1.0, 2.0]')}, (2,))", "np.tile([1.0, 2.0], 2)"),
    "select": (f"jax.lax.select(jnp.asarray([True, False, True]), {_arr(_X)}, {_arr(_Y)})",
               f"np.where([True, False, True], {_X}, {_Y})"),
    "select_n": ((f"jax.lax.select_n(jnp.asarray([0, 1, 2]), {_arr(_X)}, {_arr(_Y)}, "
                 f"{_arr(_Q)})"), f"np.choose([0, 1, 2], [{_X}, {_Y}, {_Q}])"),
    # products, reductions, scans, sorting
    "dot": (f"jax.lax.dot({_B}, {_arr('[1.0, -1.0]')})", f"{_NB} @ [1.0, -1.0]"),
    "dot_general": (f"jax.lax.dot_general({_B}, {_B}, (((1,), (1,)), ((), ())))",
                    f"{_NB} @ {_NB}.T"),
    "batch_matmul": (f"jax.lax.batch_matmul(jnp.stack([{_B}, {_B}]), jnp.ones((2, 2, 1)))",
                     f"np.stack([{_NB}, {_NB}]) @ np.ones((2, 2, 1))"),
    "reduce": (f"jax.lax.reduce({_A}, 0.0, jax.lax.add, (1,))", f"{_NA}.sum(1)"),
    "reduce_sum": (f"jax.lax.reduce_sum({_A}, (0,))", f"{_NA}.sum(0)"),
    "reduce_prod": (f"jax.lax.reduce_prod({_A}, (1,))", f"{_NA}.prod(1)"),
    "reduce_max": (f"jax.lax.reduce_max({_A}, (1,))", f"{_NA}.max(1)"),
    "reduce_min": (f"jax.lax.reduce_min({_A}, (0,))", f"{_NA}.min(0)"),
    "reduce_and": ("jax.lax.reduce_and(jnp.asarray([[True, False], [True, True]]), (1,))",
                   "np.all([[True, False], [True, True]], 1)"),
    "reduce_or": ("jax.lax.reduce_or(jnp.asarray([[True, False], [False, False]]), (1,))",
                  "np.any([[True, False], [False, False]], 1)"),
    "reduce_xor": (f"jax.lax.reduce_xor({_arr(_I)}, (0,))", f"np.bitwise_xor.reduce({_I})"),
    "argmax": (f"jax.lax.argmax({_B}, 1, jnp.int32)", f"np.argmax({_NB}, 1)"),
    "argmin": (f"jax.lax.argmin({_B}, 1, jnp.int32)", f"np.argmin({_NB}, 1)"),
    "cumsum": (f"jax.lax.cumsum({_arr(_X)})", f"np.cumsum({_X})"),
    "cumprod": (f"jax.lax.cumprod({_arr(_Q)})", f"np.cumprod({_Q})"),
    "cummax": (f"jax.lax.cummax({_arr(_Y)}, reverse=True)",
               f"np.maximum.accumulate({_Y}[::-1])[::-1]"),
    "cummin": (f"jax.lax.cummin({_arr(_Y)})", f"np.minimum.accumulate({_Y})"),
    "cumlogsumexp": (f"jax.lax.cumlogsumexp({_arr(_X)})", f"np.logaddexp.accumulate({_X})"),
    "associative_scan": (f"jax.lax.associative_scan(jax.lax.mul, {_arr(_Q)})",
                         f"np.cumprod({_Q})"),
    "sort": (f"jax.lax.sort({_arr(_Y)})", f"np.sort({_Y})"),
    "sort_key_val": (f"jax.lax.sort_key_val({_arr(_Y)}, jnp.asarray([0, 1, 2]))",
                     f"(np.sort({_Y}), np.argsort({_Y}))"),
    "top_k": (f"jax.lax.top_k({_arr('[2.0, 5.0, -1.0, 3.0]')}, 2)",
              "(np.asarray([5.0, 3.0]), np.asarray([1, 3]))"),
    "approx_max_k": (f"jax.lax.approx_max_k({_arr('[2.0, 5.0, -1.0, 3.0]')}, 2)",
                     "(np.asarray([5.0, 3.0]), np.asarray([1, 3]))"),
    "approx_min_k": (f"jax.lax.approx_min_k({_arr('[2.0, 5.0, -1.0, 3.0]')}, 2)",
                     "(np.asarray([-1.0, 2.0]), np.asarray([2, 0]))"),
    "reduce_window": (f"jax.lax.reduce_window({_V}, 0.0, jax.lax.add, (3,), (1,), 'VALID')",
                      f"np.lib.stride_tricks.sliding_window_view({_N}, 3).sum(-1)"),
    "reduce_window_shape_tuple": (("jax.lax.reduce_window_shape_tuple((6,), (3,), (2,), "
                                  "[(0, 0)])"), "(2,)"),
    "padtype_to_pads": ("jax.lax.padtype_to_pads((5,), (3,), (2,), 'SAME')", "[(1, 1)]"),
    "fft": ((f"jax.lax.fft({_arr('[1.0, 2.0, 0.0, -1.0]')}.astype(jnp.complex64), "
            "jax.lax.FftType.FFT, (4,))"), "np.fft.fft([1.0, 2.0, 0.0, -1.0])"),
    # gathers and scatters (indices [[4], [1], [4]] into arange(6))
    "gather": (f"jax.lax.gather({_V}, {_IDX}, {_GDN}, (1,))", f"{_N}[[4, 1, 4]]"),
    "scatter": _scatter("scatter", "np.put"),
    "scatter_add": _scatter("scatter_add", "np.add.at"),
    "scatter_sub": _scatter("scatter_sub", "np.subtract.at"),
    "scatter_mul": _scatter("scatter_mul", "np.multiply.at"),
    "scatter_min": _scatter("scatter_min", "np.minimum.at"),
    "scatter_max": _scatter("scatter_max", "np.maximum.at"),
    # control flow (a Python loop or branch as the reference)
    "cond": (f"jax.lax.cond(True, jnp.sin, jnp.cos, {_arr(_X)})", f"np.sin({_X})"),
    "switch": (f"jax.lax.switch(2, [jnp.sin, jnp.cos, jnp.tanh], {_arr(_X)})",
               f"np.tanh({_X})"),
    "fori_loop": ("jax.lax.fori_loop(0, 5, lambda i, c: c * 2 + i, 1.0)",
                  "__import__('functools').reduce(lambda c, i: c * 2 + i, range(5), 1.0)"),
    "while_loop": ("jax.lax.while_loop(lambda c: c < 100, lambda c: c * 3, 1)", "243"),
    "scan": (f"jax.lax.scan(lambda c, x: (c + x, c * x), 0.0, {_arr(_Q)})",
             f"(np.sum({_Q}), np.cumsum([0.0] + {_Q})[:-1] * {_Q})"),
    "map": (f"jax.lax.map(jnp.sum, {_A})", f"{_NA}.sum(1)"),
    "stop_gradient": ("jax.grad(lambda x: x * jax.lax.stop_gradient(x))(3.0)", "3.0"),
})

# collectives: under vmap with a named axis, each mapped row is one "device"
_R = "jnp.asarray([1.0, 2.0, 4.0])"


def _collective(body, values=_R):
    return f"jax.vmap(lambda x: {body}, axis_name='i')({values})"


_CONV_X = "jnp.arange(5.0).reshape(1, 1, 5)"  # N C W
_CONV_W = "jnp.asarray([1.0, 2.0]).reshape(1, 1, 2)"  # O I W
CALLS.update({
    "psum": (_collective("jax.lax.psum(x, 'i')"), "np.full(3, 7.0)"),
    "pmean": (_collective("jax.lax.pmean(x, 'i')"), "np.full(3, 7.0 / 3)"),
    "pmax": (_collective("jax.lax.pmax(x, 'i')"), "np.full(3, 4.0)"),
    "pmin": (_collective("jax.lax.pmin(x, 'i')"), "np.full(3, 1.0)"),
    "all_gather": (_collective("jax.lax.all_gather(x, 'i')"),
                   "np.tile([1.0, 2.0, 4.0], (3, 1))"),
    "all_to_all": (_collective("jax.lax.all_to_all(x, 'i', 0, 0)",
                               "jnp.arange(4.0).reshape(2, 2)"),
                   "np.arange(4.0).reshape(2, 2).T"),  # row i gets element i of every row
    "ppermute": (_collective("jax.lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 0)])"),
                 "np.roll([1.0, 2.0, 4.0], 1)"),
    "psum_scatter": (_collective("jax.lax.psum_scatter(x, 'i')",
                                 "jnp.arange(4.0).reshape(2, 2)"),
                     "np.arange(4.0).reshape(2, 2).sum(0)"),
    "axis_index": (_collective("jax.lax.axis_index('i')"), "np.arange(3)"),
    "axis_size": (_collective("x * jax.lax.axis_size('i')"), "np.asarray([3.0, 6.0, 12.0])"),
    # convolutions (a cross-correlation, as in JAX) against np.correlate
    "conv": (f"jax.lax.conv({_CONV_X}, {_CONV_W}, (1,), 'VALID')",
             "np.correlate(np.arange(5.0), [1.0, 2.0], 'valid').reshape(1, 1, 4)"),
    "conv_with_general_padding": (
        f"jax.lax.conv_with_general_padding({_CONV_X}, {_CONV_W}, (1,), [(1, 1)], None, None)",
        "np.correlate(np.pad(np.arange(5.0), 1), [1.0, 2.0], 'valid').reshape(1, 1, 6)"),
    "conv_general_dilated": (  # the kernel dilated by 2 is [1, 0, 2]
        f"jax.lax.conv_general_dilated({_CONV_X}, {_CONV_W}, (1,), 'SAME', rhs_dilation=(2,))",
        "np.correlate(np.pad(np.arange(5.0), 1), [1.0, 0.0, 2.0], 'valid').reshape(1, 1, 5)"),
    "conv_transpose": (  # NWC / WIO: each input scatters the kernel reversed, stride 2
        ("jax.lax.conv_transpose(jnp.asarray([1.0, 2.0, 3.0]).reshape(1, 3, 1), "
        "jnp.asarray([1.0, 2.0]).reshape(2, 1, 1), (2,), 'VALID')"),
        "np.kron([1.0, 2.0, 3.0], [2.0, 1.0]).reshape(1, 6, 1)"),
    "conv_dimension_numbers": (
        "jax.lax.conv_dimension_numbers((1, 5, 1), (2, 1, 1), ('NWC', 'WIO', 'NWC'))",
        "((0, 2, 1), (2, 1, 0), (0, 2, 1))"),
    "conv_general_permutations": (
        "jax.lax.conv_general_permutations(('NWC', 'WIO', 'NWC'))",
        "((0, 2, 1), (2, 1, 0), (0, 2, 1))"),
    "conv_general_shape_tuple": (
        "jax.lax.conv_general_shape_tuple((1, 1, 5), (1, 1, 2), (1,), 'VALID', None)",
        "(1, 1, 4)"),
    "conv_transpose_shape_tuple": (
        ("jax.lax.conv_transpose_shape_tuple((1, 3, 1), (2, 1, 1), (2,), 'VALID', "
        "('NWC', 'WIO', 'NWC'))"), "(1, 6, 1)"),
    # max-pool's derivative pair: windows of 2, stride 2 over [1, 3, 2, 5] pick 3 and 5
    "select_and_scatter_add": (
        ("jax.lax.select_and_scatter_add(jnp.asarray([10.0, 20.0]), "
        "jnp.asarray([1.0, 3.0, 2.0, 5.0]), jax.lax.ge, (2,), (2,), 'VALID')"),
        "[0.0, 10.0, 0.0, 20.0]"),
    "select_and_gather_add": (
        ("jax.lax.select_and_gather_add(jnp.asarray([10.0, 20.0, 30.0, 40.0]), "
        "jnp.asarray([1.0, 3.0, 2.0, 5.0]), jax.lax.ge, (2,), (2,), 'VALID')"),
        "[20.0, 40.0]"),
})

_SPD = "jnp.asarray([[2.0, 1.0], [1.0, 3.0]])"
_NEWTON = "lambda f, x0: jax.lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)"
CALLS.update({
    "split": ("jax.lax.split(jnp.arange(5.0), [2, 3])", "tuple(np.split(np.arange(5.0), [2]))"),
    "collapse": ("jax.lax.collapse(jnp.ones((2, 3, 4)), 0, 2).shape", "(6, 4)"),
    "broadcast_shapes": ("jax.lax.broadcast_shapes((3, 1), (4,))",
                         "np.broadcast_shapes((3, 1), (4,))"),
    "empty": ("jax.lax.empty((2, 3), jnp.float32).shape", "(2, 3)"),
    "index_take": (  # the points (0, 1) and (1, -1) of a 2 x 2 array
        ("jax.lax.index_take(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]), "
         "(jnp.asarray([0, 1]), jnp.asarray([1, -1])), (0, 1))"), "[2.0, 4.0]"),
    "mulhi": (  # 2^30 * 8 = 2^33 -> 2; -7 * (2^31 - 1) = -3.5 * 2^32 -> floor -4
        "jax.lax.mulhi(jnp.asarray([2 ** 30, -7], jnp.int32), jnp.asarray([8, 2 ** 31 - 1], "
        "jnp.int32))", "[2, -4]"),
    "reduce_precision": (  # float16's 5 exponent and 10 mantissa bits
        "jax.lax.reduce_precision(jnp.asarray([1.0009765625, 3.14159, 1e-9]), 5, 10)",
        "np.asarray([1.0009765625, 3.14159, 1e-9], np.float32).astype(np.float16)"),
    "optimization_barrier": ("jax.lax.optimization_barrier((jnp.asarray([1.0, 2.0]), 3))",
                             None),
    "with_sharding_constraint": (
        ("jax.lax.with_sharding_constraint(jnp.asarray([1.0, 2.0]), jax.NamedSharding("
         "jax.make_mesh((1,), ('i',)), jax.P('i')))"), "[1.0, 2.0]"),
    "platform_dependent": (  # tjit never runs on a TPU: the default branch
        "jax.lax.platform_dependent(4.0, tpu=jnp.negative, default=jnp.sqrt)", "2.0"),
    "custom_root": (  # Newton's iteration for sqrt(2), differentiated implicitly
        f"jax.lax.custom_root(lambda x: x ** 2 - 2.0, 1.0, {_NEWTON}, lambda g, y: y / g(1.0))",
        "np.sqrt(2.0)"),
    "custom_linear_solve": (
        (f"jax.lax.custom_linear_solve(lambda x: {_SPD} @ x, jnp.asarray([1.0, 2.0]), "
         f"lambda matvec, b: jnp.linalg.solve({_SPD}, b), symmetric=True)"),
        "np.linalg.solve([[2.0, 1.0], [1.0, 3.0]], [1.0, 2.0])"),
})
