"""Information sets (docs/RULES.md §14) and public events.

:func:`information_set` returns exactly what one seat may know, as the ``InformationSet`` message
in its JSON shape (:mod:`bummerl.rules.base.views`: proto field names, proto enum names): own hand,
face-up trump card, talon size and state, the deal's full public history (perfect recall: every
card played, trick, marriage shown, exchange, closing, declaration), counts of tricks won, scores,
and the legal actions when the seat is to act. Never an opponent's hand, the talon's face-down
cards or their order, or cards drawn by the opponent (§14.3). Own won cards and own points are
sent only where the variant lets a player look at his tricks (§14.2, ``may_view_own_tricks``).
The ``deal`` part is the deal's own :meth:`~bummerl.rules.table.protocols.Deal.view` (two-player
and contract deals alike); :func:`public_view` is the onlooker's information set.

Level 3 of the engine stack (:mod:`bummerl.rules.match`): imports the levels below and this level.
"""

from __future__ import annotations

from typing import Any, cast

from ..base import actions as A
from ..base import views as V
from ..base.events import deal_ended, event_view, match_ended
from ..table.outcome import DealResult
from .state import MatchState

__all__ = ["SPECTATOR", "deal_result_view", "event_view", "events_between", "history_views", "information_set",
           "initial_events", "legal_action_dicts", "match_result", "public_view"]

SPECTATOR = -1
"""The ``seat`` of a public view: nobody's seat."""


def deal_result_view(result: DealResult) -> V.DealResult:
    """A finished deal's result as the ``DealResult`` message (the NamedTuple's fields are its fields,
    as plain data: :meth:`DealResult.to_dict`)."""
    return cast(V.DealResult, result.to_dict())


def match_result(m: MatchState) -> V.MatchResult:
    """``{"winner", "game_points", "sets_won", "match_schneider", "reason", "placements"}``:
    winner = team (seat without teams) alone in first place, -1 while running or shared;
    ``placements`` = place per seat (1 = first), empty while running."""
    return {
        "winner": m.winner,
        "game_points": list(m.game_points),
        "sets_won": list(m.sets_won),
        "match_schneider": m.match_schneider,
        "reason": str(m.end_reason),
        "placements": list(m.placements),
    }


def _deal_hand_sizes(m: MatchState) -> list[int]:
    """The ``hand_sizes`` of a ``deal_started`` event whose history tuple has none (contract deals)."""
    return [m.rules.spec.hand_size] * m.num_seats


def initial_events(m: MatchState, version: int = 0) -> list[V.Event]:
    """The public events of the current deal so far, each with ``version`` (a new match's first
    events: the deal, and in the contract games whatever happens before a seat acts)."""
    return [event_view(e, m.deal_number, version, _deal_hand_sizes(m)) for e in m.deal.history]


def events_between(before: MatchState, after: MatchState, version: int = 0) -> list[V.Event]:
    """Public events that turned ``before`` into ``after`` (a later state of the same match), in
    order, each with ``version`` and the deal it belongs to: the deal's new history,
    ``deal_ended`` for each finished deal, the next ``deal_started``, and ``match_ended``. Used by
    the service for event streams; contains no hidden card."""
    out: list[V.Event] = []
    start = len(before.deal.history)
    sizes = _deal_hand_sizes(after)
    for n in range(before.deal_number, after.deal_number + 1):
        hist = after.histories[n] if n < len(after.histories) else after.deal.history
        out.extend(event_view(e, n, version, sizes) for e in hist[start:])
        if len(before.results) <= n < len(after.results):
            out.append(deal_ended(deal_result_view(after.results[n]), version))
        start = 0
    if after.over and not before.over:
        out.append(match_ended(match_result(after), after.deal_number, version))
    return out


def legal_action_dicts(m: MatchState) -> list[V.LegalAction]:
    """``[{"id", "text", "kind", "card", "suit", "contract"}]`` for the seat to act (``""`` if none)."""
    out: list[V.LegalAction] = []
    for a in m.legal_actions():
        s = A.action_struct(a)
        out.append({"id": a, "text": A.action_to_string(a), "kind": s["kind"], "card": s.get("card", ""),
                    "suit": s.get("suit", ""), "contract": s.get("contract", "")})
    return out


def _opt_str(v: object) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


_OPTION_VIEWS: dict[int, tuple[Any, dict[str, str]]] = {}
_OPTION_VIEWS_MAX = 512


def _options_view(r: Any) -> dict[str, str]:
    """The ``options`` of an information set for the table ``r`` (a :class:`Rules`): each value as
    its wire string, sorted by name. Built once per Rules object (immutable; tables of the same
    options share one), a fresh copy each call, so a caller may change what it gets."""
    got = _OPTION_VIEWS.get(id(r))
    if got is None or got[0] is not r:  # the entry holds r, so its id is not reused meanwhile
        if len(_OPTION_VIEWS) >= _OPTION_VIEWS_MAX:
            _OPTION_VIEWS.clear()
        got = _OPTION_VIEWS[id(r)] = (r, {k: _opt_str(v) for k, v in sorted(r.options.items())})
    return dict(got[1])


