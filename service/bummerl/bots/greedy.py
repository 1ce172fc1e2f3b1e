"""``greedy``: a simple rule-based player that beats ``random`` clearly.

Declares 66 only when its recount of the public history says it has 66; announces marriages
(40 before 20); takes the trump card by exchange; while the talon is open, leads its cheapest
non-trump card and takes valuable tricks cheaply; under strict play, plays its strongest cards.

Contract games (docs/RULES.md §9-§12): names as trump the suit it holds most of (by points on a
tie); calls the base game where that is a call (``bid mehet``) and a Schnapser / snapszer only
with a strong trump holding (three trumps with the ace or ten, and another ace), otherwise
passes; lays away its cheapest side cards; never says kontra.
"""

from __future__ import annotations

from .base import RANK_ORDER, Bot, InfoSet, beats, card_points


class GreedyBot(Bot):
    name = "greedy"

    def choose(self, info: InfoSet) -> int | str:
        acts = info.legal_actions
        kinds = {a["kind"] for a in acts}
        trump = info.trump_suit
        if "declare" in kinds and info.own_deal_points() >= 66:
            return "declare"
        if kinds <= {"draw", "close"}:
            return "draw"
        if "exchange" in kinds and kinds <= {"exchange", "pass"}:
            return "exchange"
        if "exchange" in kinds:
            return "exchange"
        marriages = info.actions_of("marriage")
        if marriages:
            marriages.sort(key=lambda a: (a["card"][1] != trump, a["card"][0] != "Q"))
            return int(marriages[0]["id"])
        plays = [a for a in acts if a["kind"] == "play"]
        if not plays:
            return self._contract_call(info, acts, kinds)
        cards = [a["card"] for a in plays]
        by_card = {a["card"]: int(a["id"]) for a in plays}
        trick = info.current_trick
        if trick:  # following
            led = trick[0]["card"]
            winners = [c for c in cards if beats(c, led, trump)]
            value = card_points(led)
            if winners and (value >= 10 or not info.talon_open or any(c[1] == led[1] for c in winners)):
                same = [c for c in winners if c[1] == led[1]]
                pool = same or winners
                return by_card[min(pool, key=lambda c: (card_points(c), -RANK_ORDER.index(c[0])))]
            return by_card[min(cards, key=lambda c: (c[1] == trump, card_points(c)))]
        if info.talon_open:  # leading, talon open: cheap non-trump first
            return by_card[min(cards, key=lambda c: (c[1] == trump, card_points(c)))]
        return by_card[max(cards, key=lambda c: (card_points(c), c[1] == trump))]

    @staticmethod
    def _contract_call(info: InfoSet, acts: list[dict[str, object]], kinds: set[str]) -> int | str:
        """Trump naming, auction, lay-away and kontra of the contract games (see the module
        docstring); the first legal action for anything else."""
        hand = info.hand
        if "trump" in kinds:
            def strength(suit: str) -> tuple[int, int]:
                held = [c for c in hand if c[1] == suit]
                return len(held), sum(card_points(c) for c in held)

            best = max((a for a in acts if a["kind"] == "trump"), key=lambda a: strength(str(a["suit"])))
            return int(str(best["id"]))
        if "discard" in kinds:
            trump = info.trump_suit
            cheapest = min((a for a in acts if a["kind"] == "discard"),
                           key=lambda a: (str(a["card"])[1] == trump, card_points(str(a["card"]))))
            return int(str(cheapest["id"]))
        bids = {str(a["contract"]): int(str(a["id"])) for a in acts if a["kind"] == "bid"}
        if bids:
            trump = info.trump_suit
            trumps = [c for c in hand if c[1] == trump]
            aces = [c for c in hand if c[0] == "A" and c[1] != trump]
            strong = len(trumps) >= 3 and any(c[0] in "AT" for c in trumps) and aces
            for name in ("schnapser", "snapszer"):
                if strong and name in bids:
                    return bids[name]
            if "mehet" in bids:
                return bids["mehet"]
        if "pass" in kinds:
            return "pass"
        return int(str(acts[0]["id"]))
