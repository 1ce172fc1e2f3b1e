"""What the OpenSpiel game, the PettingZoo env and the Gymnasium wrapper share without their
libraries: the action space of a variant, returns in game points, the utility bound and the
observation text."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from bummerl.rules import DealResult, Rules
from bummerl.rules import actions as A

__all__ = ["Returns", "max_deal_points", "num_actions", "observation_text", "returns_of", "two_sides"]


def max_deal_points(rules: Rules) -> int:
    """The most game points one deal can credit a seat (the scoring tables of docs/RULES.md):
    3 in the trick-and-draw deals (+3 for points carried by drawn deals, O66-SCORE-2), the
    highest contract value times the highest multiplier (``max_kontra_level``) in the contract
    games (BS-CON-1, HU3S-CON table)."""
    cls = rules.spec.deal_class
    values = getattr(sys.modules[cls.__module__], "VALUES", None) if cls is not None else None
    if not values:
        return 6 if rules.options.get("draw_carry_point") else 3
    multiplier: int = 2 ** int(rules.options.get("max_kontra_level", 0))  # int ** int is Any to typeshed
    return int(max(values.values())) * multiplier


def num_actions(rules: Rules) -> int:
    """Distinct action ids of the variant: 1 + the highest id of its action kinds (41 for the
    two-player trick-and-draw games, 89 with bidding, trump naming, laying away and kontra)."""
    kinds = rules.spec.action_kinds
    return 1 + max(a for a in range(A.NUM_ACTIONS) if A.action_kind(a) in kinds)


def two_sides(rules: Rules) -> bool:
    """Whether the seats form two sides (two seats, or two partnerships of four): zero-sum."""
    return len(set(rules.spec.team_of_seat)) == 2


def returns_of(rules: Rules, results: Sequence[DealResult | Mapping[str, Any]]) -> list[float]:
    """Game points per seat over ``results`` (finished deals: the engine's DealResult or the
    ``DealResult`` dict of an information set): with two sides the points of the seat's side
    minus the other side's (zero-sum), with three seats the points credited to the seat
    (general-sum; STK-SCORE-1 credits the watcher too). Teammates are credited alike.
    :class:`Returns` is the same, with the sides worked out once per table."""
    return Returns(rules)(results)


class Returns:
    """:func:`returns_of` for one table (``Returns(rules)(results) -> [float] * seats``), the sides
    worked out once: what an environment calls at the end of every deal."""

    __slots__ = ("n", "other")

    def __init__(self, rules: Rules) -> None:
        n = self.n = rules.spec.num_players
        team = rules.spec.team_of_seat
        #: the seat of the other side whose points are subtracted (two sides), else None
        self.other = [next(o for o in range(n) if team[o] != team[s]) for s in range(n)] if two_sides(rules) else None

    def __call__(self, results: Sequence[DealResult | Mapping[str, Any]]) -> list[float]:
        rng = range(self.n)
        tot = [0] * self.n
        for r in results:
            gp = r["game_points"] if isinstance(r, Mapping) else r.game_points
            for s in rng:
                tot[s] += int(gp[s])
        return self.points(tot)

    def points(self, credited: Sequence[int]) -> list[float]:
        """The returns of game points ``credited`` per seat (one deal's credit, or the sum of several)."""
        other = self.other
        if other is None:
            return [float(t) for t in credited]
        if self.n == 2:
            a = credited[0] - credited[1]
            return [float(a), float(-a)]
        return [float(credited[s] - credited[other[s]]) for s in range(self.n)]


def observation_text(info: Mapping[str, Any]) -> str:
    """A short text of the current view: ``"p0 lead to_act 0 | trump H (JH) talon 8 open |
    hand AH TH | trick - | game 3:2"``."""
    match = info.get("match") or {}
    score = ":".join(str(x) for x in match.get("game_points", ()))
    deal = info.get("deal")
    if deal is None:
        return f"p{info['seat']} shuffling deal {match.get('deal_number', 0)} | game {score}"
    phase = str(deal.get("phase", "")).removeprefix("PHASE_").lower()
    talon = str(deal.get("talon_state", "")).removeprefix("TALON_STATE_").lower()
    trick = " ".join(f"{t['seat']}:{t['card']}" for t in deal.get("current_trick", ())) or "-"
    trump = deal.get("trump_suit") or "-"
    tc = f" ({deal['trump_card']})" if deal.get("trump_card") else ""
    contract = ((deal.get("auction") or {}).get("contract") or {}).get("name", "")
    extra = f" | contract {contract}" if contract else ""
    return (f"p{info['seat']} {phase} to_act {deal.get('to_act', -1)} | trump {trump}{tc} talon "
            f"{deal.get('talon_size', 0)} {talon} | hand {' '.join(deal.get('hand', ())) or '-'} | trick {trick}"
            f"{extra} | game {score}")
