"""Random sampling under jit is fused: Threefry, same-width bitcasts and float32 erf_inv
lower to elementwise kernel ops (no library step in the plan), and the values agree with
the reference interpreter (bits) and SciPy in float64 (erf_inv, within its ulp bound)."""

import numpy as np
import pytest
import scipy.special

import tjit as jax
from tjit import lax, random
from tjit.primitives.random_bits import threefry2x32_p

LIBRARY_PRIMS = ("threefry2x32", "bitcast_convert_type", "erf_inv")

SAMPLERS = {
    "bits": lambda k: random.bits(k, (1000,)),
    "uniform": lambda k: random.uniform(k, (1000,)),
    "normal": lambda k: random.normal(k, (1000,)),
    "bernoulli": lambda k: random.bernoulli(k, 0.9, (1000,)),
    "randint": lambda k: random.randint(k, (1000,), 0, 1000),
    "truncated_normal": lambda k: random.truncated_normal(k, -2.0, 2.0, (1000,)),
    "normal 2-d, split key": lambda k: random.normal(random.split(k)[1], (31, 7)),
}


def _plan(f, *args):
    return jax.jit(f).lower(*args).compile().as_text()


@pytest.mark.parametrize("name", SAMPLERS)
def test_plan_has_no_library_step_for_the_hash_bitcast_or_erf_inv(name):
    text = _plan(SAMPLERS[name], random.PRNGKey(0))
    for prim in LIBRARY_PRIMS:
        assert f"library {prim}" not in text, text


@pytest.mark.parametrize("name", ["uniform", "bernoulli", "bits", "normal",
                                  "truncated_normal"])
def test_a_sampler_is_one_kernel(name):
    # (normal: hash, bits-to-float and erf_inv in one kernel; the broadcasts of the
    # sampler's scalar constants count nothing towards fusion's kernel-size bound)
    text = _plan(SAMPLERS[name], random.PRNGKey(0))
    assert "1 fused kernels" in text.splitlines()[0], text.splitlines()[0]


def test_normal_of_a_split_key_is_not_split_further():
    """The sample's hash, bits-to-float and erf_inv stay one kernel beside the kernels of
    the split key's own hash (six kernels when broadcasts counted towards the bound)."""
    text = _plan(SAMPLERS["normal 2-d, split key"], random.PRNGKey(0))
    kernels = text.split("\nkernel ")[1:]
    assert len(kernels) <= 4, text.splitlines()[0]
    assert sum("sqrt(" in k for k in kernels) == 1      # (erf_inv's tail branch)


@pytest.mark.parametrize("name", [n for n in SAMPLERS if "normal" not in n])
def test_integer_and_uniform_samplers_match_the_interpreter_bit_for_bit(name):
    f, key = SAMPLERS[name], random.PRNGKey(1234)
    got = np.asarray(jax.jit(f)(key))
    want = np.asarray(jax.jit(f, backend="interpreter")(key))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("name", [n for n in SAMPLERS if "normal" in n])
def test_normal_samplers_match_the_interpreter_within_erf_inv_error(name):
    f, key = SAMPLERS[name], random.PRNGKey(1234)
    got = np.asarray(jax.jit(f)(key), np.float64)
    want = np.asarray(jax.jit(f, backend="interpreter")(key), np.float64)
    # SciPy's float32 erfinv (the interpreter) is itself up to ~3 ulp off; 6 ulp of
    # float32 between the two
    bound = 6 * np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    np.testing.assert_array_less(np.abs(got - want), bound + 1e-45)


def test_threefry_known_answer_under_jit_with_rank0_and_array_words():
    # Random123's threefry2x32_20 known-answer vectors (kat_vectors)
    key = np.uint32([0x13198a2e, 0x03707344])
    ctr = np.uint32([0x243f6a88, 0x85a308d3])
    want = (0xc4923a9c, 0x483df7a0)

    def f(k1, k2, x1, x2):
        return threefry2x32_p.bind(k1, k2, x1, x2)

    x1 = np.full(5, ctr[0], np.uint32)
    got = jax.jit(f)(key[0], key[1], x1, ctr[1])
    assert [int(v) for v in np.asarray(got[0])] == [want[0]] * 5
    assert [int(v) for v in np.asarray(got[1])] == [want[1]] * 5
    assert "library threefry2x32" not in _plan(f, key[0], key[1], x1, ctr[1])
    ones = np.uint32(0xffffffff)
    got = jax.jit(f)(ones, ones, ones, ones)   # all rank 0
    assert (int(got[0]), int(got[1])) == (0x1cb996fc, 0xbb002be7)


# ---------------------------------------------------------------------------------------
# erf_inv

def _ulps(got, exact):
    """|got - exact| in float32 ulps of the exact value (float64 reference)."""
    exact = np.asarray(exact, np.float64)
    return np.abs(np.asarray(got, np.float64) - exact) / np.spacing(
        np.abs(exact).astype(np.float32)).astype(np.float64)


