"""``DeterminizedMCTSBot``: OpenSpiel's ``MCTSBot`` searching determinized states of the
``"bummerl"`` game (:mod:`bummerl.envs.openspiel`), drawn with ``resample_from_infostate``."""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from .spiel_game import BummerlGame, BummerlState

__all__ = ["DeterminizedMCTSBot"]


class DeterminizedMCTSBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel is untyped
    """OpenSpiel's ``MCTSBot`` with determinization (perfect-information Monte Carlo): at each
    decision ``worlds`` states are drawn with ``resample_from_infostate`` and searched by an
    ``MCTSBot`` of ``simulations`` each (random rollouts); the action with the most root visits
    summed over the worlds is played. ``seed`` makes it reproducible."""

    def __init__(self, game: BummerlGame, worlds: int = 4, simulations: int = 50, rollouts: int = 1,
                 seed: int = 0) -> None:
        super().__init__()
        self._rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(rollouts, self._rng)
        self._mcts = mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=self._rng, solve=False)
        self._worlds = worlds

    def step(self, state: BummerlState) -> int:
        visits: dict[int, int] = {}
        player = state.current_player()
        for _ in range(self._worlds):
            world = state.resample_from_infostate(player, self._rng.random_sample)
            root = self._mcts.mcts_search(world)
            for child in root.children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
        return max(sorted(visits), key=lambda a: visits[a])

    def restart_at(self, state: BummerlState) -> None:
        pass
