"""Worlds consistent with an information set: the engine's world sampling (issue 36), as
OpenSpiel's ``resample_from_infostate``, public through the facade (``bummerl.rules.worlds``).

A seat's information set (RULES.md §14, the served JSON shape of :mod:`bummerl.rules.base.views`)
says what the seat may know; a *world* is a full engine deal, hidden cards included, in which
every public event of the current deal happened as the seat saw it and the seat holds what it
holds. :func:`sample_world` draws one for every variant:

* a two-player talon deal (the two-player games; the rotation deals of ``stockschnapsen``
  STK-INH-1 and ``snapszer-hu-3p-rotation`` HU3R-INH-1, read in deal seats by :func:`local_view`;
  the play-off deal of a contract game, TS-MATCH-1 / HU3S-MATCH-1):
  :class:`~bummerl.rules.worlds_talon.PublicDeal` (known cards, revealed voids of strict play,
  DEF-PLAY-STRICT) deals the unseen cards uniformly among the layouts that respect them;
* a contract deal (``bauernschnapsen``, ``talonschnapsen``, ``snapszer-hu-3p-sopron``,
  ``snapszer-hu-4p``): :class:`~bummerl.rules.worlds_contract.ContractSampler` replays the
  whole public history on a sampled deal.

Tested on every variant against the engine's own deals (tests/rules/test_worlds.py): every
sampled world agrees with the seat's information set, and the real deal is among the possible
ones. :class:`InconsistentInfo` (a ValueError; :class:`NoSample` for contract deals) is raised
when no world fits: an information set of a foreign or altered table.

:func:`local_view` rewrites a rotation deal's information set into that of a two-player table:
seat numbers become deal seats (0 and 1, in the order of ``deal.seats``), per-seat lists keep the
two players' entries, the match score keeps theirs. The play-off deal of a contract game is read
the same way, under its play-off variant. Nothing is added: it is the same information in other
numbers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .deals.contract import ContractDeal
from .deals.talon import TalonDeal
from .table.variant import find_variant
from .worlds_contract import ContractSampler, NoSample, pick_by_weight
from .worlds_talon import InconsistentInfo, PublicDeal, events

__all__ = [
    "ContractSampler", "InconsistentInfo", "NoSample", "PublicDeal", "events", "is_rotation_deal", "local_view",
    "match_playoff", "pick_by_weight", "sample_world",
]

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


def sample_world(info: Mapping[str, Any], rng: random.Random) -> TalonDeal | ContractDeal:
    """One world (a full engine deal of the current deal, in match seats) consistent with ``info``,
    a seat's information set as the engine builds it or as served (RULES.md §14). ``rng``: the only
    source of chance (repeatable from its seed).

    Returns a :class:`~bummerl.rules.TalonDeal` for a two-player talon deal (its ``seats`` are the
    match seats of the pair that plays a rotation or play-off deal) or a
    :class:`~bummerl.rules.search.ContractDeal` for a contract deal, positioned at the present
    decision. Raises :class:`InconsistentInfo` (a ValueError; :class:`NoSample` for a contract deal)
    when no world fits ``info``, and ValueError when the seat does not play the current deal."""
    n = int(info.get("num_seats", 2))
    if n == 2 or is_rotation_deal(info):
        seats = [int(s) for s in (info.get("deal") or {}).get("seats") or range(n)]
        public = PublicDeal(local_view(info) if n > 2 else info)
        opp, talon = public.sample(rng)
        return public.deal_state(opp, talon, (seats[0], seats[1]))
    return ContractSampler(info).sample(rng)
