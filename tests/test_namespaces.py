"""Tab completion (``dir``) on each public namespace lists its public API only."""

import importlib
import types

import pytest

import tjit  # noqa: F401

NAMESPACES = {  # namespace -> the submodules it may list
    "tjit": {"numpy", "lax", "nn", "random", "tree_util", "tree", "ad_checkpoint",
             "distributed", "sharding", "experimental", "devices", "scipy", "ops", "debug",
             "dtypes", "typing", "profiler", "image", "custom_batching", "export", "stages",
             "dlpack", "errors", "monitoring", "api_util", "version", "custom_derivatives",
             "ad", "ref", "core", "interpreters"},
    "tjit.image": set(), "tjit.custom_batching": set(),
    "tjit.ops": set(), "tjit.debug": set(), "tjit.dtypes": set(), "tjit.typing": set(), "tjit.profiler": set(),
    "tjit.numpy": {"linalg", "fft", "random"},
    "tjit.numpy.linalg": set(), "tjit.numpy.fft": set(), "tjit.numpy.random": set(),
    "tjit.lax": {"linalg"}, "tjit.lax.linalg": set(),
    "tjit.nn": {"initializers"}, "tjit.nn.initializers": set(),
    "tjit.random": set(),
    "tjit.scipy": {"special", "stats", "linalg", "optimize", "signal", "integrate",
                   "ndimage", "fft", "interpolate", "cluster", "spatial", "sparse"},
    "tjit.scipy.interpolate": set(), "tjit.scipy.cluster": {"vq"},
    "tjit.scipy.cluster.vq": set(), "tjit.scipy.spatial": {"transform"},
    "tjit.scipy.spatial.transform": set(),
    "tjit.scipy.special": set(), "tjit.scipy.linalg": set(), "tjit.scipy.optimize": set(),
    "tjit.scipy.signal": set(), "tjit.scipy.integrate": set(), "tjit.scipy.ndimage": set(),
    "tjit.scipy.fft": set(),
    "tjit.scipy.sparse": {"linalg"}, "tjit.scipy.sparse.linalg": set(),
    "tjit.scipy.stats": {"bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2",
                         "dirichlet", "expon", "gamma", "gennorm", "geom", "gumbel_l",
                         "gumbel_r", "laplace", "logistic", "multinomial",
                         "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
                         "truncnorm", "uniform", "vonmises", "wrapcauchy"},
    "tjit.scipy.stats.norm": set(), "tjit.scipy.stats.gamma": set(),
    "tjit.experimental.sparse": set(),
}


@pytest.mark.parametrize("name", sorted(NAMESPACES))
def test_dir_lists_public_names_only(name):
    mod = importlib.import_module(name)
    shown = dir(mod)
    modules = {n for n in shown if isinstance(getattr(mod, n), types.ModuleType)}
    assert modules <= NAMESPACES[name], f"{name} lists modules {modules - NAMESPACES[name]}"
    assert not [n for n in shown if n.startswith("_")]
    assert not [n for n in shown if n.endswith("_p")]
    assert sorted(set(mod.__all__)) == shown
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{name}.__all__ names that do not resolve: {missing}"


def test_hidden_names_stay_importable():
    """Narrowing ``dir`` changes nothing about attribute access."""
    import tjit.lax
    import tjit.numpy
    assert tjit.numpy.linalg.reduce_sum_p.name and tjit.lax.dot_general_p.name
    assert tjit.numpy._np is __import__("numpy")
    from tjit.lax.linalg import cholesky_p  # noqa: F401
    from tjit.random import threefry2x32_p  # noqa: F401
    assert {"np", "lax", "collections"}.isdisjoint(dir(tjit.numpy.linalg))
    assert "reduce_sum_p" not in dir(tjit.numpy.linalg)
    assert {"jit", "grad", "vmap", "numpy"} <= set(dir(tjit))
