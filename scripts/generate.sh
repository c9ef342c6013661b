#!/usr/bin/env bash
# Regenerate every checked-in stub from protos/. One command:  scripts/generate.sh
# CI runs it and fails if the tree changes (stub drift).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}

# Python: messages, .pyi stubs and gRPC stubs under referee/v1/ (grpcio-tools).
rm -f referee/v1/*_pb2.py referee/v1/*_pb2.pyi referee/v1/*_pb2_grpc.py
"$PYTHON" -m grpc_tools.protoc -Iprotos \
  --python_out=. --pyi_out=. --grpc_python_out=. \
  protos/referee/v1/*.proto
cat > referee/v1/__init__.py <<'PY'
"""Generated protobuf and gRPC code for referee.v1 (scripts/generate.sh; do not edit)."""
PY
