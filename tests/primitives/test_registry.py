"""Every registered primitive has its rules, or says explicitly why not, and is exercised
by the op-record table (or by the dedicated tests named below)."""

import importlib

import pytest

import tjit  # noqa: F401  (registers every primitive)
from tjit.primitives.base import REGISTRY

RECORD_MODULES = ["test_elementwise", "test_structural", "test_slicing", "test_reductions",
                  "test_indexing", "test_linalg", "test_conv", "test_reduce_window"]

# Primitives whose values are checked by dedicated tests rather than op records.
DEDICATED = {
    "cond": "tests/primitives/test_control_flow.py",
    "while": "tests/primitives/test_control_flow.py",
    "scan": "tests/primitives/test_control_flow.py",
    "while_transpose": "tests/transforms/test_while_grad.py (grads vs finite differences "
                       "and unrolled loops, jit, vmap, jvp, grad of grad)",
    "threefry2x32": "tests/random/test_random.py (Random123 known-answer vectors)",
    "fft": "tests/numpy/test_fft.py (values vs NumPy, grads, jit, vmap)",
    "eig": "tests/numpy/test_eig_roots_histograms.py (vs NumPy, eigvals grads, vmap)",
    **dict.fromkeys(["schur"],
                    "tests/scipy/test_linalg_schur.py (vs SciPy, reconstruction, jit, vmap)"),
    **dict.fromkeys(["geqrf", "householder_product", "ormqr", "hessenberg",
                     "tridiagonal"],
                    "tests/lax/test_householder.py (vs SciPy's LAPACK wrappers, "
                    "reconstructions, jit, interpreter, vmap)"),
    **dict.fromkeys(["stop_gradient", "custom_jvp_call", "custom_vjp_call", "custom_lin"],
                    "tests/transforms/test_custom_derivatives.py"),
    **dict.fromkeys(["checkpoint", "checkpoint_name"], "tests/transforms/test_checkpoint.py"),
    "linear_call": "tests/transforms/test_linear_call.py",
    "fma": "tests/primitives/test_fma.py (against exact fractions, eager and jit bit for "
           "bit, grad, vmap, errors) and the kernel corpus of every backend",
    "sharding_constraint": "tests/test_sharding_api_2.py (identity under jit, grad, vmap; "
                           "the layouts it gives jit's outputs vs JAX's)",
    "random_gamma_grad": "tests/random/test_gamma_grad.py (vs differences of SciPy's inverse "
                         "CDF, jit, vmap, sample gradients)",
    "custom_vmap_call": "tests/transforms/test_custom_batching.py (the rule under vmap, "
                        "jit, jvp vs finite differences, a Python loop for sequential_vmap)",
    **dict.fromkeys(["debug_callback", "pure_callback", "io_callback"],
                    "tests/test_callbacks.py (printed text vs str.format, call counts and "
                    "order, results vs NumPy through jit/vmap/scan, errors)"),
    "check": "tests/test_checkify.py (messages vs JAX's, eager/jit/interpreter, control "
             "flow, vmap vs a Python loop, grad)",
    "shard_map": "tests/parallel/test_shard_map_threads.py (threads vs the vmap definition, "
                 "NumPy, the interpreter; grad/jvp/vmap)",
    **dict.fromkeys(["igamma", "igammac", "igamma_grad_a", "betainc", "zeta", "polygamma",
                     "bessel_i0e", "bessel_i1e", "ndtri", "hyp1f1", "hyp1f1_grad", "hyp2f1",
                     "hyp2f1_grad", "owens_t", "fresnel_sin", "fresnel_cos", "wofz"],
                    "tests/scipy/test_special.py, test_special_hypergeometric_bessel.py "
                    "(values vs SciPy, grads, jit, vmap)"),
    **dict.fromkeys(["psum", "pmax", "pmin", "all_gather", "psum_scatter", "all_to_all",
                     "ppermute", "axis_index"],
                    "tests/parallel/ (vmap(axis_name) and pmap vs NumPy, grads)"),
}


def _covered():
    names = set()
    for mod in RECORD_MODULES:
        m = importlib.import_module(f"tests.primitives.{mod}")
        for rec in getattr(m, "RECORDS"):
            names.update(rec.primitives)
    return names


def test_every_primitive_is_tested():
    missing = sorted(set(REGISTRY) - _covered() - set(DEDICATED))
    assert not missing, f"primitives without op records or dedicated tests: {missing}"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_core_rules_present(name):
    p = REGISTRY[name]
    assert p.impl is not None, f"{name} has no reference implementation"
    assert p.abstract_eval is not None, f"{name} has no abstract evaluation rule"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_transformation_rules_present(name):
    """jvp (or an explicit not-differentiable marker) and batching for every primitive."""
    import tjit.transforms  # noqa: F401  (attaches the rules that live in transforms/)
    p = REGISTRY[name]
    assert p.batch is not None, f"{name} has no batching rule"
    assert p.jvp is not None or p.not_differentiable, \
        f"{name} has no jvp rule and is not marked not_differentiable"
