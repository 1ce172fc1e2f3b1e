"""``random``: picks uniformly among the legal actions."""

from __future__ import annotations

from .base import Bot, InfoSet


class RandomBot(Bot):
    name = "random"

    def choose(self, info: InfoSet) -> int | str:
        return int(self.rng.choice(info.legal_actions)["id"])
