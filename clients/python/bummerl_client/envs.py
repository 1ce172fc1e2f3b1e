"""The PettingZoo env against a live server (needs the learning extra, ``bummerl[learning]``): one seat of a real match, played through the public
gRPC API, so that a policy trained offline is evaluated on a server (a ladder match included)
without another wrapper::

    from bummerl_client.envs import remote_env
    e = remote_env("schnapsen-at", server="localhost:50051", token=SEAT_TOKEN, match_id=MATCH_ID, seat=0)
    e.reset()
    for agent in e.agent_iter():          # one agent: "seat_0"; other seats are played elsewhere
        obs, reward, termination, truncation, info = e.last()
        e.step(None if termination or truncation else my_policy(obs))
    e.close()

Observation, action mask, action space and rewards are those of the local env
(:class:`bummerl.envs.pettingzoo.BummerlEnv`), computed from the information set the server
sends the seat (the encoder reads nothing else). The env follows the match by its stream, never
by polling: ``reset`` starts the SDK's :func:`bummerl_client.runner.play_seat` for the seat (one
bidirectional ``Play`` call: the server pushes every update and takes the seat's actions on the
same call; on a server without ``Play``, ``StreamMatch`` and ``SubmitAction``), on an event loop
in a background thread of the env. Each time the seat is to act, or when the match is over, the
env's thread is handed that information set; ``step`` hands the action back and waits for the
next one (at most ``timeout_s`` seconds: TimeoutError). The runner's fault handling applies: a
dropped call is opened again from the last version seen, an action in doubt is sent again with
the same expected version (``give_up_s``: how long the server may stay unreachable).

Only ``mode="match"``: the episode is the rest of the match; ``reset()`` joins it where it stands
(a second reset after the end raises RuntimeError). An action that is not legal raises the
engine's :class:`~bummerl.rules.IllegalActionError` and is not sent (the env is unchanged, as
in the local env); other server errors arrive as :class:`bummerl_client.BummerlError` (a wrong
token: ``PERMISSION_DENIED``). ``close()`` ends the call and the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from bummerl.bots import Bot, InfoSet
from bummerl.envs.common import num_actions, observation_text, returns_of
from bummerl.envs.encoding import Encoder, legal_mask
from bummerl.rules import IllegalActionError, action_to_string, find_variant

from .client import AsyncClient
from .runner import play_seat

__all__ = ["RemoteSeatEnv", "remote_env"]


class _Seat(Bot):
    """The env's seat as a bot of :func:`~bummerl_client.runner.play_seat`: each decision is put
    on the env's queue with a future that the env's ``step`` resolves with the action."""

    name = "env"

    def __init__(self, handoff: queue.Queue[tuple[str, Any, Any]]) -> None:
        super().__init__(0)
        self.handoff = handoff

    async def achoose(self, info: InfoSet) -> int | str:
        answer: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.handoff.put(("turn", info.raw, answer))
        return await answer


class RemoteSeatEnv(AECEnv):  # type: ignore[misc]  # pettingzoo is untyped
    """Seat ``seat`` of match ``match_id`` on ``server`` (``HOST:PORT``), authorised by its seat
    ``token`` (module docstring). ``variant`` must be the match's variant (checked at reset).
    ``timeout_s``: the longest ``reset`` and ``step`` wait for the seat's next turn, seconds;
    ``give_up_s``: how long the server may stay unreachable, seconds. Raises ValueError for
    ``mode="deal"`` or a seat not at the table."""

    metadata = {"render_modes": ["ansi", "human"], "name": "bummerl_remote_v0", "is_parallelizable": False}

    def __init__(self, variant: str, server: str, token: str, match_id: str, seat: int, mode: str = "match",
                 perfect_recall: bool = False, render_mode: str | None = None, timeout_s: float = 600.0,
                 give_up_s: float = 120.0, **options: Any) -> None:
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
        self.timeout_s, self.give_up_s = timeout_s, give_up_s
        self.encoder = Encoder(n, len(self.rules.deck))
        self.num_actions = num_actions(self.rules)
        self.possible_agents = [f"seat_{seat}"]
        size = self.encoder.info_size if perfect_recall else self.encoder.size
        self._obs_space = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                                       "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8)})
        self._act_space = spaces.Discrete(self.num_actions)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: AsyncClient | None = None
        self._drive: concurrent.futures.Future[None] | None = None
        self._handoff: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
        self._answer: asyncio.Future[int] | None = None
        self.info: Mapping[str, Any] = {}
        self._finished = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # ---------------------------------------------------------------- the background loop
    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _start(self) -> None:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="bummerl-remote-env", daemon=True)
            self._thread.start()

            async def make() -> AsyncClient:
                return AsyncClient(self.server)

            self._client = self._run(make())

    def _stop_drive(self) -> None:
        if self._drive is not None:
            self._drive.cancel()
            try:
                self._drive.result(5)
            except (concurrent.futures.CancelledError, concurrent.futures.TimeoutError, Exception):  # noqa: BLE001
                pass  # its outcome was handed over already, or nobody waits for it any more
            self._drive = None
        self._answer = None
        self._handoff = queue.Queue()

    async def _play(self, handoff: queue.Queue[tuple[str, Any, Any]]) -> None:
        assert self._client is not None
        try:
            last = await play_seat(self._client, self.match_id, self.seat, self.token, _Seat(handoff),
                                   give_up_s=self.give_up_s)
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - handed to the env's thread, which raises it
            handoff.put(("error", e, None))
            return
        handoff.put(("over", last, None))

    # ---------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if self._finished:
            raise RuntimeError("the remote match is over; create a new match and a new env")
        self._start()
        assert self._client is not None and self._loop is not None
        self._stop_drive()
        agent = self.possible_agents[0]
        self.agents = [agent]
        self.agent_selection = agent
        self.rewards = {agent: 0.0}
        self._cumulative_rewards = {agent: 0.0}
        self.terminations = {agent: False}
        self.truncations = {agent: False}
        first = self._run(self._client.information_set(self.match_id, self.seat, self.token))
        if first.get("variant") != self.rules.spec.id:
            raise ValueError(f"match {self.match_id} plays {first.get('variant')}, not {self.rules.spec.id}")
        self._credited = len(first["match"]["deals"])
        self._drive = asyncio.run_coroutine_threadsafe(self._play(self._handoff), self._loop)
        self._wait()
        self._settle()

    def _wait(self) -> None:
        """Block until the seat is to act or the match is over (the runner hands the information
        set over); raises TimeoutError after ``timeout_s`` and what the runner raised."""
        try:
            kind, info, answer = self._handoff.get(timeout=self.timeout_s)
        except queue.Empty:
            raise TimeoutError(f"seat {self.seat} of match {self.match_id} was not to act within "
                               f"{self.timeout_s} s") from None
        if kind == "error":
            self._drive = None
            raise info
        self.info = info
        self._answer = answer

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
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for a terminated agent")
        legal = [int(a["id"]) for a in self.info["legal_actions"]]
        if int(action) not in legal:
            raise IllegalActionError(f"action {int(action)} is not legal now; legal: "
                                     f"{', '.join(f'{a} ({action_to_string(a)})' for a in legal)}")
        assert self._loop is not None and self._answer is not None
        answer, self._answer = self._answer, None
        self._loop.call_soon_threadsafe(answer.set_result, int(action))
        self._cumulative_rewards[agent] = 0.0
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
        if self._loop is None:
            return
        self._stop_drive()
        if self._client is not None:
            self._run(self._client.close())
            self._client = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(5)
        self._loop.close()
        self._loop = None
        self._thread = None


def remote_env(variant: str, server: str, token: str, match_id: str, seat: int = 0, **kwargs: Any) -> RemoteSeatEnv:
    """The PettingZoo env of ``seat`` of match ``match_id`` on the server at ``server``
    (``HOST:PORT``), played with the seat's ``token`` (module docstring); ``kwargs`` as for
    :class:`RemoteSeatEnv`. Raises ValueError without a ``token`` or ``match_id``."""
    if not token or not match_id:
        raise ValueError("a remote env needs the seat's token and the match_id")
    return RemoteSeatEnv(variant, server, token, match_id, seat, **kwargs)
