#!/usr/bin/env bash
# Build the Java client with javac against Debian's jars (no Maven, no Gradle, offline):
#   ./build.sh    the generated code  -> build/gen-classes (recompiled only when it changed)
#                 client, examples, tests -> build/classes
#                 the classpath for java -cp -> build/classpath (run.sh uses it)
#                 OpenSSL for TLS (netty-tcnative) -> build/native/libnetty_tcnative.so,
#                 when libnetty-tcnative-jni is installed (without it: a warning, and
#                 plaintext only; a TLS client says what to install)
# Needs JDK >= 11 and Debian 12's jars (scripts/install-client-deps.sh installs them).
#
# TLS: Debian's netty 4.1.48 has no ALPN for the JDK's own TLS (its
# JdkAlpnApplicationProtocolNegotiator is left out), and gRPC over TLS needs
# ALPN, so TLS goes through OpenSSL with netty-tcnative (libnetty-tcnative-jni).
# Debian installs that library as libnetty-tcnative.so, a name netty does not
# look for, and the library refuses to be loaded through a link of another name:
# it is copied to build/native/ as libnetty_tcnative.so, and run.sh passes
# -Djava.library.path=build/native. Plaintext does not load it.
set -euo pipefail
cd "$(dirname "$0")"

die() {
  echo "build.sh: $*" >&2
  exit 1
}

JAVA_DIR=${REFEREE_JAVA_JARS:-/usr/share/java}
# Every jar the client needs at compile and run time, and the Debian package with it.
JARS=(
  grpc-api:libgrpc-java
  grpc-core:libgrpc-java
  grpc-context:libgrpc-java
  grpc-stub:libgrpc-java
  grpc-protobuf:libgrpc-java
  grpc-protobuf-lite:libgrpc-java
  grpc-netty:libgrpc-java
  protobuf:libprotobuf-java
  protobuf-util:libprotobuf-java
  proto-google-common-protos:libgoogle-common-protos-java
  gson:libgoogle-gson-java
  guava:libguava-java
  perfmark-api:libperfmark-java
  geronimo-annotation-1.3-spec:libgeronimo-annotation-1.3-spec-java
  netty-common:libnetty-java
  netty-buffer:libnetty-java
  netty-transport:libnetty-java
  netty-codec:libnetty-java
  netty-codec-http:libnetty-java
  netty-codec-http2:libnetty-java
  netty-handler:libnetty-java
  netty-resolver:libnetty-java
  netty-tcnative:libnetty-tcnative-java
)

command -v javac >/dev/null || die "javac is not installed: apt-get install default-jdk-headless"
command -v java >/dev/null || die "java is not installed: apt-get install default-jdk-headless"
classpath=""
missing=()
for entry in "${JARS[@]}"; do
  jar="$JAVA_DIR/${entry%%:*}.jar"
  if [ -f "$jar" ]; then
    classpath+="${classpath:+:}$jar"
  else
    missing+=("$jar (${entry#*:})")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  packages=$(printf '%s\n' "${missing[@]}" | sed 's/.*(\(.*\))/\1/' | sort -u | tr '\n' ' ')
  die "missing ${missing[*]}: apt-get install ${packages% } (scripts/install-client-deps.sh)"
fi

tcnative=""
for so in /usr/lib/*/jni/libnetty-tcnative.so; do
  [ -f "$so" ] && tcnative=$so && break
done
if [ -z "$tcnative" ]; then
  echo "build.sh: warning: no libnetty-tcnative.so (OpenSSL): TLS will not work, plaintext will;" \
    "for TLS: apt-get install libnetty-tcnative-jni, then build again" >&2
fi

mkdir -p build/native
# One build at a time (test runs may build side by side); a build with nothing
# changed touches nothing, so a run of the classes is never pulled from under.
exec 9>build/.lock
flock 9
if [ -z "$tcnative" ]; then
  rm -f build/native/libnetty_tcnative.so
elif ! cmp -s "$tcnative" build/native/libnetty_tcnative.so; then
  cp "$tcnative" build/native/libnetty_tcnative.so
fi
JAVAC=(javac --release 11 -encoding UTF-8)

# The generated code (4 MB of Java, some 15 s to compile): only when it or the
# classpath changed.
mapfile -t gen_sources < <(find src/gen/java -name '*.java' | LC_ALL=C sort)
[ ${#gen_sources[@]} -gt 0 ] || die "no generated code in src/gen/java: run scripts/generate.sh"
stamp=$( (javac -version 2>&1; echo "$classpath"; cat "${gen_sources[@]}") | sha256sum | cut -d' ' -f1)
if [ "$(cat build/gen-classes.stamp 2>/dev/null)" != "$stamp" ]; then
  rm -rf build/gen-classes build/gen-classes.stamp
  "${JAVAC[@]}" -nowarn -d build/gen-classes -cp "$classpath" "${gen_sources[@]}"
  echo "$stamp" > build/gen-classes.stamp
fi

# The client, the examples and the tests (warnings are errors): when they changed.
mapfile -t sources < <(find src/main/java src/test/java -name '*.java' | LC_ALL=C sort)
stamp=$( (echo "$stamp"; cat "${sources[@]}") | sha256sum | cut -d' ' -f1)
if [ "$(cat build/classes.stamp 2>/dev/null)" != "$stamp" ]; then
  rm -rf build/classes build/classes.stamp
  "${JAVAC[@]}" -Xlint:all -Xlint:-classfile -Xlint:-processing -Werror \
    -d build/classes -cp "build/gen-classes:$classpath" "${sources[@]}"
  echo "$stamp" > build/classes.stamp
fi

echo "$PWD/build/classes:$PWD/build/gen-classes:$classpath" > build/classpath
echo "built clients/java/build/classes ($(javac -version 2>&1); jars from $JAVA_DIR)"
