"""tjit.random: the threefry2x32 primitive against published known-answer vectors and an
independent pure-Python implementation; keys, splits and samplers against values
produced by JAX 0.10 (jax.random, default threefry2x32 / partitionable mode); sample
statistics against scipy.stats with large n and fixed seeds; jit == eager; errors."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import tjit
import tjit.numpy as jnp
from tjit import random
from tjit.primitives.random_bits import threefry2x32_p
from tjit.tracing.jaxpr import check_jaxpr, eval_jaxpr_reference

U32 = np.uint32


# -- the primitive ---------------------------------------------------------------------------
# Random123 kat_vectors, threefry2x32_20: (key, counter) -> output
KAT = [((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
       ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
       ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0))]


def _py_threefry(k1, k2, x1, x2):
    """Threefry-2x32-20 on Python ints (an oracle independent of the NumPy impl)."""
    m = 0xFFFFFFFF
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [k1, k2, k1 ^ k2 ^ 0x1BD11BDA]
    x = [(x1 + ks[0]) & m, (x2 + ks[1]) & m]
    for r in range(20):
        x[0] = (x[0] + x[1]) & m
        x[1] = (((x[1] << rot[r % 8]) | (x[1] >> (32 - rot[r % 8]))) & m) ^ x[0]
        if r % 4 == 3:
            s = r // 4 + 1
            x[0] = (x[0] + ks[s % 3]) & m
            x[1] = (x[1] + ks[(s + 1) % 3] + s) & m
    return tuple(x)


@pytest.mark.parametrize("key,ctr,expected", KAT)
def test_threefry_known_answers(key, ctr, expected):
    args = [jnp.asarray(U32(v)) for v in key + ctr]
    for fn in (threefry2x32_p.bind, tjit.jit(threefry2x32_p.bind)):
        o1, o2 = fn(*args)
        assert (int(o1), int(o2)) == expected
    assert _py_threefry(*key, *ctr) == expected


def test_threefry_arrays_vs_python_oracle(rng):
    k = rng.integers(0, 2 ** 32, 2, dtype=np.uint64).astype(U32)
    x1 = rng.integers(0, 2 ** 32, (3, 5), dtype=np.uint64).astype(U32)
    x2 = rng.integers(0, 2 ** 32, (3, 5), dtype=np.uint64).astype(U32)
    o1, o2 = threefry2x32_p.bind(jnp.asarray(k[0]), jnp.asarray(k[1]), jnp.asarray(x1),
                                 jnp.asarray(x2))
    assert o1.shape == o2.shape == (3, 5) and o1.dtype == o2.dtype == np.uint32
    want = [_py_threefry(int(k[0]), int(k[1]), int(a), int(b))
            for a, b in zip(x1.ravel(), x2.ravel())]
    np.testing.assert_array_equal(np.asarray(o1).ravel(), [w[0] for w in want])
    np.testing.assert_array_equal(np.asarray(o2).ravel(), [w[1] for w in want])
    # traced: type-checks, both interpreters agree with eager
    closed = tjit.make_jaxpr(threefry2x32_p.bind)(*[jnp.asarray(v) for v in (k[0], k[1], x1,
                                                                              x2)])
    check_jaxpr(closed)
    r1, r2 = eval_jaxpr_reference(closed.jaxpr, closed.consts, [k[0], k[1], x1, x2])
    np.testing.assert_array_equal(r1, o1)
    np.testing.assert_array_equal(r2, o2)


def test_threefry_errors():
    z = jnp.asarray(U32(0))
    with pytest.raises(TypeError, match=r"threefry2x32: x2 must have dtype uint32.*i32"):
        threefry2x32_p.bind(z, z, z, jnp.asarray(np.int32(0)))
    with pytest.raises(tjit.ShapeError, match=r"threefry2x32.*\(3,\).*\(4,\)"):
        threefry2x32_p.bind(z, z, jnp.zeros(3, jnp.uint32), jnp.zeros(4, jnp.uint32))


# -- keys ----------------------------------------------------------------------------------------
K0 = random.PRNGKey(0)
K42 = random.PRNGKey(42)


def _np(x):
    return np.asarray(x)


def test_keys_match_jax():
    np.testing.assert_array_equal(K0, [0, 0])
    assert K0.dtype == np.uint32 and K0.shape == (2,)
    np.testing.assert_array_equal(K42, [0, 42])
    np.testing.assert_array_equal(random.key_data(random.key(42)), [0, 42])
    np.testing.assert_array_equal(random.key_data(random.key(3)), [0, 3])
    # x32: only the low 32 bits of the seed, as JAX does
    np.testing.assert_array_equal(random.PRNGKey(-1), [0, 0xFFFFFFFF])
    np.testing.assert_array_equal(random.PRNGKey(2 ** 40 + 5), [0, 5])
    np.testing.assert_array_equal(random.PRNGKey(np.int32(-1)), [0, 0xFFFFFFFF])
    np.testing.assert_array_equal(tjit.jit(random.PRNGKey)(-1), [0, 0xFFFFFFFF])
    np.testing.assert_array_equal(random.split(K0), [[1797259609, 2579123966],
                                                     [928981903, 3453687069]])
    np.testing.assert_array_equal(random.fold_in(K0, 7), [2716826189, 292468403])
    np.testing.assert_array_equal(random.split(random.fold_in(K42, 2 ** 31 + 5), 3),
                                  [[2655787109, 159455396], [4284700015, 4241222664],
                                   [2993855263, 2915554110]])
    assert random.split(K0, (2, 3)).shape == (2, 3, 2)


def test_keys_and_bits_match_jax_x64(x64):
    k = random.PRNGKey(2 ** 40 + 5)
    np.testing.assert_array_equal(k, [256, 5])
    np.testing.assert_array_equal(random.PRNGKey(-3), [4294967295, 4294967293])
    b = random.bits(k, (3,))
    assert b.dtype == np.uint64
    np.testing.assert_array_equal(b, np.array([3616354601704340375, 1361205111854300866,
                                               11117226332990103283], np.uint64))
    u = random.uniform(k, (3,))
    assert u.dtype == np.float64
    np.testing.assert_array_equal(u, [0.19604297578228969, 0.07379107697354015,
                                      0.6026660471120462])
    np.testing.assert_array_equal(random.randint(k, (4,), -10 ** 12, 10 ** 12),
                                  [-547776138384, 317740991206, 458830718931, -602130432314])
    np.testing.assert_array_equal(random.split(k, 2), [[841998169, 2557459351],
                                                       [316930262, 1451589314]])


def test_threefry_2x32_helper_matches_jax():
    # jax.extend.random.threefry_2x32: counts split in halves (odd sizes zero-padded)
    np.testing.assert_array_equal(
        random.threefry_2x32(jnp.array([0, 42], jnp.uint32), jnp.arange(5, dtype=jnp.uint32)),
        [3134548294, 3733159049, 843694964, 894150801, 801545058])
    np.testing.assert_array_equal(
        random.threefry_2x32(jnp.array([7, 1], jnp.uint32),
                             jnp.arange(6, dtype=jnp.uint32).reshape(2, 3)),
        [[1240911808, 121800697, 4122831928], [3879496518, 2182725144, 3661364655]])


def test_bits_match_jax():
    np.testing.assert_array_equal(random.bits(K0, (5,)), [4070199207, 4202968722, 1427181096,
                                                          2012915765, 2447653815])
    np.testing.assert_array_equal(random.bits(K0, (2, 3)), [[4070199207, 4202968722,
                                                             1427181096],
                                                            [2012915765, 2447653815,
                                                             710830403]])
    assert int(random.bits(K0, (), jnp.uint8)) == 167
    np.testing.assert_array_equal(random.bits(K0, (3,), jnp.uint16), [20391, 13970, 3624])


def test_determinism_and_independent_streams():
    a = _np(random.uniform(K0, (1000,)))
    np.testing.assert_array_equal(a, _np(random.uniform(random.PRNGKey(0), (1000,))))
    k1, k2 = random.split(K0)
    b, c = _np(random.uniform(k1, (1000,))), _np(random.uniform(k2, (1000,)))
    for x, y in ((a, b), (a, c), (b, c)):
        assert np.mean(x == y) < 0.01
        assert abs(np.corrcoef(x, y)[0, 1]) < 0.1
    f = [_np(random.fold_in(K0, i)) for i in range(50)]
    assert len({tuple(v) for v in f}) == 50
    keys = _np(random.split(K0, 100))
    assert len({tuple(v) for v in keys}) == 100
    # a prefix of a larger draw is not the smaller draw shifted: counters are per shape
    np.testing.assert_array_equal(_np(random.bits(K0, (10,)))[:5], _np(random.bits(K0, (5,))))


# -- samplers vs JAX ----------------------------------------------------------------------------
def test_uniform_and_friends_match_jax():
    np.testing.assert_array_equal(random.uniform(K0, (5,)), np.float32(
        [0.9476670026779175, 0.9785798788070679, 0.33229148387908936, 0.46866846084594727,
         0.569888710975647]))
    np.testing.assert_array_equal(random.uniform(K0, (3,), jnp.float16), np.float16(
        [0.310546875, 0.212890625, 0.0546875]))
    # XLA fuses x*(max-min)+min into an FMA: equal to within an ulp
    np.testing.assert_allclose(random.uniform(K42, (4,), minval=-2., maxval=3.),
                               [0.4435478448867798, 1.3989858627319336, 1.081357479095459,
                                0.8050804138183594], rtol=3e-7)
    np.testing.assert_allclose(random.normal(K0, (5,)), [1.622642159461975, 2.0252647399902344,
                                                         -0.4335944354534149,
                                                         -0.07861734926700592,
                                                         0.17609089612960815], rtol=3e-6)
    np.testing.assert_allclose(random.truncated_normal(K0, -1., 2., (5,)),
                               [1.5094677209854126, 1.747393012046814, -0.1746756136417389,
                                0.10624171793460846, 0.31906944513320923], rtol=3e-6)
    ulp = dict(rtol=3e-7)
    np.testing.assert_allclose(random.gumbel(K0, (4,)), [2.923372507095337, 3.83261775970459,
                                                         -0.09689324349164963,
                                                         0.2772570848464966], **ulp)
    np.testing.assert_allclose(random.gumbel(K0, (4,), mode="high"),
                               [-1.0818486213684082, -1.3463637828826904, 0.9065790176391602,
                                0.4582817554473877], **ulp)
    np.testing.assert_allclose(random.exponential(K0, (4,)), [2.9501280784606934,
                                                              3.8434245586395264,
                                                              0.4039035439491272,
                                                              0.6323691010475159], **ulp)
    np.testing.assert_allclose(random.laplace(K0, (4,)), [-2.256981611251831,
                                                          -3.1502788066864014,
                                                          0.4085954427719116,
                                                          0.06471242010593414], **ulp)
    np.testing.assert_allclose(random.logistic(K0, (4,)), [2.896375894546509,
                                                           3.8217716217041016,
                                                           -0.6978392004966736,
                                                           -0.12549054622650146], **ulp)
    np.testing.assert_allclose(random.cauchy(K0, (4,)), [6.027494430541992, 14.837895393371582,
                                                         -0.5817222595214844,
                                                         -0.09874986857175827], rtol=1e-6)


def test_discrete_samplers_match_jax():
    eq = np.testing.assert_array_equal
    eq(random.randint(K0, (6,), 0, 10), [9, 0, 2, 3, 1, 7])
    eq(random.randint(K42, (6,), -5, 3), [-1, -3, 2, -4, 0, -2])
    eq(random.randint(K0, (6,), 0, 256, jnp.uint8), [101, 80, 200, 61, 3, 211])
    eq(random.randint(K0, (4,), -2 ** 31, 2 ** 31 - 1),
       [-2116156571, -2057756336, 349724616, -593401283])
    eq(random.bernoulli(K0, 0.3, (8,)), [0, 0, 0, 0, 0, 1, 0, 0])
    eq(random.bernoulli(K0, 0.3, (8,), mode="high"), [0, 0, 0, 0, 0, 1, 0, 0])
    eq(random.rademacher(K0, (8,)), [-1, -1, 1, 1, -1, 1, 1, -1])
    eq(random.permutation(K0, 10), [0, 1, 8, 5, 6, 4, 3, 2, 7, 9])
    eq(random.permutation(K42, jnp.arange(12).reshape(4, 3), axis=1, independent=True),
       [[2, 0, 1], [4, 5, 3], [7, 6, 8], [10, 11, 9]])
    eq(random.choice(K0, 10, (4,)), [9, 0, 2, 3])
    eq(random.choice(K0, 10, (4,), replace=False), [0, 1, 8, 5])
    p = jnp.array([.1, .2, .3, .2, .2])
    eq(random.choice(K0, 5, (6,), p=p), [0, 0, 3, 2, 2, 4])
    eq(random.choice(K0, 5, (3,), replace=False, p=p), [1, 0, 4])
    eq(random.categorical(K0, jnp.array([[0., 1., 2.], [2., 1., 0.]]), shape=(3, 2)),
       [[1, 0], [2, 1], [2, 0]])


def test_permutation_2d_matches_jax():
    np.testing.assert_array_equal(random.permutation(K42, jnp.arange(12).reshape(4, 3)),
                                  [[6, 7, 8], [9, 10, 11], [0, 1, 2], [3, 4, 5]])


# -- statistics --------------------------------------------------------------------------------
N = 200_000


def test_uniform_statistics():
    u = _np(random.uniform(random.PRNGKey(1), (N,)))
    assert u.dtype == np.float32 and u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 4 / np.sqrt(12 * N)
    assert abs(u.var() - 1 / 12) < 2e-3
    assert scipy.stats.kstest(u, "uniform").pvalue > 1e-3
    lo, hi = np.array([[-3.0], [10.0]], np.float32), np.array([0.5, 2.0, 20.0], np.float32)
    v = _np(random.uniform(random.PRNGKey(2), (2, 3, 4000), minval=lo[..., None],
                           maxval=hi[None, :, None]))
    assert v.shape == (2, 3, 4000)
    for i in range(2):
        for j in range(3):
            a, b = lo[i, 0], hi[j]
            s = v[i, j]
            if b > a:
                assert s.min() >= a and s.max() < b
                assert abs(s.mean() - (a + b) / 2) < 0.05 * (b - a)
            else:  # inverted bounds: JAX's max(minval, ...) pins to minval
                assert np.all(s == a)


def test_normal_statistics():
    z = _np(random.normal(random.PRNGKey(3), (N,)))
    assert np.isfinite(z).all()
    assert abs(z.mean()) < 4 / np.sqrt(N)
    assert abs(z.var() - 1) < 0.015
    assert abs(scipy.stats.skew(z)) < 0.03 and abs(scipy.stats.kurtosis(z)) < 0.06
    assert scipy.stats.kstest(z, "norm").pvalue > 1e-3
    c = _np(random.normal(random.PRNGKey(4), (N,), jnp.complex64))
    assert c.dtype == np.complex64
    assert abs(c.real.var() - 0.5) < 0.01 and abs(c.imag.var() - 0.5) < 0.01


def test_truncated_normal_bounds_and_moments():
    lo, hi = -0.5, 1.5
    t = _np(random.truncated_normal(random.PRNGKey(5), lo, hi, (N,)))
    assert t.min() > lo and t.max() < hi
    ref = scipy.stats.truncnorm(lo, hi)
    assert abs(t.mean() - ref.mean()) < 0.01 and abs(t.var() - ref.var()) < 0.01
    assert scipy.stats.kstest(t, ref.cdf).pvalue > 1e-3
    # far-tail bounds: still strictly inside, never NaN
    far = _np(random.truncated_normal(random.PRNGKey(6), 3.0, 3.5, (10000,)))
    assert np.isfinite(far).all() and far.min() > 3.0 and far.max() < 3.5
    # shape from broadcasting the bounds
    b = random.truncated_normal(K0, jnp.array([-1.0, 0.0]), jnp.array([[1.0], [2.0]]))
    assert b.shape == (2, 2)


def test_bernoulli_rate():
    for p in (0.1, 0.5, 0.93):
        b = _np(random.bernoulli(random.PRNGKey(7), p, (N,)))
        assert b.dtype == np.bool_
        assert abs(b.mean() - p) < 5 * np.sqrt(p * (1 - p) / N)
    ps = jnp.array([0.0, 0.25, 1.0])
    b = _np(random.bernoulli(random.PRNGKey(8), ps, (20000, 3)))
    assert b[:, 0].sum() == 0 and b[:, 2].all() and abs(b[:, 1].mean() - 0.25) < 0.02


def test_randint_range_and_edges():
    r = _np(random.randint(random.PRNGKey(9), (N,), 0, 3))
    assert set(np.unique(r)) == {0, 1, 2}
    counts = np.bincount(r)
    assert scipy.stats.chisquare(counts).pvalue > 1e-3
    u8 = _np(random.randint(random.PRNGKey(10), (20000,), 0, 256, jnp.uint8))
    assert u8.dtype == np.uint8 and u8.min() == 0 and u8.max() == 255
    i8 = _np(random.randint(random.PRNGKey(11), (20000,), -128, 128, jnp.int8))
    assert i8.min() == -128 and i8.max() == 127
    # maxval <= minval returns minval
    np.testing.assert_array_equal(random.randint(K0, (5,), 4, 4), [4] * 5)
    np.testing.assert_array_equal(random.randint(K0, (5,), 7, 2), [7] * 5)
    # array bounds broadcast against the shape
    lo, hi = jnp.array([0, 10, -5]), jnp.array([[1], [13]])
    v = _np(random.randint(random.PRNGKey(12), (2, 3), lo, hi))
    assert v.shape == (2, 3) and v.dtype == np.int32
    big = _np(random.randint(random.PRNGKey(13), (5000, 2, 3), lo, hi))
    lo_b, hi_b = np.broadcast_to([0, 10, -5], (2, 3)), np.broadcast_to([[1], [13]], (2, 3))
    hi_eff = np.maximum(hi_b, lo_b + 1)  # empty ranges give minval
    assert (big >= lo_b).all() and (big < hi_eff).all()
    # extremes of the int32 range are reachable without overflow
    full = _np(random.randint(random.PRNGKey(14), (N,), -2 ** 31, 2 ** 31 - 1))
    assert full.min() < -2 ** 31 + 2 ** 23 and full.max() > 2 ** 31 - 2 ** 23


def test_permutation_is_permutation():
    for n in (1, 2, 17, 3000):  # 3000 takes two sort rounds
        p = _np(random.permutation(random.PRNGKey(n), n))
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    x = np.arange(20.0, dtype=np.float32)
    p = _np(random.permutation(K0, jnp.asarray(x)))
    np.testing.assert_array_equal(np.sort(p), x)
    assert not np.array_equal(p, x)
    m = np.arange(24).reshape(4, 6)
    ind = _np(random.permutation(K42, jnp.asarray(m), axis=1, independent=True))
    for row, orig in zip(ind, m):
        np.testing.assert_array_equal(np.sort(row), orig)
    s = _np(random.shuffle(K42, jnp.asarray(m), axis=1))
    np.testing.assert_array_equal(s, ind)
    # uniformity over the 6 permutations of 3 elements
    counts = {}
    for i in range(1200):
        t = tuple(_np(random.permutation(random.PRNGKey(i), 3)))
        counts[t] = counts.get(t, 0) + 1
    assert len(counts) == 6
    assert scipy.stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_choice():
    c = _np(random.choice(random.PRNGKey(15), 50, (50,), replace=False))
    np.testing.assert_array_equal(np.sort(c), np.arange(50))
    c = _np(random.choice(random.PRNGKey(16), 1000, (30,), replace=False))
    assert len(set(c.tolist())) == 30 and c.min() >= 0 and c.max() < 1000
    a = jnp.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    rows = _np(random.choice(K0, a, (2,), replace=False))
    assert rows.shape == (2, 4) and len({tuple(r) for r in rows}) == 2
    assert all(tuple(r) in {tuple(x) for x in np.asarray(a)} for r in rows)
    cols = random.choice(K0, a, (5,), axis=1)
    assert cols.shape == (3, 5)
    p = np.array([0.1, 0.0, 0.6, 0.3], np.float32)
    s = _np(random.choice(random.PRNGKey(17), 4, (N,), p=jnp.asarray(p)))
    counts = np.bincount(s, minlength=4)
    assert counts[1] == 0
    expected = N * p[[0, 2, 3]].astype(np.float64) / p[[0, 2, 3]].astype(np.float64).sum()
    assert scipy.stats.chisquare(counts[[0, 2, 3]], expected).pvalue > 1e-3
    nr = _np(random.choice(random.PRNGKey(18), 4, (3,), replace=False, p=jnp.asarray(p)))
    assert len(set(nr.tolist())) == 3 and 1 not in nr
    assert random.choice(K0, 5, (0,)).shape == (0,)


def test_categorical_frequencies():
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, 0.0, 0.0, 0.0]], np.float32)
    s = _np(random.categorical(random.PRNGKey(19), jnp.asarray(logits), shape=(N // 2, 2)))
    assert s.shape == (N // 2, 2) and s.dtype == np.int32
    probs = scipy.special.softmax(logits.astype(np.float64), axis=-1)
    for row in range(2):
        counts = np.bincount(s[:, row], minlength=4)
        assert scipy.stats.chisquare(counts, probs[row] * counts.sum()).pvalue > 1e-3
    # axis=0 and the default shape (the batch shape)
    s0 = random.categorical(K0, jnp.asarray(logits.T), axis=0)
    assert s0.shape == (2,)
    # without replacement: distinct categories per batch element
    nr = _np(random.categorical(K0, jnp.asarray(logits), shape=(4, 2), replace=False))
    for row in range(2):
        assert sorted(nr[:, row].tolist()) == [0, 1, 2, 3]


def test_other_distributions_statistics():
    e = _np(random.exponential(random.PRNGKey(20), (N,)))
    assert e.min() >= 0 and scipy.stats.kstest(e, "expon").pvalue > 1e-3
    g = _np(random.gumbel(random.PRNGKey(21), (N,)))
    assert scipy.stats.kstest(g, "gumbel_r").pvalue > 1e-3
    la = _np(random.laplace(random.PRNGKey(22), (N,)))
    assert scipy.stats.kstest(la, "laplace").pvalue > 1e-3
    lo = _np(random.logistic(random.PRNGKey(23), (N,)))
    assert scipy.stats.kstest(lo, "logistic").pvalue > 1e-3
    ca = _np(random.cauchy(random.PRNGKey(24), (N,)))
    assert scipy.stats.kstest(ca, "cauchy").pvalue > 1e-3
    r = _np(random.rademacher(random.PRNGKey(25), (N,)))
    assert set(np.unique(r)) == {-1, 1} and abs(r.mean()) < 0.01
    assert _np(random.rademacher(K0, (3,), jnp.float32)).dtype == np.float32


# -- jit == eager ------------------------------------------------------------------------------
SAMPLERS = {
    "split": lambda k: random.split(k, 3),
    "fold_in": lambda k: random.fold_in(k, 12345),
    "bits": lambda k: random.bits(k, (2, 3)),
    "uniform": lambda k: random.uniform(k, (4, 5), minval=-1.0, maxval=2.0),
    "normal": lambda k: random.normal(k, (7,)),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 0.5, (6,)),
    "bernoulli": lambda k: random.bernoulli(k, 0.3, (9,)),
    "randint": lambda k: random.randint(k, (9,), -3, 100),
    "randint_u8": lambda k: random.randint(k, (9,), 0, 256, jnp.uint8),
    "permutation": lambda k: random.permutation(k, 11),
    "choice": lambda k: random.choice(k, 8, (5,), replace=False),
    "choice_p": lambda k: random.choice(k, 3, (5,), p=jnp.array([0.2, 0.3, 0.5])),
    "categorical": lambda k: random.categorical(k, jnp.array([[0.0, 1.0], [1.0, 0.0]])),
    "gumbel": lambda k: random.gumbel(k, (3,)),
    "exponential": lambda k: random.exponential(k, (3,)),
    "laplace": lambda k: random.laplace(k, (3,)),
    "logistic": lambda k: random.logistic(k, (3,)),
    "rademacher": lambda k: random.rademacher(k, (5,)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_equals_eager(name):
    f = SAMPLERS[name]
    k = random.PRNGKey(77)
    eager = f(k)
    jitted = tjit.jit(f)(k)
    assert jitted.dtype == eager.dtype and jitted.shape == eager.shape
    if np.issubdtype(eager.dtype, np.floating):  # compiled math functions: a few ulp
        np.testing.assert_allclose(jitted, eager, rtol=2e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(jitted, eager)
    check_jaxpr(tjit.make_jaxpr(f)(k))


def test_traced_seed_and_data_under_jit():
    @tjit.jit
    def f(seed, i):
        k = random.fold_in(random.key(seed), i)
        return random.uniform(k, (3,))

    np.testing.assert_array_equal(f(5, 9), random.uniform(random.fold_in(random.key(5), 9),
                                                          (3,)))


def test_symbolic_shapes():
    closed = tjit.make_jaxpr(lambda x, k: x + random.uniform(k, x.shape),
                             polymorphic_shapes=["(b,)", None])(jnp.zeros(4), K0)
    check_jaxpr(closed)
    assert str(closed.out_avals[0].shape[0]) == "b"


# -- errors ------------------------------------------------------------------------------------
def test_bad_keys():
    with pytest.raises(TypeError, match=r"uniform: invalid PRNG key.*i32\(2,\).*random\.key"):
        random.uniform(jnp.zeros(2, jnp.int32))
    with pytest.raises(TypeError, match=r"normal: invalid PRNG key.*u32\(3,\).*PRNGKey"):
        random.normal(jnp.zeros(3, jnp.uint32))
    with pytest.raises(TypeError, match=r"split: expected a PRNG key array.*int"):
        random.split(0)
    with pytest.raises(ValueError, match=r"split accepts a single key.*\(2, 2\).*vmap"):
        random.split(random.split(K0))
    with pytest.raises(ValueError, match=r"bernoulli accepts a single key.*\(3, 2\)"):
        random.bernoulli(random.split(K0, 3))
    with pytest.raises(TypeError, match="PRNGKey accepts a scalar seed.*shape"):
        random.PRNGKey(jnp.zeros(3, jnp.int32))
    with pytest.raises(TypeError, match="seed must be an integer"):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError, match="fold_in accepts a scalar"):
        random.fold_in(K0, jnp.arange(3))


def test_bad_shapes_and_dtypes():
    with pytest.raises(ValueError, match=r"uniform: shape \(3, -1\) has a negative"):
        random.uniform(K0, (3, -1))
    with pytest.raises(TypeError, match="uniform: shape must be an integer, got 2.5"):
        random.uniform(K0, (2.5,))
    with pytest.raises(ValueError, match="dtype argument to `uniform` must be a float"):
        random.uniform(K0, (2,), jnp.int32)
    with pytest.raises(TypeError, match="randint only accepts integer dtypes"):
        random.randint(K0, (2,), 0, 3, jnp.float32)
    with pytest.raises(ValueError, match=r"`bits` must be an unsigned int dtype"):
        random.bits(K0, (2,), jnp.int32)
    with pytest.raises(ValueError, match=r"uniform: parameter shapes \(5,\).*not "
                                         r"broadcast-compatible with shape \(3,\)"):
        random.uniform(K0, (3,), minval=jnp.zeros(5))
    with pytest.raises(ValueError, match=r"normal parameter shapes must be broadcast.*"
                                         r"result \(2, 3\) for shape argument \(3,\)"):
        random.truncated_normal(K0, jnp.zeros((2, 3)), 1.0, (3,))
    with pytest.raises(TypeError, match="bernoulli probability `p` must have a floating"):
        random.bernoulli(K0, 1, (3,))
    with pytest.raises(ValueError, match="cannot take a larger sample"):
        random.choice(K0, 3, (4,), replace=False)
    with pytest.raises(ValueError, match=r"p must be None or a 1D vector.*\(2,\)"):
        random.choice(K0, 3, (4,), p=jnp.array([0.5, 0.5]))


# -- optional samplers: orthogonal, multivariate normal, gamma family ----------------------------
def test_orthogonal_matches_jax_and_is_orthogonal():
    np.testing.assert_allclose(random.orthogonal(K0, 3), [
        [0.9554101228713989, 0.2941357493400574, 0.02599557861685753],
        [-0.04628981649875641, 0.2361408770084381, -0.9706156253814697],
        [-0.2916313707828522, 0.9261326193809509, 0.23922686278820038]], atol=2e-6)
    q = _np(random.orthogonal(random.PRNGKey(30), 3, (2,), m=5))
    assert q.shape == (2, 3, 5)
    for b in range(2):
        np.testing.assert_allclose(q[b] @ q[b].T, np.eye(3), atol=2e-6)
    np.testing.assert_allclose(tjit.jit(lambda k: random.orthogonal(k, 4))(K0),
                               random.orthogonal(K0, 4), atol=1e-6)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal(method):
    mean, cov = np.array([1.0, -1.0], np.float32), np.array([[2.0, 0.5], [0.5, 1.0]],
                                                             np.float32)
    x = _np(random.multivariate_normal(random.PRNGKey(31), jnp.asarray(mean), jnp.asarray(cov),
                                       (N // 2,), method=method))
    assert x.shape == (N // 2, 2) and x.dtype == np.float32
    np.testing.assert_allclose(x.mean(0), mean, atol=0.02)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)
    if method == "cholesky":  # JAX 0.10's values for key 0
        np.testing.assert_allclose(
            random.multivariate_normal(K0, jnp.asarray(mean), jnp.asarray(cov), (3,)),
            [[3.29476261138916, 1.4681522846221924], [0.38680487871170044,
                                                      -1.2268385887145996],
             [1.2490301132202148, -1.8470487594604492]], rtol=1e-5)


@pytest.mark.parametrize("a", [0.3, 1.0, 4.5])
def test_gamma_distribution(a):
    g = _np(random.gamma(random.PRNGKey(32), a, (N // 2,)))
    assert g.dtype == np.float32 and (g >= 0).all() and np.isfinite(g).all()
    assert scipy.stats.kstest(g, scipy.stats.gamma(a).cdf).pvalue > 1e-3
    # same bits from the same key; the compiled transforms round within a few ulp
    np.testing.assert_allclose(tjit.jit(lambda k: random.gamma(k, a, (50,)))(K0),
                               random.gamma(K0, a, (50,)), rtol=1e-5)


def test_beta_dirichlet_loggamma():
    b = _np(random.beta(random.PRNGKey(33), 0.5, 2.0, (N // 2,)))
    assert (b >= 0).all() and (b <= 1).all()
    assert scipy.stats.kstest(b, scipy.stats.beta(0.5, 2.0).cdf).pvalue > 1e-3
    alpha = np.array([1.0, 2.0, 3.0], np.float32)
    d = _np(random.dirichlet(random.PRNGKey(34), jnp.asarray(alpha), (N // 4,)))
    assert d.shape == (N // 4, 3)
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(d.mean(0), alpha / alpha.sum(), atol=5e-3)
    # tiny shape parameters: gamma underflows, loggamma stays finite and accurate
    lg = _np(random.loggamma(random.PRNGKey(35), 1e-3, (20000,)))
    assert np.isfinite(lg).all()
    # P(log G < -1000) for a = 1e-3 is about 1 - 1000 * a ... compare with scipy
    frac = np.mean(lg < -100)
    want = scipy.stats.gamma(1e-3).cdf(np.exp(-100))
    assert abs(frac - want) < 0.02
    ga = random.gamma(K0, jnp.array([0.5, 5.0]))
    assert ga.shape == (2,)
