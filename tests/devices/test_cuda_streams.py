"""Calls of one CUDA executable on different streams: its temporaries (the plan's slots)
are shared by its calls, which the plan orders one after another, so a call on a new
stream must not start before the previous call's work on its stream is done. Checked on
the simulated device (``fake_cupy``) with streams made asynchronous here: work on a
non-null stream waits in its queue, and the queues run one item at a time, round robin,
so two calls' kernels interleave as two streams' kernels may on a GPU."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices import fake_cupy
from tests.devices.fake_cupy import simulated_gpu
from tjit.devices import cuda


class _AsyncStreams:
    """Deferred work per non-null stream, events and ``wait_event``; ``drain`` runs the
    queues round robin (a wait blocks its queue until the event's work has run)."""

    def __init__(self, fake, monkeypatch):
        self.fake, self.queues, self.done = fake, {}, {}
        plain = fake.enqueue

        def enqueue(work, stream=None):
            s = fake._current[-1] if stream is None else stream
            if s is fake.null_stream or s.recording is not None:
                return plain(work, stream)
            self.queues.setdefault(s.ptr, []).append(work)
        monkeypatch.setattr(fake, "enqueue", enqueue)
        streams = self

        class Event:
            def __init__(self, *a, **k):
                self.mark = None

            def record(self, stream=None):
                s = fake._current[-1] if stream is None else stream
                self.mark = (s.ptr, streams.done.get(s.ptr, 0) + len(streams.queues.get(s.ptr, ())))

        def wait_event(stream, event):
            if event.mark is not None and stream is not fake.null_stream:
                self.queues.setdefault(stream.ptr, []).append(("wait",) + event.mark)
        monkeypatch.setattr(fake.cuda, "Event", Event, raising=False)
        monkeypatch.setattr(fake_cupy.Stream, "wait_event", wait_event, raising=False)
        monkeypatch.setattr(fake_cupy.Stream, "synchronize", lambda s: self.drain())

    def drain(self):
        while any(self.queues.values()):
            progress = False
            for ptr, q in self.queues.items():
                if not q:
                    continue
                head = q[0]
                if isinstance(head, tuple):
                    if self.done.get(head[1], 0) < head[2]:
                        continue
                else:
                    head()
                q.pop(0)
                self.done[ptr] = self.done.get(ptr, 0) + 1
                progress = True
            assert progress, "streams wait on each other"


def _two_kernels(x):
    t = jnp.exp(jnp.tanh(x)) * 0.5
    c = t * jnp.sum(t, axis=0) - jnp.max(t, axis=1, keepdims=True)   # temporaries in slots
    return jnp.cos(c) * jnp.sum(c, axis=1, keepdims=True)           # read by later kernels


def test_calls_on_two_streams_do_not_share_temporaries_at_once(monkeypatch):
    """Plain runs (no CUDA graph: a replay waits for the last stream itself, and its copy
    kernel's table is host memory this model cannot defer)."""
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    monkeypatch.setenv("TJIT_CUDA_GRAPHS", "0")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((64, 48)).astype(np.float32) for _ in range(4)]
    want = [np.asarray(tjit.jit(_two_kernels, backend="interpreter")(x)) for x in xs]
    with simulated_gpu(monkeypatch) as fake:
        f = tjit.jit(_two_kernels)
        exe = f.lower(xs[0]).compile().executable
        assert len(exe.program.kernels) == len(exe.program.steps) > 1 and \
            exe.program.slot_sizes, exe.program.text(kernels=False)
        warm = [np.asarray(exe.call([x])[0]) for x in xs[:2]]
        for g, w in zip(warm, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        streams = _AsyncStreams(fake, monkeypatch)
        s1, s2 = fake.cuda.Stream(), fake.cuda.Stream()
        args = [fake.asarray(x) for x in xs]   # (kept: deferred kernels read them)
        outs = []
        for s, x in zip((s1, s2, s1, s2), args):
            with s:
                outs.append(exe.call([x])[0])
        streams.drain()
        for n, (g, w) in enumerate(zip(outs, want)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-5,
                                       err_msg=f"call {n}")


@pytest.mark.cuda
@pytest.mark.skipif(cuda.unavailable_reason() is not None,
                    reason=str(cuda.unavailable_reason()))
def test_calls_alternating_two_gpu_streams_match_serial_calls(monkeypatch):
    """The same on a GPU: plain runs alternating two non-blocking streams, big enough
    that one call's kernels would still run when the next call's start. The reference
    for a race is the same executable's calls one at a time on one stream (its kernels
    are deterministic for a launch configuration): equal bit for bit. (Not the
    interpreter at this size: cos(c) of c ~ 1e3 turns the reductions' summation order
    into differences of 0.4% of the largest output on an H200; the kernels themselves
    are held to the interpreter by the simulated test above and tests/lower/c.)"""
    import cupy as cp
    monkeypatch.setenv("TJIT_CUDA_GRAPHS", "0")
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((2048, 1024)).astype(np.float32) for _ in range(8)]
    exe = tjit.jit(_two_kernels).lower(xs[0]).compile(backend="cuda").executable
    args = [cp.asarray(x) for x in xs]
    serial = []
    for x in args:
        serial.append(cp.asnumpy(exe.call([x])[0]))
        cp.cuda.Device().synchronize()
    assert all(np.isfinite(s).all() for s in serial)
    assert not np.array_equal(serial[0], serial[1])     # (different inputs, outputs)
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    outs = []
    for n, x in enumerate(args):
        with streams[n % 2]:
            outs.append(exe.call([x])[0])
    cp.cuda.Device().synchronize()
    for n, (g, w) in enumerate(zip(outs, serial)):
        np.testing.assert_array_equal(cp.asnumpy(g), w, err_msg=f"call {n}")
