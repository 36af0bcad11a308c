"""``sharding_constraint``: identity on one array with a ``sharding`` param (a
NamedSharding), what ``with_sharding_constraint``, ``reshard`` and ``shard_map``'s
outputs leave in a traced program, as JAX's jaxprs show them. tjit computes a traced
program on one device, so it moves nothing; it records the layout the value has from
there on, which is what a jit's outputs are typed by under Explicit mesh axes
(``tjit._eager_layout.propagate``). Linear; under vmap the batch dimension is unsplit.
"""

from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive

sharding_constraint_p = new_primitive("sharding_constraint")


@sharding_constraint_p.def_abstract_eval
def _abstract(x, *, sharding):
    return x


@sharding_constraint_p.def_impl
def _impl(xp, x, *, sharding):
    return x


def _batch(args, dims, *, sharding):
    """The batch dimension ``dims[0]`` is not split: an unsplit entry goes in there."""
    (x,), (d,) = args, dims
    if d is None:
        return sharding_constraint_p.bind(x, sharding=sharding), None
    entries = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    entries.insert(d, None)
    return sharding_constraint_p.bind(x, sharding=sharding.update(spec=entries)), d


_r.deflinear(sharding_constraint_p, lambda ct, x, *, sharding: [ct])
sharding_constraint_p.batch = _batch
