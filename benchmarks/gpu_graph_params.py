"""Would CUDA graph replays with kernel-node parameter updates pay? The measurements
that decide it, on a GPU (nothing is changed in tjit; ~10 s).

    python benchmarks/gpu_graph_params.py

A replay (``devices/cuda_graphs.py``) copies the arguments its steps read into fixed
input buffers and the outputs out of a fixed block, by two copy-kernel nodes and a
table of addresses sent per call. The alternative: point the kernel nodes at each
call's own arrays with ``cuGraphExecKernelNodeSetParams`` (libcuda through ctypes, as
cuBLAS is called). On ``bench_gpu.py``'s MLP step (batch 256), replayed as a graph:

1. host time per call of the whole replay (``Replay.run``) and of ``Graph.launch``
   alone (what no parameter update removes);
2. GPU time per call between CUDA events: the replay (copies included) against the
   plain runner's steps (no copies), each waited for: the device time the copies cost;
3. through libcuda: the graph's nodes by type; tjit's kernel nodes (by CUfunction) and
   the input buffers and fresh outputs that only tjit kernels touch (their copy rows
   could go, those nodes patched per call) against those cuBLAS nodes read or write
   (still copied: cuBLAS's parameter layout is not ours to patch); the host cost of
   one ``cuGraphExecKernelNodeSetParams`` (a node's own parameters set again), and
   the replay's outputs after it, bit for bit against a plain run.

Decide: patched nodes x the SetParams cost against the table copy, and the copy
nodes' device time (the replay's GPU time minus the plain steps') against the whole
step. Not a test.

The design, if the numbers say build it (not built: the simulated device has no graph
nodes to patch yet). After the capture, walk the graph once (cuGraphGetNodes,
cuGraphKernelNodeGetParams) and match tjit's kernel nodes to steps by CUfunction and
captured pointer arguments. An argument whose every reader is a tjit kernel node loses
its gather row and input buffer; a fresh output whose writer and readers are all tjit
kernel nodes is allocated per call and loses its scatter row; anything cuBLAS (or the
copy kernel) touches keeps its row (cuBLAS's parameter blocks are not ours). Per call:
write the new addresses into each patched node's argument block (ctypes values its
``kernelParams`` point at, built once), cuGraphExecKernelNodeSetParams per patched node
(an update applies to later launches, not to one in flight), then launch. Any missing
entry point, error code or unmatched node, and a first patched replay that disagrees
with a plain run (``VERIFY_FIRST_REPLAY``), falls back to today's gather/scatter path
with the reason kept, as ``copy_kernel_failure`` is. Expected from the earlier H100
profile (bench_cuda_dispatch --profile: Graph.launch is most of the replay's 31 us)
and the MLP step's layout (its weights and x are read, and its new weights written, by
cuBLAS): little to gain there; kernel-heavy programs whose arguments only tjit kernels
read are where it could pay.
"""

import ctypes
import itertools
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.modules.setdefault("jax", None)      # (bench_gpu's helpers without JAX/PyTorch)
sys.modules.setdefault("torch", None)
import bench_cpu as C
import bench_gpu as G
import gpu_profile as P

import tjit
import tjit.numpy as jnp
from tjit.devices import cuda

_KERNEL_NODE = 0    # CU_GRAPH_NODE_TYPE_KERNEL
_NODE_TYPES = {0: "kernel", 1: "memcpy", 2: "memset", 3: "host", 4: "graph", 5: "empty"}


def mlp_step():
    """(jitted step, device arguments) of bench_gpu's MLP case."""
    rng = np.random.default_rng(3)
    put = G.puts()["tjit"]
    sizes = [784, 1024, 1024, 10]
    params = [(put((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32)),
               put(np.zeros(n, np.float32))) for m, n in itertools.pairwise(sizes)]
    x = put(rng.standard_normal((256, 784)).astype(np.float32))
    y = put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)])
    return tjit.jit(C._mlp_step(jnp, tjit.value_and_grad)), [params, x, y]


