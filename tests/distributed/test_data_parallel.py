"""examples/train_mlp_data_parallel.py on 1, 2 and 4 MPI processes gives the parameters of
the one-process training loop (examples/train_mlp.py's jitted step) after 50 steps.

Tolerance: the processes' gradients are averaged by an MPI Allreduce, which sums in
another order than the one-process mean over the whole batch; over 50 SGD steps the
parameters (of magnitude ~0.1-1) differ by ~1e-7 here. Asserted: |a - b| <= 2e-6 + 1e-5|b|
(tens of float32 ulps), and the processes' own parameters bitwise equal to each other
(every process applies the same averaged gradient)."""

import importlib.util

import numpy as np
import pytest

from tests.distributed.mpi_harness import REPO, launch, requires_mpi, results

STEPS = 50

_SCRIPT = f'''
import sys
sys.path.insert(0, {str(REPO / "examples")!r})
import tjit
from train_mlp_data_parallel import train
tjit.distributed.initialize()
params, losses, _ = train(steps={STEPS}, quiet=True)
report(rank=tjit.process_index(), params=params, losses=losses)
'''


def _load_example(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def one_process_reference():
    return one_process_training()


def one_process_training():
    """Parameters and batch losses of examples/train_mlp.py's own loop, 50 steps."""
    import tjit
    m = _load_example("train_mlp")
    kd, kp = tjit.random.split(tjit.random.PRNGKey(0))
    x_all, y_all = m.make_data(kd, 4096, 16, 4)
    params = m.init_params(kp, [16, 64, 4])
    losses = []
    for step in range(STEPS):
        i = (step * 128) % (x_all.shape[0] - 128)
        params, loss = m.train_step(params, x_all[i:i + 128], y_all[i:i + 128], 0.05)
        losses.append(float(loss))
    return tjit.tree_util.tree_map(np.asarray, params), losses


@requires_mpi
@pytest.mark.parametrize("n", [1, 2, 4])
def test_data_parallel_training_matches_one_process(tmp_path, n, one_process_reference):
    ref_params, ref_losses = one_process_reference
    res = results(launch(_SCRIPT, n, tmp_path, timeout=120), n)
    for rank, r in res.items():
        np.testing.assert_allclose(r["losses"], ref_losses, rtol=1e-5, atol=2e-6)
        for layer, ref_layer, rank0_layer in zip(r["params"], ref_params, res[0]["params"]):
            for k in ("w", "b"):
                np.testing.assert_allclose(np.asarray(layer[k], np.float32), ref_layer[k],
                                           rtol=1e-5, atol=2e-6, err_msg=f"rank {rank} {k}")
                # every process holds the very same parameters
                np.testing.assert_array_equal(layer[k], rank0_layer[k])
    assert ref_losses[-1] < 0.5 * ref_losses[0]   # (it trains)
