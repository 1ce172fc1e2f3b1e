"""Bundled bots, by name: ``random`` and ``greedy`` (see :func:`make_bot`)."""

from __future__ import annotations

from ..bot import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bundled bot by name; raises ValueError listing the known names."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None


__all__ = ["BOTS", "GreedyBot", "RandomBot", "make_bot"]
