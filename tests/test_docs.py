"""The documentation's links resolve, and what it counts matches what it lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    out = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append((number, line))
    return out


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: the heading's text in lower case,
    punctuation dropped (hyphens and underscores kept), spaces as hyphens; a repeated
    anchor gets ``-1``, ``-2``, ..."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose(text):
        match = HEADING.match(line)
        if not match:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # a link's text
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def links() -> list[tuple[str, Path, str, str]]:
    """Every relative link of the docs: (doc:line, target file, anchor, link as written)."""
    found = []
    for doc in DOCS:
        for number, line in prose(doc.read_text(encoding="utf-8")):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                file = (doc.parent / path).resolve() if path else doc
                found.append((f"{doc.relative_to(ROOT)}:{number}", file, anchor, target))
    return found


LINKS = links()


def test_the_docs_have_links_with_anchors() -> None:
    assert sum(1 for _, _, anchor, _ in LINKS if anchor) >= 20


@pytest.mark.parametrize(("where", "file", "anchor", "target"), LINKS, ids=[w for w, *_ in LINKS])
def test_every_link_and_anchor_resolves(where: str, file: Path, anchor: str, target: str) -> None:
    if not file.is_relative_to(ROOT):
        pytest.skip(f"{target} is outside the repository")
    assert file.exists(), f"{where}: {target}: no such file"
    if anchor and file.suffix == ".md":
        have = anchors(file.read_text(encoding="utf-8"))
        assert anchor in have, f"{where}: {target}: no heading with that anchor"


def test_the_ecarte_page_counts_its_decisions() -> None:
    """docs/rules/ecarte.md's introduction names the range of its decisions (D-1 … D-n);
    n is the last decision the page records."""
    text = (ROOT / "docs" / "rules" / "ecarte.md").read_text(encoding="utf-8")
    stated = re.search(r"D-1 … D-(\d+)", text)
    assert stated, "the introduction names the decisions' range"
    recorded = [int(n) for n in re.findall(r"^- \*\*D-(\d+) ", text, re.M)]
    assert recorded == list(range(1, len(recorded) + 1)), recorded
    assert int(stated.group(1)) == recorded[-1]


def test_the_contract_page_names_the_state_card_encodings() -> None:
    """docs/api.md says how states carry cards: every protobuf type the state messages
    use for cards (``bytes`` piles, ``uint64`` sets) is named in that paragraph."""
    from google.protobuf.descriptor import FieldDescriptor

    from referee.v1 import earl_of_coventry_pb2, ecarte_pb2

    card_fields = {"hand", "discards", "played", "stock", "tricks"}
    kinds = {FieldDescriptor.TYPE_BYTES: "`bytes`", FieldDescriptor.TYPE_UINT64: "`uint64`"}
    used = set()
    for module in (earl_of_coventry_pb2, ecarte_pb2):
        for message in module.DESCRIPTOR.message_types_by_name.values():
            if message.name.endswith(("State", "Seat")):
                used |= {kinds[f.type] for f in message.fields if f.name in card_fields}
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if p.startswith("Cards inside states"))
    assert used == {"`bytes`", "`uint64`"}, used
    for kind in used:
        assert kind in paragraph, f"docs/api.md does not say that states carry cards as {kind}"


def test_the_settings_table_lists_every_serve_flag_with_its_variable() -> None:
    """docs/operations.md's settings table has a row for every flag of ``referee serve``
    (its ``--help``), with the flag's environment variable, and for the variables that
    have no flag (``REFEREE_SEAL_KEYS``)."""
    from referee import cli

    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = text[text.index("| flag | environment | default | meaning |") :].split("\n\n")[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].startswith("**"):  # a group's title
            continue
        assert len(cells) == 4 and all(cells), f"docs/operations.md: a row of 4 cells: {line}"
        rows[cells[1]] = cells[0]
    serve = cli._parser().parse_args(["serve"]).serve_parser
    flags = [a.option_strings[0] for a in serve._actions if a.option_strings and a.dest != "help"]
    assert len(flags) >= 30
    modes = {"--check-config"}  # no variable: a mode of the command, not a setting
    for flag in flags:
        env = "(none)" if flag in modes else "REFEREE_" + flag[2:].upper().replace("-", "_")
        assert rows.get(f"`{env}`" if flag not in modes else env) == f"`{flag}`", (
            f"docs/operations.md's settings table has no row `{flag}` | {env}"
        )
    assert rows.get("`REFEREE_SEAL_KEYS`") == "(no flag)"
