"""jax.debug.breakpoint: the debugger opens where the program runs, over the calling
frames, with the values computed at run time (checked against NumPy), eagerly, under
jit, in a branch of lax.cond only when it is taken, and once per element under vmap."""

import io
import sys

import numpy as np

import tjit
import tjit.numpy as jnp


def _session(monkeypatch, capsys, commands, fn, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(c + "\n" for c in commands)))
    out = fn(*args)
    return out, capsys.readouterr().out


def test_jit_breakpoint_shows_run_time_values_and_frames(monkeypatch, capsys):
    @tjit.jit
    def f(x, y):
        z = x / y
        tjit.debug.breakpoint()
        return z

    def outer(a):
        return f(a, 2.0)
    x = np.array([1.0, 3.0, 5.0], np.float32)
    out, text = _session(monkeypatch, capsys, ["p z", "w", "u", "p a * 2", "nope", "c"],
                         outer, x)
    np.testing.assert_allclose(out, x / 2)
    assert text.startswith("Entering jdb:")
    assert "-> tjit.debug.breakpoint()" in text
    assert "Array([0.5, 1.5, 2.5], dtype=float32)" in text      # z at run time
    assert "Array([ 2.,  6., 10.], dtype=float32)" in text       # a * 2 one frame up
    assert "in outer" not in text and "outer()" in text          # w lists the frames
    assert "*** NameError" in text                               # errors stay in jdb


def test_breakpoint_only_in_the_branch_taken(monkeypatch, capsys):
    def breakpoint_if_nonfinite(x):
        is_finite = jnp.isfinite(x).all()

        def true_fn(x):
            pass

        def false_fn(x):
            tjit.debug.breakpoint()
        tjit.lax.cond(is_finite, true_fn, false_fn, x)

    @tjit.jit
    def f(x, y):
        z = x / y
        breakpoint_if_nonfinite(z)
        return z
    out, text = _session(monkeypatch, capsys, ["c"], f, 2.0, 1.0)
    assert float(out) == 2.0 and "jdb" not in text
    out, text = _session(monkeypatch, capsys, ["p x", "c"], f, 2.0, 0.0)
    assert np.isinf(float(out)) and "Entering jdb:" in text and "Array(inf" in text


def test_vmap_opens_once_per_element_and_eager_at_once(monkeypatch, capsys):
    def g(v):
        w = v * 10
        tjit.debug.breakpoint()
        return w
    _, text = _session(monkeypatch, capsys, ["p w", "c"] * 3, tjit.vmap(g),
                       jnp.arange(3.0))
    assert text.count("Entering jdb:") == 3
    for shown in ("Array(0., dtype=float32)", "Array(10., dtype=float32)",
                  "Array(20., dtype=float32)"):
        assert shown in text
    _, text = _session(monkeypatch, capsys, ["p w", "q"], g, jnp.float32(4.0))
    assert "Array(40., dtype=float32)" in text
