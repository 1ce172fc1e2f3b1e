"""The types of what the SDK's clients return: one ``TypedDict`` per message of
``proto/bummerl/v1/*.proto`` that :class:`~bummerl_client.AsyncClient` and
:class:`~bummerl_client.Client` hand out, named as the message; the LadderService's are in :mod:`.payloads_ladder`.

At runtime they are plain dicts: the message's proto3 JSON as :func:`bummerl.wire.to_dict` makes
it, the same JSON the REST gateway serves and the stdio bridge passes to a bot:

* keys are the ``.proto``'s field names, nested as in the proto, in field order;
* every field without presence is there, also at its default (``0``, ``""``, ``False``, ``[]``,
  ``{}``); a message field, an ``optional`` field and a oneof member is there only when set:
  ``NotRequired`` here where the server may leave it unset (``time_control`` without a clock,
  ``match_result`` while the match runs, ...), a plain key where it always sets it;
* **int64 and uint64 fields are decimal strings** (``"version": "7"``, ``"base_ms": "5000"``,
  ``"seed": "42"``): typed ``str``, read them with ``int(...)``. int32 fields are ints;
* double fields are floats, but a non-finite one is the string ``"Infinity"``, ``"-Infinity"`` or
  ``"NaN"`` (typed ``float | str`` where the server sends one: a pair's ``elo`` and ``elo_ci95``);
* enums are their value names (``"PHASE_LEAD"``, ``"LADDER_STATUS_RUNNING"``), typed as
  ``Literal`` s of the names this SDK knows (a newer server's value unknown to the SDK's proto
  arrives as its number);
* an :class:`Event` has ``version``, ``deal_number`` and exactly one kind, the member of its
  ``kind`` oneof as the key: ``{"version": "7", "deal_number": 0, "card_played": {"seat": 0,
  "card": "QH"}}``.

Times are milliseconds (``*_ms``), seats int32 indices (-1 = none), cards text codes (``"QH"``).

The engine's own typed dicts (:mod:`bummerl.rules.base.views`: ``InformationSet``, ``Event``,
``DealResult``...) have the same keys, with two differences: there the int64 fields are ints
(``"version": 7``), here decimal strings; and there ``match_id`` and ``version`` of an information
set are absent until the service adds them, here always present. So these are separate classes,
not those.

(No ``from __future__ import annotations`` here: ``TypedDict`` reads ``NotRequired`` from the
evaluated annotations.)
"""

from typing import Literal, NotRequired, Required, TypedDict

from bummerl.rules import views as _engine_views

__all__ = [
    "ActionRecord", "ActionValue", "AnalysedDecision", "AnalysisSettings", "Auction", "Bid", "CardDrawn",
    "CardInfo", "CardPlayed", "CardsMoved", "CardsShown", "Clock", "Contract", "DealEnded", "DealRecord",
    "DealResult", "DealStarted", "DealView", "Declared", "Event", "InformationSet", "LadderFormat",
    "LadderStatus", "LegalAction", "MarriageAnnounced", "MarriageView", "MatchAnalysis", "MatchEnded",
    "MatchRecord", "MatchReplay", "MatchResult", "MatchSummary", "MatchUpdate", "MatchView", "OptionInfo",
    "OutcomeKind", "OwnTricks", "Passed", "Phase", "PhaseMistakes", "ReplayStep", "ResignResponse",
    "Resigned", "ScoreDirection", "SeatAnalysis", "SeatCards", "SeatInfo", "SubmitActionResponse",
    "TalonClosed", "TalonState", "TimeControl", "TimeControlScope", "Timeout", "TrickCard",
    "TrickCompleted", "TrumpExchanged", "TrumpNamed", "VariantInfo", "WatchSettings", "WatchUpdate",
]

