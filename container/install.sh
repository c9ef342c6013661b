#!/bin/sh
# Runtime stage of the container (Dockerfile) and of tests/test_container.py: install
# Referee from the wheels in $1 only (no index, no build tools needed): first its
# dependencies, exactly as the lock ($1/requirements.lock, which container/build-wheels.sh
# puts there) pins them, each wheel checked against the lock's hashes; then Referee's own
# wheel, which cannot be in the lock, without dependencies; then pip check, so that an
# image whose lock does not satisfy Referee's requirements is not built.
set -eu
wheels=${1:?usage: install.sh WHEEL_DIR [LOCK]}
lock=${2:-$wheels/requirements.lock}
run_pip() { "${PIP:-pip}" --disable-pip-version-check "$@"; }
run_pip install --no-cache-dir --no-index --find-links "$wheels" --require-hashes -r "$lock"
run_pip install --no-cache-dir --no-index --find-links "$wheels" --no-deps referee
run_pip check
