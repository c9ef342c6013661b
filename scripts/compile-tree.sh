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
