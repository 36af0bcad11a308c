"""tjit: a JAX-style tracing JIT for NumPy-style Python.

    import tjit, tjit.numpy as jnp
    f = tjit.jit(lambda x: jnp.tanh(x) @ x.T)
"""

from tjit.version import __version__, __version_info__  # noqa: F401  (as jax)

from tjit.config import config  # noqa: F401
from tjit import dtypes  # noqa: F401  (jax.dtypes)
from tjit.dtypes import float0  # noqa: F401
from tjit.naming import named_call, named_scope  # noqa: F401
from tjit.tracing.compile_time_eval import ensure_compile_time_eval  # noqa: F401
from tjit import typing  # noqa: F401  (jax.typing)
from tjit import profiler  # noqa: F401  (jax.profiler)
from tjit.environment import (  # noqa: F401
    print_environment_info, effects_barrier, process_indices, local_devices,
    copy_to_host_async, host_id, host_count, host_ids)
from tjit.config import (  # noqa: F401  (JAX's option context managers)
    disable_jit, debug_nans, debug_infs, log_compiles, explain_cache_misses, enable_x64,
    default_device, default_matmul_precision, numpy_rank_promotion, numpy_dtype_promotion,
    check_tracer_leaks, enable_checks, checking_leaks, no_tracing, no_execution,
    transfer_guard, transfer_guard_host_to_device, transfer_guard_device_to_host,
    transfer_guard_device_to_device, debug_key_reuse, default_prng_impl)
from tjit.tracing.core import Shard  # noqa: F401
from tjit.tracing.basearray import Array  # noqa: F401  (an ABC, as jax.Array)
from tjit import tree_util  # noqa: F401  (public view: key arrays are leaves)
from tjit.tracing.errors import (  # noqa: F401
    ConcretizationTypeError, TracerBoolConversionError, TracerIntegerConversionError,
    UnexpectedTracerError, ShapeError, InconclusiveDimensionError, TjitError)
from tjit import numpy, lax  # noqa: F401
from tjit.api import (  # noqa: F401
    jit, make_jaxpr, eval_shape, typeof, ShapeDtypeStruct, device_put, device_get,
    block_until_ready, clear_caches, show)
from tjit.devices.backend import (  # noqa: F401
    default_backend, device_count, local_device_count, Device)
from tjit.transforms.ad import jvp, vjp, grad, value_and_grad, linearize, linear_transpose  # noqa: F401,E501
from tjit.transforms.batching import vmap  # noqa: F401
from tjit.parallel import pmap  # noqa: F401
from tjit.transforms.jacobians import jacfwd, jacrev, jacobian, hessian  # noqa: F401
from tjit.transforms.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from tjit.transforms.custom_gradient import custom_gradient  # noqa: F401
from tjit.transforms.closure_convert import closure_convert  # noqa: F401
from tjit import custom_batching  # noqa: F401  (jax.custom_batching.custom_vmap)
from tjit.transforms.checkpoint import checkpoint, remat, checkpoint_policies  # noqa: F401
from tjit import ad_checkpoint  # noqa: F401
from tjit import nn, random  # noqa: F401
from tjit import scipy  # noqa: F401  (jax.scipy is an attribute after `import jax`)
from tjit import ops  # noqa: F401  (jax.ops.segment_sum and friends)
from tjit.numpy import random as _numpy_random  # noqa: F401  (needs tjit.random first)
from tjit.tree_util import tree_map, tree_leaves, tree_structure  # noqa: F401
from tjit import tree  # noqa: F401  (jax.tree's short names)
from tjit import distributed, sharding  # noqa: F401  (multi-process runs; mpi4py loads lazily)
from tjit import _sharded_jit  # noqa: F401  (jit outputs' .sharding once a mesh layout exists)
from tjit.distributed import (  # noqa: F401
    process_index, process_count, make_array_from_process_local_data)
from tjit.sharding import make_mesh, NamedSharding, P, reshard, set_mesh  # noqa: F401
from tjit.experimental.shard_map import shard_map  # noqa: F401  (also jax.shard_map's name)
from tjit import debug  # noqa: F401  (jax.debug.print, jax.debug.callback)
from tjit import image  # noqa: F401  (jax.image.resize, scale_and_translate)
from tjit.host_callbacks import pure_callback  # noqa: F401
from tjit import export, stages, dlpack  # noqa: F401  (attributes after `import jax`)
from tjit.array_creation import (  # noqa: F401
    make_array_from_callback, make_array_from_single_device_arrays, live_arrays)
from tjit.fwd_bwd import fwd_and_bwd  # noqa: F401
from tjit.state import Ref, new_ref, empty_ref, freeze, free_ref  # noqa: F401  (jax.Ref)
from tjit import ad, ref  # noqa: F401  (jax.ad's with_refs entries, jax.ref)
from tjit.tracing.shapes import symbol as _symbol  # noqa: F401
# `tjit.devices()` (as jax.devices()) is the callable `tjit.devices` package: see its docstring
from tjit import errors  # noqa: F401  (jax.errors: the exception types under JAX's names)
from tjit import monitoring, api_util, version  # noqa: F401  (jax.monitoring, ...)
from tjit import core, interpreters  # noqa: F401  (attributes after `import jax`, as there)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=(  # tab completion lists the public API only
    "numpy", "lax", "nn", "random", "tree_util", "tree", "ad_checkpoint", "distributed",
    "sharding", "experimental", "devices", "scipy", "ops", "debug", "export", "stages",
    "dlpack", "errors", "monitoring", "api_util", "version",
    "dtypes", "typing", "profiler", "image", "custom_batching", "custom_derivatives", "ad",
    "ref", "core", "interpreters"),
    entry_points=False)  # jit, grad, ...: api_boundary (their own filtering)

from tjit._doc_examples import JAX_EXAMPLES as _JAX_EXAMPLES
from tjit._docs_jax import add_examples as _add_jax_examples
_add_jax_examples(_JAX_EXAMPLES)  # made by `python -m tjit._docs` (tjit/_docs_jax.py)
