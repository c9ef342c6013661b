from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EcartePackets(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ECARTE_PACKETS_UNSPECIFIED: _ClassVar[EcartePackets]
    ECARTE_PACKETS_THREE_TWO: _ClassVar[EcartePackets]
    ECARTE_PACKETS_TWO_THREE: _ClassVar[EcartePackets]

class EcartePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ECARTE_PHASE_UNSPECIFIED: _ClassVar[EcartePhase]
    ECARTE_PHASE_PROPOSAL: _ClassVar[EcartePhase]
    ECARTE_PHASE_ANSWER: _ClassVar[EcartePhase]
    ECARTE_PHASE_ELDER_DISCARD: _ClassVar[EcartePhase]
    ECARTE_PHASE_RESPONDER_DISCARD: _ClassVar[EcartePhase]
    ECARTE_PHASE_TRICKS: _ClassVar[EcartePhase]
    ECARTE_PHASE_MATCH_OVER: _ClassVar[EcartePhase]

class EcarteScoreReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ECARTE_SCORE_REASON_UNSPECIFIED: _ClassVar[EcarteScoreReason]
    ECARTE_SCORE_REASON_TURNED_KING: _ClassVar[EcarteScoreReason]
    ECARTE_SCORE_REASON_ANNOUNCED_KING: _ClassVar[EcarteScoreReason]
    ECARTE_SCORE_REASON_POINT: _ClassVar[EcarteScoreReason]
    ECARTE_SCORE_REASON_VOLE: _ClassVar[EcarteScoreReason]
ECARTE_PACKETS_UNSPECIFIED: EcartePackets
ECARTE_PACKETS_THREE_TWO: EcartePackets
ECARTE_PACKETS_TWO_THREE: EcartePackets
ECARTE_PHASE_UNSPECIFIED: EcartePhase
ECARTE_PHASE_PROPOSAL: EcartePhase
ECARTE_PHASE_ANSWER: EcartePhase
ECARTE_PHASE_ELDER_DISCARD: EcartePhase
ECARTE_PHASE_RESPONDER_DISCARD: EcartePhase
ECARTE_PHASE_TRICKS: EcartePhase
ECARTE_PHASE_MATCH_OVER: EcartePhase
ECARTE_SCORE_REASON_UNSPECIFIED: EcarteScoreReason
ECARTE_SCORE_REASON_TURNED_KING: EcarteScoreReason
ECARTE_SCORE_REASON_ANNOUNCED_KING: EcarteScoreReason
ECARTE_SCORE_REASON_POINT: EcarteScoreReason
ECARTE_SCORE_REASON_VOLE: EcarteScoreReason

class EcarteConfig(_message.Message):
    __slots__ = ("seats", "first_dealer", "packets", "target_points", "games_to_win", "stake", "vole_multiplier", "king_multiplier", "gallery", "wager_limit", "jeux_de_regle")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    PACKETS_FIELD_NUMBER: _ClassVar[int]
    TARGET_POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    VOLE_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    KING_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    GALLERY_FIELD_NUMBER: _ClassVar[int]
    WAGER_LIMIT_FIELD_NUMBER: _ClassVar[int]
    JEUX_DE_REGLE_FIELD_NUMBER: _ClassVar[int]
    seats: int
    first_dealer: int
    packets: EcartePackets
    target_points: int
    games_to_win: int
    stake: int
    vole_multiplier: int
    king_multiplier: int
    gallery: bool
    wager_limit: int
    jeux_de_regle: bool
    def __init__(self, seats: _Optional[int] = ..., first_dealer: _Optional[int] = ..., packets: _Optional[_Union[EcartePackets, str]] = ..., target_points: _Optional[int] = ..., games_to_win: _Optional[int] = ..., stake: _Optional[int] = ..., vole_multiplier: _Optional[int] = ..., king_multiplier: _Optional[int] = ..., gallery: _Optional[bool] = ..., wager_limit: _Optional[int] = ..., jeux_de_regle: _Optional[bool] = ...) -> None: ...

class EcarteSeat(_message.Message):
    __slots__ = ("hand", "discards", "tricks_won", "points", "games_won", "chips")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    discards: int
    tricks_won: int
    points: int
    games_won: int
    chips: int
    def __init__(self, hand: _Optional[int] = ..., discards: _Optional[int] = ..., tricks_won: _Optional[int] = ..., points: _Optional[int] = ..., games_won: _Optional[int] = ..., chips: _Optional[int] = ...) -> None: ...

class EcarteWager(_message.Message):
    __slots__ = ("spectator", "seat", "amount")
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    spectator: str
    seat: int
    amount: int
    def __init__(self, spectator: _Optional[str] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class EcarteSpectatorNet(_message.Message):
    __slots__ = ("spectator", "net")
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    spectator: str
    net: int
    def __init__(self, spectator: _Optional[str] = ..., net: _Optional[int] = ...) -> None: ...

class EcarteState(_message.Message):
    __slots__ = ("config", "phase", "deal", "dealer", "turn", "seats", "turn_up", "trump", "stock", "tricks", "king_announced", "wagers", "spectators")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TURN_UP_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    STOCK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    KING_ANNOUNCED_FIELD_NUMBER: _ClassVar[int]
    WAGERS_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    config: EcarteConfig
    phase: EcartePhase
    deal: int
    dealer: int
    turn: int
    seats: _containers.RepeatedCompositeFieldContainer[EcarteSeat]
    turn_up: int
    trump: _cards_pb2.Suit
    stock: bytes
    tricks: bytes
    king_announced: int
    wagers: _containers.RepeatedCompositeFieldContainer[EcarteWager]
    spectators: _containers.RepeatedCompositeFieldContainer[EcarteSpectatorNet]
    def __init__(self, config: _Optional[_Union[EcarteConfig, _Mapping]] = ..., phase: _Optional[_Union[EcartePhase, str]] = ..., deal: _Optional[int] = ..., dealer: _Optional[int] = ..., turn: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[EcarteSeat, _Mapping]]] = ..., turn_up: _Optional[int] = ..., trump: _Optional[_Union[_cards_pb2.Suit, str]] = ..., stock: _Optional[bytes] = ..., tricks: _Optional[bytes] = ..., king_announced: _Optional[int] = ..., wagers: _Optional[_Iterable[_Union[EcarteWager, _Mapping]]] = ..., spectators: _Optional[_Iterable[_Union[EcarteSpectatorNet, _Mapping]]] = ...) -> None: ...

