#!/usr/bin/env bash
# The tests of the rules (the differential tests against independent models too), the
# codecs, trust, the service and its reliability (the fuzzers against a live server
# included), the log pipeline, a call's bookkeeping and the engines, run against the
# compiled build
# (REFEREE_COMPILE=1: mypyc, what the container ships; see setup.py); the service, trust
# and engine tests a second time on the other engine; bench/service.py's servers once.
#
#   scripts/test-compiled.sh [PYTEST ARGS]
#
# The working tree is compiled in a temporary copy (scripts/compile-tree.sh) and the
# tests run from there; the servers the tests start use the compiled modules too. Needs a
# C compiler and the dev extra (mypy). Part of ./dev test.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${REFEREE_SHARED:-$(cd .. && pwd)/shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/compile-tree.sh "$work"
cd "$work"
# Every test on the engine REFEREE_TEST_ENGINE names (asyncio unless set), then the
# servicer's tests again on the other engine: the servicer is compiled too, and each
# engine has its own servicer class (referee.service).
engine=${REFEREE_TEST_ENGINE:-asyncio}
other=$([ "$engine" = threads ] && echo asyncio || echo threads)
PYTHONPATH="$work" REFEREE_SHARED="$shared" REFEREE_TEST_ENGINE="$engine" \
  "${PYTHON:-python}" -m pytest -p no:cacheprovider \
  tests/earl_of_coventry tests/ecarte tests/differential tests/trust tests/service tests/reliability \
  tests/test_cards_shuffle.py tests/test_scenarios.py tests/test_codec_wire.py \
  tests/test_codec_cache.py tests/test_hot_objects.py tests/test_logs.py tests/test_calls.py \
  tests/test_options.py tests/test_enums.py tests/test_codec_common.py \
  tests/ops/test_engines.py tests/ops/test_tracing.py "$@"
echo "== the servicer's tests on --engine $other (compiled)"
PYTHONPATH="$work" REFEREE_SHARED="$shared" REFEREE_TEST_ENGINE="$other" \
  "${PYTHON:-python}" -m pytest -p no:cacheprovider tests/service tests/trust \
  tests/ops/test_engines.py "$@"
# bench/service.py's servers (the stack's stand-in for the referee among them) run on
# the compiled build, whose figures docs/benchmarks.md reports (./dev test runs this
# test here only).
echo "== bench/service.py on the compiled build"
PYTHONPATH="$work" REFEREE_SHARED="$shared" \
  "${PYTHON:-python}" -m pytest -p no:cacheprovider tests/test_bench.py -k test_service_bench_runs