def host_us(call, n=300):
    G.gpu_sync()
    t = time.perf_counter()
    for _ in range(n):
        call()
    dt = time.perf_counter() - t
    G.gpu_sync()
    return dt / n * 1e6


def gpu_ms(call, n=50):
    cp = G.cp
    out = []
    for _ in range(n):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        G.gpu_sync()
        e0.record()
        call()
        e1.record()
        e1.synchronize()
        out.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(out)


class KernelNodeParams(ctypes.Structure):
    """CUDA_KERNEL_NODE_PARAMS_v2 (v1 is its prefix: without ``kern`` and ``ctx``)."""
    _fields_ = [("func", ctypes.c_void_p), ("gridDimX", ctypes.c_uint),
                ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint),
                ("blockDimZ", ctypes.c_uint), ("sharedMemBytes", ctypes.c_uint),
                ("kernelParams", ctypes.POINTER(ctypes.c_void_p)),
                ("extra", ctypes.POINTER(ctypes.c_void_p)),
                ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class Driver:
    """The few libcuda entries a parameter update needs."""

    def __init__(self):
        lib = ctypes.CDLL("libcuda.so.1")
        self.lib = lib

        def entry(*names):
            for n in names:
                if hasattr(lib, n):
                    return getattr(lib, n)
            raise OSError(f"libcuda has none of {names}")
        self.get_nodes = entry("cuGraphGetNodes")
        self.node_type = entry("cuGraphNodeGetType")
        self.get_params = entry("cuGraphKernelNodeGetParams_v2", "cuGraphKernelNodeGetParams")
        self.set_params = entry("cuGraphExecKernelNodeSetParams_v2",
                                "cuGraphExecKernelNodeSetParams")

    def check(self, rc, what):
        if rc:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")

    def nodes(self, graph):
        n = ctypes.c_size_t(0)
        self.check(self.get_nodes(ctypes.c_void_p(graph), None, ctypes.byref(n)),
                   "cuGraphGetNodes")
        arr = (ctypes.c_void_p * n.value)()
        self.check(self.get_nodes(ctypes.c_void_p(graph), arr, ctypes.byref(n)),
                   "cuGraphGetNodes")
        out = []
        for node in arr[:n.value]:
            t = ctypes.c_int()
            self.check(self.node_type(ctypes.c_void_p(node), ctypes.byref(t)),
                       "cuGraphNodeGetType")
            out.append((node, t.value))
        return out

    def params(self, node):
        p = KernelNodeParams()
        self.check(self.get_params(ctypes.c_void_p(node), ctypes.byref(p)),
                   "cuGraphKernelNodeGetParams")
        return p


def _pointers(p, n):
    """The first ``n`` parameters of a kernel node, read as 64-bit values."""
    return [ctypes.cast(p.kernelParams[i], ctypes.POINTER(ctypes.c_uint64))[0]
            for i in range(n)]


def _touched(ptrs, ranges):
    """Indices of ``ranges`` ((start, bytes)) that one of ``ptrs`` points into."""
    return {i for i, (a, n) in enumerate(ranges) for q in ptrs if a <= q < a + max(n, 1)}


