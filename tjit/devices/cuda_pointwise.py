"""How much work a thread of a vectorized pointwise CUDA kernel takes: a launch choice.

A pointwise kernel whose stores walk memory contiguously is rendered with 16-byte
vector loads and stores (``lower/c/vectors.py``). ``TJIT_CUDA_POINTWISE="VxU"`` renders
``V`` adjacent vectors per chunk and ``U`` chunks (a grid apart) per grid-stride step, so
more loads are in flight per thread; results are the same bits in every variant.

The default, 1x2, is the plain cuda dialect's (``dialects.CUDA``). Measured on an H100
(``benchmarks/gpu_variants.py``, GPU time per call, 2026-11-27), 1x1 -> 1x2: Mish
forward (8,32,224,224) 0.0480 -> 0.0473 ms (copy bound 0.0356), Mish grad 0.0494 ->
0.0474, x*w+1 on rows of 1001 0.0523 -> 0.0417, float64 exp(x)*x 0.0607 -> 0.0567,
x*2+1 0.0464 -> 0.0474; 2x1 is worse on rows of 1001 (0.0854) and 4x1 everywhere.

The variant is read when a program is compiled (a function already compiled keeps its
kernels: ``jit`` of one function shares its compiled signatures, as JAX's cache does);
the program's rendered unit is cached on disk under a key that names the variant
(``cuda_compile.unit_key``).
"""

import dataclasses
import functools
import os

from tjit.lower.c import dialects

__all__ = ["DEFAULT", "ENV", "VARIANTS", "dialect", "parse", "variant"]

ENV = "TJIT_CUDA_POINTWISE"
DEFAULT = "1x2"
#: The variants a user may pick: each is compiled by NVRTC in CI (``nvrtc_check``) and
#: timed by ``benchmarks/gpu_variants.py``.
VARIANTS = ("1x1", "2x1", "1x2", "2x2", "4x1")


def parse(text):
    """``(V, U)`` of a variant name ``"VxU"``; ValueError naming the choices otherwise."""
    if text not in VARIANTS:
        raise ValueError(f"{ENV}={text!r}: expected one of {', '.join(VARIANTS)} (V x U: "
                         f"V adjacent 16-byte vectors a chunk, U chunks a grid-stride step "
                         f"per thread; {DEFAULT} is the default)")
    v, u = text.split("x")
    return int(v), int(u)


def variant():
    """The variant name the environment asks for (``TJIT_CUDA_POINTWISE``, default 1x2)."""
    text = os.environ.get(ENV, DEFAULT).strip() or DEFAULT
    parse(text)         # (a bad value fails the compile that reads it, with the choices)
    return text


def dialect(name=None):
    """The cuda ``Dialect`` rendering variant ``name`` (default: the environment's)."""
    return _dialect(variant() if name is None else name)


@functools.cache
def _dialect(name):
    v, u = parse(name)
    if (v, u) == (dialects.CUDA.chunk_vectors, dialects.CUDA.chunk_unroll):
        return dialects.CUDA
    return dataclasses.replace(dialects.CUDA, chunk_vectors=v, chunk_unroll=u)
