#!/usr/bin/env bash
# A compiled copy of the working tree in DIR (REFEREE_COMPILE=1: the rules core and the
# codecs compiled in place with mypyc, as the container's wheel; see setup.py).
#
#   scripts/compile-tree.sh DIR
#   PYTHONPATH=DIR python bench/engine.py      # benchmark the compiled build
#
# The checkout itself is never compiled in place (extensions would shadow edited
# sources). Needs a C compiler and the dev extra (mypy).
set -euo pipefail
dir=${1:?usage: compile-tree.sh DIR}
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
git ls-files --cached --others --exclude-standard -z -- referee tests docs bench fuzz setup.py \
  pyproject.toml buildsys README.md | xargs -0 cp --parents -t "$dir"
# A compiled build this checkout already holds in build/ (left by the `pip wheel` of
# container/build-wheels.sh, which builds in place: tests/test_container.py, earlier in
# ./dev test) seeds DIR's. mypyc rewrites only the C files whose text changes, and
# build_ext (which builds into build/compiled/lib.* and copies to the tree) skips an
# extension whose library there is newer than its C files, so a tree whose
# generated C is unchanged is not compiled a second time (about 100 s of gcc); any change
# to the sources, to mypyc or to its output compiles afresh. Only this Python's libraries.
lib=build/compiled/$("$PYTHON" -c \
  'import sys, sysconfig; print(f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}")')
suffix=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [ -d "$lib" ] && [ -n "$(find "$lib" -name "*$suffix" -print -quit)" ]; then
  echo "seeded from $lib: what is unchanged is not compiled again"
  tar -C . --exclude='build/compiled/bdist*' --exclude='build/compiled/temp*' -cf - build \
    | tar -C "$dir" -xf -
fi
cd "$dir"
echo "compiling with mypyc in $dir"
REFEREE_COMPILE=1 "$PYTHON" setup.py --quiet build_ext --inplace >build.log 2>&1 \
  || { tail -40 build.log >&2; exit 1; }
PYTHONPATH="$dir" "$PYTHON" - <<'PY'
import importlib
modules = ["referee.cards", "referee.shuffle", "referee.games.base",
           "referee.games.earl_of_coventry.rules", "referee.games.ecarte.rules",
           "referee.codec.common", "referee.codec.earl_of_coventry", "referee.codec.ecarte",
           "referee.service", "referee.calls",
           "referee.logs"]
for name in modules:
    path = importlib.import_module(name).__file__ or ""
    assert path.endswith(".so"), f"{name} is not compiled: {path}"
print(f"{len(modules)} modules checked: compiled")
PY
