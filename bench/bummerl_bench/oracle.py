"""The clairvoyant reference of ``bummerl bench strong --bot oracle`` (two-player variants only).

``oracle`` is ``strong-v1``'s search (:class:`~bummerl.bots.strong.StrongV1Bot`: the
rule-based playout while the talon is open, then the exact endgame) run on the **one real
layout** of the hidden cards - the opponent's hand and the face-down talon in its order - instead
of sampled ones. It cheats: the harness shows it the engine's deal before each decision
(:meth:`OracleBot.see`), which no served bot can get, so it exists only in this benchmark and
never in ``make_bot``, ladders or ``bummerl bot run``. ``oracle:hand`` sees only the opponent's
hand and samples the talon's order.

What it measures: how much the hidden cards are worth to that search. A bot that infers the
hidden cards better than uniform sampling, or that removes PIMC's strategy fusion, gains at most
what clairvoyance gains with the same evaluation of positions (more samples alone gain nothing
once the search is saturated: ``bench/STRONG_NOTES.md``).
"""

from __future__ import annotations

import random
from typing import Any

from bummerl.bots.strong import Inference, StrongV1Bot
from bummerl.rules import MatchState
from bummerl.rules.worlds import PublicDeal

#: the ``--bot`` / ``--opponent`` spec of the reference
ORACLE = "oracle"


def hidden_layout(m: MatchState, seat: int) -> tuple[int, list[int]]:
    """The real hidden cards of a two-seat deal as ``seat`` would sample them: ``(the other
    seat's hand as a card mask, the face-down talon cards top first)`` - the talon's bottom card
    (the trump card, face up) left out, as :meth:`PublicDeal.sample` leaves it out."""
    d = m.deal
    talon = list(d.talon[d.tpos:])
    return d.hands[1 - seat], talon[:-1] if talon else []


class OracleBot(StrongV1Bot):
    """``strong-v1``'s search on the real layout only (one world a decision, deterministic).
    ``hand_only`` (spec ``oracle:hand``): it sees the opponent's hand but not the order of the
    talon, which it samples as ``strong-v1`` does, with its default 50 ms per decision - what a
    perfect inference of the opponent's hand could give at most. Raises RuntimeError if asked to
    decide without having been shown the deal (:meth:`see`)."""

    name = ORACLE

    def __init__(self, seed: int | None = None, hand_only: bool = False) -> None:
        if hand_only:
            super().__init__(seed, budget_ms=50.0)
        else:
            super().__init__(seed, samples=1, min_samples=1, prune=False)
        self.hand_only = hand_only
        self.layout: tuple[int, list[int]] | None = None

    def see(self, m: MatchState, seat: int) -> None:
        """Show the oracle the real deal before it decides for ``seat``."""
        self.layout = hidden_layout(m, seat)

    def _world(self, pub: PublicDeal, rng: random.Random, infer: Inference | None) -> tuple[int, list[int]]:
        if self.layout is None:
            raise RuntimeError("the oracle decides only in bench strong's harness, which shows it the deal")
        talon = list(self.layout[1])
        if self.hand_only:
            rng.shuffle(talon)
        return self.layout[0], talon


def bench_bot(spec: str, seed: int | None) -> Any:
    """:func:`bummerl.bots.make_bot`, plus ``oracle`` and ``oracle:hand`` (ValueError for
    any other option of the oracle)."""
    from bummerl.bots import make_bot

    name, _, opts = spec.strip().partition(":")
    if name.strip() == ORACLE:
        if opts.strip() not in ("", "hand"):
            raise ValueError(f"bot {ORACLE!r} takes no options but 'hand' (oracle:hand), not {opts.strip()!r}")
        return OracleBot(seed, hand_only=opts.strip() == "hand")
    return make_bot(spec, seed)


def is_oracle(spec: str) -> bool:
    """Whether a bot spec names the clairvoyant reference."""
    return spec.strip().partition(":")[0].strip() == ORACLE
