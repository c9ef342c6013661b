from referee.v1 import common_pb2 as _common_pb2
from referee.v1 import earl_of_coventry_pb2 as _earl_of_coventry_pb2
from referee.v1 import ecarte_pb2 as _ecarte_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OptionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPTION_TYPE_UNSPECIFIED: _ClassVar[OptionType]
    OPTION_TYPE_BOOL: _ClassVar[OptionType]
    OPTION_TYPE_INTEGER: _ClassVar[OptionType]
    OPTION_TYPE_ENUM: _ClassVar[OptionType]
    OPTION_TYPE_STRING_LIST: _ClassVar[OptionType]
OPTION_TYPE_UNSPECIFIED: OptionType
OPTION_TYPE_BOOL: OptionType
OPTION_TYPE_INTEGER: OptionType
OPTION_TYPE_ENUM: OptionType
OPTION_TYPE_STRING_LIST: OptionType

class GameConfig(_message.Message):
    __slots__ = ("ecarte", "earl_of_coventry")
    ECARTE_FIELD_NUMBER: _ClassVar[int]
    EARL_OF_COVENTRY_FIELD_NUMBER: _ClassVar[int]
    ecarte: _ecarte_pb2.EcarteConfig
    earl_of_coventry: _earl_of_coventry_pb2.EarlOfCoventryConfig
    def __init__(self, ecarte: _Optional[_Union[_ecarte_pb2.EcarteConfig, _Mapping]] = ..., earl_of_coventry: _Optional[_Union[_earl_of_coventry_pb2.EarlOfCoventryConfig, _Mapping]] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("rules_version", "version", "parent_hash", "seed", "seat_entropy", "ecarte", "earl_of_coventry")
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PARENT_HASH_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    ECARTE_FIELD_NUMBER: _ClassVar[int]
    EARL_OF_COVENTRY_FIELD_NUMBER: _ClassVar[int]
    rules_version: str
    version: int
    parent_hash: bytes
    seed: bytes
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    ecarte: _ecarte_pb2.EcarteState
    earl_of_coventry: _earl_of_coventry_pb2.EarlOfCoventryState
    def __init__(self, rules_version: _Optional[str] = ..., version: _Optional[int] = ..., parent_hash: _Optional[bytes] = ..., seed: _Optional[bytes] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., ecarte: _Optional[_Union[_ecarte_pb2.EcarteState, _Mapping]] = ..., earl_of_coventry: _Optional[_Union[_earl_of_coventry_pb2.EarlOfCoventryState, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("actor", "ecarte", "earl_of_coventry")
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ECARTE_FIELD_NUMBER: _ClassVar[int]
    EARL_OF_COVENTRY_FIELD_NUMBER: _ClassVar[int]
    actor: _common_pb2.Actor
    ecarte: _ecarte_pb2.EcarteAction
    earl_of_coventry: _earl_of_coventry_pb2.EarlOfCoventryAction
    def __init__(self, actor: _Optional[_Union[_common_pb2.Actor, _Mapping]] = ..., ecarte: _Optional[_Union[_ecarte_pb2.EcarteAction, _Mapping]] = ..., earl_of_coventry: _Optional[_Union[_earl_of_coventry_pb2.EarlOfCoventryAction, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("ecarte", "earl_of_coventry")
    ECARTE_FIELD_NUMBER: _ClassVar[int]
    EARL_OF_COVENTRY_FIELD_NUMBER: _ClassVar[int]
    ecarte: _ecarte_pb2.EcarteEvent
    earl_of_coventry: _earl_of_coventry_pb2.EarlOfCoventryEvent
    def __init__(self, ecarte: _Optional[_Union[_ecarte_pb2.EcarteEvent, _Mapping]] = ..., earl_of_coventry: _Optional[_Union[_earl_of_coventry_pb2.EarlOfCoventryEvent, _Mapping]] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("viewer", "rules_version", "version", "seed_commitment", "seed", "events", "seat_entropy", "ecarte", "earl_of_coventry")
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    ECARTE_FIELD_NUMBER: _ClassVar[int]
    EARL_OF_COVENTRY_FIELD_NUMBER: _ClassVar[int]
    viewer: _common_pb2.Viewer
    rules_version: str
    version: int
    seed_commitment: bytes
    seed: bytes
    events: _containers.RepeatedCompositeFieldContainer[Event]
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    ecarte: _ecarte_pb2.EcarteView
    earl_of_coventry: _earl_of_coventry_pb2.EarlOfCoventryView
    def __init__(self, viewer: _Optional[_Union[_common_pb2.Viewer, _Mapping]] = ..., rules_version: _Optional[str] = ..., version: _Optional[int] = ..., seed_commitment: _Optional[bytes] = ..., seed: _Optional[bytes] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., ecarte: _Optional[_Union[_ecarte_pb2.EcarteView, _Mapping]] = ..., earl_of_coventry: _Optional[_Union[_earl_of_coventry_pb2.EarlOfCoventryView, _Mapping]] = ...) -> None: ...

class GameOption(_message.Message):
    __slots__ = ("name", "description", "type", "default_value", "min", "max", "choices", "rule_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    RULE_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    type: OptionType
    default_value: str
    min: int
    max: int
    choices: _containers.RepeatedScalarFieldContainer[str]
    rule_id: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[_Union[OptionType, str]] = ..., default_value: _Optional[str] = ..., min: _Optional[int] = ..., max: _Optional[int] = ..., choices: _Optional[_Iterable[str]] = ..., rule_id: _Optional[str] = ...) -> None: ...

class OptionSetting(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class GameVariant(_message.Message):
    __slots__ = ("id", "title", "rule_id", "description", "settings")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    RULE_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    rule_id: str
    description: str
    settings: _containers.RepeatedCompositeFieldContainer[OptionSetting]
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., rule_id: _Optional[str] = ..., description: _Optional[str] = ..., settings: _Optional[_Iterable[_Union[OptionSetting, _Mapping]]] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("id", "title", "rules_version", "rules_document", "description", "min_seats", "max_seats", "options", "variants", "other_rules_versions")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    OTHER_RULES_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    rules_version: str
    rules_document: str
    description: str
    min_seats: int
    max_seats: int
    options: _containers.RepeatedCompositeFieldContainer[GameOption]
    variants: _containers.RepeatedCompositeFieldContainer[GameVariant]
    other_rules_versions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., rules_version: _Optional[str] = ..., rules_document: _Optional[str] = ..., description: _Optional[str] = ..., min_seats: _Optional[int] = ..., max_seats: _Optional[int] = ..., options: _Optional[_Iterable[_Union[GameOption, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[GameVariant, _Mapping]]] = ..., other_rules_versions: _Optional[_Iterable[str]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "server_version")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    server_version: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ..., server_version: _Optional[str] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("config", "seed", "seat_entropy", "views")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    VIEWS_FIELD_NUMBER: _ClassVar[int]
    config: GameConfig
    seed: bytes
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    views: _containers.RepeatedCompositeFieldContainer[_common_pb2.Viewer]
    def __init__(self, config: _Optional[_Union[GameConfig, _Mapping]] = ..., seed: _Optional[bytes] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., views: _Optional[_Iterable[_Union[_common_pb2.Viewer, _Mapping]]] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("state", "sealed_state", "state_hash", "events", "views", "scoreboard", "seed_commitment", "seat_credentials", "table_credential")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEWS_FIELD_NUMBER: _ClassVar[int]
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEAT_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    TABLE_CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    sealed_state: bytes
    state_hash: bytes
    events: _containers.RepeatedCompositeFieldContainer[Event]
    views: _containers.RepeatedCompositeFieldContainer[GameView]
    scoreboard: _common_pb2.Scoreboard
    seed_commitment: bytes
    seat_credentials: _containers.RepeatedScalarFieldContainer[bytes]
    table_credential: bytes
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., state_hash: _Optional[bytes] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., views: _Optional[_Iterable[_Union[GameView, _Mapping]]] = ..., scoreboard: _Optional[_Union[_common_pb2.Scoreboard, _Mapping]] = ..., seed_commitment: _Optional[bytes] = ..., seat_credentials: _Optional[_Iterable[bytes]] = ..., table_credential: _Optional[bytes] = ...) -> None: ...

class ApplyActionRequest(_message.Message):
    __slots__ = ("state", "sealed_state", "action", "views")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    VIEWS_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    sealed_state: bytes
    action: Action
    views: _containers.RepeatedCompositeFieldContainer[_common_pb2.Viewer]
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., views: _Optional[_Iterable[_Union[_common_pb2.Viewer, _Mapping]]] = ...) -> None: ...

class ApplyActionResponse(_message.Message):
    __slots__ = ("verdict", "violations", "penalties", "state", "sealed_state", "state_hash", "events", "views", "scoreboard")
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEWS_FIELD_NUMBER: _ClassVar[int]
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    verdict: _common_pb2.Verdict
    violations: _containers.RepeatedCompositeFieldContainer[_common_pb2.Violation]
    penalties: _containers.RepeatedCompositeFieldContainer[_common_pb2.Penalty]
    state: GameState
    sealed_state: bytes
    state_hash: bytes
    events: _containers.RepeatedCompositeFieldContainer[Event]
    views: _containers.RepeatedCompositeFieldContainer[GameView]
    scoreboard: _common_pb2.Scoreboard
    def __init__(self, verdict: _Optional[_Union[_common_pb2.Verdict, str]] = ..., violations: _Optional[_Iterable[_Union[_common_pb2.Violation, _Mapping]]] = ..., penalties: _Optional[_Iterable[_Union[_common_pb2.Penalty, _Mapping]]] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., state_hash: _Optional[bytes] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., views: _Optional[_Iterable[_Union[GameView, _Mapping]]] = ..., scoreboard: _Optional[_Union[_common_pb2.Scoreboard, _Mapping]] = ...) -> None: ...

class LegalActionsRequest(_message.Message):
    __slots__ = ("state", "sealed_state", "actor")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    sealed_state: bytes
    actor: _common_pb2.Actor
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., actor: _Optional[_Union[_common_pb2.Actor, _Mapping]] = ...) -> None: ...

class LegalActionsResponse(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class ViewStateRequest(_message.Message):
    __slots__ = ("state", "sealed_state", "viewer")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    sealed_state: bytes
    viewer: _common_pb2.Viewer
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., viewer: _Optional[_Union[_common_pb2.Viewer, _Mapping]] = ...) -> None: ...

class ViewStateResponse(_message.Message):
    __slots__ = ("view", "scoreboard", "state_hash")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    scoreboard: _common_pb2.Scoreboard
    state_hash: bytes
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ..., scoreboard: _Optional[_Union[_common_pb2.Scoreboard, _Mapping]] = ..., state_hash: _Optional[bytes] = ...) -> None: ...

class ReplayRequest(_message.Message):
    __slots__ = ("config", "seed", "seat_entropy", "actions", "include_events", "include_log", "rules_version")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LOG_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    config: GameConfig
    seed: bytes
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    include_events: bool
    include_log: bool
    rules_version: str
    def __init__(self, config: _Optional[_Union[GameConfig, _Mapping]] = ..., seed: _Optional[bytes] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., include_events: _Optional[bool] = ..., include_log: _Optional[bool] = ..., rules_version: _Optional[str] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("index", "verdict", "violations", "penalties", "state_hash", "events")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    index: int
    verdict: _common_pb2.Verdict
    violations: _containers.RepeatedCompositeFieldContainer[_common_pb2.Violation]
    penalties: _containers.RepeatedCompositeFieldContainer[_common_pb2.Penalty]
    state_hash: bytes
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, index: _Optional[int] = ..., verdict: _Optional[_Union[_common_pb2.Verdict, str]] = ..., violations: _Optional[_Iterable[_Union[_common_pb2.Violation, _Mapping]]] = ..., penalties: _Optional[_Iterable[_Union[_common_pb2.Penalty, _Mapping]]] = ..., state_hash: _Optional[bytes] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class ReplayResponse(_message.Message):
    __slots__ = ("initial_hash", "steps", "final_state", "sealed_state", "final_hash", "scoreboard", "log")
    INITIAL_HASH_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATE_FIELD_NUMBER: _ClassVar[int]
    SEALED_STATE_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    initial_hash: bytes
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    final_state: GameState
    sealed_state: bytes
    final_hash: bytes
    scoreboard: _common_pb2.Scoreboard
    log: GameLog
    def __init__(self, initial_hash: _Optional[bytes] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ..., final_state: _Optional[_Union[GameState, _Mapping]] = ..., sealed_state: _Optional[bytes] = ..., final_hash: _Optional[bytes] = ..., scoreboard: _Optional[_Union[_common_pb2.Scoreboard, _Mapping]] = ..., log: _Optional[_Union[GameLog, _Mapping]] = ...) -> None: ...

class GameLog(_message.Message):
    __slots__ = ("rules_version", "config", "seed", "seat_entropy", "seed_commitment", "initial_hash", "entries", "final_hash")
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_HASH_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    rules_version: str
    config: GameConfig
    seed: bytes
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    seed_commitment: bytes
    initial_hash: bytes
    entries: _containers.RepeatedCompositeFieldContainer[GameLogEntry]
    final_hash: bytes
    def __init__(self, rules_version: _Optional[str] = ..., config: _Optional[_Union[GameConfig, _Mapping]] = ..., seed: _Optional[bytes] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., seed_commitment: _Optional[bytes] = ..., initial_hash: _Optional[bytes] = ..., entries: _Optional[_Iterable[_Union[GameLogEntry, _Mapping]]] = ..., final_hash: _Optional[bytes] = ...) -> None: ...

class GameLogEntry(_message.Message):
    __slots__ = ("action", "verdict", "violations", "state_hash")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    action: Action
    verdict: _common_pb2.Verdict
    violations: _containers.RepeatedScalarFieldContainer[str]
    state_hash: bytes
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., verdict: _Optional[_Union[_common_pb2.Verdict, str]] = ..., violations: _Optional[_Iterable[str]] = ..., state_hash: _Optional[bytes] = ...) -> None: ...
