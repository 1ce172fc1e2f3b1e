"""Every Bummerl variant as a PettingZoo AEC environment (needs ``pettingzoo``, ``gymnasium``,
``numpy``: ``pip install 'bummerl[learning]'``)::

    from bummerl.envs.pettingzoo import env
    e = env(variant="santase", match_target=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

* agents ``"seat_0"`` .. ``"seat_{n-1}"`` (match seats); the seat to act is ``agent_selection``;
* ``observation_space(agent)``: ``Dict(observation=Box(0, 1, (size,), float32),
  action_mask=Box(0, 1, (num_actions,), int8))``; the observation is the tensor of
  :mod:`bummerl.envs.encoding` built from that seat's information set (``perfect_recall=True``:
  the information-state tensor with the deal's public history), the mask marks the legal action
  ids (all zero when the agent is not to act);
* ``action_space(agent)``: ``Discrete(num_actions)`` over the engine's action ids (41 in the
  two-player games, 89 with bidding: :mod:`bummerl.rules.base.actions`); an illegal id raises the
  engine's ``IllegalActionError``;
* rewards in game points: with two sides a seat gets the points its side was credited minus
  the other side's, with three seats the points credited to it (as the OpenSpiel game's
  returns); ``rewards="deal"`` (default) pays each deal's points when it ends, ``"match"`` all of
  them when the episode ends; ``mode="deal"`` ends the episode after one deal, ``mode="match"``
  (default) after the match, so the episode's rewards add up to the match's game points;
* ``render()``: ``render_mode="ansi"`` returns the text of the seat to act's view (no hidden
  card), ``"human"`` prints it;
* ``reset(seed=...)``: the deals come from the engine's seed (SRV-1), drawn from ``seed``.

Table options are keyword arguments with their engine values or wire strings
(``auto_declare=True``, ``match_target=3``); a bad one raises ``InvalidOptionError`` at
``env(...)``. ``infos[agent]`` holds ``{"legal_actions": [...], "text": [...]}`` for the seat to act.

One seat of a live match on a server is the SDK's remote env (:func:`bummerl_client.envs.remote_env`,
same observations and rewards).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from bummerl.rules import MatchState, action_to_string, find_variant, information_set

from .common import num_actions, observation_text, returns_of
from .encoding import Encoder, legal_mask

__all__ = ["BummerlEnv", "env", "raw_env"]


class BummerlEnv(AECEnv):  # type: ignore[misc]  # pettingzoo is untyped
    """The AEC environment (module docstring). ``match`` is the engine's MatchState."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "bummerl_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "schnapsen-at", mode: str = "match", perfect_recall: bool = False,
                 render_mode: str | None = None, max_deals: int = 0, rewards: str = "deal", **options: Any) -> None:
        super().__init__()
        if mode not in ("match", "deal"):
            raise ValueError(f"mode must be 'match' or 'deal', not {mode!r}")
        if rewards not in ("deal", "match"):
            raise ValueError(f"rewards must be 'deal' (when each deal ends) or 'match' (at the end), not {rewards!r}")
        self.reward_timing = rewards
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.rules = find_variant(variant).configure(options)
        self.mode = mode
        self.perfect_recall = perfect_recall
        self.render_mode = render_mode
        self.max_deals = max_deals
        n = self.rules.spec.num_players
        self.encoder = Encoder(n, len(self.rules.deck))
        self.num_actions = num_actions(self.rules)
        self.possible_agents = [f"seat_{s}" for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        size = self.encoder.info_size if perfect_recall else self.encoder.size
        self._obs_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._rng = random.Random()
        self.match: MatchState | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        # mode=deal: a deal limit of 1 (SRV-5) ends the match with the deal, so the views show it finished
        self.match = MatchState(self.rules, self._rng.getrandbits(63), max_deals=1 if self.mode == "deal" else self.max_deals)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._deals_credited = 0
        self.agent_selection = self.possible_agents[self.match.to_act]
        self._set_infos()

    def _set_infos(self) -> None:
        m = self.match
        assert m is not None
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        if m.to_act >= 0 and not self.terminations.get(self.possible_agents[m.to_act], True):
            legal = m.legal_actions()
            self.infos[self.possible_agents[m.to_act]] = {"legal_actions": legal,
                                                          "text": [action_to_string(a) for a in legal]}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        m = self.match
        assert m is not None, "reset() first"
        seat = self._seat[agent]
        info = information_set(m, seat)
        obs = self.encoder.encode(info, self.perfect_recall)
        legal = m.legal_actions() if m.to_act == seat and not self.terminations.get(agent, True) else []
        return {"observation": obs, "action_mask": legal_mask(legal, self.num_actions)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        m = self.match
        assert m is not None
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for a terminated agent")
        self._cumulative_rewards[agent] = 0.0
        m.apply(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        end = m.over or (self.mode == "deal" and bool(m.results))
        if len(m.results) > self._deals_credited and (end or self.reward_timing == "deal"):
            pts = returns_of(self.rules, m.results[self._deals_credited:len(m.results) if self.mode == "match" else 1])
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] = float(pts[s])
            self._deals_credited = len(m.results)
        if end:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[m.to_act]
        self._accumulate_rewards()
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The text of the view of the seat to act (or seat 0 when the episode is over)."""
        if self.match is None:
            return None
        seat = self.match.to_act if self.match.to_act >= 0 else 0
        text = observation_text(information_set(self.match, seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(variant: str = "schnapsen-at", **kwargs: Any) -> BummerlEnv:
    """The environment without PettingZoo's wrappers."""
    return BummerlEnv(variant, **kwargs)


def env(variant: str = "schnapsen-at", server: str | None = None, **kwargs: Any) -> AECEnv:
    """``BummerlEnv(variant, **kwargs)`` (module docstring), the engine in this process.
    PettingZoo's usual wrappers are not applied: the env refuses an illegal action with the
    engine's IllegalActionError. A seat of a match on a server is the SDK's remote env,
    ``bummerl_client.envs.remote_env(variant, server, token, match_id, seat)``: giving ``server``
    here raises ValueError saying so (the engine's package does not reach the network)."""
    if server is not None:
        raise ValueError("a remote env is the SDK's: from bummerl_client.envs import remote_env; "
                         f"remote_env({variant!r}, server={server!r}, token=..., match_id=..., seat=...)")
    return BummerlEnv(variant, **kwargs)
