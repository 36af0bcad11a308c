"""The sharding API across MPI processes, meaning what it means in JAX multi-process:
device_put of the same value on every process with a NamedSharding over every process's
devices keeps each process's blocks (a global array); shard_map computes on them; a
one-device layout in each process works as on one process; jit over a multi-process
layout (automatic partitioning) is refused by name."""

import numpy as np
import pytest

from tests.distributed.mpi_harness import launch, requires_mpi, results

_SCRIPT = '''
import tjit
import tjit.numpy as jnp
from tjit.experimental import multihost_utils as mu
from tjit.sharding import NamedSharding, P
tjit.distributed.initialize()
n, rank = tjit.process_count(), tjit.process_index()
mesh = tjit.make_mesh((n,), ("i",))
s = NamedSharding(mesh, P("i"))
x = np.arange(4.0 * n).reshape(2 * n, 2)
g = tjit.device_put(x, s)
out = {"local": [np.asarray(sh.data).tolist() for sh in g.addressable_shards],
       "same_sharding": g.sharding == s, "addressable": g.is_fully_addressable}
doubled = tjit.shard_map(lambda b: b * 2 + tjit.lax.axis_index("i"), mesh=mesh,
                         in_specs=P("i"), out_specs=P("i"))(g)
out["gathered"] = np.asarray(mu.process_allgather(doubled, tiled=True)).tolist()
try:
    tjit.jit(lambda a: a + 1, in_shardings=s)(x)
    out["jit"] = "no error"
except NotImplementedError as e:
    out["jit"] = str(e)
here = tjit.make_mesh((1,), ("j",), devices=tjit.local_devices()[:1])
y = tjit.jit(lambda a: a * 3, out_shardings=NamedSharding(here, P("j")))(x)
out["local_jit"] = [np.asarray(y).tolist(), y.sharding.spec == P("j")]
report(rank=rank, **out)
'''


@requires_mpi
@pytest.mark.parametrize("n", [2])
def test_device_put_shard_map_and_jit_across_processes(tmp_path, n):
    res = results(launch(_SCRIPT, n, tmp_path), n)
    x = np.arange(4.0 * n).reshape(2 * n, 2)
    want = np.concatenate([x[2 * r:2 * r + 2] * 2 + r for r in range(n)])
    for r, rec in res.items():
        assert rec["local"] == [x[2 * r:2 * r + 2].tolist()]
        assert rec["same_sharding"] and not rec["addressable"]
        np.testing.assert_array_equal(rec["gathered"], want)
        assert "spreads values over 2 devices" in rec["jit"]
        assert rec["local_jit"] == [(3 * x).tolist(), True]
