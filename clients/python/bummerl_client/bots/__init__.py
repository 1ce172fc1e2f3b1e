"""Bundled bots, by name: ``random``, ``greedy``, ``strong`` and ``strong-v1`` (``strong`` as issue
11 left it, for comparisons) (see :func:`make_bot`).

A bot spec is a name with optional options: ``strong:budget_ms=50,samples=8,seed=1``.
:func:`split_bot_specs` splits a comma-separated list of specs (``strong:budget_ms=50,greedy``)
and keeps each ``name=value`` that follows a spec with options as one of its options.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from ..bot import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot
from .strong import StrongBot, StrongV1Bot, parse_options

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot, "strong-v1": StrongV1Bot}

_OPTION = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bundled bot from its spec ``name`` or ``name:opt=value,...``.

    Raises ValueError (one line) for an unknown name, an option of a bot without options, or a
    bad option."""
    name, _, opts = spec.strip().partition(":")
    name = name.strip()
    cls = BOTS.get(name)
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))} (or exec:COMMAND, py:FILE.py:CLASS)")
    options = parse_options(opts)
    if issubclass(cls, StrongBot):
        return cls.from_options(seed, options)
    if options:
        raise ValueError(f"bot {name!r} takes no options (got {', '.join(options)})")
    return cls(seed)


def from_policy(policy: Callable[[Any], int], perfect_recall: bool = False, seed: int | None = None) -> Bot:
    """A PettingZoo / Gymnasium policy (observation dict -> action id) as a Bot: see
    :class:`bummerl.envs.adapters.PolicyBot` (needs ``bummerl[learning]``)."""
    from bummerl.envs.adapters import PolicyBot

    return cast(Bot, PolicyBot(policy, perfect_recall, seed))


def from_openspiel(bot: object, seed: int | None = None) -> Bot:
    """An OpenSpiel bot (``ISMCTSBot``, ``MCTSBot``...) as a Bot, every variant: see
    :class:`bummerl.envs.adapters.OpenSpielBot` (needs ``bummerl[learning]``)."""
    from bummerl.envs.adapters import OpenSpielBot

    return cast(Bot, OpenSpielBot(bot, seed))


def split_bot_specs(text: str) -> list[str]:
    """``"strong:budget_ms=50,samples=8,greedy"`` -> ``["strong:budget_ms=50,samples=8", "greedy"]``.

    A comma-separated item that looks like ``name=value`` continues the options of the spec
    before it when that spec has options (``name:...``, not ``exec:`` or ``py:``); anything else
    starts a new spec."""
    out: list[str] = []
    for item in text.split(","):
        if out and _OPTION.match(item) and ":" in out[-1] and not out[-1].startswith(("exec:", "py:")):
            out[-1] += "," + item.strip()
        elif item.strip():
            out.append(item.strip())
    return out


__all__ = ["BOTS", "GreedyBot", "RandomBot", "StrongBot", "StrongV1Bot", "from_openspiel", "from_policy", "make_bot",
           "split_bot_specs"]