def test_erf_inv_float32_within_its_ulp_bound_of_scipy_float64():
    rng = np.random.default_rng(0)
    t = np.logspace(-7.5, -0.05, 4000)
    x = np.concatenate([rng.uniform(-1, 1, 100_000), 1 - t, t - 1,
                        np.logspace(-38, -1, 500), -np.logspace(-38, -1, 500)])
    x = x.astype(np.float32)
    x = x[np.abs(x) < 1]
    got = np.asarray(jax.jit(lax.erf_inv)(x))
    assert got.dtype == np.float32
    u = _ulps(got, scipy.special.erfinv(x.astype(np.float64)))
    assert u.max() <= 2.5, (u.max(), x[u.argmax()])
    # and the table's bound against the eager (SciPy float32) values
    eager = np.asarray(lax.erf_inv(x))
    d = np.abs(got.view(np.int32).astype(np.int64) - eager.view(np.int32).astype(np.int64))
    assert d.max() <= 6


def test_erf_inv_edge_values():
    tiny = np.finfo(np.float32).smallest_subnormal
    x = np.float32([1, -1, 0, -0.0, np.nan, 1.5, -2, np.inf, -np.inf, tiny, -tiny,
                    np.finfo(np.float32).tiny, 1 - 2 ** -24, -1 + 2 ** -24])
    got = np.asarray(jax.jit(lax.erf_inv)(x))
    assert got[0] == np.inf and got[1] == -np.inf
    assert got[2] == 0 and not np.signbit(got[2]) and got[3] == 0 and np.signbit(got[3])
    assert np.signbit(np.asarray(lax.erf_inv(np.float32(-0.0))))   # eager too (JAX: -0)
    assert np.isnan(got[4:9]).all()
    exact = scipy.special.erfinv(x[9:].astype(np.float64))
    assert (_ulps(got[9:], exact) <= 2.5).all(), (got[9:], exact)
    assert "library erf_inv" not in _plan(lax.erf_inv, x)


def test_erf_inv_float64_stays_a_library_step_and_exact():
    old = jax.config.enable_x64
    jax.config.update("enable_x64", True)
    try:
        x = np.linspace(-0.999, 0.999, 101)
        got = np.asarray(jax.jit(lax.erf_inv)(x))
        assert "library erf_inv" in _plan(lax.erf_inv, x)
    finally:
        jax.config.update("enable_x64", old)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, scipy.special.erfinv(x), rtol=1e-15)


# ---------------------------------------------------------------------------------------
# bitcast_convert_type

def _edge_bits(dtype, n=64):
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 256, size=n * np.dtype(dtype).itemsize, dtype=np.uint8)
    x = raw.view(dtype).copy()
    if np.dtype(dtype).kind == "f":
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype)
        x[:6] = specials
        # a NaN with a payload and its sign bit set
        x.view(f"u{x.itemsize}")[6] = (np.iinfo(f"u{x.itemsize}").max >> 2) | (
            1 << (8 * x.itemsize - 1)) | (np.iinfo(f"u{x.itemsize}").max >> 1) ^ (
            np.iinfo(f"u{x.itemsize}").max >> 2)
    return x


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint32"),
                                     ("uint32", "float32"), ("int32", "float32"),
                                     ("float64", "int64"), ("uint64", "float64"),
                                     ("int8", "uint8"), ("uint16", "int16")])
def test_same_width_bitcast_is_a_kernel_op_with_the_eager_bits(src, dst):
    x = _edge_bits(src).reshape(8, 8)

    def f(x):   # fused with ops before and after it (and a transposed read)
        return lax.bitcast_convert_type(x.T, dst) + np.zeros((), dst)

    old = jax.config.enable_x64
    jax.config.update("enable_x64", True)
    try:
        got = np.asarray(jax.jit(f)(x))
        text = _plan(f, x)
    finally:
        jax.config.update("enable_x64", old)
    want = x.T.copy().view(dst) + np.zeros((), dst)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert "library bitcast_convert_type" not in text, text


def test_width_changing_bitcast_is_still_correct():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = np.asarray(jax.jit(lambda x: lax.bitcast_convert_type(x, np.uint8))(x))
    np.testing.assert_array_equal(got, x.view(np.uint8).reshape(3, 4, 4))


@pytest.mark.opencl   # (skipped with the reason where OpenCL cannot run: conftest)
@pytest.mark.parametrize("name", ["bits", "normal"])
def test_opencl_renders_the_fused_sampler_with_the_cpu_bits(name):
    f, key = SAMPLERS[name], random.PRNGKey(7)
    got = np.asarray(jax.jit(f, backend="opencl")(key))
    want = np.asarray(jax.jit(f, backend="interpreter")(key))
    if name == "bits":
        np.testing.assert_array_equal(got, want)
    else:   # the CPU's expansion, with OpenCL's log: within an ulp of the CPU's values
        cpu = np.asarray(jax.jit(f)(key))
        assert np.abs(got.view(np.int32) - cpu.view(np.int32)).max() <= 1
        np.testing.assert_allclose(got, want, rtol=4e-6, atol=1e-6)
