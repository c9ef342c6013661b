#!/usr/bin/env bash
# Install promtool, Prometheus's rule checker and rule unit-test runner, for
# tests/ops/test_alerts.py (deploy/prometheus/referee-alerts.yaml). Debian 12 as root;
# scripts/install-client-deps.sh (so CI's .ci/run) runs it. Idempotent.
#
# It comes from Debian's `prometheus` package, which is downloaded (apt-get download)
# and unpacked (dpkg-deb -x), never installed: its maintainer scripts would create a
# user and start the Prometheus service. Only usr/bin/promtool is kept, as
# $PROMTOOL_DIR/promtool (default /opt/promtool/promtool), where the test looks for it
# (or set PROMTOOL to another promtool). Prints where it is.
set -euo pipefail

dir=${PROMTOOL_DIR:-/opt/promtool}
bin=$dir/promtool

if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "promtool: $bin ($("$bin" --version 2>&1 | head -n 1))"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download needs the package lists; a fresh machine (a container) has none yet.
if ! apt-get download -qq prometheus >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get download -qq prometheus
fi
dpkg-deb -x prometheus_*.deb unpacked
mkdir -p "$dir"
install -m 0755 unpacked/usr/bin/promtool "$bin.new"
mv -f "$bin.new" "$bin"  # atomic: a test running meanwhile sees the old file or the new one
echo "promtool: $bin ($("$bin" --version 2>&1 | head -n 1))"
