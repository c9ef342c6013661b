"""The Prometheus alerting rules (deploy/prometheus/referee-alerts.yaml): valid for
promtool, each alert shown firing and not firing by the unit tests
(referee-alerts.test.yaml), a broken expression failing them, every metric and label
they use exported by a real ``referee serve``, every runbook link a heading of
docs/operations.md.

promtool comes from Debian's ``prometheus`` package, unpacked and not installed, by
``scripts/install-promtool.sh`` (``.ci/run`` runs it, through
``scripts/install-client-deps.sh``). A missing promtool fails these tests, never skips
them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from ..test_docs import anchors
from .helpers import CONFIG, SEED, Served, exposition, long_replay, sample, samples_of, wait_until

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "deploy" / "prometheus"
RULES = RULES_DIR / "referee-alerts.yaml"
UNIT_TESTS = RULES_DIR / "referee-alerts.test.yaml"
OPERATIONS = ROOT / "docs" / "operations.md"
INSTALL = "run scripts/install-promtool.sh (Debian, as root; CI does), or set PROMTOOL"

# Labels a series gets from Prometheus's scrape (the target's), not from the server.
TARGET_LABELS = {"job", "instance", "namespace", "pod"}
# Series Prometheus makes itself for each target.
PROMETHEUS_SERIES = {"up"}


def promtool() -> str:
    """``$PROMTOOL``, else ``$PROMTOOL_DIR/promtool`` (default ``/opt/promtool``, where
    scripts/install-promtool.sh puts it), else ``promtool`` on the PATH. Missing: the
    test fails."""
    given = os.environ.get("PROMTOOL")
    if given:
        if not os.access(given, os.X_OK):
            pytest.fail(f"PROMTOOL={given} is not an executable file: {INSTALL}", pytrace=False)
        return given
    installed = Path(os.environ.get("PROMTOOL_DIR", "/opt/promtool")) / "promtool"
    if os.access(installed, os.X_OK):
        return str(installed)
    found = shutil.which("promtool")
    if found is None:
        pytest.fail(f"promtool is missing (not {installed}, not on PATH): {INSTALL}", pytrace=False)
    return found


def run_promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [promtool(), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def rule_groups(path: Path = RULES) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
    return groups


def alerts() -> list[dict[str, Any]]:
    return [rule for group in rule_groups() for rule in group["rules"] if "alert" in rule]


ALERT_NAMES = [rule["alert"] for rule in alerts()]


# ------------------------------------------------------------------ promtool


def test_promtool_checks_the_rules() -> None:
    result = run_promtool("check", "rules", RULES.name, cwd=RULES_DIR)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert f"SUCCESS: {sum(len(g['rules']) for g in rule_groups())} rules found" in out, out


def test_promtool_unit_tests_pass() -> None:
    result = run_promtool("test", "rules", UNIT_TESTS.name, cwd=RULES_DIR)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "SUCCESS" in out, out


def test_every_alert_is_tested_firing_and_not_firing() -> None:
    """Each alert has at least one evaluation where it fires and one where it does not:
    an expression that always or never fires fails a test."""
    spec = yaml.safe_load(UNIT_TESTS.read_text(encoding="utf-8"))
    assert spec["rule_files"] == [RULES.name]
    firing: set[str] = set()
    silent: set[str] = set()
    for group in spec["tests"]:
        for case in group.get("alert_rule_test", []):
            (firing if case.get("exp_alerts") else silent).add(case["alertname"])
    assert len(ALERT_NAMES) >= 7, ALERT_NAMES
    assert set(ALERT_NAMES) == firing, "alerts never shown firing (or not alerts)"
    assert set(ALERT_NAMES) == silent, "alerts never shown not firing (or not alerts)"


@pytest.mark.parametrize("broken", ["vector(1)", "vector(1) < 0"], ids=["always", "never"])
@pytest.mark.parametrize("name", ALERT_NAMES)
def test_a_broken_expression_fails_the_unit_tests(name: str, broken: str, tmp_path: Path) -> None:
    """The unit tests catch an alert whose expression always fires (``vector(1)``) or
    never fires (``vector(1) < 0``)."""
    groups = rule_groups()
    for group in groups:
        for rule in group["rules"]:
            if rule.get("alert") == name:
                rule["expr"] = broken
    (tmp_path / RULES.name).write_text(yaml.safe_dump({"groups": groups}), encoding="utf-8")
    shutil.copy(UNIT_TESTS, tmp_path / UNIT_TESTS.name)
    result = run_promtool("test", "rules", UNIT_TESTS.name, cwd=tmp_path)
    out = result.stdout + result.stderr
    failed = set(re.findall(r"alertname: (\w+), time:", out))
    assert result.returncode != 0 and name in failed, f"{name} broken, yet: {out[-2000:]}"


# ------------------------------------------------------------------ the file's shape


def test_the_rules_are_a_plain_rules_file_and_a_prometheusrule_spec() -> None:
    """Top level ``groups`` only (so it pastes under a PrometheusRule's ``spec:``); each
    alert with a ``for``, a severity, a summary, a description and a runbook link."""
    spec = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    assert set(spec) == {"groups"}
    for group in spec["groups"]:
        assert set(group) <= {"name", "interval", "rules"}, group.keys()
        for rule in group["rules"]:
            assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule
            assert re.fullmatch(r"(0|(\d+[smhd])+)", rule["for"]), rule["for"]
            assert rule["labels"]["severity"] in {"critical", "warning"}, rule
            assert set(rule["annotations"]) == {"summary", "description", "runbook_url"}, rule
    assert len(ALERT_NAMES) == len(set(ALERT_NAMES))


def test_every_runbook_link_is_a_heading_of_the_operations_doc() -> None:
    have = anchors(OPERATIONS.read_text(encoding="utf-8"))
    assert "alerts" in have
    for rule in alerts():
        path, _, anchor = rule["annotations"]["runbook_url"].partition("#")
        assert path == "docs/operations.md", rule["alert"]
        assert anchor == rule["alert"].lower(), rule["alert"]  # the alert's own heading
        assert anchor in have, f"{rule['alert']}: no heading #{anchor} in docs/operations.md"


# ------------------------------------------------------------------ against a real server

_KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring"}
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_SELECTOR = re.compile(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?\s*(\(?)")
_MATCHER = re.compile(r'([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"([^"]*)"')


def used_in(expr: str) -> tuple[list[tuple[str, list[tuple[str, str, str]]]], set[str]]:
    """The series selectors of a PromQL expression, as (metric name, label matchers),
    and the label names its ``by``/``on``/... clauses name."""
    grouping = {
        label.strip()
        for _, labels in _GROUPING.findall(expr)
        for label in labels.split(",")
        if label.strip()
    }
    rest = _GROUPING.sub(" ", expr)
    rest = re.sub(r"\[[^\]]*\]", " ", rest)  # range durations
    rest = re.sub(r"\boffset\s+\w+", " ", rest)
    selectors = []
    for name, matchers, call in _SELECTOR.findall(rest):
        if call or name in _KEYWORDS:  # a function or aggregation, or a keyword
            continue
        selectors.append((name, _MATCHER.findall(matchers)))
    return selectors, grouping


def test_the_expression_parser_finds_names_and_labels() -> None:
    selectors, grouping = used_in(
        'sum by (job, le) (rate(a_total{code=~"X|Y", m!="R"}[5m])) / b unless c offset 10m'
        " and on (instance) max_over_time(d[1d]) > 0.5"
    )
    assert selectors == [
        ("a_total", [("code", "=~", "X|Y"), ("m", "!=", "R")]),
        ("b", []),
        ("c", []),
        ("d", []),
    ]
    assert grouping == {"job", "le", "instance"}


def _serve_and_call() -> str:
    """The exposition of ``referee serve --workers 2`` (a supervisor, two workers and
    the metrics process summing them, as the container runs) after calls of each method,
    a refused one among them."""
    server = Served("--workers", "2", "--metrics-port", "0", "--metrics-host", "127.0.0.1")
    try:
        started = server.wait_for("supervisor_started")
        port = started["metrics_port"]
        server.wait_for("supervisor_ready")
        with grpc.insecure_channel(f"127.0.0.1:{started['port']}") as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
            assert stub.ListGames(pb.ListGamesRequest(), timeout=30).games
            game = stub.NewGame(pb.NewGameRequest(config=CONFIG, seed=SEED), timeout=30)
            legal = stub.LegalActions(pb.LegalActionsRequest(state=game.state), timeout=30)
            apply = pb.ApplyActionRequest(state=game.state, action=legal.actions[0])
            assert stub.ApplyAction(apply, timeout=30).verdict == 1
            assert len(stub.Replay(long_replay(3), timeout=30).steps) == 3
            with pytest.raises(grpc.RpcError) as refused:
                stub.NewGame(pb.NewGameRequest(), timeout=30)  # no game: INVALID_ARGUMENT
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT

        # A call is counted when its handler ends, which may be just after the client
        # has its answer: wait until all six are.
        def counted() -> str | None:
            text = exposition(port)
            return text if sample(samples_of(text), "referee_rpcs_total") >= 6 else None

        text = wait_until(counted, "the calls counted")
        assert server.terminate() == 0
    finally:
        server.close()
    return str(text)


def test_every_metric_and_label_the_alerts_use_is_exported() -> None:
    """Each metric an expression selects is in a real server's exposition after a few
    calls, with the labels its matchers and groupings name; the values matched of
    ``code`` are gRPC status codes and those of ``method`` methods the server counted:
    a renamed metric, label or method fails here."""
    text = _serve_and_call()
    exported: dict[str, set[str]] = {}  # sample name -> its label names
    values: dict[str, set[str]] = {}  # label name -> its values
    for key in samples_of(text):
        name, _, rest = key.partition("{")
        labels = dict(re.findall(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"', rest))
        exported.setdefault(name, set()).update(labels)
        for label, value in labels.items():
            values.setdefault(label, set()).add(value)
    codes = {code.name for code in grpc.StatusCode}
    checked = set()
    for rule in alerts():
        selectors, grouping = used_in(rule["expr"])
        assert selectors, rule["alert"]
        referee_labels: set[str] = set()
        for name, matchers in selectors:
            checked.add(name)
            if name in PROMETHEUS_SERIES:
                continue
            assert name in exported, f"{rule['alert']}: {name} is not exported"
            referee_labels |= exported[name]
            for label, op, value in matchers:
                where = f"{rule['alert']}: {name}{{{label}{op}{value!r}}}"
                assert label in exported[name] or label in TARGET_LABELS, where
                wanted = set(value.split("|")) if op.endswith("~") else {value}
                if label == "code":
                    assert wanted <= codes, where
                elif label == "method":
                    assert wanted <= values["method"], where
        unknown = grouping - referee_labels - TARGET_LABELS
        assert not unknown, f"{rule['alert']}: groups by labels no series has: {unknown}"
    assert {"referee_rpcs_total", "referee_rpc_duration_seconds_bucket", "up"} <= checked
