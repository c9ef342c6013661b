#!/bin/sh
# Runtime stage of the container (Dockerfile) and of tests/test_container.py:
# install Referee from the wheels in $1 only (no index, no build tools needed).
set -eu
wheels=${1:?usage: install.sh WHEEL_DIR}
"${PIP:-pip}" install --no-cache-dir --disable-pip-version-check --no-index \
  --find-links "$wheels" referee