class EcartePropose(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteAccept(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteRefuse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteDiscard(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class EcartePlay(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: _cards_pb2.Card
    def __init__(self, card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class EcarteAnnounceKing(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcartePlaceWager(_message.Message):
    __slots__ = ("seat", "amount", "amount_max")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_MAX_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    amount_max: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., amount_max: _Optional[int] = ...) -> None: ...

class EcarteAction(_message.Message):
    __slots__ = ("propose", "accept", "refuse", "discard", "play", "announce_king", "wager")
    PROPOSE_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    REFUSE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCE_KING_FIELD_NUMBER: _ClassVar[int]
    WAGER_FIELD_NUMBER: _ClassVar[int]
    propose: EcartePropose
    accept: EcarteAccept
    refuse: EcarteRefuse
    discard: EcarteDiscard
    play: EcartePlay
    announce_king: EcarteAnnounceKing
    wager: EcartePlaceWager
    def __init__(self, propose: _Optional[_Union[EcartePropose, _Mapping]] = ..., accept: _Optional[_Union[EcarteAccept, _Mapping]] = ..., refuse: _Optional[_Union[EcarteRefuse, _Mapping]] = ..., discard: _Optional[_Union[EcarteDiscard, _Mapping]] = ..., play: _Optional[_Union[EcartePlay, _Mapping]] = ..., announce_king: _Optional[_Union[EcarteAnnounceKing, _Mapping]] = ..., wager: _Optional[_Union[EcartePlaceWager, _Mapping]] = ...) -> None: ...

class EcarteCutDraw(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class EcarteDealerCut(_message.Message):
    __slots__ = ("draws", "dealer")
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    draws: _containers.RepeatedCompositeFieldContainer[EcarteCutDraw]
    dealer: int
    def __init__(self, draws: _Optional[_Iterable[_Union[EcarteCutDraw, _Mapping]]] = ..., dealer: _Optional[int] = ...) -> None: ...

class EcarteHandDealt(_message.Message):
    __slots__ = ("seat", "card_count", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card_count: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., card_count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class EcarteDealt(_message.Message):
    __slots__ = ("deal", "game", "dealer", "elder", "responder", "turn_up", "stock_size", "hands")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ELDER_FIELD_NUMBER: _ClassVar[int]
    RESPONDER_FIELD_NUMBER: _ClassVar[int]
    TURN_UP_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    deal: int
    game: int
    dealer: int
    elder: int
    responder: int
    turn_up: _cards_pb2.Card
    stock_size: int
    hands: _containers.RepeatedCompositeFieldContainer[EcarteHandDealt]
    def __init__(self, deal: _Optional[int] = ..., game: _Optional[int] = ..., dealer: _Optional[int] = ..., elder: _Optional[int] = ..., responder: _Optional[int] = ..., turn_up: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., stock_size: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[EcarteHandDealt, _Mapping]]] = ...) -> None: ...

class EcarteKingTurned(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class EcarteProposed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class EcarteAccepted(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class EcarteRefused(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class EcarteExchanged(_message.Message):
    __slots__ = ("seat", "count", "discarded", "drawn", "stock_left")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    STOCK_LEFT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    discarded: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    drawn: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    stock_left: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., discarded: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., drawn: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., stock_left: _Optional[int] = ...) -> None: ...

class EcarteKingAnnounced(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class EcarteCardPlayed(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class EcarteTrickWon(_message.Message):
    __slots__ = ("trick", "seat", "leader", "cards")
    TRICK_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    trick: int
    seat: int
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, trick: _Optional[int] = ..., seat: _Optional[int] = ..., leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class EcarteDealScored(_message.Message):
    __slots__ = ("deal", "seat", "tricks", "vole", "raised", "original_hands")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    VOLE_FIELD_NUMBER: _ClassVar[int]
    RAISED_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_HANDS_FIELD_NUMBER: _ClassVar[int]
    deal: int
    seat: int
    tricks: _containers.RepeatedScalarFieldContainer[int]
    vole: bool
    raised: bool
    original_hands: bool
    def __init__(self, deal: _Optional[int] = ..., seat: _Optional[int] = ..., tricks: _Optional[_Iterable[int]] = ..., vole: _Optional[bool] = ..., raised: _Optional[bool] = ..., original_hands: _Optional[bool] = ...) -> None: ...

class EcartePointsScored(_message.Message):
    __slots__ = ("seat", "reason", "points", "total", "chips", "payer")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    PAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: EcarteScoreReason
    points: int
    total: int
    chips: int
    payer: int
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[_Union[EcarteScoreReason, str]] = ..., points: _Optional[int] = ..., total: _Optional[int] = ..., chips: _Optional[int] = ..., payer: _Optional[int] = ...) -> None: ...

class EcarteGameWon(_message.Message):
    __slots__ = ("game", "seat", "points")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    game: int
    seat: int
    points: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game: _Optional[int] = ..., seat: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ...) -> None: ...

class EcarteWagerPlaced(_message.Message):
    __slots__ = ("spectator", "seat", "amount")
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    spectator: str
    seat: int
    amount: int
    def __init__(self, spectator: _Optional[str] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class EcarteWagerSettled(_message.Message):
    __slots__ = ("spectator", "seat", "amount", "won", "net")
    SPECTATOR_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    spectator: str
    seat: int
    amount: int
    won: bool
    net: int
    def __init__(self, spectator: _Optional[str] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., won: _Optional[bool] = ..., net: _Optional[int] = ...) -> None: ...

class EcarteMatchWon(_message.Message):
    __slots__ = ("seat", "games_won")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    games_won: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., games_won: _Optional[_Iterable[int]] = ...) -> None: ...

class EcarteEvent(_message.Message):
    __slots__ = ("dealer_cut", "dealt", "king_turned", "proposed", "accepted", "refused", "exchanged", "king_announced", "card_played", "trick_won", "deal_scored", "points_scored", "game_won", "wager_placed", "wager_settled", "match_won")
    DEALER_CUT_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    KING_TURNED_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGED_FIELD_NUMBER: _ClassVar[int]
    KING_ANNOUNCED_FIELD_NUMBER: _ClassVar[int]
    CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    DEAL_SCORED_FIELD_NUMBER: _ClassVar[int]
    POINTS_SCORED_FIELD_NUMBER: _ClassVar[int]
    GAME_WON_FIELD_NUMBER: _ClassVar[int]
    WAGER_PLACED_FIELD_NUMBER: _ClassVar[int]
    WAGER_SETTLED_FIELD_NUMBER: _ClassVar[int]
    MATCH_WON_FIELD_NUMBER: _ClassVar[int]
    dealer_cut: EcarteDealerCut
    dealt: EcarteDealt
    king_turned: EcarteKingTurned
    proposed: EcarteProposed
    accepted: EcarteAccepted
    refused: EcarteRefused
    exchanged: EcarteExchanged
    king_announced: EcarteKingAnnounced
    card_played: EcarteCardPlayed
    trick_won: EcarteTrickWon
    deal_scored: EcarteDealScored
    points_scored: EcartePointsScored
    game_won: EcarteGameWon
    wager_placed: EcarteWagerPlaced
    wager_settled: EcarteWagerSettled
    match_won: EcarteMatchWon
    def __init__(self, dealer_cut: _Optional[_Union[EcarteDealerCut, _Mapping]] = ..., dealt: _Optional[_Union[EcarteDealt, _Mapping]] = ..., king_turned: _Optional[_Union[EcarteKingTurned, _Mapping]] = ..., proposed: _Optional[_Union[EcarteProposed, _Mapping]] = ..., accepted: _Optional[_Union[EcarteAccepted, _Mapping]] = ..., refused: _Optional[_Union[EcarteRefused, _Mapping]] = ..., exchanged: _Optional[_Union[EcarteExchanged, _Mapping]] = ..., king_announced: _Optional[_Union[EcarteKingAnnounced, _Mapping]] = ..., card_played: _Optional[_Union[EcarteCardPlayed, _Mapping]] = ..., trick_won: _Optional[_Union[EcarteTrickWon, _Mapping]] = ..., deal_scored: _Optional[_Union[EcarteDealScored, _Mapping]] = ..., points_scored: _Optional[_Union[EcartePointsScored, _Mapping]] = ..., game_won: _Optional[_Union[EcarteGameWon, _Mapping]] = ..., wager_placed: _Optional[_Union[EcarteWagerPlaced, _Mapping]] = ..., wager_settled: _Optional[_Union[EcarteWagerSettled, _Mapping]] = ..., match_won: _Optional[_Union[EcarteMatchWon, _Mapping]] = ...) -> None: ...

class EcarteSeatView(_message.Message):
    __slots__ = ("seat", "card_count", "hand", "hand_visible", "discard_count", "discards", "tricks_won", "points", "games_won", "chips", "sits_out")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    SITS_OUT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card_count: int
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    hand_visible: bool
    discard_count: int
    discards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    tricks_won: int
    points: int
    games_won: int
    chips: int
    sits_out: bool
    def __init__(self, seat: _Optional[int] = ..., card_count: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., hand_visible: _Optional[bool] = ..., discard_count: _Optional[int] = ..., discards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., tricks_won: _Optional[int] = ..., points: _Optional[int] = ..., games_won: _Optional[int] = ..., chips: _Optional[int] = ..., sits_out: _Optional[bool] = ...) -> None: ...

class EcarteTrickView(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class EcarteView(_message.Message):
    __slots__ = ("config", "phase", "deal", "game", "dealer", "elder", "responder", "turn", "turn_up", "trump", "stock_count", "seats", "tricks", "king_announced", "original_hands", "wagers", "spectators", "winner")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ELDER_FIELD_NUMBER: _ClassVar[int]
    RESPONDER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TURN_UP_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    KING_ANNOUNCED_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_HANDS_FIELD_NUMBER: _ClassVar[int]
    WAGERS_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    config: EcarteConfig
    phase: EcartePhase
    deal: int
    game: int
    dealer: int
    elder: int
    responder: int
    turn: int
    turn_up: _cards_pb2.Card
    trump: _cards_pb2.Suit
    stock_count: int
    seats: _containers.RepeatedCompositeFieldContainer[EcarteSeatView]
    tricks: _containers.RepeatedCompositeFieldContainer[EcarteTrickView]
    king_announced: int
    original_hands: bool
    wagers: _containers.RepeatedCompositeFieldContainer[EcarteWager]
    spectators: _containers.RepeatedCompositeFieldContainer[EcarteSpectatorNet]
    winner: int
    def __init__(self, config: _Optional[_Union[EcarteConfig, _Mapping]] = ..., phase: _Optional[_Union[EcartePhase, str]] = ..., deal: _Optional[int] = ..., game: _Optional[int] = ..., dealer: _Optional[int] = ..., elder: _Optional[int] = ..., responder: _Optional[int] = ..., turn: _Optional[int] = ..., turn_up: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., trump: _Optional[_Union[_cards_pb2.Suit, str]] = ..., stock_count: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[EcarteSeatView, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[EcarteTrickView, _Mapping]]] = ..., king_announced: _Optional[int] = ..., original_hands: _Optional[bool] = ..., wagers: _Optional[_Iterable[_Union[EcarteWager, _Mapping]]] = ..., spectators: _Optional[_Iterable[_Union[EcarteSpectatorNet, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...
