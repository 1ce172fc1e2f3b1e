"""The PettingZoo env against a live server: one seat of a real match, played through the public
gRPC API (``GetInformationSet``, ``SubmitAction``), so that a policy trained offline is evaluated
on a server (a ladder match included) without another wrapper::

    from bummerl.envs.pettingzoo import env
    e = env("schnapsen-at", server="localhost:50051", token=SEAT_TOKEN, match_id=MATCH_ID, seat=0)
    e.reset()
    for agent in e.agent_iter():          # one agent: "seat_0"; other seats are played elsewhere
        obs, reward, termination, truncation, info = e.last()
        e.step(None if termination or truncation else my_policy(obs))

Observation, action mask, action space and rewards are those of the local env
(:class:`bummerl.envs.pettingzoo.BummerlEnv`), computed from the information set the server
sends the seat (the encoder reads nothing else). ``step`` submits the action with the version
the seat saw and then waits (polling every ``poll_s`` seconds, at most ``timeout_s``) until the
seat is to act again or the match is over. Only ``mode="match"``: the episode is the rest of the
match; ``reset()`` joins it where it stands (a second reset after the end raises RuntimeError).
Server errors arrive as :class:`bummerl_client.BummerlError` (an illegal action:
``FAILED_PRECONDITION``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from bummerl.rules import find_variant
from bummerl_client import Client

from .common import num_actions, observation_text, returns_of
from .encoding import Encoder, legal_mask

__all__ = ["RemoteSeatEnv"]


class RemoteSeatEnv(AECEnv):
    """Seat ``seat`` of match ``match_id`` on ``server`` (``HOST:PORT``), authorised by its seat
    ``token`` (module docstring). ``variant`` must be the match's variant (checked at reset).
    Raises ValueError for ``mode="deal"``."""

    metadata = {"render_modes": ["ansi", "human"], "name": "bummerl_remote_v0", "is_parallelizable": False}

    def __init__(self, variant: str, server: str, token: str, match_id: str, seat: int, mode: str = "match",
                 perfect_recall: bool = False, render_mode: str | None = None, poll_s: float = 0.02,
                 timeout_s: float = 600.0, **options: Any) -> None:
        super().__init__()
        if mode != "match":
            raise ValueError("a remote env plays the rest of a match: mode must be 'match'")
        self.rules = find_variant(variant).configure(options)
        n = self.rules.spec.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        self.server, self.token, self.match_id, self.seat = server, token, match_id, seat
        self.perfect_recall = perfect_recall
        self.render_mode = render_mode
        self.poll_s, self.timeout_s = poll_s, timeout_s
        self.encoder = Encoder(n, len(self.rules.deck))
        self.num_actions = num_actions(self.rules)
        self.possible_agents = [f"seat_{seat}"]
        size = self.encoder.info_size if perfect_recall else self.encoder.size
        self._obs_space = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                                       "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8)})
        self._act_space = spaces.Discrete(self.num_actions)
        self._client: Client | None = None
        self.info: Mapping[str, Any] = {}
        self._finished = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if self._finished:
            raise RuntimeError("the remote match is over; create a new match and a new env")
        if self._client is None:
            self._client = Client(self.server)
        agent = self.possible_agents[0]
        self.agents = [agent]
        self.agent_selection = agent
        self.rewards = {agent: 0.0}
        self._cumulative_rewards = {agent: 0.0}
        self.terminations = {agent: False}
        self.truncations = {agent: False}
        first = self._client.information_set(self.match_id, self.seat, self.token)
        if first.get("variant") != self.rules.spec.id:
            raise ValueError(f"match {self.match_id} plays {first.get('variant')}, not {self.rules.spec.id}")
        self._wait()
        self._credited = len(self.info["match"]["deals"])
        self._settle()

    def _wait(self) -> None:
        """Fetch the seat's information set until it is to act or the match is over."""
        assert self._client is not None
        deadline = time.monotonic() + self.timeout_s
        while True:
            self.info = self._client.information_set(self.match_id, self.seat, self.token)
            if self.info["match"]["over"] or self.info["legal_actions"]:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"seat {self.seat} of match {self.match_id} was not to act within {self.timeout_s} s")
            time.sleep(self.poll_s)

    def _settle(self) -> None:
        agent = self.agents[0]
        deals = self.info["match"]["deals"]
        self.rewards = {agent: 0.0}
        if len(deals) > self._credited:
            self.rewards[agent] = returns_of(self.rules, deals[self._credited:])[self.seat]
            self._credited = len(deals)
        if self.info["match"]["over"]:
            self.terminations = {agent: True}
            self._finished = True
        self.infos = {agent: {} if self._finished else {
            "legal_actions": [int(a["id"]) for a in self.info["legal_actions"]],
            "text": [a["text"] for a in self.info["legal_actions"]]}}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        ids = [int(a["id"]) for a in self.info.get("legal_actions", ())]
        return {"observation": self.encoder.encode(self.info, self.perfect_recall),
                "action_mask": legal_mask(ids, self.num_actions)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self._client is not None and action is not None
        self._cumulative_rewards[agent] = 0.0
        self._client.submit_action(self.match_id, self.seat, self.token, int(self.info["version"]), int(action))
        self._wait()
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = observation_text(self.info) if self.info else None
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
