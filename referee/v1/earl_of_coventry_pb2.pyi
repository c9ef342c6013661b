from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EarlOfCoventryCallStyle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EARL_OF_COVENTRY_CALL_STYLE_UNSPECIFIED: _ClassVar[EarlOfCoventryCallStyle]
    EARL_OF_COVENTRY_CALL_STYLE_EARL: _ClassVar[EarlOfCoventryCallStyle]
    EARL_OF_COVENTRY_CALL_STYLE_SNIP_SNAP_SNORUM: _ClassVar[EarlOfCoventryCallStyle]
    EARL_OF_COVENTRY_CALL_STYLE_SILENT: _ClassVar[EarlOfCoventryCallStyle]
    EARL_OF_COVENTRY_CALL_STYLE_CUSTOM: _ClassVar[EarlOfCoventryCallStyle]

class EarlOfCoventryScoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EARL_OF_COVENTRY_SCORING_UNSPECIFIED: _ClassVar[EarlOfCoventryScoring]
    EARL_OF_COVENTRY_SCORING_SIMPLE: _ClassVar[EarlOfCoventryScoring]
    EARL_OF_COVENTRY_SCORING_COUNTERS: _ClassVar[EarlOfCoventryScoring]
    EARL_OF_COVENTRY_SCORING_ELIMINATION: _ClassVar[EarlOfCoventryScoring]

class EarlOfCoventryPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EARL_OF_COVENTRY_PHASE_UNSPECIFIED: _ClassVar[EarlOfCoventryPhase]
    EARL_OF_COVENTRY_PHASE_PLAYING: _ClassVar[EarlOfCoventryPhase]
    EARL_OF_COVENTRY_PHASE_BETWEEN_ROUNDS: _ClassVar[EarlOfCoventryPhase]
    EARL_OF_COVENTRY_PHASE_SESSION_OVER: _ClassVar[EarlOfCoventryPhase]

class EarlOfCoventryCutShortReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EARL_OF_COVENTRY_CUT_SHORT_REASON_UNSPECIFIED: _ClassVar[EarlOfCoventryCutShortReason]
    EARL_OF_COVENTRY_CUT_SHORT_REASON_NO_HOLDER: _ClassVar[EarlOfCoventryCutShortReason]
    EARL_OF_COVENTRY_CUT_SHORT_REASON_ALL_DECLINED: _ClassVar[EarlOfCoventryCutShortReason]
EARL_OF_COVENTRY_CALL_STYLE_UNSPECIFIED: EarlOfCoventryCallStyle
EARL_OF_COVENTRY_CALL_STYLE_EARL: EarlOfCoventryCallStyle
EARL_OF_COVENTRY_CALL_STYLE_SNIP_SNAP_SNORUM: EarlOfCoventryCallStyle
EARL_OF_COVENTRY_CALL_STYLE_SILENT: EarlOfCoventryCallStyle
EARL_OF_COVENTRY_CALL_STYLE_CUSTOM: EarlOfCoventryCallStyle
EARL_OF_COVENTRY_SCORING_UNSPECIFIED: EarlOfCoventryScoring
EARL_OF_COVENTRY_SCORING_SIMPLE: EarlOfCoventryScoring
EARL_OF_COVENTRY_SCORING_COUNTERS: EarlOfCoventryScoring
EARL_OF_COVENTRY_SCORING_ELIMINATION: EarlOfCoventryScoring
EARL_OF_COVENTRY_PHASE_UNSPECIFIED: EarlOfCoventryPhase
EARL_OF_COVENTRY_PHASE_PLAYING: EarlOfCoventryPhase
EARL_OF_COVENTRY_PHASE_BETWEEN_ROUNDS: EarlOfCoventryPhase
EARL_OF_COVENTRY_PHASE_SESSION_OVER: EarlOfCoventryPhase
EARL_OF_COVENTRY_CUT_SHORT_REASON_UNSPECIFIED: EarlOfCoventryCutShortReason
EARL_OF_COVENTRY_CUT_SHORT_REASON_NO_HOLDER: EarlOfCoventryCutShortReason
EARL_OF_COVENTRY_CUT_SHORT_REASON_ALL_DECLINED: EarlOfCoventryCutShortReason

