#!/bin/sh
# Build stage of the container (Dockerfile) and of tests/test_container.py: wheels of the
# project and of every runtime dependency into $1, from the locks in SOURCE_DIR/container
# (scripts/lock.sh makes them), every downloaded file checked against a hash of the locks.
# The project's wheel is the compiled build (REFEREE_COMPILE=1: rules core, codecs,
# servicer, a call's bookkeeping and the log pipeline compiled with mypyc, see setup.py),
# so a C compiler must be present. The build requirements are installed into the
# environment running this (the build stage's throwaway Python, or a scratch venv).
set -eu
out=${1:?usage: build-wheels.sh OUT_DIR [SOURCE_DIR]}
src=${2:-.}
run_pip() { "${PIP:-pip}" --disable-pip-version-check "$@"; }
# 1. The build requirements (setuptools, wheel, mypy, the types mypyc compiles against),
#    wheels only, each checked against build-requirements.lock's hashes: pip refuses a
#    file whose hash is not in the lock and a dependency the lock does not pin.
run_pip install --no-cache-dir --require-hashes --only-binary :all: \
  -r "$src/container/build-requirements.lock"
# 2. The runtime dependencies' wheels, checked against requirements.lock the same way; the
#    lock goes with them for container/install.sh.
run_pip download --no-cache-dir --require-hashes --only-binary :all: --dest "$out" \
  -r "$src/container/requirements.lock"
cp "$src/container/requirements.lock" "$out/requirements.lock"
# 3. Referee's own wheel, built in this environment (--no-build-isolation: an isolated
#    build would install its build requirements afresh, unpinned and unchecked), with no
#    index (nothing else is fetched) and without its dependencies (step 2 has them).
#    --check-build-dependencies: pyproject.toml's [build-system] requires must be met.
export REFEREE_COMPILE=1
run_pip wheel --no-cache-dir --no-index --no-deps --no-build-isolation \
  --check-build-dependencies --wheel-dir "$out" "$src"
