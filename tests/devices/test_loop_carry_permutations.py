"""Loop bodies whose carries change places, on the CPU backend.

A body that returns its carries swapped, rotated, passed through or both read and
written (``h, h_old = f(h), h``) gets buffer aliases between different carries from the
plan; the native driver (``devices/native_loop.py``) drops those and keeps two buffers
per carry, prefilling an output whose kernel updates another carry's buffer in place.
Each case runs with the native driver and with the Python loop of
``devices/control_flow.py``, against the reference interpreter and a float64 NumPy loop.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import native_loop

RNG = np.random.default_rng(13)


@pytest.fixture(params=["native", "python"])
def loop_driver(request, monkeypatch):
    """The loop driver, and the kinds of the native loops run (none on the Python path)."""
    if request.param == "python":
        monkeypatch.setattr(native_loop, "_driver", lambda: None)
    calls = []
    run = native_loop.NativeLoop.__call__

    def counted(self, args, *rest):
        calls.append(self.kind)
        return run(self, args, *rest)
    monkeypatch.setattr(native_loop.NativeLoop, "__call__", counted)
    return request.param, calls


def _vec(n=5, scale=1.0):
    return (scale * RNG.standard_normal(n)).astype(np.float32)


def _while(body, trips):
    """A while loop over (counter, *carries) for ``trips`` trips, and its NumPy twin."""
    def f(*carries):
        return lax.while_loop(lambda c: c[0] < trips, lambda c: (c[0] + 1,) + body(*c[1:]),
                              (0,) + carries)[1:]
    return f


def _numpy_loop(body, init, trips):
    c = tuple(np.asarray(x, np.float64) for x in init)
    for _ in range(trips):
        c = body(*c)
    return c


# Each case: (body on carries, for jnp and NumPy alike; initial carries). Trip counts
# are odd and even: the native driver's buffers alternate by parity.
CASES = {
    "swap": (lambda a, b: (b, a), (_vec(), _vec())),
    "swap_through_a_computation": (lambda h, h_old: (h * 0.5 + 1.0, h), (_vec(), _vec())),
    "rotate_3": (lambda a, b, c: (b, c, a), (_vec(), _vec(), _vec())),
    "rotate_3_with_update": (lambda a, b, c: (b, c, a * 0.5 + c), (_vec(), _vec(), _vec())),
    "passed_through_unchanged": (lambda a, k: (a * k + 1.0, k), (_vec(), _vec(scale=0.5))),
    "read_and_written": (lambda a, b: (a + b, a), (_vec(), _vec())),
    "read_and_written_twice": (lambda a, b, c: (a * 0.5 + b, a - c, a),
                               (_vec(), _vec(), _vec())),
    "returned_twice_and_swapped": (lambda a, b: (b + 1.0, b + 1.0), (_vec(), _vec())),
}


class TestCarryPermutations:

    @pytest.mark.parametrize("trips", [0, 1, 4, 7])
    @pytest.mark.parametrize("case", sorted(CASES))
    def test_while_against_interpreter_and_numpy(self, case, trips, loop_driver):
        driver, calls = loop_driver
        body, init = CASES[case]
        f = _while(body, trips)
        got = tjit.jit(f)(*init)
        want = tjit.jit(f, backend="interpreter")(*init)
        ref = _numpy_loop(body, init, trips)
        for g, w, r in zip(got, want, ref):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-5)
        assert calls == (["while"] if driver == "native" else [])

    @pytest.mark.parametrize("reverse", [False, True])
    @pytest.mark.parametrize("case", ["swap", "rotate_3_with_update", "read_and_written",
                                      "passed_through_unchanged"])
    def test_scan_against_numpy(self, case, reverse, loop_driver):
        driver, calls = loop_driver
        body, init = CASES[case]
        xs = RNG.standard_normal((6, 5)).astype(np.float32)

        def step(c, x):
            new = body(*c)
            return (new[0] + x,) + tuple(new[1:]), new[-1] * 2.0

        got_c, got_ys = tjit.jit(lambda c, xs: lax.scan(step, c, xs, reverse=reverse))(
            tuple(init), xs)
        c, rows = tuple(np.asarray(x, np.float64) for x in init), {}
        for t in (range(5, -1, -1) if reverse else range(6)):
            c, rows[t] = step(c, xs[t])
        for g, r in zip(got_c, c):
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(got_ys), np.stack([rows[t] for t in range(6)]),
                                   rtol=1e-5, atol=1e-5)
        assert calls == (["scan"] if driver == "native" else [])

    def test_in_place_update_of_a_carry_that_moves(self, loop_driver):
        # b.at[i].set(...) is written into b's buffer by an in-place kernel, but it
        # becomes carry a: the native driver gives it a's next buffer, prefilled with b
        driver, calls = loop_driver

        def f(a, b):
            def body(c):
                i, a, b = c
                return i + 1, b.at[i].set(a[i] * 2.0 + b[i]), a
            return lax.while_loop(lambda c: c[0] < 5, body, (0, a, b))

        a, b = _vec(6), _vec(6)
        got = tjit.jit(f)(a, b)
        want = tjit.jit(f, backend="interpreter")(a, b)
        ra, rb = a.astype(np.float64), b.astype(np.float64)
        for i in range(5):
            new = rb.copy()
            new[i] = ra[i] * 2.0 + rb[i]
            ra, rb = new, ra
        for g, w, r in zip(got[1:], want[1:], (ra, rb)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-6)
        assert calls == (["while"] if driver == "native" else [])

    def test_rnn_to_convergence_and_its_gradient(self, loop_driver):
        # benchmarks/bench_while_grad.py's loop: h, h_old = tanh(W h + u), h until
        # converged; forward and grad against the Python loop unrolled in float64
        driver, calls = loop_driver
        n = 8
        w = RNG.standard_normal((n, n))
        w = (w * 0.8 / np.max(np.abs(np.linalg.eigvals(w)))).astype(np.float32)
        u = (0.1 * RNG.standard_normal(n)).astype(np.float32)

        def loss(w, u):
            def body(c):
                return jnp.tanh(w @ c[0] + u), c[0]
            h = lax.while_loop(lambda c: jnp.max(jnp.abs(c[0] - c[1])) > 1e-5, body,
                               (jnp.tanh(u), jnp.zeros_like(u)))[0]
            return jnp.sum(h * h)

        h, h_old, trips = np.tanh(u.astype(np.float64)), np.zeros(n), 0
        while np.max(np.abs(h - h_old)) > 1e-5:
            h, h_old, trips = np.tanh(w @ h + u), h, trips + 1
        np.testing.assert_allclose(float(tjit.jit(loss)(w, u)), np.sum(h * h), rtol=1e-4)
        assert calls[:1] == (["while"] if driver == "native" else [])

        def unrolled(w, u):     # the same trips, as straight-line NumPy in float64
            h = np.tanh(u)
            for _ in range(trips):
                h = np.tanh(w @ h + u)
            return np.sum(h * h)
        gw, gu = tjit.jit(tjit.grad(loss, (0, 1)))(w, u)
        eps, w64, u64 = 1e-6, w.astype(np.float64), u.astype(np.float64)
        for (i, j) in [(0, 0), (2, 5), (7, 1)]:
            d = np.zeros_like(w64)
            d[i, j] = eps
            fd = (unrolled(w64 + d, u64) - unrolled(w64 - d, u64)) / (2 * eps)
            np.testing.assert_allclose(float(np.asarray(gw)[i, j]), fd, rtol=2e-3, atol=1e-5)
        fd_u = [(unrolled(w64, u64 + e) - unrolled(w64, u64 - e)) / (2 * eps)
                for e in np.eye(n) * eps]
        np.testing.assert_allclose(np.asarray(gu), fd_u, rtol=2e-3, atol=1e-5)


@pytest.mark.parametrize("case", ["swap", "rotate_3_with_update", "read_and_written"])
def test_permuted_carries_across_bursts(case, monkeypatch):
    # bursts of 3 trips end on both parities: the carries' buffers must be read back
    # from the right side after each
    monkeypatch.setattr(native_loop, "BURST", 3)
    body, init = CASES[case]
    for trips in (2, 3, 7, 10):
        got = tjit.jit(_while(body, trips))(*init)
        for g, r in zip(got, _numpy_loop(body, init, trips)):
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-5)
