"""What the ``strong`` bot plays for: utilities in [-1, 1] of a two-player deal's outcome
(:class:`~bummerl.rules.DealOutcome`) for the seat that decides, by objective (``match``: the
chance of winning the match after the deal, from the game points each side still needs;
``points``: the deal's game points; ``win``: winning the deal), for a match limited to a number of
deals (SRV-5), and for the rotation deals of the three-seat games (STK-SCORE-1, HU3R-SCORE-1).
Read from the information set and the variant's spec (never its id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from bummerl.rules import DealOutcome, find_variant

from .elimination import normal_cdf

_DEAL_POINTS = ((1, 0.55), (2, 0.30), (3, 0.15))  # rough game points of a deal, for the match model


@lru_cache(maxsize=4096)
def win_chance(need_me: int, need_opp: int) -> float:
    """Chance of reaching the target first when each side still needs ``need_*`` game points and
    every future deal is a coin flip worth 1/2/3 game points (55/30/15 %)."""
    if need_me <= 0:
        return 1.0
    if need_opp <= 0:
        return 0.0
    return sum(q * 0.5 * (win_chance(need_me - g, need_opp) + win_chance(need_me, need_opp - g))
               for g, q in _DEAL_POINTS)


@lru_cache(maxsize=1024)
def _sets_chance(need_me: int, need_opp: int) -> float:
    """Chance of winning the match when each side needs that many more sets (coin flips)."""
    if need_me <= 0:
        return 1.0
    if need_opp <= 0:
        return 0.0
    return 0.5 * (_sets_chance(need_me - 1, need_opp) + _sets_chance(need_me, need_opp - 1))


#: Spread (standard deviation) of one two-player deal's game-point margin, game points: a deal
#: credits its winner 1 to 3 (AT-SCORE-1, O66-SCORE-1, SAN-SCORE-1, HU2-SCORE-1).
DEAL_SPREAD = 2.0


def make_utility(objective: str, info: Mapping[str, Any], me: int,
                 deal_limit: bool = True) -> Callable[[DealOutcome], float]:
    """Utility of a deal's outcome for seat ``me`` in [-1, 1] (``points``: game points, +-3).
    ``match`` at a two-seat table in a game of a fixed number of deals (``match.max_deals`` of the
    information set, SRV-5; not a play-off deal) with ``deal_limit``: :func:`make_deal_limit_utility`;
    else the chance of winning the match to its target."""
    m = info.get("match") or {}
    if (objective == "match" and deal_limit and int(m.get("max_deals") or 0) > 0 and not m.get("playoff")
            and int(info.get("num_seats") or 2) == 2):
        return make_deal_limit_utility(info, me)
    if objective == "points":
        def points(o: DealOutcome) -> float:
            return 0.0 if o.winner < 0 else float(o.game_points if o.winner == me else -o.game_points)
        return points
    if objective == "win":
        def win(o: DealOutcome) -> float:
            return 0.0 if o.winner < 0 else (1.0 if o.winner == me else -1.0)
        return win
    m = info.get("match", {})
    gp = [int(x) for x in (m.get("game_points") or [0, 0])]
    target = int(m.get("set_target") or m.get("target") or 7)
    sets = [int(x) for x in (m.get("sets_won") or [0, 0])]
    sets_to_win = max(1, int(m.get("sets_to_win") or 1))
    carried = int(m.get("carried_points") or 0)
    need = [max(1, target - gp[0]), max(1, target - gp[1])]
    set_need = [max(1, sets_to_win - sets[0]), max(1, sets_to_win - sets[1])]
    opp = 1 - me

    def chance(need_me: int, need_opp: int) -> float:
        s = win_chance(need_me, need_opp)
        if max(set_need) <= 1 and sets_to_win <= 1:
            return s
        after_win = _sets_chance(set_need[me] - 1, set_need[opp]) if need_me <= 0 else None
        after_loss = _sets_chance(set_need[me], set_need[opp] - 1) if need_opp <= 0 else None
        if after_win is not None:
            return after_win
        if after_loss is not None:
            return after_loss
        return s * _sets_chance(set_need[me] - 1, set_need[opp]) + (1 - s) * _sets_chance(set_need[me], set_need[opp] - 1)

    table: dict[tuple[int, int], float] = {}

    def match(o: DealOutcome) -> float:
        key = (o.winner, o.game_points)
        v = table.get(key)
        if v is None:
            if o.winner < 0:
                v = chance(need[me], need[opp])
            else:
                g = o.game_points + carried
                v = chance(need[me] - g, need[opp]) if o.winner == me else chance(need[me], need[opp] - g)
            v = table[key] = 2.0 * v - 1.0
        return v

    return match


def make_deal_limit_utility(info: Mapping[str, Any], me: int, spread: float = DEAL_SPREAD) -> Callable[[DealOutcome], float]:
    """Utility in [-1, 1] of a two-player deal's outcome for seat ``me`` in a game that ends after
    ``match.max_deals`` deals, won by the higher total of the deals' game points (SRV-5; equal
    totals draw): after the last deal the result itself (1 won, 0 drawn, -1 lost), before it
    ``2 p - 1`` with ``p`` the chance that the margin of totals after this deal holds over the deals
    left, each adding a margin of spread ``spread`` game points (normal model). A deal won is
    credited its game points plus the points carried by drawn deals (O66-SCORE-2). A single-deal
    ladder game is thus played to win the deal, not for a match to 7 nobody plays."""
    m = info.get("match") or {}
    limit = int(m.get("max_deals") or 0)
    opp = 1 - me
    margin = 0
    for r in m.get("deals") or ():
        if not r.get("playoff"):
            gp = r.get("game_points") or (0, 0)
            margin += int(gp[me]) - int(gp[opp])
    left = max(0, limit - int(m.get("deal_number") or 0) - 1)
    carried = int(m.get("carried_points") or 0)
    scale = spread * math.sqrt(left)

    def value(o: DealOutcome) -> float:
        after = margin if o.winner < 0 else margin + (o.game_points + carried) * (1 if o.winner == me else -1)
        if left == 0:
            return float((after > 0) - (after < 0))
        return 2.0 * normal_cdf(after / scale) - 1.0

    return value


def make_rotation_utility(raw: Mapping[str, Any]) -> Callable[[DealOutcome], float] | None:
    """Utility in [-1, 1] of a rotation deal's outcome (``stockschnapsen``, ``snapszer-hu-3p-
    rotation``) for the seat of ``raw`` (its information set in **match** seats), over the
    outcome in **deal** seats (0, 1 = ``deal.seats``): the mean, over the two other seats, of
    ``2 p - 1``, ``p`` the chance of finishing ahead of that seat by :func:`win_chance` on the
    game points each still needs after the deal. The seat that sits out is credited the deal's
    game points too in ``stockschnapsen`` (STK-SCORE-1), nothing in the Hungarian game
    (HU3R-SCORE-1); so in Stockschnapsen a deal lost costs against both others and a deal won
    gains against one: the search plays safer than the two-player match model would. None if the
    information set is not a three-seat rotation deal the seat plays."""
    deal = raw.get("deal") or {}
    seats = [int(s) for s in deal.get("seats") or []]
    me = int(raw.get("seat", -1))
    if int(raw.get("num_seats", 2)) != 3 or len(seats) != 2 or me not in seats:
        return None
    m = raw.get("match") or {}
    gp = [int(x) for x in (m.get("game_points") or [0, 0, 0])]
    if len(gp) != 3:
        return None
    target = int(m.get("target") or 7)
    watcher = next(s for s in range(3) if s not in seats)
    watcher_credited = bool(getattr(find_variant(str(raw.get("variant", ""))).plan, "watcher_credited", False))
    others = [s for s in range(3) if s != me]
    table: dict[tuple[int, int], float] = {}

    def rotation(o: DealOutcome) -> float:
        key = (o.winner, o.game_points)
        v = table.get(key)
        if v is None:
            after = list(gp)
            if o.winner >= 0:
                after[seats[o.winner]] += o.game_points
                if watcher_credited:
                    after[watcher] += o.game_points
            need_me = target - after[me]
            v = 0.0
            for s in others:
                if need_me <= 0 and after[s] >= target:
                    p = 1.0 if after[me] > after[s] else 0.0 if after[me] < after[s] else 0.5
                else:
                    p = win_chance(need_me, target - after[s])
                v += p - 0.5
            v = table[key] = v  # mean of 2p - 1 over the two others
        return v

    return rotation
