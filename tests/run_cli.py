"""The ``referee`` command run in the test's own process (``referee.cli.main``)."""

from __future__ import annotations

import pytest

from referee import cli


def referee(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``referee ARGV`` in this process: exit code, stdout, stderr."""
    try:
        code = cli.main(list(argv))
    except SystemExit as e:  # argparse's usage errors
        code = e.code if isinstance(e.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err
