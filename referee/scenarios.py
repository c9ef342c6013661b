"""Scenario files: games written by hand as data, refereed and checked.

A scenario is a JSON file (format in docs/scenarios.md)::

    {
      "name": "...", "description": "...", "rules": ["C-PLAY-3", ...],
      "rulesVersion": "earl_of_coventry/1",
      "config": {"earlOfCoventry": {"seats": 3, "firstDealer": 0}},
      "seed": "<64 hex digits>",
      "start": {"events": [...], "scoreboard": {...}},
      "steps": [
        {"action": {...}, "verdict": "VERDICT_ACCEPTED", "violations": ["CODE", ...],
         "events": [...], "scoreboard": {...}, "view": {"viewer": {...}, "expect": {...}}}
      ],
      "final": {"scoreboard": {...}, "stateHash": "<hex>"}
    }

``config``, ``action``, ``events`` and ``scoreboard`` use the protobuf JSON
mapping of referee.v1 (camelCase names, enum names as strings). Anywhere a
``Card`` is expected, a card may be written in the rulebook notation
(``"QS"``, ``"10H"``). Expected ``events`` are compared exactly (the public
events of the step, in order); ``scoreboard`` and view expectations are
partial: only the fields written are compared.

:func:`run` referees a scenario in-process (the service's own code path) or
through a running server (any object with the stub's methods).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from google.protobuf import json_format
from google.protobuf.message import Message

from referee.cards import parse as parse_card
from referee.v1 import common_pb2, referee_pb2

_CARD_KEYS = {"card", "cards", "hand", "played", "trick", "discards", "drawn", "turnUp"}


class Backend(Protocol):
    def NewGame(self, request: referee_pb2.NewGameRequest) -> referee_pb2.NewGameResponse: ...

    def ApplyAction(
        self, request: referee_pb2.ApplyActionRequest
    ) -> referee_pb2.ApplyActionResponse: ...

    def ViewState(self, request: referee_pb2.ViewStateRequest) -> referee_pb2.ViewStateResponse: ...

    def Replay(self, request: referee_pb2.ReplayRequest) -> referee_pb2.ReplayResponse: ...


class InProcess:
    """The Referee's RPCs called directly (no transport)."""

    def __init__(self) -> None:
        from referee.codec import all_codecs
        from referee.service import Referee

        self.referee = Referee(all_codecs())

    def NewGame(self, request: referee_pb2.NewGameRequest) -> referee_pb2.NewGameResponse:
        return self.referee.new_game(request)

    def ApplyAction(
        self, request: referee_pb2.ApplyActionRequest
    ) -> referee_pb2.ApplyActionResponse:
        return self.referee.apply_action(request)

    def ViewState(self, request: referee_pb2.ViewStateRequest) -> referee_pb2.ViewStateResponse:
        return self.referee.view_state(request)

    def Replay(self, request: referee_pb2.ReplayRequest) -> referee_pb2.ReplayResponse:
        return self.referee.replay(request)