class EarlOfCoventryConfig(_message.Message):
    __slots__ = ("seats", "first_dealer", "call_style", "couplet_templates", "scoring", "starting_counters", "penalty_earl", "open_hands", "holding_allowed")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    CALL_STYLE_FIELD_NUMBER: _ClassVar[int]
    COUPLET_TEMPLATES_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    STARTING_COUNTERS_FIELD_NUMBER: _ClassVar[int]
    PENALTY_EARL_FIELD_NUMBER: _ClassVar[int]
    OPEN_HANDS_FIELD_NUMBER: _ClassVar[int]
    HOLDING_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    seats: int
    first_dealer: int
    call_style: EarlOfCoventryCallStyle
    couplet_templates: _containers.RepeatedScalarFieldContainer[str]
    scoring: EarlOfCoventryScoring
    starting_counters: int
    penalty_earl: bool
    open_hands: bool
    holding_allowed: bool
    def __init__(self, seats: _Optional[int] = ..., first_dealer: _Optional[int] = ..., call_style: _Optional[_Union[EarlOfCoventryCallStyle, str]] = ..., couplet_templates: _Optional[_Iterable[str]] = ..., scoring: _Optional[_Union[EarlOfCoventryScoring, str]] = ..., starting_counters: _Optional[int] = ..., penalty_earl: _Optional[bool] = ..., open_hands: _Optional[bool] = ..., holding_allowed: _Optional[bool] = ...) -> None: ...

class EarlOfCoventrySeat(_message.Message):
    __slots__ = ("hand", "rounds_won", "counters", "eliminated", "dealt_in")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_WON_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    DEALT_IN_FIELD_NUMBER: _ClassVar[int]
    hand: int
    rounds_won: int
    counters: int
    eliminated: bool
    dealt_in: bool
    def __init__(self, hand: _Optional[int] = ..., rounds_won: _Optional[int] = ..., counters: _Optional[int] = ..., eliminated: _Optional[bool] = ..., dealt_in: _Optional[bool] = ...) -> None: ...

class EarlOfCoventryState(_message.Message):
    __slots__ = ("config", "phase", "round", "dealer", "seats", "played", "current_rank", "run_length", "turn", "last_player", "pool", "tiebreak", "round_winner", "winners")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    CURRENT_RANK_FIELD_NUMBER: _ClassVar[int]
    RUN_LENGTH_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINNER_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    config: EarlOfCoventryConfig
    phase: EarlOfCoventryPhase
    round: int
    dealer: int
    seats: _containers.RepeatedCompositeFieldContainer[EarlOfCoventrySeat]
    played: bytes
    current_rank: _cards_pb2.Rank
    run_length: int
    turn: int
    last_player: int
    pool: int
    tiebreak: bool
    round_winner: int
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, config: _Optional[_Union[EarlOfCoventryConfig, _Mapping]] = ..., phase: _Optional[_Union[EarlOfCoventryPhase, str]] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[EarlOfCoventrySeat, _Mapping]]] = ..., played: _Optional[bytes] = ..., current_rank: _Optional[_Union[_cards_pb2.Rank, str]] = ..., run_length: _Optional[int] = ..., turn: _Optional[int] = ..., last_player: _Optional[int] = ..., pool: _Optional[int] = ..., tiebreak: _Optional[bool] = ..., round_winner: _Optional[int] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...

class EarlOfCoventryPlay(_message.Message):
    __slots__ = ("card", "call")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    card: _cards_pb2.Card
    call: str
    def __init__(self, card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., call: _Optional[str] = ...) -> None: ...

class EarlOfCoventryPass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EarlOfCoventryNextRound(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EarlOfCoventryEndSession(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EarlOfCoventryAction(_message.Message):
    __slots__ = ("play", "next_round", "end_session")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ROUND_FIELD_NUMBER: _ClassVar[int]
    END_SESSION_FIELD_NUMBER: _ClassVar[int]
    play: EarlOfCoventryPlay
    next_round: EarlOfCoventryNextRound
    end_session: EarlOfCoventryEndSession
    def __init__(self, play: _Optional[_Union[EarlOfCoventryPlay, _Mapping]] = ..., next_round: _Optional[_Union[EarlOfCoventryNextRound, _Mapping]] = ..., end_session: _Optional[_Union[EarlOfCoventryEndSession, _Mapping]] = ..., **kwargs) -> None: ...

class EarlOfCoventryCutDraw(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class EarlOfCoventryDealerCut(_message.Message):
    __slots__ = ("draws", "dealer")
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    draws: _containers.RepeatedCompositeFieldContainer[EarlOfCoventryCutDraw]
    dealer: int
    def __init__(self, draws: _Optional[_Iterable[_Union[EarlOfCoventryCutDraw, _Mapping]]] = ..., dealer: _Optional[int] = ...) -> None: ...

class EarlOfCoventryRoundDealt(_message.Message):
    __slots__ = ("round", "dealer", "seats", "hand_sizes", "tiebreak")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    round: int
    dealer: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    tiebreak: bool
    def __init__(self, round: _Optional[int] = ..., dealer: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., tiebreak: _Optional[bool] = ...) -> None: ...

class EarlOfCoventryCardPlayed(_message.Message):
    __slots__ = ("seat", "card", "position", "call", "cards_left")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    position: int
    call: str
    cards_left: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., position: _Optional[int] = ..., call: _Optional[str] = ..., cards_left: _Optional[int] = ...) -> None: ...

class EarlOfCoventryPassedOver(_message.Message):
    __slots__ = ("seat", "rank")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: _cards_pb2.Rank
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[_Union[_cards_pb2.Rank, str]] = ...) -> None: ...

class EarlOfCoventryPassed(_message.Message):
    __slots__ = ("seat", "rank")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: _cards_pb2.Rank
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[_Union[_cards_pb2.Rank, str]] = ...) -> None: ...

