#!/usr/bin/env bash
# The container image's locks: exact versions with hashes of every Python package the
# image installs, for the image's CPython on Linux x86_64 (read from the Dockerfile's
# base image), resolved with uv (the dev extra):
#
#   container/requirements.lock        pyproject.toml's dependencies, transitively: the
#                                      runtime stage (container/install.sh)
#   container/build-requirements.lock  the build stage's build requirements (setuptools,
#                                      wheel, mypy and the types buildsys/backend.py asks
#                                      for), at requirements.lock's versions where shared
#
#   scripts/lock.sh                          re-lock after an input changed; pins that
#                                            still fit are kept (the smallest diff)
#   scripts/lock.sh --upgrade                every pin to the newest release in range
#   scripts/lock.sh --upgrade-package NAME   one package (repeatable)
#
# Run it after changing pyproject.toml's dependencies or [build-system] requires,
# buildsys/backend.py's COMPILE_REQUIRES or the Dockerfile's base image (tests/test_lock.py
# fails until then), review the diff and commit it. `pip install referee` outside the
# image still resolves the compatible ranges of pyproject.toml; only the image is locked.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
UV=${UV:-uv}
if ! command -v "$UV" >/dev/null; then
  echo "scripts/lock.sh needs uv: pip install -e '.[dev]' (or ./dev shell)" >&2
  exit 2
fi
read -r python platform < <("$PYTHON" scripts/lock_inputs.py target)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pins() {  # NAME==VERSION, one a line, of a lock (none if it does not exist)
  if [ -f "$1" ]; then grep -E '^[A-Za-z0-9._-]+==' "$1" | sed 's/ .*//' | sort; fi
}

lock() {  # KIND LOCK DIR [uv pip compile arguments...]: uv runs in DIR
  local kind=$1 out=$2 dir=$3
  shift 3
  # uv keeps the pins of an existing output file that still fit: start from the lock.
  [ -f "$out" ] && cp "$out" "$work/out.lock"
  local cmd=("$UV" pip compile --quiet --generate-hashes --only-binary :all:
    --python-version "$python" --python-platform "$platform"
    --custom-compile-command scripts/lock.sh --output-file "$work/out.lock" "$@")
  echo "+ ${cmd[*]}"
  (cd "$dir" && "${cmd[@]}")
  { "$PYTHON" scripts/lock_inputs.py header "$kind"; cat "$work/out.lock"; } >"$work/new.lock"
  local before after
  before=$(pins "$out")
  after=$(pins "$work/new.lock")
  mv "$work/new.lock" "$out"
  rm -f "$work/out.lock"
  echo "wrote $out: $(grep -c . <<<"$after") packages, $(grep -c -- '--hash=sha256:' "$out") hashes"
  if [ "$before" = "$after" ]; then
    echo "  no pin changed"
  else
    diff <(grep . <<<"$before") <(grep . <<<"$after") | sed -n 's/^</  -/p; s/^>/  +/p' || true
  fi
}

echo "locking for CPython $python on $platform"
# The runtime lock from pyproject.toml itself (annotated "via referee (pyproject.toml)").
lock runtime container/requirements.lock . pyproject.toml "$@"
# The build lock: its requirements on stdin, with the runtime lock's pins as constraints
# so that the types mypyc compiles against are those of the packages the image runs.
pins container/requirements.lock >"$work/requirements.lock.pins"
"$PYTHON" scripts/lock_inputs.py requirements build >"$work/build-requirements.in"
lock build container/build-requirements.lock "$work" - --constraint requirements.lock.pins "$@" \
  <"$work/build-requirements.in"
echo "review the diff (git diff container/) and commit it with the change that needed it"
