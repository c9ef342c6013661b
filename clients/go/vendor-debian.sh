#!/usr/bin/env bash
# Assemble vendor/ from Debian's Go packages (/usr/share/gocode), so that the
# module builds with no module proxy: `go build`, `go vet`, `go test` then use
# -mod=vendor automatically (vendor/ is not checked in; this script is idempotent).
#
# Debian 12 packages (apt-get install):
#   golang-go golang-google-grpc-dev golang-google-protobuf-dev
#   golang-github-golang-protobuf-1-5-dev (grpc 1.33's codec needs the v1.4+ API bridge)
set -euo pipefail
cd "$(dirname "$0")"
GOCODE=${GOCODE:-/usr/share/gocode/src}

# module path, version (as in go.mod), Debian package, the module's go directive
MODULES=(
  "google.golang.org/grpc v1.33.3 golang-google-grpc-dev 1.11"
  "google.golang.org/protobuf v1.28.1 golang-google-protobuf-dev 1.11"
  "github.com/golang/protobuf v1.5.2 golang-github-golang-protobuf-1-5-dev 1.9"
  "golang.org/x/net v0.7.0 golang-golang-x-net-dev 1.17"
  "golang.org/x/sys v0.3.0 golang-golang-x-sys-dev 1.17"
  "golang.org/x/text v0.7.0 golang-golang-x-text-dev 1.17"
  "google.golang.org/genproto v0.0.0-20200413115906-b5235f65be36 golang-google-genproto-dev 1.11"
)

missing=()
for entry in "${MODULES[@]}"; do
  read -r path _ pkg _ <<<"$entry"
  [ -d "$GOCODE/$path" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vendor-debian.sh: missing Go sources: apt-get install ${missing[*]}" >&2
  exit 1
fi
if ! grep -q 'google.golang.org/protobuf' "$GOCODE/github.com/golang/protobuf/go.mod"; then
  echo "vendor-debian.sh: github.com/golang/protobuf is v1.3 (APIv1): apt-get install" \
    "golang-github-golang-protobuf-1-5-dev" >&2
  exit 1
fi

rm -rf vendor
mkdir -p vendor
{
  for entry in "${MODULES[@]}"; do
    read -r path version _ goversion <<<"$entry"
    mkdir -p "vendor/$(dirname "$path")"
    ln -s "$GOCODE/$path" "vendor/$path"
    echo "# $path $version"
    echo "## explicit; go $goversion"  # every module is listed in go.mod (go >= 1.17)
    # Every package of the module: directories with non-test Go files, minus
    # testdata, Debian's own files and nested modules.
    (cd "$GOCODE/$path" && find . \( -name testdata -o -name debian -o -name '.?*' -o -name '_*' \) -prune \
      -o -type f -name '*.go' ! -name '*_test.go' -printf '%h\n') \
      | sort -u | while read -r dir; do
        d=${dir#.}
        sub=$dir
        nested=false
        while [ "$sub" != "." ]; do
          if [ -f "$GOCODE/$path/$sub/go.mod" ]; then nested=true; break; fi
          sub=$(dirname "$sub")
        done
        $nested || echo "$path$d"
      done
  done
} >vendor/modules.txt
