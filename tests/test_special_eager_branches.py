"""Eager gamma/zeta/betaln/comb/beta/poch compute only the branches some lane takes
(_special_common.any_lane);
every branch computed and selected (as under jit) must give the same bits, dtype and
weak type whichever branches an array's lanes take, alone or mixed. jit agrees within
a few ulps (its exp/log/pow are not NumPy's: poch's Stirling lane ~8); comb on integers is checked against exact
integer binomials."""

import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy._special_gamma as special_gamma
import tjit.scipy.special as sp

# per function: value pairs that take one branch each (comb: product, gamma ratio,
# exp(betaln); beta: the gamma ratio, exp(betaln) past Gamma's range or at a pole of
# a + b; poch: the gamma ratio, Stirling's ratio for z, z + m >= 10, exp(betaln))
_BRANCHES = {
    "comb": [[(12.0, 5.0), (30.0, 27.0), (7.0, 0.0), (-1.0, 2.0)],
             [(12.5, 3.25), (30.0, 9.5)],
             [(1e5, 40.5), (3e7, 1.5e7 + 0.5)]],
    "beta": [[(2.5, 3.0), (-13.63, -5.4), (0.5, 0.25)],
             [(251.0, 251.0), (1e3, 2.5)],
             [(-2.5, -0.5), (1.5, -2.5)]],
    "poch": [[(2.5, 3.0), (-24.3, 4.4), (5.0, 0.0)],
             [(199.5, 34.9), (199.5, -10.4), (60.0, 15.5)],
             [(-24.3, -15.4), (51.4, -20.4)]],
    # betaln: the plain sum of lgammas, Stirling's differences for hi >= 10, Stirling's
    # series for all three where both are >= 10
    "betaln": [[(2.5, 3.0), (0.5, 7.5), (-2.5, 4.0)], [(2.5, 30.0), (-0.5, 966.0)],
               [(12.0, 30.0), (1e3, 1e6), (10.0, np.inf)]],
    # (one-argument functions: the second value is unused) gamma: the recurrence,
    # Stirling's formula (split power past 25 / 140), the reflection
    "gamma": [[(0.5, 0), (3.25, 0), (9.99, 0), (-0.5, 0), (np.nan, 0)],
              [(10.0, 0), (30.5, 0), (150.0, 0), (1e30, 0), (np.inf, 0)],
              [(-1.5, 0), (-3.0, 0), (-43.9, 0), (-189.5, 0), (-np.inf, 0)]],
    # Riemann zeta: Borwein's eta on (0, 1), the Hurwitz series, the reflection at s and
    # at x itself (x <= -1)
    "zeta": [[(0.25, 0), (0.75, 0)], [(2.5, 0), (30.0, 0), (1.0, 0)],
             [(-0.5, 0), (-0.25, 0), (0.0, 0)], [(-3.5, 0), (-40.5, 0), (-2.0, 0)]],
}
_ONE_ARGUMENT = {"gamma", "factorial", "zeta"}


def _run(f, a, b, one=False):
    out = f(jnp.asarray(a)) if one else f(jnp.asarray(a), jnp.asarray(b))
    return np.asarray(out), out.dtype, out.weak_type


@pytest.mark.parametrize("name", sorted(_BRANCHES))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_eager_branches_match_every_branch_selected(name, dt, x64, monkeypatch):
    groups = _BRANCHES[name]
    mixes = groups + [[p for g in groups for p in g]] + \
        [g1 + g2 for i, g1 in enumerate(groups) for g2 in groups[i + 1:]]
    for fname in {"gamma": ["gamma", "factorial", "zeta"]}.get(name, [name]):
        _check_mixes(getattr(sp, fname), fname, mixes, dt, monkeypatch)


def _check_mixes(f, name, mixes, dt, monkeypatch):
    one = name in _ONE_ARGUMENT
    for pairs in mixes:
        a, b = (np.array(v, dt) for v in zip(*pairs))
        with np.errstate(all="ignore"):
            got = _run(f, a, b, one)
        with monkeypatch.context() as m:
            m.setattr(sp, "_any_lane", lambda mask: True)
            m.setattr(special_gamma, "any_lane", lambda mask: True)
            with np.errstate(all="ignore"):
                want = _run(f, a, b, one)
        assert got[1:] == want[1:], (name, pairs)
        np.testing.assert_array_equal(got[0].view(f"u{got[0].itemsize}"),
                                      want[0].view(f"u{want[0].itemsize}"), err_msg=name)
        jitted = _run(tjit.jit(f), a, b, one)
        assert jitted[1:] == got[1:]
        np.testing.assert_allclose(got[0], jitted[0], rtol=32 * np.finfo(dt).eps)


def test_python_scalars_keep_their_types():
    """comb's result is strong (through gamma) even where no lane reads a gamma."""
    for name, args in (("comb", (5.0, 2.0)), ("comb", (40.0, 3.0)), ("beta", (2.0, 3.0)),
                       ("poch", (2.5, 3.0))):
        eager = getattr(sp, name)(*args)
        jitted = tjit.jit(getattr(sp, name))(*args)
        assert (eager.dtype, eager.weak_type) == (jitted.dtype, jitted.weak_type), name
        assert float(eager) == float(jitted)


def test_comb_of_integers_is_exact_binomials(x64):
    n = np.arange(0, 61, dtype=np.float64)
    rows = [(float(N), float(k)) for N in n for k in range(0, min(int(N), 20) + 1)]
    rows += [(float(N), float(N - k)) for N in n[21:] for k in range(0, 21)]
    N, k = (np.array(v) for v in zip(*rows))
    got = np.asarray(sp.comb(jnp.asarray(N), jnp.asarray(k)))
    for (nv, kv), g in zip(rows, got):
        want = math.comb(int(nv), int(kv))
        assert abs(g - want) <= 12 * np.spacing(float(want)), (nv, kv, g, want)
