from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Verdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VERDICT_UNSPECIFIED: _ClassVar[Verdict]
    VERDICT_ACCEPTED: _ClassVar[Verdict]
    VERDICT_REJECTED: _ClassVar[Verdict]
    VERDICT_PENALIZED: _ClassVar[Verdict]
VERDICT_UNSPECIFIED: Verdict
VERDICT_ACCEPTED: Verdict
VERDICT_REJECTED: Verdict
VERDICT_PENALIZED: Verdict

class Violation(_message.Message):
    __slots__ = ("code", "message", "rule_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RULE_ID_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    rule_id: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., rule_id: _Optional[str] = ...) -> None: ...

class TableActor(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Actor(_message.Message):
    __slots__ = ("seat", "spectator", "table", "credential")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    spectator: str
    table: TableActor
    credential: bytes
    def __init__(self, seat: _Optional[int] = ..., spectator: _Optional[str] = ..., table: _Optional[_Union[TableActor, _Mapping]] = ..., credential: _Optional[bytes] = ...) -> None: ...

class PublicViewer(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Viewer(_message.Message):
    __slots__ = ("seat", "spectator", "public", "credential")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    spectator: str
    public: PublicViewer
    credential: bytes
    def __init__(self, seat: _Optional[int] = ..., spectator: _Optional[str] = ..., public: _Optional[_Union[PublicViewer, _Mapping]] = ..., credential: _Optional[bytes] = ...) -> None: ...

class Penalty(_message.Message):
    __slots__ = ("seat", "amount", "code", "rule_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    RULE_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    code: str
    rule_id: str
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., code: _Optional[str] = ..., rule_id: _Optional[str] = ...) -> None: ...

class SeatScore(_message.Message):
    __slots__ = ("seat", "points", "games_won", "rounds_won", "counters", "chips", "eliminated", "cards_in_hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_WON_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    CARDS_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    games_won: int
    rounds_won: int
    counters: int
    chips: int
    eliminated: bool
    cards_in_hand: int
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., games_won: _Optional[int] = ..., rounds_won: _Optional[int] = ..., counters: _Optional[int] = ..., chips: _Optional[int] = ..., eliminated: _Optional[bool] = ..., cards_in_hand: _Optional[int] = ...) -> None: ...

class SpectatorScore(_message.Message):
    __slots__ = ("spectator", "net", "open_wagers")
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    OPEN_WAGERS_FIELD_NUMBER: _ClassVar[int]
    spectator: str
    net: int
    open_wagers: int
    def __init__(self, spectator: _Optional[str] = ..., net: _Optional[int] = ..., open_wagers: _Optional[int] = ...) -> None: ...

class Scoreboard(_message.Message):
    __slots__ = ("seats", "finished", "winners", "pool", "spectators", "standings")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatScore]
    finished: bool
    winners: _containers.RepeatedScalarFieldContainer[int]
    pool: int
    spectators: _containers.RepeatedCompositeFieldContainer[SpectatorScore]
    standings: _containers.RepeatedCompositeFieldContainer[SeatGroup]
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., finished: _Optional[bool] = ..., winners: _Optional[_Iterable[int]] = ..., pool: _Optional[int] = ..., spectators: _Optional[_Iterable[_Union[SpectatorScore, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[SeatGroup, _Mapping]]] = ...) -> None: ...

class SeatGroup(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...
