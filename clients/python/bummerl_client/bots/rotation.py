"""The two-player view of a rotation deal (``stockschnapsen``, docs/RULES.md §7 STK-INH-1;
``snapszer-hu-3p-rotation``, §8 HU3R-INH-1): each deal of those three-player games is a
two-player deal between the pair that plays it while the third seat sits out, so the two-player
search of ``strong`` plays it unchanged once the information set speaks of deal seats.

:func:`local_view` rewrites a seat's information set (the served JSON shape, RULES.md §14) into
that of a two-player table: seat numbers become deal seats (0 and 1, in the order of
``deal.seats``), per-seat lists keep the two players' entries, the match score keeps theirs. The
play-off deal of a contract game (a ``schnapsen-at`` or ``snapszer-hu-2p`` deal between two
seats tied for a place, TS-MATCH-1, HU3S-MATCH-1) is read the same way, under its variant.
Nothing is added: it is the same information in other numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bummerl.rules import find_variant

#: Fields that hold a match seat (or -1) anywhere inside the deal view and its events.
_SEAT_KEYS = frozenset(("seat", "winner", "dealer", "to_act", "leader", "closed_by"))
#: Fields that hold one entry per match seat.
_PER_SEAT = frozenset(("hand_sizes", "tricks_won", "game_points", "sets_won"))


def is_rotation_deal(raw: Mapping[str, Any]) -> bool:
    """True for the information set of a two-player deal at a table of more seats (a talon
    game: ``talon_state`` is set; the contract deals of §9-§12 have none)."""
    deal = raw.get("deal") or {}
    return (int(raw.get("num_seats", 2)) > 2 and len(deal.get("seats") or []) == 2
            and deal.get("talon_state") not in (None, "", "TALON_STATE_UNSPECIFIED"))


def match_playoff(raw: Mapping[str, Any]) -> bool:
    """Is this deal a play-off deal (``match.playoff``)?"""
    return bool((raw.get("match") or {}).get("playoff", False))


def local_view(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` (a seat's information set in a rotation deal it plays) as a two-player
    information set in deal seats. Raises ValueError if the seat does not play this deal."""
    deal = raw.get("deal") or {}
    seats = [int(s) for s in deal.get("seats") or []]
    me = int(raw.get("seat", -1))
    if len(seats) != 2 or me not in seats:
        raise ValueError(f"seat {me} does not play this deal (seats {seats})")
    local = {s: i for i, s in enumerate(seats)}

    def seat(v: Any) -> Any:
        try:
            k = int(v)
        except (TypeError, ValueError):
            return v
        return local.get(k, -1) if k >= 0 else k

    def walk(x: Any) -> Any:
        if isinstance(x, Mapping):
            out: dict[str, Any] = {}
            for k, v in x.items():
                if k in _SEAT_KEYS and not isinstance(v, (Mapping, list)):
                    out[k] = seat(v)
                elif k in _PER_SEAT and isinstance(v, list) and len(v) > max(seats):
                    out[k] = [v[s] for s in seats]
                else:
                    out[k] = walk(v)
            return out
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    out = dict(raw)
    if match_playoff(raw):
        # a play-off deal of a contract game is a deal of its play-off variant at that
        # variant's default table (TS-MATCH-1, HU3S-MATCH-1; bummerl.rules.match.plans)
        plan = find_variant(str(raw.get("variant", ""))).plan
        other = getattr(plan, "playoff_variant", None)
        if other:
            out["variant"] = other
            out["options"] = {}
    out["seat"] = local[me]
    out["num_seats"] = 2
    out["team_of_seat"] = [0, 1]
    out["deal"] = walk(deal)
    out["deal"]["seats"] = [0, 1]
    match = dict(raw.get("match") or {})
    for k in ("game_points", "sets_won"):
        v = match.get(k)
        if isinstance(v, list) and len(v) > max(seats):
            match[k] = [v[s] for s in seats]
    for ev in deal.get("history") or []:
        started = ev.get("deal_started")
        if started is not None:
            match["dealer"] = seat(started.get("dealer", -1))
            break
    else:
        match["dealer"] = seat(match.get("dealer", -1))
    out["match"] = match
    out["clocks"] = [walk(c) for c in raw.get("clocks") or [] if int(c.get("seat", -1)) in local]
    return out
