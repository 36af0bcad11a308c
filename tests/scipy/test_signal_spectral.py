"""tjit.scipy.signal's spectral functions (stft, istft, welch, csd, detrend) against
scipy.signal in float64, over windows, segment options, boundaries and axes; under jit;
gradients against finite differences; vmap against a Python loop; bad arguments."""

import warnings

import numpy as np
import pytest
import scipy.signal as ss

import tjit
from tjit.scipy import signal as S
from tests.transforms.check import check_grads, check_vmap

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 100))
Y = RNG.standard_normal((3, 90))
XC = X + 1j * RNG.standard_normal((3, 100))


def _same(got, want, tol=1e-10):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


STFT_OPTIONS = [
    {"nperseg": 16},
    {"nperseg": 15, "noverlap": 3, "nfft": 20, "window": ("tukey", 0.3)},
    {"nperseg": 16, "boundary": "odd", "padded": False, "detrend": "linear"},
    {"nperseg": 16, "boundary": None, "return_onesided": False, "detrend": "constant",
     "window": "hamming"},
    {"nperseg": 17, "boundary": "even", "fs": 3.0},
    {"nperseg": 8, "noverlap": 0, "boundary": "constant", "window": "boxcar"},
    {"nperseg": 16, "window": np.kaiser(16, 5.0)},
]


@pytest.mark.parametrize("kw", STFT_OPTIONS)
def test_stft_and_istft(x64, kw):
    _same(S.stft(X, **kw), ss.stft(X, **kw))
    inv = {k: v for k, v in kw.items() if k in ("nperseg", "noverlap", "nfft", "window",
                                                  "fs")}
    if kw.get("boundary", "zeros") is None or not kw.get("padded", True):
        return  # istft inverts stft's default boundary/padding only
    onesided = kw.get("return_onesided", True)
    z = ss.stft(X, **kw)[2]
    _same(S.istft(z, input_onesided=onesided, **inv),
          ss.istft(z, input_onesided=onesided, **inv))


WELCH_OPTIONS = [
    {"nperseg": 16},
    {"nperseg": 15, "noverlap": 3, "nfft": 20, "window": "blackman", "scaling": "spectrum"},
    {"nperseg": 16, "average": "median", "detrend": "linear"},
    {"nperseg": 16, "return_onesided": False, "fs": 2.0, "detrend": False},
    {"nperseg": 33, "noverlap": 30, "window": ("gaussian", 4.0)},
]


@pytest.mark.parametrize("kw", WELCH_OPTIONS)
def test_welch_and_csd(x64, kw):
    _same(S.welch(X, **kw), ss.welch(X, **kw))
    _same(S.csd(X, Y, **kw), ss.csd(X, Y, **kw))  # y shorter: zero-padded, as SciPy