def node_report(exe, rep, raw, plain):
    graph = getattr(rep.graph, "graph", None)
    if not graph:
        print("  (this CuPy's Graph has no graph handle: the node report is skipped)")
        return
    drv = Driver()
    nodes = drv.nodes(graph)
    kinds = {}
    for _, t in nodes:
        kinds[_NODE_TYPES.get(t, t)] = kinds.get(_NODE_TYPES.get(t, t), 0) + 1
    ours = {}       # CUfunction -> its CSource
    for p in [exe.program] + list(exe.program.sub_programs()):
        for k in p.kernels:
            fn = exe.function(k)    # (a RawKernel: its Function holds the CUfunction)
            ours[int(getattr(fn, "kernel", fn).ptr)] = exe.sources[id(k)]
    lay = rep.layout
    ins = [(ptr, n) for _, ptr, n in lay.inputs]
    outs = [(o[2], o[3]) for o in lay.outputs if o[0] == "fresh"]
    tj, other = [], 0
    read_by_tjit, written_by_tjit = set(), set()
    for node, t in nodes:
        if t != _KERNEL_NODE:
            continue
        p = drv.params(node)
        src = ours.get(p.func)
        if src is None:
            other += 1      # (cuBLAS, or the copy kernel)
            continue
        nb = sum(q.kind == "buffer" for q in src.params)
        ptrs = _pointers(p, nb)
        roles = [q.role for q in src.params[:nb]]
        read_by_tjit |= _touched([q for q, r in zip(ptrs, roles) if r == "in"], ins)
        written_by_tjit |= _touched([q for q, r in zip(ptrs, roles) if r == "out"], outs)
        tj.append((node, p))
    print(f"  nodes: {kinds}; tjit kernel nodes {len(tj)}, other kernel nodes {other} "
          f"(cuBLAS, the copy kernel)")
    print(f"  input buffers: {len(ins)}, read by a tjit kernel: {len(read_by_tjit)} "
          f"(the others are read by cuBLAS only: still gathered); fresh outputs: "
          f"{len(outs)}, written by a tjit kernel: {len(written_by_tjit)}; aliased "
          f"outputs (donation): {len(lay.aliases)}")
    print(f"  bytes gathered per call {sum(n for _, n in ins)}, scattered "
          f"{sum(n for _, n in outs)}")
    if not tj:
        return
    node, p = tj[0]
    exec_ = ctypes.c_void_p(rep.graph.graphExec)

    def set_same():
        drv.check(drv.set_params(exec_, ctypes.c_void_p(node), ctypes.byref(p)),
                  "cuGraphExecKernelNodeSetParams")
    us = host_us(set_same, 1000)
    got = [G.cp.asnumpy(a) for a in rep.run(raw)]     # (CuPy refuses np.asarray)
    want = [G.cp.asnumpy(a) for a in plain.run(raw)]
    same = all(np.array_equal(np.atleast_1d(g).view(np.uint8), np.atleast_1d(w).view(np.uint8))
               for g, w in zip(got, want))     # (bits: a 0-d loss too)
    print(f"  cuGraphExecKernelNodeSetParams (own parameters again): {us:.2f} us host per "
          f"call; the replay after it equals a plain run bit for bit: {same}")


def main():
    if G.cp is None or tjit.default_backend() != "gpu":
        sys.exit(f"no usable GPU for tjit: {cuda.unavailable_reason()}")
    fn, args = mlp_step()
    for _ in range(4):              # (plain, capture, first checked replay, replay)
        tjit.block_until_ready(fn(*args))
    exe, raw = P.capture(fn, args)
    runner = exe._runner(raw)
    rep = getattr(runner, "replay", None)
    if rep is None:
        sys.exit(f"the MLP step is not replayed as a graph: "
                 f"{getattr(runner, 'failure', None) or type(runner).__name__}")
    plain = runner.plain_runner()
    stream = G.cp.cuda.get_current_stream()
    print("MLP 784-1024-1024-10 step, batch 256, replayed as a CUDA graph "
          f"({'copy kernel' if rep.transfers.device is not None else 'memcpys'})")
    keep = rep.run(raw)     # (the graph alone rewrites these outputs: kept alive)
    alone = host_us(lambda: rep.graph.launch(stream))
    del keep
    print(f"  host us per call: replay {host_us(lambda: rep.run(raw)):.1f}, "
          f"Graph.launch alone {alone:.1f}, jitted call {host_us(lambda: fn(*args)):.1f}")
    print(f"  GPU ms per call: replay {gpu_ms(lambda: rep.run(raw)):.4f}, plain steps "
          f"{gpu_ms(lambda: plain.run(raw)):.4f}")
    try:
        node_report(exe, rep, raw, plain)
    except Exception as e:  # noqa: BLE001 (report and end)
        print(f"  driver part failed: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
