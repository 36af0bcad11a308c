#!/usr/bin/env bash
# The GPU run: the cuda-marked tests, the pointwise variants (gpu_variants.py), what
# graph parameter updates would save (gpu_graph_params.py), bench_gpu.py, the host
# dispatch cost, and where the GPU time goes (gpu_profile.py); outputs under $OUT.
# ``quick`` as $1 shrinks it.
# (--noconftest: the GPU image may lack hypothesis, which tests/conftest.py imports;
# so the program cache is turned off here as conftest.py does.)
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH=. TJIT_CACHE_DIR="${TMPDIR:-/tmp}/tjit-gpu-check-cache"
OUT="${OUT:-/tmp}"
Q=""; [ "$1" = quick ] && Q=--quick
nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"
python3 -c "import cupy, jax; print('cupy', cupy.__version__, 'jax', jax.__version__)" \
    2>&1 | tee -a "$OUT/gpu.txt"
TJIT_PROGRAM_CACHE=0 timeout 150 python3 -m pytest -q --noconftest -p no:cacheprovider -m cuda --tb=short \
    -o addopts="" tests/devices/test_cuda.py tests/devices/test_cuda_graphs_gpu.py \
    tests/devices/test_cuda_dynamic_shapes.py tests/devices/test_cuda_placement.py \
    tests/devices/test_cuda_streams.py tests/test_callbacks.py \
    tests/lower/c 2>&1 | tail -80 | tee "$OUT/tests.txt"
# the pointwise variants of TJIT_CUDA_POINTWISE (GPU time beside the copy bound; ~30 s)
timeout 90 python3 benchmarks/gpu_variants.py $Q --json "$OUT/variants.json" 2>&1 \
    | tee "$OUT/variants.txt" | tail -48
# graph replays: copy nodes' GPU time, Graph.launch's host time, kernel-node parameter
# updates through libcuda (what they would patch and cost; ~10 s)
timeout 40 python3 -u benchmarks/gpu_graph_params.py 2>&1 | tee "$OUT/graph_params.txt"
timeout 170 python3 benchmarks/bench_gpu.py $Q --json "$OUT/bench.json" 2>&1 \
    | tail -40 | tee "$OUT/bench.txt"
timeout 60 python3 benchmarks/bench_cuda_dispatch.py --real --profile 2>&1 \
    | head -70 | tee "$OUT/dispatch.txt"
# (the same without CUDA graphs: the host cost they save)
echo "== TJIT_CUDA_GRAPHS=0" | tee -a "$OUT/dispatch.txt"
TJIT_CUDA_GRAPHS=0 timeout 40 python3 benchmarks/bench_cuda_dispatch.py --real 2>&1 \
    | tail -3 | tee -a "$OUT/dispatch.txt"
timeout 100 python3 benchmarks/gpu_profile.py $Q 2>&1 | tee "$OUT/profile.txt" | tail -5
# row kernels across row lengths, two-pass column sums (bit-identical repeats), layernorm
timeout 90 python3 benchmarks/gpu_rows.py $Q 2>&1 | tee "$OUT/rows.txt" | tail -16
# fresh processes: first compile with an empty cache, then starts from the disk cache
timeout 60 python3 benchmarks/start_check.py --backend gpu --reps 1 2>&1 \
    | tee "$OUT/start.txt" | tail -12