# The messages without int64 fields have one shape in the engine and on the wire: the engine's types.
TrickCard = _engine_views.TrickCard
DealStarted = _engine_views.DealStarted
TrumpExchanged = _engine_views.TrumpExchanged
TalonClosed = _engine_views.TalonClosed
MarriageAnnounced = _engine_views.MarriageAnnounced
CardPlayed = _engine_views.CardPlayed
TrickCompleted = _engine_views.TrickCompleted
CardDrawn = _engine_views.CardDrawn
Declared = _engine_views.Declared
Passed = _engine_views.Passed
TrumpNamed = _engine_views.TrumpNamed
CardsMoved = _engine_views.CardsMoved
CardsShown = _engine_views.CardsShown
Resigned = _engine_views.Resigned
Timeout = _engine_views.Timeout
DealResult = _engine_views.DealResult
MatchResult = _engine_views.MatchResult
DealEnded = _engine_views.DealEnded
MatchEnded = _engine_views.MatchEnded
Bid = _engine_views.Bid
Contract = _engine_views.Contract
LegalAction = _engine_views.LegalAction
MarriageView = _engine_views.MarriageView
OwnTricks = _engine_views.OwnTricks

# ---------------------------------------------------------------------------------------------
# Enums (common.proto, ladder.proto): the value names

Phase = Literal["PHASE_UNSPECIFIED", "PHASE_LEAD", "PHASE_FOLLOW", "PHASE_DRAW", "PHASE_EXCHANGE_ON_CLOSE",
                "PHASE_BIDDING", "PHASE_OVER"]
TalonState = Literal["TALON_STATE_UNSPECIFIED", "TALON_STATE_OPEN", "TALON_STATE_CLOSED", "TALON_STATE_EXHAUSTED"]
ScoreDirection = Literal["SCORE_DIRECTION_UNSPECIFIED", "SCORE_DIRECTION_UP", "SCORE_DIRECTION_DOWN"]
TimeControlScope = Literal["TIME_CONTROL_SCOPE_UNSPECIFIED", "TIME_CONTROL_SCOPE_DEAL", "TIME_CONTROL_SCOPE_MATCH"]
OutcomeKind = Literal["OUTCOME_KIND_UNSPECIFIED", "OUTCOME_KIND_NORMAL", "OUTCOME_KIND_TIMEOUT", "OUTCOME_KIND_RESIGN",
                      "OUTCOME_KIND_ILLEGAL", "OUTCOME_KIND_DISCONNECT", "OUTCOME_KIND_ABANDONED"]
LadderFormat = Literal["LADDER_FORMAT_UNSPECIFIED", "LADDER_FORMAT_ROUND_ROBIN", "LADDER_FORMAT_GAUNTLET",
                       "LADDER_FORMAT_SPRT", "LADDER_FORMAT_SWISS", "LADDER_FORMAT_KNOCKOUT",
                       "LADDER_FORMAT_ARENA"]
LadderStatus = Literal["LADDER_STATUS_UNSPECIFIED", "LADDER_STATUS_RUNNING", "LADDER_STATUS_FINISHED",
                       "LADDER_STATUS_STOPPED", "LADDER_STATUS_PAUSED"]

# ---------------------------------------------------------------------------------------------
# Variants (ListVariants)


class CardInfo(TypedDict):
    """One card of a variant's deck: engine ``id``, ``code`` ("QH"), ``suit``, ``rank``, trick
    ``points``, ``local_names`` by language code."""

    id: int
    code: str
    suit: str
    rank: str
    points: int
    local_names: dict[str, str]


class OptionInfo(TypedDict):
    """A rule option: values as strings; ``type`` "bool", "int" or "enum"; ``minimum`` and
    ``maximum`` (inclusive) only for a bounded "int"."""

    name: str
    type: str
    default_value: str
    allowed_values: list[str]
    description: str
    rule_ids: list[str]
    minimum: NotRequired[int]
    maximum: NotRequired[int]


class VariantInfo(TypedDict):
    """A playable variant (an item of :meth:`AsyncClient.list_variants`)."""

    id: str
    aliases: list[str]
    name: str
    num_players: int
    deck: list[CardInfo]
    options: list[OptionInfo]
    section: str
    description: str
    card_language: str


# ---------------------------------------------------------------------------------------------
# Time


class TimeControl(TypedDict):
    """Clock settings, milliseconds as decimal strings (``{"base_ms": "5000", ...}``)."""

    base_ms: str
    increment_ms: str
    move_cap_ms: str
    lag_compensation_ms: str
    scope: TimeControlScope
    bank_ms: str


