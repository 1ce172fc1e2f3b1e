"""A Gymnasium single-agent view of any Bummerl variant: one seat is the agent, the other seats are
played by bundled bots (``random``, ``greedy``, ``strong``: :func:`bummerl_client.bots.make_bot`)
or by any :class:`bummerl_client.Bot`::

    from bummerl.envs.gym import SingleSeat
    env = SingleSeat("schnapsen-at", opponents="greedy", mode="deal")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

Spaces, observation and rewards are those of the PettingZoo env
(:class:`bummerl.envs.pettingzoo.BummerlEnv`, which it drives): ``Dict(observation, action_mask)``,
``Discrete(num_actions)`` over the engine's action ids, and the agent's game points, given at
each step in which deals ended (``mode="deal"``: one deal per episode; ``"match"``: the match).
In ``mode="deal"`` a deal in which the agent's seat sits out (the rotation games) is skipped
at reset, so that every episode has an action of the agent.
``info`` holds ``legal_actions`` (ids) and ``text`` (their text forms) while the agent is to act.
An illegal action raises the engine's ``IllegalActionError``; the episode is then unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from bummerl.bots import Bot, InfoSet, make_bot
from bummerl.rules import information_set, parse_action
from bummerl.rules.base.actions import check_id

from .pettingzoo import BummerlEnv

__all__ = ["SingleSeat"]


class SingleSeat(gymnasium.Env):
    """Seat ``seat`` of ``variant`` as a Gymnasium env (module docstring).

    ``opponents``: one bot spec or :class:`Bot` for every other seat, or a list with one per
    other seat in seat order (``"strong:samples=8"``; each spec's bot is seeded from the reset
    seed). Other keyword arguments go to :class:`BummerlEnv` (``mode``, ``perfect_recall``,
    ``max_deals``, table options). Raises ValueError for a wrong number of opponents or an
    unknown bot, InvalidOptionError for a bad table option."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, variant: str = "schnapsen-at", opponents: str | Bot | Sequence[str | Bot] = "random",
                 seat: int = 0, render_mode: str | None = None, **kwargs: Any) -> None:
        self.aec = BummerlEnv(variant, render_mode=render_mode, **kwargs)
        n = len(self.aec.possible_agents)
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        specs = [opponents] * (n - 1) if isinstance(opponents, str | Bot) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{variant} needs {n - 1} opponents, got {len(specs)}")
        self._specs = specs
        for spec in specs:  # an unknown name fails here, not at reset
            if isinstance(spec, str):
                make_bot(spec, 0)
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._bots: dict[int, Bot] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        others = [s for s in range(len(self.aec.possible_agents)) if s != self.seat]
        base = 0 if seed is None else seed * 8
        self._bots = {s: make_bot(spec, base + s) if isinstance(spec, str) else spec
                      for s, spec in zip(others, self._specs, strict=True)}
        self.aec.reset(seed=seed)
        self._run_others()
        while self._done():  # a deal the seat sat out (STK-SEAT-1, HU3R-SEAT-1): the next one
            self.aec.reset()
            self._run_others()
        return self.aec.observe(self.agent), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._done():
            raise RuntimeError("the episode is over: call reset()")
        self.aec.step(int(action))
        self._run_others()
        reward = float(self.aec._cumulative_rewards[self.agent])
        self.aec._cumulative_rewards[self.agent] = 0.0
        return self.aec.observe(self.agent), reward, self._done(), False, self._info()

    def _done(self) -> bool:
        return bool(self.aec.terminations[self.agent])

    def _run_others(self) -> None:
        """Let the bots act until it is the agent's turn or the episode is over."""
        aec = self.aec
        while not self._done() and aec.agent_selection != self.agent:
            m = aec.match
            assert m is not None
            s = m.to_act
            choice = self._bots[s].choose(InfoSet(information_set(m, s)))
            aec.step(parse_action(choice) if isinstance(choice, str) else check_id(choice))

    def _info(self) -> dict[str, Any]:
        return dict(self.aec.infos.get(self.agent, {})) if not self._done() else {}

    def render(self) -> str | None:
        return self.aec.render()
