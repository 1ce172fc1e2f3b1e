"""What a seat sees, as typed dicts: one ``TypedDict`` per message of ``proto/bummerl/v1/common.proto``.

The engine's views (:func:`bummerl.rules.information_set`, the event dicts of
:mod:`bummerl.rules.base.events`, the results) have exactly the shape of those messages in proto3 JSON
with proto field names (``json_format.MessageToDict(msg, preserving_proto_field_name=True,
always_print_fields_with_no_presence=True)``), so the engine dict, the protobuf message and what
the SDK and the REST gateway hand to a bot are one shape:

* keys are the proto field names, nested as in the proto: an event is
  ``{"version": 0, "deal_number": 2, "card_played": {"seat": 0, "card": "QH"}}`` (the ``Event.kind``
  oneof member is the key), the seat's own tricks are the ``own_tricks`` sub-dict;
* every field without presence is always there (``0``, ``""``, ``False``, ``[]`` included); a
  message field is there only when set (``own_tricks``, ``auction``, ``time_control``);
* enum values are the proto enum names: ``"PHASE_LEAD"``, ``"TALON_STATE_OPEN"``,
  ``"SCORE_DIRECTION_UP"``, ``"TIME_CONTROL_SCOPE_MATCH"`` (``*_UNSPECIFIED`` where none applies);
* the one difference: ``int64`` fields (``InformationSet.version``, ``Event.version``, the ``*_ms``
  fields of ``Clock`` and ``TimeControl``) are ints here and decimal strings in proto3 JSON (REST,
  the Python SDK's dicts): read them with ``int(...)``.

The engine's internal state (deal snapshots, history tuples, the action log) keeps its own
compact format; the view functions are the one place where it becomes these dicts, and
:mod:`bummerl.api.codec` turns them into messages without renaming anything. ``tests/api/
test_proto.py`` checks that every class here has its message's fields and that
``MessageToDict(information_set_to_pb(d)) == d`` for every seat of every variant.

(No ``from __future__ import annotations`` here: ``TypedDict`` reads ``NotRequired`` from the
evaluated annotations.)
"""

from typing import Literal, NotRequired, Required, TypedDict

__all__ = [
    "PHASES", "SCORE_DIRECTIONS", "TALON_STATES", "TIME_CONTROL_SCOPES", "Auction", "Bid", "CardDrawn", "CardPlayed",
    "CardsMoved", "CardsShown", "Clock", "Contract", "DealEnded", "DealResult", "DealStarted", "DealView",
    "Declared", "Event", "InformationSet", "LegalAction", "MarriageAnnounced", "MarriageView", "MatchEnded",
    "MatchResult", "MatchView", "OwnTricks", "Passed", "Phase", "Resigned", "ScoreDirection", "TalonClosed",
    "TalonState", "TimeControl", "TimeControlScope", "Timeout", "TrickCard", "TrickCompleted", "TrumpExchanged",
    "TrumpNamed",
]

# ---------------------------------------------------------------------------------------------
# Enums: the proto names, and the engine's internal names -> them (the only renaming there is)

Phase = Literal["PHASE_UNSPECIFIED", "PHASE_LEAD", "PHASE_FOLLOW", "PHASE_DRAW", "PHASE_EXCHANGE_ON_CLOSE",
                "PHASE_BIDDING", "PHASE_OVER"]
TalonState = Literal["TALON_STATE_UNSPECIFIED", "TALON_STATE_OPEN", "TALON_STATE_CLOSED", "TALON_STATE_EXHAUSTED"]
ScoreDirection = Literal["SCORE_DIRECTION_UNSPECIFIED", "SCORE_DIRECTION_UP", "SCORE_DIRECTION_DOWN"]
TimeControlScope = Literal["TIME_CONTROL_SCOPE_UNSPECIFIED", "TIME_CONTROL_SCOPE_DEAL", "TIME_CONTROL_SCOPE_MATCH"]

#: A deal's ``phase_name`` (``"lead"``...) -> ``Phase``.
PHASES: dict[str, Phase] = {
    "lead": "PHASE_LEAD", "follow": "PHASE_FOLLOW", "draw": "PHASE_DRAW",
    "exchange_on_close": "PHASE_EXCHANGE_ON_CLOSE", "bidding": "PHASE_BIDDING", "over": "PHASE_OVER",
}
#: ``TalonDeal.talon_state`` (``""`` in the contract games, which have no talon to draw from) -> ``TalonState``.
TALON_STATES: dict[str, TalonState] = {
    "": "TALON_STATE_UNSPECIFIED", "open": "TALON_STATE_OPEN", "closed": "TALON_STATE_CLOSED",
    "exhausted": "TALON_STATE_EXHAUSTED",
}
#: ``VariantSpec.direction`` -> ``ScoreDirection``.
SCORE_DIRECTIONS: dict[str, ScoreDirection] = {"up": "SCORE_DIRECTION_UP", "down": "SCORE_DIRECTION_DOWN"}
#: ``bummerl.core.clocks.TimeControl.scope`` -> ``TimeControlScope``.
TIME_CONTROL_SCOPES: dict[str, TimeControlScope] = {
    "": "TIME_CONTROL_SCOPE_UNSPECIFIED", "deal": "TIME_CONTROL_SCOPE_DEAL", "match": "TIME_CONTROL_SCOPE_MATCH",
}

