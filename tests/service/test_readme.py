"""The README's quickstart runs as written against a real server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from ..server_thread import ServerThread

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_quickstart_runs(server: ServerThread) -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "the README has a Python quickstart"
    code = blocks[0].replace("localhost:50051", server.address)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = out.getvalue()
    assert "seat 0 holds:" in printed
    assert printed.count("VERDICT_ACCEPTED") == 6
    assert "VERDICT_REJECTED [('NOT_YOUR_TURN', 'C-ILL-1')" in printed
