#!/usr/bin/env bash
# Regenerate every checked-in stub from protos/. One command:  scripts/generate.sh
# CI runs it and fails if the tree changes (stub drift).
#
# One compiler for every language: the protoc bundled with grpcio-tools (pinned
# exactly in pyproject.toml), with each language's plugin pinned too:
#   Python      grpcio-tools' own generators           -> referee/v1/
#   TypeScript  @bufbuild/protoc-gen-es (package-lock) -> clients/typescript/src/gen/
#               (with google/rpc/error_details.proto, checked in under
#               clients/typescript/third_party/: npm has no pinned copy)
#   Go          protoc-gen-go, protoc-gen-go-grpc      -> clients/go/gen/
#               (Debian 12: apt-get install protoc-gen-go protoc-gen-go-grpc)
# Java alone uses another compiler, Debian's protoc 3.21.12 (grpcio-tools' has no
# Java generator, and Java's generated code must not be newer than its runtime,
# Debian's protobuf-java 3.21):
#   Java        protoc 3.21.12, grpc_java_plugin 1.41.3 -> clients/java/src/gen/java/
#               (Debian 12: apt-get install protobuf-compiler protobuf-compiler-grpc-java-plugin)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
PROTOC=("$PYTHON" -m grpc_tools.protoc -Iprotos)
PROTOS=(protos/referee/v1/*.proto)

# Python: messages, .pyi stubs and gRPC stubs under referee/v1/ (grpcio-tools).
rm -f referee/v1/*_pb2.py referee/v1/*_pb2.pyi referee/v1/*_pb2_grpc.py
"$PYTHON" -m grpc_tools.protoc -Iprotos \
  --python_out=. --pyi_out=. --grpc_python_out=. \
  protos/referee/v1/*.proto
cat > referee/v1/__init__.py <<'PY'
"""Generated protobuf and gRPC code for referee.v1 (scripts/generate.sh; do not edit)."""
PY

die() {
  echo "generate.sh: $*" >&2
  exit 1
}

# TypeScript: protoc-gen-es (messages and the service descriptor, for Connect),
# and google.rpc's error details (ErrorInfo, BadRequest), which RefereeError decodes.
TS=clients/typescript
if [ ! -x "$TS/node_modules/.bin/protoc-gen-es" ]; then
  command -v npm >/dev/null || die "npm is needed for the TypeScript stubs (Node >= 20)"
  npm ci --prefix "$TS" --no-audit --no-fund --loglevel=error
fi
rm -rf "$TS/src/gen"
mkdir -p "$TS/src/gen"
"${PROTOC[@]}" -I"$TS/third_party" \
  --plugin=protoc-gen-es="$TS/node_modules/.bin/protoc-gen-es" \
  --es_out="$TS/src/gen" --es_opt=target=ts,import_extension=js \
  "${PROTOS[@]}" "$TS/third_party/google/rpc/error_details.proto"

# Go: protoc-gen-go and protoc-gen-go-grpc from Debian; their versions are
# written into the generated files, so they are checked.
want_go="protoc-gen-go v1.28.1"
want_grpc="protoc-gen-go-grpc 1.0"
for tool in protoc-gen-go protoc-gen-go-grpc; do
  command -v "$tool" >/dev/null \
    || die "$tool is needed for the Go stubs (apt-get install protoc-gen-go protoc-gen-go-grpc)"
done
[ "$(protoc-gen-go --version)" = "$want_go" ] || die "need $want_go, have $(protoc-gen-go --version)"
[ "$(protoc-gen-go-grpc --version)" = "$want_grpc" ] \
  || die "need $want_grpc, have $(protoc-gen-go-grpc --version)"
GO_MODULE=referee/clients/go
GO_PACKAGE="$GO_MODULE/gen/referee/v1;refereev1"
go_opts="module=$GO_MODULE"
for f in "${PROTOS[@]}"; do
  go_opts+=",M${f#protos/}=$GO_PACKAGE"
done
rm -rf clients/go/gen
mkdir -p clients/go/gen
"${PROTOC[@]}" \
  --plugin=protoc-gen-go="$(command -v protoc-gen-go)" \
  --plugin=protoc-gen-go-grpc="$(command -v protoc-gen-go-grpc)" \
  --go_out=clients/go --go_opt="$go_opts" \
  --go-grpc_out=clients/go --go-grpc_opt="$go_opts" \
  "${PROTOS[@]}"

# Java: Debian's protoc and grpc_java_plugin, not grpcio-tools' protoc, which
# has no Java generator; and the messages protoc generates must not be newer
# than the protobuf-java runtime they run on (Debian's libprotobuf-java 3.21).
# grpc_java_plugin does not tell its version: the Debian package it comes from
# does.
want_protoc="libprotoc 3.21.12"
want_grpc_java="1.41.3"
java_hint="apt-get install protobuf-compiler protobuf-compiler-grpc-java-plugin"
command -v protoc >/dev/null || die "protoc is needed for the Java stubs ($java_hint)"
command -v grpc_java_plugin >/dev/null \
  || die "grpc_java_plugin is needed for the Java stubs ($java_hint)"
[ "$(protoc --version)" = "$want_protoc" ] \
  || die "need $want_protoc for the Java stubs, have $(protoc --version) ($java_hint)"
grpc_java_plugin=$(readlink -f "$(command -v grpc_java_plugin)")
have_grpc_java=none
if dpkg-query -S "$grpc_java_plugin" 2>/dev/null | grep -q '^protobuf-compiler-grpc-java-plugin'; then
  have_grpc_java=$(dpkg-query -W -f='${Version}' protobuf-compiler-grpc-java-plugin)
fi
case $have_grpc_java in
  "$want_grpc_java"+*) ;;
  *) die "need grpc_java_plugin $want_grpc_java from Debian's protobuf-compiler-grpc-java-plugin," \
    "have $grpc_java_plugin of version $have_grpc_java ($java_hint)" ;;
esac
JAVA_GEN=clients/java/src/gen/java
rm -rf "$JAVA_GEN"
mkdir -p "$JAVA_GEN"
protoc -Iprotos \
  --java_out="$JAVA_GEN" \
  --plugin=protoc-gen-grpc-java="$grpc_java_plugin" --grpc-java_out="$JAVA_GEN" \
  "${PROTOS[@]}"
