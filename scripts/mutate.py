"""Mutation testing of a rules module: does every rule have a test that fails when the
rule is broken?

Each mutant changes one thing in the module (a comparison flipped or loosened, ``+``
for ``-``, ``&`` for ``|``, ``and`` for ``or``, a ``not`` dropped, a small integer
plus one, ``True`` for ``False``), then the given tests run against it; a mutant the
tests let pass "survives" and is printed as a JSON line. A survivor is either a test
to write or an equivalent mutant (a cache key, a bound no input reaches, a check
another check makes again): docs/reliability.md lists what earlier runs found.

    python scripts/mutate.py referee/games/ecarte/rules.py tests/ecarte tests/test_scenarios.py
    python scripts/mutate.py --jobs 2 --lines 700-780 referee/games/ecarte/rules.py tests/ecarte

The module is mutated in throwaway copies of the checkout's tracked files (``--jobs``
of them), never in place. Tests run
interpreted (the source is what is mutated), with hypothesis derandomized. Slow by
nature (a test run per mutant: about 1,300 mutants and 50 minutes for both games'
rules on two cores); not part of CI.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

SWAP_CMP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
SWAP_BIN: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}

# Stop at the first failure; the same hypothesis examples for every mutant.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
PYTEST += ["--hypothesis-seed=0"]
Site = tuple[str, int, int]  # kind, index of the node in ast.walk order, operator index


def sites(tree: ast.AST) -> list[Site]:
    """Every place a mutant can be made, annotations left out."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        for field in ("annotation", "returns"):
            sub = getattr(node, field, None)
            if sub is not None:
                skip.update(id(n) for n in ast.walk(sub))
    out: list[Site] = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            out += [("cmp", index, i) for i, op in enumerate(node.ops) if type(op) in SWAP_CMP]
        elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in SWAP_BIN:
            out.append(("bin", index, 0))
        elif isinstance(node, ast.BoolOp):
            out.append(("bool", index, 0))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append(("not", index, 0))
        elif isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= 64:
            out.append(("int", index, 0))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            out.append(("bool-constant", index, 0))
    return out


class _Mutate(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str, op_index: int) -> None:
        self.target, self.kind, self.op_index = target, kind, op_index

    def visit(self, node: ast.AST) -> Any:
        if node is not self.target:
            return self.generic_visit(node)
        if self.kind == "cmp":
            assert isinstance(node, ast.Compare)
            node.ops[self.op_index] = SWAP_CMP[type(node.ops[self.op_index])]()
        elif self.kind == "bin":
            assert isinstance(node, ast.BinOp | ast.AugAssign)
            node.op = SWAP_BIN[type(node.op)]()
        elif self.kind == "bool":
            assert isinstance(node, ast.BoolOp)
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif self.kind == "not":
            assert isinstance(node, ast.UnaryOp)
            return node.operand
        elif self.kind == "int":
            assert isinstance(node, ast.Constant)
            return ast.copy_location(ast.Constant(node.value + 1), node)
        elif self.kind == "bool-constant":
            assert isinstance(node, ast.Constant)
            return ast.copy_location(ast.Constant(not node.value), node)
        return node


def mutant(source: str, site: Site) -> tuple[str, int, int]:
    """The mutated module's source, and the line and column of the mutation."""
    kind, index, op_index = site
    tree = ast.parse(source)
    target = list(ast.walk(tree))[index]
    line, col = getattr(target, "lineno", 0), getattr(target, "col_offset", 0)
    tree = _Mutate(target, kind, op_index).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree)), line, col


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the file to mutate, relative to the checkout")
    parser.add_argument("tests", nargs="+", help="pytest arguments: the tests that must fail")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--lines", help="only mutants on lines FIRST-LAST")
    args = parser.parse_args()

    root = Path(__file__).resolve().parent.parent
    source = (root / args.module).read_text()
    todo = sites(ast.parse(source))
    if args.lines:
        first, last = map(int, args.lines.split("-"))
        todo = [s for s in todo if first <= mutant(source, s)[1] <= last]
    print(f"# {args.module}: {len(todo)} mutants, {args.jobs} jobs", file=sys.stderr)

    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.split(b"\0")
    work = queue.SimpleQueue[Site]()
    for s in todo:
        work.put(s)
    survived: list[dict[str, Any]] = []
    lock = threading.Lock()
    # The copies are not next to ../shared: the tests find it through REFEREE_SHARED.
    shared = os.environ.get("REFEREE_SHARED") or str(root.parent / "shared")
    env = {**os.environ, "REFEREE_SHARED": shared}

    def run(copy: Path) -> None:
        target = copy / args.module
        while True:
            try:
                site = work.get_nowait()
            except queue.Empty:
                return
            code, line, col = mutant(source, site)
            target.write_text(code)
            try:
                result = subprocess.run(
                    [*PYTEST, *args.tests], cwd=copy, env=env, capture_output=True, timeout=300
                )
                passed = result.returncode == 0
            except subprocess.TimeoutExpired:
                passed = False  # a mutant that loops forever: the tests do not pass
            finally:
                target.write_text(source)
            if passed:
                found = {
                    "line": line,
                    "col": col,
                    "kind": site[0],
                    "code": source.splitlines()[line - 1].strip() if line else "",
                }
                with lock:
                    survived.append(found)
                    print(json.dumps(found), flush=True)

    with tempfile.TemporaryDirectory(prefix="referee-mutate-") as tmp:
        copies = []
        for j in range(args.jobs):
            copy = Path(tmp) / f"copy{j}"
            for name in tracked:
                if name:
                    src = root / name.decode()
                    dst = copy / name.decode()
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    if src.is_file():
                        shutil.copy2(src, dst)
            copies.append(copy)
        # The tests must pass unmutated, in a copy: a test file the copies lack (not yet
        # tracked by git) or a failing test would count every mutant as killed.
        baseline = subprocess.run(
            [*PYTEST, *args.tests], cwd=copies[0], env=env, capture_output=True
        )
        if baseline.returncode != 0:
            print(
                f"# the tests fail without a mutant (exit {baseline.returncode}); is every "
                "test file tracked by git (git add)?\n" + baseline.stdout.decode()[-2000:],
                file=sys.stderr,
            )
            return 2
        threads = [threading.Thread(target=run, args=(c,)) for c in copies]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(f"# {len(survived)} of {len(todo)} mutants survived", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