class Clock(TypedDict):
    """One seat's clock when the message was sent; milliseconds as decimal strings."""

    seat: int
    remaining_ms: str
    running: bool
    move_remaining_ms: str
    bank_ms: str


# ---------------------------------------------------------------------------------------------
# Results


# ---------------------------------------------------------------------------------------------
# Bidding


class Auction(TypedDict):
    bids: list[Bid]
    contract: NotRequired[Contract]  # once the auction has fixed it


# ---------------------------------------------------------------------------------------------
# Public events: an ``Event`` holds ``version``, ``deal_number`` and exactly one of the kinds


class Event(TypedDict, total=False):
    """``version`` (decimal string; "0" in a deal's ``history``) and ``deal_number``, plus exactly
    one kind (the ``kind`` oneof): test for it with ``"card_played" in event``."""

    version: Required[str]
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
# Information set (docs/RULES.md §14)


class MatchView(TypedDict):
    """The match-level (public) view: per seat ``game_points`` and ``sets_won``, ``deal_number``
    0-based, ``winner`` (-1 until over), the finished ``deals``."""

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


class DealView(TypedDict):
    """The deal as the seat sees it: ``to_act`` (-1 = none), its own ``hand`` (card codes),
    ``hand_sizes`` per seat, the ``current_trick``, the deal's ``history`` of events."""

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
    own_tricks: NotRequired[OwnTricks]  # only where the variant lets a seat look at its tricks
    auction: NotRequired[Auction]  # only in the variants with bidding
    seats: list[int]
    laid_away: list[str]
    laid_away_taken_up: list[str]


class InformationSet(TypedDict):
    """What one seat may know at ``version`` (a decimal string): ``match``, ``deal``, its
    ``legal_actions`` (empty when not to act), ``clocks`` (milliseconds; empty without a time
    control). A spectator's public view is one of seat -1."""

    match_id: str
    version: str
    variant: str
    seat: int
    num_seats: int
    team_of_seat: list[int]
    options: dict[str, str]
    match: MatchView
    deal: DealView
    legal_actions: list[LegalAction]
    clocks: list[Clock]
    time_control: NotRequired[TimeControl]  # without a time control: absent


# ---------------------------------------------------------------------------------------------
# GameService


class SeatInfo(TypedDict):
    seat: int
    name: str
    team: int


class WatchSettings(TypedDict):
    access: str
    delay_moves: int


class MatchSummary(TypedDict):
    """Public facts of a match (:attr:`CreatedMatch.summary`, :attr:`WatchUpdate.summary`);
    ``version``, ``created_at_ms`` (ms since the epoch), ``idle_limit_ms`` decimal strings."""

    match_id: str
    variant: str
    options: dict[str, str]
    seats: list[SeatInfo]
    team_of_seat: list[int]
    version: str
    over: bool
    created_at_ms: str
    time_control: NotRequired[TimeControl]
    timeout_policy: str
    idle_limit_ms: str
    deck_commitment: str
    watch: WatchSettings


class SubmitActionResponse(TypedDict):
    """:meth:`AsyncClient.submit_action`: the ``version`` after the action, the seat's
    ``information_set`` there, the ``events`` the action committed; ``duplicate``: a retry."""

    version: str
    information_set: InformationSet
    events: list[Event]
    duplicate: bool


class MatchUpdate(TypedDict):
    """An update of :meth:`AsyncClient.stream` and of a ``Play`` call: the seat's
    ``information_set`` at ``version`` and the ``events`` since the previous update."""

    version: str
    events: list[Event]
    information_set: InformationSet


class ResignResponse(TypedDict):
    version: str
    match_result: MatchResult


class ActionRecord(TypedDict):
    """One recorded action: ``action_id`` -1 for a service outcome or a hidden action;
    ``timestamp_ms`` (ms since the epoch), ``think_ms`` and ``clock_ms`` (-1 without a clock) are
    decimal strings."""

    version: str
    seat: int
    action_id: int
    action_text: str
    timestamp_ms: str
    deal_number: int
    kind: OutcomeKind
    think_ms: str
    clock_ms: str


