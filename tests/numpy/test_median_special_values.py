"""median/nanmedian of slices holding infinities, signed zeros and NaNs against NumPy:
the median of an even count is the mean of the two middle values (inf for (1, inf)),
not quantile's lerp (inf - inf = NaN), eager and under jit."""

import numpy as np

import tjit
import tjit.numpy as jnp

VALUES = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -2.5, 1e30, 1e-45], np.float32)


def test_median_of_special_values_matches_numpy():
    rng = np.random.default_rng(3)
    # one jitted function per name: its six shapes compile once, not once a draw
    jitted = {name: tjit.jit(lambda x, name=name: getattr(jnp, name)(x, axis=1))
              for name in ("median", "nanmedian")}
    for _ in range(150):
        a = rng.choice(VALUES, (4, int(rng.integers(1, 7)))).astype(np.float32)
        for name in ("median", "nanmedian"):
            with np.errstate(all="ignore"):
                want = getattr(np, name)(a, axis=1)
            for got in (getattr(jnp, name)(a, axis=1), jitted[name](a)):
                np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name}({a})")


def test_median_mean_does_not_overflow():
    # halves first: NumPy's float32 (a + b) / 2 overflows to inf here, the mean is 3e38
    a = np.array([3e38, 3e38, -1.0, 3e38], np.float32)
    assert np.asarray(jnp.median(a)) == np.float32(3e38)
