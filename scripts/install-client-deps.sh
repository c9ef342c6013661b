#!/usr/bin/env bash
# Install what the TypeScript, Go and Java clients need to be generated, built and
# tested (Debian 12, as root: CI runs it from .ci/run). Idempotent; nothing is
# downloaded outside Debian's and npm's registries:
#   Node >= 20 and npm       the TypeScript client; its packages from package-lock.json (npm ci)
#   Go 1.19 and Go libraries Debian's golang-* packages; the Go module builds offline
#                            from them (clients/go/vendor-debian.sh), no module proxy
#   protoc-gen-go(-grpc)     Debian's plugins, for scripts/generate.sh
#   a JDK and Java jars      the Java client: javac (if absent) and Debian's gRPC, protobuf,
#                            netty and OpenSSL (tcnative) jars (clients/java/build.sh); protoc
#                            and grpc_java_plugin for scripts/generate.sh
#   gcc, h2load, valgrind    the compiled build's tests, the benchmark scripts' check
#   promtool                 the alert rules' tests (scripts/install-promtool.sh: unpacked, not installed)
#   chromium                 a real browser calling the gRPC-Web gateway from another origin
#                            (CORS), headless (tests/clients/test_browser.py)
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  golang-go
  golang-google-grpc-dev
  golang-google-protobuf-dev
  golang-github-golang-protobuf-1-5-dev
  protoc-gen-go
  protoc-gen-go-grpc
  protobuf-compiler                       # Debian's protoc 3.21.12: the Java stubs
  protobuf-compiler-grpc-java-plugin      # grpc_java_plugin 1.41.3: the Java stubs
  libgrpc-java                            # the Java client's jars (clients/java/build.sh)
  libprotobuf-java
  libgoogle-common-protos-java
  libgoogle-gson-java
  libguava-java
  libperfmark-java
  libgeronimo-annotation-1.3-spec-java
  libnetty-java
  libnetty-tcnative-java                  # OpenSSL for TLS (Debian's netty has no JDK ALPN)
  libnetty-tcnative-jni
  nghttp2-client  # h2load, for the check that the benchmark scripts run (tests/test_bench.py)
  valgrind        # callgrind, for bench/instructions.py (the same check)
  gcc             # the compiled build (mypyc) that scripts/test-compiled.sh tests
  libc6-dev
  chromium        # headless, a page calling referee grpc-web across origins (tests/clients/test_browser.py)
)
command -v node >/dev/null || APT_PACKAGES+=(nodejs)
command -v javac >/dev/null || APT_PACKAGES+=(default-jdk-headless)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
scripts/install-promtool.sh

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "Node $node_major is too old for clients/typescript: Node >= 20 is needed" >&2
  exit 1
fi
command -v npm >/dev/null || { echo "npm is missing (it comes with Node >= 20)" >&2; exit 1; }

npm ci --prefix clients/typescript --no-audit --no-fund --loglevel=error
clients/go/vendor-debian.sh
echo "client toolchains: node $(node --version), npm $(npm --version), $(go version | cut -d' ' -f3)," \
  "$(protoc-gen-go --version), $(protoc-gen-go-grpc --version), $(javac -version 2>&1)," \
  "$(protoc --version)"
