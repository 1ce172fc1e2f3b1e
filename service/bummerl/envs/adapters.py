"""Learning-library agents as :class:`bummerl.bots.Bot` s, so that they play on a server (a ladder
included) like any bundled bot (``bummerl_client.bots.from_policy`` / ``from_openspiel``).

* :class:`PolicyBot`: a PettingZoo / Gymnasium policy, any callable from the env's observation
  dict (``{"observation", "action_mask"}``, :mod:`bummerl.envs.encoding`, built from the
  information set the server sends) to an action id. Every variant.
* :class:`OpenSpielBot`: an OpenSpiel bot (``pyspiel.Bot``: ``ISMCTSBot``, ``MCTSBot``,
  :class:`~bummerl.envs.openspiel.DeterminizedMCTSBot`...) stepped on a ``bummerl`` game state
  (``mode=deal``, the variant's game with every seat of the table) rebuilt from the information
  set: the seat's hand, the public counters of the deal and one layout of the unseen cards
  consistent with everything public, drawn by the ``strong`` bot's determinization: for a
  two-player deal (the two-player games and the rotation deals of ``stockschnapsen`` and
  ``snapszer-hu-3p-rotation``, read in deal seats by :func:`bummerl.rules.worlds.local_view`)
  :class:`bummerl.rules.worlds.PublicDeal` (known cards, revealed voids); for a
  contract deal (``bauernschnapsen``, ``talonschnapsen``, ``snapszer-hu-3p-sopron``,
  ``snapszer-hu-4p``) :class:`bummerl.rules.worlds.ContractSampler` (the whole
  public history replayed on a sampled deal). Its ``resample_from_infostate`` draws further
  layouts the same way (for the deciding seat, the one a search resamples for). Every variant; the
  bot optimises the current deal's game points (the game's ``returns`` in ``mode=deal``). A
  play-off deal of a contract game (a deal of another variant, TS-MATCH-1 / HU3S-MATCH-1) is not
  a state of the bot's game: there the bundled ``greedy`` bot chooses, as it does when no layout
  fits the information set (the ``strong`` bot's fallback); a resampling that finds no other
  layout gives the first one again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from bummerl.bots import Bot, BotFault, InfoSet, make_bot
from bummerl.rules import configure_cached
from bummerl.rules.base.actions import check_id
from bummerl.rules.worlds import (
    ContractSampler,
    InconsistentInfo,
    NoSample,
    PublicDeal,
    is_rotation_deal,
    local_view,
    match_playoff,
)

from .common import num_actions
from .encoding import Encoder, legal_mask

__all__ = ["NotAState", "OpenSpielBot", "PolicyBot"]


class NotAState(ValueError):
    """The information set's deal is not a state of the bot's game (a play-off deal of another
    variant)."""


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
    search starts anew). The bot must play the information set's variant with its table
    options in ``mode=deal`` (``load(variant, mode="deal", **options)``), the game of the states
    it is given. ``decisions_by_fallback`` counts the decisions left to ``greedy`` (play-off
    deals of the contract games, no layout found)."""

    name = "openspiel"

    def __init__(self, bot: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.bot = bot
        self._games: dict[str, Any] = {}
        self._greedy: Bot | None = None
        self.decisions_by_fallback = 0

    def _game(self, raw: Mapping[str, Any]) -> Any:
        import pyspiel  # optional extra (open-spiel): PolicyBot does without it

        from .openspiel import openspiel_params  # optional extra; registers the game "bummerl"

        options = {str(k): str(v) for k, v in (raw.get("options") or {}).items()}
        key = repr((raw["variant"], sorted(options.items())))
        if key not in self._games:
            self._games[key] = pyspiel.load_game("bummerl", openspiel_params(str(raw["variant"]), options, "deal"))
        return self._games[key]

    def state(self, raw: Mapping[str, Any]) -> Any:
        """The ``bummerl`` OpenSpiel state (``mode=deal``) of one consistent layout. Raises
        :class:`NotAState` for a play-off deal of a contract game, and
        :class:`~bummerl.rules.worlds.NoSample` or
        :class:`~bummerl.rules.worlds.InconsistentInfo` (ValueErrors) when no layout
        fits."""
        from .openspiel import BummerlState  # optional extra (open-spiel)

        game = self._game(raw)
        n = int(raw.get("num_seats", 2))
        deal_seats = [int(s) for s in (raw.get("deal") or {}).get("seats") or range(n)]
        if n == 2 or is_rotation_deal(raw):
            if n > 2 and match_playoff(raw) and getattr(game.rules.spec.plan, "playoff_variant", None):
                raise NotAState("a play-off deal of another variant is not a state of this game")
            public = PublicDeal(local_view(raw) if n > 2 else raw)

            def make(rng: random.Random) -> BummerlState:
                opp, talon = public.sample(rng)
                # deal seats -> match seats (the same in two-player games)
                d = public.deal_state(opp, talon, (deal_seats[0], deal_seats[1]))
                return BummerlState.from_deal(game, d, d.dealer_seat, sampler)
        else:
            if match_playoff(raw):
                raise NotAState("a play-off deal of another variant is not a state of this game")
            sampler_ = ContractSampler(raw)

            def make(rng: random.Random) -> BummerlState:
                d = sampler_.sample(rng)
                return BummerlState.from_deal(game, d, d.dealer_seat, sampler)

        def sampler(player: int, probability_sampler: Any) -> BummerlState:
            try:
                return make(random.Random(int(probability_sampler() * 2**53)))
            except (NoSample, InconsistentInfo):
                clone: BummerlState = first.clone()
                return clone

        first = make(self.rng)
        return first

    def choose(self, info: InfoSet) -> int | str:
        try:
            s = self.state(info.raw)
        except (NotAState, NoSample, InconsistentInfo):
            self._greedy = self._greedy or make_bot("greedy", self.rng.randrange(2**32))
            self.decisions_by_fallback += 1
            return self._greedy.choose(info)
        if hasattr(self.bot, "reset"):  # a fresh search per decision (ISMCTSBot keeps its tree)
            self.bot.reset()
        return check_id(int(self.bot.step(s)))
