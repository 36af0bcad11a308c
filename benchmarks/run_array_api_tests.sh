#!/usr/bin/env bash
# Run the Array API standard's conformance suite (data-apis/array-api-tests) against
# tjit.numpy (or another namespace) from a copy of the suite outside the project.
#
# usage: benchmarks/run_array_api_tests.sh SUITE_DIR SKIPS_FILE [PYTHON] [MODULE] [pytest args...]
#   SUITE_DIR   a copy of data-apis/array-api-tests with its spec submodule checked
#               out at SUITE_DIR/array-api (data-apis/array-api at the commit the
#               suite pins)
#   SKIPS_FILE  JAX's skip list (tests/array_api_skips.txt in jax-ml/jax), so that
#               runs of tjit and jax.numpy cover the same tests
#   PYTHON      an interpreter whose environment has the suite's requirements
#               (pytest, pytest-json-report, hypothesis, ndindex) and tjit
#               (default: python3)
#   MODULE      the namespace under test (default: tjit.numpy; jax.numpy to compare)
#
# Fixed settings so that runs compare: standard 2024.12, 64-bit dtypes enabled (the
# standard has int64/float64; JAX's own CI runs the suite with JAX_ENABLE_X64 too),
# 20 examples per test,
# hypothesis seed 0, no deadline (a loaded machine must not turn timing into failures).
set -euo pipefail
suite=$(cd "$1" && pwd); skips=$(realpath "$2"); py=${3:-python3}; module=${4:-tjit.numpy}
shift $(( $# < 4 ? $# : 4 ))
cd "$suite"
ARRAY_API_TESTS_MODULE="$module" ARRAY_API_TESTS_VERSION=2024.12 \
TJIT_ENABLE_X64=1 JAX_ENABLE_X64=1 \
  "$py" -m pytest array_api_tests -q -p no:cacheprovider \
    --max-examples=20 --hypothesis-seed=0 \
    --hypothesis-disable-deadline -o "addopts=" \
    --skips-file "$skips" -W ignore::DeprecationWarning "$@"
