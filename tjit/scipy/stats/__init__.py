"""tjit.scipy.stats: probability distributions (as ``jax.scipy.stats``).

Each distribution is a module of functions (``norm.logpdf(x, loc=0, scale=1)``, ...),
so ``from tjit.scipy.stats import norm`` and ``tjit.scipy.stats.norm.cdf`` both work.
"""

from tjit.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from tjit.scipy.stats._kde import gaussian_kde  # noqa: F401
from tjit.scipy.stats._rank import ModeResult, mode, rankdata  # noqa: F401
from tjit.scipy.stats._sem import sem  # noqa: F401

from tjit._namespace import publish as _publish
_DISTRIBUTIONS = (
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
    "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial",
    "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t", "truncnorm",
    "uniform", "vonmises", "wrapcauchy")
_publish(globals(), submodules=_DISTRIBUTIONS)  # tab completion lists the public API only
from tjit._docs import add_module_examples as _add_examples
for _dist in _DISTRIBUTIONS:  # each one's examples, checked against SciPy's
    _add_examples(vars(globals()[_dist]))
del _dist