# ---------------------------------------------------------------------------------------------
# Results


class DealResult(TypedDict):
    deal_number: int
    winner: int
    game_points: list[int]
    reason: str
    deal_points: list[int]
    tricks_won: list[int]
    schwarz: bool
    deal_schneider: bool
    carried_points: int
    contract: str
    declarer: int
    multiplier: int
    seats: list[int]
    playoff: bool


class MatchResult(TypedDict):
    winner: int
    game_points: list[int]
    sets_won: list[int]
    match_schneider: bool
    reason: str
    placements: list[int]


# ---------------------------------------------------------------------------------------------
# Bidding


class Bid(TypedDict):
    seat: int
    call: str


class Contract(TypedDict):
    name: str
    declarer: int
    partners: list[int]
    trump_suit: str
    kontra_level: int
    base_points: int


class Auction(TypedDict):
    bids: list[Bid]
    contract: NotRequired[Contract]


# ---------------------------------------------------------------------------------------------
# Events: ``Event`` holds ``version``, ``deal_number`` and exactly one of the kinds


class TrickCard(TypedDict):
    seat: int
    card: str


class DealStarted(TypedDict):
    dealer: int
    trump_card: str
    trump_suit: str
    hand_sizes: list[int]
    deck_commitment: NotRequired[str]  # the service adds it to a match's first event only


class TrumpExchanged(TypedDict):
    seat: int
    card_down: str
    card_up: str


class TalonClosed(TypedDict):
    seat: int


class MarriageAnnounced(TypedDict):
    seat: int
    suit: str
    points: int
    shown_cards: list[str]


class CardPlayed(TypedDict):
    seat: int
    card: str


class TrickCompleted(TypedDict):
    winner: int
    cards: list[TrickCard]


class CardDrawn(TypedDict):
    seat: int
    card: str


class Declared(TypedDict):
    seat: int
    correct: bool
    deal_points: int


class DealEnded(TypedDict):
    result: DealResult


class MatchEnded(TypedDict):
    result: MatchResult


class Passed(TypedDict):
    seat: int


class TrumpNamed(TypedDict):
    seat: int
    suit: str


class CardsMoved(TypedDict):
    seat: int
    count: int


class CardsShown(TypedDict):
    seat: int
    cards: list[str]


class Resigned(TypedDict):
    seat: int


class Timeout(TypedDict):
    seat: int
    reason: str


class Event(TypedDict, total=False):
    """``version`` (0 in a deal's history) and ``deal_number``, plus exactly one kind."""

    version: Required[int]
    deal_number: Required[int]
    deal_started: DealStarted
    trump_exchanged: TrumpExchanged
    talon_closed: TalonClosed
    marriage_announced: MarriageAnnounced
    card_played: CardPlayed
    trick_completed: TrickCompleted
    card_drawn: CardDrawn
    declared: Declared
    deal_ended: DealEnded
    match_ended: MatchEnded
    resigned: Resigned
    timeout: Timeout
    bid: Bid
    contract: Contract
    passed: Passed
    trump_named: TrumpNamed
    cards_laid_away: CardsMoved
    cards_taken_up: CardsMoved
    cards_shown: CardsShown


# ---------------------------------------------------------------------------------------------
# Time


class TimeControl(TypedDict):
    base_ms: int
    increment_ms: int
    move_cap_ms: int
    lag_compensation_ms: int
    scope: TimeControlScope
    bank_ms: int


class Clock(TypedDict):
    seat: int
    remaining_ms: int
    running: bool
    move_remaining_ms: int
    bank_ms: int


# ---------------------------------------------------------------------------------------------
# Information set


class MatchView(TypedDict):
    game_points: list[int]
    target: int
    direction: ScoreDirection
    sets_won: list[int]
    set_target: int
    sets_to_win: int
    carried_points: int
    deal_number: int
    dealer: int
    over: bool
    winner: int
    deals: list[DealResult]
    placements: list[int]
    playoff: bool
    max_deals: int


class MarriageView(TypedDict):
    seat: int
    suit: str
    points: int
    counted: bool


class OwnTricks(TypedDict):
    trick_points: int
    won_cards: list[str]
    deal_points: int


class DealView(TypedDict):
    phase: Phase
    to_act: int
    leader: int
    trump_suit: str
    trump_card: str
    talon_size: int
    talon_state: TalonState
    closed_by: int
    trick_number: int
    hand: list[str]
    hand_sizes: list[int]
    tricks_won: list[int]
    current_trick: list[TrickCard]
    history: list[Event]
    marriages: list[MarriageView]
    own_tricks: NotRequired[OwnTricks]
    auction: NotRequired[Auction]
    seats: list[int]
    laid_away: list[str]
    laid_away_taken_up: list[str]


class LegalAction(TypedDict):
    id: int
    text: str
    kind: str
    card: str
    suit: str
    contract: str


class InformationSet(TypedDict):
    """``match_id`` and ``version`` are the service's (:mod:`bummerl.core.matches` adds them, with
    the clocks and ``time_control`` of a match with a time control); the engine fills the rest."""

    match_id: NotRequired[str]
    version: NotRequired[int]
    variant: str
    seat: int
    num_seats: int
    team_of_seat: list[int]
    options: dict[str, str]
    match: MatchView
    deal: DealView
    legal_actions: list[LegalAction]
    clocks: list[Clock]
    time_control: NotRequired[TimeControl]
