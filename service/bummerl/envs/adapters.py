"""Learning-library agents as :class:`bummerl_client.Bot` s, so that they play on a server (a ladder
included) like any bundled bot (``bummerl_client.bots.from_policy`` / ``from_openspiel``).

* :class:`PolicyBot`: a PettingZoo / Gymnasium policy, any callable from the env's observation
  dict (``{"observation", "action_mask"}``, :mod:`bummerl.envs.encoding`, built from the
  information set the server sends) to an action id. Every variant.
* :class:`OpenSpielBot`: an OpenSpiel bot (``pyspiel.Bot``: ``ISMCTSBot``, ``MCTSBot``,
  :class:`~bummerl.envs.openspiel.DeterminizedMCTSBot`...) stepped on a ``bummerl`` game state
  (``mode=deal``) rebuilt from the information set: the seat's hand, the public counters of the
  deal and one layout of the unseen cards consistent with everything public (the ``strong`` bot's
  determinization, :mod:`bummerl_client.bots.determinize`: known cards, revealed voids). Its
  ``resample_from_infostate`` draws further layouts the same way. The two-player variants only
  (ValueError otherwise); the bot optimises the current deal's game points.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from bummerl.rules import configure_cached
from bummerl.rules.base.actions import check_id
from bummerl_client.bot import Bot, BotFault, InfoSet

from .common import num_actions
from .encoding import Encoder, legal_mask

__all__ = ["OpenSpielBot", "PolicyBot"]


class PolicyBot(Bot):
    """``policy(obs) -> action id`` as a Bot (module docstring); ``perfect_recall`` chooses the
    information-state tensor. An id that is not legal raises :class:`BotFault` (``illegal``)."""

    name = "policy"

    def __init__(self, policy: Callable[[dict[str, np.ndarray]], int], perfect_recall: bool = False,
                 seed: int | None = None) -> None:
        super().__init__(seed)
        self.policy = policy
        self.perfect_recall = perfect_recall
        self._encoders: dict[tuple[str, int], tuple[Encoder, int]] = {}

    def observation(self, raw: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The env's observation dict of an information set."""
        key = (str(raw["variant"]), int(raw["num_seats"]))
        if key not in self._encoders:
            rules = configure_cached(key[0], {str(k): str(v) for k, v in (raw.get("options") or {}).items()})
            self._encoders[key] = (Encoder(key[1], len(rules.deck)), num_actions(rules))
        enc, size = self._encoders[key]
        ids = [int(a["id"]) for a in raw.get("legal_actions", ())]
        return {"observation": enc.encode(raw, self.perfect_recall), "action_mask": legal_mask(ids, size)}

    def choose(self, info: InfoSet) -> int:
        a = int(self.policy(self.observation(info.raw)))
        if a not in {int(x["id"]) for x in info.legal_actions}:
            raise BotFault("illegal", f"the policy chose {a}, not a legal action")
        return a


class OpenSpielBot(Bot):
    """An OpenSpiel bot as a Bot (module docstring). ``bot.step(state)`` is called with a fresh
    determinized state at every decision (after ``bot.reset()`` where the bot has it: the
    search starts anew)."""

    name = "openspiel"

    def __init__(self, bot: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.bot = bot
        self._games: dict[str, Any] = {}

    def state(self, raw: Mapping[str, Any]) -> Any:
        """The ``bummerl`` OpenSpiel state (``mode=deal``) of one consistent layout."""
        from bummerl_client.bots.determinize import PublicDeal

        from .openspiel import BummerlState, openspiel_params

        if int(raw.get("num_seats", 2)) != 2:
            raise ValueError("OpenSpiel bots play the two-player variants through the SDK")
        public = PublicDeal(raw)
        options = {str(k): str(v) for k, v in (raw.get("options") or {}).items()}
        key = repr((raw["variant"], sorted(options.items())))
        if key not in self._games:
            import pyspiel

            self._games[key] = pyspiel.load_game("bummerl", openspiel_params(str(raw["variant"]), options, "deal"))
        game = self._games[key]

        def make(rng: random.Random) -> BummerlState:
            opp, talon = public.sample(rng)
            return BummerlState.from_deal(game, public.deal_state(opp, talon), public.dealer,
                                          lambda p, sampler: make(random.Random(int(sampler() * 2**53))))

        return make(self.rng)

    def choose(self, info: InfoSet) -> int:
        s = self.state(info.raw)
        if hasattr(self.bot, "reset"):  # a fresh search per decision (ISMCTSBot keeps its tree)
            self.bot.reset()
        return check_id(int(self.bot.step(s)))
