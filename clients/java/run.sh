#!/usr/bin/env bash
# Run a class of the Java client with build.sh's classpath (and OpenSSL for TLS):
#   ./run.sh referee.client.examples.Quickstart
#   ./run.sh referee.client.examples.Bot --address localhost:50051
#   ./run.sh referee.client.ClientTests [TEST ...]     (the tests, against three servers)
set -euo pipefail
build="$(cd "$(dirname "$0")" && pwd)/build"
[ -f "$build/classpath" ] || { echo "run.sh: build first: $(dirname "$0")/build.sh" >&2; exit 1; }
exec java "-Djava.library.path=$build/native" -cp "$(cat "$build/classpath")" "$@"
