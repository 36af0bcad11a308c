#!/usr/bin/env bash
# The GPU run: the cuda-marked tests, then bench_gpu.py --quick; outputs under $OUT.
# (--noconftest: the GPU image may lack hypothesis, which tests/conftest.py imports.)
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH=. TJIT_CACHE_DIR="${TMPDIR:-/tmp}/tjit-gpu-check-cache"
OUT="${OUT:-/tmp}"
nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"
timeout 100 python3 -m pytest -q --noconftest -p no:cacheprovider -m cuda --tb=short \
    -o addopts="" tests/devices/test_cuda.py 2>&1 | tail -120 | tee "$OUT/tests.txt"
timeout 120 python3 benchmarks/bench_gpu.py --quick --json "$OUT/bench.json" 2>&1 \
    | tail -60 | tee "$OUT/bench.txt"
