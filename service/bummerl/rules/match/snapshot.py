"""A match as stored data (docs/DESIGN.md §3, §9: the action log is the source of truth; the
stored snapshot is a cache with a layout tag and a replay fallback).

* :func:`to_log` / :func:`replay`: the log (variant, options, seed, decks, first dealer, actions,
  how a conceded match ended) and its replay to an equal state;
* :func:`take` / :func:`load`: the whole state as JSON-ready data and back without replaying;
* :func:`restore`: :func:`load` when the snapshot's :func:`layout` is this engine's, else (or if it
  does not load) :func:`replay` of its log, so a snapshot written by another version of the
  engine (a slot added or renamed) still restores.

The match class is passed in (``cls``: :class:`bummerl.rules.match.state.MatchState`, whose
methods call these), so this module needs nothing above it; variants are looked up in the
registry (:func:`bummerl.rules.table.variant.find_variant`, filled by the facade).

Level 3 of the engine stack (:mod:`bummerl.rules.match`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from ..base.errors import IllegalActionError
from ..deals.slots import event_tuple
from ..deals.talon import TalonDeal
from ..table.outcome import END_REASONS, DealEnd, DealResult, MatchEnd
from ..table.variant import Rules, configure_cached, find_variant


class MatchData(Protocol):
    """The fields of a match that its log and its snapshot hold: the slots of
    :class:`bummerl.rules.match.state.MatchState` (this module sits below it and names no class
    above; :func:`layout` digests the real class's slot names)."""

    rules: Rules
    seed: int
    decks: tuple[tuple[int, ...], ...]
    first_dealer: int
    deal: Any
    deal_number: int
    game_points: list[int]
    sets_won: list[int]
    carried: int
    results: list[DealResult]
    histories: list[list[tuple[Any, ...]]]
    over: bool
    winner: int
    end_reason: MatchEnd | str
    match_schneider: bool
    actions: list[tuple[int, int]]
    max_deals: int
    suit_perm: tuple[int, ...]
    num_seats: int
    placements: list[int]
    playoff: dict[str, Any] | None

FORFEIT_DEAL = -1
"""Pseudo action id of a deal forfeited on time in the log (see :data:`bummerl.rules.match.state.FORFEIT_DEAL`)."""

SNAPSHOT_FORMAT = 2
"""Bump when the meaning of a snapshot field changes without a slot being added or removed."""

_LAYOUTS: dict[type, str] = {}


def layout(cls: Any) -> str:
    """The layout tag written into every snapshot: :data:`SNAPSHOT_FORMAT` and a digest of the
    slot names of the match class ``cls`` and of :class:`~bummerl.rules.deals.talon.TalonDeal`, so
    that a deploy that adds, removes or renames a slot changes it and :func:`restore` replays the
    log instead. (The names, not the modules: the tag did not change when the engine became a
    stack, and snapshots stored before still load without a replay.)"""
    tag = _LAYOUTS.get(cls)
    if tag is None:
        names = ",".join([*cls.__slots__, "|", *TalonDeal.__slots__])
        tag = _LAYOUTS[cls] = f"{SNAPSHOT_FORMAT}:{hashlib.sha256(names.encode()).hexdigest()[:12]}"
    return tag


def _ended(m: MatchData) -> list[Any] | None:
    return [m.deal.history[-1][1], str(m.end_reason)] if m.end_reason in END_REASONS else None


def to_log(m: MatchData, *, actions: bool = True) -> dict[str, Any]:
    """The match as its log (see :meth:`MatchState.to_dict`)."""
    out = {
        "variant": m.rules.spec.id,
        "options": dict(m.rules.options),
        "seed": m.seed,
        "decks": [list(d) for d in m.decks],
        "first_dealer": m.first_dealer,
        "actions": [list(a) for a in m.actions] if actions else None,
        "resigned": m.deal.history[-1][1] if m.end_reason == MatchEnd.RESIGNED else None,
        "ended": _ended(m),
        "max_deals": m.max_deals,
        "suit_perm": list(m.suit_perm),
    }
    if not actions:
        del out["actions"]
    return out


def replay(cls: Any, data: dict[str, Any]) -> Any:
    """A ``cls`` match replayed from a log made by :func:`to_log`; raises IllegalActionError if it
    does not replay."""
    rules = find_variant(data["variant"]).configure(data["options"])
    m = cls(rules, int(data["seed"]), data.get("decks") or (), int(data["first_dealer"]),
            int(data.get("max_deals") or 0), tuple(data.get("suit_perm") or ()))
    for seat, a in data["actions"]:
        if a == FORFEIT_DEAL:
            if m.over:
                raise IllegalActionError("log replay: a forfeit after the end of the match")
            m.forfeit_deal(seat)
            continue
        if m.to_act != seat:
            raise IllegalActionError(f"log replay: seat {seat} acted out of turn")
        m.apply(a)
    if data.get("ended") is not None:
        m.concede(int(data["ended"][0]), str(data["ended"][1]))
    elif data.get("resigned") is not None:
        m.resign(int(data["resigned"]))
    return m


def take(m: MatchData, *, log_actions: bool = True) -> dict[str, Any]:
    """The whole state as JSON-ready data (see :meth:`MatchState.snapshot`)."""
    d = m.deal
    out = {
        "layout": layout(type(m)),
        "log": to_log(m, actions=log_actions),
        "deal_number": m.deal_number,
        "game_points": m.game_points,
        "sets_won": m.sets_won,
        "carried": m.carried,
        "results": [list(r) for r in m.results],
        "histories": m.histories,
        "over": m.over,
        "winner": m.winner,
        "end_reason": m.end_reason,
        "match_schneider": m.match_schneider,
        "placements": m.placements,
        "playoff": m.playoff,
        "deal": d.to_snapshot(),
    }
    if d.rules is not m.rules:  # a play-off deal of another variant (TS-MATCH-1)
        out["deal_variant"] = d.rules.spec.id
    return out


def _result(r: list[Any]) -> DealResult:
    return DealResult(r[0], r[1], tuple(r[2]), DealEnd(r[3]), tuple(r[4]), tuple(r[5]), r[6], r[7], r[8], r[9], r[10],
                      r[11], tuple(r[12]), r[13])


def load(cls: Any, data: dict[str, Any]) -> Any:
    """A ``cls`` match from :func:`take` data (no replay). Raises KeyError/TypeError/ValueError
    on foreign data (:func:`restore` falls back to the log)."""
    log = data["log"]
    m = cls.__new__(cls)
    m.rules = configure_cached(log["variant"], log["options"])
    m.num_seats = m.rules.spec.num_players
    m.seed = int(log["seed"])
    m.decks = tuple(tuple(x) for x in log.get("decks") or ())
    m.first_dealer = int(log["first_dealer"])
    m.max_deals = int(log.get("max_deals") or 0)
    m.suit_perm = tuple(log.get("suit_perm") or ())
    m.actions = [(a[0], a[1]) for a in log["actions"]]
    m.deal_number = data["deal_number"]
    m.game_points = list(data["game_points"])
    m.sets_won = list(data["sets_won"])
    m.carried = data["carried"]
    m.results = [_result(r) for r in data["results"]]
    m.histories = [[event_tuple(e) for e in h] for h in data["histories"]]
    m.over = data["over"]
    m.winner = data["winner"]
    m.end_reason = MatchEnd(data["end_reason"]) if data["end_reason"] else ""
    m.match_schneider = data["match_schneider"]
    m.placements = list(data["placements"])
    m.playoff = data["playoff"]
    deal_rules = configure_cached(data["deal_variant"], {}) if "deal_variant" in data else m.rules
    dd = data["deal"]
    # two-player deals, also the play-off deals of the contract games, have a talon
    deal_cls = TalonDeal if "talon" in dd else deal_rules.spec.deal_class
    d = deal_cls.from_snapshot(deal_rules, dd)
    if m.over and m.deal_number < len(m.histories):
        m.histories[m.deal_number] = d.history
    m.deal = d
    return m


def restore(cls: Any, data: dict[str, Any]) -> Any:
    """A ``cls`` match from :func:`take` data, also data written by another version of the engine
    (see :meth:`MatchState.restore`)."""
    if data.get("layout") == layout(cls):
        try:
            return load(cls, data)
        except (KeyError, TypeError, ValueError, IndexError):
            pass
    return replay(cls, data["log"])