def test_axes_complex_and_defaults(x64):
    _same(S.welch(X.T, axis=0, nperseg=16), ss.welch(X.T, axis=0, nperseg=16))
    _same(S.stft(X.T, axis=0, nperseg=16), ss.stft(X.T, axis=0, nperseg=16))
    z = ss.stft(X.T, nperseg=16, axis=0)[2]  # (freq, channel, time)
    _same(S.istft(z, nperseg=16, freq_axis=0), ss.istft(z, nperseg=16, freq_axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex input: two-sided, and nperseg capped
        _same(S.stft(XC, nperseg=16), ss.stft(XC, nperseg=16))
        _same(S.welch(XC), ss.welch(XC))
        _same(S.csd(XC, X, nperseg=16), ss.csd(XC, X, nperseg=16))
        z = ss.stft(XC, nperseg=16)[2]
        _same(S.istft(z, input_onesided=False), ss.istft(z, input_onesided=False))
    with pytest.warns(UserWarning, match="nperseg = 256 is greater"):
        S.stft(X)


@pytest.mark.parametrize("type_", ["linear", "constant"])
@pytest.mark.parametrize("bp", [0, [10, 50], [1, 2, 99]])
def test_detrend(x64, type_, bp):
    np.testing.assert_allclose(S.detrend(X, type=type_, bp=bp),
                               ss.detrend(X, type=type_, bp=bp), atol=1e-12)
    np.testing.assert_allclose(S.detrend(X.T, axis=0, type=type_, bp=bp),
                               ss.detrend(X.T, axis=0, type=type_, bp=bp), atol=1e-12)


def test_jit_float32_and_traced_window(x64):
    f = tjit.jit(lambda x: S.stft(x, nperseg=16, detrend="linear")[2])
    np.testing.assert_allclose(f(X), ss.stft(X, nperseg=16, detrend="linear")[2],
                               atol=1e-12)
    g = tjit.jit(lambda x: S.welch(x, nperseg=16, average="median")[1])
    np.testing.assert_allclose(g(X), ss.welch(X, nperseg=16, average="median")[1],
                               atol=1e-12)
    z = ss.stft(X, nperseg=16)[2]
    h = tjit.jit(lambda z: S.istft(z, nperseg=16)[1])
    np.testing.assert_allclose(h(z), ss.istft(z, nperseg=16)[1], atol=1e-12)
    w = np.hanning(16)
    k = tjit.jit(lambda w: S.welch(X, window=w)[1])
    np.testing.assert_allclose(k(w), ss.welch(X, window=w)[1], atol=1e-12)
    d = tjit.jit(lambda x: S.detrend(x, bp=[30]))
    np.testing.assert_allclose(d(X), ss.detrend(X, bp=[30]), atol=1e-12)


def test_float32_dtypes():
    x32 = X.astype(np.float32)
    f, t, z = S.stft(x32, nperseg=16)
    assert (f.dtype, t.dtype, z.dtype) == (np.float32, np.float32, np.complex64)
    p = S.welch(x32, nperseg=16)[1]
    assert p.dtype == np.float32
    np.testing.assert_allclose(p, ss.welch(X, nperseg=16)[1], rtol=1e-4, atol=1e-6)


def test_grad_and_vmap():
    x = X[0, :40]
    check_grads(lambda x: S.welch(x, nperseg=16)[1], (x,))
    check_grads(lambda x: S.detrend(x, bp=[20]), (x,))
    check_grads(lambda x: S.istft(S.stft(x, nperseg=8)[2], nperseg=8)[1], (x,))
    check_vmap(lambda x: S.stft(x, nperseg=16)[2], (X,))
    check_vmap(lambda x, y: S.csd(x, y, nperseg=16)[1], (X, X[::-1]))


@pytest.mark.parametrize("call,match", [
    (lambda: S.stft(X, nperseg=16, noverlap=16), r"stft: noverlap \(16\)"),
    (lambda: S.stft(X, nperseg=16, nfft=8), r"stft: nfft \(8\)"),
    (lambda: S.stft(X, nperseg=0), "stft: nperseg must be a positive"),
    (lambda: S.welch(X, nperseg=16, window="nope"), "welch: unknown window"),
    (lambda: S.welch(X, window=np.ones((2, 8))), "welch: window must be 1-D"),
    (lambda: S.welch(X, nperseg=8, window=np.ones(16)), "welch: nperseg = 8 must equal"),
    (lambda: S.csd(X, X, average="max"), "csd: average must be"),
    (lambda: S.csd(X, X, scaling="power"), "csd: scaling must be"),
    (lambda: S.csd(X, X[None], nperseg=8), "csd: x .* and y .* must have the same"),
    (lambda: S.welch(X, detrend="quadratic"), "welch: detrend must be"),
    (lambda: S.stft(X, boundary="wrap"), "stft: boundary must be"),
    (lambda: S.detrend(X, type="q"), "detrend: type must be"),
    (lambda: S.detrend(X, bp=[200]), r"detrend: breakpoints must lie in \[0, 100\]"),
    (lambda: S.istft(X[0]), "istft: Zxx must be at least 2-D"),
    (lambda: S.istft(X, time_axis=0, freq_axis=0), "istft: time_axis and freq_axis"),
    (lambda: tjit.jit(lambda n: S.stft(X, nperseg=n))(16), "stft: nperseg must be a static"),
])
def test_errors_name_the_function(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