class DealRecord(TypedDict):
    deal_number: int
    dealer: int
    deck_order: list[str]  # empty until the record is revealed
    result: NotRequired[DealResult]  # while the deal is played: absent


class MatchRecord(TypedDict):
    """The record of :meth:`AsyncClient.match_record`; ``seed`` (a decimal string), ``deck_salt``,
    ``suit_perm`` and the deck orders only once ``revealed``; ``match_result`` once over."""

    match_id: str
    variant: str
    options: dict[str, str]
    seats: list[SeatInfo]
    team_of_seat: list[int]
    seed: NotRequired[str]
    deals: list[DealRecord]
    actions: list[ActionRecord]
    match_result: NotRequired[MatchResult]
    over: bool
    version: str
    created_at_ms: str
    time_control: NotRequired[TimeControl]
    timeout_policy: str
    deck_commitment: str
    deck_salt: str
    suit_perm: list[int]
    max_deals: int
    revealed: bool


class WatchUpdate(TypedDict):
    """A spectator update of :meth:`AsyncClient.watch`: the ``public_view`` (seat -1) at
    ``version``, the ``events`` since the previous update, the match's ``summary``."""

    version: str
    events: list[Event]
    public_view: InformationSet
    summary: MatchSummary


class SeatCards(TypedDict):
    seat: int
    cards: list[str]


class ReplayStep(TypedDict):
    """One version of a replay: every ``hands``, the ``talon`` (top first), ``seat_views`` only
    when asked for; ``action``: the record entry that made it (absent for version 1)."""

    version: str
    events: list[Event]
    public_view: InformationSet
    hands: list[SeatCards]
    talon: list[str]
    laid_away: list[SeatCards]
    seat_views: list[InformationSet]
    action: NotRequired[ActionRecord]


class MatchReplay(TypedDict):
    """:meth:`AsyncClient.match_replay`: the full ``record`` and ``steps`` for versions 1 .. its
    version."""

    record: MatchRecord
    steps: list[ReplayStep]


class ActionValue(TypedDict):
    """A legal action of an analysed decision: ``value`` its expected game points for the deciding
    seat (won minus lost), the mean over worlds sampled from that seat's information set."""

    action_id: int
    action_text: str
    value: float


class AnalysedDecision(TypedDict):
    """A decision of :meth:`AsyncClient.analysis`: the action taken at ``version`` by ``seat``;
    ``phase`` ``"talon_open"``, ``"talon_closed"``, ``"endgame"`` or ``"contract"``; when ``valued``:
    ``values`` best first, ``loss`` (game points given away against the best) and ``kind``
    (``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or ``""``)."""

    version: str
    seat: int
    action_id: int
    action_text: str
    phase: str
    legal_actions: int
    valued: bool
    values: list[ActionValue]
    best_action_id: int
    loss: float
    kind: str


class PhaseMistakes(TypedDict):
    phase: str
    inaccuracies: int
    mistakes: int
    blunders: int


class SeatAnalysis(TypedDict):
    """A seat's summary: valued ``decisions``, ``mean_loss`` and ``total_loss`` (game points),
    mistakes per phase."""

    seat: int
    name: str
    decisions: int
    mean_loss: float
    total_loss: float
    phases: list[PhaseMistakes]


class AnalysisSettings(TypedDict):
    """Worlds ``samples`` per decision, ``budget_ms`` of wall time per decision, the ``seed``, and
    the loss thresholds (game points) of the kinds."""

    samples: int
    budget_ms: float
    seed: int
    inaccuracy: float
    mistake: float
    blunder: float


class MatchAnalysis(TypedDict):
    """:meth:`AsyncClient.analysis`: ``state`` ``"pending"`` (ask again after ``retry_after_ms``,
    a decimal string of milliseconds) or ``"done"`` with every decision and a summary per seat;
    ``cpu_ms`` the computation's CPU time."""

    match_id: str
    state: str
    retry_after_ms: str
    decisions: list[AnalysedDecision]
    seats: list[SeatAnalysis]
    cpu_ms: float
    settings: AnalysisSettings
