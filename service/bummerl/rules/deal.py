"""What a deal class offers the match (docs/RULES.md §1.7, §1.8): the :class:`Deal` protocol and
the :class:`DealOutcome` every deal class ends with.

Two kinds of deal exist: the two-player trick-and-draw deal (:class:`bummerl.rules.state.DealState`,
§1.7), also played by the active pair of Stockschnapsen and the Hungarian rotation game, and the
contract deals of the three- and four-player games (§1.8). :class:`bummerl.rules.state.MatchState`
drives any of them through this protocol and never looks inside:

* seats are **match seats** everywhere a deal talks to the outside (``to_act``, ``dealer``, the
  history tuples, ``view``, ``outcome.awards``); a deal played by some of the seats only (the
  sitting-out player, STK-SEAT-1, HU3R-INH-1) knows its ``seats``;
* ``history`` is the deal's public record as tuples whose first element is the event type
  (:func:`bummerl.rules.events.event_view` makes them ``Event`` dicts); it never holds a card that
  is not public when the event happens;
* ``view(seat, deal_number)`` (contract deals; the two-player deal's is in
  :mod:`bummerl.rules.infoset`) is the ``deal`` part of a seat's information set (§14): the seat's
  own hand and whatever else it may see, a :class:`bummerl.rules.views.DealView`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from .variant import Rules


class DealOutcome(NamedTuple):
    """How a deal ended.

    ``winner``: for a two-player deal the winning **deal** seat (-1 = drawn deal); for a contract
    deal the winning team (:attr:`VariantSpec.teams`, a seat in games without fixed teams; -1 when
    several seats are credited without a single winner, e.g. both defenders). ``game_points``: the
    value the deal was won for (before carried points and credits to other seats). ``reason``:
    e.g. ``declared``, ``last_trick``, ``closed_success``, ``contract_made``,
    ``contract_defeated``. ``carry``: game points carried to the next decided deal (O66-SCORE-2).
    ``awards``: game points per **match** seat for deals that credit seats themselves (contract
    deals: TS-SCORE-1, HU3S-CON-9, BS-SCORE-1); empty for two-player deals, whose credit the match
    plan decides (STK-SCORE-1, HU3R-SCORE-1)."""

    winner: int
    game_points: int
    reason: str
    carry: int = 0
    awards: tuple[int, ...] = ()


class DealSummary(NamedTuple):
    """Per-seat facts of a finished deal for its :class:`~bummerl.rules.state.DealResult`
    (index = match seat; seats that did not play show 0): deal points (DEF-PTS-3, a side's total
    for each of its members), tricks won, the DEF-PTS-6 flags of the losing side, and for
    contract deals the contract name, declarer seat and multiplier (1, 2, 4, 8, 16)."""

    deal_points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    schwarz: bool
    deal_schneider: bool
    contract: str = ""
    declarer: int = -1
    multiplier: int = 1


class Deal(Protocol):
    """A deal as :class:`~bummerl.rules.state.MatchState` drives it (``seats``, ``acting``,
    ``dealer_seat``, ``winner_seat`` and the history in match seats). Contract deals are built
    with the class method ``new(rules, deck, dealer)`` (``deck``: card ids, top first);
    two-player deals with ``DealState.new(rules, deck, dealer, seats)``. The information set of
    a deal is :func:`bummerl.rules.infoset.information_set` (contract deals: their ``view``)."""

    rules: Rules
    seats: tuple[int, ...]
    history: list[tuple[Any, ...]]

    @property
    def outcome(self) -> DealOutcome | None:
        """Set when the deal has ended."""

    @property
    def acting(self) -> int:
        """Match seat to act; -1 once the deal is over."""

    @property
    def dealer_seat(self) -> int:
        """Match seat of the dealer."""

    @property
    def over(self) -> bool:
        """The deal has ended (``outcome`` is set)."""

    @property
    def phase_name(self) -> str:
        """Phase for the information set: ``lead``, ``follow``, ``draw``, ``exchange_on_close``,
        ``bidding``, ``over`` (the ``Phase`` proto enum, lower case without prefix)."""

    def winner_seat(self) -> int:
        """The winner as :class:`DealResult` records it: a match seat for two-player deals, the
        outcome's winner (team or seat) for contract deals; -1 for none."""

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending; empty when over."""

    def step(self, a: int) -> None:
        """Apply a legal action in place (the match checks legality first)."""

    def copy(self) -> Any:
        """An independent copy (lists copied; immutable parts shared)."""

    def summary(self, n: int) -> DealSummary:
        """Per-seat facts of the finished deal for ``n`` match seats (see :class:`DealSummary`)."""

    def forfeit(self, seat: int) -> None:
        """Match seat ``seat`` loses the deal on time (SRV-5, timeout policy ``forfeit-deal``)."""

    def to_snapshot(self) -> dict[str, Any]:
        """JSON-ready state (hidden cards included: never sent to a player)."""


def event_tuple(e: list[Any] | tuple[Any, ...]) -> tuple[Any, ...]:
    """A history entry read back from JSON: nested lists (a trick's cards) become tuples."""
    return tuple(tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for v in e)


def slots_to_dict(obj: Any, slots: tuple[str, ...]) -> dict[str, Any]:
    """The ``to_snapshot`` of a deal class: every slot but ``rules`` (JSON-ready by construction)."""
    return {n: getattr(obj, n) for n in slots if n != "rules"}


def slots_from_dict(cls: Any, rules: Rules, slots: tuple[str, ...], data: dict[str, Any]) -> Any:
    """The common half of a deal class's ``from_snapshot``: a ``cls`` object with every slot of
    ``data`` set, ``rules`` attached, ``seats`` and the history read back as tuples. The caller
    converts its own nested fields. Raises KeyError for a missing slot (foreign data)."""
    d = cls.__new__(cls)
    for n in slots:
        if n != "rules":
            setattr(d, n, data[n])
    d.rules = rules
    d.seats = tuple(data["seats"])
    d.history = [event_tuple(e) for e in data["history"]]
    return d