class EarlOfCoventryCoupletBotched(_message.Message):
    __slots__ = ("seat", "card", "position", "expected", "said")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    SAID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    position: int
    expected: str
    said: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., position: _Optional[int] = ..., expected: _Optional[str] = ..., said: _Optional[str] = ...) -> None: ...

class EarlOfCoventryRankCompleted(_message.Message):
    __slots__ = ("rank", "seat")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    rank: _cards_pb2.Rank
    seat: int
    def __init__(self, rank: _Optional[_Union[_cards_pb2.Rank, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class EarlOfCoventryRunCutShort(_message.Message):
    __slots__ = ("rank", "run_length", "leader", "reason")
    RANK_FIELD_NUMBER: _ClassVar[int]
    RUN_LENGTH_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    rank: _cards_pb2.Rank
    run_length: int
    leader: int
    reason: EarlOfCoventryCutShortReason
    def __init__(self, rank: _Optional[_Union[_cards_pb2.Rank, str]] = ..., run_length: _Optional[int] = ..., leader: _Optional[int] = ..., reason: _Optional[_Union[EarlOfCoventryCutShortReason, str]] = ...) -> None: ...

class EarlOfCoventryLeadPassed(_message.Message):
    __slots__ = ("from_seat", "to_seat")
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    from_seat: int
    to_seat: int
    def __init__(self, from_seat: _Optional[int] = ..., to_seat: _Optional[int] = ...) -> None: ...

class EarlOfCoventryPenaltyCharged(_message.Message):
    __slots__ = ("seat", "amount", "pool", "code")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    pool: int
    code: str
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., pool: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class EarlOfCoventryPayment(_message.Message):
    __slots__ = ("from_seat", "cards_left", "amount")
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    from_seat: int
    cards_left: int
    amount: int
    def __init__(self, from_seat: _Optional[int] = ..., cards_left: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class EarlOfCoventryRoundWon(_message.Message):
    __slots__ = ("seat", "round", "payments", "pool_collected")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    POOL_COLLECTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    payments: _containers.RepeatedCompositeFieldContainer[EarlOfCoventryPayment]
    pool_collected: int
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., payments: _Optional[_Iterable[_Union[EarlOfCoventryPayment, _Mapping]]] = ..., pool_collected: _Optional[int] = ...) -> None: ...

class EarlOfCoventrySeatEliminated(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class EarlOfCoventryTiebreakStarted(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class EarlOfCoventrySessionEnded(_message.Message):
    __slots__ = ("winners",)
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, winners: _Optional[_Iterable[int]] = ...) -> None: ...

class EarlOfCoventryEvent(_message.Message):
    __slots__ = ("dealer_cut", "round_dealt", "card_played", "passed_over", "passed", "couplet_botched", "rank_completed", "run_cut_short", "lead_passed", "penalty_charged", "round_won", "seat_eliminated", "tiebreak_started", "session_ended")
    DEALER_CUT_FIELD_NUMBER: _ClassVar[int]
    ROUND_DEALT_FIELD_NUMBER: _ClassVar[int]
    CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    PASSED_OVER_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    COUPLET_BOTCHED_FIELD_NUMBER: _ClassVar[int]
    RANK_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    RUN_CUT_SHORT_FIELD_NUMBER: _ClassVar[int]
    LEAD_PASSED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_CHARGED_FIELD_NUMBER: _ClassVar[int]
    ROUND_WON_FIELD_NUMBER: _ClassVar[int]
    SEAT_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_STARTED_FIELD_NUMBER: _ClassVar[int]
    SESSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    dealer_cut: EarlOfCoventryDealerCut
    round_dealt: EarlOfCoventryRoundDealt
    card_played: EarlOfCoventryCardPlayed
    passed_over: EarlOfCoventryPassedOver
    passed: EarlOfCoventryPassed
    couplet_botched: EarlOfCoventryCoupletBotched
    rank_completed: EarlOfCoventryRankCompleted
    run_cut_short: EarlOfCoventryRunCutShort
    lead_passed: EarlOfCoventryLeadPassed
    penalty_charged: EarlOfCoventryPenaltyCharged
    round_won: EarlOfCoventryRoundWon
    seat_eliminated: EarlOfCoventrySeatEliminated
    tiebreak_started: EarlOfCoventryTiebreakStarted
    session_ended: EarlOfCoventrySessionEnded
    def __init__(self, dealer_cut: _Optional[_Union[EarlOfCoventryDealerCut, _Mapping]] = ..., round_dealt: _Optional[_Union[EarlOfCoventryRoundDealt, _Mapping]] = ..., card_played: _Optional[_Union[EarlOfCoventryCardPlayed, _Mapping]] = ..., passed_over: _Optional[_Union[EarlOfCoventryPassedOver, _Mapping]] = ..., passed: _Optional[_Union[EarlOfCoventryPassed, _Mapping]] = ..., couplet_botched: _Optional[_Union[EarlOfCoventryCoupletBotched, _Mapping]] = ..., rank_completed: _Optional[_Union[EarlOfCoventryRankCompleted, _Mapping]] = ..., run_cut_short: _Optional[_Union[EarlOfCoventryRunCutShort, _Mapping]] = ..., lead_passed: _Optional[_Union[EarlOfCoventryLeadPassed, _Mapping]] = ..., penalty_charged: _Optional[_Union[EarlOfCoventryPenaltyCharged, _Mapping]] = ..., round_won: _Optional[_Union[EarlOfCoventryRoundWon, _Mapping]] = ..., seat_eliminated: _Optional[_Union[EarlOfCoventrySeatEliminated, _Mapping]] = ..., tiebreak_started: _Optional[_Union[EarlOfCoventryTiebreakStarted, _Mapping]] = ..., session_ended: _Optional[_Union[EarlOfCoventrySessionEnded, _Mapping]] = ...) -> None: ...

class EarlOfCoventrySeatView(_message.Message):
    __slots__ = ("seat", "card_count", "hand", "hand_visible", "rounds_won", "counters", "eliminated", "dealt_in")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_WON_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    DEALT_IN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card_count: int
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    hand_visible: bool
    rounds_won: int
    counters: int
    eliminated: bool
    dealt_in: bool
    def __init__(self, seat: _Optional[int] = ..., card_count: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., hand_visible: _Optional[bool] = ..., rounds_won: _Optional[int] = ..., counters: _Optional[int] = ..., eliminated: _Optional[bool] = ..., dealt_in: _Optional[bool] = ...) -> None: ...

class EarlOfCoventryView(_message.Message):
    __slots__ = ("config", "phase", "round", "dealer", "turn", "current_rank", "run_length", "last_player", "seats", "played", "pool", "tiebreak", "round_winner", "winners", "next_call")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CURRENT_RANK_FIELD_NUMBER: _ClassVar[int]
    RUN_LENGTH_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINNER_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CALL_FIELD_NUMBER: _ClassVar[int]
    config: EarlOfCoventryConfig
    phase: EarlOfCoventryPhase
    round: int
    dealer: int
    turn: int
    current_rank: _cards_pb2.Rank
    run_length: int
    last_player: int
    seats: _containers.RepeatedCompositeFieldContainer[EarlOfCoventrySeatView]
    played: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    pool: int
    tiebreak: bool
    round_winner: int
    winners: _containers.RepeatedScalarFieldContainer[int]
    next_call: str
    def __init__(self, config: _Optional[_Union[EarlOfCoventryConfig, _Mapping]] = ..., phase: _Optional[_Union[EarlOfCoventryPhase, str]] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., turn: _Optional[int] = ..., current_rank: _Optional[_Union[_cards_pb2.Rank, str]] = ..., run_length: _Optional[int] = ..., last_player: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[EarlOfCoventrySeatView, _Mapping]]] = ..., played: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., pool: _Optional[int] = ..., tiebreak: _Optional[bool] = ..., round_winner: _Optional[int] = ..., winners: _Optional[_Iterable[int]] = ..., next_call: _Optional[str] = ...) -> None: ...
