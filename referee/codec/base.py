"""What each game's codec provides: protobuf <-> rules objects, at the edge only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from referee.v1 import referee_pb2


class GameCodec(Protocol):
    """Converts one game's messages. ``game_id`` is also the name of its ``oneof`` case
    in every envelope (GameConfig, GameState, Action, Event, GameView)."""

    game_id: str
    rules: Any

    def decode_config(self, msg: referee_pb2.GameConfig, path: str) -> Any:
        """The rules configuration (defaults filled in, ranges checked)."""
        ...

    def seat_count_of_config(self, config: Any) -> int:
        """The number of seats a configuration has."""
        ...

    def seat_count(self, state: Any) -> int: ...

    def decode_state(
        self, msg: referee_pb2.GameState, seed: bytes, path: str, data: bytes | None = None
    ) -> Any:
        """The rules state of ``msg`` (checked with ``rules.validate``); ``seed`` is the
        effective seed of the game; ``data``, when given, is ``msg``'s canonical
        serialization (``SerializeToString(deterministic=True)``), which the codec reads
        instead of serializing ``msg`` again."""
        ...

    def encode_state(self, state: Any, out: referee_pb2.GameState) -> None: ...

    def widen_hidden(self, out: referee_pb2.GameState) -> None:
        """Set every hidden card set of the encoded state ``out`` that holds a card (hands,
        discards) to every card: its serialization then has the length of the state with
        its hidden cards at their widest, which public information alone decides (whether
        a set is empty is public: card counts are). A sealed token's plaintext is padded
        to that length (docs/trust.md), so that its length tells nothing of hidden cards."""
        ...

    def encode_successor(self, previous: Any, state: Any, out: referee_pb2.GameState) -> None:
        """Given ``out`` holding a copy of the encoded ``previous`` state (as decoded from a
        request: canonical), make it the encoding of ``state``, byte for byte what
        :meth:`encode_state` writes (the hot path: only what changed is written)."""
        ...

    def decode_action(self, msg: referee_pb2.Action, state: Any, path: str) -> Any: ...

    def encode_action(self, action: Any, out: referee_pb2.Action) -> None: ...

    def action_bytes(self, action: Any) -> bytes:
        """``action`` as a serialized ``referee.v1.Action`` (what :meth:`encode_action`
        writes, deterministic); remembered, actions repeat."""
        ...

    def encode_events(
        self, events: Sequence[Any], out: RepeatedCompositeFieldContainer[referee_pb2.Event]
    ) -> None: ...

    def encode_view(self, view: Any, out: referee_pb2.GameView) -> None: ...

    def game_info(self, out: referee_pb2.GameInfo) -> None: ...