def _shown_history(m: MatchState) -> list[tuple[Any, ...]]:
    """The history tuples of the deal an information set shows: the current deal's, or when the
    match is over the last finished deal's."""
    finished = m.over and m.deal_number < len(m.histories)
    return m.histories[m.deal_number] if finished else m.deal.history


def history_views(m: MatchState, known: tuple[V.Event, ...] = ()) -> tuple[V.Event, ...]:
    """The public history of the deal :func:`information_set` shows (``deal.history``: one
    ``Event`` per history entry, ``version`` 0), for every seat alike. ``known``: what this
    function returned for an earlier state of the *same match*: a deal's history only grows, so
    when ``known`` is of the same deal (its ``deal_number``) those views are reused (the same dict
    objects) and only the entries after them are converted; ``known`` itself when nothing was
    added. A ``known`` of another deal, or longer than the history, is ignored."""
    history = _shown_history(m)
    same = bool(known) and known[0]["deal_number"] == m.deal_number and len(known) <= len(history)
    start = len(known) if same else 0
    if start == len(history):
        return known if start else ()
    sizes = _deal_hand_sizes(m)
    new = tuple(event_view(e, m.deal_number, 0, sizes) for e in history[start:])
    return known[:start] + new if start else new


def information_set(m: MatchState, seat: int, history: tuple[V.Event, ...] | None = None) -> V.InformationSet:
    """What ``seat`` may know now (docs/RULES.md §14.1-§14.3), as the ``InformationSet`` message
    (:mod:`bummerl.rules.base.views`; the service adds ``match_id``, ``version`` and clocks). Raises
    ValueError for a seat outside the table. Two states that differ only in cards hidden from
    ``seat`` give identical dicts (tested). A seat that sits out the deal (STK-SEAT-1) sees the
    public events and an empty hand; a contract deal gives its own view (:meth:`ContractDeal.view`).
    ``history``: :func:`history_views` of ``m``, when the caller keeps them across seats and
    states (the information set then holds those very dicts, which nobody may change); None =
    built here."""
    n = m.num_seats
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not at this table (0..{n - 1})")
    deal = m.deal.view(seat, m.deal_number, history_views(m) if history is None else history, n)
    return _with_match(m, seat, deal, legal_action_dicts(m) if m.to_act == seat else [])


def _with_match(m: MatchState, seat: int, deal: V.DealView, legal: list[V.LegalAction]) -> V.InformationSet:
    """The ``InformationSet`` of ``seat`` around its ``deal`` part: the deal's ``phase``,
    ``to_act`` and ``seats``, the table, the match score and ``legal``."""
    r = m.rules
    d = m.deal
    deal["phase"] = V.PHASES["over" if m.over else d.phase_name]
    deal["to_act"] = m.to_act
    deal["seats"] = list(d.seats)
    return {
        "variant": r.spec.id,
        "seat": seat,
        "num_seats": m.num_seats,
        "team_of_seat": list(r.spec.team_of_seat),
        "options": _options_view(r),
        "match": {
            "game_points": list(m.game_points),
            "target": r.set_goal,
            "direction": V.SCORE_DIRECTIONS[r.spec.direction],
            "sets_won": list(m.sets_won),
            "set_target": r.set_goal,
            "sets_to_win": r.sets_goal,
            "carried_points": m.carried,
            "deal_number": m.deal_number,
            "dealer": m.dealer,
            "over": m.over,
            "winner": m.winner,
            "deals": [deal_result_view(x) for x in m.results],
            "placements": list(m.placements),
            "playoff": m.playoff is not None,
            "max_deals": m.max_deals,
        },
        "deal": deal,
        "legal_actions": legal,
        "clocks": [],
    }


def public_view(m: MatchState, history: tuple[V.Event, ...] | None = None) -> V.InformationSet:
    """What anyone watching ``m`` may know (§14.3), as an ``InformationSet`` dict with ``seat``
    :data:`SPECTATOR`: ``deal.hand``, ``deal.laid_away`` and ``deal.laid_away_taken_up`` empty, no
    ``deal.own_tricks``, ``legal_actions`` empty; everything else as in every seat's information
    set (the service adds ``match_id``, ``version`` and the clocks). ``history``:
    :func:`history_views` of ``m`` when the caller shares them; None = built here. Pure: reads
    ``m``, never changes it.

    A deal's view is a seat's: the view of seat 0 with what is that seat's taken out (its hand,
    its laid-away cards, its own tricks); every other field of a deal's view is public."""
    shown = history_views(m) if history is None else history
    deal = m.deal.view(0, m.deal_number, shown, m.num_seats)
    deal["hand"] = []
    deal["laid_away"] = []
    deal["laid_away_taken_up"] = []
    deal.pop("own_tricks", None)
    return _with_match(m, SPECTATOR, deal, [])