def _cards_expanded(value: Any, key: str = "") -> Any:
    """Replace rulebook card notation by Card JSON objects where a Card is expected."""
    if isinstance(value, dict):
        return {k: _cards_expanded(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_cards_expanded(v, key) for v in value]
    if isinstance(value, str) and key in _CARD_KEYS:
        try:
            code = parse_card(value)
        except ValueError:
            return value
        return {"suit": common_suit(code), "rank": common_rank(code)}
    return value


def common_suit(code: int) -> str:
    return ("SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES")[code // 13]


def common_rank(code: int) -> str:
    from referee.v1 import cards_pb2

    return cards_pb2.Rank.Name(code % 13 + 1)


def _json_names(value: Any, descriptor: Any) -> Any:
    """``value`` (JSON data of a message of ``descriptor``) with every field written by
    its proto name (``cards_in_hand``) renamed to its JSON name (``cardsInHand``), as
    protobuf's JSON parser accepts both: the partial comparison and the card notation
    go by the JSON names."""
    if isinstance(value, list):
        return [_json_names(v, descriptor) for v in value]
    if not isinstance(value, dict) or descriptor is None:
        return value
    out: dict[str, Any] = {}
    for key, v in value.items():
        f = descriptor.fields_by_name.get(key)
        if f is None:
            f = next((g for g in descriptor.fields if g.json_name == key), None)
        if f is None:
            out[key] = v  # not a field: ParseDict names it
        else:
            out[f.json_name] = _json_names(v, f.message_type)
    return out


def _parse(message: Message, data: Any) -> Message:
    return json_format.ParseDict(_cards_expanded(_json_names(data, message.DESCRIPTOR)), message)


def _as_dict(message: Message) -> Any:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _partial(expected: Any, actual: Message, path: str) -> list[str]:
    """Mismatches of ``actual`` with the fields written in ``expected`` (JSON data)."""
    normal = _as_dict(_parse(type(actual)(), expected))
    raw = _cards_expanded(_json_names(expected, actual.DESCRIPTOR))
    return _partial_mismatch(_restrict(raw, normal), _as_dict(actual), path)


def _restrict(raw: Any, normal: Any) -> Any:
    """``normal`` cut down to the keys ``raw`` writes (values in the normal JSON form)."""
    if isinstance(raw, dict) and isinstance(normal, dict):
        return {k: _restrict(v, normal.get(k)) for k, v in raw.items()}
    if isinstance(raw, list) and isinstance(normal, list) and len(raw) == len(normal):
        return [_restrict(r, n) for r, n in zip(raw, normal, strict=True)]
    return normal


def _partial_mismatch(expected: Any, actual: Any, path: str) -> list[str]:
    """Where ``actual`` differs from ``expected`` on the fields ``expected`` names."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out: list[str] = []
        for k, v in expected.items():
            out += _partial_mismatch(v, actual.get(k), f"{path}.{k}" if path else k)
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out += _partial_mismatch(e, a, f"{path}[{i}]")
        return out
    if expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


@dataclass
class Result:
    name: str
    path: str
    failures: list[str] = field(default_factory=list)
    steps: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


# The fields of each part of a scenario (docs/scenarios.md): any other key, a misspelt
# expectation ("ruleIDs", "scoreBoard"), would be silently left unchecked.
_FIELDS = {
    "": {
        "name",
        "description",
        "rules",
        "rulesVersion",
        "config",
        "seed",
        "start",
        "steps",
        "final",
    },
    "start": {"events", "scoreboard"},
    "step": {"action", "verdict", "violations", "ruleIds", "events", "scoreboard", "view"},
    "view": {"viewer", "expect"},
    "final": {"scoreboard", "stateHash"},
}


def _fields(value: Any, part: str, where: str) -> dict[str, Any]:
    """``value`` when it is an object of the fields ``part`` has; else ValueError."""
    name = where or "the scenario"
    if not isinstance(value, dict):
        raise ValueError(f"{name} must be a JSON object, not {type(value).__name__}")
    unknown = sorted(set(value) - _FIELDS[part])
    if unknown:
        raise ValueError(
            f"{name} has no field {', '.join(map(repr, unknown))} "
            f"(its fields: {', '.join(sorted(_FIELDS[part]))})"
        )
    return value


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def run(scenario: dict[str, Any], backend: Backend, path: str = "") -> Result:
    """Referee one scenario and compare every expectation it writes down."""
    _fields(scenario, "", "")
    _fields(scenario.get("start", {}), "start", "start")
    steps = scenario.get("steps", [])
    if not isinstance(steps, list):
        raise ValueError("steps must be a JSON list")
    for i, step in enumerate(steps):
        _fields(step, "step", f"steps[{i}]")
        if "view" in step:
            _fields(step["view"], "view", f"steps[{i}].view")
    _fields(scenario.get("final", {}), "final", "final")
    result = Result(scenario.get("name", path), path)
    fail = result.failures.append
    config = _parse(referee_pb2.GameConfig(), scenario["config"])
    seed = bytes.fromhex(scenario["seed"])
    request = referee_pb2.NewGameRequest(config=config, seed=seed)  # type: ignore[arg-type]
    version = scenario.get("rulesVersion")
    if version is not None:  # the public view says which version the game started under
        request.views.add(public=common_pb2.PublicViewer())
    start = backend.NewGame(request)
    if version is not None and start.views[0].rules_version != version:
        # Every expectation after it may fail for that reason alone: said first.
        fail(
            f"start: the game started under rules {start.views[0].rules_version}, "
            f"the scenario is written for {version}"
        )
    _check_common(scenario.get("start", {}), start.events, start.scoreboard, "start", fail)
    # The state as the referee returned it: plain, or sealed by a server with a key.
    state, sealed = start.state, start.sealed_state
    actions = []
    for i, step in enumerate(scenario.get("steps", [])):
        where = f"steps[{i}]"
        action = _parse(referee_pb2.Action(), step["action"])
        actions.append(action)
        reply = backend.ApplyAction(
            _carrying(referee_pb2.ApplyActionRequest(action=action), state, sealed)  # type: ignore[arg-type]
        )
        result.steps += 1
        want = step.get("verdict", "VERDICT_ACCEPTED")
        got = common_pb2.Verdict.Name(reply.verdict)
        if got != want:
            fail(
                f"{where}: verdict {got}, expected {want} "
                f"({', '.join(v.code + ' ' + v.rule_id for v in reply.violations)})"
            )
        if "violations" in step:
            codes = [v.code for v in reply.violations]
            if codes != step["violations"]:
                fail(f"{where}: violations {codes}, expected {step['violations']}")
        if "ruleIds" in step:
            ids = [v.rule_id for v in reply.violations]
            if ids != step["ruleIds"]:
                fail(f"{where}: rule ids {ids}, expected {step['ruleIds']}")
        _check_common(step, reply.events, reply.scoreboard, where, fail)
        state, sealed = reply.state, reply.sealed_state
        if "view" in step:
            viewer = _parse(common_pb2.Viewer(), step["view"]["viewer"])
            view = backend.ViewState(
                _carrying(referee_pb2.ViewStateRequest(viewer=viewer), state, sealed)  # type: ignore[arg-type]
            ).view
            for m in _partial(step["view"]["expect"], view, f"{where}.view"):
                fail(m)
    final = scenario.get("final", {})
    replay = backend.Replay(
        referee_pb2.ReplayRequest(config=config, seed=seed, actions=actions)  # type: ignore[arg-type]
    )
    if actions and replay.final_hash != reply.state_hash:
        fail("final: Replay of the steps ends on another state than step-by-step play")
    if "scoreboard" in final:
        for m in _partial(final["scoreboard"], replay.scoreboard, "final.scoreboard"):
            fail(m)
    if "stateHash" in final and replay.final_hash.hex() != str(final["stateHash"]).lower():
        fail(f"final: state hash {replay.final_hash.hex()}, expected {final['stateHash']}")
    return result


def _carrying(request: Any, state: referee_pb2.GameState, sealed: bytes) -> Any:
    """``request`` with the state sent back as it came: the sealed token if any."""
    if sealed:
        request.sealed_state = sealed
    else:
        request.state.CopyFrom(state)
    return request


def _check_common(
    expect: dict[str, Any],
    events: Iterable[referee_pb2.Event],
    scoreboard: common_pb2.Scoreboard,
    where: str,
    fail: Any,
) -> None:
    if "events" in expect:
        wanted = [_parse(referee_pb2.Event(), e) for e in expect["events"]]
        got = list(events)
        if got != wanted:
            fail(
                f"{where}: events differ\n  expected: {[_as_compact(e) for e in wanted]}\n"
                f"  got:      {[_as_compact(e) for e in got]}"
            )
    if "scoreboard" in expect:
        for m in _partial(expect["scoreboard"], scoreboard, f"{where}.scoreboard"):
            fail(m)


def _as_compact(message: Message) -> str:
    return json.dumps(compact(message), separators=(",", ":"), ensure_ascii=False)


def compact(message: Message) -> Any:
    """A message as JSON data with every Card written in rulebook notation."""
    return _cards_shortened(json_format.MessageToDict(message))


def _cards_shortened(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"suit", "rank"} and isinstance(value["suit"], str):
            from referee.cards import RANK_LABELS, SUIT_LETTERS

            suit = ("SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES").index(
                value["suit"]
            )
            rank = common_rank_index(value["rank"])
            return RANK_LABELS[rank] + SUIT_LETTERS[suit]
        return {k: _cards_shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cards_shortened(v) for v in value]
    return value


def common_rank_index(name: str) -> int:
    from referee.v1 import cards_pb2

    return int(cards_pb2.Rank.Value(name)) - 1


def run_files(paths: Iterable[Path], backend: Backend | None = None) -> list[Result]:
    backend = backend or InProcess()
    return [run(load(p), backend, str(p)) for p in paths]
