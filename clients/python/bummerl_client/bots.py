"""The bundled bots for SDK users (``from bummerl_client.bots import make_bot``, as the README
writes it): re-exported from :mod:`bummerl.bots`, where they live, plus :func:`from_policy` and
:func:`from_openspiel`, the learning agents of ``bummerl[learning]`` as bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bummerl.bots import BOTS, GreedyBot, RandomBot, StrongBot, StrongV1Bot, make_bot, split_bot_specs
from bummerl.bots.base import Bot

__all__ = ["BOTS", "GreedyBot", "RandomBot", "StrongBot", "StrongV1Bot", "from_openspiel", "from_policy", "make_bot",
           "split_bot_specs"]


def from_policy(policy: Callable[[Any], int], perfect_recall: bool = False, seed: int | None = None) -> Bot:
    """A PettingZoo / Gymnasium policy (observation dict -> action id) as a Bot: see
    :class:`bummerl.envs.adapters.PolicyBot`. Needs the learning extra (``bummerl[learning]``:
    numpy, gymnasium, pettingzoo), hence imported here on first use."""
    from bummerl.envs.adapters import PolicyBot  # optional extra: bummerl[learning]

    return PolicyBot(policy, perfect_recall, seed)


def from_openspiel(bot: object, seed: int | None = None) -> Bot:
    """An OpenSpiel bot (``ISMCTSBot``, ``MCTSBot``...) as a Bot, every variant: see
    :class:`bummerl.envs.adapters.OpenSpielBot`. Needs the learning extra (``bummerl[learning]``),
    hence imported here on first use."""
    from bummerl.envs.adapters import OpenSpielBot  # optional extra: bummerl[learning]

    return OpenSpielBot(bot, seed)
