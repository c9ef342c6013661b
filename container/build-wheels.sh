#!/bin/sh
# Build stage of the container (Dockerfile) and of tests/test_container.py:
# wheels of the project and of every runtime dependency into $1. The project's wheel
# is the compiled build (REFEREE_COMPILE=1: rules core, codecs, servicer, a call's
# bookkeeping and the log pipeline compiled with mypyc, see setup.py), so a C compiler
# must be present.
set -eu
out=${1:?usage: build-wheels.sh OUT_DIR [SOURCE_DIR]}
src=${2:-.}
REFEREE_COMPILE=1 "${PIP:-pip}" wheel --no-cache-dir --disable-pip-version-check \
  --wheel-dir "$out" "$src"
